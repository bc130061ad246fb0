//! The `SIM_*` variables, as a user sets them: this test binary runs its
//! own ignored `child` test in a subprocess with the environment under test
//! and reads what it printed.

mod common;

use common::lost_update;

use explorer::{Explorer, RoundRobin, Sampling};
use std::process::Command;

/// Run by the tests below in a subprocess, with their environment.
#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn child() {
    Explorer::new()
        .explorer(RoundRobin::default())
        .search(Sampling::new(2))
        .executions(500)
        .check(lost_update);
}

/// Runs `child` with `vars` set (and every other `SIM_*` unset); returns
/// whether it passed and everything it printed.
fn child_with(vars: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--ignored",
        "--exact",
        "child",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIM_") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(vars.iter().copied());
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn bad_values_are_clear_errors() {
    for (var, value, expect) in [
        (
            "SIM_EXPLORER",
            "bogus",
            "SIM_EXPLORER=\"bogus\" is not an explorer: use rtc, rr",
        ),
        ("SIM_EXPLORER", "pct:0", "is not an explorer"),
        (
            "SIM_SEARCH",
            "bfs",
            "SIM_SEARCH=\"bfs\" is not a search: use ses",
        ),
        (
            "SIM_EXECUTIONS",
            "0",
            "SIM_EXECUTIONS=0: the execution budget must be at least 1",
        ),
        (
            "SIM_EXECUTIONS",
            "lots",
            "SIM_EXECUTIONS=\"lots\" is not a number",
        ),
        ("SIM_SEED", "-1", "SIM_SEED=\"-1\" is not a valid seed"),
        (
            "SIM_JOBS",
            "0",
            "SIM_JOBS=0: the number of jobs must be at least 1",
        ),
        ("SIM_SHARD", "3/3", "shard 3 of 3 does not exist"),
        ("SIM_SHARD", "half", "write i/n"),
        (
            "SIM_MAX_DELAYS",
            "many",
            "SIM_MAX_DELAYS=\"many\" is not a number of delays",
        ),
        (
            "SIM_SHRINK",
            "yes",
            "SIM_SHRINK=\"yes\" is not a number: give 0",
        ),
        ("SIM_REPLAY", "sr1!!", "invalid character"),
        ("SIM_REPLAY", "sr9abc", "different version"),
    ] {
        let (ok, out) = child_with(&[(var, value)]);
        assert!(!ok, "{var}={value} is rejected");
        assert!(
            out.contains(expect),
            "{var}={value}: expected {expect:?} in:\n{out}"
        );
    }
    // Combinations that make no sense.
    for search in ["walk", "swarm"] {
        let (ok, out) = child_with(&[("SIM_SEARCH", search)]);
        assert!(!ok);
        assert!(out.contains("rr is deterministic"), "{out}");
    }
    let (ok, out) = child_with(&[("SIM_SEARCH", "ses"), ("SIM_SHARD", "0/2")]);
    assert!(!ok);
    assert!(out.contains("SIM_SHARD applies to ss and walk"), "{out}");
}

/// The line the report prints, pasted, reproduces the failure; so does the
/// sample's seed alone.
#[test]
fn the_printed_commands_reproduce_the_failure() {
    let (ok, out) = child_with(&[]);
    assert!(!ok, "the child finds the lost update");
    assert!(out.contains("lost update"), "{out}");
    let line = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("reproduce: "))
        .unwrap_or_else(|| panic!("a reproduce line in:\n{out}"));
    assert!(
        line.contains("cargo test -p explorer --test explore_env child -- --exact"),
        "{line}"
    );
    let token = line
        .strip_prefix("SIM_REPLAY=")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap();
    let (ok, again) = child_with(&[("SIM_REPLAY", token)]);
    assert!(!ok, "the replay fails again:\n{again}");
    assert!(
        again.contains("replay with rr found a failure in execution 1"),
        "{again}"
    );
    assert!(
        again.contains(&format!("SIM_REPLAY={token}")),
        "the same token:\n{again}"
    );

    let seed_line = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("or: "))
        .unwrap_or_else(|| panic!("a seed line in:\n{out}"));
    let seed = seed_line
        .strip_prefix("SIM_SEED=")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap();
    let (ok, by_seed) = child_with(&[("SIM_SEED", seed)]);
    assert!(!ok, "the seed alone reproduces it:\n{by_seed}");
    assert!(by_seed.contains(&format!("seed {seed})")), "{by_seed}");
    assert!(
        by_seed.contains(&format!("SIM_REPLAY={token}")),
        "the same execution:\n{by_seed}"
    );
}

/// The overrides take effect: a bigger budget, another explorer and search.
#[test]
fn overrides_change_the_search() {
    let (ok, out) = child_with(&[("SIM_EXPLORER", "random"), ("SIM_SEARCH", "walk")]);
    assert!(!ok);
    assert!(out.contains("walk with random found a failure"), "{out}");
    assert!(
        out.contains("SIM_EXPLORER=random SIM_SEARCH=walk cargo test"),
        "{out}"
    );
}
