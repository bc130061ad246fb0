//! Simulated `tokio::time`: `sleep`, `sleep_until`, `Sleep`, `timeout`,
//! `timeout_at`, `Instant`, and the frozen clock (`pause`, `resume`,
//! `advance`, `Builder::start_paused`).
//!
//! Simulated time moves only when nothing can run, and then exactly to the
//! next deadline, so every elapsed time here is asserted exactly.

mod rt_support;

use std::collections::HashSet;
use std::future::{pending, ready, Future};
use std::io;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::poll;
use rt_support::{assert_contains_all, random_order, sim};
use sim_rt::runtime::Builder;
use sim_rt::sync::oneshot;
use sim_rt::time::{self, error::Elapsed, sleep, sleep_until, timeout, timeout_at, Instant};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// tokio's "no deadline": about 30 years.
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

// ----- sleep, sleep_until ----------------------------------------------------

#[test]
fn sleep_elapses_exactly_its_duration() {
    for (seed, d) in [(2, ms(1500)), (3, Duration::from_secs(3600)), (4, ms(7123))] {
        let elapsed = sim(seed, async move {
            let start = Instant::now();
            sleep(d).await;
            let elapsed = Instant::now() - start;
            assert_eq!(start.elapsed(), elapsed);
            assert_eq!(sim_rt::sim::elapsed(), elapsed, "the clock started at 0");
            elapsed
        });
        assert_eq!(elapsed, d, "seed {seed}");
    }
}

#[test]
fn a_zero_sleep_is_ready_at_once() {
    sim(5, async {
        let start = Instant::now();
        let mut s = pin!(sleep(Duration::ZERO));
        // As in tokio: not elapsed until polled.
        assert!(!s.is_elapsed());
        assert_eq!(poll!(s.as_mut()), Poll::Ready(()));
        assert!(s.is_elapsed());
        assert_eq!(Instant::now(), start);
    });
}

#[test]
fn sleeps_add_up() {
    let elapsed = sim(6, async {
        let start = Instant::now();
        for i in 1..=4 {
            sleep(ms(i * 10)).await;
        }
        start.elapsed()
    });
    assert_eq!(elapsed, ms(100));
}

#[test]
fn sleep_until_wakes_exactly_at_the_deadline() {
    sim(7, async {
        let deadline = Instant::now() + Duration::from_secs(3);
        sleep_until(deadline).await;
        assert_eq!(Instant::now(), deadline);

        // A deadline in the past is ready at once, without moving the clock.
        let now = Instant::now();
        sleep_until(now - Duration::from_secs(1)).await;
        sleep_until(now).await;
        assert_eq!(Instant::now(), now);
    });
}

// ----- Sleep: deadline, is_elapsed, reset ----------------------------------

#[test]
fn sleep_deadline_and_is_elapsed() {
    sim(8, async {
        let start = Instant::now();
        let mut s = pin!(sleep(ms(250)));
        assert_eq!(s.deadline(), start + ms(250));
        assert!(!s.is_elapsed());
        (&mut s).await;
        assert!(s.is_elapsed());
        assert_eq!(s.deadline(), start + ms(250));
        assert_eq!(Instant::now(), s.deadline());
    });
}

/// A sleep of `first`, polled once (registering its timer) when
/// `poll_first`, then reset to `reset` after the start: its deadline is the
/// new one and it completes exactly then.
fn assert_reset(seed: u64, first: Duration, poll_first: bool, reset: Duration) {
    sim(seed, async {
        let start = Instant::now();
        let mut s = pin!(sleep(first));
        if poll_first {
            assert_eq!(poll!(s.as_mut()), Poll::Pending, "timer now registered");
        }
        s.as_mut().reset(start + reset);
        assert_eq!(s.deadline(), start + reset);
        (&mut s).await;
        assert_eq!(start.elapsed(), reset);
    });
}

#[test]
fn reset_to_a_later_deadline_after_registering() {
    assert_reset(9, ms(10), true, ms(30));
}

#[test]
fn reset_to_an_earlier_deadline_after_registering() {
    assert_reset(10, Duration::from_secs(1), true, ms(10));
}

#[test]
fn reset_before_the_first_poll() {
    assert_reset(11, Duration::from_secs(1), false, ms(20));
}

