//! The scheduler a search hands to the runtime: a delaying explorer driven
//! by a schedule of deviations, recording what later searches need.
//!
//! At each choice point `p` the runtime asks, [`Guided`] looks up the
//! schedule: at a `pick` it applies the scheduled number of delays (0 when
//! none) and returns the explorer's `next`; at a data `choose` it returns
//! the scheduled option (0 when none) — or, for random walks, draws it with
//! the configured fault probabilities. Every observation goes to the
//! explorer's `step`.
//!
//! From a given choice point on ([`Record::from`]) it records each point
//! with more than one option (so a search can place deviations there) and,
//! when state caching is on, the program state before each pick.
//!
//! # Determinism
//!
//! Everything recorded is a function of the execution: the runtime's
//! questions, in order, and the explorer's answers.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use sim_rt::runtime::ChoiceTag;
use sim_rt::scheduler::{ChoiceKind, Event, Observation, RandomScheduler, Scheduler};

use crate::explorers::DelayingExplorer;
use crate::schedule::Deviation;

/// A choice point with at least two options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Branch {
    /// The choice point's number.
    pub(crate) at: u32,
    /// How many options it had (enabled events, or data options).
    pub(crate) options: u32,
    /// Whether it was a pick (a deviation costs one delay per delay) or a
    /// data choice (any non-default option costs one delay).
    pub(crate) pick: bool,
}

impl std::fmt::Display for Branch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pick {
            write!(f, "a pick among {} events", self.options)
        } else {
            write!(f, "a data choice among {} options", self.options)
        }
    }
}

/// What an execution leaves behind for the search.
#[derive(Debug, Default)]
pub(crate) struct Record {
    /// Record branches and states at choice points `>= from`.
    pub(crate) from: u32,
    /// Branching choice points, in order.
    pub(crate) branches: Vec<Branch>,
    /// When caching: the program state before each pick `>= from`.
    pub(crate) states: Vec<(u32, u64)>,
    /// Choice points asked in all.
    pub(crate) points: u32,
    /// Note each delayed pick in `delayed` (for telling a failure).
    pub(crate) tell: bool,
    /// Delayed picks: the point, what the explorer would have run (when
    /// it is not randomized: asking a randomized one would draw), and
    /// what ran.
    pub(crate) delayed: Vec<crate::tell::Delayed>,
    /// When tracked: the execution's signal keys (`signals.rs`), sorted.
    pub(crate) signal: Vec<u64>,
    /// When anchoring: each loss or duplication choice point and the packet
    /// it was asked for (see [`Anchor`]).
    pub(crate) anchors: Vec<(u32, Anchor)>,
    /// The anchored deviations that applied, at the choice points where
    /// they did: with the positional ones, the execution's schedule.
    pub(crate) applied: Vec<Deviation>,
}

/// A loss or duplication choice by what it is about, not by where it
/// falls: the choice's kind and the packet's link and number on that link
/// (the `nth` packet sent from `from` to `to`, from 0). Dropping an earlier
/// deviation shifts every later choice point, but not this: the shrinker
/// uses it to take out losses a failure does not need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Anchor {
    pub(crate) kind: ChoiceTag,
    pub(crate) from: u32,
    pub(crate) to: u32,
    pub(crate) nth: u32,
}

/// Per link, the packets sent so far, and the last one: what the next loss
/// or duplication choice is about.
#[derive(Debug, Default)]
struct Anchoring {
    sent: std::collections::BTreeMap<(u32, u32), u32>,
    last: Option<(u32, u32, u32)>,
    /// Deviations by anchor, applied wherever their packet's choice falls.
    anchored: std::collections::BTreeMap<Anchor, u32>,
}

/// How data choices without a scheduled deviation are resolved.
pub(crate) enum Data {
    /// Option 0 (the systematic searches).
    Default,
    /// Drawn like the default scheduler does, with the fault probabilities
    /// (random walks), scaled by a swarm draw when there is one.
    Random(RandomScheduler, Option<crate::swarm::Rates>),
}

