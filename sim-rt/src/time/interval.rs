//! Simulated [`tokio::time::interval`](https://docs.rs/tokio/1/tokio/time/interval/index.html): a sequence of evenly spaced ticks.
//!
//! An [`Interval`] is a [`Sleep`] whose deadline moves forward by one period
//! each time it completes. When the consumer falls behind, the next deadline
//! is chosen by the [`MissedTickBehavior`], with tokio's arithmetic
//! (including its 5 ms grace: a tick less than 5 ms late counts as on time).
//!
//! # Invariants
//!
//! - Between ticks, `delay`'s deadline is the instant the next tick is due.
//! - After a tick `delay` is replaced by a fresh, unarmed `Sleep`: nothing is
//!   armed in the timer queue until the next `poll_tick`, so an interval
//!   nobody is polling never wakes its task or moves the clock (tokio's
//!   `reset_without_timer`).
//!
//! # Determinism
//!
//! Every instant is computed from the simulated clock; ticks are exact to the
//! nanosecond.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use super::{sleep_until, Instant, Sleep};

/// Below this lateness a tick counts as on time (tokio's constant).
const GRACE: Duration = Duration::from_millis(5);

/// Longest delay tokio's timer accepts: about 30 years.
fn safe_delay(duration: Duration) -> Duration {
    duration.min(Duration::from_secs(86_400 * 365 * 30))
}

/// Simulated [`tokio::time::interval`](https://docs.rs/tokio/1/tokio/time/interval/index.html): an [`Interval`] that ticks every
/// `period`, the first tick completing immediately.
///
/// The default [`MissedTickBehavior`] is
/// [`Burst`](MissedTickBehavior::Burst); change it with
/// [`set_missed_tick_behavior`](Interval::set_missed_tick_behavior). The
/// interval ticks until it is dropped. Equivalent to
/// [`interval_at(Instant::now(), period)`](interval_at).
///
/// # Panics
///
/// When `period` is zero, and outside a simulation.
///
/// # Examples
///
/// ```
/// use sim_rt::time::{self, Duration, Instant};
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
/// let start = Instant::now();
/// let mut interval = time::interval(Duration::from_millis(10));
///
/// interval.tick().await; // ticks immediately
/// interval.tick().await; // ticks after 10ms
/// interval.tick().await; // ticks after 10ms
///
/// assert_eq!(start.elapsed(), Duration::from_millis(20)); // exactly
/// # });
/// ```
///
/// # Differences from tokio
///
/// None (ticks are exact on the simulated clock).
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    new_interval(Instant::now(), period)
}

/// Simulated [`tokio::time::interval_at`](https://docs.rs/tokio/1/tokio/time/fn.interval_at.html): an [`Interval`] that ticks every
/// `period`, the first tick completing at `start`.
///
/// The default [`MissedTickBehavior`] is
/// [`Burst`](MissedTickBehavior::Burst). The interval ticks until it is
/// dropped.
///
/// # Panics
///
/// When `period` is zero.
///
/// # Examples
///
/// ```
/// use sim_rt::time::{interval_at, Duration, Instant};
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
/// let start = Instant::now() + Duration::from_millis(50);
/// let mut interval = interval_at(start, Duration::from_millis(10));
///
/// interval.tick().await; // ticks after 50ms
/// interval.tick().await; // ticks after 10ms
/// interval.tick().await; // ticks after 10ms
///
/// assert_eq!(Instant::now(), start + Duration::from_millis(20));
/// # });
/// ```
///
/// # Differences from tokio
///
/// None.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    new_interval(start, period)
}

#[track_caller]
fn new_interval(start: Instant, period: Duration) -> Interval {
    Interval {
        delay: Box::pin(sleep_until(start)),
        period: safe_delay(period),
        missed_tick_behavior: MissedTickBehavior::default(),
    }
}

/// Simulated [`tokio::time::MissedTickBehavior`](https://docs.rs/tokio/1/tokio/time/enum.MissedTickBehavior.html): what an [`Interval`] does
/// when a tick is missed.
///
/// A tick is missed when too much time passes between calls to
/// [`Interval::tick`], for instance because the work done after each tick
/// takes longer than the period. A tick counts as missed only when it is
/// more than 5 ms late (tokio's threshold, kept so that code behaves the same
/// under simulation).
///
/// With a period of 50 ms, the first tick at 0 and the consumer busy until
/// 200 ms, the ticks complete at:
///
/// | behavior | ticks returned (instants yielded) | completing at |
/// |---|---|---|
/// | `Burst` | 50, 100, 150, 200, 250... | 200, 200, 200, 200, 250... |
/// | `Delay` | 50, 250, 300... | 200, 250, 300... |
/// | `Skip`  | 50, 250, 300... | 200, 250, 300... |
///
/// and with the consumer busy until 225 ms, `Delay` then ticks at 275, 325...
/// while `Skip` stays on the grid: 250, 300...
///
/// # Differences from tokio
///
/// None.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Ticks as fast as possible until caught up: the ticks are scheduled
    /// as if none had been missed, so several complete at once. This is the
    /// default.
    ///
    /// ```text
    /// Expected ticks: |     1     |     2     |     3     |     4     |     5     |     6     |
    /// Actual ticks:   | work -----|          delay          | work | work | work -| work -----|
    /// ```
    #[default]
    Burst,

    /// Ticks at multiples of `period` from when [`tick`](Interval::tick)
    /// noticed the missed tick, rather than from `start`: ticks are never
    /// shortened, and no longer on the grid of `start + k * period`.
    ///
    /// ```text
    /// Expected ticks: |     1     |     2     |     3     |     4     |     5     |     6     |
    /// Actual ticks:   | work -----|          delay          | work -----| work -----| work -----|
    /// ```
    Delay,

    /// Skips the missed ticks and ticks at the next multiple of `period`
    /// from `start`.
    ///
    /// ```text
    /// Expected ticks: |     1     |     2     |     3     |     4     |     5     |     6     |
    /// Actual ticks:   | work -----|          delay          | work ---| work -----| work -----|
    /// ```
    Skip,
}

