//! The two ways of swapping tokio, each in a crate of its own: the one-line
//! swap under `--cfg sim` (`examples/oneline`) and the whole-graph package
//! chosen by a cargo config file (`examples/shop`: axum, reqwest and tonic
//! on sim-tokio). The shop's own tests run in both of its builds, and in
//! both modes the reproduce line a failing simulated test prints works when
//! pasted into a shell, from the directory the test ran in.
//!
//! Each case runs cargo on a crate of its own (its own workspace), in the mode's
//! own way, on a test that fails on purpose (the crate's `planted-failure`
//! feature); takes the `reproduce:` line from its output; runs that line
//! with `sh -c` in the same directory, with nothing of the first command's
//! environment that selected the build; and checks that the pasted line
//! replayed the same failure at the same step.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs `command` with none of the variables that select a build or a run
/// (`RUSTFLAGS`, `SIM_REPLAY`, `SIM_SEED`) but those of `env`; returns
/// whether it succeeded, and its stdout and stderr.
fn run_clean<V: AsRef<OsStr>>(command: &mut Command, env: &[(&str, V)]) -> (bool, String) {
    command
        .env_remove("RUSTFLAGS")
        .env_remove("SIM_REPLAY")
        .env_remove("SIM_SEED");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("cargo runs");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Runs `command` in `dir` with only `env` of the variables that select a
/// build or a run; returns its stdout and stderr, asserting that it failed
/// (the planted failure).
fn run_failing(
    mut command: Command,
    dir: &Path,
    target: Option<&Path>,
    env: &[(&str, &str)],
) -> String {
    match target {
        Some(target) => command.env("CARGO_TARGET_DIR", target),
        // The crate's cargo config chooses it.
        None => command.env_remove("CARGO_TARGET_DIR"),
    };
    let (ok, text) = run_clean(command.current_dir(dir), env);
    assert!(!ok, "the planted failure did not fail:\n{text}");
    text
}

/// The command after `reproduce: ` in a report.
fn reproduce_line(output: &str) -> String {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("reproduce: "))
        .unwrap_or_else(|| panic!("no reproduce line in:\n{output}"))
        .to_string()
}

/// The report's "at simulated time ... (step N)" line.
fn failing_step(output: &str) -> String {
    output
        .lines()
        .find(|l| l.contains("(step "))
        .unwrap_or_else(|| panic!("no failing step in:\n{output}"))
        .trim()
        .to_string()
}

/// Pastes `line`, the reproduce line of the failing run `first`, into a
/// shell with `env`: it must fail with `failure` at the same step, by
/// replaying the token.
fn assert_the_pasted_line_replays(
    line: &str,
    first: &str,
    failure: &str,
    (dir, target): (&Path, Option<&Path>),
    env: &[(&str, &str)],
) {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(line);
    let pasted = run_failing(sh, dir, target, env);
    assert!(pasted.contains(failure), "{pasted}");
    assert_eq!(failing_step(&pasted), failing_step(first));
    assert!(
        pasted.contains(": replay with"),
        "the pasted line replayed the token:\n{pasted}"
    );
}

#[test]
fn the_line_of_a_one_line_swap_crate_carries_its_cfg() {
    let dir = workspace().join("examples/oneline");
    let target = workspace().join("target/fixtures/oneline");
    let mut cargo = Command::new(env!("CARGO"));
    cargo.args(["test", "--features", "planted-failure", "--test", "bank"]);
    let first = run_failing(cargo, &dir, Some(&target), &[("RUSTFLAGS", "--cfg sim")]);
    let line = reproduce_line(&first);
    assert!(line.contains("RUSTFLAGS='--cfg sim' cargo test"), "{line}");
    let failure = "money is not conserved";
    assert_the_pasted_line_replays(&line, &first, failure, (&dir, Some(&target)), &[]);
}

/// A simulated test binary run directly (not by cargo, so its environment
/// says nothing of `--cfg sim`) prints a line that selects the simulated
/// build from what was known when it was compiled, and replays.
#[test]
fn the_line_of_a_test_binary_run_directly_selects_the_simulated_build() {
    let dir = workspace().join("examples/oneline");
    let target = workspace().join("target/fixtures/oneline");
    let text = cargo_ok_with(
        &dir,
        &["test", "--no-run", "--test", "bank"],
        &[
            ("CARGO_TARGET_DIR", &target),
            ("RUSTFLAGS", Path::new("--cfg sim")),
        ],
    );
    let exe = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Executable tests/bank.rs ("))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no test executable in:\n{text}"));
    let mut direct = Command::new(exe);
    direct.args(["planted_failure_when_asked", "--exact"]);
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO") {
            direct.env_remove(k);
        }
    }
    let first = run_failing(direct, &dir, None, &[("ONELINE_PLANTED", "1")]);
    let line = reproduce_line(&first);
    assert!(
        line.contains("RUSTFLAGS='--cfg sim' cargo test planted_failure_when_asked"),
        "{line}"
    );
    let failure = "money is not conserved";
    let env = [("ONELINE_PLANTED", "1")];
    assert_the_pasted_line_replays(&line, &first, failure, (&dir, Some(&target)), &env);
}

