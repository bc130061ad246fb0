//! `sim_rt::sync::watch`: deterministic wake order, and tokio's semantics.
//!
//! The first tests are the reason the module exists: tokio's `watch` spreads
//! the receivers waiting in `changed()` over eight notifiers picked with
//! tokio's thread-local random generator, which no simulation seeds, so the
//! same seed run twice on one thread could wake them (and so schedule them)
//! in different orders, and a replay could diverge. They fail against
//! `pub use tokio::sync::watch`.
//!
//! The rest mirror tokio's own `tests/sync_watch.rs`. Tests that check
//! exactly when a waker fires poll by hand with a counting waker (the watch
//! channel needs no runtime, in tokio as here); the others run on a
//! simulation with `#[sim_rt::test]`.

mod rt_support;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use futures::FutureExt;
use rt_support::random_order;
use sim_rt::runtime::{Builder, Trace};
use sim_rt::sync::{mpsc, watch};
use sim_rt::time::sleep;

// ---------------------------------------------------------------------------
// Determinism

const WAITERS: usize = 16;

/// One simulation: some unrelated work, then `WAITERS` tasks wait in
/// `changed()` on clones of one receiver, one send wakes them all, and each
/// records its id when it runs. Returns the order they ran in.
fn wake_order(rt: &sim_rt::runtime::Runtime) -> Vec<usize> {
    let woken = Arc::new(Mutex::new(Vec::new()));
    let w = woken.clone();
    rt.block_on(async move {
        // Unrelated work that does not matter: tasks, timers, a channel.
        let (mtx, mut mrx) = mpsc::channel(2);
        for i in 0..4u64 {
            let mtx = mtx.clone();
            sim_rt::spawn(async move {
                sleep(Duration::from_millis(i)).await;
                mtx.send(i).await.unwrap();
            });
        }
        drop(mtx);
        let mut sum = 0;
        while let Some(i) = mrx.recv().await {
            sum += i;
        }
        assert_eq!(sum, 6);

        let (tx, rx) = watch::channel(0u32);
        let mut handles = Vec::new();
        for id in 0..WAITERS {
            let mut rx = rx.clone();
            let w = w.clone();
            handles.push(sim_rt::spawn(async move {
                rx.changed().await.unwrap();
                w.lock().unwrap().push(id);
            }));
        }
        // Time moves only when no task can run: by now every waiter waits.
        sleep(Duration::from_millis(1)).await;
        assert_eq!(tx.receiver_count(), WAITERS + 1);
        tx.send(1).unwrap();
        for h in handles {
            h.await.unwrap();
        }
    });
    let order = woken.lock().unwrap().clone();
    assert_eq!(order.len(), WAITERS);
    order
}

/// `wake_order` on a fresh runtime seeded with `seed`, and its trace.
fn run(seed: u64) -> (Vec<usize>, Trace) {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .build()
        .unwrap();
    let order = wake_order(&rt);
    (order, rt.trace())
}

#[test]
fn same_seed_same_wake_order_on_one_thread() {
    // Repeated runs on one thread: with tokio's watch, each run's draws from
    // tokio's thread-local generator carry over into the next.
    for seed in [1, 7, 42] {
        let (first_order, first_trace) = run(seed);
        for rerun in 1..8 {
            let (order, trace) = run(seed);
            assert_eq!(
                order, first_order,
                "seed {seed}, rerun {rerun}: waiters woke in another order"
            );
            assert_eq!(
                trace.hash(),
                first_trace.hash(),
                "seed {seed}, rerun {rerun}"
            );
            assert_eq!(trace, first_trace, "seed {seed}, rerun {rerun}");
        }
    }
}

#[test]
fn replay_of_a_watch_wakeup_does_not_diverge() {
    for seed in 0..8 {
        let (order, trace) = run(seed);
        let rt = Builder::new_current_thread()
            .enable_all()
            .replay(trace.clone())
            .build()
            .unwrap();
        assert_eq!(wake_order(&rt), order, "seed {seed}: replayed order");
        assert_eq!(rt.trace(), trace, "seed {seed}: replayed trace");
    }
}

#[test]
fn different_seeds_can_wake_in_different_orders() {
    // The fixed part is the notifier's order; a random scheduler still
    // picks (the default runs them in tokio's order).
    let orders: std::collections::BTreeSet<_> = (0..20)
        .map(|seed| {
            let rt = random_order(seed);
            wake_order(&rt)
        })
        .collect();
    assert!(orders.len() > 1, "the scheduler orders the woken waiters");
}

