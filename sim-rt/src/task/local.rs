//! Simulated [`tokio::task::LocalSet`](https://docs.rs/tokio/1/tokio/task/struct.LocalSet.html): a group of `!Send` tasks that runs
//! while the set is driven.
//!
//! In a simulation every task is already local to the one thread, so a
//! `LocalSet` does not run tasks itself: its tasks are ordinary simulated
//! tasks, interleaved with all others by the scheduler. What the set adds is
//! tokio's grouping:
//!
//! - **Membership.** Each task spawned through the set is wrapped in a
//!   [`Member`] future that holds an entry in the set's slab from spawn until
//!   the task's future is dropped (completed, aborted or shut down). Awaiting
//!   the set completes when the slab is empty; dropping the set aborts every
//!   member.
//! - **Gating.** In tokio a set's tasks are polled only from inside
//!   [`LocalSet::run_until`], [`LocalSet::block_on`] or an `.await` of the
//!   set. Here a member polled while no such *driver* is active does not
//!   poll its future: it parks its waker in its entry and stays pending. The
//!   first driver to start wakes every parked member. So a task spawned on a
//!   set that is not running starts only when the set is next driven, and
//!   stops making progress when the last driver ends.
//! - **Context.** While a member or a `run_until` future is polled (or a
//!   [`LocalEnterGuard`] is held), the set is this thread's current set, so
//!   `task::spawn_local` can add the new task to it (see
//!   [`spawn_in_current_set`]).
//!
//! # Invariants
//!
//! - `State::tasks` holds exactly one entry per live `Member` future; only
//!   the member's drop removes it.
//! - `State::drivers` counts the live `Driver` guards; an entry's `parked`
//!   waker is set only while `drivers == 0`, and all are taken (and woken)
//!   when it goes from 0 to 1.
//! - The state's `RefCell` is never borrowed while user code runs (a
//!   member's future, a waker, an abort).
//!
//! # Determinism
//!
//! Parked members are woken in slab order, which depends only on the order
//! of spawns and completions.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use pin_project_lite::pin_project;
use slab::Slab;

use super::{deferred, AbortHandle, JoinHandle};
use crate::runtime::world::Origin;
use crate::runtime::{context, Runtime};

thread_local! {
    /// The set whose context code on this thread runs in, if any.
    static CURRENT: RefCell<Option<Rc<Shared>>> = const { RefCell::new(None) };
}

/// Whether code on this thread runs in a set's context (inside its
/// `run_until`, `block_on` or a member's poll or drop, or with its `enter`
/// guard held).
pub(crate) fn in_a_set() -> bool {
    CURRENT.with(|c| c.borrow().is_some())
}

/// A set's state, shared with its members and drivers.
#[derive(Default)]
struct Shared {
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    /// One entry per live member (see the invariants).
    tasks: Slab<Tracked>,
    /// Live drivers: `run_until` futures and an `.await` of the set.
    drivers: usize,
    /// The `.await` of the set, woken when the last member goes.
    waiter: Option<Waker>,
    /// The `LocalSet` was dropped: new members are aborted at once.
    closed: bool,
    /// Members spawned before any simulation drove the set, in spawn
    /// order: each spawns its task into the first simulation that does
    /// (see `deferred`). Their slot numbers, for a drop before that.
    waiting: Vec<(usize, Attach)>,
}

/// Spawns a waiting member's task into a simulation.
type Attach = Box<dyn FnOnce(&crate::runtime::world::World)>;

struct Tracked {
    /// `None` only between inserting the entry and spawning the task.
    abort: Option<AbortHandle>,
    /// The member's waker while it waits for a driver.
    parked: Option<Waker>,
}

