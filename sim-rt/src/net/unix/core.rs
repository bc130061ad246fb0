//! What every simulated Unix socket shares: its socket in the host's model
//! (`sim_net`'s `unix_*` calls), tokio's cached readiness, the placeholder
//! fd, and the names as tokio's [`SocketAddr`].

use std::future::poll_fn;
use std::io;
use std::net::Shutdown;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::task::{ready, Context, Poll};

use sim_net::{Endpoint, Readiness, UnixCred, UnixId, UnixName, UnixType};

use super::SocketAddr;
use crate::io::{Interest, ReadBuf, Ready};
use crate::net::fd::{Kind, Placeholder};
use crate::net::io::{Assumed, NetIo};
use crate::runtime::world::World;

/// A Unix socket of the running simulation's current host.
#[derive(Debug)]
pub(crate) struct UnixIo {
    io: NetIo,
    pub(crate) id: UnixId,
    ty: UnixType,
    /// The readiness tokio would still have cached.
    assumed: Assumed,
    fd: Placeholder,
    /// Handed over to a std socket (`into_std`): the drop leaves the
    /// model's socket open.
    handed_over: AtomicBool,
}

impl UnixIo {
    /// A new socket of type `ty` on the running task's host, as
    /// `socket(2)` (registered as tokio's constructors register: see
    /// [`NetIo::current`]).
    #[track_caller]
    pub(crate) fn new(ty: UnixType) -> io::Result<(Rc<World>, UnixIo)> {
        let (world, io, host) = NetIo::current()?;
        let id = world.net_op(|net, _| net.unix_socket(host, ty, cred()));
        Ok((world, UnixIo::wrap(io, id, ty, Assumed::default())))
    }

    /// A connected pair, as `socketpair(2)`, both assumed writable (tokio's
    /// `pair`).
    #[track_caller]
    pub(crate) fn pair(ty: UnixType) -> io::Result<(UnixIo, UnixIo)> {
        let (world, io, host) = NetIo::current()?;
        let (a, b) = world.net_op(|net, _| net.unix_pair(host, ty, cred()));
        Ok((
            UnixIo::wrap(io, a, ty, Assumed::new(false, true)),
            UnixIo::wrap(io, b, ty, Assumed::new(false, true)),
        ))
    }

    fn wrap(io: NetIo, id: UnixId, ty: UnixType, assumed: Assumed) -> UnixIo {
        UnixIo {
            io,
            id,
            ty,
            assumed,
            fd: Placeholder::lazy(),
            handed_over: AtomicBool::new(false),
        }
    }

