//! Raft: leader election and log replication over UDP.
//!
//! A cluster of [`Node`]s replicates a log of commands (Ongaro & Ousterhout,
//! "In Search of an Understandable Consensus Algorithm", USENIX ATC 2014,
//! figure 2). Each node runs one task over one UDP socket; every message is
//! one datagram of text, a header line and, for `AE`, one line per entry:
//!
//! ```text
//! candidate -> all       RV <term> <candidate> <last index> <last term>
//! voter     -> candidate RVR <term> <voter> <granted 0|1>
//! leader    -> follower  AE <term> <leader> <prev index> <prev term> <commit> <n>
//!                        <term> <command>            (n entry lines)
//! follower  -> leader    AER <term> <follower> <success 0|1> <index>
//! client    -> node      SUBMIT <request> <command>
//! node      -> client    OK <request> <index> | REDIRECT <request> <leader or ->
//! ```
//!
//! The protocol is the paper's. Followers that hear nothing from a leader for
//! an election timeout (random in [`Config::election`], drawn from the
//! node's seed) start an election; a candidate with votes from a majority
//! leads its term, and a voter grants one vote per term, only to a candidate
//! whose log is at least as up to date as its own. The leader appends a
//! client's command to its log and replicates it with `AE` (at once and on
//! every heartbeat); a follower accepts entries only after a matching
//! previous entry and deletes a conflicting suffix. The leader advances its
//! commit index to the highest index stored on a majority *whose entry is of
//! its own term* (section 5.4.2), applies committed entries in order and
//! answers the client `OK`. A node that is not the leader answers
//! `REDIRECT` with the leader it knows of, and [`Client`] follows it.
//!
//! A node's durable state — its term, its vote and its log — is an
//! append-only file of records (`T <term> <vote>`, `E <index> <term>
//! <command>`, `X <index>` to delete from an index on), fsynced before the
//! node sends any message that depends on it; a restarted node replays the
//! file. The commit index and the state machine are volatile, as in the
//! paper.
//!
//! Commands are words (no whitespace); the state machine is the sequence of
//! applied commands, reported to the [`Observer`] as [`Event::Applied`].
//!
//! # The planted bug ([`Node::commit_previous_terms`])
//!
//! **What:** the leader counts replicas for entries of *previous* terms as
//! well: it commits any entry stored on a majority, not only entries of its
//! own term (the situation of the paper's figure 8).
//!
//! **Caught by:** leader completeness (an entry reported committed is in the
//! log of every leader of a later term) and, when the run goes on, state
//! machine safety (two nodes apply different commands at one index).
//!
//! **Schedule:** five nodes. Leader S1 of term `t` appends command A at
//! index `i` but cannot replicate it (it is cut off from its peers); the
//! others elect S5 in term `t+1`, which appends B at `i` and is cut off in
//! turn before replicating it. S1 wins the election of term `t+2` and
//! replicates A to a majority: the buggy S1 commits A although no entry of
//! term `t+2` is replicated yet. Then S1 is cut off, and S5, whose last
//! entry (term `t+1`) is newer than A (term `t`), wins the next election
//! and overwrites A with B everywhere. It takes two elections won by the
//! right node; a correct leader would not have committed A.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::fs::{File, OpenOptions};
use tokio::io::AsyncWriteExt;
use tokio::net::UdpSocket;
use tokio::time::{sleep_until, timeout_at, Instant};

/// Timing of a node.
#[derive(Debug, Clone)]
pub struct Config {
    /// How often a leader sends `AE` when it has nothing new to say.
    pub heartbeat: Duration,
    /// The range of election timeouts; each timeout is drawn from it.
    pub election: (Duration, Duration),
    /// The most entries one `AE` carries.
    pub max_batch: usize,
}

impl Default for Config {
    /// The paper's suggestion: heartbeats every 50 ms, elections after
    /// 150-300 ms.
    fn default() -> Self {
        Config {
            heartbeat: Duration::from_millis(50),
            election: (Duration::from_millis(150), Duration::from_millis(300)),
            max_batch: 16,
        }
    }
}

/// One log entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The term of the leader that appended it.
    pub term: u64,
    /// The command.
    pub command: String,
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Follows a leader (or waits for one).
    Follower,
    /// Asks for votes.
    Candidate,
    /// Leads its term.
    Leader,
}

