//! The story of a run: what happened, step by step, in the facts a report
//! needs to tell a failure in words (which packet, between which hosts,
//! how big, what it said; which timer fired on which host; which fault
//! cut which link). Recorded only when asked
//! ([`Builder::record_story`](super::Builder::record_story)): the explorer
//! re-runs the execution it reports with it on. Off, each recording point
//! costs one test of an `Option`.

use std::time::Duration;

use crate::scheduler::HostId;
use crate::scheduler::PacketId;
use crate::task::Id;

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Told {
    /// The step (event run) it happened at, numbered as
    /// [`Failure::step`](super::Failure::step) numbers them.
    pub step: u64,
    /// The trace's length then: the choice point it happened at or after,
    /// as replay tokens number them.
    pub point: u64,
    /// Simulated time since the start.
    pub at: Duration,
    /// What.
    pub what: Happening,
}

/// What happened (see [`Told`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Happening {
    /// A task was spawned on `host`.
    Spawned {
        /// The task.
        task: Id,
        /// Its host.
        host: HostId,
    },
    /// A packet was sent.
    Sent {
        /// The packet.
        packet: PacketId,
        /// Sending and receiving hosts.
        from: HostId,
        /// The receiving host.
        to: HostId,
        /// What it is: "datagram", "SYN", "data", "FIN"...
        kind: &'static str,
        /// Its payload's length in bytes.
        bytes: usize,
        /// The payload's first bytes, printable characters as they are
        /// and others as `.`.
        text: String,
    },
    /// A packet was delivered.
    Delivered {
        /// The packet.
        packet: PacketId,
    },
    /// A packet left the network undelivered.
    Lost {
        /// The packet.
        packet: PacketId,
        /// Why, in words ("by chance", "partitioned", "host down"...).
        why: &'static str,
    },
    /// A packet was duplicated.
    Duplicated {
        /// The original.
        packet: PacketId,
        /// The copy.
        copy: PacketId,
    },
    /// The link `from -> to` was partitioned or healed.
    Link {
        /// Sending side.
        from: HostId,
        /// Receiving side.
        to: HostId,
        /// Partitioned (or healed).
        partitioned: bool,
    },
    /// A host stopped (a reset is a stop and a start at the same step).
    Stopped {
        /// The host.
        host: HostId,
    },
    /// A host started (again).
    Started {
        /// The host.
        host: HostId,
    },
    /// A host was paused or resumed.
    Paused {
        /// The host.
        host: HostId,
        /// Paused (or resumed).
        paused: bool,
    },
    /// The fault injector injected a fault (its effects follow).
    Injected,
    /// Simulated time moved.
    Advanced,
    /// A task was woken from outside any task: by a timer right after
    /// [`Happening::Advanced`], else by the network.
    Woken {
        /// The task.
        task: Id,
        /// Its host.
        host: HostId,
    },
    /// A data choice took a non-default option.
    Choice {
        /// The [`ChoiceKind`](crate::scheduler::ChoiceKind)'s code.
        kind: u8,
        /// The option taken.
        index: u32,
        /// Out of.
        of: u32,
    },
}

/// A packet's first bytes as text.
pub(crate) fn preview(payload: &[u8]) -> String {
    const SHOWN: usize = 24;
    let mut s: String = payload
        .iter()
        .take(SHOWN)
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '.'
            }
        })
        .collect();
    if payload.len() > SHOWN {
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::preview;

    #[test]
    fn previews() {
        assert_eq!(preview(b"COMMIT 10\n"), "COMMIT 10.");
        assert_eq!(preview(&[b'a'; 30]), format!("{}...", "a".repeat(24)));
    }
}
