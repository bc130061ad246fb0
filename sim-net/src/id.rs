//! Small copyable identifiers for everything the model tracks.
//!
//! # Invariants
//!
//! Identifiers are handed out from per-kind counters that only go up, so an
//! identifier is never reused within one [`Net`](crate::Net): a stale
//! [`ConnId`] can never name a newer connection, and a packet still in flight
//! from an endpoint that no longer exists keeps a unique flow key. Hosts are
//! numbered in the order they were added.
//!
//! # Determinism
//!
//! All identifiers order by their number (`Ord`), and every collection in
//! the model that is iterated is keyed by them in a `BTreeMap` or indexed
//! by them in a table iterated in id order (`table.rs`), so iteration
//! follows creation order.

use std::fmt;

macro_rules! id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub(crate) u64);

        impl $name {
            /// The identifier's number: unique within one [`Net`](crate::Net),
            /// assigned in creation order.
            pub fn as_u64(self) -> u64 {
                self.0
            }

            /// An identifier with number `n`, for tests of code that
            /// consumes identifiers (an explorer's unit tests); a model never
            /// needs it.
            #[doc(hidden)]
            pub fn __from_u64(n: u64) -> Self {
                $name(n)
            }
        }

        impl crate::table::TableId for $name {
            fn number(self) -> u64 {
                self.0
            }
            fn from_number(n: u64) -> Self {
                $name(n)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id!(
    /// A simulated host (a machine with a kernel, addresses and sockets).
    ///
    /// Hosts are numbered from 0 in the order they were added with
    /// [`Net::add_host`](crate::Net::add_host).
    HostId,
    "host"
);

id!(
    /// One endpoint of an ordered byte stream (one side of a TCP connection:
    /// what a `TcpStream` wraps). The two sides of a connection have
    /// different ids.
    ConnId,
    "conn"
);

id!(
    /// A listening stream socket (what a `TcpListener` wraps).
    ListenerId,
    "listener"
);

id!(
    /// A datagram socket (what a `UdpSocket` wraps).
    SocketId,
    "socket"
);

id!(
    /// A Unix domain socket (what a `UnixStream`, `UnixListener` or
    /// `UnixDatagram` wraps).
    UnixId,
    "unix"
);

id!(
    /// A pipe (`pipe(2)`, or a FIFO while it is open).
    PipeId,
    "pipe"
);

id!(
    /// A packet in flight. Packets are numbered in the order they were
    /// created, so this order is also the send order.
    PacketId,
    "packet"
);

impl HostId {
    pub(crate) fn index(self) -> usize {
        usize::try_from(self.0).expect("host ids index the host table")
    }
}

/// Monotonic counters, one per identifier kind.
#[derive(Debug, Default)]
pub(crate) struct IdGen {
    conn: u64,
    listener: u64,
    socket: u64,
    packet: u64,
    unix: u64,
    pipe: u64,
}

impl IdGen {
    pub(crate) fn conn(&mut self) -> ConnId {
        self.conn += 1;
        ConnId(self.conn)
    }

    pub(crate) fn listener(&mut self) -> ListenerId {
        self.listener += 1;
        ListenerId(self.listener)
    }

    pub(crate) fn socket(&mut self) -> SocketId {
        self.socket += 1;
        SocketId(self.socket)
    }

    pub(crate) fn unix(&mut self) -> UnixId {
        self.unix += 1;
        UnixId(self.unix)
    }

    pub(crate) fn pipe(&mut self) -> PipeId {
        self.pipe += 1;
        PipeId(self.pipe)
    }

    pub(crate) fn packet(&mut self) -> PacketId {
        self.packet += 1;
        PacketId(self.packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_ordered_by_creation() {
        let mut ids = IdGen::default();
        let a = ids.conn();
        let b = ids.conn();
        assert!(a < b);
        assert_ne!(a, b);
        assert_eq!(ids.packet().as_u64(), 1);
        assert_eq!(ids.packet().to_string(), "packet2");
        assert_eq!(HostId(3).index(), 3);
    }
}
