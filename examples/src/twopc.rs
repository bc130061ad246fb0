//! Two-phase commit: a coordinator and participants over TCP.
//!
//! A client asks the coordinator to write `key = value` at every
//! participant, atomically: either every participant applies the write or
//! none does. The protocol is the textbook one, in text lines, one TCP
//! connection per transaction and participant:
//!
//! ```text
//! client      -> coordinator  TXN <id> <key> <value>
//! coordinator -> participant  PREPARE <id> <key> <value>    reply YES | NO
//! coordinator -> participant  COMMIT <id> | ABORT <id>      reply ACK
//! coordinator -> client       COMMITTED <id> | ABORTED <id>
//! participant -> coordinator  STATUS <id>                   reply COMMIT | ABORT | UNKNOWN
//! anyone      -> participant  OUTCOME <id>                  reply COMMIT | ABORT | PENDING | NONE
//! anyone      -> participant  GET <key>                     reply VALUE <value> | NONE
//! ```
//!
//! A participant votes `YES` once it holds the key's lock; it waits up to
//! [`LOCK_WAIT`] for a lock another transaction holds, then votes `NO`. The
//! coordinator decides `COMMIT` when every vote is `YES` and arrives within
//! [`VOTE_TIMEOUT`], `ABORT` otherwise.
//!
//! Both sides survive crashes, as real two-phase commit must. Each keeps an
//! append-only log of lines on disk, synced before it acts on what it
//! wrote: the coordinator logs its decision before telling anyone; a
//! participant logs `PREPARED` before voting `YES` and the decision before
//! acknowledging it. On restart the coordinator answers `STATUS` from its
//! log (a transaction it has no decision for and is not running was never
//! committed: it logs and answers `ABORT`, "presumed abort"); a participant
//! re-takes the locks of the transactions it prepared but has no decision
//! for, and asks the coordinator about them.
//!
//! A participant that voted `YES` is *uncertain*: it may not decide alone.
//! When no decision arrives within [`DECISION_TIMEOUT`] (longer than the
//! coordinator ever takes while it is up) it runs the termination protocol:
//! it asks the coordinator (`STATUS`) every [`DECISION_TIMEOUT`] until the
//! answer is a decision, while still listening on the transaction's
//! connection.
//!
//! # The planted bug ([`Participant::timeout_aborts`])
//!
//! **What:** a participant that voted `YES` treats [`DECISION_TIMEOUT`]
//! without a decision as `ABORT`: it logs the abort, releases the lock and
//! forgets the write.
//!
//! **Caught by:** atomicity: the coordinator's log says `COMMIT` (and the
//! other participants committed) but this participant aborted.
//!
//! **Schedule:** the network between the coordinator and one participant
//! fails in phase 2, after the coordinator logged `COMMIT` and before that
//! participant heard it. The participant waits [`DECISION_TIMEOUT`] and
//! aborts; the others commit. No timing alone can do it: while the
//! coordinator is reachable its decision always arrives in time. (A crash of
//! the coordinator does not do it either: the participants' connections are
//! reset, and a reset connection sends them to the termination protocol,
//! not to the timeout.) It takes one partition (a fault injector's choice)
//! at one of the steps between the decision's `sync_all` and the
//! participant's receipt of it.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::fs::{File, OpenOptions};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::{Mutex, Notify};
use tokio::time::{timeout, Instant};

use super::lines::{bad, Conn};

/// How long a participant waits for a lock held by another transaction
/// before voting `NO`.
pub const LOCK_WAIT: Duration = Duration::from_millis(50);
/// How long the coordinator waits for all votes before deciding `ABORT`.
pub const VOTE_TIMEOUT: Duration = Duration::from_millis(100);
/// How long an uncertain participant waits for the decision before asking
/// the coordinator for it: longer than [`VOTE_TIMEOUT`] plus a message's
/// trip, so a coordinator that stays up is never late.
pub const DECISION_TIMEOUT: Duration = Duration::from_millis(250);

/// A transaction's fate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Applied everywhere.
    Commit,
    /// Applied nowhere.
    Abort,
}

impl Decision {
    fn word(self) -> &'static str {
        match self {
            Decision::Commit => "COMMIT",
            Decision::Abort => "ABORT",
        }
    }

    fn parse(word: &str) -> Option<Decision> {
        match word {
            "COMMIT" => Some(Decision::Commit),
            "ABORT" => Some(Decision::Abort),
            _ => None,
        }
    }
}

