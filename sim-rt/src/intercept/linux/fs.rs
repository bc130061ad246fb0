//! The interposed file-system functions of libc: inside a simulation, the
//! calling task's host's simulated disk (`crate::fs::posix` says what each
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
use crate::fs::posix::{self, dir, Route, Stat};
use crate::intercept::{in_simulation, refuse, Escape};

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

/// References every function here, as `keep_linked` does for the parent.
pub(super) const fn keep_linked() -> [*const (); 71] {
    [
        open as *const (),
        open64 as *const (),
        openat as *const (),
        openat64 as *const (),
        creat as *const (),
        creat64 as *const (),
        __open_2 as *const (),
        __open64_2 as *const (),
        __openat_2 as *const (),
        __openat64_2 as *const (),
        close as *const (),
        read as *const (),
        write as *const (),
        pread as *const (),
        pread64 as *const (),
        pwrite as *const (),
        pwrite64 as *const (),
        readv as *const (),
        writev as *const (),
        preadv as *const (),
        preadv64 as *const (),
        pwritev as *const (),
        pwritev64 as *const (),
        lseek as *const (),
        lseek64 as *const (),
        fsync as *const (),
        fdatasync as *const (),
        sync_file_range as *const (),
        ftruncate as *const (),
        ftruncate64 as *const (),
        truncate as *const (),
        truncate64 as *const (),
        posix_fallocate as *const (),
        posix_fallocate64 as *const (),
        fallocate as *const (),
        dup as *const (),
        dup2 as *const (),
        dup3 as *const (),
        fcntl as *const (),
        fcntl64 as *const (),
        flock as *const (),
        fstat as *const (),
        fstat64 as *const (),
        stat as *const (),
        stat64 as *const (),
        lstat as *const (),
        lstat64 as *const (),
        fstatat as *const (),
        fstatat64 as *const (),
        statx as *const (),
        access as *const (),
        faccessat as *const (),
        mkdir as *const (),
        mkdirat as *const (),
        unlink as *const (),
        unlinkat as *const (),
        rmdir as *const (),
        rename as *const (),
        renameat as *const (),
        renameat2 as *const (),
        link as *const (),
        linkat as *const (),
        symlink as *const (),
        symlinkat as *const (),
        readlink as *const (),
        readlinkat as *const (),
        chmod as *const (),
        fchmod as *const (),
        fchmodat as *const (),
        realpath as *const (),
        opendir as *const (),
    ]
}

/// The rest of [`keep_linked`] (one array would be too long to read).
pub(super) const fn keep_linked_more() -> [*const (); 16] {
    [
        fdopendir as *const (),
        readdir as *const (),
        readdir64 as *const (),
        closedir as *const (),
        dirfd as *const (),
        rewinddir as *const (),
        getdents64 as *const (),
        mmap as *const (),
        mmap64 as *const (),
        copy_file_range as *const (),
        sendfile as *const (),
        sendfile64 as *const (),
        splice as *const (),
        chown as *const (),
        fchown as *const (),
        utimensat as *const (),
    ]
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

macro_rules! open_fn {
    ($(#[$doc:meta])* $name:ident, $real:literal, at) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// As libc's (`mode` is read only with `O_CREAT`/`O_TMPFILE`).
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            dirfd: c_int,
            path: *const c_char,
            flags: c_int,
            mode: mode_t,
        ) -> c_int {
            // SAFETY: forwarded from our caller.
            if let Some(r) = unsafe { sim_open(dirfd, path, flags) } {
                return r;
            }
            real!($real: OpenAt)(dirfd, path, flags, mode as c_uint)
        }
    };
    ($(#[$doc:meta])* $name:ident, $real:literal) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// As libc's (`mode` is read only with `O_CREAT`/`O_TMPFILE`).
        #[no_mangle]
        pub unsafe extern "C" fn $name(path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
            // SAFETY: forwarded from our caller.
            if let Some(r) = unsafe { sim_open(libc::AT_FDCWD, path, flags) } {
                return r;
            }
            type Open = unsafe extern "C" fn(*const c_char, c_int, ...) -> c_int;
            real!($real: Open)(path, flags, mode as c_uint)
        }
    };
}

open_fn!(
    /// Interposed `open`.
    open, c"open"
);
open_fn!(
    /// Interposed `open64` (`std::fs::File::open`, `OpenOptions::open`).
    open64, c"open64"
);
open_fn!(
    /// Interposed `openat`.
    openat, c"openat", at
);
open_fn!(
    /// Interposed `openat64` (std's `remove_dir_all`).
    openat64, c"openat64", at
);

/// Interposed `creat`: `open(path, O_CREAT|O_WRONLY|O_TRUNC, mode)`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn creat(path: *const c_char, mode: mode_t) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { open(path, libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC, mode) }
}

/// Interposed `creat64`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn creat64(path: *const c_char, mode: mode_t) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { open64(path, libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC, mode) }
}

/// Interposed `__open_2` (`open` under `_FORTIFY_SOURCE`, without a mode).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn __open_2(path: *const c_char, flags: c_int) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { open(path, flags, 0) }
}

/// Interposed `__open64_2`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn __open64_2(path: *const c_char, flags: c_int) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { open64(path, flags, 0) }
}

