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
//! [`VOTE_TIMEOUT`], `ABORT` otherwise, and remembers the decision.
//!
//! A participant that voted `YES` is *uncertain*: it may not decide alone.
//! When no decision arrives within [`DECISION_TIMEOUT`] it runs the
//! termination protocol: it asks the coordinator (`STATUS`) every
//! [`DECISION_TIMEOUT`] until the answer is a decision, while still
//! listening on the transaction's connection.
//!
//! # The planted bug ([`Participant::timeout_aborts`])
//!
//! **What:** a participant that voted `YES` treats [`DECISION_TIMEOUT`]
//! without a decision as `ABORT`, releases the lock and forgets the write.
//!
//! **Caught by:** atomicity: the coordinator committed the transaction (its
//! client was told `COMMITTED`) but one participant aborted it, so the
//! participants end with different values.
//!
//! **Schedule:** two clients write the same key concurrently. Participant
//! A locks the key for transaction 1 and votes `YES` at once; participant B
//! holds the lock for transaction 2, so its vote for 1 waits until 2 is
//! decided and its lock released. That takes a few network hops, and when
//! they are slow ones the coordinator's `COMMIT` reaches A more than
//! [`DECISION_TIMEOUT`] after A voted: A aborts, B and C commit. Every
//! message still arrives within the link's latency window; nothing is lost.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::{timeout, Instant};

/// How long a participant waits for a lock held by another transaction
/// before voting `NO`.
pub const LOCK_WAIT: Duration = Duration::from_millis(50);
/// How long the coordinator waits for all votes before deciding `ABORT`.
pub const VOTE_TIMEOUT: Duration = Duration::from_millis(100);
/// How long an uncertain participant waits for the decision before asking
/// the coordinator for it.
pub const DECISION_TIMEOUT: Duration = Duration::from_millis(40);

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

/// One line-oriented connection.
struct Conn {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Conn {
    fn new(stream: TcpStream) -> Conn {
        let (read, write) = stream.into_split();
        Conn {
            lines: BufReader::new(read).lines(),
            write,
        }
    }

    async fn connect(addr: &str) -> io::Result<Conn> {
        Ok(Conn::new(TcpStream::connect(addr).await?))
    }

    async fn send(&mut self, line: &str) -> io::Result<()> {
        self.write.write_all(format!("{line}\n").as_bytes()).await
    }

    /// The next line; end of stream is an `UnexpectedEof` error.
    async fn recv(&mut self) -> io::Result<String> {
        match self.lines.next_line().await? {
            Some(line) => Ok(line),
            None => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }

    async fn call(&mut self, line: &str) -> io::Result<String> {
        self.send(line).await?;
        self.recv().await
    }
}

fn bad(line: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("unexpected message {line:?}"),
    )
}

/// Asks `addr` one question on a fresh connection.
pub async fn ask(addr: &str, line: &str) -> io::Result<String> {
    Conn::connect(addr).await?.call(line).await
}

// ---------------------------------------------------------------------------
// Coordinator

/// The coordinator: runs two-phase commit for the clients' transactions.
#[derive(Debug, Clone)]
pub struct Coordinator {
    participants: Vec<String>,
    decisions: Arc<Mutex<BTreeMap<u64, Decision>>>,
}

impl Coordinator {
    /// A coordinator for the participants at these addresses.
    pub fn new(participants: Vec<String>) -> Coordinator {
        Coordinator {
            participants,
            decisions: Arc::default(),
        }
    }

    /// Serves clients and `STATUS` questions on `listener`, forever.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        loop {
            let (stream, _) = listener.accept().await?;
            let this = self.clone();
            tokio::spawn(async move {
                let mut conn = Conn::new(stream);
                while let Ok(line) = conn.recv().await {
                    let reply = this.handle(&line).await;
                    if conn.send(&reply).await.is_err() {
                        break;
                    }
                }
            });
        }
    }

    async fn handle(&self, line: &str) -> String {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["TXN", id, key, value] => {
                let Ok(id) = id.parse() else {
                    return format!("ERROR {line}");
                };
                match self.transaction(id, key, value).await {
                    Decision::Commit => format!("COMMITTED {id}"),
                    Decision::Abort => format!("ABORTED {id}"),
                }
            }
            ["STATUS", id] => {
                let decided = id
                    .parse()
                    .ok()
                    .and_then(|id| self.decisions.lock().unwrap().get(&id).copied());
                decided.map_or("UNKNOWN", Decision::word).to_string()
            }
            _ => format!("ERROR {line}"),
        }
    }

    async fn transaction(&self, id: u64, key: &str, value: &str) -> Decision {
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
        // Decided: from now on STATUS answers it.
        self.decisions.lock().unwrap().insert(id, decision);
        // Phase 2: tell every participant that voted (on the vote's
        // connection); the ones that did not, find out by asking.
        let tell = conns.into_iter().flatten().map(|(mut conn, _)| async move {
            let _ = conn.call(&format!("{} {id}", decision.word())).await;
        });
        futures::future::join_all(tell).await;
        decision
    }
}

