//! The POSIX socket calls on the Unix domain sockets a program makes
//! inside a simulation (`std::os::unix::net`, C code): `socket(AF_UNIX)`,
//! `socketpair`, `bind`, `listen`, `accept4`, `connect`, `read`/`recv*`,
//! `write`/`send*`, `shutdown`, `getsockname`/`getpeername`, the socket
//! options std reads and sets, and the blocking mode, on the calling
//! task's host's sockets in the network model (`sim_net`'s `unix.rs`, the
//! same sockets `tokio::net`'s Unix types use, so `from_std`/`into_std`
//! convert between them).
//!
//! A socket's descriptor is a real, unconnected `AF_UNIX` socket of the
//! same type (the placeholder, made with interception off): the kernel
//! keeps the options the simulation does not look at, and `fstat` says
//! "socket". Its table entry ([`Kind::Unix`]) names the model's socket;
//! `dup`s share it, and the last one closed closes it.
//!
//! # Blocking
//!
//! A call that would block on a blocking descriptor (no `O_NONBLOCK`, no
//! `MSG_DONTWAIT`) waits as the caller can: a simulated thread gives the
//! turn back until the socket is ready (or its `SO_RCVTIMEO`/`SO_SNDTIMEO`
//! passes: `EAGAIN`, as Linux); the owner thread, inside a task's poll,
//! runs the simulated threads and moves the clock until it is ready, as a
//! current-thread tokio worker blocked in the call would let the other
//! threads run. When only another task could make it ready, tokio would
//! hang: the call fails with `EDEADLK` and a note instead.

use std::ffi::c_int;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use sim_net::{Endpoint, Readiness, UnixCred, UnixId, UnixName, UnixType};

use super::table::{self, Kind, Open};
use super::{here, last_errno, real, world_of, Errno, Route};
use crate::runtime::world::World;
use crate::scheduler::HostId;

/// The socket behind `fd`, if it is one of the current simulation's.
fn unix_of(fd: c_int) -> Option<(Open, UnixId, Rc<World>)> {
    let open = table::get(fd)?;
    let Kind::Unix { id, .. } = open.kind else {
        return None;
    };
    let world = world_of(&open)?;
    Some((open, id, world))
}

/// Whether `fd` is a simulated socket.
pub(crate) fn is_unix(fd: c_int) -> bool {
    matches!(table::kind(fd), Some(Kind::Unix { .. }))
}

/// The credentials of the simulated process (the real one's).
fn cred() -> UnixCred {
    // SAFETY: these calls cannot fail and touch no memory of ours.
    #[allow(unsafe_code)]
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    UnixCred {
        pid: i32::try_from(std::process::id()).unwrap_or(i32::MAX),
        uid,
        gid,
    }
}

/// A new placeholder: a real, unconnected `AF_UNIX` socket of `ty`.
fn placeholder(ty: UnixType, cloexec: bool) -> Result<c_int, Errno> {
    let kind = match ty {
        UnixType::Stream => libc::SOCK_STREAM,
        UnixType::Datagram => libc::SOCK_DGRAM,
    };
    let flags = if cloexec { libc::SOCK_CLOEXEC } else { 0 };
    // SAFETY: a plain system call.
    #[allow(unsafe_code)]
    let fd = real(|| unsafe { libc::socket(libc::AF_UNIX, kind | flags, 0) });
    if fd < 0 {
        return Err(last_errno());
    }
    Ok(fd)
}

/// The type `socket(2)`'s `ty` asks for, if the model has it.
fn unix_type(ty: c_int) -> Option<UnixType> {
    match ty & !(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) {
        libc::SOCK_STREAM => Some(UnixType::Stream),
        libc::SOCK_DGRAM => Some(UnixType::Datagram),
        _ => None,
    }
}

fn entry(world: &World, host: HostId, id: UnixId, nonblocking: bool, cloexec: bool) -> Open {
    let kind = Kind::Unix {
        id,
        recv_timeout: None,
        send_timeout: None,
    };
    let flags = libc::O_RDWR | if nonblocking { libc::O_NONBLOCK } else { 0 };
    Open::endpoint(world.id, host, kind, flags, cloexec)
}

