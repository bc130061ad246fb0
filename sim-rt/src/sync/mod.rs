//! Simulated/own version of
//! [`tokio::sync`](https://docs.rs/tokio/1/tokio/sync/index.html):
//! channels and locks for async code, with tokio's API and a deterministic
//! wake order.
//!
//! sim-rt owns all of `sync` (so that a package named `tokio` can stand in
//! for tokio in a whole dependency graph without depending on it). Every
//! primitive is built from a `std::sync::Mutex` around its state and FIFO
//! wait queues of wakers keyed by arrival order.
//!
//! # Map
//!
//! - `batch_semaphore`: the fair semaphore under [`Semaphore`], [`Mutex`],
//!   [`RwLock`] and the bounded [`mpsc`] channel.
//! - [`Notify`] (`notify.rs`) and its futures in [`futures`].
//! - Locks: [`Mutex`] (`mutex.rs`), [`RwLock`] (`rwlock.rs`), and what
//!   they and their guards share (`guard.rs`).
//! - Channels: [`mpsc`], [`oneshot`], [`broadcast`], [`watch`].
//! - [`Barrier`], [`OnceCell`], [`SetOnce`].
//!
//! # Determinism
//!
//! Waiters are woken in the order they started waiting (their first poll),
//! never in an order drawn from a random generator, a hash or an address.
//! tokio's `watch` picks one of eight notifiers with its thread-local
//! random generator, which no simulation seeds; sim-rt's [`watch`] keeps
//! one FIFO queue instead.

#[macro_use]
mod util;
mod barrier;
mod batch_semaphore;
pub mod broadcast;
#[macro_use]
mod guard;
pub mod mpsc;
mod mutex;
mod notify;
mod once_cell;
pub mod oneshot;
mod rwlock;
mod semaphore;
mod set_once;

pub mod watch;

pub use barrier::{Barrier, BarrierWaitResult};
pub use batch_semaphore::{AcquireError, TryAcquireError};
pub use mutex::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard, TryLockError,
};
pub use notify::Notify;
pub use once_cell::{OnceCell, SetError};
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};
pub use set_once::{SetOnce, SetOnceError};

/// Simulated/own version of
/// [`tokio::sync::futures`](https://docs.rs/tokio/1/tokio/sync/futures/index.html):
/// the named futures of this module.
pub mod futures {
    pub use super::notify::{Notified, OwnedNotified};
}
