//! Readers that break `AsyncRead`'s contract by replacing the `ReadBuf`
//! they are given with one over another buffer: the helpers that trust
//! the `ReadBuf` to say what was written into the caller's memory
//! (`read_buf`, `read_to_end`, `Take`) panic, as tokio's do, instead of
//! exposing bytes they never wrote.

mod rt_support;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use sim_rt::io::{AsyncRead, AsyncReadExt, ReadBuf};

/// Fills a leaked buffer of its own instead of the one it is given.
struct Swapper;

impl AsyncRead for Swapper {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let own: &'static mut [u8] = Box::leak(vec![7u8; 16].into_boxed_slice());
        *buf = ReadBuf::new(own);
        buf.advance(16);
        Poll::Ready(Ok(()))
    }
}

/// Runs `read` (a helper reading from a [`Swapper`]) to the end, which
/// must panic about the replaced `ReadBuf`.
fn assert_panics_on_the_swap<F: std::future::Future>(read: F) {
    let read = std::panic::AssertUnwindSafe(read);
    let err = std::panic::catch_unwind(|| futures::executor::block_on(read))
        .map(drop)
        .expect_err("expected a panic");
    let msg = rt_support::panic_text(&*err).unwrap_or_default();
    assert!(msg.contains("replaced the ReadBuf"), "{msg}");
}

#[test]
fn read_buf_panics_on_a_replaced_read_buf() {
    assert_panics_on_the_swap(Swapper.read_buf(&mut Vec::with_capacity(10)));
}

#[test]
fn read_to_end_panics_on_a_replaced_read_buf() {
    assert_panics_on_the_swap(Swapper.read_to_end(&mut Vec::with_capacity(64)));
}

#[test]
fn take_panics_on_a_replaced_read_buf() {
    assert_panics_on_the_swap(Swapper.take(10).read(&mut [0u8; 10]));
}
