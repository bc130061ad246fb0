//! Simulated [`tokio::runtime`](https://docs.rs/tokio/1/tokio/runtime/index.html): build a simulation and run a future in it.
//!
//! Both [`Builder::new_current_thread`] and [`Builder::new_multi_thread`]
//! build the same thing: a single-threaded, deterministic simulation with a
//! simulated clock, driven step by step by a [`Scheduler`]. Options that only
//! make sense for real threads (`thread_name`...) are accepted and ignored,
//! so `tokio` code builds unchanged; a multi-thread runtime's workers
//! (`worker_threads`) are all played by the simulation's thread, and
//! counted as tokio counts them ([`RuntimeMetrics`], `on_thread_start`).
//!
//! Beyond tokio, the builder takes the simulation's [`seed`](Builder::seed)
//! (overridden by the `SIM_SEED` environment variable), limits on steps and
//! simulated time, and the [`Scheduler`] that makes its choices; a
//! [`Runtime`] exposes the [`Trace`] of what it ran.
//!
//! # Memory
//!
//! - **The trace** keeps [`RECORDED_STEP_BYTES`] (32) bytes per step that
//!   had a real choice and nothing per forced step (one enabled event), so
//!   a run whose steps are forced (a two-host TCP ping-pong) stays the same
//!   size however long it runs; [`Builder::full_trace`] records every step
//!   (`tests/runtime_trace_size.rs` counts both).
//! - **A task** is two allocations: its future, boxed with its output's
//!   slot, and its waker's state (`tests/task_lifecycle.rs` counts them for
//!   `spawn` and `spawn_local`, with every poll, wake and drop of a task's
//!   future and output). A one-allocation layout (the waker's state and the
//!   future in one reference-counted block, as tokio and async-task make a
//!   task) was built and measured: it cost W1 6% more instructions, because
//!   a `Waker` must be `Send + Sync` and so the block needs a lock or
//!   `unsafe` around the future and a second kind of task for futures that
//!   are not `Send`, and it left W2's time unchanged (its cost is 100,000
//!   tasks' memory, not malloc's count). See the guide's performance
//!   chapter (`docs/src/performance.md`).
//! - **The runtime's record of a task** is a 48-byte slot that a poll
//!   reads (56 in the slab), 32 bytes that only a join or a report reads,
//!   and 4 bytes while it is runnable: a task picked at random among
//!   100,000 costs a poll one or two cache lines of it, not three.
//!
//! # Engine layout
//!
//! This file is tokio's API ([`Runtime`], [`Builder`], [`Handle`]); the
//! engine below it, floor by floor (the guide's layout chapter,
//! `docs/src/layout.md`, draws all of the crate's floors):
//!
//! - settings: `config` (defaults, flavor, unhandled panics), `command`
//!   (the reproduction line), `budget` (the cooperative budget), `id`;
//! - records: `trace` (the recorded choices, [`Trace`], [`Step`]),
//!   `failure` (failure reports), `coverage`, `liveness`, `entropy`;
//! - the world: `world` (the executor, clock and hosts; `world/step.rs`
//!   the step loop, `world/hosts.rs`, `world/spawn.rs`), `task` (task
//!   cells and wakers), `run_queue`, `timer` (the timer queue), `context`
//!   (the simulation running on this thread), `net`, `fs`, `fault` (the
//!   models' glue and the fault injector), `watchdog`, `join_error`;
//! - `metrics`, `local_runtime`: tokio's [`RuntimeMetrics`] and
//!   [`LocalRuntime`] over a simulation, beside this file.

use std::fmt;
use std::future::Future;
use std::io;
use std::marker::PhantomData;
use std::panic::Location;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

pub(crate) mod budget;
pub(crate) mod command;
pub(crate) mod config;
pub(crate) mod context;
pub(crate) mod coverage;
pub(crate) mod entropy;
pub(crate) mod exact;
pub(crate) mod failure;
pub(crate) mod fault;
pub(crate) mod fs;
mod id;
pub(crate) mod join_error;
pub(crate) mod liveness;
// Reads and restores std's keys in the thread's TLS block.
#[allow(unsafe_code)]
mod clean_thread;
mod local_runtime;
mod metrics;
pub(crate) mod net;
mod run_queue;

pub(crate) mod task;
pub(crate) mod timer;
pub(crate) mod trace;
pub(crate) mod watchdog;
pub(crate) mod world;

pub use self::config::{
    RuntimeFlavor, UnhandledPanic, DEFAULT_LIVELOCK_STEPS, DEFAULT_MAX_STEPS, DEFAULT_MAX_TIME,
    DEFAULT_POLL_COST, DEFAULT_SEED, LATE_PROBABILITY,
};
pub use self::failure::{Failure, FailureKind};
pub use self::id::Id;
pub use self::local_runtime::{LocalOptions, LocalRuntime};
pub use self::metrics::RuntimeMetrics;
pub use self::trace::{ChoiceTag, Step, Trace, RECORDED_STEP_BYTES};
use self::world::{Config, Origin, World};
use crate::scheduler::{ChoiceKind, CurrentThreadScheduler, Replay, Scheduler};
pub use crate::story::{Happening, Told};
use crate::task::join_handle::JoinHandle;

const NESTED_BLOCK_ON: &str = "Cannot start a runtime from within a runtime. This happens \
    because a function (like `block_on`) attempted to block the current thread while the thread \
    is being used to drive asynchronous tasks. If you are in an async function, use `.await` on \
    the future instead of blocking on it.";

/// Builder options that only make sense for real threads or a real I/O
/// driver: accepted with tokio's signature and its argument check (`assert
/// check, "message"`: tokio's panic, at the caller's location), and
/// dropped.
macro_rules! ignored_options {
    ($($(#[$doc:meta])* fn $name:ident $(<$g:ident>)? ($arg:ident: $ty:ty) $(where [$($w:tt)*])?
        $(, assert $check:expr, $msg:literal)?;)*) => {
        $(
            $(#[$doc])*
            #[track_caller]
            pub fn $name$(<$g>)?(&mut self, $arg: $ty) -> &mut Self $(where $($w)*)? {
                $(assert!($check, $msg);)?
                let _ = $arg;
                self
            }
        )*
    };
}

/// Simulated [`tokio::runtime::Builder`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html).
///
/// # Examples
///
/// ```
/// let rt = sim_rt::runtime::Builder::new_current_thread()
///     .enable_all()
///     .seed(42)
///     .build()
///     .unwrap();
/// let out = rt.block_on(async {
///     let t = sim_rt::spawn(async { 1 + 1 });
///     t.await.unwrap()
/// });
/// assert_eq!(out, 2);
/// ```
///
/// # Differences from tokio
///
/// Thread, I/O-driver and metrics options are accepted and ignored; there is
/// one simulated thread. The simulation-only options are [`seed`](Self::seed),
/// [`scheduler`](Self::scheduler), [`replay`](Self::replay),
/// [`max_steps`](Self::max_steps), [`max_time`](Self::max_time),
/// [`network`](Self::network), [`disk`](Self::disk) and
/// [`fault_injector`](Self::fault_injector).
pub struct Builder {
    flavor: RuntimeFlavor,
    seed: Option<u64>,
    max_steps: u64,
    max_time: Duration,
    /// `None`: the default (see [`UnhandledPanic`]).
    unhandled_panic: Option<UnhandledPanic>,
    /// [`Builder::report_unobserved_panics`].
    report_unobserved_panics: bool,
    start_paused: bool,
    /// [`Builder::poll_cost`].
    poll_cost: Duration,
    scheduler: Option<OwnerThread<SchedulerFactory>>,
    net: sim_net::NetConfig,
    disk: sim_fs::FsConfig,
    /// [`Builder::real_files`].
    real_files: crate::disk::RealFiles,
    faults: Option<fault::FaultInjector>,
    /// Set by `exact_seed`: `SIM_SEED` is not read.
    exact_seed: bool,
    /// [`Builder::full_trace`].
    full_trace: bool,
    /// [`Builder::liveness_check_every`].
    liveness_every: u64,
    /// [`Builder::livelock_steps`].
    livelock_steps: u64,
    /// [`Builder::liveness_walk`].
    liveness_walk: u64,
    /// [`Builder::heal_at_step`].
    heal_at: u64,
    /// [`Builder::record_story`].
    record_story: bool,
    /// [`Builder::name`], for [`Handle::name`].
    name: Option<Arc<str>>,
    /// [`Builder::on_thread_park`] and [`Builder::on_thread_unpark`].
    park_hooks: world::ParkHooks,
    max_blocking_threads: usize,
    keep_alive: Duration,
    drivers: world::Drivers,
    /// Whether it builds a [`LocalRuntime`] (see [`Builder::build_local`]).
    local: bool,
    /// [`Builder::worker_threads`] (`None`: tokio's default).
    worker_threads: Option<usize>,
    /// [`Builder::on_thread_start`] and [`Builder::on_thread_stop`].
    thread_hooks: ThreadHooks,
}

/// Makes the scheduler of each runtime a builder builds, from its seed.
type SchedulerFactory = Box<dyn FnMut(u64) -> Box<dyn Scheduler>>;

/// A value used and dropped only on the thread that made it: so a
/// [`Builder`] is `Send` and `Sync`, as tokio's is, while the scheduler
/// factory it may hold (a closure over the explorer's `Rc`s) need not be.
/// Used from another thread it panics; dropped there, it is leaked.
struct OwnerThread<T> {
    value: std::mem::ManuallyDrop<T>,
    owner: std::thread::ThreadId,
}

impl<T> OwnerThread<T> {
    fn new(value: T) -> Self {
        OwnerThread {
            value: std::mem::ManuallyDrop::new(value),
            owner: std::thread::current().id(),
        }
    }

    #[track_caller]
    fn get_mut(&mut self) -> &mut T {
        assert!(
            std::thread::current().id() == self.owner,
            "a Builder with a custom scheduler (Builder::scheduler) builds runtimes only on the \
             thread that set the scheduler: the scheduler need not be Send"
        );
        &mut self.value
    }
}

impl<T> Drop for OwnerThread<T> {
    fn drop(&mut self) {
        if std::thread::current().id() == self.owner {
            // SAFETY: dropped once, here, on the thread that made it.
            #[allow(unsafe_code)]
            unsafe {
                std::mem::ManuallyDrop::drop(&mut self.value)
            }
        }
    }
}

// SAFETY: the value is touched (used or dropped) only on its owner thread
// (`get_mut` checks; `drop` leaks it elsewhere), and a shared reference
// gives no access to it.
#[allow(unsafe_code)]
unsafe impl<T> Send for OwnerThread<T> {}
#[allow(unsafe_code)]
unsafe impl<T> Sync for OwnerThread<T> {}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("flavor", &self.flavor)
            .field("seed", &self.seed)
            .field("max_steps", &self.max_steps)
            .field("full_trace", &self.full_trace)
            .field("max_time", &self.max_time)
            .field("unhandled_panic", &self.unhandled_panic)
            .field("report_unobserved_panics", &self.report_unobserved_panics)
            .field("start_paused", &self.start_paused)
            .field("poll_cost", &self.poll_cost)
            .field("custom_scheduler", &self.scheduler.is_some())
            .field("network", &self.net)
            .field("disk", &self.disk)
            .field("real_files", &self.real_files)
            .field("fault_injector", &self.faults)
            .field("name", &self.name)
            .finish()
    }
}

