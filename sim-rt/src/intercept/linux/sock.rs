//! The interposed socket calls of a simulated socket: a Unix domain one
//! (`disk::posix::sock` answers them) or a TCP or UDP one
//! (`disk::posix::ip`): the ones std and C code use on a socket beyond
//! `socket` (`linux.rs`). Each forwards to libc, at the cost of one
//! thread-local read, outside a simulation or on a descriptor that is not
//! a simulated socket.

use std::ffi::{c_int, c_ulong, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicPtr;
use std::time::Duration;

use libc::{iovec, msghdr, size_t, sockaddr, socklen_t, ssize_t};

use super::{next, set_errno};
use crate::disk::posix::table::{self, Kind};
use crate::disk::posix::{ip, pipe, sock, Route};
use crate::switches::in_simulation;

fn guarded<T>(f: impl FnOnce() -> Route<T>) -> Route<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(Route::Sim(Err(libc::EIO)))
}

fn fail<T: From<i8>>(e: c_int) -> T {
    set_errno(e);
    T::from(-1)
}

/// Whether `fd` is a simulated socket of a running simulation.
pub(super) fn is_sim_socket(fd: c_int) -> bool {
    in_simulation() && is_unix_socket(fd)
}

/// Whether `fd` is a simulated socket (Unix, TCP or UDP), for a caller
/// that checked `in_simulation` already (one thread-local read per call
/// outside).
pub(super) fn is_unix_socket(fd: c_int) -> bool {
    matches!(table::kind(fd), Some(Kind::Unix { .. } | Kind::Ip { .. }))
}

/// The Unix socket's answer, else the TCP/UDP socket's.
fn either<T>(unix: Route<T>, ip: impl FnOnce() -> Route<T>) -> Route<T> {
    match unix {
        Route::Real => ip(),
        r => r,
    }
}

/// `bind` of a simulated socket.
pub(super) fn bind(fd: c_int, addr: &[u8]) -> Route<()> {
    guarded(|| either(sock::bind(fd, addr), || ip::bind(fd, addr)))
}

/// `connect` of a simulated socket.
pub(super) fn connect(fd: c_int, addr: &[u8]) -> Route<()> {
    guarded(|| either(sock::connect(fd, addr), || ip::connect(fd, addr)))
}

/// `listen` of a simulated socket.
pub(super) fn listen(fd: c_int, backlog: c_int) -> Route<()> {
    guarded(|| either(sock::listen(fd, backlog), || ip::listen(fd)))
}

/// `sendto` (or `send` with no address) of a simulated socket.
pub(super) fn send(fd: c_int, buf: &[u8], flags: c_int, to: Option<&[u8]>) -> Route<usize> {
    guarded(|| {
        either(sock::send(fd, buf, flags, to), || {
            ip::send(fd, buf, flags, to)
        })
    })
}

/// `recvfrom` of a simulated socket: the bytes and the sender's address
/// as a `sockaddr`'s bytes (a datagram's).
fn sim_recv(fd: c_int, buf: &mut [u8], flags: c_int) -> Route<(usize, Option<Vec<u8>>)> {
    guarded(|| {
        if sock::is_unix(fd) {
            sock::recv(fd, buf, flags).map(|(n, from)| (n, from.map(|f| sock::sockaddr_of(&f))))
        } else {
            ip::recv(fd, buf, flags).map(|(n, from)| (n, from.map(|f| ip::sockaddr_bytes(&f))))
        }
    })
}

/// `accept4` of a simulated socket: the new descriptor and the peer's
/// address bytes.
fn sim_accept(fd: c_int, flags: c_int) -> Route<(c_int, Vec<u8>)> {
    guarded(|| {
        if sock::is_unix(fd) {
            sock::accept(fd, flags).map(|(new, peer)| (new, sock::sockaddr_of(&peer)))
        } else {
            ip::accept(fd, flags).map(|(new, peer)| (new, ip::sockaddr_bytes(&peer)))
        }
    })
}