/// Interposed `__openat_2`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn __openat_2(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { openat(dirfd, path, flags, 0) }
}

/// Interposed `__openat64_2`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn __openat64_2(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
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
#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    if crate::fs::posix::table::any() {
        let _ = guarded(|| posix::close(fd));
    }
    real!(c"close": unsafe extern "C" fn(c_int) -> c_int)(fd)
}

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

/// Interposed `read`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn read(fd: c_int, buf: *mut c_void, len: size_t) -> ssize_t {
    type Read = unsafe extern "C" fn(c_int, *mut c_void, size_t) -> ssize_t;
    if !in_simulation() || !posix::is_sim(fd) {
        return real!(c"read": Read)(fd, buf, len);
    }
    // SAFETY: the caller's buffer.
    let route = guarded(|| posix::read(fd, unsafe { bytes_mut(buf, len) }, None));
    count(route, || real!(c"read": Read)(fd, buf, len))
}

/// Interposed `write`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn write(fd: c_int, buf: *const c_void, len: size_t) -> ssize_t {
    type Write = unsafe extern "C" fn(c_int, *const c_void, size_t) -> ssize_t;
    if !in_simulation() || !posix::is_sim(fd) {
        return real!(c"write": Write)(fd, buf, len);
    }
    // SAFETY: the caller's buffer.
    let route = guarded(|| posix::write(fd, unsafe { bytes(buf, len) }, None));
    count(route, || real!(c"write": Write)(fd, buf, len))
}

macro_rules! pread_fn {
    ($name:ident, $real:literal, $off:ty) => {
        /// Interposed, as `read` at an offset.
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            fd: c_int,
            buf: *mut c_void,
            len: size_t,
            offset: $off,
        ) -> ssize_t {
            type F = unsafe extern "C" fn(c_int, *mut c_void, size_t, $off) -> ssize_t;
            if !in_simulation() || !posix::is_sim(fd) {
                return real!($real: F)(fd, buf, len, offset);
            }
            if offset < 0 {
                return fail(libc::EINVAL);
            }
            // SAFETY: the caller's buffer.
            let route = guarded(|| {
                posix::read(fd, unsafe { bytes_mut(buf, len) }, Some(offset as u64))
            });
            count(route, || real!($real: F)(fd, buf, len, offset))
        }
    };
}

macro_rules! pwrite_fn {
    ($name:ident, $real:literal, $off:ty) => {
        /// Interposed, as `write` at an offset.
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            fd: c_int,
            buf: *const c_void,
            len: size_t,
            offset: $off,
        ) -> ssize_t {
            type F = unsafe extern "C" fn(c_int, *const c_void, size_t, $off) -> ssize_t;
            if !in_simulation() || !posix::is_sim(fd) {
                return real!($real: F)(fd, buf, len, offset);
            }
            if offset < 0 {
                return fail(libc::EINVAL);
            }
            // SAFETY: the caller's buffer.
            let route =
                guarded(|| posix::write(fd, unsafe { bytes(buf, len) }, Some(offset as u64)));
            count(route, || real!($real: F)(fd, buf, len, offset))
        }
    };
}

pread_fn!(pread, c"pread", off_t);
pread_fn!(pread64, c"pread64", off64_t);
pwrite_fn!(pwrite, c"pwrite", off_t);
pwrite_fn!(pwrite64, c"pwrite64", off64_t);

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

/// Interposed `readv` (`Read::read_vectored`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn readv(fd: c_int, iov: *const iovec, n: c_int) -> ssize_t {
    type F = unsafe extern "C" fn(c_int, *const iovec, c_int) -> ssize_t;
    if !in_simulation() || !posix::is_sim(fd) {
        return real!(c"readv": F)(fd, iov, n);
    }
    // SAFETY: forwarded.
    count(unsafe { sim_readv(fd, iov, n, None) }, || {
        real!(c"readv": F)(fd, iov, n)
    })
}

/// Interposed `writev` (`Write::write_vectored`, `write_all_vectored`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn writev(fd: c_int, iov: *const iovec, n: c_int) -> ssize_t {
    type F = unsafe extern "C" fn(c_int, *const iovec, c_int) -> ssize_t;
    if !in_simulation() || !posix::is_sim(fd) {
        return real!(c"writev": F)(fd, iov, n);
    }
    // SAFETY: forwarded.
    count(unsafe { sim_writev(fd, iov, n, None) }, || {
        real!(c"writev": F)(fd, iov, n)
    })
}

macro_rules! preadv_fn {
    ($name:ident, $real:literal, $sim:ident, $off:ty) => {
        /// Interposed, as the vectored call at an offset.
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            fd: c_int,
            iov: *const iovec,
            n: c_int,
            offset: $off,
        ) -> ssize_t {
            type F = unsafe extern "C" fn(c_int, *const iovec, c_int, $off) -> ssize_t;
            if !in_simulation() || !posix::is_sim(fd) {
                return real!($real: F)(fd, iov, n, offset);
            }
            if offset < 0 {
                return fail(libc::EINVAL);
            }
            // SAFETY: forwarded.
            count(unsafe { $sim(fd, iov, n, Some(offset as u64)) }, || {
                real!($real: F)(fd, iov, n, offset)
            })
        }
    };
}