impl Builder {
    fn with_flavor(flavor: RuntimeFlavor) -> Builder {
        Builder {
            flavor,
            seed: None,
            max_steps: DEFAULT_MAX_STEPS,
            max_time: DEFAULT_MAX_TIME,
            unhandled_panic: None,
            report_unobserved_panics: false,
            start_paused: false,
            poll_cost: DEFAULT_POLL_COST,
            scheduler: None,
            net: sim_net::NetConfig::default(),
            disk: sim_fs::FsConfig::default(),
            real_files: crate::disk::RealFiles::default(),
            faults: None,
            exact_seed: false,
            full_trace: false,
            liveness_every: 1,
            livelock_steps: DEFAULT_LIVELOCK_STEPS,
            liveness_walk: 0,
            heal_at: u64::MAX,
            record_story: false,
            worker_threads: None,
            thread_hooks: ThreadHooks::default(),
            name: None,
            park_hooks: world::ParkHooks::default(),
            max_blocking_threads: world::blocking::MAX_BLOCKING_THREADS,
            keep_alive: world::blocking::KEEP_ALIVE,
            drivers: world::Drivers::default(),
            local: false,
        }
    }

    /// Simulated [`tokio::runtime::Builder::new_current_thread`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.new_current_thread).
    pub fn new_current_thread() -> Builder {
        Builder::with_flavor(RuntimeFlavor::CurrentThread)
    }

    /// Simulated [`tokio::runtime::Builder::new_multi_thread`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.new_multi_thread).
    ///
    /// # Differences from tokio
    ///
    /// The simulation runs on one thread whatever the flavor.
    pub fn new_multi_thread() -> Builder {
        Builder::with_flavor(RuntimeFlavor::MultiThread)
    }

    /// Simulated [`tokio::runtime::Builder::enable_all`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.enable_all): enables the I/O
    /// and time drivers ([`enable_io`](Self::enable_io),
    /// [`enable_time`](Self::enable_time)).
    pub fn enable_all(&mut self) -> &mut Self {
        self.enable_io().enable_time()
    }

    /// Simulated [`tokio::runtime::Builder::enable_time`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.enable_time): enables
    /// tokio's timers on the runtime.
    ///
    /// Without it, creating a [`Sleep`](crate::time::Sleep), a
    /// [`timeout`](crate::time::timeout) or an
    /// [`Interval`](crate::time::Interval) panics inside the runtime with
    /// tokio's message ("timers are disabled"). The simulated clock runs
    /// either way: [`Instant::now`](crate::time::Instant::now),
    /// [`pause`](crate::time::pause) and the network's latencies do not need
    /// it, as in tokio.
    pub fn enable_time(&mut self) -> &mut Self {
        self.drivers.time = true;
        self
    }

    /// Simulated [`tokio::runtime::Builder::enable_io`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.enable_io): enables
    /// tokio's I/O driver on the runtime.
    ///
    /// Without it, creating a `tokio::net` socket (`bind`, `connect`,
    /// `from_std`) or a signal listener panics inside the runtime with
    /// tokio's message ("IO is disabled"). `tokio::fs` and the standard
    /// streams do not need it, as in tokio.
    pub fn enable_io(&mut self) -> &mut Self {
        self.drivers.io = true;
        self
    }

    /// Simulated [`tokio::runtime::Builder::worker_threads`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.worker_threads): the
    /// workers a multi-thread runtime reports ([`RuntimeMetrics::num_workers`],
    /// one `on_thread_start` each). Without it, tokio's default:
    /// `TOKIO_WORKER_THREADS`, else the machine's available parallelism.
    ///
    /// The simulation's one thread plays every worker, so the value changes
    /// no schedule; a program that reads it (to size a pool, say) sees the
    /// machine's count unless it is set, and replays the same only on a
    /// machine with as many cores.
    ///
    /// # Panics
    ///
    /// When `val` is 0, as tokio does.
    #[track_caller]
    pub fn worker_threads(&mut self, val: usize) -> &mut Self {
        assert!(val > 0, "Worker threads cannot be set to 0");
        self.worker_threads = Some(val);
        self
    }

    /// Simulated [`tokio::runtime::Builder::max_blocking_threads`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.max_blocking_threads):
    /// how many simulated threads each host's blocking pool may start (512
    /// by default); more `spawn_blocking` closures wait in its queue.
    ///
    /// # Panics
    ///
    /// When `val` is 0, as tokio does.
    ///
    /// # Differences from tokio
    ///
    /// The limit is per simulated host (each host has its pool), not per
    /// runtime.
    #[track_caller]
    pub fn max_blocking_threads(&mut self, val: usize) -> &mut Self {
        assert!(val > 0, "Max blocking threads cannot be set to 0");
        self.max_blocking_threads = val;
        self
    }

    /// Simulated [`tokio::runtime::Builder::thread_keep_alive`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.thread_keep_alive):
    /// how long an idle thread of a blocking pool waits for work before it
    /// exits (10 s by default), in simulated time.
    pub fn thread_keep_alive(&mut self, duration: Duration) -> &mut Self {
        self.keep_alive = duration;
        self
    }

    ignored_options! {
        /// Simulated [`tokio::runtime::Builder::thread_name`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.thread_name): ignored.
        fn thread_name(val: impl Into<String>);
        /// Simulated [`tokio::runtime::Builder::thread_stack_size`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.thread_stack_size): ignored.
        fn thread_stack_size(val: usize);
        /// Simulated [`tokio::runtime::Builder::event_interval`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.event_interval): ignored.
        fn event_interval(val: u32), assert val > 0, "event_interval must be greater than 0";
        /// Simulated [`tokio::runtime::Builder::global_queue_interval`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.global_queue_interval): ignored.
        fn global_queue_interval(val: u32),
            assert val > 0, "global_queue_interval must be greater than 0";
    }

    /// Simulated [`tokio::runtime::Builder::name`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.name): the runtime's name, as
    /// [`Handle::name`] returns it.
    ///
    /// # Panics
    ///
    /// When `val` is empty or only whitespace, as tokio does.
    #[track_caller]
    pub fn name(&mut self, val: impl Into<String>) -> &mut Self {
        let val = val.into();
        assert!(!val.trim().is_empty(), "runtime name shouldn't be empty");
        self.name = Some(Arc::from(val));
        self
    }

