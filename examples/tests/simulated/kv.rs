//! The key-value store: the planted stale read is found, the store
//! without it is linearizable for any workload and seed, and a failing
//! proptest case prints a line that reproduces it.

use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

use crate::sim::kv::{self, Op, Workload};

#[test]
fn the_planted_bug_serves_a_stale_read_and_is_found() {
    let report = kv::explorer().run(|| kv::test(true));
    let found = report.failure.expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("linearizability"),
        "{}",
        found.failure
    );
}

#[test]
fn without_the_bug_every_explored_execution_is_linearizable() {
    kv::explorer().executions(100).check(|| kv::test(false));
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
    (
        prop::collection::vec(prop::collection::vec(op, 1..=16), 1..=3),
        prop::option::of(0..60u64),
    )
        .prop_map(|(clients, at)| Workload {
            clients,
            isolate_leader_at: at.map(Duration::from_millis),
        })
}

const REPLAY_TARGET: &str =
    "cargo test -p examples --test simulated kv::replay_workload -- --exact --ignored";

/// Runs `workload` once, as a random walk from `seed`. A failure is the
/// simulation's report and the two lines that reproduce it.
fn one_run(bug: bool, workload: &Workload, seed: u64) -> Result<(), TestCaseError> {
    let w = workload.clone();
    let report = kv::walk(seed).run(move || kv::run(bug, w.clone()));
    let Some(found) = report.failure else {
        return Ok(());
    };
    let env = format!("KV_BUG={} KV_WORKLOAD='{workload}'", u8::from(bug));
    Err(TestCaseError::fail(format!(
        "{}\n  reproduce: {env} SIM_REPLAY={} {REPLAY_TARGET}\n         or: {env} SIM_SEED={} \
         {REPLAY_TARGET}",
        found.failure, found.token, found.seed
    )))
}

/// A deterministic runner: the same cases in every run.
fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

/// The property: whatever the clients do, whenever the leader is cut off,
/// and whatever the schedule, the history is linearizable.
#[test]
fn any_workload_and_seed_gives_a_linearizable_history() {
    let result = runner(24).run(&(workload(), any::<u64>()), |(w, seed)| {
        one_run(false, &w, seed)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// With the bug on, the property fails; the lines printed with the
/// minimal case run the same execution again: the token replays it, the
/// seed alone reproduces it.
#[test]
fn a_failing_case_prints_lines_that_reproduce_it() {
    let err = runner(64)
        .run(&(workload(), any::<u64>()), |(w, seed)| {
            one_run(true, &w, seed)
        })
        .expect_err("the planted bug breaks the property");
    let TestError::Fail(reason, (minimal, seed)) = err else {
        panic!("proptest gave up: {err}");
    };
    let message = reason.message().to_string();
    assert!(message.contains("linearizability"), "{message}");
    // What a user copies from the message.
    let printed = |var: &str| -> String {
        message
            .split_whitespace()
            .find_map(|w| w.strip_prefix(var))
            .unwrap_or_else(|| panic!("{var} is printed: {message}"))
            .trim_matches('\'')
            .to_string()
    };
    let workload: Workload = printed("KV_WORKLOAD=").parse().unwrap();
    assert_eq!(workload, minimal);
    let token = printed("SIM_REPLAY=");
    let printed_seed: u64 = printed("SIM_SEED=").parse().unwrap();
    assert_eq!(printed_seed, seed);

    let run = |e: explorer::Explorer| {
        let w = workload.clone();
        e.run(move || kv::run(true, w.clone()))
            .failure
            .expect("the case fails again")
    };
    let original = run(kv::walk(seed));
    let replayed = run(kv::walk(0).replay(token));
    assert_eq!(replayed.trace, original.trace, "the token replays the case");
    let reseeded = run(kv::walk(printed_seed));
    assert_eq!(
        reseeded.trace, original.trace,
        "the seed reproduces the case"
    );
}

/// Reproduces a case of the proptests above from the line its failure
/// printed (`KV_BUG`, `KV_WORKLOAD`, and `SIM_REPLAY` or `SIM_SEED`).
#[test]
#[ignore = "reproduces one proptest case: run it with the line a failure prints"]
fn replay_workload() {
    let workload: Workload = std::env::var("KV_WORKLOAD")
        .expect("KV_WORKLOAD names the workload, as a failure prints it")
        .parse()
        .unwrap();
    let bug = std::env::var("KV_BUG").as_deref() == Ok("1");
    kv::walk(0).check(move || kv::run(bug, workload.clone()));
}

#[test]
fn workloads_print_and_parse_back() {
    let w = Workload {
        clients: vec![vec![Op::Put("x"), Op::Get("y")], vec![Op::Get("x")]],
        isolate_leader_at: Some(Duration::from_millis(120)),
    };
    assert_eq!(w.to_string(), "px,gy/gx@120");
    assert_eq!("px,gy/gx@120".parse::<Workload>(), Ok(w));
    assert!("qx".parse::<Workload>().is_err());
}
