//! Simulated [`Semaphore`]: a fair counting semaphore and its permits.
//!
//! A thin layer over the batch semaphore (see `batch_semaphore.rs`), which
//! holds the queue, the fairness and the wake order.

use std::sync::Arc;

use super::batch_semaphore::{AcquireError, Sem, TryAcquireError};
use super::util::block_on;

/// Simulated/own version of
/// [`tokio::sync::Semaphore`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html):
/// a counting semaphore handing out permits in FIFO order.
///
/// `acquire` and `acquire_many` queue in the order of their first poll; a
/// request at the head of the queue that needs more permits than are
/// available blocks the requests behind it, even smaller ones.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::sync::Semaphore;
///
/// let semaphore = Semaphore::new(3);
/// let a = semaphore.acquire().await.unwrap();
/// let b = semaphore.acquire_many(2).await.unwrap();
/// assert_eq!(semaphore.available_permits(), 0);
/// assert!(semaphore.try_acquire().is_err());
/// drop(a);
/// assert!(semaphore.try_acquire().is_ok());
/// # drop(b);
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Semaphore {
    ll: Sem,
}

/// Simulated/own version of
/// [`tokio::sync::SemaphorePermit`](https://docs.rs/tokio/1/tokio/sync/struct.SemaphorePermit.html):
/// permits borrowed from a [`Semaphore`], given back on drop.
///
/// # Differences from tokio
///
/// None.
#[must_use]
#[clippy::has_significant_drop]
#[derive(Debug)]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: usize,
}

/// Simulated/own version of
/// [`tokio::sync::OwnedSemaphorePermit`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedSemaphorePermit.html):
/// permits of an `Arc<Semaphore>`, given back on drop.
///
/// # Differences from tokio
///
/// None.
#[must_use]
#[clippy::has_significant_drop]
#[derive(Debug)]
pub struct OwnedSemaphorePermit {
    sem: Arc<Semaphore>,
    permits: usize,
}

