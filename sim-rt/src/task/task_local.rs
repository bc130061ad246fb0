//! Simulated [`tokio::task_local!`](https://docs.rs/tokio/1/tokio/macro.task_local.html): values scoped to a future.
//!
//! A task-local value lives inside the [`TaskLocalFuture`] that
//! [`LocalKey::scope`] returns. Each key is a `thread_local!` slot that is
//! empty except while that future (or a [`LocalKey::sync_scope`] closure) is
//! running: the future swaps its value into the slot before polling its
//! inner future and swaps it back out afterwards, so the value is visible
//! exactly to the code that runs inside the scope, whichever task polls it,
//! and never leaks to another task. Nested scopes of the same key stack
//! naturally: the inner swap saves the outer value in the inner future.
//!
//! Nothing here depends on the simulation: like tokio's, it works under any
//! executor.
//!
//! # Invariants
//!
//! - Outside a scope's poll (or `sync_scope` call) the slot holds what it
//!   held before the scope was entered; the swap back runs in a drop guard,
//!   so it also happens when the inner future panics.
//! - The slot's `RefCell` is mutably borrowed only for the swaps, never
//!   while user code runs; `with` borrows it shared around its closure, so a
//!   scope entered inside `with` of the same key finds it borrowed and
//!   panics (as in tokio).

use std::cell::RefCell;
use std::error::Error;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::{fmt, mem, thread};

use pin_project_lite::pin_project;

