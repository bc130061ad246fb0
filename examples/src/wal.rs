//! A key-value store over TCP that makes every write durable in a
//! write-ahead log before it acknowledges it.
//!
//! Clients speak text lines, one request and one reply each, on a
//! connection they keep open:
//!
//! ```text
//! client -> store  PUT <key> <value>     reply OK <lsn>
//! client -> store  GET <key>             reply VALUE <value> | NONE
//! ```
//!
//! Keys and values are words (no whitespace).
//!
//! # The log
//!
//! The store's state is its log, `<dir>/wal`, a sequence of records:
//!
//! ```text
//! record   = len: u32 LE | crc: u32 LE | payload (len bytes)
//! payload  = lsn: u64 LE | key len: u32 LE | key | value
//! ```
//!
//! `crc` is the CRC-32 (IEEE) of the payload and log sequence numbers
//! (LSNs) count up from 1 without gaps. On start ([`Store::open`]) the store
//! reads the log, replays every record up to the first that is torn,
//! corrupt or out of sequence (what a crash in the middle of an append
//! leaves behind), truncates the file there and makes that durable, so new
//! records never follow garbage.
//!
//! # Group commit
//!
//! A `PUT` appends its record (appends are serialized, so records are in
//! LSN order) and applies it to the in-memory map. One *syncer* task makes
//! records durable: woken by an append, it notes the last LSN written,
//! calls `sync_all` on the log, and then publishes that LSN as durable.
//! Every record written before the `sync_all` started is covered by it, and
//! the appends that arrive while it runs wait for the next one, so one
//! `sync_all` commits a whole batch of concurrent writes. A `PUT` is
//! acknowledged only once its LSN is durable.
//!
//! # The planted bug ([`Store::ack_before_sync`])
//!
//! **What:** the store acknowledges a `PUT` as soon as its record is
//! written (in the page cache), and only then wakes the syncer: the fsync
//! is done lazily, after replying.
//!
//! **Caught by:** durability: after the store restarts, every write a
//! client saw acknowledged is there (and no value that was never written
//! is).
//!
//! **Schedule:** the store crashes after it sent the `OK` of a write and
//! before the syncer's `sync_all` for it completes (a window of a few
//! hundred microseconds: the sync's latency). The `OK` is already on the
//! wire and reaches the client; the crash drops the unsynced record; the
//! recovered store does not have the acknowledged write. A crash at any
//! other moment, or no crash, loses nothing acknowledged.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::fs::{self, File, OpenOptions};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

use super::lines::{bad, Conn};

/// The log's file name inside the store's directory.
pub const LOG_FILE: &str = "wal";

/// Bytes before a record's payload: its length and checksum.
const HEADER: usize = 8;
/// Bytes of a payload before the key: LSN and key length.
const PAYLOAD_HEADER: usize = 12;
/// The largest payload recovery accepts; a longer length is garbage.
const MAX_PAYLOAD: usize = 1 << 20;

// ---------------------------------------------------------------------------
// Records

/// One write, as the log holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its log sequence number (from 1, no gaps).
    pub lsn: u64,
    /// The key written.
    pub key: String,
    /// The value written.
    pub value: String,
}