// ---------------------------------------------------------------------------
// Hand polling

/// A waker that counts its wakes and logs its id.
struct Counter {
    id: usize,
    wakes: AtomicUsize,
    log: Arc<Mutex<Vec<usize>>>,
}

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        self.log.lock().unwrap().push(self.id);
    }
}

/// A future polled by hand, like tokio-test's `spawn`.
struct Polled<F> {
    fut: Pin<Box<F>>,
    counter: Arc<Counter>,
    waker: Waker,
}

impl<F: Future> Polled<F> {
    fn new(fut: F) -> Self {
        Self::logged(fut, 0, Arc::default())
    }
    fn logged(fut: F, id: usize, log: Arc<Mutex<Vec<usize>>>) -> Self {
        let counter = Arc::new(Counter {
            id,
            wakes: AtomicUsize::new(0),
            log,
        });
        let waker = Waker::from(counter.clone());
        Polled {
            fut: Box::pin(fut),
            counter,
            waker,
        }
    }
    fn poll(&mut self) -> Poll<F::Output> {
        self.fut
            .as_mut()
            .poll(&mut Context::from_waker(&self.waker))
    }
    fn is_woken(&self) -> bool {
        self.counter.wakes.load(Ordering::SeqCst) > 0
    }
}

#[test]
fn send_wakes_waiters_in_the_order_they_started_waiting() {
    let (tx, rx) = watch::channel(0);
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut rxs: Vec<_> = (0..WAITERS).map(|_| rx.clone()).collect();
    // Start waiting in a scrambled but fixed order.
    let start: Vec<usize> = (0..WAITERS).map(|i| (i * 7) % WAITERS).collect();
    let mut waits: Vec<_> = rxs
        .iter_mut()
        .enumerate()
        .map(|(id, rx)| Polled::logged(rx.changed(), id, log.clone()))
        .collect();
    for &id in &start {
        assert!(waits[id].poll().is_pending());
    }
    tx.send(1).unwrap();
    assert_eq!(*log.lock().unwrap(), start);
    for w in &mut waits {
        assert!(matches!(w.poll(), Poll::Ready(Ok(()))));
    }
}

#[test]
fn single_rx_recv() {
    let (tx, mut rx) = watch::channel("one");
    {
        let mut t = Polled::new(rx.changed());
        assert!(t.poll().is_pending(), "not initially notified");
    }
    assert_eq!(*rx.borrow(), "one");
    {
        let mut t = Polled::new(rx.changed());
        assert!(t.poll().is_pending());
        tx.send("two").unwrap();
        assert!(t.is_woken());
        assert!(matches!(t.poll(), Poll::Ready(Ok(()))));
    }
    assert_eq!(*rx.borrow(), "two");
    {
        let mut t = Polled::new(rx.changed());
        assert!(t.poll().is_pending());
        drop(tx);
        assert!(t.is_woken());
        assert!(matches!(t.poll(), Poll::Ready(Err(_))));
    }
    assert_eq!(*rx.borrow(), "two");
}

#[test]
fn borrow_and_update_marks_seen_and_borrow_does_not() {
    let (tx, mut rx) = watch::channel("one");
    assert!(!rx.has_changed().unwrap());
    assert!(!rx.borrow().has_changed());

    tx.send("two").unwrap();
    assert!(rx.has_changed().unwrap());
    {
        let r = rx.borrow();
        assert_eq!(*r, "two");
        assert!(r.has_changed());
    }
    assert!(rx.has_changed().unwrap(), "borrow does not mark seen");
    assert!(matches!(
        Polled::new(rx.changed()).poll(),
        Poll::Ready(Ok(()))
    ));
    assert!(Polled::new(rx.changed()).poll().is_pending());
    assert!(!rx.has_changed().unwrap());

    tx.send("three").unwrap();
    assert!(rx.has_changed().unwrap());
    {
        let r = rx.borrow_and_update();
        assert_eq!(*r, "three");
        assert!(r.has_changed());
    }
    assert!(!rx.borrow_and_update().has_changed());
    assert!(Polled::new(rx.changed()).poll().is_pending());
    assert!(!rx.has_changed().unwrap());
    assert!(!tx.borrow().has_changed(), "the sender never sees a change");

    drop(tx);
    assert_eq!(*rx.borrow_and_update(), "three");
    assert!(matches!(
        Polled::new(rx.changed()).poll(),
        Poll::Ready(Err(_))
    ));
    assert!(rx.has_changed().is_err());
}

