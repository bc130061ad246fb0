//! The [`AsyncRead`] trait and tokio's impls of it for std types.

use std::io;
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::ReadBuf;

/// Own version of
/// [`tokio::io::AsyncRead`](https://docs.rs/tokio/1/tokio/io/trait.AsyncRead.html):
/// reads bytes from a source asynchronously.
///
/// Implemented by sim-rt's `TcpStream`, `File`, [`DuplexStream`](super::DuplexStream)
/// and the other readers of this module, and by tokio's std types (`&[u8]`,
/// `std::io::Cursor`, and through `&mut T`, `Box<T>`, `Pin<P>`). Use the
/// methods of [`AsyncReadExt`](super::AsyncReadExt) to read.
///
/// # Differences from tokio
///
/// None.
pub trait AsyncRead {
    /// Attempts to read from the source into `buf`.
    ///
    /// On success returns `Poll::Ready(Ok(()))` and places data in the
    /// unfilled part of `buf`; if no data was read (`buf.filled().len()` is
    /// unchanged) the source has reached its end. Returns `Poll::Pending`
    /// (and arranges for the current task to be woken) when no data is
    /// available yet.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>>;
}

macro_rules! forward_async_read {
    () => {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            Pin::new(&mut **self).poll_read(cx, buf)
        }
    };
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for Box<T> {
    forward_async_read!();
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for &mut T {
    forward_async_read!();
}

impl<P> AsyncRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncRead,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.as_deref_mut().poll_read(cx, buf)
    }
}

impl AsyncRead for &[u8] {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.len().min(buf.remaining());
        let (head, tail) = self.split_at(n);
        buf.put_slice(head);
        *self = tail;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncRead for io::Cursor<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let pos = self.position();
        let data = self.get_ref().as_ref();
        // A position past the end reads nothing and stays where it is.
        let Some(start) = usize::try_from(pos).ok().filter(|&p| p <= data.len()) else {
            return Poll::Ready(Ok(()));
        };
        let n = (data.len() - start).min(buf.remaining());
        buf.put_slice(&data[start..start + n]);
        self.set_position((start + n) as u64);
        Poll::Ready(Ok(()))
    }
}
