//! Simulated [`tokio::signal`](https://docs.rs/tokio/1/tokio/signal/index.html): signals a host receives only when the
//! simulation sends them ([`crate::sim::send_signal`],
//! [`crate::sim::send_ctrl_c`]) or its own program raises them
//! (`kill(getpid(), ..)`, `raise`, `pthread_kill`: interposed inside a
//! simulation, see `crate::intercept`), never the process's real ones.
//!
//! # Invariants
//!
//! - Each host counts, per signal number, the signals sent to it
//!   (`world::Host::signals`). A listener remembers the count it has seen
//!   and is ready while the host's count is higher; deliveries between two
//!   receives are coalesced into one, as with real signals.
//!
//! # Determinism
//!
//! Signals come only from the simulation's own calls; a delivery wakes the
//! host's waiting listeners in the order they started waiting. A signal
//! the program raises is delivered when the poll that raised it returns,
//! at the same point of every run.

use std::cell::RefCell;
use std::future::poll_fn;
use std::io;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use crate::runtime::context;
use crate::runtime::world::World;
use crate::scheduler::HostId;

#[cfg(unix)]
pub mod unix;

/// SIGINT, which [`ctrl_c`] waits for.
const SIGINT: i32 = 2;

/// A listener's view of one signal on one host.
#[derive(Debug)]
pub(crate) struct Listener {
    host: HostId,
    signal: i32,
    /// The host's count for `signal` when last seen.
    seen: u64,
}

impl Listener {
    /// A listener on the calling task's host that sees only the signals
    /// sent from now on.
    ///
    /// # Panics
    ///
    /// Outside a simulation, and in one whose runtime has no I/O driver
    /// (tokio's signal driver is part of it).
    #[track_caller]
    pub(crate) fn new(signal: i32) -> Listener {
        let w = context::with_io();
        let host = w
            .current()
            .map_or(crate::runtime::world::MAIN_HOST, |c| c.host);
        let seen = {
            let mut core = w.core.borrow_mut();
            let slot = core.hosts[host.index()].signal_slot(signal);
            slot.listened = true;
            slot.sent
        };
        listening_on_this_thread(&w);
        Listener { host, signal, seen }
    }

    /// Ready once a signal was sent after the last one seen.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        context::with(|w| {
            let mut core = w.core.borrow_mut();
            let slot = core.hosts[self.host.index()].signal_slot(self.signal);
            if slot.sent > self.seen {
                self.seen = slot.sent;
                return Poll::Ready(());
            }
            if !slot.waiters.iter().any(|x| x.will_wake(cx.waker())) {
                slot.waiters.push(cx.waker().clone());
            }
            Poll::Pending
        })
    }
}

/// Raises `signum` on the calling task's host, for the program's own
/// `kill(getpid(), ..)`, `raise` or `pthread_kill` (the interposed calls):
/// its listeners see it when the running poll returns. Never panics (it
/// runs inside an `extern "C"` function); false when no simulation is
/// reachable from here (the world is busy, as in a destructor the runtime
/// runs), and the call then fails.
#[cfg_attr(
    not(all(
        feature = "intercept",
        target_os = "linux",
        target_env = "gnu",
        not(target_feature = "crt-static")
    )),
    allow(dead_code)
)]
pub(crate) fn raise(signum: i32) -> bool {
    let Some(w) = context::try_current_quiet() else {
        return false;
    };
    let host = match w.core.try_borrow() {
        Ok(core) => core
            .current
            .map_or(crate::runtime::world::MAIN_HOST, |c| c.host),
        Err(_) => return false,
    };
    w.host_op(host, crate::runtime::world::HostOp::Signal(signum));
    true
}

thread_local! {
    /// The simulations of this thread that made a signal listener: where a
    /// signal this thread sends its own process from outside every
    /// simulation goes.
    static LISTENING: RefCell<Vec<Weak<World>>> = const { RefCell::new(Vec::new()) };
}

/// Remembers that `world` listens for signals, for [`raise_outside`].
fn listening_on_this_thread(world: &Rc<World>) {
    LISTENING.with(|l| {
        let mut l = l.borrow_mut();
        if !l
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Rc::as_ptr(world)))
        {
            l.retain(|w| w.strong_count() > 0);
            l.push(Rc::downgrade(world));
        }
    });
}

/// Delivers `signum`, which this thread sent its own process from outside
/// every simulation (between two `block_on`s), to every host of this
/// thread's live simulations that listens for it: as the process's tokio
/// handler would, had the runtimes been real. False when none listens (the
/// signal is then real). Never panics (it runs inside an `extern "C"`
/// function).
#[cfg_attr(
    not(all(
        feature = "intercept",
        target_os = "linux",
        target_env = "gnu",
        not(target_feature = "crt-static")
    )),
    allow(dead_code)
)]
pub(crate) fn raise_outside(signum: i32) -> bool {
    let worlds: Vec<Rc<World>> = LISTENING
        .try_with(|l| {
            l.try_borrow()
                .map(|l| l.iter().filter_map(Weak::upgrade).collect())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let mut delivered = false;
    for w in worlds {
        delivered |= w.deliver_signal_from_outside(signum);
    }
    delivered
}

/// Simulated [`tokio::signal::ctrl_c`](https://docs.rs/tokio/1/tokio/signal/ctrl_c/index.html): completes when the simulation sends
/// ctrl-c to the calling task's host after this call.
///
/// # Examples
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// use std::time::Duration;
/// sim_rt::sim::host("server").start(|| async {
///     sim_rt::signal::ctrl_c().await.unwrap();
///     println!("server: shutting down");
/// });
/// // Time moves only once every task waits, so the server is listening by now.
/// sim_rt::time::sleep(Duration::from_millis(1)).await;
/// sim_rt::sim::send_ctrl_c("server");
/// # });
/// ```
///
/// # Panics
///
/// Outside a simulation.
///
/// # Differences from tokio
///
/// Signals are per simulated host, never the process's real ones. A ctrl-c
/// counts for every `ctrl_c()` future of the host created before it was
/// sent; one sent earlier is not seen.
pub async fn ctrl_c() -> io::Result<()> {
    let mut listener = Listener::new(SIGINT);
    poll_fn(|cx| listener.poll_recv(cx)).await;
    Ok(())
}
