//! Packets: what travels over a link, with its arrival window.
//!
//! A packet is a datagram, a stream segment (SYN, SYN-ACK, data, FIN,
//! RST), or the ICMP "port unreachable" a kernel returns for a datagram
//! that found no socket. Stream segments belong to a *flow*: the direction from one
//! stream endpoint (the sender's [`ConnId`]) to its peer. The flow outlives
//! its sending endpoint, so segments sent before a `close` or a crash still
//! arrive, in order, after it.
//!
//! # Invariants
//!
//! - A packet in flight has a [`Window`]; a *held* packet (a stream segment
//!   waiting in its sender's retransmission queue because its link is
//!   partitioned or its destination host is stopped) has none. Held packets
//!   are never deliverable and put no bound on time.
//! - Within a flow, windows are monotonic: each segment's `earliest` and
//!   `latest` are at least its predecessor's. So a flow's head has the
//!   smallest `latest` of its flow, and FIFO delivery can always meet every
//!   window.
//! - Within a flow all packets are held or none is (they share one link).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;

use crate::{ConnId, HostId, PacketId};

/// The interval during which a packet in flight may be delivered.
///
/// It opens at `earliest` (the packet becomes deliverable) and closes at
/// `latest` (time may not advance past it while the packet is in flight).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// First instant at which the packet may be delivered.
    pub earliest: Duration,
    /// Last instant at which the packet may be delivered.
    pub latest: Duration,
}

impl Window {
    /// Whether `t` lies in the window.
    pub fn contains(&self, t: Duration) -> bool {
        self.earliest <= t && t <= self.latest
    }

    /// This window, moved so that it opens and closes no earlier than `prev`.
    pub(crate) fn after(self, prev: Option<Window>) -> Window {
        match prev {
            None => self,
            Some(p) => Window {
                earliest: self.earliest.max(p.earliest),
                latest: self.latest.max(p.latest),
            },
        }
    }
}

/// What a packet is, for observers and the runtime's fault choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PacketKind {
    /// A stream's connection request.
    Syn,
    /// A listener's acceptance of a connection request.
    SynAck,
    /// A segment of stream bytes.
    Data,
    /// End of a stream direction (half-close).
    Fin,
    /// Abortive reset of a connection, or refusal of a SYN.
    Rst,
    /// A datagram.
    Datagram,
    /// ICMP "port unreachable": a receiving kernel's answer to a datagram
    /// that found no socket, sent back to the datagram's source.
    PortUnreachable,
}

impl PacketKind {
    /// Whether the packet belongs to an ordered stream (never lost,
    /// duplicated or reordered).
    pub fn is_stream(self) -> bool {
        !matches!(self, PacketKind::Datagram | PacketKind::PortUnreachable)
    }
}

/// A stream segment's control part.
#[derive(Clone, Debug)]
pub(crate) enum Segment {
    Syn,
    SynAck,
    Data(Payload),
    Fin,
    Rst,
}

/// The bytes of a data segment. Up to [`Payload::INLINE`] bytes (a
/// request, a reply, a test's ping) are kept in the packet itself, so that
/// a small write allocates nothing and a delivery frees nothing; longer
/// segments keep theirs on the heap.
#[derive(Clone)]
pub(crate) enum Payload {
    Inline {
        len: u8,
        bytes: [u8; Payload::INLINE],
    },
    Heap(Box<[u8]>),
}

impl Payload {
    /// The longest payload kept inline.
    pub(crate) const INLINE: usize = 64;

    /// The bytes of `a` followed by those of `b`.
    pub(crate) fn new(a: &[u8], b: &[u8]) -> Payload {
        let n = a.len() + b.len();
        if n <= Payload::INLINE {
            let mut bytes = [0; Payload::INLINE];
            bytes[..a.len()].copy_from_slice(a);
            if !b.is_empty() {
                bytes[a.len()..n].copy_from_slice(b);
            }
            Payload::Inline {
                len: n as u8,
                bytes,
            }
        } else {
            let mut v = Vec::with_capacity(n);
            v.extend_from_slice(a);
            v.extend_from_slice(b);
            Payload::Heap(v.into_boxed_slice())
        }
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Payload::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Payload::Heap(b) => b,
        }
    }
}

impl std::fmt::Debug for Payload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Payload").field(&self.as_slice()).finish()
    }
}

