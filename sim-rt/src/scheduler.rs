//! The choice point: how a simulation asks what happens next.
//!
//! At every step the runtime computes the set of **enabled events** (a task
//! was woken and can be polled; simulated time can advance to the next
//! deadline) and hands it to a [`Scheduler`], which picks one. Data choices
//! that a real deployment would resolve by chance (which `select!` branch is
//! polled first, user-level [`choose`](crate::sim::choose)) go through
//! [`Scheduler::choose`], where index 0 is always the default. What happened
//! as a consequence (a task was spawned, woken, finished; a timer was armed;
//! time advanced) is reported to [`Scheduler::observe`], so an explorer can
//! follow causality.
//!
//! The default scheduler, [`CurrentThreadScheduler`], runs tasks in tokio's
//! current-thread order and resolves everything else (which packet arrives
//! first, when time moves, data choices) with its own seeded xoshiro
//! generator; [`RandomScheduler`] picks every choice uniformly. An explorer (the `explorer` crate) implements
//! this trait to search executions systematically. [`Replay`] follows a
//! recorded [`Trace`] exactly.
//!
//! # Determinism
//!
//! An execution is a function of (configuration, seed, the sequence of values
//! returned by `pick` and `choose`). The order of the `enabled` slice is itself
//! deterministic (it depends only on the execution so far), but it is not
//! canonical: schedulers that need a stable order (creation order, say) sort
//! by [`task::Id`](crate::task::Id), which is assigned in spawn order.

use std::time::Duration;

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub use crate::ids::HostId;
use crate::ids::Id;
pub use crate::runtime::trace::Event;
use crate::runtime::trace::{ChoiceTag, Step, Trace};

/// A packet in the simulated network (see [`Event::Deliver`]); numbered in
/// send order, never reused within a simulation.
pub use sim_net::PacketId;

/// How many events of each kind are enabled at a step, numbered as
/// [`Scheduler::pick`] sees them: the polls, then the deliveries, then
/// `Advance`.
///
/// The polls are in tokio's current-thread order: the first `queued` of
/// them are its run queue, first in first out, and tokio would poll event 0
/// next. `queued` is 0 when tokio's scheduler would poll its drivers
/// (deliver packets, fire timers) before the next poll: its run queue is
/// empty, or it polled 61 tasks since it last did. The polls past `queued`
/// run after that park: the `block_on` future if it was woken, then the
/// tasks that [`yield_now`](crate::task::yield_now)ed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shape {
    /// The number of `Poll` events.
    pub polls: usize,
    /// How many of them tokio's scheduler runs before it parks.
    pub queued: usize,
    /// The number of `Deliver` events.
    pub deliveries: usize,
    /// Whether `Advance` is enabled (the last event).
    pub advance: bool,
}

impl Shape {
    /// The number of enabled events.
    pub fn len(&self) -> usize {
        self.polls + self.deliveries + usize::from(self.advance)
    }

