//! `RuntimeMetrics`, `runtime::Id`, `Handle::name`, `LocalRuntime`,
//! `is_rt_shutdown_err` and `worker_index` over a simulation.

use std::rc::Rc;
use std::time::Duration;

use sim_rt::runtime::{Builder, Handle, LocalOptions, LocalRuntime, Runtime};

#[test]
fn metrics_count_tasks_queue_and_parks() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let metrics = rt.metrics();
    assert_eq!(metrics.num_workers(), 1);
    assert_eq!(metrics.num_alive_tasks(), 0);
    rt.block_on(async {
        let m = Handle::current().metrics();
        let sleeper = sim_rt::spawn(sim_rt::time::sleep(Duration::from_secs(1)));
        let yielder = sim_rt::spawn(async { sim_rt::task::yield_now().await });
        assert_eq!(m.num_alive_tasks(), 2);
        // Both are woken (spawned) and not yet polled.
        assert_eq!(
            m.global_queue_depth(),
            0,
            "wakes reach the queue at the next step"
        );
        sim_rt::task::yield_now().await;
        yielder.await.unwrap();
        assert_eq!(m.num_alive_tasks(), 1);
        let parks = m.worker_park_count(0);
        sleeper.await.unwrap();
        assert_eq!(m.num_alive_tasks(), 0);
        assert_eq!(
            m.worker_park_count(0),
            parks + 1,
            "one clock advance to the deadline"
        );
        assert_eq!(m.worker_park_unpark_count(0), 2 * (parks + 1));
        // The polls' cost: a whole number of them, one per poll so far.
        let busy = m.worker_total_busy_duration(0);
        let cost = sim_rt::runtime::DEFAULT_POLL_COST;
        assert!(busy >= 4 * cost, "{busy:?}");
        assert_eq!(busy.as_nanos() % cost.as_nanos(), 0, "{busy:?}");
    });
}

#[test]
#[should_panic(expected = "worker index 1 out of range: the runtime has 1 workers")]
fn metrics_reject_a_second_worker_of_a_current_thread_runtime() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.metrics().worker_park_count(1);
}

/// A multi-thread runtime has the workers it was built with, all played
/// by the simulation's thread: each starts (`on_thread_start`) and parks
/// when the runtime is built, and unparks and stops (`on_thread_stop`)
/// when it shuts down; worker 0 also unparks for each `block_on` and each
/// clock advance; the polls' cost is dealt to the workers in turn.
#[test]
fn a_multi_thread_runtime_counts_its_workers() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let started = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicUsize::new(0));
    let (s, t) = (started.clone(), stopped.clone());
    let rt = Builder::new_multi_thread()
        .worker_threads(3)
        .on_thread_start(move || {
            s.fetch_add(1, Ordering::Relaxed);
        })
        .on_thread_stop(move || {
            t.fetch_add(1, Ordering::Relaxed);
        })
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(started.load(Ordering::Relaxed), 3);
    let m = rt.metrics();
    assert_eq!(m.num_workers(), 3);
    let counts = |m: &sim_rt::runtime::RuntimeMetrics| {
        (0..3)
            .map(|w| (m.worker_park_count(w), m.worker_park_unpark_count(w)))
            .collect::<Vec<_>>()
    };
    assert_eq!(counts(&m), [(1, 1); 3], "every worker parked once built");
    let indices = rt.block_on(async {
        let inside = counts(&Handle::current().metrics());
        assert_eq!(inside, [(1, 2), (1, 1), (1, 1)], "worker 0 unparked");
        assert_eq!(sim_rt::runtime::worker_index(), None, "not on a worker");
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        let mut indices = Vec::new();
        for _ in 0..6 {
            let i = sim_rt::spawn(async { sim_rt::runtime::worker_index() });
            indices.push(i.await.unwrap().expect("a task runs on a worker"));
        }
        indices
    });
    assert!(indices.iter().all(|&i| i < 3), "{indices:?}");
    assert_eq!(
        m.worker_park_count(0),
        3,
        "built, one advance, block_on's end"
    );
    assert_eq!(m.worker_park_unpark_count(0), 5);
    drop(rt);
    assert_eq!(stopped.load(Ordering::Relaxed), 3);
    assert_eq!(counts(&m), [(3, 6), (1, 2), (1, 2)], "unparked to stop");
    let busy: Vec<_> = (0..3).map(|w| m.worker_total_busy_duration(w)).collect();
    assert!(busy.iter().all(|b| !b.is_zero()), "{busy:?}");
    let cost = sim_rt::runtime::DEFAULT_POLL_COST;
    assert!(busy[0] >= busy[2] && busy[0] - busy[2] <= cost, "{busy:?}");
}

#[test]
fn ids_are_unique_and_names_are_kept() {
    let a = Runtime::new().unwrap();
    let b = Builder::new_current_thread()
        .enable_all()
        .name("db")
        .build()
        .unwrap();
    assert_ne!(a.handle().id(), b.handle().id());
    assert_eq!(a.handle().name(), None);
    assert_eq!(b.handle().name(), Some("db"));
    let inside = b.block_on(async {
        (
            Handle::current().id(),
            Handle::current().name().map(String::from),
        )
    });
    assert_eq!(inside, (b.handle().id(), Some("db".to_string())));
    let set = sim_rt::task::LocalSet::new();
    assert_ne!(set.id(), a.handle().id());
    assert_eq!(
        format!("{}", a.handle().id()),
        format!("{:?}", a.handle().id())
            .trim_start_matches("Id(")
            .trim_end_matches(')')
    );
}

#[test]
fn a_local_runtime_runs_tasks_that_are_not_send() {
    let rt = LocalRuntime::new().unwrap();
    let shared = Rc::new(5);
    let task = rt.spawn_local({
        let shared = shared.clone();
        async move { *shared + 1 }
    });
    assert_eq!(rt.block_on(task).unwrap(), 6);
    let rt = Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .unwrap();
    assert_eq!(rt.block_on(async { 1 }), 1);
}

#[test]
#[should_panic(expected = "multi_thread is not supported for LocalRuntime")]
fn a_local_runtime_is_current_thread_only() {
    let _ = Builder::new_multi_thread()
        .enable_all()
        .build_local(LocalOptions::default());
}

#[test]
fn an_io_error_after_the_runtime_is_gone_is_a_shutdown_error() {
    let first = Runtime::new().unwrap();
    let listener =
        first.block_on(async { sim_rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap() });
    drop(first);
    let second = Runtime::new().unwrap();
    let err = second.block_on(async { listener.accept().await.unwrap_err() });
    assert!(sim_rt::runtime::is_rt_shutdown_err(&err), "{err}");
    let other = std::io::Error::other("something else");
    assert!(!sim_rt::runtime::is_rt_shutdown_err(&other));
}

#[test]
fn worker_index_is_zero_inside_a_simulation_only() {
    assert_eq!(sim_rt::runtime::worker_index(), None);
    let rt = Builder::new_current_thread().build().unwrap();
    let (main, task) = rt.block_on(async {
        let task = sim_rt::spawn(async { sim_rt::runtime::worker_index() });
        (sim_rt::runtime::worker_index(), task.await.unwrap())
    });
    assert_eq!((main, task), (Some(0), Some(0)));
    // A current-thread runtime's Handle::block_on holds no core.
    let off = rt
        .handle()
        .block_on(async { sim_rt::runtime::worker_index() });
    assert_eq!(off, None);
}
