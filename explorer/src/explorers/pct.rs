//! PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi &
//! Nagarakatte, "A randomized scheduler with probabilistic guarantees of
//! finding bugs", ASPLOS 2010), as a delaying explorer.
//!
//! PCT gives every thread a random priority and always runs the enabled
//! thread of highest priority; at `d - 1` random steps (the change points)
//! it lowers the priority of the thread that just ran below every other.
//! A bug of depth `d` (one that needs `d` ordering constraints between
//! steps) in a program of `n` threads and `k` steps is then found by one
//! run with probability at least `1 / (n k^(d-1))`.
//!
//! Here the units are kept in priority order, highest first. In
//! [`start`](DelayingExplorer::start), `depth - 1` distinct change points
//! are drawn uniformly from `1..=steps`. A unit seen for the first time
//! (announced by `Spawned`, `Sent` or `Duplicated`, or found enabled
//! without having been announced; several at once in [`Unit`] order) is
//! inserted at a uniformly random position among the units that still have
//! their initial priority, never below a demoted unit.
//! [`next`](DelayingExplorer::next) runs the enabled unit of highest
//! priority and counts a step; when the count reaches a change point, that
//! unit is demoted below every unit, so a later change point demotes lower
//! still, as the paper's priorities `d - i` do.
//! [`delay`](DelayingExplorer::delay) demotes the unit `next` would run to
//! the lowest priority in the same way. Finished tasks and delivered or lost
//! packets leave.
//!
//! # Differences from the paper
//!
//! - Units are tasks, packets in flight and the clock, not threads: a
//!   delivery and a time advance have priorities of their own.
//! - The number of units is not known up front, so priorities are positions
//!   in a list rather than numbers `d..d+n`. Inserting each new unit at a
//!   uniformly random position among the initial-priority units gives the
//!   units present together a uniformly random relative order, as the
//!   paper's random priorities do.
//! - `steps` is an estimate of the execution's length, not a bound: change
//!   points past the end of a shorter execution never happen, and a longer
//!   execution has none after `steps`. Steps count calls to `next`, one per
//!   scheduling decision, not instructions.
//! - PCT has no `delay`; demoting to the lowest priority is what makes it a
//!   sound delaying explorer, so a stratified search can start from PCT's
//!   schedule and deviate from it.
//!
//! # Invariants
//!
//! - The last `demoted` units of the list are exactly the demoted ones,
//!   most recently demoted last; `demoted` never exceeds the list's length
//!   (checked with `debug_assert!`).
//! - Change points are distinct and still ahead of the step count.
//! - Those of round robin's queue (see [`super::rr`]), on which the list is
//!   built: no unit twice, every enabled unit in the list once `next` or
//!   `delay` has seen it.
//!
//! # Soundness
//!
//! A delay moves the highest enabled unit to the bottom and leaves the
//! others in place: it rotates the enabled units' relative order by one, so
//! `k = 0..m` delays name each enabled event once and `k = m` the first
//! again. (Change points act in `next`, after the choice.)
//!
//! # Determinism
//!
//! Change points and positions are drawn from a xoshiro256++ generator
//! seeded by `start`: change points first, then one draw per new unit, in
//! the order units are learned.

use rand_xoshiro::Xoshiro256PlusPlus;
use sim_rt::scheduler::{Event, Observation};

use super::random::{generator, uniform};
use super::rr::{Placement, Queue};
use super::{DelayingExplorer, Unit};

/// The default estimate of an execution's length.
const DEFAULT_STEPS: usize = 1000;

/// PCT's placement: a uniformly random position among the units of initial
/// priority, above every demoted unit.
#[derive(Debug, Clone)]
struct AboveDemoted {
    rng: Xoshiro256PlusPlus,
    /// How many units, at the tail of the list, have been demoted.
    demoted: usize,
}

impl Placement for AboveDemoted {
    fn place(&mut self, _unit: Unit, len: usize) -> usize {
        debug_assert!(self.demoted <= len, "only listed units are demoted");
        uniform(&mut self.rng, len - self.demoted + 1)
    }
}

