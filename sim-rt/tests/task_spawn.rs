//! Simulated `tokio::task`: spawning and joining, aborting, `JoinError`,
//! `spawn_blocking`, `spawn_local`, `yield_now`, task ids, detaching, and
//! the lifecycle of a task's future (exact poll and drop counts).
//!
//! Every test builds its own runtime with an explicit seed. Tests that need
//! "every other task has run as far as it can" sleep for a millisecond in
//! the main future: simulated time only advances when no task is runnable.

mod rt_support;

use std::cell::Cell;
use std::collections::BTreeSet;
use std::future::{pending, Future};
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use rt_support::{
    assert_contains_all, counted, panic_text, random_order, sim, sim_ignoring_panics, DropCount,
};
use sim_rt::runtime::Builder;
use sim_rt::sync::oneshot;
use sim_rt::task::{self, JoinError, JoinHandle};
use sim_rt::time::{sleep, Instant};

/// Lets every other task run until it blocks: the clock only advances when
/// nothing is runnable.
async fn settle() {
    sleep(Duration::from_millis(1)).await;
}

/// Whether `SIM_SEED` overrides the seeds these tests choose (then tests that
/// compare seeds have nothing to compare).
fn seed_overridden() -> bool {
    std::env::var_os("SIM_SEED").is_some()
}

// ----- lifecycle probes ------------------------------------------------------

/// Shared poll and drop counters of a [`Probe`].
#[derive(Clone, Default)]
struct Counts {
    polls: Arc<AtomicUsize>,
    drops: Arc<AtomicUsize>,
}

impl Counts {
    fn polls(&self) -> usize {
        self.polls.load(Ordering::SeqCst)
    }

    fn drops(&self) -> usize {
        self.drops.load(Ordering::SeqCst)
    }

    /// A future that returns `Pending` `yields` times (waking itself each
    /// time) and then `Ready(yields)`.
    fn yielding(&self, yields: usize) -> Probe {
        Probe {
            counts: self.clone(),
            yields_left: Some(yields),
            yields,
        }
    }

    /// A future that is `Pending` forever and never wakes itself.
    fn forever(&self) -> Probe {
        Probe {
            counts: self.clone(),
            yields_left: None,
            yields: 0,
        }
    }
}

/// Counts its polls and its drop.
struct Probe {
    counts: Counts,
    yields_left: Option<usize>,
    yields: usize,
}

