//! Simulated path functions of [`tokio::fs`](https://docs.rs/tokio/1/tokio/fs/index.html): `read`, `write`, `rename`,
//! `metadata`...
//!
//! Each one is tokio's `asyncify(move || std::fs::f(path))`: a blocking job
//! on the calling host's disk (see `blocking.rs`), so it is a scheduling
//! point and sleeps the disk's latency for its kind of operation. Nothing
//! here syncs: a change becomes durable only when its file, and for a
//! directory entry its parent directory, is synced with
//! [`File::sync_all`](super::File::sync_all).

use std::fs::Permissions;
use std::io;
use std::path::{Path, PathBuf};

use sim_fs::IoOp;

use super::blocking::{asyncify, Disk};
use super::metadata::Metadata;

/// Simulated [`tokio::fs::read`](https://docs.rs/tokio/1/tokio/fs/fn.read.html): reads the entire contents of a file.
///
/// # Errors
///
/// `NotFound` when the path does not exist, `IsADirectory` on a directory,
/// an injected `EIO`.
///
/// # Differences from tokio
///
/// None.
pub async fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let path = path.as_ref().to_owned();
    asyncify(Disk::current(), IoOp::Read, move |fs, chooser| {
        fs.read_file(&path, chooser)
    })
    .await
}

/// Simulated [`tokio::fs::read_to_string`](https://docs.rs/tokio/1/tokio/fs/fn.read_to_string.html): reads a file into a `String`.
///
/// # Errors
///
/// As [`read`], and `InvalidData` when the file is not UTF-8.
///
/// # Differences from tokio
///
/// None.
pub async fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    let bytes = read(path).await?;
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// Simulated [`tokio::fs::write`](https://docs.rs/tokio/1/tokio/fs/fn.write.html): creates or truncates a file and writes
/// `contents` into it.
///
/// The data is not synced: a host crash loses it (and the file's name, if
/// the file is new) unless the file and its directory are synced
/// afterwards.
///
/// # Errors
///
/// `NotFound` when the parent directory does not exist, `IsADirectory`,
/// `StorageFull` when the disk's capacity is reached, an injected `EIO`.
///
/// # Differences from tokio
///
/// None.
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let contents = contents.as_ref().to_owned();
    asyncify(Disk::current(), IoOp::Write, move |fs, chooser| {
        fs.write_file(&path, &contents, chooser)
    })
    .await
}

/// Simulated [`tokio::fs::copy`](https://docs.rs/tokio/1/tokio/fs/fn.copy.html): copies the contents of `from` to `to`
/// (created or truncated); returns the number of bytes copied.
///
/// # Differences from tokio
///
/// Permissions are not copied (the simulated disk has none). The job sleeps
/// the disk's write latency once.
pub async fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<u64, std::io::Error> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(Disk::current(), IoOp::Write, move |fs, chooser| {
        fs.copy(&from, &to, chooser)
    })
    .await
}

macro_rules! meta_op {
    ($(#[$doc:meta])* $name:ident($($arg:ident),*) -> $ret:ty = $model:ident;) => {
        $(#[$doc])*
        pub async fn $name($($arg: impl AsRef<Path>),*) -> io::Result<$ret> {
            $(let $arg = $arg.as_ref().to_owned();)*
            asyncify(Disk::current(), IoOp::Meta, move |fs, _| fs.$model($(&$arg),*)).await
        }
    };
}

meta_op! {
    /// Simulated [`tokio::fs::create_dir`](https://docs.rs/tokio/1/tokio/fs/fn.create_dir.html): creates a directory.
    ///
    /// The new entry is durable once the parent directory is synced.
    ///
    /// # Errors
    ///
    /// `AlreadyExists` when the path exists, `NotFound` when the parent does
    /// not.
    ///
    /// # Differences from tokio
    ///
    /// None.
    create_dir(path) -> () = create_dir;
}

meta_op! {
    /// Simulated [`tokio::fs::create_dir_all`](https://docs.rs/tokio/1/tokio/fs/fn.create_dir_all.html): creates a directory and any
    /// missing parents; succeeds if it already exists.
    ///
    /// # Differences from tokio
    ///
    /// None.
    create_dir_all(path) -> () = create_dir_all;
}

meta_op! {
    /// Simulated [`tokio::fs::remove_file`](https://docs.rs/tokio/1/tokio/fs/fn.remove_file.html): removes a file's name (its data
    /// lives on while it is open).
    ///
    /// # Errors
    ///
    /// `NotFound`, or `IsADirectory` on a directory.
    ///
    /// # Differences from tokio
    ///
    /// None.
    remove_file(path) -> () = remove_file;
}

meta_op! {
    /// Simulated [`tokio::fs::remove_dir`](https://docs.rs/tokio/1/tokio/fs/fn.remove_dir.html): removes an empty directory.
    ///
    /// # Errors
    ///
    /// `NotFound`, `DirectoryNotEmpty`, `NotADirectory`.
    ///
    /// # Differences from tokio
    ///
    /// None.
    remove_dir(path) -> () = remove_dir;
}

meta_op! {
    /// Simulated [`tokio::fs::remove_dir_all`](https://docs.rs/tokio/1/tokio/fs/fn.remove_dir_all.html): removes a directory and
    /// everything in it.
    ///
    /// # Differences from tokio
    ///
    /// None.
    remove_dir_all(path) -> () = remove_dir_all;
}

meta_op! {
    /// Simulated [`tokio::fs::rename`](https://docs.rs/tokio/1/tokio/fs/fn.rename.html): renames a file or directory,
    /// replacing `to` if it exists (atomically in the volatile view).
    ///
    /// The rename becomes durable when the directories of both names are
    /// synced (each its half); until then a crash shows the old state.
    ///
    /// # Errors
    ///
    /// `NotFound`, `IsADirectory` (a file over a directory),
    /// `NotADirectory`, `DirectoryNotEmpty`, `InvalidInput` (a directory
    /// into itself).
    ///
    /// # Differences from tokio
    ///
    /// None.
    rename(from, to) -> () = rename;
}

meta_op! {
    /// Simulated [`tokio::fs::hard_link`](https://docs.rs/tokio/1/tokio/fs/fn.hard_link.html): a new name `link` for the file
    /// `original`.
    ///
    /// # Errors
    ///
    /// `NotFound`, `AlreadyExists`, `PermissionDenied` for a directory.
    ///
    /// # Differences from tokio
    ///
    /// None.
    hard_link(original, link) -> () = hard_link;
}

/// Simulated [`tokio::fs::metadata`](https://docs.rs/tokio/1/tokio/fs/fn.metadata.html): what `stat` says about a path.
///
/// # Errors
///
/// `NotFound`, `NotADirectory` (a component is a file).
///
/// # Differences from tokio
///
/// Returns the simulation's [`Metadata`] (see there), not
/// `std::fs::Metadata`.
pub async fn metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(Disk::current(), IoOp::Meta, move |fs, _| {
        fs.metadata(&path).map(Metadata::new)
    })
    .await
}

/// Simulated [`tokio::fs::symlink_metadata`](https://docs.rs/tokio/1/tokio/fs/fn.symlink_metadata.html): as [`metadata`], without
/// following a final symlink.
///
/// # Differences from tokio
///
/// The simulated disk has no symlinks, so this is [`metadata`]; returns the
/// simulation's [`Metadata`].
pub async fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    let path = path.as_ref().to_owned();
    asyncify(Disk::current(), IoOp::Meta, move |fs, _| {
        fs.symlink_metadata(&path).map(Metadata::new)
    })
    .await
}

