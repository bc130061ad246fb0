//! Chain replication (van Renesse & Schneider, OSDI 2004): servers in a
//! chain and a master that repairs the chain when servers fail.
//!
//! Clients send updates to the head of the chain and queries to its tail.
//! The head numbers each update (its *sequence number* is its position in
//! the head's history) and forwards it down the chain; every server appends
//! it to its own history and forwards it on; the tail acknowledges it, and
//! the acknowledgement travels back up the chain to the head, which answers
//! the client. An update is *stable* once the tail has it: only stable
//! updates are acknowledged, and a query answers with the tail's history.
//! Each server keeps the updates it forwarded that are not yet stable
//! (its *sent* list, the suffix of its history after its `acked` number),
//! so that it can forward them again to a new successor.
//!
//! The protocol is text lines over TCP:
//!
//! ```text
//! master -> server   CONFIG <pred> <succ>   reply OK      (initial configuration; `-` is none)
//! master -> server   PRED <pred>            reply OK      (repair: a new predecessor)
//! master -> server   SUCC <succ>            reply OK      (repair: a new successor)
//! master -> server   PING                   reply PONG
//! server -> succ     CHAIN <server>         reply LAST <n>, then FWD <seq> <id> down and ACK <seq> up
//! client -> head     UPDATE <id>            reply DONE <seq> once stable | NOTHEAD
//! client -> tail     QUERY                  reply HISTORY <id,id,...> | NOTTAIL
//! anyone -> server   STATE                  reply STATE <pred> <succ> <id,id,...>
//! anyone -> master   CHAIN                  reply CHAIN <server> ... | STARTING
//! ```
//!
//! A server links to its successor with `CHAIN`; the successor accepts it
//! only from its configured predecessor, answers with the length of its
//! history, and the server forwards everything after that. Acknowledgements
//! are cumulative. A server told it has no successor is the tail: all of
//! its history is stable.
//!
//! The master configures the chain, then waits until it works: an update
//! (id 0) sent to the head is acknowledged. A server that fails before
//! then is left out and the configuration starts over. Once the chain
//! works, the master pings every server each [`HEARTBEAT`]; a server that
//! does not answer within [`RPC_TIMEOUT`] has failed (servers fail by
//! stopping). The master takes it out of its chain and tells its
//! neighbours: the successor gets `PRED`, the predecessor `SUCC`. A
//! neighbour that does not answer has failed too: it is taken out as well
//! and the repair goes on with the next one. Repairs run one at a time.
//!
//! # The planted bug ([`Master::stale_neighbours`])
//!
//! **What:** the master repairs each failure as soon as its monitor
//! detects it, with the neighbours the failed server had in the chain as
//! it was at that moment; it ignores a neighbour that does not answer
//! ("it has failed too, its own monitor will repair that") and takes the
//! failed server out of its chain only once the repair is done. Two repairs
//! may run at once.
//!
//! **Caught by:** chain integrity: once the master's chain is settled,
//! every server in it has the predecessor and successor the master's chain
//! gives it. Without it the chain stalls: the head forwards to a server
//! that has failed, or a server waits for a predecessor that has failed,
//! and no update is acknowledged again (the scenario also checks that).
//!
//! **Schedule:** two *neighbouring* servers `X` and `N` fail close
//! together after the chain has started: in the same heartbeat, or `N`
//! while the repair of `X` still waits for `N` to answer. The repair of
//! `X` tells `X`'s predecessor that its successor is `N` (failed), and the
//! repair of `N`, which read the chain before `X` was taken out, tells
//! `N`'s successor that its predecessor is `X` (failed). The master's chain
//! is right, the servers' links are not. Failures of servers that are not
//! neighbours, or far enough apart, are repaired correctly. In the
//! simulated scenario (`src/sim/chain.rs`), the staged explorer reaches it
//! with no delay: once the chain has started, the fault injector runs
//! first and fails the first three servers in three consecutive ticks.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::time::{sleep, timeout, MissedTickBehavior};

use super::lines::{bad, Conn};

/// How often the master pings each server once the chain has started.
pub const HEARTBEAT: Duration = Duration::from_millis(60);
/// How long a request between master and servers may take (connect and
/// reply) before the other side counts as failed: more than two round
/// trips on the slowest link (4 x 10 ms), so a running server never
/// counts as failed.
pub const RPC_TIMEOUT: Duration = Duration::from_millis(50);
/// How long a server waits before linking to its successor again after a
/// failed attempt.
pub const RETRY: Duration = Duration::from_millis(10);

pub use super::lines::ask;