/// The program state as the runtime and the program report it: the latest
/// [`Observation::State`] of every host, and the simulated time.
#[derive(Debug, Default)]
struct StateTracker {
    hosts: crate::signals::HostStates,
    now: u128,
    scratch: Vec<u64>,
}

impl StateTracker {
    fn observe(&mut self, o: &Observation) {
        self.hosts.observe(o);
        if let Observation::Advanced { to } = *o {
            self.now = to.as_nanos();
        }
    }

    /// The state before a pick among `enabled`: every host's report, the
    /// time, the runnable tasks (by id) and how many packets can be
    /// delivered.
    fn hash(&mut self, enabled: &[Event]) -> u64 {
        let mut h = std::hash::DefaultHasher::new();
        self.hosts.latest().hash(&mut h);
        self.now.hash(&mut h);
        self.scratch.clear();
        let mut deliveries = 0u32;
        for e in enabled {
            match e {
                Event::Poll(id) => self.scratch.push(id.as_u64()),
                Event::Deliver(_) => deliveries += 1,
                _ => {}
            }
        }
        self.scratch.sort_unstable();
        self.scratch.hash(&mut h);
        deliveries.hash(&mut h);
        h.finish()
    }
}

/// CHESS's fairness rule, as the explorers apply it: a task that yields
/// without progress loses priority. A task that, for two polls in a row
/// with nothing else run between, woke itself and returned `Pending` (a
/// spin on `yield_now`, a busy retry) is delayed once when the explorer
/// would poll it a third time while anything else is enabled; the delay is
/// the explorer's own move, not a scheduled deviation, so it costs nothing
/// in the delay bound and is the same in every replay.
#[derive(Debug, Default)]
struct Fairness {
    /// The task the last pick polled.
    current: Option<sim_rt::task::Id>,
    /// It returned `Pending` in that poll.
    blocked: bool,
    /// The task spinning and its consecutive spins.
    spinner: Option<sim_rt::task::Id>,
    spins: u32,
}

/// Consecutive spins after which a spinner is delayed.
const FAIR_SPINS: u32 = 2;

impl Fairness {
    fn observe(&mut self, o: &Observation) {
        match *o {
            Observation::Blocked { task } if Some(task) == self.current => self.blocked = true,
            Observation::Woken { task, by: Some(by) }
                if task == by && self.blocked && Some(task) == self.current =>
            {
                self.blocked = false;
                if self.spinner == Some(task) {
                    self.spins += 1;
                } else {
                    self.spinner = Some(task);
                    self.spins = 1;
                }
            }
            _ => {}
        }
    }

    /// Whether the explorer's answer `event` polls a spinner that must give
    /// way.
    fn must_yield(&self, event: &Event, enabled: usize) -> bool {
        enabled > 1
            && self.spins >= FAIR_SPINS
            && matches!(event, Event::Poll(id) if Some(*id) == self.spinner)
    }

    fn picked(&mut self, event: &Event) {
        self.current = match *event {
            Event::Poll(id) => Some(id),
            _ => None,
        };
        self.blocked = false;
        if self.current != self.spinner {
            self.spinner = None;
            self.spins = 0;
        }
    }
}

/// Held deliveries: a delivery a scheduled delay put off is held back
/// until a later packet to the same host has been delivered (or nothing
/// else can run), so that one delay lets a later message overtake it, as
/// a slow link would, instead of buying one step. While held, the explorer
/// is asked for something else whenever it names the held delivery (its own
/// move, not a deviation: free, and the same in every replay).
#[derive(Debug, Default)]
struct Holds {
    /// Each packet's destination, from `Sent`.
    to: std::collections::BTreeMap<sim_rt::scheduler::PacketId, sim_rt::scheduler::HostId>,
    /// Held packets and their destinations.
    held: Vec<(sim_rt::scheduler::PacketId, sim_rt::scheduler::HostId)>,
}

