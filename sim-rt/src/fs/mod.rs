//! Simulated [`tokio::fs`](https://docs.rs/tokio/1/tokio/fs/index.html): files and directories on each host's simulated
//! disk, which loses what was not synced when the host crashes.
//!
//! Every host of the simulation (the main host included) has its own disk,
//! modelled by the `sim_fs` crate, over the real files as a read-only lower
//! layer (see [`RealFiles`](crate::sim::RealFiles): a path the disk does not
//! have shows the real file, and changing it copies it up first, so nothing
//! reaches the real disk). A task reads and writes the disk of its host; a
//! host sees only its own disk, through this module or, on Linux with
//! glibc, through `std::fs` and C code: inside a simulation sim-rt
//! interposes libc's file calls onto the same disk (the guide's "No
//! escape" chapter, `docs/src/no-escape.md`). The
//! API is tokio's: the free functions ([`read`], [`write()`], [`rename`],
//! [`create_dir_all`], [`read_dir`](read_dir()), ...), [`File`] (which implements
//! tokio's `AsyncRead`, `AsyncWrite` and `AsyncSeek`) and [`OpenOptions`],
//! with tokio's error kinds (in fact the raw OS errors Linux returns).
//!
//! # Durability
//!
//! Every change (a write, `set_len`, create, rename, remove, mkdir) is seen
//! at once by later reads on the host, and becomes **durable** only when
//! synced:
//!
//! - [`File::sync_all`]/[`File::sync_data`] make the file's data and length
//!   durable;
//! - a directory entry (a file created, renamed or removed) becomes durable
//!   when its directory is synced, `File::open(dir).await?.sync_all().await?`,
//!   as POSIX requires (or also with the file's own sync, under
//!   [`EntryDurability::FileSyncToo`](crate::sim::EntryDurability)).
//!
//! When a host is reset or stopped ([`sim::reset`](crate::sim::reset),
//! [`sim::stop`](crate::sim::stop), the fault injector), its disk crashes:
//! what was not durable is lost as the host's
//! [`CrashModel`](crate::sim::CrashModel) allows, and every open file dies.
//! By default nothing unsynced survives. A crash model that lets some
//! unsynced operations survive (a prefix, any subset, torn writes) turns
//! each possibility into a data choice of the scheduler
//! ([`ChoiceKind::DiskCrashPrefix`](crate::scheduler::ChoiceKind),
//! `DiskCrashKeep`, `DiskTornWrite`; option 0 is always "lost"), so an
//! explorer enumerates crash states as it enumerates interleavings. Injected
//! `EIO`s ([`Faults`](crate::sim::Faults)) are
//! [`ChoiceKind::DiskEio`](crate::scheduler::ChoiceKind) choices, which the
//! default scheduler takes with the configured probability.
//!
//! Configure disks with [`Builder::disk`](crate::runtime::Builder::disk)
//! (every host) or [`HostBuilder::disk`](crate::sim::HostBuilder::disk)
//! (one host).
//!
//! # Scheduling and time
//!
//! As in tokio, each operation runs as a blocking job (here a task of the
//! calling host), so each one is a scheduling point; a job first sleeps
//! the disk's configured [`Latency`](crate::sim::Latency) for its kind of
//! operation (zero by default).
//!
//! # Differences from tokio
//!
//! - `std::fs::Metadata`, `std::fs::FileType` and `std::fs::File` cannot be
//!   built outside the OS, so [`Metadata`] and [`FileType`] are the
//!   simulation's own types with the same methods; a real file cannot
//!   join the simulated disk nor a simulated file leave it:
//!   [`File::from_std`] (and `From`/`FromRawFd`) and [`File::into_std`]
//!   panic, [`File::try_into_std`] returns the file back, and a `File`'s
//!   raw fd is a placeholder on `/dev/null`.
//! - The disk has no symlinks, permissions, timestamps or working
//!   directory: [`symlink`] fails with `Unsupported`; [`read_link`] fails
//!   as on a path that is not a link (`InvalidInput`, or `NotFound`);
//!   [`set_permissions`], [`File::set_permissions`], [`File::set_times`]
//!   and [`File::set_modified`] succeed on an existing file and change
//!   nothing; [`DirBuilder::mode`] is recorded, not applied.
//! - A path function's job sleeps one latency, whatever it does.

mod blocking;
mod dir_builder;
mod fd;
mod file;
mod file_times;
mod metadata;
mod open_options;
mod ops;
mod read_dir;

pub use self::dir_builder::DirBuilder;
pub use self::file::File;
pub use self::file_times::FileTimes;
pub use self::metadata::{FileType, Metadata};
pub use self::open_options::OpenOptions;
#[cfg(unix)]
pub use self::ops::symlink;
pub use self::ops::{
    canonicalize, copy, create_dir, create_dir_all, hard_link, metadata, read, read_link,
    read_to_string, remove_dir, remove_dir_all, remove_file, rename, set_permissions,
    symlink_metadata, try_exists, write,
};
pub use self::read_dir::{read_dir, DirEntry, ReadDir};
