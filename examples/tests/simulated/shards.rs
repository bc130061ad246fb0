use explorer::{Random, Walk};

use crate::sim::shards;

#[test]
fn a_checkpoint_between_a_moves_two_halves_loses_the_name_and_is_found() {
    let report = shards::explorer().run(|| shards::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains(shards::PROPERTY),
        "{}",
        found.failure
    );
    // No fault, no data choice: one task run later than the default order
    // would, on the directory's host.
    assert!(
        found.story.len() == 1 && found.story[0].contains("on dir delayed past task"),
        "{:?}",
        found.story
    );
}

/// Every execution with at most one delay.
#[test]
fn without_the_bug_every_execution_one_delay_away_recovers_every_name() {
    let report = shards::explorer().run(|| shards::test(false));
    assert!(!report.failed(), "{report}");
    assert!(report.exhausted, "{report}");
}

#[test]
fn without_the_bug_random_walks_recover_every_name() {
    shards::explorer()
        .explorer(Random::default())
        .search(Walk)
        .executions(1_000)
        .check(|| shards::test(false));
}