    /// Whether no event is enabled (a runtime never asks then).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The kind of a data choice, so a scheduler can tell them apart (and the
/// default scheduler can apply probabilities).
///
/// Option 0 is always the default: the first branch, the packet delivered
/// once, no fault, nothing unsynced survives a disk crash. Kinds with a `probability` are faults: option 0 means
/// "no fault", and the [`RandomScheduler`] picks a non-default option with
/// that probability (uniformly among them).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum ChoiceKind {
    /// Which branch a non-`biased` `select!` polls first (uniform by default).
    Select,
    /// User-level nondeterminism through [`crate::sim::choose`] (uniform by
    /// default).
    User,
    /// Whether a datagram just sent is lost: option 1 loses it.
    Loss {
        /// The link's loss probability.
        probability: f64,
    },
    /// Whether the packets deliverable now wait until the earliest of their
    /// latest arrivals (asked only under a scheduler that offers
    /// [`late_deliveries`](Scheduler::late_deliveries), and only when no
    /// timer and no window opening comes before then): option 1 moves the
    /// clock there first.
    Late {
        /// How often a random walk takes it
        /// ([`LATE_PROBABILITY`](crate::runtime::LATE_PROBABILITY)).
        probability: f64,
    },
    /// Whether a datagram just sent is delivered twice: option 1 duplicates
    /// it.
    Duplicate {
        /// The link's duplication probability.
        probability: f64,
    },
    /// What the fault injector does before this step: option 0 nothing,
    /// the others reset a host or partition or heal a pair of hosts (see
    /// [`FaultInjector`](crate::sim::FaultInjector)).
    Fault {
        /// The injector's probability of a fault at any one step.
        probability: f64,
    },
    /// Whether a disk operation (read, write or sync, per the host's
    /// [`Faults`](crate::sim::Faults)) fails with an injected `EIO`: option
    /// 1 fails it. Asked only when that kind of operation has a non-zero
    /// probability.
    DiskEio {
        /// The configured probability of the failure.
        probability: f64,
    },
    /// How many of a crashing disk's unsynced operations survive, oldest
    /// first ([`KeepUnsynced::Prefix`](crate::sim::KeepUnsynced::Prefix)):
    /// option `k` keeps the oldest `k`, so option 0 (the default) keeps none.
    /// Uniform under the [`RandomScheduler`].
    DiskCrashPrefix,
    /// Whether one unsynced operation of a crashing disk survives
    /// ([`KeepUnsynced::Subset`](crate::sim::KeepUnsynced::Subset)), asked
    /// once per operation in log order: option 1 keeps it, option 0 (the
    /// default) loses it. Uniform under the [`RandomScheduler`].
    DiskCrashKeep,
    /// Whether a surviving unsynced write of a crashing disk is torn at
    /// sector granularity ([`TornWrites`](crate::sim::TornWrites)): option 0
    /// (the default) keeps it whole, the others keep a prefix of its sectors
    /// (optionally followed by a sector of garbage), as
    /// [`sim_fs::Choice::TornWrite`] lists them. Uniform under the
    /// [`RandomScheduler`].
    DiskTornWrite,
    /// Whether a [`sim::buggify`](crate::sim::buggify) point fires: option
    /// 1 fires it.
    Buggify {
        /// [`sim::BUGGIFY_PROBABILITY`](crate::sim::BUGGIFY_PROBABILITY).
        probability: f64,
    },
    /// Which simulated std thread runs next while a task blocks the
    /// runtime's thread (a std lock, channel or join it shares with
    /// threads): one of the runnable threads, in run-queue order (option 0,
    /// the default, is the first). Uniform under the [`RandomScheduler`].
    Thread,
}

impl ChoiceKind {
    /// The kind without its parameters, as traces record it.
    pub fn tag(self) -> ChoiceTag {
        match self {
            ChoiceKind::Select => ChoiceTag::Select,
            ChoiceKind::User => ChoiceTag::User,
            ChoiceKind::Loss { .. } => ChoiceTag::Loss,
            ChoiceKind::Duplicate { .. } => ChoiceTag::Duplicate,
            ChoiceKind::Fault { .. } => ChoiceTag::Fault,
            ChoiceKind::DiskEio { .. } => ChoiceTag::DiskEio,
            ChoiceKind::DiskCrashPrefix => ChoiceTag::DiskCrashPrefix,
            ChoiceKind::DiskCrashKeep => ChoiceTag::DiskCrashKeep,
            ChoiceKind::DiskTornWrite => ChoiceTag::DiskTornWrite,
            ChoiceKind::Buggify { .. } => ChoiceTag::Buggify,
            ChoiceKind::Late { .. } => ChoiceTag::Late,
            ChoiceKind::Thread => ChoiceTag::Thread,
        }
    }

    /// A stable small number for this kind ([`ChoiceTag::code`]).
    pub fn code(self) -> u8 {
        self.tag().code()
    }

