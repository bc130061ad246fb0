//! [`join`]: a reader and a writer as one `AsyncRead + AsyncWrite` value.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use super::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

/// Own version of
/// [`tokio::io::join`](https://docs.rs/tokio/1/tokio/io/fn.join.html):
/// joins a reader and a writer into a single handle.
///
/// # Differences from tokio
///
/// None.
pub fn join<R, W>(reader: R, writer: W) -> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    Join { reader, writer }
}

pin_project! {
    /// Own version of
    /// [`tokio::io::Join`](https://docs.rs/tokio/1/tokio/io/struct.Join.html):
    /// a reader and a writer as one handle, made by [`join`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    pub struct Join<R, W> {
        #[pin]
        reader: R,
        #[pin]
        writer: W,
    }
}

impl<R, W> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    /// Splits this `Join` back into its reader and writer.
    pub fn into_inner(self) -> (R, W) {
        (self.reader, self.writer)
    }

    /// The reader.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// The writer.
    pub fn writer(&self) -> &W {
        &self.writer
    }

    /// The reader, mutably.
    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The writer, mutably.
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// The reader, pinned.
    pub fn reader_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().reader
    }

    /// The writer, pinned.
    pub fn writer_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().writer
    }
}

impl<R: AsyncRead, W> AsyncRead for Join<R, W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().reader.poll_read(cx, buf)
    }
}

impl<R, W: AsyncWrite> AsyncWrite for Join<R, W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.writer.is_write_vectored()
    }
}

impl<R: AsyncBufRead, W> AsyncBufRead for Join<R, W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().reader.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().reader.consume(amt)
    }
}
