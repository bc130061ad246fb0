//! Simulated [`RwLock`]: an async, fair, write-preferring reader-writer lock,
//! and its guards.
//!
//! As in tokio, the lock is the fair batch semaphore with `max_readers`
//! permits: a read takes one, a write takes all of them. Because the
//! semaphore serves requests in FIFO order and a request at the head blocks
//! the ones behind it, a waiting writer is not starved by later readers,
//! and readers queued behind a writer wait for it.
//!
//! # Invariants
//!
//! - A read guard holds one permit, a write guard (plain or mapped) holds
//!   `mr` permits, so a writer excludes every other guard. Guards give them
//!   back on drop; `downgrade` gives back all but one.
//!
//! This module and `mutex.rs` are the only ones in sim-rt's `sync` with
//! `unsafe` code: handing out `&T`/`&mut T` from a shared lock across
//! `.await` points needs an `UnsafeCell` and raw pointers in the guards.

#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::batch_semaphore::Sem;
use super::guard;
use super::mutex::TryLockError;
use super::util::block_on;

/// tokio's default and maximum number of concurrent readers.
const MAX_READS: u32 = u32::MAX >> 3;

/// Simulated/own version of
/// [`tokio::sync::RwLock`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html):
/// many readers or one writer, served in FIFO order (write-preferring).
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::sync::RwLock;
///
/// let lock = RwLock::new(5);
/// {
///     let r1 = lock.read().await;
///     let r2 = lock.read().await;
///     assert_eq!(*r1 + *r2, 10);
/// }
/// *lock.write().await += 1;
/// assert_eq!(*lock.read().await, 6);
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
pub struct RwLock<T: ?Sized> {
    /// Maximum number of concurrent readers (the permits a write takes).
    mr: u32,
    s: Sem,
    c: UnsafeCell<T>,
}

/// Simulated/own version of
/// [`tokio::sync::RwLockReadGuard`](https://docs.rs/tokio/1/tokio/sync/struct.RwLockReadGuard.html):
/// shared read access, released on drop.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    s: &'a Sem,
    data: *const T,
    marker: PhantomData<&'a T>,
}

/// Simulated/own version of
/// [`tokio::sync::RwLockWriteGuard`](https://docs.rs/tokio/1/tokio/sync/struct.RwLockWriteGuard.html):
/// exclusive write access, released on drop.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    permits_acquired: u32,
    s: &'a Sem,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

/// Simulated/own version of
/// [`tokio::sync::RwLockMappedWriteGuard`](https://docs.rs/tokio/1/tokio/sync/struct.RwLockMappedWriteGuard.html):
/// a write guard narrowed to a part of the value.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    permits_acquired: u32,
    s: &'a Sem,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

/// Simulated/own version of
/// [`tokio::sync::OwnedRwLockReadGuard`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockReadGuard.html):
/// shared read access holding the `Arc`.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
pub struct OwnedRwLockReadGuard<T: ?Sized, U: ?Sized = T> {
    lock: Arc<RwLock<T>>,
    data: *const U,
    _p: PhantomData<T>,
}

/// Simulated/own version of
/// [`tokio::sync::OwnedRwLockWriteGuard`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockWriteGuard.html):
/// exclusive write access holding the `Arc`.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    permits_acquired: u32,
    lock: Arc<RwLock<T>>,
    data: *mut T,
    _p: PhantomData<T>,
}

/// Simulated/own version of
/// [`tokio::sync::OwnedRwLockMappedWriteGuard`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockMappedWriteGuard.html):
/// an owned write guard narrowed to a part of the value.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    permits_acquired: u32,
    lock: Arc<RwLock<T>>,
    data: *mut U,
    _p: PhantomData<T>,
}

// SAFETY (all impls below): the guards are references into the lock's value
// (shared for read guards, exclusive for write guards) plus permits; these
// are the bounds under which `&T`/`&mut T` may cross or be shared between
// threads, as for `std::sync::RwLock`, and tokio's.
unsafe impl<T> Send for RwLock<T> where T: ?Sized + Send {}
// SAFETY: see above.
unsafe impl<T> Sync for RwLock<T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T> Send for RwLockReadGuard<'_, T> where T: ?Sized + Sync {}
// SAFETY: see above.
unsafe impl<T> Sync for RwLockReadGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T, U> Send for OwnedRwLockReadGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Sync,
{
}
// SAFETY: see above.
unsafe impl<T, U> Sync for OwnedRwLockReadGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}
// SAFETY: see above.
unsafe impl<T> Sync for RwLockWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T> Sync for OwnedRwLockWriteGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T> Sync for RwLockMappedWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T, U> Sync for OwnedRwLockMappedWriteGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}
// SAFETY: see above.
unsafe impl<T> Send for RwLockWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T> Send for OwnedRwLockWriteGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T> Send for RwLockMappedWriteGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: see above.
unsafe impl<T, U> Send for OwnedRwLockMappedWriteGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}

