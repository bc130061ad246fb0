//! The cooperative budget (`task::coop`): 128 units per poll, a forced
//! yield when they are spent, `unconstrained`, `cooperative`, and the unit
//! given back by `RestoreOnPending` when no progress was made.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use sim_rt::task::coop;

/// Counts the polls of the future it wraps.
struct CountPolls<F> {
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

fn counted<F: Future>(f: F) -> (CountPolls<F>, Arc<AtomicUsize>) {
    let polls = Arc::new(AtomicUsize::new(0));
    let wrapped = CountPolls {
        inner: Box::pin(f),
        polls: polls.clone(),
    };
    (wrapped, polls)
}

/// 300 units: the task runs 128, yields, 128, yields, 44: three polls.
#[sim_rt::test]
async fn a_task_yields_when_its_budget_is_spent() {
    let (task, polls) = counted(async {
        for _ in 0..300 {
            coop::consume_budget().await;
        }
    });
    sim_rt::spawn(task).await.unwrap();
    assert_eq!(polls.load(Ordering::Relaxed), 3);
}

#[sim_rt::test]
async fn unconstrained_work_never_yields_for_budget() {
    let (task, polls) = counted(coop::unconstrained(async {
        for _ in 0..1000 {
            coop::consume_budget().await;
        }
    }));
    sim_rt::spawn(task).await.unwrap();
    assert_eq!(polls.load(Ordering::Relaxed), 1);
}

/// A spinning task and a counter that starts once the spinner has: with
/// the budget, the spinner yields every 128 units and the counter runs in
/// between, so the spinner sees it move. Without it, the spinner would
/// spin to the end in one poll and see 0.
#[sim_rt::test]
async fn a_spinning_task_lets_others_run() {
    let started = Arc::new(AtomicUsize::new(0));
    let progress = Arc::new(AtomicUsize::new(0));
    let spinner = {
        let (started, progress) = (started.clone(), progress.clone());
        sim_rt::spawn(async move {
            started.store(1, Ordering::Relaxed);
            for _ in 0..100 * 128 {
                coop::consume_budget().await;
            }
            progress.load(Ordering::Relaxed)
        })
    };
    let counter = sim_rt::spawn(async move {
        while started.load(Ordering::Relaxed) == 0 {
            sim_rt::task::yield_now().await;
        }
        for _ in 0..5 {
            progress.fetch_add(1, Ordering::Relaxed);
            sim_rt::task::yield_now().await;
        }
    });
    let seen = spinner.await.unwrap();
    counter.await.unwrap();
    assert!(seen > 0, "the counter never ran while the spinner spun");
}

#[test]
fn outside_a_task_the_budget_is_unconstrained() {
    assert!(coop::has_budget_remaining());
    let waker = std::task::Waker::noop();
    let mut cx = Context::from_waker(waker);
    for _ in 0..1000 {
        match coop::poll_proceed(&mut cx) {
            Poll::Ready(restore) => restore.made_progress(),
            Poll::Pending => panic!("no budget outside a runtime"),
        }
    }
    assert!(coop::has_budget_remaining());
}

#[sim_rt::test]
async fn a_unit_is_given_back_unless_progress_was_made() {
    let waker = std::task::Waker::noop();
    let mut cx = Context::from_waker(waker);
    // 127 units spent and kept.
    for _ in 0..127 {
        let Poll::Ready(restore) = coop::poll_proceed(&mut cx) else {
            panic!("budget left");
        };
        restore.made_progress();
    }
    // The last unit taken and given back, many times over.
    for _ in 0..10 {
        let Poll::Ready(restore) = coop::poll_proceed(&mut cx) else {
            panic!("the unit was given back");
        };
        assert!(!coop::has_budget_remaining());
        drop(restore);
        assert!(coop::has_budget_remaining());
    }
    let Poll::Ready(restore) = coop::poll_proceed(&mut cx) else {
        panic!("one unit left");
    };
    restore.made_progress();
    assert!(!coop::has_budget_remaining());
    assert!(coop::poll_proceed(&mut cx).is_pending());
}

/// `cooperative` takes a unit per poll of an always-ready future, so 200
/// of them in a row cost the task one yield.
#[sim_rt::test]
async fn cooperative_futures_spend_budget() {
    let (task, polls) = counted(async {
        for i in 0..200 {
            assert_eq!(coop::cooperative(std::future::ready(i)).await, i);
        }
    });
    sim_rt::spawn(task).await.unwrap();
    assert_eq!(polls.load(Ordering::Relaxed), 2);
}

#[test]
fn block_in_place_runs_inline_on_a_multi_thread_runtime() {
    let rt = sim_rt::runtime::Builder::new_multi_thread()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        sim_rt::spawn(async { sim_rt::task::block_in_place(|| 6 * 7) })
            .await
            .unwrap()
    });
    assert_eq!(out, 42);
    assert_eq!(sim_rt::task::block_in_place(|| 1), 1, "outside a runtime");
}

#[test]
#[should_panic(expected = "can call blocking only when running on the multi-threaded runtime")]
fn block_in_place_panics_on_a_current_thread_runtime() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async { sim_rt::task::block_in_place(|| ()) });
}
