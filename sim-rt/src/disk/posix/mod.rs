//! libc's file-system calls, simulated: what `open`, `read`, `write`,
//! `fsync`, `stat`, `rename`, `readdir`... do inside a simulation, on the
//! calling task's host's disk (the `sim_fs` model under the real files'
//! lower layer, `disk/mod.rs`).
//!
//! The interposed libc functions (`intercept/linux/fs.rs`) are thin: each
//! checks that a simulation is current and calls the function of the same
//! name here, which answers with a [`Route`]: the real call (a descriptor
//! or path that is not the simulation's: stdout, `/proc`, `/dev/null`), the
//! real call on a path of the lower layer, or the simulated result. So
//! `std::fs`, `tempfile` and C code (SQLite) read and write the simulated
//! disk with the same durability model, crash choices and injected faults
//! as `tokio::fs`.
//!
//! # What goes where
//!
//! - Paths under `/proc`, `/sys` and `/dev` are real: the runtime, std and
//!   the allocator read them (`/proc/self/maps`, `/sys/fs/cgroup`,
//!   `/dev/null`), they hold no data a program stores, and the kernel
//!   answers them without touching the disk. Every other path is the
//!   host's disk.
//! - A descriptor in the [table](table) is the simulation's; any other is
//!   real (stdin, stdout, a socket, a file opened outside the simulation).
//! - A directory descriptor from outside the simulation used by an `*at`
//!   call is resolved to its path (`/proc/self/fd`), and that path is
//!   routed as above.
//!
//! # Semantics
//!
//! A call takes no simulated time and is not a scheduling point (the
//! calling task blocks the simulation while it runs, as a blocking call
//! blocks a tokio worker); the disk's latency applies to `tokio::fs` only.
//! Errors are the raw errnos Linux returns. The model has no permissions,
//! owners, timestamps or symlinks: `chmod`/`chown`/`utimensat` succeed and
//! change nothing, `stat` reports the calling user as owner, mode
//! `0644`/`0755` and [`WALL_CLOCK_EPOCH`](crate::sim::WALL_CLOCK_EPOCH) as
//! every timestamp, and `symlink` fails with `EPERM`. A socket's entry (a
//! simulated Unix socket bound to a path) stats as `S_IFSOCK | 0755`, lists
//! as `DT_SOCK` and does not open (`ENXIO`), as on Linux. `mkfifo` and
//! `mknod` with `S_IFIFO` make a FIFO's entry, which stats as
//! `S_IFIFO | 0644` and lists as `DT_FIFO`; opening it gives an end of
//! the host's pipe for it ([`pipe`]). `mknod` of a device or
//! a socket fails with `EPERM` (the caller adds a note). Locks (`flock`,
//! `fcntl` record locks) are always granted: one thread runs the
//! simulation, and hosts do not share disks. `O_SYNC`/`O_DSYNC` make each
//! write durable (`sync_data` after it). `O_TMPFILE` is `EOPNOTSUPP` (std
//! and `tempfile` then fall back to a named file).
//!
//! # Invariants
//!
//! - Nothing here panics on purpose; the interposed functions still catch
//!   a panic (a broken invariant of the runtime) and answer `EIO`.
//! - The disks are borrowed with `try_fs_op`; a call made while they are
//!   borrowed (from a destructor the runtime runs inside a disk operation)
//!   fails with `EIO` rather than panicking.
//! - No real call changes the real disk: real paths under the lower layer
//!   are opened `O_RDONLY` without `O_CREAT`/`O_TRUNC`, and every call that
//!   would change one is answered here.

pub(crate) mod dir;
pub(crate) mod ip;
pub(crate) mod pipe;
pub(crate) mod poll;
pub(crate) mod sock;
pub(crate) mod table;

