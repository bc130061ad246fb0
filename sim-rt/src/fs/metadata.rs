//! What a simulated `stat` reports: [`Metadata`] and [`FileType`].
//!
//! tokio returns `std::fs::Metadata` and `std::fs::FileType`, which only the
//! real OS can construct, so these are the simulation's own types with the
//! same method names. The disk model has no symlinks, permissions or
//! timestamps; its types are regular files, directories, sockets (the
//! entry of a simulated Unix socket bound to a path) and FIFOs (a named
//! pipe's entry, made by `mkfifo`).

use std::io;
use std::time::SystemTime;

/// Simulated [`std::fs::FileType`], as returned by
/// [`Metadata::file_type`] and [`DirEntry::file_type`](super::DirEntry::file_type).
///
/// # Differences from tokio
///
/// tokio returns `std::fs::FileType`, which cannot be constructed outside
/// the OS; this type has its methods `is_dir`, `is_file` and `is_symlink`
/// (always false: the simulated disk has no symlinks). The methods of
/// `std::os::unix::fs::FileTypeExt` (`is_socket`, `is_fifo`, ...) are
/// inherent methods here, since std's trait is sealed: a call compiles
/// against both, with the trait imported for std's type.
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

    /// Whether this is a socket: the entry of a Unix socket bound to a
    /// path (`std::os::unix::fs::FileTypeExt::is_socket`).
    #[cfg(unix)]
    pub fn is_socket(&self) -> bool {
        self.0.is_socket()
    }

    /// Whether this is a FIFO: a named pipe's entry, made by `mkfifo`
    /// (`std::os::unix::fs::FileTypeExt::is_fifo`).
    #[cfg(unix)]
    pub fn is_fifo(&self) -> bool {
        self.0.is_fifo()
    }

    /// Whether this is a block device (`FileTypeExt::is_block_device`):
    /// always false, the simulated disk has none.
    #[cfg(unix)]
    pub fn is_block_device(&self) -> bool {
        false
    }

    /// Whether this is a character device (`FileTypeExt::is_char_device`):
    /// always false, the simulated disk has none.
    #[cfg(unix)]
    pub fn is_char_device(&self) -> bool {
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
/// 4096, as on ext4; a socket's or a FIFO's is 0. There are no
/// timestamps: [`modified`](Self::modified), [`accessed`](Self::accessed)
/// and [`created`](Self::created) fail with `Unsupported`, as std does on a
/// platform without them. The disk keeps no permissions:
/// [`permissions`](Self::permissions) reports a new file's, directory's,
/// socket's or FIFO's usual mode (`0o644`, `0o755`, `0o755`, `0o644`).
/// [`ino`](Self::ino) and [`nlink`](Self::nlink) are inherent methods
/// rather than `std::os::unix::fs::MetadataExt`.
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

    /// The size in bytes (4096 for a directory, 0 for a socket or a FIFO).
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

    /// The permissions: the mode a file or FIFO (`0o644`), directory or
    /// socket (`0o755`) gets under the usual umask, which is all the
    /// simulated disk knows (it keeps no permissions, and grants every
    /// access).
    #[cfg(unix)]
    pub fn permissions(&self) -> std::fs::Permissions {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(match self.0.file_type() {
            sim_fs::FileType::File | sim_fs::FileType::Fifo => 0o644,
            sim_fs::FileType::Dir | sim_fs::FileType::Socket => 0o755,
        })
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
