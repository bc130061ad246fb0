//! Simulated [`tokio::time::sleep`](https://docs.rs/tokio/1/tokio/time/sleep/index.html).

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use pin_project_lite::pin_project;

use super::Instant;
use crate::runtime::context;
use crate::runtime::timer::TimerKey;
use crate::task::coop;

/// Deadlines (since the simulation's epoch) from here on are beyond what
/// the timer queue counts (u64 nanoseconds, about 584 years): a sleep until
/// then never fires, as tokio's deadlines saturate at its wheel's end.
const TIMER_HORIZON: Duration = Duration::from_nanos(u64::MAX);

/// Simulated [`tokio::time::sleep_until`](https://docs.rs/tokio/1/tokio/time/fn.sleep_until.html): waits until `deadline`.
///
/// # Panics
///
/// When created outside a simulation, as tokio's outside a runtime, and in
/// one whose runtime was built without
/// [`enable_time`](crate::runtime::Builder::enable_time), with tokio's
/// message.
///
/// # Differences from tokio
///
/// None in effect: it fires on tokio's 1 ms tick (see
/// [`sim::sleep_exact`](crate::sim::sleep_exact) for nanoseconds). A
/// deadline beyond the timer's range (about 584 years after the
/// simulation's epoch) never fires, as tokio's saturated deadlines do not.
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    context::with_timers();
    Sleep::new(deadline)
}

/// Simulated [`tokio::time::sleep`](https://docs.rs/tokio/1/tokio/time/sleep/index.html): waits until `duration` has elapsed on
/// the simulated clock.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use sim_rt::time::{sleep, Instant};
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap().block_on(async {
/// let start = Instant::now();
/// sleep(Duration::from_secs(3600)).await; // instantly, in real time
/// assert_eq!(start.elapsed(), Duration::from_secs(3600));
/// # });
/// ```
///
/// # Cancel safety
///
/// Cancel safe.
///
/// # Panics
///
/// As [`sleep_until`]'s.
///
/// # Differences from tokio
///
/// None in effect: it fires on tokio's 1 ms tick, and, as in tokio, a
/// duration longer than about 30 years sleeps for about 30 years (no
/// panic).
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    // One look at the simulation: it panics outside one, and in one without
    // timers, as tokio's.
    let now = Instant::from_epoch(context::with_timers().now());
    Sleep::new(now + super::safe_delay(duration))
}

pin_project! {
    /// Simulated [`tokio::time::Sleep`](https://docs.rs/tokio/1/tokio/time/struct.Sleep.html): the future returned by [`sleep`] and
    /// [`sleep_until`].
    ///
    /// Each poll takes a unit of the task's cooperative budget (kept when
    /// the deadline has passed), as in tokio.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Sleep {
        deadline: Instant,
        timer: Option<(u64, TimerKey)>,
        // Whether the deadline was handed to the timer: by a poll or a
        // `reset` (tokio's timer entry exists). Only then can it elapse.
        armed: bool,
        #[pin]
        _pin: PhantomPinned,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if let Some((runtime, key)) = this.timer.take() {
                // In the simulation that armed it, current or not.
                let waker = context::world_of(runtime)
                    .and_then(|w| w.core.borrow_mut().timers.remove(key));
                // Outside the world's borrow: the waker's `Drop` may drop
                // another `Sleep`.
                drop(waker);
            }
        }
    }
}

impl Sleep {
    pub(crate) fn new(deadline: Instant) -> Sleep {
        Sleep {
            deadline,
            timer: None,
            armed: false,
            _pin: PhantomPinned,
        }
    }

    /// The instant at which the future completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the sleep has elapsed: it was polled (or [`reset`](Self::reset))
    /// and its deadline has passed. As in tokio, a sleep never polled has
    /// not elapsed, even when its deadline is now or in the past.
    ///
    /// # Panics
    ///
    /// Outside a simulation, once polled or reset.
    pub fn is_elapsed(&self) -> bool {
        self.armed && Instant::now() >= self.deadline
    }

    /// Moves the deadline to `deadline`, whether or not it elapsed; the
    /// future can be polled again afterwards.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let this = self.project();
        *this.deadline = deadline;
        *this.armed = true;
        if let Some((runtime, key)) = *this.timer {
            let beyond = deadline.since_epoch() >= TIMER_HORIZON;
            // The timer lives in the simulation that armed it, which need
            // not be the current one (a sleep reset inside another
            // runtime's `block_on`, as tokio allows).
            // A deadline already passed fires at once, as tokio's timer
            // fires an entry reset to a tick its wheel has processed: the
            // waiting task is woken now, not at the next turn of the clock.
            let (removed, fired) = context::world_of(runtime).map_or((None, None), |w| {
                let mut core = w.core.borrow_mut();
                if beyond {
                    (core.timers.remove(key), None)
                } else {
                    let tick = core.timers.tick(deadline.since_epoch());
                    let now = core.now;
                    (None, core.timers.reset(key, tick, now))
                }
            });
            drop(removed); // outside the world's borrow
            if let Some(waker) = fired {
                waker.wake();
            }
            if beyond {
                *this.timer = None;
            }
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        let world = context::current();
        if world.is_shut_down() {
            // tokio's timer driver is gone with its runtime.
            panic!("{}", context::SHUTTING_DOWN);
        }
        // tokio's poll_proceed, kept when elapsed and given back otherwise,
        // in its cheaper form (see `coop::spend`).
        ready!(coop::poll_budget_available(cx));
        *this.armed = true;
        let deadline = this.deadline.since_epoch();
        if world.now() >= deadline {
            coop::spend();
            return Poll::Ready(());
        }
        if deadline >= TIMER_HORIZON {
            // The clock can never get there: nothing to arm.
            return Poll::Pending;
        }
        match *this.timer {
            Some((runtime, key)) if runtime == world.id => {
                let replaced = world.core.borrow_mut().timers.set_waker(key, cx.waker());
                // Dropped outside the borrow: a waker's `Drop` may use time.
                drop(replaced);
            }
            _ => {
                let key = world.timer_insert(deadline, cx.waker());
                *this.timer = Some((world.id, key));
            }
        }
        Poll::Pending
    }
}
