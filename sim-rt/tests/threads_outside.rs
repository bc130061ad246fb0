//! A runtime used from threads it did not start: guests (`Handle::spawn`,
//! `block_on`, `enter` from an outside thread) and the owner thread driving
//! its simulations while it waits outside a `block_on`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use sim_rt::runtime::{Builder, Handle, Runtime};
use sim_rt::sync::oneshot;

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

fn multi_thread() -> Runtime {
    Builder::new_multi_thread().enable_all().build().unwrap()
}

/// An outside thread spawns while the main future waits for it: the
/// simulation waits for the thread instead of reporting a deadlock, and
/// the run is the same every time (the thread joins while the simulation
/// waits: it spawns once the main future told it to, and the main future
/// then waits for what it spawns).
#[test]
fn spawn_from_an_outside_thread_while_idle_is_reproducible() {
    let run = || {
        let rt = current_thread();
        let handle = rt.handle().clone();
        let (tx, rx) = oneshot::channel();
        let (go, wait_go) = mpsc::channel();
        let outside = thread::spawn(move || {
            wait_go.recv().unwrap();
            handle.spawn(async move {
                sim_rt::time::sleep(Duration::from_millis(5)).await;
                tx.send(7).unwrap();
            });
        });
        let got = rt.block_on(async move {
            go.send(()).unwrap();
            rx.await.unwrap()
        });
        outside.join().unwrap();
        assert_eq!(got, 7);
        let trace = rt.trace();
        assert_eq!(trace.guests().len(), 1, "one guest joined");
        trace.hash()
    };
    assert_eq!(
        run(),
        run(),
        "a guest that joins an idle simulation replays"
    );
}

/// Two outside threads share a runtime's `block_on`; the owner drives it
/// while it joins them.
#[test]
fn block_on_from_two_outside_threads() {
    let rt = Arc::new(current_thread());
    let (tx1, rx1) = oneshot::channel();
    let (tx2, rx2) = oneshot::channel();
    let rt1 = rt.clone();
    let a = thread::spawn(move || {
        rt1.block_on(async move {
            rx2.await.unwrap();
            sim_rt::time::sleep(Duration::from_millis(5)).await;
            tx1.send(()).unwrap();
            1
        })
    });
    let rt2 = rt.clone();
    let b = thread::spawn(move || {
        rt2.block_on(async move {
            tx2.send(()).unwrap();
            sim_rt::time::sleep(Duration::from_millis(5)).await;
            rx1.await.unwrap();
            2
        })
    });
    assert_eq!(a.join().unwrap(), 1);
    assert_eq!(b.join().unwrap(), 2);
    assert!(rt.elapsed() >= Duration::from_millis(5));
}

/// A multi-thread runtime's spawned tasks run while its owner waits on a
/// std channel, timers included.
#[test]
fn multi_thread_tasks_run_while_the_owner_waits() {
    let rt = multi_thread();
    let (tx, rx) = mpsc::channel();
    let count = Arc::new(AtomicUsize::new(0));
    for i in 0..100 {
        let tx = tx.clone();
        let count = count.clone();
        rt.spawn(async move {
            sim_rt::time::sleep(Duration::from_millis(i % 7)).await;
            if count.fetch_add(1, Ordering::SeqCst) + 1 == 100 {
                tx.send(()).unwrap();
            }
        });
    }
    rx.recv().unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 100);
    // A sleep of the owner lets simulated time pass.
    let before = rt.elapsed();
    let slept = rt.spawn(async { sim_rt::time::sleep(Duration::from_millis(30)).await });
    thread::sleep(Duration::from_millis(50));
    assert!(slept.is_finished());
    assert!(rt.elapsed() >= before + Duration::from_millis(30));
}

/// A current-thread runtime runs spawned tasks only in a `block_on`, as
/// tokio's: an outside thread's spawn waits in the queue.
#[test]
fn current_thread_tasks_wait_for_a_block_on() {
    let rt = current_thread();
    let handle = rt.handle().clone();
    let ran = Arc::new(AtomicUsize::new(0));
    let ran2 = ran.clone();
    thread::spawn(move || {
        handle.spawn(async move {
            ran2.fetch_add(1, Ordering::SeqCst);
        });
    })
    .join()
    .unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    rt.block_on(sim_rt::task::yield_now());
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

/// `Handle::enter` from an outside thread makes the simulation current
/// until the guard drops.
#[test]
fn enter_from_an_outside_thread() {
    let rt = current_thread();
    let handle = rt.handle().clone();
    let (tx, rx) = mpsc::channel();
    let outside = thread::spawn(move || {
        let _guard = handle.enter();
        let now = sim_rt::time::Instant::now();
        let task = sim_rt::spawn(async { 5 });
        tx.send(task).unwrap();
        now
    });
    let task = rx.recv().unwrap();
    outside.join().unwrap();
    assert_eq!(rt.block_on(task).unwrap(), 5);
}

/// An owner thread that spins on `yield_now` outside a `block_on` lets a
/// multi-thread runtime's tasks run.
#[test]
fn yield_now_of_the_owner_runs_tasks() {
    let rt = multi_thread();
    let done = Arc::new(AtomicUsize::new(0));
    let d = done.clone();
    rt.spawn(async move {
        for _ in 0..10 {
            sim_rt::task::yield_now().await;
        }
        d.store(1, Ordering::SeqCst);
    });
    while done.load(Ordering::SeqCst) == 0 {
        thread::yield_now();
    }
}

/// A handle of a dropped runtime, used from another thread, says so.
#[test]
fn handle_of_a_dropped_runtime_says_so() {
    let rt = current_thread();
    let handle: Handle = rt.handle().clone();
    drop(rt);
    let err = thread::spawn(move || {
        handle.block_on(async {});
    })
    .join()
    .unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("runtime was dropped"), "{msg}");
}

