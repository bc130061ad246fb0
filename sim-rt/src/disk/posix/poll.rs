//! `poll`, `ppoll` and `select` over a simulation's descriptors, and the
//! wait every blocking socket and pipe call makes.
//!
//! std's `TcpStream::connect_timeout` polls its connecting socket for
//! `POLLOUT`; blocking clients written in C, and Rust ones built on
//! `poll` (a connection pool checking a socket is still open), wait for
//! several descriptors at once. Inside a simulation a set that holds a
//! simulated descriptor is answered from the models:
//!
//! - a socket or a pipe end reports what Linux's `poll` would from its
//!   model's state: `POLLIN`/`POLLOUT` from its readiness, `POLLRDHUP`
//!   once nothing more will arrive, `POLLHUP` once both directions are
//!   shut or the connection is closed (reset, refused), `POLLERR` while an
//!   error is pending (a refused connect, until `SO_ERROR` takes it); a
//!   read end `POLLHUP` once no writer is left, a write end `POLLERR` once
//!   no reader is. A TCP socket neither connecting nor listening reports
//!   `POLLOUT | POLLHUP`, as Linux's does.
//! - a file of the simulated disk is always ready, as a regular file is.
//! - a real descriptor in the same set (a file of the lower layer, a real
//!   pipe made before the simulation) is asked with a real `poll` that
//!   does not wait, each time the set is looked at.
//!
//! When nothing is ready and the timeout is not zero, the call waits as a
//! blocking socket call does (the module docs of `sock.rs`): a simulated
//! thread gives the turn back until one of the simulated descriptors
//! changes or the timeout passes on the simulated clock. A real descriptor
//! cannot wake it: it is looked at again when a simulated one changes or
//! the time is up. A set with no simulated descriptor is the real call's.
//!
//! `ppoll`'s and `pselect`'s signal masks are not applied inside a
//! simulation: a signal raised in the simulation is delivered to its
//! `tokio::signal` listeners, never to a thread's handler.

use std::cell::RefCell;
use std::ffi::c_int;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};
use std::time::Duration;

use libc::{
    pollfd, POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT, POLLRDHUP, POLLRDNORM, POLLWRNORM,
};
use sim_net::{Endpoint, Net, Readiness};

use super::table::{self, Kind};
use super::{real, Errno, Route};
use crate::runtime::context;
use crate::runtime::exact::sleep_exact;
use crate::runtime::net::IpObj;
use crate::runtime::world::threads::{self, Op, TIMED_OUT};
use crate::runtime::world::World;
use crate::switches::Escape;

/// How a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Woke {
    /// Something waited for may be ready: look again.
    Changed,
    /// The deadline passed on the simulated clock.
    TimedOut,
}

/// Waits until one of `wants` (an endpoint, for a readiness) is ready, or
/// the simulated clock reaches `deadline`. A simulated thread gives the
/// turn back meanwhile; the owner thread (a task blocking inside its poll)
/// runs the simulated threads (and, on a multi-thread runtime, the other
/// tasks) and moves the clock, as the sole worker of a current-thread
/// runtime blocked in the call would let other threads run. When nothing
/// but another task could end the wait, tokio would hang: `EDEADLK`, with
/// a note.
pub(super) fn wait_any(
    world: &World,
    wants: Vec<(Endpoint, Readiness)>,
    deadline: Option<Duration>,
) -> Result<Woke, Errno> {
    if deadline.is_some_and(|d| world.now() >= d) {
        return Ok(Woke::TimedOut);
    }
    let ready = |w: &World| {
        w.net_ref(|net| {
            wants
                .iter()
                .any(|&(endpoint, dir)| net.readiness(endpoint).intersects(dir))
        })
    };
    if let Some(r) = threads::block(Op::Ready {
        wants: wants.clone(),
        deadline,
    }) {
        return Ok(if r == TIMED_OUT {
            Woke::TimedOut
        } else {
            Woke::Changed
        });
    }
    // The owner thread: the deadline is a timer of the simulation, so that
    // the clock moves to it when nothing happens before.
    let timer = RefCell::new(deadline.map(|d| sleep_exact(d.saturating_sub(world.now()))));
    let due = |_: &World| {
        timer.borrow_mut().as_mut().is_some_and(|t| {
            Pin::new(t)
                .poll(&mut Context::from_waker(Waker::noop()))
                .is_ready()
        })
    };
    let done = |w: &World| ready(w) || due(w);
    if world.block_owner(&done) {
        return Ok(if ready(world) {
            Woke::Changed
        } else {
            Woke::TimedOut
        });
    }
    crate::intercept::refuse(Escape::BlockingSocket);
    Err(libc::EDEADLK)
}

