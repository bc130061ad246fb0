//! The simulation running on this thread, if any.
//!
//! Every simulated API (`spawn`, `sleep`, `Instant::now`...) finds its world
//! here. The slot is set by `block_on` and `Runtime::enter` and restored when
//! their guard drops, so the world is reachable from task code and from the
//! destructors of task futures.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use super::world::World;

thread_local! {
    static DRIVING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static CURRENT: RefCell<Option<Rc<World>>> = const { RefCell::new(None) };
    static REGISTRY: RefCell<Vec<(u64, Weak<World>)>> = const { RefCell::new(Vec::new()) };
}

/// tokio's words outside a runtime, then how a simulation is entered.
const NO_SIMULATION: &str = "there is no reactor running, must be called from the \
    context of a Tokio 1.x runtime (sim_rt: this must be called from inside a simulation, within \
    `Runtime::block_on`, `#[sim_rt::test]` or `#[sim_rt::main]`, but no simulation is running \
    on this thread; a std thread started outside one never sees it)";

/// tokio's panic where a timer is made in a runtime built without
/// `enable_time`.
const NO_TIMERS: &str = "A Tokio 1.x context was found, but timers are disabled. Call \
    `enable_time` on the runtime builder to enable timers.";

/// tokio's panic where a timer is made or polled in a runtime that was
/// shut down.
pub(crate) const SHUTTING_DOWN: &str = "A Tokio 1.x context was found, but it is being shutdown.";

/// tokio's panic where an I/O resource is made in a runtime built without
/// `enable_io`.
const NO_IO: &str = "A Tokio 1.x context was found, but IO is disabled. Call `enable_io` on the \
    runtime builder to enable IO.";

/// The current world, if any.
pub(crate) fn try_current() -> Option<Rc<World>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// The current world, if any, without ever panicking: for the interposed
/// libc functions, which may run while the slot is being replaced or
/// during thread exit.
pub(crate) fn try_current_quiet() -> Option<Rc<World>> {
    CURRENT
        .try_with(|c| c.try_borrow().ok().and_then(|w| w.clone()))
        .ok()
        .flatten()
}

/// The current world; panics with a message saying how to get one.
#[track_caller]
pub(crate) fn current() -> Rc<World> {
    // A `match`, not `unwrap_or_else`: a closure would not carry the
    // caller's location, and the panic would point into sim-rt.
    match try_current() {
        Some(world) => world,
        None => panic!("{NO_SIMULATION}"),
    }
}

/// The current world, for making a timer: panics, at the caller's location,
/// outside a simulation, in one whose runtime has no timers (built without
/// `enable_time`), and in one that was shut down, as tokio's `Sleep` does.
#[track_caller]
pub(crate) fn with_timers() -> Rc<World> {
    let world = with_driver(|d| d.time, NO_TIMERS);
    if world.is_shut_down() {
        panic!("{SHUTTING_DOWN}");
    }
    world
}

/// The current world, for making an I/O resource (a socket, a signal
/// listener): panics, at the caller's location, outside a simulation and in
/// one whose runtime has no I/O driver (built without `enable_io`), as
/// tokio's registration does.
#[track_caller]
pub(crate) fn with_io() -> Rc<World> {
    with_driver(|d| d.io, NO_IO)
}

/// The current world when `has` its driver, else a panic with `missing`.
#[track_caller]
fn with_driver(has: fn(&super::world::Drivers) -> bool, missing: &str) -> Rc<World> {
    let world = current();
    if !has(&world.drivers) {
        panic!("{missing}");
    }
    world
}

/// Runs `f` on the current world, or returns `None` outside a simulation.
pub(crate) fn try_with<R>(f: impl FnOnce(&World) -> R) -> Option<R> {
    try_current().map(|w| f(&w))
}

/// Runs `f` on the current world; panics outside a simulation.
#[track_caller]
pub(crate) fn with<R>(f: impl FnOnce(&World) -> R) -> R {
    f(&current())
}

/// Whether a simulation's step loop is running on this thread (a
/// `block_on` in progress): blocking on another future now would deadlock.
pub(crate) fn driving() -> bool {
    DRIVING.with(|d| d.get())
}

/// Marks this thread as driving a simulation until the guard drops.
pub(crate) fn drive() -> DriveGuard {
    let prev = DRIVING.with(|d| d.replace(true));
    DriveGuard { prev }
}

/// Marks this thread as not driving until the guard drops: inside
/// `block_in_place`, where a `block_on` may run.
pub(crate) fn undrive() -> DriveGuard {
    let prev = DRIVING.with(|d| d.replace(false));
    DriveGuard { prev }
}

/// Restores the previous driving state when dropped.
#[derive(Debug)]
pub(crate) struct DriveGuard {
    prev: bool,
}

impl Drop for DriveGuard {
    fn drop(&mut self) {
        DRIVING.with(|d| d.set(self.prev));
    }
}

/// Restores the previous world when dropped.
#[derive(Debug)]
pub(crate) struct EnterGuard {
    prev: Option<Rc<World>>,
    prev_active: bool,
}

