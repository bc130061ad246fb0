use crate::sim::raft;

#[test]
fn the_planted_bug_commits_an_entry_a_later_leader_lacks_and_is_found() {
    let report = raft::explorer().run(|| raft::test(true));
    let found = report.failure.expect("the planted bug is found");
    let message = found.failure.to_string();
    assert!(
        message.contains("leader completeness") || message.contains("state machine safety"),
        "{message}"
    );
}

#[test]
fn without_the_bug_every_explored_execution_is_safe() {
    raft::explorer().executions(300).check(|| raft::test(false));
}
