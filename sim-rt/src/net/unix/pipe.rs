//! Simulated/own version of
//! [`tokio::net::unix::pipe`](https://docs.rs/tokio/1/tokio/net/unix/pipe/index.html):
//! FIFO pipes, not simulated.
//!
//! A pipe is a real file of the machine: [`pipe`], the
//! [`OpenOptions`] openers and every `from_*` constructor fail with
//! `Unsupported`, so no [`Sender`] or [`Receiver`] exists.
//!
//! # Differences from tokio
//!
//! Not simulated (see above). `ready(Interest)` is not provided.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::BufMut;

use super::{unsupported, Never};
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};

/// Simulated/own version of
/// [`tokio::net::unix::pipe::pipe`](https://docs.rs/tokio/1/tokio/net/unix/pipe/fn.pipe.html).
///
/// # Errors
///
/// Always `Unsupported` (see the module docs).
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    Err(unsupported("tokio::net::unix::pipe::pipe"))
}

/// Simulated/own version of
/// [`tokio::net::unix::pipe::OpenOptions`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html):
/// options to open a FIFO file.
///
/// # Differences from tokio
///
/// The options are kept, but opening fails with `Unsupported`.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    read_write: bool,
    unchecked: bool,
}

impl OpenOptions {
    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::new`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.new).
    pub fn new() -> OpenOptions {
        OpenOptions {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            read_write: false,
            unchecked: false,
        }
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::read_write`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.read_write).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn read_write(&mut self, value: bool) -> &mut Self {
        self.read_write = value;
        self
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::unchecked`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.unchecked).
    pub fn unchecked(&mut self, value: bool) -> &mut Self {
        self.unchecked = value;
        self
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::open_receiver`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.open_receiver).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the module docs).
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        Err(unsupported(&format!(
            "pipe::OpenOptions::open_receiver({:?})",
            path.as_ref()
        )))
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::pipe::OpenOptions::open_sender`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.OpenOptions.html#method.open_sender).
    ///
    /// # Errors
    ///
    /// Always `Unsupported` (see the module docs).
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        Err(unsupported(&format!(
            "pipe::OpenOptions::open_sender({:?})",
            path.as_ref()
        )))
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

/// The `from_*` constructors of [`Sender`] and [`Receiver`], all refused.
macro_rules! from_fd {
    ($ty:ident, $name:literal) => {
        impl $ty {
            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_file`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_file).\n\n# Errors\n\nAlways `Unsupported` (see the module docs).")]
            pub fn from_file(file: File) -> io::Result<$ty> {
                drop(file);
                Err(unsupported(concat!("pipe::", $name, "::from_file")))
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_owned_fd`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_owned_fd).\n\n# Errors\n\nAlways `Unsupported` (see the module docs).")]
            pub fn from_owned_fd(owned_fd: OwnedFd) -> io::Result<$ty> {
                drop(owned_fd);
                Err(unsupported(concat!("pipe::", $name, "::from_owned_fd")))
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_file_unchecked`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_file_unchecked).\n\n# Errors\n\nAlways `Unsupported` (see the module docs).")]
            pub fn from_file_unchecked(file: File) -> io::Result<$ty> {
                drop(file);
                Err(unsupported(concat!("pipe::", $name, "::from_file_unchecked")))
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::from_owned_fd_unchecked`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.from_owned_fd_unchecked).\n\n# Errors\n\nAlways `Unsupported` (see the module docs).")]
            pub fn from_owned_fd_unchecked(owned_fd: OwnedFd) -> io::Result<$ty> {
                drop(owned_fd);
                Err(unsupported(concat!("pipe::", $name, "::from_owned_fd_unchecked")))
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::try_io`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.try_io).")]
            pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
                drop(f);
                self.never.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::into_blocking_fd`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.into_blocking_fd).")]
            pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
                self.never.absurd()
            }

            #[doc = concat!("Simulated/own version of [`tokio::net::unix::pipe::", $name, "::into_nonblocking_fd`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.", $name, ".html#method.into_nonblocking_fd).")]
            pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
                self.never.absurd()
            }
        }

        impl $ty {
            fn absurd<T>(&self) -> T {
                self.never.absurd()
            }
        }

        never_fd!($ty);
    };
}

/// Simulated/own version of
/// [`tokio::net::unix::pipe::Sender`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Sender.html):
/// the writing end of a FIFO.
///
/// # Differences from tokio
///
/// Never exists (see the module docs).
#[derive(Debug)]
pub struct Sender {
    never: Never,
}

from_fd!(Sender, "Sender");

impl Sender {
    never_methods!(
        "tokio::net::unix::pipe::Sender",
        "https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Sender.html":
        ready, write, poll_write_ready,
    );
}

never_async!(write Sender);

/// Simulated/own version of
/// [`tokio::net::unix::pipe::Receiver`](https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html):
/// the reading end of a FIFO.
///
/// # Differences from tokio
///
/// Never exists (see the module docs).
#[derive(Debug)]
pub struct Receiver {
    never: Never,
}

from_fd!(Receiver, "Receiver");

impl Receiver {
    never_methods!(
        "tokio::net::unix::pipe::Receiver",
        "https://docs.rs/tokio/1/tokio/net/unix/pipe/struct.Receiver.html":
        ready, read, poll_read_ready,
    );
}

never_async!(read Receiver);