    /// The probability of a non-default option, for fault kinds; `None` for
    /// uniform kinds.
    pub fn probability(self) -> Option<f64> {
        match self {
            ChoiceKind::Select
            | ChoiceKind::User
            | ChoiceKind::DiskCrashPrefix
            | ChoiceKind::DiskCrashKeep
            | ChoiceKind::DiskTornWrite
            | ChoiceKind::Thread => None,
            ChoiceKind::Loss { probability }
            | ChoiceKind::Duplicate { probability }
            | ChoiceKind::Fault { probability }
            | ChoiceKind::DiskEio { probability }
            | ChoiceKind::Buggify { probability }
            | ChoiceKind::Late { probability } => Some(probability),
        }
    }
}

/// Something that happened, reported to [`Scheduler::observe`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Observation {
    /// A task was spawned by `parent` (None: by the runtime itself).
    Spawned {
        /// The new task.
        task: Id,
        /// The task running when it was spawned.
        parent: Option<Id>,
        /// The host it runs on.
        host: HostId,
        /// Where it was spawned (`tokio::spawn`, `spawn_local`,
        /// `spawn_blocking`...): in a whole-graph build, a line of the
        /// dependency that spawned it (axum's per-connection task, hyper's
        /// connection driver, tower's buffer worker). `None` for a host's
        /// entry task.
        spawned_at: Option<&'static std::panic::Location<'static>>,
    },
    /// A task was woken by `by` (None: by a timer or from outside any task).
    Woken {
        /// The woken task.
        task: Id,
        /// The task running when the wake happened.
        by: Option<Id>,
    },
    /// A task returned `Poll::Pending` from a poll.
    Blocked {
        /// The task.
        task: Id,
    },
    /// A task completed (returned, panicked or was aborted).
    Finished {
        /// The task.
        task: Id,
    },
    /// A timer was armed by the running task.
    TimerArmed {
        /// The task that armed it (None outside a task).
        task: Option<Id>,
        /// Its deadline, as simulated time since the simulation's epoch.
        deadline: Duration,
    },
    /// Simulated time advanced to `to` (since the simulation's epoch).
    Advanced {
        /// The new simulated time.
        to: Duration,
    },
    /// A packet was put on the network (a write, a send, a handshake step,
    /// a kernel's reply).
    Sent {
        /// The new packet.
        packet: PacketId,
        /// The task running when it was sent (None: sent by a kernel while
        /// a packet was delivered, or by the runtime).
        by: Option<Id>,
        /// The sending host.
        from: HostId,
        /// The receiving host.
        to: HostId,
    },
    /// A packet was delivered to its host's kernel. What it causes comes
    /// after: the kernel's replies as [`Observation::Sent`] with
    /// `by: None`, and the wakes as [`Observation::Woken`] with `by: None`.
    Delivered {
        /// The packet.
        packet: PacketId,
        /// The receiving host.
        to: HostId,
    },
    /// A packet left the network undelivered: lost by choice, sent across a
    /// partition, to a stopped host, or to no socket.
    Lost {
        /// The packet.
        packet: PacketId,
    },
    /// A datagram was duplicated by choice; `copy` is delivered
    /// independently.
    Duplicated {
        /// The original.
        packet: PacketId,
        /// The copy.
        copy: PacketId,
    },
    /// A host crashed or was stopped: its tasks were dropped.
    HostStopped {
        /// The host.
        host: HostId,
    },
    /// A host (re)started: its entry point was spawned.
    HostStarted {
        /// The host.
        host: HostId,
    },
    /// A host was paused (its tasks are not polled) or resumed.
    HostPaused {
        /// The host.
        host: HostId,
        /// `true` when paused, `false` when resumed.
        paused: bool,
    },
    /// The link from `from` to `to` changed (partitioned, healed or
    /// reconfigured).
    LinkChanged {
        /// The sending side.
        from: HostId,
        /// The receiving side.
        to: HostId,
    },
    /// The program labelled the running task with
    /// [`sim::annotate`](crate::sim::annotate): a hint for explorers that
    /// treat some tasks or phases of the program differently (a custom
    /// delaying explorer that runs a fault injector only once the system has
    /// started, say). The runtime gives labels no meaning.
    Annotated {
        /// The task that called `annotate` (None: outside any task).
        task: Option<Id>,
        /// The host it runs on.
        host: HostId,
        /// The label, as given.
        label: &'static str,
    },
    /// The program reported the state of a host with
    /// [`sim::report_state`](crate::sim::report_state), for explorers that
    /// cache visited states.
    State {
        /// The host whose state it is.
        host: HostId,
        /// A hash of that state (a fixed function, the same in every run).
        hash: u64,
    },
}