    ignored_options! {
        /// Simulated [`tokio::runtime::Builder::thread_name_fn`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.thread_name_fn): ignored (the
        /// simulation starts no threads).
        fn thread_name_fn<F>(f: F) where [F: Fn() -> String + Send + Sync + 'static];
    }

    /// Simulated [`tokio::runtime::Builder::on_thread_start`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.on_thread_start): for
    /// a multi-thread runtime, `f` runs once per worker (see
    /// [`worker_threads`](Self::worker_threads)) when the runtime is built.
    ///
    /// # Differences from tokio
    ///
    /// The simulation's workers are all played by the thread that builds
    /// the runtime, so `f` runs there, not on a thread of each worker; the
    /// blocking pool's simulated threads do not call it.
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.thread_hooks.start = Some(Arc::new(f));
        self
    }

    /// Simulated [`tokio::runtime::Builder::on_thread_stop`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.on_thread_stop): for
    /// a multi-thread runtime, `f` runs once per worker when the runtime
    /// shuts down.
    ///
    /// # Differences from tokio
    ///
    /// As [`on_thread_start`](Self::on_thread_start): on the thread that
    /// shuts the runtime down.
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.thread_hooks.stop = Some(Arc::new(f));
        self
    }

    /// Simulated [`tokio::runtime::Builder::on_thread_park`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.on_thread_park): `f` runs
    /// whenever the simulated worker would park, with nothing runnable
    /// (before simulated time moves or a packet arrives), inside the
    /// simulation: it may spawn or wake tasks, which then run instead.
    ///
    /// # Differences from tokio
    ///
    /// No real thread parks; the hook runs where tokio's current-thread
    /// scheduler's would.
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.park_hooks.park = Some(Arc::new(f));
        self
    }

    /// Simulated [`tokio::runtime::Builder::on_thread_unpark`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.on_thread_unpark): `f` runs
    /// right after each [`on_thread_park`](Self::on_thread_park) point.
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.park_hooks.unpark = Some(Arc::new(f));
        self
    }

    ignored_options! {
        /// Simulated [`tokio::runtime::Builder::max_io_events_per_tick`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.max_io_events_per_tick):
        /// ignored (there is no I/O driver; the network is simulated).
        fn max_io_events_per_tick(capacity: usize),
            assert capacity > 0, "max_io_events_per_tick must be non-zero";
        /// Simulated [`tokio::runtime::Builder::max_io_events_per_busy_tick`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.max_io_events_per_busy_tick):
        /// ignored, as [`max_io_events_per_tick`](Self::max_io_events_per_tick).
        fn max_io_events_per_busy_tick(capacity: usize),
            assert capacity > 0, "max_io_events_per_busy_tick must be non-zero";
    }

    /// Simulated [`tokio::runtime::Builder::start_paused`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.start_paused): whether the
    /// clock starts frozen (see [`crate::time::pause`]).
    ///
    /// # Differences from tokio
    ///
    /// Simulated time never follows the wall clock: it jumps to the next
    /// deadline when nothing can run, paused or not. While the clock is not
    /// paused, each poll also moves it by [`poll_cost`](Self::poll_cost), as
    /// work moves tokio's real clock; a paused clock stands while tasks run,
    /// as tokio's does. The paused flag also decides whether
    /// [`crate::time::advance`] is allowed.
    pub fn start_paused(&mut self, start_paused: bool) -> &mut Self {
        self.start_paused = start_paused;
        self
    }

    /// The simulated time a poll takes while the clock is not paused
    /// (default [`DEFAULT_POLL_COST`]): a task's poll, the main future's,
    /// or a simulated thread's run from one blocking point to the next
    /// moves the clock by `cost` before it runs, so the poll reads the time
    /// its work ended at. Timers the clock passed that way fire where
    /// tokio's driver would see them: when the scheduler next parks (the
    /// run queue empty, or 61 polls since the last park), their tasks
    /// behind the ones already queued.
    ///
    /// This is what real work does to tokio's clock: with a cost of 1 us,
    /// a wait measured under contention is above zero, an age compared
    /// after a sleep of exactly its limit is past it, and a task looping on
    /// ready timers (a zero-length `timeout`) lets another task's 1 ms
    /// sleep fire after a thousand polls instead of starving it. A paused
    /// clock ([`start_paused`](Self::start_paused), [`crate::time::pause`])
    /// does not move with work, as tokio's. With `Duration::ZERO` all work
    /// is instantaneous: time moves only when nothing can run.
    ///
    /// The cost is part of the execution: the same seed and choices give
    /// the same times.
    pub fn poll_cost(&mut self, cost: Duration) -> &mut Self {
        self.poll_cost = cost;
        self
    }

    /// Simulated `tokio::runtime::Builder::unhandled_panic` (unstable in
    /// tokio). The default is tokio's, [`UnhandledPanic::Ignore`], unless
    /// [`report_unobserved_panics`](Self::report_unobserved_panics) is set.
    pub fn unhandled_panic(&mut self, behavior: UnhandledPanic) -> &mut Self {
        self.unhandled_panic = Some(behavior);
        self
    }

    /// Fails the simulation, with a report, when a task panics and nobody
    /// can observe it: its `JoinHandle` was dropped before it panicked, or
    /// is dropped later without the panic being taken (a handle still held
    /// when the runtime is dropped is not reported). A panic whose handle
    /// is held still goes to the handle, as tokio's. Off by default, as
    /// tokio ignores such panics; the explorer turns it on, since a panic
    /// in a detached task is a bug an exploration must report. An explicit
    /// [`unhandled_panic`](Self::unhandled_panic) takes precedence.
    ///
    /// Not in tokio.
    pub fn report_unobserved_panics(&mut self, report: bool) -> &mut Self {
        self.report_unobserved_panics = report;
        self
    }

    /// The simulation's seed, whatever `SIM_SEED` says: for harnesses that
    /// read `SIM_SEED` themselves and seed many simulations from it (the
    /// explorer). Tests use [`seed`](Self::seed).
    pub fn exact_seed(&mut self, seed: u64) -> &mut Self {
        self.seed = Some(seed);
        self.exact_seed = true;
        self
    }

    /// The simulation's seed. The `SIM_SEED` environment variable, when set,
    /// takes precedence so that a failure's reproduction line works whatever
    /// the test set. Without either, [`DEFAULT_SEED`].
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = Some(seed);
        self
    }

    /// Stop with a failure after this many steps (default
    /// [`DEFAULT_MAX_STEPS`]).
    pub fn max_steps(&mut self, max_steps: u64) -> &mut Self {
        self.max_steps = max_steps;
        self
    }

    /// Stop with a failure when the next event lies more than this much
    /// simulated time after the start (default [`DEFAULT_MAX_TIME`]: no
    /// limit).
    pub fn max_time(&mut self, max_time: Duration) -> &mut Self {
        self.max_time = max_time;
        self
    }

    /// The scheduler that makes the simulation's choices, made fresh for
    /// each runtime built from the seed (default:
    /// [`CurrentThreadScheduler`]:
    /// tokio's current-thread order).
    ///
    /// The factory need not be `Send`: the builder stays `Send` and `Sync`
    /// (as tokio's), but one holding a factory builds runtimes only on the
    /// thread that set it, and panics elsewhere.
    pub fn scheduler<S, F>(&mut self, mut make: F) -> &mut Self
    where
        F: FnMut(u64) -> S + 'static,
        S: Scheduler + 'static,
    {
        self.scheduler = Some(OwnerThread::new(Box::new(move |seed| {
            Box::new(make(seed)) as Box<dyn Scheduler>
        })));
        self
    }

    /// The simulated network's settings: default and loopback links,
    /// buffer and segment sizes, backlog, ephemeral ports (see
    /// [`NetConfig`](sim_net::NetConfig)). Links between particular hosts
    /// can be changed during a run with [`crate::sim::set_link`].
    pub fn network(&mut self, config: sim_net::NetConfig) -> &mut Self {
        self.net = config;
        self
    }

    /// The simulated disk's settings for every host that does not set its
    /// own with [`HostBuilder::disk`](crate::sim::HostBuilder::disk): crash
    /// model, when directory entries become durable, injected faults
    /// (`EIO`, capacity) and latency (see [`FsConfig`](sim_fs::FsConfig)).
    /// The default loses everything unsynced at a crash, injects nothing
    /// and takes no simulated time.
    ///
    /// ```
    /// use sim_rt::sim::{CrashModel, FsConfig, KeepUnsynced};
    /// let disk = FsConfig {
    ///     crash: CrashModel { keep: KeepUnsynced::Subset, ..CrashModel::default() },
    ///     ..FsConfig::default()
    /// };
    /// let rt = sim_rt::runtime::Builder::new_current_thread().enable_all().disk(disk).build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn disk(&mut self, config: sim_fs::FsConfig) -> &mut Self {
        self.disk = config;
        self
    }

    /// What every host's simulated disk shows of the real file system.
    ///
    /// By default ([`RealFiles::ReadOnlyLower`](crate::disk::RealFiles)) the
    /// real files are a read-only lower layer: a path a host's disk does not
    /// have reads through to the real file of the same path (fixtures,
    /// certificates, the program's own config), and changing it copies it
    /// up into the simulated disk first, so nothing a simulation does
    /// reaches the real disk. [`RealFiles::Hidden`](crate::disk::RealFiles)
    /// starts every disk as an empty tree.
    ///
    /// ```
    /// use sim_rt::sim::RealFiles;
    /// let rt = sim_rt::runtime::Builder::new_current_thread().enable_all()
    ///     .real_files(RealFiles::Hidden)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     assert!(!sim_rt::fs::try_exists(env!("CARGO_MANIFEST_DIR")).await.unwrap());
    /// });
    /// ```
    pub fn real_files(&mut self, real_files: crate::disk::RealFiles) -> &mut Self {
        self.real_files = real_files;
        self
    }

    /// Turns on the built-in fault injector, which resets hosts and
    /// partitions links as data choices, within a budget (see
    /// [`FaultInjector`](fault::FaultInjector)). Off by default.
    pub fn fault_injector(&mut self, injector: fault::FaultInjector) -> &mut Self {
        self.faults = Some(injector);
        self
    }

    /// Records every step in the [`Trace`], forced ones (a single enabled
    /// event) included, instead of only the steps that had a real choice.
    /// Off by default: a forced step costs nothing to replay, and recording
    /// it makes a run's memory grow with its length (see [`Trace`] for the
    /// sizes). On, [`Runtime::trace`] lists the whole schedule, and a replay
    /// checks the event of every step. `SIM_CHECK_DETERMINISM=1` turns it on
    /// for its two runs.
    pub fn full_trace(&mut self, on: bool) -> &mut Self {
        self.full_trace = on;
        self
    }

    /// Evaluates the liveness properties the program states
    /// ([`sim::eventually`](crate::sim::eventually)) every `steps` steps
    /// instead of after every step (default 1), for predicates that are
    /// costly to evaluate; at the end of the run every property is evaluated
    /// once more. Monitors' limits are still checked after every step (a
    /// comparison of times, no user code).
    ///
    /// # Panics
    ///
    /// When `steps` is 0.
    pub fn liveness_check_every(&mut self, steps: u64) -> &mut Self {
        assert!(steps > 0, "liveness_check_every needs at least 1 step");
        self.liveness_every = steps;
        self
    }

    /// Fails the run as a livelock
    /// ([`FailureKind::Livelock`],
    /// naming the spinning tasks) when for `steps` polls only tasks that
    /// woke themselves during their poll ran, each for at least the second
    /// time, and nothing else happened (no other task ran, no timer fired,
    /// no packet was delivered): a busy wait on `yield_now` for something
    /// that cannot happen while it spins, which would otherwise run into the
    /// step limit. Default [`DEFAULT_LIVELOCK_STEPS`]; 0 turns it off.
    pub fn livelock_steps(&mut self, steps: u64) -> &mut Self {
        self.livelock_steps = steps;
        self
    }

    /// When the main future returns with a [`sim::eventually`](crate::sim::eventually)
    /// property that has not held, goes on running the simulation (the
    /// hosts, their tasks, timers and packets, with this runtime's scheduler
    /// and fault injector) for up to `steps` more steps instead of failing
    /// at once: the run passes if every property holds by then, and fails as
    /// *dead* if nothing more can happen first (no task can run, no timer is
    /// armed, no packet is in flight), or as *indeterminate* after `steps`.
    /// This is one of MaceMC's random walks from the end of the bounded run.
    /// Default 0: fail when the main future returns.
    pub fn liveness_walk(&mut self, steps: u64) -> &mut Self {
        self.liveness_walk = steps;
        self
    }

    /// From trace step `step` on (steps numbered as [`Trace`] and
    /// [`ReplayPrefix`](crate::scheduler::ReplayPrefix) number them: every
    /// pick and every data choice with two or more options), the fault
    /// injector makes no more faults and every partition is healed once (as
    /// [`sim::heal_all`](crate::sim::heal_all) does): the environment's
    /// faults stop, as in TigerBeetle's liveness mode, so that a walk from
    /// there asks whether the system recovers once the network does.
    /// Crashed hosts stay as they are. Partitions the program itself makes
    /// later are kept. Default: never.
    pub fn heal_at_step(&mut self, step: u64) -> &mut Self {
        self.heal_at = step;
        self
    }

    /// Records the run's story ([`Runtime::story`]): packets with their
    /// sizes and first bytes, deliveries and losses, links partitioned and
    /// healed, hosts stopped and started, timers fired, non-default data
    /// choices. Off by default; the explorer turns it on to tell the
    /// failure it reports in words.
    pub fn record_story(&mut self, on: bool) -> &mut Self {
        self.record_story = on;
        self
    }

    /// Replays `trace`: sets its seed and a [`Replay`] scheduler.
    ///
    /// The trace holds the seed and the choices, not the rest of the
    /// configuration: build the replaying runtime with the same settings
    /// ([`network`](Self::network), [`disk`](Self::disk), [`fault_injector`](Self::fault_injector),
    /// limits) as the recorded one, or the replay diverges at the first
    /// question the two ask differently.
    ///
    /// The replaying run records its trace the way `trace` was recorded (in
    /// [`full`](Self::full_trace) or not), so the two compare equal.
    pub fn replay(&mut self, trace: Trace) -> &mut Self {
        self.seed = Some(trace.seed());
        self.full_trace = trace.is_full();
        self.scheduler(move |_| Replay::new(trace.clone()))
    }

    /// Simulated [`tokio::runtime::Builder::build`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.build).
    ///
    /// # Panics
    ///
    /// When `SIM_SEED` is set but is not an unsigned 64-bit integer.
    #[track_caller]
    pub fn build(&mut self) -> io::Result<Runtime> {
        assert!(
            !(self.start_paused && self.flavor == RuntimeFlavor::MultiThread),
            "`time::pause()` requires the `current_thread` Tokio runtime. This is the default \
             Runtime used by `#[tokio::test]."
        );
        let from_env = if self.exact_seed {
            None
        } else {
            seed_from_env()
        };
        let seed = match from_env {
            Some(seed) => seed,
            None => self.seed.unwrap_or(DEFAULT_SEED),
        };
        let scheduler: Box<dyn Scheduler> = match self.scheduler.as_mut().map(OwnerThread::get_mut)
        {
            Some(make) => make(seed),
            None => Box::new(CurrentThreadScheduler::new(seed)),
        };
        // Interception only answers once its functions are linked in.
        crate::intercept::keep_linked();
        let workers = match self.flavor {
            RuntimeFlavor::CurrentThread => 1,
            RuntimeFlavor::MultiThread => self.worker_threads.unwrap_or_else(default_workers),
        };
        let id = Id::next().as_u64();
        let world = World::new(
            id,
            Config {
                seed,
                max_steps: self.max_steps,
                max_time: self.max_time,
                unhandled_panic: self.unhandled_panic,
                report_unobserved_panics: self.report_unobserved_panics,
                start_paused: self.start_paused,
                poll_cost: self.poll_cost,
                flavor: self.flavor,
                net: self.net.clone(),
                fs: self.disk.clone(),
                real_files: self.real_files,
                faults: self.faults.clone(),
                name: self.name.clone(),
                full_trace: self.full_trace,
                liveness_every: self.liveness_every,
                livelock_steps: self.livelock_steps,
                liveness_walk: self.liveness_walk,
                heal_at: self.heal_at,
                record_story: self.record_story,
                park_hooks: self.park_hooks.clone(),
                max_blocking_threads: self.max_blocking_threads,
                keep_alive: self.keep_alive,
                drivers: self.drivers,
                local: self.local,
                workers,
            },
            scheduler,
        );
        context::register(id, &world);
        // The workers start (all played by this thread).
        let worker_hooks = match self.flavor {
            RuntimeFlavor::MultiThread => self.thread_hooks.clone(),
            RuntimeFlavor::CurrentThread => ThreadHooks::default(),
        };
        if let Some(start) = &worker_hooks.start {
            (0..workers).for_each(|_| start());
        }
        Ok(Runtime {
            world: Some(world),
            workers: (worker_hooks, workers),
            owner: std::thread::current().id(),
            handle: Handle {
                id,
                flavor: self.flavor,
                name: self.name.clone(),
            },
        })
    }

    /// Simulated [`tokio::runtime::Builder::build_local`](https://docs.rs/tokio/1/tokio/runtime/struct.Builder.html#method.build_local): a
    /// [`LocalRuntime`].
    ///
    /// # Panics
    ///
    /// For a builder made by [`new_multi_thread`](Self::new_multi_thread),
    /// as tokio does, and when `SIM_SEED` is malformed (see
    /// [`build`](Self::build)).
    #[track_caller]
    pub fn build_local(&mut self, options: LocalOptions) -> io::Result<LocalRuntime> {
        let _ = options;
        if self.flavor == RuntimeFlavor::MultiThread {
            panic!("multi_thread is not supported for LocalRuntime");
        }
        self.local = true;
        let built = self.build();
        self.local = false;
        built.map(LocalRuntime::from_runtime)
    }

    /// What `#[sim_rt::test(flavor = "local")]` (and `main`) builds: a
    /// runtime whose every task may `spawn_local`, as tokio's
    /// [`LocalRuntime`] that the attribute builds. Not part of the API.
    #[doc(hidden)]
    pub fn __local(&mut self) -> &mut Self {
        self.local = true;
        self
    }
}