/// Two multi-thread runtimes of one owner: a task of one wakes a task of
/// the other while the owner waits on a std channel (tokio's
/// `rt_threaded::multi_threadpool`).
#[test]
fn a_task_of_one_runtime_wakes_a_task_of_another_while_the_owner_waits() {
    let rt1 = multi_thread();
    let rt2 = multi_thread();
    let (tx, rx) = oneshot::channel();
    let (done_tx, done_rx) = mpsc::channel();
    rt2.spawn(async move {
        rx.await.unwrap();
        done_tx.send(()).unwrap();
    });
    rt1.spawn(async move {
        tx.send(()).unwrap();
    });
    done_rx.recv().unwrap();
}

/// The owner spawns from a spin loop with `yield_now`, reading what the
/// tasks do (tokio's `rt_threaded::test_tuning`, shortened).
#[test]
fn an_owner_spinning_with_yield_now_sees_its_tasks_run() {
    let rt = Builder::new_multi_thread()
        .enable_all()
        .worker_threads(1)
        .build()
        .unwrap();
    fn iter(flag: Arc<std::sync::atomic::AtomicBool>, counter: Arc<AtomicUsize>) {
        if flag.load(Ordering::Relaxed) {
            counter.fetch_add(1, Ordering::Relaxed);
            sim_rt::spawn(async move { iter(flag, counter) });
        }
    }
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let counter = Arc::new(AtomicUsize::new(61));
    let interval = Arc::new(AtomicUsize::new(61));
    {
        let (flag, counter) = (flag.clone(), counter.clone());
        rt.spawn(async move { iter(flag, counter) });
    }
    let mut good = 0;
    while good < 3 {
        if interval.load(Ordering::Relaxed) <= 8 {
            good += 1;
        } else {
            good = 0;
        }
        let (counter, interval) = (counter.clone(), interval.clone());
        rt.spawn(async move {
            let prev = counter.swap(0, Ordering::Relaxed);
            interval.store(prev, Ordering::Relaxed);
        });
        thread::yield_now();
    }
    flag.store(false, Ordering::Relaxed);
}

/// A dropped runtime's handle can still be entered, as tokio's: inside the
/// guard `Handle::current` finds it and `tokio::spawn` returns a cancelled
/// task's handle instead of panicking.
#[test]
fn entering_a_dropped_runtime_cancels_what_it_spawns() {
    let rt = current_thread();
    let handle = rt.handle().clone();
    drop(rt);
    let _guard = handle.enter();
    assert_eq!(Handle::current().id(), handle.id());
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    let task = sim_rt::spawn(async move {
        r.fetch_add(1, Ordering::SeqCst);
    });
    let blocking = sim_rt::task::spawn_blocking(|| 1);
    // A second runtime polls the handles: both tasks were cancelled.
    let other = current_thread();
    let (task, blocking) = other.block_on(async { (task.await, blocking.await) });
    assert!(task.unwrap_err().is_cancelled());
    assert!(blocking.unwrap_err().is_cancelled());
    assert_eq!(ran.load(Ordering::SeqCst), 0, "the future never ran");
}

/// Outside every guard, no runtime is current again.
#[test]
fn leaving_a_dropped_runtime_leaves_no_context() {
    let rt = current_thread();
    let handle = rt.handle().clone();
    drop(rt);
    drop(handle.enter());
    assert!(Handle::try_current().is_err());
}

/// Metrics read after the runtime is dropped give the counters it ended
/// with, as tokio's.
#[test]
fn metrics_outlive_their_runtime() {
    let rt = current_thread();
    let metrics = rt.metrics();
    rt.block_on(async {
        sim_rt::spawn(async {});
        sim_rt::time::sleep(Duration::from_millis(1)).await;
    });
    let parks = metrics.worker_park_count(0);
    assert!(parks >= 1, "the clock moved at least once");
    drop(rt);
    assert_eq!(metrics.worker_park_count(0), parks);
    assert_eq!(metrics.num_alive_tasks(), 0);
}

/// Of two outside threads in a current-thread runtime's `block_on`, the
/// first holds its core (`worker_index() == Some(0)`), the other not.
#[test]
fn the_first_outside_block_on_holds_the_core() {
    let rt = Arc::new(current_thread());
    let (entered_tx, entered_rx) = mpsc::sync_channel(1);
    let (release_tx, release_rx) = oneshot::channel::<()>();
    let first_rt = rt.clone();
    let first = thread::spawn(move || {
        first_rt.block_on(async move {
            entered_tx.send(()).unwrap();
            release_rx.await.unwrap();
            sim_rt::runtime::worker_index()
        })
    });
    entered_rx.recv().unwrap();
    let second_rt = rt.clone();
    let second =
        thread::spawn(move || second_rt.block_on(async { sim_rt::runtime::worker_index() }));
    assert_eq!(second.join().unwrap(), None);
    release_tx.send(()).unwrap();
    assert_eq!(first.join().unwrap(), Some(0));
}

/// A task that finished before its runtime was dropped keeps its output
/// for its `JoinHandle`, as on tokio; one that had not is cancelled.
#[test]
fn a_finished_task_keeps_its_output_past_the_runtime() {
    let rt = current_thread();
    let done = rt.spawn(async { 42 });
    let pending = rt.spawn(std::future::pending::<()>());
    rt.block_on(sim_rt::task::yield_now());
    drop(rt);
    let other = current_thread();
    let (done, pending) = other.block_on(async { (done.await, pending.await) });
    assert_eq!(done.unwrap(), 42);
    assert!(pending.unwrap_err().is_cancelled());
}
