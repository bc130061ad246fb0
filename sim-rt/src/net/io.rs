//! What every simulated socket shares: the simulation and host it belongs
//! to, and the non-blocking-operation-then-wait pattern over the model.
//!
//! A socket operation is the model's non-blocking call. When it returns
//! `WouldBlock`, the task registers its waker on the endpoint for the
//! readiness it needs and returns `Pending`; the model's `Ready` event for
//! that endpoint wakes it to retry, exactly like mio/epoll readiness.

use std::future::poll_fn;
use std::io;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{ready, Context, Poll};
use std::time::Duration;

use sim_net::{Endpoint, Net, Readiness};

use crate::io::{Interest, Ready};

use crate::runtime::context;
use crate::runtime::world::World;
use crate::scheduler::HostId;

/// The readiness tokio's I/O driver would still have cached for a
/// stream beyond what it can do right now.
///
/// tokio keeps a socket's readiness from the last event until an
/// operation returns `WouldBlock`: after a read that took every queued
/// byte the stream is still "readable", and `readable()` or
/// `poll_read_ready` return at once; the next read finds nothing and
/// clears it. An accepted stream starts out assumed readable and
/// writable (tokio 1.54). The simulated stream's readiness is the
/// model's state *or* these bits: a successful operation of a direction
/// sets its bit (its event would still be cached), one that would block
/// clears it.
#[derive(Debug, Default)]
pub(crate) struct Assumed {
    read: AtomicBool,
    write: AtomicBool,
}

impl Assumed {
    pub(crate) fn new(read: bool, write: bool) -> Assumed {
        Assumed {
            read: AtomicBool::new(read),
            write: AtomicBool::new(write),
        }
    }

    /// The assumed kinds among `interest`'s (as tokio `Ready`).
    pub(crate) fn ready(&self, interest: Interest) -> Ready {
        let mut r = Ready::EMPTY;
        if interest.is_readable() && self.read.load(Ordering::Relaxed) {
            r |= Ready::READABLE;
        }
        if interest.is_writable() && self.write.load(Ordering::Relaxed) {
            r |= Ready::WRITABLE;
        }
        r
    }

    /// Whether `direction` (`READABLE` or `WRITABLE`) is assumed.
    pub(crate) fn has(&self, direction: Readiness) -> bool {
        (direction.is_readable() && self.read.load(Ordering::Relaxed))
            || (direction.is_writable() && self.write.load(Ordering::Relaxed))
    }

    /// Records the outcome of an operation of `direction`: done sets the
    /// bit, `WouldBlock` clears it, another error leaves it.
    pub(crate) fn note<R>(&self, direction: Readiness, r: &io::Result<R>) {
        let set = match r {
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
            Err(_) => return,
        };
        self.set(direction, set);
    }

    /// As [`note`](Self::note) for a poll: `Pending` is a `WouldBlock`.
    pub(crate) fn note_poll<R>(&self, direction: Readiness, p: &Poll<io::Result<R>>) {
        match p {
            Poll::Ready(r) => self.note(direction, r),
            Poll::Pending => self.set(direction, false),
        }
    }

    /// Clears the bits of `interest` (its closure found it would block).
    pub(crate) fn clear(&self, interest: Interest) {
        if interest.is_readable() {
            self.read.store(false, Ordering::Relaxed);
        }
        if interest.is_writable() {
            self.write.store(false, Ordering::Relaxed);
        }
    }

    fn set(&self, direction: Readiness, on: bool) {
        if direction.is_readable() {
            self.read.store(on, Ordering::Relaxed);
        }
        if direction.is_writable() {
            self.write.store(on, Ordering::Relaxed);
        }
    }
}

/// The simulation and host a socket belongs to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NetIo {
    runtime: u64,
    host: HostId,
}

impl NetIo {
    /// For a socket created now, by the running task (or the main future).
    ///
    /// # Panics
    ///
    /// Outside a simulation, and in one whose runtime has no I/O driver
    /// (built without `enable_io`), with tokio's messages.
    ///
    /// # Errors
    ///
    /// The runtime was shut down (an `EnterGuard` held since reaches it):
    /// the error `is_rt_shutdown_err` recognises, as tokio's registration.
    #[track_caller]
    pub(crate) fn current() -> io::Result<(Rc<World>, NetIo, sim_net::HostId)> {
        let world = context::with_io();
        if world.is_shut_down() {
            return Err(unreachable_world());
        }
        let host = world
            .current()
            .map_or(crate::runtime::world::MAIN_HOST, |c| c.host);
        let net_host = world.net_host(host);
        let io = NetIo {
            runtime: world.id,
            host,
        };
        Ok((world, io, net_host))
    }

    /// For a socket of `host` in `world` (one handed over by a descriptor).
    pub(crate) fn on(world: &World, host: HostId) -> NetIo {
        NetIo {
            runtime: world.id,
            host,
        }
    }

    /// The id of the socket's simulation (its runtime).
    pub(crate) fn runtime(&self) -> u64 {
        self.runtime
    }

    /// The host the socket belongs to.
    #[allow(dead_code)]
    pub(crate) fn host(&self) -> HostId {
        self.host
    }

