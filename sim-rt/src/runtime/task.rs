//! Task storage: the type-erased future of a task, its output, and its waker.
//!
//! A task lives in a slot of the world's slab from `spawn` until both (a) it
//! has finished and (b) its `JoinHandle` is gone (consumed or dropped). The
//! slot holds a [`TaskCell`]: the future while it runs, its
//! `Result<T, JoinError>` once finished. A `JoinHandle<T>` takes the output
//! by passing an `Option<Result<T, JoinError>>` slot as `&mut dyn Any`, so
//! no output is ever boxed.
//!
//! # Invariants
//!
//! - While a task is being polled its cell is out of the slot (`None`): the
//!   world's `RefCell` is never borrowed across user code.
//! - Every wake queues a record; the world keeps a task in the enabled set
//!   at most once (its slot's `queued` flag, checked as the records are
//!   drained), so a waker holds no state of its own that a poll must
//!   reset, and a poll does not touch it.
//! - Wakes carry the task's [`Id`]; a wake whose id no longer matches the
//!   slot (the task finished and the key was reused) is ignored.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use pin_project_lite::pin_project;

use super::join_error::JoinError;
use crate::ids::Id;

/// A task's future or output, type-erased.
pub(crate) trait TaskCell {
    /// Polls the future with the task's own waker; once it completes,
    /// stores its output and returns `Ready`. Polling a finished cell
    /// returns `Ready` again.
    fn poll(self: Pin<&mut Self>) -> Poll<()>;
    /// Drops the future (if still running) and stores `err` as the output.
    fn finish_with(self: Pin<&mut Self>, err: JoinError);
    /// Moves the output into `out`, which must be an
    /// `Option<Result<T, JoinError>>` for the task's `T`.
    fn take_output(self: Pin<&mut Self>, out: &mut dyn Any);
    /// The message of the panic stored as the output, if the task panicked
    /// and nobody took it.
    fn untaken_panic(&self) -> Option<String>;
    /// Whether dropping the cell runs no code of the program: no future
    /// left, and an output taken, cancelled or of a type without drop
    /// glue.
    fn drop_is_trivial(&self) -> bool;
}

pin_project! {
    #[project = StageProj]
    pub(crate) enum Stage<F: Future> {
        Running { #[pin] fut: F },
        Finished { out: Option<Result<F::Output, JoinError>> },
    }
}

impl<F: Future> Stage<F> {
    pub(crate) fn new(fut: F) -> Self {
        Stage::Running { fut }
    }
}

pin_project! {
    /// A task as the world holds it: its waker, and its future or output.
    /// The waker lives here so that a poll lends it rather than cloning
    /// it (no reference count changes, no touch of the waker's block).
    pub(crate) struct Task<F: Future> {
        waker: Waker,
        #[pin]
        stage: Stage<F>,
    }
}

impl<F: Future> Task<F> {
    pub(crate) fn new(waker: Waker, fut: F) -> Self {
        Task {
            waker,
            stage: Stage::new(fut),
        }
    }
}

impl<F> TaskCell for Task<F>
where
    F: Future,
    F::Output: 'static,
{
    fn poll(self: Pin<&mut Self>) -> Poll<()> {
        let this = self.project();
        this.stage.poll(&mut Context::from_waker(this.waker))
    }

    fn finish_with(self: Pin<&mut Self>, err: JoinError) {
        self.project().stage.finish_with(err)
    }

    fn take_output(self: Pin<&mut Self>, out: &mut dyn Any) {
        self.project().stage.take_output(out)
    }

    fn untaken_panic(&self) -> Option<String> {
        match &self.stage {
            Stage::Finished { out: Some(Err(e)) } => e.panic_message(),
            _ => None,
        }
    }

    fn drop_is_trivial(&self) -> bool {
        match &self.stage {
            Stage::Finished { out: None } => true,
            Stage::Finished { out: Some(Ok(_)) } => !std::mem::needs_drop::<F::Output>(),
            Stage::Finished { out: Some(Err(e)) } => e.is_cancelled(),
            Stage::Running { .. } => false,
        }
    }
}

/// Drops a task's future if dropped itself, which happens only while a
/// panic of the future's poll unwinds (the poll forgets it otherwise).
struct DropOnUnwind<'a, F: Future>(Pin<&'a mut Stage<F>>);

impl<F: Future> Drop for DropOnUnwind<'_, F> {
    fn drop(&mut self) {
        self.0.set(Stage::Finished { out: None });
    }
}

impl<F> Stage<F>
where
    F: Future,
    F::Output: 'static,
{
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // A poll that panics drops the future while the panic unwinds, as
        // tokio's task harness does: its destructors see
        // `std::thread::panicking()`.
        let mut unwinding = DropOnUnwind(self.as_mut());
        let polled = match unwinding.0.as_mut().project() {
            StageProj::Running { fut } => fut.poll(cx),
            StageProj::Finished { .. } => return Poll::Ready(()),
        };
        std::mem::forget(unwinding);
        let Poll::Ready(out) = polled else {
            return Poll::Pending;
        };
        self.set(Stage::Finished { out: Some(Ok(out)) });
        Poll::Ready(())
    }

    fn finish_with(mut self: Pin<&mut Self>, err: JoinError) {
        self.set(Stage::Finished {
            out: Some(Err(err)),
        });
    }

    fn take_output(self: Pin<&mut Self>, out: &mut dyn Any) {
        if let StageProj::Finished { out: stored } = self.project() {
            let slot = out
                .downcast_mut::<Option<Result<F::Output, JoinError>>>()
                .expect("a JoinHandle asks for its own task's output type");
            *slot = stored.take();
        }
    }
}