preadv_fn!(preadv, c"preadv", sim_readv, off_t);
preadv_fn!(preadv64, c"preadv64", sim_readv, off64_t);
preadv_fn!(pwritev, c"pwritev", sim_writev, off_t);
preadv_fn!(pwritev64, c"pwritev64", sim_writev, off64_t);

macro_rules! lseek_fn {
    ($name:ident, $real:literal, $off:ty) => {
        /// Interposed `lseek`.
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(fd: c_int, offset: $off, whence: c_int) -> $off {
            type F = unsafe extern "C" fn(c_int, $off, c_int) -> $off;
            if !in_simulation() || !posix::is_sim(fd) {
                return real!($real: F)(fd, offset, whence);
            }
            match guarded(|| posix::lseek(fd, offset as i64, whence)) {
                Route::Sim(Ok(pos)) => pos as $off,
                Route::Sim(Err(e)) => fail(e),
                _ => real!($real: F)(fd, offset, whence),
            }
        }
    };
}

lseek_fn!(lseek, c"lseek", off_t);
lseek_fn!(lseek64, c"lseek64", off64_t);

/// Answers a call returning 0 or -1.
fn status(route: Route<()>, real: impl FnOnce() -> c_int) -> c_int {
    match route {
        Route::Sim(Ok(())) => 0,
        Route::Sim(Err(e)) => fail(e),
        Route::Real | Route::Lower(_) => real(),
    }
}

/// Interposed `fsync` (`File::sync_all`): makes the simulated file (or a
/// directory's entries) durable.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn fsync(fd: c_int) -> c_int {
    if !in_simulation() {
        return real!(c"fsync": unsafe extern "C" fn(c_int) -> c_int)(fd);
    }
    status(guarded(|| posix::fsync(fd, false)), || {
        real!(c"fsync": unsafe extern "C" fn(c_int) -> c_int)(fd)
    })
}

/// Interposed `fdatasync` (`File::sync_data`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn fdatasync(fd: c_int) -> c_int {
    if !in_simulation() {
        return real!(c"fdatasync": unsafe extern "C" fn(c_int) -> c_int)(fd);
    }
    status(guarded(|| posix::fsync(fd, true)), || {
        real!(c"fdatasync": unsafe extern "C" fn(c_int) -> c_int)(fd)
    })
}

/// Interposed `sync_file_range`: accepted, and makes nothing durable (it
/// never promised to: it does not flush metadata nor the disk's cache).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn sync_file_range(
    fd: c_int,
    offset: off64_t,
    len: off64_t,
    flags: c_uint,
) -> c_int {
    type F = unsafe extern "C" fn(c_int, off64_t, off64_t, c_uint) -> c_int;
    if !in_simulation() {
        return real!(c"sync_file_range": F)(fd, offset, len, flags);
    }
    status(guarded(|| posix::accept_fd(fd)), || {
        real!(c"sync_file_range": F)(fd, offset, len, flags)
    })
}

macro_rules! ftruncate_fn {
    ($name:ident, $real:literal, $off:ty) => {
        /// Interposed `ftruncate` (`File::set_len`).
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(fd: c_int, len: $off) -> c_int {
            type F = unsafe extern "C" fn(c_int, $off) -> c_int;
            if !in_simulation() {
                return real!($real: F)(fd, len);
            }
            status(guarded(|| posix::ftruncate(fd, len as i64)), || {
                real!($real: F)(fd, len)
            })
        }
    };
}

ftruncate_fn!(ftruncate, c"ftruncate", off_t);
ftruncate_fn!(ftruncate64, c"ftruncate64", off64_t);

macro_rules! truncate_fn {
    ($name:ident, $real:literal, $off:ty) => {
        /// Interposed `truncate`.
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(path: *const c_char, len: $off) -> c_int {
            type F = unsafe extern "C" fn(*const c_char, $off) -> c_int;
            if !in_simulation() {
                return real!($real: F)(path, len);
            }
            // SAFETY: forwarded.
            let Some(p) = (unsafe { cstr(path) }) else {
                return real!($real: F)(path, len);
            };
            status(guarded(|| posix::truncate(p, len as i64)), || {
                real!($real: F)(path, len)
            })
        }
    };
}

truncate_fn!(truncate, c"truncate", off_t);
truncate_fn!(truncate64, c"truncate64", off64_t);

macro_rules! posix_fallocate_fn {
    ($name:ident, $real:literal, $off:ty) => {
        /// Interposed `posix_fallocate` (returns the error, not `errno`).
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(fd: c_int, offset: $off, len: $off) -> c_int {
            type F = unsafe extern "C" fn(c_int, $off, $off) -> c_int;
            if !in_simulation() {
                return real!($real: F)(fd, offset, len);
            }
            match guarded(|| posix::fallocate(fd, offset as i64, len as i64)) {
                Route::Sim(Ok(())) => 0,
                Route::Sim(Err(e)) => e,
                _ => real!($real: F)(fd, offset, len),
            }
        }
    };
}

