//! [`Take`]: a reader limited to a number of bytes.

// Handing the inner reader the caller's unfilled bytes without
// initializing them needs one `assume_init` (see `poll_read`).
#![allow(unsafe_code)]

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::io::{AsyncBufRead, AsyncRead, ReadBuf};

pin_project! {
    /// Own version of
    /// [`tokio::io::Take`](https://docs.rs/tokio/1/tokio/io/struct.Take.html):
    /// reads at most a limit of bytes from the inner reader; made by
    /// [`AsyncReadExt::take`](super::AsyncReadExt::take).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless you `.await` or poll them"]
    pub struct Take<R> {
        #[pin]
        inner: R,
        limit_: u64,
    }
}

pub(super) fn take<R: AsyncRead>(inner: R, limit: u64) -> Take<R> {
    Take {
        inner,
        limit_: limit,
    }
}

impl<R: AsyncRead> Take<R> {
    /// The number of bytes that can still be read before end of file.
    pub fn limit(&self) -> u64 {
        self.limit_
    }

    /// Sets the number of bytes that can still be read.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit_ = limit
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The inner reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: AsyncRead> AsyncRead for Take<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.limit_ == 0 {
            return Poll::Ready(Ok(()));
        }
        let me = self.project();
        let mut inner = buf.take(usize::try_from(*me.limit_).unwrap_or(usize::MAX));
        let ptr = inner.filled().as_ptr();
        ready!(me.inner.poll_read(cx, &mut inner))?;
        assert_eq!(
            inner.filled().as_ptr(),
            ptr,
            "the inner reader of a Take replaced the ReadBuf it was given by another buffer"
        );
        let n = inner.filled().len();
        // SAFETY: the inner reader filled (so initialized) `n` bytes of the
        // buffer lent to it, which is the start of `buf`'s unfilled part
        // (the pointer is checked above).
        unsafe { buf.assume_init(n) };
        buf.advance(n);
        *me.limit_ -= n as u64;
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncBufRead> AsyncBufRead for Take<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        // At the limit, do not touch the inner reader: it may block.
        if *me.limit_ == 0 {
            return Poll::Ready(Ok(&[]));
        }
        let buf = ready!(me.inner.poll_fill_buf(cx))?;
        let n = u64::try_from(buf.len()).unwrap_or(u64::MAX).min(*me.limit_) as usize;
        Poll::Ready(Ok(&buf[..n]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        // An over-large `amt` must not reset the limit.
        let amt = (amt as u64).min(*me.limit_);
        *me.limit_ -= amt;
        me.inner.consume(amt as usize);
    }
}