/// Makes `world` current until the guard drops (and turns interception on
/// for this thread: see `crate::switches`).
pub(crate) fn enter(world: Rc<World>) -> EnterGuard {
    let prev = CURRENT.with(|c| c.borrow_mut().replace(world));
    let prev_active = crate::switches::set_active(true);
    EnterGuard { prev, prev_active }
}

/// Whether [`enter`] can run: false while this thread's thread-locals are
/// being destroyed (a runtime kept in a `thread_local!` is dropped then).
pub(crate) fn can_enter() -> bool {
    CURRENT.try_with(|_| ()).is_ok()
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        let prev = self.prev.take();
        // The world that was current is dropped after the slot is restored,
        // so destructors it runs never see the slot borrowed.
        let left = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), prev));
        crate::switches::set_active(self.prev_active);
        drop(left);
    }
}

/// Records a runtime so a `Handle` (which only holds its id, to be `Send`)
/// can find it from this thread.
pub(crate) fn register(id: u64, world: &Rc<World>) {
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        r.retain(|(_, w)| w.strong_count() > 0);
        r.push((id, Rc::downgrade(world)));
    });
}

/// Whether this thread owns a live simulation (built it, and it is not
/// dropped yet).
pub(crate) fn owns_simulations() -> bool {
    REGISTRY
        .try_with(|r| {
            r.try_borrow()
                .is_ok_and(|r| r.iter().any(|(_, w)| w.strong_count() > 0))
        })
        .unwrap_or(false)
}

/// The live simulations this thread owns, in the order they were built.
pub(crate) fn owned_simulations() -> Vec<Rc<World>> {
    REGISTRY
        .try_with(|r| {
            r.try_borrow()
                .map(|r| r.iter().filter_map(|(_, w)| w.upgrade()).collect())
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// Finds a live runtime of this thread by id.
pub(crate) fn lookup(id: u64) -> Option<Rc<World>> {
    // `try_with`: `None` while the thread-locals are destroyed (a handle
    // kept in a `thread_local!` is dropped then).
    REGISTRY
        .try_with(|r| {
            r.borrow()
                .iter()
                .find(|(i, _)| *i == id)
                .and_then(|(_, w)| w.upgrade())
        })
        .ok()
        .flatten()
}

/// The simulation with id `runtime`, if reachable from this thread: the
/// current one, or one that is still alive on this thread.
#[inline]
pub(crate) fn world_of(runtime: u64) -> Option<Rc<World>> {
    // The current world, almost always: without an intermediate `Option`.
    // `try_with`: `None` while the thread-locals are destroyed.
    let current = CURRENT
        .try_with(|c| match &*c.borrow() {
            Some(w) if w.id == runtime => Some(w.clone()),
            _ => None,
        })
        .ok()?;
    current.or_else(|| lookup(runtime))
}

/// The text of a panic payload, with a note when the panic follows a call
/// that interception refused in the same step (a std thread, a real
/// socket): the std error alone does not say what to use instead.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let message = if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    };
    let now = try_current_quiet().map(|w| (w.id, w.core.try_borrow().map_or(u64::MAX, |c| c.step)));
    match now.and_then(|(world, step)| crate::switches::take_note(world, step)) {
        Some(note) => format!("{message}\n  note: {note}"),
        None => message,
    }
}

/// A runtime that was dropped, entered through its handle (tokio allows
/// it): what `Handle::current` rebuilds its handle from.
#[derive(Clone)]
pub(crate) struct Gone {
    pub(crate) id: u64,
    pub(crate) flavor: super::config::RuntimeFlavor,
    pub(crate) name: Option<std::sync::Arc<str>>,
}

thread_local! {
    /// The dropped runtimes entered on this thread and not left yet,
    /// innermost last.
    static ENTERED_GONE: RefCell<Vec<Gone>> = const { RefCell::new(Vec::new()) };
}

/// Enters dropped runtime `gone` on this thread until the guard drops.
pub(crate) fn enter_gone(gone: Gone) -> EnteredGone {
    ENTERED_GONE.with(|g| g.borrow_mut().push(gone));
    EnteredGone(())
}

/// The dropped runtime entered last on this thread, if any (see
/// [`enter_gone`]).
pub(crate) fn entered_gone() -> Option<Gone> {
    ENTERED_GONE.with(|g| g.borrow().last().cloned())
}

/// Where a spawn goes: the current world, or else (`Err`, its id) the
/// dropped runtime entered last, whose spawns are cancelled.
///
/// # Panics
///
/// Outside both, at the caller's location.
#[track_caller]
pub(crate) fn current_or_gone() -> Result<Rc<World>, u64> {
    if let Some(world) = try_current() {
        if world.is_shut_down() {
            // An `EnterGuard` held across the shutdown: as gone.
            return Err(world.id);
        }
        return Ok(world);
    }
    match entered_gone() {
        Some(gone) => Err(gone.id),
        None => panic!("{NO_SIMULATION}"),
    }
}

/// Leaves the dropped runtime [`enter_gone`] entered, when dropped.
pub(crate) struct EnteredGone(());

impl Drop for EnteredGone {
    fn drop(&mut self) {
        ENTERED_GONE.with(|g| g.borrow_mut().pop());
    }
}
