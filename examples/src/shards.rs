//! A name directory split into two shards on one host, each shard behind
//! its own lock, with a write-ahead journal of moves and checkpoints: what
//! survives a restart is the last checkpoint plus the journal after it.
//!
//! ```text
//! <dir>/journal      <lsn> <name> <from> <to>      one line per move, LSNs from 1
//! <dir>/checkpoint   <lsn>                         the last move it includes
//!                    <names of shard 0>            space-separated, "-" for none
//!                    <names of shard 1>
//! ```
//!
//! # Moves, the journal and checkpoints
//!
//! A move ([`Directory::move_name`]) takes both shards' locks (in shard
//! order, as every task that takes both does, so none deadlocks), appends
//! its record to the journal, waits until the *syncer* task has made that
//! record durable, moves the name, and lets the locks go. The syncer is a
//! group commit: woken by an append, it syncs the journal and publishes the
//! last LSN that sync covered.
//!
//! A checkpoint ([`Directory::checkpoint`]) takes both shards' locks,
//! copies the shards and reads the durable LSN, lets the locks go, and
//! writes the copy with that LSN (a temporary file, synced, renamed over
//! the checkpoint, the directory synced). Recovery ([`recover`]) loads the
//! checkpoint and replays the journal's records after its LSN: a move is
//! in the checkpoint exactly when its record is at or below the LSN,
//! because both happen under both locks.
//!
//! # The planted bug ([`Directory::early_release`])
//!
//! **What:** a move takes the source shard's lock, removes the name and
//! lets the lock go *before* the journal append and its sync (so that the
//! sync does not hold up the shard), then takes the target shard's lock to
//! insert the name.
//!
//! **Caught by:** recovery after every checkpoint lists every name exactly
//! once.
//!
//! **Schedule:** a checkpoint that copies the shards after the syncer has
//! published the move's LSN and before the mover, woken by that, inserts
//! the name: the checkpoint holds the name in neither shard and says that
//! it includes the move, so replay skips it and the name is lost. A
//! checkpoint earlier in the move (before the sync) is harmless: it misses
//! the name too, but replay redoes the move. Four tasks in one order: the
//! mover (remove, append), the syncer (sync, publish), the checkpointer
//! (copy), the mover again (insert), with the checkpointer woken at the
//! same instant as the mover and run neither earlier nor later.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex as StdMutex};

use tokio::fs::{self, File, OpenOptions};
use tokio::io::AsyncWriteExt;
use tokio::sync::{Mutex, Notify};

/// The journal's file name inside the directory's directory.
pub const JOURNAL: &str = "journal";
/// The checkpoint's file name.
pub const CHECKPOINT: &str = "checkpoint";

/// The last LSN appended and the last known durable.
#[derive(Debug, Default)]
struct Lsns {
    written: u64,
    durable: u64,
}

/// What the directory tells a search of its state besides its LSNs
/// (`sim_rt::sim::report_state`). The shards are behind async locks, so
/// whoever changes one copies it here too.
#[derive(Debug, Default, Hash)]
struct Reported {
    shards: [BTreeSet<String>; 2],
    /// The LSN of the last checkpoint written.
    checkpoint: u64,
}

#[derive(Debug)]
struct Inner {
    dir: PathBuf,
    shards: [Mutex<BTreeSet<String>>; 2],
    /// The journal, open for appending; holding it serializes appends.
    journal: Mutex<File>,
    /// A second handle for the syncer, so a sync does not wait for an
    /// append.
    sync_handle: File,
    lsns: StdMutex<Lsns>,
    /// Wakes the syncer: a record was appended.
    appended: Notify,
    /// Wakes the movers waiting for durability.
    durable: Notify,
    reported: StdMutex<Reported>,
}

impl Inner {
    /// Tells a search the directory's state: its LSNs and [`Reported`].
    fn report(&self) {
        let lsns = self.lsns.lock().unwrap();
        let reported = self.reported.lock().unwrap();
        sim_rt::sim::report_state(&(lsns.written, lsns.durable, &*reported));
    }

    /// Notes that shard `i` now holds `names`, and reports.
    fn changed(&self, i: usize, names: &BTreeSet<String>) {
        self.reported.lock().unwrap().shards[i] = names.clone();
        self.report();
    }
}

/// The directory. Create it with [`Directory::create`], run its syncer
/// ([`Directory::syncer`]) as a task.
#[derive(Debug, Clone)]
pub struct Directory {
    inner: Arc<Inner>,
    early_release: bool,
}

fn line(names: &BTreeSet<String>) -> String {
    if names.is_empty() {
        "-".to_string()
    } else {
        names.iter().cloned().collect::<Vec<_>>().join(" ")
    }
}

fn names(line: &str) -> BTreeSet<String> {
    line.split(' ')
        .filter(|n| !n.is_empty() && *n != "-")
        .map(str::to_string)
        .collect()
}

/// Writes `contents` to `path` atomically and durably: a temporary file,
/// synced, renamed over `path`, the directory synced.
async fn replace(dir: &Path, path: &Path, contents: &str) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut file = File::create(&tmp).await?;
    file.write_all(contents.as_bytes()).await?;
    file.sync_all().await?;
    fs::rename(&tmp, path).await?;
    File::open(dir).await?.sync_all().await
}