posix_fallocate_fn!(posix_fallocate, c"posix_fallocate", off_t);
posix_fallocate_fn!(posix_fallocate64, c"posix_fallocate64", off64_t);

/// Interposed `fallocate`: mode 0 extends the simulated file; any other
/// mode (punching holes, ...) is `EOPNOTSUPP` on it.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn fallocate(fd: c_int, mode: c_int, offset: off_t, len: off_t) -> c_int {
    type F = unsafe extern "C" fn(c_int, c_int, off_t, off_t) -> c_int;
    if !in_simulation() || !posix::is_sim(fd) {
        return real!(c"fallocate": F)(fd, mode, offset, len);
    }
    if mode != 0 {
        return fail(libc::EOPNOTSUPP);
    }
    status(guarded(|| posix::fallocate(fd, offset, len)), || {
        real!(c"fallocate": F)(fd, mode, offset, len)
    })
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

/// Interposed `dup`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn dup(fd: c_int) -> c_int {
    if !in_simulation() {
        return real!(c"dup": unsafe extern "C" fn(c_int) -> c_int)(fd);
    }
    int(guarded(|| posix::dup(fd, 0, false)), || {
        real!(c"dup": unsafe extern "C" fn(c_int) -> c_int)(fd)
    })
}

/// Interposed `dup2`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn dup2(old: c_int, new: c_int) -> c_int {
    type F = unsafe extern "C" fn(c_int, c_int) -> c_int;
    if !in_simulation() {
        if crate::fs::posix::table::any() {
            posix::forget(new);
        }
        return real!(c"dup2": F)(old, new);
    }
    int(guarded(|| posix::dup3(old, new, 0)), || {
        real!(c"dup2": F)(old, new)
    })
}

/// Interposed `dup3`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn dup3(old: c_int, new: c_int, flags: c_int) -> c_int {
    type F = unsafe extern "C" fn(c_int, c_int, c_int) -> c_int;
    if !in_simulation() {
        if crate::fs::posix::table::any() {
            posix::forget(new);
        }
        return real!(c"dup3": F)(old, new, flags);
    }
    if old == new {
        return fail(libc::EINVAL);
    }
    int(guarded(|| posix::dup3(old, new, flags)), || {
        real!(c"dup3": F)(old, new, flags)
    })
}

type Fcntl = unsafe extern "C" fn(c_int, c_int, ...) -> c_int;

/// Interposed `fcntl` (std's `try_clone` is `F_DUPFD_CLOEXEC`; SQLite
/// locks with `F_SETLK`). Every lock is granted on a simulated file.
///
/// # Safety
///
/// As libc's: `arg` is what `cmd` takes (an int or a pointer).
#[no_mangle]
pub unsafe extern "C" fn fcntl(fd: c_int, cmd: c_int, arg: c_long) -> c_int {
    if !in_simulation() {
        return real!(c"fcntl": Fcntl)(fd, cmd, arg);
    }
    int(guarded(|| posix::fcntl(fd, cmd, arg)), || {
        real!(c"fcntl": Fcntl)(fd, cmd, arg)
    })
}

/// Interposed `fcntl64`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn fcntl64(fd: c_int, cmd: c_int, arg: c_long) -> c_int {
    if !in_simulation() {
        return real!(c"fcntl64": Fcntl)(fd, cmd, arg);
    }
    int(guarded(|| posix::fcntl(fd, cmd, arg)), || {
        real!(c"fcntl64": Fcntl)(fd, cmd, arg)
    })
}

/// Interposed `flock` (`File::lock`): always granted on a simulated file.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn flock(fd: c_int, op: c_int) -> c_int {
    type F = unsafe extern "C" fn(c_int, c_int) -> c_int;
    if !in_simulation() {
        return real!(c"flock": F)(fd, op);
    }
    status(guarded(|| posix::accept_fd(fd)), || {
        real!(c"flock": F)(fd, op)
    })
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

type FstatAt<S> = unsafe extern "C" fn(c_int, *const c_char, *mut S, c_int) -> c_int;

macro_rules! fstat_fn {
    ($name:ident, $real:literal, $st:ty) => {
        /// Interposed `fstat`.
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(fd: c_int, buf: *mut $st) -> c_int {
            type F = unsafe extern "C" fn(c_int, *mut $st) -> c_int;
            if !in_simulation() || !posix::is_sim(fd) {
                return real!($real: F)(fd, buf);
            }
            // SAFETY: `stat` and `stat64` share a layout on 64-bit Linux.
            unsafe {
                stat_answer(
                    guarded(|| posix::fstat(fd)),
                    buf.cast(),
                    || real!($real: F)(fd, buf),
                    |_| real!($real: F)(fd, buf),
                )
            }
        }
    };
}

fstat_fn!(fstat, c"fstat", libc::stat);
fstat_fn!(fstat64, c"fstat64", libc::stat64);

