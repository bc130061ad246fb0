//! [`tokio::sync`], with a deterministic [`watch`].
//!
//! Everything in tokio's `sync` is runtime-independent and uses no
//! randomness, and is re-exported unchanged (`mpsc`, `oneshot`,
//! `broadcast`, `Mutex`, `RwLock`, `Notify`, `Semaphore`, `OnceCell`,
//! `Barrier`, ...), with one exception: tokio's `watch` spreads the receivers
//! waiting for a change over eight notifiers picked with tokio's thread-local
//! random generator, which no simulation seeds. The order in which one send
//! wakes them then depends on how many draws the thread made before, not on
//! the seed, and the same seed can run differently twice on one thread.
//! sim-rt's own [`watch`] has tokio's API and wakes waiters in a fixed
//! order.
//!
//! # Determinism
//!
//! The local `watch` module shadows the `watch` of the glob re-export, so
//! `tokio::sync::watch` in a crate that does
//! `extern crate sim_rt as tokio;` names the deterministic one.

pub use tokio::sync::*;

pub mod watch;