/// PCT (Burckhardt, Kothari, Musuvathi & Nagarakatte, ASPLOS 2010): random
/// priorities, lowered at `depth - 1` random steps.
///
/// Units are ranked by priority; a new one (announced or found enabled)
/// takes a uniformly random rank among the units that still have their
/// initial priority. `next` runs the highest enabled unit and counts a
/// step; at each of `depth - 1` change points drawn from `1..=steps` in
/// [`start`](DelayingExplorer::start), the unit just run drops below every
/// unit. `delay` drops the unit `next` would run to the lowest priority.
/// Units include packets and the clock, and `steps` is only an estimate of
/// the execution's length.
///
/// Named "pct:{depth}:{steps}". Randomized: seeded by
/// [`start`](DelayingExplorer::start).
#[derive(Debug, Clone)]
pub struct Pct {
    /// The bug depth `d` (at least 1): `d - 1` change points.
    depth: usize,
    /// The estimate of an execution's length change points are drawn from.
    steps: usize,
    /// Units by priority, highest first; the tail holds the demoted ones.
    list: Queue<AboveDemoted>,
    /// Change points still ahead, latest first (the next one is last).
    change_points: Vec<usize>,
    /// Steps taken (calls to `next`) in this execution.
    taken: usize,
}

impl Pct {
    /// PCT for bugs of depth `depth`, with change points drawn from the
    /// first 1000 steps (see [`steps`](Self::steps)).
    ///
    /// # Panics
    ///
    /// If `depth` is 0. [`start`](DelayingExplorer::start) panics if
    /// `depth` is above 1001 and [`steps`](Self::steps) was not raised.
    pub fn new(depth: usize) -> Self {
        assert!(
            depth >= 1,
            "Pct::new(0): the bug depth must be at least 1 (depth 1 means no change point)"
        );
        Pct {
            depth,
            steps: DEFAULT_STEPS,
            list: Queue::new(AboveDemoted {
                rng: generator(0),
                demoted: 0,
            }),
            change_points: Vec::new(),
            taken: 0,
        }
    }

    /// Sets the estimate of an execution's length, in steps, from which
    /// change points are drawn (default 1000). Too low, and no change point
    /// comes late in the execution; too high, and change points past its
    /// end are wasted.
    ///
    /// # Panics
    ///
    /// If `steps` is below `depth - 1`: there must be room for `depth - 1`
    /// distinct change points.
    pub fn steps(mut self, steps: usize) -> Self {
        self.steps = steps;
        self.assert_room();
        self
    }

    /// Panics unless `1..=steps` holds `depth - 1` distinct change points.
    fn assert_room(&self) {
        assert!(
            self.steps >= self.depth - 1,
            "Pct with depth {} needs {} distinct change points, but steps({}) leaves room \
             for only {}: raise steps or lower the depth",
            self.depth,
            self.depth - 1,
            self.steps,
            self.steps,
        );
    }

    /// The number of demoted units, at the tail of the list.
    fn demoted(&self) -> usize {
        self.list.placement.demoted
    }

    /// Moves the unit at `at` to the lowest priority.
    fn demote(&mut self, at: usize) {
        if at < self.list.units().len() - self.demoted() {
            self.list.placement.demoted += 1;
        }
        self.list.demote(at);
        debug_assert!(self.demoted() <= self.list.units().len());
    }

    /// Moves `unit` (in the list) to the lowest priority.
    fn demote_unit(&mut self, unit: Unit) {
        let at = self.list.position(unit).expect("the head is in the list");
        self.demote(at);
    }

    /// Removes `unit` from the list, if it is there.
    fn remove(&mut self, unit: Unit) {
        let initial = self.list.units().len() - self.demoted();
        if let Some(at) = self.list.remove(unit) {
            if at >= initial {
                self.list.placement.demoted -= 1;
            }
        }
        debug_assert!(self.demoted() <= self.list.units().len());
    }
}