macro_rules! fstatat_fn {
    ($name:ident, $real:literal, $st:ty) => {
        /// Interposed `fstatat` (std's `DirEntry::metadata` without statx).
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            dirfd: c_int,
            path: *const c_char,
            buf: *mut $st,
            flags: c_int,
        ) -> c_int {
            if !in_simulation() {
                return real!($real: FstatAt<$st>)(dirfd, path, buf, flags);
            }
            // SAFETY: forwarded.
            let Some(p) = (unsafe { cstr(path) }) else {
                return real!($real: FstatAt<$st>)(dirfd, path, buf, flags);
            };
            // SAFETY: `stat` and `stat64` share a layout on 64-bit Linux.
            unsafe {
                stat_answer(
                    guarded(|| posix::stat_at(dirfd, p, flags)),
                    buf.cast(),
                    || real!($real: FstatAt<$st>)(dirfd, path, buf, flags),
                    |abs| real!($real: FstatAt<$st>)(libc::AT_FDCWD, abs.as_ptr(), buf, flags),
                )
            }
        }
    };
}

fstatat_fn!(fstatat, c"fstatat", libc::stat);
fstatat_fn!(fstatat64, c"fstatat64", libc::stat64);

macro_rules! stat_fn {
    ($(#[$doc:meta])* $name:ident, $st:ty, $at:ident, $flags:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(path: *const c_char, buf: *mut $st) -> c_int {
            // SAFETY: forwarded.
            unsafe { $at(libc::AT_FDCWD, path, buf, $flags) }
        }
    };
}

stat_fn!(
    /// Interposed `stat`.
    stat, libc::stat, fstatat, 0
);
stat_fn!(
    /// Interposed `stat64` (std's `metadata` without statx).
    stat64, libc::stat64, fstatat64, 0
);
stat_fn!(
    /// Interposed `lstat`.
    lstat, libc::stat, fstatat, libc::AT_SYMLINK_NOFOLLOW
);
stat_fn!(
    /// Interposed `lstat64`.
    lstat64, libc::stat64, fstatat64, libc::AT_SYMLINK_NOFOLLOW
);

/// Interposed `statx`: std's `metadata`, `symlink_metadata`,
/// `File::metadata` and `DirEntry::metadata` on Linux. A null path (std's
/// probe for whether the kernel has statx) goes to the real call.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn statx(
    dirfd: c_int,
    path: *const c_char,
    flags: c_int,
    mask: c_uint,
    buf: *mut libc::statx,
) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const c_char, c_int, c_uint, *mut libc::statx) -> c_int;
    if !in_simulation() {
        return real!(c"statx": F)(dirfd, path, flags, mask, buf);
    }
    // SAFETY: forwarded.
    let Some(p) = (unsafe { cstr(path) }) else {
        return real!(c"statx": F)(dirfd, path, flags, mask, buf);
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
        Route::Lower(abs) => real!(c"statx": F)(libc::AT_FDCWD, abs.as_ptr(), flags, mask, buf),
        Route::Real => real!(c"statx": F)(dirfd, path, flags, mask, buf),
    }
}

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

/// Interposed `access`: every access is granted on an existing path.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn access(path: *const c_char, mode: c_int) -> c_int {
    type F = unsafe extern "C" fn(*const c_char, c_int) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| posix::exists_at(libc::AT_FDCWD, p),
            || real!(c"access": F)(path, mode),
            |_| 0,
        )
    }
}

/// Interposed `faccessat`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn faccessat(
    dirfd: c_int,
    path: *const c_char,
    mode: c_int,
    flags: c_int,
) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const c_char, c_int, c_int) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| posix::exists_at(dirfd, p),
            || real!(c"faccessat": F)(dirfd, path, mode, flags),
            |_| 0,
        )
    }
}

macro_rules! accept_path_fn {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) at $dirfd:expr, $path:ident, $real:literal) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
            type F = unsafe extern "C" fn($($ty),*) -> c_int;
            // SAFETY: forwarded.
            unsafe {
                path_status(
                    $path,
                    |p| posix::exists_at($dirfd, p),
                    || real!($real: F)($($arg),*),
                    |_| 0,
                )
            }
        }
    };
}

accept_path_fn!(
    /// Interposed `chmod` (`std::fs::set_permissions`): the simulated disk
    /// keeps no modes; succeeds on an existing path, changes nothing (and
    /// never a real file's mode).
    chmod(path: *const c_char, mode: mode_t) at libc::AT_FDCWD, path, c"chmod"
);
accept_path_fn!(
    /// Interposed `fchmodat`: as [`chmod`].
    fchmodat(dirfd: c_int, path: *const c_char, mode: mode_t, flags: c_int) at dirfd, path, c"fchmodat"
);
accept_path_fn!(
    /// Interposed `chown`: the simulated disk keeps no owners.
    chown(path: *const c_char, uid: libc::uid_t, gid: libc::gid_t) at libc::AT_FDCWD, path, c"chown"
);
accept_path_fn!(
    /// Interposed `utimensat`: the simulated disk keeps no timestamps.
    utimensat(dirfd: c_int, path: *const c_char, times: *const libc::timespec, flags: c_int) at dirfd, path, c"utimensat"
);

/// Interposed `fchmod` (`File::set_permissions`): accepted on a simulated
/// or lower-layer file, changes nothing.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn fchmod(fd: c_int, mode: mode_t) -> c_int {
    type F = unsafe extern "C" fn(c_int, mode_t) -> c_int;
    if !in_simulation() {
        return real!(c"fchmod": F)(fd, mode);
    }
    status(guarded(|| posix::accept_fd(fd)), || {
        real!(c"fchmod": F)(fd, mode)
    })
}

