//! Tasks spawned on a [`LocalSet`](super::LocalSet) before any simulation
//! runs it (`LocalSet::spawn_local` outside every runtime, as tokio
//! allows): their `JoinHandle`s exist before their tasks do.
//!
//! A simulated task lives in a simulation, which the set meets only when
//! it is first driven (`run_until`, `block_on`, an `.await` of the set) or
//! spawned on inside one. Until then the set keeps the futures, and each
//! handle names a *slot* here instead of a task: polling it waits (its
//! waker kept), aborting it is remembered, and the task's id is reserved
//! (see [`reserve_id`]). When the set spawns the task it records where the
//! task is, and the handle works as any other from then on; when the set
//! is dropped first, the task is cancelled and the handle says so.
//!
//! # Invariants
//!
//! - A slot exists from the deferred spawn until its `JoinHandle` is
//!   dropped; an `AbortHandle` does not keep it (aborting through one
//!   after the `JoinHandle` is gone does nothing).
//! - `Slot::state` goes `Waiting` → `Spawned` or `Waiting` → `Cancelled`,
//!   once.
//! - The table is locked only for a lookup or an update, never while a
//!   waker runs or the simulation is borrowed.
//!
//! # Determinism
//!
//! Slot numbers come from a process-wide counter and never reach
//! behaviour. Reserved ids count down from the middle of the id space on
//! each thread (a `LocalSet` is `!Send`: it spawns and runs on one
//! thread), so a test that spawns before its runtime starts gets the same
//! ids every time it runs on a fresh thread; they are above every id a
//! simulation hands out itself (those count up from 1), so the two never
//! meet.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::task::Waker;

use super::Id;

/// The `runtime` of a handle whose task waits for its set: its `key` is
/// the slot's number.
pub(crate) const DEFERRED: u64 = u64::MAX - 1;

/// Where a deferred task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Not spawned yet.
    Waiting,
    /// Spawned as task `key` of simulation `runtime`.
    Spawned { runtime: u64, key: usize },
    /// Dropped with its set before it was spawned.
    Cancelled,
}

#[derive(Debug)]
struct Slot {
    state: State,
    /// The waker of the handle's last poll while waiting.
    waker: Option<Waker>,
    /// `abort` was called while waiting.
    abort: bool,
    /// The `JoinHandle` was dropped while waiting.
    detached: bool,
}

static SLOTS: Mutex<BTreeMap<usize, Slot>> = Mutex::new(BTreeMap::new());
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    /// This thread's next reserved id; they count down from here.
    static NEXT_ID: Cell<u64> = const { Cell::new(u64::MAX / 2) };
}

/// Starts this thread's reserved ids over, as on a fresh thread (a thread
/// that runs simulations one after another: `runtime::clean_thread`).
pub(crate) fn reset_thread_ids() {
    NEXT_ID.with(|n| n.set(u64::MAX / 2));
}

fn with_slots<R>(f: impl FnOnce(&mut BTreeMap<usize, Slot>) -> R) -> R {
    f(&mut SLOTS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// A new slot, waiting.
pub(crate) fn new_slot() -> usize {
    let slot = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
    with_slots(|s| {
        s.insert(
            slot,
            Slot {
                state: State::Waiting,
                waker: None,
                abort: false,
                detached: false,
            },
        )
    });
    slot
}

/// An id for a task spawned later: above every id a simulation counts.
pub(crate) fn reserve_id() -> Id {
    Id::from_u64(NEXT_ID.with(|n| n.replace(n.get() - 1)))
}

/// Where the slot's task is (`Cancelled` for a slot that is gone).
pub(crate) fn state(slot: usize) -> State {
    with_slots(|s| s.get(&slot).map_or(State::Cancelled, |s| s.state))
}

/// A poll of the handle while waiting: `waker` is woken when the task is
/// spawned or cancelled. Returns the state, checked under the same lock.
pub(crate) fn poll(slot: usize, waker: &Waker) -> State {
    with_slots(|s| match s.get_mut(&slot) {
        Some(entry) => {
            if entry.state == State::Waiting {
                entry.waker = Some(waker.clone());
            }
            entry.state
        }
        None => State::Cancelled,
    })
}

/// `abort` while waiting: the task is aborted when it is spawned.
pub(crate) fn abort(slot: usize) {
    with_slots(|s| {
        if let Some(entry) = s.get_mut(&slot) {
            entry.abort = true;
        }
    })
}

/// The `JoinHandle` is dropped: the slot goes, or, while waiting, is
/// marked so that the task is spawned detached.
pub(crate) fn release(slot: usize) {
    with_slots(|s| match s.get_mut(&slot) {
        Some(entry) if entry.state == State::Waiting => entry.detached = true,
        _ => drop(s.remove(&slot)),
    })
}

/// What the set must do with a task it just spawned for `slot`.
pub(crate) struct Spawned {
    /// Abort it: the handle asked to while it waited.
    pub(crate) abort: bool,
    /// Drop its handle: the deferred one is gone.
    pub(crate) detached: bool,
}

/// The set spawned the slot's task as task `key` of `runtime`; wakes the
/// handle's waker.
pub(crate) fn spawned(slot: usize, runtime: u64, key: usize) -> Spawned {
    let (waker, spawned) = with_slots(|s| {
        let Some(entry) = s.get_mut(&slot) else {
            return (
                None,
                Spawned {
                    abort: false,
                    detached: true,
                },
            );
        };
        entry.state = State::Spawned { runtime, key };
        let spawned = Spawned {
            abort: entry.abort,
            detached: entry.detached,
        };
        let waker = entry.waker.take();
        if entry.detached {
            s.remove(&slot);
        }
        (waker, spawned)
    });
    if let Some(w) = waker {
        w.wake();
    }
    spawned
}

/// The set was dropped before spawning the slot's task; wakes the handle.
pub(crate) fn cancelled(slot: usize) {
    let waker = with_slots(|s| match s.get_mut(&slot) {
        Some(entry) if !entry.detached => {
            entry.state = State::Cancelled;
            entry.waker.take()
        }
        _ => {
            s.remove(&slot);
            None
        }
    });
    if let Some(w) = waker {
        w.wake();
    }
}
