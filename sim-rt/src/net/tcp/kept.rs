//! The bytes streams had received and not read when their simulation
//! ended, kept for the handles that outlive it: a tokio socket's
//! `try_read` after its runtime is dropped still reads the kernel's queue
//! (tokio's `later_reads_after_runtime_drop_report_shutdown`).
//!
//! The runtime's shutdown hands every open stream's unread bytes here
//! ([`keep`]); `TcpStream::try_read` takes from them once its simulation
//! is unreachable, and the stream's drop forgets its entry.
//!
//! # Determinism
//!
//! Only handles used after their simulation ended read these, outside any
//! simulation; the map is ordered.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use sim_net::ConnId;

use crate::runtime::world::World;

/// Per simulation and connection: the bytes left unread.
static KEPT: Mutex<BTreeMap<(u64, ConnId), VecDeque<u8>>> = Mutex::new(BTreeMap::new());

/// The number of entries, readable without the lock (a stream's drop
/// checks it first).
static LIVE: AtomicUsize = AtomicUsize::new(0);

fn with<R>(f: impl FnOnce(&mut BTreeMap<(u64, ConnId), VecDeque<u8>>) -> R) -> R {
    crate::switches::without_interception(|| {
        let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
        let r = f(&mut kept);
        LIVE.store(kept.len(), Ordering::Release);
        r
    })
}

/// Whether anything is kept (one atomic read).
#[inline]
pub(crate) fn any() -> bool {
    LIVE.load(Ordering::Acquire) > 0
}

/// Keeps the unread bytes of `world`'s open streams (its shutdown).
pub(crate) fn keep(world: &World) {
    let unread = world.net_op(|net, _| net.tcp_drain_unread());
    if unread.is_empty() {
        return;
    }
    with(|kept| {
        for (conn, bytes) in unread {
            kept.insert((world.id, conn), bytes.into());
        }
    });
}

/// Reads kept bytes of `conn` of simulation `runtime` into `buf`; `None`
/// when none are left.
pub(crate) fn read(runtime: u64, conn: ConnId, buf: &mut [u8]) -> Option<usize> {
    with(|kept| {
        let bytes = kept.get_mut(&(runtime, conn))?;
        if bytes.is_empty() {
            return None;
        }
        let n = buf.len().min(bytes.len());
        for (slot, byte) in buf.iter_mut().zip(bytes.drain(..n)) {
            *slot = byte;
        }
        Some(n)
    })
}

/// Forgets what is kept for `conn` (its stream is dropped).
pub(crate) fn forget(runtime: u64, conn: ConnId) {
    with(|kept| kept.remove(&(runtime, conn)));
}