use std::ffi::{c_int, CStr, CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use sim_fs::{FileType, Metadata, OpenOptions};

use self::table::{Kind, Open};
use super::{absolute, for_model, DiskSlot, Found, HostDisk, RealKind};
use crate::runtime::context;
use crate::runtime::world::{World, MAIN_HOST};
use crate::scheduler::HostId;

/// An errno.
pub(crate) type Errno = c_int;

/// What an interposed call does.
#[derive(Debug)]
pub(crate) enum Route<T> {
    /// The real call, with the caller's arguments.
    Real,
    /// The real call, on this absolute path of the lower layer (for a
    /// path argument; the directory descriptor is then `AT_FDCWD`).
    Lower(CString),
    /// The simulated result.
    Sim(Result<T, Errno>),
}

impl<T> Route<T> {
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Route<U> {
        match self {
            Route::Real => Route::Real,
            Route::Lower(p) => Route::Lower(p),
            Route::Sim(r) => Route::Sim(r.map(f)),
        }
    }
}

/// The errno of a model error (a custom error of std's checks is
/// `EINVAL`).
pub(crate) fn errno(e: &io::Error) -> Errno {
    e.raw_os_error().unwrap_or(libc::EINVAL)
}

/// The errno of a network model's error (its kinds, as Linux's errnos).
pub(crate) fn net_errno(e: &io::Error) -> Errno {
    use std::io::ErrorKind as K;
    e.raw_os_error().unwrap_or(match e.kind() {
        K::WouldBlock => libc::EAGAIN,
        K::ConnectionRefused => libc::ECONNREFUSED,
        K::ConnectionReset => libc::ECONNRESET,
        K::ConnectionAborted => libc::ECONNABORTED,
        K::BrokenPipe => libc::EPIPE,
        K::NotConnected => libc::ENOTCONN,
        K::AddrInUse => libc::EADDRINUSE,
        K::AddrNotAvailable => libc::EADDRNOTAVAIL,
        K::AlreadyExists => libc::EISCONN,
        K::TimedOut => libc::ETIMEDOUT,
        K::Unsupported => libc::EOPNOTSUPP,
        K::NotFound => libc::ENOENT,
        _ => libc::EINVAL,
    })
}

/// Runs `f` with interception off: the real libc.
pub(crate) fn real<R>(f: impl FnOnce() -> R) -> R {
    crate::intercept::without_interception(f)
}

fn last_errno() -> Errno {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// The current simulation and the calling task's host (the main host
/// outside any task).
fn here() -> Result<(Rc<World>, HostId), Errno> {
    let world = context::try_current_quiet().ok_or(libc::EIO)?;
    let host = world
        .core
        .try_borrow()
        .map_err(|_| libc::EIO)?
        .current
        .map_or(MAIN_HOST, |c| c.host);
    Ok((world, host))
}

/// The simulation `open` belongs to, if it is the current one.
fn world_of(open: &Open) -> Option<Rc<World>> {
    context::try_current_quiet().filter(|w| w.id == open.world)
}

/// Runs `f` on `host`'s disk of `world`.
fn on_disk<R>(
    world: &World,
    host: HostId,
    f: impl FnOnce(&mut HostDisk, &mut dyn sim_fs::Chooser) -> io::Result<R>,
) -> Result<R, Errno> {
    match world.try_fs_op(host, f) {
        Some(r) => r.map_err(|e| errno(&e)),
        None => Err(libc::EIO),
    }
}

/// A path argument resolved for the simulation.
#[derive(Debug)]
pub(crate) struct SimPath {
    /// Absolute and normalised: the key of the lower layer.
    pub(crate) abs: PathBuf,
    /// What the model is given (keeps a trailing `/`).
    pub(crate) model: PathBuf,
}

/// Whether absolute path `abs` is one the real libc answers.
fn is_real_path(abs: &Path) -> bool {
    let mut comps = abs.components().skip(1);
    matches!(
        comps.next().and_then(|c| c.as_os_str().to_str()),
        Some("proc" | "sys" | "dev")
    )
}

/// Resolves path argument `path` relative to `dirfd`: `Ok(None)` when the
/// real call should answer it.
pub(crate) fn sim_path(dirfd: c_int, path: &CStr) -> Result<Option<SimPath>, Errno> {
    let raw = Path::new(OsStr::from_bytes(path.to_bytes()));
    let full = if raw.is_absolute() || dirfd == libc::AT_FDCWD {
        raw.to_path_buf()
    } else {
        match table::get(dirfd) {
            Some(Open {
                kind: Kind::Sim { dir: true, .. },
                path,
                ..
            }) => path.join(raw),
            Some(_) => return Err(libc::ENOTDIR),
            None => match real_fd_path(dirfd) {
                Some(base) => base.join(raw),
                None => return Ok(None),
            },
        }
    };
    if raw.as_os_str().is_empty() {
        return Err(libc::ENOENT);
    }
    let abs = absolute(&full);
    if is_real_path(&abs) {
        return Ok(None);
    }
    Ok(Some(SimPath {
        model: for_model(&full),
        abs,
    }))
}

/// The path of a real directory descriptor.
fn real_fd_path(fd: c_int) -> Option<PathBuf> {
    real(|| std::fs::read_link(format!("/proc/self/fd/{fd}"))).ok()
}

fn c_path(abs: &Path) -> CString {
    CString::new(abs.as_os_str().as_bytes()).expect("paths from C strings hold no NUL")
}

/// A real descriptor on `/dev/null` at or above `min`: the number a
/// simulated descriptor is known by.
fn placeholder(min: c_int) -> Result<c_int, Errno> {
    // SAFETY: plain libc calls on a static path; the descriptors are ours.
    let fd = real(|| unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) });
    if fd < 0 {
        return Err(last_errno());
    }
    if fd >= min {
        return Ok(fd);
    }
    // SAFETY: as above.
    let moved = real(|| unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, min) });
    let err = last_errno();
    // SAFETY: `fd` is ours.
    real(|| unsafe { libc::close(fd) });
    if moved < 0 {
        return Err(err);
    }
    Ok(moved)
}

/// Closes simulated descriptor `sfd` of `host`'s disk.
fn close_sim(world: &World, host: HostId, sfd: sim_fs::Fd) {
    let _ = on_disk(world, host, |disk, _| {
        disk.fs.close(sfd);
        Ok(())
    });
}

/// A placeholder for simulated descriptor `sfd`, which is closed when
/// none can be opened.
fn placeholder_for(world: &World, host: HostId, sfd: sim_fs::Fd) -> Result<c_int, Errno> {
    placeholder(0).inspect_err(|_| close_sim(world, host, sfd))
}

/// Closes a real descriptor of ours.
fn close_real(fd: c_int) {
    // SAFETY: `fd` is a descriptor this module opened.
    real(|| unsafe { libc::close(fd) });
}

/// The status flags an open keeps.
const STATUS_FLAGS: c_int =
    libc::O_ACCMODE | libc::O_APPEND | libc::O_SYNC | libc::O_DSYNC | libc::O_NONBLOCK;

// ----- open and close ---------------------------------------------------------

/// `openat(dirfd, path, flags, mode)`.
pub(crate) fn open(dirfd: c_int, path: &CStr, flags: c_int) -> Route<c_int> {
    let p = match sim_path(dirfd, path) {
        Ok(Some(p)) => p,
        Ok(None) => return Route::Real,
        Err(e) => return Route::Sim(Err(e)),
    };
    Route::Sim(open_sim(&p, flags))
}

