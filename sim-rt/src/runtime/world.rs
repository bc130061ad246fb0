//! The world: executor, clock, timers, hosts, and the step loop.
//!
//! One `World` per [`Runtime`](super::Runtime). Its mutable state (`Core`)
//! sits in a `RefCell` that is borrowed only for short, non-reentrant
//! sections: never while user code runs (polling a future, dropping a
//! future or an output, waking a foreign waker). The scheduler has a
//! `RefCell` of its own, so `choose` and `observe` can be called from inside
//! a task.
//!
//! # The step loop
//!
//! Each step: move the wakes queued since the last step into the enabled
//! set; if no task is runnable, `Advance` is enabled when a timer is armed
//! or a packet's window opens before some packet in flight must arrive, or
//! else, with packets deliverable, to the earliest of their latest arrivals
//! (a late delivery; with nothing deliverable and nothing to advance to,
//! the run is deadlocked); the scheduler picks one enabled event; the
//! runtime records the pick in the trace and runs it (polls the task, or
//! moves the clock to the next deadline and fires every timer due then).
//!
//! # Invariants
//!
//! - `enabled` holds each runnable task once (its slot's `queued` flag is
//!   set), as its slab key (`MAIN_KEY` for the main future).
//! - `events` is scratch: the enabled events as a list, made only for a
//!   scheduler that reads one (the polls, the deliveries, `Advance`).
//! - `now` never decreases.
//!
//! # Determinism
//!
//! Nothing here reads real time, OS randomness or iterates a hashed
//! collection. The world's own generator (for the start instant) and the
//! default scheduler's generator are separate streams derived from the seed.

pub(crate) mod blocking;
pub(crate) mod door;
mod hosts;
mod relief;
mod spawn;
mod step;
pub(crate) mod threads;

pub(crate) use spawn::{drop_kept_output, kept_output};

use std::cell::RefCell;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Waker;
use std::time::Duration;

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;
use slab::Slab;

use super::config::{RuntimeFlavor, UnhandledPanic};
use super::failure::{Cause, Failure, TaskInfo};
use super::net::NetState;
use super::run_queue::RunQueue;
use super::task::{TaskCell, WakeQueue, WakeRecord, MAIN_KEY};
use super::timer::{TimerKey, Timers};
use super::trace::{Step, Trace};
use super::watchdog;
use crate::ids::Id;
use crate::scheduler::{derive_seed, ChoiceKind, Event, HostId, Observation, Scheduler};

/// Settings fixed when the runtime is built.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) seed: u64,
    pub(crate) max_steps: u64,
    pub(crate) max_time: Duration,
    /// `None`: to the `JoinHandle` when one is held, else ignored or a
    /// failure (`report_unobserved_panics`).
    pub(crate) unhandled_panic: Option<UnhandledPanic>,
    /// [`Builder::report_unobserved_panics`](super::Builder::report_unobserved_panics).
    pub(crate) report_unobserved_panics: bool,
    pub(crate) start_paused: bool,
    /// [`Builder::poll_cost`](super::Builder::poll_cost).
    pub(crate) poll_cost: Duration,
    pub(crate) flavor: RuntimeFlavor,
    pub(crate) net: sim_net::NetConfig,
    /// The configuration of every host's disk, unless the host sets its own.
    pub(crate) fs: sim_fs::FsConfig,
    /// What every disk shows of the real files.
    pub(crate) real_files: crate::disk::RealFiles,
    pub(crate) faults: Option<super::fault::FaultInjector>,
    /// [`Builder::name`](super::Builder::name).
    pub(crate) name: Option<std::sync::Arc<str>>,
    /// [`Builder::full_trace`](super::Builder::full_trace).
    pub(crate) full_trace: bool,
    /// [`Builder::liveness_check_every`](super::Builder::liveness_check_every).
    pub(crate) liveness_every: u64,
    /// [`Builder::livelock_steps`](super::Builder::livelock_steps) (0: off).
    pub(crate) livelock_steps: u64,
    /// [`Builder::liveness_walk`](super::Builder::liveness_walk) (0: off).
    pub(crate) liveness_walk: u64,
    /// [`Builder::heal_at_step`](super::Builder::heal_at_step) (`u64::MAX`:
    /// never; set to it once done).
    pub(crate) heal_at: u64,
    /// [`Builder::record_story`](super::Builder::record_story).
    pub(crate) record_story: bool,
    /// [`Builder::on_thread_park`](super::Builder::on_thread_park) and
    /// [`on_thread_unpark`](super::Builder::on_thread_unpark).
    pub(crate) park_hooks: ParkHooks,
    /// [`Builder::max_blocking_threads`](super::Builder::max_blocking_threads).
    pub(crate) max_blocking_threads: usize,
    /// [`Builder::thread_keep_alive`](super::Builder::thread_keep_alive).
    pub(crate) keep_alive: Duration,
    /// [`Builder::enable_io`](super::Builder::enable_io) and
    /// [`enable_time`](super::Builder::enable_time).
    pub(crate) drivers: Drivers,
    /// Built as a [`LocalRuntime`](super::LocalRuntime) (`build_local`,
    /// `flavor = "local"`): `spawn_local` works anywhere in it.
    pub(crate) local: bool,
    /// The workers `RuntimeMetrics` reports: 1 for a current-thread
    /// runtime, [`Builder::worker_threads`](super::Builder::worker_threads)
    /// for a multi-thread one (the simulation's one thread plays them all).
    pub(crate) workers: usize,
}

