//! Simulated/own version of
//! [`tokio::net::unix`](https://docs.rs/tokio/1/tokio/net/unix/index.html):
//! Unix domain sockets and FIFO pipes, with tokio's API, not simulated.
//!
//! Libraries name these types (tonic and hyper-util accept Unix socket
//! endpoints, axum serves on a `UnixListener`), so they exist with tokio's
//! signatures and the code builds. But a Unix socket or a FIFO is a real
//! file of the machine, outside the simulated hosts, so nothing it does
//! could be replayed. Every constructor ([`UnixStream::connect`],
//! [`UnixListener::bind`], [`UnixDatagram::bind`], `pair`, `unbound`,
//! `from_std`, [`pipe::pipe`], [`pipe::OpenOptions::open_sender`]...)
//! returns an `io::Error` of kind [`Unsupported`](std::io::ErrorKind::Unsupported)
//! that says so and what to use instead: TCP between simulated hosts.
//! Those that register with tokio's I/O driver (the sockets' `bind`,
//! `bind_addr`, `connect`, `pair`, `unbound`, `from_std`) do that first,
//! as tokio's: outside a runtime, or in one built without `enable_io`,
//! they panic with tokio's message, and in one shut down they fail with
//! the error `is_rt_shutdown_err` recognises. The
//! socket types can therefore never exist: each holds an uninhabited
//! field, and their methods are total over it (as `process.rs` does for
//! child processes).
//!
//! [`SocketAddr`] and [`UCred`] are plain values and behave as tokio's;
//! [`UnixSocket`] is a real, unconnected socket until it would bind,
//! listen or connect, which fail like the constructors.
//!
//! # Differences from tokio
//!
//! Nothing here is simulated (see above).

#[macro_use]
mod never;
mod datagram;
mod listener;
pub mod pipe;
mod socket;
mod socketaddr;
mod split;
mod stream;
mod ucred;

pub use self::datagram::UnixDatagram;
pub use self::listener::UnixListener;
pub use self::socket::UnixSocket;
pub use self::socketaddr::SocketAddr;
pub use self::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use self::stream::UnixStream;
pub use self::ucred::UCred;

/// A type alias for `uid_t`, as tokio defines it.
#[allow(non_camel_case_types)]
pub type uid_t = u32;

/// A type alias for `gid_t`, as tokio defines it.
#[allow(non_camel_case_types)]
pub type gid_t = u32;

/// A type alias for `pid_t`, as tokio defines it.
#[allow(non_camel_case_types)]
pub type pid_t = i32;

/// No value: the field of every type a simulation cannot make.
#[derive(Debug, Clone, Copy)]
enum Never {}

impl Never {
    /// Any type, from a value that cannot exist.
    fn absurd<T>(&self) -> T {
        match *self {}
    }
}

/// What the constructors that register with tokio's I/O driver do here:
/// register, as tokio's (so they panic outside a runtime and in one built
/// without `enable_io`, and fail with the error `is_rt_shutdown_err`
/// recognises in one that was shut down), then fail with [`unsupported`].
#[track_caller]
fn refuse<T>(item: &str) -> std::io::Result<T> {
    super::fd::register()?;
    Err(unsupported(item))
}

/// The error of every constructor here.
fn unsupported(item: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!(
            "{item}: Unix domain sockets and pipes are not simulated by sim-rt (they are real \
             files of the machine, outside the simulated hosts, so the run could not be \
             reproduced). Connect simulated hosts over TCP instead (tokio::net::TcpListener / \
             TcpStream between hosts made with sim_rt::sim::host)"
        ),
    )
}