fn open_sim(p: &SimPath, flags: c_int) -> Result<c_int, Errno> {
    if flags & libc::O_TMPFILE == libc::O_TMPFILE {
        return Err(libc::EOPNOTSUPP);
    }
    let (world, host) = here()?;
    let acc = flags & libc::O_ACCMODE;
    let read = acc == libc::O_RDONLY || acc == libc::O_RDWR;
    let write = acc == libc::O_WRONLY || acc == libc::O_RDWR;
    let create = flags & libc::O_CREAT != 0;
    let exclusive = create && flags & libc::O_EXCL != 0;
    let truncate = flags & libc::O_TRUNC != 0;
    let want_dir = flags & libc::O_DIRECTORY != 0;
    let mut options = OpenOptions::new();
    options
        .syscall(true)
        .read(read || flags & libc::O_PATH != 0)
        .write(write)
        .append(flags & libc::O_APPEND != 0)
        .truncate(truncate)
        .create(create && !exclusive)
        .create_new(exclusive);
    enum Opened {
        Sim(sim_fs::Fd, bool),
        Lower,
        /// A FIFO's entry, by inode number: a pipe's end (`pipe.rs`).
        Fifo(u64),
    }
    let opened = on_disk(&world, host, |disk, _| {
        if write || create || truncate {
            disk.touch(&p.abs, false)?;
        } else {
            match disk.find(&p.abs) {
                Found::Lower(RealKind::File) if !want_dir => return Ok(Opened::Lower),
                Found::Lower(RealKind::Dir) => disk.copy_up(&p.abs, false)?,
                _ => {}
            }
        }
        if want_dir {
            match disk.fs.metadata(&p.model) {
                Ok(m) if !m.is_dir() => return Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
                Err(e) if !create => return Err(e),
                _ => {}
            }
        }
        if let Ok(m) = disk.fs.metadata(&p.model) {
            if m.is_fifo() && !exclusive && !want_dir && flags & libc::O_PATH == 0 {
                return Ok(Opened::Fifo(m.ino()));
            }
        }
        let fd = disk.open_model(&p.model, &options)?;
        let dir = disk.fs.file_metadata(fd)?.is_dir();
        Ok(Opened::Sim(fd, dir))
    })?;
    let cloexec = flags & libc::O_CLOEXEC != 0;
    match opened {
        Opened::Fifo(ino) => pipe::open_fifo(&world, host, ino, flags),
        Opened::Lower => {
            let keep = libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOATIME | libc::O_NOFOLLOW;
            let cpath = c_path(&p.abs);
            // SAFETY: a read-only open of a NUL-terminated path.
            let fd =
                real(|| unsafe { libc::open(cpath.as_ptr(), libc::O_RDONLY | (flags & keep)) });
            if fd < 0 {
                return Err(last_errno());
            }
            table::insert(
                fd,
                Open {
                    world: world.id,
                    host,
                    kind: Kind::Lower,
                    path: p.abs.clone(),
                    flags: flags & STATUS_FLAGS,
                    cloexec,
                    dir_pos: 0,
                },
            );
            Ok(fd)
        }
        Opened::Sim(sfd, dir) => {
            let fd = placeholder_for(&world, host, sfd)?;
            table::insert(
                fd,
                Open {
                    world: world.id,
                    host,
                    kind: Kind::Sim { fd: sfd, dir },
                    path: p.abs.clone(),
                    flags: flags & STATUS_FLAGS,
                    cloexec,
                    dir_pos: 0,
                },
            );
            Ok(fd)
        }
    }
}

/// Closes the simulated side of `fd`'s entry, if it has one; the caller
/// closes the real number.
pub(crate) fn forget(fd: c_int) {
    if let Some(open) = table::remove(fd) {
        if let (Kind::Sim { fd: sfd, .. }, Some(world)) = (open.kind, world_of(&open)) {
            close_sim(&world, open.host, sfd);
        }
        sock::closed(&open, fd);
        ip::closed(&open, fd);
        pipe::closed(&open);
    }
}

/// `close(fd)`: forgets the simulated file; the real number is closed by
/// the caller (always [`Route::Real`]).
pub(crate) fn close(fd: c_int) -> Route<c_int> {
    forget(fd);
    Route::Real
}

/// `dup`/`F_DUPFD`: a new descriptor at or above `min` sharing `fd`'s
/// open file description.
pub(crate) fn dup(fd: c_int, min: c_int, cloexec: bool) -> Route<c_int> {
    let Some(open) = table::get(fd) else {
        return Route::Real;
    };
    Route::Sim(dup_entry(fd, &open, min, cloexec, None))
}

/// Makes a copy of entry `open` (of descriptor `fd`) at a new real number
/// (at or above `min`, or exactly `at`).
fn dup_entry(
    fd: c_int,
    open: &Open,
    min: c_int,
    cloexec: bool,
    at: Option<c_int>,
) -> Result<c_int, Errno> {
    let new_fd = match at {
        // SAFETY: dup3 of our own descriptor onto the caller's number.
        Some(at) => {
            let r = real(|| unsafe { libc::dup3(fd, at, libc::O_CLOEXEC) });
            if r < 0 {
                return Err(last_errno());
            }
            r
        }
        None => match open.kind {
            Kind::Sim { .. } => placeholder(min)?,
            Kind::Lower | Kind::Unix { .. } | Kind::Ip { .. } | Kind::Pipe { .. } => {
                // SAFETY: duplicating our own descriptor.
                let r = real(|| unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, min) });
                if r < 0 {
                    return Err(last_errno());
                }
                r
            }
        },
    };
    let kind = match open.kind {
        Kind::Sim { fd: sfd, dir } => {
            let world = world_of(open).ok_or(libc::EBADF);
            let cloned =
                world.and_then(|w| on_disk(&w, open.host, |disk, _| disk.fs.try_clone(sfd)));
            match cloned {
                Ok(new) => Kind::Sim { fd: new, dir },
                Err(e) => {
                    close_real(new_fd);
                    return Err(e);
                }
            }
        }
        Kind::Pipe { id, read, write } => {
            // A new descriptor is a new end of the pipe.
            if let Some(world) = world_of(open) {
                world.net_op(|net, _| net.pipe_open(id, read, write));
            }
            open.kind
        }
        other => other,
    };
    table::insert(
        new_fd,
        Open {
            kind,
            cloexec,
            dir_pos: 0,
            ..open.clone()
        },
    );
    Ok(new_fd)
}