/// The choice-point interface between the runtime and a search strategy.
///
/// The runtime calls [`pick`](Scheduler::pick) once per step with the enabled
/// events, [`choose`](Scheduler::choose) for data choices made while a task
/// runs, and [`observe`](Scheduler::observe) for everything that happened.
///
/// # Contract
///
/// - `pick` returns an index into `enabled`, which is never empty.
/// - `choose` returns an index in `0..n` (`n >= 1`); 0 is the default (no
///   fault, first branch).
/// - A scheduler must be a pure function of what it was told and its own
///   seeded state: that is what makes executions replayable.
pub trait Scheduler {
    /// Picks the next event to run.
    fn pick(&mut self, enabled: &[Event]) -> usize;

    /// For a scheduler whose pick depends only on how many events are
    /// enabled, not on which ([`RandomScheduler`]): the index
    /// [`pick`](Scheduler::pick) would return for any `n` events, with the
    /// same effect on the scheduler. The runtime asks this first at every
    /// step and builds the list for `pick` only on `None` (the default), so
    /// a large simulation (a thousand hosts, thousands of packets
    /// deliverable at once) does not pay for a list its scheduler never
    /// reads. The events are numbered as `pick` would see them: polls,
    /// then deliveries in send order, then `Advance`.
    fn pick_count(&mut self, n: usize) -> Option<usize> {
        let _ = n;
        None
    }

    /// Like [`pick_count`](Scheduler::pick_count), for a scheduler whose
    /// pick depends only on how many events of each kind are enabled (see
    /// [`Shape`]). The runtime asks this first; the default asks
    /// [`pick_count`](Scheduler::pick_count).
    fn pick_shape(&mut self, shape: Shape) -> Option<usize> {
        self.pick_count(shape.len())
    }

    /// Resolves a data choice among `n` options.
    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize;

    /// Observes what happened. The default ignores it.
    fn observe(&mut self, observation: &Observation) {
        let _ = observation;
    }

    /// Whether [`observe`](Scheduler::observe) should be called at all. The
    /// runtime asks once, when the simulation starts; a scheduler that
    /// ignores observations returns `false`, which saves the runtime
    /// making several per step. The default is `true`.
    fn observes(&self) -> bool {
        true
    }

    /// Whether the runtime should offer late deliveries: when no task is
    /// runnable and packets are deliverable but no timer fires and no
    /// window opens before one of them must arrive, a data choice of kind
    /// [`ChoiceKind::Late`] whose option 1 moves the clock to that latest
    /// arrival before anything is delivered, so that a packet may arrive at
    /// the end of its window, not only at its opening. The runtime asks
    /// once, when the simulation starts. The default is `false`: the
    /// built-in schedulers deliver at the opening (and a plain run's trace
    /// has no such choices); the explorer's say `true`.
    fn late_deliveries(&self) -> bool {
        false
    }
}

impl<S: Scheduler + ?Sized> Scheduler for Box<S> {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        (**self).pick(enabled)
    }
    fn pick_count(&mut self, n: usize) -> Option<usize> {
        (**self).pick_count(n)
    }
    fn pick_shape(&mut self, shape: Shape) -> Option<usize> {
        (**self).pick_shape(shape)
    }
    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        (**self).choose(kind, n)
    }
    fn observe(&mut self, observation: &Observation) {
        (**self).observe(observation)
    }
    fn observes(&self) -> bool {
        (**self).observes()
    }
    fn late_deliveries(&self) -> bool {
        (**self).late_deliveries()
    }
}

