//! Leader election over UDP: Raft's election (terms, one vote per term, a
//! majority wins, heartbeats hold the office) for three nodes, without a
//! log.
//!
//! ```text
//! candidate -> all        VOTE? <term> <candidate>   reply VOTE <term> <0|1>
//! leader    -> all        BEAT <term> <leader>       reply ACK <term>
//! ```
//!
//! A node that hears no heartbeat for its election timeout stands: it
//! increments its term, votes for itself and asks the others. A node
//! grants one vote per term; a message with a higher term makes its
//! receiver adopt the term and follow. Replies carry the replier's term, so
//! a stale leader learns of a newer term from the first `ACK` it gets, and
//! steps down. Election timeouts are staggered by node id
//! ([`election_timeout`]: 150, 300, 450 ms), a common way to avoid split
//! votes without randomness: the first node stands first and usually wins
//! at once.
//!
//! # The planted bug ([`Node::disruptive`])
//!
//! **What:** a node adopts a higher term from a vote request, and grants
//! its vote, even while it hears from a live leader. The fix (Raft thesis,
//! section 4.2.3, "disruptive servers"): ignore a vote request received
//! within the minimum election timeout of a leader's heartbeat.
//!
//! **Caught by:** liveness: eventually some node holds the office for a
//! second without its term changing.
//!
//! **Schedule:** a partition that cuts two nodes apart while the third
//! hears both, with the first leader (n1) on one side: n1 | n2 or n1 | n3.
//! The node cut off from the leader times out, stands, and wins with the
//! middle node's vote; the middle node's next reply tells the old leader of
//! the new term, and it steps down; it hears no heartbeat from the new
//! leader, times out, stands, and wins with the middle node's vote again.
//! The office changes hands every few hundred milliseconds, forever: the
//! middle node, the only one both sides could follow, always hears a
//! leader, so it never stands. A partition n2 | n3 leaves n1 in charge of
//! both; with the fix, the middle node ignores the cut-off node and the
//! leader keeps its office.
//!
//! **Critical transition:** the fault injector's partition of n1 from one
//! of the others. Before it, a walk elects a lasting leader; after it, no
//! walk can (the partition lasts: walks keep the environment as it is).

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::sync::watch;
use tokio::time::{self, Instant};

/// How often a leader sends heartbeats.
pub const HEARTBEAT: Duration = Duration::from_millis(50);

/// Node `id`'s election timeout (ids from 1): 150 ms times the id.
pub fn election_timeout(id: u32) -> Duration {
    Duration::from_millis(150) * id
}

/// A node's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Follows the leader of its term (or waits for one).
    Follower,
    /// Asks for votes in its term.
    Candidate,
    /// Holds the office for its term.
    Leader,
}

/// What a node publishes about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// Its role.
    pub role: Role,
    /// Its term.
    pub term: u64,
    /// When it took this role in this term.
    pub since: Instant,
}

/// One node.
#[derive(Debug)]
pub struct Node {
    id: u32,
    peers: Vec<SocketAddr>,
    sticky: bool,
    status: watch::Sender<Status>,
}

/// A node's state while it runs.
struct State {
    term: u64,
    role: Role,
    voted_for: Option<u32>,
    votes: usize,
    /// When it last heard a heartbeat from a leader of its term.
    heard_leader: Option<Instant>,
    /// When it stands next (followers and candidates).
    deadline: Instant,
}

impl State {
    /// Tells a search the node's state, its times left out.
    fn report(&self) {
        sim_rt::sim::report_state(&(self.term, self.role, self.voted_for, self.votes));
    }
}

