//! The ids everything else names: hosts and tasks. A leaf: it imports
//! nothing of the crate, so the runtime's core and tokio's API both look
//! down at it. [`crate::scheduler`] and [`crate::task`] re-export them at
//! their public paths.

use std::fmt;
use std::num::NonZeroU64;

/// Identifies a host of the simulation; dense, in creation order (the host
/// that runs the test's own future is host 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostId(pub(crate) u32);

impl HostId {
    /// The index of this host, in creation order starting at 0.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for HostId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "h{}", self.0)
    }
}

/// Simulated [`tokio::task::Id`](https://docs.rs/tokio/1/tokio/task/struct.Id.html): an opaque task id, unique within a
/// simulation.
///
/// # Differences from tokio
///
/// Ids are assigned in spawn order starting at 1 (the first `block_on`
/// future), so they are the same in every run with the same choices.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Id(NonZeroU64);

impl Id {
    pub(crate) fn from_u64(n: u64) -> Id {
        Id(NonZeroU64::new(n).expect("task ids start at 1"))
    }

    pub(crate) fn from_raw(n: u64) -> Option<Id> {
        NonZeroU64::new(n).map(Id)
    }

    /// The id as a number (creation order, from 1).
    pub fn as_u64(self) -> u64 {
        self.0.get()
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