pub use super::lines::ask;

/// An append-only log of lines on disk; a line is durable once
/// [`append`](Log::append) returns.
#[derive(Debug)]
struct Log {
    file: File,
}

impl Log {
    /// Opens the log at `path` (creating it and its directory), returning
    /// it with the complete lines it already holds. A torn last line (a
    /// crash in the middle of an append that was never acknowledged) is
    /// cut off.
    async fn open(path: &Path) -> io::Result<(Log, Vec<String>)> {
        let dir = path.parent().unwrap_or(Path::new("/"));
        tokio::fs::create_dir_all(dir).await?;
        let bytes = match tokio::fs::read(path).await {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let lines = String::from_utf8_lossy(&bytes[..complete])
            .lines()
            .map(str::to_string)
            .collect();
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .await?;
        file.set_len(complete as u64).await?;
        file.sync_all().await?;
        // The file's name is in the directory, and the directory's in its
        // parent (both may be new): make those durable too.
        for d in dir
            .ancestors()
            .take(2)
            .filter(|d| !d.as_os_str().is_empty())
        {
            File::open(d).await?.sync_all().await?;
        }
        Ok((Log { file }, lines))
    }

    async fn append(&mut self, line: &str) -> io::Result<()> {
        self.file.write_all(format!("{line}\n").as_bytes()).await?;
        self.file.sync_all().await
    }
}

// ---------------------------------------------------------------------------
// Coordinator

#[derive(Debug)]
struct CoordinatorState {
    log: Log,
    decisions: BTreeMap<u64, Decision>,
    /// Transactions collecting votes (not decided yet).
    running: BTreeSet<u64>,
}

impl CoordinatorState {
    /// Tells a search the coordinator's state: its decisions and the
    /// transactions collecting votes.
    fn report(&self) {
        sim_rt::sim::report_state(&(&self.decisions, &self.running));
    }
}

/// The coordinator: runs two-phase commit for the clients' transactions.
#[derive(Debug, Clone)]
pub struct Coordinator {
    participants: Vec<String>,
    state: Arc<Mutex<CoordinatorState>>,
}

impl Coordinator {
    /// A coordinator for the participants at these addresses, logging its
    /// decisions in `dir`: recovers the decisions logged there.
    pub async fn open(dir: impl Into<PathBuf>, participants: Vec<String>) -> io::Result<Self> {
        let (log, lines) = Log::open(&dir.into().join("decisions.log")).await?;
        let mut decisions = BTreeMap::new();
        for line in lines {
            if let Some((id, word)) = line.split_once(' ') {
                if let (Ok(id), Some(d)) = (id.parse(), Decision::parse(word)) {
                    decisions.insert(id, d);
                }
            }
        }
        let state = CoordinatorState {
            log,
            decisions,
            running: BTreeSet::new(),
        };
        state.report();
        Ok(Coordinator {
            participants,
            state: Arc::new(tokio::sync::Mutex::new(state)),
        })
    }

