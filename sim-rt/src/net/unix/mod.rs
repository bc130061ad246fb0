//! Simulated/own version of
//! [`tokio::net::unix`](https://docs.rs/tokio/1/tokio/net/unix/index.html):
//! Unix domain sockets, pipes and FIFOs on the simulated hosts.
//!
//! A Unix socket belongs to the host of the task that made it: streams,
//! listeners and datagram sockets are `sim_net`'s model of Linux's
//! `AF_UNIX` (`unix.rs` there: a write lands in the peer's queue at once,
//! queues are bounded, a close with unread bytes resets the peer, a host
//! reset closes them all). A path is the host's: binding one creates a
//! socket file on the host's simulated disk (`disk::HostDisk::bind_socket`),
//! which follows the disk's crash model and stays after the socket closes
//! (a connect to it is then refused, a bind fails with `AddrInUse` until
//! it is removed), and a connect resolves the path on that disk. A name
//! starting with a NUL byte is in the host's abstract namespace. Peer
//! credentials are the process's the simulation runs in.
//!
//! Like tokio's constructors, the ones that register with the I/O driver
//! (`bind`, `connect`, `pair`, `unbound`, `from_std`) panic outside a
//! runtime and in one built without `enable_io`, and fail with the error
//! `is_rt_shutdown_err` recognises in one that was shut down.
//!
//! # Differences from tokio
//!
//! - `from_std` takes only std sockets made inside the simulation (which
//!   are simulated: `disk::posix::sock`); a real one cannot join a
//!   simulated host (`Unsupported`). `into_std` gives a std socket on the
//!   simulated one.
//! - Pipes and FIFOs ([`pipe`]) are the host's too (`disk::posix::pipe`);
//!   a real one, made outside the simulation, cannot join it.

#[macro_use]
mod methods;
mod core;
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