    /// `from_std`: the simulated socket behind a std socket's descriptor
    /// (made inside the simulation), which becomes this socket's raw fd.
    ///
    /// # Errors
    ///
    /// `Unsupported` (naming `item`) when the descriptor is a real socket
    /// (made outside the simulation) or still shared with a `dup`;
    /// `InvalidInput` when it is not of type `ty`. The descriptor is closed.
    #[track_caller]
    pub(crate) fn from_fd(fd: OwnedFd, ty: UnixType, item: &str) -> io::Result<UnixIo> {
        let (world, _, _) = NetIo::current()?;
        let raw = fd.as_raw_fd();
        let Some((id, host)) = crate::net::fd::unix_take(raw) else {
            drop(fd);
            return Err(crate::net::fd::from_std_unsupported(item));
        };
        let socket = socket2::Socket::from(fd);
        let io = UnixIo::wrap(NetIo::on(&world, host), id, ty, Assumed::default())
            .with_placeholder(socket);
        if world.net_ref(|net| net.unix_type(id)) != ty {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{item}: the socket is not of this type"),
            ));
        }
        Ok(io)
    }

    /// `into_std`: a new descriptor for the simulated socket, in
    /// non-blocking mode, for a std socket; this handle lets it go.
    pub(crate) fn into_fd(self) -> io::Result<OwnedFd> {
        let world = self.io.world()?;
        let fd = crate::net::fd::unix_hand_over(&world, self.io.host(), self.id)?;
        self.handed_over.store(true, Ordering::Relaxed);
        Ok(fd)
    }

    /// Uses `socket` (a `UnixSocket`'s fd) as the placeholder.
    pub(crate) fn with_placeholder(mut self, socket: socket2::Socket) -> UnixIo {
        self.fd = Placeholder::with(socket);
        self
    }

    /// A server end `accept` returned: assumed readable and writable, as
    /// tokio's accepted streams.
    pub(crate) fn accepted(&self, id: UnixId) -> UnixIo {
        UnixIo::wrap(self.io, id, UnixType::Stream, Assumed::new(true, true))
    }

    pub(crate) fn endpoint(&self) -> Endpoint {
        Endpoint::Unix(self.id)
    }

    /// Binds `path` (see [`name_of`]): a path gets its socket file on the
    /// host's disk first.
    pub(crate) fn bind(&self, path: &Path) -> io::Result<()> {
        let world = self.io.world()?;
        let name = match name_of(path)? {
            UnixName::Path(p, _) => {
                let ino = world.fs_op(self.io.host(), |disk, _| disk.bind_socket(&p))?;
                UnixName::Path(p, ino)
            }
            name => name,
        };
        let id = self.id;
        self.io
            .try_op(self.endpoint(), |net, _| net.unix_bind(id, name))
    }

    /// The name a connect to `path` reaches: a path by its socket file.
    pub(crate) fn target(&self, path: &Path) -> io::Result<UnixName> {
        match name_of(path)? {
            UnixName::Path(p, _) => {
                let world = self.io.world()?;
                let ino = world.fs_op(self.io.host(), |disk, _| disk.socket_ino(&p))?;
                Ok(UnixName::Path(p, ino))
            }
            name => Ok(name),
        }
    }

    pub(crate) fn listen(&self, backlog: usize) -> io::Result<()> {
        let id = self.id;
        self.io
            .try_op(self.endpoint(), |net, _| net.unix_listen(id, backlog))
    }

    /// A stream's `connect(2)` to `path`, as tokio's: the kernel connects
    /// at once (or fails: a full backlog is `WouldBlock`, since the socket
    /// is non-blocking), then the future waits for the driver's first
    /// writable event, which comes at its next turn (a yield here), and
    /// reports the error pending by then (the listener closed without
    /// accepting: `ConnectionReset`).
    pub(crate) async fn connect(&self, path: &Path) -> io::Result<()> {
        let to = self.target(path)?;
        let id = self.id;
        self.io
            .try_op(self.endpoint(), |net, _| net.unix_connect(id, &to))?;
        crate::task::yield_now().await;
        if let Some(e) = self.take_error()? {
            return Err(e);
        }
        self.assumed
            .note(Readiness::WRITABLE, &Ok::<(), io::Error>(()));
        Ok(())
    }

    /// A datagram socket's `connect`, which never waits.
    pub(crate) fn connect_now(&self, path: &Path) -> io::Result<()> {
        let to = self.target(path)?;
        let id = self.id;
        self.io
            .try_op(self.endpoint(), |net, _| net.unix_connect(id, &to))
    }

    pub(crate) fn poll_accept(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(UnixIo, SocketAddr)>> {
        let id = self.id;
        let (server, peer) =
            ready!(self
                .io
                .poll_op(cx, self.endpoint(), Readiness::READABLE, |net, _| {
                    net.unix_accept(id)
                }))?;
        Poll::Ready(Ok((self.accepted(server), addr_of(&peer))))
    }

    // Readiness, as tokio's `PollEvented` reports it: the model's or the
    // cached.

    pub(crate) async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        poll_fn(|cx| {
            let assumed = self.assumed.ready(interest);
            if assumed.is_empty() {
                self.io.poll_ready_set(cx, self.endpoint(), interest)
            } else {
                Poll::Ready(Ok(self.io.ready_now(self.endpoint(), interest)? | assumed))
            }
        })
        .await
    }

    pub(crate) fn poll_ready(&self, cx: &mut Context<'_>, dir: Readiness) -> Poll<io::Result<()>> {
        if self.assumed.has(dir) {
            return Poll::Ready(Ok(()));
        }
        self.io.poll_ready(cx, self.endpoint(), dir)
    }

    pub(crate) async fn wait(&self, dir: Readiness) -> io::Result<()> {
        poll_fn(|cx| self.poll_ready(cx, dir)).await
    }

    pub(crate) fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let assumed = !self.assumed.ready(interest).is_empty();
        let r = if assumed {
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    Err(io::ErrorKind::WouldBlock.into())
                }
                r => r,
            }
        } else {
            self.io.try_io(self.endpoint(), interest, f)
        };
        if matches!(&r, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
            self.assumed.clear(interest);
        }
        r
    }

    pub(crate) async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            self.ready(interest).await?;
            match self.try_io(interest, &mut f) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                r => return r,
            }
        }
    }

    // Streams.

    pub(crate) fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let id = self.id;
        let r = self
            .io
            .try_op(self.endpoint(), |net, _| net.unix_read(id, buf, false));
        self.assumed.note(Readiness::READABLE, &r);
        r
    }

    pub(crate) fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        let id = self.id;
        let r = self
            .io
            .try_op(self.endpoint(), |net, _| net.unix_write(id, buf));
        self.assumed.note(Readiness::WRITABLE, &r);
        r
    }

    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let id = self.id;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::READABLE, |net, _| {
                net.unix_read(id, buf.initialize_unfilled(), false)
            });
        self.assumed.note_poll(Readiness::READABLE, &polled);
        let n = ready!(polled)?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }

    pub(crate) fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let id = self.id;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::WRITABLE, |net, _| {
                net.unix_write(id, buf)
            });
        self.assumed.note_poll(Readiness::WRITABLE, &polled);
        polled
    }

    // Datagrams.

    /// `sendto` (`to: Some`) or `send`, waiting while the receiver's queue
    /// is full.
    pub(crate) fn poll_send(
        &self,
        cx: &mut Context<'_>,
        to: Option<&UnixName>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let id = self.id;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::WRITABLE, |net, _| {
                net.unix_send_to(id, to, buf)
            });
        self.assumed.note_poll(Readiness::WRITABLE, &polled);
        polled
    }

    pub(crate) fn try_send(&self, to: Option<&UnixName>, buf: &[u8]) -> io::Result<usize> {
        let id = self.id;
        let r = self
            .io
            .try_op(self.endpoint(), |net, _| net.unix_send_to(id, to, buf));
        self.assumed.note(Readiness::WRITABLE, &r);
        r
    }

    pub(crate) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
        peek: bool,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let id = self.id;
        let polled = self
            .io
            .poll_op(cx, self.endpoint(), Readiness::READABLE, |net, _| {
                net.unix_recv_from(id, buf, peek)
            });
        self.assumed.note_poll(Readiness::READABLE, &polled);
        let (n, from) = ready!(polled)?;
        Poll::Ready(Ok((n, addr_of(&from))))
    }

    pub(crate) fn try_recv(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let id = self.id;
        let r = self
            .io
            .try_op(self.endpoint(), |net, _| net.unix_recv_from(id, buf, false));
        self.assumed.note(Readiness::READABLE, &r);
        let (n, from) = r?;
        Ok((n, addr_of(&from)))
    }

    // Both.

    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        let id = self.id;
        self.io
            .query(self.endpoint(), |net| Ok(addr_of(&net.unix_local_name(id))))
    }

    pub(crate) fn peer_addr(&self) -> io::Result<SocketAddr> {
        let id = self.id;
        self.io.query(self.endpoint(), |net| {
            net.unix_peer_name(id).map(|n| addr_of(&n))
        })
    }

    pub(crate) fn peer_cred(&self) -> io::Result<super::UCred> {
        let id = self.id;
        self.io.query(self.endpoint(), |net| {
            let c = net.unix_peer_cred(id);
            Ok(super::UCred::new(Some(c.pid), c.uid, c.gid))
        })
    }

    pub(crate) fn take_error(&self) -> io::Result<Option<io::Error>> {
        let id = self.id;
        match self
            .io
            .try_op(self.endpoint(), |net, _| Ok(net.unix_take_error(id)))
        {
            Ok(e) => Ok(e),
            // The host is gone: nothing pending to report.
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub(crate) fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        let id = self.id;
        self.io
            .try_op(self.endpoint(), |net, _| net.unix_shutdown(id, how))
    }

    /// The raw fd: a real, never connected Unix socket of the same type.
    pub(crate) fn raw_fd(&self) -> RawFd {
        let kind = match self.ty {
            UnixType::Stream => Kind::UnixStream,
            UnixType::Datagram => Kind::UnixDatagram,
        };
        self.fd
            .get_or_create(socket2::Domain::UNIX, kind, |s| {
                // Calls on the raw fd (socket2's `peek`) reach the socket.
                crate::net::fd::register_unix_view(&self.io, s.as_raw_fd(), self.id);
            })
            .as_raw_fd()
    }
}

