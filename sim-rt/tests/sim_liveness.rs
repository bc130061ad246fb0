//! Liveness properties stated by the program: "eventually P" (and "P
//! stays"), and hot/cold monitors, checked by the runtime as the run goes.

mod rt_support;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rt_support::assert_contains_all;
use sim_rt::runtime::{Builder, Failure, FailureKind};
use sim_rt::sim;

fn run<F: std::future::Future>(fut: F) -> Result<F::Output, Failure> {
    Builder::new_current_thread()
        // Work takes no time: the times asserted are exact.
        .poll_cost(std::time::Duration::ZERO)
        .enable_all()
        .seed(1)
        .build()
        .unwrap()
        .try_block_on(fut)
}

/// Runs `fut`, which must fail with a liveness failure whose report holds
/// every one of `parts`; returns that failure.
fn assert_liveness_failure(fut: impl std::future::Future<Output = ()>, parts: &[&str]) -> Failure {
    let failure = run(fut).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::Liveness);
    assert_contains_all(&failure.to_string(), parts);
    failure
}

/// A flag that a task sets after `after`, and clears after `clear` if
/// given.
fn flag(after: Duration, clear: Option<Duration>) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    sim_rt::spawn(async move {
        sim_rt::time::sleep(after).await;
        f.store(true, Ordering::SeqCst);
        if let Some(clear) = clear {
            sim_rt::time::sleep(clear).await;
            f.store(false, Ordering::SeqCst);
        }
    });
    flag
}

#[test]
fn a_property_that_comes_true_passes() {
    run(async {
        let done = flag(Duration::from_millis(300), None);
        sim::eventually("the flag is set", move || done.load(Ordering::SeqCst));
        sim_rt::time::sleep(Duration::from_secs(1)).await;
    })
    .unwrap();
}

#[test]
fn a_property_that_never_holds_is_reported_with_how_long_it_was_pending() {
    assert_liveness_failure(
        async {
            sim_rt::time::sleep(Duration::from_millis(10)).await;
            let never = flag(Duration::from_secs(3600), None);
            sim::eventually("a leader is elected", move || never.load(Ordering::SeqCst));
            sim_rt::time::sleep(Duration::from_secs(2)).await;
        },
        &[
            "liveness: \"a leader is elected\" has not held by the end of the run, 2s",
            "after it was stated at 10ms",
            "indeterminate",
        ],
    );
}

#[test]
fn a_property_that_must_stay_fails_when_it_stops_holding() {
    assert_liveness_failure(
        async {
            let up = flag(Duration::from_millis(100), Some(Duration::from_millis(400)));
            sim::eventually("the service is up", move || up.load(Ordering::SeqCst)).stays();
            sim_rt::time::sleep(Duration::from_secs(1)).await;
        },
        &[
            "has not held and stayed",
            "it last stopped holding at 500ms",
        ],
    );

    // Without `stays`, having held once is enough.
    run(async {
        let up = flag(Duration::from_millis(100), Some(Duration::from_millis(400)));
        sim::eventually("the service is up", move || up.load(Ordering::SeqCst));
        sim_rt::time::sleep(Duration::from_secs(1)).await;
    })
    .unwrap();
}

#[test]
fn a_monitor_hot_past_its_limit_fails_at_the_limit() {
    let failure = assert_liveness_failure(
        async {
            let lock = sim::monitor("the lock is released", Duration::from_secs(5));
            sim_rt::time::sleep(Duration::from_millis(250)).await;
            lock.hot();
            assert!(lock.is_hot());
            // A ticking task, so that time passes in small steps.
            loop {
                sim_rt::time::sleep(Duration::from_millis(100)).await;
            }
        },
        &[
            "monitor \"the lock is released\" has been hot for 5.1s",
            "since 250ms",
            "past its limit of 5s",
        ],
    );
    // The first check past 250 ms + 5 s is at the tick at 5.35 s.
    assert_eq!(failure.elapsed(), Duration::from_millis(5350));
}

#[test]
fn a_monitor_cooled_in_time_passes() {
    run(async {
        let reply = sim::monitor("the request gets its reply", Duration::from_secs(1));
        for _ in 0..5 {
            reply.hot();
            sim_rt::time::sleep(Duration::from_millis(900)).await;
            reply.cold();
            sim_rt::time::sleep(Duration::from_millis(900)).await;
        }
        assert!(!reply.is_hot());
    })
    .unwrap();
}

/// Predicates run after every step by default, and every n steps with
/// `liveness_check_every(n)` (and once more at the end).
#[test]
fn the_check_cadence_is_the_builders() {
    let count = Arc::new(AtomicU32::new(0));
    let c = count.clone();
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(1)
        .liveness_check_every(10)
        .build()
        .unwrap();
    let out = rt.try_block_on(async move {
        sim::eventually("counted", move || c.fetch_add(1, Ordering::SeqCst) >= 1_000);
        for _ in 0..40 {
            sim_rt::task::yield_now().await;
        }
    });
    assert_eq!(out.unwrap_err().kind(), FailureKind::Liveness);
    let steps = rt.trace().len() as u32;
    // Stated at step 0 (before the first step ends): checked after steps
    // that are multiples of 10, plus the final check.
    assert_eq!(
        count.load(Ordering::SeqCst),
        steps / 10 + 1,
        "{steps} steps"
    );
}

