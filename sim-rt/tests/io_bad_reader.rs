//! Readers that break `AsyncRead`'s contract by replacing the `ReadBuf`
//! they are given with one over another buffer: the helpers that trust
//! the `ReadBuf` to say what was written into the caller's memory
//! (`read_buf`, `read_to_end`, `Take`) panic, as tokio's do, instead of
//! exposing bytes they never wrote.

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

fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(f).expect_err("expected a panic");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn read_buf_panics_on_a_replaced_read_buf() {
    let msg = panic_message(|| {
        let mut v = Vec::with_capacity(10);
        let _ = futures::executor::block_on(Swapper.read_buf(&mut v));
    });
    assert!(msg.contains("replaced the ReadBuf"), "{msg}");
}

#[test]
fn read_to_end_panics_on_a_replaced_read_buf() {
    let msg = panic_message(|| {
        let mut v = Vec::with_capacity(64);
        let _ = futures::executor::block_on(Swapper.read_to_end(&mut v));
    });
    assert!(msg.contains("replaced the ReadBuf"), "{msg}");
}

#[test]
fn take_panics_on_a_replaced_read_buf() {
    let msg = panic_message(|| {
        let mut v = [0u8; 10];
        let _ = futures::executor::block_on(Swapper.take(10).read(&mut v));
    });
    assert!(msg.contains("replaced the ReadBuf"), "{msg}");
}
