//! Simulated `tokio::runtime`: `Builder` (both flavors, the accepted-and-
//! ignored thread options and their panics), `Runtime` (`new`, `block_on`
//! twice, `spawn`, `enter`, shutdown) and `Handle` (`current`,
//! `try_current`, `spawn`, `block_on`, `runtime_flavor`).

use std::future::{pending, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use sim_rt::runtime::{Builder, Handle, Runtime, RuntimeFlavor};
use sim_rt::sync::mpsc;
use sim_rt::time::{sleep, Instant};

/// Counts how many times it was dropped; pending forever.
struct DropProbe(Arc<AtomicUsize>);

impl Future for DropProbe {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A small program with some concurrency and time, whose trace depends on
/// the scheduler's choices.
async fn workload() -> u64 {
    let mut handles = Vec::new();
    for i in 0..4u64 {
        handles.push(sim_rt::spawn(async move {
            sim_rt::task::yield_now().await;
            sleep(Duration::from_millis(i)).await;
            i * 10
        }));
    }
    let mut sum = 0;
    for h in handles {
        sum += h.await.unwrap();
    }
    sum
}

#[test]
fn both_flavors_run() {
    let ct = Builder::new_current_thread()
        .enable_all()
        .seed(1)
        .build()
        .unwrap();
    assert_eq!(ct.block_on(workload()), 60);
    let mt = Builder::new_multi_thread()
        .enable_all()
        .worker_threads(4)
        .seed(1)
        .build()
        .unwrap();
    assert_eq!(mt.block_on(workload()), 60);
    assert_eq!(ct.trace(), mt.trace(), "the flavor changes nothing");
}

#[test]
#[should_panic(expected = "Worker threads cannot be set to 0")]
fn zero_worker_threads_panics() {
    Builder::new_multi_thread().worker_threads(0);
}

#[test]
#[should_panic(expected = "Max blocking threads cannot be set to 0")]
fn zero_max_blocking_threads_panics() {
    Builder::new_multi_thread().max_blocking_threads(0);
}

#[test]
fn thread_and_driver_options_are_accepted_and_change_nothing() {
    let plain = Builder::new_current_thread()
        .enable_all()
        .seed(2)
        .build()
        .unwrap();
    let plain_out = plain.block_on(workload());
    let mut builder = Builder::new_multi_thread();
    builder.enable_all();
    builder
        .enable_all()
        .enable_time()
        .enable_io()
        .worker_threads(3)
        .max_blocking_threads(8)
        .thread_name("sim-worker")
        .thread_name(String::from("owned-name"))
        .thread_stack_size(3 * 1024 * 1024)
        .thread_keep_alive(Duration::from_secs(1))
        .event_interval(31)
        .global_queue_interval(61)
        .seed(2);
    let configured = builder.build().unwrap();
    assert_eq!(configured.block_on(workload()), plain_out);
    assert_eq!(configured.trace(), plain.trace());
}

#[test]
fn runtime_new_runs_a_multi_thread_flavored_simulation() {
    let rt = Runtime::new().unwrap();
    assert_eq!(rt.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
    assert_eq!(
        rt.block_on(async { sim_rt::spawn(async { 3 }).await.unwrap() }),
        3
    );
}

#[test]
fn runtime_flavor_of_the_runtime_handle() {
    let ct = Builder::new_current_thread().enable_all().build().unwrap();
    assert_eq!(ct.handle().runtime_flavor(), RuntimeFlavor::CurrentThread);
    let mt = Builder::new_multi_thread().enable_all().build().unwrap();
    assert_eq!(mt.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
}

#[test]
fn runtime_flavor_of_handle_current_in_a_current_thread_runtime() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(3)
        .build()
        .unwrap();
    let flavor = rt.block_on(async { Handle::current().runtime_flavor() });
    assert_eq!(flavor, RuntimeFlavor::CurrentThread);
}

#[test]
fn runtime_flavor_of_handle_current_in_a_multi_thread_runtime() {
    let rt = Builder::new_multi_thread()
        .enable_all()
        .seed(4)
        .build()
        .unwrap();
    let flavor = rt.block_on(async { Handle::current().runtime_flavor() });
    assert_eq!(flavor, RuntimeFlavor::MultiThread);
}

#[test]
fn handle_current_inside_block_on_spawns_onto_the_simulation() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(5)
        .build()
        .unwrap();
    let (out, id) = rt.block_on(async {
        let handle = Handle::current();
        let h = handle.spawn(async { (sim_rt::task::id(), 11) });
        let id = h.id();
        let (inside, out) = h.await.unwrap();
        assert_eq!(inside, id);
        let blocking = handle.spawn_blocking(|| 12).await.unwrap();
        (out + blocking, id.as_u64())
    });
    assert_eq!(out, 23);
    assert_eq!(id, 2, "the second task of the simulation");
}

#[test]
fn handle_try_current_outside_is_a_missing_context_error() {
    let err = Handle::try_current().unwrap_err();
    assert!(err.is_missing_context());
    assert!(!err.is_thread_local_destroyed());
    assert_eq!(
        err.to_string(),
        "there is no simulation running, must be called from the context of a sim_rt runtime"
    );
}

#[test]
#[should_panic(expected = "there is no simulation running")]
fn handle_current_outside_panics() {
    let _ = Handle::current();
}

#[test]
fn handle_block_on_from_outside_the_simulation() {
    let rt = Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .seed(6)
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let out = handle.block_on(async {
        sleep(Duration::from_millis(8)).await;
        Instant::now()
    });
    assert_eq!(rt.elapsed(), Duration::from_millis(8));
    // The same simulation: its clock went on from where this left it.
    let later = rt.block_on(async { Instant::now() });
    assert_eq!(later, out);
}

#[test]
fn runtime_spawn_and_spawn_blocking_before_block_on() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(7)
        .build()
        .unwrap();
    let a = rt.spawn(async { 1 });
    let b = rt.spawn_blocking(|| 2);
    let c = rt.handle().spawn(async { 3 });
    let out = rt.block_on(async move { a.await.unwrap() + b.await.unwrap() + c.await.unwrap() });
    assert_eq!(out, 6);
}

#[test]
fn enter_lets_spawn_run_outside_block_on() {
    let rt = Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .seed(8)
        .build()
        .unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    let h = {
        let _guard = rt.enter();
        assert!(Handle::try_current().is_ok());
        let start = Instant::now(); // the simulated clock is readable too
        sim_rt::spawn(async move {
            r.fetch_add(1, Ordering::SeqCst);
            start.elapsed()
        })
    };
    assert!(
        Handle::try_current().is_err(),
        "the guard restored the context"
    );
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "nothing runs outside block_on"
    );
    let elapsed = rt.block_on(h).unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    assert_eq!(elapsed, Duration::ZERO);
}