/// Waits until `endpoint` is ready for `dir` ([`wait_any`]); a deadline
/// passing is `EAGAIN`, as a socket's `SO_RCVTIMEO`/`SO_SNDTIMEO` is on
/// Linux.
pub(super) fn wait(
    world: &World,
    endpoint: Endpoint,
    dir: Readiness,
    deadline: Option<Duration>,
) -> Result<(), Errno> {
    match wait_any(world, vec![(endpoint, dir)], deadline)? {
        Woke::Changed => Ok(()),
        Woke::TimedOut => Err(libc::EAGAIN),
    }
}

/// Runs `op` on the model until it does not report `WouldBlock`: between
/// tries, when the descriptor `blocks`, waits for `dir` on `endpoint`
/// ([`wait`]; `EAGAIN` once `deadline` passes). An endpoint the model has
/// forgotten (closed under the descriptor, its host reset) is `gone`. The
/// loop every blocking socket and pipe call makes.
pub(super) fn retry<T>(
    world: &World,
    endpoint: Endpoint,
    dir: Readiness,
    blocks: bool,
    deadline: Option<Duration>,
    gone: Errno,
    mut op: impl FnMut(&mut Net, Duration) -> std::io::Result<T>,
) -> Result<T, Errno> {
    loop {
        let r = world.net_op(|net, now| {
            if net.exists(endpoint) {
                op(net, now)
            } else {
                Err(std::io::Error::from_raw_os_error(gone))
            }
        });
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && blocks => {
                wait(world, endpoint, dir, deadline)?;
            }
            r => return r.map_err(|e| super::net_errno(&e)),
        }
    }
}

/// When a blocking call for `dir` on a socket of `kind` gives up: its
/// `SO_RCVTIMEO` (reading) or `SO_SNDTIMEO` (writing, connecting) from
/// now, if set.
pub(super) fn deadline(world: &World, kind: Kind, dir: Readiness) -> Option<Duration> {
    let (recv, send) = match kind {
        Kind::Unix {
            recv_timeout,
            send_timeout,
            ..
        }
        | Kind::Ip {
            recv_timeout,
            send_timeout,
            ..
        } => (recv_timeout, send_timeout),
        _ => (None, None),
    };
    let timeout = if dir.is_readable() { recv } else { send };
    timeout.map(|t| world.now() + t)
}

/// What one entry of a poll set is.
#[derive(Clone, Copy, Debug)]
enum Watch {
    /// A negative descriptor: ignored, `revents` 0.
    Skip,
    /// Not the simulation's: a real `poll` answers.
    Real,
    /// Another simulation's descriptor, or one of a simulation that is
    /// gone: `POLLNVAL`.
    Stale,
    /// A file or directory of the simulated disk: always ready.
    File,
    /// A TCP (or UDP) socket neither connecting nor listening yet.
    Fresh { udp: bool },
    /// An endpoint of the network model; for a pipe end, the directions
    /// it has.
    Net {
        endpoint: Endpoint,
        read: bool,
        write: bool,
    },
}

