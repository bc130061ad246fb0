//! Every execution replays, whatever per-thread state the program keeps.
//!
//! std's `HashMap` draws its keys once per thread and counts up from them;
//! `rand::rng()` is seeded once per thread. Each execution runs as on a
//! fresh thread (a clean worker puts std's keys back before it, and hands
//! executions to fresh threads once one drew other OS randomness), so a
//! failure that needs one map order, or one draw of the thread's
//! generator, replays from its printed line in a fresh process, with any
//! `SIM_JOBS`. A program that is not deterministic anyway (it reads a
//! static shared by executions, or its own thread-local) is reported as
//! such.
//!
//! Each test runs an ignored `*_child` test of this binary in a subprocess
//! (the search), takes the lines it printed, and runs the child again with
//! them, as a user pasting a reproduce line does.

mod common;

use common::run_child;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use explorer::{Exhaustive, Explorer, Random, RoundRobin, Walk};

/// A server greets its peers in the order of its peer map, as real code
/// iterates its peer maps; it fails when `peer0`, greeted last, was also
/// slow to start (a data choice): one execution in about twelve.
async fn greets_in_map_order() {
    let mut peers = HashMap::new();
    let mut turns = Vec::new();
    for i in 0..6 {
        let (tx, rx) = sim_rt::sync::oneshot::channel::<usize>();
        peers.insert(format!("peer{i}"), tx);
        turns.push(sim_rt::spawn(async move { rx.await.unwrap() }));
    }
    for (turn, (_, tx)) in peers.into_iter().enumerate() {
        tx.send(turn).unwrap();
        sim_rt::task::yield_now().await;
    }
    let first = turns.remove(0).await.unwrap();
    for t in turns {
        t.await.unwrap();
    }
    let slow_start = sim_rt::choose(2) == 1;
    assert!(
        !(first == 5 && slow_start),
        "peer0 was greeted last after a slow start"
    );
}

/// Picks a peer with the thread's generator, as a gossip library does; it
/// fails when peer 5 is picked and the pick is late (a data choice).
async fn picks_with_thread_rng() {
    use rand::Rng;
    let worker = sim_rt::spawn(async { sim_rt::task::yield_now().await });
    let peer = rand::rng().random_range(0..6u32);
    worker.await.unwrap();
    let late = sim_rt::choose(2) == 1;
    assert!(!(peer == 5 && late), "picked peer 5, late");
}

/// Counts the executions of this process: a program that keeps state
/// between executions in a static.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// Never fails, but asks the scheduler a number of questions (data
/// choices) that depends on how many executions ran before it, so the same
/// choices do not give the same execution.
async fn reads_a_shared_counter() {
    let run = RUNS.fetch_add(1, Ordering::SeqCst);
    let a = sim_rt::spawn(async { sim_rt::task::yield_now().await });
    let b = sim_rt::spawn(async {});
    // Two runs ask the same number only 64 executions apart, which the
    // other job of SIM_JOBS=2 cannot run between two runs of the check.
    for _ in 0..run % 64 {
        sim_rt::choose(3);
    }
    a.await.unwrap();
    b.await.unwrap();
}

