//! [`sleep_exact`]: a sleep to the nanosecond, for the simulation's own
//! API ([`crate::sim`] re-exports it); `tokio::fs`'s disk latency waits
//! with it too.

use std::future::Future;
use std::time::Duration;

use crate::runtime::context;

/// Waits `duration` of simulated time exactly, to the nanosecond.
///
/// [`tokio::time::sleep`](crate::time::sleep) fires on tokio's
/// millisecond tick, as tokio's does (a `sleep(5us)` takes 1 ms); a
/// simulation sometimes needs a finer instrument (a reset 5 us into a
/// write, a device's latency), and this is it.
///
/// # Panics
///
/// When polled outside a simulation.
pub fn sleep_exact(duration: Duration) -> SleepExact {
    SleepExact {
        duration,
        armed: None,
    }
}

/// The future of [`sleep_exact`].
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct SleepExact {
    duration: Duration,
    /// The runtime, the deadline and the timer, from the first poll.
    armed: Option<(u64, Duration, Option<crate::runtime::timer::TimerKey>)>,
}

impl Future for SleepExact {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        let world = context::current();
        let duration = self.duration;
        let (runtime, deadline, timer) = self
            .armed
            .get_or_insert_with(|| (world.id, world.now() + duration, None));
        assert_eq!(
            *runtime, world.id,
            "a sleep_exact was polled in another simulation than its first poll's"
        );
        if world.now() >= *deadline {
            return std::task::Poll::Ready(());
        }
        match timer {
            Some(key) => {
                let old = world.core.borrow_mut().timers.set_waker(*key, cx.waker());
                drop(old); // outside the world's borrow
            }
            None => *timer = Some(world.timer_insert_exact(*deadline, cx.waker())),
        }
        std::task::Poll::Pending
    }
}

impl Drop for SleepExact {
    fn drop(&mut self) {
        if let Some((runtime, _, Some(key))) = self.armed.take() {
            let removed = context::world_of(runtime).and_then(|w| {
                let mut core = w.core.borrow_mut();
                core.timers.remove(key)
            });
            drop(removed); // outside the world's borrow
        }
    }
}
