//! The descriptors the interposed calls handed out inside simulations on
//! this thread.
//!
//! A descriptor of a simulated file is a **real** file descriptor number,
//! held open on `/dev/null` (the *placeholder*), mapped here to the file
//! on its host's disk. Holding the real number open is what keeps it
//! unique: the kernel hands that number to nothing else while the
//! simulated file is open, so a real file and a simulated one can never be
//! confused, inside or outside a simulation. A file of the lower layer
//! opened read-only through libc is a real descriptor on the real file,
//! recorded here so that the calls that would change it (`write`,
//! `fchmod`, ...) are answered by the simulation.
//!
//! # Invariants
//!
//! - Every key is a real descriptor this thread holds open (the
//!   placeholder, or the real lower-layer file) until `close` removes the
//!   entry; the entry is removed before the number is closed, so a number
//!   is never in the table while the kernel could reuse it.
//! - `LIVE` is the number of entries, readable without touching the map
//!   (a `const` thread-local without destructor), so `close` outside a
//!   simulation costs one more thread-local read.
//! - The map is borrowed only for a lookup or an update, never while a
//!   real call or the disk model runs: a call made meanwhile (a real
//!   `close` inside copy-up) finds it free.
//!
//! # Determinism
//!
//! Descriptor numbers are real ones, so they are not a function of the
//! seed (they depend on what the process has open); the simulation never
//! lets them change what it does. The map is ordered.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::c_int;
use std::path::PathBuf;

use crate::scheduler::HostId;

/// An open descriptor of a simulation.
#[derive(Clone, Debug)]
pub(crate) struct Open {
    /// The simulation (runtime id) it belongs to.
    pub(crate) world: u64,
    pub(crate) host: HostId,
    pub(crate) kind: Kind,
    /// The absolute path it was opened with (a directory's, for the `*at`
    /// calls and listings).
    pub(crate) path: PathBuf,
    /// The file status flags (`F_GETFL`): access mode, `O_APPEND`,
    /// `O_SYNC`, `O_DSYNC`, `O_NONBLOCK`.
    pub(crate) flags: c_int,
    /// `FD_CLOEXEC` (`F_GETFD`).
    pub(crate) cloexec: bool,
    /// For a directory: the next entry `getdents64` returns.
    pub(crate) dir_pos: usize,
}

/// What an open descriptor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A file or directory of the host's simulated disk.
    Sim { fd: sim_fs::Fd, dir: bool },
    /// A real file of the lower layer, open read-only.
    Lower,
}

thread_local! {
    static FILES: RefCell<BTreeMap<c_int, Open>> = const { RefCell::new(BTreeMap::new()) };
    static LIVE: Cell<usize> = const { Cell::new(0) };
}

/// Whether any descriptor is in the table (one thread-local read).
#[inline]
pub(crate) fn any() -> bool {
    LIVE.with(|l| l.get()) > 0
}

/// The entry of `fd`, if it is a simulation's.
pub(crate) fn get(fd: c_int) -> Option<Open> {
    if fd < 0 || !any() {
        return None;
    }
    FILES
        .try_with(|f| f.try_borrow().ok().and_then(|f| f.get(&fd).cloned()))
        .ok()
        .flatten()
}

/// Records `fd` (a real descriptor this thread holds open).
pub(crate) fn insert(fd: c_int, open: Open) {
    let _ = FILES.try_with(|f| {
        if let Ok(mut f) = f.try_borrow_mut() {
            if f.insert(fd, open).is_none() {
                LIVE.with(|l| l.set(l.get() + 1));
            }
        }
    });
}

/// Changes the entry of `fd`, if any.
pub(crate) fn update(fd: c_int, change: impl FnOnce(&mut Open)) {
    let _ = FILES.try_with(|f| {
        if let Ok(mut f) = f.try_borrow_mut() {
            if let Some(open) = f.get_mut(&fd) {
                change(open);
            }
        }
    });
}

/// Removes the entry of `fd` and returns it.
pub(crate) fn remove(fd: c_int) -> Option<Open> {
    if fd < 0 || !any() {
        return None;
    }
    FILES
        .try_with(|f| {
            let mut f = f.try_borrow_mut().ok()?;
            let open = f.remove(&fd)?;
            LIVE.with(|l| l.set(l.get() - 1));
            Some(open)
        })
        .ok()
        .flatten()
}
