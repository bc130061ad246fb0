//! POS, partial order sampling (Yuan, Yang & Gu, "Partial order aware
//! concurrency sampling", CAV 2018), as a delaying explorer.
//!
//! POS gives every event a random priority and always runs the enabled
//! event of highest priority; after an event runs, the events that *race*
//! with it (touch what it touched) get fresh random priorities. Events
//! that do not race keep theirs, so their relative order persists. Where a
//! uniform walk samples interleavings (and so favours the partial orders
//! with many interleavings, exponentially), POS samples partial orders far
//! more evenly: its guarantee for a given partial order is exponentially
//! better than a walk's.
//!
//! Here, as in the other explorers, the events are those of units
//! ([`Unit`]): a task's next poll, a packet's delivery, the clock's next
//! advance. Two events race when they are of the same host: a poll of a
//! task of host `h`, and a delivery to `h` (the host's tasks share its
//! memory, its sockets and its disk; nothing is shared across hosts but
//! messages). So:
//!
//! - a unit gets a priority drawn uniformly from the generator when it is
//!   announced (`Spawned`, `Sent`, `Duplicated`), or when first found
//!   enabled without having been announced (the clock, whose priority is
//!   drawn at [`start`](DelayingExplorer::start));
//! - [`next`](DelayingExplorer::next) runs the enabled unit of highest
//!   priority (ties, vanishingly rare, by [`Unit`] order);
//! - when a task's poll ends (`Blocked`, `Finished`) or a packet is
//!   delivered, every unit of that host, the task included (its next poll
//!   is a new event), draws a fresh priority; when the clock advances, the
//!   clock does;
//! - [`delay`](DelayingExplorer::delay) demotes the unit `next` would run
//!   below every unit, later demotions lower still, as PCT's change points
//!   do; a demoted unit draws a normal priority again the next time it
//!   races.
//!
//! # Invariants
//!
//! - Every unit known has a priority; every normal priority is above
//!   every demoted one (normal priorities have their top bit set, demoted
//!   ones not).
//! - Priorities are distinct among demoted units (a counter going down).
//!
//! # Soundness
//!
//! A delay moves the highest enabled unit below every unit and leaves the
//! others in place: `k = 0..m` delays name each enabled unit once, and
//! `k = m` names the first again (it was demoted first, so it is now the
//! highest of the demoted).
//!
//! # Determinism
//!
//! Draws come from a xoshiro256++ generator seeded by `start`, one per
//! unit learned or redrawn, in the order of the observations, and, within
//! one observation, in [`Unit`] order (the maps are ordered).

use std::collections::BTreeMap;

use rand_core::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;
use sim_rt::scheduler::{Event, HostId, Observation};

use super::random::generator;
use super::{DelayingExplorer, Unit};

/// The bit every normal (not demoted) priority has.
const NORMAL: u64 = 1 << 63;

/// POS (Yuan, Yang & Gu, CAV 2018): random priorities, redrawn for the
/// events that race with the one just run (the same host's).
///
/// Named "pos". Randomized: seeded by [`start`](DelayingExplorer::start).
#[derive(Debug, Clone)]
pub struct Pos {
    rng: Xoshiro256PlusPlus,
    /// Every unit known: its priority (highest runs first).
    priority: BTreeMap<Unit, u64>,
    /// Each task's host, each packet's destination.
    host: BTreeMap<Unit, HostId>,
    /// The next demoted priority (counting down below `NORMAL`).
    demote_next: u64,
}

impl Default for Pos {
    fn default() -> Self {
        Pos {
            rng: generator(0),
            priority: BTreeMap::new(),
            host: BTreeMap::new(),
            demote_next: NORMAL - 1,
        }
    }
}

impl Pos {
    fn draw(&mut self) -> u64 {
        self.rng.next_u64() | NORMAL
    }

    /// Gives `unit` a fresh normal priority.
    fn redraw(&mut self, unit: Unit) {
        let p = self.draw();
        self.priority.insert(unit, p);
    }

    /// Learns `unit` of `host` (a unit already known keeps its priority).
    fn learn(&mut self, unit: Unit, host: Option<HostId>) {
        if let Some(h) = host {
            self.host.insert(unit, h);
        }
        if !self.priority.contains_key(&unit) {
            self.redraw(unit);
        }
    }

    /// Forgets `unit` (finished, delivered, lost).
    fn forget(&mut self, unit: Unit) {
        self.priority.remove(&unit);
        self.host.remove(&unit);
    }

    /// Fresh priorities for every unit of `host`, in [`Unit`] order.
    fn race(&mut self, host: HostId) {
        let racing: Vec<Unit> = self
            .host
            .iter()
            .filter(|(_, h)| **h == host)
            .map(|(u, _)| *u)
            .collect();
        for unit in racing {
            self.redraw(unit);
        }
    }