/// Reads `SIM_SEED`; a malformed value is a clear panic.
fn seed_from_env() -> Option<u64> {
    let raw = std::env::var("SIM_SEED").ok()?;
    match command::parse_seed(&raw) {
        Some(seed) => Some(seed),
        None => __private::fail_quietly(format!(
            "SIM_SEED={raw:?} is not a valid seed: expected an unsigned 64-bit integer, in \
             decimal (SIM_SEED=42) or hex (SIM_SEED=0x2a); unset SIM_SEED to use the test's own seed"
        )),
    }
}

/// A multi-thread runtime's workers when `worker_threads` is not set:
/// tokio's default, `TOKIO_WORKER_THREADS` or else the machine's available
/// parallelism.
fn default_workers() -> usize {
    std::env::var("TOKIO_WORKER_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
}

/// [`Builder::on_thread_start`] and [`Builder::on_thread_stop`].
#[derive(Clone, Default)]
struct ThreadHooks {
    start: Option<world::Hook>,
    stop: Option<world::Hook>,
}

impl fmt::Debug for ThreadHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadHooks")
            .field("start", &self.start.is_some())
            .field("stop", &self.stop.is_some())
            .finish()
    }
}

/// Simulated [`tokio::runtime::Runtime`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html): one simulation.
///
/// # Differences from tokio
///
/// The runtime is single-threaded. It is `Send + Sync` and unwind safe as
/// tokio's is, so code that moves or shares one compiles, but a simulation
/// runs only on the thread that built it: any method called on another
/// thread panics saying so, and a runtime dropped on another thread is
/// leaked (its tasks are not dropped), with a note on stderr. Besides
/// tokio's methods it exposes the simulation's [`seed`](Runtime::seed) and
/// the [`Trace`] of every choice made so far.
///
/// As tokio's, dropping a runtime inside an asynchronous context (a
/// simulation's task or `block_on` future) shuts it down and then panics
/// ("Cannot drop a runtime in a context where blocking is not allowed");
/// [`shutdown_background`](Runtime::shutdown_background) does not.
pub struct Runtime {
    /// `None` only once dropped.
    world: Option<Rc<World>>,
    /// The workers' `on_thread_stop` (a multi-thread runtime's) and how
    /// many workers there are.
    workers: (ThreadHooks, usize),
    /// The thread that built it: the only one that touches `world`.
    owner: std::thread::ThreadId,
    handle: Handle,
}

