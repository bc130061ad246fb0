//! Simulated [`tokio::runtime::RuntimeMetrics`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html): counters of a simulation,
//! read live from its world, and kept when it ends.
//!
//! The simulation has one worker (the thread that drives it). It "parks"
//! when no task can run and the clock moves to the next instant at which
//! something is due, so the park count is the number of clock advances.

use std::sync::Arc;
use std::time::Duration;

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
/// One worker, always. Parking is a clock advance, and polls take no
/// simulated time, so [`worker_total_busy_duration`](Self::worker_total_busy_duration)
/// is always zero.
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

    #[track_caller]
    fn check_worker(&self, worker: usize) {
        assert!(
            worker < self.num_workers(),
            "worker index {worker} out of range: a simulation has one worker (index 0)"
        );
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::num_workers`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.num_workers): 1.
    pub fn num_workers(&self) -> usize {
        1
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
    /// many times the clock advanced because no task could run.
    ///
    /// # Panics
    ///
    /// When `worker` is not 0.
    #[track_caller]
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        self.check_worker(worker);
        self.counters().advances
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::worker_park_unpark_count`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.worker_park_unpark_count):
    /// parks plus unparks. The simulated worker is never parked when asked
    /// (it is running the caller), so this is even: twice the park count.
    ///
    /// # Panics
    ///
    /// When `worker` is not 0.
    #[track_caller]
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        self.check_worker(worker);
        self.counters().advances * 2
    }

    /// Simulated [`tokio::runtime::RuntimeMetrics::worker_total_busy_duration`](https://docs.rs/tokio/1/tokio/runtime/struct.RuntimeMetrics.html#method.worker_total_busy_duration):
    /// the simulated time the polls took: each costs
    /// [`Builder::poll_cost`](crate::runtime::Builder::poll_cost) while the
    /// clock is not paused, so with a paused clock it stays zero.
    ///
    /// # Panics
    ///
    /// When `worker` is not 0.
    #[track_caller]
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        self.check_worker(worker);
        self.counters().busy
    }
}
