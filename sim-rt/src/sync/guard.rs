//! What the guards of [`Mutex`](super::Mutex) and [`RwLock`](super::RwLock)
//! share: the `Deref`/`DerefMut`/`Debug`/`Display`/`Drop` impls of a guard
//! that reaches its value through a pointer (`guard_impls!`), the first
//! half of every `map`/`try_map` ([`map_mut`], [`try_map_mut`], [`map_ref`],
//! [`try_map_ref`]) and the move of an owned guard's `Arc` out of it
//! (`take_lock!`).
//!
//! # Invariants
//!
//! - A guard handed to a `map` helper comes back disarmed (in a
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

/// `f`'s part of the guarded value, and the guard disarmed: the first half
/// of a `map` on a write guard.
pub(super) fn map_mut<G: DerefMut, U: ?Sized>(
    mut this: G,
    f: impl FnOnce(&mut G::Target) -> &mut U,
) -> (ManuallyDrop<G>, *mut U) {
    let data = f(&mut *this) as *mut U;
    (ManuallyDrop::new(this), data)
}

/// [`map_mut`] when `f` returns `Some`, the guard back otherwise: the first
/// half of a `try_map` on a write guard.
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

/// [`map_mut`] through a shared borrow: the first half of a `map` to a read
/// guard.
pub(super) fn map_ref<G: Deref, U: ?Sized>(
    this: G,
    f: impl FnOnce(&G::Target) -> &U,
) -> (ManuallyDrop<G>, *const U) {
    let data = f(&*this) as *const U;
    (ManuallyDrop::new(this), data)
}

/// [`try_map_mut`] through a shared borrow: the first half of a `try_map`
/// to a read guard.
pub(super) fn try_map_ref<G: Deref, U: ?Sized>(
    this: G,
    f: impl FnOnce(&G::Target) -> Option<&U>,
) -> Result<(ManuallyDrop<G>, *const U), G> {
    let data = match f(&*this) {
        Some(data) => data as *const U,
        None => return Err(this),
    };
    Ok((ManuallyDrop::new(this), data))
}
