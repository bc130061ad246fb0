//! Simulated/own version of
//! [`tokio::sync::mpsc`](https://docs.rs/tokio/1/tokio/sync/mpsc/index.html):
//! multi-producer, single-consumer channels, bounded ([`channel`]) and
//! unbounded ([`unbounded_channel`]).
//!
//! Both share one channel (`chan.rs`): a `VecDeque` of messages, the
//! receiver's waker, and for the bounded flavour the fair semaphore whose
//! permits are the free slots, so senders waiting for capacity are served
//! in FIFO order.
//!
//! # Determinism
//!
//! Messages are received in the order they were sent; senders waiting for
//! capacity get it in the order they started waiting.

#[macro_use]
mod handles;
mod bounded;
mod chan;
pub mod error;
mod unbounded;

pub use self::bounded::{
    channel, OwnedPermit, Permit, PermitIterator, Receiver, Sender, WeakSender,
};
pub use self::unbounded::{
    unbounded_channel, UnboundedReceiver, UnboundedSender, WeakUnboundedSender,
};
