//! Late deliveries: under the explorer a packet may arrive at the end of
//! its latency window as well as at its opening, so a bug that needs a
//! message to arrive late is found even when no timer or other packet
//! falls inside the window; a plain run delivers at the opening.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use explorer::{Explorer, Random, Rtc, Sampling, Walk};
use sim_rt::net::UdpSocket;
use sim_rt::runtime::Builder;
use sim_rt::sim;
use sim_rt::time::{sleep, Instant};

/// A client sends one datagram (links: 1 to 10 ms); the server drops a
/// request it hears more than 5 ms after it was sent (a staleness check
/// that reads the clock on arrival); the client assumes it was applied.
/// Nothing else happens until the client checks, at 20 ms: only a late
/// arrival fails it.
async fn stale_request() {
    let sent: Rc<Cell<Option<Instant>>> = Rc::default();
    let applied = Rc::new(Cell::new(false));
    let (s, a) = (sent.clone(), applied.clone());
    sim::host("server").start(move || {
        let (sent, applied) = (s.clone(), a.clone());
        async move {
            let socket = UdpSocket::bind("0.0.0.0:9").await.unwrap();
            let mut buf = [0u8; 16];
            socket.recv_from(&mut buf).await.unwrap();
            let age = sent.get().expect("sent before it arrives").elapsed();
            if age <= Duration::from_millis(5) {
                applied.set(true);
            }
        }
    });
    let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    sent.set(Some(Instant::now()));
    socket.send_to(b"put", "server:9").await.unwrap();
    sleep(Duration::from_millis(20)).await;
    assert!(
        applied.get(),
        "the request arrived too late and was dropped"
    );
}

#[test]
fn a_plain_run_delivers_at_the_windows_opening() {
    for seed in 0..20 {
        let rt = Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        rt.block_on(stale_request());
    }
}

/// Every search finds the late arrival: the default, a walk, and sampling
/// with run-to-completion (one delay: the late `Advance` is the last
/// option); its failure replays from its token.
#[test]
fn every_search_finds_a_bug_that_needs_a_late_arrival() {
    let searches = [
        Explorer::new(),
        Explorer::new().explorer(Random::default()).search(Walk),
        Explorer::new()
            .explorer(Rtc::default())
            .search(Sampling::new(2)),
    ];
    for e in searches {
        let report = e.executions(100).progress(false).run(stale_request);
        let f = report
            .failure
            .as_ref()
            .unwrap_or_else(|| panic!("{report}"));
        assert!(
            f.failure.to_string().contains("arrived too late"),
            "{}",
            f.failure
        );
        let again = Explorer::new()
            .progress(false)
            .replay(f.token.to_string())
            .run(stale_request);
        assert_eq!(again.failure.expect("replayed").trace, f.trace);
    }
}
