//! The interposed file-system functions of libc: inside a simulation, the
//! calling task's host's simulated disk (`crate::disk::posix` says what each
//! call does there); outside one, libc's own function, unchanged.
//!
//! Each function checks [`in_simulation`] first (one thread-local read),
//! then asks `posix` for a [`Route`]: the real call with the caller's
//! arguments, the real call on a path of the real files' read-only lower
//! layer, or the simulated answer (a value, or `-1` and `errno`).
//!
//! These are the names std calls on glibc 2.33+ (`open64`, `openat64`,
//! `statx`, `fstat64`, `readdir64`, `fdopendir`, `copy_file_range`...),
//! the names C code calls (`open`, `stat`, `readdir`, `pread`, `fcntl`...),
//! and the fortified `__open_2` family. glibc's own stdio (`fopen`) opens
//! files through internal calls that cannot be interposed.
//!
//! # Invariants
//!
//! As the parent module's: nothing unwinds out of these functions (a panic
//! of the simulation side is caught and answered with `EIO`); the path
//! outside a simulation is one thread-local read, then the forward (plus
//! one more for `close`, `dup2`/`dup3` and the `DIR` functions, which also
//! look after simulated descriptors and streams used outside their
//! simulation).

use std::ffi::{c_char, c_int, c_long, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicPtr;

use libc::{dirent64, iovec, loff_t, mode_t, off64_t, off_t, size_t, ssize_t, DIR};

use super::{next, set_errno};
use crate::disk::posix::{self, dir, Route, Stat};
use crate::intercept::refuse;
use crate::switches::{in_simulation, Escape};

/// Runs the simulated side of a call, turning a panic into `EIO`.
fn guarded<T>(f: impl FnOnce() -> Route<T>) -> Route<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(Route::Sim(Err(libc::EIO)))
}

/// `-1` with `errno` set to `e`.
fn fail<T: From<i8>>(e: c_int) -> T {
    set_errno(e);
    T::from(-1)
}

/// A C string argument, or `EFAULT`.
///
/// # Safety
///
/// `p` is null or NUL-terminated.
unsafe fn cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    // SAFETY: forwarded.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
}

// ----- open ------------------------------------------------------------------------

type OpenAt = unsafe extern "C" fn(c_int, *const c_char, c_int, ...) -> c_int;

/// The simulated `openat`, or `None` for the real one.
///
/// # Safety
///
/// `path` is null or NUL-terminated.
unsafe fn sim_open(dirfd: c_int, path: *const c_char, flags: c_int) -> Option<c_int> {
    if !in_simulation() {
        return None;
    }
    // SAFETY: forwarded.
    let path = unsafe { cstr(path) }?;
    match guarded(|| posix::open(dirfd, path, flags)) {
        Route::Sim(Ok(fd)) => Some(fd),
        Route::Sim(Err(e)) => Some(fail(e)),
        Route::Real | Route::Lower(_) => None,
    }
}

type Open = unsafe extern "C" fn(*const c_char, c_int, ...) -> c_int;

// ----- read and write ---------------------------------------------------------------

/// Answers a call returning a count: the simulated count, or the real call.
fn count(route: Route<usize>, real: impl FnOnce() -> ssize_t) -> ssize_t {
    match route {
        Route::Sim(Ok(n)) => n as ssize_t,
        Route::Sim(Err(e)) => fail(e),
        Route::Real | Route::Lower(_) => real(),
    }
}

/// `buf`/`len` as a slice (empty for a zero length).
///
/// # Safety
///
/// `buf` is valid for `len` bytes.
unsafe fn bytes<'a>(buf: *const c_void, len: size_t) -> &'a [u8] {
    if len == 0 || buf.is_null() {
        return &[];
    }
    // SAFETY: forwarded.
    unsafe { std::slice::from_raw_parts(buf.cast(), len) }
}

/// `buf`/`len` as a mutable slice, zeroed first (it may be uninitialised).
///
/// # Safety
///
/// `buf` is valid for `len` bytes of writes.
unsafe fn bytes_mut<'a>(buf: *mut c_void, len: size_t) -> &'a mut [u8] {
    if len == 0 || buf.is_null() {
        return &mut [];
    }
    // SAFETY: forwarded.
    unsafe {
        std::ptr::write_bytes(buf.cast::<u8>(), 0, len);
        std::slice::from_raw_parts_mut(buf.cast(), len)
    }
}

/// A call at `offset` (`pread`, `pwritev`...): `sim` at that offset on a
/// simulated file, `EINVAL` for a negative offset, else `real`.
fn at_offset(
    fd: c_int,
    offset: i64,
    sim: impl FnOnce(u64) -> Route<usize>,
    real: impl FnOnce() -> ssize_t,
) -> ssize_t {
    if !in_simulation() || !posix::is_sim(fd) {
        return real();
    }
    if offset < 0 {
        return fail(libc::EINVAL);
    }
    count(sim(offset as u64), real)
}

/// The iovecs as slices.
///
/// # Safety
///
/// `iov` holds `n` valid iovecs (or `n` is not positive).
unsafe fn iovecs<'a>(iov: *const iovec, n: c_int) -> &'a [iovec] {
    if n <= 0 || iov.is_null() {
        return &[];
    }
    // SAFETY: forwarded.
    unsafe { std::slice::from_raw_parts(iov, n as usize) }
}

