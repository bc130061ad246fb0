//! `block_in_place` on a multi-thread runtime: the closure blocks on what
//! other tasks do, while a relief thread drives the simulation.

mod rt_support;

use std::sync::mpsc;
use std::time::Duration;

use rt_support::{assert_contains_all, child_test};
use sim_rt::runtime::{Builder, Runtime};

fn multi_thread(seed: u64) -> Runtime {
    Builder::new_multi_thread()
        .enable_all()
        .seed(seed)
        .build()
        .unwrap()
}

/// A task's closure waits on a std channel another task sends on after a
/// simulated sleep: the other task runs while the closure blocks.
#[test]
fn the_closure_waits_for_another_task() {
    let rt = multi_thread(1);
    let got = rt.block_on(async {
        let (tx, rx) = mpsc::channel();
        let waiter =
            sim_rt::spawn(async move { sim_rt::task::block_in_place(move || rx.recv().unwrap()) });
        sim_rt::spawn(async move {
            sim_rt::time::sleep(Duration::from_millis(5)).await;
            tx.send(7).unwrap();
        });
        waiter.await.unwrap()
    });
    assert_eq!(got, 7);
    assert!(rt.elapsed() >= Duration::from_millis(5));
}

/// tokio's `rt_threaded::hang_on_shutdown`, as a program: the main future
/// ends while a task blocks in place; it goes on once another task drops
/// the sender.
#[test]
fn the_main_future_waits_for_the_closure_it_cannot_run_beside() {
    let rt = multi_thread(2);
    rt.block_on(async {
        let (tx, rx) = mpsc::channel::<()>();
        sim_rt::spawn(async move {
            sim_rt::task::block_in_place(|| rx.recv().ok());
        });
        sim_rt::spawn(async move {
            sim_rt::time::sleep(Duration::from_secs(2)).await;
            drop(tx);
        });
        sim_rt::time::sleep(Duration::from_secs(1)).await;
    });
}

/// Two tasks in `block_in_place` talk to each other over std channels:
/// the second call's relief drives while both closures block.
#[test]
fn two_closures_in_place_talk() {
    let rt = multi_thread(3);
    let (a, b) = rt.block_on(async {
        let (to_a, from_b) = mpsc::channel();
        let (to_b, from_a) = mpsc::channel();
        let a = sim_rt::spawn(async move {
            sim_rt::task::block_in_place(move || {
                let x: u32 = from_b.recv().unwrap();
                to_b.send(x + 1).unwrap();
                x
            })
        });
        let b = sim_rt::spawn(async move {
            sim_rt::task::block_in_place(move || {
                to_a.send(1).unwrap();
                from_a.recv().unwrap()
            })
        });
        (a.await.unwrap(), b.await.unwrap())
    });
    assert_eq!((a, b), (1, 2));
}

/// Four tasks meet at a std `Barrier` inside `block_in_place` (tokio's
/// `rt_threaded::blocking`, with the barrier's last party a task): each
/// closure waits for the ones polled after it.
#[test]
fn four_closures_meet_at_a_barrier() {
    let rt = multi_thread(5);
    let passed = rt.block_on(async {
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
        let tasks: Vec<_> = (0..4)
            .map(|_| {
                let barrier = barrier.clone();
                sim_rt::spawn(async move {
                    sim_rt::task::block_in_place(move || {
                        barrier.wait();
                        barrier.wait().is_leader()
                    })
                })
            })
            .collect();
        let mut leaders = 0;
        for t in tasks {
            leaders += usize::from(t.await.unwrap());
        }
        leaders
    });
    assert_eq!(passed, 1, "one leader per round");
}

/// The same while the thread that built the runtime waits outside
/// `block_on` on a std channel: the runtime's worker runs the tasks, and a
/// relief drives while they block in place.
#[test]
fn closures_in_place_while_the_owner_waits_outside() {
    let rt = multi_thread(6);
    let (tx, rx) = mpsc::channel();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(3));
    for _ in 0..3 {
        let barrier = barrier.clone();
        let tx = tx.clone();
        rt.spawn(async move {
            sim_rt::task::block_in_place(move || barrier.wait());
            tx.send(()).unwrap();
        });
    }
    drop(tx);
    assert_eq!(rx.iter().count(), 3);
}

