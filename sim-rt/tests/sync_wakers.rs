//! Wakers are dropped (and woken) outside the primitives' locks, as in
//! tokio: a waker's `Drop` may run anything, including a call on the very
//! primitive that held it (tokio's `sync_broadcast::send_in_waker_drop`,
//! `time_sleep::drop_from_waker_drop`). Each test registers a waker whose
//! `Drop` uses the primitive, then makes the primitive drop it: replaced by
//! a new poll, removed by a cancel, released by a close. Holding the lock
//! meanwhile would deadlock (a `std::sync::Mutex` relocked on its thread)
//! or panic (the runtime's `RefCell`), so each body runs on a thread of its
//! own and a deadlock is reported after a while instead of hanging.
//!
//! And a dropped `mpsc::Receiver` releases its waker at once (tokio's
//! `release_waker_on_rx_drop`).

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::Duration;

use sim_rt::sync::{broadcast, mpsc, oneshot, Notify, Semaphore};

/// A waker that does nothing when woken and runs `F` when its last clone
/// drops.
struct OnDrop<F: Fn() + Send + Sync + 'static>(F);

impl<F: Fn() + Send + Sync + 'static> Wake for OnDrop<F> {
    fn wake(self: Arc<Self>) {}
}

impl<F: Fn() + Send + Sync + 'static> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

fn on_drop(f: impl Fn() + Send + Sync + 'static) -> Waker {
    Waker::from(Arc::new(OnDrop(f)))
}

/// Polls `fut` once with `waker`, which must leave it pending, then drops
/// this handle to `waker` (the future may still hold a clone).
fn pending_with<F: Future + ?Sized>(fut: Pin<&mut F>, waker: Waker) {
    assert!(fut.poll(&mut Context::from_waker(&waker)).is_pending());
}

fn noop() -> Context<'static> {
    Context::from_waker(Waker::noop())
}

