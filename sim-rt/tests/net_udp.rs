//! `sim_rt::net::UdpSocket`: binding, sending and receiving between hosts,
//! connected sockets, and what links do to datagrams (latency reordering,
//! loss, duplication, partitions). Each test asserts what the receiving
//! side observed against what a Linux kernel would deliver.

mod rt_support;

use std::collections::BTreeSet;
use std::future::poll_fn;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::Duration;

use rt_support::sim as run;
use sim_rt::io::ReadBuf;
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, LinkConfig};
use sim_rt::time::{sleep, timeout, Instant};

// The handle holds only ids, so it and its futures cross threads as
// tokio's do; a drift fails the build.
#[allow(dead_code)]
const _: () = {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>(_: T) {}
    fn futures_are_send(s: &UdpSocket, buf: &mut [u8]) {
        send_sync::<UdpSocket>();
        send(UdpSocket::bind("0.0.0.0:0"));
        send(s.connect("server:1"));
        send(s.send(b""));
        send(s.send_to(b"", "server:1"));
        send(s.recv(buf));
    }
};

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

/// A host that does nothing (but exists, with an address and a name).
fn idle_host(name: &str) {
    sim::host(name).start(std::future::pending::<()>);
}

/// Receives until nothing arrives for a simulated second (or 16 datagrams
/// came, so a receive that never empties the queue fails instead of
/// spinning); returns the payloads in arrival order.
async fn drain(socket: &UdpSocket) -> Vec<Vec<u8>> {
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    while got.len() < 16 {
        match timeout(Duration::from_secs(1), socket.recv_from(&mut buf)).await {
            Ok(r) => got.push(buf[..r.unwrap().0].to_vec()),
            Err(_) => break,
        }
    }
    got
}

#[sim_rt::test]
async fn bind_port_zero_gets_an_ephemeral_port() {
    let a = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    let b = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    let (pa, pb) = (a.local_addr().unwrap(), b.local_addr().unwrap());
    assert_eq!(pa.ip(), addr("0.0.0.0:0").ip());
    // Linux's ephemeral range starts at 32768; the model's at 49152. Either
    // way, not 0, and not the same twice.
    assert!(pa.port() >= 32768, "{pa}");
    assert!(pb.port() >= 32768, "{pb}");
    assert_ne!(pa.port(), pb.port());
    // A fixed port is kept.
    let c = UdpSocket::bind("127.0.0.1:4000").await.unwrap();
    assert_eq!(c.local_addr().unwrap(), addr("127.0.0.1:4000"));
}

#[sim_rt::test]
async fn second_bind_on_a_held_port_is_addr_in_use() {
    let first = UdpSocket::bind("0.0.0.0:5353").await.unwrap();
    let e = UdpSocket::bind("0.0.0.0:5353").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AddrInUse);
    // The wildcard holds the port on every address of the host.
    let e = UdpSocket::bind("127.0.0.1:5353").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AddrInUse);
    // Dropping the socket frees the port.
    drop(first);
    UdpSocket::bind("0.0.0.0:5353").await.unwrap();
}

#[sim_rt::test]
async fn bind_tries_each_address_in_turn() {
    // 10.0.0.9 is not this host's: AddrNotAvailable, then the next works.
    let addrs = [addr("10.0.0.9:7"), addr("10.255.255.254:7")];
    let s = UdpSocket::bind(&addrs[..]).await.unwrap();
    assert_eq!(s.local_addr().unwrap(), addr("10.255.255.254:7"));
    let e = UdpSocket::bind(addr("10.0.0.9:7")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AddrNotAvailable);
}

