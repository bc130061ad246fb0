//! In-memory pipes: [`duplex`] ([`DuplexStream`]) and [`simplex`]
//! ([`SimplexStream`]).
//!
//! # Invariants
//!
//! - `buffer.len() <= max_buf_size` in every [`SimplexStream`].
//! - At most one reader and one writer waker is stored per pipe (the last
//!   task to wait in each direction, as in tokio).
//!
//! # Determinism
//!
//! A waker is woken after the pipe's lock is released, when the other side
//! makes progress (data written, data read, or closed). Which waker is
//! stored is a function of the poll order, which the scheduler decides.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use bytes::{Buf, BytesMut};

use crate::io::{split, AsyncRead, AsyncWrite, ReadBuf, ReadHalf, WriteHalf};
use crate::task::coop;

/// Own version of
/// [`tokio::io::DuplexStream`](https://docs.rs/tokio/1/tokio/io/struct.DuplexStream.html):
/// one end of a bidirectional in-memory pipe made by [`duplex`].
///
/// What one end writes the other reads, through a buffer of at most
/// `max_buf_size` bytes in each direction: a write to a full buffer waits
/// for the reader. Dropping an end closes both directions: the other end
/// reads the remaining data then end of file, and its writes fail with
/// `BrokenPipe`. [`shutdown`](crate::io::AsyncWriteExt::shutdown) closes
/// one direction.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct DuplexStream {
    read: Arc<Mutex<SimplexStream>>,
    write: Arc<Mutex<SimplexStream>>,
}

/// Own version of
/// [`tokio::io::SimplexStream`](https://docs.rs/tokio/1/tokio/io/struct.SimplexStream.html):
/// a unidirectional in-memory pipe: what is written to it is read from it.
///
/// Made by [`SimplexStream::new_unsplit`], or by [`simplex`] as a
/// [`ReadHalf`]/[`WriteHalf`] pair. A write to a full buffer waits for a
/// read; [`shutdown`](crate::io::AsyncWriteExt::shutdown) closes it (reads
/// then drain the buffer and reach end of file, writes fail with
/// `BrokenPipe`).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct SimplexStream {
    buffer: BytesMut,
    is_closed: bool,
    max_buf_size: usize,
    read_waker: Option<Waker>,
    write_waker: Option<Waker>,
}

/// Own version of
/// [`tokio::io::duplex`](https://docs.rs/tokio/1/tokio/io/fn.duplex.html):
/// a pair of connected [`DuplexStream`]s, each direction buffering at most
/// `max_buf_size` bytes.
///
/// # Panics
///
/// Panics if `max_buf_size` is 0.
///
/// # Differences from tokio
///
/// None.
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let one = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    let two = Arc::new(Mutex::new(SimplexStream::new_unsplit(max_buf_size)));
    (
        DuplexStream {
            read: one.clone(),
            write: two.clone(),
        },
        DuplexStream {
            read: two,
            write: one,
        },
    )
}

/// Own version of
/// [`tokio::io::simplex`](https://docs.rs/tokio/1/tokio/io/fn.simplex.html):
/// a unidirectional pipe buffering at most `max_buf_size` bytes, as its
/// read and write halves.
///
/// # Panics
///
/// Panics if `max_buf_size` is 0.
///
/// # Differences from tokio
///
/// None.
#[track_caller]
pub fn simplex(max_buf_size: usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) {
    split(SimplexStream::new_unsplit(max_buf_size))
}