#[test]
fn reset_after_elapsed_rearms_the_sleep() {
    sim(12, async {
        let start = Instant::now();
        let mut s = pin!(sleep(ms(10)));
        (&mut s).await;
        assert!(s.is_elapsed());
        s.as_mut().reset(Instant::now() + ms(20));
        assert!(!s.is_elapsed());
        assert_eq!(poll!(s.as_mut()), Poll::Pending);
        (&mut s).await;
        assert_eq!(start.elapsed(), ms(30));

        // And again, reset into the past: ready at once.
        s.as_mut().reset(start);
        assert!(s.is_elapsed());
        assert_eq!(poll!(s.as_mut()), Poll::Ready(()));
        assert_eq!(start.elapsed(), ms(30));
    });
}

#[test]
fn a_reset_sleep_in_a_select_loop_keeps_time_exact() {
    // The usual "idle timeout" pattern: every message pushes the deadline.
    let (got, idle_after) = sim(13, async {
        let (tx, mut rx) = sim_rt::sync::mpsc::channel::<u32>(8);
        sim_rt::spawn(async move {
            for i in 0..3 {
                sleep(ms(40)).await;
                tx.send(i).await.unwrap();
            }
            pending::<()>().await;
        });
        let start = Instant::now();
        let idle = sleep(ms(50));
        let mut idle = pin!(idle);
        let mut got = Vec::new();
        loop {
            sim_rt::select! {
                Some(v) = rx.recv() => {
                    got.push(v);
                    idle.as_mut().reset(Instant::now() + ms(50));
                }
                () = &mut idle => break,
            }
        }
        (got, start.elapsed())
    });
    assert_eq!(got, vec![0, 1, 2]);
    assert_eq!(idle_after, ms(120 + 50));
}

// ----- ordering --------------------------------------------------------------

/// Spawns a task for every `(label, ms)` that sleeps `ms` and logs its label
/// with the time since the start; returns the log once every task is done.
async fn wake_log<T: Send + 'static>(
    sleepers: impl IntoIterator<Item = (T, u64)>,
) -> Vec<(T, Duration)> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let handles: Vec<_> = sleepers
        .into_iter()
        .map(|(label, d)| {
            let log = log.clone();
            sim_rt::spawn(async move {
                sleep(ms(d)).await;
                log.lock().unwrap().push((label, start.elapsed()));
            })
        })
        .collect();
    for h in handles {
        h.await.unwrap();
    }
    let log = std::mem::take(&mut *log.lock().unwrap());
    log
}

#[test]
fn concurrent_sleeps_complete_in_deadline_order_for_every_seed() {
    const DURATIONS: [u64; 6] = [50, 10, 40, 60, 20, 30];
    for seed in 0..20 {
        let log = sim(seed, wake_log(DURATIONS.map(|d| (d, d))));
        let expected: Vec<_> = [10, 20, 30, 40, 50, 60].map(|d| (d, ms(d))).to_vec();
        assert_eq!(log, expected, "seed {seed}");
    }
}

#[test]
fn sleeps_with_the_same_deadline_wake_together() {
    let mut orders = HashSet::new();
    for seed in 0..30 {
        let rt = random_order(seed);
        let log = rt.block_on(wake_log(['a', 'b', 'c'].map(|name| (name, 5))));
        assert!(log.iter().all(|&(_, t)| t == ms(5)), "seed {seed}: {log:?}");
        let mut names: Vec<char> = log.iter().map(|&(n, _)| n).collect();
        orders.insert(names.iter().collect::<String>());
        names.sort_unstable();
        assert_eq!(names, ['a', 'b', 'c']);
    }
    if std::env::var_os("SIM_SEED").is_none() {
        assert!(
            orders.len() > 1,
            "the scheduler orders simultaneous wakes: {orders:?}"
        );
    }
}

#[test]
fn sleep_duration_max_does_not_panic() {
    sim(14, async {
        let now = Instant::now();
        let s = sleep(Duration::MAX);
        assert_eq!(s.deadline(), now + FAR_FUTURE);
        assert!(!s.is_elapsed());
        let out = timeout(ms(10), s).await;
        assert_eq!(out, Err::<(), _>(elapsed_error().await));
        assert_eq!(now.elapsed(), ms(10));
    });
}

