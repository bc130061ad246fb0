//! The world's tasks: spawning, joining, waking, aborting and finishing
//! them, and the slab that holds them.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use slab::Slab;

use super::{Cold, Core, Current, Main, Origin, TaskSlot, World, MAIN_HOST};
use crate::ids::Id;
use crate::runtime::failure::Cause;
use crate::runtime::join_error::JoinError;
use crate::runtime::run_queue::Runnable;
use crate::runtime::task::{Task, TaskCell, TaskWaker, WakeRecord, MAIN_KEY};
use crate::scheduler::{HostId, Observation};

impl World {
    // ----- spawning and joining --------------------------------------------

    pub(super) fn next_id(core: &mut Core) -> Id {
        core.next_id += 1;
        Id::from_u64(core.next_id)
    }

    /// Adds a task; it is runnable at once. Returns its slab key and id.
    #[inline]
    pub(crate) fn spawn<F>(&self, fut: F, host: Option<HostId>, origin: Origin) -> (usize, Id)
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.spawn_as(fut, host, origin, None)
    }

    /// [`spawn`](Self::spawn), with the task's id given (`None`: the next
    /// of this simulation's): for a `LocalSet` task spawned before any
    /// simulation ran its set, whose handle already holds its id.
    pub(crate) fn spawn_as<F>(
        &self,
        fut: F,
        host: Option<HostId>,
        origin: Origin,
        given: Option<Id>,
    ) -> (usize, Id)
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let mut core = self.core.borrow_mut();
        if !self.driven.get() && !core.config.tasks_run_in_background() {
            // Nothing runs it until a `block_on` does.
            self.watch.set_undriven(true);
        }
        let id = match given {
            Some(id) => id,
            None => Self::next_id(&mut core),
        };
        if core.failed {
            // Spawned while a failed simulation shuts down (from a
            // destructor): the task is cancelled before it starts, as tokio
            // does for spawns into a runtime that is shutting down. It is
            // never polled, so its waker is a no-op.
            drop(core);
            let mut cell: Pin<Box<dyn TaskCell>> = Box::pin(Task::new(Waker::noop().clone(), fut));
            cell.as_mut().finish_with(JoinError::cancelled(id));
            let mut core = self.core.borrow_mut();
            let key = core.tasks.vacant_key();
            Self::insert_task(
                &mut core,
                TaskSlot {
                    id,
                    host: host.unwrap_or(MAIN_HOST),
                    cell: Some(cell),
                    finished: true,
                    abort_requested: false,
                    has_handle: true,
                    join_waiting: false,
                    queued: false,
                    spin_epoch: 0,
                },
                origin,
                tracing::Span::none(),
            );
            return (key, id);
        }
        let current = core.current;
        let host = host.or(current.map(|c| c.host)).unwrap_or(MAIN_HOST);
        let key = core.tasks.vacant_key();
        let waker = Waker::from(Arc::new(TaskWaker {
            key,
            id,
            queue: self.wakes.clone(),
        }));
        let cell: Pin<Box<dyn TaskCell>> = Box::pin(Task::new(waker, fut));
        let span = {
            let host_span = &core.hosts[host.index()].span;
            match origin {
                Origin::Spawn(l) | Origin::Blocking(l) => {
                    tracing::trace_span!(parent: host_span, "task", id = id.as_u64(), spawned_at = %l)
                }
                Origin::HostEntry => {
                    tracing::trace_span!(parent: host_span, "task", id = id.as_u64(), entry = true)
                }
                Origin::Thread(n) => {
                    tracing::trace_span!(parent: host_span, "task", id = id.as_u64(), thread = n)
                }
            }
        };
        Self::insert_task(
            &mut core,
            TaskSlot {
                id,
                host,
                cell: Some(cell),
                finished: false,
                abort_requested: false,
                has_handle: true,
                join_waiting: false,
                queued: false,
                spin_epoch: 0,
            },
            origin,
            span,
        );
        drop(core);
        self.wake(key, id);
        self.tell(|| crate::story::Happening::Spawned { task: id, host });
        self.observe(Observation::Spawned {
            task: id,
            parent: current.map(|c| c.id),
            host,
            spawned_at: match origin {
                Origin::Spawn(l) | Origin::Blocking(l) => Some(l),
                Origin::HostEntry | Origin::Thread(_) => None,
            },
        });
        (key, id)
    }

    /// Stores a new task: its slot, its origin and (if enabled) its span.
    pub(super) fn insert_task(
        core: &mut Core,
        slot: TaskSlot,
        origin: Origin,
        span: tracing::Span,
    ) -> usize {
        let key = core.tasks.insert(slot);
        match key.cmp(&core.cold.len()) {
            // The join waker of a free key is `None` (taken when its task
            // finished), so only the origin is written.
            std::cmp::Ordering::Less => core.cold[key].origin = origin,
            std::cmp::Ordering::Equal => core.cold.push(Cold {
                origin,
                join_waker: None,
            }),
            std::cmp::Ordering::Greater => unreachable!("slab keys are dense"),
        }
        if !span.is_disabled() {
            core.spans.insert(key, span);
        }
        key
    }

    /// Frees task `key`'s slot, span and join waker; returns the slot.
    pub(super) fn remove_task(core: &mut Core, key: usize) -> TaskSlot {
        let mut slot = core.tasks.remove(key);
        if !core.spans.is_empty() {
            core.spans.remove(&key);
        }
        Self::take_join_waker(&mut core.cold, key, &mut slot);
        slot
    }

    /// Takes the waker of the `JoinHandle` waiting for task `key` (whose
    /// slot is `slot`), if any.
    pub(super) fn take_join_waker(
        cold: &mut [Cold],
        key: usize,
        slot: &mut TaskSlot,
    ) -> Option<Waker> {
        if !std::mem::take(&mut slot.join_waiting) {
            return None;
        }
        cold[key].join_waker.take()
    }

    /// The id of runnable `r`'s `Poll` event.
    pub(super) fn runnable_id(tasks: &Slab<TaskSlot>, main: &Option<Main>, r: Runnable) -> Id {
        match r.key() {
            MAIN_KEY => {
                main.as_ref()
                    .expect("the main future is runnable while it lives")
                    .id
            }
            key => tasks[key].id,
        }
    }

    pub(super) fn slot(core: &mut Core, key: usize, id: Id) -> Option<&mut TaskSlot> {
        core.tasks.get_mut(key).filter(|s| s.id == id)
    }

    pub(crate) fn poll_join<T>(
        &self,
        key: usize,
        id: Id,
        take: crate::runtime::task::TakeOutput<T>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<T, JoinError>> {
        // A unit of the cooperative budget, as tokio's JoinHandle takes
        // (only when the task is finished; see `coop::spend`).
        std::task::ready!(crate::runtime::budget::poll_budget_available(cx));
        let mut guard = self.core.borrow_mut();
        let core = &mut *guard;
        let slot =
            Self::slot(core, key, id).expect("a task's slot lives as long as its JoinHandle");
        if !slot.finished {
            slot.join_waiting = true;
            let join_waker = &mut core.cold[key].join_waker;
            let replaced = match join_waker {
                Some(w) if w.will_wake(cx.waker()) => None,
                _ => join_waker.replace(cx.waker().clone()),
            };
            drop(guard);
            drop(replaced); // its `Drop` may reach this world
            return Poll::Pending;
        }
        crate::runtime::budget::spend();
        let Some(cell) = slot.cell.as_mut() else {
            // The runtime shut down: the output, if the task had finished
            // by then, was kept for the handle (`keep_outputs`).
            drop(guard);
            return Poll::Ready(kept_output(self.id, id, take));
        };
        match take(cell.as_mut()) {
            Some(result) => Poll::Ready(result),
            None => panic!("JoinHandle polled after it returned Poll::Ready"),
        }
    }

    /// The `JoinHandle` is gone: free the slot once the task is done too.
    pub(crate) fn release_handle(&self, key: usize, id: Id) {
        let (cell, task) = {
            let mut core = self.core.borrow_mut();
            // A panic handed to the handle and dropped with it, unobserved:
            // reported when asked to.
            let unobserved = core.config.unhandled_panic.is_none()
                && core.config.report_unobserved_panics
                && core.failure.is_none();
            let Some(slot) = Self::slot(&mut core, key, id) else {
                return;
            };
            slot.has_handle = false;
            if !slot.finished {
                return;
            }
            let untaken = slot
                .cell
                .as_ref()
                .filter(|_| unobserved)
                .and_then(|c| c.untaken_panic());
            if let Some(message) = untaken {
                let message = format!(
                    "{message}\n  note: the panic was handed to the task's JoinHandle, which was \
                     dropped without awaiting it"
                );
                let task = self.task_info(&core, key);
                let failure = self.failure_in(&core, Cause::TaskPanic { message, task });
                core.failure = Some(failure);
            }
            let slot = Self::remove_task(&mut core, key);
            (
                slot.cell,
                Current {
                    id,
                    host: slot.host,
                },
            )
        };
        // The unclaimed output, dropped outside the borrow; once the runtime
        // shut down, the output it kept for the handle.
        match cell {
            Some(cell) => self.drop_output(task, cell),
            None if self.is_shut_down() => drop_kept_output(self.id, id),
            None => {}
        }
    }

    /// Drops finished task `task`'s cell (its output, unclaimed) as tokio's
    /// harness does: with the task current (`task::id()` is its id, the
    /// host its host), and a panic of its destructor contained. A drop
    /// that runs no code of the program needs neither.
    fn drop_output(&self, task: Current, cell: Pin<Box<dyn TaskCell>>) {
        if cell.drop_is_trivial() {
            return drop(cell);
        }
        struct Restore<'a>(&'a World, Option<Current>);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.core.borrow_mut().current = self.1;
            }
        }
        let before = self.core.borrow_mut().current.replace(task);
        let _restore = Restore(self, before);
        crate::runtime::task::drop_contained(cell);
    }

    pub(crate) fn abort(&self, key: usize, id: Id) {
        {
            let mut core = self.core.borrow_mut();
            match Self::slot(&mut core, key, id) {
                Some(slot) if !slot.finished => slot.abort_requested = true,
                _ => return,
            }
        }
        self.wake(key, id);
    }

    /// Wakes `waker` for `yield_now`: a wake of a task of this world is a
    /// yield, runnable behind the others ([`Lane::Yielded`]).
    pub(crate) fn wake_yielding(&self, waker: &Waker) {
        self.wakes.yielding.store(true, Ordering::Relaxed);
        waker.wake_by_ref();
        self.wakes.yielding.store(false, Ordering::Relaxed);
    }

    /// Wakes task `id` at `key` as its waker would.
    pub(super) fn wake(&self, key: usize, id: Id) {
        self.wakes.push(WakeRecord {
            yielded: false,
            key,
            id,
            by: self.wakes.running(),
        });
    }

    pub(crate) fn is_finished(&self, key: usize, id: Id) -> bool {
        let mut core = self.core.borrow_mut();
        Self::slot(&mut core, key, id).is_none_or(|s| s.finished)
    }

    pub(crate) fn current(&self) -> Option<Current> {
        self.core.borrow().current
    }

    /// The host of the current task or thread (the main host outside any).
    pub(crate) fn current_host(&self) -> HostId {
        self.current().map_or(MAIN_HOST, |c| c.host)
    }

    /// The task in `key` completed; its output is in `cell`.
    pub(super) fn finish(&self, key: usize, cell: Pin<Box<dyn TaskCell>>) {
        let (id, join_waker, unclaimed) = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let slot = &mut core.tasks[key];
            slot.finished = true;
            let (id, host) = (slot.id, slot.host);
            let join_waker = Self::take_join_waker(&mut core.cold, key, slot);
            if slot.has_handle {
                slot.cell = Some(cell);
                (id, join_waker, None)
            } else {
                Self::remove_task(core, key);
                (id, join_waker, Some((cell, Current { id, host })))
            }
        };
        // No one will take the output: dropped now.
        if let Some((cell, task)) = unclaimed {
            self.drop_output(task, cell);
        }
        self.observe(Observation::Finished { task: id });
        if let Some(w) = join_waker {
            w.wake();
        }
    }
}

