//! Model-wide settings: default links, stream buffer sizes and segment size,
//! listen backlog, datagram receive buffer, ephemeral port range.
//!
//! The defaults are chosen for exploration, not for realism where the two
//! differ: a segment (MSS) is 16 KiB rather than Ethernet's 1460 bytes so a
//! typical `write` is one packet and one `Deliver` choice, and the loopback
//! link has a zero-length latency window so traffic a host sends to itself
//! is delivered before simulated time moves. Shrink `mss` and the buffers to
//! explore segment boundaries and backpressure.

use std::ops::RangeInclusive;

use crate::LinkConfig;

/// Settings of a [`Net`](crate::Net).
#[derive(Clone, Debug, PartialEq)]
pub struct NetConfig {
    /// Link between two distinct hosts unless overridden with
    /// [`Net::set_link`](crate::Net::set_link).
    pub default_link: LinkConfig,
    /// Link from a host to itself (loopback and its own addresses) unless
    /// overridden with `set_link(h, h, ..)`.
    pub loopback_link: LinkConfig,
    /// Largest payload of one stream segment, in bytes (at least 1).
    pub mss: usize,
    /// Send buffer of a stream endpoint, in bytes: bytes accepted by `write`
    /// and not yet delivered to the peer. `write` returns `WouldBlock` when
    /// it is full.
    pub send_buffer: usize,
    /// Receive buffer of a stream endpoint, in bytes: delivered bytes not
    /// yet read. It is the window the sender may have in flight.
    pub recv_buffer: usize,
    /// Connections a listener queues before `accept`; a SYN that finds the
    /// queue full is refused with RST.
    pub backlog: usize,
    /// Receive buffer of a datagram socket, in payload bytes; a datagram
    /// that does not fit is dropped, as the kernel does.
    pub udp_recv_buffer: usize,
    /// Ports handed out for port-0 binds and outgoing connections, per host
    /// and protocol, in increasing order (wrapping).
    pub ephemeral_ports: RangeInclusive<u16>,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            default_link: LinkConfig::default(),
            loopback_link: LinkConfig::loopback(),
            mss: 16 * 1024,
            send_buffer: 64 * 1024,
            recv_buffer: 64 * 1024,
            backlog: 1024,
            udp_recv_buffer: 256 * 1024,
            ephemeral_ports: 49152..=65535,
        }
    }
}

impl NetConfig {
    /// Panics with a message naming the setting if the configuration cannot
    /// work.
    pub(crate) fn validate(&self) {
        self.default_link.validate();
        self.loopback_link.validate();
        assert!(self.mss > 0, "NetConfig::mss must be at least 1 byte");
        assert!(
            self.send_buffer > 0 && self.recv_buffer > 0,
            "NetConfig::send_buffer and recv_buffer must be at least 1 byte, or no stream can make progress"
        );
        assert!(
            !self.ephemeral_ports.is_empty() && *self.ephemeral_ports.start() > 0,
            "NetConfig::ephemeral_ports must be a non-empty range of non-zero ports"
        );
    }
}
