//! Simulated [`tokio::task`](https://docs.rs/tokio/1/tokio/task/index.html): spawning, joining and yielding.
//!
//! Every task belongs to a host of the simulation: a task spawned from
//! another task runs on the same host; one spawned from outside any task (by
//! [`Runtime::spawn`](crate::runtime::Runtime::spawn)) runs on the main host.
//! A newly spawned task is runnable at once; when it runs relative to the
//! others is the scheduler's choice.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

pub mod coop;
pub(crate) mod deferred;
pub(crate) mod join_handle;
mod join_set;
mod local;
mod task_local;

pub use self::coop::{consume_budget, unconstrained, Unconstrained};
pub use self::join_handle::{AbortHandle, JoinHandle};
pub use self::join_set::JoinSet;
pub use self::local::{LocalEnterGuard, LocalSet};
pub use self::task_local::LocalKey;
pub use crate::ids::Id;
pub use crate::runtime::join_error::JoinError;

/// Simulated [`tokio::task::futures`](https://docs.rs/tokio/1/tokio/task/futures/index.html): task-related futures.
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}
use crate::runtime::context;
use crate::runtime::world::{Origin, World};

/// Simulated [`tokio::task::id`](https://docs.rs/tokio/1/tokio/task/fn.id.html): the id of the running task.
///
/// # Panics
///
/// Outside a task: the future of a `block_on` is not one, as in tokio.
#[track_caller]
pub fn id() -> Id {
    try_id().expect("can't get a task id when not inside a task")
}

/// Simulated [`tokio::task::try_id`](https://docs.rs/tokio/1/tokio/task/fn.try_id.html).
pub fn try_id() -> Option<Id> {
    context::try_with(|w| w.current_task_id()).flatten()
}

/// Simulated [`tokio::task::spawn`](https://docs.rs/tokio/1/tokio/task/spawn/index.html).
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let handle = sim_rt::spawn(async { 6 * 7 });
/// assert_eq!(handle.await.unwrap(), 42);
/// # });
/// ```
///
/// # Panics
///
/// Outside a simulation.
///
/// # Differences from tokio
///
/// The task runs on the spawning task's host. `Send` is required, as in
/// tokio, so the code also builds against tokio, though the simulation never
/// moves a task between threads.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let origin = Origin::Spawn(Location::caller());
    match context::current_or_gone() {
        Ok(world) => JoinHandle::spawn_on(&world, future, None, origin),
        // A dropped or shut-down runtime entered (`Handle::enter`): cancelled.
        Err(gone) => {
            drop(future);
            JoinHandle::cancelled(gone)
        }
    }
}

/// Simulated [`tokio::task::spawn_local`](https://docs.rs/tokio/1/tokio/task/fn.spawn_local.html):
/// spawns a `!Send` task on the current [`LocalSet`] (inside one that is
/// running, or with its [`LocalSet::enter`] guard held), or on the current
/// [`LocalRuntime`](crate::runtime::LocalRuntime) (`build_local`,
/// `#[sim_rt::test(flavor = "local")]`).
///
/// # Panics
///
/// Anywhere else (a current-thread or multi-thread runtime outside a
/// `LocalSet`, a std thread other than the one running the `LocalSet` or
/// `LocalRuntime`, or outside every runtime), with tokio's message. Every
/// simulated task is local to the simulation's thread, but code that
/// spawned a local task there would panic on tokio.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let origin = Origin::Spawn(Location::caller());
    let future = match local::spawn_in_current_set(future, origin) {
        Ok(handle) => return handle,
        Err(future) => future,
    };
    match context::try_current() {
        // On the runtime's own thread only: a std thread started inside
        // the simulation is another thread, as on tokio.
        Some(w) if w.core.borrow().config.local && !crate::runtime::world::threads::on_turn() => {
            JoinHandle::spawn_on(&w, future, None, origin)
        }
        _ => panic!(
            "`spawn_local` called from outside of a `task::LocalSet` or `runtime::LocalRuntime`"
        ),
    }
}

/// Simulated [`tokio::task::spawn_blocking`](https://docs.rs/tokio/1/tokio/task/fn.spawn_blocking.html): runs `f` on a thread of the
/// calling task's host's blocking pool.
///
/// The pool's threads are simulated threads (see the guide's "No escape"
/// chapter, *Threads*): `f` may block on std's locks, channels and sleeps,
/// on `blocking_recv` and the other `blocking_*` calls of `sim_rt::sync`,
/// or on `Handle::block_on`, and the tasks run meanwhile. The pool follows
/// tokio's: an idle thread takes the closure, else a new one while fewer
/// than [`max_blocking_threads`](crate::runtime::Builder::max_blocking_threads)
/// run, else it waits in a queue; an idle thread exits after
/// [`thread_keep_alive`](crate::runtime::Builder::thread_keep_alive) of
/// simulated time.
///
/// # Differences from tokio
///
/// Each simulated host has its own pool. Where threads are not intercepted
/// (see [`sim::INTERCEPTION_SUPPORTED`](crate::sim::INTERCEPTION_SUPPORTED))
/// `f` runs as a task of the host, to completion within one step.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let origin = Origin::Blocking(Location::caller());
    match context::current_or_gone() {
        Ok(world) => blocking_on(&world, f, origin),
        // A dropped or shut-down runtime entered (`Handle::enter`): cancelled.
        Err(gone) => {
            drop(f);
            JoinHandle::cancelled(gone)
        }
    }
}