impl<T: ?Sized> RwLock<T> {
    /// Simulated/own version of
    /// [`tokio::sync::RwLock::new`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.new):
    /// an unlocked lock holding `value`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn new(value: T) -> RwLock<T>
    where
        T: Sized,
    {
        RwLock::const_new(value)
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::with_max_readers`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.with_max_readers):
    /// a lock allowing at most `max_reads` concurrent readers.
    ///
    /// # Panics
    ///
    /// When `max_reads` is 0 or more than `u32::MAX >> 3`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T>
    where
        T: Sized,
    {
        assert_ne!(max_reads, 0, "a RwLock may not be created with 0 readers");
        assert!(
            max_reads <= MAX_READS,
            "a RwLock may not be created with more than {MAX_READS} readers"
        );
        RwLock::const_with_max_readers(value, max_reads)
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::const_new`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.const_new):
    /// [`new`](RwLock::new) usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new(value: T) -> RwLock<T>
    where
        T: Sized,
    {
        RwLock {
            mr: MAX_READS,
            s: Sem::const_new(MAX_READS as usize),
            c: UnsafeCell::new(value),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::const_with_max_readers`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.const_with_max_readers):
    /// [`with_max_readers`](RwLock::with_max_readers) usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T>
    where
        T: Sized,
    {
        assert!(max_reads != 0, "a RwLock may not be created with 0 readers");
        assert!(max_reads <= MAX_READS);
        RwLock {
            mr: max_reads,
            s: Sem::const_new(max_reads as usize),
            c: UnsafeCell::new(value),
        }
    }

    async fn acquire(&self, n: u32) {
        self.s
            .acquire(n as usize)
            .await
            .unwrap_or_else(|_| unreachable!("an RwLock's semaphore is never closed"));
    }

    fn read_guard(&self) -> RwLockReadGuard<'_, T> {
        RwLockReadGuard {
            s: &self.s,
            data: self.c.get(),
            marker: PhantomData,
        }
    }

    fn write_guard(&self) -> RwLockWriteGuard<'_, T> {
        RwLockWriteGuard {
            permits_acquired: self.mr,
            s: &self.s,
            data: self.c.get(),
            marker: PhantomData,
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::read`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.read):
    /// waits for shared read access (behind any writer queued earlier).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        self.acquire(1).await;
        self.read_guard()
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::blocking_read`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.blocking_read):
    /// [`read`](RwLock::read), blocking the thread.
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
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        block_on("RwLock::blocking_read", self.read())
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::read_owned`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.read_owned):
    /// [`read`](RwLock::read) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn read_owned(self: Arc<Self>) -> OwnedRwLockReadGuard<T> {
        self.acquire(1).await;
        OwnedRwLockReadGuard {
            data: self.c.get(),
            lock: self,
            _p: PhantomData,
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::try_read`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.try_read):
    /// read access if available now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        self.s.try_acquire(1).map_err(|_| TryLockError(()))?;
        Ok(self.read_guard())
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::try_read_owned`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.try_read_owned):
    /// [`try_read`](RwLock::try_read) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        self.s.try_acquire(1).map_err(|_| TryLockError(()))?;
        Ok(OwnedRwLockReadGuard {
            data: self.c.get(),
            lock: self,
            _p: PhantomData,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::write`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.write):
    /// waits for exclusive write access.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue; permits already
    /// assigned to it are given back.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.acquire(self.mr).await;
        self.write_guard()
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::blocking_write`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.blocking_write):
    /// [`write`](RwLock::write), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        block_on("RwLock::blocking_write", self.write())
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::write_owned`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.write_owned):
    /// [`write`](RwLock::write) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn write_owned(self: Arc<Self>) -> OwnedRwLockWriteGuard<T> {
        self.acquire(self.mr).await;
        OwnedRwLockWriteGuard {
            permits_acquired: self.mr,
            data: self.c.get(),
            lock: self,
            _p: PhantomData,
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::try_write`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.try_write):
    /// write access if available now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        self.s
            .try_acquire(self.mr as usize)
            .map_err(|_| TryLockError(()))?;
        Ok(self.write_guard())
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::try_write_owned`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.try_write_owned):
    /// [`try_write`](RwLock::try_write) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        self.s
            .try_acquire(self.mr as usize)
            .map_err(|_| TryLockError(()))?;
        Ok(OwnedRwLockWriteGuard {
            permits_acquired: self.mr,
            data: self.c.get(),
            lock: self,
            _p: PhantomData,
        })
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::get_mut`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.get_mut):
    /// the value through the exclusive borrow.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn get_mut(&mut self) -> &mut T {
        self.c.get_mut()
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLock::into_inner`](https://docs.rs/tokio/1/tokio/sync/struct.RwLock.html#method.into_inner):
    /// the value, consuming the lock.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn into_inner(self) -> T
    where
        T: Sized,
    {
        self.c.into_inner()
    }
}

lock_impls!(RwLock, try_read);

// ----- RwLockReadGuard -----

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    /// The guard of `data`, taking over this disarmed guard's permit.
    fn mapped<U: ?Sized>(this: ManuallyDrop<Self>, data: *const U) -> RwLockReadGuard<'a, U> {
        RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    guard_maps! { RwLockReadGuard:
        map, try_map [F, U: ?Sized] (&T => &U) -> RwLockReadGuard<'a, U>,
            by guard::try_map_ref, mapped, "narrows the guard to a part of the value.";
    }
}

guard_impls!(['a, T: ?Sized] RwLockReadGuard<'a, T> => T, |g| {
    // SAFETY: `data` points into the lock's value, on which this guard
    // holds a read permit (no writer can exist).
    unsafe deref g.data;
    drop g.s.release(1);
});

// ----- RwLockWriteGuard -----

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// The mapped guard of `data`, taking over this disarmed guard's
    /// permits.
    fn mapped<U: ?Sized>(this: ManuallyDrop<Self>, data: *mut U) -> RwLockMappedWriteGuard<'a, U> {
        RwLockMappedWriteGuard::new(this.permits_acquired, this.s, data)
    }

    /// The read guard of `data`, taking over one of this disarmed guard's
    /// permits and giving the others back.
    fn downgraded<U: ?Sized>(this: ManuallyDrop<Self>, data: *const U) -> RwLockReadGuard<'a, U> {
        let guard = RwLockReadGuard {
            s: this.s,
            data,
            marker: PhantomData,
        };
        this.s.release((this.permits_acquired - 1) as usize);
        guard
    }

    guard_maps! { RwLockWriteGuard:
        map, try_map [F, U: ?Sized] (&mut T => &mut U) -> RwLockMappedWriteGuard<'a, U>,
            by guard::try_map_mut, mapped, "narrows the guard to a part of the value.";
        downgrade_map, try_downgrade_map [F, U: ?Sized] (&T => &U) -> RwLockReadGuard<'a, U>,
            by guard::try_map_ref, downgraded,
            "turns the write access into read access to a part of the value, letting other readers in.";
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLockWriteGuard::into_mapped`](https://docs.rs/tokio/1/tokio/sync/struct.RwLockWriteGuard.html#method.into_mapped):
    /// the same access as a mapped guard.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[inline]
    pub fn into_mapped(this: Self) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |me| me)
    }

    /// Simulated/own version of
    /// [`tokio::sync::RwLockWriteGuard::downgrade`](https://docs.rs/tokio/1/tokio/sync/struct.RwLockWriteGuard.html#method.downgrade):
    /// turns the write access into read access, letting other readers in
    /// (writers stay excluded).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn downgrade(self) -> RwLockReadGuard<'a, T> {
        let data = self.data;
        Self::downgraded(ManuallyDrop::new(self), data)
    }
}