impl Future for Probe {
    type Output = usize;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        self.counts.polls.fetch_add(1, Ordering::SeqCst);
        match self.yields_left {
            None => Poll::Pending,
            Some(0) => Poll::Ready(self.yields),
            Some(n) => {
                self.yields_left = Some(n - 1);
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        self.counts.drops.fetch_add(1, Ordering::SeqCst);
    }
}

// ----- spawn and join --------------------------------------------------------

#[test]
fn spawn_returns_the_output_through_the_join_handle() {
    let out = sim(1, async {
        let handles: Vec<JoinHandle<u64>> = (0..5u64)
            .map(|i| sim_rt::spawn(async move { i * i }))
            .collect();
        let mut outs = Vec::new();
        for h in handles {
            outs.push(h.await.unwrap());
        }
        outs
    });
    assert_eq!(out, vec![0, 1, 4, 9, 16]);
}

#[test]
fn a_task_spawned_from_a_task_is_joined_by_its_parent() {
    let out = sim(2, async {
        sim_rt::spawn(async {
            let inner = sim_rt::spawn(async { "inner" });
            (inner.await.unwrap(), "outer")
        })
        .await
        .unwrap()
    });
    assert_eq!(out, ("inner", "outer"));
}

#[test]
fn abort_gives_a_cancelled_join_error() {
    let err = sim(3, async {
        let h = sim_rt::spawn(pending::<()>());
        assert_eq!(h.id().as_u64(), 2, "the main future is task 1");
        settle().await;
        h.abort();
        h.await.unwrap_err()
    });
    assert!(err.is_cancelled());
    assert!(!err.is_panic());
    assert_eq!(err.id().as_u64(), 2);
    assert_eq!(err.to_string(), "task 2 was cancelled");
}

#[test]
fn is_finished_is_false_while_running_and_true_after() {
    sim(4, async {
        let (tx, rx) = oneshot::channel::<u32>();
        let h = sim_rt::spawn(async move { rx.await.unwrap() + 1 });
        assert!(!h.is_finished(), "not yet polled");
        settle().await;
        assert!(!h.is_finished(), "blocked on the channel");
        tx.send(41).unwrap();
        settle().await;
        assert!(h.is_finished());
        assert!(h.abort_handle().is_finished());
        assert_eq!(h.await.unwrap(), 42);

        let aborted = sim_rt::spawn(pending::<()>());
        settle().await;
        assert!(!aborted.is_finished());
        aborted.abort();
        settle().await;
        assert!(aborted.is_finished(), "a cancelled task is finished");
        assert!(aborted.await.unwrap_err().is_cancelled());
    });
}

#[test]
fn abort_handle_aborts_the_task() {
    sim(5, async {
        let h = sim_rt::spawn(pending::<u8>());
        let ah = h.abort_handle();
        assert_eq!(ah.id(), h.id());
        assert!(!ah.is_finished());
        let clone = ah.clone();
        clone.abort();
        let err = h.await.unwrap_err();
        assert!(err.is_cancelled());
        assert!(ah.is_finished() && clone.is_finished());
    });
}

#[test]
fn aborting_a_finished_task_is_a_no_op() {
    sim(6, async {
        let h = sim_rt::spawn(async { 7 });
        let ah = h.abort_handle();
        settle().await;
        assert!(h.is_finished());
        h.abort();
        ah.abort();
        assert_eq!(h.await.unwrap(), 7);
        ah.abort(); // after the join: still nothing happens
    });
}

/// The report of a simulation that fails, from `block_on`'s panic, on a
/// runtime that reports panics nobody can observe (as the explorer's do).
fn failure_of(future: impl Future<Output = ()> + 'static) -> String {
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Builder::new_current_thread()
            .enable_all()
            .seed(7)
            .report_unobserved_panics(true)
            .build()
            .unwrap()
            .block_on(future)
    }));
    let payload = res.expect_err("block_on must panic");
    payload
        .downcast_ref::<String>()
        .expect("the failure report is a String")
        .clone()
}

/// A panic nobody can observe (the task's handle was dropped) is ignored
/// by default, as tokio's `UnhandledPanic::Ignore`: the other tasks go on.
#[test]
fn a_panic_nobody_can_observe_is_ignored_by_default() {
    let done = sim(7, async {
        drop(sim_rt::spawn(async { panic!("boom in a task") }));
        let other = sim_rt::spawn(async {
            sleep(Duration::from_secs(1)).await;
            7
        });
        sleep(Duration::from_secs(2)).await;
        other.await.unwrap()
    });
    assert_eq!(done, 7);
}

/// Asked to (`report_unobserved_panics`, the explorer's setting), a panic
/// nobody can observe fails the simulation.
#[test]
fn a_panic_nobody_can_observe_fails_the_simulation_when_reported() {
    let message = failure_of(async {
        drop(sim_rt::spawn(async { panic!("boom in a task") }));
        sleep(Duration::from_secs(1)).await;
    });
    assert_contains_all(
        &message,
        &[
            "simulation failed: a task panicked: boom in a task",
            "task 2 on host \"main\"",
        ],
    );
}

/// By default a panic goes to the task's `JoinHandle`, as in tokio, and
/// the other tasks go on.
#[test]
fn a_panic_reaches_its_join_handle_by_default() {
    let (err, other) = sim(8, async {
        let bad = sim_rt::spawn(async { panic!("observed boom") });
        let good = sim_rt::spawn(async { 7 });
        (bad.await.unwrap_err(), good.await.unwrap())
    });
    assert!(err.is_panic());
    assert_eq!(other, 7);
    let payload = err.into_panic();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"observed boom"));
}