/// Interposed `fchown`: as [`fchmod`].
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn fchown(fd: c_int, uid: libc::uid_t, gid: libc::gid_t) -> c_int {
    type F = unsafe extern "C" fn(c_int, libc::uid_t, libc::gid_t) -> c_int;
    if !in_simulation() {
        return real!(c"fchown": F)(fd, uid, gid);
    }
    status(guarded(|| posix::accept_fd(fd)), || {
        real!(c"fchown": F)(fd, uid, gid)
    })
}

/// Interposed `futimens` (`File::set_times`): as [`fchmod`].
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn futimens(fd: c_int, times: *const libc::timespec) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const libc::timespec) -> c_int;
    if !in_simulation() {
        return real!(c"futimens": F)(fd, times);
    }
    status(guarded(|| posix::accept_fd(fd)), || {
        real!(c"futimens": F)(fd, times)
    })
}

// ----- names -------------------------------------------------------------------------

/// Interposed `mkdir` (`std::fs::create_dir`, `DirBuilder`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn mkdir(path: *const c_char, mode: mode_t) -> c_int {
    type F = unsafe extern "C" fn(*const c_char, mode_t) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| posix::mkdir_at(libc::AT_FDCWD, p),
            || real!(c"mkdir": F)(path, mode),
            |_| fail(libc::EIO),
        )
    }
}

/// Interposed `mkdirat`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn mkdirat(dirfd: c_int, path: *const c_char, mode: mode_t) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const c_char, mode_t) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| posix::mkdir_at(dirfd, p),
            || real!(c"mkdirat": F)(dirfd, path, mode),
            |_| fail(libc::EIO),
        )
    }
}

/// Interposed `unlink` (`std::fs::remove_file`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn unlink(path: *const c_char) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| posix::unlink_at(libc::AT_FDCWD, p, 0),
            || real!(c"unlink": unsafe extern "C" fn(*const c_char) -> c_int)(path),
            |_| fail(libc::EIO),
        )
    }
}

/// Interposed `rmdir` (`std::fs::remove_dir`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn rmdir(path: *const c_char) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| posix::unlink_at(libc::AT_FDCWD, p, libc::AT_REMOVEDIR),
            || real!(c"rmdir": unsafe extern "C" fn(*const c_char) -> c_int)(path),
            |_| fail(libc::EIO),
        )
    }
}

/// Interposed `unlinkat` (std's `remove_dir_all`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn unlinkat(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const c_char, c_int) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| posix::unlink_at(dirfd, p, flags),
            || real!(c"unlinkat": F)(dirfd, path, flags),
            |_| fail(libc::EIO),
        )
    }
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

/// Interposed `rename` (`std::fs::rename`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn rename(old: *const c_char, new: *const c_char) -> c_int {
    type F = unsafe extern "C" fn(*const c_char, *const c_char) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        two_path_status(
            old,
            new,
            |a, b| posix::rename_at(libc::AT_FDCWD, a, libc::AT_FDCWD, b, 0),
            || real!(c"rename": F)(old, new),
        )
    }
}

/// Interposed `renameat`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn renameat(
    olddirfd: c_int,
    old: *const c_char,
    newdirfd: c_int,
    new: *const c_char,
) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const c_char, c_int, *const c_char) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        two_path_status(
            old,
            new,
            |a, b| posix::rename_at(olddirfd, a, newdirfd, b, 0),
            || real!(c"renameat": F)(olddirfd, old, newdirfd, new),
        )
    }
}

/// Interposed `renameat2` (`RENAME_NOREPLACE`: tempfile's
/// `persist_noclobber` through rustix's libc backend).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn renameat2(
    olddirfd: c_int,
    old: *const c_char,
    newdirfd: c_int,
    new: *const c_char,
    flags: c_uint,
) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const c_char, c_int, *const c_char, c_uint) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        two_path_status(
            old,
            new,
            |a, b| posix::rename_at(olddirfd, a, newdirfd, b, flags),
            || real!(c"renameat2": F)(olddirfd, old, newdirfd, new, flags),
        )
    }
}

/// Interposed `link`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn link(old: *const c_char, new: *const c_char) -> c_int {
    type F = unsafe extern "C" fn(*const c_char, *const c_char) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        two_path_status(
            old,
            new,
            |a, b| posix::link_at(libc::AT_FDCWD, a, libc::AT_FDCWD, b),
            || real!(c"link": F)(old, new),
        )
    }
}

/// Interposed `linkat` (`std::fs::hard_link`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn linkat(
    olddirfd: c_int,
    old: *const c_char,
    newdirfd: c_int,
    new: *const c_char,
    flags: c_int,
) -> c_int {
    type F = unsafe extern "C" fn(c_int, *const c_char, c_int, *const c_char, c_int) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        two_path_status(
            old,
            new,
            |a, b| posix::link_at(olddirfd, a, newdirfd, b),
            || real!(c"linkat": F)(olddirfd, old, newdirfd, new, flags),
        )
    }
}

