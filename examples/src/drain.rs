//! A key-value store over TCP that writes behind and drains on SIGTERM.
//!
//! ```text
//! client -> store  PUT <key> <value>   reply OK
//! client -> store  GET <key>           reply VALUE <value> | NONE
//! ```
//!
//! A `PUT` is applied in memory, queued for the store's one writer task
//! and acknowledged at once; the writer appends what is queued to the data
//! file and syncs it, a batch at a time. So a crash may lose the last few
//! acknowledged writes (as Redis with `appendfsync everysec` may), but a
//! **graceful shutdown loses none**: that is the store's promise, and what
//! an operator relies on when a deploy or a scale-down sends SIGTERM.
//!
//! # Graceful shutdown
//!
//! On SIGTERM ([`tokio::signal::unix::signal`]) the store stops accepting
//! connections, lets each connection answer the request it has read (and
//! then closes it), waits for the connections to end, closes the writer's
//! queue and waits for the writer to write and sync everything queued.
//! Only then does [`Store::serve`] return, and the process may exit.
//!
//! # The planted bug ([`Store::writer_stops_on_shutdown`])
//!
//! **What:** the writer watches the shutdown flag too, and stops as soon
//! as the shutdown begins, dropping what is still queued.
//!
//! **Caught by:** durability across a graceful shutdown: every write
//! acknowledged before the shutdown is in the store after it restarts.
//!
//! **Schedule:** SIGTERM must arrive while the queue holds an acknowledged
//! write: the writer is busy writing or syncing an earlier batch when a
//! connection queues and acknowledges another, and the shutdown begins
//! before the writer looks at its queue again. Without the signal in that
//! window, the writer has emptied the queue and nothing is lost.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::fs::{File, OpenOptions};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use super::lines::{bad, Conn};

/// The most queued writes the writer takes in one batch.
const BATCH: usize = 16;

/// The store's data: the latest value of each key.
type Data = Arc<Mutex<HashMap<String, String>>>;

/// A write waiting for the writer.
type Write = (String, String);

/// What the store tells a search of its state
/// (`sim_rt::sim::report_state`), kept by its tasks together. Counts
/// stand for the data: a `HashMap` has no deterministic order to hash.
#[derive(Debug, Default, Hash)]
struct Progress {
    /// Keys recovered from the data file at start.
    recovered: usize,
    /// Writes acknowledged since.
    acked: u64,
    /// Writes the writer has synced since.
    synced: u64,
    /// Whether the shutdown has begun.
    stopping: bool,
}

/// Changes the store's [`Progress`] and reports it.
fn progress(shared: &Mutex<Progress>, f: impl FnOnce(&mut Progress)) {
    let mut p = shared.lock().unwrap();
    f(&mut p);
    sim_rt::sim::report_state(&*p);
}

/// The store: its data directory, and whether the planted bug is on.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    writer_stops_on_shutdown: bool,
}

impl Store {
    /// A store keeping its data file in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store {
            dir: dir.into(),
            writer_stops_on_shutdown: false,
        }
    }

    /// The planted bug: the writer stops when the shutdown begins instead
    /// of when its queue is closed and empty.
    pub fn writer_stops_on_shutdown(mut self, on: bool) -> Store {
        self.writer_stops_on_shutdown = on;
        self
    }

    /// Recovers the data file, then serves on `listener` until SIGTERM and
    /// shuts down gracefully: returns once every acknowledged write is
    /// synced.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        let mut terminate = signal(SignalKind::terminate())?;
        let path = self.dir.join("data");
        let data: Data = Arc::new(Mutex::new(recover(&path).await?));
        let recovered = data.lock().unwrap().len();
        let shared = Arc::new(Mutex::new(Progress::default()));
        progress(&shared, |p| p.recovered = recovered);
        let file = open_durably(&self.dir, &path).await?;
        let (queue, queued) = mpsc::unbounded_channel();
        let (shutdown, stopping) = watch::channel(false);
        let writer = tokio::spawn(write_behind(
            file,
            queued,
            stopping.clone(),
            self.writer_stops_on_shutdown,
            shared.clone(),
        ));
        let mut conns = JoinSet::new();
        loop {
            tokio::select! {
                _ = terminate.recv() => break,
                accepted = listener.accept() => {
                    let (stream, _) = accepted?;
                    conns.spawn(serve_conn(
                        stream,
                        data.clone(),
                        queue.clone(),
                        stopping.clone(),
                        shared.clone(),
                    ));
                }
            }
        }
        // The graceful shutdown: no new connections, every connection
        // answers what it read and closes, then the writer drains.
        drop(listener);
        shutdown.send_replace(true);
        progress(&shared, |p| p.stopping = true);
        // A connection's error (its client went away) ended only it.
        while conns.join_next().await.is_some() {}
        drop(queue);
        writer.await.map_err(io::Error::other)?
    }
}

