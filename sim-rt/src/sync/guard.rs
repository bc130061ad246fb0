//! What [`Mutex`](super::Mutex), [`RwLock`](super::RwLock) and their
//! guards share: the locks' `From`/`Default`/`Debug` (`lock_impls!`); the
//! `Deref`/`DerefMut`/`Debug`/`Display`/`Drop` impls of a guard that
//! reaches its value through a pointer (`guard_impls!`); every guard's
//! `map`/`try_map` pairs (`guard_maps!`) and their first half
//! ([`try_map_mut`], [`try_map_ref`]); and the move of an owned guard's
//! `Arc` out of it (`take_lock!`).
//!
//! # Invariants
//!
//! - A guard handed to a `try_map` helper comes back disarmed (in a
//!   [`ManuallyDrop`]) together with the pointer `f` answered: its permits
//!   pass, unreleased, to the guard the caller builds from the two. When `f`
//!   answers `None` the guard comes back armed, untouched.
//!
//! The macros write `unsafe` code into `mutex.rs` and `rwlock.rs`, the two
//! modules that allow it; each invocation says, in its own `// SAFETY:`
//! comment, why its pointer may be dereferenced.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

/// Writes, for a guard that reaches its value through a pointer, `Deref`
/// (and `DerefMut` with `unsafe deref_mut`), `Debug` and `Display`
/// forwarding to the value, and a `Drop` that gives its permits back:
///
/// ```text
/// guard_impls! {
///     [generics] Guard<..> => Target, |g| {
///         // SAFETY: why `pointer` may be dereferenced while `g` lives.
///         unsafe deref_mut pointer(g);
///         drop release(g);
///     }
/// }
/// ```
macro_rules! guard_impls {
    ([$($gen:tt)*] $guard:ty => $target:ty, |$g:ident| {
        unsafe deref $ptr:expr;
        drop $release:expr;
    }) => {
        impl<$($gen)*> Deref for $guard {
            type Target = $target;
            fn deref(&self) -> &$target {
                let $g = self;
                // SAFETY: the invocation's `unsafe deref` vouches, in its
                // SAFETY comment, that the pointer is valid for reads while
                // the guard lives.
                unsafe { &*$ptr }
            }
        }

        impl<$($gen)*> fmt::Debug for $guard
        where
            $target: fmt::Debug,
        {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&**self, f)
            }
        }

        impl<$($gen)*> fmt::Display for $guard
        where
            $target: fmt::Display,
        {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&**self, f)
            }
        }

        impl<$($gen)*> Drop for $guard {
            fn drop(&mut self) {
                let $g = self;
                $release;
            }
        }
    };
    ([$($gen:tt)*] $guard:ty => $target:ty, |$g:ident| {
        unsafe deref_mut $ptr:expr;
        drop $release:expr;
    }) => {
        guard_impls!([$($gen)*] $guard => $target, |$g| {
            unsafe deref $ptr;
            drop $release;
        });

        impl<$($gen)*> DerefMut for $guard {
            fn deref_mut(&mut self) -> &mut $target {
                let $g = self;
                // SAFETY: the invocation's `unsafe deref_mut` vouches, in
                // its SAFETY comment, that the pointer is valid for reads
                // and writes, and this guard the only one, while it lives.
                unsafe { &mut *$ptr }
            }
        }
    };
}

/// Writes a lock's `From<T>`, `Default` and `Debug` impls, as tokio's:
/// `Debug` shows the value, or `<locked>` when `$try_lock` would wait.
macro_rules! lock_impls {
    ($lock:ident, $try_lock:ident) => {
        impl<T> From<T> for $lock<T> {
            fn from(s: T) -> Self {
                Self::new(s)
            }
        }

        impl<T> Default for $lock<T>
        where
            T: Default,
        {
            fn default() -> Self {
                Self::new(T::default())
            }
        }

        impl<T: ?Sized> fmt::Debug for $lock<T>
        where
            T: fmt::Debug,
        {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut d = f.debug_struct(stringify!($lock));
                match self.$try_lock() {
                    Ok(inner) => d.field("data", &&*inner),
                    Err(_) => d.field("data", &format_args!("<locked>")),
                };
                d.finish()
            }
        }
    };
}