#[test]
fn send_to_and_recv_from_between_hosts_by_name() {
    for seed in 0..10 {
        run(seed, async {
            sim::host("server").start(|| async {
                let socket = UdpSocket::bind("0.0.0.0:53").await?;
                let mut buf = [0u8; 64];
                loop {
                    let (n, from) = socket.recv_from(&mut buf).await?;
                    let mut reply = b"re:".to_vec();
                    reply.extend_from_slice(&buf[..n]);
                    reply.extend_from_slice(from.to_string().as_bytes());
                    socket.send_to(&reply, from).await?;
                }
                #[allow(unreachable_code)]
                Ok::<(), std::io::Error>(())
            });
            let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
            let port = socket.local_addr().unwrap().port();
            assert_eq!(socket.send_to(b"query", "server:53").await.unwrap(), 5);
            let mut buf = [0u8; 64];
            let (n, from) = socket.recv_from(&mut buf).await.unwrap();
            assert_eq!(from, addr("10.0.0.1:53"));
            // The server saw the main host's address and the bound port.
            assert_eq!(
                std::str::from_utf8(&buf[..n]).unwrap(),
                format!("re:query10.255.255.254:{port}")
            );
        });
    }
}

#[sim_rt::test]
async fn connected_socket_sends_to_its_peer_and_drops_other_sources() {
    let socket = UdpSocket::bind("0.0.0.0:5000").await.unwrap();
    assert_eq!(
        socket.peer_addr().unwrap_err().kind(),
        ErrorKind::NotConnected
    );
    assert_eq!(
        socket.send(b"x").await.unwrap_err().kind(),
        ErrorKind::NotConnected
    );
    // Hosts are created before connecting so the names resolve; their
    // entry points run only once this task waits.
    sim::host("server").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:9").await?;
        sleep(Duration::from_millis(100)).await;
        socket
            .send_to(b"from server", "10.255.255.254:5000")
            .await?;
        let mut buf = [0u8; 64];
        let (n, from) = socket.recv_from(&mut buf).await?;
        assert_eq!(
            (&buf[..n], from),
            (&b"to server"[..], addr("10.255.255.254:5000"))
        );
        Ok::<(), std::io::Error>(())
    });
    sim::host("intruder").start(|| async {
        // Arrives well before the server's datagram.
        let socket = UdpSocket::bind("0.0.0.0:9").await?;
        for _ in 0..3 {
            socket
                .send_to(b"from intruder", "10.255.255.254:5000")
                .await?;
        }
        Ok::<(), std::io::Error>(())
    });
    socket.connect("server:9").await.unwrap();
    assert_eq!(socket.peer_addr().unwrap(), addr("10.0.0.1:9"));
    let start = Instant::now();
    let mut buf = [0u8; 64];
    let n = socket.recv(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"from server");
    // The intruder's datagrams arrived within the first 10 ms and were
    // dropped; this one was sent at 100 ms.
    assert!(start.elapsed() > Duration::from_millis(100));
    assert_eq!(socket.send(b"to server").await.unwrap(), 9);
    sleep(Duration::from_secs(1)).await;
    assert_eq!(
        socket.try_recv(&mut buf).unwrap_err().kind(),
        ErrorKind::WouldBlock
    );
}

#[sim_rt::test]
async fn connect_tries_each_address_in_turn() {
    idle_host("server");
    let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    // An IPv4 socket cannot reach an IPv6 address: InvalidInput, then the
    // next address is used.
    let addrs = [addr("[::1]:9"), addr("10.0.0.1:9")];
    socket.connect(&addrs[..]).await.unwrap();
    assert_eq!(socket.peer_addr().unwrap(), addr("10.0.0.1:9"));
    let e = socket.connect(addr("[::1]:9")).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(socket.peer_addr().unwrap(), addr("10.0.0.1:9"));
}

#[sim_rt::test]
async fn a_datagram_longer_than_the_buffer_is_truncated() {
    let rx = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let tx = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let to = rx.local_addr().unwrap();
    // One at a time: two datagrams sent at once may arrive in either order,
    // even over loopback.
    tx.send_to(b"0123456789", to).await.unwrap();
    let mut small = [0u8; 4];
    let (n, from) = rx.recv_from(&mut small).await.unwrap();
    assert_eq!((n, &small, from), (4, b"0123", tx.local_addr().unwrap()));
    // The rest of the first datagram is gone: the next receive is the
    // second datagram, truncated the same way through a ReadBuf.
    tx.send_to(b"abcdefghij", to).await.unwrap();
    let mut storage = [0u8; 3];
    let mut rb = ReadBuf::new(&mut storage);
    poll_fn(|cx| rx.poll_recv(cx, &mut rb)).await.unwrap();
    assert_eq!(rb.filled(), b"abc");
    assert_eq!(
        rx.try_recv(&mut small).unwrap_err().kind(),
        ErrorKind::WouldBlock
    );
}