impl Drop for UnixIo {
    fn drop(&mut self) {
        let id = self.id;
        let keep = self.handed_over.load(Ordering::Relaxed);
        if let Some(s) = self.fd.get() {
            crate::net::fd::forget_view(s.as_raw_fd());
        }
        self.io.close(self.endpoint(), |net, _| {
            if !keep {
                net.unix_close(id)
            }
        });
    }
}

/// The credentials of the simulated process: the real process's (a
/// simulation runs in it).
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

/// The name `path` binds or reaches, as mio reads it: a leading NUL byte
/// names the abstract namespace, an empty path asks for an autobind name
/// (`Unnamed` here), anything else is a path (its inode filled in by the
/// caller).
///
/// # Errors
///
/// `InvalidInput` when the path does not fit a `sockaddr_un` (108 bytes
/// with its NUL) or holds a NUL byte, as std's `SocketAddr::from_pathname`.
pub(crate) fn name_of(path: &Path) -> io::Result<UnixName> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    match bytes.first() {
        None => Ok(UnixName::Unnamed),
        Some(0) => {
            if bytes.len() > 108 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "abstract socket name must be shorter than 108 bytes",
                ));
            }
            Ok(UnixName::Abstract(bytes[1..].to_vec()))
        }
        Some(_) => {
            std::os::unix::net::SocketAddr::from_pathname(path)?;
            Ok(UnixName::Path(path.to_path_buf(), 0))
        }
    }
}

/// tokio's address for a name.
pub(crate) fn addr_of(name: &UnixName) -> SocketAddr {
    match name {
        UnixName::Unnamed => SocketAddr::from(unnamed()),
        UnixName::Path(p, _) => SocketAddr::from(
            std::os::unix::net::SocketAddr::from_pathname(p).expect("checked when bound"),
        ),
        UnixName::Abstract(n) => {
            #[cfg(target_os = "linux")]
            use std::os::linux::net::SocketAddrExt;
            SocketAddr::from(
                std::os::unix::net::SocketAddr::from_abstract_name(n).expect("checked when bound"),
            )
        }
    }
}

/// An unnamed address: std makes one only from a socket, so from one
/// real unbound socket, once.
fn unnamed() -> std::os::unix::net::SocketAddr {
    static UNNAMED: OnceLock<std::os::unix::net::SocketAddr> = OnceLock::new();
    UNNAMED
        .get_or_init(|| {
            crate::switches::without_interception(|| {
                std::os::unix::net::UnixDatagram::unbound()
                    .and_then(|s| s.local_addr())
                    .expect("an unbound Unix socket has an unnamed address")
            })
        })
        .clone()
}
