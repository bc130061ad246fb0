//! Simulated [`tokio::fs::OpenOptions`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html).

use std::io;
use std::path::Path;

use sim_fs::IoOp;

use super::blocking::{asyncify, Disk, Handle};
use super::File;

/// Simulated [`tokio::fs::OpenOptions`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html): options and flags for opening a
/// file, with the semantics of [`std::fs::OpenOptions`] on Linux.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::fs::OpenOptions;
/// use sim_rt::io::AsyncWriteExt;
///
/// let mut log = OpenOptions::new().append(true).create(true).open("/log").await?;
/// log.write_all(b"one record\n").await?;
/// log.sync_all().await?; // the data is durable; sync "/" too for the new name
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Differences from tokio
///
/// `mode` and `custom_flags` are kept (`Debug` shows them, as std's) but
/// not applied: the simulated disk has no permissions or flags.
/// `From<std::fs::OpenOptions>` is not provided.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    options: sim_fs::OpenOptions,
    /// The permission bits a created file would get (std's default
    /// `0o666`).
    #[cfg(unix)]
    mode: u32,
    /// Extra `open(2)` flags.
    #[cfg(unix)]
    custom_flags: i32,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

impl OpenOptions {
    /// Simulated [`tokio::fs::OpenOptions::new`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.new): every option off.
    pub fn new() -> OpenOptions {
        OpenOptions {
            options: sim_fs::OpenOptions::new(),
            #[cfg(unix)]
            mode: 0o666,
            #[cfg(unix)]
            custom_flags: 0,
        }
    }

    /// Simulated [`tokio::fs::OpenOptions::read`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.read): read access.
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.options.read(read);
        self
    }

    /// Simulated [`tokio::fs::OpenOptions::write`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.write): write access.
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.options.write(write);
        self
    }

    /// Simulated [`tokio::fs::OpenOptions::append`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.append): every write goes to
    /// the end of the file (implies write access).
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.options.append(append);
        self
    }

    /// Simulated [`tokio::fs::OpenOptions::truncate`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.truncate): truncate an
    /// existing file to length 0 (needs write access).
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.options.truncate(truncate);
        self
    }

    /// Simulated [`tokio::fs::OpenOptions::create`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.create): create the file if it
    /// does not exist (needs write or append access).
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.options.create(create);
        self
    }

    /// Simulated [`tokio::fs::OpenOptions::create_new`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.create_new): create the file,
    /// failing with `AlreadyExists` if the name is taken.
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.options.create_new(create_new);
        self
    }

    /// Simulated `tokio::fs::OpenOptions::mode` (Unix): kept and shown by
    /// `Debug`, not applied (the simulated disk has no permissions).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        self.mode = mode;
        self
    }

    /// Simulated `tokio::fs::OpenOptions::custom_flags` (Unix): kept and
    /// shown by `Debug`, not applied.
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        self.custom_flags = flags;
        self
    }

    /// Simulated [`tokio::fs::OpenOptions::open`](https://docs.rs/tokio/1/tokio/fs/struct.OpenOptions.html#method.open): opens the file at `path`
    /// on the calling host's disk with these options.
    ///
    /// Creating a file adds a directory entry that is durable only once the
    /// parent directory is synced.
    ///
    /// # Errors
    ///
    /// `NotFound` (no such file, or no parent directory), `AlreadyExists`
    /// (`create_new`), `IsADirectory` (a directory with write access),
    /// `NotADirectory`, `InvalidInput` (no access mode, or creating or
    /// truncating without write access), as std on Linux.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let path = path.as_ref().to_owned();
        let options = self.options;
        let disk = Disk::current();
        let handle = asyncify(disk, IoOp::Meta, move |fs, _| {
            fs.open(&path, &options).map(|fd| Handle {
                disk,
                fd,
                path: crate::disk::absolute(&path),
            })
        })
        .await?;
        Ok(File::from_handle(handle))
    }
}
