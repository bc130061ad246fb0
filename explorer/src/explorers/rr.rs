//! Round robin: units in a queue in creation order (Desai, Qadeer & Seshia,
//! FSE 2015, section 2, "round robin explorer").
//!
//! New units (a task spawned, a packet sent, a duplicate made) join the
//! tail; a task that blocks and the clock once it has advanced go back to
//! the tail. [`next`](DelayingExplorer::next) runs the first enabled unit in
//! the queue, so a task keeps running until it blocks, then the next one in
//! creation order gets its turn. [`delay`](DelayingExplorer::delay) moves the
//! unit `next` would run to the tail. Finished tasks and delivered or lost
//! packets leave the queue.
//!
//! Enabled units the explorer was never told about (the main task is never
//! announced with `Spawned`) join the tail when first seen, in [`Unit`]
//! order when several are new at once.
//!
//! The queue itself ([`Queue`]) is shared: it is parameterised by a
//! [`Placement`], the policy that says where a unit seen for the first time
//! goes. Round robin places at the tail; the randomized round robin
//! ([`super::RandomizedRoundRobin`]) at a random position; run-to-completion
//! ([`super::Rtc`]) on top; PCT ([`super::Pct`]) at a random position above
//! the demoted units. All of them read the head of the queue as the highest
//! priority and delay by moving the first enabled unit to the tail.
//!
//! # Invariants
//!
//! - No unit is in the queue twice (checked when one is added).
//! - After [`Queue::head`], every enabled unit is in the queue: that is
//!   what lets the first enabled unit always be found.
//!
//! # Soundness
//!
//! A delay moves the first enabled unit to the tail and leaves every other
//! unit in place, so it rotates the enabled units' relative order by one:
//! `k = 0..m` delays name each of the `m` enabled events once, and `k = m`
//! restores the order.
//!
//! # Determinism
//!
//! The queue depends only on the observations and on the *set* of enabled
//! units at each step: new units are placed in `Unit` order, and `head`
//! looks units up, never positions.

use std::fmt;

use rustc_hash::FxHashMap;
use sim_rt::scheduler::{Event, Observation};

use super::{DelayingExplorer, Unit};

/// Where a unit the queue has not seen yet goes.
pub(super) trait Placement: fmt::Debug + Clone {
    /// A position in `0..=len` (0 is the head) for `unit`, in a queue of
    /// `len` units.
    fn place(&mut self, unit: Unit, len: usize) -> usize;
}

/// Round robin's placement: at the tail, in creation order.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct AtTail;

impl Placement for AtTail {
    fn place(&mut self, _unit: Unit, len: usize) -> usize {
        len
    }
}

/// Units in priority order, head first; the data structure of the
/// queue-shaped explorers. See the [module docs](self).
///
/// Each unit carries a rank that grows from head to tail (gaps of
/// [`GAP`], halved by an insertion between two units, all ranks dealt
/// again when a gap runs out), so [`head`](Queue::head) finds the first
/// enabled unit by looking up the enabled units' ranks, not by walking the
/// queue against every enabled event.
#[derive(Debug, Clone, Default)]
pub(super) struct Queue<P> {
    /// Every unit known, head (highest priority) first; no unit twice.
    units: Vec<Unit>,
    /// The units' ranks, in the same order: strictly increasing.
    ranks: Vec<u64>,
    /// Each queued unit's rank (looked up, never iterated).
    rank: Ranks,
    /// Where units seen for the first time go.
    pub(super) placement: P,
    /// Scratch for [`Queue::head`]: enabled units not in `units`; kept so
    /// that a step does not allocate.
    fresh: Vec<Unit>,
}

/// Each queued unit's rank; 0 for a unit not queued. Tasks and packets
/// are numbered from 1 upwards within a simulation, so their ranks live in
/// tables indexed by number (a lookup at every pick costs an index, not a
/// hash); larger numbers (the ids `LocalSet` reserves before a simulation
/// runs) in a map.
#[derive(Debug, Clone, Default)]
struct Ranks {
    task: Vec<u64>,
    packet: Vec<u64>,
    clock: u64,
    sparse: FxHashMap<Unit, u64>,
}