/// The same seed gives the same liveness failure at the same step.
#[test]
fn a_liveness_failure_is_deterministic() {
    let once = || {
        run(async {
            let lock = sim::monitor("released", Duration::from_millis(700));
            for i in 0..20u32 {
                if sim_rt::choose(3) == 0 {
                    lock.hot();
                } else if i % 16 == 0 {
                    lock.cold();
                }
                sim_rt::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .map_err(|f| (f.step(), f.elapsed(), f.to_string()))
    };
    let first = once();
    assert!(first.is_err(), "the monitor stays hot past its limit");
    assert_eq!(first, once());
}

fn walking(steps: u64) -> sim_rt::runtime::Runtime {
    Builder::new_current_thread()
        .enable_all()
        .seed(1)
        .liveness_walk(steps)
        .build()
        .unwrap()
}

/// With `liveness_walk`, a system that is only slower than the test's
/// bound passes: the run goes on after the main future returns until the
/// property holds.
#[test]
fn a_slow_system_passes_when_the_run_walks_on() {
    let rt = walking(10_000);
    rt.block_on(async {
        let done = flag(Duration::from_millis(2500), None);
        sim::eventually("the flag is set", move || done.load(Ordering::SeqCst));
        sim_rt::time::sleep(Duration::from_millis(500)).await; // the bound
    });
    // Without the walk the same run is indeterminate at 500 ms.
    let failure = run(async {
        let done = flag(Duration::from_millis(2500), None);
        sim::eventually("the flag is set", move || done.load(Ordering::SeqCst));
        sim_rt::time::sleep(Duration::from_millis(500)).await;
    })
    .unwrap_err();
    assert!(failure.to_string().contains("indeterminate"), "{failure}");
}

/// A system where nothing more can happen is dead, not indeterminate.
#[test]
fn a_system_where_nothing_more_can_happen_is_dead() {
    let failure = walking(10_000)
        .try_block_on(async {
            let never = flag(Duration::from_millis(100), Some(Duration::from_millis(1)));
            sim::eventually("the flag is set", move || never.load(Ordering::SeqCst)).stays();
            sim_rt::time::sleep(Duration::from_millis(500)).await;
        })
        .unwrap_err();
    assert_eq!(failure.kind(), FailureKind::Liveness);
    let text = failure.to_string();
    assert!(
        text.contains("dead: after the main future returned the run went on"),
        "{text}"
    );
}

/// A system that keeps busy without ever satisfying the property is
/// indeterminate after the walk.
#[test]
fn a_busy_system_that_never_gets_there_is_indeterminate_after_the_walk() {
    let failure = walking(300)
        .try_block_on(async {
            sim_rt::spawn(async {
                loop {
                    sim_rt::time::sleep(Duration::from_millis(10)).await;
                }
            });
            sim::eventually("never", || false);
            sim_rt::time::sleep(Duration::from_millis(50)).await;
        })
        .unwrap_err();
    let text = failure.to_string();
    assert!(
        text.contains(
            "indeterminate: after the main future returned the run went on 300 more steps"
        ),
        "{text}"
    );
}

/// `Builder::heal_at_step` heals every partition once, at the trace step
/// named, and the run's step counts and met properties are readable after.
#[test]
fn heal_at_step_heals_every_partition_once() {
    let observe = |heal_at: Option<u64>| {
        let mut b = Builder::new_current_thread();
        b.enable_all();
        b.seed(1);
        if let Some(step) = heal_at {
            b.heal_at_step(step);
        }
        let rt = b.build().unwrap();
        let links = rt.block_on(async {
            let idle = || async { std::future::pending::<()>().await };
            sim::host("a").start(idle);
            sim::host("b").start(idle);
            sim::partition("a", "b");
            let mut seen = Vec::new();
            for _ in 0..10 {
                sim_rt::time::sleep(Duration::from_millis(1)).await;
                seen.push(sim::link("a", "b").partitioned);
            }
            // Partitioned again by the program after the heal: kept.
            sim::partition("a", "b");
            sim_rt::time::sleep(Duration::from_millis(1)).await;
            seen.push(sim::link("a", "b").partitioned);
            seen
        });
        (links, rt.steps(), rt.liveness_met())
    };
    let (never, steps, met) = observe(None);
    assert_eq!(never, vec![true; 11]);
    assert!(steps > 10);
    assert!(met, "no property stated: met");
    let (healed, _, _) = observe(Some(6));
    assert!(healed[0], "not healed before step 6: {healed:?}");
    assert!(!healed[9], "healed from step 6 on: {healed:?}");
    assert!(
        healed[10],
        "healed once: a later partition stays: {healed:?}"
    );
}

/// `sim::buggify` fires now and then under the default scheduler, the same
/// way for the same seed.
#[test]
fn buggify_fires_with_its_probability_and_replays() {
    let fired = |seed: u64| {
        let rt = Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        rt.block_on(async { (0..200).filter(|_| sim::buggify()).count() })
    };
    let counts: Vec<usize> = (0..5).map(fired).collect();
    // 200 points at 5%: about 10 each, never none or most.
    assert!(counts.iter().all(|&c| (1..40).contains(&c)), "{counts:?}");
    assert_eq!(counts, (0..5).map(fired).collect::<Vec<_>>());
}