#[test]
fn multi_rx() {
    let (tx, mut rx1) = watch::channel("one");
    let mut rx2 = rx1.clone();
    {
        let mut t1 = Polled::new(rx1.changed());
        let mut t2 = Polled::new(rx2.changed());
        assert!(t1.poll().is_pending());
        assert!(t2.poll().is_pending());
        tx.send("two").unwrap();
        assert!(t1.is_woken() && t2.is_woken());
        assert!(t1.poll().is_ready());
        assert!(t2.poll().is_ready());
    }
    assert_eq!(*rx1.borrow(), "two");
    assert_eq!(*rx2.borrow(), "two");
}

#[test]
fn changed_on_a_closed_channel() {
    // Seen value: error at once.
    let (tx, mut rx) = watch::channel("A");
    drop(tx);
    assert!(rx.is_closed());
    assert!(matches!(
        Polled::new(rx.changed()).poll(),
        Poll::Ready(Err(_))
    ));
    assert_eq!(*rx.borrow(), "A");

    // Unseen value: Ok once, then the error; has_changed errs either way.
    let (tx, mut rx) = watch::channel("A");
    tx.send("B").unwrap();
    drop(tx);
    assert!(rx.has_changed().is_err(), "errs iff closed, even if unseen");
    assert!(matches!(
        Polled::new(rx.changed()).poll(),
        Poll::Ready(Ok(()))
    ));
    assert!(matches!(
        Polled::new(rx.changed()).poll(),
        Poll::Ready(Err(_))
    ));
    assert_eq!(*rx.borrow(), "B");

    // A send, then the close, while waiting: Ok, then the error.
    let (tx, mut rx) = watch::channel("one");
    {
        let mut t = Polled::new(rx.changed());
        assert!(t.poll().is_pending());
        tx.send("three").unwrap();
        drop(tx);
        assert!(t.is_woken());
        assert!(matches!(t.poll(), Poll::Ready(Ok(()))));
    }
    assert!(matches!(
        Polled::new(rx.changed()).poll(),
        Poll::Ready(Err(_))
    ));
    assert_eq!(*rx.borrow(), "three");
}

#[test]
fn send_without_receivers_fails_and_keeps_the_old_value() {
    let (tx, rx) = watch::channel(1);
    drop(rx);
    assert!(tx.is_closed());
    let err = tx.send(2).unwrap_err();
    assert_eq!(err, watch::error::SendError(2));
    assert_eq!(err.0, 2);
    assert_eq!(err.to_string(), "channel closed");
    assert_eq!(format!("{err:?}"), "SendError { .. }");
    let _: &dyn std::error::Error = &err;
    assert_eq!(*tx.borrow(), 1);
    assert_eq!(*tx.subscribe().borrow(), 1);

    let tx = watch::Sender::new(0u8);
    assert_eq!(tx.receiver_count(), 0);
    assert!(tx.send(3).is_err());
    let _rx = tx.subscribe();
    assert!(tx.send(4).is_ok());
}

#[test]
fn send_replace_and_send_modify_work_without_receivers() {
    let (tx, rx) = watch::channel(1);
    drop(rx);
    assert_eq!(tx.send_replace(2), 1);
    tx.send_modify(|v| *v += 1);
    assert!(tx.send_if_modified(|v| {
        *v += 1;
        true
    }));
    assert_eq!(*tx.borrow(), 4);
    let mut rx = tx.subscribe();
    assert!(
        !rx.has_changed().unwrap(),
        "subscribing sees the current value"
    );
    assert_eq!(*rx.borrow_and_update(), 4);
}

#[test]
fn send_if_modified_false_does_not_notify() {
    let (tx, mut rx) = watch::channel(0);
    let mut t = Polled::new(rx.changed());
    assert!(t.poll().is_pending());
    let modified = tx.send_if_modified(|v| {
        *v = 5; // changed, but not announced
        false
    });
    assert!(!modified);
    assert!(!t.is_woken());
    assert!(t.poll().is_pending());
    assert!(tx.send_if_modified(|v| {
        *v += 1;
        true
    }));
    assert!(t.is_woken());
    assert!(t.poll().is_ready());
    drop(t);
    assert_eq!(*rx.borrow_and_update(), 6);
}

