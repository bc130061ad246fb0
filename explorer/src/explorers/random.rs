//! The random walk's explorer: a uniformly random enabled event at every
//! step.
//!
//! At each step the first call to [`next`](DelayingExplorer::next) or
//! [`delay`](DelayingExplorer::delay) draws an offset `r` uniformly in
//! `0..m`, `m` being the number of enabled events. With the enabled units
//! sorted by [`Unit`] order, `next` names the one at rank `(r + k) mod m`,
//! where `k` is the number of delays applied at this step; `next` ends the
//! step, and the next step draws a fresh offset. With no delays this is the
//! baseline random walk; a delay moves on to the next unit in `Unit` order,
//! so no event is favoured whatever `r` was.
//!
//! This file also holds the generator every randomized explorer draws from
//! ([`generator`], [`uniform`]), so they all derive their draws from the
//! execution's seed the same way.
//!
//! # Invariants
//!
//! - `delays` is 0 whenever `offset` is `None`: delays count only within a
//!   step that has drawn its offset.
//! - The offset is drawn once per step, and only from the number of enabled
//!   events, never from their order.
//!
//! # Soundness
//!
//! For `k = 0..m` the ranks `(r + k) mod m` are pairwise distinct and cover
//! every enabled event; `k = m` gives rank `r` again.
//!
//! # Determinism
//!
//! The offset depends only on the seed and on how many events were enabled
//! at each earlier step; ranks are taken in `Unit` order, so the order of
//! the `enabled` slice does not matter.

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sim_rt::scheduler::{Event, Observation};

use super::{DelayingExplorer, Unit};

/// Mixed into the execution's seed so that explorers draw from a stream of
/// their own, apart from the world's and the default scheduler's.
const EXPLORER_STREAM: u64 = 0x6578_706c_6f72_6572; // "explorer"

/// The generator a randomized explorer uses for the execution with `seed`.
pub(super) fn generator(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(sim_rt::scheduler::derive_seed(seed, EXPLORER_STREAM))
}

pub(super) use sim_rt::scheduler::uniform;

/// The random walk's explorer: a uniformly random enabled event at every
/// step.
///
/// The first `next` or `delay` of a step draws an offset `r` in `0..m`;
/// with the `m` enabled units sorted in [`Unit`] order, `next` names the one
/// at rank `(r + k) mod m` after `k` delays, and ends the step.
///
/// Named "random". Randomized: seeded by
/// [`start`](DelayingExplorer::start).
#[derive(Debug, Clone)]
pub struct Random {
    rng: Xoshiro256PlusPlus,
    /// The offset drawn at this step, once `next` or `delay` was called.
    offset: Option<usize>,
    /// Delays applied at this step (0 while `offset` is `None`).
    delays: usize,
    /// The enabled units with their index in `enabled`; reused across
    /// steps so that a step does not allocate.
    ranked: Vec<(Unit, usize)>,
}

impl Default for Random {
    fn default() -> Self {
        Random {
            rng: generator(0),
            offset: None,
            delays: 0,
            ranked: Vec::new(),
        }
    }
}

impl Random {
    /// The offset of this step, drawn on first use.
    fn offset(&mut self, enabled: &[Event]) -> usize {
        debug_assert!(
            self.offset.is_some() || self.delays == 0,
            "delays count only within a step that has drawn its offset"
        );
        let rng = &mut self.rng;
        *self
            .offset
            .get_or_insert_with(|| uniform(rng, enabled.len()))
    }
}

impl DelayingExplorer for Random {
    fn name(&self) -> String {
        "random".into()
    }

    fn start(&mut self, seed: u64) {
        *self = Random {
            rng: generator(seed),
            ranked: std::mem::take(&mut self.ranked),
            ..Random::default()
        };
    }

    fn next(&mut self, enabled: &[Event]) -> usize {
        let m = enabled.len();
        let rank = (self.offset(enabled) + self.delays) % m;
        self.offset = None;
        self.delays = 0;
        if m == 1 {
            // One event: no ranking (the offset was still drawn, so the
            // stream of draws is the same as ranking would leave it).
            return 0;
        }
        self.ranked.clear();
        self.ranked
            .extend(enabled.iter().enumerate().map(|(i, e)| (Unit::of(*e), i)));
        // Units are distinct, so ordering the pairs orders the units.
        self.ranked.select_nth_unstable(rank).1 .1
    }

    fn delay(&mut self, enabled: &[Event]) {
        self.offset(enabled);
        // Only `delays mod m` matters; wrapping keeps it bounded.
        self.delays = (self.delays + 1) % enabled.len();
    }

    fn step(&mut self, _observation: &Observation) {}

    fn is_randomized(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use sim_rt::scheduler::__testing::task;

    use super::super::rr::tests::{drive, scenario};
    use super::*;

    fn seeded(seed: u64) -> Random {
        let mut r = Random::default();
        r.start(seed);
        r
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

    /// Over 64 seeds, each of three enabled events is picked first at least
    /// once (each is missed by all 64 with probability `(2/3)^64`, about
    /// `5e-12`; the seeds are fixed, so the test is deterministic).
    #[test]
    fn every_event_is_picked_first_for_some_seed() {
        let enabled = [
            Event::Poll(task(3)),
            Event::Poll(task(1)),
            Event::Poll(task(2)),
        ];
        let mut firsts: Vec<Unit> = (0..64)
            .map(|seed| Unit::of(enabled[seeded(seed).next(&enabled)]))
            .collect();
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts.len(), 3);
    }

    /// A delay moves on to the next unit in `Unit` order, wherever the
    /// units sit in the slice.
    #[test]
    fn delay_moves_to_the_next_unit_in_unit_order() {
        let enabled = [
            Event::Poll(task(3)),
            Event::Poll(task(1)),
            Event::Poll(task(2)),
        ];
        let mut r = seeded(7);
        let first = Unit::of(enabled[r.clone().next(&enabled)]);
        r.delay(&enabled);
        let second = Unit::of(enabled[r.next(&enabled)]);
        let successor = |u: Unit| match u {
            Unit::Task(t) if t == task(1) => Unit::Task(task(2)),
            Unit::Task(t) if t == task(2) => Unit::Task(task(3)),
            _ => Unit::Task(task(1)),
        };
        assert_eq!(second, successor(first));
    }
}