/// Which of tokio's drivers a runtime has: what the builder enabled. The
/// simulation has its network and clock either way; tokio's I/O and timer
/// APIs ask for the driver, and panic as tokio's do without it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Drivers {
    pub(crate) io: bool,
    pub(crate) time: bool,
}

impl Config {
    /// Whether the runtime's tasks run while its owner thread waits
    /// outside a `block_on` (`door`): a multi-thread runtime's do, as on
    /// tokio's workers; a current-thread runtime's wait for a `block_on`.
    pub(crate) fn tasks_run_in_background(&self) -> bool {
        self.flavor == RuntimeFlavor::MultiThread
    }
}

/// The builder's `on_thread_park` and `on_thread_unpark`.
#[derive(Clone, Default)]
pub(crate) struct ParkHooks {
    pub(crate) park: Option<Hook>,
    pub(crate) unpark: Option<Hook>,
}

impl std::fmt::Debug for ParkHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParkHooks")
            .field("park", &self.park.is_some())
            .field("unpark", &self.unpark.is_some())
            .finish()
    }
}

impl ParkHooks {
    fn is_empty(&self) -> bool {
        self.park.is_none() && self.unpark.is_none()
    }
}

/// A callback of the runtime's builder (`on_thread_park`...).
pub(crate) type Hook = Arc<dyn Fn() + Send + Sync>;

/// What a task slot was created for (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Spawn(&'static Location<'static>),
    Blocking(&'static Location<'static>),
    HostEntry,
    /// A simulated std thread, by its number (`threads`).
    Thread(u32),
}

/// What a step reads of a task: 48 bytes, so that a poll of a task picked
/// at random among many reads one cache line of it, or two (W2, 100,000
/// tasks: a slot 64 bytes larger took 9% more time). What only a report,
/// a join or a traced poll reads is in `Core`'s `cold` and `spans`.
struct TaskSlot {
    id: Id,
    /// `None` while the task is being polled.
    cell: Option<Pin<Box<dyn TaskCell>>>,
    /// The spin streak (`Core::spin_epoch`) in which this task last woke
    /// itself during its own poll.
    spin_epoch: u64,
    host: HostId,
    finished: bool,
    abort_requested: bool,
    has_handle: bool,
    /// Whether a `JoinHandle` waits for it (its waker is in
    /// its [`Cold`] part).
    join_waiting: bool,
    /// Whether it is in the enabled set (woken since its last poll): later
    /// wakes before the poll are dropped as the records are drained.
    queued: bool,
}

/// A host's entry point: makes the future that runs when it (re)starts.
pub(crate) type Entry = Rc<dyn Fn() -> Pin<Box<dyn Future<Output = ()>>>>;

