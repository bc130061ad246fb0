//! `Interval`: exact tick instants, every `MissedTickBehavior`, resets.
//!
//! Times are written as milliseconds since the interval's start. Every case
//! runs under several seeds: the instants must not depend on the schedule.

mod rt_support;

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::time::Duration;

use rt_support::sim as run;
use sim_rt::runtime::{Builder, Step};
use sim_rt::scheduler::Event;
use sim_rt::time::{self, interval, interval_at, sleep, Instant, MissedTickBehavior};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Ticks `n` times, after the first tick sleeping `busy` (simulating work
/// that makes the consumer miss ticks); returns `(instant yielded, instant
/// completed)` of every tick after the first, in ms since the start.
fn ticks_after_busy(behavior: MissedTickBehavior, busy: u64, n: usize) -> Vec<(u64, u64)> {
    let mut results = Vec::new();
    for seed in 0..5 {
        let out = run(seed, async {
            let start = Instant::now();
            let mut i = interval(ms(50));
            i.set_missed_tick_behavior(behavior);
            assert_eq!(i.missed_tick_behavior(), behavior);
            assert_eq!(i.tick().await, start);
            sleep(ms(busy)).await;
            let mut out = Vec::new();
            for _ in 0..n {
                let due = i.tick().await;
                out.push((
                    (due - start).as_millis() as u64,
                    start.elapsed().as_millis() as u64,
                ));
            }
            out
        });
        results.push(out);
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]), "{results:?}");
    results.pop().unwrap()
}

#[test]
fn first_tick_is_immediate_then_every_period() {
    let out = run(1, async {
        let start = Instant::now();
        let mut i = interval(ms(10));
        assert_eq!(i.period(), ms(10));
        assert_eq!(i.missed_tick_behavior(), MissedTickBehavior::Burst);
        let mut out = Vec::new();
        for _ in 0..4 {
            let due = i.tick().await;
            assert_eq!(due, Instant::now(), "on time: completes when due");
            out.push(due - start);
        }
        out
    });
    assert_eq!(out, vec![ms(0), ms(10), ms(20), ms(30)]);
}

#[test]
fn interval_at_starts_at_start() {
    let out = run(2, async {
        let t0 = Instant::now();
        let mut i = interval_at(t0 + ms(50), ms(10));
        let mut out = Vec::new();
        for _ in 0..3 {
            i.tick().await;
            out.push(t0.elapsed());
        }
        out
    });
    assert_eq!(out, vec![ms(50), ms(60), ms(70)]);
}

/// A case of [`assert_ticks`]: the behavior, how long the consumer is
/// busy after the first tick, and the ticks expected after it.
type TickCase<'a> = (MissedTickBehavior, u64, &'a [(u64, u64)]);