guard_impls!(['a, T: ?Sized] RwLockWriteGuard<'a, T> => T, |g| {
    // SAFETY: this guard holds every permit: no other guard exists.
    unsafe deref_mut g.data;
    drop g.s.release(g.permits_acquired as usize);
});

// ----- RwLockMappedWriteGuard -----

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    /// The guard of `data` holding `permits_acquired` permits of `s`.
    fn new(permits_acquired: u32, s: &'a Sem, data: *mut T) -> Self {
        RwLockMappedWriteGuard {
            permits_acquired,
            s,
            data,
            marker: PhantomData,
        }
    }

    /// The guard of `data`, taking over this disarmed guard's permits.
    fn mapped<U: ?Sized>(this: ManuallyDrop<Self>, data: *mut U) -> RwLockMappedWriteGuard<'a, U> {
        RwLockMappedWriteGuard::new(this.permits_acquired, this.s, data)
    }

    guard_maps! { RwLockMappedWriteGuard:
        map, try_map [F, U: ?Sized] (&mut T => &mut U) -> RwLockMappedWriteGuard<'a, U>,
            by guard::try_map_mut, mapped, "narrows the guard further.";
    }
}

guard_impls!(['a, T: ?Sized] RwLockMappedWriteGuard<'a, T> => T, |g| {
    // SAFETY: this guard holds every permit: no other guard exists.
    unsafe deref_mut g.data;
    drop g.s.release(g.permits_acquired as usize);
});

// ----- owned guards -----

impl<T: ?Sized, U: ?Sized> OwnedRwLockReadGuard<T, U> {
    /// The guard of `data`, taking over this disarmed guard's permit and
    /// `Arc`.
    fn mapped<V: ?Sized>(this: ManuallyDrop<Self>, data: *const V) -> OwnedRwLockReadGuard<T, V> {
        OwnedRwLockReadGuard {
            lock: take_lock!(this),
            data,
            _p: PhantomData,
        }
    }

    guard_maps! { OwnedRwLockReadGuard:
        map, try_map [F, V: ?Sized] (&U => &V) -> OwnedRwLockReadGuard<T, V>,
            by guard::try_map_ref, mapped, "narrows the guard to a part of the value.";
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedRwLockReadGuard::rwlock`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockReadGuard.html#method.rwlock):
    /// the lock this guard reads.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

guard_impls!([T: ?Sized, U: ?Sized] OwnedRwLockReadGuard<T, U> => U, |g| {
    // SAFETY: `data` points into the value kept alive by `lock`, on
    // which this guard holds a read permit.
    unsafe deref g.data;
    drop g.lock.s.release(1);
});

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// The mapped guard of `data`, taking over this disarmed guard's
    /// permits and `Arc`.
    fn mapped<U: ?Sized>(
        this: ManuallyDrop<Self>,
        data: *mut U,
    ) -> OwnedRwLockMappedWriteGuard<T, U> {
        OwnedRwLockMappedWriteGuard::new(this.permits_acquired, take_lock!(this), data)
    }

    /// The read guard of `data`, taking over this disarmed guard's `Arc` and
    /// one of its permits, and giving the others back.
    fn downgraded<U: ?Sized>(
        this: ManuallyDrop<Self>,
        data: *const U,
    ) -> OwnedRwLockReadGuard<T, U> {
        let permits_acquired = this.permits_acquired;
        let guard = OwnedRwLockReadGuard {
            lock: take_lock!(this),
            data,
            _p: PhantomData,
        };
        guard.lock.s.release((permits_acquired - 1) as usize);
        guard
    }

    guard_maps! { OwnedRwLockWriteGuard:
        map, try_map [F, U: ?Sized] (&mut T => &mut U) -> OwnedRwLockMappedWriteGuard<T, U>,
            by guard::try_map_mut, mapped, "narrows the guard to a part of the value.";
        downgrade_map, try_downgrade_map [F, U: ?Sized] (&T => &U) -> OwnedRwLockReadGuard<T, U>,
            by guard::try_map_ref, downgraded,
            "turns the write access into read access to a part of the value.";
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedRwLockWriteGuard::into_mapped`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockWriteGuard.html#method.into_mapped):
    /// the same access as a mapped guard.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[inline]
    pub fn into_mapped(this: Self) -> OwnedRwLockMappedWriteGuard<T> {
        Self::map(this, |me| me)
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedRwLockWriteGuard::downgrade`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockWriteGuard.html#method.downgrade):
    /// turns the write access into read access.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn downgrade(self) -> OwnedRwLockReadGuard<T> {
        let data = self.data as *const T;
        Self::downgraded(ManuallyDrop::new(self), data)
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedRwLockWriteGuard::rwlock`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockWriteGuard.html#method.rwlock):
    /// the lock this guard writes.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

guard_impls!([T: ?Sized] OwnedRwLockWriteGuard<T> => T, |g| {
    // SAFETY: this guard holds every permit of the lock kept alive by
    // `lock`.
    unsafe deref_mut g.data;
    drop g.lock.s.release(g.permits_acquired as usize);
});

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    /// The guard of `data` holding `permits_acquired` permits of `lock`.
    fn new(permits_acquired: u32, lock: Arc<RwLock<T>>, data: *mut U) -> Self {
        OwnedRwLockMappedWriteGuard {
            permits_acquired,
            lock,
            data,
            _p: PhantomData,
        }
    }

    /// The guard of `data`, taking over this disarmed guard's permits and
    /// `Arc`.
    fn mapped<V: ?Sized>(
        this: ManuallyDrop<Self>,
        data: *mut V,
    ) -> OwnedRwLockMappedWriteGuard<T, V> {
        OwnedRwLockMappedWriteGuard::new(this.permits_acquired, take_lock!(this), data)
    }

    guard_maps! { OwnedRwLockMappedWriteGuard:
        map, try_map [F, V: ?Sized] (&mut U => &mut V) -> OwnedRwLockMappedWriteGuard<T, V>,
            by guard::try_map_mut, mapped, "narrows the guard further.";
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedRwLockMappedWriteGuard::rwlock`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedRwLockMappedWriteGuard.html#method.rwlock):
    /// the lock this guard writes.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn rwlock(this: &Self) -> &Arc<RwLock<T>> {
        &this.lock
    }
}

guard_impls!([T: ?Sized, U: ?Sized] OwnedRwLockMappedWriteGuard<T, U> => U, |g| {
    // SAFETY: this guard holds every permit of the lock kept alive by
    // `lock`.
    unsafe deref_mut g.data;
    drop g.lock.s.release(g.permits_acquired as usize);
});