/// A vectored read: one simulated read of the total length, scattered.
///
/// # Safety
///
/// `iov` holds `n` iovecs valid for writes.
unsafe fn sim_readv(fd: c_int, iov: *const iovec, n: c_int, offset: Option<u64>) -> Route<usize> {
    // SAFETY: forwarded.
    let iov = unsafe { iovecs(iov, n) };
    let total: usize = iov.iter().map(|v| v.iov_len).sum();
    let mut buf = vec![0u8; total];
    let route = guarded(|| posix::read(fd, &mut buf, offset));
    if let Route::Sim(Ok(got)) = route {
        let mut rest = &buf[..got];
        for v in iov {
            let k = rest.len().min(v.iov_len);
            // SAFETY: each iovec is valid for `iov_len` bytes of writes.
            unsafe { std::ptr::copy_nonoverlapping(rest.as_ptr(), v.iov_base.cast(), k) };
            rest = &rest[k..];
        }
    }
    route
}

/// A vectored write: the buffers gathered, one simulated write.
///
/// # Safety
///
/// `iov` holds `n` valid iovecs.
unsafe fn sim_writev(fd: c_int, iov: *const iovec, n: c_int, offset: Option<u64>) -> Route<usize> {
    // SAFETY: forwarded.
    let iov = unsafe { iovecs(iov, n) };
    let mut buf = Vec::new();
    for v in iov {
        // SAFETY: each iovec is valid for `iov_len` bytes.
        buf.extend_from_slice(unsafe { bytes(v.iov_base, v.iov_len) });
    }
    guarded(|| posix::write(fd, &buf, offset))
}

/// `lseek` on a simulated file, else `real`.
fn seek(fd: c_int, offset: i64, whence: c_int, real: impl FnOnce() -> i64) -> i64 {
    if !in_simulation() || !posix::is_sim(fd) {
        return real();
    }
    match guarded(|| posix::lseek(fd, offset, whence)) {
        Route::Sim(Ok(pos)) => pos as i64,
        Route::Sim(Err(e)) => fail(e),
        _ => real(),
    }
}

/// Answers a call returning 0 or -1.
fn status(route: Route<()>, real: impl FnOnce() -> c_int) -> c_int {
    match route {
        Route::Sim(Ok(())) => 0,
        Route::Sim(Err(e)) => fail(e),
        Route::Real | Route::Lower(_) => real(),
    }
}

/// A call on a descriptor answered by `sim` inside a simulation, else
/// `real`.
fn fd_status(sim: impl FnOnce() -> Route<()>, real: impl FnOnce() -> c_int) -> c_int {
    if !in_simulation() {
        return real();
    }
    status(guarded(sim), real)
}

/// `posix_fallocate` (which returns the error, not `errno`) on a simulated
/// file, else `real`.
fn fallocate_answer(fd: c_int, offset: i64, len: i64, real: impl FnOnce() -> c_int) -> c_int {
    if !in_simulation() {
        return real();
    }
    match guarded(|| posix::fallocate(fd, offset, len)) {
        Route::Sim(Ok(())) => 0,
        Route::Sim(Err(e)) => e,
        _ => real(),
    }
}

// ----- descriptors ------------------------------------------------------------------

/// Answers a call returning a descriptor or other int.
fn int(route: Route<c_int>, real: impl FnOnce() -> c_int) -> c_int {
    match route {
        Route::Sim(Ok(v)) => v,
        Route::Sim(Err(e)) => fail(e),
        Route::Real | Route::Lower(_) => real(),
    }
}

type Fcntl = unsafe extern "C" fn(c_int, c_int, ...) -> c_int;

/// `fcntl` on a simulated file, else `real` (libc's, which is variadic).
fn fcntl_answer(fd: c_int, cmd: c_int, arg: c_long, real: impl FnOnce() -> c_int) -> c_int {
    if !in_simulation() {
        return real();
    }
    int(guarded(|| posix::fcntl(fd, cmd, arg)), real)
}

// ----- metadata -----------------------------------------------------------------

/// Fills a `struct stat64` (the same layout as `struct stat` on 64-bit
/// Linux).
///
/// # Safety
///
/// `buf` is valid for writes.
unsafe fn put_stat(buf: *mut libc::stat64, s: Stat) -> c_int {
    if buf.is_null() {
        return fail(libc::EFAULT);
    }
    // SAFETY: `stat64` is plain old data.
    let mut st: libc::stat64 = unsafe { std::mem::zeroed() };
    st.st_dev = libc::makedev(0, s.dev_minor);
    st.st_ino = s.ino;
    st.st_mode = s.mode;
    st.st_nlink = s.nlink as _;
    st.st_uid = s.uid;
    st.st_gid = s.gid;
    st.st_size = s.size as _;
    st.st_blksize = 4096;
    st.st_blocks = s.blocks as _;
    st.st_atime = s.time;
    st.st_mtime = s.time;
    st.st_ctime = s.time;
    // SAFETY: checked non-null; the caller's buffer.
    unsafe { buf.write(st) };
    0
}

/// Answers a `stat`-like call.
///
/// # Safety
///
/// `buf` is valid for writes.
unsafe fn stat_answer(
    route: Route<Stat>,
    buf: *mut libc::stat64,
    real: impl FnOnce() -> c_int,
    lower: impl FnOnce(&CStr) -> c_int,
) -> c_int {
    match route {
        // SAFETY: forwarded.
        Route::Sim(Ok(s)) => unsafe { put_stat(buf, s) },
        Route::Sim(Err(e)) => fail(e),
        Route::Lower(p) => lower(&p),
        Route::Real => real(),
    }
}

type FstatAt = unsafe extern "C" fn(c_int, *const c_char, *mut libc::stat64, c_int) -> c_int;