impl Node {
    /// Node `id` of a cluster whose other members are at `peers`; watch
    /// its [`Status`] on the receiver.
    pub fn new(id: u32, peers: Vec<SocketAddr>) -> (Node, watch::Receiver<Status>) {
        let (status, rx) = watch::channel(Status {
            role: Role::Follower,
            term: 0,
            since: Instant::now(),
        });
        let node = Node {
            id,
            peers,
            sticky: true,
            status,
        };
        (node, rx)
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn disruptive(mut self, bug: bool) -> Node {
        self.sticky = !bug;
        self
    }

    fn publish(&self, s: &State) {
        s.report();
        self.status.send_if_modified(|old| {
            let changed = old.role != s.role || old.term != s.term;
            if changed {
                *old = Status {
                    role: s.role,
                    term: s.term,
                    since: Instant::now(),
                };
            }
            changed
        });
    }

    async fn broadcast(&self, socket: &UdpSocket, message: &str) -> io::Result<()> {
        for peer in &self.peers {
            socket.send_to(message.as_bytes(), peer).await?;
        }
        Ok(())
    }

    /// Adopts `term` as a follower, if it is newer.
    fn adopt(&self, s: &mut State, term: u64) {
        if term > s.term {
            s.term = term;
            s.role = Role::Follower;
            s.voted_for = None;
            s.heard_leader = None;
            s.deadline = Instant::now() + election_timeout(self.id);
        }
    }

    /// Runs the node on `socket` forever.
    pub async fn run(self, socket: UdpSocket) -> io::Result<()> {
        let mut s = State {
            term: 0,
            role: Role::Follower,
            voted_for: None,
            votes: 0,
            heard_leader: None,
            deadline: Instant::now() + election_timeout(self.id),
        };
        s.report();
        let mut buf = [0u8; 128];
        loop {
            let wake = match s.role {
                Role::Leader => s.deadline.min(Instant::now() + HEARTBEAT),
                _ => s.deadline,
            };
            let received = tokio::select! {
                r = socket.recv_from(&mut buf) => Some(r?),
                _ = time::sleep_until(wake) => None,
            };
            let Some((n, from)) = received else {
                if s.role == Role::Leader {
                    self.broadcast(&socket, &format!("BEAT {} {}", s.term, self.id))
                        .await?;
                    s.deadline = Instant::now() + HEARTBEAT;
                } else {
                    s.term += 1;
                    s.role = Role::Candidate;
                    s.voted_for = Some(self.id);
                    s.votes = 1;
                    s.deadline = Instant::now() + election_timeout(self.id);
                    self.publish(&s);
                    self.broadcast(&socket, &format!("VOTE? {} {}", s.term, self.id))
                        .await?;
                }
                continue;
            };
            let text = String::from_utf8_lossy(&buf[..n]).into_owned();
            let words: Vec<&str> = text.split(' ').collect();
            let number = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
            let (Some(term), verb) = (number(1), words[0]) else {
                continue;
            };
            match verb {
                "VOTE?" => {
                    let Some(candidate) = number(2) else { continue };
                    let recently = s
                        .heard_leader
                        .is_some_and(|t| Instant::now().duration_since(t) < election_timeout(1));
                    if self.sticky && (s.role == Role::Leader || recently) {
                        // A live leader: the candidate is disruptive.
                        continue;
                    }
                    self.adopt(&mut s, term);
                    let grant =
                        term == s.term && s.voted_for.is_none_or(|v| u64::from(v) == candidate);
                    if grant {
                        s.voted_for = Some(candidate as u32);
                        s.deadline = Instant::now() + election_timeout(self.id);
                    }
                    let reply = format!("VOTE {} {}", s.term, u8::from(grant));
                    socket.send_to(reply.as_bytes(), from).await?;
                }
                "BEAT" => {
                    if term >= s.term {
                        self.adopt(&mut s, term);
                        s.role = Role::Follower;
                        s.heard_leader = Some(Instant::now());
                        s.deadline = Instant::now() + election_timeout(self.id);
                    }
                    let reply = format!("ACK {}", s.term);
                    socket.send_to(reply.as_bytes(), from).await?;
                }
                "VOTE" => {
                    self.adopt(&mut s, term);
                    if s.role == Role::Candidate && term == s.term && number(2) == Some(1) {
                        s.votes += 1;
                        if 2 * s.votes > self.peers.len() + 1 {
                            s.role = Role::Leader;
                            s.deadline = Instant::now();
                        }
                    }
                }
                "ACK" => self.adopt(&mut s, term),
                _ => {}
            }
            self.publish(&s);
        }
    }
}
