//! Failure reports: what went wrong, where, and the line that reproduces it.

mod rt_support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use rt_support::{assert_contains_all, panic_text};
use sim_rt::runtime::Builder;

fn failure_of<F: std::future::Future>(builder: &mut Builder, fut: F) -> String {
    let rt = builder.enable_all().build().unwrap();
    let err = catch_unwind(AssertUnwindSafe(|| rt.block_on(fut)))
        .err()
        .expect("the simulation should fail");
    panic_text(&*err).expect("failure reports are strings")
}

/// Checks that the failure report `msg` starts with `headline` and holds
/// every one of `parts`.
#[track_caller]
fn assert_report(msg: &str, headline: &str, parts: &[&str]) {
    assert!(msg.starts_with(headline), "{msg}");
    assert_contains_all(msg, parts);
}

fn assert_reproduce_line(msg: &str, seed: u64, test: &str) {
    let line = format!(
        "reproduce: SIM_SEED={seed} cargo test -p sim-rt --test runtime_failures {test} -- --exact"
    );
    assert!(msg.contains(&line), "missing `{line}` in:\n{msg}");
}

#[test]
fn task_panic_names_message_host_task_time_and_reproduction() {
    let msg = failure_of(
        Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .seed(17),
        async {
            sim_rt::sim::host("server").start(|| async {
                sim_rt::time::sleep(Duration::from_millis(250)).await;
                let balance: i64 = -5;
                assert!(balance >= 0, "invariant broken: balance went negative");
            });
            std::future::pending::<()>().await
        },
    );
    assert_report(
        &msg,
        "simulation failed: a task panicked: invariant broken: balance went negative",
        &[
            "on host \"server\" (host entry point)",
            "in task 2 on host",
            "at simulated time 250ms",
            "seed 17",
        ],
    );
    assert_reproduce_line(
        &msg,
        17,
        "task_panic_names_message_host_task_time_and_reproduction",
    );
}

#[test]
fn spawned_task_panic_names_where_it_was_spawned() {
    let msg = failure_of(
        Builder::new_current_thread()
            .seed(3)
            .report_unobserved_panics(true),
        async {
            drop(sim_rt::spawn(async { panic!("boom") }));
            sim_rt::time::sleep(Duration::from_secs(1)).await;
        },
    );
    assert!(
        msg.starts_with("simulation failed: a task panicked: boom"),
        "{msg}"
    );
    assert!(
        msg.contains("on host \"main\" (spawned at sim-rt/tests/runtime_failures.rs:"),
        "{msg}"
    );
    assert_reproduce_line(&msg, 3, "spawned_task_panic_names_where_it_was_spawned");
}

/// A panic handed to a `JoinHandle` (as tokio does) and then unwrapped by
/// the main future: the report is the main future's, with the task's own
/// panic named as the one that came first.
#[test]
fn an_awaited_task_panic_is_named_in_the_report_of_what_it_caused() {
    let msg = failure_of(Builder::new_current_thread().seed(3), async {
        let h = sim_rt::spawn(async { panic!("boom") });
        h.await.unwrap();
    });
    assert_report(&msg, "simulation failed: the main future panicked: called `Result::unwrap()`", &["note: before this, task 2 on host \"main\" (spawned at sim-rt/tests/runtime_failures.rs:", "panicked (handed to its JoinHandle): boom"]);
}

#[test]
fn main_future_panic_is_reported() {
    let msg = failure_of(
        Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .seed(5),
        async {
            sim_rt::time::sleep(Duration::from_secs(2)).await;
            panic!("assertion in the test body");
        },
    );
    assert!(
        msg.starts_with("simulation failed: the main future panicked: assertion in the test body"),
        "{msg}"
    );
    assert!(msg.contains("at simulated time 2s"), "{msg}");
    assert_reproduce_line(&msg, 5, "main_future_panic_is_reported");
}