    /// Serves clients and `STATUS` questions on `listener`, forever.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        loop {
            let (stream, _) = listener.accept().await?;
            let this = self.clone();
            tokio::spawn(async move {
                let mut conn = Conn::new(stream);
                while let Ok(line) = conn.recv().await {
                    let Ok(reply) = this.handle(&line).await else {
                        break; // the disk failed: hang up
                    };
                    if conn.send(&reply).await.is_err() {
                        break;
                    }
                }
            });
        }
    }

    async fn handle(&self, line: &str) -> io::Result<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        Ok(match words.as_slice() {
            ["TXN", id, key, value] => {
                let Ok(id) = id.parse() else {
                    return Ok(format!("ERROR {line}"));
                };
                match self.transaction(id, key, value).await? {
                    Decision::Commit => format!("COMMITTED {id}"),
                    Decision::Abort => format!("ABORTED {id}"),
                }
            }
            ["STATUS", id] => {
                let Ok(id) = id.parse::<u64>() else {
                    return Ok(format!("ERROR {line}"));
                };
                let mut state = self.state.lock().await;
                if let Some(d) = state.decisions.get(&id) {
                    d.word().to_string()
                } else if state.running.contains(&id) {
                    "UNKNOWN".to_string()
                } else {
                    // Not decided and not running: it was never committed
                    // (a decision is logged before anyone hears it).
                    state.log.append(&format!("{id} ABORT")).await?;
                    state.decisions.insert(id, Decision::Abort);
                    state.report();
                    "ABORT".to_string()
                }
            }
            _ => format!("ERROR {line}"),
        })
    }

    async fn transaction(&self, id: u64, key: &str, value: &str) -> io::Result<Decision> {
        {
            let mut state = self.state.lock().await;
            if let Some(d) = state.decisions.get(&id) {
                return Ok(*d); // asked again: the same answer
            }
            state.running.insert(id);
            state.report();
        }
        // Phase 1: PREPARE everywhere at once, collect the votes.
        let prepare = format!("PREPARE {id} {key} {value}");
        let votes = self.participants.iter().map(|addr| {
            let prepare = prepare.clone();
            async move {
                let mut conn = Conn::connect(addr).await.ok()?;
                let vote = conn.call(&prepare).await.ok()?;
                Some((conn, vote == "YES"))
            }
        });
        let voted = timeout(VOTE_TIMEOUT, futures::future::join_all(votes)).await;
        let conns: Vec<Option<(Conn, bool)>> = voted.unwrap_or_default();
        let all_yes = conns.len() == self.participants.len()
            && conns.iter().all(|c| matches!(c, Some((_, true))));
        let decision = if all_yes {
            Decision::Commit
        } else {
            Decision::Abort
        };
        // Logged before anyone hears it.
        {
            let mut state = self.state.lock().await;
            state
                .log
                .append(&format!("{id} {}", decision.word()))
                .await?;
            state.decisions.insert(id, decision);
            state.running.remove(&id);
            state.report();
        }
        // Phase 2: tell every participant that voted, in turn, on the
        // vote's connection; the others find out by asking.
        // A participant that does not acknowledge in time is left to ask.
        for (mut conn, _) in conns.into_iter().flatten() {
            let tell = format!("{} {id}", decision.word());
            let _ = timeout(DECISION_TIMEOUT, conn.call(&tell)).await;
        }
        Ok(decision)
    }
}

// ---------------------------------------------------------------------------
// Participant

/// What a participant knows about a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Outcome {
    /// Voted `YES`, waiting for the decision.
    Pending,
    Decided(Decision),
}

#[derive(Debug)]
struct Store {
    log: Log,
    data: BTreeMap<String, String>,
    /// key -> the transaction holding its lock.
    locks: BTreeMap<String, u64>,
    /// Prepared writes: id -> (key, value).
    prepared: BTreeMap<u64, (String, String)>,
    outcomes: BTreeMap<u64, Outcome>,
}

/// A participant: a key-value store that applies writes only through
/// two-phase commit.
#[derive(Debug, Clone)]
pub struct Participant {
    coordinator: String,
    timeout_aborts: bool,
    store: Arc<Mutex<Store>>,
    unlocked: Arc<Notify>,
}

