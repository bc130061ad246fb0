//! Simulated [`tokio::task::JoinHandle`](https://docs.rs/tokio/1/tokio/task/struct.JoinHandle.html) and [`tokio::task::AbortHandle`](https://docs.rs/tokio/1/tokio/task/struct.AbortHandle.html).

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};

use super::deferred::{self, DEFERRED};
use super::{Id, JoinError};
use crate::runtime::context;
use crate::runtime::task::{TakeOutput, TaskCell};
use crate::runtime::world::{Origin, World};
use crate::scheduler::HostId;

/// Simulated [`tokio::task::JoinHandle`](https://docs.rs/tokio/1/tokio/task/struct.JoinHandle.html): an owned permission to join a task.
///
/// Awaiting it gives the task's output, or a [`JoinError`] when the task was
/// aborted (or panicked, under
/// [`UnhandledPanic::Ignore`](crate::runtime::UnhandledPanic::Ignore)).
/// Dropping it detaches the task, which keeps running.
///
/// # Cancel safety
///
/// Awaiting a `JoinHandle` is cancel safe: the output stays in the task until
/// a later poll takes it.
///
/// Polled from a thread outside the simulation, it joins it as a guest
/// (see [`Handle`](crate::runtime::Handle)). Once the runtime is dropped, as
/// on tokio, a task that had finished gives its output and any other was
/// cancelled.
///
/// # Panics
///
/// Polling after it returned `Ready`.
///
/// # Differences from tokio
///
/// Dropped on a thread other than the simulation's own, a `JoinHandle`
/// detaches nothing (the task is freed with the runtime). A finished
/// task's output kept past its runtime is kept on the thread that dropped
/// the runtime: polled on another thread, the task reads as cancelled.
pub struct JoinHandle<T> {
    runtime: u64,
    key: usize,
    id: Id,
    /// Moves the finished task's output out of its cell. Made where `T` is
    /// known to be `'static` (at spawn, where the cell's type is erased),
    /// so that awaiting the handle needs no `'static` bound, as in tokio.
    take: TakeOutput<T>,
    // `Mutex<T>` gives tokio's auto traits: Send + Sync exactly when T: Send.
    _output: PhantomData<Mutex<T>>,
}

/// The [`TakeOutput`] of tasks whose output is `T`.
fn take_output<T: 'static>(cell: Pin<&mut dyn TaskCell>) -> Option<Result<T, JoinError>> {
    let mut out: Option<Result<T, JoinError>> = None;
    cell.take_output(&mut out);
    out
}

impl<T> Unpin for JoinHandle<T> {}

impl<T: 'static> JoinHandle<T> {
    pub(crate) fn spawn_on<F>(
        world: &World,
        future: F,
        host: Option<HostId>,
        origin: Origin,
    ) -> JoinHandle<T>
    where
        F: Future<Output = T> + 'static,
    {
        Self::spawn_as(world, future, host, origin, None)
    }

    /// [`spawn_on`](Self::spawn_on) with the task's id given (see
    /// [`World::spawn_as`]).
    pub(crate) fn spawn_as<F>(
        world: &World,
        future: F,
        host: Option<HostId>,
        origin: Origin,
        id: Option<Id>,
    ) -> JoinHandle<T>
    where
        F: Future<Output = T> + 'static,
    {
        let (key, id) = world.spawn_as(future, host, origin, id);
        JoinHandle {
            runtime: world.id,
            key,
            id,
            take: take_output::<T>,
            _output: PhantomData,
        }
    }

    /// The simulation's id and the task's key.
    pub(crate) fn place(&self) -> (u64, usize) {
        (self.runtime, self.key)
    }

    /// The handle of a task a `LocalSet` spawns later, in `slot` (see
    /// `deferred`), with the id reserved for it.
    pub(crate) fn deferred(slot: usize, id: Id) -> JoinHandle<T> {
        JoinHandle {
            runtime: DEFERRED,
            key: slot,
            id,
            take: take_output::<T>,
            _output: PhantomData,
        }
    }
}

/// Where a handle's task is.
enum Located {
    /// Task `key` of simulation `runtime` (which may be gone).
    Task(u64, usize),
    /// A `LocalSet` will spawn it (see `deferred`).
    Waiting(usize),
    /// It never started: spawned on a shut-down runtime, or dropped with
    /// its `LocalSet` before it was spawned.
    NeverStarted,
}

/// Where the task of a handle with these fields is.
fn locate(runtime: u64, key: usize) -> Located {
    if key == NEVER_STARTED {
        return Located::NeverStarted;
    }
    if runtime != DEFERRED {
        return Located::Task(runtime, key);
    }
    match deferred::state(key) {
        deferred::State::Spawned { runtime, key } => Located::Task(runtime, key),
        deferred::State::Waiting => Located::Waiting(key),
        deferred::State::Cancelled => Located::NeverStarted,
    }
}