/// `getsockname`/`getpeername` of a simulated socket, as bytes.
fn name(fd: c_int, peer: bool) -> Route<Vec<u8>> {
    guarded(|| {
        if sock::is_unix(fd) {
            sock::name(fd, peer).map(|n| sock::sockaddr_of(&n))
        } else {
            ip::name(fd, peer).map(|a| ip::sockaddr_bytes(&a))
        }
    })
}

/// Answers a call returning 0 or -1.
pub(super) fn status(route: Route<()>, real: impl FnOnce() -> c_int) -> c_int {
    match route {
        Route::Sim(Ok(())) => 0,
        Route::Sim(Err(e)) => fail(e),
        _ => real(),
    }
}

/// Answers a call returning a count or -1.
pub(super) fn count(route: Route<usize>, real: impl FnOnce() -> ssize_t) -> ssize_t {
    match route {
        Route::Sim(Ok(n)) => n as ssize_t,
        Route::Sim(Err(e)) => fail(e),
        _ => real(),
    }
}

/// The `len` bytes at `addr` (a `sockaddr`).
///
/// # Safety
///
/// `addr` is null or valid for `len` bytes.
pub(super) unsafe fn addr_bytes<'a>(addr: *const sockaddr, len: socklen_t) -> &'a [u8] {
    if addr.is_null() {
        return &[];
    }
    // SAFETY: forwarded.
    unsafe { std::slice::from_raw_parts(addr.cast(), len as usize) }
}

/// Writes an address's `bytes` to a caller's `sockaddr` of `*len` bytes,
/// truncated, and their full length to `*len`.
///
/// # Safety
///
/// `addr` is null or valid for `*len` bytes; `len` is null or valid.
unsafe fn put_name(bytes: &[u8], addr: *mut sockaddr, len: *mut socklen_t) {
    if addr.is_null() || len.is_null() {
        return;
    }
    // SAFETY: the caller's buffer and length.
    unsafe {
        let room = *len as usize;
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr.cast(), bytes.len().min(room));
        *len = bytes.len() as socklen_t;
    }
}

/// The buffers of a `msghdr`, as one.
///
/// # Safety
///
/// `msg` is a valid `msghdr`.
unsafe fn iovecs<'a>(msg: *const msghdr) -> &'a [iovec] {
    // SAFETY: forwarded.
    unsafe {
        let m = &*msg;
        if m.msg_iov.is_null() || m.msg_iovlen == 0 {
            return &[];
        }
        std::slice::from_raw_parts(m.msg_iov, m.msg_iovlen)
    }
}

/// `sendmsg` on a simulated socket: the buffers gathered, sent to
/// `msg_name` if any (ancillary data is not simulated: `EOPNOTSUPP`).
///
/// # Safety
///
/// `msg` is a valid `msghdr`.
pub(super) unsafe fn sendmsg(fd: c_int, msg: *const msghdr, flags: c_int) -> Route<usize> {
    // SAFETY: forwarded.
    let m = unsafe { &*msg };
    if m.msg_controllen > 0 {
        return Route::Sim(Err(libc::EOPNOTSUPP));
    }
    let mut buf = Vec::new();
    // SAFETY: forwarded.
    for v in unsafe { iovecs(msg) } {
        // SAFETY: each iovec is valid for `iov_len` bytes.
        buf.extend_from_slice(unsafe { std::slice::from_raw_parts(v.iov_base.cast(), v.iov_len) });
    }
    // SAFETY: `msg_name` is null or valid for `msg_namelen` bytes.
    let to =
        (!m.msg_name.is_null()).then(|| unsafe { addr_bytes(m.msg_name.cast(), m.msg_namelen) });
    send(fd, &buf, flags, to)
}

