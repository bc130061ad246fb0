//! Shared by the integration tests: one future run on a fresh simulation.
//!
//! The simulations built here take work as instantaneous
//! (`Builder::poll_cost(Duration::ZERO)`): time moves only when nothing can
//! run, so the tests assert simulated times exactly. `time_work.rs` tests
//! the poll cost a default runtime charges.

#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use sim_rt::runtime::{Builder, Runtime, UnhandledPanic};
use sim_rt::scheduler::{ChoiceKind, Event, Observation, RandomScheduler, Scheduler};
use sim_rt::sim::{LinkConfig, NetConfig};

/// Runs `future` on a fresh simulation with the given seed.
pub fn sim<F: Future>(seed: u64, future: F) -> F::Output {
    sim_on(
        Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .seed(seed),
        future,
    )
}

/// Runs `future` on a fresh [`LocalRuntime`](sim_rt::runtime::LocalRuntime)
/// with the given seed: `spawn_local` works anywhere in it.
#[allow(dead_code)] // not every test binary spawns local tasks
pub fn sim_local<F: Future>(seed: u64, future: F) -> F::Output {
    Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .seed(seed)
        .enable_all()
        .build_local(Default::default())
        .expect("building a simulation cannot fail")
        .block_on(future)
}

/// Runs `future` on a fresh simulation with the given seed, where a
/// spawned task's panic does not fail the simulation.
pub fn sim_ignoring_panics<F: Future>(seed: u64, future: F) -> F::Output {
    sim_on(
        Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .seed(seed)
            .unhandled_panic(UnhandledPanic::Ignore),
        future,
    )
}

/// Runs `future` on a fresh simulation with seed 0 and the given network.
pub fn sim_with_network<F: Future>(config: NetConfig, future: F) -> F::Output {
    sim_on(
        Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .seed(0)
            .network(config),
        future,
    )
}

/// Runs `future` on a fresh simulation with the given seed and the
/// scheduler `scheduler` makes from it.
pub fn sim_scheduled<S: Scheduler + 'static, F: Future>(
    seed: u64,
    scheduler: impl FnMut(u64) -> S + 'static,
    future: F,
) -> F::Output {
    sim_on(
        Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .seed(seed)
            .scheduler(scheduler),
        future,
    )
}

/// Inside a simulation: makes the links between "main" and `host` lose a
/// datagram with probability `loss` both ways, lets `host` bind first (a
/// datagram to no socket is lost), sends `request` to `addr` once from a
/// fresh socket and says whether a reply came within a second. With no
/// retry, the client times out only if the request or the reply is lost.
pub async fn udp_request_over_lossy_links(
    host: &str,
    addr: &str,
    loss: f64,
    request: &[u8],
) -> bool {
    let link = LinkConfig::default().with_loss(loss);
    sim_rt::sim::set_link("main", host, link.clone());
    sim_rt::sim::set_link(host, "main", link);
    sim_rt::time::sleep(std::time::Duration::from_millis(1)).await;
    let socket = sim_rt::net::UdpSocket::bind("0.0.0.0:0").await.unwrap();
    socket.send_to(request, addr).await.unwrap();
    let mut buf = [0u8; 16];
    sim_rt::time::timeout(
        std::time::Duration::from_secs(1),
        socket.recv_from(&mut buf),
    )
    .await
    .is_ok()
}

/// Runs `future` on real tokio's current-thread runtime, for a test that
/// compares the simulation with the real thing.
pub fn on_real_tokio<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a real tokio runtime")
        .block_on(future)
}

/// A fresh, empty directory on the real disk, under the temporary
/// directory, named `name` and this process's id; the caller removes it.
pub fn fresh_real_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `future` on a fresh simulation with the default settings, which
/// must fail; returns the failure.
pub fn sim_failure<F: Future>(future: F) -> sim_rt::runtime::Failure {
    match Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .build()
        .expect("building a simulation cannot fail")
        .try_block_on(future)
    {
        Ok(_) => panic!("the simulation should fail"),
        Err(failure) => failure,
    }
}

/// Runs `future` on a fresh simulation that `builder` builds, its work
/// taking no time (see the module docs).
pub fn sim_on<F: Future>(builder: &mut Builder, future: F) -> F::Output {
    builder
        .poll_cost(Duration::ZERO)
        .enable_all()
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

/// The text of a panic payload: its `String` or `&str`, `None` for any
/// other payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
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
        .poll_cost(Duration::ZERO)
        .enable_all()
        .seed(seed)
        .scheduler(RandomScheduler::new)
        .build()
        .expect("building a simulation cannot fail")
}

/// A seeded [`RandomScheduler`] with two hooks, for a test that takes
/// some data choices itself or watches the run: `answer(kind, n)` returns
/// the option to take, or `None` to leave the choice to the random
/// scheduler; `watch` sees every observation. Picks are the random
/// scheduler's.
pub struct RandomWith<A, W> {
    random: RandomScheduler,
    answer: A,
    watch: W,
}

/// The hook of a [`RandomWith`] that takes no choice.
pub type NoAnswer = fn(ChoiceKind, usize) -> Option<usize>;

/// The hook of a [`RandomWith`] that watches nothing.
pub type NoWatch = fn(&Observation);

impl<A: FnMut(ChoiceKind, usize) -> Option<usize>> RandomWith<A, NoWatch> {
    /// Random but for the choices `answer` takes.
    pub fn answering(seed: u64, answer: A) -> Self {
        RandomWith {
            random: RandomScheduler::new(seed),
            answer,
            watch: |_| {},
        }
    }
}

impl<W: FnMut(&Observation)> RandomWith<NoAnswer, W> {
    /// Random, with `watch` seeing every observation.
    pub fn watching(seed: u64, watch: W) -> Self {
        RandomWith {
            random: RandomScheduler::new(seed),
            answer: |_, _| None,
            watch,
        }
    }
}

impl<A, W> Scheduler for RandomWith<A, W>
where
    A: FnMut(ChoiceKind, usize) -> Option<usize>,
    W: FnMut(&Observation),
{
    fn pick(&mut self, enabled: &[Event]) -> usize {
        self.random.pick(enabled)
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        match (self.answer)(kind, n) {
            Some(option) => option,
            None => self.random.choose(kind, n),
        }
    }

    fn observe(&mut self, observation: &Observation) {
        self.random.observe(observation);
        (self.watch)(observation);
    }
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