/// A panic handed to a handle that is then dropped without awaiting it was
/// observed by nobody: reported, the simulation fails, saying so.
#[test]
fn a_panic_whose_handle_is_dropped_unawaited_fails_the_simulation() {
    let message = failure_of(async {
        let bad = sim_rt::spawn(async { panic!("unawaited boom") });
        sleep(Duration::from_secs(1)).await;
        assert!(bad.is_finished());
        drop(bad);
        sleep(Duration::from_secs(1)).await;
    });
    assert_contains_all(
        &message,
        &[
            "a task panicked: unawaited boom",
            "dropped without awaiting it",
        ],
    );
}

#[test]
fn a_panic_is_a_join_error_under_unhandled_panic_ignore() {
    let (str_err, string_err) = sim_ignoring_panics(8, async {
        let a = sim_rt::spawn(async { panic!("static boom") }).await;
        let b = sim_rt::spawn(async {
            let n = 42;
            panic!("formatted boom {n}")
        })
        .await;
        (a.unwrap_err(), b.unwrap_err())
    });
    assert!(str_err.is_panic());
    assert!(!str_err.is_cancelled());
    assert_eq!(str_err.id().as_u64(), 2);
    assert_eq!(
        str_err.to_string(),
        "task 2 panicked with message \"static boom\""
    );
    let payload = str_err.into_panic();
    assert_eq!(*payload.downcast_ref::<&str>().unwrap(), "static boom");

    assert_eq!(
        string_err.to_string(),
        "task 3 panicked with message \"formatted boom 42\""
    );
    let payload = string_err.try_into_panic().expect("it is a panic");
    assert_eq!(
        payload.downcast_ref::<String>().unwrap(),
        "formatted boom 42"
    );
}

#[test]
fn a_panicking_task_does_not_stop_the_others_under_ignore() {
    let out = sim_ignoring_panics(9, async {
        let bad = sim_rt::spawn(async { panic!("bad") });
        let good = sim_rt::spawn(async {
            sleep(Duration::from_millis(5)).await;
            5
        });
        (bad.await.is_err(), good.await.unwrap())
    });
    assert_eq!(out, (true, 5));
}

#[test]
fn try_into_panic_gives_back_a_cancelled_error() {
    let err = sim(10, async {
        let h = sim_rt::spawn(pending::<()>());
        h.abort();
        h.await.unwrap_err()
    });
    let err = err.try_into_panic().expect_err("not a panic");
    assert!(err.is_cancelled());
    assert_eq!(err.to_string(), "task 2 was cancelled");
}

#[test]
#[should_panic(expected = "`JoinError` reason is not a panic.")]
fn into_panic_on_a_cancelled_error_panics() {
    let err: JoinError = sim(11, async {
        let h = sim_rt::spawn(pending::<()>());
        h.abort();
        h.await.unwrap_err()
    });
    let _ = err.into_panic();
}

#[test]
fn join_error_converts_to_io_error() {
    let (cancelled, panicked) = sim_ignoring_panics(12, async {
        let c = sim_rt::spawn(pending::<()>());
        c.abort();
        let p = sim_rt::spawn(async { panic!("p") });
        (c.await.unwrap_err(), p.await.unwrap_err())
    });
    let cancelled = io::Error::from(cancelled);
    assert_eq!(cancelled.kind(), io::ErrorKind::Other);
    assert_eq!(cancelled.to_string(), "task was cancelled");
    let panicked: io::Error = panicked.into();
    assert_eq!(panicked.kind(), io::ErrorKind::Other);
    assert_eq!(panicked.to_string(), "task panicked");
}

// ----- spawn_blocking, spawn_local -----------------------------------------

