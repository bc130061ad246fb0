//! What every simulated socket shares: the simulation and host it belongs
//! to, and the non-blocking-operation-then-wait pattern over the model.
//!
//! A socket operation is the model's non-blocking call. When it returns
//! `WouldBlock`, the task registers its waker on the endpoint for the
//! readiness it needs and returns `Pending`; the model's `Ready` event for
//! that endpoint wakes it to retry, exactly like mio/epoll readiness.

use std::io;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use sim_net::{Endpoint, Net, Readiness};

use crate::runtime::context;
use crate::runtime::world::World;
use crate::scheduler::HostId;

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
    /// Outside a simulation.
    #[track_caller]
    pub(crate) fn current() -> (Rc<World>, NetIo, sim_net::HostId) {
        let world = context::current();
        let host = world
            .current()
            .map_or(crate::runtime::world::MAIN_HOST, |c| c.host);
        let net_host = world.net_host(host);
        let io = NetIo {
            runtime: world.id,
            host,
        };
        (world, io, net_host)
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

    /// Runs a non-blocking operation on `endpoint`; on `WouldBlock`,
    /// registers the task for `interest` and returns `Pending`. An endpoint
    /// the model no longer knows (its host was stopped) gives
    /// `NotConnected`.
    pub(crate) fn poll_op<R>(
        &self,
        cx: &mut Context<'_>,
        endpoint: Endpoint,
        interest: Readiness,
        op: impl FnOnce(&mut Net, Duration) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        let world = self.world()?;
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
            r => Poll::Ready(r),
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
    /// task and returns `Pending`.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        endpoint: Endpoint,
        interest: Readiness,
    ) -> Poll<io::Result<()>> {
        let world = self.world()?;
        let ready = world.net_ref(|net| net.readiness(endpoint));
        let hit = (interest.is_readable() && ready.is_readable())
            || (interest.is_writable() && ready.is_writable());
        if hit {
            Poll::Ready(Ok(()))
        } else {
            world.net_register(endpoint, interest, cx.waker());
            Poll::Pending
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