/// Identifiers for unit tests of schedulers and explorers, which feed them
/// made-up events; a simulation hands out its own.
#[doc(hidden)]
pub mod __testing {
    use super::{HostId, Id, PacketId};

    /// Host `n` (0 is the main host).
    pub fn host(n: u32) -> HostId {
        HostId(n)
    }

    /// Task id `n` (n >= 1).
    pub fn task(n: u64) -> Id {
        Id::from_u64(n)
    }

    /// Packet id `n`.
    pub fn packet(n: u64) -> PacketId {
        PacketId::__from_u64(n)
    }
}

/// Derives an independent seed from `seed` for stream number `stream`
/// (SplitMix64 finalizer), so generators seeded from one simulation seed
/// never share draws: the world uses stream 0, [`RandomScheduler`] stream 1,
/// and explorers their own.
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform index in `0..n` from a generator, without modulo bias worth
/// speaking of for the `n` a simulation sees (Lemire's multiply-shift).
///
/// # Panics
///
/// In debug builds, when `n` is 0.
pub fn uniform(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    debug_assert!(n > 0, "uniform over an empty range");
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// Every choice uniformly at random, from its own xoshiro256++ generator
/// seeded from the simulation seed: tasks run in any order, not only
/// tokio's (see [`CurrentThreadScheduler`], the default).
#[derive(Debug, Clone)]
pub struct RandomScheduler {
    rng: Xoshiro256PlusPlus,
}

impl RandomScheduler {
    /// A scheduler for the simulation seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        RandomScheduler {
            rng: Xoshiro256PlusPlus::seed_from_u64(derive_seed(seed, 1)),
        }
    }
}

impl Scheduler for RandomScheduler {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        self.pick_count(enabled.len())
            .expect("a random pick depends only on the count")
    }

    fn pick_count(&mut self, n: usize) -> Option<usize> {
        if n == 1 {
            return Some(0);
        }
        Some(uniform(&mut self.rng, n))
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        match kind.probability() {
            None => uniform(&mut self.rng, n),
            Some(p) => {
                // 53 random bits as a float in [0, 1).
                let x = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                if x < p {
                    1 + uniform(&mut self.rng, n - 1)
                } else {
                    0
                }
            }
        }
    }

    fn observes(&self) -> bool {
        false
    }
}

/// The default scheduler: tasks run in tokio's current-thread order, and
/// the rest is drawn from the seed.
///
/// A plain simulated test then behaves like a `#[tokio::test]` on tokio's
/// `current_thread` runtime: a task spawned, then a `yield_now`, and the
/// spawned task has run; a woken task runs after those woken before it.
/// What tokio's order leaves to the world is drawn, as
/// [`RandomScheduler`] draws it, from a xoshiro256++ generator seeded from
/// the simulation seed: which deliverable packet arrives first and whether
/// time moves first (when no task is runnable, or at a park: see
/// [`Shape`]; a packet is delivered when its window opens unless a timer
/// or another window may come first: late deliveries,
/// [`Scheduler::late_deliveries`], are left to explorers), and every data
/// choice (losses, latency, `select!`'s first
/// branch, [`choose`](crate::sim::choose)).
///
/// Orders tokio's current-thread scheduler would not pick (a multi-thread
/// runtime might) are for the explorer; a failure found in one says so
/// ([`Failure::unlike_tokio`](crate::runtime::Failure::unlike_tokio)).
#[derive(Debug, Clone)]
pub struct CurrentThreadScheduler {
    random: RandomScheduler,
}

impl CurrentThreadScheduler {
    /// A scheduler for the simulation seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        CurrentThreadScheduler {
            random: RandomScheduler::new(seed),
        }
    }
}

