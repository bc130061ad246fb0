//! No false positives: systems that reach their goal (late, or once a
//! temporary partition heals) are not reported, across many seeds.

use std::time::Duration;

use explorer::{Explorer, Random, Walk};

use crate::sim::{election, lock};

const SEEDS: u64 = 5;

/// Random executions (the baseline walk search), `executions` per seed;
/// returns (failures, slow executions) over every seed.
fn across_seeds<F, Fut>(
    executions: u64,
    runtime: fn(&mut sim_rt::runtime::Builder),
    test: F,
) -> (u64, u64)
where
    F: Fn() -> Fut + Sync + Copy,
    Fut: std::future::Future<Output = ()>,
{
    let (mut failures, mut slow) = (0, 0);
    for seed in 0..SEEDS {
        let report = Explorer::new()
            .progress(false)
            .runtime(runtime)
            .explorer(Random::default())
            .search(Walk)
            .seed(seed)
            .executions(executions)
            .run(test);
        if let Some(found) = &report.failure {
            eprintln!("seed {seed}: {found:?}");
            failures += 1;
        }
        slow += report.slow;
    }
    (failures, slow)
}

#[test]
fn a_correct_election_under_a_temporary_partition_is_not_reported() {
    // n1 | n2 from 100 ms to 700 ms, then healed; both versions settle on
    // a leader once the network heals, the planted bug included.
    async fn temporary_partition(bug: bool) {
        sim_rt::spawn(async {
            sim_rt::time::sleep(Duration::from_millis(100)).await;
            sim_rt::sim::partition("n1", "n2");
            sim_rt::time::sleep(Duration::from_millis(600)).await;
            sim_rt::sim::heal("n1", "n2");
        });
        election::test(bug).await
    }
    let no_faults = |_: &mut sim_rt::runtime::Builder| {};
    let fixed = across_seeds(40, no_faults, || temporary_partition(false));
    let planted = across_seeds(40, no_faults, || temporary_partition(true));
    // 5 seeds x 40 executions each: 200 executions, none reported.
    assert_eq!(fixed, (0, 0));
    assert_eq!(planted.0, 0);
}

#[test]
fn a_lock_service_slow_to_converge_is_not_reported() {
    // The test ends after 150 ms, before the clients can both finish
    // (about 250 ms; longer when the fault injector crashes the holder
    // and its lease must run out): every execution ends with the property
    // unmet, and a walk from its end meets it.
    let (failures, slow) = across_seeds(40, lock::runtime, || {
        lock::test_for(false, Duration::from_millis(150))
    });
    assert_eq!(failures, 0);
    assert_eq!(slow, SEEDS * 40, "every execution was slow, none dead");
}

/// The critical transition of every liveness bug of the examples, over
/// several seeds, is a step with a real choice (two options or more): a
/// forced step leads to the same state whatever comes after, so it cannot
/// be where the system became unable to recover.
#[test]
fn critical_transitions_are_never_on_forced_steps() {
    use sim_rt::runtime::Step;
    for name in ["election", "lock"] {
        let case = crate::sim::case(name).expect("a case of the examples");
        let (explorer, test) = (case.explorer, case.test);
        for seed in 0..3 {
            let report = explorer()
                .seed(seed)
                .progress(false)
                .run(move || test(true));
            let found = report.failure.as_ref().expect("the planted bug is found");
            let critical = found
                .liveness
                .as_ref()
                .and_then(|l| l.critical.as_ref())
                .expect("searched by default");
            let step = critical.point.expect("the start is live");
            let at = found
                .trace
                .positions()
                .iter()
                .position(|&p| p == step)
                .unwrap_or_else(|| panic!("{name}, seed {seed}: step {step} was forced: {report}"));
            let options = match found.trace.steps()[at] {
                Step::Pick { of, .. } | Step::Choose { of, .. } => of,
            };
            assert!(options > 1, "{name}, seed {seed}: {report}");
        }
    }
}