/// Checks [`ticks_after_busy`] for every case, naming the case that fails.
fn assert_ticks(cases: &[TickCase<'_>]) {
    for &(behavior, busy, expected) in cases {
        assert_eq!(
            ticks_after_busy(behavior, busy, expected.len()),
            expected,
            "{behavior:?}, busy {busy} ms"
        );
    }
}

/// tokio's `Burst` docs: period 50, busy 200 after the first tick: the
/// missed ticks 50, 100, 150 and the tick due at 200 all complete at once at
/// 200, then on schedule.
#[test]
fn burst_catches_up_at_once() {
    let burst = [
        (50, 200),
        (100, 200),
        (150, 200),
        (200, 200),
        (250, 250),
        (300, 300),
    ];
    assert_ticks(&[(MissedTickBehavior::Burst, 200, &burst)]);
}

/// tokio's `Delay` docs: the late tick completes at once, later ticks a full
/// period after it, off the original grid.
#[test]
fn delay_restarts_from_the_late_tick() {
    use MissedTickBehavior::Delay;
    assert_ticks(&[
        (Delay, 200, &[(50, 200), (250, 250), (300, 300)]),
        (Delay, 225, &[(50, 225), (275, 275), (325, 325)]),
    ]);
}

/// tokio's `Skip` docs: busy 75, the late tick completes at once at 75 and
/// the next is the next multiple of the period, 100.
#[test]
fn skip_stays_on_the_grid() {
    use MissedTickBehavior::Skip;
    assert_ticks(&[
        (Skip, 75, &[(50, 75), (100, 100), (150, 150)]),
        (Skip, 200, &[(50, 200), (250, 250), (300, 300)]),
        (Skip, 225, &[(50, 225), (250, 250), (300, 300)]),
    ]);
}

/// A tick at most 5 ms late counts as on time (tokio's grace): the next tick
/// stays on schedule whatever the behavior; at 6 ms late it is missed.
#[test]
fn five_millisecond_grace() {
    use MissedTickBehavior::{Burst, Delay, Skip};
    assert_ticks(&[
        (Burst, 55, &[(50, 55), (100, 100)]),
        (Delay, 55, &[(50, 55), (100, 100)]),
        (Skip, 55, &[(50, 55), (100, 100)]),
        (Delay, 56, &[(50, 56), (106, 106)]),
        (Skip, 56, &[(50, 56), (100, 100)]),
        (Burst, 56, &[(50, 56), (100, 100)]),
    ]);
}

/// The same catch-up driven by `time::advance` on a paused clock instead of
/// a sleep.
#[test]
fn catch_up_after_advance() {
    for (behavior, expected) in [
        (
            MissedTickBehavior::Burst,
            vec![(100, 230), (200, 230), (300, 300)],
        ),
        (
            MissedTickBehavior::Delay,
            vec![(100, 230), (330, 330), (430, 430)],
        ),
        (
            MissedTickBehavior::Skip,
            vec![(100, 230), (300, 300), (400, 400)],
        ),
    ] {
        let out = run(3, async move {
            time::pause();
            let start = Instant::now();
            let mut i = interval(ms(100));
            i.set_missed_tick_behavior(behavior);
            i.tick().await;
            time::advance(ms(230)).await;
            let mut out = Vec::new();
            for _ in 0..3 {
                let due = i.tick().await;
                out.push((
                    (due - start).as_millis() as u64,
                    start.elapsed().as_millis() as u64,
                ));
            }
            out
        });
        assert_eq!(out, expected, "{behavior:?}");
    }
}

/// A new interval of `period` after its first, immediate tick, and its
/// start.
async fn ticked_once(period: Duration) -> (Instant, time::Interval) {
    let start = Instant::now();
    let mut i = interval(period);
    i.tick().await;
    (start, i)
}

#[test]
fn changing_the_behavior_between_ticks() {
    let out = run(4, async {
        let (start, mut i) = ticked_once(ms(50)).await;
        sleep(ms(120)).await;
        // Burst: the tick due at 50 completes late, the next is due at 100.
        let a = i.tick().await - start;
        i.set_missed_tick_behavior(MissedTickBehavior::Skip);
        // Due at 100, now 120: skip to 150.
        let b = i.tick().await - start;
        let c = i.tick().await - start;
        (a, b, c, start.elapsed())
    });
    assert_eq!(out, (ms(50), ms(100), ms(150), ms(150)));
}

/// An interval of 100 ms with `behavior`, ticked once, reset by `reset`
/// 50 ms later (given the interval and its start), then ticked twice:
/// returns the start, the instant the first of those ticks yielded and how
/// long after the start the second completed.
async fn ticks_after_reset(
    behavior: MissedTickBehavior,
    reset: fn(&mut time::Interval, Instant),
) -> (Instant, Instant, Duration) {
    let start = Instant::now();
    let mut i = interval(ms(100));
    i.set_missed_tick_behavior(behavior);
    i.tick().await;
    sleep(ms(50)).await;
    reset(&mut i, start);
    let due = i.tick().await;
    i.tick().await;
    (start, due, start.elapsed())
}

/// tokio's reset examples, with the exact instants.
#[test]
fn resets() {
    let out = run(5, async {
        let mut out = Vec::new();
        let resets: [fn(&mut time::Interval, Instant); 4] = [
            |i, _| i.reset(),
            |i, _| i.reset_immediately(),
            |i, _| i.reset_after(ms(20)),
            |i, _| i.reset_at(Instant::now() + ms(30)),
        ];
        for reset in resets {
            let (_, _, elapsed) = ticks_after_reset(MissedTickBehavior::Burst, reset).await;
            out.push(elapsed);
        }

        // Resetting into the past applies the missed-tick behavior.
        let (start, due, elapsed) =
            ticks_after_reset(MissedTickBehavior::Delay, |i, start| i.reset_at(start)).await;
        assert_eq!(due, start);
        out.push(elapsed);
        out
    });
    assert_eq!(out, vec![ms(250), ms(150), ms(170), ms(180), ms(150)]);
}

/// A tick that lost a race is not consumed.
#[test]
fn tick_is_cancel_safe() {
    let out = run(6, async {
        let (start, mut i) = ticked_once(ms(100)).await;
        sim_rt::select! {
            _ = i.tick() => panic!("the sleep is shorter"),
            _ = sleep(ms(30)) => {}
        }
        (i.tick().await - start, start.elapsed())
    });
    assert_eq!(out, (ms(100), ms(100)));
}

/// After a tick nothing is armed until the interval is polled again: an
/// idle interval neither wakes its task nor makes the clock stop at its next
/// deadline. The task below holds an interval it no longer polls and waits
/// 1 s: it is polled exactly twice (first poll, and the sleep's wake), and
/// the clock moves exactly twice (to the second tick at 10 ms, and to
/// 1010 ms), never to the interval's next deadline at 20 ms.
#[test]
fn an_idle_interval_arms_no_timer() {
    let rt = Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .seed(7)
        .full_trace(true)
        .build()
        .unwrap();
    let (polls, elapsed) = rt.block_on(async {
        let start = Instant::now();
        let mut i = interval(ms(10));
        i.tick().await;
        i.tick().await;
        let mut polls = 0;
        let mut wait = pin!(sleep(ms(1000)));
        poll_fn(|cx| {
            polls += 1;
            wait.as_mut().poll(cx)
        })
        .await;
        drop(i);
        (polls, start.elapsed())
    });
    assert_eq!(polls, 2);
    assert_eq!(elapsed, ms(1010));
    let advances = rt
        .trace()
        .steps()
        .iter()
        .filter(|s| {
            matches!(
                s,
                Step::Pick {
                    event: Event::Advance,
                    ..
                }
            )
        })
        .count();
    assert_eq!(advances, 2);
}

#[test]
#[should_panic(expected = "`period` must be non-zero.")]
fn zero_period_panics() {
    let _ = interval(Duration::ZERO);
}

#[test]
#[should_panic(expected = "`period` must be non-zero.")]
fn zero_period_panics_at() {
    run(8, async {
        let _ = interval_at(Instant::now(), Duration::ZERO);
    });
}

#[test]
fn huge_period_is_clamped_like_tokio() {
    run(9, async {
        let i = interval(Duration::MAX);
        assert_eq!(i.period(), Duration::from_secs(86_400 * 365 * 30));
    });
}

/// Compile-only parity with tokio: the same code builds against tokio and,
/// with `tokio` renamed to `sim_rt`, against the simulation.
macro_rules! parity {
    () => {
        #[allow(dead_code)]
        async fn interval_api() {
            use std::task::Poll;
            use std::time::Duration;
            use tokio::time::{interval, interval_at, Instant, Interval, MissedTickBehavior};

            let mut i: Interval = interval(Duration::from_millis(1));
            let _: Interval = interval_at(Instant::now(), Duration::from_millis(1));
            let _: Instant = i.tick().await;
            let _: Poll<Instant> = std::future::poll_fn(|cx| Poll::Ready(i.poll_tick(cx))).await;
            i.reset();
            i.reset_immediately();
            i.reset_after(Duration::from_millis(1));
            i.reset_at(Instant::now());
            let b: MissedTickBehavior = i.missed_tick_behavior();
            i.set_missed_tick_behavior(MissedTickBehavior::Delay);
            i.set_missed_tick_behavior(MissedTickBehavior::Skip);
            assert_eq!(b, MissedTickBehavior::default());
            assert_eq!(b, MissedTickBehavior::Burst);
            let _: Duration = i.period();
            let _ = format!("{i:?} {b:?}");
        }
    };
}

mod real {
    parity!();
}

mod sim {
    use sim_rt as tokio;
    parity!();
}
