//! crates.io tokio's io traits on sim-rt's readers and writers (the
//! `tokio-compat` feature), for the one-line swap.
//!
//! With `extern crate sim_rt as tokio;` only the user's crate is swapped: a
//! dependency such as tokio-util is still built against crates.io tokio,
//! whose `AsyncRead`/`AsyncWrite` are not sim-rt's. This module implements
//! those traits for sim-rt's sockets, files and pipes, so
//! `tokio_util::codec::Framed::new(socket, codec)` takes a simulated
//! `TcpStream` unchanged.
//!
//! Never turn this feature on in a whole-graph build (sim-tokio patched in
//! as `tokio`): there every crate already uses sim-rt's traits, and the
//! feature's dependency on crates.io tokio would resolve to sim-tokio
//! itself, a dependency cycle cargo rejects.
//!
//! # Invariants
//!
//! Each impl forwards to the sim-rt impl of the same type: a read fills the
//! unfilled part of tokio's `ReadBuf` through a sim-rt `ReadBuf` over the
//! same bytes, and advances it by what was filled.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

/// Reads into tokio's `buf` through sim-rt's `AsyncRead` of `reader`.
fn poll_read_into<R: AsyncRead + ?Sized>(
    reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    buf: &mut tokio::io::ReadBuf<'_>,
) -> Poll<io::Result<()>> {
    let mut ours = ReadBuf::new(buf.initialize_unfilled());
    ready!(reader.poll_read(cx, &mut ours))?;
    let n = ours.filled().len();
    buf.advance(n);
    Poll::Ready(Ok(()))
}

macro_rules! tokio_read {
    ($($ty:ty),* $(,)?) => {$(
        impl tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                poll_read_into(self, cx, buf)
            }
        }
    )*};
}

macro_rules! tokio_write {
    ($($ty:ty),* $(,)?) => {$(
        impl tokio::io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                AsyncWrite::poll_write(self, cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[io::IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                AsyncWrite::poll_write_vectored(self, cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                AsyncWrite::is_write_vectored(self)
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                AsyncWrite::poll_flush(self, cx)
            }

            fn poll_shutdown(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<io::Result<()>> {
                AsyncWrite::poll_shutdown(self, cx)
            }
        }
    )*};
}

use crate::fs::File;
use crate::io::{DuplexStream, SimplexStream};
use crate::net::tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::net::TcpStream;

tokio_read!(
    TcpStream,
    ReadHalf<'_>,
    OwnedReadHalf,
    File,
    DuplexStream,
    SimplexStream
);
tokio_write!(
    TcpStream,
    WriteHalf<'_>,
    OwnedWriteHalf,
    File,
    DuplexStream,
    SimplexStream
);

impl tokio::io::AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, position: io::SeekFrom) -> io::Result<()> {
        AsyncSeek::start_seek(self, position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        AsyncSeek::poll_complete(self, cx)
    }
}
