//! The README's main command: `cargo run --release -p examples -- 2pc`
//! finds the bug, prints a reproduction line, and that line, pasted,
//! reproduces the failure.

use std::process::Command;

fn explore(args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_explore"));
    cmd.args(args).env("RUST_BACKTRACE", "0");
    for var in [
        "SIM_REPLAY",
        "SIM_SEED",
        "SIM_EXPLORER",
        "SIM_SEARCH",
        "SIM_EXECUTIONS",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("the explore binary runs");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// The value of `VAR=value` at the start of a line's command.
fn var<'a>(line: &'a str, var: &str) -> &'a str {
    let start = line.find(&format!("{var}=")).expect("the variable is set") + var.len() + 1;
    line[start..].split_whitespace().next().unwrap()
}

#[test]
fn the_demo_finds_the_2pc_bug_and_its_reproduction_line_replays_it() {
    let (ok, out) = explore(&["2pc"], &[]);
    assert!(ok, "the demo finds, replays and exits 0:\n{out}");
    let failure = out
        .lines()
        .find(|l| l.contains("simulation failed"))
        .expect("a failure is printed")
        .trim()
        .to_string();
    assert!(failure.contains("atomicity"), "{failure}");
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("reproduce: "))
        .expect("a reproduction line is printed");
    assert!(
        line.contains(" cargo run") && line.ends_with(" -p examples --bin explore -- 2pc"),
        "the line names this binary and its argument: {line}"
    );
    assert!(out.contains("replayed: the same"), "{out}");

    // Pasted: the token replays the same failure, and so does the seed.
    let (ok, again) = explore(&["2pc"], &[("SIM_REPLAY", var(line, "SIM_REPLAY"))]);
    assert!(!ok, "a reproduction fails:\n{again}");
    assert!(again.contains(&failure), "the same failure:\n{again}");
    let seed_line = out
        .lines()
        .find(|l| l.trim_start().starts_with("or: SIM_SEED="))
        .expect("a seed line is printed");
    // The seed restarts the search at the failing sample: found at once.
    let (_, again) = explore(&["2pc"], &[("SIM_SEED", var(seed_line, "SIM_SEED"))]);
    assert!(
        again.contains(&failure),
        "the seed finds the same failure:\n{again}"
    );
}

#[test]
fn a_wrong_name_lists_the_examples() {
    let (ok, out) = explore(&["3pc"], &[]);
    assert!(!ok);
    assert!(
        out.contains("no example named \"3pc\"") && out.contains("2pc"),
        "{out}"
    );
    let (ok, out) = explore(&[], &[]);
    assert!(!ok);
    assert!(
        out.contains("usage: cargo run --release -p examples -- <2pc"),
        "{out}"
    );
}
