//! [`copy_bidirectional`]: copy both ways between two streams.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::copy::CopyBuffer;
use crate::io::{AsyncRead, AsyncWrite};

/// One direction: copy to EOF, then shut the writer down.
enum Transfer {
    Running(CopyBuffer),
    ShuttingDown(u64),
    Done(u64),
}

fn poll_transfer<A, B>(
    cx: &mut Context<'_>,
    state: &mut Transfer,
    r: &mut A,
    w: &mut B,
) -> Poll<io::Result<u64>>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    loop {
        match state {
            Transfer::Running(buf) => {
                let n = ready!(buf.poll_copy(cx, Pin::new(&mut *r), Pin::new(&mut *w)))?;
                *state = Transfer::ShuttingDown(n);
            }
            Transfer::ShuttingDown(n) => {
                ready!(Pin::new(&mut *w).poll_shutdown(cx))?;
                *state = Transfer::Done(*n);
            }
            Transfer::Done(n) => return Poll::Ready(Ok(*n)),
        }
    }
}

async fn copy_both<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b: CopyBuffer,
    b_to_a: CopyBuffer,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    let mut a_to_b = Transfer::Running(a_to_b);
    let mut b_to_a = Transfer::Running(b_to_a);
    poll_fn(|cx| {
        // Poll both every time: a finished direction stays `Done`.
        let ab = poll_transfer(cx, &mut a_to_b, a, b)?;
        let ba = poll_transfer(cx, &mut b_to_a, b, a)?;
        Poll::Ready(Ok((ready!(ab), ready!(ba))))
    })
    .await
}

/// Own version of
/// [`tokio::io::copy_bidirectional`](https://docs.rs/tokio/1/tokio/io/fn.copy_bidirectional.html):
/// copies from `a` to `b` and from `b` to `a` at once (8 KiB buffers),
/// shutting down each writer when its reader reaches EOF; returns
/// `(bytes a to b, bytes b to a)` once both directions are done.
///
/// # Errors
///
/// The first error in either direction ends both.
///
/// # Differences from tokio
///
/// None.
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    let size = super::DEFAULT_BUF_SIZE;
    copy_both(a, b, CopyBuffer::new(size), CopyBuffer::new(size)).await
}

/// Own version of
/// [`tokio::io::copy_bidirectional_with_sizes`](https://docs.rs/tokio/1/tokio/io/fn.copy_bidirectional_with_sizes.html):
/// [`copy_bidirectional`] with the given buffer sizes.
///
/// # Panics
///
/// Panics if a size is 0.
///
/// # Differences from tokio
///
/// None.
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0"
    );
    copy_both(
        a,
        b,
        CopyBuffer::new(a_to_b_buf_size),
        CopyBuffer::new(b_to_a_buf_size),
    )
    .await
}
