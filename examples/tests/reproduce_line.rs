//! The reproduce line a failing simulated test prints works when pasted into
//! a shell, from the directory the test ran in, in both ways of swapping
//! tokio: the one-line swap under `--cfg sim` (`examples/oneline`) and the
//! whole-graph package chosen by a cargo config file (`examples/shop`).
//!
//! Each case runs cargo on a crate of its own (its own workspace and
//! target directory under this workspace's `target/fixtures`), in the mode's
//! own way, on a test that fails on purpose (the crate's `planted-failure`
//! feature); takes the `reproduce:` line from its output; runs that line
//! with `sh -c` in the same directory, with nothing of the first command's
//! environment that selected the build; and checks that the pasted line
//! replayed the same failure at the same step.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs `command` in `dir` with only `env` of the variables that select a
/// build or a run; returns its stdout and stderr, asserting that it failed
/// (the planted failure).
fn run_failing(mut command: Command, dir: &Path, target: &Path, env: &[(&str, &str)]) -> String {
    command
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .env_remove("SIM_REPLAY")
        .env_remove("SIM_SEED");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("cargo runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !out.status.success(),
        "the planted failure did not fail:\n{text}"
    );
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

fn paste(line: &str, dir: &Path, target: &Path) -> String {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(line);
    run_failing(sh, dir, target, &[])
}

#[test]
fn the_line_of_a_one_line_swap_crate_carries_its_cfg() {
    let dir = workspace().join("examples/oneline");
    let target = workspace().join("target/fixtures/oneline");
    let mut cargo = Command::new(env!("CARGO"));
    cargo.args(["test", "--features", "planted-failure", "--test", "bank"]);
    let first = run_failing(cargo, &dir, &target, &[("RUSTFLAGS", "--cfg sim")]);
    let line = reproduce_line(&first);
    assert!(line.contains("RUSTFLAGS='--cfg sim' cargo test"), "{line}");
    let pasted = paste(&line, &dir, &target);
    assert!(pasted.contains("money is not conserved"), "{pasted}");
    assert_eq!(failing_step(&pasted), failing_step(&first));
    assert!(
        pasted.contains(": replay with"),
        "the pasted line replayed the token:\n{pasted}"
    );
}
