use crate::planted_bug;
use crate::sim::twopc;

planted_bug! {
    twopc;
    the_planted_bug_breaks_atomicity_and_is_found: "atomicity";
    without_the_bug_every_explored_execution_is_atomic: 300;
}

#[test]
fn the_report_tells_the_partition_and_the_race_in_words() {
    let report = twopc::explorer().run(|| twopc::test(true));
    let text = report.to_string();
    let found = report.failure.expect("the planted bug is found");
    // Which hosts were cut, by what, and when.
    let partition = found
        .story
        .iter()
        .find(|l| l.contains(": partition coordinator | p") && l.ends_with("(fault injector)"))
        .unwrap_or_else(|| panic!("the partition is told: {text}"));
    assert!(partition.starts_with("step "), "{partition}");
    // The timer that fired while the coordinator's decision was held.
    assert!(
        found.story.iter().any(|l| l.contains("the timer of task")
            && l.contains("fired before coordinator -> p")
            && l.contains(" \"COMMIT")),
        "the race is told: {text}"
    );
    assert!(text.contains("what happened that the defaults would not do:"));
}