/// Registers `fd`, a real `AF_UNIX` socket `socket(2)` just made inside a
/// simulation, as a simulated socket of the calling task's host. Returns
/// `false` (the socket stays real, and is refused when used) for a type
/// the model does not have (`SOCK_SEQPACKET`).
pub(crate) fn adopt_new(fd: c_int, ty: c_int) -> bool {
    let (Some(uty), Ok((world, host))) = (unix_type(ty), here()) else {
        return false;
    };
    let net_host = world.net_host(host);
    let id = world.net_op(|net, _| net.unix_socket(net_host, uty, cred()));
    table::insert(
        fd,
        entry(
            &world,
            host,
            id,
            ty & libc::SOCK_NONBLOCK != 0,
            ty & libc::SOCK_CLOEXEC != 0,
        ),
    );
    true
}

/// `socketpair(AF_UNIX, ty)`: two simulated sockets connected to each
/// other, `None` when the call is not the simulation's.
pub(crate) fn socketpair(ty: c_int) -> Route<[c_int; 2]> {
    let Some(uty) = unix_type(ty) else {
        return Route::Real;
    };
    let Ok((world, host)) = here() else {
        return Route::Real;
    };
    let cloexec = ty & libc::SOCK_CLOEXEC != 0;
    let a = match placeholder(uty, cloexec) {
        Ok(fd) => fd,
        Err(e) => return Route::Sim(Err(e)),
    };
    let b = match placeholder(uty, cloexec) {
        Ok(fd) => fd,
        Err(e) => {
            super::close_real(a);
            return Route::Sim(Err(e));
        }
    };
    let net_host = world.net_host(host);
    let (x, y) = world.net_op(|net, _| net.unix_pair(net_host, uty, cred()));
    let nonblocking = ty & libc::SOCK_NONBLOCK != 0;
    table::insert(a, entry(&world, host, x, nonblocking, cloexec));
    table::insert(b, entry(&world, host, y, nonblocking, cloexec));
    Route::Sim(Ok([a, b]))
}

/// The model's socket `id` of `host` as a new descriptor (a tokio
/// socket's `into_std`), in non-blocking mode (as tokio hands it over).
pub(crate) fn hand_over(
    world: &World,
    host: HostId,
    id: UnixId,
) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let ty = world.net_ref(|net| net.unix_type(id));
    let fd = placeholder(ty, true).map_err(std::io::Error::from_raw_os_error)?;
    table::insert(fd, entry(world, host, id, true, true));
    // SAFETY: a descriptor this module just opened, now the caller's.
    #[allow(unsafe_code)]
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// Takes descriptor `fd`'s socket out of the table (a tokio socket's
/// `from_std`), leaving the real placeholder open for the caller: the
/// socket, unless another descriptor still shares it or it is not a
/// simulated socket of the current simulation.
pub(crate) fn take(fd: c_int) -> Option<(UnixId, HostId)> {
    let (open, id, _) = unix_of(fd)?;
    if shared(fd, open.world, id) {
        return None;
    }
    table::remove(fd);
    Some((id, open.host))
}

/// Whether a descriptor other than `fd` names socket `id` of simulation
/// `world` (ids are per simulation, and the table is the process's).
fn shared(fd: c_int, world: u64, id: UnixId) -> bool {
    table::any_other(fd, |o| {
        o.world == world && matches!(o.kind, Kind::Unix { id: other, .. } if other == id)
    })
}

/// The entry of `fd` is gone (closed): closes the model's socket unless a
/// `dup` of it is still open.
pub(crate) fn closed(open: &Open, fd: c_int) {
    let Kind::Unix { id, .. } = open.kind else {
        return;
    };
    if shared(fd, open.world, id) {
        return;
    }
    if let Some(world) = world_of(open) {
        world.net_op(|net, _| net.unix_close(id));
    }
}

// ----- names ---------------------------------------------------------------------