/// [`ask`] within [`RPC_TIMEOUT`]; a timeout is a `TimedOut` error.
async fn call(addr: &str, line: &str) -> io::Result<String> {
    timeout(RPC_TIMEOUT, ask(addr, line))
        .await
        .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into()))
}

fn word(addr: Option<&str>) -> &str {
    addr.unwrap_or("-")
}

fn addr(word: &str) -> Option<String> {
    (word != "-").then(|| word.to_string())
}

fn ids(history: &[u64]) -> String {
    let ids: Vec<String> = history.iter().map(u64::to_string).collect();
    if ids.is_empty() {
        "-".to_string()
    } else {
        ids.join(",")
    }
}

fn parse_ids(word: &str) -> io::Result<Vec<u64>> {
    if word == "-" {
        return Ok(Vec::new());
    }
    word.split(',')
        .map(|id| id.parse().map_err(|_| bad(word)))
        .collect()
}

// ---------------------------------------------------------------------------
// Server

#[derive(Debug, Default)]
struct ServerState {
    /// Set by the master's first `CONFIG`; until then the server serves
    /// nobody.
    configured: bool,
    pred: Option<String>,
    succ: Option<String>,
    /// Update ids in sequence order: update `seq` is `history[seq - 1]`.
    history: Vec<u64>,
    /// Updates `1..=acked` are stable (the tail has them);
    /// `acked <= history.len()`.
    acked: u64,
}

impl ServerState {
    fn is_head(&self) -> bool {
        self.configured && self.pred.is_none()
    }

    fn is_tail(&self) -> bool {
        self.configured && self.succ.is_none()
    }

    fn last(&self) -> u64 {
        self.history.len() as u64
    }

    /// The tail's history is stable as soon as it has it.
    fn settle(&mut self) {
        if self.is_tail() {
            self.acked = self.last();
        }
        debug_assert!(self.acked <= self.last(), "only updates held are stable");
    }

    fn report(&self) {
        sim_rt::sim::report_state(&(
            self.configured,
            &self.pred,
            &self.succ,
            &self.history,
            self.acked,
        ));
    }
}

/// A chain server: a replica of the update history.
#[derive(Debug, Clone)]
pub struct Server {
    me: String,
    state: Arc<Mutex<ServerState>>,
    /// Notified on every change of `state`, to wake the tasks waiting on
    /// it.
    changed: Arc<Notify>,
}

impl Server {
    /// A server that its peers reach at `me` (the address its listener
    /// is bound to, as the master and the other servers name it).
    pub fn new(me: impl Into<String>) -> Server {
        Server {
            me: me.into(),
            state: Arc::default(),
            changed: Arc::default(),
        }
    }

