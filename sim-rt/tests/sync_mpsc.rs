//! `sim_rt::sync::mpsc`: capacity and permit accounting, FIFO senders,
//! close and drop behaviour, error variants and texts. Each `both!` test
//! runs against sim-rt's and tokio's channel (hand polling), so the
//! outcomes asserted are tokio's.

#[macro_use]
mod sync_support;

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sync_support::{ready, Log, Task};

/// Counts its drops.
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

both! {
    /// Capacity goes down with reservations and messages, and back up when
    /// messages are received or permits dropped.
    fn capacity_accounting(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(3);
        assert_eq!((tx.capacity(), tx.max_capacity()), (3, 3));
        let p = tx.try_reserve().unwrap();
        assert_eq!(tx.capacity(), 2);
        p.send(1);
        assert_eq!((tx.capacity(), rx.len(), rx.capacity()), (2, 1, 2));
        let many = tx.try_reserve_many(2).unwrap();
        assert_eq!(many.len(), 2);
        assert_eq!(tx.capacity(), 0);
        assert!(matches!(tx.try_send(9), Err(s::mpsc::error::TrySendError::Full(9))));
        drop(many);
        assert_eq!(tx.capacity(), 2);
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!((tx.capacity(), rx.is_empty()), (3, true));
        assert!(matches!(tx.try_reserve_many(4), Err(s::mpsc::error::TrySendError::Full(()))));
        let t = Task::new();
        assert!(ready(t.poll(pin!(tx.reserve_many(4)))).is_err());
    }
}

both! {
    /// Senders waiting for capacity get it in the order they asked.
    fn waiting_senders_are_fifo(s) {
        let (tx, mut rx) = s::mpsc::channel::<usize>(1);
        tx.try_send(100).unwrap();
        let log = Log::default();
        let tasks: Vec<Task> = (0..3).map(|i| Task::logged(i, &log)).collect();
        let mut sends: Vec<_> = (0..3).map(|i| Box::pin(tx.send(i))).collect();
        for i in [1, 2, 0] {
            assert!(tasks[i].poll(sends[i].as_mut()).is_pending());
        }
        let t = Task::new();
        let mut got = Vec::new();
        let mut done = [false; 3];
        for _ in 0..4 {
            got.push(ready(t.poll(pin!(rx.recv()))).unwrap());
            for i in 0..3 {
                if tasks[i].wakes() > 0 && !done[i] {
                    assert!(tasks[i].poll(sends[i].as_mut()).is_ready());
                    done[i] = true;
                }
            }
        }
        assert_eq!(got, [100, 1, 2, 0]);
        assert_eq!(*log.lock().unwrap(), [1, 2, 0]);
    }
}

both! {
    /// After `close`, sends fail, buffered messages and outstanding
    /// permits are still received, then `recv` returns `None`.
    fn close_drains_then_ends(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(4);
        tx.try_send(1).unwrap();
        let permit = tx.try_reserve().unwrap();
        rx.close();
        assert!(rx.is_closed() && tx.is_closed());
        assert!(matches!(tx.try_send(2), Err(s::mpsc::error::TrySendError::Closed(2))));
        let t = Task::new();
        assert_eq!(ready(t.poll(pin!(tx.send(3)))).unwrap_err().0, 3);
        assert_eq!(rx.try_recv(), Ok(1));
        // The permit may still send: not the end yet.
        assert_eq!(rx.try_recv(), Err(s::mpsc::error::TryRecvError::Empty));
        {
            let mut r = pin!(rx.recv());
            assert!(t.poll(r.as_mut()).is_pending());
            permit.send(4);
            assert_eq!(ready(t.poll(r.as_mut())), Some(4));
        }
        assert_eq!(ready(t.poll(pin!(rx.recv()))), None);
        assert_eq!(rx.try_recv(), Err(s::mpsc::error::TryRecvError::Disconnected));
    }
}

both! {
    /// Dropping an outstanding permit after `close` wakes the receiver,
    /// which then sees the end.
    fn dropped_permit_after_close_ends_the_channel(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(1);
        let permit = tx.try_reserve().unwrap();
        rx.close();
        let t = Task::new();
        let mut r = pin!(rx.recv());
        assert!(t.poll(r.as_mut()).is_pending());
        drop(permit);
        assert_eq!(t.wakes(), 1);
        assert_eq!(ready(t.poll(r.as_mut())), None);
    }
}

both! {
    /// When every sender is gone the receiver drains, then sees `None`.
    fn senders_dropped(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(2);
        let tx2 = tx.clone();
        assert_eq!((tx.strong_count(), rx.sender_strong_count()), (2, 2));
        tx.try_send(1).unwrap();
        drop(tx);
        assert!(!rx.is_closed());
        let t = Task::new();
        assert_eq!(ready(t.poll(pin!(rx.recv()))), Some(1));
        {
            let mut r = pin!(rx.recv());
            assert!(t.poll(r.as_mut()).is_pending());
            drop(tx2);
            assert_eq!(t.wakes(), 1);
            assert_eq!(ready(t.poll(r.as_mut())), None);
        }
        assert!(rx.is_closed());
    }
}

