//! Simulated [`tokio::task::JoinSet`](https://docs.rs/tokio/1/tokio/task/struct.JoinSet.html): a collection of tasks joined in the
//! order they complete.
//!
//! Each entry holds the task's [`JoinHandle`] and a waker of its own (an
//! `Arc<EntryWaker>` naming the entry). That waker is what the handle
//! registers with the runtime, so a completing task pushes exactly its own
//! entry onto the set's ready queue and wakes whoever waits on the set. A
//! `join_next` then pops from the ready queue and polls only the handles
//! there: O(1) amortized per join, whatever the size of the set (the same
//! idea as tokio's `IdleNotifiedSet`, without its intrusive lists).
//!
//! A new entry starts on the ready queue, so the first `join_next` after a
//! spawn polls it once to register its waker.
//!
//! # Invariants
//!
//! - An entry is on the ready queue at most once: its waker's `notified`
//!   flag is set when it is pushed and cleared when it is popped, before
//!   its handle is polled.
//! - Queue items are `(slab key, token)`; tokens are unique over the set's
//!   lifetime, so an item whose entry was removed (and whose key may have
//!   been reused) is recognised as stale and skipped.
//! - A detached entry's waker stays `notified` forever, so the task it no
//!   longer belongs to can never push it again.
//!
//! # Determinism
//!
//! Tasks are joined in the order their completions reached the set, which
//! is the order the simulation ran them in; nothing depends on addresses or
//! hashing.

use std::collections::VecDeque;
use std::fmt;
use std::future::{poll_fn, Future};
use std::panic;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};

use slab::Slab;

use super::{coop, AbortHandle, Id, JoinError, JoinHandle, LocalSet};
use crate::runtime::Handle;

/// State shared between a set and its entries' wakers. A `Mutex` because
/// wakers are `Send + Sync`; in a simulation only its thread touches it.
#[derive(Default)]
struct Shared {
    ready: VecDeque<(usize, u64)>,
    /// Who to wake when an entry becomes ready: the last `poll_join_next`.
    waiter: Option<Waker>,
}

/// The waker of one entry.
struct EntryWaker {
    shared: Arc<Mutex<Shared>>,
    key: usize,
    token: u64,
    /// Set while the entry is on the ready queue (or detached).
    notified: AtomicBool,
}

impl Wake for EntryWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.notified.swap(true, Ordering::AcqRel) {
            return;
        }
        let waiter = {
            let mut shared = lock(&self.shared);
            shared.ready.push_back((self.key, self.token));
            shared.waiter.take()
        };
        if let Some(w) = waiter {
            w.wake();
        }
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

struct Entry<T> {
    handle: JoinHandle<T>,
    token: u64,
    notify: Arc<EntryWaker>,
    waker: Waker,
}

/// Simulated [`tokio::task::JoinSet`](https://docs.rs/tokio/1/tokio/task/struct.JoinSet.html): a collection of spawned tasks,
/// joined in the order they complete.
///
/// All tasks have the same output type `T`. Dropping the set aborts every
/// task still in it.
///
/// # Examples
///
/// ```
/// use sim_rt::task::JoinSet;
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut set = JoinSet::new();
///
/// for i in 0..10 {
///     set.spawn(async move { i });
/// }
///
/// let mut seen = [false; 10];
/// while let Some(res) = set.join_next().await {
///     let idx = res.unwrap();
///     seen[idx] = true;
/// }
///
/// for i in 0..10 {
///     assert!(seen[i]);
/// }
/// # });
/// ```
///
/// # Task ID guarantees
///
/// While a task is in a `JoinSet`, its [`Id`] is unique among running tasks,
/// as when holding its [`JoinHandle`].
///
/// # Differences from tokio
///
/// None: which task completes first is the simulation's (seeded, replayable)
/// choice.
pub struct JoinSet<T> {
    entries: Slab<Entry<T>>,
    shared: Arc<Mutex<Shared>>,
    next_token: u64,
    /// Handle polls so far, for the complexity test.
    #[cfg(test)]
    handle_polls: u64,
}

