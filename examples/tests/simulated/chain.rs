//! Chain replication: the planted bug breaks the chain's integrity and the
//! staged explorer finds it; without it, every explored execution keeps
//! chain replication's properties. And the staged explorer is sound.

use crate::planted_bug;
use crate::sim::chain;

planted_bug! {
    chain;
    the_planted_bug_breaks_chain_integrity_and_is_found: "chain integrity";
    without_the_bug_every_explored_execution_keeps_the_chain: 300;
}

/// The staged explorer is sound: at any step, `k = 0..m` delays name each
/// of the `m` enabled events once and `k = m` the first again; and the
/// order of the enabled slice does not matter. Checked along random
/// sequences of observations (roles, the start, spawns, blocks, packets).
mod staged {
    use std::time::Duration;

    use explorer::explorers::check_sound;
    use explorer::{DelayingExplorer, Unit};
    use proptest::prelude::*;
    use sim_rt::scheduler::__testing::{host, packet, task};
    use sim_rt::scheduler::{Event, Observation};

    use crate::sim::chain_explorer::{Staged, FAULT, MASTER, STARTED};

    const TASKS: u64 = 6;
    const PACKETS: u64 = 4;

    fn observation() -> impl Strategy<Value = Observation> {
        let t = (1..=TASKS).prop_map(task);
        let p = (0..PACKETS).prop_map(packet);
        prop_oneof![
            (t.clone(), prop::option::of(1..=TASKS)).prop_map(|(task, parent)| {
                Observation::Spawned {
                    task,
                    parent: parent.map(self::task),
                    host: host(0),
                    spawned_at: None,
                }
            }),
            (
                t.clone(),
                prop::sample::select(vec![MASTER, FAULT, STARTED, "other"])
            )
                .prop_map(|(task, label)| Observation::Annotated {
                    task: Some(task),
                    host: host(0),
                    label,
                }),
            t.clone().prop_map(|task| Observation::Blocked { task }),
            t.prop_map(|task| Observation::Finished { task }),
            p.clone().prop_map(|packet| Observation::Sent {
                packet,
                by: None,
                from: host(0),
                to: host(1),
            }),
            p.prop_map(|packet| Observation::Delivered {
                packet,
                to: host(1)
            }),
            (0..100u64).prop_map(|s| Observation::Advanced {
                to: Duration::from_millis(s)
            }),
        ]
    }

    fn enabled() -> impl Strategy<Value = Vec<Event>> {
        let pool: Vec<Event> = (1..=TASKS)
            .map(|n| Event::Poll(task(n)))
            .chain((0..PACKETS).map(|n| Event::Deliver(packet(n))))
            .chain([Event::Advance])
            .collect();
        let len = pool.len();
        prop::sample::subsequence(pool, 1..=len).prop_shuffle()
    }

    fn after_delays(explorer: &Staged, enabled: &[Event], k: usize) -> Unit {
        let mut e = explorer.clone();
        for _ in 0..k {
            e.delay(enabled);
        }
        Unit::of(enabled[e.next(enabled)])
    }

    proptest! {
        #[test]
        fn is_sound_at_every_step(
            steps in prop::collection::vec(
                (prop::collection::vec(observation(), 0..4), enabled(), 0..3usize),
                1..30,
            )
        ) {
            let mut staged = Staged::new();
            staged.start(0);
            for (observations, enabled, delays) in steps {
                for o in &observations {
                    staged.step(o);
                }
                prop_assert_eq!(check_sound(&staged, &enabled), Ok(()));
                for _ in 0..delays {
                    staged.delay(&enabled);
                }
                staged.next(&enabled);
            }
        }
    }

    /// The ordering of the paper: before the start, a task with a role
    /// (and its children) comes after the others; after, before them.
    #[test]
    fn roles_go_last_while_starting_and_first_once_started() {
        let mut staged = Staged::new();
        for n in 1..=3 {
            staged.step(&Observation::Spawned {
                task: task(n),
                parent: None,
                host: host(0),
                spawned_at: None,
            });
        }
        staged.step(&Observation::Annotated {
            task: Some(task(1)),
            host: host(0),
            label: FAULT,
        });
        // Task 4 is the fault injector's child: it has its role.
        staged.step(&Observation::Spawned {
            task: task(4),
            parent: Some(task(1)),
            host: host(0),
            spawned_at: None,
        });
        let enabled: Vec<Event> = (1..=4).map(|n| Event::Poll(task(n))).collect();
        let order = |s: &Staged| -> Vec<Unit> {
            (0..enabled.len())
                .map(|k| after_delays(s, &enabled, k))
                .collect()
        };
        let t = |n| Unit::Task(task(n));
        assert_eq!(order(&staged), [t(2), t(3), t(1), t(4)]);
        staged.step(&Observation::Annotated {
            task: Some(task(2)),
            host: host(0),
            label: STARTED,
        });
        assert_eq!(order(&staged), [t(1), t(4), t(2), t(3)]);
    }
}
