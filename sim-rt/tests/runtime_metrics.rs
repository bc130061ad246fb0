//! `RuntimeMetrics`, `runtime::Id`, `Handle::name`, `LocalRuntime`,
//! `is_rt_shutdown_err` and `worker_index` over a simulation.

use std::rc::Rc;
use std::time::Duration;

use sim_rt::runtime::{Builder, Handle, LocalOptions, LocalRuntime, Runtime};

#[test]
fn metrics_count_tasks_queue_and_parks() {
    let rt = Runtime::new().unwrap();
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
#[should_panic(expected = "worker index 1 out of range")]
fn metrics_reject_a_second_worker() {
    let rt = Runtime::new().unwrap();
    rt.metrics().worker_park_count(1);
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
    let rt = Runtime::new().unwrap();
    let inside = rt.block_on(async {
        sim_rt::spawn(async { sim_rt::runtime::worker_index() })
            .await
            .unwrap()
    });
    assert_eq!(inside, Some(0));
}
