//! A run's trace keeps nothing per forced step: a two-host TCP ping-pong,
//! whose every step is forced, keeps a trace of the same size after 100 and
//! after 2,000 round trips, and a failure in it still replays.

use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::runtime::{Builder, Trace, RECORDED_STEP_BYTES};
use sim_rt::sim;

async fn echo() {
    let l = TcpListener::bind("0.0.0.0:7").await.unwrap();
    let (mut s, _) = l.accept().await.unwrap();
    let mut buf = [0u8; 64];
    while s.read_exact(&mut buf).await.is_ok() {
        s.write_all(&buf).await.unwrap();
    }
}

/// `round_trips` round trips, then a panic when `fail`.
async fn ping_pong(round_trips: u32, fail: bool) {
    sim::host("server").start(echo);
    let mut s = TcpStream::connect("server:7").await.unwrap();
    let mut buf = [7u8; 64];
    for _ in 0..round_trips {
        s.write_all(&buf).await.unwrap();
        s.read_exact(&mut buf).await.unwrap();
    }
    assert!(!fail, "failing after {round_trips} round trips");
}

fn trace_of(round_trips: u32, full: bool) -> Trace {
    let rt = Builder::new_current_thread()
        .enable_all()
        .full_trace(full)
        .build()
        .unwrap();
    rt.block_on(ping_pong(round_trips, false));
    rt.trace()
}

#[test]
fn a_ping_pong_trace_does_not_grow_with_its_length() {
    let short = trace_of(100, false);
    let long = trace_of(2_000, false);
    assert!(
        long.len() > 10 * short.len(),
        "{} vs {}",
        long.len(),
        short.len()
    );
    assert_eq!(long.steps().len(), short.steps().len());
    // Recorded in full, it grows by every step.
    let full = trace_of(2_000, true);
    assert_eq!(full.steps().len(), full.len());
    assert_eq!(full.hash(), long.hash());
    assert_eq!(
        RECORDED_STEP_BYTES, 32,
        "the documented size of a recorded step"
    );
}

#[test]
fn a_failure_late_in_a_long_run_replays_from_its_compact_trace() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(ping_pong(3_000, true))
    }));
    assert!(failed.is_err());
    let trace = rt.trace();
    drop(rt);
    assert!(
        trace.len() > 15_000 && trace.steps().len() < 100,
        "{trace:?}"
    );

    let rt = Builder::new_current_thread()
        .enable_all()
        .replay(trace.clone())
        .build()
        .unwrap();
    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(ping_pong(3_000, true))
    }));
    assert!(again.is_err());
    assert_eq!(rt.trace().hash(), trace.hash());
    assert_eq!(rt.trace().len(), trace.len());
}
