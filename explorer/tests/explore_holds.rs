//! A delayed delivery is held until a later packet to the same host has
//! been delivered: one delay lets a later message overtake an earlier one.

mod common;

use std::time::Duration;

use explorer::{Exhaustive, Explorer, RoundRobin, Rtc};

/// "a" sends "first", then 3 ms later "second", to "b"; "b" asserts they
/// arrive in order. Their arrival windows ([1, 10] ms after sending)
/// overlap, so the network may swap them, but only if "first" waits
/// through the clock's advances until "second" can arrive.
async fn two_messages() {
    sim_rt::sim::host("b").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?;
        let mut buf = [0u8; 16];
        let (n, _) = sock.recv_from(&mut buf).await?;
        assert_eq!(&buf[..n], b"first", "the messages arrived out of order");
        Ok::<(), std::io::Error>(())
    });
    sim_rt::sim::host("a").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:0").await?;
        sock.send_to(b"first", "b:9").await?;
        sim_rt::time::sleep(Duration::from_millis(3)).await;
        sock.send_to(b"second", "b:9").await?;
        Ok::<(), std::io::Error>(())
    });
    sim_rt::time::sleep(Duration::from_millis(50)).await;
}

#[test]
fn one_delay_lets_a_later_message_overtake() {
    let one_delay = Explorer::new()
        .progress(false)
        .search(Exhaustive::new(1))
        .executions(1_000);
    for (name, report) in [
        (
            "rtc",
            one_delay.clone().explorer(Rtc::default()).run(two_messages),
        ),
        (
            "rr",
            one_delay
                .clone()
                .explorer(RoundRobin::default())
                .run(two_messages),
        ),
    ] {
        let found = report
            .failure
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: one delay reorders the two messages: {report}"));
        assert_eq!(found.delays, 1, "{name}");
        common::assert_story_tells(&found.story, name, |l| {
            l.contains("a -> b \"first\" delayed past")
        });
    }
}