/// Refuses a symlink on the simulated disk: `EPERM`, and a note.
fn refuse_symlink(route: Route<()>) -> Route<()> {
    if let Route::Sim(Err(_)) = route {
        refuse(Escape::Symlink);
    }
    route
}

/// Interposed `symlink` (`std::os::unix::fs::symlink`): the simulated
/// disk has no symlinks (`EPERM`, as a file system without them).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn symlink(target: *const c_char, path: *const c_char) -> c_int {
    type F = unsafe extern "C" fn(*const c_char, *const c_char) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| refuse_symlink(posix::symlink_at(libc::AT_FDCWD, p)),
            || real!(c"symlink": F)(target, path),
            |_| fail(libc::EIO),
        )
    }
}

/// Interposed `symlinkat`: as [`symlink`].
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn symlinkat(
    target: *const c_char,
    dirfd: c_int,
    path: *const c_char,
) -> c_int {
    type F = unsafe extern "C" fn(*const c_char, c_int, *const c_char) -> c_int;
    // SAFETY: forwarded.
    unsafe {
        path_status(
            path,
            |p| refuse_symlink(posix::symlink_at(dirfd, p)),
            || real!(c"symlinkat": F)(target, dirfd, path),
            |_| fail(libc::EIO),
        )
    }
}

type ReadlinkAt = unsafe extern "C" fn(c_int, *const c_char, *mut c_char, size_t) -> ssize_t;

/// Interposed `readlinkat`: `EINVAL` on a simulated path (no symlinks);
/// a real link of the lower layer reads as it is.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn readlinkat(
    dirfd: c_int,
    path: *const c_char,
    buf: *mut c_char,
    len: size_t,
) -> ssize_t {
    let real = || real!(c"readlinkat": ReadlinkAt)(dirfd, path, buf, len);
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
            real!(c"readlinkat": ReadlinkAt)(libc::AT_FDCWD, abs.as_ptr(), buf, len)
        }
    }
}

/// Interposed `readlink` (`std::fs::read_link`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn readlink(path: *const c_char, buf: *mut c_char, len: size_t) -> ssize_t {
    if !in_simulation() {
        type F = unsafe extern "C" fn(*const c_char, *mut c_char, size_t) -> ssize_t;
        return real!(c"readlink": F)(path, buf, len);
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
#[no_mangle]
pub unsafe extern "C" fn realpath(path: *const c_char, resolved: *mut c_char) -> *mut c_char {
    type F = unsafe extern "C" fn(*const c_char, *mut c_char) -> *mut c_char;
    if !in_simulation() {
        return real!(c"realpath": F)(path, resolved);
    }
    // SAFETY: forwarded.
    let Some(p) = (unsafe { cstr(path) }) else {
        return real!(c"realpath": F)(path, resolved);
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
        Route::Real | Route::Lower(_) => real!(c"realpath": F)(path, resolved),
    }
}

// ----- directories ----------------------------------------------------------------

/// Interposed `opendir`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn opendir(path: *const c_char) -> *mut DIR {
    type F = unsafe extern "C" fn(*const c_char) -> *mut DIR;
    if !in_simulation() {
        return real!(c"opendir": F)(path);
    }
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    // SAFETY: forwarded.
    match unsafe { sim_open(libc::AT_FDCWD, path, flags) } {
        None => real!(c"opendir": F)(path),
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
#[no_mangle]
pub unsafe extern "C" fn fdopendir(fd: c_int) -> *mut DIR {
    type F = unsafe extern "C" fn(c_int) -> *mut DIR;
    if !in_simulation() {
        return real!(c"fdopendir": F)(fd);
    }
    match guarded(|| dir::fdopendir(fd)) {
        Route::Sim(Ok(dir)) => dir,
        Route::Sim(Err(e)) => {
            set_errno(e);
            std::ptr::null_mut()
        }
        Route::Real | Route::Lower(_) => real!(c"fdopendir": F)(fd),
    }
}

/// Interposed `readdir64` (std's `ReadDir`).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn readdir64(d: *mut DIR) -> *mut dirent64 {
    if dir::is_stream(d) {
        // SAFETY: a registered stream.
        return unsafe { dir::readdir(d) };
    }
    real!(c"readdir64": unsafe extern "C" fn(*mut DIR) -> *mut dirent64)(d)
}

/// Interposed `readdir` (`struct dirent` is `struct dirent64` on 64-bit
/// Linux).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn readdir(d: *mut DIR) -> *mut libc::dirent {
    if dir::is_stream(d) {
        // SAFETY: a registered stream; the layouts are the same.
        return unsafe { dir::readdir(d) }.cast();
    }
    real!(c"readdir": unsafe extern "C" fn(*mut DIR) -> *mut libc::dirent)(d)
}

/// Interposed `closedir`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn closedir(d: *mut DIR) -> c_int {
    if dir::is_stream(d) {
        // SAFETY: a registered stream; its descriptor is ours to close.
        return unsafe { close(dir::closedir(d)) };
    }
    real!(c"closedir": unsafe extern "C" fn(*mut DIR) -> c_int)(d)
}

/// Interposed `dirfd` (std's `DirEntry::metadata` stats relative to it).
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn dirfd(d: *mut DIR) -> c_int {
    if dir::is_stream(d) {
        // SAFETY: a registered stream.
        return unsafe { dir::dirfd(d) };
    }
    real!(c"dirfd": unsafe extern "C" fn(*mut DIR) -> c_int)(d)
}

