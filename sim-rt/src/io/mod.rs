//! sim-rt's own version of
//! [`tokio::io`](https://docs.rs/tokio/1/tokio/io/index.html): the async
//! I/O traits, [`ReadBuf`], the `*Ext` traits and tokio's helpers
//! (buffering, copying, in-memory pipes, splitting, stdio).
//!
//! tokio's `io` is runtime independent except for stdio and `AsyncFd`, so
//! most of this module is a plain reimplementation of tokio 1.x's public
//! API: same names, same signatures, same trait impls, same error kinds and
//! messages. It exists so that a package named `tokio` built on sim-rt
//! does not depend on crates.io's tokio (see DESIGN.md, "The whole graph").
//!
//! # Map
//!
//! - the traits: [`AsyncRead`], [`AsyncWrite`], [`AsyncBufRead`],
//!   [`AsyncSeek`], with tokio's impls for `&mut T`, `Box<T>`, `Pin<P>`,
//!   `&[u8]`, `Vec<u8>` and `std::io::Cursor`;
//! - [`ReadBuf`], [`Interest`], [`Ready`];
//! - `util`: the `*Ext` traits and their futures, [`BufReader`],
//!   [`BufWriter`], [`BufStream`], [`copy`], [`copy_buf`],
//!   [`copy_bidirectional`], [`duplex`], [`simplex`], [`empty`],
//!   [`repeat`], [`sink`], [`Chain`], [`Take`], [`Lines`], [`Split`];
//! - [`split()`], [`join()`]: one object in two halves, two in one;
//! - [`stdin`], [`stdout`], [`stderr`]: the process's own standard streams;
//! - [`unix`]: `AsyncFd`, which cannot exist in a simulation;
//! - with the `tokio-compat` feature, crates.io tokio's own traits on
//!   sim-rt's sockets, files and pipes, for a one-line-swap crate whose
//!   dependencies (tokio-util's `Framed`...) are built against crates.io
//!   tokio. Never in a whole-graph build (a dependency cycle).
//!
//! # Determinism
//!
//! Nothing here reads time or randomness. Wakeups (of a [`DuplexStream`]
//! peer, of a [`split`] half waiting for the other) go to the single waker
//! registered last, as in tokio; stdout/stderr writes complete at once.

mod async_buf_read;
mod async_read;
mod async_seek;
mod async_write;
mod interest;
mod join;
mod read_buf;
mod ready;
mod split;
mod stdio;
#[cfg(unix)]
#[cfg(feature = "tokio-compat")]
mod tokio_compat;
pub mod unix;
mod util;

pub use self::async_buf_read::AsyncBufRead;
pub use self::async_read::AsyncRead;
pub use self::async_seek::AsyncSeek;
pub use self::async_write::AsyncWrite;
pub use self::interest::Interest;
pub use self::join::{join, Join};
pub use self::read_buf::ReadBuf;
pub use self::ready::Ready;
pub use self::split::{split, ReadHalf, WriteHalf};
pub use self::stdio::{stderr, stdin, stdout, Stderr, Stdin, Stdout};
pub use self::util::{
    copy, copy_bidirectional, copy_bidirectional_with_sizes, copy_buf, duplex, empty, repeat,
    simplex, sink, AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader,
    BufStream, BufWriter, Chain, DuplexStream, Empty, Lines, Repeat, SimplexStream, Sink, Split,
    Take,
};
#[doc(no_inline)]
pub use std::io::{Error, ErrorKind, Result, SeekFrom};
