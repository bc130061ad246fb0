//! Simulated [`tokio::fs::DirBuilder`](https://docs.rs/tokio/1/tokio/fs/struct.DirBuilder.html):
//! creating a directory with options.

use std::io;
use std::path::Path;

use sim_fs::IoOp;

use super::blocking::{asyncify, Disk};

/// Simulated [`tokio::fs::DirBuilder`](https://docs.rs/tokio/1/tokio/fs/struct.DirBuilder.html):
/// builds a directory on the host's simulated disk, optionally with its
/// missing parents.
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::fs::DirBuilder;
///
/// DirBuilder::new().recursive(true).create("/a/b/c").await?;
/// assert!(sim_rt::fs::metadata("/a/b/c").await?.is_dir());
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Differences from tokio
///
/// The simulated disk has no permissions: a [`mode`](Self::mode) is
/// recorded in the builder (its `Debug` shows it) but the directory is
/// created without one.
#[derive(Debug, Default)]
pub struct DirBuilder {
    /// Whether `create` makes the missing parents too (`create_dir_all`).
    recursive: bool,

    /// The mode asked for; the simulated disk keeps none.
    #[cfg(unix)]
    mode: Option<u32>,
}

impl DirBuilder {
    /// Simulated [`tokio::fs::DirBuilder::new`](https://docs.rs/tokio/1/tokio/fs/struct.DirBuilder.html#method.new):
    /// a builder that is not recursive.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn new() -> Self {
        DirBuilder::default()
    }

    /// Simulated [`tokio::fs::DirBuilder::recursive`](https://docs.rs/tokio/1/tokio/fs/struct.DirBuilder.html#method.recursive):
    /// whether [`create`](Self::create) also creates the missing parents
    /// (and then succeeds when the directory already exists).
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn recursive(&mut self, recursive: bool) -> &mut Self {
        self.recursive = recursive;
        self
    }

    /// Simulated [`tokio::fs::DirBuilder::create`](https://docs.rs/tokio/1/tokio/fs/struct.DirBuilder.html#method.create):
    /// creates the directory `path` (as [`create_dir`](super::create_dir),
    /// or [`create_dir_all`](super::create_dir_all) when recursive). The new
    /// entries are durable once their parent directories are synced.
    ///
    /// # Errors
    ///
    /// Not recursive: `AlreadyExists` when the path exists, `NotFound`
    /// when the parent does not. Recursive: `AlreadyExists` when the path
    /// (or a parent) is a file, `NotADirectory` when a component is a file.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// The mode (if any) is not applied: the simulated disk has no
    /// permissions.
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref().to_owned();
        let recursive = self.recursive;
        asyncify(Disk::current(), IoOp::Meta, move |fs, _| {
            if recursive {
                fs.create_dir_all(&path)
            } else {
                fs.create_dir(&path)
            }
        })
        .await
    }
}

#[cfg(unix)]
impl DirBuilder {
    /// Simulated [`tokio::fs::DirBuilder::mode`](https://docs.rs/tokio/1/tokio/fs/struct.DirBuilder.html#method.mode):
    /// the permission bits for the new directories (default `0o777`, less
    /// the umask).
    ///
    /// # Differences from tokio
    ///
    /// Recorded only: the simulated disk has no permissions, so the
    /// directories are created without a mode.
    pub fn mode(&mut self, mode: u32) -> &mut Self {
        self.mode = Some(mode);
        self
    }
}
