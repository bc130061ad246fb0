//! Simulated [`tokio::time::timeout`](https://docs.rs/tokio/1/tokio/time/timeout/index.html).

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use pin_project_lite::pin_project;

use super::error::Elapsed;
use super::{sleep_until, Instant, Sleep};
use crate::task::coop;

/// Simulated [`tokio::time::timeout`](https://docs.rs/tokio/1/tokio/time/timeout/index.html): requires `future` to complete before
/// `duration` has elapsed.
///
/// The future is polled first, so one that is ready at once wins even with a
/// zero duration.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use sim_rt::time::timeout;
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let never = std::future::pending::<()>();
/// assert!(timeout(Duration::from_secs(1), never).await.is_err());
/// # });
/// ```
///
/// # Cancel safety
///
/// As cancel safe as `future`.
///
/// # Panics
///
/// When created outside a simulation.
///
/// # Differences from tokio
///
/// None. As in tokio, a `duration` so large that the deadline overflows the
/// clock never times out.
#[track_caller]
pub fn timeout<F>(duration: Duration, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    // A `match`, not `map`: a function passed on would not carry the
    // caller's location to the panic without timers.
    let delay = match Instant::now().checked_add(duration) {
        Some(deadline) => Some(sleep_until(deadline)),
        None => {
            crate::runtime::context::with_timers();
            None
        }
    };
    Timeout::new(future.into_future(), delay)
}

/// Simulated [`tokio::time::timeout_at`](https://docs.rs/tokio/1/tokio/time/fn.timeout_at.html): requires `future` to complete
/// before `deadline`.
///
/// # Differences from tokio
///
/// None.
#[track_caller]
pub fn timeout_at<F>(deadline: Instant, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    Timeout::new(future.into_future(), Some(sleep_until(deadline)))
}

pin_project! {
    /// Simulated [`tokio::time::Timeout`](https://docs.rs/tokio/1/tokio/time/struct.Timeout.html): the future returned by
    /// [`timeout`] and [`timeout_at`].
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Timeout<T> {
        #[pin]
        value: T,
        // `None`: no deadline (it would overflow the clock).
        #[pin]
        delay: Option<Sleep>,
    }
}

impl<T> Timeout<T> {
    fn new(value: T, delay: Option<Sleep>) -> Timeout<T> {
        Timeout { value, delay }
    }

    /// The inner future.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The inner future, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Consumes the timeout, giving back the inner future.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: Future> Future for Timeout<T> {
    type Output = Result<T::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let had_budget_before = coop::has_budget_remaining();
        if let Poll::Ready(v) = this.value.poll(cx) {
            return Poll::Ready(Ok(v));
        }
        let Some(delay) = this.delay.as_pin_mut() else {
            return Poll::Pending;
        };
        // As in tokio: when the future itself spent the budget, the timer is
        // still checked (without one), or a future that always spends it
        // could never time out.
        let polled = if had_budget_before && !coop::has_budget_remaining() {
            coop::with_unconstrained(|| delay.poll(cx))
        } else {
            delay.poll(cx)
        };
        polled.map(|()| Err(Elapsed::new()))
    }
}