/// A `Handle::block_on` inside the closure runs on its turns, and the
/// same seed gives the same run.
#[test]
fn runs_with_a_closure_in_place_replay() {
    let run = |seed| {
        let rt = multi_thread(seed);
        rt.block_on(async {
            let (tx, rx) = mpsc::channel();
            let mut tasks = Vec::new();
            for i in 0..3u64 {
                let tx = tx.clone();
                tasks.push(sim_rt::spawn(async move {
                    sim_rt::time::sleep(Duration::from_millis(i)).await;
                    tx.send(i).unwrap();
                }));
            }
            drop(tx);
            let order = sim_rt::spawn(async move {
                sim_rt::task::block_in_place(move || {
                    let handle = sim_rt::runtime::Handle::current();
                    handle.block_on(sim_rt::time::sleep(Duration::from_millis(1)));
                    rx.iter().collect::<Vec<_>>()
                })
            });
            for t in tasks {
                t.await.unwrap();
            }
            order.await.unwrap()
        });
        rt.trace().hash()
    };
    for seed in 0..4 {
        assert_eq!(run(seed), run(seed), "seed {seed} replays");
    }
}

/// A panic in the closure reaches the task's `JoinHandle`, and the
/// simulation goes on.
#[test]
fn a_panic_in_the_closure_is_the_task_s() {
    let rt = multi_thread(4);
    let err = rt.block_on(async {
        sim_rt::spawn(async {
            sim_rt::task::block_in_place(|| panic!("boom in place"));
        })
        .await
        .unwrap_err()
    });
    assert!(err.is_panic());
}

/// A closure in place that waits for what nothing in the simulation will
/// do: the deadlock is reported (here from the relief, since the closure
/// never returns), with the line that reproduces it, instead of a hang.
#[test]
fn a_deadlock_in_place_is_reported() {
    let out = child_test("child_deadlocks_in_place")
        .env("SIM_POLL_TIMEOUT", "0.5")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{err}");
    assert_contains_all(
        &err,
        &[
            "a block_in_place closure blocked in it",
            "deadlock",
            "reproduce: SIM_SEED=9 cargo test",
        ],
    );
}

#[test]
#[ignore = "run by a_deadlock_in_place_is_reported"]
fn child_deadlocks_in_place() {
    let mut b = Builder::new_multi_thread();
    b.enable_all();
    b.exact_seed(9);
    let (tx, rx) = mpsc::channel::<()>();
    b.build().unwrap().block_on(async move {
        let stuck = sim_rt::spawn(async move {
            sim_rt::task::block_in_place(move || rx.recv().ok());
        });
        let _ = stuck.await;
        drop(tx);
    });
}

/// A closure in place builds a runtime of its own and runs it (tokio's
/// `task_id_block_in_place_block_on_spawn`): its `block_on` drives the new
/// simulation, with the closure's turn of the outer one kept aside.
#[test]
fn a_closure_in_place_runs_a_runtime_of_its_own() {
    let rt = multi_thread(7);
    let inner = rt.block_on(async {
        sim_rt::spawn(async {
            let outer = sim_rt::task::id();
            sim_rt::task::block_in_place(move || {
                let rt = Builder::new_current_thread().enable_all().build().unwrap();
                rt.block_on(rt.spawn(async move {
                    sim_rt::time::sleep(Duration::from_millis(3)).await;
                    assert_ne!(outer, sim_rt::task::id());
                    5
                }))
                .unwrap()
            })
        })
        .await
        .unwrap()
    });
    assert_eq!(inner, 5);
}

/// A std thread inside a simulation runs a runtime of its own the same way.
#[test]
fn a_std_thread_runs_a_runtime_of_its_own() {
    let rt = multi_thread(8);
    let got = rt.block_on(async {
        let thread = std::thread::spawn(|| {
            let rt = Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async {
                let task = sim_rt::spawn(async { 6 });
                task.await.unwrap()
            })
        });
        sim_rt::task::spawn_blocking(move || thread.join().unwrap())
            .await
            .unwrap()
    });
    assert_eq!(got, 6);
}