/// Simulated [`tokio::task_local!`](https://docs.rs/tokio/1/tokio/macro.task_local.html): declares task-local keys of type
/// [`LocalKey`].
///
/// Wraps any number of `static` declarations, keeping their visibility and
/// attributes.
///
/// # Examples
///
/// ```
/// sim_rt::task_local! {
///     pub static ONE: u32;
///
///     #[allow(unused)]
///     static TWO: f32;
/// }
/// # fn main() {}
/// ```
///
/// # Differences from tokio
///
/// None.
#[macro_export]
macro_rules! task_local {
    () => {};

    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty; $($rest:tt)*) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
        $crate::task_local!($($rest)*);
    };

    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty) => {
        $crate::__task_local_inner!($(#[$attr])* $vis $name, $t);
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __task_local_inner {
    ($(#[$attr:meta])* $vis:vis $name:ident, $t:ty) => {
        $(#[$attr])*
        $vis static $name: $crate::task::LocalKey<$t> = {
            ::std::thread_local! {
                static __KEY: ::std::cell::RefCell<::std::option::Option<$t>> =
                    const { ::std::cell::RefCell::new(::std::option::Option::None) };
            }

            $crate::task::LocalKey { inner: __KEY }
        };
    };
}

/// Simulated [`tokio::task::LocalKey`](https://docs.rs/tokio/1/tokio/task/struct.LocalKey.html): a key for task-local data, declared
/// with [`task_local!`](crate::task_local).
///
/// Unlike [`std::thread::LocalKey`], the value is not initialized lazily:
/// it is given to [`scope`](LocalKey::scope) and is visible while the scoped
/// future runs.
///
/// # Examples
///
/// ```
/// sim_rt::task_local! {
///     static NUMBER: u32;
/// }
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// NUMBER.scope(1, async move {
///     assert_eq!(NUMBER.get(), 1);
/// }).await;
///
/// NUMBER.scope(2, async move {
///     assert_eq!(NUMBER.get(), 2);
///
///     NUMBER.scope(3, async move {
///         assert_eq!(NUMBER.get(), 3);
///     }).await;
/// }).await;
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
pub struct LocalKey<T: 'static> {
    /// The slot the current scope's value is swapped into. Public only for
    /// the macro.
    #[doc(hidden)]
    pub inner: thread::LocalKey<RefCell<Option<T>>>,
}

/// Why a scope could not be entered.
enum ScopeError {
    /// The slot is borrowed by `with`/`try_with` of the same key.
    Borrowed,
    /// The thread-local was destroyed (thread exit).
    Destroyed,
}

impl ScopeError {
    #[track_caller]
    fn panic(self) -> ! {
        match self {
            ScopeError::Borrowed => {
                panic!("cannot enter a task-local scope while the task-local storage is borrowed")
            }
            ScopeError::Destroyed => panic!(
                "cannot enter a task-local scope during or after destruction of the underlying \
                 thread-local"
            ),
        }
    }
}

impl<T: 'static> LocalKey<T> {
    /// Sets `value` as the task-local value while `f` runs; the value is
    /// dropped with the returned future.
    ///
    /// # Panics
    ///
    /// Polling the returned future inside [`with`](Self::with) or
    /// [`try_with`](Self::try_with) of the same key panics.
    ///
    /// # Examples
    ///
    /// ```
    /// sim_rt::task_local! {
    ///     static NUMBER: u32;
    /// }
    /// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
    /// NUMBER.scope(1, async move {
    ///     println!("task local value: {}", NUMBER.get());
    /// }).await;
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn scope<F>(&'static self, value: T, f: F) -> TaskLocalFuture<T, F>
    where
        F: Future,
    {
        TaskLocalFuture {
            local: self,
            slot: Some(value),
            future: Some(f),
            _pinned: PhantomPinned,
        }
    }

    /// Sets `value` as the task-local value while the closure `f` runs; the
    /// value is dropped when it returns.
    ///
    /// # Panics
    ///
    /// When called inside [`with`](Self::with) or
    /// [`try_with`](Self::try_with) of the same key.
    ///
    /// # Examples
    ///
    /// ```
    /// sim_rt::task_local! {
    ///     static NUMBER: u32;
    /// }
    ///
    /// NUMBER.sync_scope(1, || {
    ///     assert_eq!(NUMBER.get(), 1);
    /// });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn sync_scope<F, R>(&'static self, value: T, f: F) -> R
    where
        F: FnOnce() -> R,
    {
        let mut slot = Some(value);
        match self.enter(&mut slot, f) {
            Ok(out) => out,
            Err(e) => e.panic(),
        }
    }

    /// Runs `f` with `slot`'s content swapped into the thread-local, and
    /// swaps it back out afterwards (also on unwind).
    fn enter<F, R>(&'static self, slot: &mut Option<T>, f: F) -> Result<R, ScopeError>
    where
        F: FnOnce() -> R,
    {
        struct SwapBack<'a, T: 'static> {
            key: &'static LocalKey<T>,
            slot: &'a mut Option<T>,
        }

        impl<T: 'static> Drop for SwapBack<'_, T> {
            fn drop(&mut self) {
                // Cannot fail: the slot was swappable on entry, and no user
                // code can keep a borrow of it alive past its closure.
                self.key
                    .inner
                    .with(|cell| mem::swap(self.slot, &mut *cell.borrow_mut()));
            }
        }

        self.inner
            .try_with(|cell| match cell.try_borrow_mut() {
                Ok(mut current) => {
                    mem::swap(slot, &mut *current);
                    Ok(())
                }
                Err(_) => Err(ScopeError::Borrowed),
            })
            .map_err(|_| ScopeError::Destroyed)??;
        let _swap_back = SwapBack { key: self, slot };
        Ok(f())
    }

    /// Runs `f` with a reference to the task-local value.
    ///
    /// # Panics
    ///
    /// When no value is set (outside a [`scope`](Self::scope)).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        match self.try_with(f) {
            Ok(out) => out,
            Err(_) => panic!("cannot access a task-local storage value without setting it first"),
        }
    }

    /// Runs `f` with a reference to the task-local value, or returns an
    /// `AccessError` when no value is set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        // A destroyed thread-local means we are outside any scope.
        match self.inner.try_with(|cell| cell.borrow().as_ref().map(f)) {
            Ok(Some(out)) => Ok(out),
            Ok(None) | Err(_) => Err(AccessError { _private: () }),
        }
    }
}

impl<T: Clone + 'static> LocalKey<T> {
    /// A clone of the task-local value.
    ///
    /// # Panics
    ///
    /// When no value is set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[track_caller]
    pub fn get(&'static self) -> T {
        self.with(T::clone)
    }

    /// A clone of the task-local value, or an `AccessError` when no value
    /// is set.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn try_get(&'static self) -> Result<T, AccessError> {
        self.try_with(T::clone)
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("LocalKey { .. }")
    }
}