#[test]
fn spawn_blocking_runs_the_closure_once_and_returns_its_value() {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let (out, took) = sim(13, async move {
        let start = Instant::now();
        let h = task::spawn_blocking(move || {
            r.fetch_add(1, Ordering::SeqCst);
            vec![1, 2, 3]
        });
        let out = h.await.unwrap();
        (out, start.elapsed())
    });
    assert_eq!(out, vec![1, 2, 3]);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        took,
        Duration::ZERO,
        "spawn_blocking takes no simulated time"
    );
}

#[test]
fn spawn_local_runs_a_non_send_future() {
    // On a local runtime, as on tokio's (`build_local`).
    let out = rt_support::sim_local(14, async {
        let shared = Rc::new(Cell::new(1));
        let s = shared.clone();
        let h = task::spawn_local(async move {
            task::yield_now().await;
            s.set(s.get() * 10);
            s // an Rc output: !Send too
        });
        let back = h.await.unwrap();
        assert!(Rc::ptr_eq(&back, &shared));
        drop(back);
        (shared.get(), Rc::strong_count(&shared))
    });
    assert_eq!(out, (10, 1));
}

#[test]
#[should_panic(
    expected = "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
)]
fn spawn_local_outside_a_local_set_or_local_runtime_panics_as_tokio() {
    sim(14, async {
        drop(task::spawn_local(async {}));
    });
}

#[test]
#[should_panic(
    expected = "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
)]
fn spawn_local_outside_every_runtime_panics_as_tokio() {
    drop(task::spawn_local(async {}));
}

#[sim_rt::test(flavor = "local")]
async fn the_local_flavor_builds_a_local_runtime() {
    let shared = Rc::new(Cell::new(1));
    let s = shared.clone();
    task::spawn_local(async move { s.set(2) }).await.unwrap();
    assert_eq!(shared.get(), 2);
}

// ----- yield_now -------------------------------------------------------------

#[test]
fn yield_now_is_pending_exactly_once() {
    let (yielding, polls) = counted(task::yield_now());
    sim(15, yielding);
    assert_eq!(polls.load(Ordering::SeqCst), 2);
}

#[test]
fn yield_now_lets_another_task_run() {
    // The spinner can only finish once the setter has run; the setter can
    // only run if the spinner's yield_now gives way.
    let spins = sim(16, async {
        let flag = Arc::new(AtomicUsize::new(0));
        let f = flag.clone();
        let spinner = sim_rt::spawn(async move {
            let mut spins = 0u32;
            while f.load(Ordering::SeqCst) == 0 {
                spins += 1;
                task::yield_now().await;
            }
            spins
        });
        let setter = sim_rt::spawn(async move { flag.store(1, Ordering::SeqCst) });
        setter.await.unwrap();
        spinner.await.unwrap()
    });
    assert!(spins < 1000, "spun {spins} times");
}

/// Two tasks, `a` and `b`, each log `(name, i)` for `i` in `0..=YIELDS`,
/// yielding between entries.
const YIELDS: u32 = 3;

fn yield_log(seed: u64) -> Vec<(char, u32)> {
    let rt = random_order(seed);
    rt.block_on(async {
        let log = Arc::new(Mutex::new(Vec::new()));
        let spawn_logger = |name: char| {
            let log = log.clone();
            sim_rt::spawn(async move {
                for i in 0..=YIELDS {
                    log.lock().unwrap().push((name, i));
                    if i < YIELDS {
                        task::yield_now().await;
                    }
                }
            })
        };
        let a = spawn_logger('a');
        let b = spawn_logger('b');
        a.await.unwrap();
        b.await.unwrap();
        let log = log.lock().unwrap().clone();
        log
    })
}

