//! A replicated key-value store: three (or more) replicas over UDP, one
//! leader at a time, reads served by the leader under a lease.
//!
//! # Protocol
//!
//! Every replica keeps the whole map and its *version* `(epoch, index)`.
//! Time is divided into epochs; an epoch has at most one leader. Messages
//! are single UDP datagrams of space-separated words; a request carries a
//! request id (`rid`) that its reply repeats.
//!
//! ```text
//! leader    -> replica  SYNC <rid> <epoch> <leader> <v.epoch> <v.index> [<key> <value>]...
//!                       reply SYNCED <rid> <from> <epoch> <1|0>
//! candidate -> replica  VOTE <rid> <epoch> <candidate> <v.epoch> <v.index>
//!                       reply VOTED <rid> <from> <epoch> <1|0>
//! client    -> replica  GET <rid> <key>           reply VALUE <rid> <value> | NONE <rid> | REDIRECT <rid> <leader|->
//! client    -> replica  PUT <rid> <key> <value>   reply OK <rid> | UNAVAILABLE <rid> | REDIRECT <rid> <leader|->
//! ```
//!
//! - **Replication.** The leader applies a `PUT` by sending the whole new
//!   map with the next version in a `SYNC` to every other replica; it is
//!   committed (and the client told `OK`) once a majority, the leader
//!   included, holds it. A replica adopts a `SYNC` of an epoch at least its
//!   own, and its map when the version is newer. One write at a time. The
//!   leader counts as holding a write from when it sends it: until the
//!   round ends it votes (and runs for election) as if it held it, and it
//!   keeps the write once a majority has it, even if a reply of a later
//!   epoch deposed it meanwhile.
//! - **Leases.** Every [`HEARTBEAT`] the leader sends its committed map in
//!   a `SYNC`. A replica that accepts a `SYNC` promises not to vote for
//!   anyone for [`LEASE`] from when it received it. When a majority
//!   acknowledges a `SYNC` the leader sent at `t`, the leader holds a lease
//!   until `t + LEASE`: no other leader can be elected before then (it
//!   would need a vote from a replica that promised), so no other leader
//!   can commit a write, and the leader may answer `GET` from its own map.
//! - **Elections.** A replica that hears no `SYNC` for its election timeout
//!   ([`ELECTION_TIMEOUT`] plus [`ELECTION_STAGGER`] times its index)
//!   starts the next epoch and asks for votes. A replica grants one vote
//!   per epoch, only once its promise has expired, and only to a candidate
//!   whose version is at least its own, so the new leader holds every
//!   committed write. The new leader bumps its version (a no-op write of
//!   its epoch) and serves nothing until a majority acknowledged a `SYNC`
//!   of its own.
//! - **Clients** send each request to the replica they believe leads,
//!   follow `REDIRECT`s, and try the next replica on silence. A `GET` is
//!   retried until [`OP_DEADLINE`]. A `PUT` whose reply is `UNAVAILABLE` or
//!   never comes may or may not have taken effect: the client reports it as
//!   [`io::ErrorKind::TimedOut`] and does not retry it (a retry could apply
//!   it twice, around another client's write).
//!
//! # The planted bug ([`Replica::stale_reads`])
//!
//! **What:** the leader answers `GET` from its map whenever it believes it
//! is the leader, without checking that its lease is still valid. A leader
//! only learns that it was deposed from a message of a later epoch, so a
//! leader cut off from the others goes on answering reads.
//!
//! **Caught by:** linearizability of the clients' history (checked with
//! [`crate::linearizability`]): a client reads a value older than a write
//! that completed before the read was invoked.
//!
//! **Schedule:** the network partitions the leader from both other
//! replicas (two partitions, each one fault). Its lease runs out, the two
//! others elect a new leader, and a client's `PUT` commits there; another
//! client, which still believes the old leader leads and can still reach
//! it, then reads the key from it and gets the old value. Without the
//! second partition the leader keeps its majority and its lease, and
//! nothing goes wrong.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::sync::mpsc;
use tokio::time::{sleep, sleep_until, timeout_at, Instant};

