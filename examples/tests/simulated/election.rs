use crate::planted_liveness_bug_found;
use crate::sim::election;

#[test]
fn a_disruptive_candidate_is_a_liveness_violation_at_the_partition() {
    let (report, critical) =
        planted_liveness_bug_found(election::explorer(), election::test, election::PROPERTY);
    // The module's critical transition: the fault injector partitions n1
    // from another node.
    assert!(
        [
            "partition n1 | n2 (fault injector)",
            "partition n1 | n3 (fault injector)"
        ]
        .contains(&&*critical.event),
        "{report}"
    );
}

#[test]
fn without_the_bug_a_leader_keeps_the_office_under_any_partition() {
    let report = election::explorer()
        .executions(300)
        .run(|| election::test(false));
    assert!(!report.failed(), "{report}");
}
