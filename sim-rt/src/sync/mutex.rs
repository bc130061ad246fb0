//! Simulated [`Mutex`]: an async mutex whose guard may be held across
//! `.await`, and its guards.
//!
//! Built, as tokio's, on the fair batch semaphore with one permit: `lock`
//! calls are served in the order of their first poll.
//!
//! # Invariants
//!
//! - The value in `c` is only reached through a guard, and a guard exists
//!   only while its holder owns the semaphore's single permit; the guard
//!   gives it back on drop (mapped guards carry the permit along).
//!
//! This is one of the two modules of sim-rt's `sync` with `unsafe` code
//! (the other is `rwlock.rs`; the guard impls that `guard.rs`'s macros
//! write land in both): handing out `&mut T` from `&Mutex<T>` across
//! `.await` points, with `Send` guards, needs an `UnsafeCell`.

#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::error::Error;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::batch_semaphore::Sem;
use super::guard;
use super::util::block_on;

/// Simulated/own version of
/// [`tokio::sync::Mutex`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html):
/// an asynchronous mutual-exclusion lock, fair (FIFO) among the tasks that
/// wait for it.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use sim_rt::sync::Mutex;
///
/// let data = Arc::new(Mutex::new(0));
/// let d = data.clone();
/// sim_rt::spawn(async move { *d.lock().await += 1 }).await.unwrap();
/// assert_eq!(*data.lock().await, 1);
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
pub struct Mutex<T: ?Sized> {
    s: Sem,
    c: UnsafeCell<T>,
}

/// Simulated/own version of
/// [`tokio::sync::MutexGuard`](https://docs.rs/tokio/1/tokio/sync/struct.MutexGuard.html):
/// the lock held by [`Mutex::lock`], released on drop.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized> {
    lock: &'a Mutex<T>,
}

/// Simulated/own version of
/// [`tokio::sync::OwnedMutexGuard`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedMutexGuard.html):
/// the lock held by [`Mutex::lock_owned`], keeping the `Arc` alive.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
pub struct OwnedMutexGuard<T: ?Sized> {
    lock: Arc<Mutex<T>>,
}

/// Simulated/own version of
/// [`tokio::sync::MappedMutexGuard`](https://docs.rs/tokio/1/tokio/sync/struct.MappedMutexGuard.html):
/// a [`MutexGuard`] narrowed to a part of the value by
/// [`MutexGuard::map`].
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    s: &'a Sem,
    data: *mut T,
    marker: PhantomData<&'a mut T>,
}

/// Simulated/own version of
/// [`tokio::sync::OwnedMappedMutexGuard`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedMappedMutexGuard.html):
/// an [`OwnedMutexGuard`] narrowed to a part of the value.
///
/// # Differences from tokio
///
/// None.
#[clippy::has_significant_drop]
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct OwnedMappedMutexGuard<T: ?Sized, U: ?Sized = T> {
    data: *mut U,
    lock: Arc<Mutex<T>>,
}

// SAFETY: the value is only reached through a guard, and at most one guard
// exists at a time (the semaphore has one permit), so sharing the mutex
// between threads only ever moves the value (needs `T: Send`), as a
// `std::sync::Mutex`.
unsafe impl<T> Send for Mutex<T> where T: ?Sized + Send {}
// SAFETY: as above.
unsafe impl<T> Sync for Mutex<T> where T: ?Sized + Send {}
// SAFETY: a shared guard only gives `&T`.
unsafe impl<T> Sync for MutexGuard<'_, T> where T: ?Sized + Send + Sync {}
// SAFETY: as above.
unsafe impl<T> Sync for OwnedMutexGuard<T> where T: ?Sized + Send + Sync {}
// SAFETY: the mapped guard is a `&'a mut T` plus the permit.
unsafe impl<'a, T> Sync for MappedMutexGuard<'a, T> where T: ?Sized + Sync + 'a {}
// SAFETY: as above.
unsafe impl<'a, T> Send for MappedMutexGuard<'a, T> where T: ?Sized + Send + 'a {}
// SAFETY: the owned mapped guard is an `Arc<Mutex<T>>` plus a `&mut U` into it.
unsafe impl<T, U> Sync for OwnedMappedMutexGuard<T, U>
where
    T: ?Sized + Send + Sync,
    U: ?Sized + Send + Sync,
{
}
// SAFETY: as above.
unsafe impl<T, U> Send for OwnedMappedMutexGuard<T, U>
where
    T: ?Sized + Send,
    U: ?Sized + Send,
{
}

/// Simulated/own version of
/// [`tokio::sync::TryLockError`](https://docs.rs/tokio/1/tokio/sync/struct.TryLockError.html):
/// [`Mutex::try_lock`], [`RwLock::try_read`](super::RwLock::try_read) or
/// [`RwLock::try_write`](super::RwLock::try_write) would have to wait.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct TryLockError(pub(super) ());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operation would block")
    }
}

impl Error for TryLockError {}

