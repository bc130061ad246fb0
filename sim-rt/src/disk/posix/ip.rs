//! The POSIX socket calls on the TCP and UDP sockets a program makes
//! inside a simulation (`std::net`, socket2, blocking clients, C code):
//! `socket(AF_INET/AF_INET6)`, `bind`, `listen`, `accept4`, `connect`,
//! `read`/`recv*`, `write`/`send*`, `shutdown`, `getsockname`/
//! `getpeername`, `SO_ERROR`, the blocking mode and timeouts, on the
//! calling task's host's sockets in the network model (the ones
//! `tokio::net`'s TCP and UDP types use, so `from_std`/`into_std` convert
//! between them). Faults, latency, partitions and resets apply as to
//! `tokio::net`.
//!
//! The descriptor is the real socket `socket(2)` made (never bound,
//! connected nor sent on: the kernel keeps the options the simulation
//! does not look at); its table entry ([`Kind::Ip`]) names what it is in
//! the model: nothing yet (a fresh socket, with the address a TCP `bind`
//! asked for), a datagram socket, a listener or a connection. `dup`s share
//! it, and the last one closed closes it. A call that would block waits
//! as for a Unix socket (`sock.rs`); while the owner thread waits, packets
//! keep arriving (the kernel does not wait for the worker).
//!
//! # Differences from Linux
//!
//! - A TCP socket bound before `connect` connects from an ephemeral port
//!   of the host (the model picks the source address).
//! - `SO_REUSEADDR`/`SO_REUSEPORT` and every other option are the
//!   placeholder's: stored, no effect.

use std::ffi::c_int;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use sim_net::{Endpoint, Readiness, SocketId};

use super::table::{self, IpObj, Kind, Open};
use super::{here, last_errno, real, world_of, Errno, Route};
use crate::runtime::world::World;
use crate::scheduler::HostId;

/// The socket behind `fd`, if it is one of the current simulation's.
struct Ip {
    open: Open,
    obj: IpObj,
    udp: bool,
    v6: bool,
    bound: Option<SocketAddr>,
    world: Rc<World>,
}

fn ip_of(fd: c_int) -> Option<Ip> {
    let open = table::get(fd)?;
    let Kind::Ip {
        obj,
        udp,
        v6,
        bound,
        ..
    } = open.kind
    else {
        return None;
    };
    let world = world_of(&open)?;
    Some(Ip {
        open,
        obj,
        udp,
        v6,
        bound,
        world,
    })
}

fn set_obj(fd: c_int, obj: IpObj) {
    table::update(fd, |o| {
        if let Kind::Ip { obj: old, .. } = &mut o.kind {
            *old = obj;
        }
    });
}

/// The table entry of `obj`, a TCP (`udp` false) or UDP socket of `host`
/// in simulation `world`, with no address bound and no timeouts.
fn entry(
    world: u64,
    host: HostId,
    obj: IpObj,
    udp: bool,
    v6: bool,
    nonblocking: bool,
    cloexec: bool,
) -> Open {
    let kind = Kind::Ip {
        obj,
        udp,
        v6,
        bound: None,
        recv_timeout: None,
        send_timeout: None,
    };
    let flags = libc::O_RDWR | if nonblocking { libc::O_NONBLOCK } else { 0 };
    Open::endpoint(world, host, kind, flags, cloexec)
}

/// Registers `fd`, a real `AF_INET`/`AF_INET6` stream or datagram socket
/// `socket(2)` just made inside a simulation, as a fresh simulated socket
/// of the calling task's host.
pub(crate) fn adopt_new(fd: c_int, domain: c_int, ty: c_int) {
    let kind = ty & !(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC);
    let udp = match kind {
        libc::SOCK_STREAM => false,
        libc::SOCK_DGRAM => true,
        _ => return,
    };
    let Ok((world, host)) = here() else {
        return;
    };
    table::insert(
        fd,
        entry(
            world.id,
            host,
            IpObj::Fresh,
            udp,
            domain == libc::AF_INET6,
            ty & libc::SOCK_NONBLOCK != 0,
            ty & libc::SOCK_CLOEXEC != 0,
        ),
    );
}