/// tokio's current-thread order, on every seed: spawned tasks run first in
/// first out, `yield_now` goes behind every runnable task (those woken
/// meanwhile too), and the `block_on` future runs when the queue empties.
#[test]
fn the_default_scheduler_runs_tokios_current_thread_order_on_every_seed() {
    for seed in 0..20 {
        let log = sim(seed, async {
            let log = Arc::new(Mutex::new(Vec::new()));
            let (tx, rx) = oneshot::channel::<()>();
            let push = |log: &Arc<Mutex<Vec<&'static str>>>, s| log.lock().unwrap().push(s);
            let l = log.clone();
            sim_rt::spawn(async move {
                push(&l, "a1");
                task::yield_now().await;
                push(&l, "a2");
            });
            let l = log.clone();
            sim_rt::spawn(async move {
                push(&l, "b1");
                tx.send(()).unwrap();
                push(&l, "b2");
            });
            let l = log.clone();
            sim_rt::spawn(async move {
                rx.await.unwrap();
                push(&l, "c");
            });
            task::yield_now().await;
            push(&log, "main");
            let log = log.lock().unwrap().clone();
            log
        });
        // c was woken by b while a was yielding: it runs before a resumes.
        // At the park the `block_on` future goes first, ahead of the
        // yielded a, and returns: a never resumes, as on tokio.
        assert_eq!(log, ["a1", "b1", "b2", "c", "main"], "seed {seed}");
    }
}

/// The pattern tokio's own suites rely on: spawn, yield, then check what
/// the spawned task did.
#[test]
fn a_spawned_task_has_run_after_a_yield_on_every_seed() {
    for seed in 0..50 {
        sim(seed, async {
            let ran = Arc::new(AtomicUsize::new(0));
            for _ in 0..3 {
                let ran = ran.clone();
                sim_rt::spawn(async move {
                    ran.fetch_add(1, Ordering::SeqCst);
                });
            }
            task::yield_now().await;
            assert_eq!(ran.load(Ordering::SeqCst), 3, "seed {seed}");
        });
    }
}

#[test]
fn yield_now_interleavings_vary_with_the_seed_and_are_all_valid() {
    let mut seen = BTreeSet::new();
    for seed in 0..40 {
        let log = yield_log(seed);
        // Valid: each task's entries appear once each, in its own order.
        for name in ['a', 'b'] {
            let mine: Vec<u32> = log
                .iter()
                .filter(|(n, _)| *n == name)
                .map(|&(_, i)| i)
                .collect();
            assert_eq!(
                mine,
                (0..=YIELDS).collect::<Vec<_>>(),
                "seed {seed}: {log:?}"
            );
        }
        assert_eq!(log.len(), 2 * (YIELDS as usize + 1), "seed {seed}: {log:?}");
        assert_eq!(yield_log(seed), log, "seed {seed} is not reproducible");
        seen.insert(log.iter().map(|(n, _)| *n).collect::<String>());
    }
    if seed_overridden() {
        return; // every run used the same seed
    }
    assert!(seen.len() > 1, "only {seen:?}");
    // A yield that did not give way would only ever produce "aaaabbbb" and
    // "bbbbaaaa".
    assert!(
        seen.iter().any(|s| s != "aaaabbbb" && s != "bbbbaaaa"),
        "no real interleaving among {seen:?}"
    );
}

// ----- task ids --------------------------------------------------------------

#[test]
fn try_id_is_none_outside_a_task() {
    assert_eq!(task::try_id(), None);
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(17)
        .build()
        .unwrap();
    let _guard = rt.enter();
    assert_eq!(task::try_id(), None, "inside a runtime, but not in a task");
}

#[test]
#[should_panic(expected = "can't get a task id when not inside a task")]
fn id_panics_outside_a_task() {
    let _ = task::id();
}

#[test]
fn ids_are_distinct_and_in_spawn_order() {
    let spawned = sim(18, async {
        // The future of a `block_on` is not a task, as in tokio.
        assert_eq!(task::try_id(), None);
        let handles: Vec<_> = (0..4)
            .map(|_| sim_rt::spawn(async { task::id() }))
            .collect();
        let mut spawned = Vec::new();
        for h in handles {
            let handle_id = h.id();
            let inside = h.await.unwrap();
            assert_eq!(inside, handle_id, "JoinHandle::id is the task's own id");
            spawned.push(inside.as_u64());
        }
        spawned
    });
    // The `block_on`'s future took id 1.
    assert_eq!(spawned, vec![2, 3, 4, 5]);
}