/// `dup3(old, new, flags)` (and `dup2`, with `flags` 0).
pub(crate) fn dup3(old: c_int, new: c_int, flags: c_int) -> Route<c_int> {
    let old_open = table::get(old);
    if old_open.is_none() {
        if table::get(new).is_some() {
            forget(new);
        }
        return Route::Real;
    }
    let open = old_open.expect("checked above");
    if old == new {
        return Route::Sim(Ok(new));
    }
    forget(new);
    Route::Sim(dup_entry(
        old,
        &open,
        0,
        flags & libc::O_CLOEXEC != 0,
        Some(new),
    ))
}

// ----- reading and writing ----------------------------------------------------

/// What a descriptor of the table leads to.
enum File {
    /// A real file of the lower layer.
    Lower,
    /// A file (or directory, `true`) of a disk of `world`.
    Sim(Rc<World>, sim_fs::Fd, bool),
}

/// The file behind `fd`: `None` when it is not the current simulation's
/// (the real call then acts on the placeholder).
fn sim_file(fd: c_int) -> Option<(Open, File)> {
    let open = table::get(fd)?;
    match open.kind {
        Kind::Lower => Some((open, File::Lower)),
        Kind::Sim { fd: sfd, dir } => {
            let world = world_of(&open)?;
            Some((open, File::Sim(world, sfd, dir)))
        }
        Kind::Unix { .. } | Kind::Ip { .. } | Kind::Pipe { .. } => None,
    }
}

/// `read`/`pread` (`offset` given).
pub(crate) fn read(fd: c_int, buf: &mut [u8], offset: Option<u64>) -> Route<usize> {
    // One lookup: a socket or a pipe end reads through its own layer.
    match table::kind(fd) {
        Some(Kind::Unix { .. } | Kind::Ip { .. } | Kind::Pipe { .. }) if offset.is_some() => {
            return Route::Sim(Err(libc::ESPIPE));
        }
        Some(Kind::Unix { .. }) => return sock::recv(fd, buf, 0).map(|(n, _)| n),
        Some(Kind::Ip { .. }) => return ip::recv(fd, buf, 0).map(|(n, _)| n),
        Some(Kind::Pipe { .. }) => {
            return match pipe::end_of(fd) {
                Some(end) => pipe::read(end, buf),
                None => Route::Real,
            }
        }
        _ => {}
    }
    let Some((open, file)) = sim_file(fd) else {
        return Route::Real;
    };
    let File::Sim(world, sfd, dir) = file else {
        return Route::Real; // the lower layer's real file
    };
    if dir {
        return Route::Sim(Err(libc::EISDIR));
    }
    Route::Sim(on_disk(&world, open.host, |disk, chooser| match offset {
        Some(offset) => disk.fs.read_at(sfd, offset, buf, chooser),
        None => disk.fs.read(sfd, buf, chooser),
    }))
}

/// `write`/`pwrite` (`offset` given).
pub(crate) fn write(fd: c_int, buf: &[u8], offset: Option<u64>) -> Route<usize> {
    // One lookup: a socket or a pipe end writes through its own layer.
    match table::kind(fd) {
        Some(Kind::Unix { .. } | Kind::Ip { .. } | Kind::Pipe { .. }) if offset.is_some() => {
            return Route::Sim(Err(libc::ESPIPE));
        }
        Some(Kind::Unix { .. }) => return sock::send(fd, buf, 0, None),
        Some(Kind::Ip { .. }) => return ip::send(fd, buf, 0, None),
        Some(Kind::Pipe { .. }) => {
            return match pipe::end_of(fd) {
                Some(end) => pipe::write(end, buf),
                None => Route::Real,
            }
        }
        _ => {}
    }
    let Some((open, file)) = sim_file(fd) else {
        return Route::Real;
    };
    let File::Sim(world, sfd, _) = file else {
        return Route::Sim(Err(libc::EBADF)); // read-only lower file
    };
    let sync = open.flags & (libc::O_SYNC | libc::O_DSYNC) != 0;
    Route::Sim(on_disk(&world, open.host, |disk, chooser| {
        let n = match offset {
            Some(offset) => disk.fs.write_at(sfd, offset, buf, chooser)?,
            None => disk.fs.write(sfd, buf, chooser)?,
        };
        if sync {
            disk.fs.sync_data(sfd, chooser)?;
        }
        Ok(n)
    }))
}

/// The whole of `len` bytes at `offset` of `fd`'s file, for a private
/// `mmap` of a simulated file.
pub(crate) fn read_for_map(fd: c_int, offset: u64, len: usize) -> Route<Vec<u8>> {
    let mut buf = vec![0; len];
    match read(fd, &mut buf, Some(offset)) {
        Route::Sim(Ok(_)) => Route::Sim(Ok(buf)),
        other => other.map(|_| Vec::new()),
    }
}

