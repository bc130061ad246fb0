//! [`Empty`]: always at end of file, accepts every write.

use std::fmt;
use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::poll_proceed_and_make_progress;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

/// Own version of
/// [`tokio::io::Empty`](https://docs.rs/tokio/1/tokio/io/struct.Empty.html):
/// a reader that is always at end of file and a writer that accepts (and
/// drops) every byte; made by [`empty`].
///
/// Each operation takes a unit of the task's cooperative budget, so a loop
/// over it yields.
///
/// # Differences from tokio
///
/// None.
pub struct Empty {
    _p: (),
}

/// Own version of
/// [`tokio::io::empty`](https://docs.rs/tokio/1/tokio/io/fn.empty.html):
/// creates an [`Empty`].
///
/// # Differences from tokio
///
/// None.
pub fn empty() -> Empty {
    Empty { _p: () }
}

impl AsyncRead for Empty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_proceed_and_make_progress(cx));
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        ready!(poll_proceed_and_make_progress(cx));
        Poll::Ready(Ok(&[]))
    }

    fn consume(self: Pin<&mut Self>, _: usize) {}
}

discarding_write!(Empty);

impl AsyncSeek for Empty {
    fn start_seek(self: Pin<&mut Self>, _position: SeekFrom) -> io::Result<()> {
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        ready!(poll_proceed_and_make_progress(cx));
        Poll::Ready(Ok(0))
    }
}

impl fmt::Debug for Empty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Empty { .. }")
    }
}