/// Numbers below this are in [`Ranks`]' tables.
const DENSE: u64 = 1 << 16;

impl Ranks {
    /// `unit`'s slot in a table, if its number is small.
    fn dense(&mut self, unit: Unit) -> Option<&mut u64> {
        let (table, n) = match unit {
            Unit::Task(id) if id.as_u64() < DENSE => (&mut self.task, id.as_u64()),
            Unit::Packet(p) if p.as_u64() < DENSE => (&mut self.packet, p.as_u64()),
            Unit::Clock => return Some(&mut self.clock),
            _ => return None,
        };
        let n = n as usize;
        if table.len() <= n {
            table.resize(n + 1, 0);
        }
        Some(&mut table[n])
    }

    fn get(&self, unit: &Unit) -> Option<&u64> {
        let rank = match *unit {
            Unit::Task(id) if id.as_u64() < DENSE => self.task.get(id.as_u64() as usize),
            Unit::Packet(p) if p.as_u64() < DENSE => self.packet.get(p.as_u64() as usize),
            Unit::Clock => Some(&self.clock),
            _ => self.sparse.get(unit),
        };
        rank.filter(|r| **r != 0)
    }

    fn contains_key(&self, unit: &Unit) -> bool {
        self.get(unit).is_some()
    }

    fn insert(&mut self, unit: Unit, rank: u64) {
        debug_assert!(rank != 0, "rank 0 means absent");
        match self.dense(unit) {
            Some(slot) => *slot = rank,
            None => {
                self.sparse.insert(unit, rank);
            }
        }
    }

    fn remove(&mut self, unit: &Unit) {
        match self.dense(*unit) {
            Some(slot) => *slot = 0,
            None => {
                self.sparse.remove(unit);
            }
        }
    }

    fn clear(&mut self) {
        self.task.clear();
        self.packet.clear();
        self.clock = 0;
        self.sparse.clear();
    }
}

/// The distance between neighbours' ranks when they are dealt.
const GAP: u64 = 1 << 32;
/// The rank of the head when ranks are dealt: room for 2^30 units
/// above it and below it.
const FIRST: u64 = 1 << 62;

impl<P: Placement> Queue<P> {
    /// An empty queue.
    pub(super) fn new(placement: P) -> Self {
        Queue {
            units: Vec::new(),
            ranks: Vec::new(),
            rank: Ranks::default(),
            placement,
            fresh: Vec::new(),
        }
    }

    /// The units, head first.
    pub(super) fn units(&self) -> &[Unit] {
        &self.units
    }

    /// Forgets every unit.
    pub(super) fn clear(&mut self) {
        self.units.clear();
        self.ranks.clear();
        self.rank.clear();
    }

    /// Learns the enabled units not seen yet, then returns the index in
    /// `enabled` (never empty) of the first enabled unit in the queue, and
    /// that unit.
    pub(super) fn head(&mut self, enabled: &[Event]) -> (usize, Unit) {
        if let Some(head) = self.first_enabled(enabled) {
            return head;
        }
        self.fresh.clear();
        self.fresh.extend(
            enabled
                .iter()
                .map(|e| Unit::of(*e))
                .filter(|u| !self.rank.contains_key(u)),
        );
        // In `Unit` order, so that the result does not depend on the
        // order of the slice.
        self.fresh.sort_unstable();
        self.fresh.dedup();
        for k in 0..self.fresh.len() {
            let unit = self.fresh[k];
            self.insert(unit);
        }
        self.first_enabled(enabled)
            .expect("every enabled unit is in the queue once head() has learned them")
    }