pub(crate) struct Host {
    pub(crate) name: Rc<str>,
    span: tracing::Span,
    /// Signals sent to this host, one slot per signal number sent or
    /// listened for (`crate::signal`).
    signals: Vec<SignalSlot>,
    pub(crate) net_id: sim_net::HostId,
    pub(crate) entry: Option<Entry>,
    pub(crate) stopped: bool,
    pub(crate) paused: bool,
    /// Wakes of this host's tasks held back while it is paused.
    deferred: Vec<WakeRecord>,
}

/// One signal number's deliveries to a host.
#[derive(Debug)]
pub(crate) struct SignalSlot {
    signal: i32,
    /// How many times it was sent.
    pub(crate) sent: u64,
    /// Whether a listener for it was ever made on the host (tokio's
    /// handler, once installed, stays for the process's life).
    pub(crate) listened: bool,
    /// Listeners waiting for the next one, in the order they started
    /// waiting.
    pub(crate) waiters: Vec<Waker>,
}

impl Host {
    /// Whether a listener for `signal` was ever made on this host.
    pub(crate) fn listens(&self, signal: i32) -> bool {
        self.signals
            .iter()
            .any(|s| s.signal == signal && s.listened)
    }

    /// The slot of `signal`, made on first use.
    pub(crate) fn signal_slot(&mut self, signal: i32) -> &mut SignalSlot {
        let i = match self.signals.iter().position(|s| s.signal == signal) {
            Some(i) => i,
            None => {
                self.signals.push(SignalSlot {
                    signal,
                    sent: 0,
                    listened: false,
                    waiters: Vec::new(),
                });
                self.signals.len() - 1
            }
        };
        &mut self.signals[i]
    }
}

/// A change to a host asked for by one of its own tasks: applied when that
/// task's poll returns, so a task never drops itself while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostOp {
    Stop,
    Start,
    Reset,
    Pause,
    /// A signal the host's program sent to its own process (`kill`,
    /// `raise`): its listeners see it once the raising poll returns.
    Signal(i32),
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Current {
    pub(crate) id: Id,
    pub(crate) host: HostId,
}

/// What only a report or a join reads of a task, at its slab key in
/// `Core::cold`.
struct Cold {
    origin: Origin,
    /// The waker of the `JoinHandle` waiting for the task.
    join_waker: Option<Waker>,
}

struct Main {
    id: Id,
    /// [`TaskSlot::queued`], for the main future.
    queued: bool,
}

pub(crate) struct Core {
    pub(crate) config: Config,
    /// Simulated time since the simulation's epoch.
    pub(crate) now: Duration,
    /// `now` when the runtime was built.
    pub(crate) start: Duration,
    /// `start + config.max_time` (saturating): time may not pass it.
    time_limit: Duration,
    /// `scheduler.late_deliveries()`, asked once.
    late_deliveries: bool,
    pub(crate) step: u64,
    /// How many times the clock moved (the simulated worker "parked"), for
    /// `RuntimeMetrics`.
    advances: u64,
    /// How many `block_on`s started (each unparks the worker, and parks it
    /// when it returns), for `RuntimeMetrics`.
    block_ons: u64,
    /// Polls charged their cost so far (while the clock was not paused):
    /// times the cost, the one worker's busy duration.
    charged: u64,
    /// Polls move the clock now: a poll cost is set and the clock is not
    /// paused (kept with `paused` by [`Core::set_paused`]).
    work_moves_clock: bool,
    /// The current spin streak: a run of steps in which every step polled a
    /// task that woke itself during its poll (`yield_now` in a loop) and
    /// nothing else happened. Any other step starts a new epoch.
    spin_epoch: u64,
    /// Polls in this streak of a task that had already woken itself in it:
    /// a task's first self-wake (a task that yields once, as W2's do) is
    /// not spinning yet.
    spin_repeats: u64,
    /// The main future's `spin_epoch`.
    main_spin_epoch: u64,
    pub(crate) paused: bool,
    tasks: Slab<TaskSlot>,
    /// Each task's [`Cold`] part, by slab key (at a free key: the last
    /// task's origin, no join waker).
    cold: Vec<Cold>,
    /// The span of each task whose span is enabled (a subscriber listens),
    /// by slab key. Looked up, never iterated; empty unless a subscriber
    /// listens, which a poll checks before looking.
    spans: FxHashMap<usize, tracing::Span>,
    next_id: u64,
    /// The runnable tasks (woken and not yet polled), in the order of
    /// their `Poll` events: tokio's current-thread order
    /// ([`RunQueue`]). Four bytes each, so the keys of 100,000 runnable
    /// tasks still fit in the second-level cache; the task's id is read
    /// from its slot, which its poll reads anyway.
    enabled: RunQueue,
    /// The first step at which a task was polled out of tokio's
    /// current-thread order, for failure reports.
    unlike_tokio: Option<u64>,
    /// The first task panic handed to a `JoinHandle` (the task, its
    /// message), for failure reports.
    earlier_panic: Option<(String, String)>,
    /// The enabled events as a list, for a scheduler that picks from one
    /// ([`Scheduler::pick_count`] returns `None`): remade at each step.
    events: Vec<Event>,
    wake_buf: Vec<WakeRecord>,
    fire_buf: Vec<Waker>,
    pub(crate) timers: Timers,
    pub(crate) hosts: Vec<Host>,
    pub(crate) current: Option<Current>,
    main: Option<Main>,
    pub(crate) trace: Trace,
    failure: Option<Failure>,
    failed: bool,
    host_ops: Vec<(HostId, HostOp)>,
    pub(crate) injector: Option<super::fault::Injector>,
}