#[test]
fn id_display_is_the_number() {
    let id = sim(19, async {
        sim_rt::spawn(async { task::id() }).await.unwrap()
    });
    assert_eq!(id.to_string(), "2");
}

// ----- spawning from outside, detaching ------------------------------------

#[test]
fn runtime_spawn_before_block_on_is_awaited_inside() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(20)
        .build()
        .unwrap();
    let h = rt.spawn(async { (task::id(), 5) });
    let expected = h.id();
    let (id, five) = rt.block_on(async move { h.await.unwrap() });
    assert_eq!(five, 5);
    assert_eq!(id, expected);
    assert_eq!(id.as_u64(), 1, "spawned before the main future");
}

#[test]
fn dropping_a_join_handle_detaches_the_task() {
    let out = sim(21, async {
        let (tx, rx) = oneshot::channel();
        let h = sim_rt::spawn(async move {
            sleep(Duration::from_millis(10)).await;
            tx.send("still ran").unwrap();
        });
        drop(h);
        rx.await.unwrap()
    });
    assert_eq!(out, "still ran");
}

// ----- lifecycle: exact poll and drop counts -------------------------------

#[test]
fn a_completed_future_is_polled_k_plus_one_times_and_dropped_once() {
    for k in [0, 1, 5] {
        let counts = Counts::default();
        let c = counts.clone();
        sim(22, async move {
            let h = sim_rt::spawn(c.yielding(k));
            settle().await;
            assert_eq!(c.drops(), 1, "dropped as soon as it completes");
            assert_eq!(h.await.unwrap(), k);
        });
        assert_eq!(counts.polls(), k + 1, "k = {k}");
        assert_eq!(counts.drops(), 1, "k = {k}");
    }
}

#[test]
fn a_task_yielding_k_times_is_polled_k_plus_one_times() {
    for k in [0usize, 1, 4] {
        let (yielding, polls) = counted(async move {
            for _ in 0..k {
                task::yield_now().await;
            }
        });
        sim(23, async move {
            sim_rt::spawn(yielding).await.unwrap();
        });
        assert_eq!(polls.load(Ordering::SeqCst), k + 1, "k = {k}");
    }
}

#[test]
fn an_aborted_future_is_dropped_once_and_not_polled_again() {
    let counts = Counts::default();
    let c = counts.clone();
    sim(24, async move {
        let h = sim_rt::spawn(c.forever());
        settle().await;
        assert_eq!((c.polls(), c.drops()), (1, 0));
        h.abort();
        h.abort(); // twice: still one cancellation
        assert!(h.await.unwrap_err().is_cancelled());
        assert_eq!(c.drops(), 1);
    });
    assert_eq!((counts.polls(), counts.drops()), (1, 1));
}

#[test]
fn a_future_aborted_before_its_first_poll_is_never_polled() {
    let counts = Counts::default();
    let c = counts.clone();
    sim(25, async move {
        let h = sim_rt::spawn(c.yielding(0));
        h.abort();
        assert!(h.await.unwrap_err().is_cancelled());
    });
    assert_eq!((counts.polls(), counts.drops()), (0, 1));
}

#[test]
fn a_pending_future_is_dropped_once_when_the_runtime_is_dropped() {
    let counts = Counts::default();
    let c = counts.clone();
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(26)
        .build()
        .unwrap();
    let (attached, detached) = rt.block_on(async move {
        let attached = sim_rt::spawn(c.forever());
        let detached = sim_rt::spawn(c.forever());
        settle().await;
        (attached, detached)
    });
    drop(detached);
    assert_eq!((counts.polls(), counts.drops()), (2, 0));
    drop(rt);
    assert_eq!(counts.drops(), 2);
    assert!(attached.is_finished(), "its runtime is gone");
    drop(attached);
    assert_eq!((counts.polls(), counts.drops()), (2, 2));
}