/// How often the leader renews its lease.
pub const HEARTBEAT: Duration = Duration::from_millis(30);
/// How long a replica's promise (and so the leader's lease) lasts.
pub const LEASE: Duration = Duration::from_millis(100);
/// How long a replica waits without hearing from a leader before it runs
/// for election (plus its stagger); longer than [`LEASE`], so the promise
/// it made has expired by then.
pub const ELECTION_TIMEOUT: Duration = Duration::from_millis(110);
/// Replica `i` waits `i` times this much longer before running, so that
/// candidates rarely split the vote.
pub const ELECTION_STAGGER: Duration = Duration::from_millis(20);
/// How long a leader or candidate waits for a majority's replies.
pub const RPC_TIMEOUT: Duration = Duration::from_millis(20);
/// How long a client waits for one reply before trying another replica.
pub const CLIENT_TIMEOUT: Duration = Duration::from_millis(50);
/// How long a client pauses before asking again when no replica knows a
/// leader.
pub const RETRY_BACKOFF: Duration = Duration::from_millis(10);
/// How long a client keeps retrying a `GET`.
pub const OP_DEADLINE: Duration = Duration::from_millis(400);

/// The largest datagram the store sends (the map travels whole).
const MAX_DATAGRAM: usize = 64 * 1024;

/// A map's version: the epoch of the leader that wrote it, and a counter
/// that only grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
struct Version {
    epoch: u64,
    index: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Follower {
        /// The leader of the current epoch, once heard from.
        leader: Option<usize>,
    },
    Candidate,
    Leader {
        /// Whether a majority has acknowledged a `SYNC` of this epoch:
        /// until then the leader serves nothing.
        ready: bool,
        /// Until when no other leader can be elected.
        lease_until: Option<Instant>,
    },
}

/// A replica's state. Never locked across an `.await`.
#[derive(Debug)]
struct State {
    epoch: u64,
    role: Role,
    /// Whom this replica voted for in `epoch`.
    voted: Option<usize>,
    data: BTreeMap<String, String>,
    version: Version,
    /// The leader's next version index.
    next_index: u64,
    /// The version of the write this replica is replicating as leader, if
    /// any. A round counts the leader itself as holding the write, so until
    /// the round ends it votes and runs for election as if it held it.
    replicating: Option<Version>,
    /// When the replica last heard from a leader (or granted a vote).
    last_heard: Instant,
    /// The replica votes for nobody before this.
    promise_until: Option<Instant>,
    next_rid: u64,
    /// Replies awaited by rounds in progress, by request id.
    waiting: BTreeMap<u64, mpsc::UnboundedSender<Reply>>,
}

impl State {
    /// The newest version this replica holds, counting a write it is
    /// replicating as leader.
    fn held(&self) -> Version {
        self.replicating
            .map_or(self.version, |r| r.max(self.version))
    }

    /// Tells a search the replica's state: its epoch, role (a leader's
    /// lease left out: it is a time), vote, versions and map.
    fn report(&self) {
        let role = match self.role {
            Role::Follower { leader } => (0, leader, false),
            Role::Candidate => (1, None, false),
            Role::Leader { ready, .. } => (2, None, ready),
        };
        sim_rt::sim::report_state(&(
            self.epoch,
            role,
            self.voted,
            self.version,
            self.replicating,
            &self.data,
        ));
    }
}

/// A `SYNCED` or `VOTED` reply.
#[derive(Debug, Clone, Copy)]
struct Reply {
    from: usize,
    epoch: u64,
    yes: bool,
}

#[derive(Debug)]
struct Node {
    id: usize,
    /// Every replica's address, by index (this one's included).
    addrs: Vec<SocketAddr>,
    socket: UdpSocket,
    stale_reads: bool,
    state: Mutex<State>,
    /// One write at a time.
    writing: tokio::sync::Mutex<()>,
}