#[test]
fn deadlock_names_the_blocked_tasks() {
    let msg = failure_of(Builder::new_current_thread().seed(9), async {
        let (tx, rx) = sim_rt::sync::oneshot::channel::<()>();
        let waiter = sim_rt::spawn(async move {
            let _ = rx.await;
        });
        let _keep = tx; // never sent, never dropped
        waiter.await.unwrap();
    });
    assert_report(
        &msg,
        "simulation failed: deadlock: the main future is unfinished, no task can run and no \
             timer is pending",
        &[
            "blocked tasks:",
            "- task 1 on host \"main\" (the future passed to block_on)",
            "- task 2 on host \"main\" (spawned at sim-rt/tests/runtime_failures.rs:",
        ],
    );
    assert_reproduce_line(&msg, 9, "deadlock_names_the_blocked_tasks");
}

#[test]
fn step_limit_names_the_likely_cause() {
    let msg = failure_of(
        Builder::new_current_thread().seed(1).max_steps(1000),
        async {
            sim_rt::spawn(async {
                loop {
                    sim_rt::task::yield_now().await;
                }
            });
            std::future::pending::<()>().await
        },
    );
    assert_report(
        &msg,
        "simulation failed: step limit of 1000 steps reached with the main future unfinished",
        &[
            "busy loop",
            "Builder::max_steps",
            "(step 1000)",
            "- task 2 on host \"main\"",
        ],
    );
    assert_reproduce_line(&msg, 1, "step_limit_names_the_likely_cause");
}

#[test]
fn time_limit_names_the_likely_cause() {
    let msg = failure_of(
        Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .seed(2)
            .max_time(Duration::from_secs(60)),
        async {
            loop {
                sim_rt::time::sleep(Duration::from_secs(7)).await;
            }
        },
    );
    assert_report(&msg, "simulation failed: simulated-time limit of 60s reached with the main future unfinished (the next timer is due at 63s)", &["at simulated time 56s", "Builder::max_time"]);
    assert_reproduce_line(&msg, 2, "time_limit_names_the_likely_cause");
}

#[test]
fn a_failed_runtime_refuses_to_run_again() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let first = catch_unwind(AssertUnwindSafe(|| rt.block_on(async { panic!("first") })));
    assert!(first.is_err());
    let second = catch_unwind(AssertUnwindSafe(|| rt.block_on(async { 1 }))).unwrap_err();
    let msg = second
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_else(|| second.downcast_ref::<&str>().unwrap().to_string());
    assert!(msg.contains("this simulation already failed"), "{msg}");
}

/// `try_block_on` returns the failure instead of panicking: its kind, the
/// panic message, the host, the step; the report has no reproduction line
/// (the caller adds its own), and the runtime cannot be reused.
#[test]
fn try_block_on_returns_the_failure() {
    use sim_rt::runtime::FailureKind;
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(5)
        .build()
        .unwrap();
    let failure = rt
        .try_block_on(async {
            sim_rt::sim::host("worker").start(|| async {
                if sim_rt::sim::seed() == 5 {
                    panic!("worker gave up");
                }
            });
            sim_rt::time::sleep(std::time::Duration::from_secs(1)).await;
        })
        .unwrap_err();
    assert_eq!(failure.kind(), FailureKind::TaskPanic);
    assert_eq!(failure.message(), Some("worker gave up"));
    assert_eq!(failure.host(), Some("worker"));
    assert_eq!(failure.seed(), 5);
    assert!(failure.step() > 0);
    let text = failure.to_string();
    assert!(text.contains("a task panicked: worker gave up"), "{text}");
    assert!(!text.contains("reproduce"), "{text}");

    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let out = rt.try_block_on(async { 7 });
    assert_eq!(out.unwrap(), 7);
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let deadlock = rt.try_block_on(std::future::pending::<()>()).unwrap_err();
    assert_eq!(deadlock.kind(), FailureKind::Deadlock);
    assert_eq!(deadlock.host(), None);
}
