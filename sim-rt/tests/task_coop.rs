//! The cooperative budget (`task::coop`): 128 units per poll, a forced
//! yield when they are spent, `unconstrained`, `cooperative`, and the unit
//! given back by `RestoreOnPending` when no progress was made.

mod rt_support;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use rt_support::counted;
use sim_rt::task::coop;

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
        .enable_all()
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
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async { sim_rt::task::block_in_place(|| ()) });
}

#[test]
#[should_panic(expected = "can call blocking only when running on the multi-threaded runtime")]
fn block_in_place_panics_in_a_task_of_a_current_thread_runtime() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let _enter = rt.enter();
    handle.block_on(async {
        let joined = sim_rt::spawn(async { sim_rt::task::block_in_place(|| ()) }).await;
        if let Err(err) = joined {
            std::panic::resume_unwind(err.into_panic());
        }
    });
}

/// A current-thread runtime's `Handle::block_on` holds no core in tokio:
/// `block_in_place` works in its future, and a `block_on` nested in it
/// runs.
#[test]
fn block_in_place_works_in_a_current_thread_handle_block_on() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let out = handle.block_on(async {
        sim_rt::task::block_in_place(|| {
            sim_rt::runtime::Handle::current().block_on(async {
                sim_rt::task::yield_now().await;
                7
            })
        })
    });
    assert_eq!(out, 7);
}

/// tokio runs `block_in_place`'s closure with no cooperative budget: a
/// future it polls to completion is never told to yield.
#[test]
fn block_in_place_has_no_budget() {
    let rt = sim_rt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        sim_rt::spawn(async {
            sim_rt::task::block_in_place(|| {
                for _ in 0..500 {
                    assert!(coop::has_budget_remaining());
                    let waker = std::task::Waker::noop();
                    let mut cx = Context::from_waker(waker);
                    assert!(coop::poll_proceed(&mut cx).is_ready());
                }
            })
        })
        .await
        .unwrap()
    });
}

// ----- What takes budget, as in tokio -----------------------------------------

/// After a yield (so the task starts a poll with tokio's 128 units), how
/// many futures made by `$make` in a row complete on their first poll before
/// one returns `Pending`, stopping at `$max`: 128 for a resource that takes
/// budget and is always ready, `$max` for one that takes none.
macro_rules! ready_in_one_poll {
    ($max:expr, $make:expr) => {{
        sim_rt::task::yield_now().await;
        std::future::poll_fn(|cx| {
            let mut n = 0usize;
            while n < $max {
                let fut = std::pin::pin!($make);
                if fut.poll(cx).is_pending() {
                    break;
                }
                n += 1;
            }
            Poll::Ready(n)
        })
        .await
    }};
}

const BUDGET: usize = 128;

#[sim_rt::test]
async fn watch_changed_takes_budget_on_a_closed_channel() {
    let (tx, mut rx) = sim_rt::sync::watch::channel(());
    drop(tx);
    let n = ready_in_one_poll!(1000, async { assert!(rx.changed().await.is_err()) });
    assert_eq!(n, BUDGET);
}

#[sim_rt::test]
async fn watch_changed_takes_budget_when_a_value_is_waiting() {
    let (tx, mut rx) = sim_rt::sync::watch::channel(0);
    let n = ready_in_one_poll!(1000, async {
        tx.send(1).unwrap();
        rx.changed().await.unwrap()
    });
    assert_eq!(n, BUDGET);
}

#[sim_rt::test]
async fn watch_wait_for_takes_budget() {
    let (tx, mut rx) = sim_rt::sync::watch::channel(1);
    let n = ready_in_one_poll!(1000, async {
        assert_eq!(*rx.wait_for(|v| *v == 1).await.unwrap(), 1);
    });
    assert_eq!(n, BUDGET);
    drop(tx);
}

#[sim_rt::test]
async fn watch_sender_closed_takes_budget() {
    let (tx, rx) = sim_rt::sync::watch::channel(());
    drop(rx);
    let n = ready_in_one_poll!(1000, tx.closed());
    assert_eq!(n, BUDGET);
}

#[sim_rt::test]
async fn an_elapsed_sleep_takes_budget() {
    let n = ready_in_one_poll!(1000, sim_rt::time::sleep(std::time::Duration::ZERO));
    assert_eq!(n, BUDGET);
}