impl Scheduler for CurrentThreadScheduler {
    /// Without the [`Shape`], the first poll (the runtime asks
    /// [`pick_shape`](Scheduler::pick_shape) instead).
    fn pick(&mut self, enabled: &[Event]) -> usize {
        match enabled.iter().position(|e| matches!(e, Event::Poll(_))) {
            Some(first) => first,
            None => self.random.pick(enabled),
        }
    }

    fn pick_shape(&mut self, shape: Shape) -> Option<usize> {
        if shape.queued > 0 {
            return Some(0);
        }
        let world = shape.deliveries + usize::from(shape.advance);
        if world == 0 {
            return Some(0);
        }
        if shape.polls == 0 {
            return self.random.pick_count(world);
        }
        // A park with runnable tasks: the I/O driver first. (`Advance` is
        // enabled beside polls only under a stall fault: the tasks first.)
        if shape.deliveries == 0 {
            return Some(0);
        }
        let delivery = self.random.pick_count(shape.deliveries)?;
        Some(shape.polls + delivery)
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        self.random.choose(kind, n)
    }

    fn observes(&self) -> bool {
        false
    }
}

/// Follows a recorded [`Trace`] step for step.
///
/// Each `pick` and `choose` returns what was recorded and checks that the
/// situation matches (same number of options, same event picked, same kind of
/// choice, a choice where the recorded run had one and none where it was
/// forced); a mismatch means the program is not deterministic (or changed
/// since the trace was recorded) and panics with the step where the runs
/// diverged. When the trace runs out, the replay panics too: the replayed run
/// went on longer than the recorded one.
///
/// A trace that does not record forced steps (the default: see
/// [`Trace`]) cannot check which event a forced step ran; a program that
/// diverges there is caught at its next real choice, or by the length.
#[derive(Debug, Clone)]
pub struct Replay {
    trace: Trace,
    /// The next recorded step to use.
    next: usize,
    /// The number of the step being replayed.
    step: u64,
}

impl Replay {
    /// Replays `trace` (run it with the same seed: see
    /// [`Builder::replay`](crate::runtime::Builder::replay)).
    pub fn new(trace: Trace) -> Self {
        Replay {
            trace,
            next: 0,
            step: 0,
        }
    }

    /// Starts step `self.step` with `options` options; returns its number
    /// and the recorded step to follow, or `None` when it was forced in the
    /// recorded run too.
    fn take(&mut self, options: usize) -> (usize, Option<Step>) {
        let i = self.step;
        if i >= self.trace.len() as u64 {
            panic!(
                "replay diverged at step {i}: the recorded run ended after {} steps but this \
                 run asks for more; the program is not deterministic or changed since recording",
                self.trace.len()
            );
        }
        self.step += 1;
        let recorded_here = self.trace.positions().get(self.next) == Some(&i);
        if !recorded_here {
            if options > 1 {
                panic!(
                    "replay diverged at step {i}: the recorded run had a single option there, \
                     this run has {options}; the program is not deterministic or changed since \
                     recording"
                );
            }
            return (i as usize, None);
        }
        let step = self.trace.steps()[self.next];
        self.next += 1;
        (i as usize, Some(step))
    }
}

impl Scheduler for Replay {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        let (i, step) = self.take(enabled.len());
        let Some(step) = step else {
            return 0;
        };
        match step {
            Step::Pick { index, of, event } => {
                let here = enabled.get(index as usize);
                if of as usize != enabled.len() || here != Some(&event) {
                    panic!(
                        "replay diverged at step {i}: recorded {event:?} (option {index} of {of}), \
                         but now {} events are enabled ({}); the program is not deterministic or \
                         changed since recording",
                        enabled.len(),
                        describe_events(enabled),
                    );
                }
                index as usize
            }
            Step::Choose { kind, .. } => panic!(
                "replay diverged at step {i}: recorded a data choice ({}), but now the runtime \
                 picks among {} enabled events",
                kind,
                enabled.len()
            ),
        }
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        let (i, step) = self.take(n);
        let Some(step) = step else {
            return 0;
        };
        match step {
            Step::Choose { kind: k, index, of } if k == kind.code() && of as usize == n => {
                index as usize
            }
            other => panic!(
                "replay diverged at step {i}: recorded {other}, but now the program makes a \
                 {kind:?} choice among {n}; the program is not deterministic or changed since \
                 recording"
            ),
        }
    }
    fn observes(&self) -> bool {
        false
    }

    /// As the recorded run.
    fn late_deliveries(&self) -> bool {
        self.trace.late_deliveries()
    }
}

