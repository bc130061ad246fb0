//! Shrinking takes out the losses a failure does not need: a walk that
//! finds a failure also loses other packets along the way, and dropping one
//! of those shifts every later choice point, so the losses the failure
//! needs are kept by packet, not by position.

mod common;

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use explorer::{Explorer, FoundFailure, Random, Walk};
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, LinkConfig, NetConfig};
use sim_rt::time::sleep;

/// A client uploads ten `DATA` datagrams, then a `SEAL`, over a link that
/// loses one in five; the server seals the upload when it hears the seal
/// (the bug: nobody resends it). The test checks it is sealed after 100 ms.
async fn upload() {
    let sealed = Rc::new(Cell::new(false));
    let s = sealed.clone();
    sim::host("server").start(move || {
        let sealed = s.clone();
        async move {
            let socket = UdpSocket::bind("0.0.0.0:7").await.unwrap();
            let mut buf = [0u8; 16];
            while let Ok((n, _)) = socket.recv_from(&mut buf).await {
                if &buf[..n] == b"SEAL" {
                    sealed.set(true);
                }
            }
        }
    });
    sim::host("client").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
        for i in 0..10u8 {
            socket.send_to(&[b'D', i], "server:7").await.unwrap();
            sleep(Duration::from_millis(1)).await;
        }
        socket.send_to(b"SEAL", "server:7").await.unwrap();
    });
    sleep(Duration::from_millis(100)).await;
    assert!(sealed.get(), "the upload was never sealed");
}

fn lossy(b: &mut sim_rt::runtime::Builder) {
    b.network(NetConfig {
        default_link: LinkConfig {
            loss: 0.2,
            ..LinkConfig::default()
        },
        ..NetConfig::default()
    });
}

/// Random walks on lossy links from `seed`.
fn walks(seed: u64) -> Explorer {
    Explorer::new()
        .explorer(Random::default())
        .search(Walk)
        .runtime(lossy)
        .seed(seed)
        .executions(500)
        .progress(false)
}

/// Walks `program` from seeds 0 to 9: each finds a failure (`what`) that
/// shrinks to `left` faults, and `each` checks it further. Returns how many
/// walks had more than `left` faults before shrinking.
fn walks_shrinking_to<F, Fut>(
    program: F,
    what: &str,
    left: u32,
    mut each: impl FnMut(u64, &FoundFailure),
) -> usize
where
    F: Fn() -> Fut + Sync + Copy,
    Fut: Future<Output = ()>,
{
    let mut more = 0;
    for seed in 0..10 {
        let report = walks(seed).run(program);
        let found = report.failure.as_ref().expect(what);
        let shrunk = found.shrunk.as_ref().expect("walks' failures are shrunk");
        assert_eq!(shrunk.after.faults, left, "seed {seed}: {report}");
        more += usize::from(shrunk.before.faults > left);
        each(seed, found);
    }
    more
}

#[test]
fn only_the_seals_loss_is_left() {
    let shrunk_some = walks_shrinking_to(upload, "a lost seal is found", 1, |seed, found| {
        // The one loss left is the seal's.
        common::assert_story_tells(&found.story, &format!("seed {seed}"), |l| {
            l.contains("lose client -> server \"SEAL\"")
        });
        // And the shrunk failure replays from its token.
        let again = Explorer::new()
            .runtime(lossy)
            .progress(false)
            .replay(found.token.to_string())
            .run(upload);
        assert_eq!(again.failure.expect("replayed").trace, found.trace);
    });
    assert!(shrunk_some > 0, "some walk lost other datagrams too");
}

/// The client sends ten numbered datagrams at once; the server's bug is to
/// expect them in order. A walk finds a reordering, losing other datagrams
/// on the way; the failure needs no loss at all, and none is left.
async fn in_order() {
    sim::host("server").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:7").await.unwrap();
        let mut buf = [0u8; 4];
        let mut last = None;
        while let Ok((n, _)) = socket.recv_from(&mut buf).await {
            let i = buf[..n][0];
            assert!(last.is_none_or(|l| i > l), "{i} after {last:?}");
            last = Some(i);
        }
    });
    sim::host("client").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
        for i in 0..10u8 {
            socket.send_to(&[i], "server:7").await.unwrap();
        }
    });
    sleep(Duration::from_millis(100)).await;
}

#[test]
fn a_failure_that_needs_no_loss_keeps_none() {
    let lost_some = walks_shrinking_to(in_order, "a reordering is found", 0, |_, _| {});
    assert!(lost_some > 0, "some walk lost datagrams too");
}
