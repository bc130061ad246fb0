//! Simulated [`tokio::time::sleep`](https://docs.rs/tokio/1/tokio/time/sleep/index.html).

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use pin_project_lite::pin_project;

use super::Instant;
use crate::runtime::context;
use crate::runtime::timer::TimerKey;

/// Simulated [`tokio::time::sleep_until`](https://docs.rs/tokio/1/tokio/time/fn.sleep_until.html): waits until `deadline`.
///
/// # Panics
///
/// When polled outside a simulation.
///
/// # Differences from tokio
///
/// Deadlines are exact to the nanosecond (tokio rounds up to its 1 ms timer
/// tick).
pub fn sleep_until(deadline: Instant) -> Sleep {
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
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
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
/// When created outside a simulation.
///
/// # Differences from tokio
///
/// Deadlines are exact to the nanosecond (tokio rounds up to its 1 ms timer
/// tick). A duration too large to represent sleeps for about 30 years, as in
/// tokio.
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    let now = Instant::now();
    let deadline = now
        .checked_add(duration)
        .unwrap_or_else(|| now.far_future());
    Sleep::new(deadline)
}

pin_project! {
    /// Simulated [`tokio::time::Sleep`](https://docs.rs/tokio/1/tokio/time/struct.Sleep.html): the future returned by [`sleep`] and
    /// [`sleep_until`].
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Sleep {
        deadline: Instant,
        timer: Option<(u64, TimerKey)>,
        #[pin]
        _pin: PhantomPinned,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if let Some((runtime, key)) = this.timer.take() {
                context::try_with(|w| {
                    if w.id == runtime {
                        w.core.borrow_mut().timers.remove(key);
                    }
                });
            }
        }
    }
}

impl Sleep {
    pub(crate) fn new(deadline: Instant) -> Sleep {
        Sleep {
            deadline,
            timer: None,
            _pin: PhantomPinned,
        }
    }

    /// The instant at which the future completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the deadline has passed.
    ///
    /// # Panics
    ///
    /// Outside a simulation.
    pub fn is_elapsed(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// Moves the deadline to `deadline`, whether or not it elapsed; the
    /// future can be polled again afterwards.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let this = self.project();
        *this.deadline = deadline;
        if let Some((runtime, key)) = *this.timer {
            context::try_with(|w| {
                if w.id == runtime {
                    w.timer_reset(key, deadline.since_epoch());
                }
            });
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        let world = context::current();
        let deadline = this.deadline.since_epoch();
        if world.now() >= deadline {
            return Poll::Ready(());
        }
        match *this.timer {
            Some((runtime, key)) if runtime == world.id => {
                world.core.borrow_mut().timers.set_waker(key, cx.waker());
            }
            _ => {
                let key = world.timer_insert(deadline, cx.waker());
                *this.timer = Some((world.id, key));
            }
        }
        Poll::Pending
    }
}