    /// The socket's simulation, or an error when it is not reachable (it
    /// ended, or this is another thread).
    #[inline(always)]
    pub(crate) fn world(&self) -> io::Result<Rc<World>> {
        context::world_of(self.runtime).ok_or_else(unreachable_world)
    }

    /// The socket's simulation, for a wait: as [`world`](Self::world), and
    /// an error once the runtime was shut down (tokio's I/O resources then
    /// fail with the error `is_rt_shutdown_err` recognises instead of
    /// waiting for a driver that is gone).
    #[inline(always)]
    fn world_to_wait(&self) -> io::Result<Rc<World>> {
        let world = self.world()?;
        if world.is_shut_down() {
            return Err(unreachable_world());
        }
        Ok(world)
    }

    /// Runs a non-blocking operation on `endpoint`; on `WouldBlock`,
    /// registers the task for `interest` and returns `Pending`. An endpoint
    /// the model no longer knows (its host was stopped) gives
    /// `NotConnected`. A completed operation takes a unit of the task's
    /// cooperative budget, as tokio's readiness polls do.
    pub(crate) fn poll_op<R>(
        &self,
        cx: &mut Context<'_>,
        endpoint: Endpoint,
        interest: Readiness,
        op: impl FnOnce(&mut Net, Duration) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        let coop = ready!(crate::task::coop::poll_proceed(cx));
        let world = self.world_to_wait()?;
        match world.net_op(|net, now| {
            if exists(net, endpoint) {
                op(net, now)
            } else {
                Err(gone())
            }
        }) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                world.net_register(endpoint, interest, cx.waker());
                Poll::Pending
            }
            r => {
                coop.made_progress();
                Poll::Ready(r)
            }
        }
    }

    /// Runs a non-blocking operation once (the `try_*` methods): no waiting.
    pub(crate) fn try_op<R>(
        &self,
        endpoint: Endpoint,
        op: impl FnOnce(&mut Net, Duration) -> io::Result<R>,
    ) -> io::Result<R> {
        let world = self.world()?;
        world.net_op(|net, now| {
            if exists(net, endpoint) {
                op(net, now)
            } else {
                Err(gone())
            }
        })
    }

    /// Reads the model about `endpoint`.
    pub(crate) fn query<R>(
        &self,
        endpoint: Endpoint,
        f: impl FnOnce(&Net) -> io::Result<R>,
    ) -> io::Result<R> {
        let world = self.world()?;
        world.net_ref(|net| {
            if exists(net, endpoint) {
                f(net)
            } else {
                Err(gone())
            }
        })
    }

    /// `Ready` once `endpoint` is ready for any kind in `interest` (or is
    /// gone, so the next operation reports the error); else registers the
    /// task and returns `Pending`. Ready takes a unit of the task's
    /// cooperative budget, as in tokio.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        endpoint: Endpoint,
        interest: Readiness,
    ) -> Poll<io::Result<()>> {
        let coop = ready!(crate::task::coop::poll_proceed(cx));
        let world = self.world_to_wait()?;
        let ready = world.net_ref(|net| net.readiness(endpoint));
        let hit = (interest.is_readable() && ready.is_readable())
            || (interest.is_writable() && ready.is_writable());
        if hit {
            coop.made_progress();
            Poll::Ready(Ok(()))
        } else {
            world.net_register(endpoint, interest, cx.waker());
            Poll::Pending
        }
    }

    /// The readiness of `endpoint` that `interest` covers, now (no
    /// waiting, no registration).
    pub(crate) fn ready_now(&self, endpoint: Endpoint, interest: Interest) -> io::Result<Ready> {
        let world = self.world()?;
        let ready = world.net_ref(|net| ready_of(net, endpoint)) & interest_mask(interest);
        Ok(ready)
    }

    /// tokio's `ready(interest)`: `Ready` with the readiness of `endpoint`
    /// that `interest` covers (see [`ready_of`] and [`interest_mask`]) once
    /// it is not empty; else registers the task and returns `Pending`.
    pub(crate) fn poll_ready_set(
        &self,
        cx: &mut Context<'_>,
        endpoint: Endpoint,
        interest: Interest,
    ) -> Poll<io::Result<Ready>> {
        // No budget here, as tokio's `readiness` future takes none (its
        // `async_io` takes a unit per call of `f`).
        let world = self.world_to_wait()?;
        let ready = world.net_ref(|net| ready_of(net, endpoint)) & interest_mask(interest);
        if ready.is_empty() {
            world.net_register(endpoint, wake_on(interest), cx.waker());
            Poll::Pending
        } else {
            Poll::Ready(Ok(ready))
        }
    }

    /// tokio's `try_io`: runs `f` once if `endpoint` is ready for
    /// `interest` now, else `WouldBlock` without calling it. A
    /// `WouldBlock` from `f` becomes a plain `WouldBlock` error, as in
    /// tokio. Here readiness is the model's state; a socket that keeps
    /// tokio's cached readiness ([`Assumed`]) clears it itself.
    pub(crate) fn try_io<R>(
        &self,
        endpoint: Endpoint,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        let world = self.world()?;
        let ready = world.net_ref(|net| ready_of(net, endpoint)) & interest_mask(interest);
        // `f` uses the socket's own methods, which borrow the model: the
        // world must not be held while it runs.
        drop(world);
        if ready.is_empty() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        match f() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                Err(io::ErrorKind::WouldBlock.into())
            }
            r => r,
        }
    }

    /// tokio's `async_io`: waits until `endpoint` is ready for `interest`,
    /// runs `f`, and again while `f` returns `WouldBlock`. Takes a unit of
    /// the task's cooperative budget per call of `f`, as tokio does.
    pub(crate) async fn async_io<R>(
        &self,
        endpoint: Endpoint,
        interest: Interest,
        mut f: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            poll_fn(|cx| self.poll_ready_set(cx, endpoint, interest)).await?;
            let coop = poll_fn(crate::task::coop::poll_proceed).await;
            match f() {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                r => {
                    coop.made_progress();
                    return r;
                }
            }
        }
    }

    /// The socket's handle is gone: closes it in the model (a no-op once
    /// its host stopped) and forgets its waiters. Does nothing when the
    /// simulation is not reachable.
    pub(crate) fn close(&self, endpoint: Endpoint, op: impl FnOnce(&mut Net, Duration)) {
        if let Some(world) = context::world_of(self.runtime) {
            world.net_forget(endpoint);
            world.net_op(op);
        }
    }
}

