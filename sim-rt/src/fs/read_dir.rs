//! Simulated [`tokio::fs::read_dir`](https://docs.rs/tokio/1/tokio/fs/fn.read_dir.html), [`ReadDir`] and [`DirEntry`].

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::task::{Context, Poll};

use sim_fs::IoOp;

use super::blocking::{asyncify, Disk};
use super::metadata::{FileType, Metadata};

/// Simulated [`tokio::fs::read_dir`](https://docs.rs/tokio/1/tokio/fs/fn.read_dir.html): the entries of a directory.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// sim_rt::fs::create_dir("/d").await?;
/// sim_rt::fs::write("/d/b", b"").await?;
/// sim_rt::fs::write("/d/a", b"").await?;
/// let mut names = Vec::new();
/// let mut entries = sim_rt::fs::read_dir("/d").await?;
/// while let Some(entry) = entries.next_entry().await? {
///     names.push(entry.file_name());
/// }
/// assert_eq!(names, ["a", "b"]);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Errors
///
/// `NotFound`, `NotADirectory`.
///
/// # Differences from tokio
///
/// The listing is taken when `read_dir` completes, sorted by name (a real
/// directory lists in an unspecified order and may or may not show entries
/// added or removed while it is read).
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    let path = path.as_ref().to_owned();
    let disk = Disk::current();
    let entries = asyncify(disk, IoOp::Meta, move |fs, _| fs.read_dir(&path)).await?;
    Ok(ReadDir {
        entries: entries
            .into_iter()
            .map(|inner| DirEntry { disk, inner })
            .collect(),
    })
}

/// Simulated [`tokio::fs::ReadDir`](https://docs.rs/tokio/1/tokio/fs/struct.ReadDir.html): the entries of a directory, one at a
/// time.
///
/// # Differences from tokio
///
/// The entries were all read by [`read_dir`]; `next_entry` takes the next
/// one at once, without a blocking job.
#[derive(Debug)]
#[must_use = "a ReadDir lists nothing unless `next_entry` is called"]
pub struct ReadDir {
    entries: VecDeque<DirEntry>,
}

impl ReadDir {
    /// Simulated [`tokio::fs::ReadDir::next_entry`](https://docs.rs/tokio/1/tokio/fs/struct.ReadDir.html#method.next_entry): the next entry, or
    /// `None` at the end.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe.
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        Ok(self.entries.pop_front())
    }

    /// Simulated [`tokio::fs::ReadDir::poll_next_entry`](https://docs.rs/tokio/1/tokio/fs/struct.ReadDir.html#method.poll_next_entry).
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        let _ = cx;
        Poll::Ready(Ok(self.entries.pop_front()))
    }
}

/// Simulated [`tokio::fs::DirEntry`](https://docs.rs/tokio/1/tokio/fs/struct.DirEntry.html): one entry of a [`ReadDir`].
///
/// # Differences from tokio
///
/// [`metadata`](Self::metadata) and [`file_type`](Self::file_type) return
/// the simulation's [`Metadata`] and [`FileType`]; [`ino`](Self::ino) is an
/// inherent method.
#[derive(Debug)]
pub struct DirEntry {
    disk: Disk,
    inner: sim_fs::DirEntry,
}

impl DirEntry {
    /// Simulated [`tokio::fs::DirEntry::path`](https://docs.rs/tokio/1/tokio/fs/struct.DirEntry.html#method.path): the path given to
    /// [`read_dir`] joined with the entry's name.
    pub fn path(&self) -> PathBuf {
        self.inner.path()
    }

    /// Simulated [`tokio::fs::DirEntry::file_name`](https://docs.rs/tokio/1/tokio/fs/struct.DirEntry.html#method.file_name): the entry's name.
    pub fn file_name(&self) -> OsString {
        self.inner.file_name()
    }

    /// Simulated [`tokio::fs::DirEntry::ino`](https://docs.rs/tokio/1/tokio/fs/struct.DirEntry.html#method.ino): the inode number the entry
    /// names.
    pub fn ino(&self) -> u64 {
        self.inner.ino()
    }

    /// Simulated [`tokio::fs::DirEntry::metadata`](https://docs.rs/tokio/1/tokio/fs/struct.DirEntry.html#method.metadata): the entry's metadata
    /// now (not following a symlink).
    ///
    /// # Errors
    ///
    /// `NotFound` when the entry was removed since it was listed.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let path = self.inner.path();
        asyncify(self.disk, IoOp::Meta, move |fs, _| {
            fs.symlink_metadata(&path).map(Metadata::new)
        })
        .await
    }

    /// Simulated [`tokio::fs::DirEntry::file_type`](https://docs.rs/tokio/1/tokio/fs/struct.DirEntry.html#method.file_type): the entry's type, as
    /// it was listed (like the `d_type` that Linux reports, with no
    /// blocking job).
    pub async fn file_type(&self) -> io::Result<FileType> {
        Ok(FileType::new(self.inner.file_type()))
    }
}