/// One replica of the store.
#[derive(Debug, Clone)]
pub struct Replica {
    id: usize,
    replicas: Vec<String>,
    stale_reads: bool,
}

impl Replica {
    /// Replica number `id` of the replicas at `replicas` (every replica's
    /// address, this one's at index `id`).
    ///
    /// # Panics
    ///
    /// When `id` is not an index of `replicas`.
    pub fn new(id: usize, replicas: Vec<String>) -> Replica {
        assert!(id < replicas.len(), "replica {id} is not in the list");
        Replica {
            id,
            replicas,
            stale_reads: false,
        }
    }

    /// **The planted bug**: when `true`, the leader answers reads without
    /// checking its lease (see the module docs).
    pub fn stale_reads(mut self, on: bool) -> Replica {
        self.stale_reads = on;
        self
    }

    /// Serves on `socket` (bound to this replica's address), forever.
    pub async fn serve(self, socket: UdpSocket) -> io::Result<()> {
        let mut addrs = Vec::new();
        for r in &self.replicas {
            addrs.push(resolve(r).await?);
        }
        let now = Instant::now();
        let node = Arc::new(Node {
            id: self.id,
            addrs,
            socket,
            stale_reads: self.stale_reads,
            state: Mutex::new(State {
                epoch: 0,
                role: Role::Follower { leader: None },
                voted: None,
                data: BTreeMap::new(),
                version: Version::default(),
                next_index: 1,
                replicating: None,
                last_heard: now,
                promise_until: None,
                next_rid: 1,
                waiting: BTreeMap::new(),
            }),
            writing: tokio::sync::Mutex::new(()),
        });
        node.state.lock().unwrap().report();
        tokio::select! {
            r = node.clone().receive() => r,
            () = node.drive() => unreachable!("the driver runs forever"),
        }
    }
}

async fn resolve(addr: &str) -> io::Result<SocketAddr> {
    tokio::net::lookup_host(addr).await?.next().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{addr} has no address"),
        )
    })
}

fn parse<T: std::str::FromStr>(word: &str) -> io::Result<T> {
    word.parse().map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("unexpected word {word:?}"),
        )
    })
}

impl Node {
    fn majority(&self) -> usize {
        self.addrs.len() / 2 + 1
    }