impl Holds {
    fn observe(&mut self, o: &Observation) {
        match *o {
            Observation::Sent { packet, to, .. } => {
                self.to.insert(packet, to);
            }
            Observation::Delivered { packet, to } => {
                self.to.remove(&packet);
                if let Some(k) = self.held.iter().position(|&(p, _)| p == packet) {
                    self.held.swap_remove(k);
                } else {
                    // A later packet (ids grow in send order) reached `to`:
                    // what was held for it goes.
                    self.held.retain(|&(p, h)| h != to || packet < p);
                }
            }
            Observation::Lost { packet } => {
                self.to.remove(&packet);
                self.held.retain(|&(p, _)| p != packet);
            }
            _ => {}
        }
    }

    fn hold(&mut self, packet: sim_rt::scheduler::PacketId) {
        if let Some(&to) = self.to.get(&packet) {
            if !self.held.iter().any(|&(p, _)| p == packet) {
                self.held.push((packet, to));
            }
        }
    }

    fn is_held(&self, e: &Event) -> bool {
        matches!(e, Event::Deliver(p) if self.held.iter().any(|&(q, _)| q == *p))
    }
}

/// A delaying explorer under a schedule, as a runtime [`Scheduler`].
pub(crate) struct Guided {
    explorer: Box<dyn DelayingExplorer>,
    schedule: Vec<Deviation>,
    next_deviation: usize,
    point: u32,
    data: Data,
    record: Rc<RefCell<Record>>,
    states: Option<StateTracker>,
    fairness: Option<Fairness>,
    holds: Option<Holds>,
    signal: Option<crate::signals::Tracker>,
    anchoring: Option<Anchoring>,
}

impl Drop for Guided {
    /// The runtime drops its scheduler with itself: the signal's keys go
    /// to the record then.
    fn drop(&mut self) {
        if let Some(t) = self.signal.take() {
            self.record.borrow_mut().signal = t.into_keys();
        }
    }
}

impl Guided {
    /// Collects the execution's keys of `signals` into the record (see
    /// `signals.rs`).
    pub(crate) fn track(&mut self, signals: &[crate::signals::Signal]) {
        self.signal = Some(crate::signals::Tracker::new(signals));
    }

    /// Records the [`Anchor`] of every loss and duplication choice, and
    /// applies `anchored` deviations at the choices with their anchors (over
    /// any positional one there).
    pub(crate) fn anchor(&mut self, anchored: Vec<(Anchor, u32)>) {
        self.anchoring = Some(Anchoring {
            anchored: anchored.into_iter().collect(),
            ..Anchoring::default()
        });
    }

    /// The option taken at a data choice: the schedule's, or the data
    /// policy's (see [`Scheduler::choose`]).
    fn choose_option(&mut self, kind: ChoiceKind, n: usize) -> usize {
        let (p, mut action) = self.action();
        if let Some(a) = &mut self.anchoring {
            if let (ChoiceKind::Loss { .. } | ChoiceKind::Duplicate { .. }, Some((from, to, nth))) =
                (kind, a.last)
            {
                let anchor = Anchor {
                    kind: kind.tag(),
                    from,
                    to,
                    nth,
                };
                let mut rec = self.record.borrow_mut();
                rec.anchors.push((p, anchor));
                if let Some(&act) = a.anchored.get(&anchor) {
                    action = act;
                    rec.applied.push((p, act));
                }
            }
        }
        {
            let mut rec = self.record.borrow_mut();
            rec.points = self.point;
            if p >= rec.from && n >= 2 {
                rec.branches.push(Branch {
                    at: p,
                    options: n as u32,
                    pick: false,
                });
            }
        }
        if action > 0 {
            // A schedule made for this execution names a valid option; one
            // that outlived a program change may not: wrap rather than
            // panic, the replay's hash check reports the divergence.
            return 1 + (action as usize - 1) % (n - 1).max(1);
        }
        match &mut self.data {
            Data::Default => 0,
            Data::Random(r, None) => r.choose(kind, n),
            Data::Random(r, Some(rates)) => rates
                .fixed(kind)
                .unwrap_or_else(|| r.choose(rates.scale(kind), n)),
        }
    }