/// What a node reports to its [`Observer`], as it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The node took `role` in `term` (also at start, as a follower).
    Role {
        /// The node.
        node: usize,
        /// Its current term.
        term: u64,
        /// Its new role.
        role: Role,
    },
    /// The node won the election of `term`; `log` is its log then.
    Elected {
        /// The node.
        node: usize,
        /// The term it leads.
        term: u64,
        /// Its log (index 1 first).
        log: Vec<Entry>,
    },
    /// The leader of `term` committed the entries up to `index`;
    /// `entries` are those it newly committed, from `from` on.
    Committed {
        /// The leader.
        node: usize,
        /// Its term.
        term: u64,
        /// The index of the first newly committed entry.
        from: u64,
        /// The newly committed entries.
        entries: Vec<Entry>,
    },
    /// The node's log changed (entries appended or deleted); `log` is the
    /// log now (made durable before the node sends its next message).
    Stored {
        /// The node.
        node: usize,
        /// Its log (index 1 first).
        log: Vec<Entry>,
    },
    /// The node applied `entry`, at `index`, to its state machine.
    Applied {
        /// The node.
        node: usize,
        /// The log index.
        index: u64,
        /// The entry.
        entry: Entry,
    },
}

/// Receives a node's [`Event`]s (a test's hook into the protocol).
pub type Observer = Arc<dyn Fn(&Event) + Send + Sync>;

/// A Raft node.
#[derive(Clone)]
pub struct Node {
    id: usize,
    peers: Vec<String>,
    path: PathBuf,
    config: Config,
    seed: u64,
    commit_previous_terms: bool,
    observer: Option<Observer>,
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("id", &self.id)
            .field("peers", &self.peers)
            .field("path", &self.path)
            .field("config", &self.config)
            .field("commit_previous_terms", &self.commit_previous_terms)
            .finish_non_exhaustive()
    }
}

impl Node {
    /// Node `id` of the cluster whose nodes listen at `peers` (`peers[id]`
    /// is this node's own address), keeping its durable state in the file
    /// at `path`.
    pub fn new(id: usize, peers: Vec<String>, path: impl Into<PathBuf>) -> Node {
        assert!(id < peers.len(), "node {id} is not one of the peers");
        Node {
            id,
            peers,
            path: path.into(),
            config: Config::default(),
            seed: id as u64,
            commit_previous_terms: false,
            observer: None,
        }
    }

    /// Sets the timing.
    pub fn config(mut self, config: Config) -> Node {
        self.config = config;
        self
    }

    /// Seeds the election timeouts (default: the node's id).
    pub fn seed(mut self, seed: u64) -> Node {
        self.seed = seed;
        self
    }

    /// Reports events to `observer`.
    pub fn observer(mut self, observer: Observer) -> Node {
        self.observer = Some(observer);
        self
    }

    /// **The planted bug**: when `true`, a leader commits entries of
    /// previous terms once they are stored on a majority (see the module
    /// docs).
    pub fn commit_previous_terms(mut self, on: bool) -> Node {
        self.commit_previous_terms = on;
        self
    }

    /// Recovers the durable state and runs the node on `socket`, forever.
    pub async fn run(self, socket: UdpSocket) -> io::Result<()> {
        let (storage, durable) = Storage::open(&self.path).await?;
        let mut state = State::new(self, storage, durable);
        state.run(socket).await
    }
}

// ---------------------------------------------------------------------------
// Durable state

/// What survives a crash.
#[derive(Debug, Default)]
struct Durable {
    term: u64,
    vote: Option<usize>,
    log: Vec<Entry>,
}

/// The append-only file of [`Durable`]'s records.
#[derive(Debug)]
struct Storage {
    file: File,
    /// Records not yet written.
    pending: String,
}