// SAFETY: the only field that is neither `Send` nor `Sync` is `world`, an
// `Rc` into the simulation. It is read only through `Runtime::world`, which
// panics on every thread but `owner`, and taken only by `Drop`, which on
// another thread leaks it without touching its reference count. So the
// `Rc` and everything it reaches are used on `owner` alone, wherever the
// `Runtime` value itself is moved or shared.
#[allow(unsafe_code)]
unsafe impl Send for Runtime {}
// SAFETY: as for `Send`: a shared `&Runtime` reaches `world` only on `owner`.
#[allow(unsafe_code)]
unsafe impl Sync for Runtime {}
// A failed simulation has dropped its tasks and stays failed: nothing a
// caught panic leaves behind is half-updated (as tokio's runtime).
impl std::panic::UnwindSafe for Runtime {}
impl std::panic::RefUnwindSafe for Runtime {}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("id", &self.handle.id)
            .field("seed", &self.seed())
            .finish()
    }
}

impl Runtime {
    /// Whether this thread built the runtime (and so runs its simulation).
    fn on_owner(&self) -> bool {
        std::thread::current().id() == self.owner
    }

    /// The simulation, on the thread that built it.
    #[track_caller]
    pub(crate) fn world(&self) -> &Rc<World> {
        if std::thread::current().id() != self.owner {
            panic!(
                "this method of a sim_rt runtime works only on the thread that built it (the one \
                 that runs its simulation); from another thread, `block_on`, `spawn`, \
                 `spawn_blocking`, `enter`, `handle` and `metrics` work, as a guest of the \
                 simulation"
            );
        }
        self.world
            .as_ref()
            .expect("a runtime's simulation lives until the runtime drops")
    }

    /// Simulated [`tokio::runtime::Runtime::new`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.new).
    pub fn new() -> io::Result<Runtime> {
        Builder::new_multi_thread().enable_all().build()
    }

    /// Simulated [`tokio::runtime::Runtime::block_on`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.block_on): runs `future` to
    /// completion, driving every task of the simulation meanwhile.
    ///
    /// # Panics
    ///
    /// When called from inside a simulation (as tokio does), and when the
    /// simulation fails: a task panicked (under the default
    /// [`UnhandledPanic::ShutdownRuntime`]), the future itself panicked, a
    /// deadlock, or a step or time limit. The panic message says what
    /// happened, where, and gives the `SIM_SEED=... cargo test ...` line that
    /// reproduces the run.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        __private::warn_if_determinism_check_unavailable();
        self.block_on_unchecked(future)
    }

    /// [`block_on`](Self::block_on) without the warning that the
    /// determinism check does not apply: for `__private::run`, which checks.
    #[track_caller]
    fn block_on_unchecked<F: Future>(&self, future: F) -> F::Output {
        let _aside = match OtherTurn::of(self.handle.id) {
            OtherTurn::Same => return world::threads::block_on(future),
            other => other,
        };
        if context::driving() {
            panic!("{NESTED_BLOCK_ON}");
        }
        if !self.on_owner() {
            return self.handle.block_on(future);
        }
        let world = self.world();
        if world.is_driven() {
            // Inside `block_in_place`, in a poll of this simulation.
            return world.block_on_in_place(future);
        }
        world.block_on(future)
    }

    /// Like [`block_on`](Self::block_on), but a failed simulation is
    /// returned instead of panicking: for harnesses (the explorer) that run
    /// many simulations and report failures themselves.
    ///
    /// A panic in the future or in a task is still printed by the panic
    /// hook when it happens; the [`Failure`] holds its message.
    ///
    /// # Panics
    ///
    /// When called from inside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// Simulation only; tokio has no such method.
    #[track_caller]
    pub fn try_block_on<F: Future>(&self, future: F) -> Result<F::Output, Failure> {
        if context::driving() {
            panic!("{NESTED_BLOCK_ON}");
        }
        self.world().try_block_on(future)
    }

    /// Simulated [`tokio::runtime::Runtime::spawn`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.spawn): the task runs on the
    /// main host once the simulation is driven.
    ///
    /// # Differences from tokio
    ///
    /// A multi-thread tokio runtime runs the task on a worker at once;
    /// here the thread that built the runtime runs it: in a `block_on`, or
    /// while it waits outside one (a std lock, channel, join or sleep, a
    /// `yield_now`). A current-thread runtime runs it in a `block_on`, as
    /// tokio's. A thread that waits for it otherwise (a real socket, a
    /// pipe) would wait forever: after `SIM_POLL_TIMEOUT` seconds (10 by
    /// default) the watchdog ends the process saying so.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        if !self.on_owner() {
            return self.handle.spawn(future);
        }
        let origin = Origin::Spawn(Location::caller());
        JoinHandle::spawn_on(self.world(), future, None, origin)
    }

    /// Simulated [`tokio::runtime::Runtime::spawn_blocking`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.spawn_blocking). See
    /// [`crate::task::spawn_blocking`].
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        if !self.on_owner() {
            return self.handle.spawn_blocking(func);
        }
        let origin = Origin::Blocking(Location::caller());
        crate::task::blocking_on(self.world(), func, origin)
    }

    /// Simulated [`tokio::runtime::Runtime::handle`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.handle).
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Simulated [`tokio::runtime::Runtime::metrics`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.metrics).
    pub fn metrics(&self) -> RuntimeMetrics {
        self.handle.metrics()
    }

    /// Simulated [`tokio::runtime::Runtime::enter`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.enter): makes this simulation
    /// current (so `spawn` and `Instant::now` work) until the guard drops.
    pub fn enter(&self) -> EnterGuard<'_> {
        if !self.on_owner() {
            return self.handle.enter();
        }
        EnterGuard::new(Entered::Here(context::enter(self.world().clone())))
    }

    /// Simulated [`tokio::runtime::Runtime::shutdown_timeout`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.shutdown_timeout): drops every
    /// task, after waiting up to `duration` of simulated time for the
    /// blocking pools, as tokio's: a thread that holds a `spawn_blocking`
    /// closure finishes it (and the closures still queued), and its
    /// `JoinHandle` gets the result. Meanwhile the threads run, packets
    /// arrive and the clock moves; the tasks do not run. A dropped runtime
    /// waits the same way, without a limit (tokio's waits for ever; the
    /// simulation gives up after a million steps, with a note).
    ///
    /// # Panics
    ///
    /// As tokio's, inside an asynchronous context (a simulation's task or
    /// `block_on` future) with a non-zero `duration`, after the shutdown:
    /// it would block there.
    pub fn shutdown_timeout(mut self, duration: Duration) {
        let wait = (!duration.is_zero()).then_some(Some(duration));
        self.shut_down(wait);
    }

    /// Simulated [`tokio::runtime::Runtime::shutdown_background`](https://docs.rs/tokio/1/tokio/runtime/struct.Runtime.html#method.shutdown_background): drops
    /// every task now. Unlike a drop, allowed inside an asynchronous
    /// context.
    pub fn shutdown_background(mut self) {
        self.shut_down(None);
    }

    /// The seed this simulation runs with.
    pub fn seed(&self) -> u64 {
        self.world().seed()
    }

    /// Every choice made so far, with the seed: enough to replay the run
    /// with [`Builder::replay`].
    pub fn trace(&self) -> Trace {
        self.world().trace()
    }

    /// The story recorded so far (empty unless
    /// [`Builder::record_story`]).
    pub fn story(&self) -> Vec<Told> {
        self.world()
            .story
            .as_ref()
            .map(|s| s.borrow().clone())
            .unwrap_or_default()
    }

    /// The name of `host` (as given to [`sim::host`](crate::sim::host);
    /// "main" for the test's own host), if it exists.
    pub fn host_name(&self, host: crate::scheduler::HostId) -> Option<String> {
        let core = self.world().core.borrow();
        core.hosts.get(host.index()).map(|h| h.name.to_string())
    }

    /// Every host's name, by host index (the main host, "main", first).
    pub fn host_names(&self) -> Vec<String> {
        let core = self.world().core.borrow();
        core.hosts.iter().map(|h| h.name.to_string()).collect()
    }

    /// Steps (events run) so far: the count [`Failure::step`] reports and
    /// [`Builder::max_steps`] limits. Data choices are not steps here,
    /// though [`Trace`] numbers them too.
    pub fn steps(&self) -> u64 {
        self.world().core.borrow().step
    }

    /// The coverage points ([`sometimes!`](crate::sometimes!),
    /// [`reachable!`](crate::reachable!)) evaluated so far, in point order,
    /// with what this execution did at each. A registered point never
    /// evaluated is absent: [`sim::coverage_points`](crate::sim::coverage_points)
    /// lists them all.
    pub fn coverage(&self) -> Vec<(coverage::Point, coverage::Hits)> {
        self.world().coverage.borrow().snapshot()
    }

    /// Whether every [`sim::eventually`](crate::sim::eventually) property
    /// stated so far has been met: held at some check (for one that must
    /// [`stay`](crate::sim::Property::stays), held at the last check).
    /// `true` when none was stated. After a run that failed for another
    /// reason (a step limit, say), this tells a liveness walk whether it
    /// reached its goal before it stopped.
    pub fn liveness_met(&self) -> bool {
        self.world().liveness.borrow().all_met()
    }

    /// Simulated time elapsed since the runtime was built.
    pub fn elapsed(&self) -> Duration {
        let core = self.world().core.borrow();
        core.now - core.start
    }

    /// The latest deadline any timer of this run was armed with (a
    /// `sleep`, a `timeout`, an interval's tick, the simulator's own
    /// delays), as time since the runtime was built; `None` when no timer
    /// was armed. The explorer's liveness walks go on at least twice as
    /// long, so that they outlast the program's own timeouts.
    pub fn latest_timer_deadline(&self) -> Option<Duration> {
        let core = self.world().core.borrow();
        core.timers
            .latest_deadline()
            .map(|d| d.saturating_sub(core.start))
    }
}

