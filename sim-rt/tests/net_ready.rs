//! `ready(Interest)`, `try_io` and `async_io` of the simulated sockets:
//! which `Ready` set each socket state gives (what tokio on Linux reports
//! for the same state), when the futures wait, and how `try_io` and
//! `async_io` call their closure.
//!
//! Streams are loopback pairs on the main host, so a packet takes no time
//! but is still one delivery step: a short `sleep` lets everything in
//! flight arrive.

mod net_support;
mod rt_support;

use std::cell::Cell;
use std::future::{poll_fn, Future};
use std::io::{self, ErrorKind};
use std::net::SocketAddr;
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use net_support::loopback_pair;
use rt_support::{sim as run, sim_with_network as run_with};
use sim_rt::io::{AsyncReadExt, AsyncWriteExt, Interest, Ready};
use sim_rt::net::UdpSocket;
use sim_rt::sim::NetConfig;
use sim_rt::time::{sleep, Instant};

/// Lets every packet in flight on loopback arrive.
async fn settle() {
    sleep(Duration::from_millis(1)).await;
}

/// Polls `future` once: `Some(output)` if it completed.
async fn poll_once<F: Future>(future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    poll_fn(|cx| match future.as_mut().poll(cx) {
        Poll::Ready(out) => Poll::Ready(Some(out)),
        Poll::Pending => Poll::Ready(None),
    })
    .await
}

const ALL_STREAM: Interest = Interest::READABLE
    .add(Interest::WRITABLE)
    .add(Interest::ERROR);

// ----- TcpStream::ready ------------------------------------------------------

