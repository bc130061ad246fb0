use crate::sim::twopc;

#[test]
fn the_planted_bug_breaks_atomicity_and_is_found() {
    let report = twopc::explorer().run(|| twopc::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("atomicity"),
        "{}",
        found.failure
    );
}

#[test]
fn without_the_bug_every_explored_execution_is_atomic() {
    twopc::explorer()
        .executions(300)
        .check(|| twopc::test(false));
}
