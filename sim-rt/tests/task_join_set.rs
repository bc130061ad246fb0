//! `JoinSet`: completion order, abort, drop, detach, join_all, large sets.

mod rt_support;

use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::FutureExt;
use rt_support::{random_order, sim as run, sim_ignoring_panics as run_ignoring_panics, DropCount};
use sim_rt::task::{self, JoinSet};
use sim_rt::time::{sleep, Instant};

#[test]
fn joins_in_completion_order_with_exact_times() {
    for seed in 0..20 {
        let out = run(seed, async {
            let start = Instant::now();
            let mut set = JoinSet::new();
            for i in 0..5u64 {
                set.spawn(async move {
                    sleep(Duration::from_millis(10 * (5 - i))).await;
                    i
                });
            }
            assert_eq!(set.len(), 5);
            let mut out = Vec::new();
            while let Some(res) = set.join_next().await {
                out.push((res.unwrap(), start.elapsed()));
            }
            assert!(set.is_empty());
            out
        });
        let expected: Vec<_> = (0..5u64)
            .rev()
            .map(|i| (i, Duration::from_millis(10 * (5 - i))))
            .collect();
        assert_eq!(out, expected, "seed {seed}");
    }
}

/// Three tasks that finish in their first poll: the set returns them in the
/// order the simulation ran them, and over 200 seeds every one of the 3! = 6
/// orders is observed under a uniformly random scheduler (the default runs
/// them in spawn order, as tokio's current-thread runtime does).
#[test]
fn same_instant_completions_follow_the_run_order() {
    let mut orders = BTreeSet::new();
    for seed in 0..200 {
        let rt = random_order(seed);
        let (ran, joined) = rt.block_on(async {
            let ran = Arc::new(Mutex::new(Vec::new()));
            let mut set = JoinSet::new();
            for i in 0..3u32 {
                let ran = ran.clone();
                set.spawn(async move {
                    ran.lock().unwrap().push(i);
                    i
                });
            }
            let mut joined = Vec::new();
            while let Some(res) = set.join_next().await {
                joined.push(res.unwrap());
            }
            let ran = ran.lock().unwrap().clone();
            (ran, joined)
        });
        assert_eq!(ran, joined, "seed {seed}");
        orders.insert(joined);
    }
    let all: BTreeSet<Vec<u32>> = [
        vec![0, 1, 2],
        vec![0, 2, 1],
        vec![1, 0, 2],
        vec![1, 2, 0],
        vec![2, 0, 1],
        vec![2, 1, 0],
    ]
    .into_iter()
    .collect();
    assert_eq!(orders, all);
}

#[test]
fn join_next_with_id_reports_the_spawned_ids() {
    run(1, async {
        let mut set = JoinSet::new();
        let a = set.spawn(async { "a" });
        let b = set.spawn(async {
            sleep(Duration::from_secs(1)).await;
            "b"
        });
        assert_ne!(a.id(), b.id());
        let (id, out) = set.join_next_with_id().await.unwrap().unwrap();
        assert_eq!((id, out), (a.id(), "a"));
        let (id, out) = set.join_next_with_id().await.unwrap().unwrap();
        assert_eq!((id, out), (b.id(), "b"));
        assert!(set.join_next_with_id().await.is_none());
    });
}

