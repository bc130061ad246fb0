//! Simulated [`tokio::net::tcp`](https://docs.rs/tokio/1/tokio/net/tcp/index.html): the TCP handles and the halves a stream
//! splits into.
//!
//! - `listener.rs`: [`TcpListener`](crate::net::TcpListener) (bind, accept).
//! - `stream.rs`: [`TcpStream`] (connect, read, write, peek, readiness,
//!   socket options, close on drop).
//! - `socket.rs`: [`TcpSocket`](crate::net::TcpSocket) (options, bind,
//!   then connect or listen), a real unconnected socket until then.
//! - `split.rs`: [`ReadHalf`] and [`WriteHalf`], borrowed from a stream.
//! - `split_owned.rs`: [`OwnedReadHalf`] and [`OwnedWriteHalf`], sharing a
//!   stream through an `Arc`, and [`ReuniteError`].
//! - `kept.rs`: the unread bytes of streams that outlive their simulation.
//!
//! A handle holds only ids (its simulation, its host and the model's id of
//! its endpoint), the socket options it stores and its placeholder fd (see
//! `net/fd.rs`), so every type here is `Send + Sync + Unpin` like tokio's. Every operation is the model's
//! non-blocking call, retried when the model reports the endpoint ready
//! (see `net/io.rs`).
//!
//! # Invariants
//!
//! - A handle's endpoint was created for it and is closed in the model only
//!   by the handle's `Drop`. The model forgets it earlier only when its host
//!   stops; operations then report `NotConnected` (`NetIo` checks this before
//!   every model call, so the model's "used after close" panics cannot fire).
//! - A connection accepted from a listener belongs to the listener's host.

// `net/mod.rs` re-exports `TcpListener`, `TcpSocket` and `TcpStream` as
// `sim_rt::net::{TcpListener, TcpSocket, TcpStream}`, where tokio has them; tokio's
// `net::tcp` module does not list them, so neither does this one.
pub(crate) mod kept;
pub(super) mod listener;
pub(super) mod socket;
mod split;
mod split_owned;
pub(super) mod stream;

pub use self::split::{ReadHalf, WriteHalf};
pub use self::split_owned::{OwnedReadHalf, OwnedWriteHalf, ReuniteError};
use self::stream::TcpStream;
