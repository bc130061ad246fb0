//! tokio's `io-util`: the `*Ext` traits, their futures, and the helper
//! readers and writers.
//!
//! The futures returned by the `*Ext` methods are public types in private
//! modules, as in tokio: they can be held and polled but not named.

#[macro_use]
mod sink;
mod async_buf_read_ext;
mod async_read_ext;
mod async_seek_ext;
mod async_write_ext;
mod buf_reader;
mod buf_stream;
mod buf_writer;
mod chain;
mod copy;
mod copy_bidirectional;
mod copy_buf;
mod empty;
mod lines;
mod mem;
mod read_futures;
mod read_int;
mod repeat;
mod split;
mod take;
mod vec_buf;
mod write_futures;
mod write_int;

pub use self::async_buf_read_ext::AsyncBufReadExt;
pub use self::async_read_ext::AsyncReadExt;
pub use self::async_seek_ext::AsyncSeekExt;
pub use self::async_write_ext::AsyncWriteExt;
pub use self::buf_reader::BufReader;
pub use self::buf_stream::BufStream;
pub use self::buf_writer::BufWriter;
pub use self::chain::Chain;
pub use self::copy::copy;
pub use self::copy_bidirectional::{copy_bidirectional, copy_bidirectional_with_sizes};
pub use self::copy_buf::copy_buf;
pub use self::empty::{empty, Empty};
pub use self::lines::Lines;
pub use self::mem::{duplex, simplex, DuplexStream, SimplexStream};
pub use self::repeat::{repeat, Repeat};
pub use self::sink::{sink, Sink};
pub use self::split::Split;
pub use self::take::Take;

use std::task::{ready, Context, Poll};

/// tokio's default buffer size for `BufReader`, `BufWriter` and `copy`.
const DEFAULT_BUF_SIZE: usize = 8 * 1024;

/// Takes one unit of the task's cooperative budget and counts it as used:
/// for readers and writers that are always ready (`empty`, `repeat`,
/// `sink`), so a loop over them yields, as in tokio.
fn poll_proceed_and_make_progress(cx: &mut Context<'_>) -> Poll<()> {
    let coop = ready!(crate::task::coop::poll_proceed(cx));
    coop.made_progress();
    Poll::Ready(())
}
