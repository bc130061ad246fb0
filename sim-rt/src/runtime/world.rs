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

use std::cell::RefCell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe, Location};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;
use slab::Slab;

use super::failure::{panic_message, Cause, Failure, TaskInfo};
use super::net::NetState;
use super::run_queue::{Lane, RunQueue, Runnable};
use super::task::{Task, TaskCell, TaskWaker, WakeQueue, WakeRecord, MAIN_KEY};
use super::timer::{TimerKey, Timers};
use super::trace::{Step, Trace};
use super::{context, watchdog, UnhandledPanic, LATE_PROBABILITY};
use crate::scheduler::{derive_seed, ChoiceKind, Event, HostId, Observation, Scheduler, Shape};
use crate::task::{Id, JoinError};

/// Settings fixed when the runtime is built.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) seed: u64,
    pub(crate) max_steps: u64,
    pub(crate) max_time: Duration,
    /// `None`: to the `JoinHandle` when one is held, else a failure.
    pub(crate) unhandled_panic: Option<UnhandledPanic>,
    pub(crate) start_paused: bool,
    pub(crate) flavor: super::RuntimeFlavor,
    pub(crate) net: sim_net::NetConfig,
    /// The configuration of every host's disk, unless the host sets its own.
    pub(crate) fs: sim_fs::FsConfig,
    /// What every disk shows of the real files.
    pub(crate) real_files: crate::sim::RealFiles,
    pub(crate) faults: Option<crate::sim::FaultInjector>,
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
    /// Listeners waiting for the next one, in the order they started
    /// waiting.
    pub(crate) waiters: Vec<Waker>,
}

