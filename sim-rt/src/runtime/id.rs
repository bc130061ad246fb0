//! Simulated [`tokio::runtime::Id`](https://docs.rs/tokio/1/tokio/runtime/struct.Id.html).

use std::fmt;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};

/// Simulated [`tokio::runtime::Id`](https://docs.rs/tokio/1/tokio/runtime/struct.Id.html): an opaque identifier of a runtime,
/// unique among the runtimes of this process.
///
/// # Differences from tokio
///
/// None.
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq)]
pub struct Id(NonZeroU64);

impl Id {
    pub(crate) fn new(raw: u64) -> Id {
        Id(NonZeroU64::new(raw).expect("runtime ids start at 1"))
    }

    pub(crate) fn as_u64(self) -> u64 {
        self.0.get()
    }

    /// A fresh id: runtimes and `LocalSet`s draw from one sequence.
    pub(crate) fn next() -> Id {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Id::new(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