/// `pipe2` inside a simulation: a simulated pipe into `fds`.
///
/// # Safety
///
/// `fds` is valid for two ints.
unsafe fn sim_pipe(fds: *mut c_int, flags: c_int) -> Option<c_int> {
    match guarded(|| pipe::pipe2(flags)) {
        Route::Sim(Ok([r, w])) => {
            // SAFETY: the caller's two ints.
            unsafe {
                *fds = r;
                *fds.add(1) = w;
            }
            Some(0)
        }
        Route::Sim(Err(e)) => Some(fail(e)),
        _ => None,
    }
}

interpose! {
    forward: real;

    /// Interposed `pipe`: a simulated pipe inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pipe(fds: *mut c_int) -> c_int {
        if !in_simulation() || fds.is_null() {
            return real();
        }
        // SAFETY: checked not null; the caller's two ints.
        unsafe { sim_pipe(fds, 0) }.unwrap_or_else(real)
    }

    /// Interposed `pipe2` (std's `io::pipe`, `nix::unistd::pipe2`): a
    /// simulated pipe inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pipe2(fds: *mut c_int, flags: c_int) -> c_int {
        if !in_simulation() || fds.is_null() {
            return real();
        }
        // SAFETY: checked not null; the caller's two ints.
        unsafe { sim_pipe(fds, flags) }.unwrap_or_else(real)
    }

    /// Interposed `socketpair`: a simulated pair inside a simulation
    /// (`AF_UNIX` stream or datagram), else libc's.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn socketpair(domain: c_int, ty: c_int, protocol: c_int, sv: *mut c_int) -> c_int {
        if !in_simulation() || domain != libc::AF_UNIX || sv.is_null() {
            return real();
        }
        match guarded(|| sock::socketpair(ty)) {
            Route::Sim(Ok([a, b])) => {
                // SAFETY: the caller's two ints.
                unsafe {
                    *sv = a;
                    *sv.add(1) = b;
                }
                0
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }

    /// Interposed `accept`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn accept(fd: c_int, addr: *mut sockaddr, len: *mut socklen_t) -> c_int {
        if !is_sim_socket(fd) {
            return real();
        }
        match sim_accept(fd, 0) {
            Route::Sim(Ok((new, peer))) => {
                // SAFETY: the caller's address buffer.
                unsafe { put_name(&peer, addr, len) };
                new
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }

    /// Interposed `accept4` (std's `accept`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn accept4(fd: c_int, addr: *mut sockaddr, len: *mut socklen_t, flags: c_int) -> c_int {
        if !is_sim_socket(fd) {
            return real();
        }
        match sim_accept(fd, flags) {
            Route::Sim(Ok((new, peer))) => {
                // SAFETY: the caller's address buffer.
                unsafe { put_name(&peer, addr, len) };
                new
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }

    /// Interposed `recv` (std's `read` and `peek` of a socket).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn recv(fd: c_int, buf: *mut c_void, len: size_t, flags: c_int) -> ssize_t {
        if !is_sim_socket(fd) {
            return real();
        }
        // SAFETY: the caller's buffer.
        let buf = unsafe { bytes_mut(buf, len) };
        count(sim_recv(fd, buf, flags).map(|(n, _)| n), real)
    }

    /// Interposed `recvfrom`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn recvfrom(
        fd: c_int,
        buf: *mut c_void,
        len: size_t,
        flags: c_int,
        addr: *mut sockaddr,
        addr_len: *mut socklen_t,
    ) -> ssize_t {
        if !is_sim_socket(fd) {
            return real();
        }
        // SAFETY: the caller's buffer.
        let data = unsafe { bytes_mut(buf, len) };
        match sim_recv(fd, data, flags) {
            Route::Sim(Ok((n, from))) => {
                if let Some(from) = from {
                    // SAFETY: the caller's address buffer.
                    unsafe { put_name(&from, addr, addr_len) };
                } else if !addr_len.is_null() {
                    // A stream reports no address.
                    // SAFETY: the caller's length.
                    unsafe { *addr_len = 0 };
                }
                n as ssize_t
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }

    /// Interposed `recvmsg`: into the buffers in order, the sender's name
    /// in `msg_name`; no ancillary data.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn recvmsg(fd: c_int, msg: *mut msghdr, flags: c_int) -> ssize_t {
        if !is_sim_socket(fd) || msg.is_null() {
            return real();
        }
        // SAFETY: the caller's msghdr.
        let iov = unsafe { iovecs(msg) };
        let mut data = vec![0u8; iov.iter().map(|v| v.iov_len).sum()];
        match sim_recv(fd, &mut data, flags) {
            Route::Sim(Ok((n, from))) => {
                let mut rest = &data[..n];
                for v in iov {
                    let k = rest.len().min(v.iov_len);
                    // SAFETY: each iovec is valid for `iov_len` bytes.
                    unsafe { std::ptr::copy_nonoverlapping(rest.as_ptr(), v.iov_base.cast(), k) };
                    rest = &rest[k..];
                }
                // SAFETY: the caller's msghdr.
                unsafe {
                    let m = &mut *msg;
                    m.msg_controllen = 0;
                    m.msg_flags = 0;
                    match from {
                        Some(from) => put_name(&from, m.msg_name.cast(), &mut m.msg_namelen),
                        None => m.msg_namelen = 0,
                    }
                }
                n as ssize_t
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }

    /// Interposed `shutdown`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn shutdown(fd: c_int, how: c_int) -> c_int {
        if !is_sim_socket(fd) {
            return real();
        }
        status(
            guarded(|| either(sock::shutdown(fd, how), || ip::shutdown(fd, how))),
            real,
        )
    }

    /// Interposed `getsockname`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn getsockname(fd: c_int, addr: *mut sockaddr, len: *mut socklen_t) -> c_int {
        if !is_sim_socket(fd) {
            return real();
        }
        match name(fd, false) {
            Route::Sim(Ok(name)) => {
                // SAFETY: the caller's address buffer.
                unsafe { put_name(&name, addr, len) };
                0
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }

    /// Interposed `getpeername`.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn getpeername(fd: c_int, addr: *mut sockaddr, len: *mut socklen_t) -> c_int {
        if !is_sim_socket(fd) {
            return real();
        }
        match name(fd, true) {
            Route::Sim(Ok(name)) => {
                // SAFETY: the caller's address buffer.
                unsafe { put_name(&name, addr, len) };
                0
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }

    /// Interposed `getsockopt`: `SO_ERROR`, `SO_PEERCRED`, `SO_RCVTIMEO`
    /// and `SO_SNDTIMEO` of a simulated socket are the simulation's; the
    /// rest the placeholder's (the kernel keeps them).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn getsockopt(
        fd: c_int,
        level: c_int,
        name: c_int,
        value: *mut c_void,
        len: *mut socklen_t,
    ) -> c_int {
        if level != libc::SOL_SOCKET || value.is_null() || len.is_null() || !is_sim_socket(fd) {
            return real();
        }
        // SAFETY (every write below): the caller's buffer, whose length is
        // checked first.
        let room = unsafe { *len } as usize;
        match name {
            libc::SO_ERROR if room >= size_of::<c_int>() => match guarded(|| {
                either(sock::take_error(fd), || ip::take_error(fd))
            }) {
                Route::Sim(Ok(e)) => {
                    unsafe {
                        *value.cast::<c_int>() = e;
                        *len = size_of::<c_int>() as socklen_t;
                    }
                    0
                }
                Route::Sim(Err(e)) => fail(e),
                _ => real(),
            },
            libc::SO_PEERCRED if room >= size_of::<libc::ucred>() => {
                match guarded(|| sock::peer_cred(fd)) {
                    Route::Sim(Ok(c)) => {
                        unsafe {
                            *value.cast::<libc::ucred>() = libc::ucred {
                                pid: c.pid,
                                uid: c.uid,
                                gid: c.gid,
                            };
                            *len = size_of::<libc::ucred>() as socklen_t;
                        }
                        0
                    }
                    Route::Sim(Err(e)) => fail(e),
                    _ => real(),
                }
            }
            libc::SO_RCVTIMEO | libc::SO_SNDTIMEO if room >= size_of::<libc::timeval>() => {
                match guarded(|| sock::timeout(fd, name == libc::SO_RCVTIMEO)) {
                    Route::Sim(Ok(t)) => {
                        unsafe {
                            *value.cast::<libc::timeval>() = libc::timeval {
                                tv_sec: t.as_secs() as libc::time_t,
                                tv_usec: t.subsec_micros() as libc::suseconds_t,
                            };
                            *len = size_of::<libc::timeval>() as socklen_t;
                        }
                        0
                    }
                    Route::Sim(Err(e)) => fail(e),
                    _ => real(),
                }
            }
            _ => real(),
        }
    }

    /// Interposed `setsockopt`: `SO_RCVTIMEO`/`SO_SNDTIMEO` of a simulated
    /// socket bound its blocking calls in simulated time; the rest go to
    /// the placeholder.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn setsockopt(
        fd: c_int,
        level: c_int,
        name: c_int,
        value: *const c_void,
        len: socklen_t,
    ) -> c_int {
        let timeout = level == libc::SOL_SOCKET
            && matches!(name, libc::SO_RCVTIMEO | libc::SO_SNDTIMEO)
            && !value.is_null()
            && len as usize >= size_of::<libc::timeval>();
        if !timeout || !is_sim_socket(fd) {
            return real();
        }
        // SAFETY: checked to hold a timeval.
        let tv = unsafe { *value.cast::<libc::timeval>() };
        if tv.tv_sec < 0 || !(0..1_000_000).contains(&tv.tv_usec) {
            return fail(libc::EDOM);
        }
        let t = Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64);
        status(guarded(|| sock::set_timeout(fd, name == libc::SO_RCVTIMEO, t)), real)
    }

    /// Interposed `ioctl`: `FIONBIO` (std's `set_nonblocking`) and
    /// `FIONREAD` of a simulated socket or pipe end; the rest libc's.
    ///
    /// # Safety
    ///
    /// As libc's (the third argument is a pointer for these requests).
    fn ioctl(fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
        let ours = matches!(request, libc::FIONBIO | libc::FIONREAD);
        if !ours || arg.is_null() || !in_simulation() {
            return real();
        }
        if request == libc::FIONBIO && pipe::end_of(fd).is_some() {
            // SAFETY: FIONBIO takes an int.
            let on = unsafe { *arg.cast::<c_int>() } != 0;
            return status(guarded(|| sock::set_nonblocking(fd, on)), real);
        }
        if request == libc::FIONREAD && pipe::end_of(fd).is_some() {
            return match guarded(|| pipe::queued(fd)) {
                Route::Sim(Ok(n)) => {
                    // SAFETY: FIONREAD takes an int.
                    unsafe { *arg.cast::<c_int>() = n };
                    0
                }
                Route::Sim(Err(e)) => fail(e),
                _ => real(),
            };
        }
        if !is_unix_socket(fd) {
            return real();
        }
        if request == libc::FIONBIO {
            // SAFETY: FIONBIO takes an int.
            let on = unsafe { *arg.cast::<c_int>() } != 0;
            return status(guarded(|| sock::set_nonblocking(fd, on)), real);
        }
        match guarded(|| either(sock::queued(fd), || ip::queued(fd))) {
            Route::Sim(Ok(n)) => {
                // SAFETY: FIONREAD takes an int.
                unsafe { *arg.cast::<c_int>() = n };
                0
            }
            Route::Sim(Err(e)) => fail(e),
            _ => real(),
        }
    }
}

/// `buf`/`len` as a mutable slice (empty for a zero length).
///
/// # Safety
///
/// `buf` is valid for `len` bytes.
unsafe fn bytes_mut<'a>(buf: *mut c_void, len: size_t) -> &'a mut [u8] {
    if len == 0 || buf.is_null() {
        return &mut [];
    }
    // SAFETY: forwarded.
    unsafe { std::slice::from_raw_parts_mut(buf.cast(), len) }
}
