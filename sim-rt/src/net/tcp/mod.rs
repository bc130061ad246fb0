//! Simulated [`tokio::net::tcp`]: the TCP handles and the halves a stream
//! splits into.
//!
//! - `listener.rs`: [`TcpListener`](crate::net::TcpListener) (bind, accept).
//! - `stream.rs`: [`TcpStream`](crate::net::TcpStream) (connect, read, write, peek, readiness,
//!   socket options, close on drop).
//! - `split.rs`: [`ReadHalf`] and [`WriteHalf`], borrowed from a stream.
//! - `split_owned.rs`: [`OwnedReadHalf`] and [`OwnedWriteHalf`], sharing a
//!   stream through an `Arc`, and [`ReuniteError`].
//!
//! A handle holds only ids (its simulation, its host and the model's id of
//! its endpoint) plus the socket options it stores, so every type here is
//! `Send + Sync + Unpin` like tokio's. Every operation is the model's
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

use std::io;

// `net/mod.rs` re-exports `TcpListener` and `TcpStream` as
// `sim_rt::net::{TcpListener, TcpStream}`, where tokio has them; tokio's
// `net::tcp` module does not list them, so neither does this one.
pub(super) mod listener;
mod split;
mod split_owned;
pub(super) mod stream;

pub use self::split::{ReadHalf, WriteHalf};
pub use self::split_owned::{OwnedReadHalf, OwnedWriteHalf, ReuniteError};
use self::stream::TcpStream;

/// Linux's default `IP_TTL` (`net.ipv4.ip_default_ttl`), what `ttl()`
/// reports before any `set_ttl`.
const DEFAULT_TTL: u32 = 64;

/// The `IP_TTL` value Linux stores for `set_ttl(ttl)`: 1 to 255, or the
/// default for `u32::MAX` (std passes the value as a C `int`, and -1 means
/// "the default").
///
/// # Errors
///
/// `InvalidInput` (Linux's `EINVAL`) for 0 and for values above 255.
fn checked_ttl(ttl: u32) -> io::Result<u32> {
    match ttl {
        1..=255 => Ok(ttl),
        u32::MAX => Ok(DEFAULT_TTL),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid argument: IP_TTL must be between 1 and 255, got {ttl}"),
        )),
    }
}