impl DelayingExplorer for Pct {
    fn name(&self) -> String {
        format!("pct:{}:{}", self.depth, self.steps)
    }

    fn start(&mut self, seed: u64) {
        self.assert_room();
        let mut rng = generator(seed);
        // Floyd's sampling: `depth - 1` distinct points of `1..=steps`,
        // uniformly, with one draw each.
        let count = self.depth - 1;
        self.change_points.clear();
        for j in self.steps - count + 1..=self.steps {
            let point = 1 + uniform(&mut rng, j);
            let point = if self.change_points.contains(&point) {
                j
            } else {
                point
            };
            self.change_points.push(point);
        }
        self.change_points.sort_unstable_by(|a, b| b.cmp(a));
        self.list.clear();
        self.list.placement = AboveDemoted { rng, demoted: 0 };
        self.taken = 0;
    }

    fn next(&mut self, enabled: &[Event]) -> usize {
        let (i, unit) = self.list.head(enabled);
        self.taken += 1;
        debug_assert!(
            self.change_points.last().is_none_or(|&c| c >= self.taken),
            "change points are still ahead"
        );
        if self.change_points.last() == Some(&self.taken) {
            self.change_points.pop();
            self.demote_unit(unit);
        }
        i
    }

    fn delay(&mut self, enabled: &[Event]) {
        let (_, unit) = self.list.head(enabled);
        self.demote_unit(unit);
    }

    fn step(&mut self, observation: &Observation) {
        match *observation {
            Observation::Spawned { task, .. } => self.list.add(Unit::Task(task)),
            Observation::Sent { packet, .. } => self.list.add(Unit::Packet(packet)),
            Observation::Duplicated { copy, .. } => self.list.add(Unit::Packet(copy)),
            Observation::Finished { task } => self.remove(Unit::Task(task)),
            Observation::Delivered { packet, .. } | Observation::Lost { packet } => {
                self.remove(Unit::Packet(packet))
            }
            _ => {}
        }
    }