impl Record {
    /// The record's bytes in the log.
    pub fn encode(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(PAYLOAD_HEADER + self.key.len() + self.value.len());
        payload.extend_from_slice(&self.lsn.to_le_bytes());
        payload.extend_from_slice(&(self.key.len() as u32).to_le_bytes());
        payload.extend_from_slice(self.key.as_bytes());
        payload.extend_from_slice(self.value.as_bytes());
        let mut bytes = Vec::with_capacity(HEADER + payload.len());
        bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// The record at the start of `bytes` and its length in bytes, if a
    /// whole, intact one is there.
    fn decode(bytes: &[u8]) -> Option<(Record, usize)> {
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        let len = word(0)? as usize;
        if !(PAYLOAD_HEADER..=MAX_PAYLOAD).contains(&len) {
            return None;
        }
        let payload = bytes.get(HEADER..HEADER + len)?;
        if crc32fast::hash(payload) != word(4)? {
            return None;
        }
        let lsn = u64::from_le_bytes(payload[..8].try_into().ok()?);
        let key_len = u32::from_le_bytes(payload[8..12].try_into().ok()?) as usize;
        let key = payload.get(PAYLOAD_HEADER..PAYLOAD_HEADER + key_len)?;
        let value = &payload[PAYLOAD_HEADER + key_len..];
        let record = Record {
            lsn,
            key: String::from_utf8(key.to_vec()).ok()?,
            value: String::from_utf8(value.to_vec()).ok()?,
        };
        Some((record, HEADER + len))
    }
}

/// The longest prefix of `log` made of intact records numbered 1, 2, 3...:
/// the records and the prefix's length in bytes. Whatever follows (a torn
/// append, garbage, a stale record) is what a crash left behind.
pub fn recover(log: &[u8]) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    let mut at = 0;
    while let Some((record, len)) = Record::decode(&log[at..]) {
        if record.lsn != records.len() as u64 + 1 {
            break;
        }
        records.push(record);
        at += len;
    }
    (records, at)
}

// ---------------------------------------------------------------------------
// The store

/// What the store holds in memory, rebuilt from the log on start.
#[derive(Debug, Default)]
struct State {
    /// key -> (value, LSN of the write that set it).
    data: BTreeMap<String, (String, u64)>,
    /// The last LSN appended to the log (durable or not).
    written: u64,
}

/// The log file and the store's state.
#[derive(Debug)]
struct Log {
    /// The log, opened for appending. Holding the lock serializes appends.
    file: tokio::sync::Mutex<File>,
    /// A second handle on the log for the syncer, so a `sync_all` does not
    /// wait for the append lock.
    sync_file: File,
    state: Mutex<State>,
    /// Wakes the syncer: something was appended.
    appended: Notify,
    /// The last LSN known durable, and whether the syncer failed.
    durable: Mutex<Durable>,
    /// Wakes the writers waiting for durability: `durable` changed.
    durable_changed: Notify,
}

#[derive(Debug)]
struct Durable {
    lsn: u64,
    failed: bool,
}

impl Log {
    /// Tells a search the store's state: its map (with each key's LSN),
    /// the last LSN written and the last durable.
    fn report(&self) {
        let state = self.state.lock().unwrap();
        let durable = self.durable.lock().unwrap();
        sim_rt::sim::report_state(&(&state.data, state.written, durable.lsn, durable.failed));
    }
}

/// The store. Open it with [`Store::open`], serve with [`Store::serve`].
#[derive(Debug, Clone)]
pub struct Store {
    log: Arc<Log>,
    ack_before_sync: bool,
}

impl Store {
    /// Opens the store in `dir` (created if missing): recovers its state
    /// from the log, cuts off a torn tail and makes the log durable.
    pub async fn open(dir: impl AsRef<Path>) -> io::Result<Store> {
        let dir = dir.as_ref();
        let path: PathBuf = dir.join(LOG_FILE);
        let bytes = match fs::read(&path).await {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let mut state = State::default();
        let file = match bytes {
            None => {
                // A new log: make its name durable before the first record
                // can be acknowledged.
                fs::create_dir_all(dir).await?;
                let file = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .await?;
                file.sync_all().await?;
                File::open(dir).await?.sync_all().await?;
                if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                    File::open(parent).await?.sync_all().await?;
                }
                file
            }
            Some(bytes) => {
                let (records, valid) = recover(&bytes);
                let file = OpenOptions::new().append(true).open(&path).await?;
                if valid < bytes.len() {
                    // Cut the torn tail off, durably, before appending.
                    file.set_len(valid as u64).await?;
                    file.sync_all().await?;
                }
                for r in records {
                    state.written = r.lsn;
                    state.data.insert(r.key, (r.value, r.lsn));
                }
                file
            }
        };
        let sync_file = file.try_clone().await?;
        let written = state.written;
        let log = Arc::new(Log {
            file: tokio::sync::Mutex::new(file),
            sync_file,
            state: Mutex::new(state),
            durable: Mutex::new(Durable {
                lsn: written,
                failed: false,
            }),
            appended: Notify::new(),
            durable_changed: Notify::new(),
        });
        log.report();
        Ok(Store {
            log,
            ack_before_sync: false,
        })
    }