impl Semaphore {
    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::MAX_PERMITS`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#associatedconstant.MAX_PERMITS):
    /// the most permits a semaphore can hold (`usize::MAX >> 3`).
    pub const MAX_PERMITS: usize = Sem::MAX_PERMITS;

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::new`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.new):
    /// a semaphore with `permits` permits.
    ///
    /// # Panics
    ///
    /// When `permits` exceeds [`MAX_PERMITS`](Semaphore::MAX_PERMITS).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn new(permits: usize) -> Semaphore {
        Semaphore {
            ll: Sem::new(permits),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::const_new`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.const_new):
    /// [`new`](Semaphore::new) usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new(permits: usize) -> Semaphore {
        Semaphore {
            ll: Sem::const_new(permits),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::available_permits`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.available_permits):
    /// the permits that can be acquired right now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn available_permits(&self) -> usize {
        self.ll.available_permits()
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::add_permits`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.add_permits):
    /// adds `n` permits, handing them to waiters first.
    ///
    /// # Panics
    ///
    /// When the total would exceed [`MAX_PERMITS`](Semaphore::MAX_PERMITS).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn add_permits(&self, n: usize) {
        self.ll.release(n);
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::forget_permits`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.forget_permits):
    /// removes up to `n` available permits, returning how many it removed.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn forget_permits(&self, n: usize) -> usize {
        self.ll.forget_permits(n)
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::acquire`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.acquire):
    /// waits for one permit.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future gives back any permit already assigned to it and
    /// loses its place in the queue.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        self.ll.acquire(1).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::acquire_many`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.acquire_many):
    /// waits for `n` permits, taken together.
    ///
    /// # Cancel safety
    ///
    /// As [`acquire`](Semaphore::acquire).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        self.ll.acquire(n as usize).await?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::try_acquire`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.try_acquire):
    /// one permit if available now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::try_acquire_many`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.try_acquire_many):
    /// `n` permits if available now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.ll.try_acquire(n as usize)?;
        Ok(SemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::blocking_acquire`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.blocking_acquire):
    /// [`acquire`](Semaphore::acquire), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation (tokio: inside an asynchronous execution
    /// context).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        block_on("Semaphore::blocking_acquire", self.acquire())
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::blocking_acquire_many`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.blocking_acquire_many):
    /// [`acquire_many`](Semaphore::acquire_many), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        block_on("Semaphore::blocking_acquire_many", self.acquire_many(n))
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::acquire_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.acquire_owned):
    /// [`acquire`](Semaphore::acquire) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.ll.acquire(1).await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: 1,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::acquire_many_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.acquire_many_owned):
    /// [`acquire_many`](Semaphore::acquire_many) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.ll.acquire(n as usize).await?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::try_acquire_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.try_acquire_owned):
    /// [`try_acquire`](Semaphore::try_acquire) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::try_acquire_many_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.try_acquire_many_owned):
    /// [`try_acquire_many`](Semaphore::try_acquire_many) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.ll.try_acquire(n as usize)?;
        Ok(OwnedSemaphorePermit {
            sem: self,
            permits: n as usize,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::blocking_acquire_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.blocking_acquire_owned):
    /// [`acquire_owned`](Semaphore::acquire_owned), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        block_on("Semaphore::blocking_acquire_owned", self.acquire_owned())
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::blocking_acquire_many_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.blocking_acquire_many_owned):
    /// [`acquire_many_owned`](Semaphore::acquire_many_owned), blocking the
    /// thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        block_on(
            "Semaphore::blocking_acquire_many_owned",
            self.acquire_many_owned(n),
        )
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::close`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.close):
    /// fails every queued and future acquisition with [`AcquireError`];
    /// permits already held stay valid.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn close(&self) {
        self.ll.close();
    }

    /// Simulated/own version of
    /// [`tokio::sync::Semaphore::is_closed`](https://docs.rs/tokio/1/tokio/sync/struct.Semaphore.html#method.is_closed):
    /// whether [`close`](Semaphore::close) was called.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_closed(&self) -> bool {
        self.ll.is_closed()
    }
}

impl<'a> SemaphorePermit<'a> {
    /// Simulated/own version of
    /// [`tokio::sync::SemaphorePermit::forget`](https://docs.rs/tokio/1/tokio/sync/struct.SemaphorePermit.html#method.forget):
    /// drops the permits without giving them back.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Simulated/own version of
    /// [`tokio::sync::SemaphorePermit::merge`](https://docs.rs/tokio/1/tokio/sync/struct.SemaphorePermit.html#method.merge):
    /// moves `other`'s permits into `self`.
    ///
    /// # Panics
    ///
    /// When the permits come from different semaphores.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        let same = std::ptr::eq(self.sem, other.sem);
        merge_permits(same, &mut self.permits, &mut other.permits);
    }

    /// Simulated/own version of
    /// [`tokio::sync::SemaphorePermit::split`](https://docs.rs/tokio/1/tokio/sync/struct.SemaphorePermit.html#method.split):
    /// moves `n` of the permits into a new permit, `None` when it holds
    /// fewer.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        let permits = take_permits(&mut self.permits, n)?;
        Some(SemaphorePermit {
            sem: self.sem,
            permits,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::SemaphorePermit::semaphore`](https://docs.rs/tokio/1/tokio/sync/struct.SemaphorePermit.html#method.semaphore):
    /// the semaphore the permits belong to.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn semaphore(&self) -> &Semaphore {
        self.sem
    }

    /// Simulated/own version of
    /// [`tokio::sync::SemaphorePermit::num_permits`](https://docs.rs/tokio/1/tokio/sync/struct.SemaphorePermit.html#method.num_permits):
    /// how many permits this holds.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

impl OwnedSemaphorePermit {
    /// Simulated/own version of
    /// [`tokio::sync::OwnedSemaphorePermit::forget`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedSemaphorePermit.html#method.forget):
    /// drops the permits without giving them back.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedSemaphorePermit::merge`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedSemaphorePermit.html#method.merge):
    /// moves `other`'s permits into `self`.
    ///
    /// # Panics
    ///
    /// When the permits come from different semaphores.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        let same = Arc::ptr_eq(&self.sem, &other.sem);
        merge_permits(same, &mut self.permits, &mut other.permits);
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedSemaphorePermit::split`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedSemaphorePermit.html#method.split):
    /// moves `n` of the permits into a new permit, `None` when it holds
    /// fewer.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        let permits = take_permits(&mut self.permits, n)?;
        Some(OwnedSemaphorePermit {
            sem: self.sem.clone(),
            permits,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedSemaphorePermit::semaphore`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedSemaphorePermit.html#method.semaphore):
    /// the semaphore the permits belong to.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedSemaphorePermit::num_permits`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedSemaphorePermit.html#method.num_permits):
    /// how many permits this holds.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        self.sem.add_permits(self.permits);
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        self.sem.add_permits(self.permits);
    }
}

/// Moves `other`'s permits into `mine`, what both permits' `merge` do;
/// `same` says whether they come from the same semaphore.
#[track_caller]
fn merge_permits(same: bool, mine: &mut usize, other: &mut usize) {
    assert!(same, "merging permits from different semaphore instances");
    *mine = mine
        .checked_add(std::mem::take(other))
        .expect("number of permits overflowed");
}

/// Takes `n` of `permits` for a new permit, `None` when it holds fewer.
fn take_permits(permits: &mut usize, n: usize) -> Option<usize> {
    if n > *permits {
        return None;
    }
    *permits -= n;
    Some(n)
}