impl Host {
    /// The slot of `signal`, made on first use.
    pub(crate) fn signal_slot(&mut self, signal: i32) -> &mut SignalSlot {
        let i = match self.signals.iter().position(|s| s.signal == signal) {
            Some(i) => i,
            None => {
                self.signals.push(SignalSlot {
                    signal,
                    sent: 0,
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
    /// `fs::posix::DiskSlot`).
    #[cfg(all(
        feature = "intercept",
        target_os = "linux",
        target_env = "gnu",
        not(target_feature = "crt-static")
    ))]
    pub(crate) disk_slot: std::cell::OnceCell<crate::fs::posix::DiskSlot>,
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
    pub(crate) entropy: crate::intercept::Entropy,
    pub(crate) fs: RefCell<super::fs::FsState>,
    /// The liveness properties the program stated.
    pub(crate) liveness: RefCell<super::liveness::Props>,
    /// The story, when recorded (see `story.rs`).
    pub(crate) story: Option<RefCell<Vec<super::story::Told>>>,
    /// The coverage points evaluated so far (see `coverage.rs`).
    pub(crate) coverage: RefCell<super::coverage::Coverage>,
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
}

/// A snapshot of the counters behind `RuntimeMetrics`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WorldMetrics {
    pub(crate) alive_tasks: usize,
    pub(crate) runnable: usize,
    pub(crate) advances: u64,
}

/// The host that runs the test's own future.
pub(crate) const MAIN_HOST: HostId = HostId(0);

/// The main host's address: out of the way of the addresses tests give
/// their hosts (`10.0.0.1` and up, which hosts without an address of their
/// own get too).
pub(crate) const MAIN_ADDR: std::net::IpAddr =
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(10, 255, 255, 254));

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
            core: RefCell::new(Core {
                config,
                now: start,
                start,
                time_limit,
                late_deliveries,
                step: 0,
                advances: 0,
                spin_epoch: 1,
                spin_repeats: 0,
                main_spin_epoch: 0,
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
            entropy: crate::intercept::Entropy::new(seed),
            fs: RefCell::new(fs),
        });
        world.add_host("main", vec![MAIN_ADDR], None);
        world
    }

    // ----- hosts -----------------------------------------------------------

    /// Adds a host to the runtime and the network.
    ///
    /// # Panics
    ///
    /// When the name is taken or reserved, or an address is invalid or taken
    /// (the network model's rules).
    pub(crate) fn add_host(
        &self,
        name: &str,
        addrs: Vec<std::net::IpAddr>,
        entry: Option<Entry>,
    ) -> HostId {
        assert!(
            self.host_by_name(name).is_none(),
            "a host named \"{name}\" already exists in this simulation; host names must be unique"
        );
        let mut core = self.core.borrow_mut();
        let net_id = self.net.borrow_mut().net.add_host(name, addrs);
        let id = HostId(core.hosts.len() as u32);
        debug_assert_eq!(
            super::net::sim_host(net_id),
            id,
            "hosts are created in lockstep"
        );
        core.hosts.push(Host {
            name: name.into(),
            span: tracing::trace_span!("host", name),
            signals: Vec::new(),
            net_id,
            entry,
            stopped: false,
            paused: false,
            deferred: Vec::new(),
        });
        self.watch.host_added(id.index() as u32, name);
        id
    }

    /// The host named `name`, by the network's resolver's rules (case and
    /// a trailing dot do not matter), so that every name `connect` accepts
    /// also names the host for `sim::reset` and the others.
    pub(crate) fn host_by_name(&self, name: &str) -> Option<HostId> {
        let net = self.net.borrow();
        net.net.host_by_name(name).map(super::net::sim_host)
    }

    pub(crate) fn host_name(&self, host: HostId) -> Rc<str> {
        self.core.borrow().hosts[host.index()].name.clone()
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
        assert!(
            index < n,
            "the scheduler chose option {index} of a {kind:?} choice among {n}"
        );
        self.core.borrow_mut().trace.push(Step::Choose {
            kind: kind.code(),
            index: index as u32,
            of: n as u32,
        });
        if index != 0 {
            self.tell(|| super::story::Happening::Choice {
                kind: kind.code(),
                index: index as u32,
                of: n as u32,
            });
        }
        index
    }

    // ----- spawning and joining --------------------------------------------

    fn next_id(core: &mut Core) -> Id {
        core.next_id += 1;
        Id::from_u64(core.next_id)
    }

    /// Adds a task; it is runnable at once. Returns its slab key and id.
    pub(crate) fn spawn<F>(&self, fut: F, host: Option<HostId>, origin: Origin) -> (usize, Id)
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        if !self.driven.get() {
            // Nothing runs it until a `block_on` does.
            self.watch.set_undriven(true);
        }
        let mut core = self.core.borrow_mut();
        let id = Self::next_id(&mut core);
        if core.failed {
            // Spawned while a failed simulation shuts down (from a
            // destructor): the task is cancelled before it starts, as tokio
            // does for spawns into a runtime that is shutting down. It is
            // never polled, so its waker is a no-op.
            drop(core);
            let mut cell: Pin<Box<dyn TaskCell>> = Box::pin(Task::new(Waker::noop().clone(), fut));
            cell.as_mut().finish_with(JoinError::cancelled(id));
            let mut core = self.core.borrow_mut();
            let key = core.tasks.vacant_key();
            Self::insert_task(
                &mut core,
                TaskSlot {
                    id,
                    host: host.unwrap_or(MAIN_HOST),
                    cell: Some(cell),
                    finished: true,
                    abort_requested: false,
                    has_handle: true,
                    join_waiting: false,
                    queued: false,
                    spin_epoch: 0,
                },
                origin,
                tracing::Span::none(),
            );
            return (key, id);
        }
        let current = core.current;
        let host = host.or(current.map(|c| c.host)).unwrap_or(MAIN_HOST);
        let key = core.tasks.vacant_key();
        let waker = Waker::from(Arc::new(TaskWaker {
            key,
            id,
            queue: self.wakes.clone(),
        }));
        let cell: Pin<Box<dyn TaskCell>> = Box::pin(Task::new(waker, fut));
        let span = {
            let host_span = &core.hosts[host.index()].span;
            match origin {
                Origin::Spawn(l) | Origin::Blocking(l) => {
                    tracing::trace_span!(parent: host_span, "task", id = id.as_u64(), spawned_at = %l)
                }
                Origin::HostEntry => {
                    tracing::trace_span!(parent: host_span, "task", id = id.as_u64(), entry = true)
                }
            }
        };
        Self::insert_task(
            &mut core,
            TaskSlot {
                id,
                host,
                cell: Some(cell),
                finished: false,
                abort_requested: false,
                has_handle: true,
                join_waiting: false,
                queued: false,
                spin_epoch: 0,
            },
            origin,
            span,
        );
        drop(core);
        self.wake(key, id);
        self.tell(|| super::story::Happening::Spawned { task: id, host });
        self.observe(Observation::Spawned {
            task: id,
            parent: current.map(|c| c.id),
            host,
            spawned_at: match origin {
                Origin::Spawn(l) | Origin::Blocking(l) => Some(l),
                Origin::HostEntry => None,
            },
        });
        (key, id)
    }

    /// Stores a new task: its slot, its origin and (if enabled) its span.
    fn insert_task(core: &mut Core, slot: TaskSlot, origin: Origin, span: tracing::Span) -> usize {
        let key = core.tasks.insert(slot);
        match key.cmp(&core.cold.len()) {
            // The join waker of a free key is `None` (taken when its task
            // finished), so only the origin is written.
            std::cmp::Ordering::Less => core.cold[key].origin = origin,
            std::cmp::Ordering::Equal => core.cold.push(Cold {
                origin,
                join_waker: None,
            }),
            std::cmp::Ordering::Greater => unreachable!("slab keys are dense"),
        }
        if !span.is_disabled() {
            core.spans.insert(key, span);
        }
        key
    }

    /// Frees task `key`'s slot, span and join waker; returns the slot.
    fn remove_task(core: &mut Core, key: usize) -> TaskSlot {
        let mut slot = core.tasks.remove(key);
        if !core.spans.is_empty() {
            core.spans.remove(&key);
        }
        Self::take_join_waker(&mut core.cold, key, &mut slot);
        slot
    }

    /// Takes the waker of the `JoinHandle` waiting for task `key` (whose
    /// slot is `slot`), if any.
    fn take_join_waker(cold: &mut [Cold], key: usize, slot: &mut TaskSlot) -> Option<Waker> {
        if !std::mem::take(&mut slot.join_waiting) {
            return None;
        }
        cold[key].join_waker.take()
    }

    /// The id of runnable `r`'s `Poll` event.
    fn runnable_id(tasks: &Slab<TaskSlot>, main: &Option<Main>, r: Runnable) -> Id {
        match r.key() {
            MAIN_KEY => {
                main.as_ref()
                    .expect("the main future is runnable while it lives")
                    .id
            }
            key => tasks[key].id,
        }
    }

    fn slot(core: &mut Core, key: usize, id: Id) -> Option<&mut TaskSlot> {
        core.tasks.get_mut(key).filter(|s| s.id == id)
    }

    pub(crate) fn poll_join<T>(
        &self,
        key: usize,
        id: Id,
        take: crate::task::join_handle::TakeOutput<T>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, JoinError>> {
        // A unit of the cooperative budget, as tokio's JoinHandle takes
        // (only when the task is finished; see `coop::spend`).
        std::task::ready!(crate::task::coop::poll_budget_available(cx));
        let mut guard = self.core.borrow_mut();
        let core = &mut *guard;
        let slot =
            Self::slot(core, key, id).expect("a task's slot lives as long as its JoinHandle");
        if !slot.finished {
            slot.join_waiting = true;
            let join_waker = &mut core.cold[key].join_waker;
            let replaced = match join_waker {
                Some(w) if w.will_wake(cx.waker()) => None,
                _ => join_waker.replace(cx.waker().clone()),
            };
            drop(guard);
            drop(replaced); // its `Drop` may reach this world
            return Poll::Pending;
        }
        crate::task::coop::spend();
        let Some(cell) = slot.cell.as_mut() else {
            // The runtime shut down and dropped the output with the task.
            return Poll::Ready(Err(JoinError::cancelled(id)));
        };
        match take(cell.as_mut()) {
            Some(result) => Poll::Ready(result),
            None => panic!("JoinHandle polled after it returned Poll::Ready"),
        }
    }

    /// The `JoinHandle` is gone: free the slot once the task is done too.
    pub(crate) fn release_handle(&self, key: usize, id: Id) {
        let cell = {
            let mut core = self.core.borrow_mut();
            // A panic handed to the handle and dropped with it, unobserved:
            // under the default policy it fails the run.
            let unobserved = core.config.unhandled_panic.is_none() && core.failure.is_none();
            let Some(slot) = Self::slot(&mut core, key, id) else {
                return;
            };
            slot.has_handle = false;
            if !slot.finished {
                return;
            }
            let untaken = slot
                .cell
                .as_ref()
                .filter(|_| unobserved)
                .and_then(|c| c.untaken_panic());
            if let Some(message) = untaken {
                let message = format!(
                    "{message}\n  note: the panic was handed to the task's JoinHandle, which was \
                     dropped without awaiting it"
                );
                let task = self.task_info(&core, key);
                let failure = self.failure_in(&core, Cause::TaskPanic { message, task });
                core.failure = Some(failure);
            }
            Self::remove_task(&mut core, key).cell
        };
        drop(cell); // the unclaimed output, dropped outside the borrow
    }

    pub(crate) fn abort(&self, key: usize, id: Id) {
        {
            let mut core = self.core.borrow_mut();
            match Self::slot(&mut core, key, id) {
                Some(slot) if !slot.finished => slot.abort_requested = true,
                _ => return,
            }
        }
        self.wake(key, id);
    }

    /// Wakes `waker` for `yield_now`: a wake of a task of this world is a
    /// yield, runnable behind the others ([`Lane::Yielded`]).
    pub(crate) fn wake_yielding(&self, waker: &Waker) {
        self.wakes.yielding.store(true, Ordering::Relaxed);
        waker.wake_by_ref();
        self.wakes.yielding.store(false, Ordering::Relaxed);
    }

    /// Wakes task `id` at `key` as its waker would.
    fn wake(&self, key: usize, id: Id) {
        self.wakes.push(WakeRecord {
            yielded: false,
            key,
            id,
            by: self.wakes.running(),
        });
    }

    pub(crate) fn is_finished(&self, key: usize, id: Id) -> bool {
        let mut core = self.core.borrow_mut();
        Self::slot(&mut core, key, id).is_none_or(|s| s.finished)
    }

    pub(crate) fn current(&self) -> Option<Current> {
        self.core.borrow().current
    }

    // ----- the story --------------------------------------------------------

    /// Records what happened, when the story is recorded.
    #[inline]
    pub(crate) fn tell(&self, what: impl FnOnce() -> super::story::Happening) {
        if self.story.is_some() {
            let core = self.core.borrow();
            self.tell_in(&core, what);
        }
    }

    /// [`tell`](Self::tell) with the core already borrowed.
    #[inline]
    pub(crate) fn tell_in(&self, core: &Core, what: impl FnOnce() -> super::story::Happening) {
        if let Some(story) = &self.story {
            story.borrow_mut().push(super::story::Told {
                step: core.step,
                point: core.trace.len() as u64,
                at: core.now - core.start,
                what: what(),
            });
        }
    }

    // ----- the step loop ---------------------------------------------------

    /// Calls `on_thread_park`, then `on_thread_unpark`, where tokio's
    /// current-thread scheduler parks its thread: no task is runnable, so
    /// the next step moves time or delivers a packet. The hooks run with
    /// this world current and may wake or spawn tasks; the step then polls
    /// them instead, as tokio does not park then.
    fn park_hooks(&self) {
        let Some(hooks) = &self.park_hooks else {
            return;
        };
        if self.wakes.any_queued() || self.core.borrow().enabled.len() > 0 {
            return;
        }
        if let Some(park) = &hooks.park {
            park();
        }
        if let Some(unpark) = &hooks.unpark {
            unpark();
        }
    }

    /// Runs `fut` as the main task until it completes, driving every other
    /// task meanwhile. Panics with a report if the simulation fails.
    pub(crate) fn block_on<F: Future>(self: &Rc<Self>, fut: F) -> F::Output {
        match self.try_block_on(fut) {
            Ok(out) => out,
            Err(failure) => super::__private::fail_quietly(format!(
                "{failure}\n  reproduce: {}",
                super::failure::reproduce_line(failure.seed)
            )),
        }
    }

    /// Runs `fut` as the main task until it completes or the simulation
    /// fails; on failure every task has been dropped.
    pub(crate) fn try_block_on<F: Future>(self: &Rc<Self>, fut: F) -> Result<F::Output, Failure> {
        // Tasks left unfinished when this returns wait for the next
        // `block_on` (the watchdog's "undriven" case).
        struct Undriven<'a>(&'a World);
        impl Drop for Undriven<'_> {
            fn drop(&mut self) {
                self.0.driven.set(false);
                let left = self
                    .0
                    .core
                    .try_borrow()
                    .is_ok_and(|c| c.tasks.iter().any(|(_, t)| !t.finished));
                self.0.watch.set_undriven(left);
            }
        }
        self.watch.set_undriven(false);
        self.driven.set(true);
        let _undriven = Undriven(self);
        let _enter = context::enter(self.clone());
        let _driving = context::drive();
        let mut fut = std::pin::pin!(fut);
        let (main_id, waker, span) = self.start_main();
        loop {
            if self.injecting {
                self.inject_fault();
            }
            self.park_hooks();
            let next = match self.next_event() {
                Ok(next) => next,
                Err(failure) => return Err(self.fail(*failure)),
            };
            match next {
                Next::Main => {
                    if let Some(m) = self.core.borrow_mut().main.as_mut() {
                        m.queued = false;
                    }
                    self.watch
                        .begin(main_id.as_u64(), 0, watchdog::Kind::Main, None);
                    self.set_running(Some(Current {
                        id: main_id,
                        host: MAIN_HOST,
                    }));
                    self.wakes.self_woken.store(false, Ordering::Relaxed);
                    let res = {
                        let _e = span.enter();
                        catch_unwind(AssertUnwindSafe(|| {
                            fut.as_mut().poll(&mut Context::from_waker(&waker))
                        }))
                    };
                    self.set_running(None);
                    match res {
                        Ok(Poll::Ready(out)) => {
                            self.core.borrow_mut().main = None;
                            self.observe(Observation::Finished { task: main_id });
                            if self.liveness.borrow().any {
                                let found = self.check_liveness(true);
                                let walk = self.core.borrow().config.liveness_walk;
                                let found = match found {
                                    Some(v @ super::liveness::Violation::Unmet { .. })
                                        if walk > 0 =>
                                    {
                                        self.walk_for_liveness(walk, v)
                                    }
                                    other => other.map(Cause::Liveness).map(|c| self.failure(c)),
                                };
                                if let Some(failure) = found {
                                    drop(out);
                                    return Err(self.fail(failure));
                                }
                            }
                            return Ok(out);
                        }
                        Ok(Poll::Pending) => {
                            let self_woken = self.wakes.self_woken.load(Ordering::Relaxed);
                            self.pending_poll(&mut self.core.borrow_mut(), self_woken, None);
                            self.observe(Observation::Blocked { task: main_id })
                        }
                        Err(payload) => {
                            let failure = self.failure(Cause::MainPanic {
                                message: panic_message(&*payload),
                                task: self.task_info_main(main_id),
                            });
                            return Err(self.fail(failure));
                        }
                    }
                }
                other => self.dispatch(other),
            }
            if self.liveness.borrow().any {
                if let Some(violation) = self.check_liveness(false) {
                    let failure = self.failure(Cause::Liveness(violation));
                    return Err(self.fail(failure));
                }
            }
        }
    }

    /// Runs a step other than a poll of the main future.
    fn dispatch(&self, next: Next) {
        match next {
            // Only while the main future is alive (its wakes are dropped
            // once it returned): `try_block_on` polls it itself.
            Next::Main => {}
            Next::Task(key) => self.run_task(key),
            Next::Advance(to) => {
                Self::progress(&mut self.core.borrow_mut());
                self.move_clock_to(to)
            }
            Next::Deliver(packet) => {
                Self::progress(&mut self.core.borrow_mut());
                self.deliver(packet)
            }
        }
    }

    /// A step that was not a task spinning: the spin streak ends.
    fn progress(core: &mut Core) {
        core.spin_epoch += 1;
        core.spin_repeats = 0;
    }

    /// After a poll that returned `Pending`: the task at `key` (the main
    /// future for `None`) spun if it woke itself during the poll without
    /// running out of coop budget (a forced yield after work), which
    /// extends the streak (counting from its second spin in it); else the
    /// streak ends.
    fn pending_poll(&self, core: &mut Core, self_woken: bool, key: Option<usize>) {
        // A poll that yielded because its coop budget ran out did work,
        // unless a timer waits meanwhile: time moves only when no task can
        // run, so a loop that never waits starves the clock (as on tokio
        // with a paused clock) and spins.
        if !self_woken
            || (crate::task::coop::poll_exhausted_budget() && core.timers.next_deadline().is_none())
        {
            return Self::progress(core);
        }
        let epoch = core.spin_epoch;
        let last = match key {
            Some(key) => &mut core.tasks[key].spin_epoch,
            None => &mut core.main_spin_epoch,
        };
        if std::mem::replace(last, epoch) == epoch {
            core.spin_repeats += 1;
        }
        self.check_livelock(core);
    }

    /// Fails the run (through `core.failure`, which the next step reports)
    /// when the spin streak reached the livelock limit.
    fn check_livelock(&self, core: &mut Core) {
        let limit = core.config.livelock_steps;
        if limit == 0 || core.spin_repeats < limit || core.failure.is_some() {
            return;
        }
        let epoch = core.spin_epoch;
        let mut tasks: Vec<TaskInfo> = core
            .tasks
            .iter()
            .filter(|(_, t)| t.spin_epoch == epoch && !t.finished)
            .map(|(k, _)| self.task_info(core, k))
            .collect();
        if core.main_spin_epoch == epoch {
            if let Some(main) = &core.main {
                tasks.insert(0, Self::main_info(core, main.id, true));
            }
        }
        let failure = self.failure_in(
            core,
            Cause::Livelock {
                steps: core.spin_repeats,
                tasks,
            },
        );
        core.failure = Some(failure);
    }

    /// Evaluates the stated liveness properties that are due (all of them
    /// when `at_end`), with no borrow of the world held while the
    /// predicates run; returns a violation: a monitor hot past its limit,
    /// or at the end an "eventually" that did not hold.
    fn check_liveness(&self, at_end: bool) -> Option<super::liveness::Violation> {
        let (step, now) = self.step_and_elapsed();
        let due = self.liveness.borrow().due(if at_end { 0 } else { step });
        for (i, pred) in due {
            let holds = pred();
            self.liveness.borrow_mut().record(i, holds, (step, now));
        }
        let props = self.liveness.borrow();
        let hot = props.hot_too_long(now);
        if at_end {
            hot.or_else(|| props.unmet())
        } else {
            hot
        }
    }

    /// For a walk that began at `began` and stopped with `failure`: the
    /// time of the event it waited for, when that was a time limit reached
    /// after at least half of the walk's time with nothing happening (the
    /// clock stays at the last event's time; the limit is where the walk's
    /// time ran out).
    fn waiting(&self, failure: &Failure, began: Duration) -> Option<Duration> {
        let Cause::TimeLimit { limit, next, .. } = &*failure.cause else {
            return None;
        };
        let core = self.core.borrow();
        let (began, last) = (began - core.start, core.now - core.start);
        let quiet = limit.saturating_sub(last);
        (quiet.saturating_mul(2) >= limit.saturating_sub(began)).then_some(*next)
    }

    /// Goes on stepping after the main future returned with an "eventually"
    /// property unmet (`unmet`), for up to `walk` steps: `None` once every
    /// property holds; else the failure: the property unmet, dead (nothing
    /// more could happen) or indeterminate (the walk or a limit ended
    /// first), or whatever else failed the run meanwhile (a panic, a hot
    /// monitor).
    fn walk_for_liveness(&self, walk: u64, unmet: super::liveness::Violation) -> Option<Failure> {
        use super::liveness::Walked;
        let (start, began) = {
            let core = self.core.borrow();
            (core.step, core.now)
        };
        let walked = |w: &World| w.core.borrow().step - start;
        loop {
            if self.liveness.borrow().all_met() {
                return None;
            }
            if walked(self) >= walk {
                let steps = walked(self);
                let violation = self.liveness.borrow().unmet().unwrap_or(unmet);
                let walked = Walked {
                    steps,
                    dead: false,
                    waiting: None,
                };
                return Some(self.failure(Cause::Liveness(violation.after(walked))));
            }
            if self.injecting {
                self.inject_fault();
            }
            let next = match self.next_event() {
                Ok(next) => next,
                Err(failure) => {
                    let dead = match failure.kind() {
                        super::FailureKind::Deadlock => true,
                        super::FailureKind::StepLimit | super::FailureKind::TimeLimit => false,
                        _ => return Some(*failure),
                    };
                    let steps = walked(self);
                    let violation = self.liveness.borrow().unmet().unwrap_or(unmet);
                    let waiting = self.waiting(&failure, began);
                    let walked = Walked {
                        steps,
                        dead,
                        waiting,
                    };
                    return Some(self.failure(Cause::Liveness(violation.after(walked))));
                }
            };
            self.dispatch(next);
            if let Some(hot) = self.check_liveness(false) {
                return Some(self.failure(Cause::Liveness(hot)));
            }
        }
    }

    /// The current step and simulated time since the start.
    pub(crate) fn step_and_elapsed(&self) -> (u64, Duration) {
        let core = self.core.borrow();
        (core.step, core.now - core.start)
    }

    fn start_main(&self) -> (Id, Waker, tracing::Span) {
        let mut core = self.core.borrow_mut();
        assert!(
            !core.failed,
            "this simulation already failed; build a new runtime to run again"
        );
        let id = Self::next_id(&mut core);
        let waker = Waker::from(Arc::new(TaskWaker {
            key: MAIN_KEY,
            id,
            queue: self.wakes.clone(),
        }));
        let span = tracing::trace_span!(parent: &core.hosts[0].span, "task", id = id.as_u64(), main = true);
        core.main = Some(Main { id, queued: false });
        drop(core);
        self.wake(MAIN_KEY, id);
        (id, waker, span)
    }

    #[inline]
    fn set_running(&self, current: Option<Current>) {
        if current.is_none() {
            self.watch.end();
        }
        self.core.borrow_mut().current = current;
        crate::task::coop::start_poll(current.is_some());
        self.wakes
            .running
            .store(current.map_or(0, |c| c.id.as_u64()), Ordering::Relaxed);
    }

    fn next_event(&self) -> Result<Next, Box<Failure>> {
        let mut guard = self.core.borrow_mut();
        let core = &mut *guard;
        if core.failure.is_some() {
            return Err(Box::new(core.failure.take().expect("checked")));
        }
        self.drain_wakes(core);
        core.enabled.park_if_due();
        let polls = core.enabled.len();
        let now = core.now;
        let mut net = self.net.borrow_mut();
        // The enabled events are the polls, then the deliveries (in send
        // order), then `Advance`; the deliveries are the model's own index,
        // copied into `enabled` only for a scheduler that reads the list.
        let (deliverable, window, latest) = net.schedule(now);
        let delivers = deliverable.len();
        // Where `Advance`, if enabled, moves the clock.
        let mut advance_to = now;
        let mut advance = false;
        let mut late = false;
        if polls == 0 {
            // Nothing can run: time may move to the next timer deadline or
            // window opening, unless a packet must arrive before then.
            let target = match (core.timers.next_deadline(), window) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match target {
                Some(t) if latest.is_some_and(|l| t > l) => {}
                Some(t) if t > core.time_limit && delivers == 0 => {
                    let limit = core.config.max_time;
                    drop(net);
                    let tasks = self.task_infos(core);
                    return Err(Box::new(self.failure_in(
                        core,
                        Cause::TimeLimit {
                            limit,
                            next: t - core.start,
                            tasks,
                        },
                    )));
                }
                Some(t) if t > core.time_limit => {}
                Some(t) => {
                    advance_to = t;
                    advance = true;
                }
                None => {}
            }
            // Packets are deliverable and time cannot move on before they
            // must arrive: under a scheduler that asks for it, a data
            // choice may still move the clock to the earliest of their
            // latest arrivals (the packets wait), so that "late in its
            // window" is reachable, not only the window's opening.
            if !advance && delivers > 0 && core.late_deliveries {
                if let Some(l) = latest.filter(|&l| l > now && l <= core.time_limit) {
                    let kind = ChoiceKind::Late {
                        probability: LATE_PROBABILITY,
                    };
                    let index = self.scheduler.borrow_mut().choose(kind, 2);
                    assert!(
                        index < 2,
                        "the scheduler chose option {index} of a {kind:?} choice among 2"
                    );
                    core.trace.push(Step::Choose {
                        kind: kind.code(),
                        index: index as u32,
                        of: 2,
                    });
                    if index == 1 {
                        self.tell_in(core, || super::story::Happening::Choice {
                            kind: kind.code(),
                            index: 1,
                            of: 2,
                        });
                        advance_to = l;
                        advance = true;
                        late = true;
                    }
                }
            }
            if delivers == 0 && !advance {
                drop(net);
                let tasks = self.task_infos(core);
                return Err(Box::new(self.failure_in(core, Cause::Deadlock { tasks })));
            }
        }
        if core.step >= core.config.max_steps {
            drop(net);
            let tasks = self.task_infos(core);
            let limit = core.config.max_steps;
            return Err(Box::new(
                self.failure_in(core, Cause::StepLimit { limit, tasks }),
            ));
        }
        // A late delivery was chosen: the packets wait, time moves.
        let delivers = if late { 0 } else { delivers };
        let n = polls + delivers + usize::from(advance);
        let shape = Shape {
            polls,
            queued: core.enabled.before_drivers(),
            deliveries: delivers,
            advance,
        };
        let index = {
            let mut scheduler = self.scheduler.borrow_mut();
            match scheduler.pick_shape(shape) {
                Some(index) => index,
                None => {
                    let events = &mut core.events;
                    events.clear();
                    events.extend(
                        core.enabled
                            .iter()
                            .map(|r| Event::Poll(Self::runnable_id(&core.tasks, &core.main, r))),
                    );
                    events.extend(deliverable.iter().take(delivers).map(Event::Deliver));
                    if advance {
                        events.push(Event::Advance);
                    }
                    scheduler.pick(events)
                }
            }
        };
        assert!(
            index < n,
            "the scheduler picked option {index} but only {n} events are enabled"
        );
        let event = if index < polls {
            Event::Poll(Self::runnable_id(
                &core.tasks,
                &core.main,
                core.enabled.get(index),
            ))
        } else if index < polls + delivers {
            Event::Deliver(
                deliverable
                    .get(index - polls)
                    .expect("the index is within the deliveries"),
            )
        } else {
            Event::Advance
        };
        drop(net);
        let key = if index < polls {
            if index != 0 && core.unlike_tokio.is_none() {
                core.unlike_tokio = Some(core.step);
            }
            core.enabled.take(index).key()
        } else {
            MAIN_KEY // unused: only a `Poll` has a key
        };
        core.trace.push(Step::Pick {
            index: index as u32,
            of: n as u32,
            event,
        });
        core.step += 1;
        Ok(match event {
            Event::Poll(_) if key == MAIN_KEY => Next::Main,
            Event::Poll(_) => Next::Task(key),
            Event::Advance => Next::Advance(advance_to),
            Event::Deliver(p) => Next::Deliver(p),
        })
    }

    /// Moves queued wakes into the enabled set, dropping stale ones and
    /// holding back those of paused hosts.
    fn drain_wakes(&self, core: &mut Core) {
        if !self.wakes.take_into(&mut core.wake_buf) {
            return;
        }
        let mut sched = self.scheduler.borrow_mut();
        let told_at = self
            .story
            .as_ref()
            .map(|_| (core.step, core.trace.len() as u64, core.now - core.start));
        for w in core.wake_buf.drain(..) {
            // A task already in the enabled set (or held back) is not
            // added again: its later wakes before its poll are no-ops.
            let live = if w.key == MAIN_KEY {
                match core.main.as_mut() {
                    Some(m) if m.id == w.id && !m.queued => {
                        m.queued = true;
                        true
                    }
                    _ => false,
                }
            } else {
                match core.tasks.get_mut(w.key) {
                    Some(s) if s.id == w.id && !s.finished && !s.queued => {
                        let host = &mut core.hosts[s.host.index()];
                        if host.paused {
                            if !host.deferred.iter().any(|d| d.key == w.key && d.id == w.id) {
                                host.deferred.push(w);
                            }
                            continue;
                        }
                        s.queued = true;
                        true
                    }
                    _ => false,
                }
            };
            if live {
                let lane = if w.yielded {
                    Lane::Yielded
                } else {
                    Lane::Woken
                };
                core.enabled.push(w.key, lane);
                if let (Some(story), Some((step, point, at))) = (&self.story, told_at) {
                    if w.by.is_none() && w.key != MAIN_KEY {
                        let host = core.tasks[w.key].host;
                        story.borrow_mut().push(super::story::Told {
                            step,
                            point,
                            at,
                            what: super::story::Happening::Woken { task: w.id, host },
                        });
                    }
                }
                if self.observing {
                    sched.observe(&Observation::Woken {
                        task: w.id,
                        by: w.by,
                    });
                }
            }
        }
    }

    fn run_task(&self, key: usize) {
        let (mut cell, span, id, host, abort, origin) = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let slot = core
                .tasks
                .get_mut(key)
                .expect("the enabled set holds only live tasks");
            let cell = slot
                .cell
                .take()
                .expect("a task is not polled while it is being polled");
            slot.queued = false;
            let span = if core.spans.is_empty() {
                None
            } else {
                core.spans.get(&key).cloned()
            };
            let origin = core.cold[key].origin;
            (cell, span, slot.id, slot.host, slot.abort_requested, origin)
        };
        let (kind, at) = match origin {
            Origin::Spawn(l) => (watchdog::Kind::Spawn, Some(l)),
            Origin::Blocking(l) => (watchdog::Kind::Blocking, Some(l)),
            Origin::HostEntry => (watchdog::Kind::HostEntry, None),
        };
        self.watch.begin(id.as_u64(), host.index() as u32, kind, at);
        self.set_running(Some(Current { id, host }));
        self.wakes.self_woken.store(false, Ordering::Relaxed);
        let res = {
            let _e = span.as_ref().map(tracing::Span::enter);
            if abort {
                cell.as_mut().finish_with(JoinError::cancelled(id));
                Ok(Poll::Ready(()))
            } else {
                catch_unwind(AssertUnwindSafe(|| cell.as_mut().poll()))
            }
        };
        self.set_running(None);
        match res {
            Ok(Poll::Pending) => {
                {
                    let mut core = self.core.borrow_mut();
                    let slot = &mut core.tasks[key];
                    slot.cell = Some(cell);
                    // Woken during its own poll: only the task itself ran.
                    let self_woken = self.wakes.self_woken.load(Ordering::Relaxed);
                    self.pending_poll(&mut core, self_woken, Some(key));
                }
                self.observe(Observation::Blocked { task: id });
                self.apply_host_ops();
            }
            Ok(Poll::Ready(())) => {
                Self::progress(&mut self.core.borrow_mut());
                self.finish(key, cell);
                self.apply_host_ops();
            }
            Err(payload) => {
                let policy = {
                    let core = self.core.borrow();
                    match core.config.unhandled_panic {
                        Some(policy) => policy,
                        // Someone can observe it: the handle's holder.
                        None if core.tasks[key].has_handle => UnhandledPanic::Ignore,
                        None => UnhandledPanic::ShutdownRuntime,
                    }
                };
                match policy {
                    UnhandledPanic::Ignore => {
                        let mut core = self.core.borrow_mut();
                        if core.earlier_panic.is_none() {
                            let task = self.task_info(&core, key).to_string();
                            core.earlier_panic = Some((task, panic_message(&*payload)));
                        }
                        drop(core);
                        cell.as_mut().finish_with(JoinError::panic(id, payload));
                        self.finish(key, cell);
                    }
                    UnhandledPanic::ShutdownRuntime => {
                        let message = panic_message(&*payload);
                        let task = {
                            let core = self.core.borrow();
                            self.task_info(&core, key)
                        };
                        drop(payload);
                        drop(cell);
                        let failure = self.failure(Cause::TaskPanic { message, task });
                        self.core.borrow_mut().failure = Some(failure);
                    }
                }
            }
        }
    }

    /// The task in `key` completed; its output is in `cell`.
    fn finish(&self, key: usize, cell: Pin<Box<dyn TaskCell>>) {
        let (id, join_waker, unclaimed) = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let slot = &mut core.tasks[key];
            slot.finished = true;
            let id = slot.id;
            let join_waker = Self::take_join_waker(&mut core.cold, key, slot);
            if slot.has_handle {
                slot.cell = Some(cell);
                (id, join_waker, None)
            } else {
                Self::remove_task(core, key);
                (id, join_waker, Some(cell))
            }
        };
        drop(unclaimed);
        self.observe(Observation::Finished { task: id });
        if let Some(w) = join_waker {
            w.wake();
        }
    }

    /// Moves the clock forward by `by` at once and fires what is due (the
    /// simulated `tokio::time::advance`).
    pub(crate) fn jump(&self, by: Duration) {
        let to = self.now() + by;
        self.move_clock_to(to);
    }

    /// Sets the clock to `to` (never backwards), then wakes every timer due
    /// by then, outside the borrow.
    fn move_clock_to(&self, to: Duration) {
        let (now, fired) = {
            let mut core = self.core.borrow_mut();
            debug_assert!(to >= core.now, "time never goes backwards");
            core.now = core.now.max(to);
            core.advances += 1;
            let now = core.now;
            // Many advances are to a packet's arrival, with no timer due.
            let fired = core.timers.any_due(now).then(|| {
                let mut buf = std::mem::take(&mut core.fire_buf);
                core.timers.fire_until(now, &mut buf);
                buf
            });
            (now, fired)
        };
        self.tell(|| super::story::Happening::Advanced);
        self.observe(Observation::Advanced { to: now });
        if let Some(mut fired) = fired {
            for w in fired.drain(..) {
                w.wake();
            }
            self.core.borrow_mut().fire_buf = fired;
        }
    }

    /// A host's entry point returned an error: the simulation fails at the
    /// next step, whatever the panic policy.
    pub(crate) fn fail_host(&self, message: String) {
        let task = {
            let core = self.core.borrow();
            let current = core.current.expect("a host entry point runs as a task");
            let key = core
                .tasks
                .iter()
                .find(|(_, s)| s.id == current.id)
                .map(|(k, _)| k)
                .expect("the running task has a slot");
            self.task_info(&core, key)
        };
        let failure = self.failure(Cause::HostError { message, task });
        let mut core = self.core.borrow_mut();
        if core.failure.is_none() {
            core.failure = Some(failure);
        }
    }

    // ----- host lifecycle ---------------------------------------------------

    /// Stops, starts, resets or pauses `host` now, or, when the running task
    /// belongs to `host`, as soon as its poll returns.
    pub(crate) fn host_op(&self, host: HostId, op: HostOp) {
        assert!(
            host != MAIN_HOST,
            "the main host runs the test's own future: it cannot be stopped, reset or paused \
             (create other hosts with sim_rt::sim::host and act on those)"
        );
        {
            let mut core = self.core.borrow_mut();
            assert!(
                host.index() < core.hosts.len(),
                "{host} is not a host of this simulation"
            );
            if core.current.is_some_and(|c| c.host == host) {
                core.host_ops.push((host, op));
                return;
            }
        }
        match op {
            HostOp::Stop => self.stop_host(host),
            HostOp::Start => self.start_host(host),
            HostOp::Reset => {
                self.stop_host(host);
                self.start_host(host);
            }
            HostOp::Pause => self.pause_host(host, true),
        }
    }

    /// Applies the host changes a task asked for on its own host.
    fn apply_host_ops(&self) {
        loop {
            let ops = std::mem::take(&mut self.core.borrow_mut().host_ops);
            if ops.is_empty() {
                return;
            }
            for (host, op) in ops {
                self.host_op(host, op);
            }
        }
    }

    /// Crashes `host`: its kernel forgets every socket, its disk loses what
    /// was not synced (as its crash model allows), and every task of
    /// the host is dropped (its `JoinHandle`s see a cancelled `JoinError`).
    /// A no-op on a stopped host.
    fn stop_host(&self, host: HostId) {
        let (net_id, cells) = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let h = &mut core.hosts[host.index()];
            if h.stopped {
                return;
            }
            h.stopped = true;
            h.paused = false;
            h.deferred.clear();
            let net_id = h.net_id;
            let mut cells = Vec::new();
            for (key, slot) in core.tasks.iter_mut() {
                if slot.host == host && !slot.finished {
                    slot.finished = true;
                    let cell = slot
                        .cell
                        .take()
                        .expect("no task of a host runs while the host is stopped");
                    let join_waker = Self::take_join_waker(&mut core.cold, key, slot);
                    cells.push((key, slot.id, cell, join_waker));
                }
            }
            let tasks = &core.tasks;
            core.enabled
                .retain(|r| r.key() == MAIN_KEY || !tasks[r.key()].finished);
            (net_id, cells)
        };
        self.net_op(|net, now| net.stop_host(net_id, now));
        // Before the tasks drop: their in-flight disk writes die with the host.
        self.fs_crash(host);
        self.tell(|| super::story::Happening::Stopped { host });
        self.observe(Observation::HostStopped { host });
        for (key, id, mut cell, join_waker) in cells {
            // Drops the future: its sockets close on a dead kernel (no-ops).
            cell.as_mut().finish_with(JoinError::cancelled(id));
            let unclaimed = {
                let mut core = self.core.borrow_mut();
                match Self::slot(&mut core, key, id) {
                    Some(slot) if slot.has_handle => {
                        slot.cell = Some(cell);
                        None
                    }
                    Some(_) => {
                        Self::remove_task(&mut core, key);
                        Some(cell)
                    }
                    // Its JoinHandle was held by a task of this host dropped
                    // just before: releasing it freed the slot already.
                    None => Some(cell),
                }
            };
            drop(unclaimed);
            self.observe(Observation::Finished { task: id });
            if let Some(w) = join_waker {
                w.wake();
            }
        }
    }

    /// Boots `host` again and spawns its entry point. A no-op on a host
    /// that is not stopped.
    fn start_host(&self, host: HostId) {
        let (net_id, entry) = {
            let mut core = self.core.borrow_mut();
            let h = &mut core.hosts[host.index()];
            if !h.stopped {
                return;
            }
            h.stopped = false;
            (h.net_id, h.entry.clone())
        };
        self.net_op(|net, now| net.start_host(net_id, now));
        self.tell(|| super::story::Happening::Started { host });
        self.observe(Observation::HostStarted { host });
        if let Some(entry) = entry {
            let (key, id) = self.spawn(entry(), Some(host), Origin::HostEntry);
            self.release_handle(key, id);
        }
    }

    /// Pauses (`true`) or resumes `host`: while paused its tasks are not
    /// polled (their wakes wait), but its kernel keeps receiving packets.
    pub(crate) fn pause_host(&self, host: HostId, paused: bool) {
        let requeue = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let h = &mut core.hosts[host.index()];
            if h.stopped || h.paused == paused {
                return;
            }
            h.paused = paused;
            if paused {
                // Runnable tasks of the host wait too.
                let (tasks, hosts) = (&mut core.tasks, &mut core.hosts);
                core.enabled.retain(|r| {
                    let key = r.key();
                    match (key != MAIN_KEY).then(|| &mut tasks[key]) {
                        Some(s) if s.host == host => {
                            // Held back: enabled again when the host resumes.
                            s.queued = false;
                            hosts[host.index()].deferred.push(WakeRecord {
                                key,
                                id: s.id,
                                by: None,
                                yielded: false,
                            });
                            false
                        }
                        _ => true,
                    }
                });
                Vec::new()
            } else {
                std::mem::take(&mut h.deferred)
            }
        };
        self.tell(|| super::story::Happening::Paused { host, paused });
        self.observe(Observation::HostPaused { host, paused });
        self.wakes.extend(requeue);
    }

    pub(crate) fn host_state(&self, host: HostId) -> (bool, bool) {
        let core = self.core.borrow();
        let h = &core.hosts[host.index()];
        (h.stopped, h.paused)
    }

    pub(crate) fn net_host(&self, host: HostId) -> sim_net::HostId {
        self.core.borrow().hosts[host.index()].net_id
    }

    pub(crate) fn host_count(&self) -> usize {
        self.core.borrow().hosts.len()
    }

    /// What `RuntimeMetrics` reports: spawned tasks not yet finished, tasks
    /// woken and waiting to be polled, and clock advances so far.
    pub(crate) fn metrics(&self) -> WorldMetrics {
        let core = self.core.borrow();
        WorldMetrics {
            alive_tasks: core.tasks.iter().filter(|(_, t)| !t.finished).count(),
            runnable: core.enabled.len(),
            advances: core.advances,
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

    /// Drops every task's future (and unclaimed output), with this world
    /// current so their destructors can reach it.
    pub(crate) fn shutdown(self: &World) {
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
    }

    pub(crate) fn trace(&self) -> Trace {
        self.core.borrow().trace.clone()
    }

    pub(crate) fn seed(&self) -> u64 {
        self.core.borrow().config.seed
    }
}