/// An `Elapsed`, obtained the only public way.
async fn elapsed_error() -> Elapsed {
    timeout(Duration::ZERO, pending::<()>()).await.unwrap_err()
}

// ----- timeout, timeout_at ---------------------------------------------------

#[test]
fn timeout_ok_when_the_future_wins() {
    sim(15, async {
        let start = Instant::now();
        let out = timeout(Duration::from_secs(1), async {
            sleep(ms(10)).await;
            5
        })
        .await;
        assert_eq!(out, Ok(5));
        assert_eq!(start.elapsed(), ms(10));
    });
}

#[test]
fn timeout_elapses_exactly_at_its_deadline() {
    sim(16, async {
        let start = Instant::now();
        let out = timeout(ms(10), sleep(Duration::from_secs(1))).await;
        let err = out.unwrap_err();
        assert_eq!(start.elapsed(), ms(10));
        assert_eq!(err.to_string(), "deadline has elapsed");
        let io_err = io::Error::from(err);
        assert_eq!(io_err.kind(), io::ErrorKind::TimedOut);
    });
}

#[test]
fn timeout_polls_the_future_first() {
    for seed in 0..10 {
        sim(seed, async {
            assert_eq!(timeout(Duration::ZERO, ready(3)).await, Ok(3));
            // Both due at the same instant: the future still wins.
            let start = Instant::now();
            assert_eq!(timeout(ms(10), sleep(ms(10))).await, Ok(()));
            assert_eq!(start.elapsed(), ms(10));
        });
    }
}

#[test]
fn timeout_zero_on_a_pending_future_elapses_without_moving_the_clock() {
    sim(17, async {
        let start = Instant::now();
        assert!(timeout(Duration::ZERO, pending::<()>()).await.is_err());
        assert_eq!(Instant::now(), start);
    });
}

#[test]
fn timeout_duration_max_never_elapses() {
    sim(18, async {
        let out = timeout(Duration::MAX, async {
            sleep(Duration::from_secs(5)).await;
            "done"
        })
        .await;
        assert_eq!(out, Ok("done"));
    });
}

#[test]
fn timeout_at_uses_the_given_deadline() {
    sim(19, async {
        let start = Instant::now();
        let deadline = start + ms(25);
        assert!(timeout_at(deadline, pending::<()>()).await.is_err());
        assert_eq!(Instant::now(), deadline);

        // A past deadline with a ready future: the future wins.
        assert_eq!(timeout_at(start, ready('x')).await, Ok('x'));
        // A past deadline with a pending future: elapsed at once.
        assert!(timeout_at(start, pending::<()>()).await.is_err());
        assert_eq!(Instant::now(), deadline);

        let later = Instant::now() + ms(100);
        let out = timeout_at(later, async {
            sleep(ms(99)).await;
            1
        })
        .await;
        assert_eq!(out, Ok(1));
        assert_eq!(Instant::now(), deadline + ms(99));
    });
}

/// A future with inspectable state.
#[derive(Debug)]
struct Value(u32);

impl Future for Value {
    type Output = u32;

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<u32> {
        Poll::Ready(self.0)
    }
}

#[test]
fn timeout_gives_access_to_the_inner_future() {
    sim(20, async {
        let mut t = timeout(ms(5), Value(1));
        assert_eq!(t.get_ref().0, 1);
        t.get_mut().0 = 7;
        assert_eq!(t.get_ref().0, 7);
        let inner = t.into_inner();
        assert_eq!(inner.0, 7);
        assert_eq!(inner.await, 7);

        let mut t = timeout(ms(5), Value(2));
        t.get_mut().0 = 9;
        assert_eq!(t.await, Ok(9));
    });
}

// ----- Instant ---------------------------------------------------------------

