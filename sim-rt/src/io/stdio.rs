//! The process's standard streams: [`stdin`], [`stdout`], [`stderr`].
//!
//! # Determinism
//!
//! Writes to stdout and stderr go to the real process streams at once,
//! synchronously: output does not feed back into the run, so a simulation
//! stays a function of its seed and choices. Reading stdin inside a
//! simulation would make the run depend on the outside world, so there
//! `Stdin` is at end of file.

use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{AsyncRead, AsyncWrite, ReadBuf};

/// Own version of
/// [`tokio::io::Stdin`](https://docs.rs/tokio/1/tokio/io/struct.Stdin.html):
/// a handle to the process's standard input, made by [`stdin`].
///
/// # Differences from tokio
///
/// Inside a simulation, reading returns end of file at once (`Ok` with
/// nothing read): a run cannot depend on real input. Outside one a read
/// panics, as tokio's does outside a runtime (it reads on the runtime's
/// blocking pool). The `Debug` output shows no inner handle.
#[derive(Debug)]
pub struct Stdin {
    _private: (),
}

/// Own version of
/// [`tokio::io::stdin`](https://docs.rs/tokio/1/tokio/io/fn.stdin.html):
/// a handle to the process's standard input.
///
/// # Differences from tokio
///
/// See [`Stdin`].
pub fn stdin() -> Stdin {
    Stdin { _private: () }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        _buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Poll::Ready(blocking_pool())
    }
}

/// What tokio's standard streams need for each read or write: the
/// runtime's blocking pool. Panics outside a runtime, as tokio's; fails
/// with the error `is_rt_shutdown_err` recognises in a runtime that was
/// shut down (an `EnterGuard` held since).
fn blocking_pool() -> io::Result<()> {
    if crate::runtime::context::current().is_shut_down() {
        return Err(io::Error::other(crate::runtime::RUNTIME_GONE));
    }
    Ok(())
}

/// `AsRawFd` and `AsFd` for a handle, borrowing the std handle's
/// descriptor (the standard streams live as long as the process).
macro_rules! unix_fd {
    ($name:ident, $std:path) => {
        #[cfg(unix)]
        impl std::os::unix::io::AsRawFd for $name {
            fn as_raw_fd(&self) -> std::os::unix::io::RawFd {
                std::os::unix::io::AsRawFd::as_raw_fd(&$std())
            }
        }

        #[cfg(unix)]
        impl std::os::unix::io::AsFd for $name {
            fn as_fd(&self) -> std::os::unix::io::BorrowedFd<'_> {
                static STD: std::sync::LazyLock<std::io::$name> = std::sync::LazyLock::new($std);
                std::os::unix::io::AsFd::as_fd(&*STD)
            }
        }
    };
}

macro_rules! std_output {
    ($(#[$doc:meta])* $name:ident, $fun:ident, $std:path, $tokio:literal) => {
        $(#[$doc])*
        ///
        /// # Differences from tokio
        ///
        /// Writes complete at once, synchronously (tokio hands them to a
        /// blocking thread). Output does not change the run. Outside a
        /// simulation a write panics, as tokio's does outside a runtime. The
        /// `Debug` output shows no inner handle.
        #[derive(Debug)]
        pub struct $name {
            _private: (),
        }

        #[doc = concat!("Own version of [`tokio::io::", $tokio,
            "`](https://docs.rs/tokio/1/tokio/io/fn.", $tokio,
            ".html): a handle to the process's ", $tokio, ".")]
        ///
        /// # Differences from tokio
        #[doc = concat!("\nSee [`", stringify!($name), "`].")]
        pub fn $fun() -> $name {
            $name { _private: () }
        }

        impl AsyncWrite for $name {
            fn poll_write(
                self: Pin<&mut Self>,
                _cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                if let Err(e) = blocking_pool() {
                    return Poll::Ready(Err(e));
                }
                Poll::Ready($std().write(buf))
            }

            fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready($std().flush())
            }

            fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready($std().flush())
            }
        }

        unix_fd!($name, $std);
    };
}

unix_fd!(Stdin, io::stdin);

std_output!(
    /// Own version of
    /// [`tokio::io::Stdout`](https://docs.rs/tokio/1/tokio/io/struct.Stdout.html):
    /// a handle to the process's standard output, made by [`stdout`].
    Stdout,
    stdout,
    io::stdout,
    "stdout"
);

std_output!(
    /// Own version of
    /// [`tokio::io::Stderr`](https://docs.rs/tokio/1/tokio/io/struct.Stderr.html):
    /// a handle to the process's standard error, made by [`stderr`].
    Stderr,
    stderr,
    io::stderr,
    "stderr"
);
