use crate::sim::flusher;
use crate::{every_execution_one_delay_away_passes, planted_bug_found, sampled, story_tells};

#[test]
fn a_crash_between_the_rename_and_the_flushers_sync_is_found() {
    let found = planted_bug_found(flusher::explorer(), flusher::test, flusher::PROPERTY);
    // The fault injector crashed the store.
    story_tells(&found, |l| l.contains("reset store (fault injector)"));
}

/// Every execution with at most one delay: among them, a crash of the
/// store before every step of the undisturbed run.
#[test]
fn without_the_bug_a_crash_at_any_step_keeps_the_acknowledged_values() {
    every_execution_one_delay_away_passes(flusher::explorer().executions(3_000), flusher::test);
}

/// Samples with up to four delays: a crash and reorderings.
#[test]
fn without_the_bug_sampled_crashes_keep_the_acknowledged_values() {
    sampled(flusher::explorer()).check(|| flusher::test(false));
}