impl Runtime {
    /// Shuts the simulation down: drops every task. `wait` is how long
    /// tokio would wait for its blocking threads, if it would (a drop: for
    /// ever, `Some(None)`; a non-zero `shutdown_timeout`), which tokio
    /// refuses inside an asynchronous context with a panic, after the
    /// shutdown.
    fn shut_down(&mut self, wait: Option<Option<Duration>>) {
        let waits = wait.is_some();
        let Some(world) = self.world.take() else {
            return;
        };
        if std::thread::current().id() != self.owner {
            eprintln!(
                "sim_rt: a runtime was dropped on another thread than the one that built it; \
                 its simulation is leaked (its tasks are not dropped)"
            );
            std::mem::forget(world);
            return;
        }
        if !context::can_enter() {
            // Dropped while the thread's thread-locals are destroyed (a
            // runtime kept in a `thread_local!`): the simulation cannot be
            // entered to drop its tasks, whose destructors would need it
            // too, so it is leaked with the exiting thread.
            std::mem::forget(world);
            return;
        }
        {
            let _enter = context::enter(world.clone());
            // tokio's blocking pool finishes the closures its threads hold
            // (not when the drop is inside async code: that panics below).
            if let (Some(limit), false) = (wait, context::driving()) {
                world.drain_blocking(limit);
            }
            world.shutdown();
            // The streams that outlive the simulation keep what they had
            // received, as their kernel sockets would.
            crate::net::tcp::kept::keep(&world);
        }
        drop(world);
        if let Some(stop) = &self.workers.0.stop {
            (0..self.workers.1).for_each(|_| stop());
        }
        if waits && context::driving() && !std::thread::panicking() {
            panic!(
                "Cannot drop a runtime in a context where blocking is not allowed. This happens \
                 when a runtime is dropped from within an asynchronous context. (sim_rt: a \
                 runtime was dropped inside a simulation's task or block_on future; move it \
                 out of the async code, or end it with shutdown_background)"
            );
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shut_down(Some(None));
    }
}

/// Simulated [`tokio::runtime::EnterGuard`](https://docs.rs/tokio/1/tokio/runtime/struct.EnterGuard.html).
#[derive(Debug)]
#[must_use = "the simulation stays current only while the guard is held"]
pub struct EnterGuard<'a> {
    /// Checked first: see [`Depth`].
    _depth: Depth,
    _guard: Entered,
    _runtime: PhantomData<&'a Handle>,
}

thread_local! {
    /// How many [`EnterGuard`]s this thread holds.
    static ENTER_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl EnterGuard<'_> {
    fn new(guard: Entered) -> Self {
        let depth = ENTER_DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        EnterGuard {
            _depth: Depth(depth),
            _guard: guard,
            _runtime: PhantomData,
        }
    }
}

/// How many guards this thread held once its [`EnterGuard`] was made.
/// Guards must be dropped in the reverse order they were made, as tokio
/// checks: a guard dropped before a later one panics (unless the thread is
/// panicking already). A field, not the guard's own `Drop`: that would keep
/// the runtime borrowed until the guard's end (tokio's can be held while
/// the runtime is shut down).
#[derive(Debug)]
struct Depth(usize);

impl Drop for Depth {
    fn drop(&mut self) {
        let held = ENTER_DEPTH.with(|d| d.replace(self.0 - 1));
        if held != self.0 && !std::thread::panicking() {
            panic!(
                "`EnterGuard` values dropped out of order. Guards returned by \
                 `tokio::runtime::Handle::enter()` must be dropped in the reverse order as they \
                 were acquired."
            );
        }
    }
}

/// How an [`EnterGuard`] made its simulation current.
enum Entered {
    /// On a thread that reaches it.
    Here(#[allow(dead_code)] context::EnterGuard),
    /// As a guest, from a thread outside it (`world::door`).
    Guest(#[allow(dead_code)] world::door::Visit),
    /// A runtime that was dropped: see [`Handle::enter`].
    Gone(#[allow(dead_code)] context::EnteredGone),
}

/// The handle of the dropped runtime entered last on this thread, when no
/// simulation is current: what `Handle::current` finds, as on tokio, whose
/// handle keeps a shut-down runtime's context.
fn entered_gone() -> Option<Handle> {
    context::entered_gone().map(|gone| Handle {
        id: gone.id,
        flavor: gone.flavor,
        name: gone.name,
    })
}

impl fmt::Debug for Entered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Entered::Here(_) => "Here",
            Entered::Guest(_) => "Guest",
            Entered::Gone(_) => "Gone",
        })
    }
}

// SAFETY: a shared `&EnterGuard` gives access to nothing (its fields are
// private and it has no methods): only its owner, by dropping it, touches
// the simulation it holds, as for tokio's guard, which is `Sync` too.
#[allow(unsafe_code)]
unsafe impl Sync for EnterGuard<'_> {}

/// Simulated [`tokio::runtime::Handle`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html): a `Send + Sync` reference to a
/// simulation.
///
/// # Differences from tokio
///
/// A simulation lives on one thread: a handle used on another thread (or
/// after its runtime was dropped) panics with a message saying so.
#[derive(Debug, Clone)]
pub struct Handle {
    id: u64,
    flavor: RuntimeFlavor,
    name: Option<Arc<str>>,
}

/// Simulated [`tokio::runtime::TryCurrentError`](https://docs.rs/tokio/1/tokio/runtime/struct.TryCurrentError.html).
#[derive(Debug)]
pub struct TryCurrentError(());