impl Shared {
    #[track_caller]
    fn spawn<F>(self: &Rc<Self>, future: F, origin: Origin) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let key = self.state.borrow_mut().tasks.insert(Tracked {
            abort: None,
            parked: None,
        });
        let member = Member {
            set: self.clone(),
            key,
            future: Some(future),
        };
        let Some(world) = context::try_current() else {
            return self.spawn_later(member, key, origin);
        };
        self.attach_waiting(&world);
        let handle = JoinHandle::spawn_on(&world, member, None, origin);
        let closed = {
            let mut state = self.state.borrow_mut();
            let tracked = state
                .tasks
                .get_mut(key)
                .expect("a member's entry lives as long as its task's future");
            tracked.abort = Some(handle.abort_handle());
            state.closed
        };
        if closed {
            // Spawned from a task of a set that is gone: never runs, as in
            // tokio.
            handle.abort();
        }
        handle
    }

    /// Outside every simulation, as tokio allows: the member waits in the
    /// set until a simulation drives it, and the handle names its slot.
    fn spawn_later<F>(
        self: &Rc<Self>,
        member: Member<F>,
        key: usize,
        origin: Origin,
    ) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let slot = deferred::new_slot();
        let id = deferred::reserve_id();
        let set = self.clone();
        let attach: Attach = Box::new(move |world| {
            let handle = JoinHandle::spawn_as(world, member, None, origin, Some(id));
            if let Some(t) = set.state.borrow_mut().tasks.get_mut(key) {
                t.abort = Some(handle.abort_handle());
            }
            let (runtime, task) = handle.place();
            let asked = deferred::spawned(slot, runtime, task);
            if asked.abort {
                handle.abort();
            }
            if asked.detached {
                drop(handle);
            } else {
                // The deferred handle stands for this one from now on.
                std::mem::forget(handle);
            }
        });
        self.state.borrow_mut().waiting.push((slot, attach));
        JoinHandle::deferred(slot, id)
    }

    /// Spawns the waiting members' tasks into `world`, in spawn order.
    fn attach_waiting(&self, world: &crate::runtime::world::World) {
        let waiting = std::mem::take(&mut self.state.borrow_mut().waiting);
        for (_, attach) in waiting {
            attach(world);
        }
    }

    /// A driver starts: the first one wakes every parked member.
    fn start_driving(self: &Rc<Self>) -> Driver {
        if let Some(world) = context::try_current() {
            self.attach_waiting(&world);
        }
        let parked: Vec<Waker> = {
            let mut state = self.state.borrow_mut();
            state.drivers += 1;
            if state.drivers == 1 {
                state
                    .tasks
                    .iter_mut()
                    .filter_map(|(_, t)| t.parked.take())
                    .collect()
            } else {
                Vec::new()
            }
        };
        for w in parked {
            w.wake();
        }
        Driver { set: self.clone() }
    }
}

/// Keeps its set driven while alive.
struct Driver {
    set: Rc<Shared>,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let mut state = self.set.state.borrow_mut();
        debug_assert!(state.drivers > 0, "a driver is counted once");
        state.drivers -= 1;
    }
}

/// Makes `set` the current set until the guard drops.
fn enter(set: Rc<Shared>) -> LocalEnterGuard {
    LocalEnterGuard {
        prev: CURRENT.with(|c| c.borrow_mut().replace(set)),
    }
}

/// For `task::spawn_local`: spawns `future` on the set whose context is
/// current (a member or `run_until` future being polled, or a
/// [`LocalEnterGuard`] held), or gives it back when there is none.
#[track_caller]
pub(crate) fn spawn_in_current_set<F>(future: F, origin: Origin) -> Result<JoinHandle<F::Output>, F>
where
    F: Future + 'static,
    F::Output: 'static,
{
    match CURRENT.with(|c| c.borrow().clone()) {
        Some(set) => Ok(set.spawn(future, origin)),
        None => Err(future),
    }
}

pin_project! {
    /// A task spawned through a set: runs `future` only while the set is
    /// driven, and leaves the set when dropped.
    struct Member<F> {
        set: Rc<Shared>,
        key: usize,
        // `None` once dropped by `PinnedDrop`, inside the set's context.
        #[pin]
        future: Option<F>,
    }

    impl<F> PinnedDrop for Member<F> {
        fn drop(this: Pin<&mut Self>) {
            let mut this = this.project();
            {
                let _cx = enter(this.set.clone());
                this.future.set(None);
            }
            let waiter = {
                let mut state = this.set.state.borrow_mut();
                state.tasks.remove(*this.key);
                if state.tasks.is_empty() {
                    state.waiter.take()
                } else {
                    None
                }
            };
            if let Some(w) = waiter {
                w.wake();
            }
        }
    }
}

impl<F: Future> Future for Member<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        {
            let mut state = this.set.state.borrow_mut();
            if state.drivers == 0 {
                let tracked = state
                    .tasks
                    .get_mut(*this.key)
                    .expect("a member's entry lives as long as the member");
                match &tracked.parked {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => tracked.parked = Some(cx.waker().clone()),
                }
                return Poll::Pending;
            }
        }
        let _cx = enter(this.set.clone());
        this.future
            .as_pin_mut()
            .expect("a task's future is not polled after it completed")
            .poll(cx)
    }
}