#[test]

fn block_on_while_an_enter_guard_is_held() {
    // tokio allows this (a common `let _guard = rt.enter(); ... rt.block_on(..)`
    // pattern): `enter` sets the current handle, it does not enter the
    // runtime's executor.
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(9)
        .build()
        .unwrap();
    let _guard = rt.enter();
    let h = sim_rt::spawn(async { 5 });
    assert_eq!(rt.block_on(h).unwrap(), 5);
    assert_eq!(rt.handle().block_on(async { 6 }), 6);
}

#[test]
#[should_panic(expected = "Cannot start a runtime from within a runtime")]
fn nested_block_on_panics() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(10)
        .build()
        .unwrap();
    rt.block_on(async { rt.block_on(async {}) });
}

#[test]
#[should_panic(expected = "Cannot start a runtime from within a runtime")]
fn nested_handle_block_on_panics() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(11)
        .build()
        .unwrap();
    rt.block_on(async { Handle::current().block_on(async {}) });
}

#[test]
#[should_panic(expected = "Cannot start a runtime from within a runtime")]
fn block_on_of_another_runtime_inside_a_simulation_panics() {
    let outer = Builder::new_current_thread()
        .enable_all()
        .seed(12)
        .build()
        .unwrap();
    let inner = Builder::new_current_thread()
        .enable_all()
        .seed(13)
        .build()
        .unwrap();
    outer.block_on(async { inner.block_on(async {}) });
}

#[test]
fn block_on_twice_keeps_the_tasks_of_the_first_call() {
    let rt = Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .seed(14)
        .build()
        .unwrap();
    let (mut rx, ticker) = rt.block_on(async {
        let (tx, mut rx) = mpsc::channel(8);
        let ticker = sim_rt::spawn(async move {
            for i in 0..5u32 {
                sleep(Duration::from_millis(10)).await;
                tx.send(i).await.unwrap();
            }
            "ticker done"
        });
        let first = vec![rx.recv().await.unwrap(), rx.recv().await.unwrap()];
        assert_eq!(first, [0, 1]);
        (rx, ticker)
    });
    assert_eq!(rt.elapsed(), Duration::from_millis(20));
    let rest = rt.block_on(async {
        let mut rest = Vec::new();
        while let Some(v) = rx.recv().await {
            rest.push(v);
        }
        assert_eq!(ticker.await.unwrap(), "ticker done");
        rest
    });
    assert_eq!(rest, [2, 3, 4]);
    assert_eq!(rt.elapsed(), Duration::from_millis(50));
}

