//! Run to completion: follow causality (Desai, Qadeer & Seshia, FSE 2015,
//! section 5, "run to completion explorer", after the P testing work on
//! device drivers).
//!
//! Units sit on a stack ordered by causality. A task spawned or woken, a
//! packet sent and a duplicate made go on top (a known unit moves there);
//! [`next`](DelayingExplorer::next) runs the topmost enabled unit. So what a
//! task sends or wakes runs next: a message is delivered, and its receiver
//! handles it, before anything unrelated runs, and a chain of messages is
//! followed to its end with no delay at all. The clock sits at the bottom
//! and goes back there each time it advances: time moves only when nothing
//! above it is enabled. [`delay`](DelayingExplorer::delay) moves the unit
//! `next` would run to the bottom (the paper: "the highest priority process
//! is moved to the lowest priority position"). Finished tasks and delivered
//! or lost packets leave the stack.
//!
//! Enabled units the explorer was never told about (the main task is never
//! announced) are placed when first seen: tasks and packets on top, the
//! clock at the bottom. Several new at once are placed in [`Unit`] order,
//! so the greatest (the newest task) ends on top.
//!
//! The stack is round robin's queue ([`super::rr`]) read with its head as
//! the top: `delay` is the same move to the tail, only where units go
//! differs.
//!
//! # Invariants
//!
//! Those of the queue: no unit twice, every enabled unit on the stack once
//! `next` or `delay` has seen it.
//!
//! # Soundness
//!
//! A delay moves the topmost enabled unit to the bottom and leaves the
//! others in place: it rotates the enabled units' relative order by one, so
//! `k = 0..m` delays name each enabled event once and `k = m` the first
//! again.
//!
//! # Determinism
//!
//! Deterministic: the stack is a function of the observations and of the
//! sets of enabled units.

use sim_rt::scheduler::{Event, Observation};

use super::rr::{Placement, Queue};
use super::{DelayingExplorer, Unit};

/// Run to completion's placement of units seen for the first time: tasks
/// and packets on top, the clock at the bottom.
#[derive(Debug, Clone, Copy, Default)]
struct OnTop;

impl Placement for OnTop {
    fn place(&mut self, unit: Unit, len: usize) -> usize {
        match unit {
            Unit::Clock => len,
            Unit::Task(_) | Unit::Packet(_) => 0,
        }
    }
}

/// Run to completion: follow causality (Desai, Qadeer & Seshia, FSE 2015).
///
/// Units sit on a stack: a task spawned or woken, a packet sent and a
/// duplicate made go on top, and the clock goes to the bottom when it
/// advances. `next` runs the topmost enabled unit, so what a task sends or
/// wakes runs next; `delay` moves that unit to the bottom. Enabled units
/// never announced go on top (several at once in [`Unit`] order, the
/// greatest topmost), the clock at the bottom.
///
/// Named "rtc". Deterministic.
#[derive(Debug, Clone, Default)]
pub struct Rtc {
    /// The stack, top first.
    stack: Queue<OnTop>,
}

impl Rtc {
    /// A run-to-completion explorer with an empty stack.
    pub fn new() -> Self {
        Self::default()
    }
}

impl DelayingExplorer for Rtc {
    fn name(&self) -> String {
        "rtc".into()
    }

    fn start(&mut self, _seed: u64) {
        self.stack.clear();
    }

    fn next(&mut self, enabled: &[Event]) -> usize {
        self.stack.next(enabled)
    }

    fn next_is_pure(&self) -> bool {
        true
    }

    fn delay(&mut self, enabled: &[Event]) {
        self.stack.delay(enabled);
    }