/// A finished task's cell kept past its runtime: runtime id, task id, cell.
type Kept = (u64, Id, Pin<Box<dyn TaskCell>>);

thread_local! {
    /// The outputs of tasks that finished before their runtime was
    /// dropped, unclaimed while their `JoinHandle`s live (see
    /// [`World::keep_outputs`]).
    static KEPT_OUTPUTS: std::cell::RefCell<Vec<Kept>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl World {
    /// At shutdown: the tasks that already finished and whose
    /// `JoinHandle` lives keep their output for it, as a dropped tokio
    /// runtime's do (the output lives in the task, which its handle holds).
    pub(super) fn keep_outputs(&self, core: &mut Core) {
        let runtime = self.id;
        let kept: Vec<_> = core
            .tasks
            .iter_mut()
            .filter(|(_, s)| s.finished && s.has_handle)
            .filter_map(|(_, s)| Some((runtime, s.id, s.cell.take()?)))
            .collect();
        if !kept.is_empty() {
            KEPT_OUTPUTS.with(|k| k.borrow_mut().extend(kept));
        }
    }
}

/// The cell of task `id` of dropped runtime `runtime`, if it finished
/// before the drop and its output is kept on this thread.
fn take_kept(runtime: u64, id: Id) -> Option<Pin<Box<dyn TaskCell>>> {
    KEPT_OUTPUTS
        .try_with(|k| {
            let mut k = k.borrow_mut();
            let at = k.iter().position(|(r, i, _)| *r == runtime && *i == id)?;
            Some(k.swap_remove(at).2)
        })
        .ok()
        .flatten()
}

/// A `JoinHandle` of dropped runtime `runtime` is polled: its task's kept
/// output, once; else the task was cancelled.
pub(crate) fn kept_output<T>(
    runtime: u64,
    id: Id,
    take: crate::runtime::task::TakeOutput<T>,
) -> Result<T, JoinError> {
    match take_kept(runtime, id) {
        // The cell (and anything else in it) drops here, outside the list.
        Some(mut cell) => take(cell.as_mut()).unwrap_or_else(|| Err(JoinError::cancelled(id))),
        None => Err(JoinError::cancelled(id)),
    }
}

/// A `JoinHandle` of dropped runtime `runtime` is dropped: so is its
/// task's kept output.
pub(crate) fn drop_kept_output(runtime: u64, id: Id) {
    drop(take_kept(runtime, id));
}