    /// The first enabled unit in the queue (the lowest rank; the first
    /// index in `enabled` of that unit), or `None` when an enabled unit is
    /// not queued.
    fn first_enabled(&self, enabled: &[Event]) -> Option<(usize, Unit)> {
        let mut best: Option<(u64, usize, Unit)> = None;
        for (i, e) in enabled.iter().enumerate() {
            let unit = Unit::of(*e);
            let rank = *self.rank.get(&unit)?;
            if best.is_none_or(|(r, _, _)| rank < r) {
                best = Some((rank, i, unit));
            }
        }
        best.map(|(_, i, unit)| (i, unit))
    }

    /// Adds `unit` where the placement says, unless it is known already.
    pub(super) fn add(&mut self, unit: Unit) {
        if !self.rank.contains_key(&unit) {
            self.insert(unit);
        }
    }

    /// Inserts a unit known to be absent.
    fn insert(&mut self, unit: Unit) {
        debug_assert!(!self.rank.contains_key(&unit), "no unit is queued twice");
        let at = self.placement.place(unit, self.units.len());
        assert!(
            at <= self.units.len(),
            "a placement returns a position in the queue"
        );
        self.put(at, unit);
    }

    /// Puts `unit` (not queued) at position `at`.
    fn put(&mut self, at: usize, unit: Unit) {
        let rank = match self.rank_between(at) {
            Some(rank) => rank,
            None => {
                self.deal_ranks();
                self.rank_between(at).expect("dealt ranks leave room")
            }
        };
        self.units.insert(at, unit);
        self.ranks.insert(at, rank);
        self.rank.insert(unit, rank);
        debug_assert!(self.ranks.windows(2).all(|w| w[0] < w[1]));
    }

    /// A free rank between the units at `at - 1` and `at`, if there is room.
    fn rank_between(&self, at: usize) -> Option<u64> {
        let above = at.checked_sub(1).map(|a| self.ranks[a]);
        let below = self.ranks.get(at).copied();
        match (above, below) {
            (None, None) => Some(FIRST),
            (None, Some(b)) => b.checked_sub(GAP).filter(|r| *r != 0),
            (Some(a), None) => a.checked_add(GAP),
            (Some(a), Some(b)) => (b - a >= 2).then(|| a + (b - a) / 2),
        }
    }

    /// Deals every unit a fresh rank, in queue order.
    fn deal_ranks(&mut self) {
        for (k, unit) in self.units.iter().enumerate() {
            let rank = FIRST + k as u64 * GAP;
            self.ranks[k] = rank;
            self.rank.insert(*unit, rank);
        }
    }

    /// Removes `unit`, returning where it was.
    pub(super) fn remove(&mut self, unit: Unit) -> Option<usize> {
        let at = self.position(unit)?;
        self.take(at);
        Some(at)
    }

    /// Takes the unit at `at` out of the queue.
    fn take(&mut self, at: usize) -> Unit {
        let unit = self.units.remove(at);
        self.ranks.remove(at);
        self.rank.remove(&unit);
        unit
    }

    /// Where `unit` is, head at 0.
    pub(super) fn position(&self, unit: Unit) -> Option<usize> {
        let rank = self.rank.get(&unit)?;
        self.ranks.binary_search(rank).ok()
    }

    /// Moves the unit at `at` to the tail.
    pub(super) fn demote(&mut self, at: usize) {
        let unit = self.take(at);
        self.put(self.units.len(), unit);
    }

    /// Moves `unit` to the tail, adding it there if it is not known.
    pub(super) fn move_to_tail(&mut self, unit: Unit) {
        match self.position(unit) {
            Some(at) => self.demote(at),
            None => self.put(self.units.len(), unit),
        }
    }

    /// Moves `unit` to the head, adding it there if it is not known.
    pub(super) fn move_to_head(&mut self, unit: Unit) {
        if let Some(at) = self.position(unit) {
            self.take(at);
        }
        self.put(0, unit);
    }

    /// The index in `enabled` of the first enabled unit.
    pub(super) fn next(&mut self, enabled: &[Event]) -> usize {
        self.head(enabled).0
    }

