//! The log of operations that changed the volatile view but are not yet
//! durable.
//!
//! Every mutation appends one [`PendingOp`]. A sync removes the operations it
//! makes durable and applies them, in log order, to the durable layer; a
//! crash applies the ones the crash model keeps. Operations name inodes, not
//! paths, so an operation stays meaningful whatever happened to the names
//! around it.
//!
//! # Invariants
//!
//! - Applying, in order, every pending operation to the durable layer gives
//!   the volatile view (for the reachable part of the tree), except for data
//!   a failed sync dropped (see
//!   [`Faults::sync_error_drops_dirty`](crate::Faults::sync_error_drops_dirty)).
//! - A [`PendingOp::Rename`] has at least one half still pending.

use std::ffi::OsString;

use crate::inode::Ino;
use crate::metadata::FileType;

/// One unsynced operation, as logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PendingOp {
    /// `data` written at `offset` (appends are logged at the offset they
    /// landed at).
    Write {
        ino: Ino,
        offset: u64,
        data: Vec<u8>,
    },
    /// The file's length set to `len` (truncate or extend with zeros).
    SetLen { ino: Ino, len: u64 },
    /// A new entry `dir/name -> ino` (create, mkdir, bind, mkfifo, hard
    /// link).
    Link {
        dir: Ino,
        name: OsString,
        ino: Ino,
        kind: FileType,
    },
    /// The entry `dir/name -> ino` removed (remove_file, remove_dir).
    Unlink { dir: Ino, name: OsString, ino: Ino },
    /// `ino` moved from `from` to `to`. Each half is `None` once it is
    /// durable: under [`EntryDurability::ParentSync`](crate::EntryDurability)
    /// each directory's sync persists its own half.
    Rename {
        from: Option<(Ino, OsString)>,
        to: Option<(Ino, OsString)>,
        ino: Ino,
        kind: FileType,
    },
}

impl PendingOp {
    /// The inode the operation is about.
    pub(crate) fn ino(&self) -> Ino {
        match *self {
            PendingOp::Write { ino, .. }
            | PendingOp::SetLen { ino, .. }
            | PendingOp::Link { ino, .. }
            | PendingOp::Unlink { ino, .. }
            | PendingOp::Rename { ino, .. } => ino,
        }
    }

    /// Whether the operation changes file data (as opposed to a directory).
    pub(crate) fn is_data(&self) -> bool {
        matches!(self, PendingOp::Write { .. } | PendingOp::SetLen { .. })
    }

    /// The public description of the operation.
    pub(crate) fn kind(&self) -> PendingKind {
        match *self {
            PendingOp::Write {
                ino,
                offset,
                ref data,
            } => PendingKind::Write {
                ino,
                offset,
                len: data.len() as u64,
            },
            PendingOp::SetLen { ino, len } => PendingKind::SetLen { ino, len },
            PendingOp::Link { ino, .. } => PendingKind::Link { ino },
            PendingOp::Unlink { ino, .. } => PendingKind::Unlink { ino },
            PendingOp::Rename { ino, .. } => PendingKind::Rename { ino },
        }
    }
}

/// What an unsynced operation was, as an explorer or a trace shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum PendingKind {
    /// A write of `len` bytes at `offset` into inode `ino`.
    Write {
        /// The inode written.
        ino: u64,
        /// Where the write landed.
        offset: u64,
        /// How many bytes.
        len: u64,
    },
    /// Inode `ino`'s length set to `len`.
    SetLen {
        /// The inode.
        ino: u64,
        /// The new length.
        len: u64,
    },
    /// A new directory entry for inode `ino` (create, mkdir, bind of a
    /// Unix socket, mkfifo, hard link).
    Link {
        /// The inode linked.
        ino: u64,
    },
    /// A directory entry for inode `ino` removed.
    Unlink {
        /// The inode unlinked.
        ino: u64,
    },
    /// Inode `ino` renamed.
    Rename {
        /// The inode renamed.
        ino: u64,
    },
}