impl Participant {
    /// A participant of the coordinator at `coordinator`, logging in `dir`:
    /// recovers its data, its locks and the transactions it must still ask
    /// about from the log there.
    pub async fn open(dir: impl Into<PathBuf>, coordinator: impl Into<String>) -> io::Result<Self> {
        let (log, lines) = Log::open(&dir.into().join("participant.log")).await?;
        let mut store = Store {
            log,
            data: BTreeMap::new(),
            locks: BTreeMap::new(),
            prepared: BTreeMap::new(),
            outcomes: BTreeMap::new(),
        };
        for line in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["PREPARED", id, key, value] => {
                    let Ok(id) = id.parse() else { continue };
                    store
                        .prepared
                        .insert(id, (key.to_string(), value.to_string()));
                    store.outcomes.insert(id, Outcome::Pending);
                }
                [word, id] => {
                    let (Some(d), Ok(id)) = (Decision::parse(word), id.parse()) else {
                        continue;
                    };
                    store.apply(id, d);
                }
                _ => {} // a line mangled by a crash: never acknowledged
            }
        }
        for (id, (key, _)) in &store.prepared {
            store.locks.insert(key.clone(), *id);
        }
        store.report();
        Ok(Participant {
            coordinator: coordinator.into(),
            timeout_aborts: false,
            store: Arc::new(tokio::sync::Mutex::new(store)),
            unlocked: Arc::default(),
        })
    }

    /// **The planted bug**: when `true`, a participant that voted `YES`
    /// and hears nothing for [`DECISION_TIMEOUT`] aborts on its own (see the
    /// module docs).
    pub fn timeout_aborts(mut self, on: bool) -> Participant {
        self.timeout_aborts = on;
        self
    }

    /// Serves the coordinator and questions on `listener`, forever; first
    /// starts asking about the transactions recovered as prepared.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        let uncertain: Vec<u64> = self.store.lock().await.prepared.keys().copied().collect();
        for id in uncertain {
            let this = self.clone();
            tokio::spawn(async move {
                let decision = this.terminate(None, id).await;
                let _ = this.decide(id, decision).await;
            });
        }
        loop {
            let (stream, _) = listener.accept().await?;
            let this = self.clone();
            tokio::spawn(async move {
                let _ = this.connection(Conn::new(stream)).await;
            });
        }
    }

    async fn connection(&self, mut conn: Conn) -> io::Result<()> {
        loop {
            let line = conn.recv().await?;
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["PREPARE", id, key, value] => {
                    let id: u64 = id.parse().map_err(|_| bad(&line))?;
                    return self.prepare(conn, id, key, value).await;
                }
                ["OUTCOME", id] => {
                    let id: u64 = id.parse().map_err(|_| bad(&line))?;
                    let outcome = self.store.lock().await.outcomes.get(&id).copied();
                    let word = match outcome {
                        None => "NONE",
                        Some(Outcome::Pending) => "PENDING",
                        Some(Outcome::Decided(d)) => d.word(),
                    };
                    conn.send(word).await?;
                }
                ["GET", key] => {
                    let value = self.store.lock().await.data.get(*key).cloned();
                    match value {
                        Some(v) => conn.send(&format!("VALUE {v}")).await?,
                        None => conn.send("NONE").await?,
                    }
                }
                _ => return Err(bad(&line)),
            }
        }
    }

    /// Phase 1 at this participant, then waits for phase 2.
    async fn prepare(&self, mut conn: Conn, id: u64, key: &str, value: &str) -> io::Result<()> {
        if !self.lock(id, key).await {
            // Voting NO aborts it here; nothing to remember durably.
            let mut store = self.store.lock().await;
            store
                .outcomes
                .entry(id)
                .or_insert(Outcome::Decided(Decision::Abort));
            store.report();
            drop(store);
            return conn.send("NO").await;
        }
        {
            let mut store = self.store.lock().await;
            store
                .log
                .append(&format!("PREPARED {id} {key} {value}"))
                .await?;
            store
                .prepared
                .insert(id, (key.to_string(), value.to_string()));
            store.outcomes.insert(id, Outcome::Pending);
            store.report();
        }
        // Prepared: from here on the transaction must be resolved, whatever
        // happens to this connection.
        let voted = conn.send("YES").await.is_ok();
        // Uncertain until the decision arrives.
        let heard = match voted {
            true => timeout(DECISION_TIMEOUT, conn.recv()).await,
            false => Ok(Err(io::ErrorKind::BrokenPipe.into())),
        };
        let told = match &heard {
            Ok(Ok(line)) => Decision::parse(line.split_whitespace().next().unwrap_or("")),
            _ => None,
        };
        let decision = match (told, heard) {
            (Some(d), _) => d,
            // BUG: having voted YES, a participant may not decide alone:
            // the coordinator may have committed already.
            (None, Err(_elapsed)) if self.timeout_aborts => Decision::Abort,
            // No decision in time, or the connection broke: ask.
            _ => self.terminate(Some(&mut conn), id).await,
        };
        self.decide(id, decision).await?;
        let _ = conn.send("ACK").await;
        Ok(())
    }

    /// The termination protocol: ask the coordinator until it has decided,
    /// still listening on the transaction's connection if there is one.
    async fn terminate(&self, mut conn: Option<&mut Conn>, id: u64) -> Decision {
        loop {
            let next_ask = Instant::now() + DECISION_TIMEOUT;
            // An unreachable coordinator, or one still deciding: ask again.
            if let Ok(answer) = ask(&self.coordinator, &format!("STATUS {id}")).await {
                if let Some(d) = Decision::parse(&answer) {
                    return d;
                }
            }
            let Some(c) = conn.as_deref_mut() else {
                tokio::time::sleep_until(next_ask).await;
                continue;
            };
            tokio::select! {
                line = c.recv() => match line {
                    Ok(line) => {
                        let word = line.split_whitespace().next().unwrap_or("");
                        if let Some(d) = Decision::parse(word) {
                            return d;
                        }
                    }
                    Err(_) => conn = None,
                },
                _ = tokio::time::sleep_until(next_ask) => {}
            }
        }
    }

    /// Takes `key`'s lock for `id`, waiting up to [`LOCK_WAIT`].
    async fn lock(&self, id: u64, key: &str) -> bool {
        let deadline = Instant::now() + LOCK_WAIT;
        loop {
            let unlocked = self.unlocked.notified();
            {
                let mut store = self.store.lock().await;
                match store.locks.get(key) {
                    None => {
                        store.locks.insert(key.to_string(), id);
                        store.report();
                        return true;
                    }
                    Some(holder) if *holder == id => return true,
                    Some(_) => {}
                }
            }
            if timeout(deadline - Instant::now(), unlocked).await.is_err() {
                return false;
            }
        }
    }

    /// Logs `id`'s decision, applies it and releases its lock.
    async fn decide(&self, id: u64, decision: Decision) -> io::Result<()> {
        let mut store = self.store.lock().await;
        if let Some(Outcome::Decided(_)) = store.outcomes.get(&id) {
            return Ok(()); // already decided (by recovery and by a reply)
        }
        store
            .log
            .append(&format!("{} {id}", decision.word()))
            .await?;
        store.apply(id, decision);
        store.report();
        drop(store);
        self.unlocked.notify_waiters();
        Ok(())
    }
}

