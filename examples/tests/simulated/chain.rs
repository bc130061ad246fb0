//! Chain replication: the planted bug breaks the chain's integrity and the
//! staged explorer finds it; without it, every explored execution keeps
//! chain replication's properties. And the staged explorer is sound.

use crate::sim::chain;

#[test]
fn the_planted_bug_breaks_chain_integrity_and_is_found() {
    let report = chain::explorer().run(|| chain::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("chain integrity"),
        "{}",
        found.failure
    );
}

#[test]
fn without_the_bug_every_explored_execution_keeps_the_chain() {
    chain::explorer()
        .executions(100)
        .check(|| chain::test(false));
}