/// Replays the first `steps` steps of a recorded [`Trace`], then hands every
/// further choice to another scheduler: a walk from a state of a recorded
/// execution (the runtime cannot snapshot one, so the walk re-runs the
/// prefix), as MaceMC's random walks from an indeterminate state and its
/// critical-transition probes do.
///
/// Run it with the trace's seed (the seed also drives latencies and the
/// program's own randomness); give `then` a seed of its own for each walk.
/// Observations go to `then` from the first step, so an explorer that
/// tracks tasks sees them all.
///
/// ```
/// use sim_rt::runtime::Builder;
/// use sim_rt::scheduler::{RandomScheduler, ReplayPrefix};
///
/// let program = || async {
///     let tasks: Vec<_> = (0..4)
///         .map(|_| sim_rt::spawn(async { sim_rt::task::yield_now().await }))
///         .collect();
///     for t in tasks {
///         t.await.unwrap();
///     }
///     sim_rt::choose(5)
/// };
/// let recorded = Builder::new_current_thread().enable_all().seed(3).build().unwrap();
/// recorded.block_on(program());
/// let trace = recorded.trace();
/// let half = trace.len() as u64 / 2;
/// for walk in 0..3 {
///     let t = trace.clone();
///     let rt = Builder::new_current_thread().enable_all()
///         .seed(trace.seed())
///         .scheduler(move |_| ReplayPrefix::new(t.clone(), half, RandomScheduler::new(walk)))
///         .build()
///         .unwrap();
///     rt.block_on(program());
/// }
/// ```
#[derive(Debug, Clone)]
pub struct ReplayPrefix<S> {
    replay: Replay,
    steps: u64,
    then: S,
}

impl<S: Scheduler> ReplayPrefix<S> {
    /// Replays `trace` up to (not including) step `steps`, then asks
    /// `then`.
    ///
    /// # Panics
    ///
    /// When `steps` is past the trace's end.
    pub fn new(trace: Trace, steps: u64, then: S) -> Self {
        assert!(
            steps <= trace.len() as u64,
            "ReplayPrefix: {steps} steps asked of a trace of {}",
            trace.len()
        );
        ReplayPrefix {
            replay: Replay::new(trace),
            steps,
            then,
        }
    }

    /// Whether the prefix is done and `then` decides.
    pub fn walking(&self) -> bool {
        self.replay.step >= self.steps
    }
}

impl<S: Scheduler> Scheduler for ReplayPrefix<S> {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        if self.walking() {
            self.then.pick(enabled)
        } else {
            self.replay.pick(enabled)
        }
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        if self.walking() {
            self.then.choose(kind, n)
        } else {
            self.replay.choose(kind, n)
        }
    }

    fn observe(&mut self, observation: &Observation) {
        self.then.observe(observation);
    }

    fn observes(&self) -> bool {
        self.then.observes()
    }

    /// As the recorded run.
    fn late_deliveries(&self) -> bool {
        self.replay.late_deliveries()
    }
}

pub(crate) fn describe_events(events: &[Event]) -> String {
    const SHOWN: usize = 8;
    let mut s = String::new();
    for (i, e) in events.iter().take(SHOWN).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!("{e:?}"));
    }
    if events.len() > SHOWN {
        s.push_str(&format!(", ... {} more", events.len() - SHOWN));
    }
    s
}