/// A `sockaddr_in`/`sockaddr_in6` as a `SocketAddr`.
fn addr_of(bytes: &[u8]) -> Result<SocketAddr, Errno> {
    if bytes.len() < 2 {
        return Err(libc::EINVAL);
    }
    let family = c_int::from(u16::from_ne_bytes([bytes[0], bytes[1]]));
    match family {
        libc::AF_INET if bytes.len() >= 8 => {
            let port = u16::from_be_bytes([bytes[2], bytes[3]]);
            let ip = Ipv4Addr::new(bytes[4], bytes[5], bytes[6], bytes[7]);
            Ok(SocketAddr::new(IpAddr::V4(ip), port))
        }
        libc::AF_INET6 if bytes.len() >= 24 => {
            let port = u16::from_be_bytes([bytes[2], bytes[3]]);
            let mut octets = [0u8; 16];
            octets.copy_from_slice(&bytes[8..24]);
            Ok(SocketAddr::new(IpAddr::V6(Ipv6Addr::from(octets)), port))
        }
        libc::AF_INET | libc::AF_INET6 => Err(libc::EINVAL),
        _ => Err(libc::EAFNOSUPPORT),
    }
}

/// `addr` as a `sockaddr_in`/`sockaddr_in6`'s bytes.
pub(crate) fn sockaddr_bytes(addr: &SocketAddr) -> Vec<u8> {
    let sa = socket2::SockAddr::from(*addr);
    // SAFETY: `as_ptr` points at `len` initialized bytes of the address.
    #[allow(unsafe_code)]
    unsafe {
        std::slice::from_raw_parts(sa.as_ptr().cast::<u8>(), sa.len() as usize).to_vec()
    }
}

/// The unspecified address of the socket's family, port 0.
fn any_addr(v6: bool) -> SocketAddr {
    if v6 {
        SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), 0)
    } else {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)
    }
}

/// A UDP socket's model socket, bound now to the unspecified address if
/// it was not (Linux's implicit bind on the first send).
fn udp_socket(fd: c_int, ip: &Ip) -> Result<SocketId, Errno> {
    match ip.obj {
        IpObj::Udp(s) => Ok(s),
        IpObj::Fresh => {
            let host = ip.world.net_host(ip.open.host);
            let s = ip
                .world
                .net_op(|net, _| net.udp_bind(host, any_addr(ip.v6)))
                .map_err(|e| super::net_errno(&e))?;
            set_obj(fd, IpObj::Udp(s));
            Ok(s)
        }
        _ => Err(libc::EINVAL),
    }
}

/// Runs `op` on the model; when it would block and the descriptor blocks,
/// waits for `dir` on `endpoint` and tries again (see the module docs).
fn blocking<T>(
    ip: &Ip,
    endpoint: Endpoint,
    dir: Readiness,
    dontwait: bool,
    op: impl FnMut(&mut sim_net::Net, Duration) -> std::io::Result<T>,
) -> Route<T> {
    let blocks = !dontwait && ip.open.flags & libc::O_NONBLOCK == 0;
    let deadline = super::poll::deadline(&ip.world, ip.open.kind, dir);
    Route::Sim(super::poll::retry(
        &ip.world,
        endpoint,
        dir,
        blocks,
        deadline,
        libc::ENOTCONN,
        op,
    ))
}

/// `bind(fd, addr)`: a UDP socket binds in the model; a TCP one keeps the
/// address for `listen`.
pub(crate) fn bind(fd: c_int, bytes: &[u8]) -> Route<()> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let addr = match addr_of(bytes) {
        Ok(a) => a,
        Err(e) => return Route::Sim(Err(e)),
    };
    if !matches!(ip.obj, IpObj::Fresh) || ip.bound.is_some() {
        return Route::Sim(Err(libc::EINVAL));
    }
    if ip.udp {
        let host = ip.world.net_host(ip.open.host);
        return match ip.world.net_op(|net, _| net.udp_bind(host, addr)) {
            Ok(s) => {
                set_obj(fd, IpObj::Udp(s));
                Route::Sim(Ok(()))
            }
            Err(e) => Route::Sim(Err(super::net_errno(&e))),
        };
    }
    table::update(fd, |o| {
        if let Kind::Ip { bound, .. } = &mut o.kind {
            *bound = Some(addr);
        }
    });
    Route::Sim(Ok(()))
}

