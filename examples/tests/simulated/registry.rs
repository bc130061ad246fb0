use crate::planted_bug_found;
use crate::sim::registry;

#[test]
fn the_planted_bug_is_found_without_a_fault() {
    let found = planted_bug_found(registry::explorer(), registry::test, "convergence");
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
