//! A key-value store over TCP whose data file is a log of writes, kept
//! short by compaction, with a background flusher that makes writes
//! durable in batches.
//!
//! ```text
//! client -> store  PUT <key> <value>     reply OK
//! client -> store  GET <key>             reply VALUE <value> | NONE
//! ```
//!
//! Keys and values are words (no whitespace).
//!
//! # The data file
//!
//! `<dir>/data` holds one line per write, `<key> <value>`; on start
//! ([`Store::open`]) the store replays it, a later line for a key winning,
//! and ignores a torn last line.
//!
//! # Flushing and compaction
//!
//! A `PUT` applies the write in memory, queues its line, wakes the
//! *flusher* task and waits. The flusher takes every queued line, appends
//! them to the data file through the store's handle on it, syncs it, and
//! acknowledges them all: one sync per batch. Once the file holds more than
//! [`COMPACT_AFTER`] lines and more than twice as many as there are keys,
//! the flusher wakes the *compactor* task, which rewrites the file as one
//! line per key, holding the store's lock throughout: it writes the
//! current state to `<dir>/data.tmp`, syncs it, renames it over
//! `<dir>/data`, syncs the directory and points the store's handle at the
//! new file. The lines still queued then are appended to the new file
//! too: replayed after the copy, which already holds their effect, they
//! change nothing.
//!
//! # The planted bug ([`Store::sync_left_to_flusher`])
//!
//! **What:** the compactor does not sync the temporary file before the
//! rename. It points the store's handle at the new file and leaves its
//! sync to the flusher, which syncs the handle in its next round (the
//! compactor wakes it for that). An order violation between two tasks: the
//! compactor's rename becomes durable before the flusher's sync of the
//! data it names.
//!
//! **Caught by:** durability: after the store restarts, every key holds the
//! last value a client saw acknowledged for it.
//!
//! **Schedule:** the store crashes between the compactor's directory sync
//! and the flusher's sync of the new file: a window of one sync's latency
//! (half a millisecond) after each compaction. The durable directory names
//! the new file, whose data was never synced: the store restarts empty,
//! and every key not written again after the crash has lost its
//! acknowledged value. A crash at any other moment, or
//! none, loses nothing acknowledged.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex as StdMutex};

use tokio::fs::{self, File, OpenOptions};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, Notify};

use super::lines::{bad, Conn};

/// The data file's name inside the store's directory.
pub const DATA: &str = "data";
/// The compactor rewrites the data file once it holds more lines than
/// this and more than twice as many as there are keys.
pub const COMPACT_AFTER: usize = 8;

/// What the store's lock guards.
#[derive(Debug)]
struct State {
    data: BTreeMap<String, String>,
    /// The data file, open for appending.
    file: File,
    /// Lines in the data file.
    lines: usize,
    /// Lines not yet appended, with their sequence numbers.
    queued: Vec<(u64, String)>,
    /// The data file holds data not yet synced (the planted bug's
    /// compaction leaves it so).
    unsynced: bool,
    /// The last sequence number given to a write.
    seq: u64,
}

impl State {
    /// Tells a search the store's state. What is durable needs no field:
    /// a write is durable once it is neither queued nor in the flusher's
    /// batch, and the flusher holds this lock until its batch is synced.
    fn report(&self) {
        sim_rt::sim::report_state(&(
            &self.data,
            self.lines,
            self.queued.len(),
            self.unsynced,
            self.seq,
        ));
    }
}

#[derive(Debug)]
struct Shared {
    dir: PathBuf,
    state: Mutex<State>,
    /// The last sequence number durable, and whether the disk failed.
    durable: StdMutex<(u64, bool)>,
    /// Wakes the flusher: a line was queued.
    queued: Notify,
    /// Wakes the writers waiting for durability.
    flushed: Notify,
    /// Wakes the compactor: the file is long.
    long: Notify,
}

/// The store. Open it with [`Store::open`], serve with [`Store::serve`].
#[derive(Debug, Clone)]
pub struct Store {
    shared: Arc<Shared>,
    lazy_sync: bool,
}

/// The state that the data file `text` holds.
fn replay(text: &str) -> (BTreeMap<String, String>, usize) {
    let mut data = BTreeMap::new();
    let mut lines = 0;
    // A line without its newline was torn by a crash: it was never
    // acknowledged.
    for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
        if let Some((key, value)) = line.trim_end().split_once(' ') {
            data.insert(key.to_string(), value.to_string());
            lines += 1;
        }
    }
    (data, lines)
}