    /// **The planted bug**: when `true`, a `PUT` is acknowledged as soon as
    /// its record is written, before the `sync_all` that makes it durable
    /// (see the module docs).
    pub fn ack_before_sync(mut self, on: bool) -> Store {
        self.ack_before_sync = on;
        self
    }

    /// The value of `key` in the recovered or current state.
    pub fn get(&self, key: &str) -> Option<String> {
        let state = self.log.state.lock().unwrap();
        state.data.get(key).map(|(v, _)| v.clone())
    }

    /// How many records the log holds (durable or not).
    pub fn len(&self) -> u64 {
        self.log.state.lock().unwrap().written
    }

    /// Whether the log holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Serves clients on `listener`, and runs the syncer, until an I/O
    /// error on the log (after a failed `sync_all` the page cache can no
    /// longer be trusted: the store stops).
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        let syncer = self.clone();
        let accept = async move {
            loop {
                let (stream, _) = listener.accept().await?;
                let this = self.clone();
                tokio::spawn(async move {
                    let _ = this.connection(stream).await;
                });
            }
        };
        // `biased`: no branch-order choice; the syncer only ever finishes
        // with an error.
        tokio::select! {
            biased;
            result = syncer.syncer() => result,
            result = accept => result,
        }
    }

    async fn connection(&self, stream: TcpStream) -> io::Result<()> {
        let mut conn = Conn::new(stream);
        loop {
            let line = conn.recv().await?;
            let words: Vec<&str> = line.split_whitespace().collect();
            let reply = match words.as_slice() {
                ["PUT", key, value] => {
                    let lsn = self.append(key, value).await?;
                    if self.ack_before_sync {
                        // BUG: the record is only in the page cache; a
                        // crash before the syncer's sync_all loses it.
                        conn.send(&format!("OK {lsn}")).await?;
                        self.log.appended.notify_one();
                        continue;
                    }
                    self.log.appended.notify_one();
                    self.durable(lsn).await?;
                    format!("OK {lsn}")
                }
                ["GET", key] => match self.get(key) {
                    Some(v) => format!("VALUE {v}"),
                    None => "NONE".to_string(),
                },
                _ => format!("ERROR {line}"),
            };
            conn.send(&reply).await?;
        }
    }

    /// Appends the record of `key = value`, applies it, returns its LSN.
    async fn append(&self, key: &str, value: &str) -> io::Result<u64> {
        let mut file = self.log.file.lock().await;
        let lsn = self.log.state.lock().unwrap().written + 1;
        let record = Record {
            lsn,
            key: key.to_string(),
            value: value.to_string(),
        };
        file.write_all(&record.encode()).await?;
        // Into the OS (tokio's file writes in the background): the syncer's
        // sync_all must see it.
        file.flush().await?;
        {
            let mut state = self.log.state.lock().unwrap();
            state.written = lsn;
            state.data.insert(record.key, (record.value, lsn));
        }
        self.log.report();
        Ok(lsn)
    }

    /// Waits until `lsn` is durable.
    async fn durable(&self, lsn: u64) -> io::Result<()> {
        loop {
            let changed = self.log.durable_changed.notified();
            {
                let durable = self.log.durable.lock().unwrap();
                if durable.lsn >= lsn {
                    return Ok(());
                }
                if durable.failed {
                    return Err(io::Error::other("the log failed"));
                }
            }
            changed.await;
        }
    }

    /// Group commit: syncs whatever was appended, again and again.
    async fn syncer(&self) -> io::Result<()> {
        loop {
            let appended = self.log.appended.notified();
            let target = self.log.state.lock().unwrap().written;
            if target <= self.log.durable.lock().unwrap().lsn {
                appended.await;
                continue;
            }
            // Covers every record appended before this call, so at least
            // up to `target`.
            let synced = self.log.sync_file.sync_all().await;
            {
                let mut durable = self.log.durable.lock().unwrap();
                match synced {
                    Ok(()) => durable.lsn = target,
                    Err(_) => durable.failed = true,
                }
            }
            self.log.report();
            self.log.durable_changed.notify_waiters();
            synced?;
        }
    }
}

