//! The `SIM_*` variables, as a user sets them: this test binary runs its
//! own ignored `child` test in a subprocess with the environment under test
//! and reads what it printed.

mod common;

use common::{child_command, lost_update, run_child, run_child_env};

use explorer::{Explorer, Random, RoundRobin, Sampling, Walk};
use std::io::BufRead;
use std::process::Stdio;
use std::time::{Duration, Instant};

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

/// Run by `a_killed_exploration_already_printed_the_running_execution`:
/// one walk execution in eight loops forever (as a poll that never yields
/// would), or, with `SPIN_CHECK` set, fails saying it would.
#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn spinning_child() {
    Explorer::new()
        .explorer(Random::default())
        .search(Walk)
        .executions(200)
        .jobs(1)
        .check(|| async {
            if sim_rt::choose(8) == 3 {
                assert!(
                    std::env::var_os("SPIN_CHECK").is_none(),
                    "this execution spins"
                );
                loop {
                    std::hint::spin_loop();
                }
            }
        });
}

/// Two data choices that must both take their other option: two delays,
/// so a sample with bound 1 never fails, and one with bound 2 does when
/// it places its first delay at the first choice.
fn two_choices() -> Explorer {
    Explorer::new()
        .explorer(RoundRobin::default())
        .search(Sampling::new(2))
        .executions(200)
        .shrink(0)
        .progress(false)
}

async fn both_other() {
    let a = sim_rt::choose(2);
    let b = sim_rt::choose(2);
    assert!(a + b < 2, "both choices took their other option");
}

/// Run by `seed_in_code_and_in_sim_seed_mean_the_same`, with `CHILD_SEED`
/// set in code unless `SIM_SEED` sets it.
#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn choices_child() {
    let explorer = match std::env::var("CHILD_SEED") {
        Ok(seed) => two_choices().seed(seed.parse().unwrap()),
        Err(_) => two_choices(),
    };
    explorer.check(both_other);
}

/// Runs `child` with `vars` set (and every other `SIM_*` unset); returns
/// whether it passed and everything it printed.
fn child_with(vars: &[(&str, &str)]) -> (bool, String) {
    run_child("child", vars)
}

/// Runs `child` with `vars`, which must fail (`why`); returns its output.
fn child_failing(vars: &[(&str, &str)], why: &str) -> String {
    let (ok, out) = child_with(vars);
    assert!(!ok, "{why}:\n{out}");
    out
}

/// Runs `child` with `vars` and checks that it replayed the failure of
/// `token`: failing again, in its first execution, with the same token.
fn replays_as(vars: &[(&str, &str)], token: &str) {
    let (ok, again) = child_with(vars);
    assert!(!ok, "the replay fails again:\n{again}");
    assert!(
        again.contains("replay with rr found a failure in execution 1"),
        "{again}"
    );
    assert!(
        again.contains(&format!("SIM_REPLAY={token}")),
        "the same token:\n{again}"
    );
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
        ("SIM_EXPLORER", "pct3", "did you mean \"pct:3\"?"),
        ("SIM_SEARCH", "swram", "did you mean \"swarm\"?"),
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
        // Reported at the test's line, not inside the explorer.
        assert!(
            out.contains("(the exploration at explorer/tests/explore_env.rs"),
            "{var}={value}: at the caller:\n{out}"
        );
        assert!(
            !out.contains("this test's own"),
            "the child has no explorer of its own:\n{out}"
        );
    }
    // Combinations that make no sense.
    for search in ["walk", "swarm"] {
        let out = child_failing(&[("SIM_SEARCH", search)], "rejected");
        assert!(out.contains("rr is deterministic"), "{out}");
    }
    let out = child_failing(&[("SIM_SEARCH", "ses"), ("SIM_SHARD", "0/2")], "rejected");
    assert!(out.contains("SIM_SHARD applies to ss and walk"), "{out}");
}

/// The line the report prints, pasted, reproduces the failure; so does the
/// sample's seed alone.
#[test]
fn the_printed_commands_reproduce_the_failure() {
    let out = child_failing(&[], "the child finds the lost update");
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
    replays_as(&[("SIM_REPLAY", token)], token);

    let seed_line = out
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("or: ")
                .filter(|r| r.starts_with("SIM_SEED="))
        })
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

