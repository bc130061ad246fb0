//! What the socket types share about their options: the platform
//! conditions under which tokio offers an option (one `cfg_*!` macro per
//! condition, so each list of platforms is written once), the deprecated
//! `tos`/`set_tos` aliases, and the options a simulated socket stores
//! until it has a placeholder fd (see `net/fd.rs`), then reads and writes
//! on that fd.
//!
//! # Invariants
//!
//! - Once a socket's placeholder fd exists, the fd holds every option:
//!   the stored copy is no longer read nor written.

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};

use super::checked_ttl;
use super::fd::Placeholder;

/// Items present where tokio offers `IP_TOS` (`tos_v4`, `set_tos_v4`).
macro_rules! cfg_tos {
    ($($item:item)*) => {
        $(
            #[cfg(not(any(target_os = "fuchsia", target_os = "redox", target_os = "solaris",
                           target_os = "illumos", target_os = "haiku", target_os = "wasi")))]
            $item
        )*
    };
}

/// Items present where tokio offers `IPV6_TCLASS` (`tclass_v6`,
/// `set_tclass_v6`).
macro_rules! cfg_tclass {
    ($($item:item)*) => {
        $(
            #[cfg(any(target_os = "android", target_os = "dragonfly", target_os = "freebsd",
                      target_os = "fuchsia", target_os = "linux", target_os = "macos",
                      target_os = "netbsd", target_os = "openbsd", target_os = "cygwin"))]
            $item
        )*
    };
}

/// Items present where tokio offers `SO_BINDTODEVICE` (`device`,
/// `bind_device`).
macro_rules! cfg_device {
    ($($item:item)*) => {
        $(
            #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
            $item
        )*
    };
}

/// Items present where tokio offers `SO_REUSEPORT` (`reuseport`,
/// `set_reuseport`).
macro_rules! cfg_reuseport {
    ($($item:item)*) => {
        $(
            #[cfg(all(unix, not(target_os = "solaris"), not(target_os = "illumos"),
                      not(target_os = "cygwin"), not(target_os = "nuttx")))]
            $item
        )*
    };
}

/// The traits of a simulated socket that stands for tokio's `$ty` and has
/// a placeholder fd (its `placeholder()`): `TryFrom<$std>`, as its
/// `from_std` (always `Unsupported`), `AsRawFd` and `AsFd`.
macro_rules! placeholder_fd_impls {
    ($ty:ident, $std:ty) => {
        impl TryFrom<$std> for $ty {
            type Error = io::Error;

            #[doc = concat!("As [`", stringify!($ty), "::from_std`]: always `Unsupported`.")]
            #[track_caller]
            fn try_from(std: $std) -> Result<Self, Self::Error> {
                Self::from_std(std)
            }
        }

        impl AsRawFd for $ty {
            /// The placeholder socket (see the type's docs), created on first use.
            ///
            /// # Panics
            ///
            /// When the process has no file descriptor left for it.
            fn as_raw_fd(&self) -> RawFd {
                self.placeholder().as_raw_fd()
            }
        }

        impl AsFd for $ty {
            /// As [`as_raw_fd`](AsRawFd::as_raw_fd).
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.placeholder().as_fd()
            }
        }
    };
}

/// The deprecated `tos` and `set_tos` of tokio's socket types, as
/// `tos_v4` and `set_tos_v4` (which the type defines).
macro_rules! tos_aliases {
    () => {
        cfg_tos! {
            /// Deprecated. Use [`tos_v4()`](Self::tos_v4) instead.
            #[deprecated(
                note = "`tos` related methods have been renamed `tos_v4` since they are IPv4-specific."
            )]
            #[doc(hidden)]
            pub fn tos(&self) -> io::Result<u32> {
                self.tos_v4()
            }

            /// Deprecated. Use [`set_tos_v4()`](Self::set_tos_v4) instead.
            #[deprecated(
                note = "`tos` related methods have been renamed `tos_v4` since they are IPv4-specific."
            )]
            #[doc(hidden)]
            pub fn set_tos(&self, tos: u32) -> io::Result<()> {
                self.set_tos_v4(tos)
            }
        }
    };
}

/// `IP_TTL` of a socket that keeps it in `stored` until it has a
/// placeholder fd.
pub(crate) fn ttl(fd: &Placeholder, stored: &AtomicU32) -> io::Result<u32> {
    match fd.get() {
        Some(fd) => fd.ttl_v4(),
        None => Ok(stored.load(Ordering::Relaxed)),
    }
}

/// Sets `IP_TTL` (see [`ttl`]), checked as Linux checks it.
///
/// # Errors
///
/// As [`checked_ttl`], or the kernel's answer once there is a placeholder fd.
pub(crate) fn set_ttl(fd: &Placeholder, stored: &AtomicU32, ttl: u32) -> io::Result<()> {
    match fd.get() {
        Some(fd) => fd.set_ttl_v4(ttl),
        None => {
            stored.store(checked_ttl(ttl)?, Ordering::Relaxed);
            Ok(())
        }
    }
}
