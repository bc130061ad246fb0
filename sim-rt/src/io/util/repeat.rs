//! [`Repeat`]: an endless reader of one byte.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::poll_proceed_and_make_progress;
use crate::io::{AsyncRead, ReadBuf};

/// Own version of
/// [`tokio::io::Repeat`](https://docs.rs/tokio/1/tokio/io/struct.Repeat.html):
/// a reader that fills every buffer with one byte, forever; made by
/// [`repeat`].
///
/// Each read takes a unit of the task's cooperative budget, so a loop over
/// it yields.
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Repeat {
    byte: u8,
}

/// Own version of
/// [`tokio::io::repeat`](https://docs.rs/tokio/1/tokio/io/fn.repeat.html):
/// creates a [`Repeat`] of `byte`.
///
/// # Differences from tokio
///
/// None.
pub fn repeat(byte: u8) -> Repeat {
    Repeat { byte }
}

impl AsyncRead for Repeat {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        ready!(poll_proceed_and_make_progress(cx));
        let n = buf.remaining();
        buf.initialize_unfilled().fill(self.byte);
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}