/// Runs `body` on its own thread; fails if it does not end within a few
/// seconds (it deadlocked on a lock it held while a waker dropped).
fn no_deadlock(what: &str, body: impl FnOnce() + Send + 'static) {
    let (done_tx, done_rx) = std_mpsc::channel();
    let worker = thread::spawn(move || {
        body();
        let _ = done_tx.send(());
    });
    match done_rx.recv_timeout(Duration::from_secs(10)) {
        Ok(()) => worker.join().unwrap(),
        Err(std_mpsc::RecvTimeoutError::Disconnected) => {
            // The body panicked: report its panic.
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(std_mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: deadlock (a waker was dropped with the lock held)")
        }
    }
}

#[test]
fn broadcast_replaced_and_woken_wakers_may_send() {
    no_deadlock("broadcast", || {
        // Replaced by a second poll.
        let (tx, mut rx) = broadcast::channel::<()>(16);
        let mut recv = Box::pin(async move {
            let _ = rx.recv().await;
        });
        let waker = on_drop(move || {
            let _ = tx.send(());
        });
        pending_with(recv.as_mut(), waker);
        let _ = recv.as_mut().poll(&mut noop());

        // Taken and woken by a send.
        let (tx, mut rx) = broadcast::channel::<()>(16);
        let mut recv = Box::pin(async move {
            let _ = rx.recv().await;
        });
        let tx2 = tx.clone();
        let waker = on_drop(move || {
            let _ = tx2.send(());
        });
        pending_with(recv.as_mut(), waker);
        tx.send(()).unwrap();

        // Removed when the pending `recv` is dropped.
        let (tx, mut rx) = broadcast::channel::<()>(16);
        let tx2 = tx.clone();
        {
            let mut recv = pin!(rx.recv());
            let waker = on_drop(move || {
                let _ = tx2.send(());
            });
            pending_with(recv.as_mut(), waker);
        }
        assert_eq!(rx.try_recv(), Ok(()), "the waker's drop sent");
    });
}

#[test]
fn mpsc_replaced_receiver_waker_may_send() {
    no_deadlock("mpsc", || {
        let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
        let tx2 = tx.clone();
        let waker = on_drop(move || {
            let _ = tx2.send(1);
        });
        assert!(rx.poll_recv(&mut Context::from_waker(&waker)).is_pending());
        drop(waker);
        assert!(rx.poll_recv(&mut noop()).is_pending());
        assert_eq!(rx.try_recv(), Ok(1), "the replaced waker's drop sent");
    });
}

#[test]
fn mpsc_dropped_receiver_releases_its_waker() {
    struct Counted;
    impl Wake for Counted {
        fn wake(self: Arc<Self>) {}
    }
    let counted = Arc::new(Counted);
    let waker = Waker::from(counted.clone());
    let (_tx, mut rx) = mpsc::channel::<()>(1);
    assert!(rx.poll_recv(&mut Context::from_waker(&waker)).is_pending());
    assert_eq!(Arc::strong_count(&counted), 3);
    drop(rx);
    assert_eq!(
        Arc::strong_count(&counted),
        2,
        "dropping the receiver did not drop its waker"
    );
    // And the unbounded channel's.
    let (_tx, mut rx) = mpsc::unbounded_channel::<()>();
    assert!(rx.poll_recv(&mut Context::from_waker(&waker)).is_pending());
    drop(rx);
    assert_eq!(Arc::strong_count(&counted), 2);
}

#[test]
fn oneshot_replaced_wakers_may_use_the_channel() {
    no_deadlock("oneshot", || {
        let (tx, mut rx) = oneshot::channel::<u8>();
        let tx = Arc::new(std::sync::Mutex::new(tx));
        let probe = tx.clone();
        let waker = on_drop(move || {
            let _ = probe.lock().unwrap().is_closed();
        });
        pending_with(pin!(&mut rx), waker);
        assert!(pin!(&mut rx).poll(&mut noop()).is_pending());

        // The sender's `poll_closed` waker.
        let (mut tx, rx) = oneshot::channel::<u8>();
        let rx = Arc::new(std::sync::Mutex::new(Some(rx)));
        let probe = rx.clone();
        let waker = on_drop(move || {
            // Closes the channel: locks its state.
            if let Some(rx) = probe.lock().unwrap().as_mut() {
                rx.close();
            }
        });
        assert!(tx
            .poll_closed(&mut Context::from_waker(&waker))
            .is_pending());
        drop(waker);
        // The second poll replaces the waker, whose drop closes the channel.
        assert!(tx.poll_closed(&mut noop()).is_pending());
        assert!(tx.poll_closed(&mut noop()).is_ready(), "the drop closed it");
    });
}

#[test]
fn semaphore_replaced_and_cancelled_wakers_may_add_permits() {
    no_deadlock("semaphore", || {
        let sem = Arc::new(Semaphore::new(0));
        // Replaced by a second poll of a queued acquire.
        let s = sem.clone();
        let waker = on_drop(move || s.add_permits(1));
        let mut acquire = Box::pin(sem.acquire());
        pending_with(acquire.as_mut(), waker);
        // The second poll replaces the waker, whose drop adds the permit
        // this acquire then gets at its next poll.
        assert!(acquire.as_mut().poll(&mut noop()).is_pending());
        assert!(matches!(
            acquire.as_mut().poll(&mut noop()),
            Poll::Ready(Ok(_))
        ));
        drop(acquire);
        // Removed with a cancelled acquire.
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let waker = on_drop(move || s.add_permits(1));
        {
            let mut acquire = pin!(sem.acquire());
            pending_with(acquire.as_mut(), waker);
        }
        assert_eq!(sem.available_permits(), 1);
        // Removed by a close.
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let waker = on_drop(move || s.add_permits(1));
        let mut acquire = Box::pin(sem.acquire());
        pending_with(acquire.as_mut(), waker);
        sem.close();
        assert!(matches!(
            acquire.as_mut().poll(&mut noop()),
            Poll::Ready(Err(_))
        ));
    });
}

#[test]
fn notify_replaced_and_removed_wakers_may_notify() {
    no_deadlock("notify", || {
        let notify = Arc::new(Notify::new());
        let n = notify.clone();
        let waker = on_drop(move || n.notify_waiters());
        let mut notified = Box::pin(notify.notified());
        pending_with(notified.as_mut(), waker);
        // The replaced waker's drop notifies this very waiter.
        let _ = notified.as_mut().poll(&mut noop());
        assert!(notified.as_mut().poll(&mut noop()).is_ready());
        // Removed when the waiter drops.
        let n = notify.clone();
        let waker = on_drop(move || n.notify_one());
        {
            let mut notified = pin!(notify.notified());
            pending_with(notified.as_mut(), waker);
        }
        // The permit its drop stored.
        let mut notified = pin!(notify.notified());
        assert!(notified.as_mut().poll(&mut noop()).is_ready());
    });
}

/// tokio's `drop_from_waker_drop`: a timer's waker that owns another timer
/// drops it while the runtime removes the first one.
#[sim_rt::test]
async fn a_sleeps_waker_may_drop_another_sleep() {
    /// Owns a sleep, dropped with the waker.
    struct Holder {
        _sleep: std::sync::Mutex<std::pin::Pin<Box<sim_rt::time::Sleep>>>,
    }
    impl Wake for Holder {
        fn wake(self: Arc<Self>) {}
    }
    /// A pending sleep polled once with a waker, since dropped, that owns
    /// another pending sleep.
    fn polled_with_a_waker_owning_a_sleep() -> Pin<Box<sim_rt::time::Sleep>> {
        let mut secondary = Box::pin(sim_rt::time::sleep(Duration::from_secs(3600)));
        assert!(secondary.as_mut().poll(&mut noop()).is_pending());
        let waker = Waker::from(Arc::new(Holder {
            _sleep: std::sync::Mutex::new(secondary),
        }));
        let mut primary = Box::pin(sim_rt::time::sleep(Duration::from_secs(3600)));
        pending_with(primary.as_mut(), waker);
        primary
    }
    drop(polled_with_a_waker_owning_a_sleep());
    // And replaced by a second poll.
    let mut primary = polled_with_a_waker_owning_a_sleep();
    assert!(primary.as_mut().poll(&mut noop()).is_pending());
}

/// A `JoinHandle` polled again with another waker drops the one it held
/// outside the runtime's borrow: that waker's `Drop` may ask the runtime
/// about the task.
#[test]
fn a_join_handles_replaced_waker_may_use_the_runtime() {
    no_deadlock("JoinHandle", || {
        sim_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let task = sim_rt::spawn(std::future::pending::<()>());
                let abort = task.abort_handle();
                let mut task = pin!(task);
                let waker = on_drop(move || assert!(!abort.is_finished()));
                let first = task.as_mut().poll(&mut Context::from_waker(&waker));
                assert!(first.is_pending());
                drop(waker);
                assert!(task.as_mut().poll(&mut noop()).is_pending());
            });
    });
}
