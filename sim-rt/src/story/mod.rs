//! The story of a run: what happened, step by step, in the facts a report
//! needs to tell a failure in words (which packet, between which hosts,
//! how big, what it said; which timer fired on which host; which fault
//! cut which link). Recorded only when asked
//! ([`Builder::record_story`](crate::runtime::Builder::record_story)): the explorer
//! re-runs the execution it reports with it on. Off, each recording point
//! costs one test of an `Option`.
//!
//! A record below the world, beside the trace: the world pushes what
//! happened, and what a packet said is summed up here ([`preview`], with
//! HTTP/2 read in `http2.rs`), not in the engine. No HPACK crate fits
//! that summary: a crate's decoder keeps one connection's dynamic table
//! and fails on a reference to an entry it never saw, while a summary
//! reads each packet alone and skips such fields.

use std::time::Duration;

use crate::ids::Id;
use crate::scheduler::HostId;
use crate::scheduler::PacketId;

mod http2;

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Told {
    /// The step (event run) it happened at, numbered as
    /// [`Failure::step`](crate::runtime::Failure::step) numbers them.
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
        /// The payload's first bytes as text (its first line, or its
        /// printable runs when it is binary; empty when it has none).
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
    /// A std thread started, or a thread from outside the simulation
    /// joined it (a `Handle::block_on` or `spawn` from such a thread): its
    /// turns are the polls of `task`.
    Thread {
        /// The task that gives it its turns.
        task: Id,
        /// Its number in the simulation ("std thread 2").
        number: u32,
        /// Started outside the simulation.
        outside: bool,
    },
    /// The program labelled a task with
    /// [`sim::annotate`](crate::sim::annotate).
    Labelled {
        /// The task.
        task: Id,
        /// The label, as given.
        label: &'static str,
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

/// A packet's summary: the first bytes of its payload as text.
///
/// A payload that starts with text (a line protocol, an HTTP/1 request)
/// is summed up by its first line, followed by `...` when more follows;
/// HTTP/2 by what its frames say (a request's method and path, a
/// response's status, the text of its data: see `http2.rs`); another
/// binary one (a length-prefixed frame, protobuf) by its runs of three or
/// more printable characters, so that `\0\0\0\0\x07\n\x05alice` reads
/// `alice`. At most [`SHOWN`] characters; empty when nothing in the first
/// [`SCANNED`] bytes is printable.
pub(crate) fn preview(payload: &[u8]) -> String {
    let head = &payload[..payload.len().min(SCANNED)];
    let end = head
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .unwrap_or(head.len());
    let line = &head[..end];
    let (mut text, more) = if let Some(said) = http2::summary(payload, runs) {
        (said, false)
    } else if !line.is_empty() && line.iter().all(|&b| printable(b)) {
        let rest = &payload[end..];
        let more = rest.iter().any(|b| !b.is_ascii_whitespace());
        (String::from_utf8_lossy(line).trim_end().to_string(), more)
    } else {
        (runs(payload), payload.len() > head.len())
    };
    let cut = text.len() > SHOWN;
    text.truncate(SHOWN);
    if (cut || more) && !text.is_empty() {
        text.push_str("...");
    }
    text
}

fn printable(b: u8) -> bool {
    b.is_ascii_graphic() || b == b' '
}

/// The runs of three or more printable characters (one of them a letter
/// or digit) in the first [`SCANNED`] bytes of `bytes`, space-separated.
fn runs(bytes: &[u8]) -> String {
    let runs: Vec<String> = bytes[..bytes.len().min(SCANNED)]
        .split(|&b| !printable(b))
        .map(|r| String::from_utf8_lossy(r).trim().to_string())
        .filter(|r| r.len() >= 3 && r.bytes().any(|b| b.is_ascii_alphanumeric()))
        .collect();
    runs.join(" ")
}

/// Characters a packet's summary shows at most.
const SHOWN: usize = 40;
/// Bytes of a payload (or of an HTTP/2 frame's data) a summary reads.
const SCANNED: usize = 96;

#[cfg(test)]
mod tests {
    use super::preview;

    #[test]
    fn previews() {
        assert_eq!(preview(b"COMMIT 10\n"), "COMMIT 10");
        assert_eq!(preview(b"GET alice\nGET bob\n"), "GET alice...");
        assert_eq!(
            preview(b"GET /orders/alice HTTP/1.1\r\nhost: shop\r\n\r\n"),
            "GET /orders/alice HTTP/1.1..."
        );
        assert_eq!(preview(&[b'a'; 50]), format!("{}...", "a".repeat(40)));
        // A gRPC message: a 5-byte frame header, then protobuf.
        assert_eq!(
            preview(b"\0\0\0\0\x0e\n\x05alice\x12\x05apple"),
            "alice apple"
        );
        assert_eq!(preview(&[0, 1, 2, 3]), "");
    }
}