#[test]
fn block_on_ids_continue_across_calls() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(15)
        .build()
        .unwrap();
    // Each future of a `block_on` takes an id too (1 and 3), although it
    // is not a task.
    let spawned = || async { sim_rt::spawn(async { sim_rt::task::id().as_u64() }).await };
    let first = rt.block_on(spawned()).unwrap();
    let second = rt.block_on(spawned()).unwrap();
    assert_eq!((first, second), (2, 4));
}

#[test]
fn shutdown_timeout_drops_pending_tasks() {
    let drops = Arc::new(AtomicUsize::new(0));
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(16)
        .build()
        .unwrap();
    let d = drops.clone();
    rt.block_on(async move {
        sim_rt::spawn(DropProbe(d.clone()));
        sim_rt::spawn(DropProbe(d));
        sleep(Duration::from_millis(1)).await; // both polled, both pending
    });
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    rt.shutdown_timeout(Duration::from_secs(10));
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

/// Spawns on `rt` a task that holds `guard` and never ends, and runs `rt`
/// for a millisecond, so that the task is polled once.
fn spawn_pending_holding<G: Send + 'static>(rt: &Runtime, guard: G) {
    rt.block_on(async move {
        sim_rt::spawn(async move {
            let _guard = guard;
            pending::<()>().await
        });
        sleep(Duration::from_millis(1)).await;
    });
}

#[test]
fn shutdown_background_drops_pending_tasks() {
    let drops = Arc::new(AtomicUsize::new(0));
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(17)
        .build()
        .unwrap();
    let d = drops.clone();
    let never_polled = rt.spawn(DropProbe(drops.clone()));
    spawn_pending_holding(&rt, DropProbe(d));
    drop(never_polled);
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    rt.shutdown_background();
    assert_eq!(drops.load(Ordering::SeqCst), 2);
}

/// As tokio's: a spawn on a dropped runtime drops the future at once and
/// gives a cancelled task; a `block_on` says the simulation is gone.
#[test]
fn a_handle_outliving_its_runtime_spawns_cancelled_tasks() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(18)
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    drop(rt);
    struct Dropped(Arc<AtomicUsize>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    let held = Dropped(drops.clone());
    let task = handle.spawn(async move {
        let _held = held;
    });
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the future is dropped at once"
    );
    assert!(futures::executor::block_on(task)
        .unwrap_err()
        .is_cancelled());
    let blocking = handle.spawn_blocking(|| 1);
    assert!(futures::executor::block_on(blocking)
        .unwrap_err()
        .is_cancelled());
    let gone = std::panic::catch_unwind(|| handle.block_on(async {})).unwrap_err();
    let text = gone
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .unwrap_or_else(|| gone.downcast_ref::<String>().cloned().unwrap_or_default());
    assert!(text.contains("this Handle's simulation is gone"), "{text}");
}

#[test]
fn a_failed_simulation_cannot_be_run_again() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(19)
        .build()
        .unwrap();
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async { panic!("first run fails") })
    }));
    let report = first.unwrap_err();
    let report = report.downcast_ref::<String>().unwrap();
    assert!(
        report.contains("simulation failed: the main future panicked: first run fails"),
        "{report}"
    );
    let second = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.block_on(async {})));
    let report = second.unwrap_err();
    let report = report
        .downcast_ref::<&str>()
        .copied()
        .map(String::from)
        .unwrap_or_else(|| report.downcast_ref::<String>().cloned().unwrap_or_default());
    assert!(
        report.contains("this simulation already failed; build a new runtime to run again"),
        "{report}"
    );
}

#[test]
fn seed_and_trace_replay() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(20)
        .build()
        .unwrap();
    let out = rt.block_on(workload());
    let trace = rt.trace();
    assert_eq!(trace.seed(), rt.seed());
    assert!(!trace.is_empty());
    let replayed = Builder::new_current_thread()
        .enable_all()
        .replay(trace.clone())
        .build()
        .unwrap();
    assert_eq!(replayed.block_on(workload()), out);
    assert_eq!(replayed.trace(), trace);
}

/// `Handle` is `Send + Sync + Clone` as in tokio; a `JoinHandle` of a `Send`
/// output is `Send`.
#[test]
fn auto_traits() {
    fn send_sync_clone<T: Send + Sync + Clone>() {}
    fn send<T: Send>() {}
    send_sync_clone::<Handle>();
    send::<sim_rt::task::JoinHandle<u32>>();
    send::<sim_rt::task::JoinError>();
}

/// Spawns a `DropProbe` task from its destructor, as cleanup guards do.
struct SpawnOnDrop(Arc<AtomicUsize>);

impl Drop for SpawnOnDrop {
    fn drop(&mut self) {
        drop(sim_rt::spawn(DropProbe(self.0.clone())));
    }
}