/// One simulation's state. See the module docs.
pub(crate) struct World {
    pub(crate) id: u64,
    /// Its disks' device number among the simulations alive in this
    /// process, taken when a file is first `stat`ed (see
    /// `disk::DiskSlot`).
    #[cfg(all(
        feature = "intercept",
        target_os = "linux",
        target_env = "gnu",
        not(target_feature = "crt-static")
    ))]
    pub(crate) disk_slot: std::cell::OnceCell<crate::disk::DiskSlot>,
    pub(crate) core: RefCell<Core>,
    scheduler: RefCell<Box<dyn Scheduler>>,
    /// `scheduler.observes()`, asked once: whether to make observations.
    observing: bool,
    /// Whether the fault injector is configured (fixed at build time), so
    /// the steps of a run without one skip asking it.
    injecting: bool,
    /// [`Config::park_hooks`], kept outside the core so the step loop reads
    /// them without a borrow (`None` when there are none).
    park_hooks: Option<ParkHooks>,
    wakes: Arc<WakeQueue>,
    /// What the poll watchdog reads (see `watchdog`).
    watch: Arc<watchdog::PollWatch>,
    /// The watchdog watches this simulation while it lives (`None`: the
    /// watchdog is off).
    _watched: Option<watchdog::Registration>,
    /// A `block_on` drives the simulation now.
    driven: std::cell::Cell<bool>,
    pub(crate) net: RefCell<NetState>,
    /// What intercepted OS randomness reads (`crate::intercept`).
    pub(crate) entropy: super::entropy::Entropy,
    pub(crate) fs: RefCell<super::fs::FsState>,
    /// The liveness properties the program stated.
    pub(crate) liveness: RefCell<super::liveness::Props>,
    /// The story, when recorded (see `story.rs`).
    pub(crate) story: Option<RefCell<Vec<crate::story::Told>>>,
    /// The coverage points evaluated so far (see `coverage.rs`).
    pub(crate) coverage: RefCell<super::coverage::Coverage>,
    /// The simulated std threads (see `threads`).
    pub(crate) threads: RefCell<threads::Threads>,
    /// How threads outside the simulation reach it (see `door`).
    pub(crate) door: door::Door,
    /// Guests (see `door`) inside a `block_on` now.
    pub(crate) guests_blocking: std::cell::Cell<u32>,
    /// The main future is a current-thread runtime's `Handle::block_on`,
    /// which in tokio holds no core: `block_in_place` works in it.
    pub(crate) main_without_core: std::cell::Cell<bool>,
    /// The owner thread drives the simulation outside a `block_on`
    /// (`door`): nothing to run is not a deadlock.
    outside: std::cell::Cell<bool>,
    /// The thread that runs its tasks while the owner waits outside a
    /// `block_on` (`door`), once needed.
    worker: RefCell<Option<door::Worker>>,
    /// Where `RuntimeMetrics` handles keep the counters once the
    /// simulation is gone (see `keep_metrics`).
    metrics_kept: RefCell<Vec<std::sync::Weak<KeptMetrics>>>,
    /// The `block_in_place` calls whose closure runs while a relief thread
    /// drives (see `relief`).
    reliefs: RefCell<relief::Reliefs>,
    /// [`Config::drivers`], read without a borrow.
    pub(crate) drivers: Drivers,
    /// The runtime was shut down (dropped, or `shutdown_timeout`): what an
    /// `EnterGuard` held since still reaches, as tokio's context of a
    /// shut-down runtime (see [`World::is_shut_down`]).
    shut_down: std::cell::Cell<bool>,
}

