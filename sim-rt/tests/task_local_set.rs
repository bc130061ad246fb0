//! `LocalSet`: run_until, awaiting the set, gating, drop, spawn before run.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use sim_rt::runtime::{Builder, Runtime};
use sim_rt::task::{self, LocalSet};
use sim_rt::time::{sleep, Instant};

fn rt(seed: u64) -> Runtime {
    Builder::new_current_thread()
        // Work takes no time: the times asserted are exact.
        .poll_cost(std::time::Duration::ZERO)
        .enable_all()
        .seed(seed)
        .build()
        .unwrap()
}

fn run<F: Future>(seed: u64, fut: F) -> F::Output {
    rt(seed).block_on(fut)
}

/// Records `(label, ms since start)` events; `!Send`, as a LocalSet allows.
#[derive(Clone)]
struct Log {
    start: Instant,
    events: Rc<RefCell<Vec<(&'static str, u64)>>>,
}

impl Log {
    fn new() -> Log {
        Log {
            start: Instant::now(),
            events: Rc::default(),
        }
    }

    fn push(&self, label: &'static str) {
        let at = self.start.elapsed().as_millis() as u64;
        self.events.borrow_mut().push((label, at));
    }

    fn take(&self) -> Vec<(&'static str, u64)> {
        std::mem::take(&mut *self.events.borrow_mut())
    }
}

/// What `program`, given a fresh log and a fresh set, logs on a simulation
/// seeded with `seed`.
fn logged_events<Fut: Future<Output = ()>>(
    seed: u64,
    program: impl FnOnce(Log, LocalSet) -> Fut,
) -> Vec<(&'static str, u64)> {
    run(seed, async {
        let log = Log::new();
        program(log.clone(), LocalSet::new()).await;
        log.take()
    })
}

/// Counts drops.
struct OnDrop(Rc<Cell<u32>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

#[test]
fn run_until_returns_the_output_and_runs_set_tasks() {
    for seed in 0..10 {
        let events = logged_events(seed, |log, local| async move {
            let l = log.clone();
            let h = local.spawn_local(async move {
                sleep(Duration::from_millis(10)).await;
                l.push("task");
                Rc::new(5)
            });
            let out = local
                .run_until(async {
                    let five = h.await.unwrap();
                    log.push("run_until");
                    *five + 1
                })
                .await;
            assert_eq!(out, 6);
        });
        assert_eq!(events, vec![("task", 10), ("run_until", 10)], "seed {seed}");
    }
}

#[test]
fn awaiting_the_set_waits_for_every_task() {
    let (events, elapsed) = run(1, async {
        let start = Instant::now();
        let log = Log::new();
        let local = LocalSet::new();
        for (label, ms) in [("a", 30), ("b", 10), ("c", 20)] {
            let log = log.clone();
            local.spawn_local(async move {
                sleep(Duration::from_millis(ms)).await;
                log.push(label);
            });
        }
        local.await;
        (log.take(), start.elapsed())
    });
    assert_eq!(events, vec![("b", 10), ("c", 20), ("a", 30)]);
    assert_eq!(elapsed, Duration::from_millis(30));
}

#[test]
fn an_empty_set_completes_at_once() {
    run(2, async {
        let start = Instant::now();
        LocalSet::new().await;
        LocalSet::default().run_until(async {}).await;
        assert_eq!(start.elapsed(), Duration::ZERO);
    });
}

/// Spawned before the set runs, a task waits for the set: it starts only
/// when the set is first driven, at 1 s, not at spawn time.
#[test]
fn a_task_spawned_before_the_set_runs_waits_for_it() {
    for seed in 0..10 {
        let events = logged_events(seed, |log, local| async move {
            let l = log.clone();
            let h = local.spawn_local(async move { l.push("started") });
            sleep(Duration::from_secs(1)).await;
            assert!(!h.is_finished());
            log.push("driving");
            local.await;
            assert!(h.is_finished());
        });
        assert_eq!(
            events,
            vec![("driving", 1000), ("started", 1000)],
            "seed {seed}"
        );
    }
}

/// A task stops making progress when `run_until` returns and resumes when the
/// set is driven again: its 10 ms sleep ends while the set is idle, so it
/// finishes only when the set is awaited at 500 ms.
#[test]
fn tasks_only_progress_while_the_set_is_driven() {
    let events = logged_events(3, |log, local| async move {
        let l = log.clone();
        local.spawn_local(async move {
            l.push("started");
            sleep(Duration::from_millis(10)).await;
            l.push("woke");
        });
        local.run_until(sleep(Duration::from_millis(1))).await;
        log.push("run_until done");
        sleep(Duration::from_millis(500)).await;
        log.push("awaiting set");
        local.await;
    });
    assert_eq!(
        events,
        vec![
            ("started", 0),
            ("run_until done", 1),
            ("awaiting set", 501),
            ("woke", 501),
        ]
    );
}

#[test]
fn dropping_the_set_cancels_its_tasks() {
    let (completed, drops, cancelled) = run(4, async {
        let completed = Rc::new(Cell::new(0));
        let drops = Rc::new(Cell::new(0));
        let local = LocalSet::new();
        let mut handles = Vec::new();
        for ms in [10, 20, 1000] {
            let completed = completed.clone();
            let guard = OnDrop(drops.clone());
            handles.push(local.spawn_local(async move {
                let _guard = guard;
                sleep(Duration::from_millis(ms)).await;
                completed.set(completed.get() + 1);
            }));
        }
        local.run_until(sleep(Duration::from_millis(15))).await;
        drop(local);
        let mut cancelled = 0;
        for h in handles {
            match h.await {
                Ok(()) => {}
                Err(e) if e.is_cancelled() => cancelled += 1,
                Err(e) => panic!("{e}"),
            }
        }
        (completed.get(), drops.get(), cancelled)
    });
    assert_eq!(
        completed, 1,
        "only the 10 ms task finished while the set ran"
    );
    assert_eq!(drops, 3);
    assert_eq!(cancelled, 2);
}

#[test]
fn dropping_a_set_that_never_ran_cancels_its_tasks() {
    let (ran, drops) = run(5, async {
        let ran = Rc::new(Cell::new(false));
        let drops = Rc::new(Cell::new(0));
        let local = LocalSet::new();
        let r = ran.clone();
        let guard = OnDrop(drops.clone());
        let h = local.spawn_local(async move {
            let _guard = guard;
            r.set(true);
        });
        drop(local);
        assert!(h.await.unwrap_err().is_cancelled());
        (ran.get(), drops.get())
    });
    assert!(!ran);
    assert_eq!(drops, 1);
}

#[test]
fn block_on_drives_the_set() {
    let rt = rt(6);
    let local = LocalSet::new();
    let out = local.block_on(&rt, async {
        let a = Rc::new(20);
        let h = task::spawn_local(async move { *a + 1 });
        h.await.unwrap() * 2
    });
    assert_eq!(out, 42);
}

/// With `Runtime::enter` held, tasks can be put on a set outside
/// `block_on`; they run once `block_on` drives the set.
#[test]
fn spawn_with_the_runtime_entered_then_block_on() {
    let rt = rt(7);
    let local = LocalSet::new();
    let log = Rc::new(RefCell::new(Vec::new()));
    let h = {
        let _enter = rt.enter();
        let log = log.clone();
        local.spawn_local(async move {
            sleep(Duration::from_secs(2)).await;
            log.borrow_mut().push("task");
            7
        })
    };
    let out = local.block_on(&rt, async {
        log.borrow_mut().push("main");
        h.await.unwrap()
    });
    assert_eq!(out, 7);
    assert_eq!(*log.borrow(), vec!["main", "task"]);
    assert_eq!(rt.elapsed(), Duration::from_secs(2));
}

#[test]
fn the_set_can_be_passed_to_block_on() {
    let rt = rt(8);
    let local = LocalSet::new();
    let done = Rc::new(Cell::new(0));
    {
        let _enter = rt.enter();
        for i in 0..5 {
            let done = done.clone();
            local.spawn_local(async move {
                sleep(Duration::from_millis(i)).await;
                done.set(done.get() + 1);
            });
        }
    }
    rt.block_on(local);
    assert_eq!(done.get(), 5);
}

/// `task::spawn_local` inside `run_until`, inside a set task, or with the
/// set entered, adds the task to the set: awaiting the set waits for it and
/// dropping the set cancels it.
#[test]
fn spawn_local_in_the_set_context_joins_the_set() {
    let events = logged_events(9, |log, local| async move {
        let l = log.clone();
        local
            .run_until(async move {
                let l2 = l.clone();
                task::spawn_local(async move {
                    let l3 = l2.clone();
                    // Spawned from a set task: also a member.
                    task::spawn_local(async move {
                        sleep(Duration::from_millis(30)).await;
                        l3.push("grandchild");
                    });
                    sleep(Duration::from_millis(20)).await;
                    l2.push("child");
                });
            })
            .await;
        log.push("run_until done");
        local.await;
        log.push("set done");

        let local = LocalSet::new();
        let h = {
            let _g = local.enter();
            task::spawn_local(std::future::pending::<()>())
        };
        drop(local);
        assert!(h.await.unwrap_err().is_cancelled());
    });
    assert_eq!(
        events,
        vec![
            ("run_until done", 0),
            ("child", 20),
            ("grandchild", 30),
            ("set done", 30),
        ]
    );
}

#[test]
fn debug_output() {
    run(10, async {
        let local = LocalSet::new();
        assert_eq!(
            format!("{local:?}"),
            "LocalSet { tasks: 0, driven: false, .. }"
        );
        local.spawn_local(async {});
        assert_eq!(
            format!("{local:?}"),
            "LocalSet { tasks: 1, driven: false, .. }"
        );
        local.await;
        let guard = LocalSet::new().enter();
        assert_eq!(format!("{guard:?}"), "LocalEnterGuard");
    });
}

/// Compile-only parity with tokio: the same code builds against tokio and,
/// with `tokio` renamed to `sim_rt`, against the simulation.
macro_rules! parity {
    () => {
        #[allow(dead_code)]
        fn local_set_api(rt: &tokio::runtime::Runtime) {
            use std::future::Future;
            use tokio::task::{JoinHandle, LocalEnterGuard, LocalSet};

            fn future<F: Future<Output = ()>>(_: &F) {}

            let local = LocalSet::new();
            future(&local);
            let handle: JoinHandle<std::rc::Rc<u8>> =
                local.spawn_local(async { std::rc::Rc::new(1) });
            drop(handle);
            let _: u8 = local.block_on(rt, async { 1 });
            let _run = local.run_until(async { 1u8 });
            let guard: LocalEnterGuard = local.enter();
            let _ = format!("{guard:?} {local:?}");
            let other: LocalSet = Default::default();
            drop(other);
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

/// `block_in_place` inside a `LocalSet` panics even on a multi-thread
/// runtime, as tokio's: the set's tasks are not a worker's. Outside the
/// set it runs.
#[test]
fn block_in_place_in_a_local_set_panics_as_tokio() {
    let rt = sim_rt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(rt.block_on(async { sim_rt::task::block_in_place(|| 3) }), 3);
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(sim_rt::task::LocalSet::new().run_until(async {
            sim_rt::task::block_in_place(|| {});
        }))
    }))
    .expect_err("block_in_place in a LocalSet must panic");
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    assert!(
        text.contains("can call blocking only when running on the multi-threaded runtime"),
        "{text}"
    );
}

/// A runtime and a `LocalSet` kept together in a `thread_local!` are
/// dropped while the thread's thread-locals are destroyed: neither may
/// panic there (it would abort the process), as tokio's
/// `store_local_set_in_thread_local_with_runtime` expects.
#[test]
fn a_local_set_in_a_thread_local_is_dropped_at_thread_exit() {
    struct Both {
        rt: Runtime,
        local: LocalSet,
    }
    thread_local! {
        static BOTH: Both = Both {
            rt: Builder::new_current_thread().enable_all().build().unwrap(),
            local: LocalSet::new(),
        };
    }
    std::thread::spawn(|| {
        BOTH.with(|b| {
            b.rt.block_on(b.local.run_until(async {
                task::spawn_local(std::future::pending::<()>());
            }))
        });
    })
    .join()
    .expect("the thread exits cleanly");
}

/// `LocalSet::spawn_local` before any simulation runs the set, as tokio
/// allows: the tasks start when a simulation first drives the set, in
/// spawn order, with the ids their handles showed; an abort asked before
/// that cancels the task, a dropped handle detaches it, and a set dropped
/// before it was driven cancels what it held.
#[test]
fn tasks_spawned_before_any_simulation_start_when_the_set_is_driven() {
    let local = LocalSet::new();
    let order = Rc::new(RefCell::new(Vec::new()));
    let o = order.clone();
    let first = local.spawn_local(async move {
        o.borrow_mut().push("first");
        task::id()
    });
    let o = order.clone();
    drop(local.spawn_local(async move { o.borrow_mut().push("detached") }));
    let aborted = local.spawn_local(async { unreachable!("aborted before it started") });
    aborted.abort();
    assert!(!first.is_finished() && !aborted.is_finished());
    let first_id = first.id();
    let guard = local.enter();
    let o = order.clone();
    let by_guard = task::spawn_local(async move { o.borrow_mut().push("by guard") });
    drop(guard);

    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (id, aborted, by_guard) = local.block_on(&rt, async move {
        (first.await.unwrap(), aborted.await, by_guard.await)
    });
    assert_eq!(id, first_id, "the id the handle showed");
    assert!(aborted.unwrap_err().is_cancelled());
    assert!(by_guard.is_ok());
    assert_eq!(*order.borrow(), ["first", "detached", "by guard"]);

    let never = LocalSet::new();
    let cancelled = never.spawn_local(async {});
    drop(never);
    assert!(cancelled.is_finished());
    let err = rt.block_on(cancelled).unwrap_err();
    assert!(err.is_cancelled());
}