/// The readiness of `endpoint` in tokio's terms: `READABLE` and
/// `WRITABLE` as the model reports them (an operation of that kind would
/// not block), and for a stream `READ_CLOSED`, `WRITE_CLOSED` and `ERROR`
/// as Linux's `poll` reports them through mio (see
/// [`sim_net::TcpHangup`]), and for a datagram socket with a pending error
/// (an ICMP port unreachable) `ERROR` and `WRITE_CLOSED`. An endpoint the model no longer knows (its
/// host was stopped) is ready for everything, so that the next operation
/// reports the error; a stream is then closed both ways, as a socket whose
/// connection is gone.
fn ready_of(net: &Net, endpoint: Endpoint) -> Ready {
    let base = net.readiness(endpoint);
    let mut ready = Ready::EMPTY;
    if base.is_readable() {
        ready |= Ready::READABLE;
    }
    if base.is_writable() {
        ready |= Ready::WRITABLE;
    }
    // A pending socket error: Linux polls it as `EPOLLERR` with the
    // socket still writable, which mio reports as write-closed too.
    if let Endpoint::Socket(socket) = endpoint {
        if net.exists(endpoint) && net.udp_has_error(socket) {
            ready |= Ready::ERROR | Ready::WRITE_CLOSED;
        }
    }
    // An endpoint the model forgot is closed both ways.
    let hangup = match endpoint {
        Endpoint::Conn(conn) => Some(net.tcp_hangup(conn).map_or((true, true, false), |h| {
            (h.read_closed, h.write_closed, h.error)
        })),
        Endpoint::Unix(id) => Some(net.unix_hangup(id).map_or((true, true, false), |h| {
            (h.read_closed, h.write_closed, h.error)
        })),
        _ => None,
    };
    if let Some((read_closed, write_closed, error)) = hangup {
        if read_closed {
            ready |= Ready::READ_CLOSED;
        }
        if write_closed {
            ready |= Ready::WRITE_CLOSED;
        }
        if error {
            ready |= Ready::ERROR;
        }
    }
    ready
}

/// The readiness kinds `interest` covers, as tokio counts them: readable
/// includes read closed, writable includes write closed, and priority
/// (Linux and Android) includes read closed.
fn interest_mask(interest: Interest) -> Ready {
    let mut mask = Ready::EMPTY;
    if interest.is_readable() {
        mask |= Ready::READABLE | Ready::READ_CLOSED;
    }
    if interest.is_writable() {
        mask |= Ready::WRITABLE | Ready::WRITE_CLOSED;
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if interest.is_priority() {
        mask |= Ready::PRIORITY | Ready::READ_CLOSED;
    }
    if interest.is_error() {
        mask |= Ready::ERROR;
    }
    mask
}

/// Which of the model's wakeups can make `interest` ready: a read-side
/// event for readable and priority (the peer's FIN, a reset), both kinds
/// for error (the model wakes both when an error arrives).
fn wake_on(interest: Interest) -> Readiness {
    let mut on = Readiness::EMPTY;
    if interest.is_readable() || interest.is_priority() {
        on |= Readiness::READABLE;
    }
    if interest.is_writable() {
        on |= Readiness::WRITABLE;
    }
    if interest.is_error() {
        on |= Readiness::BOTH;
    }
    on
}

/// Whether the model still knows `endpoint`.
fn exists(net: &Net, endpoint: Endpoint) -> bool {
    net.exists(endpoint)
}

#[cold]
fn unreachable_world() -> io::Error {
    io::Error::other(crate::runtime::RUNTIME_GONE)
}

fn gone() -> io::Error {
    io::Error::new(
        io::ErrorKind::NotConnected,
        "the socket's host was stopped or reset; its sockets are gone",
    )
}