#[test]
fn abort_all_gives_cancelled_errors_for_unfinished_tasks() {
    let (cancelled, finished, drops) = run(3, async {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        let mut ids = BTreeSet::new();
        for i in 0..5u32 {
            let guard = DropCount(drops.clone());
            let h = set.spawn(async move {
                let _guard = guard;
                if i >= 2 {
                    sleep(Duration::from_secs(3600)).await;
                }
                i
            });
            ids.insert(h.id());
        }
        // Let tasks 0 and 1 finish.
        sleep(Duration::from_millis(1)).await;
        set.abort_all();
        assert_eq!(set.len(), 5, "abort_all keeps the tasks in the set");
        let mut cancelled = BTreeSet::new();
        let mut finished = BTreeSet::new();
        while let Some(res) = set.join_next().await {
            match res {
                Ok(i) => {
                    finished.insert(i);
                }
                Err(e) => {
                    assert!(e.is_cancelled(), "{e}");
                    assert!(ids.contains(&e.id()));
                    cancelled.insert(e.id());
                }
            }
        }
        (cancelled.len(), finished, drops.load(Ordering::SeqCst))
    });
    assert_eq!(cancelled, 3);
    assert_eq!(finished, [0, 1].into_iter().collect());
    assert_eq!(drops, 5);
}

#[test]
fn abort_handle_cancels_one_task() {
    run(4, async {
        let mut set = JoinSet::new();
        let slow = set.spawn(async {
            sleep(Duration::from_secs(10)).await;
            1
        });
        set.spawn(async {
            sleep(Duration::from_secs(1)).await;
            2
        });
        slow.abort();
        let first = set.join_next().await.unwrap().unwrap_err();
        assert!(first.is_cancelled());
        assert_eq!(first.id(), slow.id());
        assert_eq!(set.join_next().await.unwrap().unwrap(), 2);
        assert!(set.join_next().await.is_none());
    });
}

#[test]
fn dropping_the_set_aborts_its_tasks() {
    let (completed, drops, elapsed) = run(5, async {
        let start = Instant::now();
        let completed = Arc::new(AtomicUsize::new(0));
        let drops = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        for _ in 0..4 {
            let completed = completed.clone();
            let guard = DropCount(drops.clone());
            set.spawn(async move {
                let _guard = guard;
                sleep(Duration::from_secs(5)).await;
                completed.fetch_add(1, Ordering::SeqCst);
            });
        }
        sleep(Duration::from_secs(1)).await;
        drop(set);
        sleep(Duration::from_secs(10)).await;
        (
            completed.load(Ordering::SeqCst),
            drops.load(Ordering::SeqCst),
            start.elapsed(),
        )
    });
    assert_eq!(completed, 0);
    assert_eq!(drops, 4);
    assert_eq!(elapsed, Duration::from_secs(11));
}

#[test]
fn detach_all_lets_tasks_run_on() {
    let completed = run(6, async {
        let completed = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        for _ in 0..4 {
            let completed = completed.clone();
            set.spawn(async move {
                sleep(Duration::from_secs(5)).await;
                completed.fetch_add(1, Ordering::SeqCst);
            });
        }
        set.detach_all();
        assert!(set.is_empty());
        assert!(set.join_next().await.is_none());
        // Reuse the set after detaching: old tasks never come back.
        set.spawn(async {});
        assert!(set.join_next().await.unwrap().is_ok());
        drop(set);
        sleep(Duration::from_secs(10)).await;
        completed.load(Ordering::SeqCst)
    });
    assert_eq!(completed, 4);
}

#[test]
fn shutdown_aborts_and_empties() {
    let drops = run(7, async {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        for _ in 0..3 {
            let guard = DropCount(drops.clone());
            set.spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await
            });
        }
        set.shutdown().await;
        assert!(set.is_empty());
        drops.load(Ordering::SeqCst)
    });
    assert_eq!(drops, 3);
}

#[test]
fn ten_thousand_tasks_all_join() {
    const N: u64 = 10_000;
    let (count, sum, elapsed) = run(8, async {
        let start = Instant::now();
        let mut set = JoinSet::new();
        for i in 0..N {
            set.spawn(async move {
                sleep(Duration::from_millis(i % 100)).await;
                i
            });
        }
        let mut count = 0u64;
        let mut sum = 0u64;
        let mut last = Duration::ZERO;
        while let Some(res) = set.join_next().await {
            let i = res.unwrap();
            // Completion order: never earlier than a task joined before.
            let due = Duration::from_millis(i % 100);
            assert!(due >= last);
            last = due;
            count += 1;
            sum += i;
        }
        (count, sum, start.elapsed())
    });
    assert_eq!(count, N);
    assert_eq!(sum, N * (N - 1) / 2);
    assert_eq!(elapsed, Duration::from_millis(99));
}