#[test]
fn an_unclaimed_output_is_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let d = drops.clone();
    sim(27, async move {
        // Handle dropped after the task finished: the output goes with it.
        let d1 = d.clone();
        let h = sim_rt::spawn(async move { DropCount(d1) });
        settle().await;
        assert_eq!(d.load(Ordering::SeqCst), 0, "kept for the handle");
        drop(h);
        assert_eq!(d.load(Ordering::SeqCst), 1);

        // Handle dropped first: the output is dropped when the task ends.
        let d2 = d.clone();
        drop(sim_rt::spawn(async move { DropCount(d2) }));
        settle().await;
        assert_eq!(d.load(Ordering::SeqCst), 2);

        // Claimed: dropped by whoever took it.
        let d3 = d.clone();
        let out = sim_rt::spawn(async move { DropCount(d3) }).await.unwrap();
        assert_eq!(d.load(Ordering::SeqCst), 2);
        drop(out);
        assert_eq!(d.load(Ordering::SeqCst), 3);
    });
    assert_eq!(drops.load(Ordering::SeqCst), 3);
}

#[test]
fn aborting_from_another_task_wakes_the_joiner() {
    let err = sim(28, async {
        let h = sim_rt::spawn(pending::<()>());
        let ah = h.abort_handle();
        sim_rt::spawn(async move {
            sleep(Duration::from_millis(3)).await;
            ah.abort();
        });
        let start = Instant::now();
        let err = h.await.unwrap_err();
        assert_eq!(start.elapsed(), Duration::from_millis(3));
        err
    });
    assert!(err.is_cancelled());
}

#[test]
fn a_task_that_aborts_itself_stops_at_its_next_yield() {
    let reached = Arc::new(AtomicUsize::new(0));
    let r = reached.clone();
    let err = sim(29, async move {
        let (tx, rx) = oneshot::channel::<task::AbortHandle>();
        let h = sim_rt::spawn(async move {
            let me = rx.await.unwrap();
            me.abort();
            r.fetch_add(1, Ordering::SeqCst); // runs: abort waits for a yield
            task::yield_now().await;
            r.fetch_add(10, Ordering::SeqCst); // never runs
        });
        tx.send(h.abort_handle()).unwrap();
        h.await.unwrap_err()
    });
    assert!(err.is_cancelled());
    assert_eq!(reached.load(Ordering::SeqCst), 1);
}

/// As tokio's: a dropped runtime cancels its unfinished tasks, and their
/// handles say so wherever they are polled.
#[test]
fn polling_a_join_handle_after_its_runtime_is_gone_is_cancelled() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(30)
        .build()
        .unwrap();
    let h = rt.spawn(async { 1 });
    drop(rt);
    let err = futures::executor::block_on(h).unwrap_err();
    assert!(err.is_cancelled());
}

#[test]
fn a_panic_with_a_non_string_payload_under_ignore() {
    let err = sim_ignoring_panics(31, async {
        sim_rt::spawn(async { std::panic::panic_any(42u8) })
            .await
            .unwrap_err()
    });
    assert_eq!(err.to_string(), "task 2 panicked");
    assert_eq!(*err.into_panic().downcast::<u8>().unwrap(), 42);
}

/// Spawns a task from its destructor, as cleanup guards often do.
struct SpawnOnDrop;

impl Drop for SpawnOnDrop {
    fn drop(&mut self) {
        drop(sim_rt::spawn(async {}));
    }
}

#[test]

fn a_spawn_in_a_destructor_during_a_failure_keeps_the_report() {
    let res = std::panic::catch_unwind(|| {
        sim(32, async {
            sim_rt::spawn(async {
                let _guard = SpawnOnDrop;
                pending::<()>().await
            });
            settle().await;
            panic!("the real failure");
        })
    });
    let payload = res.expect_err("block_on must panic");
    let message = panic_text(&*payload).unwrap_or_default();
    assert!(
        message.contains("the main future panicked: the real failure"),
        "the report was replaced by: {message}"
    );
}