thread_local! {
    /// Executions of this program on this thread.
    static ON_THIS_THREAD: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Counts its executions in a thread-local of its own and fails from the
/// third on one thread: a failure that exists only on a thread that ran
/// executions before (a fresh thread per execution never shows it).
async fn keeps_a_thread_local_counter() {
    let n = ON_THIS_THREAD.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    sim_rt::spawn(async { sim_rt::task::yield_now().await })
        .await
        .unwrap();
    assert!(n < 3, "the third execution on this thread");
}

fn walks() -> Explorer {
    Explorer::new()
        .explorer(Random::default())
        .search(Walk)
        .executions(400)
        .progress(false)
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn hash_map_child() {
    walks().check(greets_in_map_order);
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn thread_rng_child() {
    walks().check(picks_with_thread_rng);
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn counter_child() {
    common::sampling(RoundRobin::default(), 3, 300).check(reads_a_shared_counter);
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn thread_local_child() {
    walks().executions(50).check(keeps_a_thread_local_counter);
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn counter_ses_child() {
    Explorer::new()
        .explorer(RoundRobin::default())
        .search(Exhaustive::new(2))
        .executions(300)
        .progress(false)
        .check(reads_a_shared_counter);
}

#[test]
#[ignore = "run by the other tests of this file, in a subprocess"]
fn counter_portfolio_child() {
    Explorer::new()
        .executions(300)
        .progress(false)
        .check(reads_a_shared_counter);
}

/// The execution a report says it found its failure in.
fn found_in(out: &str) -> u64 {
    let at = out
        .find("found a failure in execution ")
        .unwrap_or_else(|| panic!("no failure found:\n{out}"));
    out[at + "found a failure in execution ".len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// The variables of the report's `or: SIM_SEED=...` line: the seed, and
/// the explorer and search when the line names them (a portfolio's member).
fn seed_line(out: &str) -> Vec<(String, String)> {
    let line = out
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("or: ")
                .filter(|l| l.starts_with("SIM_SEED="))
        })
        .unwrap_or_else(|| panic!("no SIM_SEED line:\n{out}"));
    line.split_whitespace()
        .map_while(|word| word.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Searches with `child` under `SIM_JOBS` 1 and 2 (the same failure, in
/// the same execution), then replays its printed lines in fresh processes
/// with `SIM_JOBS` 1 and 2: each fails again with `message`, in the
/// replay's first execution.
fn replays_from_its_lines(name: &str, message: &str, extra: &[(&str, &str)]) {
    let search = |jobs: &str| {
        let mut vars = vec![("SIM_JOBS", jobs)];
        vars.extend_from_slice(extra);
        let (ok, out) = run_child(name, &vars);
        assert!(!ok, "the search finds the failure:\n{out}");
        assert!(out.contains(message), "{out}");
        assert!(!out.contains("not deterministic"), "{out}");
        out
    };
    let one = search("1");
    let two = search("2");
    assert_eq!(
        found_in(&one),
        found_in(&two),
        "the same execution fails whatever SIM_JOBS is:\n{one}\n{two}"
    );
    assert!(
        found_in(&one) > 1,
        "the failure is not the first execution on its thread:\n{one}"
    );
    let token = common::replay_token(&one).expect("a reproduce line");
    assert_eq!(common::replay_token(&two).as_deref(), Some(token.as_str()));
    let seed = seed_line(&one);
    for jobs in ["1", "2"] {
        let mut vars = vec![("SIM_JOBS", jobs), ("SIM_REPLAY", token.as_str())];
        vars.extend_from_slice(extra);
        let (ok, again) = run_child(name, &vars);
        assert!(!ok, "the replay fails again:\n{again}");
        assert!(
            again.contains("found a failure in execution 1") && again.contains(message),
            "the same failure:\n{again}"
        );
        assert!(!again.contains("is not the recorded one"), "{again}");
        // The line's own variables win over the search's (a portfolio's
        // line names its member's explorer and search).
        let mut vars = vec![("SIM_JOBS", jobs)];
        vars.extend(seed.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        vars.extend(
            extra
                .iter()
                .filter(|(k, _)| seed.iter().all(|(s, _)| s != k)),
        );
        let (ok, again) = run_child(name, &vars);
        assert!(!ok, "the seed's line fails again:\n{again}");
        assert_eq!(found_in(&again), 1, "in its first execution:\n{again}");
        assert!(again.contains(message), "{again}");
    }
}

#[test]
fn a_hash_map_order_failure_replays_from_its_lines() {
    replays_from_its_lines(
        "hash_map_child",
        "peer0 was greeted last after a slow start",
        &[],
    );
}

#[test]
fn a_thread_rng_failure_replays_from_its_lines() {
    replays_from_its_lines("thread_rng_child", "picked peer 5, late", &[]);
}

#[test]
fn the_determinism_check_passes_on_both() {
    // Every execution run twice, each on a fresh thread: no divergence, and
    // the failures are found and replay as without the check.
    let check = [("SIM_CHECK_DETERMINISM", "1")];
    replays_from_its_lines(
        "hash_map_child",
        "peer0 was greeted last after a slow start",
        &check,
    );
    replays_from_its_lines("thread_rng_child", "picked peer 5, late", &check);
}

/// What a report of nondeterminism says, wherever it was found.
fn is_nondeterminism_report(out: &str) {
    assert!(
        !out.contains("only a pick is delayed again"),
        "not an assertion of the explorer:\n{out}"
    );
    assert!(
        out.contains("found that the program is not deterministic in execution "),
        "which execution:\n{out}"
    );
    assert!(
        out.contains("reproduce: SIM_CHECK_DETERMINISM=1 SIM_REPLAY=sr1"),
        "the line that shows it:\n{out}"
    );
    assert!(
        out.contains("Run the test with SIM_CHECK_DETERMINISM=1"),
        "the hint:\n{out}"
    );
}

#[test]
fn a_program_that_keeps_state_between_executions_is_reported_as_not_deterministic() {
    for jobs in ["1", "2"] {
        let (ok, out) = run_child("counter_child", &[("SIM_JOBS", jobs)]);
        assert!(!ok, "{out}");
        is_nondeterminism_report(&out);
        // The determinism check's first divergence: the two runs differ
        // from the choice point the counter adds.
        assert!(
            out.contains("SIM_CHECK_DETERMINISM: two runs with seed "),
            "{out}"
        );
        assert!(out.contains("diverged at step "), "{out}");
    }
    // Exhaustive search and the default portfolio say the same.
    for name in ["counter_ses_child", "counter_portfolio_child"] {
        let (ok, out) = run_child(name, &[]);
        assert!(!ok, "{out}");
        is_nondeterminism_report(&out);
    }
    // Under the check, the first execution is run twice and diverges.
    let (ok, out) = run_child("counter_child", &[("SIM_CHECK_DETERMINISM", "1")]);
    assert!(!ok, "{out}");
    is_nondeterminism_report(&out);
    assert!(
        out.contains("not deterministic in execution 1 "),
        "the first execution:\n{out}"
    );
    assert!(
        out.contains("SIM_CHECK_DETERMINISM=1 ran it twice, and the two runs differ"),
        "{out}"
    );
    // Its line replays the divergence.
    let line = out
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("reproduce: SIM_CHECK_DETERMINISM=1 SIM_REPLAY=")
        })
        .and_then(|rest| rest.split_whitespace().next())
        .expect("a reproduce line")
        .to_string();
    let (ok, again) = run_child(
        "counter_child",
        &[("SIM_CHECK_DETERMINISM", "1"), ("SIM_REPLAY", &line)],
    );
    assert!(!ok, "{again}");
    is_nondeterminism_report(&again);
    assert!(again.contains("diverged at step "), "{again}");
}

/// A program whose thread-local counter carries over between executions
/// on a worker (which runs them itself while they draw no OS randomness
/// but std's keys) is reported as not deterministic: the run that tells
/// the failure is on a fresh thread and passes. Never a line that does not
/// replay.
#[test]
fn a_program_that_keeps_a_thread_local_counter_is_never_replayed_wrongly() {
    for jobs in ["1", "2"] {
        let (ok, out) = run_child("thread_local_child", &[("SIM_JOBS", jobs)]);
        if sim_rt::sim::INTERCEPTION_SUPPORTED {
            // Workers run executions themselves: the counter carries over.
            assert!(!ok, "{out}");
            is_nondeterminism_report(&out);
        } else {
            // A fresh thread per execution: the counter never reaches 3.
            assert!(ok, "{out}");
        }
    }
}

/// The adaptive portfolio keeps its own maps off std's `RandomState` (which
/// draws its keys once per thread, and counts them up per map): under it,
/// the program's maps still follow the seed, and the failure replays.
#[test]
fn a_hash_map_order_failure_found_by_the_adaptive_search_replays() {
    replays_from_its_lines(
        "hash_map_child",
        "peer0 was greeted last after a slow start",
        &[("SIM_SEARCH", "adaptive")],
    );
}
