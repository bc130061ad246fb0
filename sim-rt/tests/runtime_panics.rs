//! tokio's panics, with tokio's words, at the caller's location: timers and
//! I/O in a runtime built without `enable_time` / `enable_io`, tokio's API
//! outside a runtime, the builder's argument checks, `EnterGuard`s dropped
//! out of order, blocking calls and `time::pause` where tokio forbids them,
//! and `task::id` in the future of a `block_on` (not a task in tokio).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sim_rt::io::AsyncWriteExt;
use sim_rt::runtime::Builder;
use sim_rt::time::{interval, sleep, timeout, Instant};

/// The panic hook is the process's: tests that set one take turns, and it
/// records only its own thread's panics.
static HOOK: Mutex<()> = Mutex::new(());

/// Runs `f`, which must panic, and returns the panic's message and the
/// file of its location.
fn panic_of(f: impl FnOnce()) -> (String, String) {
    let _turn = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let seen: Arc<Mutex<Option<(String, String)>>> = Arc::default();
    let prev = std::panic::take_hook();
    {
        let seen = seen.clone();
        // Other tests panic meanwhile, on their own threads.
        let here = std::thread::current().id();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() != here {
                return;
            }
            let message = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let file = info.location().map(|l| l.file().to_string());
            *seen.lock().unwrap() = Some((message, file.unwrap_or_default()));
        }));
    }
    let out = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(prev);
    assert!(out.is_err(), "expected a panic");
    // The last panic is the one that escaped (a simulation re-raises a
    // task's panic as it was).
    let seen = seen.lock().unwrap().take();
    seen.expect("the hook saw the panic")
}

/// Asserts `f` panics here, in this file, with a message holding `words`.
fn panics_here_with(words: &str, f: impl FnOnce()) {
    let (message, file) = panic_of(f);
    assert!(message.contains(words), "{message:?} lacks {words:?}");
    assert_eq!(file, file!(), "the panic points into {file}: {message}");
}

/// Asserts `f` panics with a message holding `words`, wherever (tokio's
/// async functions and destructors panic inside tokio).
fn panics_with(words: &str, f: impl FnOnce()) {
    let (message, _) = panic_of(f);
    assert!(message.contains(words), "{message:?} lacks {words:?}");
}

fn current_thread() -> Builder {
    Builder::new_current_thread()
}

#[test]
fn timers_need_enable_time() {
    const NO_TIMERS: &str = "A Tokio 1.x context was found, but timers are disabled. Call \
                             `enable_time` on the runtime builder to enable timers.";
    panics_here_with(NO_TIMERS, || {
        current_thread().build().unwrap().block_on(async {
            drop(sleep(Duration::from_millis(1)));
        })
    });
    panics_here_with(NO_TIMERS, || {
        current_thread()
            .enable_io()
            .build()
            .unwrap()
            .block_on(async {
                drop(timeout(
                    Duration::from_millis(5),
                    std::future::pending::<()>(),
                ));
            })
    });
    panics_here_with(NO_TIMERS, || {
        current_thread().build().unwrap().block_on(async {
            let _ = interval(Duration::from_millis(5));
        })
    });
    // The clock itself needs no driver, as in tokio.
    let rt = current_thread().build().unwrap();
    rt.block_on(async {
        let start = Instant::now();
        assert_eq!(start.elapsed(), Duration::ZERO);
    });
    // With it, timers work.
    current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(async { sleep(Duration::from_millis(1)).await });
}

#[test]
fn sockets_and_signals_need_enable_io() {
    const NO_IO: &str = "A Tokio 1.x context was found, but IO is disabled. Call `enable_io` \
                         on the runtime builder to enable IO.";
    panics_with(NO_IO, || {
        current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(async {
                let _ = sim_rt::net::TcpListener::bind("127.0.0.1:0").await;
            })
    });
    panics_here_with(NO_IO, || {
        current_thread().build().unwrap().block_on(async {
            let _ = sim_rt::net::UnixListener::bind("/tmp/s");
        })
    });
    panics_here_with(NO_IO, || {
        current_thread().build().unwrap().block_on(async {
            let kind = sim_rt::signal::unix::SignalKind::from_raw(-1);
            let _ = sim_rt::signal::unix::signal(kind);
        })
    });
    // `tokio::fs` needs no driver, as in tokio.
    current_thread().build().unwrap().block_on(async {
        sim_rt::fs::write("/tmp/a", b"x").await.unwrap();
    });
    // With it, sockets work.
    current_thread()
        .enable_io()
        .build()
        .unwrap()
        .block_on(async {
            sim_rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        });
}

#[test]
fn outside_a_runtime_it_is_tokio_s_no_reactor() {
    const NO_REACTOR: &str =
        "there is no reactor running, must be called from the context of a Tokio 1.x runtime";
    panics_here_with(NO_REACTOR, || {
        drop(sleep(Duration::from_millis(1)));
    });
    panics_with(NO_REACTOR, || {
        let _ = futures::executor::block_on(sim_rt::fs::read("/tmp/a"));
    });
    panics_with(NO_REACTOR, || {
        let _ = futures::executor::block_on(sim_rt::io::stdout().write_all(b"x"));
    });
}