#[test]
fn join_all_returns_outputs_in_completion_order() {
    let out = run(9, async {
        let mut set = JoinSet::new();
        for i in 0..3u64 {
            set.spawn(async move {
                sleep(Duration::from_secs(3 - i)).await;
                i
            });
        }
        set.join_all().await
    });
    assert_eq!(out, vec![2, 1, 0]);
}

#[test]
fn join_all_resumes_a_task_panic_and_aborts_the_rest() {
    let (payload, drops) = run_ignoring_panics(10, async {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut set = JoinSet::new();
        let guard = DropCount(drops.clone());
        set.spawn(async move {
            let _guard = guard;
            std::future::pending::<u32>().await
        });
        set.spawn(async {
            sleep(Duration::from_secs(1)).await;
            panic!("boom in task")
        });
        let err = AssertUnwindSafe(set.join_all())
            .catch_unwind()
            .await
            .unwrap_err();
        let payload = *err.downcast::<&'static str>().unwrap();
        // The pending task was aborted when the set dropped.
        sleep(Duration::from_secs(1)).await;
        (payload, drops.load(Ordering::SeqCst))
    });
    assert_eq!(payload, "boom in task");
    assert_eq!(drops, 1);
}

#[test]
fn join_all_panics_on_a_cancelled_task() {
    let msg = run(11, async {
        let mut set = JoinSet::new();
        let h = set.spawn(std::future::pending::<()>());
        h.abort();
        let err = AssertUnwindSafe(set.join_all())
            .catch_unwind()
            .await
            .unwrap_err();
        (*err.downcast::<String>().unwrap(), h.id())
    });
    assert_eq!(msg.0, format!("task {} was cancelled", msg.1));
}

#[test]
fn panicking_task_gives_a_panic_error() {
    let (is_panic, message) = run_ignoring_panics(12, async {
        let mut set = JoinSet::<()>::new();
        set.spawn(async { panic!("kaboom") });
        let err = set.join_next().await.unwrap().unwrap_err();
        (
            err.is_panic(),
            *err.into_panic().downcast::<&'static str>().unwrap(),
        )
    });
    assert!(is_panic);
    assert_eq!(message, "kaboom");
}

#[test]
fn try_join_next_only_returns_finished_tasks() {
    run(13, async {
        let mut set = JoinSet::new();
        assert!(set.try_join_next().is_none());
        set.spawn(async {
            sleep(Duration::from_secs(1)).await;
            7
        });
        assert!(set.try_join_next().is_none());
        assert!(set.try_join_next_with_id().is_none());
        assert_eq!(set.len(), 1);
        sleep(Duration::from_secs(2)).await;
        assert_eq!(set.try_join_next().unwrap().unwrap(), 7);
        assert!(set.try_join_next().is_none());
        assert!(set.is_empty());
    });
}

#[test]
fn poll_join_next_on_an_empty_set_is_ready_none() {
    let set = std::cell::RefCell::new(JoinSet::<()>::new());
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    assert!(matches!(
        set.borrow_mut().poll_join_next(&mut cx),
        Poll::Ready(None)
    ));
    assert!(matches!(
        set.borrow_mut().poll_join_next_with_id(&mut cx),
        Poll::Ready(None)
    ));
    assert_eq!(format!("{:?}", set.borrow()), "JoinSet { len: 0 }");
}