#[sim_rt::test]
async fn an_oversized_payload_is_invalid_input() {
    let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let to = s.local_addr().unwrap();
    let max = vec![7u8; 65_507];
    assert_eq!(s.send_to(&max, to).await.unwrap(), 65_507);
    let e = s.send_to(&[0u8; 65_508], to).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    let mut buf = vec![0u8; 70_000];
    assert_eq!(s.recv(&mut buf).await.unwrap(), 65_507);
}

#[sim_rt::test]
async fn try_methods_would_block_when_empty() {
    let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut buf = [0u8; 8];
    for kind in [
        s.try_recv_from(&mut buf).map(drop),
        s.try_recv(&mut buf).map(drop),
        s.try_peek_from(&mut buf).map(drop),
        s.try_peek(&mut buf).map(drop),
        s.try_peek_sender().map(drop),
    ]
    .map(|r| r.unwrap_err().kind())
    {
        assert_eq!(kind, ErrorKind::WouldBlock);
    }
    // Sending never blocks; after delivery the queue is no longer empty.
    let me = s.local_addr().unwrap();
    assert_eq!(s.try_send_to(b"hi", me).unwrap(), 2);
    s.readable().await.unwrap();
    assert_eq!(s.try_recv_from(&mut buf).unwrap(), (2, me));
    assert_eq!(&buf[..2], b"hi");
    s.connect(me).await.unwrap();
    assert_eq!(s.try_send(b"yo").unwrap(), 2);
    s.readable().await.unwrap();
    assert_eq!(s.try_recv(&mut buf).unwrap(), 2);
    assert_eq!(&buf[..2], b"yo");
}

#[sim_rt::test]
async fn peek_leaves_the_datagram_queued() {
    let rx = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let tx = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let from = tx.local_addr().unwrap();
    // Queued in this order: the first is in before the second is sent.
    tx.send_to(b"first", rx.local_addr().unwrap())
        .await
        .unwrap();
    rx.readable().await.unwrap();
    tx.send_to(b"second", rx.local_addr().unwrap())
        .await
        .unwrap();
    sleep(Duration::from_millis(1)).await;
    let mut buf = [0u8; 16];
    assert_eq!(rx.peek_from(&mut buf).await.unwrap(), (5, from));
    assert_eq!(rx.peek_sender().await.unwrap(), from);
    assert_eq!(rx.try_peek_sender().unwrap(), from);
    assert_eq!(rx.peek(&mut buf[..3]).await.unwrap(), 3);
    let mut storage = [0u8; 16];
    let mut rb = ReadBuf::new(&mut storage);
    assert_eq!(
        poll_fn(|cx| rx.poll_peek_from(cx, &mut rb)).await.unwrap(),
        from
    );
    assert_eq!(rb.filled(), b"first");
    // Still there, and still first.
    assert_eq!(rx.recv_from(&mut buf).await.unwrap(), (5, from));
    assert_eq!(&buf[..5], b"first");
    let mut rb = ReadBuf::new(&mut storage);
    assert_eq!(
        poll_fn(|cx| rx.poll_recv_from(cx, &mut rb)).await.unwrap(),
        from
    );
    assert_eq!(rb.filled(), b"second");
}

#[sim_rt::test(start_paused = true)]
async fn readable_waits_for_a_datagram_and_writable_does_not_wait() {
    let s = std::sync::Arc::new(UdpSocket::bind("0.0.0.0:0").await.unwrap());
    let me = addr(&format!("127.0.0.1:{}", s.local_addr().unwrap().port()));
    let start = Instant::now();
    s.writable().await.unwrap();
    poll_fn(|cx| s.poll_send_ready(cx)).await.unwrap();
    assert_eq!(start.elapsed(), Duration::ZERO);
    // Nothing queued: readable does not complete.
    assert!(timeout(Duration::from_millis(5), s.readable())
        .await
        .is_err());
    let sender = s.clone();
    sim_rt::spawn(async move {
        sleep(Duration::from_millis(20)).await;
        sender.send_to(b"ping", me).await.unwrap();
    });
    s.readable().await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_millis(25));
    // Ready again at once while the datagram is queued.
    poll_fn(|cx| s.poll_recv_ready(cx)).await.unwrap();
    let mut buf = [0u8; 8];
    assert_eq!(s.try_recv_from(&mut buf).unwrap(), (4, me));
    assert!(timeout(Duration::from_millis(5), s.readable())
        .await
        .is_err());
}

