//! [`copy`] and the buffer it shares with
//! [`copy_bidirectional`](super::copy_bidirectional).
//!
//! # Invariants
//!
//! `pos <= cap <= buf.len()`: `buf[pos..cap]` was read and not yet
//! written; `amt` counts the bytes written so far.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use crate::task::coop;

/// The state of one copy: a buffer between a reader and a writer.
#[derive(Debug)]
pub(super) struct CopyBuffer {
    read_done: bool,
    need_flush: bool,
    pos: usize,
    cap: usize,
    amt: u64,
    buf: Box<[u8]>,
}

impl CopyBuffer {
    pub(super) fn new(size: usize) -> Self {
        CopyBuffer {
            read_done: false,
            need_flush: false,
            pos: 0,
            cap: 0,
            amt: 0,
            buf: vec![0; size].into_boxed_slice(),
        }
    }

    /// Reads more into the free end of the buffer; notes EOF.
    fn poll_fill<R: AsyncRead + ?Sized>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
    ) -> Poll<io::Result<()>> {
        let mut buf = ReadBuf::new(&mut self.buf[self.cap..]);
        loop {
            match ready!(reader.as_mut().poll_read(cx, &mut buf)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
                Ok(()) => break,
            }
        }
        let n = buf.filled().len();
        self.read_done = n == 0;
        self.cap += n;
        Poll::Ready(Ok(()))
    }

    /// Writes from the buffer once; while the writer is not ready, reads
    /// ahead into the free space so the next write can be larger.
    fn poll_write_some<R: AsyncRead + ?Sized, W: AsyncWrite + ?Sized>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<usize>> {
        loop {
            match writer
                .as_mut()
                .poll_write(cx, &self.buf[self.pos..self.cap])
            {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Poll::Pending => {
                    if !self.read_done && self.cap < self.buf.len() {
                        ready!(self.poll_fill(cx, reader.as_mut()))?;
                    }
                    return Poll::Pending;
                }
                res => return res,
            }
        }
    }

    /// Copies until the reader's EOF, then flushes; returns the bytes
    /// copied. Takes one unit of cooperative budget per poll and counts it
    /// used on any progress, as tokio does.
    pub(super) fn poll_copy<R: AsyncRead + ?Sized, W: AsyncWrite + ?Sized>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<u64>> {
        let coop = ready!(coop::poll_proceed(cx));
        loop {
            if self.cap < self.buf.len() && !self.read_done {
                match self.poll_fill(cx, reader.as_mut()) {
                    Poll::Ready(res) => {
                        coop.made_progress();
                        res?;
                    }
                    // Nothing to write either: the reader may be waiting
                    // for our writer's buffered data, so flush it.
                    Poll::Pending if self.pos == self.cap => {
                        if self.need_flush {
                            ready!(writer.as_mut().poll_flush(cx))?;
                            coop.made_progress();
                            self.need_flush = false;
                        }
                        return Poll::Pending;
                    }
                    Poll::Pending => {}
                }
            }

            while self.pos < self.cap {
                let n = ready!(self.poll_write_some(cx, reader.as_mut(), writer.as_mut()))?;
                coop.made_progress();
                if n == 0 {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "write zero byte into writer",
                    )));
                }
                self.pos += n;
                self.amt += n as u64;
                self.need_flush = true;
            }
            debug_assert!(
                self.pos <= self.cap,
                "writer returned length larger than input slice"
            );
            self.pos = 0;
            self.cap = 0;

            if self.read_done {
                ready!(writer.as_mut().poll_flush(cx))?;
                coop.made_progress();
                return Poll::Ready(Ok(self.amt));
            }
        }
    }
}

/// Own version of
/// [`tokio::io::copy`](https://docs.rs/tokio/1/tokio/io/fn.copy.html):
/// copies everything `reader` yields into `writer` (through an 8 KiB
/// buffer), then flushes `writer`; returns the number of bytes copied.
///
/// # Errors
///
/// The first error of the reader or the writer (other than
/// `Interrupted`, which is retried); `WriteZero` if the writer accepts no
/// more bytes.
///
/// # Differences from tokio
///
/// None.
pub async fn copy<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut buf = CopyBuffer::new(super::DEFAULT_BUF_SIZE);
    poll_fn(|cx| buf.poll_copy(cx, Pin::new(&mut *reader), Pin::new(&mut *writer))).await
}