/// A path call answered by `sim` (with the path as a `CStr`), else real.
///
/// # Safety
///
/// `path` is null or NUL-terminated.
unsafe fn path_status(
    path: *const c_char,
    sim: impl FnOnce(&CStr) -> Route<()>,
    real: impl FnOnce() -> c_int,
    lower: impl FnOnce(&CStr) -> c_int,
) -> c_int {
    if !in_simulation() {
        return real();
    }
    // SAFETY: forwarded.
    let Some(p) = (unsafe { cstr(path) }) else {
        return real();
    };
    match guarded(|| sim(p)) {
        Route::Sim(Ok(())) => 0,
        Route::Sim(Err(e)) => fail(e),
        Route::Lower(abs) => lower(&abs),
        Route::Real => real(),
    }
}

/// A path call that succeeds on an existing path and changes nothing.
///
/// # Safety
///
/// `path` is null or NUL-terminated.
unsafe fn accept_path(dirfd: c_int, path: *const c_char, real: impl FnOnce() -> c_int) -> c_int {
    // SAFETY: forwarded.
    unsafe { path_status(path, |p| posix::exists_at(dirfd, p), real, |_| 0) }
}

// ----- names -------------------------------------------------------------------------

/// A path call that changes the simulated disk, answered by `sim`; `EIO`
/// on the lower layer's read-only files; else `real`.
///
/// # Safety
///
/// `path` is null or NUL-terminated.
unsafe fn change_path(
    path: *const c_char,
    sim: impl FnOnce(&CStr) -> Route<()>,
    real: impl FnOnce() -> c_int,
) -> c_int {
    // SAFETY: forwarded.
    unsafe { path_status(path, sim, real, |_| fail(libc::EIO)) }
}

/// A two-path call answered by `sim`, else real.
///
/// # Safety
///
/// Both paths are null or NUL-terminated.
unsafe fn two_path_status(
    a: *const c_char,
    b: *const c_char,
    sim: impl FnOnce(&CStr, &CStr) -> Route<()>,
    real: impl FnOnce() -> c_int,
) -> c_int {
    if !in_simulation() {
        return real();
    }
    // SAFETY: forwarded.
    let (Some(pa), Some(pb)) = (unsafe { cstr(a) }, unsafe { cstr(b) }) else {
        return real();
    };
    match guarded(|| sim(pa, pb)) {
        Route::Sim(Ok(())) => 0,
        Route::Sim(Err(e)) => fail(e),
        Route::Real | Route::Lower(_) => real(),
    }
}

/// Refuses a symlink on the simulated disk: `EPERM`, and a note.
fn refuse_symlink(route: Route<()>) -> Route<()> {
    if let Route::Sim(Err(_)) = route {
        refuse(Escape::Symlink);
    }
    route
}

/// Refuses a device or socket node on the simulated disk (`mknod` with
/// `S_IFCHR`, `S_IFBLK` or `S_IFSOCK`, which `posix` answers `EPERM`): a
/// note.
fn refuse_device(mode: mode_t, route: Route<()>) -> Route<()> {
    let device = matches!(
        mode & libc::S_IFMT,
        libc::S_IFCHR | libc::S_IFBLK | libc::S_IFSOCK
    );
    if device && matches!(route, Route::Sim(Err(_))) {
        refuse(Escape::Device);
    }
    route
}

type ReadlinkAt = unsafe extern "C" fn(c_int, *const c_char, *mut c_char, size_t) -> ssize_t;

// ----- directories ----------------------------------------------------------------

// ----- what cannot be simulated, or only as a copy --------------------------------------

type Mmap = unsafe extern "C" fn(*mut c_void, size_t, c_int, c_int, c_int, off_t) -> *mut c_void;

/// `mmap`: `real` unless `fd` is a simulated file. A private mapping of
/// one (or a read-only shared one) is an anonymous mapping holding a copy
/// of the file's bytes; a writable shared mapping cannot be simulated
/// (writes through it would bypass the disk model): `ENODEV` and a note.
///
/// # Safety
///
/// As libc's.
unsafe fn map_file(
    real: &dyn Fn(*mut c_void, size_t, c_int, c_int, c_int, off_t) -> *mut c_void,
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: off_t,
) -> *mut c_void {
    if fd < 0 || !in_simulation() || !posix::is_sim_file(fd) {
        return real(addr, len, prot, flags, fd, offset);
    }
    let shared = flags & (libc::MAP_SHARED | libc::MAP_SHARED_VALIDATE) != 0;
    if shared && prot & libc::PROT_WRITE != 0 {
        refuse(Escape::SharedMap);
        set_errno(libc::ENODEV);
        return libc::MAP_FAILED;
    }
    if offset < 0 {
        set_errno(libc::EINVAL);
        return libc::MAP_FAILED;
    }
    let data = match guarded(|| posix::read_for_map(fd, offset as u64, len)) {
        Route::Sim(Ok(data)) => data,
        Route::Sim(Err(e)) => {
            set_errno(e);
            return libc::MAP_FAILED;
        }
        _ => return real(addr, len, prot, flags, fd, offset),
    };
    let anon_flags = (flags & !(libc::MAP_SHARED | libc::MAP_SHARED_VALIDATE))
        | libc::MAP_PRIVATE
        | libc::MAP_ANONYMOUS;
    let map = real(addr, len, prot | libc::PROT_WRITE, anon_flags, -1, 0);
    if map == libc::MAP_FAILED {
        return map;
    }
    // SAFETY: `map` is a fresh writable mapping of `len` bytes.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), map.cast::<u8>(), data.len()) };
    if prot & libc::PROT_WRITE == 0 {
        // SAFETY: our own mapping.
        unsafe { libc::mprotect(map, len, prot) };
    }
    map
}