/// Moves the `lock` field (the `Arc`) out of an owned guard that a `map`
/// helper disarmed, without releasing the lock.
macro_rules! take_lock {
    ($this:expr) => {{
        let this: ManuallyDrop<_> = $this;
        // SAFETY: `this` is disarmed and goes out of scope here, never used
        // again, so the Arc is moved out, not duplicated.
        unsafe { std::ptr::read(&this.lock) }
    }};
}

/// Writes a guard's `map` and `try_map` (or `downgrade_map` and
/// `try_downgrade_map`, or any such pair), with tokio's names and docs:
///
/// ```text
/// guard_maps! { Guard:
///     map, try_map [generics] (&mut T => &mut U) -> Mapped<U>,
///         by guard::try_map_mut, build, "what `map` does.";
/// }
/// ```
///
/// `try_map` projects through `f` with the `by` helper and gives the
/// disarmed guard and the pointer to the guard's own `build`; `map` is
/// `try_map` with an `f` that always answers.
macro_rules! guard_maps {
    ($guard:ident: $(
        $map:ident, $try_map:ident [$($gen:tt)*] ($arg:ty => $ret:ty) -> $out:ty,
            by $project:path, $build:ident, $what:literal;
    )+) => {$(
        #[doc = concat!(
            "Simulated/own version of\n[`tokio::sync::", stringify!($guard), "::",
            stringify!($map), "`](https://docs.rs/tokio/1/tokio/sync/struct.",
            stringify!($guard), ".html#method.", stringify!($map), "):\n", $what,
            "\n\n# Differences from tokio\n\nNone."
        )]
        #[inline]
        pub fn $map<$($gen)*>(this: Self, f: F) -> $out
        where
            F: FnOnce($arg) -> $ret,
        {
            match Self::$try_map(this, |v| Some(f(v))) {
                Ok(mapped) => mapped,
                Err(_) => unreachable!("`f` always answers"),
            }
        }

        #[doc = concat!(
            "Simulated/own version of\n[`tokio::sync::", stringify!($guard), "::",
            stringify!($try_map), "`](https://docs.rs/tokio/1/tokio/sync/struct.",
            stringify!($guard), ".html#method.", stringify!($try_map), "):\n[`",
            stringify!($map), "`](", stringify!($guard), "::", stringify!($map),
            ") when `f` returns `Some`, the original guard otherwise.",
            "\n\n# Differences from tokio\n\nNone."
        )]
        #[inline]
        pub fn $try_map<$($gen)*>(this: Self, f: F) -> Result<$out, Self>
        where
            F: FnOnce($arg) -> Option<$ret>,
        {
            let (this, data) = $project(this, f)?;
            Ok(Self::$build(this, data))
        }
    )+};
}

/// `f`'s part of the guarded value and the guard, disarmed, when `f`
/// returns `Some`, the guard back otherwise: the first half of a `try_map`
/// on a write guard.
pub(super) fn try_map_mut<G: DerefMut, U: ?Sized>(
    mut this: G,
    f: impl FnOnce(&mut G::Target) -> Option<&mut U>,
) -> Result<(ManuallyDrop<G>, *mut U), G> {
    let data = match f(&mut *this) {
        Some(data) => data as *mut U,
        None => return Err(this),
    };
    Ok((ManuallyDrop::new(this), data))
}

/// [`try_map_mut`] through a shared borrow: the first half of a `try_map`
/// to a read guard.
pub(super) fn try_map_ref<G: Deref, U: ?Sized>(
    this: G,
    f: impl FnOnce(&G::Target) -> Option<&U>,
) -> Result<(ManuallyDrop<G>, *const U), G> {
    let Some(data) = f(&*this) else {
        return Err(this);
    };
    let data = data as *const U;
    Ok((ManuallyDrop::new(this), data))
}