impl Store {
    /// Opens the store in `dir` (created if missing, at the root of the
    /// file system): replays the data file.
    pub async fn open(dir: impl AsRef<Path>) -> io::Result<Store> {
        let dir = dir.as_ref().to_path_buf();
        let path = dir.join(DATA);
        let (data, lines) = match fs::read_to_string(&path).await {
            Ok(text) => replay(&text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // A new file: its name is durable before the first write
                // can be acknowledged.
                fs::create_dir_all(&dir).await?;
                File::create(&path).await?.sync_all().await?;
                File::open(&dir).await?.sync_all().await?;
                File::open("/").await?.sync_all().await?;
                (BTreeMap::new(), 0)
            }
            Err(e) => return Err(e),
        };
        let file = OpenOptions::new().append(true).open(&path).await?;
        let state = State {
            data,
            file,
            lines,
            queued: Vec::new(),
            unsynced: false,
            seq: 0,
        };
        state.report();
        Ok(Store {
            shared: Arc::new(Shared {
                dir,
                state: Mutex::new(state),
                durable: StdMutex::new((0, false)),
                queued: Notify::new(),
                flushed: Notify::new(),
                long: Notify::new(),
            }),
            lazy_sync: false,
        })
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn sync_left_to_flusher(mut self, bug: bool) -> Store {
        self.lazy_sync = bug;
        self
    }

    /// Serves clients on `listener`, and runs the flusher and the
    /// compactor, until an I/O error on the data file.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        let (flusher, compactor) = (self.clone(), self.clone());
        let accept = async move {
            loop {
                let (stream, _) = listener.accept().await?;
                let this = self.clone();
                tokio::spawn(async move {
                    let _ = this.connection(stream).await;
                });
            }
        };
        // `biased`: no branch-order choice; the flusher and the compactor
        // only ever finish with an error.
        tokio::select! {
            biased;
            result = flusher.flusher() => result,
            result = compactor.compactor() => result,
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
                    self.put(key, value).await?;
                    "OK".to_string()
                }
                ["GET", key] => match self.shared.state.lock().await.data.get(*key) {
                    Some(v) => format!("VALUE {v}"),
                    None => "NONE".to_string(),
                },
                _ => format!("ERROR {line}"),
            };
            conn.send(&reply).await?;
        }
    }

    /// Applies `key = value` and returns once it is durable.
    async fn put(&self, key: &str, value: &str) -> io::Result<()> {
        let seq = {
            let mut state = self.shared.state.lock().await;
            state.seq += 1;
            let seq = state.seq;
            state.data.insert(key.to_string(), value.to_string());
            state.queued.push((seq, format!("{key} {value}\n")));
            state.report();
            seq
        };
        self.shared.queued.notify_one();
        loop {
            let flushed = self.shared.flushed.notified();
            match *self.shared.durable.lock().unwrap() {
                (durable, _) if durable >= seq => return Ok(()),
                (_, true) => return Err(io::Error::other("the data file failed")),
                _ => {}
            }
            flushed.await;
        }
    }

    /// Marks everything up to `seq` durable (or the disk failed).
    fn durable(&self, result: &io::Result<u64>) {
        {
            let mut durable = self.shared.durable.lock().unwrap();
            match result {
                Ok(seq) => durable.0 = durable.0.max(*seq),
                Err(_) => durable.1 = true,
            }
        }
        self.shared.flushed.notify_waiters();
    }

    /// Appends the queued lines in batches, again and again.
    async fn flusher(&self) -> io::Result<()> {
        loop {
            let queued = self.shared.queued.notified();
            let flushed: io::Result<Option<(u64, bool)>> = async {
                let mut state = self.shared.state.lock().await;
                if state.queued.is_empty() && !state.unsynced {
                    return Ok(None);
                }
                let last = state.queued.last().map_or(0, |(seq, _)| *seq);
                let batch: String = state.queued.drain(..).map(|(_, l)| l).collect();
                state.file.write_all(batch.as_bytes()).await?;
                state.file.flush().await?;
                state.file.sync_data().await?;
                state.unsynced = false;
                state.lines += batch.lines().count();
                state.report();
                let long = state.lines > COMPACT_AFTER.max(2 * state.data.len());
                Ok(Some((last, long)))
            }
            .await;
            match flushed {
                Ok(None) => queued.await,
                Ok(Some((last, long))) => {
                    self.durable(&Ok(last));
                    if long {
                        self.shared.long.notify_one();
                    }
                }
                Err(e) => {
                    self.durable(&Err(io::Error::other("the flush failed")));
                    return Err(e);
                }
            }
        }
    }

    /// Rewrites the data file whenever the flusher finds it long.
    async fn compactor(&self) -> io::Result<()> {
        loop {
            self.shared.long.notified().await;
            self.compact().await?;
        }
    }

    /// Rewrites the data file as one line per key.
    async fn compact(&self) -> io::Result<()> {
        let dir = &self.shared.dir;
        let (path, tmp) = (dir.join(DATA), dir.join("data.tmp"));
        let mut state = self.shared.state.lock().await;
        let copy: String = state
            .data
            .iter()
            .map(|(k, v)| format!("{k} {v}\n"))
            .collect();
        let mut file = File::create(&tmp).await?;
        file.write_all(copy.as_bytes()).await?;
        if self.lazy_sync {
            // BUG: until the flusher's next sync the durable directory
            // names a file whose data is not on the disk.
            file.flush().await?;
        } else {
            file.sync_all().await?;
        }
        fs::rename(&tmp, &path).await?;
        File::open(dir).await?.sync_all().await?;
        state.file = OpenOptions::new().append(true).open(&path).await?;
        state.lines = copy.lines().count();
        if self.lazy_sync {
            state.unsynced = true;
            self.shared.queued.notify_one();
        }
        state.report();
        Ok(())
    }
}

/// A client of the store: one connection, opened on first use and again
/// after an error.
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
        let reply = conn.call(line).await;
        if reply.is_err() {
            self.conn = None;
        }
        reply
    }

    /// Writes `key = value`; returns once the store says it is durable.
    pub async fn put(&mut self, key: &str, value: &str) -> io::Result<()> {
        let reply = self.call(&format!("PUT {key} {value}")).await?;
        (reply == "OK").then_some(()).ok_or_else(|| bad(&reply))
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
