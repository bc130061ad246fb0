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

/// Answers a `poll`: the number of entries with events, or -1.
fn ready_count(route: Route<usize>, real: impl FnOnce() -> c_int) -> c_int {
    match route {
        Route::Sim(Ok(n)) => c_int::try_from(n).unwrap_or(c_int::MAX),
        Route::Sim(Err(e)) => fail(e),
        _ => real(),
    }
}

/// A `ppoll`/`pselect` timeout: `None` (wait without end) for a null one.
///
/// # Safety
///
/// `t` is null or a valid `timespec`.
unsafe fn timespec_of(t: *const libc::timespec) -> Result<Option<Duration>, c_int> {
    if t.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded.
    let t = unsafe { *t };
    if t.tv_sec < 0 || !(0..1_000_000_000).contains(&t.tv_nsec) {
        return Err(libc::EINVAL);
    }
    Ok(Some(Duration::new(t.tv_sec as u64, t.tv_nsec as u32)))
}

/// `select` over `sets` (read, write, except; each null or the caller's)
/// as a `poll` set, inside a simulation: the count of bits left set (or
/// -1 with errno) and the time left; `None` when no descriptor in the
/// sets is simulated (the real call answers).
///
/// # Safety
///
/// Each set is null or valid; `nfds` is at most `FD_SETSIZE`.
unsafe fn sim_select(
    nfds: c_int,
    sets: [*mut libc::fd_set; 3],
    wait: Option<Duration>,
) -> Option<(c_int, Duration)> {
    if !(0..=libc::FD_SETSIZE as c_int).contains(&nfds) {
        return Some((fail(libc::EINVAL), Duration::ZERO));
    }
    // SAFETY (every FD_* below): the caller's sets, checked not null.
    let has =
        |set: *mut libc::fd_set, fd: c_int| !set.is_null() && unsafe { libc::FD_ISSET(fd, set) };
    let mut fds = Vec::new();
    for fd in 0..nfds {
        let mut events = 0;
        if has(sets[0], fd) {
            events |= libc::POLLIN;
        }
        if has(sets[1], fd) {
            events |= libc::POLLOUT;
        }
        if has(sets[2], fd) {
            events |= libc::POLLPRI;
        }
        if events != 0 {
            fds.push(libc::pollfd {
                fd,
                events,
                revents: 0,
            });
        }
    }
    let world = crate::runtime::context::try_current_quiet()?;
    let start = world.now();
    let n = match guarded(|| crate::disk::posix::poll::poll(&mut fds, wait)) {
        Route::Sim(Ok(n)) => n,
        Route::Sim(Err(e)) => return Some((fail(e), Duration::ZERO)),
        _ => return None,
    };
    let left = wait.map_or(Duration::ZERO, |w| w.saturating_sub(world.now() - start));
    if n > 0 && fds.iter().any(|p| p.revents & libc::POLLNVAL != 0) {
        return Some((fail(libc::EBADF), left));
    }
    for set in sets.into_iter().filter(|s| !s.is_null()) {
        unsafe { libc::FD_ZERO(set) };
    }
    let mut count = 0;
    for p in &fds {
        let marks = [
            p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0,
            p.revents & (libc::POLLOUT | libc::POLLERR) != 0,
            p.revents & libc::POLLPRI != 0,
        ];
        for (set, (mark, asked)) in
            sets.iter().zip(
                marks
                    .iter()
                    .zip([libc::POLLIN, libc::POLLOUT, libc::POLLPRI]),
            )
        {
            if *mark && p.events & asked != 0 {
                unsafe { libc::FD_SET(p.fd, *set) };
                count += 1;
            }
        }
    }
    Some((count, left))
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

    /// Interposed `poll` (std's `TcpStream::connect_timeout`): a set
    /// holding a simulated descriptor is answered from the simulation, a
    /// wait on the simulated clock (`disk::posix::poll`); else libc's.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn poll(fds: *mut libc::pollfd, nfds: libc::nfds_t, timeout: c_int) -> c_int {
        if !in_simulation() || !table::any() || fds.is_null() {
            return real();
        }
        let wait = u64::try_from(timeout).ok().map(Duration::from_millis);
        // SAFETY: the caller's array of `nfds` entries.
        let set = unsafe { std::slice::from_raw_parts_mut(fds, nfds as usize) };
        ready_count(guarded(|| crate::disk::posix::poll::poll(set, wait)), real)
    }

    /// Interposed `ppoll`: as `poll`, with a `timespec` timeout (the signal
    /// mask is not applied inside a simulation: see `disk::posix::poll`).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn ppoll(
        fds: *mut libc::pollfd,
        nfds: libc::nfds_t,
        timeout: *const libc::timespec,
        mask: *const libc::sigset_t,
    ) -> c_int {
        if !in_simulation() || !table::any() || fds.is_null() {
            return real();
        }
        // SAFETY: null or the caller's timespec.
        let wait = match unsafe { timespec_of(timeout) } {
            Ok(w) => w,
            Err(e) => return fail(e),
        };
        // SAFETY: the caller's array of `nfds` entries.
        let set = unsafe { std::slice::from_raw_parts_mut(fds, nfds as usize) };
        ready_count(guarded(|| crate::disk::posix::poll::poll(set, wait)), real)
    }

    /// Interposed `select`: a set holding a simulated descriptor is
    /// answered as `poll` answers it; else libc's. The timeout is updated
    /// to the time left, as Linux does.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn select(
        nfds: c_int,
        readfds: *mut libc::fd_set,
        writefds: *mut libc::fd_set,
        exceptfds: *mut libc::fd_set,
        timeout: *mut libc::timeval,
    ) -> c_int {
        if !in_simulation() || !table::any() {
            return real();
        }
        let wait = if timeout.is_null() {
            None
        } else {
            // SAFETY: the caller's timeval.
            let tv = unsafe { *timeout };
            if tv.tv_sec < 0 || !(0..1_000_000).contains(&tv.tv_usec) {
                return fail(libc::EINVAL);
            }
            Some(Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64))
        };
        let sets = [readfds, writefds, exceptfds];
        // SAFETY: the caller's sets, each null or valid.
        match unsafe { sim_select(nfds, sets, wait) } {
            Some((n, left)) => {
                if n >= 0 && !timeout.is_null() {
                    // SAFETY: the caller's timeval.
                    unsafe {
                        *timeout = libc::timeval {
                            tv_sec: left.as_secs() as libc::time_t,
                            tv_usec: left.subsec_micros() as libc::suseconds_t,
                        };
                    }
                }
                n
            }
            None => real(),
        }
    }

    /// Interposed `pselect`: as `select`, with a `timespec` timeout left
    /// as it is (the signal mask is not applied inside a simulation).
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pselect(
        nfds: c_int,
        readfds: *mut libc::fd_set,
        writefds: *mut libc::fd_set,
        exceptfds: *mut libc::fd_set,
        timeout: *const libc::timespec,
        mask: *const libc::sigset_t,
    ) -> c_int {
        if !in_simulation() || !table::any() {
            return real();
        }
        // SAFETY: null or the caller's timespec.
        let wait = match unsafe { timespec_of(timeout) } {
            Ok(w) => w,
            Err(e) => return fail(e),
        };
        let sets = [readfds, writefds, exceptfds];
        // SAFETY: the caller's sets, each null or valid.
        match unsafe { sim_select(nfds, sets, wait) } {
            Some((n, _)) => n,
            None => real(),
        }
    }

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
