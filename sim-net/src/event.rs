//! Events: what the model tells the runtime after each operation.
//!
//! The model keeps one queue of [`Event`]s that the runtime drains with
//! [`Net::drain_events`] after every call that can change something:
//!
//! - [`Event::Ready`]: an endpoint may now make progress (data or EOF to
//!   read, buffer space to write, a connection to accept, a connect that
//!   completed or failed, an error to report). The runtime wakes the tasks
//!   waiting on that endpoint for that readiness; they retry and may get
//!   `WouldBlock` again (wakes are hints, as with epoll). No event is
//!   emitted for the endpoint whose own operation caused the change, nor
//!   for write space freed in a send buffer that was not full (a writer
//!   waits only after finding no space, so none can be waiting).
//! - [`Event::Sent`]: a packet was created (by a write, a send, a
//!   handshake step, a close or a kernel reply). The runtime reports it to
//!   its scheduler and, for a datagram on a lossy or duplicating link, asks
//!   its data choices (see [`Net::faults`](crate::Net::faults)). A
//!   runtime with no one to report segments to can turn their
//!   announcements off ([`Net::announce_segments`]).
//! - [`Event::Discarded`]: a packet left the network without being
//!   delivered, and why.
//!
//! # Determinism
//!
//! Events are queued in the order the model's code produces them, which
//! depends only on the sequence of calls.

use std::ops::{BitOr, BitOrAssign};

use crate::{ConnId, ListenerId, Net, PacketId, PipeId, SocketId, UnixId};

/// Something that tasks wait on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Endpoint {
    /// A stream endpoint.
    Conn(ConnId),
    /// A listener.
    Listener(ListenerId),
    /// A datagram socket.
    Socket(SocketId),
    /// A Unix domain socket (`unix.rs`).
    Unix(UnixId),
    /// A pipe (`pipe.rs`): readers wait for `READABLE`, writers for
    /// `WRITABLE`.
    Pipe(PipeId),
}

/// A set of readiness kinds, like tokio's `Ready`/`Interest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct Readiness(u8);

impl Readiness {
    /// Nothing.
    pub const EMPTY: Readiness = Readiness(0);
    /// A read-side operation (read, accept, recv, connect result) would not
    /// block.
    pub const READABLE: Readiness = Readiness(1);
    /// A write-side operation (write, send, connect result) would not block.
    pub const WRITABLE: Readiness = Readiness(2);
    /// Both.
    pub const BOTH: Readiness = Readiness(3);

    /// Whether the set includes [`Readiness::READABLE`].
    pub fn is_readable(self) -> bool {
        self.0 & 1 != 0
    }

    /// Whether the set includes [`Readiness::WRITABLE`].
    pub fn is_writable(self) -> bool {
        self.0 & 2 != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every kind in `other` is in `self`.
    pub fn contains(self, other: Readiness) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether some kind is in both `self` and `other`.
    pub fn intersects(self, other: Readiness) -> bool {
        self.0 & other.0 != 0
    }
}

impl BitOr for Readiness {
    type Output = Readiness;

    fn bitor(self, rhs: Readiness) -> Readiness {
        Readiness(self.0 | rhs.0)
    }
}

impl BitOrAssign for Readiness {
    fn bitor_assign(&mut self, rhs: Readiness) {
        self.0 |= rhs.0;
    }
}

/// Why a packet left the network undelivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Discard {
    /// A datagram sent across, or in flight over, a partitioned link.
    Partitioned,
    /// A datagram sent to, or in flight to, a stopped host; or a segment
    /// held in the retransmission queue of a host that stopped.
    HostDown,
    /// A datagram that arrived where no socket is bound (the kernel answers
    /// with an ICMP port unreachable packet, which is sent in its turn).
    NoSocket,
    /// A datagram that arrived at a socket whose receive buffer is full.
    ReceiveBufferFull,
}