/// A `spawn_blocking` on `world`, from its current task (or the main host).
pub(crate) fn blocking_on<F, R>(world: &World, f: F, origin: Origin) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if !crate::switches::SUPPORTED {
        return JoinHandle::spawn_on(world, async move { f() }, None, origin);
    }
    let (tx, rx) = crate::sync::oneshot::channel();
    let job: Box<dyn FnOnce() + Send> = Box::new(move || {
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(out);
    });
    // No thread could be started: it runs in the task.
    let inline = world.run_blocking(world.current_host(), job).err();
    let fut = async move {
        if let Some(job) = inline {
            job();
        }
        match rx.await {
            Ok(Ok(out)) => out,
            Ok(Err(payload)) => std::panic::resume_unwind(payload),
            Err(_) => panic!("the spawn_blocking closure never ran: its pool was shut down"),
        }
    };
    JoinHandle::spawn_on(world, fut, None, origin)
}

/// Simulated [`tokio::task::block_in_place`](https://docs.rs/tokio/1/tokio/task/fn.block_in_place.html): runs blocking code on the
/// current thread without blocking the other tasks.
///
/// # Panics
///
/// Inside a runtime built with `new_current_thread` (or a `LocalRuntime`),
/// as tokio does: in its tasks and in a `Runtime::block_on`, not in a
/// `Handle::block_on` (which holds no core there). Inside a [`LocalSet`]
/// on any runtime (its `run_until`, its tasks, their drops), as tokio does.
///
/// `f` runs out of the runtime's context and with no cooperative budget
/// (see [`coop`]), as tokio's does. On a multi-thread runtime, as tokio
/// hands the worker off, the calling thread runs `f` as a simulated thread
/// of the task's host while a relief thread drives the simulation: `f` may
/// block on std locks, channels and barriers that other tasks or threads
/// release (each blocking call a choice point, as a simulated thread's),
/// call `Handle::block_on`, or `block_on` of another runtime. See the
/// guide's "No escape" chapter, *Threads*.
///
/// # Differences from tokio
///
/// The future passed to `block_on` does not run while a task's `f` runs:
/// both are on the thread that drives the simulation, so its wakes wait
/// until `f` returns. On a current-thread runtime's `Handle::block_on`
/// (where tokio allows it) `f` runs within the current step, and the other
/// tasks run only while a `block_on` inside it waits. Outside a simulation
/// `f` just runs.
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    // The simulation this thread drives, inside one of its polls.
    let driven = context::try_current().filter(|_| context::driving());
    // On a worker only: a current-thread runtime's core, or a `LocalSet`
    // (whose tasks are the set's, not a worker's) refuse it, as tokio's.
    if driven
        .as_ref()
        .is_some_and(|w| w.polling_with_core() || local::in_a_set())
    {
        panic!("can call blocking only when running on the multi-threaded runtime");
    }
    let relief = driven.filter(|w| w.relieves_in_place());
    // Out of the runtime's context, as tokio's: a block_on may run in `f`;
    // and with no cooperative budget, as tokio's (a future `f` polls to
    // completion must not be told to yield to tasks it cannot yield to).
    let _out = context::undrive();
    match relief {
        // On a multi-thread runtime, inside a poll: a relief thread drives
        // the simulation while `f` runs as a simulated thread.
        Some(world) => world.relieve(|| crate::runtime::budget::with_unconstrained(f)),
        None => crate::runtime::budget::with_unconstrained(f),
    }
}

/// Simulated [`tokio::task::yield_now`](https://docs.rs/tokio/1/tokio/task/yield_now/index.html): gives the scheduler a chance to run
/// another task before this one continues.
///
/// As in tokio, the task goes behind every task that is runnable when the
/// runtime next parks (its run queue empty, or 61 polls since it last
/// parked), those woken in the meantime included: with the default
/// scheduler a task that spawns another and yields finds it has run.
///
/// # Differences from tokio
///
/// None with the default scheduler. The task is runnable at once: an
/// explorer may run it before the others (a multi-thread runtime might).
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        match context::try_current_quiet() {
            Some(world) => world.wake_yielding(cx.waker()),
            None => cx.waker().wake_by_ref(),
        }
        Poll::Pending
    }
}
