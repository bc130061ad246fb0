//! Simulated threads: std threads started inside a simulation run one at a
//! time under its scheduler, blocking where they would block.

mod rt_support;

use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rt_support::{random_order, sim};

#[test]
fn a_std_thread_runs_and_is_joined() {
    let out = sim(1, async {
        let t = std::thread::spawn(|| 6 * 7);
        t.join().unwrap()
    });
    assert_eq!(out, 42);
}

#[test]
fn a_task_waits_on_a_std_channel_for_a_thread() {
    let got = sim(2, async {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for i in 0..3 {
                tx.send(i).unwrap();
            }
        });
        // The owner thread blocks: the thread runs meanwhile.
        rx.iter().collect::<Vec<u32>>()
    });
    assert_eq!(got, vec![0, 1, 2]);
}

#[test]
fn a_thread_sleeps_in_simulated_time() {
    let (elapsed, real) = sim(3, async {
        let real = sim_rt::sim::without_interception(Instant::now);
        let start = Instant::now();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(3600));
            start.elapsed()
        });
        let elapsed = t.join().unwrap();
        let real = sim_rt::sim::without_interception(|| real.elapsed());
        (elapsed, real)
    });
    assert_eq!(elapsed, Duration::from_secs(3600));
    assert!(real < Duration::from_secs(600), "{real:?}");
}