/// A datagram to a port nobody holds on a simulated host comes back as
/// ICMP port unreachable, as on Linux: a connected sender reports
/// `ConnectionRefused` once (a waiting `recv` wakes with it; `try_recv`
/// waits for readability, as tokio's does; a `send` or `take_error` reports
/// it too); an unconnected sender sees nothing, and a datagram to an
/// address no host owns vanishes.
#[sim_rt::test(start_paused = true)]
async fn a_datagram_to_an_unbound_port_refuses_a_connected_sender() {
    use sim_rt::io::{Interest, Ready};
    let (report, mut reports) = sim_rt::sync::mpsc::unbounded_channel();
    sim::host("server").start(move || {
        let report = report.clone();
        async move {
            // Bound on another port: must not get what was sent to 9999.
            let other = UdpSocket::bind("0.0.0.0:53").await?;
            let mut buf = [0u8; 8];
            let r = timeout(Duration::from_millis(500), other.recv_from(&mut buf)).await;
            report.send(r.is_err()).unwrap();
            Ok::<(), std::io::Error>(())
        }
    });
    let latency = Duration::from_millis(3);
    sim::set_link(
        "main",
        "server",
        LinkConfig::default().with_latency(latency, latency),
    );
    sim::set_link(
        "server",
        "main",
        LinkConfig::default().with_latency(latency, latency),
    );
    let mut buf = [0u8; 8];

    // Unconnected: the ICMP error is ignored.
    let s = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    assert_eq!(s.send_to(b"void", "server:9999").await.unwrap(), 4);
    assert_eq!(s.send_to(b"void", "10.9.9.9:9").await.unwrap(), 4);
    sleep(4 * latency).await;
    assert!(s.take_error().unwrap().is_none());
    assert_eq!(
        s.ready(Interest::ERROR | Interest::WRITABLE).await.unwrap(),
        Ready::WRITABLE
    );

    // Connected: a waiting recv wakes with the error after a round trip.
    s.connect("server:9999").await.unwrap();
    let start = Instant::now();
    assert_eq!(s.send(b"void").await.unwrap(), 4);
    let err = timeout(Duration::from_secs(1), s.recv(&mut buf))
        .await
        .expect("the ICMP error wakes the receive")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
    assert_eq!(start.elapsed(), 2 * latency);
    // Reported once.
    assert!(timeout(Duration::from_secs(1), s.recv(&mut buf))
        .await
        .is_err());

    // While it is pending the socket is ready for ERROR, not readable:
    // try_recv would block; the next send reports it and sends nothing.
    s.send(b"void").await.unwrap();
    sleep(4 * latency).await;
    assert_eq!(
        s.ready(Interest::ERROR | Interest::READABLE | Interest::WRITABLE)
            .await
            .unwrap(),
        Ready::ERROR | Ready::WRITABLE | Ready::WRITE_CLOSED
    );
    assert_eq!(
        s.try_recv(&mut buf).unwrap_err().kind(),
        ErrorKind::WouldBlock
    );
    assert_eq!(
        s.send(b"void").await.unwrap_err().kind(),
        ErrorKind::ConnectionRefused
    );
    assert_eq!(s.send(b"void").await.unwrap(), 4);
    // ... and take_error takes the one that send's datagram brings back.
    sleep(4 * latency).await;
    assert_eq!(
        s.take_error().unwrap().map(|e| e.kind()),
        Some(ErrorKind::ConnectionRefused)
    );
    assert!(s.take_error().unwrap().is_none());
    assert_eq!(reports.recv().await, Some(true), "port 53 got a datagram");
}

