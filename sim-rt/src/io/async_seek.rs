//! The [`AsyncSeek`] trait and tokio's impls of it for std types.

use std::io::{self, SeekFrom};
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Own version of
/// [`tokio::io::AsyncSeek`](https://docs.rs/tokio/1/tokio/io/trait.AsyncSeek.html):
/// moves the cursor of a stream of bytes, in two steps.
///
/// [`start_seek`](Self::start_seek) starts a seek; then
/// [`poll_complete`](Self::poll_complete) waits for it and returns the new
/// position. Use [`AsyncSeekExt`](super::AsyncSeekExt) to seek.
///
/// # Differences from tokio
///
/// None.
pub trait AsyncSeek {
    /// Starts a seek to `position`. Returns an error if a seek is already in
    /// progress (an implementation may also start it later, in
    /// `poll_complete`).
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()>;

    /// Waits for the seek started with [`start_seek`](Self::start_seek) and
    /// returns the new position from the start of the stream. Without a
    /// seek in progress, returns the current position.
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>>;
}

macro_rules! forward_async_seek {
    () => {
        fn start_seek(mut self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
            Pin::new(&mut **self).start_seek(position)
        }

        fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
            Pin::new(&mut **self).poll_complete(cx)
        }
    };
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for Box<T> {
    forward_async_seek!();
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for &mut T {
    forward_async_seek!();
}

impl<P> AsyncSeek for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncSeek,
{
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.as_deref_mut().start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.as_deref_mut().poll_complete(cx)
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncSeek for io::Cursor<T> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        io::Seek::seek(self.get_mut(), position).map(drop)
    }

    fn poll_complete(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.get_mut().position()))
    }
}
