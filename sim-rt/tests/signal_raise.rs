//! Signals a simulated program sends to its own process (`kill(getpid(),
//! ..)`, `raise`, `pthread_kill`, the raw system calls): raised on the
//! calling task's host, seen by that host's `tokio::signal` listeners when
//! the raising poll returns; a signal to another process is refused.
#![cfg(all(feature = "intercept", target_os = "linux", target_env = "gnu"))]

use std::time::Duration;

use sim_rt::signal::unix::{signal, SignalKind};
use sim_rt::sync::mpsc;

fn kill_self(sig: libc::c_int) -> libc::c_int {
    // SAFETY: kill has no memory preconditions.
    unsafe { libc::kill(libc::getpid(), sig) }
}

#[sim_rt::test]
async fn kill_of_the_own_process_reaches_the_listeners() {
    let mut usr1 = signal(SignalKind::user_defined1()).unwrap();
    let mut usr1_again = signal(SignalKind::user_defined1()).unwrap();
    assert_eq!(kill_self(libc::SIGUSR1), 0);
    usr1.recv().await.unwrap();
    usr1_again.recv().await.unwrap();
    // Twice, each seen.
    for _ in 0..2 {
        // SAFETY: raise has no memory preconditions.
        assert_eq!(unsafe { libc::raise(libc::SIGUSR1) }, 0);
        usr1.recv().await.unwrap();
    }
}

#[sim_rt::test]
async fn a_signal_is_delivered_when_the_raising_poll_returns() {
    // As tokio's signal driver, which sees a signal at its next turn: a
    // listener made after the `kill` but in the same poll still sees it,
    // and one dropped before changes nothing.
    let kind = SignalKind::user_defined2();
    {
        let _dropped = signal(kind).unwrap();
    }
    assert_eq!(kill_self(libc::SIGUSR2), 0);
    let mut usr2 = signal(kind).unwrap();
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    assert!(
        usr2.poll_recv(&mut cx).is_pending(),
        "not yet: the poll that raised it is running"
    );
    usr2.recv().await.unwrap();
}

#[sim_rt::test]
async fn ctrl_c_from_a_spawned_task() {
    let ctrl_c = sim_rt::signal::ctrl_c();
    sim_rt::spawn(async {
        assert_eq!(kill_self(libc::SIGINT), 0);
    });
    ctrl_c.await.unwrap();
}

#[sim_rt::test]
async fn a_host_raises_on_itself_only() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut main_term = signal(SignalKind::terminate()).unwrap();
    sim_rt::sim::host("server").start(move || {
        let tx = tx.clone();
        async move {
            let mut term = signal(SignalKind::terminate()).unwrap();
            // A std thread the host starts raises it for the host too.
            std::thread::spawn(|| {
                // SAFETY: the thread is this one, alive.
                assert_eq!(
                    unsafe { libc::pthread_kill(libc::pthread_self(), libc::SIGTERM) },
                    0
                );
            })
            .join()
            .unwrap();
            term.recv().await;
            tx.send("server: terminate").unwrap();
        }
    });
    assert_eq!(rx.recv().await, Some("server: terminate"));
    sim_rt::time::sleep(Duration::from_millis(1)).await;
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    assert!(
        main_term.poll_recv(&mut cx).is_pending(),
        "the main host's listener saw another host's signal"
    );
}

#[sim_rt::test]
async fn the_raw_system_calls_and_realtime_signals() {
    let rt = libc::SIGRTMIN() + 3;
    let mut realtime = signal(SignalKind::from_raw(rt)).unwrap();
    let mut hup = signal(SignalKind::hangup()).unwrap();
    // SAFETY: the raw kill and tgkill system calls, on this process.
    unsafe {
        assert_eq!(
            libc::syscall(libc::SYS_kill, libc::getpid(), rt as libc::c_long),
            0
        );
        assert_eq!(
            libc::syscall(
                libc::SYS_tgkill,
                libc::getpid(),
                libc::gettid(),
                libc::SIGHUP as libc::c_long
            ),
            0
        );
    }
    realtime.recv().await.unwrap();
    hup.recv().await.unwrap();
}

#[sim_rt::test]
async fn signal_zero_asks_only_and_other_processes_are_refused() {
    assert_eq!(kill_self(0), 0, "the process exists");
    // Another process (init): processes are not simulated.
    // SAFETY: kill has no memory preconditions.
    let r = unsafe { libc::kill(1, libc::SIGTERM) };
    assert_eq!(r, -1);
    assert_eq!(
        std::io::Error::last_os_error().raw_os_error(),
        Some(libc::EPERM)
    );
    assert_eq!(kill_self(1000), -1, "no such signal");
    assert_eq!(
        std::io::Error::last_os_error().raw_os_error(),
        Some(libc::EINVAL)
    );
}

#[test]
fn the_signal_replays_at_the_same_step() {
    // A host that raises SIGTERM on itself after a seed-chosen amount of
    // work: two runs of one seed stop it at the same step.
    fn run(seed: u64) -> (u64, Duration) {
        let rt = sim_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        rt.block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel();
            sim_rt::sim::host("server").start(move || {
                let tx = tx.clone();
                async move {
                    let mut term = signal(SignalKind::terminate()).unwrap();
                    let worker = sim_rt::spawn(async {
                        for _ in 0..sim_rt::sim::choose(20) {
                            sim_rt::task::yield_now().await;
                        }
                        // SAFETY: raise has no memory preconditions.
                        assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
                    });
                    term.recv().await;
                    worker.await.unwrap();
                    tx.send((sim_rt::sim::step(), sim_rt::sim::elapsed()))
                        .unwrap();
                }
            });
            rx.recv().await.unwrap()
        })
    }
    assert_eq!(run(7), run(7));
}

#[test]
fn a_signal_sent_between_two_block_ons_reaches_the_listening_simulations() {
    // tokio's `signal_drop_rt` shape: two runtimes on this thread listen;
    // the test signals its own process outside both, then drives each.
    let rt = || {
        sim_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    let kind = SignalKind::user_defined1();
    let first_rt = rt();
    let mut first = first_rt.block_on(async { signal(kind).unwrap() });
    let second_rt = rt();
    let mut second = second_rt.block_on(async { signal(kind).unwrap() });
    assert_eq!(kill_self(libc::SIGUSR1), 0);
    first_rt.block_on(first.recv()).unwrap();
    drop(first_rt);
    assert_eq!(kill_self(libc::SIGUSR1), 0);
    second_rt.block_on(second.recv()).unwrap();
    // Twice before one receive: one.
    assert_eq!(kill_self(libc::SIGUSR1), 0);
    assert_eq!(kill_self(libc::SIGUSR1), 0);
    second_rt.block_on(second.recv()).unwrap();
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    assert!(second_rt
        .block_on(async { second.poll_recv(&mut cx) })
        .is_pending());
}
