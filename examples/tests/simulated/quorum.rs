use explorer::{Exhaustive, Explorer, Rtc};
use proptest::prelude::*;

use crate::sim::quorum::{self, Fault};

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
        .filter(|l| l.contains(": reset ") && l.ends_with("(fault injector)"))
        .count();
    assert_eq!(resets, 2, "{:?}", found.story);
}

#[test]
fn with_durable_replicas_restarts_lose_nothing() {
    quorum::explorer()
        .executions(300)
        .check(|| quorum::test(false));
}

/// A fault plan: up to four faults in the first 1.2 s (the read comes a
/// second after the write), each a reset of a replica or a partition of
/// two.
fn plan() -> impl Strategy<Value = Vec<(u64, Fault)>> {
    let fault = prop_oneof![
        (0..3usize).prop_map(Fault::Reset),
        (0..3usize, 1..3usize).prop_map(|(a, d)| Fault::Partition(a, (a + d) % 3)),
    ];
    prop::collection::vec((0..1_200u64, fault), 0..=4)
}

/// Each case one execution: the explorer's default, so the plan alone
/// decides what fails.
fn property(cases: u32) -> Explorer {
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    Explorer::new()
        .name("quorum-plan")
        .explorer(Rtc::default())
        .search(Exhaustive::new(0))
        .executions(1)
        .prop_config(config)
}

/// The fault plan is part of the input: proptest finds a plan that loses
/// the value and shrinks it to its core, two resets of different replicas
/// after the write; the fixed replicas survive every plan.
#[test]
fn a_generated_fault_plan_finds_the_volatile_replicas_and_shrinks_to_two_resets() {
    let report = property(64).run_prop(plan(), |p| quorum::with_plan(true, p));
    let failure = report
        .failure
        .as_ref()
        .unwrap_or_else(|| panic!("{report}"));
    let resets: Vec<usize> = failure
        .input
        .iter()
        .filter_map(|(_, f)| match f {
            Fault::Reset(r) => Some(*r),
            Fault::Partition(..) => None,
        })
        .collect();
    assert_eq!(failure.input.len(), 2, "{report}");
    assert!(resets.len() == 2 && resets[0] != resets[1], "{report}");
    assert!(report
        .to_string()
        .contains("a read after a completed write"));
    property(32).check_prop(plan(), |p| quorum::with_plan(false, p));
}