impl Store {
    /// Tells a search the participant's state: its data, locks, prepared
    /// writes and what it knows of each transaction.
    fn report(&self) {
        sim_rt::sim::report_state(&(&self.data, &self.locks, &self.prepared, &self.outcomes));
    }

    /// Applies a logged decision about `id` to the in-memory state.
    fn apply(&mut self, id: u64, decision: Decision) {
        if let Some((key, value)) = self.prepared.remove(&id) {
            if decision == Decision::Commit {
                self.data.insert(key.clone(), value);
            }
            if self.locks.get(&key) == Some(&id) {
                self.locks.remove(&key);
            }
        }
        self.outcomes.insert(id, Outcome::Decided(decision));
    }
}

/// A client's request: write `key = value` everywhere, atomically.
/// Returns whether it committed.
pub async fn transaction(coordinator: &str, id: u64, key: &str, value: &str) -> io::Result<bool> {
    let reply = ask(coordinator, &format!("TXN {id} {key} {value}")).await?;
    match reply.split_whitespace().next() {
        Some("COMMITTED") => Ok(true),
        Some("ABORTED") => Ok(false),
        _ => Err(bad(&reply)),
    }
}

/// Asks the coordinator for transaction `id`'s decision (one it never
/// decided is aborted by the asking, as for a participant).
pub async fn status(coordinator: &str, id: u64) -> io::Result<Option<Decision>> {
    let reply = ask(coordinator, &format!("STATUS {id}")).await?;
    Ok(Decision::parse(&reply))
}

/// What a participant knows of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Never prepared it (or voted `NO` and has restarted since).
    Nothing,
    /// Voted `YES`, waiting for the decision.
    Pending,
    /// Decided.
    Decided(Decision),
}

/// Asks a participant what it knows of transaction `id`.
pub async fn outcome(participant: &str, id: u64) -> io::Result<Known> {
    let reply = ask(participant, &format!("OUTCOME {id}")).await?;
    match reply.as_str() {
        "NONE" => Ok(Known::Nothing),
        "PENDING" => Ok(Known::Pending),
        word => Decision::parse(word)
            .map(Known::Decided)
            .ok_or_else(|| bad(&reply)),
    }
}

/// A participant's value of `key`.
pub async fn get(participant: &str, key: &str) -> io::Result<Option<String>> {
    let reply = ask(participant, &format!("GET {key}")).await?;
    Ok(reply.strip_prefix("VALUE ").map(str::to_string))
}
