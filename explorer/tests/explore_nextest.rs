//! Explorations under cargo-nextest, which runs each test in a process of
//! its own: the failing `child` test of `explore_env.rs` run by `cargo
//! nextest run` prints the same report as under `cargo test`, its pasted
//! line replays it under either runner, and `SIM_SHARD` splits a search
//! across nextest runs as a CI matrix would.
//!
//! cargo-nextest is on this project's machines and CI's; where it is
//! missing the test says so and passes, unless `SIM_REQUIRE_NEXTEST=1`.

mod common;

use std::path::Path;
use std::process::Command;

/// `cargo nextest run` of one ignored test of `explore_env` (its
/// `-E` filter), with `vars` set and every other `SIM_*` unset; returns
/// whether it passed and what it printed.
fn nextest(filter: &str, vars: &[(&str, &str)]) -> (bool, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .args([
            "nextest",
            "run",
            "-p",
            "explorer",
            "--test",
            "explore_env",
            "--run-ignored",
            "only",
            "--no-fail-fast",
            "--no-tests",
            "fail",
            "-E",
            filter,
        ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIM_") || k.starts_with("NEXTEST") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(vars.iter().copied());
    let out = cmd.output().expect("cargo runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn have_nextest() -> bool {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let found = Command::new(cargo)
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("SIM_REQUIRE_NEXTEST").is_none(),
            "SIM_REQUIRE_NEXTEST is set but `cargo nextest` is not installed \
             (cargo install cargo-nextest)"
        );
        eprintln!("cargo-nextest is not installed: explorations under nextest not tested");
    }
    found
}

/// The failure's report, its pasted line and the saved failure work the
/// same under nextest's process per test.
#[test]
fn a_failure_found_under_nextest_replays_from_its_line() {
    if !have_nextest() {
        return;
    }
    let (ok, out) = nextest("test(=child)", &[]);
    assert!(!ok, "the child finds the lost update:\n{out}");
    assert!(
        out.contains("child: ss with rr found a failure in execution"),
        "{out}"
    );
    let token = common::replay_token(&out).unwrap_or_else(|| panic!("a reproduce line in:\n{out}"));
    // The pasted token, and the failure nextest's process saved, replay
    // under nextest.
    for replay in [token.as_str(), "last"] {
        let (ok, again) = nextest("test(=child)", &[("SIM_REPLAY", replay)]);
        assert!(!ok, "the replay fails again:\n{again}");
        assert!(
            again.contains("replay with rr found a failure in execution 1")
                && again.contains(&format!("SIM_REPLAY={token}")),
            "SIM_REPLAY={replay}: the same execution:\n{again}"
        );
    }
}

/// `SIM_SHARD=i/n` under nextest, one run per shard as a CI matrix runs
/// them: the failing sample belongs to one shard, which reports it with
/// the same token as the unsharded run; the other shard passes.
#[test]
fn shards_under_nextest_split_the_search() {
    if !have_nextest() {
        return;
    }
    let (_, whole) = nextest("test(=choices_child)", &[]);
    let expected = common::replay_token(&whole).unwrap_or_else(|| panic!("a failure in:\n{whole}"));
    let shards: Vec<(bool, String)> = (0..2)
        .map(|i| nextest("test(=choices_child)", &[("SIM_SHARD", &format!("{i}/2"))]))
        .collect();
    let failed: Vec<&String> = shards
        .iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, out)| out)
        .collect();
    assert!(!failed.is_empty(), "a shard finds it: {shards:?}");
    assert!(
        failed
            .iter()
            .any(|out| common::replay_token(out).as_deref() == Some(&expected)),
        "the unsharded failure's execution, found by its shard: {expected}\n{failed:?}"
    );
}
