//! Own version of
//! [`tokio::io::unix`](https://docs.rs/tokio/1/tokio/io/unix/index.html):
//! [`AsyncFd`], readiness of a raw file descriptor.
//!
//! An `AsyncFd` waits on the real operating system's readiness events
//! (epoll), which a simulation does not have: a real descriptor's readiness
//! would depend on the world outside the run. So the types exist with
//! tokio's signatures, for code that names them to compile, but every
//! constructor fails with [`ErrorKind::Unsupported`](std::io::ErrorKind::Unsupported),
//! and no `AsyncFd` (hence no guard) can ever exist.

#![allow(unsafe_code)] // only tokio's `unsafe fn register*` signatures

use std::convert::Infallible;
use std::error::Error;
use std::fmt;
use std::io;
use std::os::unix::io::{AsRawFd, RawFd};
use std::task::{Context, Poll};

use super::{Interest, Ready};

/// The error every constructor of [`AsyncFd`] returns.
fn unsupported() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "tokio::io::unix::AsyncFd cannot be used in a sim_rt simulation: it waits on real \
         file descriptors through the OS reactor, which would make the run depend on the \
         outside world. Use the simulated sockets of sim_rt::net (tokio::net under --cfg sim) \
         instead, or keep this code out of the simulated build",
    )
}

/// Own version of
/// [`tokio::io::unix::AsyncFd`](https://docs.rs/tokio/1/tokio/io/unix/struct.AsyncFd.html):
/// readiness events of a raw file descriptor.
///
/// # Differences from tokio
///
/// Cannot be created in sim-rt: [`new`](Self::new) and the other
/// constructors return an [`ErrorKind::Unsupported`](std::io::ErrorKind::Unsupported)
/// error whose message says to use `sim_rt::net` instead. The methods exist
/// with tokio's signatures so that code naming them compiles.
pub struct AsyncFd<T: AsRawFd> {
    inner: T,
    never: Infallible,
}

/// Own version of
/// [`tokio::io::unix::AsyncFdReadyGuard`](https://docs.rs/tokio/1/tokio/io/unix/struct.AsyncFdReadyGuard.html):
/// the readiness of an [`AsyncFd`], borrowed.
///
/// # Differences from tokio
///
/// Never exists: see [`AsyncFd`].
#[must_use = "You must explicitly choose whether to clear the readiness state by calling a method on ReadyGuard"]
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    async_fd: &'a AsyncFd<T>,
}

/// Own version of
/// [`tokio::io::unix::AsyncFdReadyMutGuard`](https://docs.rs/tokio/1/tokio/io/unix/struct.AsyncFdReadyMutGuard.html):
/// the readiness of an [`AsyncFd`], borrowed mutably.
///
/// # Differences from tokio
///
/// Never exists: see [`AsyncFd`].
#[must_use = "You must explicitly choose whether to clear the readiness state by calling a method on ReadyGuard"]
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    async_fd: &'a mut AsyncFd<T>,
}

/// Own version of
/// [`tokio::io::unix::TryIoError`](https://docs.rs/tokio/1/tokio/io/unix/struct.TryIoError.html):
/// the closure passed to a guard's `try_io` returned `WouldBlock`.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct TryIoError(());

/// Own version of
/// [`tokio::io::unix::AsyncFdRegisterError`](https://docs.rs/tokio/1/tokio/io/unix/struct.AsyncFdRegisterError.html):
/// registering a descriptor failed; holds the descriptor back.
///
/// # Differences from tokio
///
/// In sim-rt the cause is always an
/// [`ErrorKind::Unsupported`](std::io::ErrorKind::Unsupported) error.
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

