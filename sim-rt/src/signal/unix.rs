//! Simulated [`tokio::signal::unix`](https://docs.rs/tokio/1/tokio/signal/unix/index.html): listen for a Unix signal sent to the
//! calling task's simulated host.

use std::io;
use std::task::{Context, Poll};

use super::Listener;

/// Simulated [`tokio::signal::unix::SignalKind`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html): a Unix signal number.
///
/// # Differences from tokio
///
/// None. The numbers are the platform's (`SIGTERM` is 15 on Linux).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignalKind(i32);

/// The platform's signal numbers for the named kinds.
#[cfg(any(target_os = "linux", target_os = "android"))]
mod numbers {
    pub(super) const ALARM: i32 = 14;
    pub(super) const CHILD: i32 = 17;
    pub(super) const HANGUP: i32 = 1;
    pub(super) const INTERRUPT: i32 = 2;
    pub(super) const IO: i32 = 29;
    pub(super) const PIPE: i32 = 13;
    pub(super) const QUIT: i32 = 3;
    pub(super) const TERMINATE: i32 = 15;
    pub(super) const USER1: i32 = 10;
    pub(super) const USER2: i32 = 12;
    pub(super) const WINDOW_CHANGE: i32 = 28;
    /// Signals a process may not catch or must not ignore (tokio refuses
    /// them): SIGILL, SIGFPE, SIGKILL, SIGSEGV, SIGSTOP.
    pub(super) const FORBIDDEN: [i32; 5] = [4, 8, 9, 11, 19];
}

/// The platform's signal numbers for the named kinds (BSD family).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod numbers {
    pub(super) const ALARM: i32 = 14;
    pub(super) const CHILD: i32 = 20;
    pub(super) const HANGUP: i32 = 1;
    pub(super) const INTERRUPT: i32 = 2;
    pub(super) const IO: i32 = 23;
    pub(super) const PIPE: i32 = 13;
    pub(super) const QUIT: i32 = 3;
    pub(super) const TERMINATE: i32 = 15;
    pub(super) const USER1: i32 = 30;
    pub(super) const USER2: i32 = 31;
    pub(super) const WINDOW_CHANGE: i32 = 28;
    pub(super) const FORBIDDEN: [i32; 5] = [4, 8, 9, 11, 17];
}

impl SignalKind {
    /// Simulated [`tokio::signal::unix::SignalKind::from_raw`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.from_raw).
    pub const fn from_raw(signum: std::os::raw::c_int) -> SignalKind {
        SignalKind(signum)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::as_raw_value`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.as_raw_value).
    pub const fn as_raw_value(&self) -> std::os::raw::c_int {
        self.0
    }

    /// Simulated [`tokio::signal::unix::SignalKind::alarm`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.alarm): SIGALRM.
    pub const fn alarm() -> SignalKind {
        SignalKind(numbers::ALARM)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::child`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.child): SIGCHLD.
    pub const fn child() -> SignalKind {
        SignalKind(numbers::CHILD)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::hangup`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.hangup): SIGHUP.
    pub const fn hangup() -> SignalKind {
        SignalKind(numbers::HANGUP)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::interrupt`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.interrupt): SIGINT.
    pub const fn interrupt() -> SignalKind {
        SignalKind(numbers::INTERRUPT)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::io`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.io): SIGIO.
    pub const fn io() -> SignalKind {
        SignalKind(numbers::IO)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::pipe`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.pipe): SIGPIPE.
    pub const fn pipe() -> SignalKind {
        SignalKind(numbers::PIPE)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::quit`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.quit): SIGQUIT.
    pub const fn quit() -> SignalKind {
        SignalKind(numbers::QUIT)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::terminate`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.terminate): SIGTERM.
    pub const fn terminate() -> SignalKind {
        SignalKind(numbers::TERMINATE)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::user_defined1`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.user_defined1): SIGUSR1.
    pub const fn user_defined1() -> SignalKind {
        SignalKind(numbers::USER1)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::user_defined2`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.user_defined2): SIGUSR2.
    pub const fn user_defined2() -> SignalKind {
        SignalKind(numbers::USER2)
    }

    /// Simulated [`tokio::signal::unix::SignalKind::window_change`](https://docs.rs/tokio/1/tokio/signal/unix/struct.SignalKind.html#method.window_change): SIGWINCH.
    pub const fn window_change() -> SignalKind {
        SignalKind(numbers::WINDOW_CHANGE)
    }
}

impl From<std::os::raw::c_int> for SignalKind {
    fn from(signum: std::os::raw::c_int) -> SignalKind {
        SignalKind::from_raw(signum)
    }
}

impl From<SignalKind> for std::os::raw::c_int {
    fn from(kind: SignalKind) -> std::os::raw::c_int {
        kind.as_raw_value()
    }
}

/// Simulated [`tokio::signal::unix::Signal`](https://docs.rs/tokio/1/tokio/signal/unix/struct.Signal.html): a listener for one kind of
/// signal on the calling task's host, made by [`signal`].
///
/// # Differences from tokio
///
/// Signals are sent by the simulation ([`crate::sim::send_signal`]) to a
/// simulated host, never by the OS. Signals sent before the listener was
/// made are not seen; several sent between two receives count as one.
/// [`recv`](Signal::recv) never returns `None`.
#[derive(Debug)]
pub struct Signal {
    listener: Listener,
}

impl Signal {
    /// Simulated [`tokio::signal::unix::Signal::recv`](https://docs.rs/tokio/1/tokio/signal/unix/struct.Signal.html#method.recv): waits for the next
    /// signal of this kind.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a signal is marked seen only when `recv` returns.
    pub async fn recv(&mut self) -> Option<()> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Simulated [`tokio::signal::unix::Signal::poll_recv`](https://docs.rs/tokio/1/tokio/signal/unix/struct.Signal.html#method.poll_recv).
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        self.listener.poll_recv(cx).map(Some)
    }
}

/// Simulated [`tokio::signal::unix::signal`](https://docs.rs/tokio/1/tokio/signal/unix/fn.signal.html): listens for `kind` on the
/// calling task's host.
///
/// # Errors
///
/// For the signals a process cannot handle (SIGILL, SIGFPE, SIGKILL,
/// SIGSEGV, SIGSTOP) and negative numbers, as tokio refuses them.
///
/// # Panics
///
/// Outside a simulation.
///
/// # Differences from tokio
///
/// See [`Signal`].
#[track_caller]
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    // tokio finds the signal driver before it looks at the number.
    crate::runtime::context::with_io();
    let signum = kind.as_raw_value();
    if signum < 0 || numbers::FORBIDDEN.contains(&signum) {
        return Err(io::Error::other(format!(
            "Refusing to register signal {signum}"
        )));
    }
    Ok(Signal {
        listener: Listener::new(signum),
    })
}