/// The name a `sockaddr_un` of `len` bytes holds: `Unnamed` for a bare
/// family (autobind), an abstract name after a NUL byte, else the path up
/// to its NUL.
fn name_of(addr: &[u8]) -> Result<UnixName, Errno> {
    if addr.len() < 2 {
        return Err(libc::EINVAL);
    }
    let family = u16::from_ne_bytes([addr[0], addr[1]]);
    if c_int::from(family) != libc::AF_UNIX {
        return Err(libc::EAFNOSUPPORT);
    }
    let path = &addr[2..];
    match path.first() {
        None => Ok(UnixName::Unnamed),
        Some(0) => Ok(UnixName::Abstract(path[1..].to_vec())),
        Some(_) => {
            let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
            use std::os::unix::ffi::OsStrExt;
            Ok(UnixName::Path(
                Path::new(std::ffi::OsStr::from_bytes(&path[..end])).to_path_buf(),
                0,
            ))
        }
    }
}

/// `name` as a `sockaddr_un`'s bytes.
pub(crate) fn sockaddr_of(name: &UnixName) -> Vec<u8> {
    let mut out = (libc::AF_UNIX as u16).to_ne_bytes().to_vec();
    match name {
        UnixName::Unnamed => {}
        UnixName::Path(p, _) => {
            use std::os::unix::ffi::OsStrExt;
            out.extend_from_slice(p.as_os_str().as_bytes());
            out.push(0);
        }
        UnixName::Abstract(n) => {
            out.push(0);
            out.extend_from_slice(n);
        }
    }
    out
}

/// The name a connect or `sendto` reaches: a path by its socket file on
/// the host's disk.
fn target(world: &World, host: HostId, name: UnixName) -> Result<UnixName, Errno> {
    match name {
        UnixName::Path(p, _) => {
            let ino = world
                .fs_op(host, |disk, _| disk.socket_ino(&p))
                .map_err(|e| super::net_errno(&e))?;
            Ok(UnixName::Path(p, ino))
        }
        UnixName::Unnamed => Err(libc::EINVAL),
        name => Ok(name),
    }
}

// ----- the calls -----------------------------------------------------------------

