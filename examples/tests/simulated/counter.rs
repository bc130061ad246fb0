use crate::sim::counter;

#[test]
fn a_duplicated_request_counts_twice_and_is_found() {
    let report = counter::explorer().run(|| counter::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("the total"),
        "{}",
        found.failure
    );
    // The story names the duplicate.
    assert!(
        found
            .story
            .iter()
            .any(|l| l.contains("duplicate ") && l.contains("\"ADD ")),
        "{:?}",
        found.story
    );
}

#[test]
fn without_the_bug_duplicates_change_nothing() {
    counter::explorer()
        .executions(300)
        .check(|| counter::test(false));
}