    fn peers(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.addrs.len()).filter(move |&i| i != self.id)
    }

    async fn send(&self, line: &str, to: SocketAddr) {
        // UDP: a datagram that cannot be sent is a datagram lost.
        let _ = self.socket.send_to(line.as_bytes(), to).await;
    }

    /// Receives datagrams and answers them, forever.
    async fn receive(self: Arc<Self>) -> io::Result<()> {
        let mut buf = vec![0u8; MAX_DATAGRAM];
        loop {
            let (n, from) = self.socket.recv_from(&mut buf).await?;
            let Ok(line) = std::str::from_utf8(&buf[..n]) else {
                continue;
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            // A malformed datagram is dropped, as a real server would.
            let _ = self.handle(&words, from).await;
        }
    }

    async fn handle(self: &Arc<Self>, words: &[&str], from: SocketAddr) -> io::Result<()> {
        match words {
            ["SYNCED" | "VOTED", rid, replica, epoch, yes] => {
                let reply = Reply {
                    from: parse(replica)?,
                    epoch: parse(epoch)?,
                    yes: *yes == "1",
                };
                let st = self.state.lock().unwrap();
                if let Some(tx) = st.waiting.get(&parse(rid)?) {
                    let _ = tx.send(reply);
                }
            }
            ["SYNC", rid, epoch, leader, ve, vi, rest @ ..] => {
                let version = Version {
                    epoch: parse(ve)?,
                    index: parse(vi)?,
                };
                let data = rest
                    .chunks(2)
                    .filter_map(|kv| match kv {
                        [k, v] => Some((k.to_string(), v.to_string())),
                        _ => None,
                    })
                    .collect();
                let (epoch, ok) = self.on_sync(parse(epoch)?, parse(leader)?, version, data);
                let reply = format!("SYNCED {rid} {} {epoch} {}", self.id, u8::from(ok));
                self.send(&reply, from).await;
            }
            ["VOTE", rid, epoch, candidate, ve, vi] => {
                let version = Version {
                    epoch: parse(ve)?,
                    index: parse(vi)?,
                };
                let (epoch, granted) = self.on_vote(parse(epoch)?, parse(candidate)?, version);
                let reply = format!("VOTED {rid} {} {epoch} {}", self.id, u8::from(granted));
                self.send(&reply, from).await;
            }
            ["GET", rid, key] => {
                let reply = match self.read(key) {
                    Ok(Some(v)) => format!("VALUE {rid} {v}"),
                    Ok(None) => format!("NONE {rid}"),
                    Err(leader) => redirect(rid, leader),
                };
                self.send(&reply, from).await;
            }
            ["PUT", rid, key, value] => {
                let (rid, key, value) = (rid.to_string(), key.to_string(), value.to_string());
                let this = self.clone();
                // A write waits for a majority: answer it on its own task.
                tokio::spawn(async move {
                    let reply = match this.write(&key, &value).await {
                        Ok(true) => format!("OK {rid}"),
                        Ok(false) => format!("UNAVAILABLE {rid}"),
                        Err(leader) => redirect(&rid, leader),
                    };
                    this.send(&reply, from).await;
                });
            }
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("unexpected message {:?}", words.join(" ")),
                ))
            }
        }
        Ok(())
    }

    /// A `SYNC` from the leader of `epoch`: the reply's epoch and whether
    /// it was accepted.
    fn on_sync(
        &self,
        epoch: u64,
        leader: usize,
        version: Version,
        data: BTreeMap<String, String>,
    ) -> (u64, bool) {
        let now = Instant::now();
        let mut st = self.state.lock().unwrap();
        if epoch < st.epoch {
            return (st.epoch, false);
        }
        if epoch > st.epoch {
            st.epoch = epoch;
            st.voted = None;
        }
        // A candidate of this epoch, or a leader of an older one, steps
        // down.
        st.role = Role::Follower {
            leader: Some(leader),
        };
        st.last_heard = now;
        st.promise_until = Some(now + LEASE);
        if version > st.version {
            st.data = data;
            st.version = version;
        }
        st.report();
        (st.epoch, true)
    }

    /// A candidate asks for a vote: the reply's epoch and whether it was
    /// granted.
    fn on_vote(&self, epoch: u64, candidate: usize, version: Version) -> (u64, bool) {
        let now = Instant::now();
        let mut st = self.state.lock().unwrap();
        let held = st.held();
        let promised = st.promise_until.is_some_and(|p| now < p);
        if promised || matches!(st.role, Role::Leader { .. }) {
            // A leader is alive: ignore the candidate, without adopting
            // its epoch (which would depose that leader for nothing).
            return (st.epoch, false);
        }
        if epoch > st.epoch {
            st.epoch = epoch;
            st.voted = None;
            st.role = Role::Follower { leader: None };
        }
        let granted =
            epoch == st.epoch && st.voted.is_none_or(|v| v == candidate) && version >= held;
        if granted {
            st.voted = Some(candidate);
            st.last_heard = now;
        }
        st.report();
        (st.epoch, granted)
    }

    /// Answers a `GET` from the map, or names the leader to ask.
    fn read(&self, key: &str) -> Result<Option<String>, Option<usize>> {
        let now = Instant::now();
        let st = self.state.lock().unwrap();
        match st.role {
            Role::Leader {
                ready: true,
                lease_until,
            } => {
                let leased = lease_until.is_some_and(|l| now < l);
                // BUG: without the lease, another leader may have been
                // elected and have committed writes this map lacks.
                if leased || self.stale_reads {
                    Ok(st.data.get(key).cloned())
                } else {
                    Err(None)
                }
            }
            Role::Leader { ready: false, .. } | Role::Candidate => Err(None),
            Role::Follower { leader } => Err(leader),
        }
    }

    /// Commits a `PUT`: `Ok(true)` once a majority holds it, `Ok(false)`
    /// when that is not known, `Err(leader)` when this replica does not
    /// lead.
    async fn write(&self, key: &str, value: &str) -> Result<bool, Option<usize>> {
        let _one_at_a_time = self.writing.lock().await;
        let (epoch, version, data) = {
            let mut st = self.state.lock().unwrap();
            match st.role {
                Role::Leader { ready: true, .. } => {}
                Role::Leader { ready: false, .. } | Role::Candidate => return Err(None),
                Role::Follower { leader } => return Err(leader),
            }
            let version = Version {
                epoch: st.epoch,
                index: st.next_index,
            };
            st.next_index += 1;
            st.replicating = Some(version);
            st.report();
            let mut data = st.data.clone();
            data.insert(key.to_string(), value.to_string());
            (st.epoch, version, data)
        };
        let committed = self.replicate(epoch, version, &data).await;
        let mut st = self.state.lock().unwrap();
        st.replicating = None;
        // The round counted this replica as holding the write, so it keeps
        // it even if it stepped down meanwhile (a reply of a later epoch):
        // otherwise a majority would not hold it, and this replica could
        // win an election without it.
        if committed && version > st.version {
            st.data = data;
            st.version = version;
        }
        st.report();
        Ok(committed)
    }

    /// Sends `data` at `version` to every other replica; whether a
    /// majority (this replica included) accepted it. Renews the lease.
    async fn replicate(
        &self,
        epoch: u64,
        version: Version,
        data: &BTreeMap<String, String>,
    ) -> bool {
        let sent_at = Instant::now();
        let mut words = format!("{epoch} {} {} {}", self.id, version.epoch, version.index);
        for (k, v) in data {
            words.push_str(&format!(" {k} {v}"));
        }
        let acks = self.round(epoch, |rid| format!("SYNC {rid} {words}")).await;
        if acks < self.majority() {
            return false;
        }
        let mut st = self.state.lock().unwrap();
        if st.epoch == epoch {
            if let Role::Leader {
                ready, lease_until, ..
            } = &mut st.role
            {
                *ready = true;
                let until = sent_at + LEASE;
                *lease_until = Some(lease_until.map_or(until, |l| l.max(until)));
            }
        }
        st.report();
        true
    }

    /// Sends the request `make(rid)` to every other replica and counts the
    /// yes replies of `epoch` (this replica's own included) until a
    /// majority or [`RPC_TIMEOUT`]. A reply of a later epoch makes this
    /// replica a follower in that epoch.
    async fn round(&self, epoch: u64, make: impl Fn(u64) -> String) -> usize {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let rid = {
            let mut st = self.state.lock().unwrap();
            let rid = st.next_rid;
            st.next_rid += 1;
            st.waiting.insert(rid, tx);
            rid
        };
        let line = make(rid);
        for p in self.peers() {
            self.send(&line, self.addrs[p]).await;
        }
        let deadline = Instant::now() + RPC_TIMEOUT;
        let mut yes: Vec<usize> = vec![self.id];
        while yes.len() < self.majority() {
            let Ok(Some(reply)) = timeout_at(deadline, rx.recv()).await else {
                break;
            };
            if reply.epoch > epoch {
                let mut st = self.state.lock().unwrap();
                if reply.epoch > st.epoch {
                    st.epoch = reply.epoch;
                    st.voted = None;
                    st.role = Role::Follower { leader: None };
                    st.last_heard = Instant::now();
                    st.report();
                }
                break;
            }
            if reply.yes && reply.epoch == epoch && !yes.contains(&reply.from) {
                yes.push(reply.from);
            }
        }
        self.state.lock().unwrap().waiting.remove(&rid);
        yes.len()
    }

    /// The timers: the leader's heartbeats, everyone else's election
    /// timeout.
    async fn drive(&self) {
        let stagger = ELECTION_STAGGER * self.id as u32;
        let mut last_beat: Option<Instant> = None;
        loop {
            let (leading, wake) = {
                let st = self.state.lock().unwrap();
                match st.role {
                    Role::Leader { .. } => {
                        (true, last_beat.map_or(Instant::now(), |b| b + HEARTBEAT))
                    }
                    _ => (false, st.last_heard + ELECTION_TIMEOUT + stagger),
                }
            };
            sleep_until(wake).await;
            if leading {
                let (epoch, version, data) = {
                    let st = self.state.lock().unwrap();
                    if !matches!(st.role, Role::Leader { .. }) {
                        continue;
                    }
                    (st.epoch, st.version, st.data.clone())
                };
                last_beat = Some(Instant::now());
                self.replicate(epoch, version, &data).await;
            } else {
                last_beat = None;
                let due = {
                    let st = self.state.lock().unwrap();
                    !matches!(st.role, Role::Leader { .. })
                        && Instant::now() >= st.last_heard + ELECTION_TIMEOUT + stagger
                };
                if due {
                    self.elect().await;
                }
            }
        }
    }

    /// Runs for leader of the next epoch; while a write of its own is still
    /// being replicated, waits for its round to end instead (within
    /// [`RPC_TIMEOUT`]), and the caller tries again.
    async fn elect(&self) {
        if self.state.lock().unwrap().replicating.is_some() {
            sleep(RPC_TIMEOUT).await;
            return;
        }
        let (epoch, version) = {
            let mut st = self.state.lock().unwrap();
            st.epoch += 1;
            st.role = Role::Candidate;
            st.voted = Some(self.id);
            st.last_heard = Instant::now();
            st.report();
            (st.epoch, st.version)
        };
        let votes = self
            .round(epoch, |rid| {
                format!(
                    "VOTE {rid} {epoch} {} {} {}",
                    self.id, version.epoch, version.index
                )
            })
            .await;
        let mut st = self.state.lock().unwrap();
        if votes >= self.majority() && st.epoch == epoch && st.role == Role::Candidate {
            // The no-op write of the new epoch: the map now carries a
            // version no older leader can have written.
            st.next_index = st.version.index + 1;
            st.version = Version {
                epoch,
                index: st.next_index,
            };
            st.next_index += 1;
            st.role = Role::Leader {
                ready: false,
                lease_until: None,
            };
        } else if st.role == Role::Candidate {
            st.role = Role::Follower { leader: None };
        }
        st.report();
    }
}

