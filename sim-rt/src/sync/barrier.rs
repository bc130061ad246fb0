//! Simulated [`Barrier`]: lets `n` tasks wait for each other.
//!
//! # Invariants
//!
//! - `arrived < n` between calls; the `n`-th arrival (the leader) resets it
//!   and starts a new generation.
//!
//! # Determinism
//!
//! The waiting tasks are woken oldest first by one `notify_waiters`.

use std::sync::Mutex as StdMutex;

use super::notify::Notify;
use super::util::lock;

/// Simulated/own version of
/// [`tokio::sync::Barrier`](https://docs.rs/tokio/1/tokio/sync/struct.Barrier.html):
/// a barrier for `n` tasks; the `n`-th to arrive is the leader and releases
/// the others.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Barrier {
    state: StdMutex<BarrierState>,
    n: usize,
    notify: Notify,
}

#[derive(Debug)]
struct BarrierState {
    arrived: usize,
    /// The generation now gathering (starts at 1).
    generation: usize,
}

impl Barrier {
    /// Simulated/own version of
    /// [`tokio::sync::Barrier::new`](https://docs.rs/tokio/1/tokio/sync/struct.Barrier.html#method.new):
    /// a barrier for `n` tasks (`0` counts as 1).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn new(n: usize) -> Barrier {
        Barrier {
            state: StdMutex::new(BarrierState {
                arrived: 0,
                generation: 1,
            }),
            n: n.max(1),
            notify: Notify::new(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Barrier::wait`](https://docs.rs/tokio/1/tokio/sync/struct.Barrier.html#method.wait):
    /// waits until `n` tasks called `wait`; exactly one of them gets a
    /// [`BarrierWaitResult`] that [`is_leader`](BarrierWaitResult::is_leader).
    ///
    /// # Cancel safety
    ///
    /// Not cancel safe (as in tokio): a cancelled wait still counts as an
    /// arrival.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn wait(&self) -> BarrierWaitResult {
        let generation = {
            let mut st = lock(&self.state);
            let generation = st.generation;
            st.arrived += 1;
            if st.arrived == self.n {
                st.arrived = 0;
                st.generation += 1;
                drop(st);
                self.notify.notify_waiters();
                return BarrierWaitResult(true);
            }
            generation
        };
        loop {
            let notified = self.notify.notified();
            if lock(&self.state).generation > generation {
                return BarrierWaitResult(false);
            }
            notified.await;
        }
    }
}

/// Simulated/own version of
/// [`tokio::sync::BarrierWaitResult`](https://docs.rs/tokio/1/tokio/sync/struct.BarrierWaitResult.html):
/// what [`Barrier::wait`] returned.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug, Clone)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// Simulated/own version of
    /// [`tokio::sync::BarrierWaitResult::is_leader`](https://docs.rs/tokio/1/tokio/sync/struct.BarrierWaitResult.html#method.is_leader):
    /// whether this task was the one to complete the barrier.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_leader(&self) -> bool {
        self.0
    }
}