#[test]
fn threads_meet_at_a_mutex_and_condvar() {
    let total = sim(4, async {
        let pair = Arc::new((Mutex::new(0u32), Condvar::new()));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let pair = pair.clone();
                std::thread::spawn(move || {
                    let (lock, cv) = &*pair;
                    let mut n = lock.lock().unwrap();
                    *n += 1;
                    cv.notify_all();
                    while *n < 4 {
                        n = cv.wait(n).unwrap();
                    }
                    *n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum::<u32>()
    });
    assert_eq!(total, 16);
}

#[test]
fn scoped_threads_borrow_from_the_task() {
    let sum = sim(5, async {
        let data: Vec<u64> = (1..=100).collect();
        std::thread::scope(|s| {
            let (a, b) = data.split_at(50);
            let x = s.spawn(move || a.iter().sum::<u64>());
            let y = s.spawn(move || b.iter().sum::<u64>());
            x.join().unwrap() + y.join().unwrap()
        })
    });
    assert_eq!(sum, 5050);
}

#[test]
fn a_thread_blocks_on_the_runtime_with_handle_block_on() {
    let out = sim(6, async {
        let handle = sim_rt::runtime::Handle::current();
        let start = sim_rt::time::Instant::now();
        let t = std::thread::spawn(move || {
            handle.block_on(async {
                sim_rt::time::sleep(Duration::from_millis(250)).await;
                7
            })
        });
        let (tx, rx) = sim_rt::sync::oneshot::channel();
        // A task of the runtime, which the thread's block_on waits beside.
        sim_rt::spawn(async move {
            tx.send(start.elapsed()).unwrap();
        });
        let at = rx.await.unwrap();
        (t.join().unwrap(), at, start.elapsed())
    });
    assert_eq!(out.0, 7);
    assert_eq!(out.1, Duration::ZERO);
    assert_eq!(out.2, Duration::from_millis(250));
}

/// Three threads take turns at a log, yielding after each entry: a seed
/// gives the same order twice, and the seeds give more than one order.
#[test]
fn the_interleaving_of_threads_follows_the_seed() {
    fn run(seed: u64) -> Vec<u32> {
        random_order(seed).block_on(async {
            let log = Arc::new(Mutex::new(Vec::new()));
            let handles: Vec<_> = (0..3)
                .map(|i| {
                    let log = log.clone();
                    std::thread::spawn(move || {
                        for _ in 0..3 {
                            log.lock().unwrap().push(i);
                            std::thread::yield_now();
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            let log = log.lock().unwrap().clone();
            log
        })
    }
    let orders: Vec<Vec<u32>> = (0..8).map(run).collect();
    for (seed, order) in orders.iter().enumerate() {
        assert_eq!(order, &run(seed as u64), "seed {seed}");
        assert_eq!(order.len(), 9);
    }
    assert!(orders.iter().any(|o| o != &orders[0]), "{orders:?}");
}

#[test]
fn a_blocking_closure_waits_for_a_tasks_message() {
    let got = sim(9, async {
        let (tx, mut rx) = sim_rt::sync::mpsc::channel::<u32>(1);
        let blocking = sim_rt::task::spawn_blocking(move || rx.blocking_recv());
        sim_rt::time::sleep(Duration::from_millis(5)).await;
        tx.send(11).await.unwrap();
        blocking.await.unwrap()
    });
    assert_eq!(got, Some(11));
}

#[test]
fn blocking_closures_sleep_in_simulated_time_while_tasks_run() {
    let (done_at, ticks) = sim(10, async {
        let start = sim_rt::time::Instant::now();
        let blocking = sim_rt::task::spawn_blocking(|| {
            std::thread::sleep(Duration::from_secs(2));
            std::thread::current().name().map(str::to_string)
        });
        let mut ticks = 0;
        while !blocking.is_finished() {
            sim_rt::time::sleep(Duration::from_millis(500)).await;
            ticks += 1;
        }
        let name = blocking.await.unwrap();
        assert_eq!(name.as_deref(), Some("tokio-runtime-worker"));
        (start.elapsed(), ticks)
    });
    assert_eq!(done_at, Duration::from_secs(2));
    assert_eq!(ticks, 4);
}

/// tokio's pool: at most `max_blocking_threads` threads, the rest queue;
/// an idle thread takes the next closure until its keep-alive runs out.
#[test]
fn the_blocking_pool_limits_and_reuses_its_threads() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .max_blocking_threads(1)
        .thread_keep_alive(Duration::from_secs(5))
        .build()
        .unwrap();
    rt.block_on(async {
        let start = sim_rt::time::Instant::now();
        let nap = || {
            std::thread::sleep(Duration::from_secs(1));
            std::thread::current().id()
        };
        let a = sim_rt::task::spawn_blocking(nap);
        let b = sim_rt::task::spawn_blocking(nap);
        let (a, b) = (a.await.unwrap(), b.await.unwrap());
        // One thread: one after the other.
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        assert_eq!(a, b);
        // Idle for less than the keep-alive: the same thread.
        sim_rt::time::sleep(Duration::from_secs(4)).await;
        assert_eq!(sim_rt::task::spawn_blocking(nap).await.unwrap(), a);
        // Idle for longer: it exited, a new one runs the closure.
        sim_rt::time::sleep(Duration::from_secs(6)).await;
        assert_ne!(sim_rt::task::spawn_blocking(nap).await.unwrap(), a);
    });
}

#[test]
fn a_panic_in_a_blocking_closure_reaches_its_join_handle() {
    let err = sim(11, async {
        sim_rt::task::spawn_blocking(|| panic!("blocking boom"))
            .await
            .unwrap_err()
    });
    assert!(err.is_panic());
    let payload = err.into_panic();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"blocking boom"));
}

/// As tokio: a paused clock does not move while a blocking closure sleeps
/// (real time passes, the paused clock stands), so a short timeout around
/// it does not fire.
#[test]
fn a_paused_clock_stands_while_a_blocking_closure_sleeps() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let elapsed = rt.block_on(async {
        let start = sim_rt::time::Instant::now();
        sim_rt::time::timeout(
            Duration::from_millis(1),
            sim_rt::task::spawn_blocking(|| std::thread::sleep(Duration::from_millis(50))),
        )
        .await
        .expect("the timeout does not fire")
        .unwrap();
        start.elapsed()
    });
    assert_eq!(elapsed, Duration::ZERO);
}

/// Inside `block_in_place` (multi-thread flavor), a `block_on` of the same
/// runtime runs nested: other tasks run and the clock moves while its
/// future waits; a `block_on` of another runtime runs too.
#[test]
fn block_on_inside_block_in_place() {
    let rt = sim_rt::runtime::Builder::new_multi_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .build()
        .unwrap();
    let (value, elapsed, other) = rt.block_on(async {
        sim_rt::spawn(async {
            let start = sim_rt::time::Instant::now();
            sim_rt::task::block_in_place(|| {
                let handle = sim_rt::runtime::Handle::current();
                let value = handle.block_on(async {
                    sim_rt::task::yield_now().await;
                    sim_rt::time::sleep(Duration::from_millis(10)).await;
                    sim_rt::spawn(async { 5 }).await.unwrap()
                });
                let other = sim_rt::runtime::Builder::new_current_thread()
                    .poll_cost(Duration::ZERO)
                    .enable_all()
                    .build()
                    .unwrap()
                    .block_on(async { 6 });
                (value, start.elapsed(), other)
            })
        })
        .await
        .unwrap()
    });
    assert_eq!((value, other), (5, 6));
    assert_eq!(elapsed, Duration::from_millis(10));
}

/// `spawn_local` works on a local runtime's own thread and panics on a std
/// thread started inside it, with tokio's message: the task would belong
/// to the runtime's thread.
#[test]
fn spawn_local_on_another_thread_panics_as_tokio() {
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build_local(Default::default())
        .unwrap();
    let message = rt.block_on(async {
        assert_eq!(sim_rt::task::spawn_local(async { 1 }).await.unwrap(), 1);
        let payload = std::thread::spawn(|| {
            drop(sim_rt::task::spawn_local(async {}));
        })
        .join()
        .expect_err("spawn_local on another thread must panic");
        payload.downcast_ref::<&str>().copied().unwrap_or_default()
    });
    assert!(
        message.contains("`spawn_local` called from outside of a `task::LocalSet`"),
        "{message}"
    );
}

/// A thread's `pthread_t` is reused by the next thread once it is reaped
/// (glibc keeps its stack): a simulated thread joining the second waits
/// for the second, not for the exited first (which used to send the join
/// to a real `pthread_join` that blocked the simulation).
#[test]
fn a_join_finds_the_newest_thread_of_a_reused_handle() {
    let out = sim(7, async {
        let mut got = Vec::new();
        for i in 0..3u32 {
            let joiner = std::thread::spawn(move || {
                let t = std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(5));
                    i
                });
                t.join().unwrap()
            });
            got.push(
                sim_rt::task::spawn_blocking(move || joiner.join().unwrap())
                    .await
                    .unwrap(),
            );
        }
        got
    });
    assert_eq!(out, vec![0, 1, 2]);
}