#[test]
fn join_next_is_cancel_safe() {
    run(14, async {
        let mut set = JoinSet::new();
        set.spawn(async {
            sleep(Duration::from_secs(2)).await;
            "done"
        });
        // Lose the race once: nothing is removed.
        sim_rt::select! {
            _ = set.join_next() => panic!("the task finishes after the timeout"),
            _ = sleep(Duration::from_secs(1)) => {}
        }
        assert_eq!(set.len(), 1);
        assert_eq!(set.join_next().await.unwrap().unwrap(), "done");
    });
}

#[test]
fn spawn_local_blocking_collect_and_extend() {
    // A local runtime: `spawn_local` needs one (or a `LocalSet`), as on tokio.
    let mut all = rt_support::sim_local(15, async {
        let mut set: JoinSet<u32> = (0..3).map(|i| async move { i }).collect();
        set.extend((3..5).map(|i| async move { i }));
        set.spawn_blocking(|| 5);
        let not_send = Rc::new(6);
        set.spawn_local(async move { *not_send });
        set.spawn_on(async { 7 }, &sim_rt::runtime::Handle::current());
        assert_eq!(set.len(), 8);
        let mut all = Vec::new();
        while let Some(res) = set.join_next().await {
            all.push(res.unwrap());
        }
        all
    });
    all.sort();
    assert_eq!(all, (0..8).collect::<Vec<_>>());
}

#[test]
fn joining_from_a_spawned_task() {
    let out = run(16, async {
        task::spawn(async {
            let mut set = JoinSet::default();
            for i in 0..10u32 {
                set.spawn(async move {
                    sleep(Duration::from_millis(u64::from(i))).await;
                    i
                });
            }
            set.join_all().await
        })
        .await
        .unwrap()
    });
    assert_eq!(out, (0..10).collect::<Vec<_>>());
}

/// Compile-only parity with tokio: the same code builds against tokio and,
/// with `tokio` renamed to `sim_rt`, against the simulation.
macro_rules! parity {
    () => {
        #[allow(dead_code, unused_must_use)]
        async fn join_set_api() {
            use std::task::Poll;
            use tokio::task::{AbortHandle, Id, JoinError, JoinSet, LocalSet};

            fn send_sync<T: Send + Sync>(_: &T) {}

            let handle = tokio::runtime::Handle::current();
            let local = LocalSet::new();
            let mut set: JoinSet<u32> = JoinSet::new();
            send_sync(&set);
            let _: AbortHandle = set.spawn(async { 1 });
            let _: AbortHandle = set.spawn_on(async { 1 }, &handle);
            let _: AbortHandle = set.spawn_local(async { 1 });
            let _: AbortHandle = set.spawn_local_on(async { 1 }, &local);
            let _: AbortHandle = set.spawn_blocking(|| 1);
            let _: AbortHandle = set.spawn_blocking_on(|| 1, &handle);
            let _: Option<Result<u32, JoinError>> = set.join_next().await;
            let _: Option<Result<(Id, u32), JoinError>> = set.join_next_with_id().await;
            let _: Option<Result<u32, JoinError>> = set.try_join_next();
            let _: Option<Result<(Id, u32), JoinError>> = set.try_join_next_with_id();
            let _: Poll<Option<Result<u32, JoinError>>> =
                std::future::poll_fn(|cx| Poll::Ready(set.poll_join_next(cx))).await;
            let _: Poll<Option<Result<(Id, u32), JoinError>>> =
                std::future::poll_fn(|cx| Poll::Ready(set.poll_join_next_with_id(cx))).await;
            set.abort_all();
            set.detach_all();
            let _: usize = set.len();
            let _: bool = set.is_empty();
            set.shutdown().await;
            let _: Vec<u32> = set.join_all().await;
            let mut set: JoinSet<u32> = (0..3).map(|i| async move { i }).collect();
            set.extend((0..3).map(|i| async move { i }));
            let _: JoinSet<u32> = Default::default();
            let _ = format!("{set:?}");
        }
    };
}

mod real {
    parity!();
}

mod sim {
    use sim_rt as tokio;
    parity!();
}