/// Opens the data file at `path` in `dir` for appending, creating both if
/// missing; a new file's name is synced (its directory, and the
/// directory's parent) before it is used, or a crash could lose the file
/// with every write synced into it.
async fn open_durably(dir: &Path, path: &Path) -> io::Result<File> {
    if tokio::fs::try_exists(path).await? {
        return OpenOptions::new().append(true).open(path).await;
    }
    tokio::fs::create_dir_all(dir).await?;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .await?;
    file.sync_all().await?;
    File::open(dir).await?.sync_all().await?;
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        File::open(parent).await?.sync_all().await?;
    }
    Ok(file)
}

/// The data file's writes, in order: one `key value` line each; a torn
/// last line (a crash mid-append) is ignored.
async fn recover(path: &Path) -> io::Result<HashMap<String, String>> {
    let text = match tokio::fs::read(path).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let mut data = HashMap::new();
    for line in text.split_inclusive('\n') {
        let Some(line) = line.strip_suffix('\n') else {
            break; // torn
        };
        if let Some((key, value)) = line.split_once(' ') {
            data.insert(key.to_string(), value.to_string());
        }
    }
    Ok(data)
}

/// The writer: appends and syncs what is queued, a batch at a time, until
/// the queue is closed and empty (or, with the bug, until the shutdown).
async fn write_behind(
    mut file: File,
    mut queued: mpsc::UnboundedReceiver<Write>,
    mut stopping: watch::Receiver<bool>,
    stops_on_shutdown: bool,
    shared: Arc<Mutex<Progress>>,
) -> io::Result<()> {
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        tokio::select! {
            biased;
            // THE BUG: whatever is still queued was acknowledged, and is lost.
            _ = stopping.wait_for(|stop| *stop), if stops_on_shutdown => return Ok(()),
            n = queued.recv_many(&mut batch, BATCH) => {
                if n == 0 {
                    return Ok(()); // closed and drained
                }
            }
        }
        let n = batch.len() as u64;
        let mut lines = String::new();
        for (key, value) in batch.drain(..) {
            lines.push_str(&format!("{key} {value}\n"));
        }
        file.write_all(lines.as_bytes()).await?;
        file.sync_data().await?;
        progress(&shared, |p| p.synced += n);
    }
}

/// One client connection: answers requests until the client leaves or the
/// shutdown begins (a request already read is still answered).
async fn serve_conn(
    stream: TcpStream,
    data: Data,
    queue: mpsc::UnboundedSender<Write>,
    mut stopping: watch::Receiver<bool>,
    shared: Arc<Mutex<Progress>>,
) -> io::Result<()> {
    let mut conn = Conn::new(stream);
    loop {
        let line = tokio::select! {
            line = conn.recv() => match line {
                Ok(line) => line,
                Err(_) => return Ok(()), // the client left
            },
            _ = stopping.wait_for(|stop| *stop) => return Ok(()),
        };
        let reply = match line.split_once(' ') {
            Some(("PUT", rest)) => {
                let (key, value) = rest.split_once(' ').ok_or_else(|| bad(&line))?;
                data.lock()
                    .unwrap()
                    .insert(key.to_string(), value.to_string());
                queue
                    .send((key.to_string(), value.to_string()))
                    .map_err(|_| io::Error::other("the writer stopped"))?;
                progress(&shared, |p| p.acked += 1);
                "OK".to_string()
            }
            Some(("GET", key)) => match data.lock().unwrap().get(key) {
                Some(value) => format!("VALUE {value}"),
                None => "NONE".to_string(),
            },
            _ => return Err(bad(&line)),
        };
        conn.send(&reply).await?;
    }
}

/// A client of the store, on one connection.
#[derive(Debug)]
pub struct Client {
    conn: Conn,
}

impl Client {
    /// Connects to the store at `addr`.
    pub async fn connect(addr: &str) -> io::Result<Client> {
        Ok(Client {
            conn: Conn::connect(addr).await?,
        })
    }

    /// Writes `key = value` (neither may hold a space); `Ok` once the store
    /// acknowledged it.
    pub async fn put(&mut self, key: &str, value: &str) -> io::Result<()> {
        let reply = self.conn.call(&format!("PUT {key} {value}")).await?;
        if reply == "OK" {
            Ok(())
        } else {
            Err(bad(&reply))
        }
    }

    /// The value of `key`.
    pub async fn get(&mut self, key: &str) -> io::Result<Option<String>> {
        let reply = self.conn.call(&format!("GET {key}")).await?;
        match reply.strip_prefix("VALUE ") {
            Some(value) => Ok(Some(value.to_string())),
            None if reply == "NONE" => Ok(None),
            None => Err(bad(&reply)),
        }
    }
}