impl<T> JoinSet<T> {
    /// Creates an empty `JoinSet`.
    pub fn new() -> Self {
        JoinSet {
            entries: Slab::new(),
            shared: Arc::default(),
            next_token: 0,
            #[cfg(test)]
            handle_polls: 0,
        }
    }

    /// The number of tasks in the set (running, or finished and not yet
    /// joined).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Aborts every task in the set. They stay in the set: join them (their
    /// results are cancelled [`JoinError`]s unless they had already
    /// finished) to empty it.
    pub fn abort_all(&mut self) {
        for (_, e) in &self.entries {
            e.handle.abort();
        }
    }

    /// Removes every task from the set without aborting them: they keep
    /// running, even once the set is dropped.
    pub fn detach_all(&mut self) {
        for e in self.entries.drain() {
            // Never push this entry again (see the invariants).
            e.notify.notified.store(true, Ordering::Release);
        }
        lock(&self.shared).ready.clear();
    }
}

impl<T: 'static> JoinSet<T> {
    /// Spawns `task` on the set and returns an [`AbortHandle`] for it. The
    /// task starts running in the background at once, whether or not the
    /// set is awaited.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// See [`spawn`](crate::task::spawn).
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        self.insert(crate::task::spawn(task))
    }

    /// Spawns `task` on the simulation `handle` refers to, and adds it to the
    /// set.
    ///
    /// # Differences from tokio
    ///
    /// See [`Handle::spawn`].
    #[track_caller]
    pub fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T>,
        F: Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn(task))
    }

    /// Spawns a `!Send` task on the set.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// See [`spawn_local`](crate::task::spawn_local): works anywhere in a
    /// simulation, not only in a [`LocalSet`].
    #[track_caller]
    pub fn spawn_local<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T>,
        F: 'static,
    {
        self.insert(crate::task::spawn_local(task))
    }

    /// Spawns a `!Send` task on `local_set` and adds it to the set; it
    /// starts when `local_set` is next driven.
    ///
    /// # Differences from tokio
    ///
    /// See [`LocalSet::spawn_local`].
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, task: F, local_set: &LocalSet) -> AbortHandle
    where
        F: Future<Output = T>,
        F: 'static,
    {
        self.insert(local_set.spawn_local(task))
    }

    /// Runs the blocking closure `f` as a task of the set.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::task::JoinSet;
    /// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
    /// let mut set = JoinSet::new();
    /// for i in 0..10 {
    ///     set.spawn_blocking(move || i);
    /// }
    /// let mut seen = [false; 10];
    /// while let Some(res) = set.join_next().await {
    ///     seen[res.unwrap()] = true;
    /// }
    /// assert!(seen.iter().all(|s| *s));
    /// # });
    /// ```
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// See [`spawn_blocking`](crate::task::spawn_blocking): `f` runs on a
    /// simulated thread of the host's blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        self.insert(crate::task::spawn_blocking(f))
    }

    /// Runs the blocking closure `f` on the simulation `handle` refers to,
    /// as a task of the set.
    ///
    /// # Differences from tokio
    ///
    /// See [`spawn_blocking`](crate::task::spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn_blocking(f))
    }

    fn insert(&mut self, handle: JoinHandle<T>) -> AbortHandle {
        let abort = handle.abort_handle();
        let token = self.next_token;
        self.next_token += 1;
        let key = self.entries.vacant_key();
        let notify = Arc::new(EntryWaker {
            shared: self.shared.clone(),
            key,
            token,
            notified: AtomicBool::new(false),
        });
        // Ready at first, so the next join polls the handle once and
        // registers the entry's waker with the task. Queued directly, not
        // woken: nobody needs waking for that.
        notify.notified.store(true, Ordering::Release);
        lock(&self.shared).ready.push_back((key, token));
        self.entries.insert(Entry {
            handle,
            token,
            waker: Waker::from(notify.clone()),
            notify,
        });
        abort
    }

    /// Waits for one of the tasks to complete and returns its output, or
    /// `None` when the set is empty.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if `join_next` loses a `select!`, no task was removed
    /// from the set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// Waits for one of the tasks to complete and returns its output with
    /// its [`Id`], or `None` when the set is empty. On error, the id is
    /// [`JoinError::id`].
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if `join_next_with_id` loses a `select!`, no task was
    /// removed from the set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// Joins one task that has already completed, if any: `None` when none
    /// has, or the set is empty.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id()
            .map(|res| res.map(|(_, out)| out))
    }

    /// Joins one task that has already completed, with its [`Id`], if any.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        match self.poll_ready(None) {
            Poll::Ready(res) => res,
            Poll::Pending => None,
        }
    }

    /// Aborts every task and waits for them all to finish: [`abort_all`]
    /// then [`join_next`] until `None`, ignoring panics. The set is empty
    /// afterwards.
    ///
    /// [`abort_all`]: Self::abort_all
    /// [`join_next`]: Self::join_next
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }

    /// Waits for every task and returns their outputs, in the order they
    /// completed.
    ///
    /// If a task failed, the remaining tasks are aborted (the set is
    /// dropped) and this panics: with the task's own panic payload when it
    /// panicked, with the [`JoinError`] when it was cancelled. To handle
    /// errors otherwise, call [`join_next`](Self::join_next) in a loop.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::task::JoinSet;
    /// use std::time::Duration;
    /// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
    /// let mut set = JoinSet::new();
    /// for i in 0..3 {
    ///     set.spawn(async move {
    ///         sim_rt::time::sleep(Duration::from_secs(3 - i)).await;
    ///         i
    ///     });
    /// }
    /// assert_eq!(set.join_all().await, vec![2, 1, 0]);
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn join_all(mut self) -> Vec<T> {
        let mut output = Vec::with_capacity(self.len());
        while let Some(res) = self.join_next().await {
            match res {
                Ok(t) => output.push(t),
                Err(err) if err.is_panic() => panic::resume_unwind(err.into_panic()),
                Err(err) => panic!("{err}"),
            }
        }
        output
    }

    /// Polls for one task to complete: `Ready(Some(_))` (the task is removed
    /// from the set), `Ready(None)` when the set is empty, or `Pending`, in
    /// which case the waker of the most recent call is woken when a task
    /// completes.
    ///
    /// # Differences from tokio
    ///
    /// None: like tokio's, it may return `Pending` while a task has
    /// completed, when the task's cooperative budget is spent.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx)
            .map(|res| res.map(|res| res.map(|(_, out)| out)))
    }

    /// Like [`poll_join_next`](Self::poll_join_next), with the completed
    /// task's [`Id`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn poll_join_next_with_id(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<(Id, T), JoinError>>> {
        self.poll_ready(Some(cx.waker()))
    }

    /// Polls the entries on the ready queue until one is finished. When the
    /// queue runs dry, registers `waiter` (if any) and returns `Pending`.
    ///
    /// With a `waiter` (`poll_join_next`), each handle's poll takes a unit of
    /// the task's cooperative budget, as in tokio: once it is spent, the
    /// handle stays pending, and the set wakes `waiter` and returns `Pending`
    /// so the task yields. Without one (`try_join_next`, which cannot
    /// yield), the handles are polled without a budget.
    fn poll_ready(&mut self, waiter: Option<&Waker>) -> Poll<Option<Result<(Id, T), JoinError>>> {
        loop {
            if self.entries.is_empty() {
                lock(&self.shared).ready.clear();
                return Poll::Ready(None);
            }
            let (next, replaced) = {
                let mut shared = lock(&self.shared);
                let next = shared.ready.pop_front();
                let replaced = match (next, waiter) {
                    (None, Some(w)) => match &shared.waiter {
                        Some(old) if old.will_wake(w) => None,
                        _ => shared.waiter.replace(w.clone()),
                    },
                    _ => None,
                };
                (next, replaced)
            };
            // The waker a new one replaced may run anything when it drops
            // (even drive a runtime that completes a task of this set): drop
            // it after the lock.
            drop(replaced);
            let Some((key, token)) = next else {
                return Poll::Pending;
            };
            let Some(entry) = self.entries.get_mut(key).filter(|e| e.token == token) else {
                continue; // stale: the entry was removed
            };
            entry.notify.notified.store(false, Ordering::Release);
            #[cfg(test)]
            {
                self.handle_polls += 1;
            }
            let mut cx = Context::from_waker(&entry.waker);
            let handle = Pin::new(&mut entry.handle);
            let polled = match waiter {
                Some(_) => handle.poll(&mut cx),
                None => coop::with_unconstrained(|| handle.poll(&mut cx)),
            };
            if let Poll::Ready(res) = polled {
                let entry = self.entries.remove(key);
                return Poll::Ready(Some(res.map(|out| (entry.handle.id(), out))));
            }
            match waiter {
                // The handle ran out of budget (and woke its entry to be
                // polled again): yield, as tokio's set does.
                Some(w) if !coop::has_budget_remaining() => {
                    w.wake_by_ref();
                    return Poll::Pending;
                }
                // A new entry (queued once so that its first poll registers
                // its waker) whose task is still running.
                _ => {}
            }
        }
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        for e in self.entries.drain() {
            e.handle.abort();
        }
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len()).finish()
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Collects futures into a [`JoinSet`], spawning each with
/// [`JoinSet::spawn`].
///
/// # Examples
///
/// ```
/// use sim_rt::task::JoinSet;
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let mut set: JoinSet<_> = (0..10).map(|i| async move { i }).collect();
/// let mut seen = [false; 10];
/// while let Some(res) = set.join_next().await {
///     seen[res.unwrap()] = true;
/// }
/// assert!(seen.iter().all(|s| *s));
/// # });
/// ```
impl<T, F> FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T>,
    F: Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