both! {
    /// Dropping the receiver drops the buffered messages, fails later
    /// sends and completes `Sender::closed`.
    fn receiver_dropped(s) {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = s::mpsc::channel::<Tracked>(4);
        tx.try_send(Tracked(drops.clone())).unwrap();
        tx.try_send(Tracked(drops.clone())).unwrap();
        let t = Task::new();
        let mut closed = pin!(tx.closed());
        assert!(t.poll(closed.as_mut()).is_pending());
        drop(rx);
        assert_eq!(drops.load(Ordering::SeqCst), 2);
        assert_eq!(t.wakes(), 1);
        assert!(t.poll(closed.as_mut()).is_ready());
        assert!(tx.try_send(Tracked(drops.clone())).is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 3);
        let e = ready(t.poll(pin!(tx.send(Tracked(drops.clone()))))).unwrap_err();
        assert_eq!(e.to_string(), "channel closed");
        assert_eq!(format!("{e:?}"), "SendError { .. }");
    }
}

both! {
    /// `recv_many` takes up to `limit`, appends, and returns 0 for a zero
    /// limit or a finished channel.
    fn recv_many(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(8);
        for i in 0..5 {
            tx.try_send(i).unwrap();
        }
        let t = Task::new();
        let mut buf = vec![9];
        assert_eq!(ready(t.poll(pin!(rx.recv_many(&mut buf, 0)))), 0);
        assert_eq!(ready(t.poll(pin!(rx.recv_many(&mut buf, 3)))), 3);
        assert_eq!(buf, [9, 0, 1, 2]);
        assert_eq!(tx.capacity(), 6);
        assert_eq!(ready(t.poll(pin!(rx.recv_many(&mut buf, 10)))), 2);
        drop(tx);
        assert_eq!(ready(t.poll(pin!(rx.recv_many(&mut buf, 10)))), 0);
        assert_eq!(buf, [9, 0, 1, 2, 3, 4]);
    }
}

both! {
    /// Weak senders do not keep the channel open.
    fn weak_senders(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(1);
        let weak = tx.downgrade();
        let weak2 = weak.clone();
        assert_eq!((tx.weak_count(), rx.sender_weak_count()), (2, 2));
        let up = weak.upgrade().unwrap();
        assert_eq!(weak.strong_count(), 2);
        drop((tx, up));
        assert!(weak2.upgrade().is_none());
        let t = Task::new();
        assert_eq!(ready(t.poll(pin!(rx.recv()))), None);
    }
}

both! {
    /// Owned permits carry the sender.
    fn owned_permits(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(1);
        let t = Task::new();
        let p = ready(t.poll(pin!(tx.clone().reserve_owned()))).unwrap();
        assert!(p.same_channel_as_sender(&tx));
        let tx2 = match tx.clone().try_reserve_owned() {
            Err(s::mpsc::error::TrySendError::Full(tx2)) => tx2,
            _ => panic!("expected Full"),
        };
        let tx3 = p.send(5);
        assert!(tx3.same_channel(&tx2));
        assert_eq!(rx.try_recv(), Ok(5));
        let p = tx3.try_reserve_owned().unwrap();
        assert_eq!(tx.capacity(), 0);
        let _tx4 = p.release();
        assert_eq!(tx.capacity(), 1);
    }
}

both! {
    /// Error texts and `Debug` forms.
    fn error_texts(s) {
        use s::mpsc::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};
        assert_eq!(TrySendError::Full(1).to_string(), "no available capacity");
        assert_eq!(TrySendError::Closed(1).to_string(), "channel closed");
        // tokio formats the variant name as a `Debug` string, quotes included.
        assert_eq!(format!("{:?}", TrySendError::Full(1)), "\"Full(..)\"");
        assert_eq!(TrySendError::from(SendError(3)), TrySendError::Closed(3));
        assert_eq!(TrySendError::Full(4).into_inner(), 4);
        assert_eq!(TryRecvError::Empty.to_string(), "receiving on an empty channel");
        assert_eq!(TryRecvError::Disconnected.to_string(), "receiving on a closed channel");
        assert_eq!(SendTimeoutError::Timeout(1).to_string(), "timed out waiting on send operation");
        assert_eq!(format!("{:?}", SendTimeoutError::Closed(1)), "\"Closed(..)\"");
        assert_eq!(SendTimeoutError::Closed(2).into_inner(), 2);
    }
}