/// Simulated [`tokio::task::LocalSet`](https://docs.rs/tokio/1/tokio/task/struct.LocalSet.html): a set of tasks run on the current
/// thread, which may be `!Send`.
///
/// # Use with `run_until`
///
/// [`run_until`](LocalSet::run_until) drives the set while a future runs;
/// inside it, [`task::spawn_local`](crate::task::spawn_local) spawns onto
/// the set.
///
/// ```
/// use std::rc::Rc;
/// use sim_rt::task;
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let nonsend_data = Rc::new("my nonsend data...");
///
/// let local = task::LocalSet::new();
/// local.run_until(async move {
///     let nonsend_data = nonsend_data.clone();
///     task::spawn_local(async move {
///         println!("{}", nonsend_data);
///     }).await.unwrap();
/// }).await;
/// # });
/// ```
///
/// ## Awaiting a `LocalSet`
///
/// A `LocalSet` is a future that completes when every task spawned on it
/// has completed.
///
/// ```
/// use std::rc::Rc;
/// use sim_rt::{task, time};
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let nonsend_data = Rc::new("world");
/// let local = task::LocalSet::new();
///
/// let nonsend_data2 = nonsend_data.clone();
/// local.spawn_local(async move {
///     println!("hello {}", nonsend_data2)
/// });
/// local.spawn_local(async move {
///     time::sleep(time::Duration::from_millis(100)).await;
///     println!("goodbye {}", nonsend_data)
/// });
///
/// local.await;
/// # });
/// ```
///
/// # Differences from tokio
///
/// - The set's tasks are ordinary simulated tasks: the scheduler interleaves
///   them with every other task, and they only make progress while the set
///   is driven (by `run_until`, `block_on` or an `.await` of the set), as in
///   tokio. A set may be driven from a task spawned with `spawn`, which
///   tokio forbids.
/// - [`spawn_local`](LocalSet::spawn_local) outside every simulation keeps
///   the future in the set until a simulation drives it (as tokio queues
///   it); inside one, the task is created at once, parked until the set is
///   driven.
/// - Dropping the set aborts its unfinished tasks: each is dropped at its
///   next step of the simulation (when the simulation is driven again, or
///   shuts down), not during the set's `drop`.
/// - The unstable `unhandled_panic` is not provided; a task's panic follows
///   the runtime's [`UnhandledPanic`](crate::runtime::UnhandledPanic).
pub struct LocalSet {
    /// This set's runtime id, from the same sequence as the runtimes'.
    id: crate::runtime::Id,
    shared: Rc<Shared>,
    /// Set while the set itself is being awaited (a driver of its own).
    driving: Option<Driver>,
}

/// Simulated [`tokio::task::LocalEnterGuard`](https://docs.rs/tokio/1/tokio/task/struct.LocalEnterGuard.html): keeps a [`LocalSet`]'s
/// context entered (see [`LocalSet::enter`]) until dropped.
///
/// # Differences from tokio
///
/// None.
pub struct LocalEnterGuard {
    prev: Option<Rc<Shared>>,
}

impl Drop for LocalEnterGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        CURRENT.with(|c| *c.borrow_mut() = prev);
    }
}

impl fmt::Debug for LocalEnterGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalEnterGuard").finish()
    }
}

impl LocalSet {
    /// An empty set.
    pub fn new() -> LocalSet {
        LocalSet {
            id: crate::runtime::Id::next(),
            shared: Rc::default(),
            driving: None,
        }
    }

    /// Simulated [`tokio::task::LocalSet::id`](https://docs.rs/tokio/1/tokio/task/struct.LocalSet.html#method.id): this set's own runtime
    /// [`Id`](crate::runtime::Id), unique among the runtimes and sets of
    /// the process.
    pub fn id(&self) -> crate::runtime::Id {
        self.id
    }

