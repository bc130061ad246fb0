//! `sim_rt::sync::broadcast`: every receiver sees every value, lag
//! semantics with tokio's power-of-two capacity, close and drop behaviour.
//! Each `both!` test runs against sim-rt's and tokio's channel (hand
//! polling), so the outcomes asserted are tokio's.

#[macro_use]
mod sync_support;

use std::pin::pin;

use sync_support::{ready, Log, Task};

both! {
    fn every_receiver_sees_every_value(s) {
        let (tx, mut a) = s::broadcast::channel::<u8>(4);
        let mut b = tx.subscribe();
        assert_eq!(tx.send(1).unwrap(), 2);
        assert_eq!(tx.send(2).unwrap(), 2);
        assert_eq!((a.len(), tx.len()), (2, 2));
        assert_eq!(a.try_recv(), Ok(1));
        assert_eq!(a.try_recv(), Ok(2));
        assert_eq!(tx.len(), 2);
        assert_eq!(b.try_recv(), Ok(1));
        assert_eq!(tx.len(), 1);
        assert_eq!(b.try_recv(), Ok(2));
        assert!(tx.is_empty() && a.is_empty());
        assert_eq!(a.try_recv(), Err(s::broadcast::error::TryRecvError::Empty));
        // A new receiver sees only what is sent after it subscribed.
        let mut c = a.resubscribe();
        tx.send(3).unwrap();
        assert_eq!(c.try_recv(), Ok(3));
        assert_eq!(tx.receiver_count(), 3);
    }
}

both! {
    /// The capacity is rounded up to a power of two; a receiver that falls
    /// behind by more loses the oldest values and is told how many.
    fn lagging(s) {
        use s::broadcast::error::{RecvError, TryRecvError};
        let (tx, mut rx) = s::broadcast::channel::<u32>(3); // 4 slots
        for i in 0..6 {
            tx.send(i).unwrap();
        }
        assert_eq!(rx.len(), 6);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(2)));
        assert_eq!(rx.try_recv(), Ok(2));
        for i in 6..12 {
            tx.send(i).unwrap();
        }
        let t = Task::new();
        assert_eq!(ready(t.poll(pin!(rx.recv()))), Err(RecvError::Lagged(5)));
        let got: Vec<u32> = (0..4).map(|_| ready(t.poll(pin!(rx.recv()))).unwrap()).collect();
        assert_eq!(got, [8, 9, 10, 11]);
        assert_eq!(RecvError::Lagged(3).to_string(), "channel lagged by 3");
        assert_eq!(TryRecvError::Lagged(3).to_string(), "channel lagged by 3");
    }
}

both! {
    /// A send wakes every waiting receiver, in the order they started
    /// waiting.
    fn send_wakes_waiting_receivers_in_order(s) {
        let (tx, rx) = s::broadcast::channel::<u8>(2);
        let mut rxs: Vec<_> = (0..5).map(|_| rx.resubscribe()).collect();
        let log = Log::default();
        let tasks: Vec<Task> = (0..5).map(|i| Task::logged(i, &log)).collect();
        let mut recvs: Vec<_> = rxs.iter_mut().map(|r| Box::pin(r.recv())).collect();
        for i in [3, 1, 4, 0, 2] {
            assert!(tasks[i].poll(recvs[i].as_mut()).is_pending());
        }
        tx.send(7).unwrap();
        assert_eq!(*log.lock().unwrap(), [3, 1, 4, 0, 2]);
        for i in 0..5 {
            assert_eq!(ready(tasks[i].poll(recvs[i].as_mut())), Ok(7));
        }
    }
}

both! {
    /// Senders gone: receivers drain, then see `Closed`.
    fn senders_dropped(s) {
        use s::broadcast::error::{RecvError, TryRecvError};
        let (tx, mut rx) = s::broadcast::channel::<u8>(2);
        let weak = tx.downgrade();
        assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
        tx.send(1).unwrap();
        let t = Task::new();
        drop(tx);
        assert!(rx.is_closed());
        assert!(weak.upgrade().is_none());
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
        assert_eq!(ready(t.poll(pin!(rx.recv()))), Err(RecvError::Closed));
        assert_eq!(RecvError::Closed.to_string(), "channel closed");
    }
}

both! {
    /// Receivers gone: sends fail and `Sender::closed` completes; a new
    /// subscription reopens the channel.
    fn receivers_dropped(s) {
        let (tx, rx) = s::broadcast::channel::<u8>(2);
        let t = Task::new();
        {
            let mut closed = pin!(tx.closed());
            assert!(t.poll(closed.as_mut()).is_pending());
            drop(rx);
            assert_eq!(t.wakes(), 1);
            assert!(t.poll(closed.as_mut()).is_ready());
        }
        let e = tx.send(5).unwrap_err();
        assert_eq!(e.0, 5);
        assert_eq!(e.to_string(), "channel closed");
        let mut rx = tx.subscribe();
        assert!(t.poll(pin!(tx.closed())).is_pending());
        tx.send(6).unwrap();
        assert_eq!(rx.try_recv(), Ok(6));
        let tx2 = s::broadcast::Sender::<u8>::new(4);
        assert_eq!(tx2.receiver_count(), 0);
        assert!(t.poll(pin!(tx2.closed())).is_ready());
    }
}

both! {
    /// A dropped receiver no longer holds values back.
    fn dropped_receiver_releases_values(s) {
        let (tx, mut a) = s::broadcast::channel::<u8>(4);
        let b = tx.subscribe();
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        assert_eq!(a.try_recv(), Ok(1));
        assert_eq!(tx.len(), 2);
        drop(b);
        assert_eq!(tx.len(), 1);
        assert_eq!(a.try_recv(), Ok(2));
        assert!(tx.is_empty());
    }
}

both! {
    #[should_panic(expected = "broadcast channel capacity cannot be zero")]
    fn zero_capacity_panics(s) {
        let _ = s::broadcast::channel::<u8>(0);
    }
}