/// tokio's `select!` first checks the budget: once it is spent, even a
/// branch that is always ready (`ready(())`, which takes none) waits for
/// the next poll.
#[sim_rt::test]
async fn select_returns_pending_once_the_budget_is_spent() {
    let n = ready_in_one_poll!(1000, async {
        sim_rt::select! {
            biased;
            () = coop::consume_budget() => {}
            () = std::future::ready(()) => {}
        }
    });
    assert_eq!(n, BUDGET);
}

/// A select over branches that take no budget still never gets past a
/// spent budget, and takes none itself.
#[sim_rt::test]
async fn select_takes_no_budget_itself() {
    let n = ready_in_one_poll!(1000, async {
        sim_rt::select! {
            () = std::future::ready(()) => {}
            () = std::future::pending::<()>() => {}
        }
    });
    assert_eq!(n, 1000);
}

/// A finished task's `JoinHandle` takes a unit when it hands over the
/// output (as tokio's).
#[sim_rt::test]
async fn join_handles_take_budget() {
    let mut handles: Vec<_> = (0..200).map(|i| sim_rt::spawn(async move { i })).collect();
    // Every task runs (and finishes) before the clock moves.
    sim_rt::time::sleep(std::time::Duration::from_millis(1)).await;
    let mut next = handles.iter_mut();
    let n = ready_in_one_poll!(200, async {
        next.next().unwrap().await.unwrap();
    });
    assert_eq!(n, BUDGET);
}

/// tokio's `join_set_coop`: a set of finished tasks cannot be drained in
/// one poll; `join_next` returns `Pending` once the budget is spent (and
/// the task is woken), and every output still arrives exactly once.
#[sim_rt::test]
async fn join_set_join_next_yields_when_the_budget_is_spent() {
    use futures::FutureExt;

    const TASKS: u32 = 1000;
    let mut set = sim_rt::task::JoinSet::new();
    for i in 0..TASKS {
        set.spawn(async move { i });
    }
    sim_rt::time::sleep(std::time::Duration::from_millis(1)).await;
    let mut seen = Vec::new();
    let mut yields = 0;
    loop {
        match set.join_next().now_or_never() {
            Some(Some(out)) => seen.push(out.unwrap()),
            Some(None) => break,
            None => {
                yields += 1;
                sim_rt::task::yield_now().await;
            }
        }
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..TASKS).collect::<Vec<_>>());
    // 1000 outputs at 128 per poll (the first poll's budget shared with the
    // sleep that woke it): at least 7 forced yields.
    assert!(yields >= 7, "{yields} yields");
    // try_join_next cannot yield, so it takes no budget.
    let mut set = sim_rt::task::JoinSet::new();
    for i in 0..TASKS {
        set.spawn(async move { i });
    }
    sim_rt::time::sleep(std::time::Duration::from_millis(1)).await;
    let mut n = 0;
    while set.try_join_next().is_some() {
        n += 1;
    }
    assert_eq!(n, TASKS);
}

/// tokio's `timeout_is_not_exhausted_by_future`, with a deadline already
/// due: the future spends the whole budget at every poll, and the timeout
/// still checks its timer (without a budget) and elapses. Without that the
/// timer's poll would find no budget left, every time, and the run would
/// never end (here: the step limit).
#[test]
fn a_timeout_fires_when_its_future_spends_the_budget() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .max_steps(1_000)
        .build()
        .unwrap();
    rt.block_on(async {
        let deadline = sim_rt::time::Instant::now();
        let spin = async {
            loop {
                coop::consume_budget().await;
            }
        };
        assert!(sim_rt::time::timeout_at(deadline, spin).await.is_err());
    });
}

/// Socket operations that complete take a unit each, as tokio's readiness
/// polls do: 200 datagrams waiting, 128 received in one poll.
#[sim_rt::test]
async fn socket_receives_take_budget() {
    let sock = sim_rt::net::UdpSocket::bind("127.0.0.1:9000")
        .await
        .unwrap();
    for _ in 0..200 {
        sock.send_to(b"x", "127.0.0.1:9000").await.unwrap();
    }
    sim_rt::time::sleep(std::time::Duration::from_secs(1)).await;
    let mut buf = [0u8; 1];
    let n = ready_in_one_poll!(200, sock.recv(&mut buf));
    assert_eq!(n, BUDGET);
    // And the readiness polls.
    let n = ready_in_one_poll!(200, std::future::poll_fn(|cx| sock.poll_recv_ready(cx)));
    assert_eq!(n, BUDGET);
}