impl Storage {
    /// Opens (or creates) the file at `path` and replays it. A torn last
    /// record (no newline) is ignored: it was never synced, so nothing
    /// depended on it.
    async fn open(path: &Path) -> io::Result<(Storage, Durable)> {
        let mut durable = Durable::default();
        match tokio::fs::read_to_string(path).await {
            Ok(text) => {
                let complete = text.rfind('\n').map_or("", |end| &text[..end]);
                for line in complete.lines() {
                    durable.replay(line)?;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .await?;
        file.sync_all().await?;
        // The file's directory entry must be durable too.
        if let Some(dir) = path.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            File::open(dir).await?.sync_all().await?;
        }
        let storage = Storage {
            file,
            pending: String::new(),
        };
        Ok((storage, durable))
    }

    /// Writes and fsyncs the pending records.
    async fn sync(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let records = std::mem::take(&mut self.pending);
        self.file.write_all(records.as_bytes()).await?;
        self.file.flush().await?;
        self.file.sync_all().await
    }
}

impl Durable {
    fn replay(&mut self, line: &str) -> io::Result<()> {
        let corrupt = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("corrupt record {line:?}"),
            )
        };
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["T", term, vote] => {
                self.term = term.parse().map_err(|_| corrupt())?;
                self.vote = match *vote {
                    "-" => None,
                    v => Some(v.parse().map_err(|_| corrupt())?),
                };
            }
            ["E", index, term, command] => {
                let index: usize = index.parse().map_err(|_| corrupt())?;
                if index != self.log.len() + 1 {
                    return Err(corrupt());
                }
                let term = term.parse().map_err(|_| corrupt())?;
                self.log.push(Entry {
                    term,
                    command: command.to_string(),
                });
            }
            ["X", index] => {
                let index: usize = index.parse().map_err(|_| corrupt())?;
                self.log.truncate(index.saturating_sub(1));
            }
            _ => return Err(corrupt()),
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Messages

#[derive(Debug)]
enum Message {
    RequestVote {
        term: u64,
        candidate: usize,
        last_index: u64,
        last_term: u64,
    },
    Vote {
        term: u64,
        voter: usize,
        granted: bool,
    },
    Append {
        term: u64,
        leader: usize,
        prev_index: u64,
        prev_term: u64,
        commit: u64,
        entries: Vec<Entry>,
    },
    Appended {
        term: u64,
        follower: usize,
        success: bool,
        index: u64,
    },
    Submit {
        request: u64,
        command: String,
    },
}

impl Message {
    fn encode(&self) -> String {
        match self {
            Message::RequestVote {
                term,
                candidate,
                last_index,
                last_term,
            } => format!("RV {term} {candidate} {last_index} {last_term}"),
            Message::Vote {
                term,
                voter,
                granted,
            } => format!("RVR {term} {voter} {}", u8::from(*granted)),
            Message::Append {
                term,
                leader,
                prev_index,
                prev_term,
                commit,
                entries,
            } => {
                let mut s = format!(
                    "AE {term} {leader} {prev_index} {prev_term} {commit} {}",
                    entries.len()
                );
                for e in entries {
                    s.push_str(&format!("\n{} {}", e.term, e.command));
                }
                s
            }
            Message::Appended {
                term,
                follower,
                success,
                index,
            } => format!("AER {term} {follower} {} {index}", u8::from(*success)),
            Message::Submit { request, command } => format!("SUBMIT {request} {command}"),
        }
    }

    fn decode(text: &str) -> Option<Message> {
        let mut lines = text.lines();
        let words: Vec<&str> = lines.next()?.split(' ').collect();
        let num = |s: &str| s.parse::<u64>().ok();
        let flag = |s: &str| match s {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        };
        Some(match words.as_slice() {
            ["RV", term, candidate, last_index, last_term] => Message::RequestVote {
                term: num(term)?,
                candidate: candidate.parse().ok()?,
                last_index: num(last_index)?,
                last_term: num(last_term)?,
            },
            ["RVR", term, voter, granted] => Message::Vote {
                term: num(term)?,
                voter: voter.parse().ok()?,
                granted: flag(granted)?,
            },
            ["AE", term, leader, prev_index, prev_term, commit, n] => {
                let n = num(n)? as usize;
                let mut entries = Vec::with_capacity(n);
                for line in lines.by_ref().take(n) {
                    let (term, command) = line.split_once(' ')?;
                    entries.push(Entry {
                        term: num(term)?,
                        command: command.to_string(),
                    });
                }
                if entries.len() != n {
                    return None;
                }
                Message::Append {
                    term: num(term)?,
                    leader: leader.parse().ok()?,
                    prev_index: num(prev_index)?,
                    prev_term: num(prev_term)?,
                    commit: num(commit)?,
                    entries,
                }
            }
            ["AER", term, follower, success, index] => Message::Appended {
                term: num(term)?,
                follower: follower.parse().ok()?,
                success: flag(success)?,
                index: num(index)?,
            },
            ["SUBMIT", request, command] => Message::Submit {
                request: num(request)?,
                command: command.to_string(),
            },
            _ => return None,
        })
    }
}

/// Where an outgoing datagram goes.
#[derive(Debug)]
enum To {
    Peer(usize),
    Client(SocketAddr),
}

// ---------------------------------------------------------------------------
// The node's state machine

struct State {
    node: Node,
    storage: Storage,
    durable: Durable,
    role: Role,
    leader: Option<usize>,
    commit: u64,
    applied: u64,
    votes: Vec<bool>,
    next_index: Vec<u64>,
    match_index: Vec<u64>,
    /// Log index -> the client waiting for it, while leader.
    waiting: BTreeMap<u64, (SocketAddr, u64, u64)>,
    election_deadline: Instant,
    heartbeat_deadline: Instant,
    rng: u64,
    outbox: Vec<(To, String)>,
}

impl State {
    fn new(node: Node, storage: Storage, durable: Durable) -> State {
        let n = node.peers.len();
        let now = Instant::now();
        let mut state = State {
            rng: node.seed,
            node,
            storage,
            durable,
            role: Role::Follower,
            leader: None,
            commit: 0,
            applied: 0,
            votes: vec![false; n],
            next_index: vec![1; n],
            match_index: vec![0; n],
            waiting: BTreeMap::new(),
            election_deadline: now,
            heartbeat_deadline: now,
            outbox: Vec::new(),
        };
        state.reset_election_timer();
        state.emit(Event::Role {
            node: state.node.id,
            term: state.durable.term,
            role: Role::Follower,
        });
        state
    }

    async fn run(&mut self, socket: UdpSocket) -> io::Result<()> {
        let mut buf = vec![0u8; 64 * 1024];
        self.report();
        loop {
            let deadline = match self.role {
                Role::Leader => self.heartbeat_deadline,
                _ => self.election_deadline,
            };
            tokio::select! {
                biased;
                received = socket.recv_from(&mut buf) => {
                    // A datagram to a port nobody listens on may come back
                    // as an error on some platforms: not this node's problem.
                    let Ok((len, from)) = received else { continue };
                    let text = String::from_utf8_lossy(&buf[..len]);
                    if let Some(message) = Message::decode(&text) {
                        self.handle(message, from);
                    }
                }
                _ = sleep_until(deadline) => self.tick(),
            }
            self.report();
            // Durable before anyone hears of it.
            self.storage.sync().await?;
            for (to, text) in std::mem::take(&mut self.outbox) {
                let result = match to {
                    To::Peer(p) => socket.send_to(text.as_bytes(), &self.node.peers[p]).await,
                    To::Client(addr) => socket.send_to(text.as_bytes(), addr).await,
                };
                // Datagrams may be lost anyway; Raft retries.
                let _ = result;
            }
        }
    }

    // --- helpers ---------------------------------------------------------

    /// Tells a search the node's state: its role, term and vote, the terms
    /// of its log, its commit index and, as leader, what it knows each
    /// follower to hold.
    fn report(&self) {
        let terms: Vec<u64> = self.durable.log.iter().map(|e| e.term).collect();
        let matched = (self.role == Role::Leader).then_some(&self.match_index);
        sim_rt::sim::report_state(&(
            self.role,
            self.durable.term,
            self.durable.vote,
            terms,
            self.commit,
            matched,
        ));
    }

    fn emit(&self, event: Event) {
        if let Some(observer) = &self.node.observer {
            observer(&event);
        }
    }

    fn majority(&self) -> usize {
        self.node.peers.len() / 2 + 1
    }

    fn last_index(&self) -> u64 {
        self.durable.log.len() as u64
    }

    fn term_at(&self, index: u64) -> u64 {
        match index {
            0 => 0,
            i => self.durable.log[i as usize - 1].term,
        }
    }

    fn others(&self) -> impl Iterator<Item = usize> {
        let me = self.node.id;
        (0..self.node.peers.len()).filter(move |&p| p != me)
    }

    fn send(&mut self, to: usize, message: Message) {
        self.outbox.push((To::Peer(to), message.encode()));
    }

    /// splitmix64.
    fn random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn reset_election_timer(&mut self) {
        let (min, max) = self.node.config.election;
        let span = (max - min).as_micros() as u64 + 1;
        let timeout = min + Duration::from_micros(self.random() % span);
        self.election_deadline = Instant::now() + timeout;
    }

    fn persist_term(&mut self) {
        let vote = self
            .durable
            .vote
            .map_or_else(|| "-".to_string(), |v| v.to_string());
        self.storage
            .pending
            .push_str(&format!("T {} {vote}\n", self.durable.term));
    }

    fn append(&mut self, entry: Entry) {
        let index = self.last_index() + 1;
        self.storage
            .pending
            .push_str(&format!("E {index} {} {}\n", entry.term, entry.command));
        self.durable.log.push(entry);
    }

    fn stored(&self) {
        if self.node.observer.is_some() {
            self.emit(Event::Stored {
                node: self.node.id,
                log: self.durable.log.clone(),
            });
        }
    }

    fn truncate(&mut self, from: u64) {
        debug_assert!(from > self.commit, "a committed entry is never deleted");
        self.storage.pending.push_str(&format!("X {from}\n"));
        self.durable.log.truncate(from as usize - 1);
    }

    /// Moves to `term` (if newer) as a follower.
    fn step_down(&mut self, term: u64) {
        if term > self.durable.term {
            self.durable.term = term;
            self.durable.vote = None;
            self.persist_term();
        }
        if self.role != Role::Follower {
            self.role = Role::Follower;
            self.waiting.clear();
            self.reset_election_timer();
            self.emit(Event::Role {
                node: self.node.id,
                term: self.durable.term,
                role: Role::Follower,
            });
        }
    }

    // --- timers ----------------------------------------------------------

    fn tick(&mut self) {
        match self.role {
            Role::Leader => {
                for p in self.others().collect::<Vec<_>>() {
                    self.replicate(p);
                }
                self.heartbeat_deadline = Instant::now() + self.node.config.heartbeat;
            }
            Role::Follower | Role::Candidate => self.campaign(),
        }
    }

    fn campaign(&mut self) {
        self.role = Role::Candidate;
        self.leader = None;
        self.durable.term += 1;
        self.durable.vote = Some(self.node.id);
        self.persist_term();
        self.votes.iter_mut().for_each(|v| *v = false);
        self.votes[self.node.id] = true;
        self.reset_election_timer();
        self.emit(Event::Role {
            node: self.node.id,
            term: self.durable.term,
            role: Role::Candidate,
        });
        let request = || Message::RequestVote {
            term: self.durable.term,
            candidate: self.node.id,
            last_index: self.last_index(),
            last_term: self.term_at(self.last_index()),
        };
        let requests: Vec<_> = self.others().map(|p| (p, request())).collect();
        for (p, m) in requests {
            self.send(p, m);
        }
        self.maybe_win();
    }

    fn maybe_win(&mut self) {
        if self.role != Role::Candidate
            || self.votes.iter().filter(|v| **v).count() < self.majority()
        {
            return;
        }
        self.role = Role::Leader;
        self.leader = Some(self.node.id);
        let next = self.last_index() + 1;
        self.next_index.iter_mut().for_each(|n| *n = next);
        self.match_index.iter_mut().for_each(|m| *m = 0);
        self.emit(Event::Role {
            node: self.node.id,
            term: self.durable.term,
            role: Role::Leader,
        });
        self.emit(Event::Elected {
            node: self.node.id,
            term: self.durable.term,
            log: self.durable.log.clone(),
        });
        self.tick();
    }

    /// Sends `p` the entries it lacks (none: a heartbeat).
    fn replicate(&mut self, p: usize) {
        let next = self.next_index[p];
        let prev_index = next - 1;
        let end =
            (self.last_index() as usize).min(prev_index as usize + self.node.config.max_batch);
        let message = Message::Append {
            term: self.durable.term,
            leader: self.node.id,
            prev_index,
            prev_term: self.term_at(prev_index),
            commit: self.commit,
            entries: self.durable.log[prev_index as usize..end].to_vec(),
        };
        self.send(p, message);
    }

    // --- messages --------------------------------------------------------

    fn handle(&mut self, message: Message, from: SocketAddr) {
        match message {
            Message::RequestVote {
                term,
                candidate,
                last_index,
                last_term,
            } => self.on_request_vote(term, candidate, last_index, last_term),
            Message::Vote {
                term,
                voter,
                granted,
            } => {
                if term > self.durable.term {
                    self.step_down(term);
                } else if term == self.durable.term && granted && voter < self.votes.len() {
                    self.votes[voter] = true;
                    self.maybe_win();
                }
            }
            Message::Append {
                term,
                leader,
                prev_index,
                prev_term,
                commit,
                entries,
            } => self.on_append(term, leader, prev_index, prev_term, commit, entries),
            Message::Appended {
                term,
                follower,
                success,
                index,
            } => self.on_appended(term, follower, success, index),
            Message::Submit { request, command } => self.on_submit(request, command, from),
        }
    }

    fn on_request_vote(&mut self, term: u64, candidate: usize, last_index: u64, last_term: u64) {
        if candidate >= self.node.peers.len() {
            return;
        }
        if term > self.durable.term {
            self.step_down(term);
        }
        let my_last = self.last_index();
        let up_to_date = (last_term, last_index) >= (self.term_at(my_last), my_last);
        let granted = term == self.durable.term
            && self.durable.vote.is_none_or(|v| v == candidate)
            && up_to_date;
        if granted && self.durable.vote.is_none() {
            self.durable.vote = Some(candidate);
            self.persist_term();
        }
        if granted {
            self.reset_election_timer();
        }
        let vote = Message::Vote {
            term: self.durable.term,
            voter: self.node.id,
            granted,
        };
        self.send(candidate, vote);
    }

    fn on_append(
        &mut self,
        term: u64,
        leader: usize,
        prev_index: u64,
        prev_term: u64,
        commit: u64,
        entries: Vec<Entry>,
    ) {
        if leader >= self.node.peers.len() {
            return;
        }
        let reply = |s: &Self, success: bool, index: u64| Message::Appended {
            term: s.durable.term,
            follower: s.node.id,
            success,
            index,
        };
        if term < self.durable.term {
            let m = reply(self, false, 0);
            self.send(leader, m);
            return;
        }
        self.step_down(term);
        self.leader = Some(leader);
        self.reset_election_timer();
        if prev_index > self.last_index() || self.term_at(prev_index) != prev_term {
            // Back up: at most to our last index.
            let hint = self.last_index().min(prev_index.saturating_sub(1));
            let m = reply(self, false, hint);
            self.send(leader, m);
            return;
        }
        let last_new = prev_index + entries.len() as u64;
        let mut changed = false;
        for (k, entry) in entries.into_iter().enumerate() {
            let index = prev_index + 1 + k as u64;
            if index <= self.last_index() {
                if self.term_at(index) == entry.term {
                    continue;
                }
                self.truncate(index);
            }
            self.append(entry);
            changed = true;
        }
        if changed {
            self.stored();
        }
        if commit > self.commit {
            self.commit = commit.min(last_new);
            self.apply();
        }
        let m = reply(self, true, last_new);
        self.send(leader, m);
    }

    fn on_appended(&mut self, term: u64, follower: usize, success: bool, index: u64) {
        if term > self.durable.term {
            self.step_down(term);
            return;
        }
        if self.role != Role::Leader || term != self.durable.term || follower >= self.votes.len() {
            return;
        }
        if success {
            if index > self.match_index[follower] {
                self.match_index[follower] = index;
            }
            self.next_index[follower] = self.match_index[follower] + 1;
            self.advance_commit();
            if self.next_index[follower] <= self.last_index() {
                self.replicate(follower);
            }
        } else {
            let next = self.next_index[follower].saturating_sub(1).min(index + 1);
            self.next_index[follower] = next.max(1);
            self.replicate(follower);
        }
    }

    fn advance_commit(&mut self) {
        let me = self.node.id;
        let term = self.durable.term;
        let mut new_commit = self.commit;
        for n in (self.commit + 1..=self.last_index()).rev() {
            // Raft commits only entries of the leader's own term by
            // counting replicas (section 5.4.2); earlier ones follow.
            // BUG: counting replicas of an earlier term's entry too.
            if self.term_at(n) != term && !self.node.commit_previous_terms {
                continue;
            }
            let stored = 1 + self
                .match_index
                .iter()
                .enumerate()
                .filter(|&(p, &m)| p != me && m >= n)
                .count();
            if stored >= self.majority() {
                new_commit = n;
                break;
            }
        }
        if new_commit > self.commit {
            let from = self.commit + 1;
            self.emit(Event::Committed {
                node: me,
                term,
                from,
                entries: self.durable.log[from as usize - 1..new_commit as usize].to_vec(),
            });
            self.commit = new_commit;
            self.apply();
        }
    }

    fn apply(&mut self) {
        while self.applied < self.commit {
            self.applied += 1;
            let index = self.applied;
            let entry = self.durable.log[index as usize - 1].clone();
            if let Some((client, request, term)) = self.waiting.remove(&index) {
                if term == entry.term {
                    self.outbox
                        .push((To::Client(client), format!("OK {request} {index}")));
                }
            }
            self.emit(Event::Applied {
                node: self.node.id,
                index,
                entry,
            });
        }
    }

    fn on_submit(&mut self, request: u64, command: String, client: SocketAddr) {
        if self.role != Role::Leader {
            let leader = self
                .leader
                .map_or_else(|| "-".to_string(), |l| l.to_string());
            self.outbox
                .push((To::Client(client), format!("REDIRECT {request} {leader}")));
            return;
        }
        let term = self.durable.term;
        self.append(Entry { term, command });
        self.stored();
        let index = self.last_index();
        self.waiting.insert(index, (client, request, term));
        for p in self.others().collect::<Vec<_>>() {
            if self.next_index[p] == index {
                self.replicate(p);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Client

/// A client of the cluster: submits commands to the leader, following
/// redirects and trying the next node when one does not answer.
#[derive(Debug)]
pub struct Client {
    socket: UdpSocket,
    nodes: Vec<String>,
    leader: usize,
    next_request: u64,
    /// How long to wait for one node's answer before trying another.
    pub retry: Duration,
}

impl Client {
    /// A client of the nodes at `nodes`, over `socket`.
    pub fn new(socket: UdpSocket, nodes: Vec<String>) -> Client {
        Client {
            socket,
            nodes,
            leader: 0,
            next_request: 1,
            retry: Duration::from_millis(30),
        }
    }

    /// The node the client takes for the leader.
    pub fn leader(&self) -> usize {
        self.leader
    }

    /// Submits `command` (one word) until it is committed or `give_up`
    /// passes: `Some(index)` of the committed entry, or `None` when no
    /// leader committed it in time (it may still be committed later).
    pub async fn submit(&mut self, command: &str, give_up: Duration) -> io::Result<Option<u64>> {
        assert!(
            !command.is_empty() && !command.contains(char::is_whitespace),
            "a command is one word"
        );
        let give_up = Instant::now() + give_up;
        let request = self.next_request;
        self.next_request += 1;
        let submit = Message::Submit {
            request,
            command: command.to_string(),
        }
        .encode();
        let mut buf = vec![0u8; 1024];
        while Instant::now() < give_up {
            let _ = self
                .socket
                .send_to(submit.as_bytes(), &self.nodes[self.leader])
                .await;
            let wait = (Instant::now() + self.retry).min(give_up);
            let mut moved = false;
            while !moved {
                let Ok(received) = timeout_at(wait, self.socket.recv_from(&mut buf)).await else {
                    // No answer: try the next node.
                    self.leader = (self.leader + 1) % self.nodes.len();
                    break;
                };
                let Ok((len, _)) = received else { continue };
                let text = String::from_utf8_lossy(&buf[..len]);
                let words: Vec<&str> = text.split(' ').collect();
                match words.as_slice() {
                    ["OK", r, index] if r.parse() == Ok(request) => {
                        return Ok(index.parse().ok());
                    }
                    ["REDIRECT", r, hint] if r.parse() == Ok(request) => {
                        self.leader = match hint.parse::<usize>() {
                            Ok(l) if l < self.nodes.len() && l != self.leader => l,
                            // Nobody known: ask the next node after a pause.
                            _ => {
                                sleep_until(wait).await;
                                (self.leader + 1) % self.nodes.len()
                            }
                        };
                        moved = true;
                    }
                    // An answer to an earlier request.
                    _ => {}
                }
            }
        }
        Ok(None)
    }
}
