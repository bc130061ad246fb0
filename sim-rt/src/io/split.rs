//! [`split`]: one `AsyncRead + AsyncWrite` value as two handles, a
//! [`ReadHalf`] and a [`WriteHalf`], usable from different tasks.
//!
//! # Invariants
//!
//! Both halves share one `Arc`; the stream is pinned in its box and only
//! reached through the mutex, held for the duration of one poll call (so
//! it is never contended in a simulation).

use std::fmt;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use super::{AsyncRead, AsyncWrite, ReadBuf};

/// Own version of
/// [`tokio::io::ReadHalf`](https://docs.rs/tokio/1/tokio/io/struct.ReadHalf.html):
/// the readable half of a value returned by [`split`].
///
/// # Differences from tokio
///
/// `ReadHalf<T>` is `Sync` when `T: Send` (tokio: when `T: Sync`).
pub struct ReadHalf<T> {
    inner: Arc<Inner<T>>,
}

/// Own version of
/// [`tokio::io::WriteHalf`](https://docs.rs/tokio/1/tokio/io/struct.WriteHalf.html):
/// the writable half of a value returned by [`split`].
///
/// # Differences from tokio
///
/// `WriteHalf<T>` is `Sync` when `T: Send` (tokio: when `T: Sync`).
pub struct WriteHalf<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    stream: Mutex<Pin<Box<T>>>,
    is_write_vectored: bool,
}

impl<T> Inner<T> {
    fn lock(&self) -> MutexGuard<'_, Pin<Box<T>>> {
        // A poisoned lock only means a poll panicked; the stream itself is
        // as consistent as that poll left it, as in tokio's `split`.
        self.stream.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Own version of
/// [`tokio::io::split`](https://docs.rs/tokio/1/tokio/io/fn.split.html):
/// splits a single value implementing `AsyncRead + AsyncWrite` into
/// separate [`ReadHalf`] and [`WriteHalf`] handles.
///
/// Each half locks the value for the duration of one poll. To split a
/// `TcpStream` without a lock, use its own `split`/`into_split`.
///
/// # Differences from tokio
///
/// None.
pub fn split<T>(stream: T) -> (ReadHalf<T>, WriteHalf<T>)
where
    T: AsyncRead + AsyncWrite,
{
    let is_write_vectored = stream.is_write_vectored();
    let inner = Arc::new(Inner {
        stream: Mutex::new(Box::pin(stream)),
        is_write_vectored,
    });
    (
        ReadHalf {
            inner: inner.clone(),
        },
        WriteHalf { inner },
    )
}

impl<T> ReadHalf<T> {
    /// Whether `other` is the other half of the same [`split`].
    pub fn is_pair_of(&self, other: &WriteHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Joins the two halves back into the value that was split.
    ///
    /// # Panics
    ///
    /// Panics if `wr` is not the other half of this [`split`].
    #[track_caller]
    pub fn unsplit(self, wr: WriteHalf<T>) -> T
    where
        T: Unpin,
    {
        if !self.is_pair_of(&wr) {
            panic!("Unrelated `split::Write` passed to `split::Read::unsplit`.");
        }
        drop(wr);
        let inner = Arc::into_inner(self.inner).expect("`Arc::try_unwrap` failed");
        let stream = inner.stream.into_inner().unwrap_or_else(|e| e.into_inner());
        *Pin::into_inner(stream)
    }
}

impl<T> WriteHalf<T> {
    /// Whether `other` is the other half of the same [`split`].
    pub fn is_pair_of(&self, other: &ReadHalf<T>) -> bool {
        other.is_pair_of(self)
    }
}

impl<T: AsyncRead> AsyncRead for ReadHalf<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.inner.lock().as_mut().poll_read(cx, buf)
    }
}

impl<T: AsyncWrite> AsyncWrite for WriteHalf<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.inner.lock().as_mut().poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.lock().as_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.inner.lock().as_mut().poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.inner.lock().as_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored
    }
}

impl<T: fmt::Debug> fmt::Debug for ReadHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::ReadHalf").finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for WriteHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::WriteHalf").finish()
    }
}