/// Runs `op` on `fd`'s socket; when it would block and the descriptor
/// blocks, waits for `dir` (see the module docs) and tries again.
fn blocking<T>(
    fd: c_int,
    dir: Readiness,
    dontwait: bool,
    mut op: impl FnMut(&mut sim_net::Net, UnixId) -> std::io::Result<T>,
) -> Route<T> {
    let Some((open, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    let blocks = !dontwait && open.flags & libc::O_NONBLOCK == 0;
    let deadline = super::poll::deadline(&world, open.kind, dir);
    Route::Sim(super::poll::retry(
        &world,
        Endpoint::Unix(id),
        dir,
        blocks,
        deadline,
        libc::ENOTCONN,
        |net, _| op(net, id),
    ))
}

/// `bind(fd, addr)`.
pub(crate) fn bind(fd: c_int, addr: &[u8]) -> Route<()> {
    let Some((open, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    let name = match name_of(addr) {
        Ok(n) => n,
        Err(e) => return Route::Sim(Err(e)),
    };
    let name = match name {
        UnixName::Path(p, _) => match world.fs_op(open.host, |disk, _| disk.bind_socket(&p)) {
            Ok(ino) => UnixName::Path(p, ino),
            Err(e) => return Route::Sim(Err(super::net_errno(&e))),
        },
        name => name,
    };
    Route::Sim(
        world
            .net_op(|net, _| net.unix_bind(id, name))
            .map_err(|e| super::net_errno(&e)),
    )
}

/// `listen(fd, backlog)` (a negative backlog is the system's maximum).
pub(crate) fn listen(fd: c_int, backlog: c_int) -> Route<()> {
    let Some((_, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    let backlog = usize::try_from(backlog).unwrap_or(4096).min(4096);
    Route::Sim(
        world
            .net_op(|net, _| net.unix_listen(id, backlog))
            .map_err(|e| super::net_errno(&e)),
    )
}

/// `connect(fd, addr)`: a stream connects at once (or `EAGAIN` with a
/// full backlog, which a blocking descriptor waits out); a datagram
/// socket takes its peer.
pub(crate) fn connect(fd: c_int, addr: &[u8]) -> Route<()> {
    let Some((open, _, world)) = unix_of(fd) else {
        return Route::Real;
    };
    let to = match name_of(addr).and_then(|n| target(&world, open.host, n)) {
        Ok(n) => n,
        Err(e) => return Route::Sim(Err(e)),
    };
    blocking(fd, Readiness::WRITABLE, false, |net, id| {
        net.unix_connect(id, &to)
    })
}

/// `accept4(fd, .., flags)`: the new descriptor and the peer's name.
pub(crate) fn accept(fd: c_int, flags: c_int) -> Route<(c_int, UnixName)> {
    let Some((open, _, world)) = unix_of(fd) else {
        return Route::Real;
    };
    let accepted = blocking(fd, Readiness::READABLE, false, |net, id| {
        net.unix_accept(id)
    });
    let (server, peer) = match accepted {
        Route::Sim(Ok(x)) => x,
        Route::Sim(Err(e)) => return Route::Sim(Err(e)),
        _ => return Route::Real,
    };
    let cloexec = flags & libc::SOCK_CLOEXEC != 0;
    let new_fd = match placeholder(UnixType::Stream, cloexec) {
        Ok(fd) => fd,
        Err(e) => {
            world.net_op(|net, _| net.unix_close(server));
            return Route::Sim(Err(e));
        }
    };
    table::insert(
        new_fd,
        entry(
            &world,
            open.host,
            server,
            flags & libc::SOCK_NONBLOCK != 0,
            cloexec,
        ),
    );
    Route::Sim(Ok((new_fd, peer)))
}

/// `recvfrom(fd, buf, flags)` (and `read`, `recv`): the bytes and, for a
/// datagram, the sender's name.
pub(crate) fn recv(fd: c_int, buf: &mut [u8], flags: c_int) -> Route<(usize, Option<UnixName>)> {
    let peek = flags & libc::MSG_PEEK != 0;
    let dontwait = flags & libc::MSG_DONTWAIT != 0;
    blocking(fd, Readiness::READABLE, dontwait, |net, id| {
        match net.unix_type(id) {
            UnixType::Stream => net.unix_read(id, buf, peek).map(|n| (n, None)),
            UnixType::Datagram => net
                .unix_recv_from(id, buf, peek)
                .map(|(n, from)| (n, Some(from))),
        }
    })
}

/// `sendto(fd, buf, flags, to)` (and `write`, `send`).
pub(crate) fn send(fd: c_int, buf: &[u8], flags: c_int, to: Option<&[u8]>) -> Route<usize> {
    let Some((open, _, world)) = unix_of(fd) else {
        return Route::Real;
    };
    let to = match to.map(|a| name_of(a).and_then(|n| target(&world, open.host, n))) {
        None => None,
        Some(Ok(n)) => Some(n),
        Some(Err(e)) => return Route::Sim(Err(e)),
    };
    let dontwait = flags & libc::MSG_DONTWAIT != 0;
    blocking(fd, Readiness::WRITABLE, dontwait, |net, id| {
        net.unix_send_to(id, to.as_ref(), buf)
    })
}

/// `shutdown(fd, how)`.
pub(crate) fn shutdown(fd: c_int, how: c_int) -> Route<()> {
    let Some((_, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    let how = match how {
        libc::SHUT_RD => std::net::Shutdown::Read,
        libc::SHUT_WR => std::net::Shutdown::Write,
        libc::SHUT_RDWR => std::net::Shutdown::Both,
        _ => return Route::Sim(Err(libc::EINVAL)),
    };
    Route::Sim(
        world
            .net_op(|net, _| net.unix_shutdown(id, how))
            .map_err(|e| super::net_errno(&e)),
    )
}

/// `getsockname` (`peer` false) or `getpeername`.
pub(crate) fn name(fd: c_int, peer: bool) -> Route<UnixName> {
    let Some((_, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    Route::Sim(world.net_ref(|net| {
        if !net.exists(Endpoint::Unix(id)) {
            return Err(libc::ENOTCONN);
        }
        if peer {
            net.unix_peer_name(id).map_err(|e| super::net_errno(&e))
        } else {
            Ok(net.unix_local_name(id))
        }
    }))
}

/// `getsockopt(SO_ERROR)`: the pending error, taken (0 for none).
pub(crate) fn take_error(fd: c_int) -> Route<c_int> {
    let Some((_, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    Route::Sim(Ok(world.net_op(|net, _| {
        if net.exists(Endpoint::Unix(id)) {
            net.unix_take_error(id).map_or(0, |e| super::net_errno(&e))
        } else {
            0
        }
    })))
}

/// `getsockopt(SO_PEERCRED)`.
pub(crate) fn peer_cred(fd: c_int) -> Route<UnixCred> {
    let Some((_, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    Route::Sim(world.net_ref(|net| {
        if net.exists(Endpoint::Unix(id)) {
            Ok(net.unix_peer_cred(id))
        } else {
            Err(libc::ENOTCONN)
        }
    }))
}

/// `setsockopt(SO_RCVTIMEO / SO_SNDTIMEO)` of a simulated socket (Unix,
/// TCP or UDP): how long a blocking call waits (zero: forever).
pub(crate) fn set_timeout(fd: c_int, recv: bool, timeout: Duration) -> Route<()> {
    let ours = table::get(fd).is_some_and(|o| {
        matches!(o.kind, Kind::Unix { .. } | Kind::Ip { .. }) && world_of(&o).is_some()
    });
    if !ours {
        return Route::Real;
    }
    let t = (!timeout.is_zero()).then_some(timeout);
    table::update(fd, |o| match &mut o.kind {
        Kind::Unix {
            recv_timeout,
            send_timeout,
            ..
        }
        | Kind::Ip {
            recv_timeout,
            send_timeout,
            ..
        } => {
            if recv {
                *recv_timeout = t;
            } else {
                *send_timeout = t;
            }
        }
        _ => {}
    });
    Route::Sim(Ok(()))
}

/// `getsockopt(SO_RCVTIMEO / SO_SNDTIMEO)`.
pub(crate) fn timeout(fd: c_int, recv: bool) -> Route<Duration> {
    let Some(open) = table::get(fd).filter(|o| world_of(o).is_some()) else {
        return Route::Real;
    };
    let (Kind::Unix {
        recv_timeout,
        send_timeout,
        ..
    }
    | Kind::Ip {
        recv_timeout,
        send_timeout,
        ..
    }) = open.kind
    else {
        return Route::Real;
    };
    let t = if recv { recv_timeout } else { send_timeout };
    Route::Sim(Ok(t.unwrap_or_default()))
}

/// `ioctl(FIONBIO)`: the blocking mode of a simulated socket (Unix, TCP,
/// UDP) or pipe end.
pub(crate) fn set_nonblocking(fd: c_int, on: bool) -> Route<()> {
    let ours = table::get(fd).is_some_and(|o| {
        matches!(
            o.kind,
            Kind::Unix { .. } | Kind::Ip { .. } | Kind::Pipe { .. }
        ) && world_of(&o).is_some()
    });
    if !ours {
        return Route::Real;
    }
    table::update(fd, |o| {
        o.flags = if on {
            o.flags | libc::O_NONBLOCK
        } else {
            o.flags & !libc::O_NONBLOCK
        };
    });
    Route::Sim(Ok(()))
}

/// `ioctl(FIONREAD)`: the bytes queued to read (a datagram's length).
pub(crate) fn queued(fd: c_int) -> Route<c_int> {
    let Some((_, id, world)) = unix_of(fd) else {
        return Route::Real;
    };
    Route::Sim(Ok(world.net_ref(|net| {
        if net.exists(Endpoint::Unix(id)) {
            c_int::try_from(net.unix_queued(id)).unwrap_or(c_int::MAX)
        } else {
            0
        }
    })))
}

/// Registers `fd`, a tokio Unix socket's placeholder, as a view of model
/// socket `id`: calls made on the raw fd (socket2's `peek`) reach it. The
/// handle closes the model socket itself and forgets the view first.
pub(crate) fn register_view(world: &World, host: HostId, fd: c_int, id: UnixId) {
    table::insert(fd, entry(world, host, id, true, true));
}