// ---------------------------------------------------------------------------
// Connections and the client

/// A client of the store: one connection, opened on first use and again
/// after an error. It does not retry: after an error the request may or
/// may not have been applied (a `PUT` is safe to repeat).
#[derive(Debug)]
pub struct Client {
    addr: String,
    conn: Option<Conn>,
}

impl Client {
    /// A client of the store at `addr`.
    pub fn new(addr: impl Into<String>) -> Client {
        Client {
            addr: addr.into(),
            conn: None,
        }
    }

    async fn call(&mut self, line: &str) -> io::Result<String> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self
                .conn
                .insert(Conn::new(TcpStream::connect(&self.addr).await?)),
        };
        let reply = match conn.send(line).await {
            Ok(()) => conn.recv().await,
            Err(e) => Err(e),
        };
        if reply.is_err() {
            self.conn = None;
        }
        reply
    }

    /// Writes `key = value`; returns the write's LSN once the store says
    /// it is durable.
    pub async fn put(&mut self, key: &str, value: &str) -> io::Result<u64> {
        let reply = self.call(&format!("PUT {key} {value}")).await?;
        reply
            .strip_prefix("OK ")
            .and_then(|lsn| lsn.parse().ok())
            .ok_or_else(|| bad(&reply))
    }

    /// The value of `key`.
    pub async fn get(&mut self, key: &str) -> io::Result<Option<String>> {
        let reply = self.call(&format!("GET {key}")).await?;
        match reply.strip_prefix("VALUE ") {
            Some(v) => Ok(Some(v.to_string())),
            None if reply == "NONE" => Ok(None),
            None => Err(bad(&reply)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(lsn: u64, key: &str, value: &str) -> Record {
        Record {
            lsn,
            key: key.into(),
            value: value.into(),
        }
    }

    #[test]
    fn recovery_keeps_intact_records_and_drops_a_torn_or_corrupt_tail() {
        let mut log = rec(1, "a", "x").encode();
        log.extend(rec(2, "b", "yy").encode());
        let whole = log.len();
        assert_eq!(
            recover(&log),
            (vec![rec(1, "a", "x"), rec(2, "b", "yy")], whole)
        );
        // Every torn version of a third record is dropped.
        let third = rec(3, "c", "zzz").encode();
        for cut in 0..third.len() {
            let mut torn = log.clone();
            torn.extend(&third[..cut]);
            assert_eq!(recover(&torn).1, whole, "torn at {cut}");
        }
        // So is a flipped bit, zeros, and a record out of sequence.
        let mut corrupt = log.clone();
        let mut bad = third.clone();
        bad[HEADER + 3] ^= 1;
        corrupt.extend(bad);
        assert_eq!(recover(&corrupt).1, whole);
        let mut zeros = log.clone();
        zeros.extend([0; 64]);
        assert_eq!(recover(&zeros).1, whole);
        let mut stale = log.clone();
        stale.extend(rec(2, "b", "again").encode());
        assert_eq!(recover(&stale).1, whole);
    }
}
