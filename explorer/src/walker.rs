//! A liveness walk's schedulers: the execution's own for its prefix, then
//! a [`Walker`] (see the `liveness` module for what walks are for).
//!
//! # Determinism
//!
//! The walker's picks and data choices come from its own seed (a walk
//! tail's, see [`WalkTail`](crate::token::WalkTail)); the prefix replays
//! the execution's choices, so a walk is a function of its base execution
//! and its tail.

use std::cell::RefCell;
use std::rc::Rc;

use sim_rt::scheduler::{ChoiceKind, Event, Observation, RandomScheduler, Scheduler};

use crate::token::WalkFaults;

/// Runs the prefix's scheduler for the first `at` trace steps, then the
/// walker; keeps the observations made during trace step `watch`.
pub(crate) struct Switch<A, B> {
    pub(crate) first: A,
    pub(crate) then: B,
    pub(crate) at: u64,
    pub(crate) calls: u64,
    pub(crate) watch: Option<u64>,
    pub(crate) seen: Rc<RefCell<Vec<Observation>>>,
}

impl<A: Scheduler, B: Scheduler> Switch<A, B> {
    fn walking(&mut self) -> bool {
        let walking = self.calls >= self.at;
        self.calls += 1;
        walking
    }
}

impl<A: Scheduler, B: Scheduler> Scheduler for Switch<A, B> {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        if self.walking() {
            self.then.pick(enabled)
        } else {
            self.first.pick(enabled)
        }
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        if self.walking() {
            self.then.choose(kind, n)
        } else {
            self.first.choose(kind, n)
        }
    }

    fn observe(&mut self, observation: &Observation) {
        if self.watch.is_some_and(|w| self.calls == w + 1) {
            self.seen.borrow_mut().push(*observation);
        }
        if self.calls < self.at {
            self.first.observe(observation);
        }
    }

    fn observes(&self) -> bool {
        self.first.observes() || self.watch.is_some()
    }

    fn late_deliveries(&self) -> bool {
        self.first.late_deliveries()
    }
}

/// A walk's scheduler: uniform picks, data choices with their
/// probabilities, faults as [`WalkFaults`] says.
pub(crate) struct Walker {
    random: RandomScheduler,
    faults: WalkFaults,
}

impl Walker {
    pub(crate) fn new(seed: u64, faults: WalkFaults) -> Walker {
        Walker {
            random: RandomScheduler::new(seed),
            faults,
        }
    }
}

impl Scheduler for Walker {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        self.random.pick(enabled)
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        match (kind, self.faults) {
            (ChoiceKind::Fault { probability }, WalkFaults::Rare) => self.random.choose(
                ChoiceKind::Fault {
                    probability: probability / 10.0,
                },
                n,
            ),
            (ChoiceKind::Fault { .. }, _) => 0,
            _ => self.random.choose(kind, n),
        }
    }

    fn observes(&self) -> bool {
        false
    }
}