/// Deprecated. Use [`AsyncFdRegisterError`] instead.
#[doc(hidden)]
#[deprecated(note = "use `AsyncFdRegisterError` instead")]
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T: AsRawFd> AsyncFd<T> {
    /// tokio: registers `inner` for readable and writable events.
    /// sim-rt: always fails (`Unsupported`), returning `inner`.
    ///
    /// # Safety
    ///
    /// tokio's contract: the descriptor must stay open while registered.
    /// Nothing is registered here.
    #[track_caller]
    pub unsafe fn register(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        Self::try_new(inner)
    }

    /// tokio: registers `inner` for `interest`. sim-rt: always fails
    /// (`Unsupported`), returning `inner`.
    ///
    /// # Safety
    ///
    /// tokio's contract: the descriptor must stay open while registered.
    /// Nothing is registered here.
    #[track_caller]
    pub unsafe fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        Self::try_with_interest(inner, interest)
    }

    /// tokio: creates an `AsyncFd` for readable and writable events.
    /// sim-rt: always fails with `Unsupported`.
    #[track_caller]
    pub fn new(inner: T) -> io::Result<Self> {
        Self::try_new(inner).map_err(Into::into)
    }

    /// tokio: creates an `AsyncFd` for `interest`. sim-rt: always fails
    /// with `Unsupported`.
    #[track_caller]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<Self> {
        Self::try_with_interest(inner, interest).map_err(Into::into)
    }

    /// Like [`new`](Self::new), returning `inner` with the error.
    #[track_caller]
    pub fn try_new(inner: T) -> Result<Self, AsyncFdRegisterError<T>> {
        Self::try_with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// Like [`with_interest`](Self::with_interest), returning `inner` with
    /// the error.
    #[track_caller]
    pub fn try_with_interest(
        inner: T,
        _interest: Interest,
    ) -> Result<Self, AsyncFdRegisterError<T>> {
        // tokio registers with the reactor first: it panics outside a
        // runtime and in one without the I/O driver.
        crate::runtime::context::with_io();
        Err(AsyncFdRegisterError {
            inner,
            cause: unsupported(),
        })
    }

    /// The inner value.
    pub fn get_ref(&self) -> &T {
        &self.inner
    }

    /// The inner value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// The inner value.
    pub fn into_inner(self) -> T {
        match self.never {}
    }

    /// Polls for read readiness.
    pub fn poll_read_ready<'a>(
        &'a self,
        _cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        match self.never {}
    }

    /// Polls for read readiness, with a mutable guard.
    pub fn poll_read_ready_mut<'a>(
        &'a mut self,
        _cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        match self.never {}
    }

    /// Polls for write readiness.
    pub fn poll_write_ready<'a>(
        &'a self,
        _cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        match self.never {}
    }

    /// Polls for write readiness, with a mutable guard.
    pub fn poll_write_ready_mut<'a>(
        &'a mut self,
        _cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        match self.never {}
    }

    /// Waits for any readiness in `interest`.
    pub async fn ready(&self, _interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        match self.never {}
    }

    /// Waits for any readiness in `interest`, with a mutable guard.
    pub async fn ready_mut(
        &mut self,
        _interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        match self.never {}
    }

    /// Waits for read readiness.
    pub async fn readable<'a>(&'a self) -> io::Result<AsyncFdReadyGuard<'a, T>> {
        match self.never {}
    }

    /// Waits for read readiness, with a mutable guard.
    pub async fn readable_mut<'a>(&'a mut self) -> io::Result<AsyncFdReadyMutGuard<'a, T>> {
        match self.never {}
    }

    /// Waits for write readiness.
    pub async fn writable<'a>(&'a self) -> io::Result<AsyncFdReadyGuard<'a, T>> {
        match self.never {}
    }

    /// Waits for write readiness, with a mutable guard.
    pub async fn writable_mut<'a>(&'a mut self) -> io::Result<AsyncFdReadyMutGuard<'a, T>> {
        match self.never {}
    }

    /// Runs `f` each time the descriptor is ready for `interest`, until it
    /// does not return `WouldBlock`.
    pub async fn async_io<R>(
        &self,
        _interest: Interest,
        _f: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        match self.never {}
    }

    /// [`async_io`](Self::async_io) with mutable access.
    pub async fn async_io_mut<R>(
        &mut self,
        _interest: Interest,
        _f: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        match self.never {}
    }

    /// Runs `f` if the descriptor is ready for `interest`.
    pub fn try_io<R>(
        &self,
        _interest: Interest,
        _f: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        match self.never {}
    }

    /// [`try_io`](Self::try_io) with mutable access.
    pub fn try_io_mut<R>(
        &mut self,
        _interest: Interest,
        _f: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        match self.never {}
    }
}

impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl<T: AsRawFd> std::os::unix::io::AsFd for AsyncFd<T> {
    fn as_fd(&self) -> std::os::unix::io::BorrowedFd<'_> {
        match self.never {}
    }
}

impl<T: fmt::Debug + AsRawFd> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish()
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    fn drop(&mut self) {}
}

/// The readiness methods both guards have (a guard never exists: its
/// `AsyncFd` cannot be made).
macro_rules! guard_readiness {
    () => {
        /// Clears the readiness this guard saw.
        pub fn clear_ready(&mut self) {
            match self.async_fd.never {}
        }

        /// Clears the given readiness.
        pub fn clear_ready_matching(&mut self, _ready: Ready) {
            match self.async_fd.never {}
        }

        /// Keeps the readiness (the default on drop).
        pub fn retain_ready(&mut self) {
            match self.async_fd.never {}
        }

        /// The readiness this guard saw.
        pub fn ready(&self) -> Ready {
            match self.async_fd.never {}
        }
    };
}

impl<'a, Inner: AsRawFd> AsyncFdReadyGuard<'a, Inner> {
    guard_readiness!();

    /// Runs `f`; on `WouldBlock` clears the readiness and returns
    /// `Err(TryIoError)`.
    pub fn try_io<R>(
        &mut self,
        _f: impl FnOnce(&'a AsyncFd<Inner>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match self.async_fd.never {}
    }

    /// The `AsyncFd`.
    pub fn get_ref(&self) -> &'a AsyncFd<Inner> {
        self.async_fd
    }

    /// The `AsyncFd`'s inner value.
    pub fn get_inner(&self) -> &'a Inner {
        self.async_fd.get_ref()
    }
}

impl<Inner: AsRawFd> AsyncFdReadyMutGuard<'_, Inner> {
    guard_readiness!();

    /// Runs `f`; on `WouldBlock` clears the readiness and returns
    /// `Err(TryIoError)`.
    pub fn try_io<R>(
        &mut self,
        _f: impl FnOnce(&mut AsyncFd<Inner>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match self.async_fd.never {}
    }

    /// The `AsyncFd`.
    pub fn get_ref(&self) -> &AsyncFd<Inner> {
        self.async_fd
    }

    /// The `AsyncFd`, mutably.
    pub fn get_mut(&mut self) -> &mut AsyncFd<Inner> {
        self.async_fd
    }

    /// The `AsyncFd`'s inner value.
    pub fn get_inner(&self) -> &Inner {
        self.async_fd.get_ref()
    }

    /// The `AsyncFd`'s inner value, mutably.
    pub fn get_inner_mut(&mut self) -> &mut Inner {
        self.async_fd.get_mut()
    }
}

impl<T: fmt::Debug + AsRawFd> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadyGuard")
            .field("async_fd", &self.async_fd)
            .finish()
    }
}

impl<T: fmt::Debug + AsRawFd> fmt::Debug for AsyncFdReadyMutGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutReadyGuard")
            .field("async_fd", &self.async_fd)
            .finish()
    }
}

impl<T> AsyncFdRegisterError<T> {
    /// The value passed to the constructor, and the cause of the failure.
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.cause, f)
    }
}

impl<T> Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.cause)
    }
}

impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(value: AsyncFdRegisterError<T>) -> Self {
        value.cause
    }
}