#[test]
fn a_task_spawned_while_the_runtime_drops_is_dropped_too() {
    let drops = Arc::new(AtomicUsize::new(0));
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(21)
        .build()
        .unwrap();
    let d = drops.clone();
    spawn_pending_holding(&rt, SpawnOnDrop(d));
    drop(rt);
    assert_eq!(drops.load(Ordering::SeqCst), 1, "the late task's future");
}

/// `on_thread_park` runs where tokio's current-thread scheduler parks
/// (nothing runnable), inside the simulation: a task it spawns or a waiter
/// it notifies runs instead of the park; `on_thread_unpark` follows each.
#[test]
fn park_hooks_run_when_nothing_is_runnable_and_may_wake_tasks() {
    let notify = Arc::new(sim_rt::sync::Notify::new());
    let parks = Arc::new(AtomicUsize::new(0));
    let unparks = Arc::new(AtomicUsize::new(0));
    let (n, p, u) = (notify.clone(), parks.clone(), unparks.clone());
    let rt = Builder::new_current_thread()
        .enable_all()
        .on_thread_park(move || {
            if p.fetch_add(1, Ordering::SeqCst) == 0 {
                let n = n.clone();
                sim_rt::spawn(async move { n.notify_one() });
            }
        })
        .on_thread_unpark(move || {
            u.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    rt.block_on(async {
        // Nothing else can wake this: only the park hook's task does.
        notify.notified().await;
        assert_eq!(parks.load(Ordering::SeqCst), 1);
        // A sleep parks until its deadline.
        sleep(Duration::from_millis(5)).await;
    });
    assert_eq!(parks.load(Ordering::SeqCst), 2);
    assert_eq!(unparks.load(Ordering::SeqCst), 2);
}

/// `Runtime` is `Send + Sync` and unwind safe, as tokio's: code that moves
/// it, shares it or catches a panic around `block_on` compiles. A
/// simulation still runs on the thread that built it: used on another
/// thread it panics saying so, and dropped there it is leaked, not torn
/// down from the wrong thread.
#[test]
fn a_runtime_is_send_sync_and_unwind_safe_and_stays_on_its_thread() {
    fn assert_traits<T: Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    assert_traits::<Runtime>();
    fn assert_sync<T: Sync>() {}
    assert_sync::<sim_rt::runtime::EnterGuard<'static>>();

    let rt = Arc::new(Builder::new_current_thread().enable_all().build().unwrap());
    let caught = std::panic::catch_unwind(|| rt.block_on(async { panic!("in block_on") }));
    assert!(caught.is_err());

    // Another thread's `block_on` of a failed simulation says so.
    let shared = rt.clone();
    let other = std::thread::spawn(move || {
        std::panic::catch_unwind(|| shared.block_on(async { 1 }))
            .expect_err("a failed simulation runs nothing")
    })
    .join()
    .unwrap();
    let message = other
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| other.downcast_ref::<String>().cloned())
        .unwrap();
    assert!(message.contains("failed"), "{message}");

    // A healthy one runs it, as a guest (the owner drives it while it
    // joins); the owner-only methods say where they work.
    let rt = Arc::new(Builder::new_current_thread().enable_all().build().unwrap());
    let shared = rt.clone();
    let from_other = std::thread::spawn(move || {
        let one = shared.block_on(async { 1 });
        let seed = std::panic::catch_unwind(|| shared.seed()).expect_err("owner only");
        let text = seed
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| seed.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        (one, text)
    })
    .join()
    .unwrap();
    assert_eq!(from_other.0, 1);
    assert!(
        from_other.1.contains("only on the thread that built it"),
        "{}",
        from_other.1
    );

    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    assert_eq!(rt.block_on(async { 2 }), 2);
    std::thread::spawn(move || drop(rt)).join().unwrap();
}

/// As tokio's, a `Builder` is `Send` and `Sync`; one holding a custom
/// scheduler builds only on the thread that set it (the scheduler need
/// not be `Send`), and says so elsewhere.
#[test]
fn a_builder_is_send_and_sync() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    let mut plain = Builder::new_current_thread();
    plain.enable_all();
    send_sync(&plain);
    let built = std::thread::spawn(move || plain.build().is_ok())
        .join()
        .unwrap();
    assert!(built);
    let mut custom = Builder::new_current_thread();
    custom.enable_all();
    let rc = std::rc::Rc::new(());
    custom.scheduler(move |seed| {
        let _ = &rc;
        sim_rt::scheduler::RandomScheduler::new(seed)
    });
    let err = std::thread::spawn(move || custom.build().map(drop))
        .join()
        .unwrap_err();
    let message = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or(err.downcast_ref::<&str>().copied());
    assert!(
        message.is_some_and(|m| m.contains("builds runtimes only on the thread that set")),
        "{message:?}"
    );
}