#[test]
fn send_modify_panic_notifies_nobody_and_poisons_nothing() {
    let (tx, mut rx) = watch::channel("one");
    tx.send_modify(|old| *old = "two");
    assert_eq!(*rx.borrow_and_update(), "two");
    let mut rx2 = rx.clone();
    let mut t = Polled::new(rx2.changed());
    assert!(t.poll().is_pending());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tx.send_modify(|old| {
            *old = "panicked";
            panic!("in send_modify");
        })
    }));
    assert!(result.is_err());
    assert!(!t.is_woken());
    assert!(t.poll().is_pending());
    assert_eq!(*rx.borrow(), "panicked");
    tx.send_modify(|old| *old = "three");
    assert!(matches!(t.poll(), Poll::Ready(Ok(()))));
    drop(t);
    assert_eq!(*rx.borrow_and_update(), "three");
}

#[test]
fn rx_mark_changed() {
    let (tx, mut rx) = watch::channel("one");
    let mut rx2 = rx.clone();
    let mut rx3 = rx.clone();
    let mut rx4 = rx.clone();

    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
    assert!(matches!(
        Polled::new(rx.changed()).poll(),
        Poll::Ready(Ok(()))
    ));

    assert!(!rx2.has_changed().unwrap());
    assert!(Polled::new(rx2.changed()).poll().is_pending());

    rx3.mark_changed();
    assert_eq!(*rx3.borrow(), "one");
    assert!(rx3.has_changed().unwrap());
    assert_eq!(*rx3.borrow_and_update(), "one");
    assert!(!rx3.has_changed().unwrap());
    assert!(Polled::new(rx3.changed()).poll().is_pending());

    tx.send("two").unwrap();
    assert!(rx4.has_changed().unwrap());
    assert_eq!(*rx4.borrow_and_update(), "two");
    rx4.mark_changed();
    assert!(rx4.has_changed().unwrap());
    assert_eq!(*rx4.borrow_and_update(), "two");

    // The initial version is 0: marking it changed wraps, harmlessly.
    let (_tx, mut rx) = watch::channel(());
    rx.mark_changed();
    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
}

#[test]
fn rx_mark_unchanged() {
    let (tx, mut rx) = watch::channel("one");
    let mut rx2 = rx.clone();

    assert!(!rx.has_changed().unwrap());
    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
    rx.mark_unchanged();
    assert!(!rx.has_changed().unwrap());
    assert!(Polled::new(rx.changed()).poll().is_pending());

    tx.send("two").unwrap();
    assert!(rx2.has_changed().unwrap());
    rx2.mark_unchanged();
    assert!(!rx2.has_changed().unwrap());
    assert_eq!(*rx2.borrow_and_update(), "two");
}

#[test]
fn changed_is_cancel_safe() {
    let (tx, mut rx) = watch::channel(0);
    {
        let mut t = Polled::new(rx.changed());
        assert!(t.poll().is_pending());
        tx.send(1).unwrap();
        assert!(t.is_woken());
        // Dropped before it is polled again: nothing was marked seen.
    }
    assert!(rx.has_changed().unwrap());
    assert_eq!(*rx.borrow_and_update(), 1);
}

#[test]
fn receiver_is_notified_when_last_sender_is_dropped() {
    let (tx1, mut rx) = watch::channel(0);
    let tx2 = tx1.clone();
    assert_eq!(tx1.sender_count(), 2);
    let mut t = Polled::new(rx.changed());
    assert!(t.poll().is_pending());
    drop(tx1);
    assert!(!t.is_woken(), "a sender is left");
    assert_eq!(tx2.sender_count(), 1);
    drop(tx2);
    assert!(t.is_woken());
    assert!(matches!(t.poll(), Poll::Ready(Err(_))));
}

#[test]
fn receiver_is_closed_after_all_senders_are_dropped() {
    let (tx, rx) = watch::channel("A");
    let tx2 = tx.clone();
    assert!(!rx.is_closed());
    drop(tx);
    assert!(!rx.is_closed());
    assert!(rx.has_changed().is_ok());
    drop(tx2);
    assert!(rx.is_closed());
}

#[test]
fn poll_close() {
    let (tx, rx) = watch::channel("one");
    {
        let mut t = Polled::new(tx.closed());
        assert!(t.poll().is_pending());
        drop(rx);
        assert!(t.is_woken());
        assert!(t.poll().is_ready());
    }
    assert!(tx.send("two").is_err());
}