impl TryCurrentError {
    /// Whether the error is that no runtime was running (always, here).
    pub fn is_missing_context(&self) -> bool {
        true
    }

    /// Whether the thread-local was destroyed (never, here).
    pub fn is_thread_local_destroyed(&self) -> bool {
        false
    }
}

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "there is no simulation running, must be called from the context of a sim_rt runtime",
        )
    }
}

impl std::error::Error for TryCurrentError {}

impl Handle {
    /// Simulated [`tokio::runtime::Handle::current`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.current).
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    #[track_caller]
    pub fn current() -> Handle {
        match Handle::try_current() {
            Ok(h) => h,
            Err(e) => panic!("{e}"),
        }
    }

    /// Simulated [`tokio::runtime::Handle::try_current`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.try_current).
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        context::try_with(|w| {
            let core = w.core.borrow();
            Handle {
                id: w.id,
                flavor: core.config.flavor,
                name: core.config.name.clone(),
            }
        })
        .or_else(entered_gone)
        .ok_or(TryCurrentError(()))
    }

    /// Runs `f` on this handle's simulation: the current one or one this
    /// thread built; from a thread outside it, as a guest of it (see
    /// `world::door`: the thread waits until the simulation adopts it).
    /// `None` when the simulation was dropped or failed.
    fn try_with_world<R>(&self, f: impl FnOnce(&Rc<World>) -> R) -> Option<R> {
        if let Some(world) = context::world_of(self.id) {
            return Some(f(&world));
        }
        world::door::visit(self.id, f)
    }

    /// Simulated [`tokio::runtime::Handle::spawn`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.spawn).
    ///
    /// As tokio's, a spawn on a runtime that was dropped (or whose
    /// simulation failed) drops the future at once and returns a handle
    /// whose task is cancelled.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let origin = Origin::Spawn(Location::caller());
        let mut future = Some(future);
        let spawned = self.try_with_world(|world| {
            let future = future.take().expect("spawned once");
            JoinHandle::spawn_on(world, future, None, origin)
        });
        drop(future);
        spawned.unwrap_or_else(|| JoinHandle::cancelled(self.id))
    }

    /// Simulated [`tokio::runtime::Handle::spawn_blocking`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let origin = Origin::Blocking(Location::caller());
        let mut func = Some(func);
        let spawned = self.try_with_world(|world| {
            let func = func.take().expect("spawned once");
            crate::task::blocking_on(world, func, origin)
        });
        // On a dropped runtime: dropped at once, the task cancelled.
        drop(func);
        spawned.unwrap_or_else(|| JoinHandle::cancelled(self.id))
    }

    /// Simulated [`tokio::runtime::Handle::block_on`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.block_on).
    ///
    /// # Panics
    ///
    /// Inside a simulation, as tokio does, and when the simulation was
    /// dropped.
    ///
    /// # Differences from tokio
    ///
    /// From a thread outside the simulation (one it did not start), the
    /// thread becomes a simulated thread of its main host until the future
    /// completes (see the guide's threads chapter): its future is polled on
    /// its turns, and the thread that built the runtime drives the rest.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _aside = match OtherTurn::of(self.id) {
            OtherTurn::Same => return world::threads::block_on(future),
            other => other,
        };
        if context::driving() {
            panic!("{NESTED_BLOCK_ON}");
        }
        let Some(world) = context::world_of(self.id) else {
            let guest = world::door::visit(self.id, |world| {
                struct Blocking<'a>(&'a World);
                impl Drop for Blocking<'_> {
                    fn drop(&mut self) {
                        let n = &self.0.guests_blocking;
                        n.set(n.get() - 1);
                    }
                }
                // The first guest in a `block_on` of a current-thread
                // runtime the owner does not drive holds its core, as in
                // tokio: its future sees `worker_index() == Some(0)`.
                let holds_core = world.guests_blocking.get() == 0
                    && !world.is_driven()
                    && self.flavor == RuntimeFlavor::CurrentThread;
                world.guests_blocking.set(world.guests_blocking.get() + 1);
                let _blocking = Blocking(world);
                let _core = HoldsCore::set(holds_core);
                world::threads::block_on(future)
            });
            return guest.unwrap_or_else(|| panic!("{HANDLE_GONE}"));
        };
        if world.is_driven() {
            // Inside `block_in_place`, in a poll of this simulation.
            return world.block_on_in_place(future);
        }
        let before = world
            .main_without_core
            .replace(self.flavor == RuntimeFlavor::CurrentThread);
        struct Restore<'a>(&'a World, bool);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.main_without_core.set(self.1);
            }
        }
        let _restore = Restore(&world, before);
        world.block_on(future)
    }

    /// Simulated [`tokio::runtime::Handle::enter`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.enter).
    ///
    /// As tokio's, the handle of a runtime that was dropped can be
    /// entered: while the guard lives, `Handle::current` returns it and
    /// `tokio::spawn` or `spawn_blocking` drop what they are given and
    /// return a cancelled task's handle. Simulated I/O and timers still
    /// need a live simulation.
    pub fn enter(&self) -> EnterGuard<'_> {
        let guard = match context::world_of(self.id) {
            Some(world) => Entered::Here(context::enter(world)),
            None => match world::door::Visit::begin(self.id) {
                Some(visit) => Entered::Guest(visit),
                None => Entered::Gone(context::enter_gone(context::Gone {
                    id: self.id,
                    flavor: self.flavor,
                    name: self.name.clone(),
                })),
            },
        };
        EnterGuard::new(guard)
    }

    /// Simulated [`tokio::runtime::Handle::runtime_flavor`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.runtime_flavor).
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        self.flavor
    }

    /// Simulated [`tokio::runtime::Handle::id`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.id).
    pub fn id(&self) -> Id {
        Id::new(self.id)
    }

    /// Simulated [`tokio::runtime::Handle::name`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.name): the name given with
    /// [`Builder::name`], if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Simulated [`tokio::runtime::Handle::metrics`](https://docs.rs/tokio/1/tokio/runtime/struct.Handle.html#method.metrics).
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics::new(self.clone())
    }
}

/// Whether this thread holds a simulated thread's turn, for a `block_on`
/// of runtime `id`.
enum OtherTurn {
    /// No turn: an ordinary `block_on`.
    None,
    /// A turn of `id`'s own simulation: the future is polled on the turns.
    Same,
    /// A turn of another simulation (a simulated thread, or a
    /// `block_in_place` closure, that built a runtime of its own): kept
    /// aside while this `block_on` drives `id`'s, put back when dropped.
    Aside(Option<world::threads::Suspended>),
}

impl OtherTurn {
    fn of(id: u64) -> OtherTurn {
        if !world::threads::on_turn() {
            return OtherTurn::None;
        }
        if context::try_current().is_some_and(|w| w.id == id) {
            return OtherTurn::Same;
        }
        OtherTurn::Aside(world::threads::suspend())
    }
}

impl Drop for OtherTurn {
    fn drop(&mut self) {
        if let OtherTurn::Aside(before) = self {
            world::threads::resume(before.take());
        }
    }
}

/// The panic of a [`Handle`] whose simulation was dropped.
const HANDLE_GONE: &str =
    "this Handle's simulation is gone: its runtime was dropped, or the simulation failed";

/// The message of the error a simulated socket or timer returns once its
/// simulation is gone; [`is_rt_shutdown_err`] recognises it.
pub(crate) const RUNTIME_GONE: &str = "this socket's simulation has ended or runs on another \
    thread; a simulated socket works only inside the simulation that created it";

/// Simulated [`tokio::runtime::is_rt_shutdown_err`](https://docs.rs/tokio/1/tokio/runtime/fn.is_rt_shutdown_err.html): whether `err` is the
/// error an I/O resource returns because its simulation is gone (dropped,
/// or out of reach from this thread).
///
/// # Differences from tokio
///
/// tokio recognises its own "runtime shutting down" error; this recognises
/// sim-rt's "simulation has ended" error.
pub fn is_rt_shutdown_err(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::Other
        && err
            .get_ref()
            .is_some_and(|inner| inner.source().is_none() && inner.to_string() == RUNTIME_GONE)
}

/// Simulated [`tokio::runtime::worker_index`](https://docs.rs/tokio/1/tokio/runtime/fn.worker_index.html): `Some(0)` inside a task of
/// the simulation driven on this thread, and in the future of a
/// current-thread runtime's `Runtime::block_on` (or of a thread's
/// `Handle::block_on` that holds its core: the first of concurrent ones
/// from threads outside it); `None` in the future of a multi-thread
/// runtime's `block_on` or a current-thread runtime's `Handle::block_on`
/// (which run on the calling thread, not on a worker, as tokio's), on a
/// blocking pool's thread, and outside every runtime.
///
/// # Differences from tokio
///
/// The simulation's one thread plays every worker of a multi-thread
/// runtime: a task's poll reports the worker its poll is counted on (the
/// polls that cost simulated time are dealt to the workers in turn, see
/// [`RuntimeMetrics`]), so a task may report different workers at
/// different polls, as it may on tokio.
pub fn worker_index() -> Option<usize> {
    if HOLDS_CORE.with(|h| h.get()) {
        return Some(0);
    }
    if !context::driving() {
        return None;
    }
    match context::try_current() {
        Some(world) if world.main_off_worker() => None,
        Some(world) => Some(world.current_worker()),
        None => Some(0),
    }
}

