//! Simulated [`SetOnce`]: a cell set at most once that tasks can wait on.
//!
//! # Invariants
//!
//! - At most one of `preset` and `value` holds a value (see `once_cell.rs`
//!   for why there are two).
//!
//! # Determinism
//!
//! [`set`](SetOnce::set) wakes the waiting tasks oldest first.

use std::error::Error;
use std::fmt;
use std::sync::OnceLock;

use super::notify::Notify;

/// Simulated/own version of
/// [`tokio::sync::SetOnce`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html):
/// a cell set at most once, whose value tasks can [`wait`](SetOnce::wait)
/// for.
///
/// # Differences from tokio
///
/// None.
pub struct SetOnce<T> {
    preset: Option<T>,
    value: OnceLock<T>,
    notify: Notify,
}

cell_impls!(SetOnce);

impl<T> SetOnce<T> {
    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::new`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.new):
    /// an empty cell.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new() -> Self {
        SetOnce::const_new()
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::const_new`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.const_new):
    /// [`new`](SetOnce::new) usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new() -> Self {
        SetOnce {
            preset: None,
            value: OnceLock::new(),
            notify: Notify::const_new(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::new_with`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.new_with):
    /// a cell holding `value`, if `Some`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new_with(value: Option<T>) -> Self {
        match value {
            Some(v) => SetOnce::from(v),
            None => SetOnce::new(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::const_new_with`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.const_new_with):
    /// a set cell, usable in a `static`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub const fn const_new_with(value: T) -> Self {
        SetOnce {
            preset: Some(value),
            value: OnceLock::new(),
            notify: Notify::const_new(),
        }
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::initialized`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.initialized):
    /// whether the value is set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn initialized(&self) -> bool {
        self.get().is_some()
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::get`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.get):
    /// the value, if set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn get(&self) -> Option<&T> {
        self.preset.as_ref().or_else(|| self.value.get())
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::set`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.set):
    /// sets the value and wakes every waiter, unless it is already set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        if self.preset.is_some() {
            return Err(SetOnceError(value));
        }
        self.value.set(value).map_err(SetOnceError)?;
        self.notify.notify_waiters();
        Ok(())
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::into_inner`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.into_inner):
    /// the value, if set, consuming the cell.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn into_inner(self) -> Option<T> {
        self.preset.or_else(|| self.value.into_inner())
    }

    /// Simulated/own version of
    /// [`tokio::sync::SetOnce::wait`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnce.html#method.wait):
    /// waits until the value is set.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn wait(&self) -> &T {
        loop {
            let notified = self.notify.notified();
            if let Some(v) = self.get() {
                return v;
            }
            notified.await;
        }
    }
}

/// Simulated/own version of
/// [`tokio::sync::SetOnceError`](https://docs.rs/tokio/1/tokio/sync/struct.SetOnceError.html):
/// the cell was already set; the value comes back.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug, PartialEq, Eq)]
pub struct SetOnceError<T>(pub T);

impl<T> fmt::Display for SetOnceError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SetOnceError")
    }
}

impl<T: fmt::Debug> Error for SetOnceError<T> {}
