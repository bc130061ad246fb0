//! Simulated [`tokio::runtime::RuntimeMetrics`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html): counters of a simulation,
//! read live from its world, and kept when it ends.
//!
//! The simulation has one thread. A current-thread runtime has one worker,
//! which "parks" when no task can run and the clock moves to the next
//! instant at which something is due, so its park count is the number of
//! clock advances. A multi-thread runtime has the workers it was built
//! with, all played by that thread: each parks once when the runtime is
//! built (as tokio's workers do, finding nothing to run) and unparks when
//! it shuts down; worker 0 also unparks for each `block_on` and parks when
//! it returns, and parks and unparks at each clock advance.

use std::sync::Arc;
use std::time::Duration;

use super::config::RuntimeFlavor;
use super::world::{KeptMetrics, WorldMetrics};
use super::Handle;

/// Simulated [`tokio::runtime::RuntimeMetrics`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html): a handle to a simulation's
/// counters. Each method reads the current value.
///
/// Once the runtime is dropped, each method reads the counters it ended
/// with (no task alive or queued), as tokio's do.
///
/// # Panics
///
/// When the simulation failed, or was dropped before any of these
/// handles was made or read on the thread that built it.
///
/// # Differences from tokio
///
/// The workers are counted as above (see the module's docs): one thread
/// runs every task, as worker 0, and the busy duration is the simulated
/// time polls took ([`Builder::poll_cost`](crate::runtime::Builder::poll_cost)).
#[derive(Debug, Clone)]
pub struct RuntimeMetrics {
    handle: Handle,
    /// The counters the simulation ended with, once it is gone.
    kept: Arc<KeptMetrics>,
}

impl RuntimeMetrics {
    pub(crate) fn new(handle: Handle) -> RuntimeMetrics {
        let kept = Arc::default();
        if let Some(world) = super::context::world_of(handle.id) {
            world.keep_metrics(&kept);
        }
        RuntimeMetrics { handle, kept }
    }

    #[track_caller]
    fn counters(&self) -> WorldMetrics {
        let live = self.handle.try_with_world(|w| {
            w.keep_metrics(&self.kept);
            w.metrics()
        });
        if let Some(live) = live {
            return live;
        }
        match *self.kept.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(last) => last,
            None => panic!("{}", super::HANDLE_GONE),
        }
    }

    /// The counters, after checking `worker` is one of the runtime's.
    #[track_caller]
    fn worker(&self, worker: usize) -> WorldMetrics {
        let c = self.counters();
        assert!(
            worker < c.workers,
            "worker index {worker} out of range: the runtime has {} workers",
            c.workers
        );
        c
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::num_workers`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.num_workers): 1
    /// for a current-thread runtime; for a multi-thread one, what
    /// [`Builder::worker_threads`](crate::runtime::Builder::worker_threads)
    /// set.
    pub fn num_workers(&self) -> usize {
        self.counters().workers
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::num_alive_tasks`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.num_alive_tasks): tasks
    /// spawned and not yet finished (not counting the future passed to
    /// `block_on`).
    pub fn num_alive_tasks(&self) -> usize {
        self.counters().alive_tasks
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::global_queue_depth`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.global_queue_depth):
    /// tasks woken and not yet polled.
    pub fn global_queue_depth(&self) -> usize {
        self.counters().runnable
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::worker_park_count`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.worker_park_count): how
    /// many times the worker parked (see the module's docs): for a
    /// current-thread runtime, the clock's advances.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`num_workers`](Self::num_workers).
    #[track_caller]
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        let c = self.worker(worker);
        match (c.flavor, worker) {
            (RuntimeFlavor::CurrentThread, _) => c.advances,
            // Parked when built, then after each `block_on` and advance.
            (RuntimeFlavor::MultiThread, 0) => 1 + c.block_ons - u64::from(c.driven) + c.advances,
            (RuntimeFlavor::MultiThread, _) => 1,
        }
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::worker_park_unpark_count`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.worker_park_unpark_count):
    /// parks plus unparks, odd while the worker is parked (see the
    /// module's docs). A current-thread runtime's worker is never parked
    /// when asked (it is running the caller, or idle outside `block_on`),
    /// so its count is even: twice the park count.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`num_workers`](Self::num_workers).
    #[track_caller]
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        let c = self.worker(worker);
        let shut_down = u64::from(c.shut_down);
        match (c.flavor, worker) {
            (RuntimeFlavor::CurrentThread, _) => c.advances * 2,
            (RuntimeFlavor::MultiThread, 0) => {
                1 + 2 * c.block_ons - u64::from(c.driven) + 2 * c.advances + shut_down
            }
            (RuntimeFlavor::MultiThread, _) => 1 + shut_down,
        }
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::worker_total_busy_duration`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.worker_total_busy_duration):
    /// the simulated time the polls took: each costs
    /// [`Builder::poll_cost`](crate::runtime::Builder::poll_cost) while the
    /// clock is not paused, so with a paused clock it stays zero. A
    /// multi-thread runtime's polls are dealt to its workers in turn.
    ///
    /// # Panics
    ///
    /// When `worker` is not below [`num_workers`](Self::num_workers).
    #[track_caller]
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        let c = self.worker(worker);
        if c.charged == 0 {
            return Duration::ZERO;
        }
        // Dealt in turn: worker `i` has every `workers`-th poll from the
        // `i`-th.
        let workers = c.workers as u64;
        let polls = c.charged / workers + u64::from((worker as u64) < c.charged % workers);
        let nanos = c.busy.as_nanos() * u128::from(polls) / u128::from(c.charged);
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}