/// The counters a `RuntimeMetrics` reads once its simulation is gone.
pub(crate) type KeptMetrics = std::sync::Mutex<Option<WorldMetrics>>;

impl Drop for World {
    fn drop(&mut self) {
        self.door.close();
        self.keep_final_metrics();
    }
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

enum Next {
    Main,
    Task(usize),
    /// To this instant.
    Advance(Duration),
    Deliver(sim_net::PacketId),
    /// Nothing can run and nothing is due, but the simulation is not
    /// deadlocked: driven outside a `block_on`, or threads outside it may
    /// still knock (`door`).
    Idle,
}

/// A snapshot of the counters behind `RuntimeMetrics`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WorldMetrics {
    pub(crate) alive_tasks: usize,
    pub(crate) runnable: usize,
    pub(crate) advances: u64,
    pub(crate) busy: Duration,
    /// Polls charged their cost so far (`busy` is that many costs).
    pub(crate) charged: u64,
    /// [`Config::workers`].
    pub(crate) workers: usize,
    pub(crate) flavor: RuntimeFlavor,
    /// `block_on`s started so far.
    pub(crate) block_ons: u64,
    /// Inside a `block_on` now.
    pub(crate) driven: bool,
    /// The runtime was shut down.
    pub(crate) shut_down: bool,
}

/// The host that runs the test's own future.
pub(crate) const MAIN_HOST: HostId = HostId(0);

/// The main host's address: out of the way of the addresses tests give
/// their hosts (`10.0.0.1` and up, which hosts without an address of their
/// own get too).
pub(crate) const MAIN_ADDR: std::net::IpAddr =
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(10, 255, 255, 254));

impl Core {
    /// The simulated time polls took so far.
    pub(crate) fn busy(&self) -> Duration {
        let cost = u64::try_from(self.config.poll_cost.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(cost.saturating_mul(self.charged))
    }

    /// Pauses (`true`) or resumes the clock.
    pub(crate) fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
        self.work_moves_clock = Self::work_moves_clock(paused, self.config.poll_cost);
    }

    /// Whether polls move the clock: a cost is set and it is not paused.
    fn work_moves_clock(paused: bool, poll_cost: Duration) -> bool {
        !paused && !poll_cost.is_zero()
    }
}

