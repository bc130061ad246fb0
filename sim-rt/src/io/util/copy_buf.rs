//! [`copy_buf`]: copy from a buffered reader without a buffer of our own.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::io::{AsyncBufRead, AsyncWrite};
use crate::task::coop;

/// Own version of
/// [`tokio::io::copy_buf`](https://docs.rs/tokio/1/tokio/io/fn.copy_buf.html):
/// copies everything `reader` yields into `writer`, writing straight from
/// the reader's buffer, then flushes `writer`; returns the number of bytes
/// copied.
///
/// # Differences from tokio
///
/// None.
pub async fn copy_buf<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut amt = 0;
    let mut need_flush = false;
    poll_fn(|cx| poll_copy_buf(cx, &mut *reader, &mut *writer, &mut amt, &mut need_flush)).await
}

fn poll_copy_buf<R, W>(
    cx: &mut Context<'_>,
    reader: &mut R,
    writer: &mut W,
    amt: &mut u64,
    need_flush: &mut bool,
) -> Poll<io::Result<u64>>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    let coop = ready!(coop::poll_proceed(cx));
    loop {
        let buffer = match Pin::new(&mut *reader).poll_fill_buf(cx) {
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
            Poll::Ready(res) => {
                coop.made_progress();
                res?
            }
            Poll::Pending => {
                // The reader may be waiting for what our writer buffered.
                if *need_flush {
                    ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                    *need_flush = false;
                }
                return Poll::Pending;
            }
        };
        if buffer.is_empty() {
            ready!(Pin::new(&mut *writer).poll_flush(cx))?;
            return Poll::Ready(Ok(*amt));
        }
        let n = match ready!(Pin::new(&mut *writer).poll_write(cx, buffer)) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            res => res?,
        };
        if n == 0 {
            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
        }
        *amt += n as u64;
        *need_flush = true;
        Pin::new(&mut *reader).consume(n);
    }
}