/// A new descriptor of the model sharing simulated descriptor `fd`'s open
/// file description, for `tokio::fs::File::from_std` of a `std::fs::File`
/// opened inside the simulation: the simulation's id, the host, the
/// descriptor. `None` for any other descriptor.
pub(crate) fn adopt(fd: c_int) -> Option<(u64, HostId, sim_fs::Fd, PathBuf)> {
    let (open, file) = sim_file(fd)?;
    let File::Sim(world, sfd, _) = file else {
        return None;
    };
    let new = on_disk(&world, open.host, |disk, _| disk.fs.try_clone(sfd)).ok()?;
    Some((world.id, open.host, new, open.path))
}

/// The other way, for `tokio::fs::File::into_std`: a real descriptor
/// number (a placeholder) for a new descriptor of simulation `runtime`'s
/// host `host` sharing `sfd`'s open file description, so that the std file
/// made of it reads and writes the simulated file through the interposed
/// calls. `EBADF` outside that simulation or for a descriptor the disk no
/// longer knows (its host crashed).
pub(crate) fn hand_over(
    runtime: u64,
    host: HostId,
    sfd: sim_fs::Fd,
    path: &Path,
) -> Result<c_int, Errno> {
    let world = context::try_current_quiet()
        .filter(|w| w.id == runtime)
        .ok_or(libc::EBADF)?;
    let (new, access, dir) = on_disk(&world, host, |disk, _| {
        let access = disk.fs.access(sfd)?;
        let dir = disk.fs.file_metadata(sfd)?.is_dir();
        Ok((disk.fs.try_clone(sfd)?, access, dir))
    })?;
    let fd = placeholder_for(&world, host, new)?;
    let mode = match (access.read, access.write) {
        (true, true) => libc::O_RDWR,
        (false, true) => libc::O_WRONLY,
        _ => libc::O_RDONLY,
    };
    let append = if access.append { libc::O_APPEND } else { 0 };
    table::insert(
        fd,
        Open {
            world: runtime,
            host,
            kind: Kind::Sim { fd: new, dir },
            path: path.to_path_buf(),
            flags: mode | append,
            cloexec: true,
            dir_pos: 0,
        },
    );
    Ok(fd)
}

/// Whether `fd` is a simulated file (not the lower layer's).
pub(crate) fn is_sim_file(fd: c_int) -> bool {
    matches!(
        table::get(fd),
        Some(Open {
            kind: Kind::Sim { .. },
            ..
        })
    )
}

/// Whether `fd` is in the table (simulated or the lower layer's).
pub(crate) fn is_sim(fd: c_int) -> bool {
    table::get(fd).is_some()
}

/// `lseek`.
pub(crate) fn lseek(fd: c_int, offset: i64, whence: c_int) -> Route<u64> {
    let Some((open, file)) = sim_file(fd) else {
        return Route::Real;
    };
    let File::Sim(world, sfd, _) = file else {
        return Route::Real;
    };
    let pos = match whence {
        libc::SEEK_SET if offset >= 0 => std::io::SeekFrom::Start(offset as u64),
        libc::SEEK_CUR => std::io::SeekFrom::Current(offset),
        libc::SEEK_END => std::io::SeekFrom::End(offset),
        _ => return Route::Sim(Err(libc::EINVAL)),
    };
    Route::Sim(on_disk(&world, open.host, |disk, _| disk.fs.seek(sfd, pos)))
}

/// `fsync` (`data_only`: `fdatasync`).
pub(crate) fn fsync(fd: c_int, data_only: bool) -> Route<()> {
    let Some((open, file)) = sim_file(fd) else {
        return Route::Real;
    };
    let File::Sim(world, sfd, _) = file else {
        return Route::Sim(Ok(())); // nothing of the lower layer is dirty
    };
    Route::Sim(on_disk(&world, open.host, |disk, chooser| {
        if data_only {
            disk.fs.sync_data(sfd, chooser)
        } else {
            disk.fs.sync_all(sfd, chooser)
        }
    }))
}

/// `ftruncate`.
pub(crate) fn ftruncate(fd: c_int, len: i64) -> Route<()> {
    let Some((open, file)) = sim_file(fd) else {
        return Route::Real;
    };
    let File::Sim(world, sfd, _) = file else {
        return Route::Sim(Err(libc::EINVAL)); // not open for writing
    };
    if len < 0 {
        return Route::Sim(Err(libc::EINVAL));
    }
    Route::Sim(
        on_disk(&world, open.host, |disk, chooser| {
            disk.fs.set_len(sfd, len as u64, chooser)
        })
        .map_err(|e| if e == libc::EBADF { libc::EINVAL } else { e }),
    )
}

/// `posix_fallocate`/`fallocate` with mode 0: makes the file at least
/// `offset + len` long.
pub(crate) fn fallocate(fd: c_int, offset: i64, len: i64) -> Route<()> {
    let Some((open, file)) = sim_file(fd) else {
        return Route::Real;
    };
    let File::Sim(world, sfd, _) = file else {
        return Route::Sim(Err(libc::EBADF));
    };
    if offset < 0 || len <= 0 {
        return Route::Sim(Err(libc::EINVAL));
    }
    let end = (offset + len) as u64;
    Route::Sim(on_disk(&world, open.host, |disk, chooser| {
        if disk.fs.file_metadata(sfd)?.len() < end {
            disk.fs.set_len(sfd, end, chooser)?;
        }
        Ok(())
    }))
}

/// The calls that are accepted and change nothing on a simulated or
/// lower-layer descriptor (`flock`, `fchmod`, `fchown`, `futimens`,
/// `sync_file_range`, `posix_fadvise`).
pub(crate) fn accept_fd(fd: c_int) -> Route<()> {
    match sim_file(fd) {
        None => Route::Real,
        Some(_) => Route::Sim(Ok(())),
    }
}