/// `listen(fd, backlog)`: a listener on the bound address (any address,
/// an ephemeral port, when not bound).
pub(crate) fn listen(fd: c_int) -> Route<()> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    match ip.obj {
        IpObj::Listener(_) => return Route::Sim(Ok(())),
        IpObj::Fresh if !ip.udp => {}
        _ => return Route::Sim(Err(libc::EOPNOTSUPP)),
    }
    let host = ip.world.net_host(ip.open.host);
    let addr = ip.bound.unwrap_or_else(|| any_addr(ip.v6));
    match ip.world.net_op(|net, _| net.tcp_listen(host, addr)) {
        Ok(l) => {
            set_obj(fd, IpObj::Listener(l));
            Route::Sim(Ok(()))
        }
        Err(e) => Route::Sim(Err(super::net_errno(&e))),
    }
}

/// `connect(fd, addr)`: TCP sends the SYN and, blocking, waits for the
/// handshake (`EINPROGRESS` without blocking); UDP takes the peer.
pub(crate) fn connect(fd: c_int, bytes: &[u8]) -> Route<()> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let to = match addr_of(bytes) {
        Ok(a) => a,
        Err(e) => return Route::Sim(Err(e)),
    };
    if ip.udp {
        let s = match udp_socket(fd, &ip) {
            Ok(s) => s,
            Err(e) => return Route::Sim(Err(e)),
        };
        return Route::Sim(
            ip.world
                .net_op(|net, _| net.udp_connect(s, to))
                .map_err(|e| super::net_errno(&e)),
        );
    }
    let conn = match ip.obj {
        IpObj::Fresh => {
            let host = ip.world.net_host(ip.open.host);
            match ip.world.net_op(|net, now| net.tcp_connect(host, to, now)) {
                Ok(c) => {
                    set_obj(fd, IpObj::Conn(c));
                    c
                }
                Err(e) => return Route::Sim(Err(super::net_errno(&e))),
            }
        }
        // A second connect while the first is under way, or after it.
        IpObj::Conn(c) => {
            return match ip.world.net_op(|net, _| net.tcp_finish_connect(c)) {
                Ok(()) => Route::Sim(Err(libc::EISCONN)),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    Route::Sim(Err(libc::EALREADY))
                }
                Err(e) => Route::Sim(Err(super::net_errno(&e))),
            };
        }
        _ => return Route::Sim(Err(libc::EINVAL)),
    };
    if ip.open.flags & libc::O_NONBLOCK != 0 {
        return Route::Sim(Err(libc::EINPROGRESS));
    }
    blocking(
        &ip,
        Endpoint::Conn(conn),
        Readiness::WRITABLE,
        false,
        |net, _| net.tcp_finish_connect(conn),
    )
}

/// `accept4(fd, .., flags)`: the new descriptor and the peer's address.
pub(crate) fn accept(fd: c_int, flags: c_int) -> Route<(c_int, SocketAddr)> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let IpObj::Listener(l) = ip.obj else {
        return Route::Sim(Err(libc::EINVAL));
    };
    let accepted = blocking(
        &ip,
        Endpoint::Listener(l),
        Readiness::READABLE,
        false,
        |net, _| net.tcp_accept(l),
    );
    let (conn, peer) = match accepted {
        Route::Sim(Ok(x)) => x,
        Route::Sim(Err(e)) => return Route::Sim(Err(e)),
        _ => return Route::Real,
    };
    let domain = if ip.v6 { libc::AF_INET6 } else { libc::AF_INET };
    let cloexec = if flags & libc::SOCK_CLOEXEC != 0 {
        libc::SOCK_CLOEXEC
    } else {
        0
    };
    // SAFETY: a plain system call.
    #[allow(unsafe_code)]
    let new_fd = real(|| unsafe { libc::socket(domain, libc::SOCK_STREAM | cloexec, 0) });
    if new_fd < 0 {
        let e = last_errno();
        ip.world.net_op(|net, now| net.tcp_abort(conn, now));
        return Route::Sim(Err(e));
    }
    table::insert(
        new_fd,
        entry(
            ip.open.world,
            ip.open.host,
            IpObj::Conn(conn),
            false,
            ip.v6,
            flags & libc::SOCK_NONBLOCK != 0,
            cloexec != 0,
        ),
    );
    Route::Sim(Ok((new_fd, peer)))
}

