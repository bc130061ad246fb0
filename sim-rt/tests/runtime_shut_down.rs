//! A runtime shut down (`shutdown_timeout`, `shutdown_background`, a drop)
//! while an `EnterGuard` of it is held: `Handle::current().block_on` still
//! runs a future there, and tokio's drivers answer as a shut-down
//! runtime's. Sockets and the standard streams fail with the error
//! `is_rt_shutdown_err` recognises, spawns are cancelled, `fs` fails with
//! "background task failed", and timers panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use sim_rt::io::AsyncWriteExt;
use sim_rt::runtime::{is_rt_shutdown_err, Builder, Handle, Runtime};

const SHUTTING_DOWN: &str = "A Tokio 1.x context was found, but it is being shutdown.";

fn runtimes() -> Vec<Runtime> {
    vec![
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread().enable_all().build().unwrap(),
    ]
}

/// The message of the panic `f` raises.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("a panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn sockets_made_or_bound_after_the_shutdown_fail_as_tokio_s() {
    for rt in runtimes() {
        // A real socket, made before any simulation is entered.
        let real = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let _in = rt.enter();
        // Made before, polled after: the body of `bind` runs at the poll.
        let tcp_before = sim_rt::net::TcpListener::bind("127.0.0.1:0");
        rt.shutdown_timeout(Duration::from_secs(1000));
        let err = Handle::current().block_on(tcp_before).unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err}");
        let err = Handle::current()
            .block_on(sim_rt::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err}");
        let err = Handle::current()
            .block_on(sim_rt::net::UdpSocket::bind("127.0.0.1:0"))
            .unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err}");
        let err = Handle::current()
            .block_on(sim_rt::net::TcpStream::connect("127.0.0.1:1"))
            .unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err}");
        let err = sim_rt::net::TcpListener::from_std(real).unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err}");
        // Not simulated, but registered first, as tokio's.
        let err = sim_rt::net::UnixListener::bind("/tmp/s").unwrap_err();
        assert!(is_rt_shutdown_err(&err), "{err}");
    }
}

#[test]
fn spawns_after_the_shutdown_are_cancelled() {
    for rt in runtimes() {
        let _in = rt.enter();
        rt.shutdown_timeout(Duration::from_secs(1000));
        let err = Handle::current()
            .block_on(sim_rt::task::spawn_blocking(|| 42))
            .unwrap_err();
        assert!(err.is_cancelled(), "{err}");
        let err = Handle::current()
            .block_on(sim_rt::spawn(async { 42 }))
            .unwrap_err();
        assert!(err.is_cancelled(), "{err}");
    }
}

/// As tokio's pool: a shutdown that waits (`shutdown_timeout`, a drop)
/// lets a thread finish the closure it holds, within the timeout of
/// simulated time; `shutdown_background` does not wait.
#[test]
fn a_blocking_closure_started_before_the_shutdown_finishes_within_its_timeout() {
    let slow = || {
        std::thread::sleep(Duration::from_secs(1));
        42
    };
    for rt in runtimes() {
        let _in = rt.enter();
        let handle = sim_rt::task::spawn_blocking(slow);
        rt.shutdown_timeout(Duration::from_secs(1000));
        assert_eq!(Handle::current().block_on(handle).unwrap(), 42);
    }
    // Not within the timeout: cancelled, the clock stopped at the timeout.
    for rt in runtimes() {
        let _in = rt.enter();
        let handle = sim_rt::task::spawn_blocking(slow);
        rt.shutdown_timeout(Duration::from_millis(10));
        let err = Handle::current().block_on(handle).unwrap_err();
        assert!(err.is_cancelled(), "{err}");
    }
    for rt in runtimes() {
        let _in = rt.enter();
        let handle = sim_rt::task::spawn_blocking(slow);
        rt.shutdown_background();
        let err = Handle::current().block_on(handle).unwrap_err();
        assert!(err.is_cancelled(), "{err}");
    }
}

/// A dropped runtime waits for its blocking closures, as tokio's: the
/// closure's effects happen before the drop returns.
#[test]
fn a_dropped_runtime_waits_for_its_blocking_closures() {
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let flag = done.clone();
    rt.block_on(async move {
        sim_rt::task::spawn_blocking(move || {
            std::thread::sleep(Duration::from_secs(5));
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        });
    });
    drop(rt);
    assert!(done.load(std::sync::atomic::Ordering::SeqCst));
}

#[test]
fn files_and_the_standard_streams_fail_after_the_shutdown() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let _in = rt.enter();
    rt.shutdown_background();
    let err = Handle::current()
        .block_on(sim_rt::fs::read_to_string("Cargo.toml"))
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::Other);
    assert_eq!(
        err.get_ref().map(|e| e.to_string()).as_deref(),
        Some("background task failed")
    );
    let err = Handle::current()
        .block_on(async { sim_rt::io::stdout().write_all(b"x").await })
        .unwrap_err();
    assert!(is_rt_shutdown_err(&err), "{err}");
    let err = Handle::current()
        .block_on(async { sim_rt::io::stderr().write_all(b"x").await })
        .unwrap_err();
    assert!(is_rt_shutdown_err(&err), "{err}");
}

#[test]
fn timers_panic_after_the_shutdown() {
    // Made before, polled after.
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let _in = rt.enter();
    let before = sim_rt::time::sleep(Duration::from_millis(100));
    drop(rt);
    let message = panic_message(|| Handle::current().block_on(before));
    assert!(message.contains(SHUTTING_DOWN), "{message}");
    // Made after; the clock itself still reads.
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let _in = rt.enter();
    drop(rt);
    Handle::current().block_on(async { sim_rt::time::Instant::now() });
    let message = panic_message(|| {
        Handle::current().block_on(async {
            sim_rt::time::sleep(Duration::from_millis(100)).await;
        })
    });
    assert!(message.contains(SHUTTING_DOWN), "{message}");
}

#[test]
fn a_runtime_entered_and_not_shut_down_is_untouched() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let _in = rt.enter();
    let out = Handle::current().block_on(async {
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        sim_rt::spawn(async { 7 }).await.unwrap()
    });
    assert_eq!(out, 7);
}

/// A runtime kept in a `thread_local!` is dropped while the thread's
/// thread-locals are destroyed, where the simulation cannot be entered: it
/// is leaked with the thread, never a panic (which would abort the
/// process), as tokio's own `runtime_in_thread_local` test expects.
#[test]
fn a_runtime_in_a_thread_local_is_dropped_at_thread_exit() {
    use std::cell::RefCell;
    thread_local! {
        static KEPT: RefCell<Option<Runtime>> = const { RefCell::new(None) };
    }
    std::thread::spawn(|| {
        KEPT.with(|cell| {
            let rt = Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async {
                drop(sim_rt::spawn(std::future::pending::<()>()));
            });
            *cell.borrow_mut() = Some(rt);
        });
        // Another runtime built and dropped on the same thread meanwhile.
        drop(Builder::new_current_thread().build().unwrap());
    })
    .join()
    .expect("the thread exits cleanly");
}
