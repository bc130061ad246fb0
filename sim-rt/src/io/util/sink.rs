//! [`Sink`]: a writer that drops everything.

use std::fmt;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::poll_proceed_and_make_progress;
use crate::io::AsyncWrite;

/// Own version of
/// [`tokio::io::Sink`](https://docs.rs/tokio/1/tokio/io/struct.Sink.html):
/// a writer that accepts and drops every byte; made by [`sink`].
///
/// Each operation takes a unit of the task's cooperative budget, so a loop
/// over it yields.
///
/// # Differences from tokio
///
/// None.
pub struct Sink {
    _p: (),
}

/// Own version of
/// [`tokio::io::sink`](https://docs.rs/tokio/1/tokio/io/fn.sink.html):
/// creates a [`Sink`].
///
/// # Differences from tokio
///
/// None.
pub fn sink() -> Sink {
    Sink { _p: () }
}

/// `AsyncWrite` for `$ty` that accepts and drops every byte, each call
/// taking a unit of the task's cooperative budget: [`Sink`]'s, and
/// [`Empty`](super::empty::Empty)'s writes.
macro_rules! discarding_write {
    ($ty:ty) => {
        impl AsyncWrite for $ty {
            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                ready!(poll_proceed_and_make_progress(cx));
                Poll::Ready(Ok(buf.len()))
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                ready!(poll_proceed_and_make_progress(cx));
                Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()))
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(poll_proceed_and_make_progress(cx));
                Poll::Ready(Ok(()))
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                ready!(poll_proceed_and_make_progress(cx));
                Poll::Ready(Ok(()))
            }
        }
    };
}

discarding_write!(Sink);

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Sink { .. }")
    }
}