#[test]
fn reopened_after_subscribe() {
    let (tx, rx) = watch::channel("one");
    assert!(!tx.is_closed());
    drop(rx);
    assert!(tx.is_closed());
    let rx = tx.subscribe();
    assert!(!tx.is_closed());
    drop(rx);
    assert!(tx.is_closed());
}

#[test]
fn counts_and_same_channel() {
    let (tx, rx) = watch::channel(true);
    assert_eq!((tx.sender_count(), tx.receiver_count()), (1, 1));
    let rx2 = rx.clone();
    let rx3 = tx.subscribe();
    assert_eq!(tx.receiver_count(), 3);
    let tx2 = tx.clone();
    assert_eq!((tx.sender_count(), tx2.sender_count()), (2, 2));
    assert!(rx.same_channel(&rx2) && rx.same_channel(&rx3));
    assert!(tx.same_channel(&tx2));
    let (other_tx, other_rx) = watch::channel(true);
    assert!(!rx.same_channel(&other_rx));
    assert!(!tx.same_channel(&other_tx));
    drop((rx2, rx3, tx2));
    assert_eq!((tx.sender_count(), tx.receiver_count()), (1, 1));

    let tx: watch::Sender<u32> = Default::default();
    assert_eq!((*tx.borrow(), tx.receiver_count()), (0, 0));
}

#[test]
fn errors_match_tokio() {
    // The dev-dependency `tokio` is real tokio. (The handles' `Debug` shows
    // tokio's lock type, which depends on its `parking_lot` feature, so only
    // the errors are compared.)
    let (stx, srx) = watch::channel("v");
    let (ttx, trx) = tokio::sync::watch::channel("v");
    drop((stx, ttx));
    let (serr, terr) = (
        srx.has_changed().unwrap_err(),
        trx.has_changed().unwrap_err(),
    );
    assert_eq!(format!("{serr:?}"), format!("{terr:?}"));
    assert_eq!(serr.to_string(), terr.to_string());
    let (s, t) = (
        watch::error::SendError(1),
        tokio::sync::watch::error::SendError(1),
    );
    assert_eq!(format!("{s:?}"), format!("{t:?}"));
    assert_eq!(s.to_string(), t.to_string());
    let _: &dyn std::error::Error = &serr.clone();
}

#[test]
fn debug_shows_the_value_and_the_state() {
    let (tx, rx) = watch::channel("v");
    tx.send("w").unwrap();
    let out = format!("{rx:?}");
    for part in [
        "Receiver",
        "\"w\"",
        "version: Version(2)",
        "is_closed: false",
        "ref_count_rx: 1",
    ] {
        assert!(out.contains(part), "{out}");
    }
    assert!(format!("{tx:?}").starts_with("Sender { shared: Shared {"));
    assert!(format!("{:?}", rx.borrow()).contains("\"w\""));
}

#[test]
fn wait_for_panic_propagates_and_poisons_nothing() {
    let (tx, mut rx) = watch::channel(0);
    let mut t = Polled::new(rx.wait_for(|_| panic!("in wait_for")));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.poll().is_ready()));
    assert!(result.is_err());
    drop(t);
    tx.send_replace(1);
    assert_eq!(*rx.borrow_and_update(), 1);
    assert_eq!(
        *rx.wait_for(|v| *v == 1).now_or_never().unwrap().unwrap(),
        1
    );
}

// ---------------------------------------------------------------------------
// On a simulation

#[sim_rt::test]
async fn multiple_senders() {
    let (tx1, mut rx) = watch::channel(0);
    let tx2 = tx1.clone();
    let h = sim_rt::spawn(async move {
        rx.changed().await.unwrap();
        let v1 = *rx.borrow_and_update();
        rx.changed().await.unwrap();
        let v2 = *rx.borrow_and_update();
        (v1, v2)
    });
    sleep(Duration::from_millis(1)).await;
    tx1.send(1).unwrap();
    sleep(Duration::from_millis(1)).await;
    tx2.send(2).unwrap();
    assert_eq!(h.await.unwrap(), (1, 2));
}