    /// The index in `enabled` of the enabled unit of highest priority,
    /// learning the units not seen yet (in [`Unit`] order).
    fn head(&mut self, enabled: &[Event]) -> (usize, Unit) {
        let mut unseen: Vec<Unit> = enabled
            .iter()
            .map(|e| Unit::of(*e))
            .filter(|u| !self.priority.contains_key(u))
            .collect();
        unseen.sort_unstable();
        for unit in unseen {
            self.learn(unit, None);
        }
        enabled
            .iter()
            .enumerate()
            .map(|(i, e)| (i, Unit::of(*e)))
            .max_by_key(|&(_, u)| (self.priority[&u], std::cmp::Reverse(u)))
            .expect("enabled is never empty")
    }
}

impl DelayingExplorer for Pos {
    fn name(&self) -> String {
        "pos".into()
    }

    fn start(&mut self, seed: u64) {
        *self = Pos {
            rng: generator(seed),
            ..Pos::default()
        };
        self.redraw(Unit::Clock);
    }

    fn next(&mut self, enabled: &[Event]) -> usize {
        self.head(enabled).0
    }

    fn delay(&mut self, enabled: &[Event]) {
        let (_, unit) = self.head(enabled);
        self.priority.insert(unit, self.demote_next);
        self.demote_next = self.demote_next.saturating_sub(1);
    }

    fn step(&mut self, observation: &Observation) {
        match *observation {
            Observation::Spawned { task, host, .. } => self.learn(Unit::Task(task), Some(host)),
            Observation::Sent { packet, to, .. } => self.learn(Unit::Packet(packet), Some(to)),
            Observation::Duplicated { packet, copy } => {
                let to = self.host.get(&Unit::Packet(packet)).copied();
                self.learn(Unit::Packet(copy), to);
            }
            Observation::Blocked { task } => {
                let unit = Unit::Task(task);
                match self.host.get(&unit).copied() {
                    Some(h) => self.race(h),
                    None => self.redraw(unit),
                }
            }
            Observation::Finished { task } => {
                let unit = Unit::Task(task);
                let host = self.host.get(&unit).copied();
                self.forget(unit);
                if let Some(h) = host {
                    self.race(h);
                }
            }
            Observation::Delivered { packet, to } => {
                self.forget(Unit::Packet(packet));
                self.race(to);
            }
            Observation::Lost { packet } => self.forget(Unit::Packet(packet)),
            Observation::Advanced { .. } => self.redraw(Unit::Clock),
            _ => {}
        }
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn next_is_pure(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use sim_rt::scheduler::__testing::{host, task};

    use super::super::rr::tests::{cycle, drive, poll, scenario, spawned};
    use super::*;

    fn seeded(seed: u64) -> Pos {
        let mut pos = Pos::default();
        pos.start(seed);
        pos
    }

    proptest! {
        #[test]
        fn delays_cycle_through_enabled(seed: u64, steps in scenario()) {
            drive(seeded(seed), &steps);
        }

        #[test]
        fn same_seed_same_answers(seed: u64, steps in scenario()) {
            prop_assert_eq!(drive(seeded(seed), &steps), drive(seeded(seed), &steps));
        }
    }

    /// Without races the order persists: the same unit runs at every step
    /// while nothing is observed, and seeds give different orders.
    #[test]
    fn a_fixed_order_until_something_races() {
        let enabled = [poll(3), poll(1), poll(4), poll(2)];
        let order = |seed| {
            let mut pos = seeded(seed);
            for n in 1..=4 {
                pos.step(&spawned(n));
            }
            let order = cycle(&pos, &enabled);
            for _ in 0..10 {
                assert_eq!(Unit::of(enabled[pos.next(&enabled)]), order[0]);
            }
            order
        };
        assert_eq!(order(5), order(5));
        let mut orders: Vec<_> = (0..8).map(order).collect();
        orders.sort();
        orders.dedup();
        assert!(orders.len() >= 2, "one order for every seed: {orders:?}");
    }

    /// A poll that ends redraws its host's units and only them: a task of
    /// another host keeps its priority.
    #[test]
    fn a_poll_redraws_its_host_only() {
        let mut pos = seeded(7);
        let other = host(1);
        for n in 1..=3 {
            pos.step(&spawned(n));
        }
        let far = task(9);
        pos.step(&Observation::Spawned {
            task: far,
            parent: None,
            host: other,
            spawned_at: None,
        });
        let before = pos.priority[&Unit::Task(far)];
        let near: Vec<u64> = (1..=3)
            .map(|n| pos.priority[&Unit::Task(task(n))])
            .collect();
        pos.step(&Observation::Blocked { task: task(1) });
        assert_eq!(pos.priority[&Unit::Task(far)], before);
        let after: Vec<u64> = (1..=3)
            .map(|n| pos.priority[&Unit::Task(task(n))])
            .collect();
        assert_ne!(near, after);
    }

    #[test]
    fn name_is_pos() {
        assert_eq!(Pos::default().name(), "pos");
    }
}