/// Interposed `rewinddir`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn rewinddir(d: *mut DIR) {
    if dir::is_stream(d) {
        // SAFETY: a registered stream.
        return unsafe { dir::rewinddir(d) };
    }
    real!(c"rewinddir": unsafe extern "C" fn(*mut DIR))(d)
}

/// Interposed `getdents64`.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn getdents64(fd: c_int, buf: *mut c_void, len: size_t) -> ssize_t {
    type F = unsafe extern "C" fn(c_int, *mut c_void, size_t) -> ssize_t;
    if !in_simulation() || !posix::is_sim(fd) {
        return real!(c"getdents64": F)(fd, buf, len);
    }
    // SAFETY: the caller's buffer.
    let route = guarded(|| dir::getdents64(fd, unsafe { bytes_mut(buf, len) }));
    count(route, || real!(c"getdents64": F)(fd, buf, len))
}

// ----- what cannot be simulated, or only as a copy --------------------------------------

type Mmap = unsafe extern "C" fn(*mut c_void, size_t, c_int, c_int, c_int, off_t) -> *mut c_void;

/// `mmap` of a simulated file: a private mapping (or a read-only shared
/// one) is an anonymous mapping holding a copy of the file's bytes; a
/// writable shared mapping cannot be simulated (writes through it would
/// bypass the disk model): `ENODEV` and a note.
///
/// # Safety
///
/// As libc's.
unsafe fn sim_mmap(
    real: &dyn Fn(*mut c_void, size_t, c_int, c_int, c_int, off_t) -> *mut c_void,
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: off_t,
) -> *mut c_void {
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

/// Interposed `mmap`: see [`sim_mmap`] for a simulated file.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: off_t,
) -> *mut c_void {
    if fd < 0 || !in_simulation() || !posix::is_sim_file(fd) {
        return real!(c"mmap": Mmap)(addr, len, prot, flags, fd, offset);
    }
    let real = |a, l, p, f, d, o| real!(c"mmap": Mmap)(a, l, p, f, d, o);
    // SAFETY: forwarded.
    unsafe { sim_mmap(&real, addr, len, prot, flags, fd, offset) }
}

/// Interposed `mmap64`: as [`mmap`].
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: off64_t,
) -> *mut c_void {
    if fd < 0 || !in_simulation() || !posix::is_sim_file(fd) {
        return real!(c"mmap64": Mmap)(addr, len, prot, flags, fd, offset);
    }
    let real = |a, l, p, f, d, o| real!(c"mmap64": Mmap)(a, l, p, f, d, o);
    // SAFETY: forwarded.
    unsafe { sim_mmap(&real, addr, len, prot, flags, fd, offset) }
}

/// Interposed `copy_file_range` (std's `fs::copy` and `io::copy` between
/// files): a simulated file is on another device than any real one, and
/// the kernel cannot copy it: `EXDEV`, and std falls back to reading and
/// writing.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn copy_file_range(
    fd_in: c_int,
    off_in: *mut loff_t,
    fd_out: c_int,
    off_out: *mut loff_t,
    len: size_t,
    flags: c_uint,
) -> ssize_t {
    type F =
        unsafe extern "C" fn(c_int, *mut loff_t, c_int, *mut loff_t, size_t, c_uint) -> ssize_t;
    if in_simulation() && (posix::is_sim(fd_in) || posix::is_sim(fd_out)) {
        return fail(libc::EXDEV);
    }
    real!(c"copy_file_range": F)(fd_in, off_in, fd_out, off_out, len, flags)
}

macro_rules! sendfile_fn {
    ($name:ident, $real:literal) => {
        /// Interposed `sendfile`: `EINVAL` on a simulated file (std falls
        /// back to reading and writing).
        ///
        /// # Safety
        ///
        /// As libc's.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            out_fd: c_int,
            in_fd: c_int,
            offset: *mut off_t,
            count: size_t,
        ) -> ssize_t {
            type F = unsafe extern "C" fn(c_int, c_int, *mut off_t, size_t) -> ssize_t;
            if in_simulation() && (posix::is_sim(in_fd) || posix::is_sim(out_fd)) {
                return fail(libc::EINVAL);
            }
            real!($real: F)(out_fd, in_fd, offset, count)
        }
    };
}

sendfile_fn!(sendfile, c"sendfile");
sendfile_fn!(sendfile64, c"sendfile64");

/// Interposed `splice`: `EINVAL` on a simulated file.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn splice(
    fd_in: c_int,
    off_in: *mut loff_t,
    fd_out: c_int,
    off_out: *mut loff_t,
    len: size_t,
    flags: c_uint,
) -> ssize_t {
    type F =
        unsafe extern "C" fn(c_int, *mut loff_t, c_int, *mut loff_t, size_t, c_uint) -> ssize_t;
    if in_simulation() && (posix::is_sim(fd_in) || posix::is_sim(fd_out)) {
        return fail(libc::EINVAL);
    }
    real!(c"splice": F)(fd_in, off_in, fd_out, off_out, len, flags)
}