impl<T: ?Sized> Mutex<T> {
    /// Simulated/own version of
    /// [`tokio::sync::Mutex::new`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.new):
    /// an unlocked mutex holding `t`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn new(t: T) -> Self
    where
        T: Sized,
    {
        Mutex::const_new(t)
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::const_new`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.const_new):
    /// [`new`](Mutex::new) usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new(t: T) -> Self
    where
        T: Sized,
    {
        Mutex {
            s: Sem::const_new(1),
            c: UnsafeCell::new(t),
        }
    }

    async fn acquire(&self) {
        self.s
            .acquire(1)
            .await
            .unwrap_or_else(|_| unreachable!("a Mutex's semaphore is never closed"));
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::lock`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.lock):
    /// waits for the lock, in FIFO order with the other waiters.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future loses its place in the queue; a lock already
    /// handed to it goes to the next waiter.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn lock(&self) -> MutexGuard<'_, T> {
        self.acquire().await;
        MutexGuard { lock: self }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::blocking_lock`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.blocking_lock):
    /// [`lock`](Mutex::lock), blocking the thread.
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
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        block_on("Mutex::blocking_lock", self.lock())
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::blocking_lock_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.blocking_lock_owned):
    /// [`lock_owned`](Mutex::lock_owned), blocking the thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        block_on("Mutex::blocking_lock_owned", self.lock_owned())
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::lock_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.lock_owned):
    /// [`lock`](Mutex::lock) through an `Arc`, for a `'static` guard.
    ///
    /// # Cancel safety
    ///
    /// As [`lock`](Mutex::lock).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        self.acquire().await;
        OwnedMutexGuard { lock: self }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::try_lock`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.try_lock):
    /// the lock if it is free now.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => Ok(MutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::get_mut`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.get_mut):
    /// the value, through the exclusive borrow (no locking needed).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn get_mut(&mut self) -> &mut T {
        self.c.get_mut()
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::try_lock_owned`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.try_lock_owned):
    /// [`try_lock`](Mutex::try_lock) through an `Arc`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        match self.s.try_acquire(1) {
            Ok(()) => Ok(OwnedMutexGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::Mutex::into_inner`](https://docs.rs/tokio/1/tokio/sync/struct.Mutex.html#method.into_inner):
    /// the value, consuming the mutex.
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

lock_impls!(Mutex, try_lock);

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// The mapped guard of `data`, taking over this disarmed guard's permit.
    fn mapped<U: ?Sized>(this: ManuallyDrop<Self>, data: *mut U) -> MappedMutexGuard<'a, U> {
        MappedMutexGuard {
            s: &this.lock.s,
            data,
            marker: PhantomData,
        }
    }

    guard_maps! { MutexGuard:
        map, try_map [U: ?Sized, F] (&mut T => &mut U) -> MappedMutexGuard<'a, U>,
            by guard::try_map_mut, mapped, "narrows the guard to a part of the value, keeping the lock.";
    }

    /// Simulated/own version of
    /// [`tokio::sync::MutexGuard::mutex`](https://docs.rs/tokio/1/tokio/sync/struct.MutexGuard.html#method.mutex):
    /// the mutex this guard locks.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn mutex(this: &Self) -> &'a Mutex<T> {
        this.lock
    }
}

guard_impls!(['a, T: ?Sized] MutexGuard<'a, T> => T, |g| {
    // SAFETY: this guard holds the only permit (module invariant).
    unsafe deref_mut g.lock.c.get();
    drop g.lock.s.release(1);
});

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// The mapped guard of `data`, taking over this disarmed guard's permit
    /// and `Arc`.
    fn mapped<U: ?Sized>(this: ManuallyDrop<Self>, data: *mut U) -> OwnedMappedMutexGuard<T, U> {
        let lock = take_lock!(this);
        OwnedMappedMutexGuard { data, lock }
    }

    guard_maps! { OwnedMutexGuard:
        map, try_map [U: ?Sized, F] (&mut T => &mut U) -> OwnedMappedMutexGuard<T, U>,
            by guard::try_map_mut, mapped, "narrows the guard to a part of the value, keeping the lock.";
    }

    /// Simulated/own version of
    /// [`tokio::sync::OwnedMutexGuard::mutex`](https://docs.rs/tokio/1/tokio/sync/struct.OwnedMutexGuard.html#method.mutex):
    /// the mutex this guard locks.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.lock
    }
}

guard_impls!([T: ?Sized] OwnedMutexGuard<T> => T, |g| {
    // SAFETY: this guard holds the only permit (module invariant).
    unsafe deref_mut g.lock.c.get();
    drop g.lock.s.release(1);
});

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    /// The guard of `data`, taking over this disarmed guard's permit.
    fn mapped<U: ?Sized>(this: ManuallyDrop<Self>, data: *mut U) -> MappedMutexGuard<'a, U> {
        MappedMutexGuard {
            s: this.s,
            data,
            marker: PhantomData,
        }
    }

    guard_maps! { MappedMutexGuard:
        map, try_map [U, F] (&mut T => &mut U) -> MappedMutexGuard<'a, U>,
            by guard::try_map_mut, mapped, "narrows the guard further.";
    }
}

guard_impls!(['a, T: ?Sized] MappedMutexGuard<'a, T> => T, |g| {
    // SAFETY: `data` points into the locked value; this guard holds the
    // permit.
    unsafe deref_mut g.data;
    drop g.s.release(1);
});

impl<T: ?Sized, U: ?Sized> OwnedMappedMutexGuard<T, U> {
    /// The guard of `data`, taking over this disarmed guard's permit and
    /// `Arc`.
    fn mapped<S: ?Sized>(this: ManuallyDrop<Self>, data: *mut S) -> OwnedMappedMutexGuard<T, S> {
        let lock = take_lock!(this);
        OwnedMappedMutexGuard { data, lock }
    }

    guard_maps! { OwnedMappedMutexGuard:
        map, try_map [S, F] (&mut U => &mut S) -> OwnedMappedMutexGuard<T, S>,
            by guard::try_map_mut, mapped, "narrows the guard further.";
    }
}

guard_impls!([T: ?Sized, U: ?Sized] OwnedMappedMutexGuard<T, U> => U, |g| {
    // SAFETY: `data` points into the locked value, kept alive by `lock`;
    // this guard holds the permit.
    unsafe deref_mut g.data;
    drop g.lock.s.release(1);
});
