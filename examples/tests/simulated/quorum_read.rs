use crate::sim::quorum_read;

#[test]
fn a_read_that_does_not_write_back_is_found_going_back_in_time() {
    let report = quorum_read::explorer().run(|| quorum_read::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains(quorum_read::PROPERTY),
        "{}",
        found.failure
    );
}

#[test]
fn with_write_back_every_explored_history_is_linearizable() {
    quorum_read::explorer()
        .executions(1_000)
        .check(|| quorum_read::test(false));
}
