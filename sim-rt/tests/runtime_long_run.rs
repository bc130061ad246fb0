//! A failure at the end of a very long run is reported and replays, with a
//! trace and a process that stay small: every step but the last choice is
//! forced (one task, yielding), so the trace records one step however long
//! the run.
//!
//! The 50-million-step case takes about ten seconds in a release build
//! and over two minutes in a debug one, so it is ignored by `cargo test`
//! and run by `.ci/run` with `--release`; the two-million-step case runs
//! everywhere.

use std::panic::{catch_unwind, AssertUnwindSafe};

use sim_rt::runtime::{Builder, Trace};

/// Yields `n` times, then fails if the simulation's choice says so.
async fn long_then_choose(n: u64) {
    for _ in 0..n {
        sim_rt::task::yield_now().await;
    }
    assert!(
        sim_rt::choose(2) == 0,
        "failed after {n} yields, on the last choice"
    );
}

fn builder() -> Builder {
    let mut b = Builder::new_current_thread();
    b.enable_all();
    b.max_steps(u64::MAX / 2).livelock_steps(u64::MAX);
    b
}

/// A seed whose first random draw makes `choose(2)` take option 1: the
/// first draw of a run in which every pick before it is forced.
fn failing_seed() -> u64 {
    (0..64)
        .find(|&seed| {
            let rt = builder().seed(seed).build().unwrap();
            rt.block_on(async { sim_rt::choose(2) == 1 })
        })
        .expect("half the seeds choose 1")
}

/// The process's peak resident memory in KiB (Linux), if known.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `n` yields and the failing choice; replays the trace and checks
/// that the same failure happens at the same step, with the same trace.
fn fails_and_replays(n: u64) {
    let seed = failing_seed();
    let rt = builder().seed(seed).build().unwrap();
    let failed = catch_unwind(AssertUnwindSafe(|| rt.block_on(long_then_choose(n))));
    let message = *failed
        .expect_err("the chosen option fails")
        .downcast::<String>()
        .expect("a report");
    assert!(
        message.contains(&format!("failed after {n} yields")),
        "{message}"
    );
    assert!(message.contains(&format!("seed {seed}")), "{message}");
    let steps = rt.steps();
    let trace: Trace = rt.trace();
    drop(rt);
    assert!(steps > n, "{steps}");
    assert_eq!(trace.len() as u64, steps + 1, "every step and the choice");
    assert_eq!(trace.steps().len(), 1, "only the choice is recorded");

    // The first failure loaded what reporting a panic needs (a backtrace's
    // symbols): the replay's growth is the simulation's own.
    let before = peak_kib();
    let again = builder().replay(trace.clone()).build().unwrap();
    let replayed = catch_unwind(AssertUnwindSafe(|| again.block_on(long_then_choose(n))));
    let message_again = *replayed
        .expect_err("the replay fails again")
        .downcast::<String>()
        .expect("a report");
    assert_eq!(again.steps(), steps);
    assert_eq!(again.trace().hash(), trace.hash());
    assert_eq!(
        message_again.lines().next(),
        message.lines().next(),
        "the same failure"
    );
    // The replay of `n` steps kept nothing per step: its peak grew by far
    // less than the 32 bytes a recorded step takes (64 MB for two million
    // steps, 1.6 GB for fifty million).
    if let (Some(before), Some(after)) = (before, peak_kib()) {
        assert!(
            (after - before) * 1024 < n,
            "the replay of {n} steps raised the peak from {before} to {after} KiB"
        );
    }
}

#[test]
fn a_failure_after_two_million_steps_replays() {
    fails_and_replays(2_000_000);
}

#[test]
#[ignore = "50 million steps: run in release by .ci/run"]
fn a_failure_at_step_fifty_million_replays() {
    fails_and_replays(50_000_000);
}