/// Extends a [`JoinSet`] with futures, spawning each with
/// [`JoinSet::spawn`].
impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T>,
    F: Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        for task in iter {
            self.spawn(task);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::JoinSet;
    use crate::runtime::Builder;

    /// Each handle is polled exactly twice: once by the first `join_next`
    /// (pending: registers the entry's waker), once when its task completes.
    /// Polling every handle on each join would make it n * (n + 1) / 2.
    #[test]
    fn join_polls_each_handle_twice() {
        const N: u64 = 1_000;
        let rt = Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .enable_all()
            .seed(1)
            .build()
            .unwrap();
        let polls = rt.block_on(async {
            let mut set = JoinSet::new();
            for i in 0..N {
                set.spawn(async move {
                    crate::time::sleep(Duration::from_millis(N - i)).await;
                    i
                });
            }
            let mut order = Vec::new();
            while let Some(res) = set.join_next().await {
                order.push(res.unwrap());
            }
            assert_eq!(order, (0..N).rev().collect::<Vec<_>>());
            set.handle_polls
        });
        assert_eq!(polls, 2 * N);
    }

    /// A handle whose task finished before the first join is polled once.
    #[test]
    fn finished_before_first_join_polls_once() {
        let rt = Builder::new_current_thread()
            .poll_cost(Duration::ZERO)
            .enable_all()
            .seed(2)
            .build()
            .unwrap();
        let polls = rt.block_on(async {
            let mut set = JoinSet::new();
            for i in 0..10u32 {
                set.spawn(async move { i });
            }
            crate::time::sleep(Duration::from_millis(1)).await;
            let mut sum = 0;
            while let Some(res) = set.try_join_next() {
                sum += res.unwrap();
            }
            assert_eq!(sum, 45);
            assert!(set.is_empty());
            set.handle_polls
        });
        assert_eq!(polls, 10);
    }
}
