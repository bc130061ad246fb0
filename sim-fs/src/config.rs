//! Configuration of one simulated disk: which crash outcomes are possible,
//! when directory entries become durable, and which faults are injected.
//!
//! Everything is off by default: a default [`FsConfig`] never asks its
//! [`Chooser`](crate::Chooser) anything, and a crash keeps exactly what was
//! synced.

use core::time::Duration;

/// Configuration of one simulated disk.
#[derive(Clone, Debug, PartialEq)]
pub struct FsConfig {
    /// Sector size in bytes, the unit of torn writes. Default 512.
    pub sector_size: u64,
    /// When a directory entry becomes durable.
    pub entries: EntryDurability,
    /// What a crash may keep of the unsynced operations.
    pub crash: CrashModel,
    /// Injected faults.
    pub faults: Faults,
    /// Latency the runtime should spend on each kind of operation.
    pub latency: Latency,
}

impl Default for FsConfig {
    fn default() -> Self {
        FsConfig {
            sector_size: 512,
            entries: EntryDurability::default(),
            crash: CrashModel::default(),
            faults: Faults::default(),
            latency: Latency::default(),
        }
    }
}

/// When a directory entry (create, link, rename, remove, mkdir) becomes
/// durable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EntryDurability {
    /// Only when the directory holding the entry is synced
    /// (`File::open(dir)?.sync_all()`). The two halves of a rename between
    /// directories become durable separately, each with its own directory,
    /// so a crash may show the file under both names or under neither. This
    /// is what POSIX promises, and the strictest model.
    #[default]
    ParentSync,
    /// As `ParentSync`, and also syncing a file makes durable every pending
    /// entry operation on that file (its creation, links, renames — both
    /// halves — and removals), as ext4 and XFS do by committing their
    /// journal on `fsync`.
    FileSyncToo,
}

/// What a crash may keep of the operations that were not yet synced.
///
/// See the crate documentation for how an explorer sees the choices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrashModel {
    /// Which unsynced operations may survive.
    pub keep: KeepUnsynced,
    /// Whether a surviving unsynced write may be torn.
    pub torn_writes: TornWrites,
}

/// Which unsynced operations a crash may keep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeepUnsynced {
    /// None: the disk reverts to what was synced. No choice is asked.
    #[default]
    Nothing,
    /// Any prefix of the unsynced operations, in the order they were made
    /// (an ordered journal). One choice,
    /// [`Choice::CrashKeepPrefix`](crate::Choice::CrashKeepPrefix).
    Prefix,
    /// Any subset, applied in the order they were made (a write-back cache
    /// that flushes in any order). One binary choice per unsynced operation,
    /// [`Choice::CrashKeepOp`](crate::Choice::CrashKeepOp).
    Subset,
}

/// Whether a surviving unsynced write may be torn at sector granularity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TornWrites {
    /// Surviving writes survive whole.
    #[default]
    Never,
    /// A prefix of the write's sectors survives.
    Prefix,
    /// A prefix survives, or a prefix and then one sector of garbage.
    PrefixOrGarbage,
}

/// Injected faults. All off by default.
#[derive(Clone, Debug, PartialEq)]
pub struct Faults {
    /// Probability that a read fails with `EIO`.
    pub eio_read: f64,
    /// Probability that a write (or `set_len`) fails with `EIO`.
    pub eio_write: f64,
    /// Probability that a `sync_all`/`sync_data` fails with `EIO`.
    pub eio_sync: f64,
    /// What a failed file sync does to the data it was syncing. `true`
    /// (default) is Linux since 4.13: the dirty data is dropped from the
    /// write-back queue, so a later successful sync does not persist it and a
    /// crash loses it, though reads still see it until then ("fsyncgate").
    /// `false` keeps it queued for the next sync.
    pub sync_error_drops_dirty: bool,
    /// Capacity in bytes: the sum of the lengths of all live files may not
    /// exceed it (a write that does not fit is short, or fails with `ENOSPC`
    /// when nothing fits). `None` (default) is unlimited.
    pub capacity: Option<u64>,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            eio_read: 0.0,
            eio_write: 0.0,
            eio_sync: 0.0,
            sync_error_drops_dirty: true,
            capacity: None,
        }
    }
}

impl Faults {
    pub(crate) fn eio_probability(&self, op: IoOp) -> f64 {
        match op {
            IoOp::Read => self.eio_read,
            IoOp::Write => self.eio_write,
            IoOp::Sync => self.eio_sync,
            IoOp::Meta => 0.0,
        }
    }
}

/// The kinds of operation, for latency and fault injection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IoOp {
    /// Reading file data (`read`, `read_at`, `copy`'s read side).
    Read,
    /// Changing file data (`write`, `write_at`, `set_len`, `copy`'s write side).
    Write,
    /// `sync_all`, `sync_data`.
    Sync,
    /// Everything else: open, create, metadata, directory operations.
    Meta,
}

/// The simulated time each kind of operation takes. The model only reports
/// it ([`Fs::latency`](crate::Fs::latency)); the runtime sleeps. Zero by
/// default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Latency {
    /// Latency of [`IoOp::Read`].
    pub read: Duration,
    /// Latency of [`IoOp::Write`].
    pub write: Duration,
    /// Latency of [`IoOp::Sync`].
    pub sync: Duration,
    /// Latency of [`IoOp::Meta`].
    pub meta: Duration,
}

impl Latency {
    /// The latency of `op`.
    pub fn of(&self, op: IoOp) -> Duration {
        match op {
            IoOp::Read => self.read,
            IoOp::Write => self.write,
            IoOp::Sync => self.sync,
            IoOp::Meta => self.meta,
        }
    }
}