#[test]
fn instant_arithmetic() {
    sim(21, async {
        let now = Instant::now();
        let later = now + Duration::from_secs(5);

        assert_eq!(later - now, Duration::from_secs(5));
        assert_eq!(now - later, Duration::ZERO, "saturates, as tokio");
        assert_eq!(later.duration_since(now), Duration::from_secs(5));
        assert_eq!(now.duration_since(later), Duration::ZERO);
        assert_eq!(
            later.checked_duration_since(now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(now.checked_duration_since(later), None);
        assert_eq!(now.checked_duration_since(now), Some(Duration::ZERO));
        assert_eq!(later.saturating_duration_since(now), Duration::from_secs(5));
        assert_eq!(now.saturating_duration_since(later), Duration::ZERO);

        assert_eq!(now.checked_add(Duration::from_secs(5)), Some(later));
        assert_eq!(now.checked_add(Duration::MAX), None);
        assert_eq!(later.checked_sub(Duration::from_secs(5)), Some(now));
        assert_eq!(now.checked_sub(Duration::MAX), None);
        assert_eq!(later - Duration::from_secs(5), now);
        assert_eq!((now - ms(1)) + ms(1), now);

        let mut t = now;
        t += ms(300);
        assert_eq!(t, now + ms(300));
        t -= ms(100);
        assert_eq!(t - now, ms(200));

        assert!(now < later);
        assert!(later > t);
        assert_eq!(now.max(later), later);
        assert_eq!(now.cmp(&now), std::cmp::Ordering::Equal);
        let mut sorted = vec![later, now, t];
        sorted.sort();
        assert_eq!(sorted, vec![now, t, later]);
    });
}

#[test]
fn instant_hash_and_debug() {
    sim(22, async {
        let now = Instant::now();
        let same = now + Duration::ZERO;
        let later = now + Duration::from_nanos(1);
        let set: HashSet<Instant> = [now, same, later].into_iter().collect();
        assert_eq!(set.len(), 2);
        assert!(set.contains(&now) && set.contains(&later));

        assert_eq!(format!("{now:?}"), format!("{same:?}"));
        assert_ne!(format!("{now:?}"), format!("{later:?}"));
        assert!(format!("{now:?}").starts_with("Instant("), "{now:?}");
    });
}

#[test]
fn instant_elapsed_follows_the_simulated_clock() {
    sim(23, async {
        let start = Instant::now();
        assert_eq!(start.elapsed(), Duration::ZERO);
        sleep(Duration::from_secs(2)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        let future = Instant::now() + Duration::from_secs(1);
        assert_eq!(future.elapsed(), Duration::ZERO, "saturates");
    });
}

#[test]
fn instant_converts_to_std_and_back() {
    sim(24, async {
        let now = Instant::now();
        assert_eq!(Instant::from_std(now.into_std()), now);
        let std: std::time::Instant = (now + ms(5)).into();
        assert_eq!(Instant::from(std), now + ms(5));
    });
}

/// Outside a simulation `Instant` reads the real clock, as tokio's does
/// anywhere; inside one, std's clock and `Instant` agree exactly.
#[test]
fn instant_now_outside_a_simulation_is_real_time_and_std_agrees_inside() {
    let a = Instant::now();
    std::thread::sleep(Duration::from_millis(2));
    let b = Instant::now();
    assert!(b - a >= Duration::from_millis(2), "{a:?} {b:?}");
    let std_now = std::time::Instant::now();
    assert!(Instant::from_std(std_now) >= b);
    sim(3, async {
        sleep(ms(1500)).await;
        let now = Instant::now();
        assert_eq!(Instant::from(std::time::Instant::now()), now);
        let later = now + ms(250);
        assert_eq!(Instant::from_std(later.into_std()), later);
        let earlier = now - ms(250);
        assert_eq!(Instant::from_std(earlier.into_std()), earlier);
    });
}

/// tokio's timers have a millisecond tick: a 3 ns sleep takes 1 ms, each
/// time, and a deadline between ticks fires at the next one.
#[test]
fn sleeps_fire_on_tokios_millisecond_tick() {
    sim(4, async {
        let start = Instant::now();
        for i in 1..=5 {
            sleep(Duration::from_nanos(3)).await;
            assert_eq!(start.elapsed(), ms(i));
        }
        sleep(Duration::from_micros(1500)).await;
        assert_eq!(start.elapsed(), ms(7));
        // The simulator's own finer instrument keeps nanoseconds.
        sim_rt::sim::sleep_exact(Duration::from_nanos(3)).await;
        assert_eq!(start.elapsed(), ms(7) + Duration::from_nanos(3));
        // 7 ms + 3 ns + 1 ms is past the 8 ms tick: it fires at 9 ms, as
        // tokio's would.
        sleep(ms(1)).await;
        assert_eq!(start.elapsed(), ms(9), "ticks count from the start");
    });
}

#[test]
fn the_start_instant_depends_on_the_seed_only() {
    let start = |seed| sim(seed, async { Instant::now() });
    assert_eq!(start(100), start(100));
    if std::env::var_os("SIM_SEED").is_none() {
        assert_ne!(start(100), start(101));
    }
    const DAY: Duration = Duration::from_secs(86_400);
    for seed in 0..20 {
        let t = start(seed);
        // Documented: between one day and one year after the epoch.
        assert!(t.checked_sub(DAY).is_some(), "seed {seed}: {t:?}");
        assert!(t.checked_sub(366 * DAY).is_none(), "seed {seed}: {t:?}");
    }
}

// ----- pause, resume, advance ------------------------------------------------

#[test]
#[should_panic(expected = "time is already frozen")]
fn pause_twice_panics() {
    sim(25, async {
        time::pause();
        time::pause();
    });
}

#[test]
fn pausing_and_resuming_read_the_running_clock() {
    // As on tokio, where both read the real clock: time passes between an
    // instant taken and the freeze, and again after the thaw.
    sim(28, async {
        let start = Instant::now();
        time::pause();
        time::advance(Duration::from_secs(10)).await;
        let frozen = Instant::now();
        assert!(frozen - start > Duration::from_secs(10));
        assert!(frozen - start < Duration::from_secs(10) + ms(1));
        time::resume();
        assert!(frozen < Instant::now());
        time::pause();
        time::advance(Duration::from_secs(10)).await;
        assert!(Instant::now() - start > Duration::from_secs(20));
        assert!(Instant::now() - start < Duration::from_secs(20) + ms(1));
    });
}

#[test]
#[should_panic(expected = "time is not frozen")]
fn resume_without_pause_panics() {
    sim(26, async { time::resume() });
}

#[test]
#[should_panic(expected = "time is not frozen")]
fn advance_without_pause_panics() {
    sim(27, async { time::advance(ms(1)).await });
}

#[test]
#[should_panic(expected = "time is not frozen")]
fn advance_after_resume_panics() {
    sim(28, async {
        time::pause();
        time::resume();
        time::advance(ms(1)).await;
    });
}

#[test]
fn pause_resume_pause_is_allowed() {
    sim(29, async {
        time::pause();
        time::resume();
        time::pause();
        time::resume();
    });
}

#[test]
fn advance_moves_the_clock_by_exactly_the_duration() {
    sim(30, async {
        time::pause();
        let t0 = Instant::now();
        time::advance(Duration::from_secs(3)).await;
        assert_eq!(Instant::now() - t0, Duration::from_secs(3));
        time::advance(Duration::from_nanos(7)).await;
        assert_eq!(Instant::now() - t0, Duration::new(3, 7));
        time::advance(Duration::ZERO).await;
        assert_eq!(Instant::now() - t0, Duration::new(3, 7));
    });
}

/// Spawns a task that sleeps `d` and then sends the time since `t0`;
/// returns once that sleep exists, with the receiver of that time.
async fn armed_sleeper(d: Duration, t0: Instant) -> oneshot::Receiver<Duration> {
    let (armed_tx, armed_rx) = oneshot::channel();
    let (done_tx, done_rx) = oneshot::channel();
    sim_rt::spawn(async move {
        let s = sleep(d);
        armed_tx.send(()).unwrap();
        s.await;
        done_tx.send(t0.elapsed()).unwrap();
    });
    armed_rx.await.unwrap();
    done_rx
}

#[test]
fn advance_fires_the_sleeps_due_by_then() {
    sim(31, async {
        time::pause();
        let t0 = Instant::now();
        let mut local = pin!(sleep(ms(1000)));
        assert_eq!(poll!(local.as_mut()), Poll::Pending);

        let mut done_rx = armed_sleeper(ms(1000), t0).await;

        time::advance(ms(999)).await;
        assert_eq!(poll!(local.as_mut()), Poll::Pending);
        assert!(done_rx.try_recv().is_err(), "not due yet");

        time::advance(ms(1)).await;
        assert_eq!(poll!(local.as_mut()), Poll::Ready(()));
        // Pausing read the running clock (a nanosecond), so the deadline
        // lies just past the millisecond grid and the timer fires at the
        // grid's next tick, as on tokio.
        assert!(done_rx.try_recv().is_err(), "the tick is not reached yet");
        time::advance(ms(1)).await;
        assert_eq!(done_rx.await.unwrap(), ms(1001), "fired at the advance");
        assert_eq!(t0.elapsed(), ms(1001), "awaiting did not move the clock");
    });
}

#[test]
fn advance_past_a_deadline_wakes_the_sleeper_at_the_new_time() {
    sim(32, async {
        time::pause();
        let t0 = Instant::now();
        let rx = armed_sleeper(ms(10), t0).await;
        time::advance(ms(50)).await;
        assert_eq!(rx.await.unwrap(), ms(50));
    });
}

#[test]
fn a_paused_clock_still_auto_advances_to_the_next_deadline() {
    sim(33, async {
        time::pause();
        let t0 = Instant::now();
        sleep(Duration::from_secs(10)).await;
        // At the timer's tick: the first millisecond of the grid at or
        // after the deadline (pausing left the clock just off the grid).
        assert!(t0.elapsed() >= Duration::from_secs(10));
        assert!(t0.elapsed() < Duration::from_secs(10) + ms(1));
    });
}

#[test]
fn start_paused_allows_advance_at_once() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(34)
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let t0 = Instant::now();
        time::advance(ms(42)).await;
        assert_eq!(t0.elapsed(), ms(42));
        time::resume();
        time::pause();
    });
    // Resuming and pausing again each read the running clock: a nanosecond.
    assert_eq!(rt.elapsed(), ms(42) + Duration::from_nanos(2));
}

