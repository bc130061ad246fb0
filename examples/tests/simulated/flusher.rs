use explorer::{Exhaustive, Sampling};

use crate::sim::flusher;

#[test]
fn a_crash_between_the_rename_and_the_flushers_sync_is_found() {
    let report = flusher::explorer().run(|| flusher::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains(flusher::PROPERTY),
        "{}",
        found.failure
    );
    // The fault injector crashed the store.
    assert!(
        found
            .story
            .iter()
            .any(|l| l.contains("reset store (fault injector)")),
        "{:?}",
        found.story
    );
}

/// Every execution with at most one delay: among them, a crash of the
/// store before every step of the undisturbed run.
#[test]
fn without_the_bug_a_crash_at_any_step_keeps_the_acknowledged_values() {
    let report = flusher::explorer()
        .search(Exhaustive::new(1))
        .executions(3_000)
        .run(|| flusher::test(false));
    assert!(!report.failed(), "{report}");
    assert!(
        report.exhausted,
        "every execution with at most one delay ran: {report}"
    );
}

/// Samples with up to four delays: a crash and reorderings.
#[test]
fn without_the_bug_sampled_crashes_keep_the_acknowledged_values() {
    flusher::explorer()
        .search(Sampling::new(4))
        .executions(500)
        .check(|| flusher::test(false));
}