    fn step(&mut self, observation: &Observation) {
        match *observation {
            Observation::Spawned { task, .. } | Observation::Woken { task, .. } => {
                self.stack.move_to_head(Unit::Task(task))
            }
            Observation::Sent { packet, .. } => self.stack.move_to_head(Unit::Packet(packet)),
            Observation::Duplicated { copy, .. } => self.stack.move_to_head(Unit::Packet(copy)),
            Observation::Advanced { .. } => self.stack.move_to_tail(Unit::Clock),
            Observation::Finished { task } => {
                self.stack.remove(Unit::Task(task));
            }
            Observation::Delivered { packet, .. } | Observation::Lost { packet } => {
                self.stack.remove(Unit::Packet(packet));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;
    use sim_rt::scheduler::__testing::{host, packet, task};

    use super::super::rr::tests::{cycle, drive, poll, scenario, spawned, t};
    use super::*;

    proptest! {
        #[test]
        fn delays_cycle_through_enabled(steps in scenario()) {
            drive(Rtc::new(), &steps);
        }

        #[test]
        fn same_inputs_same_answers(steps in scenario()) {
            prop_assert_eq!(drive(Rtc::new(), &steps), drive(Rtc::new(), &steps));
        }
    }

    /// A woken task runs before an older runnable one.
    #[test]
    fn woken_task_runs_before_older_runnable_one() {
        let mut rtc = Rtc::new();
        rtc.step(&spawned(1));
        rtc.step(&spawned(2));
        let enabled = [poll(1), poll(2)];
        assert_eq!(Unit::of(enabled[rtc.next(&enabled)]), t(2));
        rtc.step(&Observation::Woken {
            task: task(1),
            by: Some(task(2)),
        });
        assert_eq!(cycle(&rtc, &enabled), [t(1), t(2)]);
    }

    /// Causality is followed: task 2 sends a packet, the packet is
    /// delivered, and the task it wakes runs, all before task 3, which was
    /// runnable throughout.
    #[test]
    fn a_message_is_handled_before_anything_unrelated() {
        let mut rtc = Rtc::new();
        for n in 1..=3 {
            rtc.step(&spawned(n));
        }
        rtc.step(&Observation::Sent {
            packet: packet(0),
            by: Some(task(2)),
            from: host(0),
            to: host(1),
        });
        let enabled = [poll(3), Event::Deliver(packet(0))];
        assert_eq!(enabled[rtc.next(&enabled)], Event::Deliver(packet(0)));
        rtc.step(&Observation::Delivered {
            packet: packet(0),
            to: host(1),
        });
        rtc.step(&Observation::Woken {
            task: task(1),
            by: None,
        });
        let enabled = [poll(3), poll(1)];
        assert_eq!(cycle(&rtc, &enabled), [t(1), t(3)]);
    }

    /// The clock is at the bottom: time advances only when nothing else is
    /// enabled, or after a delay of everything above it. It goes back to the
    /// bottom when it advances; unannounced tasks go on top, the greatest
    /// id topmost.
    #[test]
    fn clock_stays_at_the_bottom() {
        let mut rtc = Rtc::new();
        let enabled = [Event::Advance, poll(1), poll(3), poll(2)];
        assert_eq!(cycle(&rtc, &enabled), [t(3), t(2), t(1), Unit::Clock]);
        rtc.delay(&enabled);
        rtc.step(&Observation::Advanced {
            to: Duration::from_secs(1),
        });
        assert_eq!(cycle(&rtc, &enabled), [t(2), t(1), t(3), Unit::Clock]);
        rtc.step(&Observation::Duplicated {
            packet: packet(0),
            copy: packet(1),
        });
        let enabled = [poll(2), Event::Advance, Event::Deliver(packet(1))];
        let p1 = Unit::Packet(packet(1));
        assert_eq!(cycle(&rtc, &enabled), [p1, t(2), Unit::Clock]);
    }

    /// Finished tasks and delivered or lost packets leave the stack.
    #[test]
    fn finished_units_leave() {
        let mut rtc = Rtc::new();
        rtc.step(&spawned(1));
        rtc.step(&Observation::Sent {
            packet: packet(0),
            by: Some(task(1)),
            from: host(0),
            to: host(1),
        });
        rtc.step(&Observation::Sent {
            packet: packet(1),
            by: Some(task(1)),
            from: host(0),
            to: host(1),
        });
        rtc.step(&Observation::Lost { packet: packet(0) });
        rtc.step(&Observation::Delivered {
            packet: packet(1),
            to: host(1),
        });
        rtc.step(&Observation::Finished { task: task(1) });
        assert!(rtc.stack.units().is_empty());
    }
}
