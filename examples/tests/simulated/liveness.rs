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