meta_op! {
    /// Simulated [`tokio::fs::try_exists`](https://docs.rs/tokio/1/tokio/fs/fn.try_exists.html): `Ok(true)` if the path exists,
    /// `Ok(false)` if it does not, an error if that cannot be told (a
    /// component is a file: `NotADirectory`).
    ///
    /// # Differences from tokio
    ///
    /// None.
    try_exists(path) -> bool = try_exists;
}

meta_op! {
    /// Simulated [`tokio::fs::canonicalize`](https://docs.rs/tokio/1/tokio/fs/fn.canonicalize.html): the absolute path with `.`
    /// and `..` resolved.
    ///
    /// # Errors
    ///
    /// `NotFound` when the path does not exist.
    ///
    /// # Differences from tokio
    ///
    /// Relative paths start at the root `/` (the simulated host has no
    /// working directory); there are no symlinks to resolve.
    canonicalize(path) -> PathBuf = canonicalize;
}

/// Simulated [`tokio::fs::read_link`](https://docs.rs/tokio/1/tokio/fs/fn.read_link.html): the target of a symbolic link.
///
/// # Errors
///
/// `InvalidInput` (Linux's `EINVAL`) when the path exists, since it is
/// then never a symlink; `NotFound` when it does not exist,
/// `NotADirectory` when a component is a file.
///
/// # Panics
///
/// Outside a simulation.
///
/// # Differences from tokio
///
/// The simulated disk has no symlinks (see [`symlink`]), so this never
/// succeeds: it fails as Linux does on a path that is not a link.
pub async fn read_link(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref().to_owned();
    asyncify(Disk::current(), IoOp::Meta, move |fs, _| {
        fs.symlink_metadata(&path)?;
        Err(not_a_link())
    })
    .await
}

/// `EINVAL`, what `readlink(2)` returns on a path that is not a symlink.
fn not_a_link() -> io::Error {
    #[cfg(unix)]
    {
        io::Error::from_raw_os_error(libc::EINVAL)
    }
    #[cfg(not(unix))]
    {
        io::Error::new(io::ErrorKind::InvalidInput, "not a symbolic link")
    }
}

/// Simulated [`tokio::fs::set_permissions`](https://docs.rs/tokio/1/tokio/fs/fn.set_permissions.html): changes the permissions of a
/// file or directory.
///
/// # Errors
///
/// `NotFound` when the path does not exist, `NotADirectory` when a
/// component is a file.
///
/// # Panics
///
/// Outside a simulation.
///
/// # Differences from tokio
///
/// The simulated disk has no permissions: on an existing path this
/// succeeds and changes nothing (the simulation's [`Metadata`] has no
/// `permissions()` to report them).
pub async fn set_permissions(path: impl AsRef<Path>, perm: Permissions) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let _ = perm; // nowhere to keep it
    asyncify(Disk::current(), IoOp::Meta, move |fs, _| {
        fs.metadata(&path).map(drop)
    })
    .await
}

/// Simulated [`tokio::fs::symlink`](https://docs.rs/tokio/1/tokio/fs/fn.symlink.html): creates a symbolic link `link` to
/// `original`.
///
/// # Errors
///
/// Always `Unsupported` (see below).
///
/// # Panics
///
/// Outside a simulation.
///
/// # Differences from tokio
///
/// The simulated disk has no symlinks, so this always fails with
/// [`io::ErrorKind::Unsupported`] (after the blocking job, like any other
/// operation) and creates nothing. Use [`hard_link`] for a second name of a
/// file, or [`copy`].
#[cfg(unix)]
pub async fn symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (original, link) = (original.as_ref().to_owned(), link.as_ref().to_owned());
    asyncify(Disk::current(), IoOp::Meta, move |_, _| {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "sim_rt::fs::symlink({original:?}, {link:?}): the simulated disk has no \
                 symbolic links (use hard_link or copy instead)"
            ),
        ))
    })
    .await
}
