//! Simulated [`tokio::time::Instant`](https://docs.rs/tokio/1/tokio/time/struct.Instant.html).

use std::fmt;
use std::ops;
use std::sync::OnceLock;
use std::time::Duration;

use crate::runtime::context;

/// Simulated [`tokio::time::Instant`](https://docs.rs/tokio/1/tokio/time/struct.Instant.html): a point on the simulation's clock.
///
/// # Differences from tokio
///
/// It is a duration since the simulation's epoch, not a wrapper of
/// [`std::time::Instant`]. Inside a simulation the clock starts at a
/// seed-derived point between one day and one year after the epoch and
/// moves only when the simulation advances it; std's clock reads the same
/// simulated clock there (see the crate's "No escape" notes), and
/// [`from_std`](Instant::from_std) and [`into_std`](Instant::into_std)
/// convert between the two exactly: `Instant::from(std::time::Instant::now())`
/// is `Instant::now()`. Outside a simulation it reads the real monotonic
/// clock, as tokio's does, through a fixed correspondence (a year after the
/// epoch is the first real instant this process read outside one).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    since_epoch: Duration,
}

/// Where the first real instant read outside a simulation sits on the
/// epoch's scale: far enough from zero that instants read before it still
/// convert.
const REAL_ANCHOR: Duration = Duration::from_secs(365 * 86_400);

fn std_anchor() -> std::time::Instant {
    static ANCHOR: OnceLock<std::time::Instant> = OnceLock::new();
    *ANCHOR.get_or_init(std::time::Instant::now)
}

/// `base` moved by the signed distance from `from` to `to`.
fn shifted(base: Duration, from: std::time::Instant, to: std::time::Instant) -> Duration {
    match to.checked_duration_since(from) {
        Some(ahead) => base.saturating_add(ahead),
        None => base.saturating_sub(from.duration_since(to)),
    }
}

impl Instant {
    pub(crate) fn from_epoch(since_epoch: Duration) -> Instant {
        Instant { since_epoch }
    }

    pub(crate) fn since_epoch(self) -> Duration {
        self.since_epoch
    }

    /// The current simulated time; outside a simulation, the real
    /// monotonic clock's (as tokio's `Instant::now` reads it anywhere).
    pub fn now() -> Instant {
        match context::try_with(|w| w.now()) {
            Some(now) => Instant::from_epoch(now),
            None => Instant::from_std(std::time::Instant::now()),
        }
    }

    /// Converts a [`std::time::Instant`] (see the type's differences):
    /// inside a simulation, on the simulated clock std reads there.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant::from_epoch(match context::try_with(|w| w.now()) {
            Some(now) => shifted(now, std::time::Instant::now(), std),
            None => shifted(REAL_ANCHOR, std_anchor(), std),
        })
    }

    /// Converts to a [`std::time::Instant`] (see the type's differences).
    pub fn into_std(self) -> std::time::Instant {
        let (std_now, now) = match context::try_with(|w| w.now()) {
            Some(now) => (std::time::Instant::now(), now),
            None => (std_anchor(), REAL_ANCHOR),
        };
        match self.since_epoch.checked_sub(now) {
            Some(ahead) => std_now + ahead,
            None => std_now - (now - self.since_epoch),
        }
    }

    /// The time elapsed from `earlier` to `self`, or zero if `earlier` is
    /// later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.saturating_duration_since(earlier)
    }

    /// The time elapsed from `earlier` to `self`, or `None` if `earlier` is
    /// later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.since_epoch.checked_sub(earlier.since_epoch)
    }

    /// The time elapsed from `earlier` to `self`, or zero if `earlier` is
    /// later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.since_epoch.saturating_sub(earlier.since_epoch)
    }

    /// Simulated time elapsed since this instant.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    #[track_caller]
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// `self + duration`, or `None` on overflow.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.since_epoch
            .checked_add(duration)
            .map(Instant::from_epoch)
    }

    /// `self - duration`, or `None` before the epoch.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.since_epoch
            .checked_sub(duration)
            .map(Instant::from_epoch)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(time: std::time::Instant) -> Instant {
        Instant::from_std(time)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(time: Instant) -> std::time::Instant {
        time.into_std()
    }
}

impl ops::Add<Duration> for Instant {
    type Output = Instant;

    fn add(self, other: Duration) -> Instant {
        self.checked_add(other)
            .expect("overflow when adding duration to instant")
    }
}

impl ops::AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl ops::Sub for Instant {
    type Output = Duration;

    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_duration_since(rhs)
    }
}

impl ops::Sub<Duration> for Instant {
    type Output = Instant;

    fn sub(self, rhs: Duration) -> Instant {
        self.checked_sub(rhs)
            .expect("overflow when subtracting duration from instant")
    }
}

impl ops::SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, rhs: Duration) {
        *self = *self - rhs;
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Instant({:?} since the simulation epoch)",
            self.since_epoch
        )
    }
}
