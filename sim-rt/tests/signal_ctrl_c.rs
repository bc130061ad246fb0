//! Simulated `tokio::signal::ctrl_c`: per-host signals sent by the
//! simulation with `sim_rt::sim::send_ctrl_c`, and host entry points that
//! fail the simulation.
//!
//! Tests wait for "everything that can run has run" by sleeping a
//! millisecond in the main future: simulated time only advances when no task
//! is runnable.

mod rt_support;

use std::cell::RefCell;
use std::future::pending;
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;
use std::time::Duration;

use futures::poll;
use rt_support::{assert_contains_all, sim as run, sim_local};
use sim_rt::runtime::Builder;
use sim_rt::signal::ctrl_c;
use sim_rt::sim;
use sim_rt::time::sleep;

/// Lets every task run until it blocks.
async fn settle() {
    sleep(Duration::from_millis(1)).await;
}

type Log = Rc<RefCell<Vec<String>>>;

/// Starts a host `name` whose entry waits for ctrl-c, then logs `name`.
fn start_waiter(name: &'static str, log: &Log) {
    let log = log.clone();
    sim::host(name).start(move || {
        let log = log.clone();
        async move {
            ctrl_c().await.unwrap();
            log.borrow_mut().push(name.to_string());
        }
    });
}

fn logged(log: &Log) -> Vec<String> {
    log.borrow().clone()
}

#[test]
fn ctrl_c_is_delivered_to_its_host_only() {
    for seed in 0..5 {
        run(seed, async {
            let log = Log::default();
            start_waiter("a", &log);
            start_waiter("b", &log);
            settle().await;
            assert_eq!(logged(&log), Vec::<String>::new());

            sim::send_ctrl_c("b");
            settle().await;
            assert_eq!(logged(&log), ["b"], "seed {seed}");

            sim::send_ctrl_c("a");
            settle().await;
            assert_eq!(logged(&log), ["b", "a"], "seed {seed}");
        });
    }
}

#[test]
fn one_ctrl_c_completes_every_waiter_of_the_host() {
    sim_local(1, async {
        let log = Log::default();
        let l = log.clone();
        sim::host("a").start(move || {
            let l = l.clone();
            async move {
                let mut waiters = Vec::new();
                for i in 0..3 {
                    let l = l.clone();
                    waiters.push(sim_rt::task::spawn_local(async move {
                        ctrl_c().await.unwrap();
                        l.borrow_mut().push(format!("child {i}"));
                    }));
                }
                ctrl_c().await.unwrap();
                for w in waiters {
                    w.await.unwrap();
                }
                l.borrow_mut().push("entry".to_string());
            }
        });
        settle().await;
        sim::send_ctrl_c("a");
        settle().await;
        let mut got = logged(&log);
        assert_eq!(got.pop().as_deref(), Some("entry"));
        got.sort();
        assert_eq!(got, ["child 0", "child 1", "child 2"]);
    });
}

#[test]
fn a_ctrl_c_sent_before_the_call_is_not_seen() {
    run(2, async {
        let log = Log::default();
        let l = log.clone();
        let (go_tx, go_rx) = sim_rt::sync::oneshot::channel::<()>();
        let go_rx = RefCell::new(Some(go_rx));
        sim::host("a").start(move || {
            let l = l.clone();
            let go = go_rx.borrow_mut().take().expect("started once");
            async move {
                go.await.unwrap(); // the signal is sent before this returns
                ctrl_c().await.unwrap();
                l.borrow_mut().push("first".to_string());
                ctrl_c().await.unwrap();
                l.borrow_mut().push("second".to_string());
            }
        });
        settle().await;
        sim::send_ctrl_c("a");
        go_tx.send(()).unwrap();
        settle().await;
        assert_eq!(logged(&log), Vec::<String>::new(), "sent too early");

        sim::send_ctrl_c("a");
        settle().await;
        assert_eq!(logged(&log), ["first"]);

        sim::send_ctrl_c("a");
        settle().await;
        assert_eq!(logged(&log), ["first", "second"]);
    });
}