both! {
    /// The unbounded channel: no capacity, same close semantics.
    fn unbounded(s) {
        let (tx, mut rx) = s::mpsc::unbounded_channel::<u8>();
        for i in 0..100 {
            tx.send(i).unwrap();
        }
        assert_eq!(rx.len(), 100);
        let t = Task::new();
        let mut buf = Vec::new();
        assert_eq!(ready(t.poll(pin!(rx.recv_many(&mut buf, 60)))), 60);
        rx.close();
        assert!(tx.is_closed());
        assert_eq!(tx.send(7).unwrap_err().0, 7);
        assert_eq!(ready(t.poll(pin!(rx.recv_many(&mut buf, 60)))), 40);
        assert_eq!(ready(t.poll(pin!(rx.recv()))), None);
        let weak = tx.downgrade();
        assert_eq!(tx.weak_count(), 1);
        drop(tx);
        assert!(weak.upgrade().is_none());
    }
}

both! {
    #[should_panic(expected = "mpsc bounded channel requires buffer > 0")]
    fn zero_capacity_panics(s) {
        let _ = s::mpsc::channel::<u8>(0);
    }
}

/// `send_timeout` times out in simulated time, and succeeds when capacity
/// frees up in time.
#[sim_rt::test(start_paused = true)]
async fn send_timeout_uses_simulated_time() {
    use sim_rt::sync::mpsc::{self, error::SendTimeoutError};
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    tx.send(1).await.unwrap();
    let start = sim_rt::time::Instant::now();
    let e = tx
        .send_timeout(2, Duration::from_secs(3))
        .await
        .unwrap_err();
    assert!(matches!(e, SendTimeoutError::Timeout(2)));
    assert_eq!(start.elapsed(), Duration::from_secs(3));
    sim_rt::spawn(async move {
        sim_rt::time::sleep(Duration::from_secs(1)).await;
        let got = rx.recv().await;
        // Keep the channel open until the sender has run: a reservation
        // fails once the receiver is gone, even one assigned its slot.
        sim_rt::time::sleep(Duration::from_secs(10)).await;
        got
    });
    tx.send_timeout(3, Duration::from_secs(3)).await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_secs(4));
}

/// A receiver in a loop over an always-full channel yields to other tasks
/// (tokio's cooperative budget).
#[sim_rt::test]
async fn recv_consumes_budget() {
    let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel::<u32>();
    for i in 0..1000 {
        tx.send(i).unwrap();
    }
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    sim_rt::spawn(async move {
        r.fetch_add(1, Ordering::SeqCst);
    });
    let mut n = 0;
    while n < 1000 {
        rx.recv().await.unwrap();
        n += 1;
    }
    assert_eq!(
        ran.load(Ordering::SeqCst),
        1,
        "the other task ran while draining"
    );
}

/// `blocking_recv` and `blocking_send` work from a plain thread.
#[test]
fn blocking_outside_a_simulation() {
    let (tx, mut rx) = sim_rt::sync::mpsc::channel::<u8>(1);
    let h = std::thread::spawn(move || {
        for i in 0..3 {
            tx.blocking_send(i).unwrap();
        }
    });
    let got: Vec<u8> = std::iter::from_fn(|| rx.blocking_recv()).collect();
    h.join().unwrap();
    assert_eq!(got, [0, 1, 2]);
}

both! {
    /// A reservation already assigned its slot when the receiver closes
    /// fails at its next poll (the channel is closed), gives the slot back,
    /// and that wakes the receiver, which sees the end (tokio's
    /// `failed_reserve_wakes_closed_receiver`).
    fn assigned_reservation_fails_after_close_and_wakes_the_receiver(s) {
        let (tx, mut rx) = s::mpsc::channel::<()>(1);
        let permit = tx.try_reserve().unwrap();
        let t = Task::new();
        let mut reserve = pin!(tx.reserve());
        assert!(t.poll(reserve.as_mut()).is_pending());
        drop(permit);
        assert_eq!(t.wakes(), 1, "the queued reservation was assigned the slot");
        rx.close();
        let r_task = Task::new();
        let mut recv = pin!(rx.recv());
        assert!(r_task.poll(recv.as_mut()).is_pending());
        assert!(ready(t.poll(reserve.as_mut())).is_err());
        assert_eq!(r_task.wakes(), 1);
        assert_eq!(ready(r_task.poll(recv.as_mut())), None);
    }
}

both! {
    /// After `close`, `reserve`, `reserve_many`, `reserve_owned` and `send`
    /// fail at once, even with free capacity.
    fn reserve_after_close_fails(s) {
        let (tx, mut rx) = s::mpsc::channel::<u8>(4);
        rx.close();
        let t = Task::new();
        assert!(ready(t.poll(pin!(tx.reserve()))).is_err());
        assert!(ready(t.poll(pin!(tx.reserve_many(2)))).is_err());
        assert!(ready(t.poll(pin!(tx.clone().reserve_owned()))).is_err());
        assert!(ready(t.poll(pin!(tx.send(1)))).is_err());
        assert_eq!(tx.capacity(), 4);
    }
}
