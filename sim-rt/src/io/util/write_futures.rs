//! The futures of [`AsyncWriteExt`](super::AsyncWriteExt) (except the
//! integer writes, in `write_int`).
//!
//! Each is `!Unpin`, as tokio's are (a `PhantomPinned` field).

use std::future::Future;
use std::io::{self, IoSlice};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::Buf;
use pin_project_lite::pin_project;

use crate::io::AsyncWrite;

/// tokio's bound on the number of slices `write_buf` gathers.
const MAX_VECTOR_ELEMENTS: usize = 64;

/// Declares a future struct: `!Unpin` through a pinned `PhantomPinned`,
/// with a `new` that takes the other fields in order.
macro_rules! future_struct {
    ($(#[$doc:meta])* $name:ident<$($lt:lifetime,)* $w:ident $(, $extra:ident)?> { $($field:ident: $ty:ty),* $(,)? }) => {
        pin_project! {
            $(#[$doc])*
            #[derive(Debug)]
            #[must_use = "futures do nothing unless you `.await` or poll them"]
            pub struct $name<$($lt,)* $w: ?Sized $(, $extra)?> {
                $($field: $ty,)*
                // `!Unpin`, as tokio's futures (for async trait methods).
                #[pin]
                _pin: PhantomPinned,
            }
        }

        impl<$($lt,)* $w: ?Sized $(, $extra)?> $name<$($lt,)* $w $(, $extra)?> {
            pub(super) fn new($($field: $ty),*) -> Self {
                $name { $($field,)* _pin: PhantomPinned }
            }
        }
    };
}

future_struct!(
    /// The future of [`AsyncWriteExt::write`](super::AsyncWriteExt::write).
    Write<'a, W> { writer: &'a mut W, buf: &'a [u8] }
);

impl<W: AsyncWrite + ?Sized + Unpin> Future for Write<'_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        Pin::new(&mut **me.writer).poll_write(cx, me.buf)
    }
}

future_struct!(
    /// The future of [`AsyncWriteExt::write_vectored`](super::AsyncWriteExt::write_vectored).
    WriteVectored<'a, 'b, W> { writer: &'a mut W, bufs: &'a [IoSlice<'b>] }
);

impl<W: AsyncWrite + ?Sized + Unpin> Future for WriteVectored<'_, '_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        Pin::new(&mut **me.writer).poll_write_vectored(cx, me.bufs)
    }
}

/// One write of `buf`'s next bytes, vectored when `writer` prefers it.
fn poll_write_some<W: AsyncWrite + ?Sized + Unpin, B: Buf>(
    writer: &mut W,
    cx: &mut Context<'_>,
    buf: &B,
) -> Poll<io::Result<usize>> {
    if writer.is_write_vectored() {
        let mut slices = [IoSlice::new(&[]); MAX_VECTOR_ELEMENTS];
        let n = buf.chunks_vectored(&mut slices);
        Pin::new(writer).poll_write_vectored(cx, &slices[..n])
    } else {
        Pin::new(writer).poll_write(cx, buf.chunk())
    }
}

future_struct!(
    /// The future of [`AsyncWriteExt::write_buf`](super::AsyncWriteExt::write_buf).
    WriteBuf<'a, W, B> { writer: &'a mut W, buf: &'a mut B }
);

impl<W: AsyncWrite + Unpin, B: Buf> Future for WriteBuf<'_, W, B> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = self.project();
        if !me.buf.has_remaining() {
            return Poll::Ready(Ok(0));
        }
        let n = ready!(poll_write_some(&mut **me.writer, cx, &**me.buf))?;
        me.buf.advance(n);
        Poll::Ready(Ok(n))
    }
}

future_struct!(
    /// The future of [`AsyncWriteExt::write_all_buf`](super::AsyncWriteExt::write_all_buf).
    WriteAllBuf<'a, W, B> { writer: &'a mut W, buf: &'a mut B }
);

impl<W: AsyncWrite + Unpin, B: Buf> Future for WriteAllBuf<'_, W, B> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.project();
        while me.buf.has_remaining() {
            match ready!(poll_write_some(&mut **me.writer, cx, &**me.buf)) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => me.buf.advance(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(()))
    }
}

future_struct!(
    /// The future of [`AsyncWriteExt::write_all`](super::AsyncWriteExt::write_all).
    WriteAll<'a, W> { writer: &'a mut W, buf: &'a [u8] }
);

impl<W: AsyncWrite + ?Sized + Unpin> Future for WriteAll<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.project();
        while !me.buf.is_empty() {
            match ready!(Pin::new(&mut **me.writer).poll_write(cx, me.buf)) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => *me.buf = &me.buf[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(()))
    }
}

future_struct!(
    /// The future of [`AsyncWriteExt::flush`](super::AsyncWriteExt::flush).
    Flush<'a, W> { writer: &'a mut W }
);

impl<W: AsyncWrite + ?Sized + Unpin> Future for Flush<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut **self.project().writer).poll_flush(cx)
    }
}

future_struct!(
    /// The future of [`AsyncWriteExt::shutdown`](super::AsyncWriteExt::shutdown).
    Shutdown<'a, W> { writer: &'a mut W }
);

impl<W: AsyncWrite + ?Sized + Unpin> Future for Shutdown<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut **self.project().writer).poll_shutdown(cx)
    }
}
