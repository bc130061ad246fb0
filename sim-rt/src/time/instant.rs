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
/// [`std::time::Instant`]. The clock starts at a seed-derived point between
/// one day and one year after the epoch and moves only when the simulation
/// advances it. [`Instant::now`] panics outside a simulation (there is no
/// simulated clock to read). [`from_std`](Instant::from_std) and
/// [`into_std`](Instant::into_std) map through a fixed, arbitrary
/// correspondence (the first real instant this process converted is the
/// epoch): they exist for interoperability, and reading real time inside a
/// simulation breaks determinism.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    since_epoch: Duration,
}

fn std_anchor() -> std::time::Instant {
    static ANCHOR: OnceLock<std::time::Instant> = OnceLock::new();
    *ANCHOR.get_or_init(std::time::Instant::now)
}

impl Instant {
    pub(crate) fn from_epoch(since_epoch: Duration) -> Instant {
        Instant { since_epoch }
    }

    pub(crate) fn since_epoch(self) -> Duration {
        self.since_epoch
    }

    /// The current simulated time.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    #[track_caller]
    pub fn now() -> Instant {
        Instant::from_epoch(context::with(|w| w.now()))
    }

    /// Converts a [`std::time::Instant`] (see the type's differences).
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant::from_epoch(std.saturating_duration_since(std_anchor()))
    }

    /// Converts to a [`std::time::Instant`] (see the type's differences).
    pub fn into_std(self) -> std::time::Instant {
        std_anchor() + self.since_epoch
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
