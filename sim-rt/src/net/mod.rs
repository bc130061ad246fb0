//! Simulated [`tokio::net`]: TCP and UDP over the simulated network.
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
//! - Items that wrap real OS sockets (`from_std`, `into_std`, raw fds,
//!   `TcpSocket`, Unix sockets) are not simulated; socket options
//!   (`nodelay`, `ttl`, `linger`...) are stored and reported, and only a
//!   zero linger changes behaviour (drop resets the connection).
//! - A packet travelling alone arrives at the start of its latency window:
//!   time moves only to instants where something becomes due, so within a
//!   window the arrival instant matters only relative to timers and other
//!   packets, and those orders are explored.
//! - `ready(Interest)` is not provided (tokio's `Interest` lives behind its
//!   `net` feature, which would pull in the real reactor); `readable` and
//!   `writable` are.
//! - A socket is used on the simulation's own thread only; it is `Send` and
//!   `Sync` like tokio's so code that moves it between tasks compiles.

mod addr;
pub(crate) mod io;
pub mod tcp;
mod udp;

pub use self::addr::{lookup_host, ToSocketAddrs};
pub use self::tcp::listener::TcpListener;
pub use self::tcp::stream::TcpStream;
pub use self::udp::UdpSocket;