/// tokio-util's `Framed` over a one-line-swapped `TcpStream` compiles and
/// runs with no feature named by the crate (`examples/oneline/tests/codec.rs`).
#[test]
fn a_one_line_swap_crate_frames_a_sim_stream_with_tokio_util() {
    let text = cargo_ok_with(
        &workspace().join("examples/oneline"),
        &["test", "--test", "codec"],
        &[
            (
                "CARGO_TARGET_DIR",
                &workspace().join("target/fixtures/oneline"),
            ),
            ("RUSTFLAGS", Path::new("--cfg sim")),
        ],
    );
    assert!(text.contains("framed_lines_over_tcp ... ok"), "{text}");
}

/// Runs `cargo <args>` in `dir`, asserting success; returns the output.
fn cargo_ok(dir: &Path, args: &[&str]) -> String {
    cargo_ok_with(dir, args, &[])
}

/// [`cargo_ok`] with `env` set (a target directory, `RUSTFLAGS`).
fn cargo_ok_with(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> String {
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .args(args)
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR");
    let (ok, text) = run_clean(&mut cargo, env);
    assert!(ok, "cargo {args:?} failed:\n{text}");
    text
}

/// The whole-graph mode, in one test because every step shares the shop's
/// lockfile: its tests on real tokio (`cargo test`), then in the simulation
/// (`cargo test --config .cargo/sim.toml`, in the target directory that
/// file names), then a failing simulated test's reproduce line, pasted.
#[test]
fn the_shop_runs_in_both_builds_and_its_line_carries_its_config_file() {
    let dir = workspace().join("examples/shop");
    // The config-file build rewrites the lockfile (the reason `cargo sim`
    // keeps one of its own): the committed one comes back at the end,
    // however the test ends.
    struct Restore(PathBuf, Vec<u8>);
    impl Drop for Restore {
        fn drop(&mut self) {
            std::fs::write(&self.0, &self.1).expect("the shop's Cargo.lock is put back");
        }
    }
    let lock = dir.join("Cargo.lock");
    let _restore = Restore(
        lock.clone(),
        std::fs::read(&lock).expect("the shop keeps a Cargo.lock"),
    );
    let real = cargo_ok(&dir, &["test"]);
    assert!(
        real.contains("an_order_is_reserved_once_over_localhost ... ok"),
        "{real}"
    );

    // Cargo keeps a lockfile's crates.io tokio rather than take the patch:
    // lock tokio to sim-tokio first, as the guide says to
    // (docs/src/whole-graph.md, "The lockfile").
    cargo_ok(
        &dir,
        &["update", "--config", ".cargo/sim.toml", "-p", "tokio"],
    );
    let simulated = cargo_ok(&dir, &["test", "--config", ".cargo/sim.toml"]);
    assert!(
        !simulated.contains("was not used in the crate graph"),
        "{simulated}"
    );
    for test in [
        "a_task_spawned_inside_axum_is_a_scheduled_task",
        "tower_timeout_runs_on_simulated_time",
        "hyper_with_tokio_timer_and_executor",
        "reqwest_resolves_a_simulated_host_name",
        "the_planted_bug_reserves_an_order_twice_and_is_found_and_replayed",
        "without_the_bug_no_order_is_reserved_twice",
    ] {
        assert!(
            simulated.contains(&format!("{test} ... ok")),
            "{test}:\n{simulated}"
        );
    }

    let mut cargo = Command::new(env!("CARGO"));
    cargo.args([
        "test",
        "--config",
        ".cargo/sim.toml",
        "--features",
        "planted-failure",
        "--test",
        "sim",
        "planted_failure",
    ]);
    let first = run_failing(cargo, &dir, None, &[]);
    let line = reproduce_line(&first);
    assert!(
        line.contains("cargo test --config .cargo/sim.toml --features planted-failure"),
        "{line}"
    );
    assert_the_pasted_line_replays(&line, &first, "reserved twice", (&dir, None), &[]);
}