/// Aborts task `key` of `runtime` with id `id`: from its own thread, or
/// as a guest from a thread outside it.
fn abort_task(runtime: u64, key: usize, id: Id) {
    match context::world_of(runtime) {
        Some(w) => w.abort(key, id),
        // Not while this thread's thread-locals are destroyed: its own
        // simulations are out of reach then, and a visit would wait for
        // them forever.
        None if context::can_enter() => drop(crate::runtime::world::door::visit(runtime, |w| {
            w.abort(key, id)
        })),
        None => {}
    }
}

impl<T: 'static> JoinHandle<T> {
    /// The handle of a task spawned on simulation `runtime` after it was
    /// dropped or shut down: cancelled before it started, as tokio's.
    pub(crate) fn cancelled(runtime: u64) -> JoinHandle<T> {
        JoinHandle {
            runtime,
            key: NEVER_STARTED,
            id: Id::from_u64(u64::MAX),
            take: take_output::<T>,
            _output: PhantomData,
        }
    }
}

/// The key of a [`JoinHandle::cancelled`] handle: its task has no slot,
/// even while its (shut-down) simulation lives.
const NEVER_STARTED: usize = usize::MAX;

impl<T> JoinHandle<T> {
    /// Aborts the task: it is cancelled the next time it would be polled, and
    /// awaiting the handle then gives a cancelled [`JoinError`]. Has no
    /// effect on a finished task.
    pub fn abort(&self) {
        match locate(self.runtime, self.key) {
            Located::Task(runtime, key) => abort_task(runtime, key, self.id),
            Located::Waiting(slot) => deferred::abort(slot),
            Located::NeverStarted => {}
        }
    }

    /// Whether the task has finished (returned, been cancelled or panicked).
    pub fn is_finished(&self) -> bool {
        match locate(self.runtime, self.key) {
            Located::Task(runtime, key) => {
                context::world_of(runtime).is_none_or(|w| w.is_finished(key, self.id))
            }
            Located::Waiting(_) => false,
            Located::NeverStarted => true,
        }
    }

    /// A handle that can abort the task without owning its output.
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            runtime: self.runtime,
            key: self.key,
            id: self.id,
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.id
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let (id, take) = (self.id, self.take);
        // The common case first: a task of the simulation polling.
        if self.runtime != DEFERRED && self.key != NEVER_STARTED {
            if let Some(world) = context::world_of(self.runtime) {
                return world.poll_join(self.key, id, take, cx);
            }
        }
        let (runtime, key) = match locate(self.runtime, self.key) {
            Located::Task(runtime, key) => (runtime, key),
            Located::Waiting(slot) => match deferred::poll(slot, cx.waker()) {
                deferred::State::Spawned { runtime, key } => (runtime, key),
                deferred::State::Waiting => return Poll::Pending,
                deferred::State::Cancelled => return Poll::Ready(Err(JoinError::cancelled(id))),
            },
            Located::NeverStarted => return Poll::Ready(Err(JoinError::cancelled(id))),
        };
        if let Some(world) = context::world_of(runtime) {
            return world.poll_join(key, id, take, cx);
        }
        // From a thread outside the simulation: as a guest of it. Once the
        // simulation is gone, a task that finished before has its output
        // (on the thread that dropped the runtime), the others were
        // cancelled (as a dropped tokio runtime's).
        crate::runtime::world::door::visit(runtime, |w| w.poll_join(key, id, take, cx))
            .unwrap_or_else(|| Poll::Ready(crate::runtime::world::kept_output(runtime, id, take)))
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        if self.runtime != DEFERRED {
            // As the common case always was.
            match context::world_of(self.runtime).filter(|_| self.key != NEVER_STARTED) {
                Some(w) => w.release_handle(self.key, self.id),
                None => crate::runtime::world::drop_kept_output(self.runtime, self.id),
            }
            return;
        }
        if let Located::Task(runtime, key) = locate(self.runtime, self.key) {
            match context::world_of(runtime) {
                Some(w) => w.release_handle(key, self.id),
                None => crate::runtime::world::drop_kept_output(runtime, self.id),
            }
        }
        deferred::release(self.key);
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle").field("id", &self.id).finish()
    }
}

/// Simulated [`tokio::task::AbortHandle`](https://docs.rs/tokio/1/tokio/task/struct.AbortHandle.html): aborts a task without owning its
/// output.
#[derive(Clone)]
pub struct AbortHandle {
    runtime: u64,
    key: usize,
    id: Id,
}

impl AbortHandle {
    /// Aborts the task (see [`JoinHandle::abort`]).
    pub fn abort(&self) {
        match locate(self.runtime, self.key) {
            Located::Task(runtime, key) => abort_task(runtime, key, self.id),
            Located::Waiting(slot) => deferred::abort(slot),
            Located::NeverStarted => {}
        }
    }

    /// Whether the task has finished.
    pub fn is_finished(&self) -> bool {
        match locate(self.runtime, self.key) {
            Located::Task(runtime, key) => {
                context::world_of(runtime).is_none_or(|w| w.is_finished(key, self.id))
            }
            Located::Waiting(_) => false,
            Located::NeverStarted => true,
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        self.id
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle").field("id", &self.id).finish()
    }
}
