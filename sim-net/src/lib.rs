//! The simulated network as a pure model.
//!
//! `sim_net` knows hosts, addresses, links, sockets and the packets in
//! flight between them, and nothing of futures, clocks or randomness. The
//! runtime (`sim_rt::net`) tells it the time with every call, asks it what
//! could happen next, and makes every choice itself through its scheduler.
//! The same sequence of calls always produces the same answers and events.
//!
//! # How the runtime drives it
//!
//! At each step of an execution the runtime computes the enabled events
//! (DESIGN.md, "The choice point"). The network contributes:
//!
//! - **`Deliver(packet)`** for each id in [`Net::deliverable(now)`](Net::deliverable):
//!   a packet in flight whose latency window has opened; for a stream, only
//!   the oldest undelivered segment of each direction. The runtime calls
//!   [`Net::deliver`] for the one the scheduler picks.
//! - **`Advance`** bounds: time may move to the next instant something
//!   becomes due, which for the network is
//!   [`Net::next_deliverable_at(now)`](Net::next_deliverable_at), but never
//!   past [`Net::latest_arrival()`](Net::latest_arrival), the earliest
//!   instant by which some in-flight packet must have arrived. Whenever
//!   `latest_arrival()` is `Some(t)`, some packet is deliverable at `t`, so
//!   the bound can always be honoured.
//! - **Data choices** for faults: every packet created is announced by
//!   [`Event::Sent`]; for a datagram on a lossy or duplicating link,
//!   [`Net::faults`] gives the odds and the runtime asks its scheduler, then
//!   applies the decision with [`Net::drop_packet`] /
//!   [`Net::duplicate_packet`]. The model has no RNG.
//! - **Wakeups**: after each call the runtime drains [`Net::drain_events`]
//!   and wakes the tasks waiting on each [`Event::Ready`] endpoint. Every
//!   socket operation is non-blocking and returns `WouldBlock` when it must
//!   wait, exactly like a non-blocking socket under mio.
//!
//! ```
//! use std::time::Duration;
//! use sim_net::{Event, Net, NetConfig};
//!
//! let mut net = Net::new(NetConfig::default());
//! let server = net.add_host("server", []);
//! let client = net.add_host("client", []);
//! let t0 = Duration::ZERO;
//!
//! // TcpListener::bind, TcpStream::connect
//! let listener = net.tcp_listen(server, "0.0.0.0:80".parse()?)?;
//! let addr = net.resolve("server")?[0];
//! let conn = net.tcp_connect(client, (addr, 80).into(), t0)?;
//!
//! // The runtime's loop: deliver what is deliverable, or advance time.
//! let mut now = t0;
//! let mut step = |net: &mut Net, now: &mut Duration| {
//!     if let Some(p) = net.deliverable(*now).first() {
//!         net.deliver(*p, *now);
//!     } else if let Some(t) = net.next_deliverable_at(*now) {
//!         assert!(Some(t) <= net.latest_arrival());
//!         *now = t;
//!     }
//!     net.drain_events().for_each(drop); // would wake tasks
//! };
//! step(&mut net, &mut now); // time moves to the SYN's window
//! step(&mut net, &mut now); // SYN delivered: queued for accept, SYN-ACK sent
//! let (accepted, _peer) = net.tcp_accept(listener)?;
//! while net.tcp_finish_connect(conn).is_err() {
//!     step(&mut net, &mut now);
//! }
//!
//! // AsyncWrite / AsyncRead
//! assert_eq!(net.tcp_write(conn, b"ping", now)?, 4);
//! let mut buf = [0u8; 16];
//! while net.tcp_read(accepted, &mut buf, now).is_err() {
//!     step(&mut net, &mut now);
//! }
//! assert_eq!(&buf[..4], b"ping");
//!
//! // UdpSocket: a lossy link leaves the loss decision to the runtime.
//! net.set_link(client, server, sim_net::LinkConfig::default().with_loss(0.1), now);
//! let rx = net.udp_bind(server, "0.0.0.0:53".parse()?)?;
//! let tx = net.udp_bind(client, "0.0.0.0:0".parse()?)?;
//! net.udp_send_to(tx, (addr, 53).into(), b"query", now)?;
//! for event in net.drain_events().collect::<Vec<_>>() {
//!     if let Event::Sent { packet } = event {
//!         let odds = net.faults(packet);
//!         let lose = false; // scheduler.choose(Loss, 2) == 1, when odds.loss > 0
//!         if odds.loss > 0.0 && lose {
//!             net.drop_packet(packet);
//!         }
//!     }
//! }
//! while net.udp_recv_from(rx, &mut buf).is_err() {
//!     step(&mut net, &mut now);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The model
//!
//! - **Hosts** ([`host`](Net::add_host)) have a name, IPv4 and/or IPv6
//!   addresses and loopback. [`Net::resolve`] answers `localhost`, host
//!   names and IP literals, and fails like DNS otherwise.
//! - **Links** ([`LinkConfig`]) are per direction: a latency window
//!   `[min, max]`, datagram loss and duplication odds, a partition flag.
//! - **Streams** (`tcp_*`, see `stream.rs`): handshake, FIFO per direction,
//!   segmentation at the MSS, bounded send and receive buffers with
//!   backpressure, half-close, RST, refused connections.
//! - **Datagrams** (`udp_*`): one packet per send, reorder within
//!   overlapping windows, loss and duplication by runtime decision.
//! - **Unix domain sockets** (`unix_*`, see `unix.rs`): streams,
//!   listeners and datagram sockets within one host, path and abstract
//!   names, pairs; no packets (a write lands in the peer's queue at once),
//!   and lost with their host.
//! - **Pipes** (`pipe_*`, see `pipe.rs`): a host's byte queue with its
//!   read and write ends counted (end of file, broken pipe), for
//!   `pipe(2)` and FIFOs.
//! - **Faults**: partitions ([`Net::partition`], [`Net::set_link`]) and host
//!   crashes ([`Net::stop_host`], [`Net::start_host`], [`Net::reset_host`]).
//!
//! # Decisions
//!
//! - *Loss and duplication apply to datagrams only.* A TCP-like stream never
//!   loses or duplicates bytes; on a lossy link a stream segment's window is
//!   widened by one retransmission timeout instead.
//! - *Partitions cut at once.* When a link becomes partitioned, datagrams in
//!   flight over it are lost, and stream segments in flight go back to the
//!   sender's retransmission queue ("held": no window, not deliverable, no
//!   bound on time). Datagrams sent across a partition are lost; segments
//!   are held. On heal, held segments are sent again, in order, with windows
//!   measured from the heal. So nothing ever crosses a partitioned link,
//!   and a stream survives a partition with its bytes intact (there is no
//!   TCP user timeout in the model; the runtime's timers provide one).
//! - *A stopped host is silent* (crash or power-off): its sockets vanish,
//!   peers are not told, datagrams to it are lost, segments to it are held
//!   (retransmitted) until it starts again. A restarted kernel answers
//!   segments of old connections with RST, and every orphaned peer is sent
//!   an RST at restart, so idle peers learn too. `reset_host` is stop then
//!   start: peers see `ConnectionReset` on their next read or write.
//! - *Errors are the kernel's*, reported once as `SO_ERROR` is (see
//!   `error.rs` for the table).
//! - *Connect to an address no host owns fails at once* with
//!   `ConnectionRefused`; a datagram to it vanishes. A datagram to a port
//!   nobody holds is answered with ICMP port unreachable, which a
//!   connected UDP socket reports as `ConnectionRefused` (`datagram.rs`).
//!
//! # Invariants
//!
//! Checked by [`Net::check_invariants`] (the tests call it after every
//! step): windows never close before `now`; each stream direction's
//! segments are in send order with monotonic windows, all held or none;
//! each endpoint's bytes in flight match its flow, its send buffer is not
//! overfull, and its peer never overruns its receive window.
//!
//! # Determinism
//!
//! Every collection that is iterated is a `BTreeMap` keyed by ids assigned
//! from monotonic counters, a table indexed by such ids and iterated in id
//! order (the stream endpoints and the datagram sockets, `table.rs`), or a
//! `VecDeque` in arrival order; the one hash map (addresses to hosts) is
//! only looked up, so
//! [`Net::deliverable`] returns packets in send order, events come in the
//! order the calls produced them, and ephemeral ports, host addresses and
//! ids are the same on every run. The model reads no clock, draws no random
//! number and spawns no thread.

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]
#![forbid(unsafe_code)]

mod addr;
mod config;
mod datagram;
mod error;
mod event;
mod fault;
mod host;
mod id;
mod link;
mod listener;
mod net;
mod packet;
mod pipe;
mod resolve;
mod store;
mod stream;
mod table;
mod unix;

pub use self::config::NetConfig;
pub use self::datagram::MAX_DATAGRAM;
pub use self::event::{Discard, Endpoint, Event, Readiness};
pub use self::fault::Faults;
pub use self::id::{ConnId, HostId, ListenerId, PacketId, PipeId, SocketId, UnixId};
pub use self::link::LinkConfig;
pub use self::net::Net;
pub use self::packet::{Packet, PacketKind, Window};
pub use self::pipe::{PIPE_BUF, PIPE_CAPACITY};
pub use self::store::Deliverable;
pub use self::stream::TcpHangup;
pub use self::unix::{
    UnixCred, UnixHangup, UnixName, UnixType, DEFAULT_BACKLOG, DGRAM_OVERHEAD, DGRAM_QUEUE,
    DGRAM_SEND_BUFFER, STREAM_QUEUE,
};