    /// Serves the master, its neighbours and clients on `listener`, forever.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        self.state.lock().unwrap().report();
        let this = self.clone();
        tokio::spawn(async move { this.downstream().await });
        loop {
            let (stream, _) = listener.accept().await?;
            let this = self.clone();
            tokio::spawn(async move {
                let _ = this.connection(Conn::new(stream)).await;
            });
        }
    }

    /// Changes the state and wakes whoever waits on it.
    fn update<R>(&self, f: impl FnOnce(&mut ServerState) -> R) -> R {
        let r = {
            let mut state = self.state.lock().unwrap();
            let r = f(&mut state);
            state.settle();
            state.report();
            r
        };
        self.changed.notify_waiters();
        r
    }

    async fn connection(&self, mut conn: Conn) -> io::Result<()> {
        loop {
            let line = conn.recv().await?;
            let words: Vec<&str> = line.split_whitespace().collect();
            let reply = match words.as_slice() {
                ["PING"] => "PONG".to_string(),
                ["CONFIG", pred, succ] => {
                    self.update(|s| {
                        s.configured = true;
                        s.pred = addr(pred);
                        s.succ = addr(succ);
                    });
                    "OK".to_string()
                }
                ["PRED", pred] => {
                    self.update(|s| s.pred = addr(pred));
                    "OK".to_string()
                }
                ["SUCC", succ] => {
                    self.update(|s| s.succ = addr(succ));
                    "OK".to_string()
                }
                ["CHAIN", from] => return self.upstream(conn, from).await,
                ["UPDATE", id] => {
                    let id = id.parse().map_err(|_| bad(&line))?;
                    match self.head_update(id).await {
                        Some(seq) => format!("DONE {seq}"),
                        None => "NOTHEAD".to_string(),
                    }
                }
                ["QUERY"] => {
                    let s = self.state.lock().unwrap();
                    if s.is_tail() {
                        format!("HISTORY {}", ids(&s.history))
                    } else {
                        "NOTTAIL".to_string()
                    }
                }
                ["STATE"] => {
                    let s = self.state.lock().unwrap();
                    format!(
                        "STATE {} {} {}",
                        word(s.pred.as_deref()),
                        word(s.succ.as_deref()),
                        ids(&s.history)
                    )
                }
                _ => return Err(bad(&line)),
            };
            conn.send(&reply).await?;
        }
    }

    /// At the head: appends update `id` (once, however often a client
    /// retries it) and waits until it is stable. `None` if this server is
    /// not the head.
    async fn head_update(&self, id: u64) -> Option<u64> {
        let seq = self.update(|s| {
            if !s.is_head() {
                return None;
            }
            match s.history.iter().position(|&h| h == id) {
                Some(at) => Some(at as u64 + 1),
                None => {
                    s.history.push(id);
                    Some(s.last())
                }
            }
        })?;
        loop {
            // Created before the check, so no change is missed.
            let changed = self.changed.notified();
            if self.state.lock().unwrap().acked >= seq {
                return Some(seq);
            }
            changed.await;
        }
    }

    /// Serves the predecessor `from` on its `CHAIN` connection: appends
    /// what it forwards, sends acknowledgements back.
    async fn upstream(&self, mut conn: Conn, from: &str) -> io::Result<()> {
        let last = {
            let s = self.state.lock().unwrap();
            (s.configured && s.pred.as_deref() == Some(from)).then(|| s.last())
        };
        let Some(last) = last else {
            return conn.send("REJECT").await;
        };
        conn.send(&format!("LAST {last}")).await?;
        let mut told = 0;
        loop {
            let changed = self.changed.notified();
            let (acked, linked) = {
                let s = self.state.lock().unwrap();
                (s.acked, s.pred.as_deref() == Some(from))
            };
            if !linked {
                // Reconfigured: `from` is no longer the predecessor.
                return Ok(());
            }
            if acked > told {
                conn.send(&format!("ACK {acked}")).await?;
                told = acked;
            }
            tokio::select! {
                biased;
                line = conn.recv() => {
                    let line = line?;
                    let words: Vec<&str> = line.split_whitespace().collect();
                    let ["FWD", seq, id] = words.as_slice() else {
                        return Err(bad(&line));
                    };
                    let seq: u64 = seq.parse().map_err(|_| bad(&line))?;
                    let id: u64 = id.parse().map_err(|_| bad(&line))?;
                    let appended = self.update(|s| {
                        if seq == s.last() + 1 {
                            s.history.push(id);
                        }
                        // Below: a resend of what this server has; above:
                        // a gap, which the protocol never sends.
                        seq <= s.last()
                    });
                    if !appended {
                        return Err(bad(&line));
                    }
                }
                _ = changed => {}
            }
        }
    }

    /// Keeps the link to the successor: forwards the history, learns what
    /// is stable. Relinks whenever the successor changes.
    async fn downstream(&self) {
        loop {
            let changed = self.changed.notified();
            let succ = self.state.lock().unwrap().succ.clone();
            match succ {
                None => changed.await,
                Some(succ) => {
                    if self.forward(&succ).await.is_err() {
                        sleep(RETRY).await;
                    }
                }
            }
        }
    }

    /// Forwards to `succ` until it is no longer the successor (`Ok`) or
    /// the link fails (`Err`).
    async fn forward(&self, succ: &str) -> io::Result<()> {
        let mut conn = timeout(RPC_TIMEOUT, Conn::connect(succ))
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into()))?;
        conn.send(&format!("CHAIN {}", self.me)).await?;
        let reply = timeout(RPC_TIMEOUT, conn.recv())
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into()))?;
        let mut sent: u64 = match reply.strip_prefix("LAST ").map(str::parse) {
            Some(Ok(n)) => n,
            // Not (yet) its predecessor: the master has not told it.
            _ => return Err(io::ErrorKind::ConnectionRefused.into()),
        };
        loop {
            let changed = self.changed.notified();
            let pending: Vec<(u64, u64)> = {
                let s = self.state.lock().unwrap();
                if s.succ.as_deref() != Some(succ) {
                    return Ok(());
                }
                // A successor never has more than its predecessor.
                let from = sent.min(s.last());
                (from + 1..=s.last())
                    .map(|seq| (seq, s.history[seq as usize - 1]))
                    .collect()
            };
            for (seq, id) in pending {
                conn.send(&format!("FWD {seq} {id}")).await?;
                sent = seq;
            }
            tokio::select! {
                biased;
                line = conn.recv() => {
                    let line = line?;
                    let acked = line
                        .strip_prefix("ACK ")
                        .and_then(|n| n.parse::<u64>().ok())
                        .ok_or_else(|| bad(&line))?;
                    self.update(|s| s.acked = s.acked.max(acked.min(s.last())));
                }
                _ = changed => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Master

/// The master: configures the chain and repairs it when servers fail.
#[derive(Debug, Clone)]
pub struct Master {
    servers: Vec<String>,
    /// The chain, head first; empty until the chain has started.
    chain: Arc<Mutex<Vec<String>>>,
    /// Held for the whole of a repair: repairs run one at a time.
    repairing: Arc<tokio::sync::Mutex<()>>,
    stale_neighbours: bool,
}

impl Master {
    /// A master for the servers at these addresses, in chain order.
    pub fn new(servers: Vec<String>) -> Master {
        Master {
            servers,
            chain: Arc::default(),
            repairing: Arc::default(),
            stale_neighbours: false,
        }
    }

    /// **The planted bug**: when `true`, the master repairs each failure
    /// with the neighbours of the chain as it was when the failure was
    /// detected, concurrently with other repairs (see the module docs).
    pub fn stale_neighbours(mut self, on: bool) -> Master {
        self.stale_neighbours = on;
        self
    }

    /// Starts the chain, then monitors it and answers `CHAIN` on
    /// `listener`, forever.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        let this = self.clone();
        tokio::spawn(async move { this.start().await });
        loop {
            let (stream, _) = listener.accept().await?;
            let chain = self.chain.clone();
            tokio::spawn(async move {
                let mut conn = Conn::new(stream);
                while let Ok(line) = conn.recv().await {
                    let reply = match line.as_str() {
                        "CHAIN" => {
                            let chain = chain.lock().unwrap();
                            if chain.is_empty() {
                                "STARTING".to_string()
                            } else {
                                format!("CHAIN {}", chain.join(" "))
                            }
                        }
                        _ => format!("ERROR {line}"),
                    };
                    if conn.send(&reply).await.is_err() {
                        break;
                    }
                }
            });
        }
    }

    /// Tells a search the master's state: whether the chain has started,
    /// and its chain (until it has started, the one it configures).
    fn report(started: bool, chain: &[String]) {
        sim_rt::sim::report_state(&(started, chain));
    }

    /// Changes the started chain and reports it.
    fn update_chain<R>(&self, f: impl FnOnce(&mut Vec<String>) -> R) -> R {
        let mut chain = self.chain.lock().unwrap();
        let r = f(&mut chain);
        Self::report(true, &chain);
        r
    }

    /// The initialisation: configure the servers and check that an update
    /// goes through; leave out the ones that fail and start over. Then
    /// monitor every server of the chain.
    async fn start(self) {
        let mut chain = self.servers.clone();
        Self::report(false, &chain);
        loop {
            let configs = chain.iter().enumerate().map(|(i, server)| {
                let pred = i.checked_sub(1).map(|j| chain[j].as_str());
                let succ = chain.get(i + 1).map(String::as_str);
                let line = format!("CONFIG {} {}", word(pred), word(succ));
                async move { call(server, &line).await.is_ok_and(|r| r == "OK") }
            });
            let ok = futures::future::join_all(configs).await;
            if ok.iter().all(|ok| *ok) {
                // The chain works once an update makes it to the tail and
                // back; it takes a few hops each way.
                let probe = timeout(4 * RPC_TIMEOUT, ask(&chain[0], "UPDATE 0")).await;
                if matches!(probe, Ok(Ok(ref r)) if r.starts_with("DONE")) {
                    break;
                }
            }
            // Someone failed: find out who, leave them out, start over.
            let pings = chain
                .iter()
                .map(|s| async move { call(s, "PING").await.is_ok_and(|r| r == "PONG") });
            let alive = futures::future::join_all(pings).await;
            let mut alive = alive.into_iter();
            chain.retain(|_| alive.next().unwrap_or(false));
            Self::report(false, &chain);
        }
        self.update_chain(|c| *c = chain.clone());
        for server in chain {
            let this = self.clone();
            tokio::spawn(async move { this.monitor(server).await });
        }
    }

    /// Pings `server` every heartbeat until it fails, then repairs the chain.
    async fn monitor(self, server: String) {
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
        heartbeat.tick().await;
        loop {
            heartbeat.tick().await;
            if !self.chain.lock().unwrap().contains(&server) {
                return;
            }
            if call(&server, "PING").await.is_ok_and(|r| r == "PONG") {
                continue;
            }
            if self.stale_neighbours {
                self.repair_stale(&server).await;
            } else {
                self.repair(&server).await;
            }
            return;
        }
    }

    /// Takes `failed` out of the chain and links its neighbours, one
    /// repair at a time, with the chain as it is now; a neighbour that
    /// does not answer has failed too and goes the same way.
    async fn repair(&self, failed: &str) {
        let _one_at_a_time = self.repairing.lock().await;
        let mut at = {
            let mut chain = self.chain.lock().unwrap();
            let Some(at) = chain.iter().position(|s| s == failed) else {
                return; // Taken out with a neighbour already.
            };
            chain.remove(at);
            Self::report(true, &chain);
            at
        };
        loop {
            let (pred, succ) = {
                let chain = self.chain.lock().unwrap();
                let pred = at.checked_sub(1).map(|j| chain[j].clone());
                (pred, chain.get(at).cloned())
            };
            if let Some(succ) = &succ {
                let line = format!("PRED {}", word(pred.as_deref()));
                if !call(succ, &line).await.is_ok_and(|r| r == "OK") {
                    self.update_chain(|c| c.remove(at));
                    continue;
                }
            }
            if let Some(pred) = &pred {
                let line = format!("SUCC {}", word(succ.as_deref()));
                if !call(pred, &line).await.is_ok_and(|r| r == "OK") {
                    self.update_chain(|c| c.remove(at - 1));
                    at -= 1;
                    continue;
                }
            }
            return;
        }
    }

    /// The planted bug: [`repair`](Self::repair) without the lock, with
    /// the neighbours `failed` had when the repair began, ignoring a
    /// neighbour that does not answer, and taking `failed` out only at
    /// the end.
    async fn repair_stale(&self, failed: &str) {
        let (pred, succ) = {
            let chain = self.chain.lock().unwrap();
            let Some(at) = chain.iter().position(|s| s == failed) else {
                return;
            };
            let pred = at.checked_sub(1).map(|j| chain[j].clone());
            (pred, chain.get(at + 1).cloned())
        };
        // BUG: a neighbour that does not answer has failed too; its own
        // repair reads the chain before this one has taken `failed` out.
        if let Some(succ) = &succ {
            let _ = call(succ, &format!("PRED {}", word(pred.as_deref()))).await;
        }
        if let Some(pred) = &pred {
            let _ = call(pred, &format!("SUCC {}", word(succ.as_deref()))).await;
        }
        self.update_chain(|c| c.retain(|s| s != failed));
    }
}

// ---------------------------------------------------------------------------
// Clients

/// The master's chain, head first; `None` while it is starting.
pub async fn chain(master: &str) -> io::Result<Option<Vec<String>>> {
    let reply = ask(master, "CHAIN").await?;
    if reply == "STARTING" {
        return Ok(None);
    }
    match reply.strip_prefix("CHAIN ") {
        Some(rest) => Ok(Some(rest.split_whitespace().map(str::to_string).collect())),
        None => Err(bad(&reply)),
    }
}

/// Sends update `id` to `head` and waits until it is stable: its sequence
/// number, or `None` when `head` is not the head.
pub async fn update(head: &str, id: u64) -> io::Result<Option<u64>> {
    let reply = ask(head, &format!("UPDATE {id}")).await?;
    if reply == "NOTHEAD" {
        return Ok(None);
    }
    match reply.strip_prefix("DONE ").map(str::parse) {
        Some(Ok(seq)) => Ok(Some(seq)),
        _ => Err(bad(&reply)),
    }
}

/// The history at `tail`, or `None` when it is not the tail.
pub async fn query(tail: &str) -> io::Result<Option<Vec<u64>>> {
    let reply = ask(tail, "QUERY").await?;
    if reply == "NOTTAIL" {
        return Ok(None);
    }
    match reply.strip_prefix("HISTORY ") {
        Some(rest) => Ok(Some(parse_ids(rest)?)),
        None => Err(bad(&reply)),
    }
}

/// What a server holds: its links and its history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// Its predecessor.
    pub pred: Option<String>,
    /// Its successor.
    pub succ: Option<String>,
    /// Its history of update ids, in sequence order.
    pub history: Vec<u64>,
}

/// Asks `server` for its [`ServerStatus`].
pub async fn status(server: &str) -> io::Result<ServerStatus> {
    let reply = ask(server, "STATE").await?;
    let words: Vec<&str> = reply.split_whitespace().collect();
    let ["STATE", pred, succ, history] = words.as_slice() else {
        return Err(bad(&reply));
    };
    Ok(ServerStatus {
        pred: addr(pred),
        succ: addr(succ),
        history: parse_ids(history)?,
    })
}
