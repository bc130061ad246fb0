//! [`BufWriter`]: adds a write buffer to a writer.
//!
//! # Invariants
//!
//! `buf.len() <= cap`: at most `cap` bytes wait for the inner writer;
//! `written` counts the bytes of `buf` already passed to it during a
//! flush (they are drained when the flush stops).

use std::fmt;
use std::io::{self, IoSlice, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::DEFAULT_BUF_SIZE;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

pin_project! {
    /// Own version of
    /// [`tokio::io::BufWriter`](https://docs.rs/tokio/1/tokio/io/struct.BufWriter.html):
    /// collects small writes in memory and passes them to the inner writer
    /// in large chunks.
    ///
    /// Data is only guaranteed to reach the inner writer on
    /// [`flush`](crate::io::AsyncWriteExt::flush) or
    /// [`shutdown`](crate::io::AsyncWriteExt::shutdown): dropping a
    /// `BufWriter` loses what it buffered.
    ///
    /// # Differences from tokio
    ///
    /// The buffer holds exactly the capacity asked for (tokio uses the
    /// capacity its `Vec` happened to get, which may be larger).
    pub struct BufWriter<W> {
        #[pin]
        pub(super) inner: W,
        pub(super) buf: Vec<u8>,
        pub(super) cap: usize,
        pub(super) written: usize,
        pub(super) seek_state: SeekState,
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum SeekState {
    /// No seek started.
    Init,
    /// `start_seek` was called: flush, then seek the inner writer.
    Start(SeekFrom),
    /// The inner writer is seeking.
    Pending,
}

impl<W: AsyncWrite> BufWriter<W> {
    /// A `BufWriter` with tokio's default capacity (8 KiB).
    pub fn new(inner: W) -> Self {
        Self::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// A `BufWriter` that buffers up to `cap` bytes.
    pub fn with_capacity(cap: usize, inner: W) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(cap),
            cap,
            written: 0,
            seek_state: SeekState::Init,
        }
    }

    /// Writes the whole buffer to the inner writer.
    fn flush_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut me = self.project();
        let mut res = Ok(());
        while *me.written < me.buf.len() {
            match ready!(me.inner.as_mut().poll_write(cx, &me.buf[*me.written..])) {
                Ok(0) => {
                    res = Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the buffered data",
                    ));
                    break;
                }
                Ok(n) => *me.written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    res = Err(e);
                    break;
                }
            }
        }
        me.buf.drain(..*me.written);
        *me.written = 0;
        Poll::Ready(res)
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer, mutably. Writing to it directly skips the
    /// buffered data.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The inner writer, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// The inner writer; buffered data is lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The buffered data not yet written.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }

    fn spare(&self) -> usize {
        self.cap - self.buf.len()
    }
}

impl<W: AsyncWrite> AsyncWrite for BufWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if buf.len() > self.spare() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if buf.len() >= *me.cap {
            me.inner.poll_write(cx, buf)
        } else {
            me.buf.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.inner.is_write_vectored() {
            let total = bufs.iter().fold(0usize, |n, b| n.saturating_add(b.len()));
            if total > self.spare() {
                ready!(self.as_mut().flush_buf(cx))?;
            }
            let me = self.project();
            if total >= *me.cap {
                return me.inner.poll_write_vectored(cx, bufs);
            }
            for b in bufs {
                me.buf.extend_from_slice(b);
            }
            return Poll::Ready(Ok(total));
        }
        // The inner writer wants one buffer at a time: buffer as many
        // whole slices as fit, starting with the first non-empty one.
        let mut bufs = bufs.iter().skip_while(|b| b.is_empty()).peekable();
        let Some(first) = bufs.peek().map(|b| b.len()) else {
            return Poll::Ready(Ok(0));
        };
        if first > self.spare() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if first >= *me.cap {
            let first = bufs.next().expect("peeked above");
            return me.inner.poll_write(cx, first);
        }
        let mut total = 0;
        for b in bufs {
            if b.len() > *me.cap - me.buf.len() {
                break;
            }
            me.buf.extend_from_slice(b);
            total += b.len();
        }
        Poll::Ready(Ok(total))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_shutdown(cx)
    }
}

impl<W: AsyncWrite + AsyncSeek> AsyncSeek for BufWriter<W> {
    /// Records the seek; `poll_complete` flushes the buffer first.
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        *self.project().seek_state = SeekState::Start(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let pos = match self.seek_state {
            SeekState::Init => return self.get_pin_mut().poll_complete(cx),
            SeekState::Start(pos) => Some(pos),
            SeekState::Pending => None,
        };
        ready!(self.as_mut().flush_buf(cx))?;
        let mut me = self.project();
        if let Some(pos) = pos {
            // A seek of the inner writer still in progress finishes first.
            ready!(me.inner.as_mut().poll_complete(cx))?;
            if let Err(e) = me.inner.as_mut().start_seek(pos) {
                *me.seek_state = SeekState::Init;
                return Poll::Ready(Err(e));
            }
        }
        let res = me.inner.poll_complete(cx);
        *me.seek_state = if res.is_pending() {
            SeekState::Pending
        } else {
            SeekState::Init
        };
        res
    }
}

impl<W: AsyncWrite + AsyncRead> AsyncRead for BufWriter<W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_read(cx, buf)
    }
}

impl<W: AsyncWrite + AsyncBufRead> AsyncBufRead for BufWriter<W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_pin_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.get_pin_mut().consume(amt)
    }
}

impl<W: fmt::Debug> fmt::Debug for BufWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufWriter")
            .field("writer", &self.inner)
            .field("buffer", &format_args!("{}/{}", self.buf.len(), self.cap))
            .field("written", &self.written)
            .finish()
    }
}