/// Two datagrams sent back to back over a link with latency window
/// [1 ms, 50 ms] each take their own time: across seeds, both arrival
/// orders occur.
#[test]
fn datagrams_reorder_within_the_latency_window() {
    let mut orders = BTreeSet::new();
    for seed in 0..200 {
        let order = run(seed, async {
            let rx = UdpSocket::bind("0.0.0.0:7000").await.unwrap();
            sim::host("server").start(|| async {
                let s = UdpSocket::bind("0.0.0.0:0").await?;
                s.send_to(b"1", "10.255.255.254:7000").await?;
                s.send_to(b"2", "10.255.255.254:7000").await?;
                Ok::<(), std::io::Error>(())
            });
            sim::set_link(
                "server",
                "main",
                LinkConfig::default()
                    .with_latency(Duration::from_millis(1), Duration::from_millis(50)),
            );
            let start = Instant::now();
            let mut order = Vec::new();
            let mut buf = [0u8; 1];
            for _ in 0..2 {
                rx.recv_from(&mut buf).await.unwrap();
                order.push(buf[0]);
            }
            assert!(start.elapsed() <= Duration::from_millis(50));
            order
        });
        orders.insert(order);
    }
    // With SIM_SEED set every run has the same seed: nothing to compare.
    if std::env::var_os("SIM_SEED").is_none() {
        assert_eq!(orders, BTreeSet::from([b"12".to_vec(), b"21".to_vec()]));
    }
}

/// Runs `server` sending `a`, `b`, `c` to the main host over a link with
/// `link`'s faults; returns what the main host received, sorted.
fn received_over(seed: u64, link: LinkConfig) -> Vec<Vec<u8>> {
    run(seed, async move {
        let rx = UdpSocket::bind("0.0.0.0:7000").await.unwrap();
        sim::host("server").start(|| async {
            let s = UdpSocket::bind("0.0.0.0:0").await?;
            for m in [b"a", b"b", b"c"] {
                s.send_to(m, "main:7000").await?;
            }
            Ok::<(), std::io::Error>(())
        });
        sim::set_link("server", "main", link);
        let mut got = drain(&rx).await;
        got.sort();
        got
    })
}

#[test]
fn loss_one_delivers_nothing_and_duplicate_one_delivers_each_twice() {
    let abc = |k: usize| -> Vec<Vec<u8>> {
        [b"a", b"b", b"c"]
            .iter()
            .flat_map(|m| std::iter::repeat_n(m.to_vec(), k))
            .collect()
    };
    for seed in 0..20 {
        assert_eq!(received_over(seed, LinkConfig::default()), abc(1));
        let lossy = LinkConfig::default().with_loss(1.0);
        assert_eq!(received_over(seed, lossy), abc(0));
        let dup = LinkConfig::default().with_duplicate(1.0);
        assert_eq!(received_over(seed, dup), abc(2));
    }
}

#[sim_rt::test]
async fn a_partition_drops_datagrams_sent_across_it() {
    let rx = UdpSocket::bind("0.0.0.0:7000").await.unwrap();
    sim::host("server").start(|| async {
        let s = UdpSocket::bind("0.0.0.0:0").await?;
        sleep(Duration::from_millis(10)).await;
        s.send_to(b"during", "main:7000").await?;
        sleep(Duration::from_millis(100)).await;
        s.send_to(b"after", "main:7000").await?;
        Ok::<(), std::io::Error>(())
    });
    sim::partition("main", "server");
    sleep(Duration::from_millis(50)).await;
    sim::heal("main", "server");
    assert_eq!(drain(&rx).await, vec![b"after".to_vec()]);
}

#[sim_rt::test]
async fn ttl_and_broadcast_are_stored() {
    let s = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    assert_eq!(s.ttl().unwrap(), 64);
    s.set_ttl(7).unwrap();
    assert_eq!(s.ttl().unwrap(), 7);
    assert_eq!(s.set_ttl(0).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.set_ttl(256).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(s.ttl().unwrap(), 7);
    s.set_ttl(u32::MAX).unwrap();
    assert_eq!(s.ttl().unwrap(), 64);
    assert!(!s.broadcast().unwrap());
    s.set_broadcast(true).unwrap();
    assert!(s.broadcast().unwrap());
}