impl World {
    pub(crate) fn new(id: u64, config: Config, scheduler: Box<dyn Scheduler>) -> Rc<World> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(derive_seed(config.seed, 0));
        // Start somewhere between one day and one year after the epoch, so
        // code that subtracts from `now` has room, and absolute instants
        // differ between seeds.
        const DAY: u64 = 86_400_000_000_000;
        let start = Duration::from_nanos(DAY + rng.next_u64() % (365 * DAY));
        let seed = config.seed;
        let watch: Arc<watchdog::PollWatch> = Arc::default();
        let watched = watchdog::register(&watch, seed);
        let mut trace = if config.full_trace {
            Trace::full(seed)
        } else {
            Trace::new(seed)
        };
        let late_deliveries = scheduler.late_deliveries();
        trace.set_late_deliveries(late_deliveries);
        let poll_cost = config.poll_cost;
        let paused = config.start_paused;
        let mut net = NetState::new(config.net.clone());
        // Segments are announced only to be observed (they have no faults).
        net.net.announce_segments(scheduler.observes());
        let fs = super::fs::FsState::new(config.fs.clone(), config.real_files);
        let injector = config.faults.clone().map(super::fault::Injector::new);
        let injecting = injector.is_some() || config.heal_at != u64::MAX;
        let park_hooks = Some(config.park_hooks.clone()).filter(|h| !h.is_empty());
        let time_limit = start.saturating_add(config.max_time);
        let liveness = RefCell::new(super::liveness::Props {
            every: config.liveness_every.max(1),
            ..Default::default()
        });
        let story = config.record_story.then(|| RefCell::new(Vec::new()));
        let world = Rc::new(World {
            id,
            #[cfg(all(
                feature = "intercept",
                target_os = "linux",
                target_env = "gnu",
                not(target_feature = "crt-static")
            ))]
            disk_slot: std::cell::OnceCell::new(),
            liveness,
            story,
            coverage: RefCell::default(),
            threads: RefCell::default(),
            door: door::Door::open(id),
            guests_blocking: std::cell::Cell::new(0),
            main_without_core: std::cell::Cell::new(false),
            outside: std::cell::Cell::new(false),
            worker: RefCell::new(None),
            metrics_kept: RefCell::default(),
            reliefs: RefCell::default(),
            drivers: config.drivers,
            shut_down: std::cell::Cell::new(false),
            core: RefCell::new(Core {
                config,
                now: start,
                start,
                time_limit,
                late_deliveries,
                step: 0,
                advances: 0,
                block_ons: 0,
                charged: 0,
                spin_epoch: 1,
                spin_repeats: 0,
                main_spin_epoch: 0,
                work_moves_clock: Core::work_moves_clock(paused, poll_cost),
                paused,
                tasks: Slab::new(),
                cold: Vec::new(),
                spans: FxHashMap::default(),
                next_id: 0,
                enabled: RunQueue::default(),
                unlike_tokio: None,
                earlier_panic: None,
                events: Vec::new(),
                wake_buf: Vec::new(),
                fire_buf: Vec::new(),
                timers: Timers::starting_at(start),
                hosts: Vec::new(),
                current: None,
                main: None,
                trace,
                failure: None,
                failed: false,
                host_ops: Vec::new(),
                injector,
            }),
            observing: scheduler.observes(),
            injecting,
            park_hooks,
            scheduler: RefCell::new(scheduler),
            wakes: Arc::new(WakeQueue::default()),
            watch,
            _watched: watched,
            driven: std::cell::Cell::new(false),
            net: RefCell::new(net),
            entropy: super::entropy::Entropy::new(seed),
            fs: RefCell::new(fs),
        });
        world.add_host("main", vec![MAIN_ADDR], None);
        world
    }

    // ----- choices and observations ---------------------------------------

    /// Whether observations reach the scheduler ([`Scheduler::observes`]):
    /// callers that must work to build one check first.
    pub(crate) fn observing(&self) -> bool {
        self.observing
    }

    pub(crate) fn observe(&self, observation: Observation) {
        if self.observing {
            self.scheduler.borrow_mut().observe(&observation);
        }
    }

    /// A data choice among `n` options, recorded in the trace.
    pub(crate) fn choose(&self, kind: ChoiceKind, n: usize) -> usize {
        assert!(n > 0, "a choice needs at least one option");
        if n == 1 {
            return 0;
        }
        let index = self.scheduler.borrow_mut().choose(kind, n);
        self.record_choice(&mut self.core.borrow_mut(), kind, index, n);
        index
    }

    /// The one place a data choice the scheduler made is recorded: checked
    /// against its `n` options, pushed on the trace, and told in the story
    /// when it took another option than the default.
    fn record_choice(&self, core: &mut Core, kind: ChoiceKind, index: usize, n: usize) {
        assert!(
            index < n,
            "the scheduler chose option {index} of a {kind:?} choice among {n}"
        );
        let (index, of) = (index as u32, n as u32);
        core.trace.push(Step::Choose {
            kind: kind.code(),
            index,
            of,
        });
        if index != 0 {
            self.tell_in(core, || crate::story::Happening::Choice {
                kind: kind.code(),
                index,
                of,
            });
        }
    }

    // ----- the story --------------------------------------------------------

    /// Records what happened, when the story is recorded.
    #[inline]
    pub(crate) fn tell(&self, what: impl FnOnce() -> crate::story::Happening) {
        if self.story.is_some() {
            let core = self.core.borrow();
            self.tell_in(&core, what);
        }
    }

    /// [`tell`](Self::tell) with the core already borrowed.
    #[inline]
    pub(crate) fn tell_in(&self, core: &Core, what: impl FnOnce() -> crate::story::Happening) {
        if let Some(story) = &self.story {
            story.borrow_mut().push(crate::story::Told {
                step: core.step,
                point: core.trace.len() as u64,
                at: core.now - core.start,
                what: what(),
            });
        }
    }

    // ----- timers ----------------------------------------------------------

    pub(crate) fn now(&self) -> Duration {
        self.core.borrow().now
    }

    /// Arms a tokio timer: it fires at `deadline` rounded up to tokio's
    /// millisecond tick ([`Timers::tick`]).
    pub(crate) fn timer_insert(&self, deadline: Duration, waker: &Waker) -> TimerKey {
        self.arm(deadline, waker, true)
    }

    /// Arms a timer that fires at exactly `deadline`: a delay of the
    /// simulated devices, which have no tick.
    pub(crate) fn timer_insert_exact(&self, deadline: Duration, waker: &Waker) -> TimerKey {
        self.arm(deadline, waker, false)
    }

    /// Arms a timer at `deadline`, or at the tick that follows it.
    fn arm(&self, deadline: Duration, waker: &Waker, on_tick: bool) -> TimerKey {
        let (key, task, deadline) = {
            let mut core = self.core.borrow_mut();
            let deadline = if on_tick {
                core.timers.tick(deadline)
            } else {
                deadline
            };
            let key = core.timers.insert(deadline, waker.clone());
            (key, core.current.map(|c| c.id), deadline)
        };
        self.observe(Observation::TimerArmed { task, deadline });
        key
    }

    // ----- failures --------------------------------------------------------

    fn failure(&self, kind: Cause) -> Failure {
        let core = self.core.borrow();
        self.failure_in(&core, kind)
    }

    fn failure_in(&self, core: &Core, kind: Cause) -> Failure {
        Failure {
            cause: Box::new(kind),
            elapsed: core.now - core.start,
            step: core.step,
            seed: core.config.seed,
            unlike_tokio: core.unlike_tokio,
            earlier_panic: core.earlier_panic.clone(),
            threads: self
                .threads
                .try_borrow()
                .map(|t| t.describe(&core.hosts).into_boxed_slice())
                .unwrap_or_default(),
        }
    }

    /// Marks the simulation failed and drops every task.
    fn fail(&self, failure: Failure) -> Failure {
        self.core.borrow_mut().failed = true;
        self.shutdown();
        failure
    }

    fn task_info(&self, core: &Core, key: usize) -> TaskInfo {
        let slot = &core.tasks[key];
        TaskInfo {
            id: slot.id.as_u64(),
            host: core.hosts[slot.host.index()].name.to_string(),
            origin: match core.cold[key].origin {
                Origin::Spawn(l) => format!("spawned at {l}"),
                Origin::Blocking(l) => format!("spawn_blocking at {l}"),
                Origin::HostEntry => "host entry point".to_string(),
                Origin::Thread(n) => format!("std thread {n}"),
            },
            // In the enabled set, or woken and not yet drained into it.
            runnable: slot.queued || self.wakes.holds(key, slot.id),
        }
    }

    fn task_info_main(&self, id: Id) -> TaskInfo {
        Self::main_info(&self.core.borrow(), id, false)
    }

    fn main_info(core: &Core, id: Id, runnable: bool) -> TaskInfo {
        TaskInfo {
            id: id.as_u64(),
            host: core.hosts[MAIN_HOST.index()].name.to_string(),
            origin: "the future passed to block_on".to_string(),
            runnable,
        }
    }

    /// Every unfinished task, main first, in id order.
    fn task_infos(&self, core: &Core) -> Vec<TaskInfo> {
        let mut out = Vec::new();
        if let Some(m) = &core.main {
            let runnable = m.queued || self.wakes.holds(MAIN_KEY, m.id);
            out.push(Self::main_info(core, m.id, runnable));
        }
        let mut tasks: Vec<(usize, &TaskSlot)> =
            core.tasks.iter().filter(|(_, s)| !s.finished).collect();
        tasks.sort_by_key(|(_, s)| s.id);
        out.extend(tasks.into_iter().map(|(k, _)| self.task_info(core, k)));
        out
    }

    /// Drops every task's future, with this world current so their
    /// destructors can reach it; a finished task's output waits for its
    /// `JoinHandle` (`keep_outputs`).
    pub(crate) fn shutdown(self: &World) {
        self.keep_outputs(&mut self.core.borrow_mut());
        loop {
            let cells: Vec<_> = {
                let mut core = self.core.borrow_mut();
                core.enabled.clear();
                core.tasks
                    .iter_mut()
                    .filter_map(|(_, s)| {
                        s.finished = true;
                        s.cell.take()
                    })
                    .collect()
            };
            if cells.is_empty() {
                break;
            }
            drop(cells); // may spawn or drop more: loop until quiet
        }
        let mut core = self.core.borrow_mut();
        let removable: Vec<usize> = core
            .tasks
            .iter()
            .filter(|(_, s)| !s.has_handle)
            .map(|(k, _)| k)
            .collect();
        for k in removable {
            Self::remove_task(&mut core, k);
        }
        // From here on tokio's drivers answer as a shut-down runtime's. Not
        // before: the futures dropped above may make timers or spawn in
        // their destructors, as tokio's may while its drivers still run.
        self.shut_down.set(true);
    }

    pub(crate) fn trace(&self) -> Trace {
        self.core.borrow().trace.clone()
    }

    pub(crate) fn seed(&self) -> u64 {
        self.core.borrow().config.seed
    }

    /// Whether the runtime was shut down. A `block_on` through an
    /// `EnterGuard` held since still runs its future here, and tokio's
    /// drivers answer as a shut-down runtime's: timers panic, sockets and
    /// the standard streams fail with the error `is_rt_shutdown_err`
    /// recognises, `spawn` and `spawn_blocking` return cancelled tasks, and
    /// `tokio::fs` fails with "background task failed".
    pub(crate) fn is_shut_down(&self) -> bool {
        self.shut_down.get()
    }

    /// The id of the task being polled now: `None` outside a poll, and in
    /// the main future of a `block_on`, which tokio does not run as a task.
    pub(crate) fn current_task_id(&self) -> Option<Id> {
        let core = self.core.borrow();
        let current = core.current?;
        let main = core.main.as_ref().map(|m| m.id);
        (Some(current.id) != main).then_some(current.id)
    }

    /// Whether the poll running now is of a main future that tokio polls
    /// on the calling thread rather than on a worker: a multi-thread
    /// runtime's `block_on`, or a current-thread runtime's
    /// `Handle::block_on` (for `worker_index`).
    pub(crate) fn main_off_worker(&self) -> bool {
        let core = self.core.borrow();
        let main = core.main.as_ref().map(|m| m.id);
        let in_main = core.current.is_some_and(|c| Some(c.id) == main);
        in_main && (core.config.tasks_run_in_background() || self.main_without_core.get())
    }

    /// The worker the poll running now is counted on: the polls that cost
    /// time are dealt to the workers in turn (see `RuntimeMetrics`).
    pub(crate) fn current_worker(&self) -> usize {
        let core = self.core.borrow();
        let workers = core.config.workers.max(1) as u64;
        (core.charged.saturating_sub(1) % workers) as usize
    }

    /// Whether the poll running now holds a current-thread runtime's core,
    /// as in tokio: any task's, and the main future's unless it is a
    /// `Handle::block_on`'s. `block_in_place` panics there.
    pub(crate) fn polling_with_core(&self) -> bool {
        let core = self.core.borrow();
        if core.config.tasks_run_in_background() {
            return false;
        }
        let main = core.main.as_ref().map(|m| m.id);
        let in_main = core.current.is_some_and(|c| Some(c.id) == main);
        !(in_main && self.main_without_core.get())
    }
}