/// A seed means one thing wherever it is set: the seed of a sample, set
/// in code with `Explorer::seed` or as `SIM_SEED`, runs that sample first,
/// to the full delay bound, and the two find the same failure after the
/// same count.
#[test]
fn seed_in_code_and_in_sim_seed_mean_the_same() {
    // A seed whose sample 0 places its first delay at the first choice:
    // found in its third execution (0, 1, then 2 delays). Sample 0 with
    // bound 1 could not find it; half the seeds do with bound 2.
    let seed = (0..16u64)
        .find(|&s| {
            let report = two_choices().seed(s).run(both_other);
            report.failure.as_ref().map(|f| f.execution) == Some(3)
        })
        .expect("some seed's first sample places both delays");
    let found = |out: &str| -> String {
        out.lines()
            .find(|l| l.contains("found a failure in execution"))
            .unwrap_or_else(|| panic!("a failure in:\n{out}"))
            .to_string()
    };
    let token = |out: &str| -> String {
        common::replay_token(out).unwrap_or_else(|| panic!("a token in:\n{out}"))
    };
    let seed = seed.to_string();
    let (ok_env, by_env) = run_child("choices_child", &[("SIM_SEED", &seed)]);
    let (ok_code, in_code) = run_child_env("choices_child", &[], &[("CHILD_SEED", &seed)]);
    assert!(!ok_env && !ok_code, "{by_env}\n{in_code}");
    assert!(
        found(&in_code).contains("found a failure in execution 3 (2 delays"),
        "{in_code}"
    );
    assert_eq!(found(&by_env), found(&in_code));
    assert_eq!(token(&by_env), token(&in_code));
}

/// A setting that does not apply to the search (a delay bound for a walk)
/// is noted and ignored: one environment often serves several tests.
#[test]
fn settings_that_do_not_apply_are_noted_not_errors() {
    let (ok, out) = child_with(&[
        ("SIM_EXPLORER", "random"),
        ("SIM_SEARCH", "walk"),
        ("SIM_MAX_DELAYS", "3"),
    ]);
    assert!(!ok, "the walk finds the lost update:\n{out}");
    assert!(out.contains("SIM_MAX_DELAYS=3 is ignored"), "{out}");
    assert!(out.contains("walk with random found a failure"), "{out}");
}

/// The overrides take effect: a bigger budget, another explorer and search.
#[test]
fn overrides_change_the_search() {
    let out = child_failing(
        &[("SIM_EXPLORER", "random"), ("SIM_SEARCH", "walk")],
        "the walk finds the lost update",
    );
    assert!(out.contains("walk with random found a failure"), "{out}");
    assert!(
        out.contains("SIM_EXPLORER=random SIM_SEARCH=walk cargo test"),
        "{out}"
    );
    // The adaptive portfolio replaces the test's own explorer and search;
    // its failure names the member that found it.
    let out = child_failing(&[("SIM_SEARCH", "adaptive")], "the portfolio finds it");
    assert!(out.contains("child: the adaptive portfolio's "), "{out}");
}

/// A failure is saved under the target directory; `SIM_REPLAY=last`, in
/// another process, replays it.
#[test]
fn sim_replay_last_replays_the_failure_a_previous_process_saved() {
    let out = child_failing(&[], "the child finds the lost update");
    let token = common::replay_token(&out).unwrap_or_else(|| panic!("a reproduce line in:\n{out}"));
    assert!(
        out.contains("or: SIM_REPLAY=last cargo test -p explorer --test explore_env child"),
        "{out}"
    );
    replays_as(&[("SIM_REPLAY", "last")], &token);
}

/// An exploration killed while an execution runs forever (a harness's
/// deadline) has already printed the line that reproduces that execution.
#[test]
fn a_killed_exploration_already_printed_the_running_execution() {
    let mut child = child_command("spinning_child", &[])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = String::new();
    let line = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => {
                seen.push_str(&l);
                seen.push('\n');
                if let Some((_, cmd)) = l.split_once("this reproduces it: ") {
                    break cmd.to_string();
                }
            }
            Err(_) => break String::new(),
        }
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !line.is_empty(),
        "no reproduce line before the deadline:\n{seen}"
    );
    // The printed line names the execution: run with it, that execution
    // comes first (and, with SPIN_CHECK, fails instead of spinning).
    let mut vars: Vec<(&str, &str)> = line
        .split_whitespace()
        .take_while(|w| w.starts_with("SIM_"))
        .map(|w| w.split_once('=').unwrap())
        .collect();
    assert!(
        line.contains("cargo test -p explorer --test explore_env spinning_child"),
        "{line}"
    );
    vars.push(("SPIN_CHECK", "1"));
    let (ok, again) = run_child("spinning_child", &vars);
    assert!(!ok);
    assert!(again.contains("this execution spins"), "{again}");
    assert!(again.contains("found a failure in execution 1 "), "{again}");
}

