//! [`BufReader`]: adds a read buffer to a reader.
//!
//! # Invariants
//!
//! `pos <= cap <= buf.len()`: `buf[pos..cap]` is the data read from the
//! inner reader and not yet consumed.

use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::DEFAULT_BUF_SIZE;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

pin_project! {
    /// Own version of
    /// [`tokio::io::BufReader`](https://docs.rs/tokio/1/tokio/io/struct.BufReader.html):
    /// reads from the inner reader in large chunks and serves small reads
    /// from memory; an [`AsyncBufRead`].
    ///
    /// A read at least as large as the buffer, with the buffer empty, goes
    /// straight to the inner reader. Seeking discards the buffer.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub struct BufReader<R> {
        #[pin]
        pub(super) inner: R,
        pub(super) buf: Box<[u8]>,
        pub(super) pos: usize,
        pub(super) cap: usize,
        pub(super) seek_state: SeekState,
    }
}

/// Where a seek through the buffer stands (see `poll_complete`).
#[derive(Debug, Clone, Copy)]
pub(super) enum SeekState {
    /// No seek started.
    Init,
    /// `start_seek` was called; nothing sent to the inner reader yet.
    Start(SeekFrom),
    /// A `Current(n)` seek whose `n - remainder` overflowed: the inner
    /// reader is seeking back by the remainder, then seeks by `n`.
    PendingOverflowed(i64),
    /// The inner reader is seeking.
    Pending,
}

impl<R: AsyncRead> BufReader<R> {
    /// A `BufReader` with tokio's default capacity (8 KiB).
    pub fn new(inner: R) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// A `BufReader` with a buffer of `capacity` bytes.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is 0.
    #[track_caller]
    pub fn with_capacity(capacity: usize, inner: R) -> Self {
        assert!(capacity > 0, "capacity must be greater than zero");
        Self {
            inner,
            buf: vec![0; capacity].into_boxed_slice(),
            pos: 0,
            cap: 0,
            seek_state: SeekState::Init,
        }
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably. Reading from it directly skips the
    /// buffered data.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The inner reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// The inner reader; buffered data is lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The buffered data not yet read.
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.cap]
    }

    fn discard_buffer(self: Pin<&mut Self>) {
        let me = self.project();
        *me.pos = 0;
        *me.cap = 0;
    }
}

impl<R: AsyncRead> AsyncRead for BufReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.pos == self.cap && buf.remaining() >= self.buf.len() {
            let res = ready!(self.as_mut().get_pin_mut().poll_read(cx, buf));
            self.discard_buffer();
            return Poll::Ready(res);
        }
        let available = ready!(self.as_mut().poll_fill_buf(cx))?;
        let n = available.len().min(buf.remaining());
        buf.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead> AsyncBufRead for BufReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.pos >= *me.cap {
            debug_assert_eq!(*me.pos, *me.cap, "BufReader consumed past its data");
            let mut buf = ReadBuf::new(me.buf);
            ready!(me.inner.poll_read(cx, &mut buf))?;
            *me.cap = buf.filled().len();
            *me.pos = 0;
        }
        Poll::Ready(Ok(&me.buf[*me.pos..*me.cap]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        *me.pos = (*me.pos + amt).min(*me.cap);
    }
}

impl<R: AsyncRead + AsyncSeek> AsyncSeek for BufReader<R> {
    /// Records the seek; the inner reader is told in `poll_complete`,
    /// which needs a `Context` (a `Current` seek must account for the
    /// buffered data).
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        *self.project().seek_state = SeekState::Start(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let state = std::mem::replace(self.as_mut().project().seek_state, SeekState::Init);
        let res = match state {
            SeekState::Init => return self.get_pin_mut().poll_complete(cx),
            SeekState::Start(SeekFrom::Current(n)) => {
                // The inner reader is `remainder` bytes ahead of us.
                let remainder = (self.cap - self.pos) as i64;
                match n.checked_sub(remainder) {
                    Some(offset) => {
                        self.as_mut()
                            .get_pin_mut()
                            .start_seek(SeekFrom::Current(offset))?;
                    }
                    None => {
                        self.as_mut()
                            .get_pin_mut()
                            .start_seek(SeekFrom::Current(-remainder))?;
                        return self.finish_overflowed(cx, n);
                    }
                }
                self.as_mut().get_pin_mut().poll_complete(cx)
            }
            SeekState::PendingOverflowed(n) => return self.finish_overflowed(cx, n),
            SeekState::Start(pos) => {
                self.as_mut().get_pin_mut().start_seek(pos)?;
                self.as_mut().get_pin_mut().poll_complete(cx)
            }
            SeekState::Pending => self.as_mut().get_pin_mut().poll_complete(cx),
        };
        self.after_inner_seek(res)
    }
}

impl<R: AsyncRead + AsyncSeek> BufReader<R> {
    /// Second half of an overflowing `Current(n)` seek: wait for the seek
    /// back by the remainder, drop the buffer, then seek by `n`.
    fn finish_overflowed(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        n: i64,
    ) -> Poll<io::Result<u64>> {
        if self.as_mut().get_pin_mut().poll_complete(cx)?.is_pending() {
            *self.as_mut().project().seek_state = SeekState::PendingOverflowed(n);
            return Poll::Pending;
        }
        self.as_mut().discard_buffer();
        self.as_mut()
            .get_pin_mut()
            .start_seek(SeekFrom::Current(n))?;
        let res = self.as_mut().get_pin_mut().poll_complete(cx);
        self.after_inner_seek(res)
    }

    fn after_inner_seek(
        mut self: Pin<&mut Self>,
        res: Poll<io::Result<u64>>,
    ) -> Poll<io::Result<u64>> {
        match res {
            Poll::Ready(res) => {
                let pos = res?;
                self.discard_buffer();
                Poll::Ready(Ok(pos))
            }
            Poll::Pending => {
                *self.as_mut().project().seek_state = SeekState::Pending;
                Poll::Pending
            }
        }
    }
}

impl<R: AsyncRead + AsyncWrite> AsyncWrite for BufReader<R> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.get_ref().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_shutdown(cx)
    }
}

impl<R: fmt::Debug> fmt::Debug for BufReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufReader")
            .field("reader", &self.inner)
            .field(
                "buffer",
                &format_args!("{}/{}", self.cap - self.pos, self.buf.len()),
            )
            .finish()
    }
}