/// Refuses to copy between descriptors in the kernel when either is a
/// simulated file (the kernel cannot read it): `-1` with `errno` `e`, and
/// the program falls back to reading and writing. Else `real`.
fn refuse_copy(fd_in: c_int, fd_out: c_int, e: c_int, real: impl FnOnce() -> ssize_t) -> ssize_t {
    if in_simulation() && (posix::is_sim(fd_in) || posix::is_sim(fd_out)) {
        return fail(e);
    }
    real()
}

interpose! {
    forward: real;

    // ----- open ------------------------------------------------------------------------

    /// Interposed `open` and `open64` (`std::fs::File::open`,
    /// `OpenOptions::open`).
    ///
    /// # Safety
    ///
    /// As libc's (`mode` is read only with `O_CREAT`/`O_TMPFILE`).
    fn open | open64(path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { sim_open(libc::AT_FDCWD, path, flags) }
            .unwrap_or_else(|| real!(NAME: Open)(path, flags, mode as c_uint))
    }

    /// Interposed `openat` and `openat64` (std's `remove_dir_all`).
    ///
    /// # Safety
    ///
    /// As libc's (`mode` is read only with `O_CREAT`/`O_TMPFILE`).
    fn openat | openat64(dirfd: c_int, path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { sim_open(dirfd, path, flags) }
            .unwrap_or_else(|| real!(NAME: OpenAt)(dirfd, path, flags, mode as c_uint))
    }

    /// Interposed `creat`: `open(path, O_CREAT|O_WRONLY|O_TRUNC, mode)`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn creat(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { open(path, libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC, mode) }
    }

    /// Interposed `creat64`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn creat64(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { open64(path, libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC, mode) }
    }

    /// Interposed `__open_2` (`open` under `_FORTIFY_SOURCE`, without a mode).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn __open_2(path: *const c_char, flags: c_int) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { open(path, flags, 0) }
    }

    /// Interposed `__open64_2`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn __open64_2(path: *const c_char, flags: c_int) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { open64(path, flags, 0) }
    }

    /// Interposed `__openat_2`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn __openat_2(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { openat(dirfd, path, flags, 0) }
    }

    /// Interposed `__openat64_2`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn __openat64_2(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
        // SAFETY: forwarded from our caller.
        unsafe { openat64(dirfd, path, flags, 0) }
    }

    /// Interposed `close`. Also outside a simulation, a descriptor a
    /// simulation handed out is forgotten before its number is closed, so the
    /// number cannot later be taken for a simulated file.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn close(fd: c_int) -> c_int {
        if crate::disk::posix::table::any() {
            let _ = guarded(|| posix::close(fd));
        }
        real()
    }

    // ----- read and write ---------------------------------------------------------------

    /// Interposed `read`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn read(fd: c_int, buf: *mut c_void, len: size_t) -> ssize_t {
        if !in_simulation() || !posix::is_sim(fd) {
            return real();
        }
        // SAFETY: the caller's buffer.
        let route = guarded(|| posix::read(fd, unsafe { bytes_mut(buf, len) }, None));
        count(route, real)
    }

    /// Interposed `write`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn write(fd: c_int, buf: *const c_void, len: size_t) -> ssize_t {
        if !in_simulation() || !posix::is_sim(fd) {
            return real();
        }
        // SAFETY: the caller's buffer.
        let route = guarded(|| posix::write(fd, unsafe { bytes(buf, len) }, None));
        count(route, real)
    }

    /// Interposed, as `read` at an offset.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pread | pread64(fd: c_int, buf: *mut c_void, len: size_t, offset: off64_t) -> ssize_t {
        // SAFETY: the caller's buffer.
        let sim = |at| guarded(|| posix::read(fd, unsafe { bytes_mut(buf, len) }, Some(at)));
        at_offset(fd, offset, sim, real)
    }

    /// Interposed, as `write` at an offset.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pwrite | pwrite64(fd: c_int, buf: *const c_void, len: size_t, offset: off64_t) -> ssize_t {
        // SAFETY: the caller's buffer.
        let sim = |at| guarded(|| posix::write(fd, unsafe { bytes(buf, len) }, Some(at)));
        at_offset(fd, offset, sim, real)
    }

    /// Interposed `readv` (`Read::read_vectored`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn readv(fd: c_int, iov: *const iovec, n: c_int) -> ssize_t {
        if !in_simulation() || !posix::is_sim(fd) {
            return real();
        }
        // SAFETY: forwarded.
        count(unsafe { sim_readv(fd, iov, n, None) }, real)
    }

    /// Interposed `writev` (`Write::write_vectored`, `write_all_vectored`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn writev(fd: c_int, iov: *const iovec, n: c_int) -> ssize_t {
        if !in_simulation() || !posix::is_sim(fd) {
            return real();
        }
        // SAFETY: forwarded.
        count(unsafe { sim_writev(fd, iov, n, None) }, real)
    }

    /// Interposed, as the vectored call at an offset.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn preadv | preadv64(fd: c_int, iov: *const iovec, n: c_int, offset: off64_t) -> ssize_t {
        // SAFETY: forwarded.
        at_offset(fd, offset, |at| unsafe { sim_readv(fd, iov, n, Some(at)) }, real)
    }

    /// Interposed, as the vectored call at an offset.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pwritev | pwritev64(fd: c_int, iov: *const iovec, n: c_int, offset: off64_t) -> ssize_t {
        // SAFETY: forwarded.
        at_offset(fd, offset, |at| unsafe { sim_writev(fd, iov, n, Some(at)) }, real)
    }

    /// Interposed `lseek`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn lseek | lseek64(fd: c_int, offset: off64_t, whence: c_int) -> off64_t {
        seek(fd, offset, whence, real)
    }

    /// Interposed `fsync` (`File::sync_all`): makes the simulated file (or a
    /// directory's entries) durable.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fsync(fd: c_int) -> c_int {
        fd_status(|| posix::fsync(fd, false), real)
    }

    /// Interposed `fdatasync` (`File::sync_data`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fdatasync(fd: c_int) -> c_int {
        fd_status(|| posix::fsync(fd, true), real)
    }

    /// Interposed `sync_file_range`: accepted, and makes nothing durable (it
    /// never promised to: it does not flush metadata nor the disk's cache).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn sync_file_range(fd: c_int, offset: off64_t, len: off64_t, flags: c_uint) -> c_int {
        fd_status(|| posix::accept_fd(fd), real)
    }

    /// Interposed `ftruncate` (`File::set_len`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn ftruncate | ftruncate64(fd: c_int, len: off64_t) -> c_int {
        fd_status(|| posix::ftruncate(fd, len), real)
    }

    /// Interposed `truncate`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn truncate | truncate64(path: *const c_char, len: off64_t) -> c_int {
        // SAFETY: forwarded.
        unsafe { path_status(path, |p| posix::truncate(p, len), real, |_| real()) }
    }

    /// Interposed `posix_fallocate` (returns the error, not `errno`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn posix_fallocate | posix_fallocate64(fd: c_int, offset: off64_t, len: off64_t) -> c_int {
        fallocate_answer(fd, offset, len, real)
    }

    /// Interposed `fallocate`: mode 0 extends the simulated file; any other
    /// mode (punching holes, ...) is `EOPNOTSUPP` on it.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fallocate(fd: c_int, mode: c_int, offset: off_t, len: off_t) -> c_int {
        if !in_simulation() || !posix::is_sim(fd) {
            return real();
        }
        if mode != 0 {
            return fail(libc::EOPNOTSUPP);
        }
        status(guarded(|| posix::fallocate(fd, offset, len)), real)
    }

    // ----- descriptors ------------------------------------------------------------------

    /// Interposed `dup`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn dup(fd: c_int) -> c_int {
        if !in_simulation() {
            return real();
        }
        int(guarded(|| posix::dup(fd, 0, false)), real)
    }

    /// Interposed `dup2`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn dup2(old: c_int, new: c_int) -> c_int {
        if !in_simulation() {
            if crate::disk::posix::table::any() {
                posix::forget(new);
            }
            return real();
        }
        int(guarded(|| posix::dup3(old, new, 0)), real)
    }

    /// Interposed `dup3`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn dup3(old: c_int, new: c_int, flags: c_int) -> c_int {
        if !in_simulation() {
            if crate::disk::posix::table::any() {
                posix::forget(new);
            }
            return real();
        }
        if old == new {
            return fail(libc::EINVAL);
        }
        int(guarded(|| posix::dup3(old, new, flags)), real)
    }

    /// Interposed `fcntl` (std's `try_clone` is `F_DUPFD_CLOEXEC`; SQLite
    /// locks with `F_SETLK`). Every lock is granted on a simulated file.
    ///
    /// # Safety
    ///
    /// As libc's: `arg` is what `cmd` takes (an int or a pointer).
    fn fcntl | fcntl64(fd: c_int, cmd: c_int, arg: c_long) -> c_int {
        fcntl_answer(fd, cmd, arg, || real!(NAME: Fcntl)(fd, cmd, arg))
    }

    /// Interposed `flock` (`File::lock`): always granted on a simulated file.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn flock(fd: c_int, op: c_int) -> c_int {
        fd_status(|| posix::accept_fd(fd), real)
    }

    // ----- metadata -----------------------------------------------------------------

    /// Interposed `fstat`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fstat | fstat64(fd: c_int, buf: *mut libc::stat64) -> c_int {
        if !in_simulation() || !posix::is_sim(fd) {
            return real();
        }
        // SAFETY: forwarded.
        unsafe { stat_answer(guarded(|| posix::fstat(fd)), buf, real, |_| real()) }
    }

    /// Interposed `fstatat` (std's `DirEntry::metadata` without statx).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fstatat | fstatat64(
        dirfd: c_int,
        path: *const c_char,
        buf: *mut libc::stat64,
        flags: c_int,
    ) -> c_int {
        if !in_simulation() {
            return real();
        }
        // SAFETY: forwarded.
        let Some(p) = (unsafe { cstr(path) }) else {
            return real();
        };
        let real_at = |abs: &CStr| {
            real!(NAME: FstatAt)(libc::AT_FDCWD, abs.as_ptr(), buf, flags)
        };
        // SAFETY: forwarded.
        unsafe { stat_answer(guarded(|| posix::stat_at(dirfd, p, flags)), buf, real, real_at) }
    }

    /// Interposed `stat`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn stat(path: *const c_char, buf: *mut libc::stat) -> c_int {
        // SAFETY: forwarded.
        unsafe { fstatat(libc::AT_FDCWD, path, buf.cast(), 0) }
    }

    /// Interposed `stat64` (std's `metadata` without statx).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn stat64(path: *const c_char, buf: *mut libc::stat64) -> c_int {
        // SAFETY: forwarded.
        unsafe { fstatat64(libc::AT_FDCWD, path, buf, 0) }
    }

    /// Interposed `lstat`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn lstat(path: *const c_char, buf: *mut libc::stat) -> c_int {
        // SAFETY: forwarded.
        unsafe { fstatat(libc::AT_FDCWD, path, buf.cast(), libc::AT_SYMLINK_NOFOLLOW) }
    }

    /// Interposed `lstat64`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn lstat64(path: *const c_char, buf: *mut libc::stat64) -> c_int {
        // SAFETY: forwarded.
        unsafe { fstatat64(libc::AT_FDCWD, path, buf, libc::AT_SYMLINK_NOFOLLOW) }
    }

    /// Interposed `statx`: std's `metadata`, `symlink_metadata`,
    /// `File::metadata` and `DirEntry::metadata` on Linux. A null path (std's
    /// probe for whether the kernel has statx) goes to the real call.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn statx(
        dirfd: c_int,
        path: *const c_char,
        flags: c_int,
        mask: c_uint,
        buf: *mut libc::statx,
    ) -> c_int {
        type F =
            unsafe extern "C" fn(c_int, *const c_char, c_int, c_uint, *mut libc::statx) -> c_int;
        if !in_simulation() {
            return real();
        }
        // SAFETY: forwarded.
        let Some(p) = (unsafe { cstr(path) }) else {
            return real();
        };
        match guarded(|| posix::stat_at(dirfd, p, flags)) {
            Route::Sim(Ok(s)) => {
                if buf.is_null() {
                    return fail(libc::EFAULT);
                }
                // SAFETY: `statx` is plain old data.
                let mut st: libc::statx = unsafe { std::mem::zeroed() };
                st.stx_mask = libc::STATX_BASIC_STATS;
                st.stx_blksize = 4096;
                st.stx_nlink = s.nlink as u32;
                st.stx_uid = s.uid;
                st.stx_gid = s.gid;
                st.stx_mode = s.mode as u16;
                st.stx_ino = s.ino;
                st.stx_size = s.size;
                st.stx_blocks = s.blocks;
                st.stx_atime.tv_sec = s.time;
                st.stx_mtime.tv_sec = s.time;
                st.stx_ctime.tv_sec = s.time;
                st.stx_dev_major = 0;
                st.stx_dev_minor = s.dev_minor;
                // SAFETY: checked non-null; the caller's buffer.
                unsafe { buf.write(st) };
                0
            }
            Route::Sim(Err(e)) => fail(e),
            Route::Lower(abs) => real!(NAME: F)(libc::AT_FDCWD, abs.as_ptr(), flags, mask, buf),
            Route::Real => real(),
        }
    }

    /// Interposed `access`: every access is granted on an existing path.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn access(path: *const c_char, mode: c_int) -> c_int {
        // SAFETY: forwarded.
        unsafe { accept_path(libc::AT_FDCWD, path, real) }
    }

    /// Interposed `faccessat`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn faccessat(dirfd: c_int, path: *const c_char, mode: c_int, flags: c_int) -> c_int {
        // SAFETY: forwarded.
        unsafe { accept_path(dirfd, path, real) }
    }

    /// Interposed `chmod` (`std::fs::set_permissions`): the simulated disk
    /// keeps no modes; succeeds on an existing path, changes nothing (and
    /// never a real file's mode).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn chmod(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: forwarded.
        unsafe { accept_path(libc::AT_FDCWD, path, real) }
    }

    /// Interposed `fchmodat`: as [`chmod`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fchmodat(dirfd: c_int, path: *const c_char, mode: mode_t, flags: c_int) -> c_int {
        // SAFETY: forwarded.
        unsafe { accept_path(dirfd, path, real) }
    }

    /// Interposed `chown`: the simulated disk keeps no owners.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn chown(path: *const c_char, uid: libc::uid_t, gid: libc::gid_t) -> c_int {
        // SAFETY: forwarded.
        unsafe { accept_path(libc::AT_FDCWD, path, real) }
    }

    /// Interposed `utimensat`: the simulated disk keeps no timestamps.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn utimensat(
        dirfd: c_int,
        path: *const c_char,
        times: *const libc::timespec,
        flags: c_int,
    ) -> c_int {
        // SAFETY: forwarded.
        unsafe { accept_path(dirfd, path, real) }
    }

    /// Interposed `fchmod` (`File::set_permissions`): accepted on a simulated
    /// or lower-layer file, changes nothing.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fchmod(fd: c_int, mode: mode_t) -> c_int {
        fd_status(|| posix::accept_fd(fd), real)
    }

    /// Interposed `fchown`: as [`fchmod`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fchown(fd: c_int, uid: libc::uid_t, gid: libc::gid_t) -> c_int {
        fd_status(|| posix::accept_fd(fd), real)
    }

    /// Interposed `futimens` (`File::set_times`): as [`fchmod`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn futimens(fd: c_int, times: *const libc::timespec) -> c_int {
        fd_status(|| posix::accept_fd(fd), real)
    }

    // ----- names -------------------------------------------------------------------------

    /// Interposed `mkdir` (`std::fs::create_dir`, `DirBuilder`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn mkdir(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: forwarded.
        unsafe { change_path(path, |p| posix::mkdir_at(libc::AT_FDCWD, p), real) }
    }

    /// Interposed `mkdirat`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn mkdirat(dirfd: c_int, path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: forwarded.
        unsafe { change_path(path, |p| posix::mkdir_at(dirfd, p), real) }
    }

    /// Interposed `unlink` (`std::fs::remove_file`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn unlink(path: *const c_char) -> c_int {
        // SAFETY: forwarded.
        unsafe { change_path(path, |p| posix::unlink_at(libc::AT_FDCWD, p, 0), real) }
    }

    /// Interposed `rmdir` (`std::fs::remove_dir`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn rmdir(path: *const c_char) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            change_path(
                path,
                |p| posix::unlink_at(libc::AT_FDCWD, p, libc::AT_REMOVEDIR),
                real,
            )
        }
    }

    /// Interposed `unlinkat` (std's `remove_dir_all`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn unlinkat(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
        // SAFETY: forwarded.
        unsafe { change_path(path, |p| posix::unlink_at(dirfd, p, flags), real) }
    }

    /// Interposed `rename` (`std::fs::rename`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn rename(old: *const c_char, new: *const c_char) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            two_path_status(
                old,
                new,
                |a, b| posix::rename_at(libc::AT_FDCWD, a, libc::AT_FDCWD, b, 0),
                real,
            )
        }
    }

    /// Interposed `renameat`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn renameat(olddirfd: c_int, old: *const c_char, newdirfd: c_int, new: *const c_char) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            two_path_status(
                old,
                new,
                |a, b| posix::rename_at(olddirfd, a, newdirfd, b, 0),
                real,
            )
        }
    }

    /// Interposed `renameat2` (`RENAME_NOREPLACE`: tempfile's
    /// `persist_noclobber` through rustix's libc backend).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn renameat2(
        olddirfd: c_int,
        old: *const c_char,
        newdirfd: c_int,
        new: *const c_char,
        flags: c_uint,
    ) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            two_path_status(
                old,
                new,
                |a, b| posix::rename_at(olddirfd, a, newdirfd, b, flags),
                real,
            )
        }
    }

    /// Interposed `link`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn link(old: *const c_char, new: *const c_char) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            two_path_status(
                old,
                new,
                |a, b| posix::link_at(libc::AT_FDCWD, a, libc::AT_FDCWD, b),
                real,
            )
        }
    }

    /// Interposed `linkat` (`std::fs::hard_link`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn linkat(
        olddirfd: c_int,
        old: *const c_char,
        newdirfd: c_int,
        new: *const c_char,
        flags: c_int,
    ) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            two_path_status(
                old,
                new,
                |a, b| posix::link_at(olddirfd, a, newdirfd, b),
                real,
            )
        }
    }

    /// Interposed `symlink` (`std::os::unix::fs::symlink`): the simulated
    /// disk has no symlinks (`EPERM`, as a file system without them).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn symlink(target: *const c_char, path: *const c_char) -> c_int {
        // SAFETY: forwarded.
        unsafe { change_path(path, |p| refuse_symlink(posix::symlink_at(libc::AT_FDCWD, p)), real) }
    }

    /// Interposed `symlinkat`: as [`symlink`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn symlinkat(target: *const c_char, dirfd: c_int, path: *const c_char) -> c_int {
        // SAFETY: forwarded.
        unsafe { change_path(path, |p| refuse_symlink(posix::symlink_at(dirfd, p)), real) }
    }

    /// Interposed `mkfifo` (`nix::unistd::mkfifo`): a FIFO's entry on the
    /// simulated disk. glibc's `mkfifo` calls its `mknodat` internally,
    /// where no interposition reaches, so it is interposed itself.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn mkfifo(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            change_path(
                path,
                |p| posix::mknod_at(libc::AT_FDCWD, p, mode | libc::S_IFIFO),
                real,
            )
        }
    }

    /// Interposed `mkfifoat`: as [`mkfifo`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn mkfifoat(dirfd: c_int, path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: forwarded.
        unsafe { change_path(path, |p| posix::mknod_at(dirfd, p, mode | libc::S_IFIFO), real) }
    }

    /// Interposed `mknod` (`nix::sys::stat::mknod`): a FIFO's entry for
    /// `S_IFIFO`, an empty file for `S_IFREG` or no type; a device or a
    /// socket is refused (`EPERM`, the simulated disk has none), with a
    /// note. glibc 2.33+ exports `mknod` itself (the name std, `nix` and
    /// C code built against it call); the older `__xmknod` is left to
    /// binaries built against an older glibc.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn mknod(path: *const c_char, mode: mode_t, dev: libc::dev_t) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            change_path(
                path,
                |p| refuse_device(mode, posix::mknod_at(libc::AT_FDCWD, p, mode)),
                real,
            )
        }
    }

    /// Interposed `mknodat`: as [`mknod`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn mknodat(dirfd: c_int, path: *const c_char, mode: mode_t, dev: libc::dev_t) -> c_int {
        // SAFETY: forwarded.
        unsafe {
            change_path(
                path,
                |p| refuse_device(mode, posix::mknod_at(dirfd, p, mode)),
                real,
            )
        }
    }

    /// Interposed `readlinkat`: `EINVAL` on a simulated path (no symlinks);
    /// a real link of the lower layer reads as it is.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn readlinkat(dirfd: c_int, path: *const c_char, buf: *mut c_char, len: size_t) -> ssize_t {
        if !in_simulation() {
            return real();
        }
        // SAFETY: forwarded.
        let Some(p) = (unsafe { cstr(path) }) else {
            return real();
        };
        match guarded(|| posix::readlink_at(dirfd, p)) {
            Route::Sim(Ok(())) | Route::Real => real(),
            Route::Sim(Err(e)) => fail(e),
            Route::Lower(abs) => {
                real!(NAME: ReadlinkAt)(libc::AT_FDCWD, abs.as_ptr(), buf, len)
            }
        }
    }

    /// Interposed `readlink` (`std::fs::read_link`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn readlink(path: *const c_char, buf: *mut c_char, len: size_t) -> ssize_t {
        if !in_simulation() {
            return real();
        }
        // SAFETY: forwarded.
        unsafe { readlinkat(libc::AT_FDCWD, path, buf, len) }
    }

    /// Interposed `realpath` (`std::fs::canonicalize`): on the simulated disk,
    /// the absolute path without `.`, `..` or repeated `/`, if it exists.
    ///
    /// # Safety
    ///
    /// As libc's: `resolved` is null or holds `PATH_MAX` bytes.
    fn realpath(path: *const c_char, resolved: *mut c_char) -> *mut c_char {
        if !in_simulation() {
            return real();
        }
        // SAFETY: forwarded.
        let Some(p) = (unsafe { cstr(path) }) else {
            return real();
        };
        match guarded(|| posix::realpath(p)) {
            Route::Sim(Ok(abs)) => {
                use std::os::unix::ffi::OsStrExt;
                let bytes = abs.as_os_str().as_bytes();
                if bytes.len() >= libc::PATH_MAX as usize {
                    set_errno(libc::ENAMETOOLONG);
                    return std::ptr::null_mut();
                }
                let out = if resolved.is_null() {
                    // SAFETY: plain allocation, freed by the caller with free().
                    unsafe { libc::malloc(bytes.len() + 1) }.cast::<c_char>()
                } else {
                    resolved
                };
                if out.is_null() {
                    set_errno(libc::ENOMEM);
                    return out;
                }
                // SAFETY: `out` holds at least `bytes.len() + 1` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr().cast(), out, bytes.len());
                    *out.add(bytes.len()) = 0;
                }
                out
            }
            Route::Sim(Err(e)) => {
                set_errno(e);
                std::ptr::null_mut()
            }
            Route::Real | Route::Lower(_) => real(),
        }
    }

    // ----- directories ----------------------------------------------------------------

    /// Interposed `opendir`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn opendir(path: *const c_char) -> *mut DIR {
        if !in_simulation() {
            return real();
        }
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
        // SAFETY: forwarded.
        match unsafe { sim_open(libc::AT_FDCWD, path, flags) } {
            None => real(),
            Some(-1) => std::ptr::null_mut(),
            // SAFETY: `fd` is the simulated directory just opened.
            Some(fd) => {
                let dir = unsafe { fdopendir(fd) };
                if dir.is_null() {
                    // SAFETY: ours to close.
                    unsafe { close(fd) };
                }
                dir
            }
        }
    }

    /// Interposed `fdopendir` (std's `read_dir` and `remove_dir_all`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn fdopendir(fd: c_int) -> *mut DIR {
        if !in_simulation() {
            return real();
        }
        match guarded(|| dir::fdopendir(fd)) {
            Route::Sim(Ok(dir)) => dir,
            Route::Sim(Err(e)) => {
                set_errno(e);
                std::ptr::null_mut()
            }
            Route::Real | Route::Lower(_) => real(),
        }
    }

    /// Interposed `readdir64` (std's `ReadDir`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn readdir64(d: *mut DIR) -> *mut dirent64 {
        if dir::is_stream(d) {
            // SAFETY: a registered stream.
            return unsafe { dir::readdir(d) };
        }
        real()
    }

    /// Interposed `readdir` (`struct dirent` is `struct dirent64` on 64-bit
    /// Linux).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn readdir(d: *mut DIR) -> *mut libc::dirent {
        if dir::is_stream(d) {
            // SAFETY: a registered stream; the layouts are the same.
            return unsafe { dir::readdir(d) }.cast();
        }
        real()
    }

    /// Interposed `closedir`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn closedir(d: *mut DIR) -> c_int {
        if dir::is_stream(d) {
            // SAFETY: a registered stream; its descriptor is ours to close.
            return unsafe { close(dir::closedir(d)) };
        }
        real()
    }

    /// Interposed `dirfd` (std's `DirEntry::metadata` stats relative to it).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn dirfd(d: *mut DIR) -> c_int {
        if dir::is_stream(d) {
            // SAFETY: a registered stream.
            return unsafe { dir::dirfd(d) };
        }
        real()
    }

    /// Interposed `rewinddir`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn rewinddir(d: *mut DIR) {
        if dir::is_stream(d) {
            // SAFETY: a registered stream.
            return unsafe { dir::rewinddir(d) };
        }
        real()
    }

    /// Interposed `getdents64`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn getdents64(fd: c_int, buf: *mut c_void, len: size_t) -> ssize_t {
        if !in_simulation() || !posix::is_sim(fd) {
            return real();
        }
        // SAFETY: the caller's buffer.
        let route = guarded(|| dir::getdents64(fd, unsafe { bytes_mut(buf, len) }));
        count(route, real)
    }

    // ----- what cannot be simulated, or only as a copy --------------------------------------

    /// Interposed `mmap`: see [`map_file`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn mmap | mmap64(
        addr: *mut c_void,
        len: size_t,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        offset: off64_t,
    ) -> *mut c_void {
        let real = |a, l, p, f, d, o| real!(NAME: Mmap)(a, l, p, f, d, o);
        // SAFETY: forwarded.
        unsafe { map_file(&real, addr, len, prot, flags, fd, offset) }
    }

    /// Interposed `copy_file_range` (std's `fs::copy` and `io::copy` between
    /// files) and `splice`: a simulated file is on another device than any
    /// real one, and the kernel cannot copy it: `EXDEV` for
    /// `copy_file_range`, `EINVAL` for `splice`, and std falls back to
    /// reading and writing.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn copy_file_range | splice(
        fd_in: c_int,
        off_in: *mut loff_t,
        fd_out: c_int,
        off_out: *mut loff_t,
        len: size_t,
        flags: c_uint,
    ) -> ssize_t {
        let e = if NAME == c"splice" { libc::EINVAL } else { libc::EXDEV };
        refuse_copy(fd_in, fd_out, e, real)
    }

    /// Interposed `sendfile`: `EINVAL` on a simulated file (std falls
    /// back to reading and writing).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn sendfile | sendfile64(
        out_fd: c_int,
        in_fd: c_int,
        offset: *mut off64_t,
        count: size_t,
    ) -> ssize_t {
        refuse_copy(in_fd, out_fd, libc::EINVAL, real)
    }

}
