//! `sim_rt::sync::oneshot`: send/close/drop semantics, `try_recv`
//! variants, and termination. Each `both!` test runs against sim-rt's and
//! tokio's channel (hand polling), so the outcomes asserted are tokio's.

#[macro_use]
mod sync_support;

use std::pin::pin;

use sync_support::{ready, Task};

both! {
    fn send_then_receive(s) {
        let (tx, mut rx) = s::oneshot::channel::<u8>();
        assert!(rx.is_empty());
        assert_eq!(rx.try_recv(), Err(s::oneshot::error::TryRecvError::Empty));
        assert!(!rx.is_terminated());
        let t = Task::new();
        assert!(t.poll(pin!(&mut rx)).is_pending());
        tx.send(3).unwrap();
        assert_eq!(t.wakes(), 1);
        assert!(!rx.is_empty());
        assert_eq!(ready(t.poll(pin!(&mut rx))), Ok(3));
        assert!(rx.is_terminated() && rx.is_empty());
    }
}

both! {
    fn sender_dropped(s) {
        let (tx, mut rx) = s::oneshot::channel::<u8>();
        let t = Task::new();
        assert!(t.poll(pin!(&mut rx)).is_pending());
        drop(tx);
        assert_eq!(t.wakes(), 1);
        let e = ready(t.poll(pin!(&mut rx))).unwrap_err();
        assert_eq!(e.to_string(), "channel closed");
        assert!(rx.is_terminated());
        let (tx, mut rx) = s::oneshot::channel::<u8>();
        drop(tx);
        let e = rx.try_recv().unwrap_err();
        assert_eq!(e, s::oneshot::error::TryRecvError::Closed);
        assert_eq!(e.to_string(), "channel closed");
        assert_eq!(s::oneshot::error::TryRecvError::Empty.to_string(), "channel empty");
    }
}

both! {
    /// `close` refuses the send (the value comes back) and completes the
    /// sender's `closed`; a value sent before `close` is still received.
    fn close(s) {
        let (mut tx, mut rx) = s::oneshot::channel::<u8>();
        let t = Task::new();
        {
            let mut closed = pin!(tx.closed());
            assert!(t.poll(closed.as_mut()).is_pending());
            rx.close();
            assert_eq!(t.wakes(), 1);
            assert!(t.poll(closed.as_mut()).is_ready());
        }
        assert!(tx.is_closed());
        assert_eq!(tx.send(4), Err(4));
        assert!(ready(t.poll(pin!(&mut rx))).is_err());

        let (tx, mut rx) = s::oneshot::channel::<u8>();
        tx.send(5).unwrap();
        rx.close();
        assert_eq!(rx.try_recv(), Ok(5));
    }
}

both! {
    /// Dropping the receiver makes the sender see the close.
    fn receiver_dropped(s) {
        let (mut tx, rx) = s::oneshot::channel::<u8>();
        let t = Task::new();
        assert!(t.poll_fn_closed(&mut tx).is_pending());
        drop(rx);
        assert_eq!(t.wakes(), 1);
        assert!(t.poll_fn_closed(&mut tx).is_ready());
        assert_eq!(tx.send(1), Err(1));
    }
}

both! {
    #[should_panic(expected = "called after complete")]
    fn poll_after_completion_panics(s) {
        let (tx, mut rx) = s::oneshot::channel::<u8>();
        tx.send(1).unwrap();
        let t = Task::new();
        let _ = t.poll(pin!(&mut rx));
        let _ = t.poll(pin!(&mut rx));
    }
}

/// `poll_closed` through a task, for both implementations.
trait PollClosed {
    fn poll_closed_with(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()>;
}
impl<T> PollClosed for sim_rt::sync::oneshot::Sender<T> {
    fn poll_closed_with(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        self.poll_closed(cx)
    }
}
impl<T> PollClosed for tokio::sync::oneshot::Sender<T> {
    fn poll_closed_with(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        self.poll_closed(cx)
    }
}
trait TaskExt {
    fn poll_fn_closed(&self, tx: &mut impl PollClosed) -> std::task::Poll<()>;
}
impl TaskExt for Task {
    fn poll_fn_closed(&self, tx: &mut impl PollClosed) -> std::task::Poll<()> {
        tx.poll_closed_with(&mut std::task::Context::from_waker(self.waker()))
    }
}

/// `blocking_recv` works from a plain thread.
#[test]
fn blocking_recv_outside_a_simulation() {
    let (tx, rx) = sim_rt::sync::oneshot::channel::<u8>();
    let h = std::thread::spawn(move || rx.blocking_recv());
    tx.send(9).unwrap();
    assert_eq!(h.join().unwrap(), Ok(9));
}

/// In a simulation, a spawned task's answer arrives through a oneshot.
#[sim_rt::test]
async fn across_tasks() {
    let (tx, rx) = sim_rt::sync::oneshot::channel();
    sim_rt::spawn(async move {
        sim_rt::time::sleep(std::time::Duration::from_secs(1)).await;
        tx.send("done").unwrap();
    });
    assert_eq!(rx.await, Ok("done"));
}