    /// Moves the first enabled unit to the tail.
    pub(super) fn delay(&mut self, enabled: &[Event]) {
        let (_, unit) = self.head(enabled);
        self.move_to_tail(unit);
    }

    /// Round robin's reaction to `observation`: new units are placed,
    /// blocked tasks and the clock go to the tail, finished tasks and
    /// delivered or lost packets leave.
    pub(super) fn step(&mut self, observation: &Observation) {
        match *observation {
            Observation::Spawned { task, .. } => self.add(Unit::Task(task)),
            Observation::Sent { packet, .. } => self.add(Unit::Packet(packet)),
            Observation::Duplicated { copy, .. } => self.add(Unit::Packet(copy)),
            Observation::Blocked { task } => self.move_to_tail(Unit::Task(task)),
            Observation::Advanced { .. } => self.move_to_tail(Unit::Clock),
            Observation::Finished { task } => {
                self.remove(Unit::Task(task));
            }
            Observation::Delivered { packet, .. } | Observation::Lost { packet } => {
                self.remove(Unit::Packet(packet));
            }
            _ => {}
        }
    }
}

/// Round robin over tasks, packets and the clock, in creation order
/// (Desai, Qadeer & Seshia, FSE 2015).
///
/// Units wait in a queue: new ones (spawned, sent, duplicated, or enabled
/// without having been announced, several at once in [`Unit`] order) join
/// the tail; a task that blocks, and the clock when it advances, go back to
/// the tail. `next` runs the first enabled unit in the queue; `delay` moves
/// that unit to the tail.
///
/// Named "rr". Deterministic.
#[derive(Debug, Clone, Default)]
pub struct RoundRobin {
    queue: Queue<AtTail>,
}

impl RoundRobin {
    /// A round robin explorer with an empty queue.
    pub fn new() -> Self {
        Self::default()
    }
}

impl DelayingExplorer for RoundRobin {
    fn name(&self) -> String {
        "rr".into()
    }

    fn start(&mut self, _seed: u64) {
        self.queue.clear();
    }

    fn next(&mut self, enabled: &[Event]) -> usize {
        self.queue.next(enabled)
    }

    fn next_is_pure(&self) -> bool {
        true
    }

    fn delay(&mut self, enabled: &[Event]) {
        self.queue.delay(enabled);
    }

    fn step(&mut self, observation: &Observation) {
        self.queue.step(observation);
    }
}

/// Shared by the explorers' tests: random executions to drive an explorer
/// through, checking soundness and slice-order independence on the way.
#[cfg(test)]
pub(super) mod tests {
    use std::time::Duration;

    use proptest::prelude::*;
    use sim_rt::scheduler::__testing::{host, packet, task};

    use super::*;

    /// One step of a made-up execution. Observations are drawn regardless
    /// of what was picked: an explorer must cope with any sequence.
    #[derive(Debug, Clone)]
    pub(in crate::explorers) struct Step {
        observations: Vec<Observation>,
        /// Possibly empty: then nothing is picked at this step.
        enabled: Vec<Event>,
        /// How many delays precede `next`.
        delays: usize,
        /// Whether to check soundness and order independence here.
        check: bool,
    }

    const TASKS: u64 = 6;
    const PACKETS: u64 = 6;

    fn observation() -> impl Strategy<Value = Observation> {
        let t = (1..=TASKS).prop_map(task);
        let p = (0..PACKETS).prop_map(packet);
        prop_oneof![
            t.clone().prop_map(|task| Observation::Spawned {
                task,
                parent: None,
                host: host(0),
                spawned_at: None,
            }),
            t.clone()
                .prop_map(|task| Observation::Woken { task, by: None }),
            t.clone().prop_map(|task| Observation::Blocked { task }),
            t.prop_map(|task| Observation::Finished { task }),
            p.clone().prop_map(|packet| Observation::Sent {
                packet,
                by: None,
                from: host(0),
                to: host(1)
            }),
            p.clone().prop_map(|packet| Observation::Delivered {
                packet,
                to: host(1)
            }),
            p.clone().prop_map(|packet| Observation::Lost { packet }),
            (p.clone(), p).prop_map(|(packet, copy)| Observation::Duplicated { packet, copy }),
            (0..100u64).prop_map(|s| Observation::Advanced {
                to: Duration::from_secs(s)
            }),
            Just(Observation::HostStopped { host: host(1) }),
        ]
    }