impl Directory {
    /// Creates a directory under `dir` (a new directory at the root of the
    /// file system) with the names `shards[i]` in shard `i`, durably: a
    /// first checkpoint at LSN 0 and an empty journal.
    pub async fn create(dir: impl AsRef<Path>, shards: [&[&str]; 2]) -> io::Result<Directory> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).await?;
        File::open("/").await?.sync_all().await?;
        let [zero, one] = shards.map(|s| s.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>());
        let text = format!("0\n{}\n{}\n", line(&zero), line(&one));
        replace(&dir, &dir.join(CHECKPOINT), &text).await?;
        let journal = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(JOURNAL))
            .await?;
        journal.sync_all().await?;
        File::open(&dir).await?.sync_all().await?;
        let sync_handle = journal.try_clone().await?;
        let reported = Reported {
            shards: [zero.clone(), one.clone()],
            checkpoint: 0,
        };
        let inner = Arc::new(Inner {
            dir,
            shards: [Mutex::new(zero), Mutex::new(one)],
            journal: Mutex::new(journal),
            sync_handle,
            lsns: StdMutex::new(Lsns::default()),
            appended: Notify::new(),
            durable: Notify::new(),
            reported: StdMutex::new(reported),
        });
        inner.report();
        Ok(Directory {
            inner,
            early_release: false,
        })
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn early_release(mut self, bug: bool) -> Directory {
        self.early_release = bug;
        self
    }

    /// Appends the record of moving `name` from shard `from` to `to`;
    /// returns its LSN once it is durable.
    async fn journal(&self, name: &str, from: usize, to: usize) -> io::Result<u64> {
        let lsn = {
            let mut journal = self.inner.journal.lock().await;
            let lsn = self.inner.lsns.lock().unwrap().written + 1;
            journal
                .write_all(format!("{lsn} {name} {from} {to}\n").as_bytes())
                .await?;
            // Into the OS (tokio's file writes in the background): the
            // syncer's sync must see it.
            journal.flush().await?;
            self.inner.lsns.lock().unwrap().written = lsn;
            self.inner.report();
            lsn
        };
        self.inner.appended.notify_one();
        loop {
            let durable = self.inner.durable.notified();
            if self.inner.lsns.lock().unwrap().durable >= lsn {
                return Ok(lsn);
            }
            durable.await;
        }
    }

    /// Group commit: syncs whatever was appended, again and again.
    pub async fn syncer(self) -> io::Result<()> {
        loop {
            let appended = self.inner.appended.notified();
            let target = {
                let lsns = self.inner.lsns.lock().unwrap();
                (lsns.written > lsns.durable).then_some(lsns.written)
            };
            let Some(target) = target else {
                appended.await;
                continue;
            };
            // Covers every record appended before it started.
            self.inner.sync_handle.sync_data().await?;
            self.inner.lsns.lock().unwrap().durable = target;
            self.inner.report();
            self.inner.durable.notify_waiters();
        }
    }

    /// Moves `name` from shard `from` to the other one, durably; `false`
    /// when `from` does not hold it.
    pub async fn move_name(&self, name: &str, from: usize) -> io::Result<bool> {
        let to = 1 - from;
        let shards = &self.inner.shards;
        if self.early_release {
            // BUG: between the two critical sections the name is in
            // neither shard, and its record may already be durable.
            {
                let mut source = shards[from].lock().await;
                if !source.remove(name) {
                    return Ok(false);
                }
                self.inner.changed(from, &source);
            }
            self.journal(name, from, to).await?;
            let mut target = shards[to].lock().await;
            target.insert(name.to_string());
            self.inner.changed(to, &target);
            return Ok(true);
        }
        let mut zero = shards[0].lock().await;
        let mut one = shards[1].lock().await;
        let (source, target) = if from == 0 {
            (&mut *zero, &mut *one)
        } else {
            (&mut *one, &mut *zero)
        };
        if !source.contains(name) {
            return Ok(false);
        }
        self.journal(name, from, to).await?;
        source.remove(name);
        target.insert(name.to_string());
        self.inner.changed(from, source);
        self.inner.changed(to, target);
        Ok(true)
    }

    /// Writes a checkpoint: both shards as they are, with the durable LSN.
    pub async fn checkpoint(&self) -> io::Result<()> {
        let (lsn, text) = {
            let zero = self.inner.shards[0].lock().await;
            let one = self.inner.shards[1].lock().await;
            let lsn = self.inner.lsns.lock().unwrap().durable;
            (lsn, format!("{lsn}\n{}\n{}\n", line(&zero), line(&one)))
        };
        let dir = &self.inner.dir;
        replace(dir, &dir.join(CHECKPOINT), &text).await?;
        self.inner.reported.lock().unwrap().checkpoint = lsn;
        self.inner.report();
        Ok(())
    }
}

/// The two shards as a restart would rebuild them from `dir`: the
/// checkpoint, then the journal's records after it.
pub async fn recover(dir: impl AsRef<Path>) -> io::Result<[BTreeSet<String>; 2]> {
    let dir = dir.as_ref();
    let checkpoint = fs::read_to_string(dir.join(CHECKPOINT)).await?;
    let mut lines = checkpoint.lines();
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "a malformed checkpoint");
    let lsn: u64 = lines.next().and_then(|l| l.parse().ok()).ok_or_else(bad)?;
    let mut shards = [
        names(lines.next().ok_or_else(bad)?),
        names(lines.next().ok_or_else(bad)?),
    ];
    let journal = fs::read_to_string(dir.join(JOURNAL)).await?;
    for record in journal.lines() {
        let words: Vec<&str> = record.split(' ').collect();
        let [at, name, from, to] = words[..] else {
            // A torn last line: the move never became durable.
            break;
        };
        let (Ok(at), Ok(from), Ok(to)) = (
            at.parse::<u64>(),
            from.parse::<usize>(),
            to.parse::<usize>(),
        ) else {
            break;
        };
        if at > lsn && from < 2 && to < 2 {
            shards[from].remove(name);
            shards[to].insert(name.to_string());
        }
    }
    Ok(shards)
}