thread_local! {
    /// This thread is a guest in a `block_on` that holds its current-thread
    /// runtime's core (see `Handle::block_on`).
    static HOLDS_CORE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// [`HOLDS_CORE`] set for a guest's `block_on`, put back when it drops.
struct HoldsCore(bool);

impl HoldsCore {
    fn set(holds: bool) -> HoldsCore {
        HoldsCore(HOLDS_CORE.with(|h| h.replace(holds)))
    }
}

impl Drop for HoldsCore {
    fn drop(&mut self) {
        HOLDS_CORE.with(|h| h.set(self.0));
    }
}

/// A data choice through the current simulation's scheduler; 0 outside a
/// simulation.
pub(crate) fn choose(kind: ChoiceKind, n: usize) -> usize {
    context::try_with(|w| w.choose(kind, n)).unwrap_or(0)
}

/// Support for the `#[sim_rt::main]` and `#[sim_rt::test]` macros.
#[doc(hidden)]
pub mod __private {
    use super::*;

    pub use super::config::fail_quietly;

    /// Makes the calling thread a clean worker, which may run simulations
    /// one after another itself ([`run_on_clean_worker`]) while they leave
    /// nothing a fresh thread would not have: see the guide's performance
    /// chapter. Call it first thing on a new thread. False when this build
    /// cannot tell (no interposition).
    pub fn become_clean_worker() -> bool {
        super::clean_thread::become_worker()
    }

    /// Whether the calling thread is a clean worker still clean.
    pub fn on_clean_worker() -> bool {
        super::clean_thread::is_clean()
    }

    /// Runs `f` (a simulation) on this clean worker: sim_rt's per-thread
    /// state and std's `RandomState` keys as on a fresh thread before it;
    /// the thread retired from reuse after it when `f` drew OS randomness
    /// otherwise (or panicked).
    ///
    /// # Panics
    ///
    /// When [`on_clean_worker`] is false.
    pub fn run_on_clean_worker<R>(f: impl FnOnce() -> R) -> R {
        super::clean_thread::run(f)
    }

    /// The line that reproduces the simulations this thread runs next, as
    /// the poll watchdog prints it when one is stuck in a poll (a harness's
    /// own line, such as the explorer's `SIM_REPLAY=...`); `None` goes back
    /// to `SIM_SEED=<seed> cargo test ...`.
    pub fn set_reproduce_line(line: Option<std::sync::Arc<str>>) {
        super::watchdog::set_line(line);
    }

    /// Whether `SIM_CHECK_DETERMINISM` asks for a double run.
    pub fn check_determinism_requested() -> bool {
        match std::env::var("SIM_CHECK_DETERMINISM") {
            Err(_) => false,
            Ok(v) => match v.trim() {
                "" | "0" | "false" => false,
                "1" | "true" => true,
                other => fail_quietly(format!(
                    "SIM_CHECK_DETERMINISM={other:?} is not understood: set it to 1 to run each \
                     simulation twice and compare, or 0 (or unset it) to run once"
                )),
            },
        }
    }

    /// `Runtime::block_on` gets a future it can run only once, so it cannot
    /// check determinism: say so (once per process) instead of silently
    /// ignoring `SIM_CHECK_DETERMINISM=1`.
    pub(crate) fn warn_if_determinism_check_unavailable() {
        static WARNED: std::sync::Once = std::sync::Once::new();
        if check_determinism_requested() {
            WARNED.call_once(|| {
                eprintln!(
                    "sim_rt: SIM_CHECK_DETERMINISM=1 applies to #[sim_rt::test] and \
                     #[sim_rt::main] (which can run their body twice); Runtime::block_on runs \
                     a future once, so it is not checked"
                )
            });
        }
    }

    /// The seed first: under a test harness (whose threads are named after
    /// their tests), prints the line that reproduces this run before it
    /// runs, so that a run killed by a deadline (cargo-nextest's slow-test
    /// timeout, a CI step's) has already left it. libtest captures it like
    /// any test output: it shows only for a failing test, or with
    /// `--nocapture` (as cargo-nextest runs tests).
    fn announce(seed: u64) {
        let thread = std::thread::current();
        let Some(test) = thread.name().filter(|n| *n != "main") else {
            return;
        };
        eprintln!(
            "sim_rt: {test}: seed {seed}; this run again: {}",
            super::failure::reproduce_line(seed)
        );
    }

    /// Builds a runtime from `builder` and runs `f()` in it; with
    /// `SIM_CHECK_DETERMINISM=1`, runs it twice with the same seed and
    /// panics, naming the first differing step, if the traces differ.
    pub fn run<F, Fut>(mut builder: Builder, f: F) -> Fut::Output
    where
        F: Fn() -> Fut,
        Fut: Future,
    {
        if !check_determinism_requested() {
            let rt = builder
                .build()
                .expect("building a simulation runtime cannot fail");
            announce(rt.seed());
            return rt.block_on_unchecked(f());
        }
        builder.full_trace(true);
        let first = builder
            .build()
            .expect("building a simulation runtime cannot fail");
        announce(first.seed());
        drop(first.block_on_unchecked(f()));
        let first_trace = first.trace();
        drop(first);
        let second = builder
            .build()
            .expect("building a simulation runtime cannot fail");
        second_run(second, f(), &first_trace)
    }

    /// The determinism check's second run: its output, once its trace is
    /// found equal to the first run's.
    fn second_run<Fut: Future>(second: Runtime, body: Fut, first: &Trace) -> Fut::Output {
        let out = second.block_on_unchecked(body);
        let second_trace = second.trace();
        drop(second);
        if let Some(msg) = compare_traces(first, &second_trace) {
            panic!("{msg}");
        }
        out
    }

    /// [`run`] for a body that can be built on any thread (a function
    /// without arguments: every `#[sim_rt::test]`): the builder and the body
    /// are made where they run. With `SIM_CHECK_DETERMINISM=1` the first run
    /// is on a thread started for it and the second on this one, so each
    /// starts from fresh per-thread state (std's `HashMap` keys,
    /// `rand::rng()`, any crate's thread-locals, which a second simulation
    /// on one thread would inherit from the first); the body's future and
    /// output need not be `Send`. A panic of the first run continues here
    /// with its payload.
    pub fn run_fresh<B, F, Fut>(make: B, f: F) -> Fut::Output
    where
        B: Fn() -> Builder + Sync,
        F: Fn() -> Fut + Sync,
        Fut: Future,
    {
        if !check_determinism_requested() {
            return run(make(), f);
        }
        let build = || {
            let mut builder = make();
            builder.full_trace(true);
            builder
                .build()
                .expect("building a simulation runtime cannot fail")
        };
        let mut thread = std::thread::Builder::new();
        if let Some(name) = std::thread::current().name() {
            thread = thread.name(name.to_string());
        }
        let first_trace = std::thread::scope(|s| {
            let first = thread
                .spawn_scoped(s, || {
                    let rt = build();
                    drop(rt.block_on_unchecked(f()));
                    rt.trace()
                })
                .expect("sim_rt: could not start a thread for the determinism check's first run");
            first
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
        });
        let second = build();
        announce(second.seed());
        second_run(second, f(), &first_trace)
    }

    /// `None` when the traces are equal, else a report of the first
    /// difference.
    pub fn compare_traces(first: &Trace, second: &Trace) -> Option<String> {
        let i = first.first_difference(second)?;
        let show = |t: &Trace| match t.step_at(i as u64) {
            Some(s) => s.to_string(),
            None if i >= t.len() => "the run had already ended".to_string(),
            None => "a forced step (not recorded)".to_string(),
        };
        let guests = if first.guests().is_empty() && second.guests().is_empty() {
            String::new()
        } else {
            format!(
                "\n  threads started outside the simulation joined it (a Handle's block_on, \
                 spawn or enter from such a thread) at steps {:?} in the first run and {:?} in the \
                 second: they race it in real time, so where they join is not reproducible. \
                 Start them inside the simulation (a simulated thread), or have them join only \
                 while the simulation waits for them",
                first.guests(),
                second.guests()
            )
        };
        Some(format!(
            "SIM_CHECK_DETERMINISM: two runs with seed {} diverged at step {i}:\n  first run:  {}\n  \
             second run: {}\n  trace hashes {:016x} vs {:016x}. Something the program does is \
             not under the simulation's control: reading real time (std::time), OS randomness, \
             iterating a HashMap/HashSet, threads, or state kept between runs (statics){guests}",
            first.seed(),
            show(first),
            show(second),
            first.hash(),
            second.hash()
        ))
    }
}