/// The status-flag and lock commands of `fcntl` (`F_DUPFD*` go to
/// [`dup`]). `lock` is the `struct flock` of the lock commands.
pub(crate) fn fcntl(fd: c_int, cmd: c_int, arg: libc::c_long) -> Route<c_int> {
    let Some(open) = table::get(fd) else {
        return Route::Real;
    };
    match cmd {
        libc::F_DUPFD => dup(fd, arg as c_int, false),
        libc::F_DUPFD_CLOEXEC => dup(fd, arg as c_int, true),
        libc::F_GETFD => Route::Sim(Ok(if open.cloexec { libc::FD_CLOEXEC } else { 0 })),
        libc::F_SETFD => {
            table::update(fd, |o| o.cloexec = arg as c_int & libc::FD_CLOEXEC != 0);
            Route::Sim(Ok(0))
        }
        libc::F_GETFL => Route::Sim(Ok(open.flags)),
        libc::F_SETFL => {
            let changeable = libc::O_NONBLOCK;
            table::update(fd, |o| {
                o.flags = (o.flags & !changeable) | (arg as c_int & changeable);
            });
            Route::Sim(Ok(0))
        }
        libc::F_GETLK | libc::F_OFD_GETLK => {
            let lock = arg as *mut libc::flock;
            if lock.is_null() {
                return Route::Sim(Err(libc::EFAULT));
            }
            // SAFETY: the caller passes a `struct flock` for these commands.
            unsafe { (*lock).l_type = libc::F_UNLCK as _ };
            Route::Sim(Ok(0))
        }
        libc::F_SETLK | libc::F_SETLKW | libc::F_OFD_SETLK | libc::F_OFD_SETLKW => {
            Route::Sim(Ok(0))
        }
        _ if open.kind == Kind::Lower => Route::Real,
        _ => Route::Sim(Err(libc::EINVAL)),
    }
}

// ----- metadata ------------------------------------------------------------------

/// What `stat` reports of a simulated file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stat {
    pub(crate) dev_minor: u32,
    pub(crate) ino: u64,
    pub(crate) mode: u32,
    pub(crate) nlink: u64,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) size: u64,
    pub(crate) blocks: u64,
    /// Every timestamp, seconds since the Unix epoch.
    pub(crate) time: i64,
}

/// The minor device number of the first simulation's first host's disk:
/// major 0 (no real device), minor 0x5100, plus the host's index, plus
/// [`SLOT_MINORS`] times the simulation's [`DiskSlot`].
const DEV_MINOR_BASE: u32 = 0x5100;
/// Minor numbers per simulation: room for this many hosts.
const SLOT_MINORS: u32 = 0x1_0000;

fn stat_of(world: &World, host: HostId, m: &Metadata) -> Stat {
    let slot = world.disk_slot.get_or_init(DiskSlot::take).index();
    // The mode `mkdir`, `creat`, `bind` and `mkfifo` give under the usual
    // umask.
    let (mode, blocks) = match m.file_type() {
        FileType::Dir => (libc::S_IFDIR | 0o755, 8),
        FileType::File => (libc::S_IFREG | 0o644, m.len().div_ceil(512)),
        FileType::Socket => (libc::S_IFSOCK | 0o755, 0),
        FileType::Fifo => (libc::S_IFIFO | 0o644, 0),
    };
    Stat {
        dev_minor: DEV_MINOR_BASE
            .wrapping_add(slot.wrapping_mul(SLOT_MINORS))
            .wrapping_add(host.index() as u32),
        ino: m.ino(),
        mode,
        nlink: m.nlink(),
        // SAFETY: getuid/getgid cannot fail.
        uid: unsafe { libc::getuid() },
        gid: unsafe { libc::getgid() },
        size: m.len(),
        blocks,
        time: crate::intercept::WALL_CLOCK_EPOCH.as_secs() as i64,
    }
}

/// `fstat`.
pub(crate) fn fstat(fd: c_int) -> Route<Stat> {
    let Some((open, file)) = sim_file(fd) else {
        return Route::Real;
    };
    let File::Sim(world, sfd, _) = file else {
        return Route::Real;
    };
    Route::Sim(
        on_disk(&world, open.host, |disk, _| disk.fs.file_metadata(sfd))
            .map(|m| stat_of(&world, open.host, &m)),
    )
}

/// `fstatat(dirfd, path, flags)` (`stat`, `lstat`, `statx`): the model
/// has no symlinks, so `AT_SYMLINK_NOFOLLOW` changes nothing.
pub(crate) fn stat_at(dirfd: c_int, path: &CStr, flags: c_int) -> Route<Stat> {
    if path.is_empty() && flags & libc::AT_EMPTY_PATH != 0 {
        return if dirfd == libc::AT_FDCWD {
            stat_at(dirfd, c".", 0)
        } else {
            fstat(dirfd)
        };
    }
    with_path(dirfd, path, |world, host, p| {
        let found = on_disk(world, host, |disk, _| Ok(disk.find(&p.abs)));
        match found {
            Err(e) => Route::Sim(Err(e)),
            Ok(Found::Lower(_)) => Route::Lower(c_path(&p.abs)),
            Ok(_) => Route::Sim(
                on_disk(world, host, |disk, _| disk.fs.metadata(&p.model))
                    .map(|m| stat_of(world, host, &m)),
            ),
        }
    })
}

/// Resolves a path argument and runs `f` on it in the current simulation.
fn with_path<T>(
    dirfd: c_int,
    path: &CStr,
    f: impl FnOnce(&World, HostId, &SimPath) -> Route<T>,
) -> Route<T> {
    let p = match sim_path(dirfd, path) {
        Ok(Some(p)) => p,
        Ok(None) => return Route::Real,
        Err(e) => return Route::Sim(Err(e)),
    };
    match here() {
        Ok((world, host)) => f(&world, host, &p),
        Err(e) => Route::Sim(Err(e)),
    }
}

