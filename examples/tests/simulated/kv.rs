//! The key-value store: the planted stale read is found, the store
//! without it is linearizable for any workload and seed (a property test,
//! each case a random walk), and a failing case prints a line that
//! reproduces it.

use std::time::Duration;

use proptest::prelude::*;

use crate::planted_bug;
use crate::sim::kv::{self, Op, Workload};

planted_bug! {
    kv;
    the_planted_bug_serves_a_stale_read_and_is_found: "linearizability";
    without_the_bug_every_explored_execution_is_linearizable: 100;
}

/// The default search too (the portfolio, whose swarm walks reorder and
/// duplicate more): it once found, in execution 32, a write lost without
/// the planted bug, when a leader was deposed by a reply of a later epoch
/// while its write's round was in flight, did not keep the write the
/// round had counted it as holding, and won the next election without
/// it.
#[test]
fn without_the_bug_the_default_search_finds_nothing() {
    kv::explorer()
        .portfolio()
        .jobs(1)
        .executions(150)
        .check(|| kv::test(false));
}

/// Up to three clients with up to sixteen operations each on two keys, and
/// maybe the leader cut off from the others early on.
fn workload() -> impl Strategy<Value = Workload> {
    let op = prop_oneof![
        Just(Op::Get("x")),
        Just(Op::Get("y")),
        Just(Op::Put("x")),
        Just(Op::Put("y")),
    ];
    let clients = prop::collection::vec(prop::collection::vec(op, 1..=16), 1..=3);
    (clients, prop::option::of(0..60u64)).prop_map(|(clients, at)| Workload {
        clients,
        isolate_leader_at: at.map(Duration::from_millis),
    })
}

/// Each case one random walk; no regression file (the planted bug fails
/// on purpose).
fn property(cases: u32) -> explorer::Explorer {
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    kv::walk(0).prop_config(config)
}

/// Whatever the clients do, whenever the leader is cut off, and whatever
/// the schedule, the history is linearizable.
#[test]
fn any_workload_and_seed_gives_a_linearizable_history() {
    property(24).check_prop(workload(), |w| kv::run(false, w));
}

/// With the bug on, the property fails, and the line its report prints,
/// pasted (here: this test, run again with the line's variables), runs the
/// same input and execution again.
#[test]
fn a_failing_case_prints_a_line_that_reproduces_it() {
    let report = property(256).run_prop(workload(), |w| kv::run(true, w));
    if std::env::var_os("SIM_PROP").is_some() {
        // The pasted line: one case, replayed.
        assert_eq!(report.cases, 1);
        panic!("{report}");
    }
    let failure = report
        .failure
        .as_ref()
        .expect("the planted bug breaks the property");
    let text = report.to_string();
    assert!(text.contains("linearizability") && text.contains(&format!("{:?}", failure.input)));
    let line = &failure.command;
    let vars = line
        .split_whitespace()
        .take_while(|w| w.starts_with("SIM_"));
    let name = line
        .split(" -- ")
        .next()
        .and_then(|l| l.split_whitespace().last());
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name.unwrap(), "--exact", "--nocapture", "--test-threads=1"])
        .envs(vars.map(|v| v.split_once('=').unwrap()))
        .output()
        .unwrap();
    let again = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "the pasted line fails again:\n{again}"
    );
    assert!(
        again.contains(&format!("reproduce: {line}")),
        "the same case and token:\n{again}"
    );
}