/// `recvfrom(fd, buf, flags)` (and `read`, `recv`): the bytes and, for UDP,
/// the sender.
pub(crate) fn recv(fd: c_int, buf: &mut [u8], flags: c_int) -> Route<(usize, Option<SocketAddr>)> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let peek = flags & libc::MSG_PEEK != 0;
    let dontwait = flags & libc::MSG_DONTWAIT != 0;
    if ip.udp {
        let s = match udp_socket(fd, &ip) {
            Ok(s) => s,
            Err(e) => return Route::Sim(Err(e)),
        };
        return blocking(
            &ip,
            Endpoint::Socket(s),
            Readiness::READABLE,
            dontwait,
            |net, _| {
                let (n, from) = if peek {
                    net.udp_peek_from(s, buf)?
                } else {
                    net.udp_recv_from(s, buf)?
                };
                Ok((n, Some(from)))
            },
        );
    }
    let IpObj::Conn(c) = ip.obj else {
        return Route::Sim(Err(libc::ENOTCONN));
    };
    blocking(
        &ip,
        Endpoint::Conn(c),
        Readiness::READABLE,
        dontwait,
        |net, now| {
            let n = if peek {
                net.tcp_peek(c, buf)?
            } else {
                net.tcp_read(c, buf, now)?
            };
            Ok((n, None))
        },
    )
}

/// `sendto(fd, buf, flags, to)` (and `write`, `send`).
pub(crate) fn send(fd: c_int, buf: &[u8], flags: c_int, to: Option<&[u8]>) -> Route<usize> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let dontwait = flags & libc::MSG_DONTWAIT != 0;
    if ip.udp {
        let to = match to.map(addr_of) {
            None => None,
            Some(Ok(a)) => Some(a),
            Some(Err(e)) => return Route::Sim(Err(e)),
        };
        let s = match udp_socket(fd, &ip) {
            Ok(s) => s,
            Err(e) => return Route::Sim(Err(e)),
        };
        return blocking(
            &ip,
            Endpoint::Socket(s),
            Readiness::WRITABLE,
            dontwait,
            |net, now| match to {
                Some(to) => net.udp_send_to(s, to, buf, now),
                None => net.udp_send(s, buf, now),
            },
        );
    }
    let IpObj::Conn(c) = ip.obj else {
        return Route::Sim(Err(libc::ENOTCONN));
    };
    blocking(
        &ip,
        Endpoint::Conn(c),
        Readiness::WRITABLE,
        dontwait,
        |net, now| net.tcp_write(c, buf, now),
    )
}

/// `shutdown(fd, how)`.
pub(crate) fn shutdown(fd: c_int, how: c_int) -> Route<()> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let how = match how {
        libc::SHUT_RD => std::net::Shutdown::Read,
        libc::SHUT_WR => std::net::Shutdown::Write,
        libc::SHUT_RDWR => std::net::Shutdown::Both,
        _ => return Route::Sim(Err(libc::EINVAL)),
    };
    match ip.obj {
        IpObj::Conn(c) => Route::Sim(
            ip.world
                .net_op(|net, now| {
                    if net.exists(Endpoint::Conn(c)) {
                        net.tcp_shutdown(c, how, now)
                    } else {
                        Err(std::io::Error::from_raw_os_error(libc::ENOTCONN))
                    }
                })
                .map_err(|e| super::net_errno(&e)),
        ),
        _ => Route::Sim(Err(libc::ENOTCONN)),
    }
}

/// `getsockname` (`peer` false) or `getpeername`.
pub(crate) fn name(fd: c_int, peer: bool) -> Route<SocketAddr> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let gone = || Err(libc::ENOTCONN);
    Route::Sim(ip.world.net_ref(|net| match (ip.obj, peer) {
        (IpObj::Fresh, false) => Ok(ip.bound.unwrap_or_else(|| any_addr(ip.v6))),
        (IpObj::Fresh, true) => gone(),
        (IpObj::Udp(s), false) => net.udp_local_addr(s).map_err(|e| super::net_errno(&e)),
        (IpObj::Udp(s), true) => net.udp_peer_addr(s).map_err(|e| super::net_errno(&e)),
        (IpObj::Listener(l), false) => net.tcp_listener_addr(l).map_err(|e| super::net_errno(&e)),
        (IpObj::Listener(_), true) => gone(),
        (IpObj::Conn(c), false) => net.tcp_local_addr(c).map_err(|e| super::net_errno(&e)),
        (IpObj::Conn(c), true) => net.tcp_peer_addr(c).map_err(|e| super::net_errno(&e)),
    }))
}

