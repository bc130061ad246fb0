//! [`Chain`]: one reader after another.

use std::fmt;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use pin_project_lite::pin_project;

use crate::io::{AsyncBufRead, AsyncRead, ReadBuf};

pin_project! {
    /// Own version of
    /// [`tokio::io::Chain`](https://docs.rs/tokio/1/tokio/io/struct.Chain.html):
    /// reads the first reader to end of file, then the second; made by
    /// [`AsyncReadExt::chain`](super::AsyncReadExt::chain).
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[must_use = "streams do nothing unless polled"]
    pub struct Chain<T, U> {
        #[pin]
        first: T,
        #[pin]
        second: U,
        done_first: bool,
    }
}

pub(super) fn chain<T: AsyncRead, U: AsyncRead>(first: T, second: U) -> Chain<T, U> {
    Chain {
        first,
        second,
        done_first: false,
    }
}

impl<T: AsyncRead, U: AsyncRead> Chain<T, U> {
    /// The two readers.
    pub fn get_ref(&self) -> (&T, &U) {
        (&self.first, &self.second)
    }

    /// The two readers, mutably. Reading from them directly may confuse
    /// the chain.
    pub fn get_mut(&mut self) -> (&mut T, &mut U) {
        (&mut self.first, &mut self.second)
    }

    /// The two readers, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> (Pin<&mut T>, Pin<&mut U>) {
        let me = self.project();
        (me.first, me.second)
    }

    /// The two readers (buffered data in them is kept).
    pub fn into_inner(self) -> (T, U) {
        (self.first, self.second)
    }
}

impl<T: fmt::Debug, U: fmt::Debug> fmt::Debug for Chain<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chain")
            .field("t", &self.first)
            .field("u", &self.second)
            .finish()
    }
}

impl<T: AsyncRead, U: AsyncRead> AsyncRead for Chain<T, U> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.project();
        if !*me.done_first {
            let before = buf.remaining();
            ready!(me.first.poll_read(cx, buf))?;
            // Nothing read into a buffer with room: the first is at EOF.
            if before == 0 || buf.remaining() != before {
                return Poll::Ready(Ok(()));
            }
            *me.done_first = true;
        }
        me.second.poll_read(cx, buf)
    }
}

impl<T: AsyncBufRead, U: AsyncBufRead> AsyncBufRead for Chain<T, U> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if !*me.done_first {
            match ready!(me.first.poll_fill_buf(cx))? {
                [] => *me.done_first = true,
                buf => return Poll::Ready(Ok(buf)),
            }
        }
        me.second.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        if *me.done_first {
            me.second.consume(amt)
        } else {
            me.first.consume(amt)
        }
    }
}