/// What the packet carries.
#[derive(Clone, Debug)]
pub(crate) enum Body {
    Datagram(Bytes),
    /// ICMP port unreachable about a datagram from this packet's `dst` to
    /// its `src` (the packet travels back, so the addresses are swapped).
    PortUnreachable,
    Segment {
        /// The sending endpoint: the flow this segment belongs to. For a
        /// kernel's reply with no endpoint (RST to an unknown port), a fresh
        /// id that names no endpoint.
        from: ConnId,
        /// The receiving endpoint; `None` only for a SYN, whose receiver is
        /// created when it arrives.
        to: Option<ConnId>,
        seg: Segment,
    },
}

/// A packet in flight or held for retransmission.
#[derive(Clone, Debug)]
pub struct Packet {
    pub(crate) id: PacketId,
    /// No older packet of its flow is in the network (always, for a
    /// datagram). Kept by the packet store (see `store`).
    pub(crate) head: bool,
    pub(crate) src_host: HostId,
    pub(crate) dst_host: HostId,
    pub(crate) src: SocketAddr,
    pub(crate) dst: SocketAddr,
    pub(crate) sent_at: Duration,
    pub(crate) body: Body,
    pub(crate) window: Option<Window>,
}

impl Packet {
    /// Sending host.
    pub fn src_host(&self) -> HostId {
        self.src_host
    }

    /// Receiving host.
    pub fn dst_host(&self) -> HostId {
        self.dst_host
    }

    /// Source address.
    pub fn src(&self) -> SocketAddr {
        self.src
    }

    /// Destination address.
    pub fn dst(&self) -> SocketAddr {
        self.dst
    }

    /// When the packet was first sent.
    pub fn sent_at(&self) -> Duration {
        self.sent_at
    }

    /// What the packet is.
    pub fn kind(&self) -> PacketKind {
        match &self.body {
            Body::Datagram(_) => PacketKind::Datagram,
            Body::PortUnreachable => PacketKind::PortUnreachable,
            Body::Segment { seg, .. } => match seg {
                Segment::Syn => PacketKind::Syn,
                Segment::SynAck => PacketKind::SynAck,
                Segment::Data(_) => PacketKind::Data,
                Segment::Fin => PacketKind::Fin,
                Segment::Rst => PacketKind::Rst,
            },
        }
    }

    /// The payload of a datagram or data segment (empty for control
    /// segments).
    pub fn payload(&self) -> &[u8] {
        match &self.body {
            Body::Datagram(b) => b,
            Body::Segment {
                seg: Segment::Data(b),
                ..
            } => b.as_slice(),
            Body::Segment { .. } | Body::PortUnreachable => &[],
        }
    }

    /// The arrival window, or `None` while the packet is held in its
    /// sender's retransmission queue (partition or stopped destination).
    pub fn window(&self) -> Option<Window> {
        self.window
    }

    /// The stream endpoint that sent this segment (its flow), if it is one.
    pub fn flow(&self) -> Option<ConnId> {
        match self.body {
            Body::Segment { from, .. } => Some(from),
            Body::Datagram(_) | Body::PortUnreachable => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(e: u64, l: u64) -> Window {
        Window {
            earliest: Duration::from_millis(e),
            latest: Duration::from_millis(l),
        }
    }

    #[test]
    fn after_keeps_windows_monotonic() {
        assert_eq!(w(1, 5).after(None), w(1, 5));
        assert_eq!(w(1, 5).after(Some(w(3, 4))), w(3, 5));
        assert_eq!(w(1, 5).after(Some(w(0, 9))), w(1, 9));
        let clamped = w(1, 2).after(Some(w(6, 9)));
        assert!(clamped.earliest <= clamped.latest);
    }

    #[test]
    fn payloads_keep_their_bytes_inline_or_not() {
        let long: Vec<u8> = (0..=255).collect();
        for (a, b) in [
            (&long[..0], &long[..0]),
            (&long[..3], &long[10..12]),
            (&long[..64], &long[..0]),
            (&long[..0], &long[..64]),
            (&long[..40], &long[100..125]),
            (&long[..], &long[..7]),
        ] {
            let p = Payload::new(a, b);
            assert_eq!(p.as_slice(), [a, b].concat());
            assert_eq!(
                matches!(p, Payload::Inline { .. }),
                a.len() + b.len() <= Payload::INLINE
            );
        }
    }

    #[test]
    fn contains_is_inclusive() {
        assert!(w(1, 5).contains(Duration::from_millis(1)));
        assert!(w(1, 5).contains(Duration::from_millis(5)));
        assert!(!w(1, 5).contains(Duration::from_millis(6)));
    }
}
