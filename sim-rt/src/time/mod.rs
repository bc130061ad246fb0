//! Simulated [`tokio::time`](https://docs.rs/tokio/1/tokio/time/index.html): the simulation's clock.
//!
//! Simulated time starts at a seed-derived instant and moves two ways. When
//! no task can run, the scheduler may pick `Advance`, which jumps to the
//! next timer deadline and fires every timer due then; so `sleep(1 hour)`
//! returns at once in real time, and a timeout races a reply exactly when
//! the simulation allows both orders. And work takes time: while the clock
//! is not paused, each poll moves it by the runtime's
//! [`poll_cost`](crate::runtime::Builder::poll_cost) (a microsecond by
//! default), and the timers it passes fire at the scheduler's next park, as
//! tokio's driver sees them. A paused clock ([`pause`], `start_paused`) stands
//! while tasks run, as tokio's.

use std::time::Duration as StdDuration;

pub mod error;
pub(crate) use crate::runtime::exact;
mod instant;
mod interval;
#[cfg(feature = "tracing-subscriber")]
mod sim_time;
mod sleep;
mod timeout;

pub use self::instant::Instant;
pub use self::interval::{interval, interval_at, Interval, MissedTickBehavior};
#[cfg(feature = "tracing-subscriber")]
pub use self::sim_time::SimTime;
pub use self::sleep::{sleep, sleep_until, Sleep};
pub use self::timeout::{timeout, timeout_at, Timeout};
pub use std::time::Duration;

use crate::runtime::context;

/// `duration`, capped at about 30 years: how long tokio's `sleep` (and
/// `interval`'s period) may be, so that a huge duration sleeps "forever"
/// instead of overflowing the clock.
fn safe_delay(duration: StdDuration) -> StdDuration {
    duration.min(StdDuration::from_secs(86_400 * 365 * 30))
}

/// Simulated
/// [`tokio::time::pause`](https://docs.rs/tokio/1/tokio/time/fn.pause.html): freezes the clock.
///
/// # Panics
///
/// When the clock is already frozen, on a multi-thread runtime, or outside
/// a simulation (as tokio).
///
/// # Differences from tokio
///
/// Simulated time is always virtual: whether frozen or not, it jumps to the
/// next deadline when nothing can run (like tokio's auto-advance while
/// paused). Frozen, polls take no time (as on tokio); the flag also decides
/// what [`advance`] and [`resume`] allow, with tokio's panics.
///
/// Freezing takes a nanosecond of simulated time first: tokio's `pause`
/// reads the running clock, so an `Instant` taken before it is strictly
/// earlier than the frozen time, as on tokio (the simulated clock
/// otherwise stands still within a poll).
#[track_caller]
pub fn pause() {
    // No closures: they would not carry the caller's location.
    let world = context::current();
    let mut core = world.core.borrow_mut();
    assert!(
        !core.config.tasks_run_in_background(),
        "`time::pause()` requires the `current_thread` Tokio runtime. This is the default Runtime \
         used by `#[tokio::test]."
    );
    assert!(!core.paused, "time is already frozen");
    core.now += CLOCK_READ;
    core.set_paused(true);
}

/// The simulated time a read of the running clock takes where tokio's
/// [`pause`] and [`resume`] read it: a nanosecond.
const CLOCK_READ: StdDuration = StdDuration::from_nanos(1);

/// Simulated
/// [`tokio::time::resume`](https://docs.rs/tokio/1/tokio/time/fn.resume.html): unfreezes the clock.
///
/// # Panics
///
/// When the clock is not frozen, or outside a simulation (as tokio).
///
/// # Differences from tokio
///
/// See [`pause`]. Unfreezing takes a nanosecond of simulated time after
/// it, so an `Instant` read next is strictly later than the frozen time,
/// as on tokio.
#[track_caller]
pub fn resume() {
    let world = context::current();
    let mut core = world.core.borrow_mut();
    assert!(core.paused, "time is not frozen");
    core.set_paused(false);
    core.now += CLOCK_READ;
}

/// Simulated
/// [`tokio::time::advance`](https://docs.rs/tokio/1/tokio/time/fn.advance.html):
/// moves the clock forward by `duration` at once. Every timer due by then
/// fires "at the same time" and the woken tasks run in the order the
/// scheduler picks. Then yields once, so they get a chance to run.
///
/// # Panics
///
/// When the clock is not frozen (see [`pause`]), or outside a simulation.
///
/// # Differences from tokio
///
/// None.
pub async fn advance(duration: StdDuration) {
    context::with(|w| {
        assert!(w.core.borrow().paused, "time is not frozen");
        w.jump(duration);
    });
    crate::task::yield_now().await;
}
