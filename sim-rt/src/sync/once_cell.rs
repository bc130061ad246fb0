//! Simulated [`OnceCell`]: a cell set at most once, with async
//! initialisation.
//!
//! The value lives in a `std::sync::OnceLock` (or, for
//! [`const_new_with`](OnceCell::const_new_with), in `preset`, since a
//! `OnceLock` cannot be filled in a `const fn`); a one-permit semaphore
//! makes concurrent initialisers run one at a time, in FIFO order, as in
//! tokio.
//!
//! # Invariants
//!
//! - At most one of `preset` and `value` holds a value.
//! - The semaphore is closed once the value is set: waiting initialisers
//!   then return the value.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::sync::OnceLock;

use super::batch_semaphore::{Sem, TryAcquireError};

/// Simulated/own version of
/// [`tokio::sync::OnceCell`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html):
/// a thread-safe cell that can be written to only once.
///
/// # Differences from tokio
///
/// None.
pub struct OnceCell<T> {
    preset: Option<T>,
    value: OnceLock<T>,
    semaphore: Sem,
}

cell_impls!(OnceCell);

impl<T> OnceCell<T> {
    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::new`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.new):
    /// an empty cell.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new() -> Self {
        OnceCell::const_new()
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::const_new`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.const_new):
    /// [`new`](OnceCell::new) usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new() -> Self {
        OnceCell {
            preset: None,
            value: OnceLock::new(),
            semaphore: Sem::const_new(1),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::new_with`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.new_with):
    /// a cell holding `value`, if `Some`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new_with(value: Option<T>) -> Self {
        match value {
            Some(v) => OnceCell::from(v),
            None => OnceCell::new(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::const_new_with`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.const_new_with):
    /// a set cell, usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new_with(value: T) -> Self {
        OnceCell {
            preset: Some(value),
            value: OnceLock::new(),
            semaphore: Sem::const_new_closed(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::initialized`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.initialized):
    /// whether the value is set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn initialized(&self) -> bool {
        self.get().is_some()
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::get`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.get):
    /// the value, if set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn get(&self) -> Option<&T> {
        self.preset.as_ref().or_else(|| self.value.get())
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::get_mut`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.get_mut):
    /// the value through the exclusive borrow, if set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        match self.preset.as_mut() {
            Some(v) => Some(v),
            None => self.value.get_mut(),
        }
    }

    /// Stores the value of the initialiser holding the permit.
    fn set_value(&self, value: T) -> &T {
        let stored = self.value.set(value);
        debug_assert!(stored.is_ok(), "only the permit holder sets the value");
        self.semaphore.close();
        self.get().expect("the value was just set")
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::set`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.set):
    /// sets the value unless it is set or being initialised.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        if self.initialized() {
            return Err(SetError::AlreadyInitializedError(value));
        }
        match self.semaphore.try_acquire(1) {
            Ok(()) => {
                self.set_value(value);
                Ok(())
            }
            Err(TryAcquireError::NoPermits) => Err(SetError::InitializingError(value)),
            Err(TryAcquireError::Closed) => Err(SetError::AlreadyInitializedError(value)),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::get_or_init`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.get_or_init):
    /// the value, initialising it with `f` if unset; concurrent callers run
    /// one at a time, in FIFO order.
    ///
    /// # Cancel safety
    ///
    /// Cancelling a running `f` lets the next waiting caller initialise.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn get_or_init<F, Fut>(&self, f: F) -> &T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        if let Some(v) = self.get() {
            return v;
        }
        match self.semaphore.acquire(1).await {
            Ok(()) => {
                let permit = PermitGuard(&self.semaphore);
                let value = f().await;
                std::mem::forget(permit);
                self.set_value(value)
            }
            Err(_) => self
                .get()
                .expect("a closed OnceCell semaphore means a set value"),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::get_or_try_init`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.get_or_try_init):
    /// [`get_or_init`](OnceCell::get_or_init) with a fallible `f`; an error
    /// leaves the cell unset for the next caller.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn get_or_try_init<E, F, Fut>(&self, f: F) -> Result<&T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if let Some(v) = self.get() {
            return Ok(v);
        }
        match self.semaphore.acquire(1).await {
            Ok(()) => {
                let permit = PermitGuard(&self.semaphore);
                let value = f().await?;
                std::mem::forget(permit);
                Ok(self.set_value(value))
            }
            Err(_) => Ok(self
                .get()
                .expect("a closed OnceCell semaphore means a set value")),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::into_inner`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.into_inner):
    /// the value, if set, consuming the cell.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn into_inner(self) -> Option<T> {
        self.preset.or_else(|| self.value.into_inner())
    }

    /// Simulated/own version of
    /// [`tokio::sync::OnceCell::take`](https://docs.rs/tokio/1/tokio/sync/struct.OnceCell.html#method.take):
    /// takes the value out, leaving an empty cell.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn take(&mut self) -> Option<T> {
        std::mem::take(self).into_inner()
    }
}

/// Gives the initialisation permit back if `f` fails or is cancelled.
struct PermitGuard<'a>(&'a Sem);

impl Drop for PermitGuard<'_> {
    fn drop(&mut self) {
        self.0.release(1);
    }
}

/// Simulated/own version of
/// [`tokio::sync::SetError`](https://docs.rs/tokio/1/tokio/sync/enum.SetError.html):
/// why [`OnceCell::set`] failed; the value comes back.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug, PartialEq, Eq)]
pub enum SetError<T> {
    /// The cell was already initialised.
    AlreadyInitializedError(T),
    /// The cell is being initialised.
    InitializingError(T),
}

impl<T> fmt::Display for SetError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::AlreadyInitializedError(_) => write!(f, "AlreadyInitializedError"),
            SetError::InitializingError(_) => write!(f, "InitializingError"),
        }
    }
}

impl<T: fmt::Debug> Error for SetError<T> {}

impl<T> SetError<T> {
    /// Simulated/own version of
    /// [`tokio::sync::SetError::is_already_init_err`](https://docs.rs/tokio/1/tokio/sync/enum.SetError.html#method.is_already_init_err):
    /// whether the cell was already initialised.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_already_init_err(&self) -> bool {
        matches!(self, SetError::AlreadyInitializedError(_))
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetError::is_initializing_err`](https://docs.rs/tokio/1/tokio/sync/enum.SetError.html#method.is_initializing_err):
    /// whether the cell was being initialised.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_initializing_err(&self) -> bool {
        matches!(self, SetError::InitializingError(_))
    }
}