/// Run by `the_watchdog_ends_a_stuck_default_search_with_its_line`: the
/// default search (no explorer or search named) of a program that, in one
/// execution in eight, spins in a poll of its main future.
#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn spinning_default_child() {
    Explorer::new().executions(300).jobs(1).check(|| async {
        sim_rt::task::yield_now().await;
        if sim_rt::choose(8) == 3 {
            assert!(
                std::env::var_os("SPIN_CHECK").is_none(),
                "this execution spins"
            );
            loop {
                std::hint::spin_loop();
            }
        }
    });
}

/// The default search, stuck in a poll that never returns, ends the
/// process with sim-rt's watchdog report: the task, and the line that
/// reproduces the stuck execution (checked by running it).
#[test]
fn the_watchdog_ends_a_stuck_default_search_with_its_line() {
    let out = child_command("spinning_default_child", &[("SIM_POLL_TIMEOUT", "1")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{err}");
    assert!(
        err.contains("sim_rt: the simulation of spinning_default_child has been inside one poll"),
        "{err}"
    );
    assert!(
        err.contains("(the future passed to block_on) on host \"main\""),
        "{err}"
    );
    let line = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("reproduce: "))
        .unwrap_or_else(|| panic!("no reproduce line: {err}"));
    assert!(
        line.contains("cargo test -p explorer --test explore_env spinning_default_child"),
        "{line}"
    );
    let mut vars: Vec<(&str, &str)> = line
        .split_whitespace()
        .take_while(|w| w.starts_with("SIM_"))
        .map(|w| w.split_once('=').unwrap())
        .collect();
    assert!(!vars.is_empty(), "{line}");
    vars.push(("SPIN_CHECK", "1"));
    let (ok, again) = run_child("spinning_default_child", &vars);
    assert!(!ok);
    assert!(again.contains("this execution spins"), "{again}");
}

/// A setting error is one message, with no backtrace even when
/// `RUST_BACKTRACE=1` asks for them (the harness's frames would bury it).
#[test]
fn a_setting_error_is_one_message_without_a_backtrace() {
    let (ok, out) = run_child_env("child", &[("SIM_SEED", "x")], &[("RUST_BACKTRACE", "1")]);
    assert!(!ok);
    assert_eq!(
        out.matches("SIM_SEED=\"x\" is not a valid seed").count(),
        1,
        "{out}"
    );
    assert!(!out.contains("stack backtrace"), "{out}");
    assert!(!out.contains("panicked at"), "{out}");
}

/// A token of `test`'s made by `search` with rr, of an execution nothing
/// ran.
fn token_of(test: &str, search: &str) -> String {
    explorer::ReplayToken {
        test: test.to_string(),
        explorer: "rr".to_string(),
        search: search.to_string(),
        seed: 1,
        schedule: Vec::new(),
        steps: 3,
        hash: 4,
        walk: None,
    }
    .encode()
}

/// A token of another test is an error naming both tests, not a note
/// followed by this test's whole search.
#[test]
fn a_token_of_another_test_is_an_error_naming_both() {
    let token = token_of("some_other_test", "ss");
    let out = child_failing(&[("SIM_REPLAY", &token)], "the token is rejected");
    assert!(
        out.contains(
            "SIM_REPLAY holds a token of test \"some_other_test\", and this is test \"child\""
        ),
        "{out}"
    );
    assert!(!out.contains("found a failure"), "no search ran:\n{out}");
}

/// A token whose search no build of the explorer writes is an error that
/// lists the searches a token can name, not a replay under a guessed one.
#[test]
fn a_token_of_an_unknown_search_is_an_error_listing_the_known_ones() {
    let token = token_of("child", "bfs");
    let out = child_failing(&[("SIM_REPLAY", &token)], "the token is rejected");
    assert!(
        out.contains(
            "the replay token names an unknown search \"bfs\" (a token names ses, ss, walk, \
             swarm or shrunk)"
        ),
        "{out}"
    );
    assert!(!out.contains("found a failure"), "nothing ran:\n{out}");
}