    pub(crate) fn new(
        mut explorer: Box<dyn DelayingExplorer>,
        seed: u64,
        schedule: Vec<Deviation>,
        data: Data,
        record: Rc<RefCell<Record>>,
        cache_states: bool,
        fair: bool,
    ) -> Guided {
        explorer.start(seed);
        Guided {
            explorer,
            schedule,
            next_deviation: 0,
            point: 0,
            data,
            record,
            states: cache_states.then(StateTracker::default),
            fairness: fair.then(Fairness::default),
            holds: Some(Holds::default()),
            signal: None,
            anchoring: None,
        }
    }

    /// The scheduled action at the current choice point, and advances.
    fn action(&mut self) -> (u32, u32) {
        let p = self.point;
        self.point += 1;
        let action = match self.schedule.get(self.next_deviation) {
            Some(&(at, action)) if at == p => {
                self.next_deviation += 1;
                action
            }
            _ => 0,
        };
        (p, action)
    }
}

impl Scheduler for Guided {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        let (p, delays) = self.action();
        let m = enabled.len();
        {
            let mut rec = self.record.borrow_mut();
            rec.points = self.point;
            if p >= rec.from {
                if m >= 2 {
                    rec.branches.push(Branch {
                        at: p,
                        options: m as u32,
                        pick: true,
                    });
                }
                if let Some(states) = &mut self.states {
                    rec.states.push((p, states.hash(enabled)));
                }
            }
        }
        let default = (delays > 0
            && (self.record.borrow().tell || self.holds.is_some())
            && self.explorer.next_is_pure())
        .then(|| enabled[self.explorer.next(enabled)]);
        if let (Some(holds), Some(Event::Deliver(p))) = (&mut self.holds, default) {
            holds.hold(p);
        }
        for _ in 0..delays {
            self.explorer.delay(enabled);
        }
        let mut i = self.explorer.next(enabled);
        if let Some(holds) = &self.holds {
            // A held delivery gives way to anything not held (a delay
            // rotates through the enabled events: m of them name each once).
            if i < m && holds.is_held(&enabled[i]) && enabled.iter().any(|e| !holds.is_held(e)) {
                for _ in 0..m {
                    self.explorer.delay(enabled);
                    i = self.explorer.next(enabled);
                    if i >= m || !holds.is_held(&enabled[i]) {
                        break;
                    }
                }
            }
        }
        if let Some(fair) = &mut self.fairness {
            if i < m && fair.must_yield(&enabled[i], m) {
                self.explorer.delay(enabled);
                i = self.explorer.next(enabled);
            }
            if let Some(e) = enabled.get(i) {
                fair.picked(e);
            }
        }
        assert!(
            i < m,
            "explorer {:?} answered next() = {i} with only {m} events enabled; next must return \
             an index into the enabled slice",
            self.explorer.name()
        );
        if delays > 0 {
            let mut rec = self.record.borrow_mut();
            if rec.tell {
                rec.delayed.push((p, default, enabled[i]));
            }
        }
        i
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        let option = self.choose_option(kind, n);
        if let Some(t) = &mut self.signal {
            t.chose(kind, n, option);
        }
        option
    }

    fn observe(&mut self, observation: &Observation) {
        if let Some(states) = &mut self.states {
            states.observe(observation);
        }
        if let Some(fair) = &mut self.fairness {
            fair.observe(observation);
        }
        if let Some(holds) = &mut self.holds {
            holds.observe(observation);
        }
        if let Some(t) = &mut self.signal {
            t.observe(observation);
        }
        if let (Some(a), Observation::Sent { from, to, .. }) = (&mut self.anchoring, observation) {
            let link = (from.index() as u32, to.index() as u32);
            let n = a.sent.entry(link).or_default();
            a.last = Some((link.0, link.1, *n));
            *n += 1;
        }
        self.explorer.step(observation);
    }

    /// A packet may arrive late in its window: a choice every search sees.
    fn late_deliveries(&self) -> bool {
        true
    }
}
