use crate::sim::quorum;

#[test]
fn two_restarts_lose_a_written_value_and_are_found() {
    let report = quorum::explorer().run(|| quorum::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(found
        .failure
        .to_string()
        .contains("a read after a completed write"));
    // Two replicas reset by the fault injector.
    let resets = found
        .story
        .iter()
        .filter(|l| l.contains(" reset (fault injector)"))
        .count();
    assert_eq!(resets, 2, "{:?}", found.story);
}

#[test]
fn with_durable_replicas_restarts_lose_nothing() {
    quorum::explorer()
        .executions(300)
        .check(|| quorum::test(false));
}
