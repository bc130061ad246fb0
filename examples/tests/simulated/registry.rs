use crate::sim::registry;

#[test]
fn the_planted_bug_is_found_without_a_fault() {
    let report = registry::explorer().run(|| registry::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("convergence"),
        "{}",
        found.failure
    );
    // No fault: the story tells a delay and nothing injected.
    assert!(
        !found.story.iter().any(|l| l.contains("fault injector")),
        "{:?}",
        found.story
    );
}

#[test]
fn without_the_bug_the_replica_converges() {
    registry::explorer()
        .executions(300)
        .check(|| registry::test(false));
}