#[test]
fn builder_arguments_are_checked_as_tokio_checks_them() {
    panics_here_with("event_interval must be greater than 0", || {
        Builder::new_multi_thread().event_interval(0);
    });
    panics_here_with("global_queue_interval must be greater than 0", || {
        Builder::new_multi_thread().global_queue_interval(0);
    });
    panics_here_with("max_io_events_per_tick must be non-zero", || {
        Builder::new_multi_thread().max_io_events_per_tick(0);
    });
    panics_here_with("runtime name shouldn't be empty", || {
        Builder::new_multi_thread().name(" ");
    });
    panics_here_with("requires the `current_thread` Tokio runtime", || {
        let _ = Builder::new_multi_thread().start_paused(true).build();
    });
    // Valid ones pass.
    Builder::new_multi_thread()
        .event_interval(1)
        .global_queue_interval(1)
        .max_io_events_per_tick(1)
        .name("a")
        .build()
        .unwrap();
}

#[test]
fn enter_guards_drop_in_reverse_order() {
    let rt1 = current_thread().build().unwrap();
    let rt2 = current_thread().build().unwrap();
    {
        let a = rt1.enter();
        let b = rt2.enter();
        drop(b);
        drop(a);
    }
    panics_with("`EnterGuard` values dropped out of order", || {
        let a = rt1.enter();
        let _b = rt1.enter();
        drop(a);
    });
    // Entering works again after, and a guard may be held while its
    // runtime is shut down, as tokio's.
    let _c = rt2.enter();
    rt2.shutdown_timeout(Duration::from_secs(1));
}

#[test]
fn blocking_calls_and_pause_panic_where_tokio_s_do() {
    panics_here_with(
        "Cannot block the current thread from within a runtime",
        || {
            current_thread().build().unwrap().block_on(async {
                let mutex = sim_rt::sync::Mutex::new(1);
                let _g = mutex.blocking_lock();
            })
        },
    );
    panics_here_with("time is already frozen", || {
        current_thread().build().unwrap().block_on(async {
            sim_rt::time::pause();
            sim_rt::time::pause();
        })
    });
    panics_here_with("requires the `current_thread` Tokio runtime", || {
        Builder::new_multi_thread()
            .build()
            .unwrap()
            .block_on(async { sim_rt::time::pause() })
    });
}

#[test]
fn the_future_of_block_on_is_not_a_task() {
    let rt = current_thread().build().unwrap();
    rt.block_on(async {
        assert_eq!(sim_rt::task::try_id(), None);
        let id = sim_rt::spawn(async { sim_rt::task::id() }).await.unwrap();
        assert_eq!(sim_rt::task::try_id(), None);
        assert_ne!(Some(id), sim_rt::task::try_id());
    });
    panics_here_with("can't get a task id when not inside a task", || {
        rt.block_on(async {
            sim_rt::task::id();
        })
    });
}

#[test]
fn a_file_s_buffer_size_is_checked_and_kept_by_clones() {
    panics_here_with("`max_buf_size` must be greater than 0", || {
        current_thread().build().unwrap().block_on(async {
            let mut file = sim_rt::fs::File::create("/tmp/f").await.unwrap();
            file.set_max_buf_size(0);
        })
    });
    current_thread().build().unwrap().block_on(async {
        let mut file = sim_rt::fs::File::create("/tmp/f").await.unwrap();
        file.set_max_buf_size(7);
        assert_eq!(file.try_clone().await.unwrap().max_buf_size(), 7);
    });
}

/// A task whose poll panics has its future dropped while the panic
/// unwinds, as tokio's harness drops it: its destructors see
/// `std::thread::panicking()`.
#[test]
fn a_panicking_task_s_future_is_dropped_while_unwinding() {
    struct Boom(Option<sim_rt::sync::oneshot::Sender<bool>>);
    impl std::future::Future for Boom {
        type Output = ();
        fn poll(
            self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            panic!("boom");
        }
    }
    impl Drop for Boom {
        fn drop(&mut self) {
            let _ = self.0.take().unwrap().send(std::thread::panicking());
        }
    }
    let rt = current_thread().build().unwrap();
    let (tx, rx) = sim_rt::sync::oneshot::channel();
    let task = rt.spawn(Boom(Some(tx)));
    let (dropped_unwinding, joined) = rt.block_on(async { (rx.await.unwrap(), task.await) });
    assert!(dropped_unwinding);
    assert!(joined.unwrap_err().is_panic());
}

/// Panics in a task's destructors are contained, as tokio contains them:
/// an aborted task whose future panics on drop ends as a panic (to its
/// handle, or nowhere once the handle is gone), and a finished task's
/// output that panics on drop does so where its handle drops it, quietly.
#[test]
fn panics_in_a_task_s_destructors_are_contained() {
    struct PanicOnDrop;
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            panic!("dropped");
        }
    }
    let sleeper = || async {
        let _boom = PanicOnDrop;
        sleep(Duration::from_secs(100)).await;
    };
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let task = sim_rt::spawn(sleeper());
        sleep(Duration::from_millis(10)).await;
        task.abort();
        assert!(task.await.unwrap_err().is_panic());

        let task = sim_rt::spawn(sleeper());
        sleep(Duration::from_millis(10)).await;
        task.abort();
        drop(task);
        sleep(Duration::from_millis(10)).await;

        let task = sim_rt::spawn(async { PanicOnDrop });
        sleep(Duration::from_millis(10)).await;
        drop(task);
    });
}