impl MissedTickBehavior {
    /// The next deadline after the tick due at `timeout` completed late, at
    /// `now`.
    fn next_timeout(self, timeout: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => timeout + period,
            MissedTickBehavior::Delay => now + period,
            MissedTickBehavior::Skip => {
                let late = (now - timeout).as_nanos() % period.as_nanos();
                let offset =
                    Duration::from_nanos(late.try_into().expect(
                        "too much time has elapsed since the interval was supposed to tick",
                    ));
                now + (period - offset)
            }
        }
    }
}

/// Simulated [`tokio::time::Interval`](https://docs.rs/tokio/1/tokio/time/struct.Interval.html): the ticks of [`interval`] and
/// [`interval_at`].
///
/// Unlike calling [`sleep`](super::sleep()) in a loop, an interval counts the
/// time spent between calls to [`tick`](Interval::tick).
///
/// # Differences from tokio
///
/// None.
#[derive(Debug)]
pub struct Interval {
    /// Completes when the next tick is due (see the module invariants).
    delay: Pin<Box<Sleep>>,
    /// Time between ticks, clamped to about 30 years; never zero.
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    /// Completes when the next tick is due, returning the instant it was
    /// due at (not the instant it completed).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: when `tick` loses a `select!`, no tick is consumed.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::time::{self, Duration, Instant};
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
    /// let start = Instant::now();
    /// let mut interval = time::interval(Duration::from_millis(10));
    ///
    /// assert_eq!(interval.tick().await, start); // immediately
    /// assert_eq!(interval.tick().await, start + Duration::from_millis(10));
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick: `Ready(instant it was due)` once it is due,
    /// else `Pending`, and the waker of the most recent call is woken when it
    /// is.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(self.delay.as_mut().poll(cx));
        let timeout = self.delay.deadline();
        let now = Instant::now();
        let next = if now > timeout + GRACE {
            self.missed_tick_behavior
                .next_timeout(timeout, now, self.period)
        } else {
            timeout + self.period
        };
        // A fresh sleep, armed only by the next poll (the old one's timer is
        // removed as it drops).
        self.delay.set(sleep_until(next));
        Poll::Ready(timeout)
    }

    /// Resets the interval to complete one period after now, ignoring the
    /// [`MissedTickBehavior`]. Equivalent to
    /// `reset_at(Instant::now() + period)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::time::{self, Duration, Instant};
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
    /// let start = Instant::now();
    /// let mut interval = time::interval(Duration::from_millis(100));
    /// interval.tick().await;
    ///
    /// time::sleep(Duration::from_millis(50)).await;
    /// interval.reset();
    ///
    /// interval.tick().await;
    /// interval.tick().await;
    /// assert_eq!(start.elapsed(), Duration::from_millis(250));
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn reset(&mut self) {
        self.delay.as_mut().reset(Instant::now() + self.period);
    }

    /// Resets the interval to complete now, ignoring the
    /// [`MissedTickBehavior`]. Equivalent to `reset_at(Instant::now())`.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::time::{self, Duration, Instant};
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
    /// let start = Instant::now();
    /// let mut interval = time::interval(Duration::from_millis(100));
    /// interval.tick().await;
    ///
    /// time::sleep(Duration::from_millis(50)).await;
    /// interval.reset_immediately();
    ///
    /// interval.tick().await;
    /// interval.tick().await;
    /// assert_eq!(start.elapsed(), Duration::from_millis(150));
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn reset_immediately(&mut self) {
        self.delay.as_mut().reset(Instant::now());
    }

    /// Resets the interval to complete `after` from now, ignoring the
    /// [`MissedTickBehavior`]. Equivalent to
    /// `reset_at(Instant::now() + after)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::time::{self, Duration, Instant};
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
    /// let start = Instant::now();
    /// let mut interval = time::interval(Duration::from_millis(100));
    /// interval.tick().await;
    ///
    /// time::sleep(Duration::from_millis(50)).await;
    /// interval.reset_after(Duration::from_millis(20));
    ///
    /// interval.tick().await;
    /// interval.tick().await;
    /// assert_eq!(start.elapsed(), Duration::from_millis(170));
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn reset_after(&mut self, after: Duration) {
        let deadline = Instant::now() + safe_delay(after);
        self.delay.as_mut().reset(deadline);
    }

    /// Resets the interval so the next tick is due at `deadline`.
    ///
    /// If `deadline` is in the past, the [`MissedTickBehavior`] decides how
    /// to catch up; if it is in the future, the next tick completes then,
    /// even if that is more than a period away. Ticks missed before the
    /// call are discarded.
    ///
    /// # Examples
    ///
    /// ```
    /// use sim_rt::time::{self, Duration, Instant};
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
    /// let start = Instant::now();
    /// let mut interval = time::interval(Duration::from_millis(100));
    /// interval.tick().await;
    ///
    /// time::sleep(Duration::from_millis(50)).await;
    /// interval.reset_at(Instant::now() + Duration::from_millis(30));
    ///
    /// interval.tick().await;
    /// interval.tick().await;
    /// assert_eq!(start.elapsed(), Duration::from_millis(180));
    /// # });
    /// ```
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.as_mut().reset(deadline);
    }

    /// The [`MissedTickBehavior`] in use.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets the [`MissedTickBehavior`] to use from the next tick on.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }

    /// The period of the interval.
    pub fn period(&self) -> Duration {
        self.period
    }
}
