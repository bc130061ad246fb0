//! A name registry with a primary and a replica over UDP: clients create
//! and delete names at the primary, which applies each change and forwards
//! it to the replica, so that reads can go to either.
//!
//! ```text
//! client  -> primary  CREATE <name> | DELETE <name> | LIST   reply OK | <names>
//! primary -> replica  APPLY <seq> CREATE|DELETE <name>        (no reply)
//! client  -> replica  LIST                                    reply <names>
//! ```
//!
//! `LIST` answers the names, sorted, separated by spaces (`-` for none).
//! The primary numbers its changes from 1 and sends each forward once, as
//! its own datagram; the network may deliver two datagrams in either order
//! when their arrival windows overlap. The replica applies changes in
//! sequence order, holding back one that arrives before its predecessor.
//!
//! # The planted bug ([`Replica::in_arrival_order`])
//!
//! **What:** the replica applies each change as it arrives, ignoring the
//! sequence number.
//!
//! **Caught by:** convergence: once the clients are done and the network
//! is quiet, the replica lists the same names as the primary.
//!
//! **Schedule:** no fault at all: a `DELETE` forward overtakes the
//! `CREATE` forward of the same name (the client sent the `DELETE` as soon
//! as the `CREATE` was acknowledged, so the two forwards left the primary
//! a round trip apart, within one latency window). The replica deletes a
//! name it does not have, then creates it: it lists a name the primary
//! deleted. One delay (the `CREATE` forward's delivery, past the
//! `DELETE`'s) is enough for a delaying explorer.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::time;

/// How long a client waits for a reply before asking again.
pub const REPLY_TIMEOUT: Duration = Duration::from_millis(100);

fn list(names: &BTreeSet<String>) -> String {
    if names.is_empty() {
        "-".to_string()
    } else {
        names.iter().cloned().collect::<Vec<_>>().join(" ")
    }
}

/// The primary.
#[derive(Debug)]
pub struct Primary {
    replica: SocketAddr,
}

impl Primary {
    /// A primary that forwards to the replica at `replica`.
    pub fn new(replica: SocketAddr) -> Primary {
        Primary { replica }
    }

    /// Serves clients on `socket` forever.
    pub async fn serve(self, socket: UdpSocket) -> io::Result<()> {
        let mut names = BTreeSet::new();
        let mut seq = 0u64;
        sim_rt::sim::report_state(&(&names, seq));
        let mut buf = [0u8; 512];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await?;
            let line = String::from_utf8_lossy(&buf[..n]).into_owned();
            let reply = match line.split_once(' ') {
                Some((op @ ("CREATE" | "DELETE"), name)) => {
                    if op == "CREATE" {
                        names.insert(name.to_string());
                    } else {
                        names.remove(name);
                    }
                    seq += 1;
                    sim_rt::sim::report_state(&(&names, seq));
                    let forward = format!("APPLY {seq} {op} {name}");
                    socket.send_to(forward.as_bytes(), self.replica).await?;
                    "OK".to_string()
                }
                None if line == "LIST" => list(&names),
                _ => continue,
            };
            socket.send_to(reply.as_bytes(), from).await?;
        }
    }
}

/// The replica.
#[derive(Debug, Default)]
pub struct Replica {
    arrival_order: bool,
}

impl Replica {
    /// A replica that applies changes in sequence order.
    pub fn new() -> Replica {
        Replica::default()
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn in_arrival_order(mut self, bug: bool) -> Replica {
        self.arrival_order = bug;
        self
    }

    /// Serves forwards and reads on `socket` forever.
    pub async fn serve(self, socket: UdpSocket) -> io::Result<()> {
        let mut names = BTreeSet::new();
        let mut applied = 0u64;
        // Changes that arrived before their predecessors.
        let mut held: BTreeMap<u64, (String, String)> = BTreeMap::new();
        sim_rt::sim::report_state(&(&names, applied, &held));
        let mut buf = [0u8; 512];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await?;
            let line = String::from_utf8_lossy(&buf[..n]).into_owned();
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["APPLY", seq, op, name] => {
                    let Ok(seq) = seq.parse::<u64>() else {
                        continue;
                    };
                    held.insert(seq, (op.to_string(), name.to_string()));
                    loop {
                        let next = if self.arrival_order {
                            held.pop_first()
                        } else {
                            held.remove(&(applied + 1)).map(|c| (applied + 1, c))
                        };
                        let Some((seq, (op, name))) = next else { break };
                        applied = applied.max(seq);
                        if op == "CREATE" {
                            names.insert(name);
                        } else {
                            names.remove(&name);
                        }
                    }
                    sim_rt::sim::report_state(&(&names, applied, &held));
                }
                ["LIST"] => {
                    socket.send_to(list(&names).as_bytes(), from).await?;
                }
                _ => {}
            }
        }
    }
}

/// Sends `request` to `server` until a reply comes; returns it.
pub async fn ask(socket: &UdpSocket, server: SocketAddr, request: &str) -> io::Result<String> {
    let mut buf = [0u8; 512];
    loop {
        socket.send_to(request.as_bytes(), server).await?;
        if let Ok(got) = time::timeout(REPLY_TIMEOUT, socket.recv_from(&mut buf)).await {
            let (n, _) = got?;
            return Ok(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
    }
}
