//! [`Split`]: the segments of a buffered reader between delimiters.

use std::future::poll_fn;
use std::io;
use std::mem;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use super::read_futures::poll_read_until;
use crate::io::AsyncBufRead;

pin_project! {
    /// Own version of
    /// [`tokio::io::Split`](https://docs.rs/tokio/1/tokio/io/struct.Split.html):
    /// the segments of an [`AsyncBufRead`] separated by a byte; made by
    /// [`AsyncBufReadExt::split`](super::AsyncBufReadExt::split).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Split<R> {
        #[pin]
        reader: R,
        buf: Vec<u8>,
        delim: u8,
        read: usize,
    }
}

pub(super) fn split<R: AsyncBufRead>(reader: R, delim: u8) -> Split<R> {
    Split {
        reader,
        buf: Vec::new(),
        delim,
        read: 0,
    }
}

impl<R: AsyncBufRead + Unpin> Split<R> {
    /// The next segment (without the delimiter), or `None` at end of file.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a segment partly read before a cancellation is kept
    /// and returned by the next call.
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>> {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }
}

impl<R: AsyncBufRead> Split<R> {
    /// Polls for the next segment: `Ready(Ok(None))` at end of file.
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, *me.delim, me.buf, me.read))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        if me.buf.last() == Some(me.delim) {
            me.buf.pop();
        }
        Poll::Ready(Ok(Some(mem::take(me.buf))))
    }
}