pin_project! {
    /// Simulated [`tokio::task::futures::TaskLocalFuture`](https://docs.rs/tokio/1/tokio/task/futures/struct.TaskLocalFuture.html): a future that
    /// sets a task-local value while its inner future runs.
    ///
    /// Created by [`LocalKey::scope`]. The value is dropped with this
    /// future; the inner future, when dropped before completing, is dropped
    /// with the value still set.
    ///
    /// # Panics
    ///
    /// Polling it after it completed.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub struct TaskLocalFuture<T, F>
    where
        T: 'static,
    {
        local: &'static LocalKey<T>,
        // The value, while it is not swapped into the thread-local.
        slot: Option<T>,
        // `None` once completed (or dropped).
        #[pin]
        future: Option<F>,
        #[pin]
        _pinned: PhantomPinned,
    }

    impl<T: 'static, F> PinnedDrop for TaskLocalFuture<T, F> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if mem::needs_drop::<F>() && this.future.is_some() {
                // Drop the inner future inside the scope so its destructors
                // see the value; if the scope can't be entered, it drops
                // normally afterwards.
                let mut future = this.future;
                let _ = this.local.enter(this.slot, || future.set(None));
            }
        }
    }
}

impl<T: 'static, F> TaskLocalFuture<T, F> {
    /// Takes the task-local value out of the future: `Some` unless it was
    /// already taken. Taken before completion, the value is no longer
    /// visible to the inner future.
    ///
    /// # Examples
    ///
    /// ```
    /// sim_rt::task_local! {
    ///     static KEY: u32;
    /// }
    /// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
    /// let mut fut = Box::pin(KEY.scope(42, async {}));
    /// fut.as_mut().await;
    /// assert_eq!(fut.as_mut().take_value(), Some(42));
    /// # });
    /// ```
    pub fn take_value(self: Pin<&mut Self>) -> Option<T> {
        self.project().slot.take()
    }
}

impl<T: 'static, F: Future> Future for TaskLocalFuture<T, F> {
    type Output = F::Output;

    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let mut future = this.future;
        let res = this.local.enter(this.slot, || {
            let fut = future.as_mut().as_pin_mut()?;
            let poll = fut.poll(cx);
            if poll.is_ready() {
                future.set(None);
            }
            Some(poll)
        });
        match res {
            Ok(Some(poll)) => poll,
            Ok(None) => panic!("`TaskLocalFuture` polled after completion"),
            Err(e) => e.panic(),
        }
    }
}

impl<T: fmt::Debug + 'static, F> fmt::Debug for TaskLocalFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Value<'a, T>(&'a Option<T>);

        impl<T: fmt::Debug> fmt::Debug for Value<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0 {
                    Some(v) => v.fmt(f),
                    None => f.pad("<missing>"),
                }
            }
        }

        f.debug_struct("TaskLocalFuture")
            .field("value", &Value(&self.slot))
            .finish()
    }
}

/// Simulated `tokio`'s task-local `AccessError`: returned by
/// [`LocalKey::try_with`] when no value is set.
///
/// Like tokio's, it is not reachable by path (tokio does not export it
/// either), so code naming it would not build against tokio.
///
/// # Differences from tokio
///
/// None.
#[derive(Clone, Copy, Eq, PartialEq)]
pub struct AccessError {
    _private: (),
}

impl fmt::Debug for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessError").finish()
    }
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("task-local value not set")
    }
}

impl Error for AccessError {}
