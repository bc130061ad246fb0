use crate::sim::drain;
use crate::{every_execution_one_delay_away_passes, planted_bug_found, sampled};

/// The default search finds the lost write, and its token replays it.
#[test]
fn a_shutdown_that_drops_queued_writes_is_found_and_replays() {
    // The undisturbed run passes even with the bug: the exploration finds it.
    sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .disk(drain::disk())
        .build()
        .unwrap()
        .block_on(drain::test(true));
    let found = planted_bug_found(
        drain::explorer(),
        drain::test,
        "durability across a graceful shutdown",
    );
    let again = drain::explorer()
        .replay(found.token.to_string())
        .run(|| drain::test(true));
    let again = again.failure.expect("the replay fails");
    assert_eq!(again.token, found.token);
    assert_eq!(again.failure.to_string(), found.failure.to_string());
}

/// Every execution with at most one delay: the signal lands at every
/// point of the writer's work, and the drained queue keeps every write.
#[test]
fn without_the_bug_a_graceful_shutdown_keeps_every_acknowledged_write() {
    every_execution_one_delay_away_passes(drain::explorer().executions(3_000), drain::test);
}

/// Samples with up to four delays.
#[test]
fn without_the_bug_sampled_schedules_keep_every_acknowledged_write() {
    sampled(drain::explorer()).check(|| drain::test(false));
}
