//! What `stat` and `readdir` report: [`Metadata`], [`FileType`] and
//! [`DirEntry`].
//!
//! The model has no symlinks, permissions or timestamps, so these carry only
//! type, length, inode number and link count. The types are a regular
//! file, a directory, a socket (the entry of a Unix socket bound to a
//! path, [`Fs::bind_socket`](crate::Fs::bind_socket)) and a FIFO (a named
//! pipe's entry, [`Fs::make_fifo`](crate::Fs::make_fifo)).

use std::ffi::OsString;
use std::path::PathBuf;

/// The type of an inode. The model has no symlinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileType {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A socket: the entry of a Unix socket bound to a path
    /// ([`Fs::bind_socket`](crate::Fs::bind_socket)), `S_IFSOCK`.
    Socket,
    /// A FIFO (named pipe): the entry `mkfifo(3)` makes
    /// ([`Fs::make_fifo`](crate::Fs::make_fifo)), `S_IFIFO`.
    Fifo,
}

impl FileType {
    /// Whether this is a regular file.
    pub fn is_file(self) -> bool {
        self == FileType::File
    }

    /// Whether this is a directory.
    pub fn is_dir(self) -> bool {
        self == FileType::Dir
    }

    /// Whether this is a socket (`FileTypeExt::is_socket` in std).
    pub fn is_socket(self) -> bool {
        self == FileType::Socket
    }

    /// Whether this is a FIFO (`FileTypeExt::is_fifo` in std).
    pub fn is_fifo(self) -> bool {
        self == FileType::Fifo
    }

    /// Always false: the model has no symlinks.
    pub fn is_symlink(self) -> bool {
        false
    }
}

/// The length the model reports for a directory, as ext4 does for a
/// directory that fits one block.
pub const DIR_LEN: u64 = 4096;

/// Metadata of a file or directory, as `stat` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metadata {
    pub(crate) file_type: FileType,
    pub(crate) len: u64,
    pub(crate) ino: u64,
    pub(crate) nlink: u64,
}

impl Metadata {
    /// The type.
    pub fn file_type(&self) -> FileType {
        self.file_type
    }

    /// Whether this is a regular file.
    pub fn is_file(&self) -> bool {
        self.file_type.is_file()
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.file_type.is_dir()
    }

    /// Whether this is a socket.
    pub fn is_socket(&self) -> bool {
        self.file_type.is_socket()
    }

    /// Whether this is a FIFO (named pipe).
    pub fn is_fifo(&self) -> bool {
        self.file_type.is_fifo()
    }

    /// Always false: the model has no symlinks.
    pub fn is_symlink(&self) -> bool {
        false
    }

    /// A file's length in bytes; [`DIR_LEN`] for a directory; 0 for a
    /// socket or a FIFO.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The inode number (`st_ino`). Unique for the life of the disk, crashes
    /// included.
    pub fn ino(&self) -> u64 {
        self.ino
    }

    /// The link count (`st_nlink`): the number of names of a file, a
    /// socket or a FIFO (0 once a file is removed while still open); 2 plus the
    /// number of subdirectories for a directory, as on Linux.
    pub fn nlink(&self) -> u64 {
        self.nlink
    }
}

/// One entry of [`Fs::read_dir`](crate::Fs::read_dir).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub(crate) path: PathBuf,
    pub(crate) name: OsString,
    pub(crate) file_type: FileType,
    pub(crate) ino: u64,
}

impl DirEntry {
    /// An entry built outside the model: for a runtime that merges the
    /// entries of a layer the model does not hold (real files shown
    /// read-only under the simulated ones) into a listing.
    pub fn new(path: PathBuf, name: OsString, file_type: FileType, ino: u64) -> DirEntry {
        DirEntry {
            path,
            name,
            file_type,
            ino,
        }
    }

    /// The directory path given to `read_dir` joined with the entry's name,
    /// as std's `DirEntry::path`.
    pub fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The entry's name.
    pub fn file_name(&self) -> OsString {
        self.name.clone()
    }

    /// The entry's type.
    pub fn file_type(&self) -> FileType {
        self.file_type
    }

    /// The inode number the entry names.
    pub fn ino(&self) -> u64 {
        self.ino
    }
}
