//! Simulated/own version of
//! [`tokio::sync::oneshot`](https://docs.rs/tokio/1/tokio/sync/oneshot/index.html):
//! a channel for sending one value between tasks.
//!
//! # Invariants
//!
//! - `complete` is set once, by a send or by the sender's drop; `value` is
//!   `Some` only when a send completed and the receiver has not taken it.
//! - A value is never dropped while `st` is locked.
//!
//! # Determinism
//!
//! One waiter per side: nothing to order.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex as StdMutex};
use std::task::{ready, Context, Poll, Waker};

use super::util::{block_on, lock, register};
use crate::task::coop;

pub mod error {
    //! Simulated/own version of
    //! [`tokio::sync::oneshot::error`](https://docs.rs/tokio/1/tokio/sync/oneshot/error/index.html):
    //! `oneshot` error types.

    use std::fmt;

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::error::RecvError`](https://docs.rs/tokio/1/tokio/sync/oneshot/error/struct.RecvError.html):
    /// the sender was dropped without sending.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub struct RecvError(pub(super) ());

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::error::TryRecvError`](https://docs.rs/tokio/1/tokio/sync/oneshot/error/enum.TryRecvError.html):
    /// why `try_recv` returned no value.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub enum TryRecvError {
        /// The send half of the channel has not yet sent a value.
        Empty,
        /// The send half of the channel was dropped without sending a value.
        Closed,
    }

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "channel closed")
        }
    }

    impl std::error::Error for RecvError {}

    impl fmt::Display for TryRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => write!(f, "channel empty"),
                TryRecvError::Closed => write!(f, "channel closed"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

use self::error::{RecvError, TryRecvError};

struct Inner<T> {
    st: StdMutex<State<T>>,
}

struct State<T> {
    value: Option<T>,
    /// Sent, or the sender dropped.
    complete: bool,
    /// The receiver closed or dropped.
    closed: bool,
    rx_waker: Option<Waker>,
    tx_waker: Option<Waker>,
}

impl<T: fmt::Debug> fmt::Debug for Inner<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = lock(&self.st);
        f.debug_struct("Inner")
            .field("value", &st.value)
            .field("complete", &st.complete)
            .field("closed", &st.closed)
            .finish()
    }
}

/// Simulated/own version of
/// [`tokio::sync::oneshot::Sender`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Sender.html):
/// sends the one value; dropping it unsent makes the receiver fail with
/// [`RecvError`].
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Sender<T> {
    inner: Option<Arc<Inner<T>>>,
}

/// Simulated/own version of
/// [`tokio::sync::oneshot::Receiver`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Receiver.html):
/// a future of the one value.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Receiver<T> {
    inner: Option<Arc<Inner<T>>>,
}

/// Simulated/own version of
/// [`tokio::sync::oneshot::channel`](https://docs.rs/tokio/1/tokio/sync/oneshot/fn.channel.html):
/// a new channel.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::sync::oneshot;
///
/// let (tx, rx) = oneshot::channel();
/// sim_rt::spawn(async move { tx.send(3).unwrap() });
/// assert_eq!(rx.await, Ok(3));
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Inner {
        st: StdMutex::new(State {
            value: None,
            complete: false,
            closed: false,
            rx_waker: None,
            tx_waker: None,
        }),
    });
    (
        Sender {
            inner: Some(inner.clone()),
        },
        Receiver { inner: Some(inner) },
    )
}

impl<T> Sender<T> {
    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Sender::send`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Sender.html#method.send):
    /// sends the value; it comes back when the receiver is closed or gone.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn send(mut self, t: T) -> Result<(), T> {
        let inner = self.inner.take().expect("a live Sender has its channel");
        let mut st = lock(&inner.st);
        if st.closed {
            drop(st);
            return Err(t);
        }
        st.value = Some(t);
        st.complete = true;
        let waker = st.rx_waker.take();
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Sender::closed`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Sender.html#method.closed):
    /// completes once the receiver is closed or dropped.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn closed(&mut self) {
        std::future::poll_fn(|cx| self.poll_closed(cx)).await
    }

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Sender::is_closed`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Sender.html#method.is_closed):
    /// whether the receiver is closed or dropped.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_closed(&self) -> bool {
        let inner = self.inner.as_ref().expect("a live Sender has its channel");
        lock(&inner.st).closed
    }

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Sender::poll_closed`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Sender.html#method.poll_closed):
    /// [`closed`](Sender::closed) as a poll function.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let coop = ready!(coop::poll_proceed(cx));
        let inner = self.inner.as_ref().expect("a live Sender has its channel");
        let mut st = lock(&inner.st);
        if st.closed {
            coop.made_progress();
            return Poll::Ready(());
        }
        let replaced = register(&mut st.tx_waker, cx);
        drop(st);
        drop(replaced);
        Poll::Pending
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            let mut st = lock(&inner.st);
            st.complete = true;
            let waker = st.rx_waker.take();
            drop(st);
            if let Some(w) = waker {
                w.wake();
            }
        }
    }
}

impl<T> Receiver<T> {
    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Receiver::close`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Receiver.html#method.close):
    /// refuses the send; a value sent before stays receivable.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn close(&mut self) {
        if let Some(inner) = self.inner.as_ref() {
            let mut st = lock(&inner.st);
            st.closed = true;
            let waker = if st.complete {
                None
            } else {
                st.tx_waker.take()
            };
            drop(st);
            if let Some(w) = waker {
                w.wake();
            }
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Receiver::is_terminated`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Receiver.html#method.is_terminated):
    /// whether the receiver already returned a value or an error.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_terminated(&self) -> bool {
        self.inner.is_none()
    }

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Receiver::is_empty`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Receiver.html#method.is_empty):
    /// whether no value is ready to be received.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_empty(&self) -> bool {
        match self.inner.as_ref() {
            None => true,
            Some(inner) => lock(&inner.st).value.is_none(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Receiver::try_recv`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Receiver.html#method.try_recv):
    /// the value if it was sent.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let result = match self.inner.as_ref() {
            Some(inner) => {
                let mut st = lock(&inner.st);
                if st.complete {
                    st.value.take().ok_or(TryRecvError::Closed)
                } else if st.closed {
                    Err(TryRecvError::Closed)
                } else {
                    return Err(TryRecvError::Empty);
                }
            }
            None => Err(TryRecvError::Closed),
        };
        self.inner = None;
        result
    }

    /// Simulated/own version of
    /// [`tokio::sync::oneshot::Receiver::blocking_recv`](https://docs.rs/tokio/1/tokio/sync/oneshot/struct.Receiver.html#method.blocking_recv):
    /// awaits the receiver, blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation (tokio: inside an asynchronous execution
    /// context).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        block_on("oneshot::Receiver::blocking_recv", self)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            let mut st = lock(&inner.st);
            st.closed = true;
            let value = st.value.take();
            let waker = if st.complete {
                None
            } else {
                st.tx_waker.take()
            };
            drop(st);
            drop(value);
            if let Some(w) = waker {
                w.wake();
            }
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let inner = this.inner.as_ref().expect("called after complete");
        let coop = ready!(coop::poll_proceed(cx));
        let mut st = lock(&inner.st);
        let ret = if st.complete {
            st.value.take().ok_or(RecvError(()))
        } else if st.closed {
            Err(RecvError(()))
        } else {
            let replaced = register(&mut st.rx_waker, cx);
            drop(st);
            drop(replaced);
            return Poll::Pending;
        };
        drop(st);
        coop.made_progress();
        this.inner = None;
        Poll::Ready(ret)
    }
}
