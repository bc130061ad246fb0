use crate::sim::shards;
use crate::{every_execution_one_delay_away_passes, planted_bug_found, random_walks};

#[test]
fn a_checkpoint_between_a_moves_two_halves_loses_the_name_and_is_found() {
    let found = planted_bug_found(shards::explorer(), shards::test, shards::PROPERTY);
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
    every_execution_one_delay_away_passes(shards::explorer(), shards::test);
}

#[test]
fn without_the_bug_random_walks_recover_every_name() {
    random_walks(shards::explorer()).check(|| shards::test(false));
}
