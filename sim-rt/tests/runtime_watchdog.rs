//! The poll watchdog: a simulated test whose task never returns from a poll
//! ends with a report naming the task and the line that reproduces it,
//! instead of hanging; a real sleep inside a simulation is noted once.
//!
//! The stuck programs run in a child process (this test binary, filtered to
//! an ignored test), since the watchdog ends the process.

mod rt_support;

use std::process::ExitStatus;
use std::time::Duration;

use rt_support::{assert_contains_all, child_test};

/// Runs the ignored test `name` of this binary in a child with
/// `SIM_POLL_TIMEOUT` at `timeout`; returns its exit status and stderr.
fn child(name: &str, timeout: &str) -> (ExitStatus, String) {
    let out = child_test(name)
        .env("SIM_POLL_TIMEOUT", timeout)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status, err)
}

/// Runs the child `name`, which the watchdog (limit 0.5 s) must end with a
/// report holding every one of `parts`.
fn assert_watchdog_report(name: &str, parts: &[&str]) {
    let (status, err) = child(name, "0.5");
    assert_eq!(status.code(), Some(101), "{err}");
    assert_contains_all(&err, parts);
}

#[test]
fn a_task_that_never_returns_from_a_poll_ends_the_process_with_a_report() {
    assert_watchdog_report(
        "child_spins_in_a_task",
        &[
            "sim_rt: the simulation of child_spins_in_a_task has been inside one poll",
            // The spinning task: its id, where it was spawned, its host.
            "in task ",
            &format!("(spawned at {}:", file!()),
            "on host \"spinner\"",
            "reproduce: SIM_SEED=7 cargo test",
            "child_spins_in_a_task -- --exact",
        ],
    );
}

#[test]
fn the_main_future_stuck_in_a_real_wait_is_reported_too() {
    assert_watchdog_report(
        "child_blocks_on_a_std_channel",
        &["(the future passed to block_on) on host \"main\""],
    );
}

#[test]
fn a_thread_waiting_for_tasks_only_block_on_could_run_is_reported() {
    assert_watchdog_report(
        "child_waits_for_a_spawned_task",
        &[
            "sim_rt: the thread of child_waits_for_a_spawned_task has been blocked in a real wait",
            "a current-thread runtime runs its tasks only while Runtime::block_on",
            "reproduce: SIM_SEED=7 cargo test",
        ],
    );
    // A wait with nothing left for block_on is not reported, nor is a
    // short one before block_on runs the tasks.
    let (status, err) = child("child_waits_then_drives", "0.5");
    assert!(status.success(), "{err}");
}

/// The owner thread of a simulation spinning on `yield_now` for a thing
/// its tasks never do (tokio's `rt_threaded::test_tuning` waits for
/// tokio's internal tuning so) ends with a report, not a hang.
#[test]
fn an_owner_spinning_on_yield_now_forever_is_reported() {
    assert_watchdog_report(
        "child_spins_on_yield_now",
        &[
            "that owns a simulation has spun in yield_now",
            "reproduce: SIM_SEED=9",
        ],
    );
}

#[test]
#[ignore = "run by an_owner_spinning_on_yield_now_forever_is_reported"]
fn child_spins_on_yield_now() {
    let mut b = sim_rt::runtime::Builder::new_multi_thread();
    b.enable_all();
    b.exact_seed(9);
    let rt = b.build().unwrap();
    let ticks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let t = ticks.clone();
    rt.spawn(async move {
        loop {
            t.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            sim_rt::time::sleep(Duration::from_millis(1)).await;
        }
    });
    // Waits for a count the task never reaches in one tick.
    while ticks.load(std::sync::atomic::Ordering::Relaxed) != usize::MAX {
        std::thread::yield_now();
    }
}

#[test]
fn a_malformed_limit_is_a_clear_error() {
    let (status, err) = child("child_spins_in_a_task", "ten");
    assert!(!status.success());
    assert!(
        err.contains("SIM_POLL_TIMEOUT=\"ten\" is not understood"),
        "{err}"
    );
}

#[test]
fn a_real_sleep_inside_a_simulation_is_noted_once() {
    let (status, err) = child("child_sleeps_for_real", "10");
    assert!(status.success(), "{err}");
    let note = "std::thread::sleep inside a simulation sleeps in real time";
    assert_eq!(err.matches(note).count(), 1, "{err}");
}

#[test]
#[ignore = "run by a_task_that_never_returns_from_a_poll_ends_the_process_with_a_report"]
fn child_spins_in_a_task() {
    let mut b = sim_rt::runtime::Builder::new_current_thread();
    b.enable_all();
    b.exact_seed(7);
    b.build().unwrap().block_on(async {
        sim_rt::sim::host("spinner").start(|| async {
            sim_rt::spawn(async {
                let mut n = 0u64;
                loop {
                    n = std::hint::black_box(n + 1);
                }
            });
            std::future::pending::<()>().await
        });
        sim_rt::time::sleep(Duration::from_secs(1)).await;
    });
}

#[test]
#[ignore = "run by the_main_future_stuck_in_a_real_wait_is_reported_too"]
fn child_blocks_on_a_std_channel() {
    let (_tx, rx) = std::sync::mpsc::channel::<()>();
    let mut b = sim_rt::runtime::Builder::new_current_thread();
    b.enable_all();
    b.exact_seed(7);
    b.build().unwrap().block_on(async move {
        let _ = rx.recv();
    });
}

#[test]
#[ignore = "run by a_real_sleep_inside_a_simulation_is_noted_once"]
fn child_sleeps_for_real() {
    sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            std::thread::sleep(Duration::from_millis(1));
            std::thread::sleep(Duration::from_millis(1));
        });
}

#[test]
#[ignore = "run by a_thread_waiting_for_tasks_only_block_on_could_run_is_reported"]
fn child_waits_for_a_spawned_task() {
    let mut b = sim_rt::runtime::Builder::new_current_thread();
    b.enable_all();
    b.exact_seed(7);
    let rt = b.build().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    // As on tokio's current-thread runtime, only a `block_on` runs this.
    rt.spawn(async move { tx.send(()).unwrap() });
    rx.recv().unwrap();
}

#[test]
#[ignore = "run by a_thread_waiting_for_tasks_only_block_on_could_run_is_reported"]
fn child_waits_then_drives() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Nothing waits for block_on: a long real wait is no concern.
    std::thread::sleep(Duration::from_millis(800));
    let (tx, rx) = sim_rt::sync::oneshot::channel();
    rt.spawn(async move { tx.send(1).unwrap() });
    // Spawned tasks wait, but the wait is shorter than the limit.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(rt.block_on(rx).unwrap(), 1);
    // Finished: nothing is left for block_on.
    std::thread::sleep(Duration::from_millis(800));
}