/// What happened, for the runtime to act on. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `endpoint` may now make progress on `readiness`.
    Ready {
        /// The endpoint whose waiters to wake.
        endpoint: Endpoint,
        /// Which waiters.
        readiness: Readiness,
    },
    /// A packet was created and is in flight (or held for retransmission).
    /// Queued for every datagram, and for stream segments unless turned
    /// off with [`Net::announce_segments`].
    Sent {
        /// The new packet.
        packet: PacketId,
    },
    /// A packet was removed without being delivered.
    Discarded {
        /// The packet, no longer known to the model.
        packet: PacketId,
        /// Why.
        reason: Discard,
    },
}

impl Net {
    /// Takes every event queued since the last call, oldest first.
    pub fn drain_events(&mut self) -> impl Iterator<Item = Event> + '_ {
        self.events.drain(..)
    }

    /// Whether any event is queued.
    #[inline]
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Appends every event queued since the last call to `out`, oldest
    /// first, like [`Net::drain_events`]; when `out` is empty its buffer is
    /// swapped in rather than copied (what a runtime draining after every
    /// step wants).
    #[inline]
    pub fn take_events(&mut self, out: &mut Vec<Event>) {
        if !self.blocked_at_send.is_empty() || !self.last_blocked.is_empty() {
            self.last_blocked = std::mem::take(&mut self.blocked_at_send);
        }
        if out.is_empty() {
            std::mem::swap(&mut self.events, out);
        } else {
            out.append(&mut self.events);
        }
    }

    /// What `endpoint` is ready for now: an operation of that kind would
    /// not return `WouldBlock`. An unknown (closed, crashed) endpoint is
    /// ready for everything, so that a waiter retries and sees the error.
    pub fn readiness(&self, endpoint: Endpoint) -> Readiness {
        match endpoint {
            Endpoint::Conn(id) => self
                .conns
                .get(&id)
                .map_or(Readiness::BOTH, |c| c.readiness()),
            Endpoint::Listener(id) => self.listeners.get(&id).map_or(Readiness::BOTH, |l| {
                if l.queue.is_empty() {
                    Readiness::EMPTY
                } else {
                    Readiness::READABLE
                }
            }),
            Endpoint::Socket(id) => self.sockets.get(&id).map_or(Readiness::BOTH, |s| {
                if s.queue.is_empty() {
                    Readiness::WRITABLE
                } else {
                    Readiness::BOTH
                }
            }),
            Endpoint::Unix(id) => self.unix.readiness(id),
            Endpoint::Pipe(id) => self.pipes.readiness(id),
        }
    }

    /// Whether the model still knows `endpoint` (it is forgotten once its
    /// handle is closed and its traffic is through, or when its host stops).
    pub fn exists(&self, endpoint: Endpoint) -> bool {
        match endpoint {
            Endpoint::Conn(id) => self.conns.contains_key(&id),
            Endpoint::Listener(id) => self.listeners.contains_key(&id),
            Endpoint::Socket(id) => self.sockets.contains_key(&id),
            Endpoint::Unix(id) => self.unix.exists(id),
            Endpoint::Pipe(id) => self.pipes.exists(id),
        }
    }

    pub(crate) fn wake(&mut self, endpoint: Endpoint, readiness: Readiness) {
        self.events.push(Event::Ready {
            endpoint,
            readiness,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_set_operations() {
        let r = Readiness::READABLE | Readiness::WRITABLE;
        assert_eq!(r, Readiness::BOTH);
        assert!(r.contains(Readiness::READABLE));
        assert!(!Readiness::READABLE.contains(Readiness::BOTH));
        assert!(Readiness::EMPTY.is_empty());
        let mut w = Readiness::EMPTY;
        w |= Readiness::WRITABLE;
        assert!(w.is_writable() && !w.is_readable());
    }

    #[test]
    fn take_events_appends_in_order_and_empties_the_queue() {
        let ev = |n| Event::Sent {
            packet: crate::PacketId::__from_u64(n),
        };
        let mut net = Net::default();
        net.events.extend([ev(1), ev(2)]);
        let mut out = Vec::new();
        net.take_events(&mut out);
        assert_eq!(out, vec![ev(1), ev(2)]);
        assert!(!net.has_events());
        // A non-empty buffer keeps its events and gets the new ones after.
        net.events.push(ev(3));
        net.take_events(&mut out);
        assert_eq!(out, vec![ev(1), ev(2), ev(3)]);
        assert!(!net.has_events());
    }
}