/// Locks a pipe; a panic while it was held cannot leave its buffer
/// inconsistent, so poisoning is ignored.
fn lock(pipe: &Mutex<SimplexStream>) -> MutexGuard<'_, SimplexStream> {
    pipe.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on a pipe under its lock, then wakes the waker `f` chose (out
/// of the lock). `f` also gets the slot for a waker it replaced, dropped
/// out of the lock too.
fn with_pipe<T>(
    pipe: &mut SimplexStream,
    f: impl FnOnce(&mut SimplexStream, &mut Option<Waker>, &mut Option<Waker>) -> T,
) -> (T, Option<Waker>, Option<Waker>) {
    let (mut wake, mut replaced) = (None, None);
    let out = f(pipe, &mut wake, &mut replaced);
    (out, wake, replaced)
}

impl SimplexStream {
    /// Own version of
    /// [`tokio::io::SimplexStream::new_unsplit`](https://docs.rs/tokio/1/tokio/io/struct.SimplexStream.html#method.new_unsplit):
    /// a pipe buffering at most `max_buf_size` bytes, not split.
    ///
    /// # Panics
    ///
    /// Panics if `max_buf_size` is 0.
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        SimplexStream {
            buffer: BytesMut::new(),
            is_closed: false,
            max_buf_size,
            read_waker: None,
            write_waker: None,
        }
    }

    #[must_use]
    fn close_write(&mut self) -> Option<Waker> {
        self.is_closed = true;
        self.read_waker.take()
    }

    #[must_use]
    fn close_read(&mut self) -> Option<Waker> {
        self.is_closed = true;
        self.write_waker.take()
    }

    fn read_now(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
        wake: &mut Option<Waker>,
        replaced: &mut Option<Waker>,
    ) -> Poll<io::Result<()>> {
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        if self.buffer.has_remaining() {
            let n = self.buffer.len().min(buf.remaining());
            buf.put_slice(&self.buffer[..n]);
            self.buffer.advance(n);
            *wake = self.write_waker.take();
            Poll::Ready(Ok(()))
        } else if self.is_closed {
            Poll::Ready(Ok(()))
        } else {
            *replaced = self.read_waker.replace(cx.waker().clone());
            Poll::Pending
        }
    }

    /// Writes what fits of `bufs` (in order); `Ok(0)` if they are all empty.
    fn write_now(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[&[u8]],
        wake: &mut Option<Waker>,
        replaced: &mut Option<Waker>,
    ) -> Poll<io::Result<usize>> {
        if self.is_closed {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        if bufs.iter().all(|b| b.is_empty()) {
            return Poll::Ready(Ok(0));
        }
        let avail = self.max_buf_size - self.buffer.len();
        if avail == 0 {
            *replaced = self.write_waker.replace(cx.waker().clone());
            return Poll::Pending;
        }
        let mut written = 0;
        for b in bufs {
            let n = b.len().min(avail - written);
            self.buffer.extend_from_slice(&b[..n]);
            written += n;
            if written == avail {
                break;
            }
        }
        debug_assert!(self.buffer.len() <= self.max_buf_size);
        *wake = self.read_waker.take();
        Poll::Ready(Ok(written))
    }

    /// A budgeted read (tokio counts pipe operations against the budget).
    fn poll_read_budgeted(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> (Poll<io::Result<()>>, Option<Waker>, Option<Waker>) {
        self.poll_budgeted(cx, |p, cx, w, r| p.read_now(cx, buf, w, r))
    }

    /// A budgeted write, as [`poll_read_budgeted`](Self::poll_read_budgeted).
    fn poll_write_budgeted(
        &mut self,
        cx: &mut Context<'_>,
        bufs: &[&[u8]],
    ) -> (Poll<io::Result<usize>>, Option<Waker>, Option<Waker>) {
        self.poll_budgeted(cx, |p, cx, w, r| p.write_now(cx, bufs, w, r))
    }

    /// `op` (a read or write now) if the task's budget allows, taking a
    /// unit of it when `op` is ready.
    fn poll_budgeted<T>(
        &mut self,
        cx: &mut Context<'_>,
        op: impl FnOnce(
            &mut SimplexStream,
            &mut Context<'_>,
            &mut Option<Waker>,
            &mut Option<Waker>,
        ) -> Poll<T>,
    ) -> (Poll<T>, Option<Waker>, Option<Waker>) {
        let coop = match coop::poll_proceed(cx) {
            Poll::Ready(coop) => coop,
            Poll::Pending => return (Poll::Pending, None, None),
        };
        let (res, wake, replaced) = with_pipe(self, |p, w, r| op(p, cx, w, r));
        if res.is_ready() {
            coop.made_progress();
        }
        (res, wake, replaced)
    }
}

/// Wakes `wake` (and drops `replaced`): call after releasing the lock.
fn finish<T>((res, wake, replaced): (Poll<T>, Option<Waker>, Option<Waker>)) -> Poll<T> {
    if let Some(waker) = wake {
        waker.wake();
    }
    drop(replaced);
    res
}

/// `AsyncRead` and `AsyncWrite` for `$ty`, whose read side is
/// `$read` and write side `$write` (a `SimplexStream`, or a lock of one),
/// with `$s` the pinned `self`. Each side is released before any waker is
/// woken.
macro_rules! pipe_io {
    ($ty:ty, |$s:ident| $read:expr, $write:expr) => {
        impl AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let $s = self;
                let out = $read.poll_read_budgeted(cx, buf);
                finish(out)
            }
        }

        impl AsyncWrite for $ty {
            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }

            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                let $s = self;
                let out = $write.poll_write_budgeted(cx, &[buf]);
                finish(out)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                let bufs: Vec<&[u8]> = bufs.iter().map(|b| &**b).collect();
                let $s = self;
                let out = $write.poll_write_budgeted(cx, &bufs);
                finish(out)
            }

            fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let $s = self;
                let waker = $write.close_write();
                if let Some(waker) = waker {
                    waker.wake();
                }
                Poll::Ready(Ok(()))
            }
        }
    };
}

pipe_io!(SimplexStream, |s| s.get_mut(), s.get_mut());
pipe_io!(DuplexStream, |s| lock(&s.read), lock(&s.write));

impl Drop for DuplexStream {
    fn drop(&mut self) {
        let read_waker = lock(&self.write).close_write();
        let write_waker = lock(&self.read).close_read();
        for waker in [read_waker, write_waker].into_iter().flatten() {
            waker.wake();
        }
    }
}