/// One wake: slab key (or [`MAIN_KEY`]), the woken task, and the task that
/// was running when it happened.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WakeRecord {
    pub(crate) key: usize,
    pub(crate) id: Id,
    pub(crate) by: Option<Id>,
    /// Woken by `yield_now`: runnable behind every other task at the next
    /// park (tokio defers such a wake until then).
    pub(crate) yielded: bool,
}

/// The slab key used for the future passed to `block_on`.
/// `u32::MAX`, so that a runnable task's key fits in 32 bits with the main
/// future's among them (no slab holds 4 billion tasks).
pub(crate) const MAIN_KEY: usize = u32::MAX as usize;

/// Where wakes go. Shared (`Arc`) by every waker of one runtime; a `Mutex`
/// because wakers are `Send + Sync`, though in a simulation only its own
/// thread wakes.
#[derive(Debug, Default)]
pub(crate) struct WakeQueue {
    queue: Mutex<Vec<WakeRecord>>,
    /// Set, under the lock, when records are queued; cleared, under the
    /// lock, when they are taken. The step loop reads it without the lock,
    /// to skip locking an empty queue (most steps wake nothing).
    queued: AtomicBool,
    /// The id of the task being polled (0: none), for "woken by".
    pub(crate) running: AtomicU64,
    /// Set when the task being polled wakes itself: a poll that returns
    /// `Pending` with it set only yielded (livelock detection).
    pub(crate) self_woken: AtomicBool,
    /// Set while `yield_now` wakes its task: the wake is a yield.
    pub(crate) yielding: AtomicBool,
}

impl WakeQueue {
    pub(crate) fn running(&self) -> Option<Id> {
        Id::from_raw(self.running.load(Ordering::Relaxed))
    }

    /// Queues a wake for the next step.
    pub(crate) fn push(&self, record: WakeRecord) {
        if record.by == Some(record.id) {
            self.self_woken.store(true, Ordering::Relaxed);
        }
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.push(record);
        self.queued.store(true, Ordering::Release);
    }

    /// Whether a wake of task `id` (at `key`) is queued and not yet taken.
    /// Whether wakes wait to be taken (without the lock).
    pub(crate) fn any(&self) -> bool {
        self.queued.load(Ordering::Acquire)
    }

    pub(crate) fn holds(&self, key: usize, id: Id) -> bool {
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.iter().any(|w| w.key == key && w.id == id)
    }

    /// Whether wakes are queued and not yet taken.
    pub(crate) fn any_queued(&self) -> bool {
        self.queued.load(Ordering::Acquire)
    }

    /// Queues wakes for the next step.
    pub(crate) fn extend(&self, records: Vec<WakeRecord>) {
        if records.is_empty() {
            return;
        }
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.extend(records);
        self.queued.store(true, Ordering::Release);
    }

    /// Moves the queued records into `buf`, which must be empty. Returns
    /// false, without locking, when none are queued.
    #[inline]
    pub(crate) fn take_into(&self, buf: &mut Vec<WakeRecord>) -> bool {
        debug_assert!(buf.is_empty());
        if !self.queued.load(Ordering::Acquire) {
            return false;
        }
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        self.queued.store(false, Ordering::Relaxed);
        std::mem::swap(&mut *queue, buf);
        !buf.is_empty()
    }
}

/// The waker of one task: every wake queues a record (see the module
/// docs).
#[derive(Debug)]
pub(crate) struct TaskWaker {
    pub(crate) key: usize,
    pub(crate) id: Id,
    pub(crate) queue: Arc<WakeQueue>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let by = self.queue.running();
        self.queue.push(WakeRecord {
            key: self.key,
            id: self.id,
            by,
            yielded: self.queue.yielding.load(Ordering::Relaxed),
        });
    }
}

/// Takes a finished task's output from its type-erased cell.
/// Cancels a task: drops its future and stores a cancelled `JoinError`.
/// A destructor that panics is contained, as tokio contains it: the output
/// is then the panic (`JoinError::is_panic`).
pub(crate) fn cancel(mut cell: Pin<&mut dyn TaskCell>, id: Id) {
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        cell.as_mut().finish_with(JoinError::cancelled(id))
    }));
    if let Err(payload) = dropped {
        cell.finish_with(JoinError::panic(id, payload));
    }
}

/// Drops what a task left (its future or its output), containing a
/// destructor's panic, as tokio does where a `JoinHandle` or the runtime
/// drops them.
pub(crate) fn drop_contained<T>(left: T) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(left)));
}

pub(crate) type TakeOutput<T> = fn(Pin<&mut dyn TaskCell>) -> Option<Result<T, JoinError>>;