    /// A random subset of every task, packet and the clock, shuffled.
    fn enabled() -> impl Strategy<Value = Vec<Event>> {
        let pool: Vec<Event> = (1..=TASKS)
            .map(|n| Event::Poll(task(n)))
            .chain((0..PACKETS).map(|n| Event::Deliver(packet(n))))
            .chain([Event::Advance])
            .collect();
        let len = pool.len();
        proptest::sample::subsequence(pool, 0..=len).prop_shuffle()
    }

    /// Random executions of up to 40 steps.
    pub(in crate::explorers) fn scenario() -> impl Strategy<Value = Vec<Step>> {
        let step = (
            prop::collection::vec(observation(), 0..4),
            enabled(),
            0..4usize,
            any::<bool>(),
        )
            .prop_map(|(observations, enabled, delays, check)| Step {
                observations,
                enabled,
                delays,
                check,
            });
        prop::collection::vec(step, 1..40)
    }

    /// The unit `explorer` picks after `k` delays, on a clone.
    fn after_delays<E: DelayingExplorer + Clone>(
        explorer: &E,
        enabled: &[Event],
        k: usize,
    ) -> Unit {
        let mut e = explorer.clone();
        for _ in 0..k {
            e.delay(enabled);
        }
        let i = e.next(enabled);
        assert!(i < enabled.len(), "next returned {i} of {}", enabled.len());
        Unit::of(enabled[i])
    }

    /// Soundness ([`check_sound`](super::super::check_sound)), and what the
    /// built-ins promise beyond it: `k = m` delays come back to the first.
    fn assert_cycles<E: DelayingExplorer + Clone>(explorer: &E, enabled: &[Event]) {
        if let Err(e) = super::super::check_sound(explorer, enabled) {
            panic!("{e}");
        }
        let m = enabled.len();
        assert_eq!(
            after_delays(explorer, enabled, m),
            after_delays(explorer, enabled, 0),
            "{m} delays do not come back to the first"
        );
    }

    /// Drives `explorer` through `steps`, checking soundness where a step
    /// asks for it; returns the picked units.
    pub(in crate::explorers) fn drive<E: DelayingExplorer + Clone>(
        mut explorer: E,
        steps: &[Step],
    ) -> Vec<Unit> {
        let mut picked = Vec::new();
        for step in steps {
            for o in &step.observations {
                explorer.step(o);
            }
            if step.enabled.is_empty() {
                continue;
            }
            if step.check {
                assert_cycles(&explorer, &step.enabled);
            }
            for _ in 0..step.delays {
                explorer.delay(&step.enabled);
            }
            let i = explorer.next(&step.enabled);
            assert!(i < step.enabled.len());
            picked.push(Unit::of(step.enabled[i]));
        }
        picked
    }

    /// The units `explorer` would run at this step, in order: the answers
    /// for `k = 0..m` delays.
    pub(in crate::explorers) fn cycle<E: DelayingExplorer + Clone>(
        explorer: &E,
        enabled: &[Event],
    ) -> Vec<Unit> {
        (0..enabled.len())
            .map(|k| after_delays(explorer, enabled, k))
            .collect()
    }

    /// Task `n` spawned on host 0 by the runtime.
    pub(in crate::explorers) fn spawned(n: u64) -> Observation {
        Observation::Spawned {
            task: task(n),
            parent: None,
            host: host(0),
            spawned_at: None,
        }
    }

    /// Polling task `n`.
    pub(in crate::explorers) fn poll(n: u64) -> Event {
        Event::Poll(task(n))
    }