// ---------------------------------------------------------------------------
// Participant

/// What a participant knows about a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Voted `YES`, waiting for the decision.
    Pending,
    Decided(Decision),
}

#[derive(Debug, Default)]
struct Store {
    data: BTreeMap<String, String>,
    /// key -> the transaction holding its lock.
    locks: BTreeMap<String, u64>,
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
    /// A participant of the coordinator at `coordinator`.
    pub fn new(coordinator: impl Into<String>) -> Participant {
        Participant {
            coordinator: coordinator.into(),
            timeout_aborts: false,
            store: Arc::default(),
            unlocked: Arc::default(),
        }
    }

    /// **The planted bug**: when `true`, a participant that voted `YES`
    /// and hears nothing for [`DECISION_TIMEOUT`] aborts on its own (see the
    /// module docs).
    pub fn timeout_aborts(mut self, on: bool) -> Participant {
        self.timeout_aborts = on;
        self
    }

    /// Serves the coordinator and questions on `listener`, forever.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
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
                    let outcome = self.store.lock().unwrap().outcomes.get(&id).copied();
                    let word = match outcome {
                        None => "NONE",
                        Some(Outcome::Pending) => "PENDING",
                        Some(Outcome::Decided(d)) => d.word(),
                    };
                    conn.send(word).await?;
                }
                ["GET", key] => {
                    let value = self.store.lock().unwrap().data.get(*key).cloned();
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
            self.store
                .lock()
                .unwrap()
                .outcomes
                .insert(id, Outcome::Decided(Decision::Abort));
            return conn.send("NO").await;
        }
        self.store
            .lock()
            .unwrap()
            .outcomes
            .insert(id, Outcome::Pending);
        conn.send("YES").await?;
        // Uncertain until the decision arrives.
        let decision = match timeout(DECISION_TIMEOUT, conn.recv()).await {
            Ok(Ok(line)) => {
                let word = line.split_whitespace().next().unwrap_or("");
                Decision::parse(word).ok_or_else(|| bad(&line))?
            }
            // BUG: having voted YES, a participant may not decide alone:
            // the coordinator may have committed already.
            Err(_elapsed) if self.timeout_aborts => Decision::Abort,
            // No decision in time, or the coordinator hung up: ask it.
            _ => self.terminate(&mut conn, id).await,
        };
        self.decide(id, key, value, decision);
        let _ = conn.send("ACK").await;
        Ok(())
    }

    /// The termination protocol: ask the coordinator until it has decided,
    /// still listening on the transaction's connection.
    async fn terminate(&self, conn: &mut Conn, id: u64) -> Decision {
        let mut open = true;
        loop {
            let next_ask = Instant::now() + DECISION_TIMEOUT;
            // An unreachable coordinator, or one still deciding: ask again.
            if let Ok(answer) = ask(&self.coordinator, &format!("STATUS {id}")).await {
                if let Some(d) = Decision::parse(&answer) {
                    return d;
                }
            }
            if open {
                tokio::select! {
                    line = conn.recv() => match line {
                        Ok(line) => {
                            let word = line.split_whitespace().next().unwrap_or("");
                            if let Some(d) = Decision::parse(word) {
                                return d;
                            }
                        }
                        Err(_) => open = false,
                    },
                    _ = tokio::time::sleep_until(next_ask) => {}
                }
            } else {
                tokio::time::sleep_until(next_ask).await;
            }
        }
    }

    /// Takes `key`'s lock for `id`, waiting up to [`LOCK_WAIT`].
    async fn lock(&self, id: u64, key: &str) -> bool {
        let deadline = Instant::now() + LOCK_WAIT;
        loop {
            let unlocked = self.unlocked.notified();
            {
                let mut store = self.store.lock().unwrap();
                match store.locks.get(key) {
                    None => {
                        store.locks.insert(key.to_string(), id);
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

    /// Applies (or not) `id`'s write and releases its lock.
    fn decide(&self, id: u64, key: &str, value: &str, decision: Decision) {
        let mut store = self.store.lock().unwrap();
        if decision == Decision::Commit {
            store.data.insert(key.to_string(), value.to_string());
        }
        if store.locks.get(key) == Some(&id) {
            store.locks.remove(key);
        }
        store.outcomes.insert(id, Outcome::Decided(decision));
        drop(store);
        self.unlocked.notify_waiters();
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

/// Asks a participant what it knows of transaction `id`: `Some(decision)`
/// once it has decided, `None` while it has not (or never heard of it).
pub async fn outcome(participant: &str, id: u64) -> io::Result<Option<Decision>> {
    let reply = ask(participant, &format!("OUTCOME {id}")).await?;
    Ok(Decision::parse(&reply))
}

/// A participant's value of `key`.
pub async fn get(participant: &str, key: &str) -> io::Result<Option<String>> {
    let reply = ask(participant, &format!("GET {key}")).await?;
    Ok(reply.strip_prefix("VALUE ").map(str::to_string))
}
