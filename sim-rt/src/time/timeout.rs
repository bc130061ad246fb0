//! Simulated [`tokio::time::timeout`](https://docs.rs/tokio/1/tokio/time/timeout/index.html).

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use pin_project_lite::pin_project;

use super::error::Elapsed;
use super::{sleep_until, Instant, Sleep};

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
/// None.
#[track_caller]
pub fn timeout<F>(duration: Duration, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    let now = Instant::now();
    let deadline = now
        .checked_add(duration)
        .unwrap_or_else(|| now.far_future());
    Timeout::new(future.into_future(), sleep_until(deadline))
}

/// Simulated [`tokio::time::timeout_at`](https://docs.rs/tokio/1/tokio/time/fn.timeout_at.html): requires `future` to complete
/// before `deadline`.
///
/// # Differences from tokio
///
/// None.
pub fn timeout_at<F>(deadline: Instant, future: F) -> Timeout<F::IntoFuture>
where
    F: IntoFuture,
{
    Timeout::new(future.into_future(), sleep_until(deadline))
}

pin_project! {
    /// Simulated [`tokio::time::Timeout`](https://docs.rs/tokio/1/tokio/time/struct.Timeout.html): the future returned by
    /// [`timeout`] and [`timeout_at`].
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Timeout<T> {
        #[pin]
        value: T,
        #[pin]
        delay: Sleep,
    }
}

impl<T> Timeout<T> {
    fn new(value: T, delay: Sleep) -> Timeout<T> {
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
        if let Poll::Ready(v) = this.value.poll(cx) {
            return Poll::Ready(Ok(v));
        }
        match this.delay.poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed::new())),
            Poll::Pending => Poll::Pending,
        }
    }
}