/// What `fd` is to a poll set of the simulation `world`.
fn watch(fd: c_int, world: u64) -> Watch {
    if fd < 0 {
        return Watch::Skip;
    }
    let Some(open) = table::get(fd) else {
        return Watch::Real;
    };
    if open.world != world {
        return Watch::Stale;
    }
    let net = |endpoint| Watch::Net {
        endpoint,
        read: true,
        write: true,
    };
    match open.kind {
        Kind::Sim { .. } => Watch::File,
        Kind::Lower => Watch::Real,
        Kind::Unix { id, .. } => net(Endpoint::Unix(id)),
        Kind::Ip { obj, udp, .. } => match obj {
            IpObj::Fresh => Watch::Fresh { udp },
            IpObj::Conn(c) => net(Endpoint::Conn(c)),
            IpObj::Listener(l) => net(Endpoint::Listener(l)),
            IpObj::Udp(s) => net(Endpoint::Socket(s)),
        },
        Kind::Pipe { id, read, write } => Watch::Net {
            endpoint: Endpoint::Pipe(id),
            read,
            write,
        },
    }
}

const READ_EVENTS: i16 = POLLIN | POLLRDNORM;
const WRITE_EVENTS: i16 = POLLOUT | POLLWRNORM;

/// The directions `events` asks of an endpoint with `read`/`write`.
fn asked(events: i16, read: bool, write: bool) -> Readiness {
    let mut r = Readiness::EMPTY;
    if read && events & (READ_EVENTS | POLLRDHUP) != 0 {
        r |= Readiness::READABLE;
    }
    if write && events & WRITE_EVENTS != 0 {
        r |= Readiness::WRITABLE;
    }
    r
}

/// The `revents` of a simulated entry (not [`Watch::Real`]).
fn revents(net: &Net, watch: Watch, events: i16) -> i16 {
    match watch {
        Watch::Skip | Watch::Real => 0,
        Watch::Stale => POLLNVAL,
        Watch::File => events & (READ_EVENTS | WRITE_EVENTS),
        Watch::Fresh { udp: true } => events & WRITE_EVENTS,
        Watch::Fresh { udp: false } => POLLHUP | (events & WRITE_EVENTS),
        Watch::Net {
            endpoint,
            read,
            write,
        } => {
            let ready = net.readiness(endpoint);
            let mut r = 0;
            // A pipe at its end is `POLLHUP` alone (below), as Linux's.
            let data = match endpoint {
                Endpoint::Pipe(id) => net.pipe_queued(id) > 0,
                _ => true,
            };
            if read && ready.is_readable() && data {
                r |= events & READ_EVENTS;
            }
            if write && ready.is_writable() {
                r |= events & WRITE_EVENTS;
            }
            if !net.exists(endpoint) {
                // Closed under the descriptor (its host was reset).
                return r | POLLHUP;
            }
            let (rdhup, hup, err) = match endpoint {
                Endpoint::Conn(c) => net.tcp_hangup(c).map_or((false, false, false), |h| {
                    (h.read_closed, h.read_closed && h.write_closed, h.error)
                }),
                Endpoint::Unix(id) => net.unix_hangup(id).map_or((false, false, false), |h| {
                    (h.read_closed, h.write_closed, h.error)
                }),
                Endpoint::Pipe(id) => {
                    let hup = read && !net.pipe_has_writer(id) && ready.is_readable();
                    (hup, hup, write && !net.pipe_has_reader(id))
                }
                Endpoint::Listener(_) | Endpoint::Socket(_) => (false, false, false),
            };
            if rdhup {
                r |= events & POLLRDHUP;
            }
            if hup {
                r |= POLLHUP;
            }
            if err {
                r |= POLLERR;
            }
            r
        }
    }
}