#[test]
fn a_ctrl_c_future_registers_at_its_first_poll_as_in_tokio() {
    // `ctrl_c` is an `async fn` in tokio too: nothing happens until the
    // first poll, so a signal between the call and the first poll is missed.
    run(3, async {
        let host = sim::host_name(sim::current_host());
        assert_eq!(host, "main");
        let unpolled = ctrl_c();
        sim::send_ctrl_c(&host);
        let mut unpolled = pin!(unpolled);
        assert!(poll!(unpolled.as_mut()).is_pending());

        let mut polled = pin!(ctrl_c());
        assert!(poll!(polled.as_mut()).is_pending());
        sim::send_ctrl_c(&host);
        assert!(matches!(poll!(polled.as_mut()), Poll::Ready(Ok(()))));
        assert!(matches!(poll!(unpolled.as_mut()), Poll::Ready(Ok(()))));
    });
}

#[test]
fn ctrl_c_on_the_main_host_wakes_the_main_future() {
    let elapsed = run(4, async {
        sim_rt::spawn(async {
            sleep(Duration::from_millis(30)).await;
            sim::send_ctrl_c("main");
        });
        let start = sim_rt::time::Instant::now();
        ctrl_c().await.unwrap();
        start.elapsed()
    });
    assert_eq!(elapsed, Duration::from_millis(30));
}

#[test]
fn tasks_spawned_by_a_host_run_on_that_host() {
    let hosts = run(5, async {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        let a = sim::host("a").start(move || {
            let s = s.clone();
            async move {
                let child = sim_rt::spawn(async { sim::host_name(sim::current_host()) });
                let name = child.await.unwrap();
                s.borrow_mut().push(name);
            }
        });
        assert_eq!(sim::lookup_host("a"), Some(a));
        assert_eq!(sim::lookup_host("nope"), None);
        settle().await;
        let hosts = seen.borrow().clone();
        hosts
    });
    assert_eq!(hosts, ["a"]);
}

#[test]
#[should_panic(expected = "no host named \"zzz\" in this simulation")]
fn send_ctrl_c_to_an_unknown_host_panics() {
    run(6, async {
        sim::host("a").start(|| async {});
        sim::send_ctrl_c("zzz");
    });
}

#[test]
#[should_panic(expected = "a host named \"a\" already exists in this simulation")]
fn host_names_are_unique() {
    run(7, async {
        sim::host("a").start(|| async {});
        sim::host("a").start(|| async {});
    });
}

#[test]
fn a_host_entry_returning_err_fails_the_simulation() {
    let res = std::panic::catch_unwind(|| {
        run(8, async {
            sim::host("db-1").start(|| async {
                sleep(Duration::from_millis(5)).await;
                Err::<(), _>("disk on fire")
            });
            pending::<()>().await
        })
    });
    let payload = res.expect_err("block_on must panic");
    let message = payload
        .downcast_ref::<String>()
        .expect("the failure report is a String");
    assert_contains_all(
        message,
        &[
            "host \"db-1\" entry point returned an error: \"disk on fire\"",
            "on host \"db-1\" (host entry point)",
            "at simulated time 5ms",
        ],
    );
}

#[test]
fn a_host_entry_returning_ok_does_not_fail() {
    run(9, async {
        sim::host("ok").start(|| async { Ok::<(), String>(()) });
        settle().await;
    });
}

#[test]

fn a_host_entry_returning_err_fails_the_simulation_even_when_panics_are_ignored() {
    // HostBuilder::start documents: "An entry point that returns an error
    // fails the simulation with a report naming the host." The error is
    // turned into a panic of the entry task, and under `Ignore` that panic
    // goes to the entry's JoinHandle, which `start` has already dropped.
    let res = std::panic::catch_unwind(|| {
        Builder::new_current_thread()
            .enable_all()
            .seed(10)
            .unhandled_panic(sim_rt::runtime::UnhandledPanic::Ignore)
            .build()
            .unwrap()
            .block_on(async {
                sim::host("db-2").start(|| async { Err::<(), _>("disk on fire") });
                settle().await;
            })
    });
    let payload = res.expect_err("block_on must panic");
    let message = payload.downcast_ref::<String>().expect("a String report");
    assert!(message.contains("host \"db-2\""), "{message}");
}
