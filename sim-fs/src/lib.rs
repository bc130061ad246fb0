//! The simulated disk as a pure model: one host's file tree with a durable
//! and a volatile layer, fsync semantics, crash loss and injected faults.
//!
//! There is no async, no clock, no randomness and no real I/O here. The
//! runtime (`sim_rt::fs`) owns one [`Fs`] per host, calls it from its
//! tokio-shaped `File`, `OpenOptions`, `read_dir`, `metadata`..., sleeps
//! for [`Fs::latency`], and passes a [`Chooser`] wherever the model must
//! decide something (a fault, a crash outcome).
//!
//! # The model
//!
//! **Inodes.** As on Unix, directories map names to inode numbers, files are
//! inodes holding bytes, and hard links are several names for one inode. An
//! open handle keeps a removed file's data until it closes. A socket is an
//! inode with no content: the name a Unix socket is bound to
//! ([`Fs::bind_socket`]; the socket itself is the runtime's). A FIFO is one
//! too: a named pipe's entry ([`Fs::make_fifo`], `mkfifo(3)`; the pipe is
//! the runtime's). Both are listed, renamed, linked and removed as a file
//! is, and do not open (`ENXIO`). Inode numbers and descriptors are never
//! reused. No symlinks, devices, permissions or timestamps. Relative paths
//! start at the root.
//!
//! **Two layers.** Every mutation — write, `set_len`, create, mkdir, bind,
//! mkfifo, link, rename, remove — changes the **volatile** view at once
//! (later reads see it) and is appended to a **log** of pending operations,
//! by inode. The
//! **durable** layer is what is on the platter. Invariant: replaying the log
//! over the durable layer gives the volatile view (except data a failed
//! sync dropped, see below).
//!
//! **Sync.** `sync_all`/`sync_data` on a *file* moves the file's pending
//! writes and length changes to the durable layer. A directory entry becomes
//! durable when its *directory* is synced (`File::open(dir)?.sync_all()`,
//! [`Fs::open`] + [`Fs::sync_all`] here): a directory's sync moves its
//! pending creates, links, removes, and its half of each rename in or out.
//! With [`EntryDurability::FileSyncToo`], a file's sync also commits the
//! pending entry operations up to its own last one, like a journal. So the
//! durable state can show a file whose entry is durable but whose data is
//! not (it is then empty: the classic "rename without fsync" loss), or data
//! that is durable under a name that is not (lost with the name).
//!
//! **Crash.** [`Fs::crash`] rebuilds the disk from the durable layer plus
//! the pending operations the [`CrashModel`] keeps, then closes every
//! handle. Which operations survive, and whether a surviving write is torn
//! at sector granularity (a prefix of its sectors, optionally followed by
//! one sector of garbage), are data choices; by default nothing unsynced
//! survives and nothing is asked. See [`crash`] for exactly which
//! [`Choice`]s a crash asks and in what order, so an explorer can enumerate
//! crash states as it enumerates interleavings: the all-zero answer is
//! always the default crash.
//!
//! **Faults**, all off by default ([`Faults`]): `EIO` on read, write or sync
//! with a probability, asked as [`Choice::Eio`] (the runtime's RNG applies
//! the probability, an explorer enumerates); a failed file sync drops the
//! file's dirty data as Linux does; `ENOSPC` deterministically past a
//! capacity (writes go short, then fail); and a latency per kind of
//! operation, which the model only reports.
//!
//! **Errors** are the raw OS errors the Linux call returns
//! (`raw_os_error()`, `kind()` and message as std reports them; e.g. a
//! write on a read-only handle is `EBADF`, whose kind std leaves
//! uncategorized), and std's own custom errors where std checks before the
//! kernel.
//!
//! # Invariants
//!
//! Each module states its own; [`Fs::check_invariants`] checks them all.
//!
//! # Determinism
//!
//! Every collection is ordered (`BTreeMap`), [`Fs::read_dir`] lists entries
//! sorted by name, and the model asks its choices in an order fixed by its
//! state. The same calls with the same answers give the same disk.
//!
//! # How the runtime drives it
//!
//! - `tokio::fs::File` holds an [`Fd`]: `open`/`create`/`OpenOptions::open`
//!   are [`Fs::open`] with an [`OpenOptions`]; reads and writes at the
//!   cursor are [`Fs::read`]/[`Fs::write`] (the model keeps the cursor, and
//!   [`Fs::try_clone`] shares it like `dup`); `seek`, `set_len`,
//!   `sync_all`, `sync_data`, `metadata` map one to one
//!   ([`Fs::file_metadata`]); dropping the `File` is [`Fs::close`].
//! - Path functions (`tokio::fs::read_dir`, `rename`, `copy`, ...) map one
//!   to one; `tokio::fs::read`/`write` are [`Fs::read_file`]/
//!   [`Fs::write_file`].
//! - Binding a Unix socket to a path is [`Fs::bind_socket`], which gives the
//!   socket's inode number; a `connect` to a path finds the socket it names
//!   through [`Fs::metadata`] ([`Metadata::is_socket`], [`Metadata::ino`]).
//! - `mkfifo` is [`Fs::make_fifo`]; opening the entry is the runtime's to
//!   answer (the model's [`Fs::open`] is `ENXIO` on it, having no pipe):
//!   [`Metadata::is_fifo`] tells a FIFO.
//! - Before completing each call, the runtime sleeps [`Fs::latency`] of the
//!   call's [`IoOp`].
//! - A host reset is [`Fs::crash`], after which every old [`Fd`] is unknown
//!   (`EBADF`; closing it is a no-op).
//! - The [`Chooser`] the runtime passes turns each [`Choice`] into a data
//!   choice of its scheduler: the default scheduler answers [`Choice::Eio`]
//!   with its seeded RNG and the given probability, and crash questions
//!   with 0 unless configured otherwise; an explorer enumerates them.
//! - [`Fs::tree`] is a cheap-enough state for hashing, and
//!   [`Fs::pending`] says what a crash now could lose.
//!
//! ```
//! use sim_fs::{DefaultChooser, Fs, FsConfig, OpenOptions};
//!
//! let mut fs = Fs::new(FsConfig::default());
//! let mut choose = DefaultChooser; // the runtime passes its scheduler/RNG
//! fs.create_dir("/db").unwrap();
//! let root = fs.open("/", &OpenOptions::for_open()).unwrap();
//! fs.sync_all(root, &mut choose).unwrap(); // the mkdir is durable
//!
//! let f = fs.open("/db/log", &OpenOptions::for_create()).unwrap();
//! fs.write(f, b"hello", &mut choose).unwrap();
//! fs.sync_all(f, &mut choose).unwrap(); // the data is durable...
//! fs.crash(&mut choose); // ...but not the entry: /db was not synced again
//! assert!(!fs.try_exists("/db/log").unwrap());
//! assert!(fs.try_exists("/db").unwrap());
//! ```

#![deny(missing_docs, rust_2018_idioms)]
#![warn(missing_debug_implementations)]
#![forbid(unsafe_code)]

mod choice;
mod config;
pub mod crash;
mod durable;
mod errno;
mod fs;
mod handle;
mod inode;
mod metadata;
mod path;
mod pending;
mod snapshot;

pub use self::choice::{
    Choice, Chooser, DefaultChooser, FnChooser, RecordingChooser, ScriptedChooser,
};
pub use self::config::{
    CrashModel, EntryDurability, Faults, FsConfig, IoOp, KeepUnsynced, Latency, TornWrites,
};
pub use self::crash::{CrashReport, GARBAGE};
pub use self::fs::{Fs, MAX_FILE_LEN};
pub use self::handle::{Access, Fd, OpenOptions};
pub use self::metadata::{DirEntry, FileType, Metadata, DIR_LEN};
pub use self::pending::PendingKind;
pub use self::snapshot::{Tree, TreeEntry};