#[test]
fn ready_waits_for_the_peer_to_write_then_reports_readable() {
    run(0, async {
        let (client, mut server) = loopback_pair(80).await;
        assert!(poll_once(client.ready(Interest::READABLE)).await.is_none());

        let start = Instant::now();
        let reader = sim_rt::spawn(async move {
            let ready = client.ready(Interest::READABLE).await.unwrap();
            (client, ready)
        });
        sleep(Duration::from_millis(5)).await;
        server.write_all(b"hi").await.unwrap();
        let (client, ready) = reader.await.unwrap();
        assert_eq!(ready, Ready::READABLE);
        assert_eq!(start.elapsed(), Duration::from_millis(5));
        // `ready` consumes nothing: the bytes are still there.
        assert_eq!(
            client.ready(Interest::READABLE).await.unwrap(),
            Ready::READABLE
        );
        let mut buf = [0u8; 8];
        assert_eq!(client.try_read(&mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"hi");
        // Read dry, but as in tokio the readiness stays cached until a
        // read finds nothing; then it is gone.
        assert_eq!(
            client.ready(Interest::READABLE).await.unwrap(),
            Ready::READABLE
        );
        assert_eq!(
            client.try_read(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        assert!(poll_once(client.ready(Interest::READABLE)).await.is_none());
    });
}

#[test]
fn ready_returns_only_the_kinds_asked_for() {
    run(0, async {
        let (client, mut server) = loopback_pair(80).await;
        let both = Interest::READABLE | Interest::WRITABLE;
        assert_eq!(client.ready(both).await.unwrap(), Ready::WRITABLE);
        assert_eq!(
            client.ready(Interest::WRITABLE).await.unwrap(),
            Ready::WRITABLE
        );

        server.write_all(b"x").await.unwrap();
        settle().await;
        assert_eq!(
            client.ready(both).await.unwrap(),
            Ready::READABLE | Ready::WRITABLE
        );
        assert_eq!(
            client.ready(Interest::READABLE).await.unwrap(),
            Ready::READABLE
        );
        assert_eq!(
            client.ready(Interest::WRITABLE).await.unwrap(),
            Ready::WRITABLE
        );
        // No error is pending, and the simulation has no priority data.
        assert!(poll_once(client.ready(Interest::ERROR)).await.is_none());
        assert!(poll_once(client.ready(Interest::PRIORITY)).await.is_none());
    });
}

#[test]
fn read_closed_once_the_peer_closes_even_with_bytes_unread() {
    run(0, async {
        let (client, mut server) = loopback_pair(80).await;
        server.write_all(b"hi").await.unwrap();
        drop(server);
        settle().await;
        assert_eq!(
            client.ready(Interest::READABLE).await.unwrap(),
            Ready::READABLE | Ready::READ_CLOSED
        );
        // Priority interest covers read closed, as in tokio.
        assert_eq!(
            client.ready(Interest::PRIORITY).await.unwrap(),
            Ready::READ_CLOSED
        );
        // The write direction is still open: Linux reports no hang-up.
        assert_eq!(
            client.ready(Interest::WRITABLE).await.unwrap(),
            Ready::WRITABLE
        );

        let mut buf = [0u8; 8];
        assert_eq!(client.try_read(&mut buf).unwrap(), 2);
        assert_eq!(client.try_read(&mut buf).unwrap(), 0);
        assert_eq!(
            client.ready(Interest::READABLE).await.unwrap(),
            Ready::READABLE | Ready::READ_CLOSED
        );
    });
}

#[test]
fn ready_wakes_on_the_peers_fin() {
    run(0, async {
        let (client, server) = loopback_pair(80).await;
        let reader = sim_rt::spawn(async move { client.ready(Interest::READABLE).await });
        sleep(Duration::from_millis(3)).await;
        drop(server);
        assert_eq!(
            reader.await.unwrap().unwrap(),
            Ready::READABLE | Ready::READ_CLOSED
        );
    });
}

#[test]
fn shutdown_alone_is_not_write_closed_both_shut_down_is() {
    run(0, async {
        let (mut client, mut server) = loopback_pair(80).await;
        client.shutdown().await.unwrap();
        settle().await;
        // Writing is shut down: a write fails at once, so the stream is
        // writable, but Linux reports no hang-up for one direction.
        assert_eq!(
            client.ready(Interest::WRITABLE).await.unwrap(),
            Ready::WRITABLE
        );
        assert_eq!(
            client.try_write(b"x").unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
        assert!(poll_once(client.ready(Interest::READABLE)).await.is_none());

        // The server reads end of stream and closes: now both directions
        // of the client are shut down (EPOLLHUP).
        let mut rest = Vec::new();
        assert_eq!(server.read_to_end(&mut rest).await.unwrap(), 0);
        drop(server);
        settle().await;
        assert_eq!(
            client.ready(ALL_STREAM).await.unwrap(),
            Ready::READABLE | Ready::WRITABLE | Ready::READ_CLOSED | Ready::WRITE_CLOSED
        );
    });
}

#[test]
fn a_reset_makes_the_stream_closed_both_ways_with_an_error_until_reported() {
    run(0, async {
        let (client, server) = loopback_pair(80).await;
        server.set_zero_linger().unwrap();
        drop(server);
        settle().await;
        assert_eq!(
            client.ready(ALL_STREAM).await.unwrap(),
            Ready::READABLE
                | Ready::WRITABLE
                | Ready::READ_CLOSED
                | Ready::WRITE_CLOSED
                | Ready::ERROR
        );
        assert_eq!(client.ready(Interest::ERROR).await.unwrap(), Ready::ERROR);

        let mut buf = [0u8; 8];
        assert_eq!(
            client.try_read(&mut buf).unwrap_err().kind(),
            ErrorKind::ConnectionReset
        );
        // Reported once: no error pending any more, still closed.
        assert!(poll_once(client.ready(Interest::ERROR)).await.is_none());
        assert_eq!(
            client.ready(ALL_STREAM).await.unwrap(),
            Ready::READABLE | Ready::WRITABLE | Ready::READ_CLOSED | Ready::WRITE_CLOSED
        );
    });
}

#[test]
fn write_closed_after_writing_to_a_closed_peer() {
    // tokio's own `write_closed` test: the first write after the peer
    // closed succeeds, the peer's kernel answers with RST.
    run(0, async {
        let (mut client, server) = loopback_pair(80).await;
        drop(server);
        settle().await;
        assert_eq!(
            client.ready(Interest::WRITABLE).await.unwrap(),
            Ready::WRITABLE
        );
        client.write_all(b"ping").await.unwrap();
        settle().await;
        assert_eq!(
            client.ready(Interest::WRITABLE).await.unwrap(),
            Ready::WRITABLE | Ready::WRITE_CLOSED
        );
    });
}

#[test]
fn ready_waits_for_send_buffer_space() {
    let config = NetConfig {
        mss: 4,
        send_buffer: 8,
        recv_buffer: 8,
        ..NetConfig::default()
    };
    run_with(config, async {
        let (client, mut server) = loopback_pair(80).await;
        // Fill the send buffer and the peer's receive buffer (the reader
        // does not read), letting in-flight bytes land between attempts.
        let mut total = 0;
        loop {
            match client.try_write(&[7u8; 20]) {
                Ok(n) => total += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    settle().await;
                    match client.try_write(&[7u8; 20]) {
                        Ok(n) => total += n,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) => panic!("{e}"),
                    }
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(total, 16);
        assert!(poll_once(client.ready(Interest::WRITABLE)).await.is_none());
        let writer = sim_rt::spawn(async move { client.ready(Interest::WRITABLE).await });
        let mut buf = [0u8; 8];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(writer.await.unwrap().unwrap(), Ready::WRITABLE);
    });
}

#[test]
fn the_halves_report_the_streams_readiness() {
    run(0, async {
        let (mut client, mut server) = loopback_pair(80).await;
        server.write_all(b"x").await.unwrap();
        settle().await;
        {
            let (r, w) = client.split();
            assert_eq!(r.ready(Interest::READABLE).await.unwrap(), Ready::READABLE);
            assert_eq!(w.ready(Interest::WRITABLE).await.unwrap(), Ready::WRITABLE);
        }
        let (r, w) = client.into_split();
        assert_eq!(
            r.ready(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap(),
            Ready::READABLE | Ready::WRITABLE
        );
        assert_eq!(w.ready(Interest::WRITABLE).await.unwrap(), Ready::WRITABLE);
        drop(server);
        settle().await;
        assert_eq!(
            r.ready(Interest::READABLE).await.unwrap(),
            Ready::READABLE | Ready::READ_CLOSED
        );
    });
}

// ----- TcpStream::try_io -----------------------------------------------------

#[test]
fn try_io_calls_f_only_when_ready() {
    run(0, async {
        let (client, mut server) = loopback_pair(80).await;
        let calls = Cell::new(0);
        let mut buf = [0u8; 8];
        let early = client.try_io(Interest::READABLE, || {
            calls.set(calls.get() + 1);
            client.try_read(&mut buf)
        });
        assert_eq!(early.unwrap_err().kind(), ErrorKind::WouldBlock);
        assert_eq!(calls.get(), 0);

        server.write_all(b"hello").await.unwrap();
        client.readable().await.unwrap();
        let n = client
            .try_io(Interest::READABLE, || {
                calls.set(calls.get() + 1);
                client.try_read(&mut buf)
            })
            .unwrap();
        assert_eq!(&buf[..n], b"hello");
        assert_eq!(calls.get(), 1);

        // Read dry: still ready as tokio caches it, so f is called, finds
        // nothing, and that clears the readiness: the next f is not called.
        for expected_calls in [2, 2] {
            let dry = client.try_io(Interest::READABLE, || {
                calls.set(calls.get() + 1);
                client.try_read(&mut buf)
            });
            assert_eq!(dry.unwrap_err().kind(), ErrorKind::WouldBlock);
            assert_eq!(calls.get(), expected_calls);
        }

        // Writable interest with a write inside.
        let n = client
            .try_io(Interest::WRITABLE, || client.try_write(b"back"))
            .unwrap();
        assert_eq!(n, 4);
        let mut got = [0u8; 4];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"back");
    });
}

#[test]
fn try_io_returns_a_plain_would_block_and_fs_other_errors() {
    run(0, async {
        let (client, _server) = loopback_pair(80).await;
        // Ready for writing, but f says it would block: tokio returns a
        // fresh `WouldBlock` error, not f's.
        let e = client
            .try_io(Interest::WRITABLE, || -> io::Result<()> {
                Err(io::Error::new(ErrorKind::WouldBlock, "f's own message"))
            })
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WouldBlock);
        assert_eq!(e.to_string(), "operation would block");
        assert!(e.get_ref().is_none());

        let e = client
            .try_io(Interest::WRITABLE, || -> io::Result<()> {
                Err(io::Error::other("f failed"))
            })
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Other);
        assert_eq!(e.to_string(), "f failed");
        // The readiness is the state: still writable afterwards.
        assert_eq!(
            client.ready(Interest::WRITABLE).await.unwrap(),
            Ready::WRITABLE
        );
    });
}

// ----- TcpStream::async_io ---------------------------------------------------

#[test]
fn async_io_waits_then_calls_f() {
    run(0, async {
        let (client, mut server) = loopback_pair(80).await;
        let start = Instant::now();
        sim_rt::spawn(async move {
            sleep(Duration::from_millis(7)).await;
            server.write_all(b"late").await.unwrap();
            server
        });
        let mut calls = 0;
        let mut buf = [0u8; 8];
        let n = client
            .async_io(Interest::READABLE, || {
                calls += 1;
                client.try_read(&mut buf)
            })
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"late");
        assert_eq!(calls, 1);
        assert_eq!(start.elapsed(), Duration::from_millis(7));
    });
}

#[test]
fn async_io_loops_while_f_would_block() {
    run(0, async {
        let (client, mut server) = loopback_pair(80).await;
        server.write_all(b"abc").await.unwrap();
        settle().await;
        // f takes one byte per call and claims it would block until it has
        // all three: async_io keeps calling it while the stream is ready.
        let mut got = Vec::new();
        let mut calls = 0;
        let total = client
            .async_io(Interest::READABLE, || {
                calls += 1;
                let mut one = [0u8; 1];
                let n = client.try_read(&mut one)?;
                got.extend_from_slice(&one[..n]);
                if got.len() < 3 {
                    Err(ErrorKind::WouldBlock.into())
                } else {
                    Ok(got.len())
                }
            })
            .await
            .unwrap();
        assert_eq!(total, 3);
        assert_eq!(got, b"abc");
        assert_eq!(calls, 3);
    });
}

#[test]
fn async_io_waits_again_after_the_readiness_is_consumed() {
    run(0, async {
        let (client, mut server) = loopback_pair(80).await;
        let start = Instant::now();
        server.write_all(b"1").await.unwrap();
        sim_rt::spawn(async move {
            sleep(Duration::from_millis(4)).await;
            server.write_all(b"2").await.unwrap();
            server
        });
        // f wants two bytes. After the first call took "1" and returned
        // WouldBlock, the stream is no longer readable, so async_io waits
        // (without calling f) until the second byte arrives, as tokio does
        // after clearing the readiness.
        let mut got = Vec::new();
        let mut calls = 0;
        client
            .async_io(Interest::READABLE, || {
                calls += 1;
                let mut one = [0u8; 1];
                let n = client.try_read(&mut one)?;
                got.extend_from_slice(&one[..n]);
                if got.len() < 2 {
                    Err(ErrorKind::WouldBlock.into())
                } else {
                    Ok(())
                }
            })
            .await
            .unwrap();
        assert_eq!(got, b"12");
        assert_eq!(calls, 2);
        assert_eq!(start.elapsed(), Duration::from_millis(4));
    });
}

#[test]
fn async_io_returns_fs_first_error() {
    run(0, async {
        let (client, server) = loopback_pair(80).await;
        server.set_zero_linger().unwrap();
        drop(server);
        let mut buf = [0u8; 4];
        let e = client
            .async_io(Interest::READABLE, || client.try_read(&mut buf))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ConnectionReset);
    });
}

// ----- UdpSocket -------------------------------------------------------------

#[test]
fn udp_ready_is_writable_and_readable_while_a_datagram_is_queued() {
    run(0, async {
        let a = UdpSocket::bind("127.0.0.1:7000").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:7001").await.unwrap();
        let both = Interest::READABLE | Interest::WRITABLE;
        assert_eq!(a.ready(both).await.unwrap(), Ready::WRITABLE);
        assert!(poll_once(a.ready(Interest::READABLE)).await.is_none());

        b.send_to(b"ping", "127.0.0.1:7000").await.unwrap();
        assert_eq!(a.ready(Interest::READABLE).await.unwrap(), Ready::READABLE);
        assert_eq!(
            a.ready(both).await.unwrap(),
            Ready::READABLE | Ready::WRITABLE
        );

        let mut buf = [0u8; 8];
        let (n, from) = a
            .try_io(Interest::READABLE, || a.try_recv_from(&mut buf))
            .unwrap();
        assert_eq!(&buf[..n], b"ping");
        assert_eq!(from, "127.0.0.1:7001".parse::<SocketAddr>().unwrap());
        let dry = a.try_io(Interest::READABLE, || a.try_recv_from(&mut buf));
        assert_eq!(dry.unwrap_err().kind(), ErrorKind::WouldBlock);
        assert!(poll_once(a.ready(Interest::READABLE)).await.is_none());
    });
}

#[test]
fn udp_async_io_waits_for_a_datagram() {
    run(0, async {
        let a = UdpSocket::bind("127.0.0.1:7000").await.unwrap();
        let start = Instant::now();
        sim_rt::spawn(async move {
            let b = UdpSocket::bind("127.0.0.1:7001").await.unwrap();
            sleep(Duration::from_millis(6)).await;
            b.send_to(b"pong", "127.0.0.1:7000").await.unwrap();
        });
        let mut buf = [0u8; 8];
        let mut calls = 0;
        let n = a
            .async_io(Interest::READABLE, || {
                calls += 1;
                a.try_recv(&mut buf)
            })
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"pong");
        assert_eq!(calls, 1);
        assert_eq!(start.elapsed(), Duration::from_millis(6));
        let sent = a
            .async_io(Interest::WRITABLE, || {
                a.try_send_to(b"x", "127.0.0.1:7001".parse().unwrap())
            })
            .await
            .unwrap();
        assert_eq!(sent, 1);
    });
}

/// tokio's cached readiness: an accepted stream starts out readable and
/// writable (tokio 1.54), a readiness stays after an operation used it
/// up, and only an operation that finds it would block clears it.
#[test]
fn readiness_stays_until_an_operation_would_block() {
    run_with(
        NetConfig {
            send_buffer: 16,
            ..NetConfig::default()
        },
        async {
            let (client, server) = loopback_pair(80).await;
            // Accepted, nothing sent yet: assumed readable.
            assert!(poll_once(server.readable()).await.is_some());
            let mut buf = [0u8; 64];
            assert_eq!(
                server.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            assert!(poll_once(server.readable()).await.is_none());
            assert!(poll_fn(|cx| Poll::Ready(server.poll_read_ready(cx)))
                .await
                .is_pending());

            // Fill the send buffer: still writable after the write that
            // filled it, until a write would block.
            assert_eq!(client.try_write(&[1; 16]).unwrap(), 16);
            assert!(poll_once(client.writable()).await.is_some());
            assert_eq!(
                client.try_write(&[1]).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            assert!(poll_once(client.writable()).await.is_none());
            assert!(poll_once(client.ready(Interest::WRITABLE)).await.is_none());
        },
    );
}