/// Asks the real `poll`, without waiting, about the [`Watch::Real`]
/// entries of `fds`, setting their `revents`.
fn poll_real(fds: &mut [pollfd], watches: &[Watch]) -> Result<(), Errno> {
    let mut set: Vec<pollfd> = fds
        .iter()
        .zip(watches)
        .filter(|(_, w)| matches!(w, Watch::Real))
        .map(|(p, _)| pollfd {
            fd: p.fd,
            events: p.events,
            revents: 0,
        })
        .collect();
    if set.is_empty() {
        return Ok(());
    }
    // SAFETY: `set` is a valid array of its length.
    #[allow(unsafe_code)]
    let n = real(|| unsafe { libc::poll(set.as_mut_ptr(), set.len() as libc::nfds_t, 0) });
    if n < 0 {
        return Err(super::last_errno());
    }
    let mut answers = set.into_iter();
    for (p, _) in fds
        .iter_mut()
        .zip(watches)
        .filter(|(_, w)| matches!(w, Watch::Real))
    {
        p.revents = answers.next().map_or(0, |a| a.revents);
    }
    Ok(())
}

/// `poll(fds, timeout)` inside a simulation (`None` waits without end):
/// the number of entries with events, their `revents` set. The real call
/// when no entry is a simulated descriptor.
pub(crate) fn poll(fds: &mut [pollfd], timeout: Option<Duration>) -> Route<usize> {
    if !table::any() {
        return Route::Real;
    }
    let Some(world) = context::try_current_quiet() else {
        return Route::Real;
    };
    let watches: Vec<Watch> = fds.iter().map(|p| watch(p.fd, world.id)).collect();
    if watches
        .iter()
        .all(|w| matches!(w, Watch::Skip | Watch::Real))
    {
        return Route::Real;
    }
    let deadline = timeout.map(|t| world.now() + t);
    loop {
        if let Err(e) = poll_real(fds, &watches) {
            return Route::Sim(Err(e));
        }
        let (count, wants) =
            world.net_ref(|net| (look(net, fds, &watches), wants(net, fds, &watches)));
        if count > 0 || timeout == Some(Duration::ZERO) {
            return Route::Sim(Ok(count));
        }
        match wait_any(&world, wants, deadline) {
            Ok(Woke::Changed) => {}
            Ok(Woke::TimedOut) => {
                // One last look, as the kernel's poll at its timeout.
                if let Err(e) = poll_real(fds, &watches) {
                    return Route::Sim(Err(e));
                }
                return Route::Sim(Ok(world.net_ref(|net| look(net, fds, &watches))));
            }
            Err(e) => return Route::Sim(Err(e)),
        }
    }
}

/// Sets the `revents` of the simulated entries; the number of entries
/// with events (the real ones' set by [`poll_real`] before).
fn look(net: &Net, fds: &mut [pollfd], watches: &[Watch]) -> usize {
    let mut count = 0;
    for (p, &w) in fds.iter_mut().zip(watches) {
        if !matches!(w, Watch::Real) {
            p.revents = revents(net, w, p.events);
        }
        if p.revents != 0 {
            count += 1;
        }
    }
    count
}

/// What to wait for, after [`look`] found nothing: for each quiet
/// endpoint, what was asked of it, or, with nothing asked (a hang-up
/// alone), any change; never a direction ready now, which would end the
/// wait at once with nothing to report.
fn wants(net: &Net, fds: &[pollfd], watches: &[Watch]) -> Vec<(Endpoint, Readiness)> {
    let mut wants = Vec::new();
    for (p, &w) in fds.iter().zip(watches) {
        let Watch::Net {
            endpoint,
            read,
            write,
        } = w
        else {
            continue;
        };
        let mut dir = asked(p.events, read, write);
        if dir.is_empty() {
            dir = Readiness::BOTH;
        }
        let now = net.readiness(endpoint);
        let mut quiet = Readiness::EMPTY;
        if dir.is_readable() && !now.is_readable() {
            quiet |= Readiness::READABLE;
        }
        if dir.is_writable() && !now.is_writable() {
            quiet |= Readiness::WRITABLE;
        }
        if !quiet.is_empty() {
            wants.push((endpoint, quiet));
        }
    }
    wants
}