/// `faccessat`, and the path calls that succeed on any existing path and
/// change nothing (`chmod`, `chown`, `utimensat`): the model grants every
/// access and keeps no owners, modes or times.
pub(crate) fn exists_at(dirfd: c_int, path: &CStr) -> Route<()> {
    with_path(dirfd, path, |world, host, p| {
        Route::Sim(on_disk(world, host, |disk, _| match disk.find(&p.abs) {
            Found::Missing => disk.fs.metadata(&p.model).map(drop),
            _ => Ok(()),
        }))
    })
}

/// `readlinkat`: the model has no symlinks (`EINVAL` on what it holds);
/// the lower layer's real links read as they are.
pub(crate) fn readlink_at(dirfd: c_int, path: &CStr) -> Route<()> {
    with_path(dirfd, path, |world, host, p| {
        match on_disk(world, host, |disk, _| Ok(disk.find(&p.abs))) {
            Err(e) => Route::Sim(Err(e)),
            Ok(Found::Lower(_)) => Route::Lower(c_path(&p.abs)),
            Ok(Found::Sim(_)) => Route::Sim(Err(libc::EINVAL)),
            Ok(Found::Missing) => Route::Sim(
                on_disk(world, host, |disk, _| disk.fs.metadata(&p.model).map(drop))
                    .and(Err(libc::ENOENT)),
            ),
        }
    })
}

/// `realpath`: the absolute path without `.`, `..` or repeated `/`, if
/// it exists.
pub(crate) fn realpath(path: &CStr) -> Route<PathBuf> {
    with_path(libc::AT_FDCWD, path, |world, host, p| {
        Route::Sim(on_disk(world, host, |disk, _| match disk.find(&p.abs) {
            Found::Missing => disk.fs.metadata(&p.model).map(|_| p.abs.clone()),
            _ => Ok(p.abs.clone()),
        }))
    })
}

// ----- directories and names ------------------------------------------------------

/// `mkdirat`.
pub(crate) fn mkdir_at(dirfd: c_int, path: &CStr) -> Route<()> {
    with_path(dirfd, path, |world, host, p| {
        Route::Sim(on_disk(world, host, |disk, _| {
            disk.touch(&p.abs, false)?;
            disk.fs.create_dir(&p.model)
        }))
    })
}

/// `unlinkat` (`AT_REMOVEDIR`: `rmdir`).
pub(crate) fn unlink_at(dirfd: c_int, path: &CStr, flags: c_int) -> Route<()> {
    let dir = flags & libc::AT_REMOVEDIR != 0;
    with_path(dirfd, path, |world, host, p| {
        Route::Sim(on_disk(world, host, |disk, _| {
            disk.touch(&p.abs, dir)?;
            if dir {
                disk.fs.remove_dir(&p.model)
            } else {
                disk.fs.remove_file(&p.model)
            }
        }))
    })
}