    /// Enters the set's context: until the guard drops,
    /// [`task::spawn_local`](crate::task::spawn_local) spawns onto this set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn enter(&self) -> LocalEnterGuard {
        enter(self.shared.clone())
    }

    /// Spawns a `!Send` task onto the set.
    ///
    /// Unlike [`task::spawn_local`](crate::task::spawn_local), this works
    /// while the set is not running: the task starts when the set is next
    /// driven, whether or not the `JoinHandle` is awaited. Outside every
    /// simulation (before any runtime runs the set), the set keeps the
    /// future and the task is created in the first simulation that drives
    /// it; its handle has its id at once and may be awaited, aborted or
    /// dropped meanwhile, and the task is cancelled if the set is dropped
    /// first, as tokio's.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::task;
    /// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
    /// let local = task::LocalSet::new();
    ///
    /// // Runs when `run_until` drives the set.
    /// local.spawn_local(async {
    ///     // ...
    /// });
    /// local.run_until(async move {
    ///     // ...
    /// }).await;
    ///
    /// // Runs in the next `run_until`.
    /// local.spawn_local(async {
    ///     // ...
    /// });
    /// local.run_until(async move {
    ///     // ...
    /// }).await;
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// A task spawned outside every simulation gets its id from a range
    /// of its own (above the ids a simulation counts from 1).
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.shared.spawn(future, Origin::Spawn(Location::caller()))
    }

    /// Runs `future` to completion on `rt`, driving the set meanwhile:
    /// `rt.block_on(self.run_until(future))`.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::runtime::Runtime;
    /// use sim_rt::task;
    ///
    /// let rt = Runtime::new().unwrap();
    /// let local = task::LocalSet::new();
    /// let out = local.block_on(&rt, async {
    ///     task::spawn_local(async { 6 * 7 }).await.unwrap()
    /// });
    /// assert_eq!(out, 42);
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a simulation, and when the simulation fails (see
    /// [`Runtime::block_on`]).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn block_on<F>(&self, rt: &Runtime, future: F) -> F::Output
    where
        F: Future,
    {
        rt.block_on(self.run_until(future))
    }

    /// Runs `future` to completion, driving the set meanwhile; inside it,
    /// [`task::spawn_local`](crate::task::spawn_local) spawns onto the set.
    ///
    /// Tasks still unfinished when `future` completes stay in the set and
    /// continue when it is next driven.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe when `future` is.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::task;
    /// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
    /// task::LocalSet::new().run_until(async {
    ///     task::spawn_local(async move {
    ///         // ...
    ///     }).await.unwrap();
    /// }).await;
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// `future` is polled by the task awaiting `run_until`; the set's tasks
    /// run as tasks of their own, in the order the scheduler picks.
    pub async fn run_until<F>(&self, future: F) -> F::Output
    where
        F: Future,
    {
        RunUntil {
            set: &self.shared,
            driver: None,
            future,
        }
        .await
    }
}

pin_project! {
    struct RunUntil<'a, F> {
        set: &'a Rc<Shared>,
        driver: Option<Driver>,
        #[pin]
        future: F,
    }
}

impl<F: Future> Future for RunUntil<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        if this.driver.is_none() {
            *this.driver = Some(this.set.start_driving());
        }
        let res = {
            let _cx = enter(Rc::clone(this.set));
            this.future.poll(cx)
        };
        if res.is_ready() {
            *this.driver = None;
        }
        res
    }
}

impl Future for LocalSet {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let done = {
            let mut state = this.shared.state.borrow_mut();
            let done = state.tasks.is_empty();
            if !done {
                match &state.waiter {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => state.waiter = Some(cx.waker().clone()),
                }
            }
            done
        };
        if done {
            this.driving = None;
            return Poll::Ready(());
        }
        if this.driving.is_none() {
            this.driving = Some(this.shared.start_driving());
        }
        Poll::Pending
    }
}

impl Drop for LocalSet {
    fn drop(&mut self) {
        self.driving = None;
        // Members no simulation ever drove: never spawned, cancelled.
        let waiting = std::mem::take(&mut self.shared.state.borrow_mut().waiting);
        for (slot, attach) in waiting {
            drop(attach);
            deferred::cancelled(slot);
        }
        let (aborts, parked) = {
            let mut state = self.shared.state.borrow_mut();
            state.closed = true;
            state.waiter = None;
            let mut aborts = Vec::with_capacity(state.tasks.len());
            let mut parked = Vec::new();
            for (_, t) in state.tasks.iter_mut() {
                aborts.extend(t.abort.clone());
                parked.extend(t.parked.take());
            }
            (aborts, parked)
        };
        drop(parked);
        for a in aborts {
            a.abort();
        }
    }
}

impl Default for LocalSet {
    fn default() -> LocalSet {
        LocalSet::new()
    }
}

impl fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.state.try_borrow();
        let mut d = f.debug_struct("LocalSet");
        if let Ok(state) = state {
            d.field("tasks", &state.tasks.len())
                .field("driven", &(state.drivers > 0));
        }
        d.finish_non_exhaustive()
    }
}
