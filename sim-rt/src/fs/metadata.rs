//! What a simulated `stat` reports: [`Metadata`] and [`FileType`].
//!
//! tokio returns `std::fs::Metadata` and `std::fs::FileType`, which only the
//! real OS can construct, so these are the simulation's own types with the
//! same method names. The disk model has no symlinks, permissions or
//! timestamps.

use std::io;
use std::time::SystemTime;

/// Simulated [`std::fs::FileType`], as returned by
/// [`Metadata::file_type`] and [`DirEntry::file_type`](super::DirEntry::file_type).
///
/// # Differences from tokio
///
/// tokio returns `std::fs::FileType`, which cannot be constructed outside
/// the OS; this type has its methods `is_dir`, `is_file` and `is_symlink`
/// (always false: the simulated disk has no symlinks). The Unix extension
/// methods (`is_fifo`, ...) are not provided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileType(sim_fs::FileType);

impl FileType {
    pub(crate) fn new(t: sim_fs::FileType) -> FileType {
        FileType(t)
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.0.is_dir()
    }

    /// Whether this is a regular file.
    pub fn is_file(&self) -> bool {
        self.0.is_file()
    }

    /// Whether this is a symbolic link: always false, the simulated disk has
    /// none.
    pub fn is_symlink(&self) -> bool {
        false
    }
}

/// Simulated [`std::fs::Metadata`], as returned by
/// [`metadata`](super::metadata()), [`File::metadata`](super::File::metadata)
/// and [`DirEntry::metadata`](super::DirEntry::metadata).
///
/// # Differences from tokio
///
/// tokio returns `std::fs::Metadata`, which cannot be constructed outside
/// the OS; this type has the same method names. A directory's length is
/// 4096, as on ext4. There are no timestamps: [`modified`](Self::modified),
/// [`accessed`](Self::accessed) and [`created`](Self::created) fail with
/// `Unsupported`, as std does on a platform without them. The disk keeps
/// no permissions: [`permissions`](Self::permissions) reports a new file's
/// or directory's usual mode (`0o644`, `0o755`). [`ino`](Self::ino) and
/// [`nlink`](Self::nlink) are inherent methods rather than
/// `std::os::unix::fs::MetadataExt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata(sim_fs::Metadata);

impl Metadata {
    pub(crate) fn new(m: sim_fs::Metadata) -> Metadata {
        Metadata(m)
    }

    /// The file type.
    pub fn file_type(&self) -> FileType {
        FileType(self.0.file_type())
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.0.is_dir()
    }

    /// Whether this is a regular file.
    pub fn is_file(&self) -> bool {
        self.0.is_file()
    }

    /// Whether this is a symbolic link: always false.
    pub fn is_symlink(&self) -> bool {
        false
    }

    /// The size in bytes (4096 for a directory).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// The inode number, unique for the life of the host's disk.
    pub fn ino(&self) -> u64 {
        self.0.ino()
    }

    /// The number of hard links (0 for an open file that was removed).
    pub fn nlink(&self) -> u64 {
        self.0.nlink()
    }

    /// The permissions: the mode a file (`0o644`) or directory (`0o755`)
    /// gets under the usual umask, which is all the simulated disk knows
    /// (it keeps no permissions, and grants every access).
    #[cfg(unix)]
    pub fn permissions(&self) -> std::fs::Permissions {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(if self.is_dir() { 0o755 } else { 0o644 })
    }

    /// Last modification time: always `Unsupported` (no timestamps).
    pub fn modified(&self) -> io::Result<SystemTime> {
        Err(no_timestamps())
    }

    /// Last access time: always `Unsupported` (no timestamps).
    pub fn accessed(&self) -> io::Result<SystemTime> {
        Err(no_timestamps())
    }

    /// Creation time: always `Unsupported` (no timestamps).
    pub fn created(&self) -> io::Result<SystemTime> {
        Err(no_timestamps())
    }
}

fn no_timestamps() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "the simulated disk keeps no timestamps (use sim_rt::time for simulated time)",
    )
}