/// `truncate`: `EINVAL` on a socket or a FIFO, as Linux (which opens
/// nothing).
pub(crate) fn truncate(path: &CStr, len: i64) -> Route<()> {
    with_path(libc::AT_FDCWD, path, |world, host, p| {
        if len < 0 {
            return Route::Sim(Err(libc::EINVAL));
        }
        Route::Sim(on_disk(world, host, |disk, chooser| {
            disk.touch(&p.abs, false)?;
            if disk
                .fs
                .metadata(&p.model)
                .is_ok_and(|m| m.is_socket() || m.is_fifo())
            {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            let fd = disk.fs.open(&p.model, OpenOptions::new().write(true))?;
            let r = disk.fs.set_len(fd, len as u64, chooser);
            disk.fs.close(fd);
            r
        }))
    })
}

/// Two path arguments, both the simulation's, or `Err` with what to
/// answer.
fn two_paths(
    olddirfd: c_int,
    old: &CStr,
    newdirfd: c_int,
    new: &CStr,
) -> Result<(SimPath, SimPath), Route<()>> {
    let a = sim_path(olddirfd, old).map_err(|e| Route::Sim(Err(e)))?;
    let b = sim_path(newdirfd, new).map_err(|e| Route::Sim(Err(e)))?;
    match (a, b) {
        (Some(a), Some(b)) => Ok((a, b)),
        (None, None) => Err(Route::Real),
        // One path on the simulated disk, one real: different devices.
        _ => Err(Route::Sim(Err(libc::EXDEV))),
    }
}

/// `renameat2` (`flags` 0: `rename`, `renameat`). `RENAME_NOREPLACE` is
/// honoured; `RENAME_EXCHANGE` and `RENAME_WHITEOUT` are `EINVAL`, as on a
/// file system without them.
pub(crate) fn rename_at(
    olddirfd: c_int,
    old: &CStr,
    newdirfd: c_int,
    new: &CStr,
    flags: libc::c_uint,
) -> Route<()> {
    let (a, b) = match two_paths(olddirfd, old, newdirfd, new) {
        Ok(paths) => paths,
        Err(route) => return route,
    };
    if flags & !libc::RENAME_NOREPLACE != 0 {
        return Route::Sim(Err(libc::EINVAL));
    }
    let (world, host) = match here() {
        Ok(h) => h,
        Err(e) => return Route::Sim(Err(e)),
    };
    Route::Sim(on_disk(&world, host, |disk, _| {
        if flags & libc::RENAME_NOREPLACE != 0 && disk.find(&b.abs) != Found::Missing {
            return Err(io::Error::from_raw_os_error(libc::EEXIST));
        }
        disk.touch(&a.abs, true)?;
        disk.touch(&b.abs, true)?;
        disk.fs.rename(&a.model, &b.model)
    }))
}

/// `linkat`.
pub(crate) fn link_at(olddirfd: c_int, old: &CStr, newdirfd: c_int, new: &CStr) -> Route<()> {
    let (a, b) = match two_paths(olddirfd, old, newdirfd, new) {
        Ok(paths) => paths,
        Err(route) => return route,
    };
    let (world, host) = match here() {
        Ok(h) => h,
        Err(e) => return Route::Sim(Err(e)),
    };
    Route::Sim(on_disk(&world, host, |disk, _| {
        disk.touch(&a.abs, false)?;
        disk.touch(&b.abs, false)?;
        disk.fs.hard_link(&a.model, &b.model)
    }))
}

/// `symlinkat`: the model has no symlinks.
pub(crate) fn symlink_at(dirfd: c_int, path: &CStr) -> Route<()> {
    with_path(dirfd, path, |_, _, _| Route::Sim(Err(libc::EPERM)))
}

/// `mknodat` (and `mkfifoat`, which is `mknodat` with `S_IFIFO`), by the
/// node's type, as Linux checks it before the path: a FIFO's entry
/// ([`HostDisk::make_fifo`]); an empty regular file for `S_IFREG` or no
/// type (POSIX's zero type); `EPERM` for a character or block device or a
/// socket (the disk has none: the caller says why) and for a directory, as
/// Linux; `EINVAL` for any other type. The permission bits are ignored:
/// the disk keeps no modes.
pub(crate) fn mknod_at(dirfd: c_int, path: &CStr, mode: libc::mode_t) -> Route<()> {
    with_path(dirfd, path, |world, host, p| match mode & libc::S_IFMT {
        libc::S_IFIFO => Route::Sim(on_disk(world, host, |disk, _| {
            disk.make_fifo(&p.model).map(drop)
        })),
        0 | libc::S_IFREG => Route::Sim(on_disk(world, host, |disk, _| {
            disk.touch(&p.abs, false)?;
            let new = *OpenOptions::new().write(true).create_new(true);
            match disk.fs.open(&p.model, &new) {
                Ok(fd) => {
                    disk.fs.close(fd);
                    Ok(())
                }
                // `open` says `EISDIR` for a trailing `/` on nothing
                // (it would have to make a directory); `mknod` says
                // `ENOENT`, as it does for `mkfifo`.
                Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
                    Err(io::Error::from_raw_os_error(libc::ENOENT))
                }
                Err(e) => Err(e),
            }
        })),
        libc::S_IFCHR | libc::S_IFBLK | libc::S_IFSOCK | libc::S_IFDIR => {
            Route::Sim(Err(libc::EPERM))
        }
        _ => Route::Sim(Err(libc::EINVAL)),
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};

    use crate::runtime::world::MAIN_HOST;
    use crate::runtime::{context, Builder};

    /// What a program sees of a socket's entry, through the interposed
    /// libc calls (`std::fs`) and through `tokio::fs`. The entry is bound
    /// with the crate's own call, as the simulated Unix sockets bind it.
    #[test]
    fn a_socket_entry_stats_lists_and_refuses_to_open_as_on_linux() {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            std::fs::create_dir_all("/run/app").unwrap();
            std::fs::write("/run/app/f", b"x").unwrap();
            let ino = context::current()
                .fs_op(MAIN_HOST, |disk, _| disk.bind_socket("/run/app/s"))
                .unwrap();

            let m = std::fs::metadata("/run/app/s").unwrap();
            assert!(m.file_type().is_socket());
            assert!(!m.is_file() && !m.is_dir());
            assert_eq!(m.len(), 0);
            assert_eq!(m.permissions().mode() & 0o777, 0o755);
            assert_eq!(std::os::unix::fs::MetadataExt::ino(&m), ino);
            let listed: Vec<_> = std::fs::read_dir("/run/app")
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    (e.file_name(), e.file_type().unwrap().is_socket())
                })
                .collect();
            assert_eq!(listed, [("f".into(), false), ("s".into(), true)]);
            for open in [
                std::fs::File::open("/run/app/s"),
                std::fs::File::create("/run/app/s"),
            ] {
                assert_eq!(open.unwrap_err().raw_os_error(), Some(libc::ENXIO));
            }
            let copied = std::fs::copy("/run/app/s", "/run/app/c");
            assert_eq!(copied.unwrap_err().raw_os_error(), Some(libc::ENXIO));
            // SAFETY: a NUL-terminated path.
            let truncated = unsafe { libc::truncate(c"/run/app/s".as_ptr(), 0) };
            let err = std::io::Error::last_os_error().raw_os_error();
            assert_eq!((truncated, err), (-1, Some(libc::EINVAL)));

            let m = crate::fs::metadata("/run/app/s").await.unwrap();
            assert!(m.file_type().is_socket() && !m.is_file());
            assert_eq!((m.ino(), m.len()), (ino, 0));
            let mut dir = crate::fs::read_dir("/run/app").await.unwrap();
            let mut kinds = Vec::new();
            while let Some(e) = dir.next_entry().await.unwrap() {
                kinds.push((e.file_name(), e.file_type().await.unwrap().is_socket()));
            }
            assert_eq!(kinds, [("f".into(), false), ("s".into(), true)]);
            let open = crate::fs::File::open("/run/app/s").await;
            assert_eq!(open.unwrap_err().raw_os_error(), Some(libc::ENXIO));
            let read = crate::fs::read("/run/app/s").await;
            assert_eq!(read.unwrap_err().raw_os_error(), Some(libc::ENXIO));

            std::fs::remove_file("/run/app/s").unwrap();
            let again =
                context::current().fs_op(MAIN_HOST, |disk, _| disk.socket_ino("/run/app/s"));
            assert_eq!(again.unwrap_err().raw_os_error(), Some(libc::ENOENT));
        });
    }
}