/// `getsockopt(SO_ERROR)`: the pending error, taken (0 for none); for a
/// connect under way, its outcome once known.
pub(crate) fn take_error(fd: c_int) -> Route<c_int> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    Route::Sim(Ok(ip.world.net_op(|net, _| match ip.obj {
        IpObj::Udp(s) if net.exists(Endpoint::Socket(s)) => {
            net.udp_take_error(s).map_or(0, |e| super::net_errno(&e))
        }
        IpObj::Conn(c) if net.exists(Endpoint::Conn(c)) => match net.tcp_finish_connect(c) {
            Ok(()) => 0,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
            Err(e) => super::net_errno(&e),
        },
        _ => 0,
    })))
}

/// The entry of `fd` is gone (closed): closes the model's socket unless a
/// `dup` of it is still open.
pub(crate) fn closed(open: &Open, fd: c_int) {
    let Kind::Ip { obj, .. } = open.kind else {
        return;
    };
    let shared = table::any_other(fd, |o| {
        o.world == open.world && matches!(o.kind, Kind::Ip { obj: other, .. } if other == obj)
    });
    if shared || matches!(obj, IpObj::Fresh) {
        return;
    }
    if let Some(world) = world_of(open) {
        world.net_op(|net, now| match obj {
            IpObj::Udp(s) => net.udp_close(s),
            IpObj::Listener(l) => net.tcp_close_listener(l, now),
            IpObj::Conn(c) => {
                if net.exists(Endpoint::Conn(c)) {
                    net.tcp_close(c, now)
                }
            }
            IpObj::Fresh => {}
        });
    }
}

/// Takes descriptor `fd`'s model socket out of the table (a tokio
/// socket's `from_std`), leaving the real socket open for the caller.
pub(crate) fn take(fd: c_int) -> Option<(IpObj, HostId)> {
    let ip = ip_of(fd)?;
    let shared = table::any_other(fd, |o| {
        o.world == ip.open.world && matches!(o.kind, Kind::Ip { obj, .. } if obj == ip.obj)
    });
    if shared || matches!(ip.obj, IpObj::Fresh) {
        return None;
    }
    table::remove(fd);
    Some((ip.obj, ip.open.host))
}

/// The model's socket `obj` of `host` as a new descriptor on a real
/// socket of its family (a tokio socket's `into_std`), non-blocking.
pub(crate) fn hand_over(
    world: &World,
    host: HostId,
    obj: IpObj,
    v6: bool,
) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let udp = matches!(obj, IpObj::Udp(_));
    let domain = if v6 { libc::AF_INET6 } else { libc::AF_INET };
    let ty = if udp {
        libc::SOCK_DGRAM
    } else {
        libc::SOCK_STREAM
    };
    // SAFETY: a plain system call.
    #[allow(unsafe_code)]
    let fd = real(|| unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, 0) });
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    table::insert(fd, entry(world.id, host, obj, udp, v6, true, true));
    // SAFETY: a descriptor just opened, now the caller's.
    #[allow(unsafe_code)]
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// `ioctl(FIONREAD)`: the bytes a read would return now (a datagram's
/// length for UDP).
pub(crate) fn queued(fd: c_int) -> Route<c_int> {
    let Some(ip) = ip_of(fd) else {
        return Route::Real;
    };
    let n = ip.world.net_op(|net, _| match ip.obj {
        IpObj::Conn(c) if net.exists(Endpoint::Conn(c)) => {
            let mut buf = vec![0; 1 << 16];
            net.tcp_peek(c, &mut buf).unwrap_or(0)
        }
        IpObj::Udp(s) if net.exists(Endpoint::Socket(s)) => {
            let mut buf = vec![0; sim_net::MAX_DATAGRAM];
            net.udp_peek_from(s, &mut buf).map_or(0, |(n, _)| n)
        }
        _ => 0,
    });
    Route::Sim(Ok(c_int::try_from(n).unwrap_or(c_int::MAX)))
}

/// Registers `fd`, a tokio socket's placeholder, as a view of its model
/// socket `obj`: calls made on the raw fd (socket2's `peek`, `SO_ERROR`)
/// reach the simulated socket. The handle closes the model socket itself
/// and forgets the view first ([`table::remove`]).
pub(crate) fn register_view(world: &World, host: HostId, fd: c_int, obj: IpObj, v6: bool) {
    let udp = matches!(obj, IpObj::Udp(_));
    table::insert(fd, entry(world.id, host, obj, udp, v6, true, true));
}