#[test]
#[should_panic(expected = "time is already frozen")]
fn start_paused_then_pause_panics() {
    Builder::new_current_thread()
        .enable_all()
        .seed(35)
        .start_paused(true)
        .build()
        .unwrap()
        .block_on(async { time::pause() });
}

#[test]
fn a_dropped_sleep_no_longer_holds_a_timer() {
    // If the dropped sleep left its timer armed, the clock would jump to it
    // (one hour) before the run is found deadlocked.
    let res = std::panic::catch_unwind(|| {
        sim(36, async {
            let mut s = Box::pin(sleep(Duration::from_secs(3600)));
            assert_eq!(poll!(s.as_mut()), Poll::Pending);
            drop(s); // the Sleep itself, not only a pinned reference
            let out = timeout(Duration::from_secs(7200), ready(())).await;
            assert_eq!(out, Ok(()));
            pending::<()>().await
        })
    });
    let payload = res.expect_err("the run deadlocks");
    let message = payload.downcast_ref::<String>().expect("a String report");
    assert_contains_all(message, &["deadlock", "at simulated time 0ns"]);
}

// ----- Long and huge durations (tokio saturates; the run has no time limit) ---

/// tokio's `immediate_sleep`: a sleep until now has not elapsed before its
/// first poll (tokio's timer entry does not exist yet), and has after it.
#[test]
fn a_sleep_until_now_is_not_elapsed_before_its_first_poll() {
    sim(40, async {
        let now = Instant::now();
        let mut s = pin!(sleep_until(now));
        assert!(!s.is_elapsed());
        (&mut s).await;
        assert!(s.is_elapsed());
        assert_eq!(Instant::now(), now);
        // A reset hands the deadline to the timer too.
        let mut r = pin!(sleep_until(now + ms(5)));
        r.as_mut().reset(now);
        assert!(r.is_elapsed());
    });
}