#[sim_rt::test(start_paused = true)]
async fn wait_for_a_value() {
    let (tx, mut rx) = watch::channel(0);
    // The current value, seen or not, is tested first.
    assert_eq!(*rx.wait_for(|v| *v == 0).await.unwrap(), 0);
    sim_rt::spawn(async move {
        for i in 1..=5 {
            sleep(Duration::from_secs(1)).await;
            tx.send(i).unwrap();
        }
    });
    let start = sim_rt::time::Instant::now();
    let mut tested = Vec::new();
    {
        let r = rx
            .wait_for(|v| {
                tested.push(*v);
                *v == 3
            })
            .await
            .unwrap();
        assert_eq!(*r, 3);
        // As in tokio: `changed` inside `wait_for` already marked it seen.
        assert!(!r.has_changed());
    }
    assert_eq!(tested, [0, 1, 2, 3]);
    assert_eq!(start.elapsed(), Duration::from_secs(3));
    assert!(!rx.has_changed().unwrap(), "the value returned is seen");
    // The sender sends 4 and 5, then drops: `f` never holds.
    assert!(rx.wait_for(|v| *v == 9).await.is_err());
    assert_eq!(*rx.borrow(), 5);
}

#[sim_rt::test]
async fn wait_for_on_a_closed_channel_tests_the_last_value() {
    let (tx, mut rx) = watch::channel("A");
    tx.send("B").unwrap();
    drop(tx);
    assert_eq!(*rx.wait_for(|_| true).await.unwrap(), "B");
    let mut calls = 0;
    assert!(rx
        .wait_for(|_| {
            calls += 1;
            false
        })
        .await
        .is_err());
    assert_eq!(calls, 1);
}

#[sim_rt::test(start_paused = true)]
async fn closed_completes_when_all_receivers_drop() {
    let (tx, rx) = watch::channel(());
    let rx2 = rx.clone();
    let h = sim_rt::spawn(async move {
        sleep(Duration::from_secs(1)).await;
        drop(rx);
        sleep(Duration::from_secs(1)).await;
        drop(rx2);
    });
    let start = sim_rt::time::Instant::now();
    tx.closed().await;
    assert_eq!(start.elapsed(), Duration::from_secs(2));
    assert!(tx.is_closed());
    h.await.unwrap();
    // Already closed: at once.
    tx.closed().await;
}

#[sim_rt::test]
async fn changed_loses_a_select_without_marking_seen() {
    let (tx, mut rx) = watch::channel(0);
    sim_rt::spawn(async move {
        sleep(Duration::from_secs(2)).await;
        tx.send(1).unwrap();
        sleep(Duration::from_secs(5)).await;
    });
    sim_rt::select! {
        _ = rx.changed() => panic!("nothing sent yet"),
        _ = sleep(Duration::from_secs(1)) => {}
    }
    assert!(!rx.has_changed().unwrap());
    rx.changed().await.unwrap();
    assert_eq!(*rx.borrow(), 1);
    assert!(rx.changed().await.is_err());
}

// ---------------------------------------------------------------------------
// Paths

/// `tokio::sync::watch` under `extern crate sim_rt as tokio` names sim-rt's
/// own, as does everything else in `tokio::sync`.
#[allow(dead_code, clippy::type_complexity)]
mod paths {
    use std::marker::PhantomData;

    fn same<T: ?Sized>(_: PhantomData<T>, _: PhantomData<T>) {}
    fn p<T: ?Sized>() -> PhantomData<T> {
        PhantomData
    }

    mod as_tokio {
        use sim_rt as tokio;
        pub type WatchSender = tokio::sync::watch::Sender<u8>;
        pub type WatchReceiver = tokio::sync::watch::Receiver<u8>;
        pub type WatchSendError = tokio::sync::watch::error::SendError<u8>;
        pub type Mpsc = tokio::sync::mpsc::Sender<u8>;
    }

    fn resolve() {
        same(
            p::<as_tokio::WatchSender>(),
            p::<sim_rt::sync::watch::Sender<u8>>(),
        );
        same(
            p::<as_tokio::WatchReceiver>(),
            p::<sim_rt::sync::watch::Receiver<u8>>(),
        );
        same(
            p::<as_tokio::WatchSendError>(),
            p::<sim_rt::sync::watch::error::SendError<u8>>(),
        );
        // The rest of tokio::sync is sim-rt's own too (none of it is real
        // tokio's any more).
        same(p::<as_tokio::Mpsc>(), p::<sim_rt::sync::mpsc::Sender<u8>>());
    }
}
