//! Shared by the integration tests: one future run on a fresh simulation.

#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use sim_rt::runtime::{Builder, Runtime, UnhandledPanic};
use sim_rt::sim::NetConfig;

/// Runs `future` on a fresh simulation with the given seed.
pub fn sim<F: Future>(seed: u64, future: F) -> F::Output {
    sim_on(Builder::new_current_thread().seed(seed), future)
}

/// Runs `future` on a fresh simulation with the given seed, where a
/// spawned task's panic does not fail the simulation.
pub fn sim_ignoring_panics<F: Future>(seed: u64, future: F) -> F::Output {
    sim_on(
        Builder::new_current_thread()
            .seed(seed)
            .unhandled_panic(UnhandledPanic::Ignore),
        future,
    )
}

/// Runs `future` on a fresh simulation with seed 0 and the given network.
pub fn sim_with_network<F: Future>(config: NetConfig, future: F) -> F::Output {
    sim_on(
        Builder::new_current_thread().seed(0).network(config),
        future,
    )
}

/// Runs `future` on a fresh simulation that `builder` builds.
pub fn sim_on<F: Future>(builder: &mut Builder, future: F) -> F::Output {
    builder
        .build()
        .expect("building a simulation cannot fail")
        .block_on(future)
}

/// Counts the polls of the future it wraps.
pub struct CountPolls<F> {
    inner: Pin<Box<F>>,
    polls: Arc<AtomicUsize>,
}

impl<F: Future> Future for CountPolls<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.polls.fetch_add(1, Ordering::Relaxed);
        self.inner.as_mut().poll(cx)
    }
}

/// `f`, wrapped to count its polls, and the count.
pub fn counted<F: Future>(f: F) -> (CountPolls<F>, Arc<AtomicUsize>) {
    let polls = Arc::new(AtomicUsize::new(0));
    let wrapped = CountPolls {
        inner: Box::pin(f),
        polls: polls.clone(),
    };
    (wrapped, polls)
}

/// A command that runs the ignored test `name` of this test binary alone,
/// in a child process, without the parent's `SIM_SEED`.
pub fn child_test(name: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary's path"));
    cmd.args([
        name,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env_remove("SIM_SEED");
    cmd
}

/// Checks that `text` contains each of `parts`, naming the first one it
/// does not.
#[track_caller]
pub fn assert_contains_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "missing {part:?} in:\n{text}");
    }
}

/// Counts how many times a value was dropped.
pub struct DropCount(pub Arc<AtomicUsize>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A fresh simulation with the given seed whose scheduler picks uniformly
/// at random among the runnable tasks, instead of in the default order.
pub fn random_order(seed: u64) -> Runtime {
    Builder::new_current_thread()
        .seed(seed)
        .scheduler(sim_rt::scheduler::RandomScheduler::new)
        .build()
        .expect("building a simulation cannot fail")
}

/// Inside a simulation: starts host "db", which creates `/f` and hands the
/// open file out, and stops the host a millisecond later. Returns that
/// file, whose host is gone.
pub async fn file_of_a_stopped_host() -> sim_rt::fs::File {
    let slot: Arc<std::sync::Mutex<Option<sim_rt::fs::File>>> = Arc::default();
    let s = slot.clone();
    sim_rt::sim::host("db").start(move || {
        let s = s.clone();
        async move {
            if s.lock().unwrap().is_none() {
                let f = sim_rt::fs::File::create("/f").await?;
                *s.lock().unwrap() = Some(f);
            }
            Ok::<(), std::io::Error>(())
        }
    });
    sim_rt::time::sleep(std::time::Duration::from_millis(1)).await;
    sim_rt::sim::stop("db");
    let file = slot.lock().unwrap().take().expect("db opened the file");
    file
}