/// A test may sleep past the first simulated day, as on tokio with its
/// clock paused: the default runtime sets no time limit.
#[test]
fn sleeps_of_days_and_of_thirty_years_complete() {
    sim(41, async {
        let start = Instant::now();
        sleep(Duration::from_secs(2 * 86_400)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(2 * 86_400));
        // tokio's `exactly_max`: `Duration::MAX` sleeps about 30 years.
        let start = Instant::now();
        sleep(Duration::MAX).await;
        assert_eq!(start.elapsed(), FAR_FUTURE);
        sleep(Duration::MAX - ms(1)).await;
        assert_eq!(start.elapsed(), 2 * FAR_FUTURE);
    });
}

/// tokio's `issue_5183` and `very_large_timeout`: durations far beyond any
/// clock neither panic nor fire.
#[test]
fn huge_durations_saturate_without_panicking() {
    sim(42, async {
        let big = Duration::from_secs(u64::MAX / 10);
        let start = Instant::now();
        sim_rt::select! {
            biased;
            _ = sleep(big) => panic!("a 58-billion-year sleep completed"),
            _ = sleep(Duration::from_nanos(1)) => {}
        }
        assert_eq!(start.elapsed(), ms(1), "a 1 ns sleep fires on tokio's tick");
        // A deadline beyond the timer's range is never armed: the other
        // branch wins.
        let start = Instant::now();
        sim_rt::select! {
            biased;
            _ = sleep_until(start + big) => panic!("a deadline beyond the clock fired"),
            _ = sleep(ms(1)) => {}
        }
        // A timeout so long that its deadline overflows has none.
        let (tx, rx) = oneshot::channel();
        let out = sim_rt::spawn(timeout(Duration::MAX, rx));
        sleep(Duration::from_secs(86_400 * 365 * 10)).await;
        tx.send(7).unwrap();
        assert_eq!(out.await.unwrap().unwrap().unwrap(), 7);
        let out = timeout(big, async { 8 }).await;
        assert_eq!(out, Ok(8));
    });
}