fn redirect(rid: &str, leader: Option<usize>) -> String {
    match leader {
        Some(l) => format!("REDIRECT {rid} {l}"),
        None => format!("REDIRECT {rid} -"),
    }
}

/// A client of the store: one request at a time.
#[derive(Debug)]
pub struct Client {
    socket: UdpSocket,
    replicas: Vec<SocketAddr>,
    /// The replica believed to lead.
    leader: usize,
    next_rid: u64,
    buf: Vec<u8>,
}

/// What a replica answered.
enum Answer {
    Value(Option<String>),
    Ok,
    Unavailable,
    Redirect(Option<usize>),
}

impl Client {
    /// A client sending from `socket` to the replicas at `replicas`.
    pub async fn new(socket: UdpSocket, replicas: &[String]) -> io::Result<Client> {
        let mut addrs = Vec::new();
        for r in replicas {
            addrs.push(resolve(r).await?);
        }
        Ok(Client {
            socket,
            replicas: addrs,
            leader: 0,
            next_rid: 1,
            buf: vec![0u8; MAX_DATAGRAM],
        })
    }

    /// Reads `key` (`None`: never written).
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::TimedOut`] when no leader answered within
    /// [`OP_DEADLINE`].
    pub async fn get(&mut self, key: &str) -> io::Result<Option<String>> {
        check_word(key)?;
        let deadline = Instant::now() + OP_DEADLINE;
        while Instant::now() < deadline {
            match self.ask(&format!("GET {{rid}} {key}")).await? {
                Some(Answer::Value(v)) => return Ok(v),
                Some(Answer::Redirect(hint)) => self.follow(hint).await,
                // Silence (or nonsense): try another replica.
                _ => self.leader = (self.leader + 1) % self.replicas.len(),
            }
        }
        Err(io::ErrorKind::TimedOut.into())
    }

    /// Writes `key = value`. Keys and values are words without whitespace.
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::TimedOut`] when the write's outcome is unknown: it
    /// may have taken effect, or may yet.
    pub async fn put(&mut self, key: &str, value: &str) -> io::Result<()> {
        check_word(key)?;
        check_word(value)?;
        let deadline = Instant::now() + OP_DEADLINE;
        while Instant::now() < deadline {
            match self.ask(&format!("PUT {{rid}} {key} {value}")).await? {
                Some(Answer::Ok) => return Ok(()),
                // Not the leader: certainly not applied; ask the right one.
                Some(Answer::Redirect(hint)) => self.follow(hint).await,
                // The leader could not reach a majority in time, or no
                // reply: the write may have been applied. Do not retry it.
                _ => {
                    self.leader = (self.leader + 1) % self.replicas.len();
                    return Err(io::ErrorKind::TimedOut.into());
                }
            }
        }
        Err(io::ErrorKind::TimedOut.into())
    }

    async fn follow(&mut self, hint: Option<usize>) {
        match hint {
            Some(l) if l < self.replicas.len() && l != self.leader => self.leader = l,
            _ => {
                self.leader = (self.leader + 1) % self.replicas.len();
                sleep(RETRY_BACKOFF).await;
            }
        }
    }

    /// Sends `request` (with `{rid}` replaced) to the believed leader and
    /// waits up to [`CLIENT_TIMEOUT`] for its answer (`None`: silence).
    async fn ask(&mut self, request: &str) -> io::Result<Option<Answer>> {
        let rid = self.next_rid;
        self.next_rid += 1;
        let line = request.replacen("{rid}", &rid.to_string(), 1);
        let to = self.replicas[self.leader];
        self.socket.send_to(line.as_bytes(), to).await?;
        let deadline = Instant::now() + CLIENT_TIMEOUT;
        loop {
            let (n, _) = match timeout_at(deadline, self.socket.recv_from(&mut self.buf)).await {
                Ok(r) => r?,
                Err(_elapsed) => return Ok(None),
            };
            let Ok(reply) = std::str::from_utf8(&self.buf[..n]) else {
                continue;
            };
            let words: Vec<&str> = reply.split_whitespace().collect();
            let (verb, answer_rid, rest) = match words.as_slice() {
                [verb, r, rest @ ..] => (*verb, *r, rest),
                _ => continue,
            };
            // A late answer to an earlier request: not this one's.
            if answer_rid.parse() != Ok(rid) {
                continue;
            }
            return Ok(Some(match (verb, rest) {
                ("VALUE", [v]) => Answer::Value(Some(v.to_string())),
                ("NONE", []) => Answer::Value(None),
                ("OK", []) => Answer::Ok,
                ("UNAVAILABLE", []) => Answer::Unavailable,
                ("REDIRECT", [l]) => Answer::Redirect(l.parse().ok()),
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("unexpected reply {reply:?}"),
                    ))
                }
            }));
        }
    }
}

fn check_word(s: &str) -> io::Result<()> {
    if s.is_empty() || s.contains(char::is_whitespace) || s.contains("{rid}") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{s:?}: keys and values are non-empty words without whitespace"),
        ));
    }
    Ok(())
}