    fn is_randomized(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::rr::tests::{cycle, drive, poll, scenario, spawned};
    use super::*;

    fn seeded(pct: Pct, seed: u64) -> Pct {
        let mut pct = pct;
        pct.start(seed);
        pct
    }

    proptest! {
        /// Depths 1 to 3, with change points early enough to happen in the
        /// scenarios (up to 40 steps).
        #[test]
        fn delays_cycle_through_enabled(depth in 1..=3usize, seed: u64, steps in scenario()) {
            drive(seeded(Pct::new(depth).steps(20), seed), &steps);
        }

        #[test]
        fn same_seed_same_answers(depth in 1..=3usize, seed: u64, steps in scenario()) {
            let pct = Pct::new(depth).steps(20);
            prop_assert_eq!(
                drive(seeded(pct.clone(), seed), &steps),
                drive(seeded(pct, seed), &steps)
            );
        }
    }

    /// With depth 1 there are no change points: the same unit runs at every
    /// step, and the priority order is fixed by the seed, different for
    /// different seeds (8 seeds agreeing would take 7 draws of the same one
    /// of 24 orders; the seeds are fixed, so the test is deterministic).
    #[test]
    fn depth_one_is_a_fixed_priority_order_per_seed() {
        let enabled = [poll(3), poll(1), poll(4), poll(2)];
        let order = |seed| {
            let mut pct = seeded(Pct::new(1), seed);
            for n in 1..=4 {
                pct.step(&spawned(n));
            }
            let order = cycle(&pct, &enabled);
            for _ in 0..20 {
                assert_eq!(Unit::of(enabled[pct.next(&enabled)]), order[0]);
            }
            assert_eq!(cycle(&pct, &enabled), order);
            order
        };
        assert_eq!(order(5), order(5));
        let mut orders: Vec<_> = (0..8).map(order).collect();
        orders.sort();
        orders.dedup();
        assert!(orders.len() >= 2, "one order for every seed: {orders:?}");
    }

    /// With depth 2 and a 1-step estimate, the change point is step 1: the
    /// unit run first is demoted, and the other runs from then on.
    #[test]
    fn change_point_demotes_the_unit_that_ran() {
        for seed in 0..8 {
            let mut pct = seeded(Pct::new(2).steps(1), seed);
            pct.step(&spawned(1));
            pct.step(&spawned(2));
            let enabled = [poll(1), poll(2)];
            let first = Unit::of(enabled[pct.next(&enabled)]);
            let second = Unit::of(enabled[pct.next(&enabled)]);
            assert_ne!(first, second);
            for _ in 0..5 {
                assert_eq!(Unit::of(enabled[pct.next(&enabled)]), second);
            }
        }
    }

    /// Later demotions go lower: with change points at steps 1 and 2 (the
    /// only two of `1..=2`), the first two units run once each, then rank
    /// in the order they were demoted, below the third.
    #[test]
    fn later_change_points_demote_lower() {
        for seed in 0..8 {
            let mut pct = seeded(Pct::new(3).steps(2), seed);
            let enabled = [poll(1), poll(2), poll(3)];
            let a = Unit::of(enabled[pct.next(&enabled)]);
            let b = Unit::of(enabled[pct.next(&enabled)]);
            let rest = cycle(&pct, &enabled);
            assert_eq!(rest[1..], [a, b]);
        }
    }

    /// New units, announced or not, rank above demoted ones.
    #[test]
    fn new_units_rank_above_demoted_ones() {
        for seed in 0..16 {
            let mut pct = seeded(Pct::new(1), seed);
            pct.step(&spawned(1));
            pct.step(&spawned(2));
            let enabled = [poll(1), poll(2)];
            let demoted = Unit::of(enabled[pct.clone().next(&enabled)]);
            pct.delay(&enabled);
            pct.step(&spawned(3));
            pct.step(&spawned(4));
            let enabled = [poll(5), poll(4), poll(3), poll(2), poll(1)];
            assert_eq!(cycle(&pct, &enabled)[4], demoted);
        }
    }

    /// Removing units keeps the demoted ones at the bottom.
    #[test]
    fn finished_units_leave() {
        let mut pct = seeded(Pct::new(1), 1);
        for n in 1..=3 {
            pct.step(&spawned(n));
        }
        let enabled = [poll(1), poll(2), poll(3)];
        pct.delay(&enabled);
        let demoted = pct.list.units()[2];
        let Unit::Task(gone) = pct.list.units()[0] else {
            unreachable!()
        };
        pct.step(&Observation::Finished { task: gone });
        assert_eq!(pct.list.units().len(), 2);
        assert_eq!(pct.demoted(), 1);
        let Unit::Task(d) = demoted else {
            unreachable!()
        };
        pct.step(&Observation::Finished { task: d });
        assert_eq!(pct.demoted(), 0);
    }

    #[test]
    fn name_has_depth_and_steps() {
        assert_eq!(Pct::new(3).name(), "pct:3:1000");
        assert_eq!(Pct::new(2).steps(50).name(), "pct:2:50");
    }

    #[test]
    #[should_panic(expected = "bug depth must be at least 1")]
    fn depth_zero_panics() {
        let _ = Pct::new(0);
    }

    #[test]
    #[should_panic(expected = "needs 3 distinct change points")]
    fn too_few_steps_panics() {
        let _ = Pct::new(4).steps(2);
    }

    /// A depth above the default estimate is fine once `steps` is raised.
    #[test]
    fn deep_pct_needs_more_steps() {
        let mut pct = Pct::new(1500).steps(2000);
        pct.start(0);
        assert_eq!(pct.change_points.len(), 1499);
        assert!(pct.change_points.windows(2).all(|w| w[0] > w[1]));
        assert!(pct.change_points.iter().all(|&c| (1..=2000).contains(&c)));
    }

    #[test]
    #[should_panic(expected = "needs 1499 distinct change points")]
    fn deep_pct_with_default_steps_panics_at_start() {
        Pct::new(1500).start(0);
    }
}
