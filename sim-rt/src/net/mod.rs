//! Simulated [`tokio::net`](https://docs.rs/tokio/1/tokio/net/index.html): TCP and UDP over the simulated network.
//!
//! Every socket belongs to the host of the task that created it, and talks
//! through the simulation's network model (`sim_net`): packets take time
//! within each link's latency window, datagrams may be lost, duplicated or
//! reordered, partitions cut links, and host crashes break connections the
//! way a real kernel reports it. Every delivery is a step the scheduler
//! picks (`Deliver`), so an explorer can order messages and timeouts.
//!
//! Host names resolve through the simulation: `"server:80"` reaches the host
//! created with [`sim::host("server")`](crate::sim::host), `"localhost"` the
//! task's own host.
//!
//! # Differences from tokio
//!
//! - There are no OS sockets: `from_std`/`TryFrom` and `into_std` fail
//!   with `Unsupported`; the raw fd of a socket (`AsRawFd`, `AsFd`, for
//!   socket2's `SockRef`) is a real placeholder socket that never reaches
//!   the network. [`TcpSocket`] is such a real socket until it connects or
//!   listens in the simulation, which is how hyper-util's connector (a
//!   socket2 socket handed to `TcpSocket::from_std_stream`) works. Socket
//!   options (`nodelay`, `ttl`, `linger`...) are stored and reported, and
//!   only a zero linger changes behaviour (drop resets the connection).
//! - Unix domain sockets ([`UnixStream`], [`UnixListener`],
//!   [`UnixDatagram`], [`UnixSocket`], [`unix::pipe`]) exist with tokio's
//!   API but are not simulated: their constructors fail with
//!   `Unsupported`.
//! - Time moves only to instants where something becomes due: a timer's
//!   deadline, a window's opening, or (under the explorer) a packet's
//!   latest arrival. So a packet arrives at the opening of its window, or
//!   after any timer or other packet that falls inside it, or, under the
//!   explorer, at the window's end (a *late delivery*: see
//!   [`Scheduler::late_deliveries`](crate::scheduler::Scheduler::late_deliveries)),
//!   which a program that reads the clock on arrival can tell apart. A
//!   plain run (no explorer) delivers a lone packet at its window's
//!   opening.
//! - Readiness (`ready(Interest)`, `readable`, `writable`, `try_io`,
//!   `async_io`) of a `TcpStream` is tokio's: the simulated connection's
//!   state, or what tokio would still have cached (ready until an
//!   operation of that direction returns `WouldBlock`; an accepted stream
//!   starts out readable and writable). For the other sockets it is the
//!   socket's state when it is looked at, with no false positives (tokio
//!   caches those too). A stream's `READ_CLOSED`, `WRITE_CLOSED` and
//!   `ERROR` are what Linux's `poll` would report for the same state. The
//!   closure given to `try_io`/`async_io` must use the socket's own
//!   `try_*` methods: raw I/O on its fd does not reach the simulated
//!   network.
//! - A socket is used on the simulation's own thread only; it is `Send` and
//!   `Sync` like tokio's so code that moves it between tasks compiles.

#[macro_use]
mod options;
mod addr;
mod fd;
pub(crate) mod io;
pub mod tcp;
mod udp;
#[cfg(unix)]
pub mod unix;

pub use self::addr::{lookup_host, ToSocketAddrs};
pub use self::tcp::listener::TcpListener;
pub use self::tcp::socket::TcpSocket;
pub use self::tcp::stream::TcpStream;
pub use self::udp::UdpSocket;
#[cfg(unix)]
pub use self::unix::{UnixDatagram, UnixListener, UnixSocket, UnixStream};

/// Linux's default `IP_TTL` (`net.ipv4.ip_default_ttl`), what `ttl()`
/// reports before any `set_ttl`.
pub(crate) const DEFAULT_TTL: u32 = 64;

/// The `IP_TTL` value Linux stores for `set_ttl(ttl)`: 1 to 255, or the
/// default for `u32::MAX` (std passes the value as a C `int`, and -1 means
/// "the default").
///
/// # Errors
///
/// `InvalidInput` (Linux's `EINVAL`) for 0 and for values above 255.
pub(crate) fn checked_ttl(ttl: u32) -> std::io::Result<u32> {
    match ttl {
        1..=255 => Ok(ttl),
        u32::MAX => Ok(DEFAULT_TTL),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("invalid argument: IP_TTL must be between 1 and 255, got {ttl}"),
        )),
    }
}