    /// Task `n` as a unit.
    pub(in crate::explorers) fn t(n: u64) -> Unit {
        Unit::Task(task(n))
    }

    proptest! {
        #[test]
        fn delays_cycle_through_enabled(steps in scenario()) {
            drive(RoundRobin::new(), &steps);
        }

        #[test]
        fn same_inputs_same_answers(steps in scenario()) {
            prop_assert_eq!(drive(RoundRobin::new(), &steps), drive(RoundRobin::new(), &steps));
        }
    }

    /// Three tasks enabled in scrambled slice order take turns in creation
    /// order, each running until it blocks: 1, 2, 3, 1.
    #[test]
    fn tasks_take_turns_in_creation_order() {
        let mut rr = RoundRobin::new();
        for n in 1..=3 {
            rr.step(&spawned(n));
        }
        let enabled = [poll(3), poll(1), poll(2)];
        let mut order = Vec::new();
        for _ in 0..4 {
            let u = Unit::of(enabled[rr.next(&enabled)]);
            order.push(u);
            let Unit::Task(task) = u else { unreachable!() };
            rr.step(&Observation::Blocked { task });
        }
        assert_eq!(order, [t(1), t(2), t(3), t(1)]);
    }

    /// A task that does not block keeps running; a delay hands the turn to
    /// the next one in creation order.
    #[test]
    fn delay_moves_the_head_to_the_tail() {
        let mut rr = RoundRobin::new();
        for n in 1..=3 {
            rr.step(&spawned(n));
        }
        let enabled = [poll(2), poll(3), poll(1)];
        assert_eq!(Unit::of(enabled[rr.next(&enabled)]), t(1));
        assert_eq!(Unit::of(enabled[rr.next(&enabled)]), t(1));
        assert_eq!(cycle(&rr, &enabled), [t(1), t(2), t(3)]);
        rr.delay(&enabled);
        assert_eq!(cycle(&rr, &enabled), [t(2), t(3), t(1)]);
    }

    /// Units never announced join the tail in `Unit` order, behind the
    /// announced ones; the clock goes back to the tail when it advances.
    #[test]
    fn unknown_units_join_the_tail_in_unit_order() {
        let mut rr = RoundRobin::new();
        rr.step(&spawned(5));
        let enabled = [
            Event::Advance,
            poll(2),
            Event::Deliver(packet(0)),
            poll(5),
            poll(1),
        ];
        let p0 = Unit::Packet(packet(0));
        assert_eq!(cycle(&rr, &enabled), [t(5), t(1), t(2), p0, Unit::Clock]);
        assert_eq!(Unit::of(enabled[rr.next(&enabled)]), t(5));
        rr.step(&spawned(6));
        rr.step(&Observation::Finished { task: task(5) });
        rr.step(&Observation::Advanced {
            to: Duration::from_secs(1),
        });
        assert_eq!(rr.queue.units(), [t(1), t(2), p0, t(6), Unit::Clock]);
    }

    /// Sent packets and duplicates join the tail; delivered and lost ones
    /// leave, so the queue holds only live units.
    #[test]
    fn packets_join_and_leave() {
        let mut rr = RoundRobin::new();
        rr.step(&spawned(1));
        rr.step(&Observation::Sent {
            packet: packet(0),
            by: Some(task(1)),
            from: host(0),
            to: host(1),
        });
        rr.step(&Observation::Duplicated {
            packet: packet(0),
            copy: packet(1),
        });
        let (p0, p1) = (Unit::Packet(packet(0)), Unit::Packet(packet(1)));
        assert_eq!(rr.queue.units(), [t(1), p0, p1]);
        rr.step(&Observation::Delivered {
            packet: packet(0),
            to: host(1),
        });
        rr.step(&Observation::Lost { packet: packet(1) });
        rr.step(&Observation::Finished { task: task(1) });
        assert!(rr.queue.units().is_empty());
    }
}
