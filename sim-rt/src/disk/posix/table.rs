//! The descriptors the interposed calls handed out inside simulations,
//! process-wide (as descriptors are).
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
//! - Every key is a real descriptor the process holds open (the
//!   placeholder, or the real lower-layer file) until `close` removes the
//!   entry; the entry is removed before the number is closed, so a number
//!   is never in the table while the kernel could reuse it.
//! - `LIVE` is the number of entries, readable without the lock, so a
//!   call outside a simulation costs one more atomic read.
//! - The lock is held only for a lookup or an update, never while a real
//!   call or the disk model runs: a call made meanwhile (a real `close`
//!   inside copy-up) finds it free. Each entry names its simulation, so
//!   the explorer's simulations on other threads never use each other's.
//!
//! # Determinism
//!
//! Descriptor numbers are real ones, so they are not a function of the
//! seed (they depend on what the process has open); the simulation never
//! lets them change what it does. The map is ordered.

use std::collections::BTreeMap;
use std::ffi::c_int;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

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

impl Open {
    /// A descriptor with no path (a socket, an end of a pipe) of simulation
    /// `world` on `host`.
    pub(crate) fn endpoint(
        world: u64,
        host: HostId,
        kind: Kind,
        flags: c_int,
        cloexec: bool,
    ) -> Open {
        Open {
            world,
            host,
            kind,
            path: PathBuf::new(),
            flags,
            cloexec,
            dir_pos: 0,
        }
    }
}

/// What an open descriptor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A file or directory of the host's simulated disk.
    Sim { fd: sim_fs::Fd, dir: bool },
    /// A real file of the lower layer, open read-only.
    Lower,
    /// A Unix domain socket of the host's network model (`sock.rs`), on a
    /// real unconnected socket; its blocking calls' timeouts.
    Unix {
        id: sim_net::UnixId,
        recv_timeout: Option<std::time::Duration>,
        send_timeout: Option<std::time::Duration>,
    },
    /// A TCP or UDP socket of the host's network model (`ip.rs`), on the
    /// real socket `socket(2)` made; `bound` is a fresh TCP socket's
    /// `bind` address.
    Ip {
        obj: IpObj,
        udp: bool,
        v6: bool,
        bound: Option<std::net::SocketAddr>,
        recv_timeout: Option<std::time::Duration>,
        send_timeout: Option<std::time::Duration>,
    },
    /// An end of a pipe of the host's network model (`pipe.rs`), on an end
    /// of a real pipe: for reading, writing, or both (a FIFO opened
    /// `O_RDWR`).
    Pipe {
        id: sim_net::PipeId,
        read: bool,
        write: bool,
    },
}

pub(crate) use crate::runtime::net::IpObj;

/// The table, shared by every thread of the process: descriptors are the
/// process's, and a simulated file opened on one thread is used on
/// another (a `std::fs::File` moved into a simulated thread).
static FILES: Mutex<BTreeMap<c_int, Open>> = Mutex::new(BTreeMap::new());

/// The number of entries, readable without the lock.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` on the table. The lock is taken with interception off: it is
/// the runtime's own, and a wait for it (another simulation's thread
/// holding it) is a real wait, not a simulated thread's blocking point.
/// `f` only looks up or changes the map, so the lock is held briefly and
/// never across a real call or the disk model.
fn with_table<R>(f: impl FnOnce(&mut BTreeMap<c_int, Open>) -> R) -> R {
    crate::switches::without_interception(|| {
        let mut files = FILES.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut files)
    })
}

/// Whether any descriptor is in the table (one atomic read).
#[inline]
pub(crate) fn any() -> bool {
    LIVE.load(Ordering::Acquire) > 0
}

/// The entry of `fd`, if it is a simulation's.
pub(crate) fn get(fd: c_int) -> Option<Open> {
    if fd < 0 || !any() {
        return None;
    }
    with_table(|f| f.get(&fd).cloned())
}

/// What `fd` is, if it is a simulation's (no copy of its path).
pub(crate) fn kind(fd: c_int) -> Option<Kind> {
    if fd < 0 || !any() {
        return None;
    }
    with_table(|f| f.get(&fd).map(|o| o.kind))
}

/// Records `fd` (a real descriptor the process holds open).
pub(crate) fn insert(fd: c_int, open: Open) {
    with_table(|f| {
        if f.insert(fd, open).is_none() {
            LIVE.fetch_add(1, Ordering::AcqRel);
        }
    });
}

/// Changes the entry of `fd`, if any.
pub(crate) fn update(fd: c_int, change: impl FnOnce(&mut Open)) {
    with_table(|f| {
        if let Some(open) = f.get_mut(&fd) {
            change(open);
        }
    });
}

/// Whether an entry other than `fd`'s satisfies `pred`.
pub(crate) fn any_other(fd: c_int, pred: impl Fn(&Open) -> bool) -> bool {
    with_table(|f| f.iter().any(|(k, o)| *k != fd && pred(o)))
}

/// Removes the entry of `fd` and returns it.
pub(crate) fn remove(fd: c_int) -> Option<Open> {
    if fd < 0 || !any() {
        return None;
    }
    with_table(|f| {
        let open = f.remove(&fd)?;
        LIVE.fetch_sub(1, Ordering::AcqRel);
        Some(open)
    })
}
