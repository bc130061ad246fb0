use crate::sim::lease;

#[test]
fn two_holders_at_once_under_a_partition_are_found() {
    let report = lease::explorer().run(|| lease::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains(lease::PROPERTY),
        "{}",
        found.failure
    );
    // The fault injector cut a client off from the server.
    assert!(
        found
            .story
            .iter()
            .any(|l| l.contains("partition") && l.contains("leases")),
        "{:?}",
        found.story
    );
}

#[test]
fn without_the_bug_a_holder_stops_before_the_server_moves_on() {
    lease::explorer()
        .executions(1_000)
        .check(|| lease::test(false));
}