/// tokio's `tickspace`: a sleep armed in one runtime and reset inside
/// another's `block_on` moves its timer in the runtime that armed it.
#[test]
fn a_sleep_reset_inside_another_runtime_moves_its_own_timer() {
    let rt_a = Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .seed(43)
        .build()
        .unwrap();
    let rt_b = Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .seed(44)
        .build()
        .unwrap();
    let (mut s, start) = rt_a.block_on(async {
        let start = Instant::now();
        let mut s = Box::pin(sleep(ms(1)));
        assert!(poll!(s.as_mut()).is_pending());
        (s, start)
    });
    let deadline = s.deadline();
    rt_b.block_on(async { s.as_mut().reset(deadline + ms(1)) });
    rt_a.block_on(async {
        s.as_mut().await;
        assert_eq!(start.elapsed(), ms(2));
    });
}

/// As tokio's outside a runtime, creating a sleep outside a simulation
/// panics.
#[test]
fn creating_a_sleep_outside_a_simulation_panics() {
    let payload = std::panic::catch_unwind(|| sleep_until(Instant::now() + ms(500)))
        .expect_err("sleep_until outside a simulation panics");
    let message = payload
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert!(
        message.contains("there is no reactor running"),
        "tokio's words: {message}"
    );
    assert!(std::panic::catch_unwind(|| sleep(ms(1))).is_err());
}

#[test]
fn a_reset_to_a_passed_deadline_wakes_the_waiting_task_at_once() {
    // As tokio's timer fires an entry reset to a tick already processed
    // (tokio-util's DelayQueue relies on it): the waiter is woken by the
    // reset, before any time moves.
    sim(31, async {
        let start = Instant::now();
        let mut sleep = Box::pin(time::sleep_until(start + ms(200)));
        let woken = Arc::new(AtomicUsize::new(0));
        let waker = counting_waker(woken.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(sleep.as_mut().poll(&mut cx).is_pending());
        time::sleep(ms(80)).await;
        assert_eq!(woken.load(Ordering::SeqCst), 0);
        sleep.as_mut().reset(start + ms(50));
        assert_eq!(woken.load(Ordering::SeqCst), 1, "woken by the reset");
        assert!(sleep.as_mut().poll(&mut cx).is_ready());
        // A reset into the future wakes nothing.
        let mut later = Box::pin(time::sleep_until(start + ms(300)));
        assert!(later.as_mut().poll(&mut cx).is_pending());
        later.as_mut().reset(start + ms(250));
        assert_eq!(woken.load(Ordering::SeqCst), 1);
    });
}

fn counting_waker(count: Arc<AtomicUsize>) -> std::task::Waker {
    struct Count(Arc<AtomicUsize>);
    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    std::task::Waker::from(Arc::new(Count(count)))
}
