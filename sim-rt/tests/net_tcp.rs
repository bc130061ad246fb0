//! Simulated `tokio::net` TCP through its public API: `TcpListener`,
//! `TcpStream`, the borrowed and owned halves. Each test asserts what a
//! program on Linux under tokio would observe: addresses, bytes, end of
//! stream, and the `io::ErrorKind` of every failure.
//!
//! The test future runs on host "main" (10.255.255.254); the first host created
//! is "server" (10.0.0.1). Between hosts a packet takes 1 to 10 ms; on
//! loopback it takes no time. Ephemeral TCP ports of a host count up from
//! 49152, shared by port-0 listeners and outgoing connections.

mod rt_support;

mod net_support;

use std::future::{poll_fn, Future};
use std::io::{self, ErrorKind, IoSlice, IoSliceMut};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use net_support::{addr, loopback_pair, start_echo_server};
use rt_support::{sim as run, sim_with_network as run_with};
use sim_rt::io::{AsyncReadExt, AsyncWriteExt, ReadBuf};
use sim_rt::net::tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::sim::{self, NetConfig};
use sim_rt::sync::mpsc;
use sim_rt::time::{sleep, timeout, Instant};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// "server" (10.0.0.1): accepts one connection on port 80 and sends it,
/// with its peer address, to the test.
fn start_accept_one() -> mpsc::UnboundedReceiver<(TcpStream, SocketAddr)> {
    let (tx, rx) = mpsc::unbounded_channel();
    sim::host("server").start(move || {
        let tx = tx.clone();
        async move {
            let listener = TcpListener::bind("0.0.0.0:80").await?;
            let accepted = listener.accept().await?;
            tx.send(accepted)
                .expect("the test waits for the connection");
            Ok::<(), io::Error>(())
        }
    });
    rx
}

// ----- connect, accept, addresses --------------------------------------------

#[test]
fn connect_and_accept_agree_on_addresses() {
    run(1, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        assert_eq!(client.local_addr().unwrap(), addr("10.255.255.254:49152"));
        assert_eq!(client.peer_addr().unwrap(), addr("10.0.0.1:80"));

        let (mut server, peer) = accepted.recv().await.unwrap();
        assert_eq!(peer, addr("10.255.255.254:49152"));
        assert_eq!(server.peer_addr().unwrap(), peer);
        // Bound to the wildcard, the connection takes the address it was
        // reached at.
        assert_eq!(server.local_addr().unwrap(), addr("10.0.0.1:80"));

        client.write_all(b"ping").await.unwrap();
        let mut buf = [0u8; 4];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
        server.write_all(b"pong").await.unwrap();
        client.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"pong");
    });
}

#[test]
fn every_address_form_connects() {
    run(2, async {
        start_echo_server(7);
        let server_ip: IpAddr = "10.0.0.1".parse().unwrap();
        let slice = [addr("10.0.0.1:7")];
        let streams = vec![
            TcpStream::connect("server:7").await.unwrap(),
            TcpStream::connect(("server", 7)).await.unwrap(),
            TcpStream::connect(String::from("server:7")).await.unwrap(),
            TcpStream::connect((String::from("server"), 7))
                .await
                .unwrap(),
            TcpStream::connect(addr("10.0.0.1:7")).await.unwrap(),
            TcpStream::connect((server_ip, 7)).await.unwrap(),
            TcpStream::connect((Ipv4Addr::new(10, 0, 0, 1), 7))
                .await
                .unwrap(),
            TcpStream::connect(&slice[..]).await.unwrap(),
            TcpStream::connect(&"10.0.0.1:7").await.unwrap(),
        ];
        // Each connection got the next ephemeral port.
        let ports: Vec<u16> = streams
            .iter()
            .map(|s| s.local_addr().unwrap().port())
            .collect();
        assert_eq!(ports, (49152..49161).collect::<Vec<u16>>());
        for mut s in streams {
            assert_eq!(s.peer_addr().unwrap(), addr("10.0.0.1:7"));
            s.write_all(b"x").await.unwrap();
            assert_eq!(s.read_u8().await.unwrap(), b'x');
        }
    });
}

#[test]
fn connect_tries_each_address_until_one_succeeds() {
    run(3, async {
        start_echo_server(7);
        // Nothing listens on port 8: refused, then the next address is tried.
        let addrs = [addr("10.0.0.1:8"), addr("10.0.0.1:7")];
        let s = TcpStream::connect(&addrs[..]).await.unwrap();
        assert_eq!(s.peer_addr().unwrap(), addr("10.0.0.1:7"));

        let none: [SocketAddr; 0] = [];
        let err = TcpStream::connect(&none[..]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "could not resolve to any address");
    });
}

#[test]
fn connect_is_refused_where_nothing_listens() {
    run(4, async {
        let (tx, mut rx) = mpsc::unbounded_channel();
        sim::host("server").start(move || {
            let tx = tx.clone();
            async move {
                let listener = TcpListener::bind("0.0.0.0:80").await?;
                let _ = listener.accept().await?;
                drop(listener);
                tx.send(()).unwrap();
                Ok::<(), io::Error>(())
            }
        });
        let kind = |r: io::Result<TcpStream>| r.unwrap_err().kind();
        assert_eq!(
            kind(TcpStream::connect("server:81").await),
            ErrorKind::ConnectionRefused
        );
        // No host owns the address.
        assert_eq!(
            kind(TcpStream::connect("10.0.0.99:80").await),
            ErrorKind::ConnectionRefused
        );
        // A DNS miss.
        let err = TcpStream::connect("nowhere:80").await.unwrap_err();
        assert!(err.to_string().contains("nowhere"), "{err}");

        let _first = TcpStream::connect("server:80").await.unwrap();
        rx.recv().await.unwrap();
        // The listener is gone: refused again.
        assert_eq!(
            kind(TcpStream::connect("server:80").await),
            ErrorKind::ConnectionRefused
        );
    });
}

#[test]
fn a_full_backlog_refuses_connections() {
    let config = NetConfig {
        backlog: 1,
        ..NetConfig::default()
    };
    run_with(config, async {
        sim::host("server").start(|| async {
            // Listens, never accepts.
            let _listener = TcpListener::bind("0.0.0.0:80").await?;
            std::future::pending::<()>().await;
            Ok::<(), io::Error>(())
        });
        let _queued = TcpStream::connect("server:80").await.unwrap();
        let err = TcpStream::connect("server:80").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
    });
}

#[test]
fn dropping_a_connect_in_progress_resets_the_accepted_side() {
    run(5, async {
        let listener = TcpListener::bind("0.0.0.0:80").await.unwrap();
        sim::host("client").start(|| async {
            // Send the SYN, then give up before the SYN-ACK can arrive.
            let mut connect = pin!(TcpStream::connect("main:80"));
            poll_fn(|cx| {
                assert!(connect.as_mut().poll(cx).is_pending());
                Poll::Ready(())
            })
            .await;
        });
        // The kernel queued the connection on the SYN; the client's kernel
        // answers the SYN-ACK with RST since its socket is gone.
        let (mut s, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, addr("10.0.0.1:49152"));
        let err = s.read(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    });
}

// ----- bind, ports -----------------------------------------------------------

#[test]
fn bind_reports_addr_in_use_until_the_listener_is_dropped() {
    run(6, async {
        let first = TcpListener::bind("0.0.0.0:80").await.unwrap();
        assert_eq!(first.local_addr().unwrap(), addr("0.0.0.0:80"));
        for taken in ["0.0.0.0:80", "10.255.255.254:80", "127.0.0.1:80"] {
            let err = TcpListener::bind(taken).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AddrInUse, "{taken}");
        }
        // Another port is free; an address the host does not own is not.
        let _other = TcpListener::bind("10.255.255.254:81").await.unwrap();
        let err = TcpListener::bind("10.0.0.9:82").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrNotAvailable);

        drop(first);
        let again = TcpListener::bind("10.255.255.254:80").await.unwrap();
        assert_eq!(again.local_addr().unwrap(), addr("10.255.255.254:80"));
    });
}

#[test]
fn bind_tries_each_address_and_reports_the_last_error() {
    run(7, async {
        let _held = TcpListener::bind("0.0.0.0:80").await.unwrap();
        let in_use = addr("10.255.255.254:80");
        let not_mine = addr("10.0.0.9:80");
        let free = addr("10.255.255.254:81");

        let l = TcpListener::bind(&[in_use, not_mine, free][..])
            .await
            .unwrap();
        assert_eq!(l.local_addr().unwrap(), free);

        let err = TcpListener::bind(&[in_use, not_mine][..])
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrNotAvailable);
        let err = TcpListener::bind(&[not_mine, in_use][..])
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse);

        let err = TcpListener::bind("nowhere:80").await.unwrap_err();
        assert!(err.to_string().contains("nowhere"), "{err}");
    });
}

#[test]
fn port_zero_binds_the_next_ephemeral_port() {
    run(8, async {
        let a = TcpListener::bind("0.0.0.0:0").await.unwrap();
        let b = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        assert_eq!(a.local_addr().unwrap(), addr("0.0.0.0:49152"));
        assert_eq!(b.local_addr().unwrap(), addr("127.0.0.1:49153"));
        // Connect to the ephemeral port it got; the connection takes the
        // next ephemeral port for itself.
        let port = b.local_addr().unwrap().port();
        let c = TcpStream::connect(("localhost", port)).await.unwrap();
        assert_eq!(c.local_addr().unwrap(), addr("127.0.0.1:49154"));
        assert_eq!(c.peer_addr().unwrap(), addr("127.0.0.1:49153"));
        let (s, _) = b.accept().await.unwrap();
        assert_eq!(s.local_addr().unwrap(), addr("127.0.0.1:49153"));
    });
}

#[test]
fn a_port_held_only_by_connections_can_be_bound_again() {
    run(9, async {
        let (mut client, mut old) = loopback_pair(7000).await;
        // Rebinding while the accepted connection lives on, as a restarted
        // server does (tokio sets SO_REUSEADDR).
        let listener = TcpListener::bind("0.0.0.0:7000").await.unwrap();
        client.write_all(b"old").await.unwrap();
        let mut buf = [0u8; 3];
        old.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"old");
        let _new = TcpStream::connect("localhost:7000").await.unwrap();
        let (_, peer) = listener.accept().await.unwrap();
        assert_eq!(peer.ip(), IpAddr::from(Ipv4Addr::LOCALHOST));
    });
}

#[test]
fn dropping_a_listener_resets_connections_never_accepted() {
    run(10, async {
        let (tx, mut rx) = mpsc::unbounded_channel::<()>();
        sim::host("server").start(move || {
            let tx = tx.clone();
            async move {
                let listener = TcpListener::bind("0.0.0.0:80").await?;
                tx.send(()).unwrap();
                // Never accepts; closes the listener after 100 ms.
                sleep(ms(100)).await;
                drop(listener);
                Ok::<(), io::Error>(())
            }
        });
        rx.recv().await.unwrap();
        // The kernel completes the handshake without an accept.
        let mut s = TcpStream::connect("server:80").await.unwrap();
        assert!(sim::elapsed() < ms(100));
        let err = s.read(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        assert!(sim::elapsed() > ms(100));
        // The reset is reported once; then the stream is at its end.
        assert_eq!(s.read(&mut [0u8; 1]).await.unwrap(), 0);
        assert_eq!(
            s.write(b"x").await.unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
        assert_eq!(s.peer_addr().unwrap_err().kind(), ErrorKind::NotConnected);
    });
}

// ----- accept ----------------------------------------------------------------

#[test]
fn accept_is_cancel_safe() {
    run(11, async {
        let listener = TcpListener::bind("0.0.0.0:80").await.unwrap();
        // An accept that waited and lost a select took nothing, and the
        // connection that arrives later is not lost.
        sim_rt::select! {
            _ = listener.accept() => panic!("nobody connected yet"),
            _ = sleep(ms(5)) => {}
        }
        let client = TcpStream::connect("localhost:80").await.unwrap();
        let (_, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
    });
}

#[test]
fn a_waiting_accept_is_polled_exactly_twice() {
    run(12, async {
        let listener = TcpListener::bind("0.0.0.0:80").await.unwrap();
        sim::host("client").start(|| async {
            sleep(ms(50)).await;
            TcpStream::connect("main:80").await.map(drop)
        });
        let mut polls = 0;
        let mut accept = pin!(listener.accept());
        let (_, peer) = poll_fn(|cx| {
            polls += 1;
            accept.as_mut().poll(cx)
        })
        .await
        .unwrap();
        // Pending, then woken once by the one connection's arrival.
        assert_eq!(polls, 2);
        assert_eq!(peer, addr("10.0.0.1:49152"));
    });
}

#[test]
fn poll_accept_works_from_poll_fn() {
    run(13, async {
        let listener = TcpListener::bind("0.0.0.0:80").await.unwrap();
        let waker_check = poll_fn(|cx| Poll::Ready(listener.poll_accept(cx).is_pending())).await;
        assert!(waker_check);
        let client = TcpStream::connect("localhost:80").await.unwrap();
        let (s, peer) = poll_fn(|cx| listener.poll_accept(cx)).await.unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        assert_eq!(s.peer_addr().unwrap(), peer);
    });
}

// ----- reading, writing, end of stream ---------------------------------------

#[test]
fn shutdown_half_closes_the_write_direction() {
    run(14, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        client.write_all(b"request").await.unwrap();
        client.shutdown().await.unwrap();
        // Idempotent; writing after it is a broken pipe.
        client.shutdown().await.unwrap();
        assert_eq!(
            client.write(b"more").await.unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );

        let (mut server, _) = accepted.recv().await.unwrap();
        let mut request = Vec::new();
        server.read_to_end(&mut request).await.unwrap();
        assert_eq!(request, b"request");
        // End of stream stays the answer.
        assert_eq!(server.read(&mut [0u8; 4]).await.unwrap(), 0);
        // The other direction still works.
        server.write_all(b"response").await.unwrap();
        drop(server);

        let mut response = Vec::new();
        client.read_to_end(&mut response).await.unwrap();
        assert_eq!(response, b"response");
    });
}

#[test]
fn dropping_a_stream_delivers_its_bytes_then_end_of_stream() {
    run(15, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        // More than the send buffer (64 KiB): write_all waits for space.
        let data: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
        let (mut server, _) = accepted.recv().await.unwrap();
        let reader = sim_rt::spawn(async move {
            let mut got = Vec::new();
            server.read_to_end(&mut got).await.map(|_| got)
        });
        client.write_all(&data).await.unwrap();
        client.flush().await.unwrap();
        drop(client);
        assert_eq!(reader.await.unwrap().unwrap(), data);
    });
}

#[test]
fn dropping_a_stream_with_unread_bytes_resets_the_peer() {
    run(16, async {
        let mut accepted = start_accept_one();
        let client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        server.write_all(b"unread").await.unwrap();
        client.readable().await.unwrap();
        drop(client);
        let err = server.read(&mut [0u8; 8]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    });
}

#[test]
fn a_pending_read_is_polled_exactly_twice() {
    run(17, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        sim_rt::spawn(async move {
            sleep(ms(100)).await;
            server.write_all(b"late").await.unwrap();
            server
        });
        let start = Instant::now();
        let mut buf = [0u8; 8];
        let mut polls = 0;
        let n = {
            let mut read = pin!(client.read(&mut buf));
            poll_fn(|cx| {
                polls += 1;
                read.as_mut().poll(cx)
            })
            .await
            .unwrap()
        };
        assert_eq!(&buf[..n], b"late");
        // Pending, then woken once by the segment's arrival.
        assert_eq!(polls, 2);
        assert!(start.elapsed() > ms(100), "{:?}", start.elapsed());
    });
}

#[test]
fn reads_into_a_full_buffer_return_at_once() {
    run(18, async {
        let (mut client, _server) = loopback_pair(80).await;
        assert_eq!(client.read(&mut []).await.unwrap(), 0);
        let mut storage = [0u8; 2];
        let mut full = ReadBuf::new(&mut storage);
        full.advance(2);
        let n = poll_fn(|cx| client.poll_peek(cx, &mut full)).await.unwrap();
        assert_eq!(n, 0);
    });
}

#[test]
fn written_bytes_arrive_in_order_across_many_segments() {
    let config = NetConfig {
        mss: 7,
        send_buffer: 50,
        recv_buffer: 30,
        ..NetConfig::default()
    };
    run_with(config, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let expected = data.clone();
        let writer = sim_rt::spawn(async move {
            client.write_all(&data).await?;
            client.shutdown().await
        });
        let mut got = Vec::new();
        // Small reads, so the window opens a little at a time.
        let mut buf = [0u8; 13];
        loop {
            let n = server.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, expected);
        writer.await.unwrap().unwrap();
    });
}

// ----- peek ------------------------------------------------------------------

#[test]
fn peek_leaves_bytes_for_the_next_read() {
    run(19, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        sim_rt::spawn(async move {
            sleep(ms(20)).await;
            server.write_all(b"hello").await.unwrap();
            server.shutdown().await.unwrap();
            server
        });
        // Waits for the bytes.
        let mut small = [0u8; 3];
        assert_eq!(client.peek(&mut small).await.unwrap(), 3);
        assert_eq!(&small, b"hel");
        assert_eq!(client.peek(&mut small).await.unwrap(), 3);
        assert_eq!(&small, b"hel");

        let mut storage = [0u8; 8];
        let mut buf = ReadBuf::new(&mut storage);
        let n = poll_fn(|cx| client.poll_peek(cx, &mut buf)).await.unwrap();
        assert_eq!(n, 5);
        assert_eq!(buf.filled(), b"hello");

        let mut all = [0u8; 16];
        assert_eq!(client.read(&mut all).await.unwrap(), 5);
        assert_eq!(&all[..5], b"hello");
        // At end of stream, peek returns 0.
        assert_eq!(client.peek(&mut small).await.unwrap(), 0);
    });
}

#[test]
fn peek_reports_a_reset_without_consuming_it() {
    run(20, async {
        let (mut client, server) = loopback_pair(80).await;
        server.set_zero_linger().unwrap();
        drop(server);
        let mut buf = [0u8; 4];
        for _ in 0..2 {
            let err = client.peek(&mut buf).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        }
        let err = client.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        assert_eq!(client.read(&mut buf).await.unwrap(), 0);
    });
}

// ----- try_*, readable, writable ---------------------------------------------

#[test]
fn try_read_and_try_write_never_wait() {
    run(21, async {
        let mut accepted = start_accept_one();
        let client = TcpStream::connect("server:80").await.unwrap();
        let (server, _) = accepted.recv().await.unwrap();

        let mut buf = [0u8; 8];
        assert_eq!(
            client.try_read(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        // A fresh stream is writable at once.
        let t = Instant::now();
        client.writable().await.unwrap();
        assert_eq!(t.elapsed(), Duration::ZERO);
        assert_eq!(client.try_write(b"abc").unwrap(), 3);

        // An accepted stream starts out assumed readable (as tokio's): the
        // first `readable` returns at once, possibly before the bytes are
        // there; tokio's pattern retries on `WouldBlock`.
        let n = loop {
            server.readable().await.unwrap();
            match server.try_read(&mut buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                r => break r.unwrap(),
            }
        };
        assert_eq!(n, 3);
        assert_eq!(&buf[..3], b"abc");
        assert_eq!(
            server.try_read(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );

        // Vectored: the buffers are written as one, and read filling each
        // in turn.
        let n = server
            .try_write_vectored(&[
                IoSlice::new(b"vec"),
                IoSlice::new(b""),
                IoSlice::new(b"tor"),
            ])
            .unwrap();
        assert_eq!(n, 6);
        // `readable` may return at once (the readiness of the last read is
        // still cached, as in tokio); `peek` waits for the bytes.
        client.peek(&mut [0; 1]).await.unwrap();
        let (mut a, mut b) = ([0u8; 2], [0u8; 10]);
        let n = client
            .try_read_vectored(&mut [IoSliceMut::new(&mut a), IoSliceMut::new(&mut b)])
            .unwrap();
        assert_eq!(n, 6);
        assert_eq!(&a, b"ve");
        assert_eq!(&b[..4], b"ctor");

        // try_read_buf reads what the buffer's current chunk holds.
        server.try_write(b"buf!").unwrap();
        client.peek(&mut [0; 1]).await.unwrap();
        let mut storage = [0u8; 2];
        let mut slice = &mut storage[..];
        assert_eq!(client.try_read_buf(&mut slice).unwrap(), 2);
        assert!(slice.is_empty(), "the slice's cursor advanced");
        assert_eq!(&storage, b"bu");
        let mut v = b"x".to_vec();
        assert_eq!(client.try_read_buf(&mut v).unwrap(), 2);
        assert_eq!(v, b"xf!");
        assert_eq!(
            client.try_read_buf(&mut v).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );

        // End of stream: readable, and try_read returns 0.
        drop(server);
        assert_eq!(client.peek(&mut buf).await.unwrap(), 0);
        client.readable().await.unwrap();
        assert_eq!(client.try_read(&mut buf).unwrap(), 0);
    });
}

#[test]
fn readable_waits_and_is_polled_exactly_twice() {
    run(22, async {
        let mut accepted = start_accept_one();
        let client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        sim_rt::spawn(async move {
            sleep(ms(30)).await;
            server.write_all(b"!").await.unwrap();
            server
        });
        let mut polls = 0;
        {
            let mut readable = pin!(client.readable());
            poll_fn(|cx| {
                polls += 1;
                readable.as_mut().poll(cx)
            })
            .await
            .unwrap();
        }
        assert_eq!(polls, 2);
        // Readiness is not consumed by waiting for it.
        client.readable().await.unwrap();
        assert_eq!(client.try_read(&mut [0u8; 4]).unwrap(), 1);
    });
}

/// Writes with `try_write` until the stream stays unwritable for a second;
/// returns how many bytes it took.
async fn fill(stream: &TcpStream) -> usize {
    let mut total = 0;
    loop {
        match stream.try_write(&[7u8; 20]) {
            Ok(n) => total += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if timeout(Duration::from_secs(1), stream.writable())
                    .await
                    .is_err()
                {
                    return total;
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn writable_waits_for_send_buffer_space() {
    let config = NetConfig {
        mss: 4,
        send_buffer: 8,
        recv_buffer: 8,
        ..NetConfig::default()
    };
    run_with(config, async {
        let mut accepted = start_accept_one();
        let client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();

        // The reader never reads: the writer can place its send buffer and
        // the reader's receive buffer, then stalls.
        let total = fill(&client).await;
        assert_eq!(total, 16);

        // Reading frees window; the waiting bytes go out, and when they
        // arrive the writer has room again.
        let mut buf = [0u8; 8];
        server.read_exact(&mut buf).await.unwrap();
        let mut polls = 0;
        {
            let mut writable = pin!(client.writable());
            poll_fn(|cx| {
                polls += 1;
                writable.as_mut().poll(cx)
            })
            .await
            .unwrap();
        }
        assert_eq!(polls, 2);
        // The reader's buffer is full again with those 8 bytes: the writer
        // can place exactly its send buffer.
        let total = fill(&client).await;
        assert_eq!(total, 8);
    });
}

#[test]
fn write_vectored_writes_the_buffers_in_order() {
    run(23, async {
        let (mut client, mut server) = loopback_pair(80).await;
        let bufs = [IoSlice::new(b"one "), IoSlice::new(b"two")];
        assert_eq!(client.write_vectored(&bufs).await.unwrap(), 7);
        let mut buf = [0u8; 7];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"one two");
    });
}

// ----- split, into_split, reunite --------------------------------------------

#[test]
fn split_halves_read_and_write_concurrently() {
    run(24, async {
        start_echo_server(7);
        let mut stream = TcpStream::connect("server:7").await.unwrap();
        let local = stream.local_addr().unwrap();
        let (mut rd, mut wr): (ReadHalf<'_>, WriteHalf<'_>) = stream.split();
        assert_eq!(rd.local_addr().unwrap(), local);
        assert_eq!(wr.local_addr().unwrap(), local);
        assert_eq!(rd.peer_addr().unwrap(), addr("10.0.0.1:7"));
        assert_eq!(wr.peer_addr().unwrap(), addr("10.0.0.1:7"));
        let as_stream: &TcpStream = rd.as_ref();
        assert_eq!(as_stream.local_addr().unwrap(), local);

        let write = async {
            wr.writable().await?;
            assert_eq!(wr.try_write(b"a")?, 1);
            for msg in [&b"bc"[..], b"def"] {
                wr.write_all(msg).await?;
                sleep(ms(20)).await;
            }
            // Half-close: the echo server sees end of stream and closes.
            wr.shutdown().await
        };
        let read = async {
            let mut first = [0u8; 1];
            assert_eq!(rd.peek(&mut first).await?, 1);
            rd.readable().await?;
            let mut all = Vec::new();
            rd.read_to_end(&mut all).await?;
            Ok::<_, io::Error>(all)
        };
        let (w, r) = sim_rt::join!(write, read);
        w.unwrap();
        assert_eq!(r.unwrap(), b"abcdef");
        // The halves are gone; the stream is whole again.
        assert_eq!(stream.read(&mut [0u8; 1]).await.unwrap(), 0);
    });
}

#[test]
fn owned_halves_move_into_tasks_and_reunite() {
    run(25, async {
        start_echo_server(7);
        let stream = TcpStream::connect("server:7").await.unwrap();
        let local = stream.local_addr().unwrap();
        let (mut rd, mut wr): (OwnedReadHalf, OwnedWriteHalf) = stream.into_split();
        assert_eq!(rd.local_addr().unwrap(), local);
        assert_eq!(wr.peer_addr().unwrap(), addr("10.0.0.1:7"));

        let writer = sim_rt::spawn(async move {
            wr.writable().await?;
            wr.try_write(b"owned")?;
            wr.write_all(b" halves").await?;
            Ok::<_, io::Error>(wr)
        });
        let mut buf = [0u8; 12];
        assert_eq!(rd.peek(&mut buf[..1]).await.unwrap(), 1);
        rd.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"owned halves");
        let wr = writer.await.unwrap().unwrap();

        // Reunited, it is the same connection.
        let mut stream = rd.reunite(wr).unwrap();
        assert_eq!(stream.local_addr().unwrap(), local);
        stream.write_all(b"again").await.unwrap();
        let mut buf = [0u8; 5];
        stream.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"again");
    });
}

#[test]
fn halves_of_different_streams_do_not_reunite() {
    run(26, async {
        let (a, _sa) = loopback_pair(80).await;
        let (b, _sb) = loopback_pair(81).await;
        let (ra, wa) = a.into_split();
        let (rb, wb) = b.into_split();
        let ReuniteError(ra, wb) = ra.reunite(wb).unwrap_err();
        let err = wa.reunite(rb).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tried to reunite halves that are not from the same socket"
        );
        let _: &dyn std::error::Error = &err;
        let ReuniteError(rb, wa) = err;
        // The halves given back still match their own partners.
        let a = ra.reunite(wa).unwrap();
        let b = wb.reunite(rb).unwrap();
        assert_eq!(a.local_addr().unwrap().port(), 49152);
        assert_eq!(b.local_addr().unwrap().port(), 49153);
    });
}

#[test]
fn dropping_the_owned_write_half_shuts_down_writing() {
    run(27, async {
        let mut accepted = start_accept_one();
        let stream = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        let (mut rd, wr) = stream.into_split();
        drop(wr);
        // The peer sees end of stream...
        assert_eq!(server.read(&mut [0u8; 1]).await.unwrap(), 0);
        // ...and can still send to the read half.
        server.write_all(b"still open").await.unwrap();
        let mut buf = [0u8; 10];
        rd.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"still open");
        // Dropping the read half closes the stream.
        drop(rd);
        server.shutdown().await.unwrap();
        let mut rest = Vec::new();
        assert_eq!(server.read_to_end(&mut rest).await.unwrap(), 0);
    });
}

#[test]
fn shutting_down_the_owned_write_half_reaches_the_peer() {
    run(28, async {
        let (client, mut server) = loopback_pair(80).await;
        let (_rd, mut wr) = client.into_split();
        wr.write_all(b"last").await.unwrap();
        wr.shutdown().await.unwrap();
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"last");
        assert_eq!(
            wr.write(b"x").await.unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
    });
}

#[test]
fn a_forgotten_write_half_leaves_the_stream_open() {
    run(29, async {
        let mut accepted = start_accept_one();
        let stream = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        let (mut rd, wr) = stream.into_split();
        wr.forget();
        // No end of stream: the read waits.
        let mut buf = [0u8; 4];
        assert!(timeout(Duration::from_secs(1), server.read(&mut buf))
            .await
            .is_err());
        server.write_all(b"open").await.unwrap();
        rd.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"open");
        // The read half was the last: dropping it closes gracefully.
        drop(rd);
        assert_eq!(server.read(&mut buf).await.unwrap(), 0);
    });
}

// ----- socket options, linger --------------------------------------------------

#[test]
fn socket_options_are_stored() {
    run(30, async {
        let (client, _server) = loopback_pair(80).await;
        assert!(!client.nodelay().unwrap());
        client.set_nodelay(true).unwrap();
        assert!(client.nodelay().unwrap());

        assert_eq!(client.ttl().unwrap(), 64);
        client.set_ttl(100).unwrap();
        assert_eq!(client.ttl().unwrap(), 100);
        for bad in [0, 256, 100_000] {
            let err = client.set_ttl(bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{bad}");
        }
        assert_eq!(client.ttl().unwrap(), 100);
        // -1 as a C int: back to the default.
        client.set_ttl(u32::MAX).unwrap();
        assert_eq!(client.ttl().unwrap(), 64);

        let listener = TcpListener::bind("0.0.0.0:0").await.unwrap();
        assert_eq!(listener.ttl().unwrap(), 64);
        listener.set_ttl(1).unwrap();
        assert_eq!(listener.ttl().unwrap(), 1);
        assert_eq!(
            listener.set_ttl(0).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        assert_eq!(listener.ttl().unwrap(), 1);
        // An accepted stream starts with its listener's TTL, as on Linux.
        let port = listener.local_addr().unwrap().port();
        let connected = TcpStream::connect(("localhost", port)).await.unwrap();
        let (accepted, _) = listener.accept().await.unwrap();
        assert_eq!(accepted.ttl().unwrap(), 1);
        assert_eq!(connected.ttl().unwrap(), 64);

        assert_eq!(client.linger().unwrap(), None);
        client.set_zero_linger().unwrap();
        assert_eq!(client.linger().unwrap(), Some(Duration::ZERO));
        #[allow(deprecated)]
        client.set_linger(Some(Duration::from_secs(3))).unwrap();
        assert_eq!(client.linger().unwrap(), Some(Duration::from_secs(3)));
        // SO_LINGER holds whole seconds.
        #[allow(deprecated)]
        client
            .set_linger(Some(Duration::from_millis(1500)))
            .unwrap();
        assert_eq!(client.linger().unwrap(), Some(Duration::from_secs(1)));
        #[allow(deprecated)]
        client.set_linger(Some(Duration::from_millis(999))).unwrap();
        assert_eq!(client.linger().unwrap(), Some(Duration::ZERO));
        #[allow(deprecated)]
        client.set_linger(None).unwrap();
        assert_eq!(client.linger().unwrap(), None);
    });
}

#[test]
fn zero_linger_aborts_with_a_reset() {
    run(31, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        client.set_zero_linger().unwrap();
        client.write_all(b"last").await.unwrap();
        drop(client);
        // Bytes already in flight arrive, then the RST instead of end of
        // stream.
        let mut buf = [0u8; 8];
        assert_eq!(server.read(&mut buf).await.unwrap(), 4);
        assert_eq!(&buf[..4], b"last");
        let err = server.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        assert_eq!(
            server.write(b"x").await.unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
    });
}

#[test]
fn a_nonzero_linger_closes_gracefully() {
    run(32, async {
        let mut accepted = start_accept_one();
        let mut client = TcpStream::connect("server:80").await.unwrap();
        let (mut server, _) = accepted.recv().await.unwrap();
        #[allow(deprecated)]
        client.set_linger(Some(Duration::from_secs(5))).unwrap();
        client.write_all(b"bye").await.unwrap();
        let t = Instant::now();
        drop(client);
        // The drop does not block (simulated time did not move).
        assert_eq!(t.elapsed(), Duration::ZERO);
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"bye");
    });
}

#[test]
fn a_linger_under_a_second_is_a_zero_linger() {
    run(37, async {
        let (client, mut server) = loopback_pair(80).await;
        #[allow(deprecated)]
        client.set_linger(Some(Duration::from_millis(500))).unwrap();
        drop(client);
        let err = server.read(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    });
}

#[test]
fn zero_linger_carries_over_to_the_owned_halves() {
    run(33, async {
        let (client, mut server) = loopback_pair(80).await;
        client.set_zero_linger().unwrap();
        let (rd, wr) = client.into_split();
        drop(rd);
        // No FIN from a forgotten write half; dropping the last half aborts.
        wr.forget();
        let err = server.read(&mut [0u8; 1]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    });
}

// ----- host faults -------------------------------------------------------------

#[test]
fn a_reset_server_resets_its_connections() {
    run(34, async {
        start_echo_server(7);
        let mut s = TcpStream::connect("server:7").await.unwrap();
        s.write_all(b"hi").await.unwrap();
        let mut buf = [0u8; 2];
        s.read_exact(&mut buf).await.unwrap();
        sim::reset("server");
        let err = s.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
        assert_eq!(s.read(&mut buf).await.unwrap(), 0);
    });
}

#[test]
fn a_stream_of_a_stopped_host_reports_not_connected() {
    run(35, async {
        let mut accepted = start_accept_one();
        let client = TcpStream::connect("server:80").await.unwrap();
        // The server's end of the connection, moved to this task.
        let (mut theirs, _) = accepted.recv().await.unwrap();
        sim::stop("server");
        let kind = |r: io::Result<usize>| r.unwrap_err().kind();
        assert_eq!(
            kind(theirs.read(&mut [0u8; 1]).await),
            ErrorKind::NotConnected
        );
        assert_eq!(kind(theirs.write(b"x").await), ErrorKind::NotConnected);
        assert_eq!(
            kind(theirs.try_read(&mut [0u8; 1])),
            ErrorKind::NotConnected
        );
        assert_eq!(
            theirs.local_addr().unwrap_err().kind(),
            ErrorKind::NotConnected
        );
        // Readiness does not hang on a socket that is gone.
        theirs.readable().await.unwrap();
        theirs.writable().await.unwrap();
        // Like tokio, a shutdown of a connection that is gone succeeds.
        theirs.shutdown().await.unwrap();
        drop(theirs);
        // The crashed host told nobody: the client's stream still looks open.
        assert_eq!(client.peer_addr().unwrap(), addr("10.0.0.1:80"));
        assert_eq!(
            client.try_read(&mut [0u8; 1]).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
    });
}

// ----- determinism -------------------------------------------------------------

/// When each echo comes back, for three messages over links with 1..10 ms
/// of latency.
fn echo_arrivals(seed: u64) -> Vec<Duration> {
    run(seed, async {
        start_echo_server(7);
        let mut s = TcpStream::connect("server:7").await.unwrap();
        let mut arrivals = Vec::new();
        for msg in [b"a", b"b", b"c"] {
            s.write_all(msg).await.unwrap();
            let mut buf = [0u8; 1];
            s.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, msg);
            arrivals.push(sim::elapsed());
        }
        arrivals
    })
}

#[test]
fn timings_are_a_function_of_the_seed() {
    for seed in 0..10 {
        let arrivals = echo_arrivals(seed);
        assert_eq!(arrivals, echo_arrivals(seed), "seed {seed}");
        // A handshake and a round trip, then round trips: each crossing
        // takes 1 to 10 ms.
        assert!(
            ms(4) <= arrivals[0] && arrivals[0] <= ms(40),
            "{arrivals:?}"
        );
        for pair in arrivals.windows(2) {
            let rtt = pair[1] - pair[0];
            assert!(ms(2) <= rtt && rtt <= ms(20), "{arrivals:?}");
        }
    }
}

// ----- types -------------------------------------------------------------------

#[test]
fn handles_and_futures_have_tokios_auto_traits() {
    fn handle<T: Send + Sync + Unpin + std::fmt::Debug + 'static>() {}
    handle::<TcpStream>();
    handle::<TcpListener>();
    handle::<OwnedReadHalf>();
    handle::<OwnedWriteHalf>();
    handle::<ReuniteError>();
    fn borrowed<T: Send + Sync + Unpin + std::fmt::Debug>(_: &T) {}
    fn io<T: sim_rt::io::AsyncRead + sim_rt::io::AsyncWrite>() {}
    io::<TcpStream>();
    fn send<T: Send>(_: &T) {}
    run(36, async {
        let listener_fut = TcpListener::bind("0.0.0.0:80");
        send(&listener_fut);
        let listener = listener_fut.await.unwrap();
        let connect = TcpStream::connect("localhost:80");
        send(&connect);
        let mut stream = connect.await.unwrap();
        let accept = listener.accept();
        send(&accept);
        let (_server, _) = accept.await.unwrap();
        send(&stream.readable());
        send(&stream.writable());
        send(&stream.peek(&mut [0u8; 1]));
        let (rd, wr) = stream.split();
        borrowed(&rd);
        borrowed(&wr);
        assert!(format!("{:?}", listener).starts_with("TcpListener"));
    });
}

// ----- parity with tokio -------------------------------------------------------

/// Every method above, pinned to its signature: compiled once against
/// tokio and once against sim_rt, so a signature that drifts from tokio's
/// fails the build. Never run.
macro_rules! tcp_api {
    () => {
        #[allow(dead_code, deprecated, unused_variables, clippy::type_complexity)]
        async fn api() -> std::io::Result<()> {
            use std::io;
            use std::net::SocketAddr;
            use std::task::{Context, Poll};
            use std::time::Duration;
            use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
            use tokio::net::tcp::{
                OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf,
            };
            use tokio::net::{TcpListener, TcpStream};

            fn io_traits<T: AsyncRead + AsyncWrite + Send + Sync + Unpin>() {}
            fn read_trait<T: AsyncRead + Send + Sync + Unpin>() {}
            fn write_trait<T: AsyncWrite + Send + Sync + Unpin>() {}
            io_traits::<TcpStream>();
            read_trait::<OwnedReadHalf>();
            read_trait::<ReadHalf<'static>>();
            write_trait::<OwnedWriteHalf>();
            write_trait::<WriteHalf<'static>>();

            // TcpListener
            let listener: TcpListener = TcpListener::bind("127.0.0.1:0").await?;
            let _: (TcpStream, SocketAddr) = listener.accept().await?;
            let _: fn(&TcpListener, &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> =
                TcpListener::poll_accept;
            let _: fn(&TcpListener) -> io::Result<SocketAddr> = TcpListener::local_addr;
            let _: fn(&TcpListener) -> io::Result<u32> = TcpListener::ttl;
            let _: fn(&TcpListener, u32) -> io::Result<()> = TcpListener::set_ttl;

            // TcpStream
            let mut stream: TcpStream = TcpStream::connect(("localhost", 1)).await?;
            let _: fn(&TcpStream) -> io::Result<SocketAddr> = TcpStream::local_addr;
            let _: fn(&TcpStream) -> io::Result<SocketAddr> = TcpStream::peer_addr;
            let _: fn(&TcpStream, &mut Context<'_>, &mut ReadBuf<'_>) -> Poll<io::Result<usize>> =
                TcpStream::poll_peek;
            let _: io::Result<()> = stream.readable().await;
            let _: io::Result<()> = stream.writable().await;
            let _: io::Result<usize> = stream.peek(&mut [0u8; 1]).await;
            let _: fn(&TcpStream, &mut Context<'_>) -> Poll<io::Result<()>> =
                TcpStream::poll_read_ready;
            let _: fn(&TcpStream, &mut Context<'_>) -> Poll<io::Result<()>> =
                TcpStream::poll_write_ready;
            let _: fn(&TcpStream, &mut [u8]) -> io::Result<usize> = TcpStream::try_read;
            let _: fn(&TcpStream, &mut [io::IoSliceMut<'_>]) -> io::Result<usize> =
                TcpStream::try_read_vectored;
            let _: fn(&TcpStream, &mut Vec<u8>) -> io::Result<usize> =
                TcpStream::try_read_buf::<Vec<u8>>;
            let _: fn(&TcpStream, &[u8]) -> io::Result<usize> = TcpStream::try_write;
            let _: fn(&TcpStream, &[io::IoSlice<'_>]) -> io::Result<usize> =
                TcpStream::try_write_vectored;
            let _: fn(&TcpStream) -> io::Result<bool> = TcpStream::nodelay;
            let _: fn(&TcpStream, bool) -> io::Result<()> = TcpStream::set_nodelay;
            let _: fn(&TcpStream) -> io::Result<Option<Duration>> = TcpStream::linger;
            let _: fn(&TcpStream, Option<Duration>) -> io::Result<()> = TcpStream::set_linger;
            let _: fn(&TcpStream) -> io::Result<()> = TcpStream::set_zero_linger;
            let _: fn(&TcpStream) -> io::Result<u32> = TcpStream::ttl;
            let _: fn(&TcpStream, u32) -> io::Result<()> = TcpStream::set_ttl;
            let _: fn(&mut TcpStream) -> (ReadHalf<'_>, WriteHalf<'_>) = TcpStream::split;
            let _: fn(TcpStream) -> (OwnedReadHalf, OwnedWriteHalf) = TcpStream::into_split;
            let _: &TcpStream = <TcpStream as AsRef<TcpStream>>::as_ref(&stream);

            // ReadHalf, WriteHalf (methods of the impl for one lifetime)
            {
                let (mut rd, wr) = stream.split();
                let _: io::Result<usize> = rd.peek(&mut [0u8; 1]).await;
                let _: io::Result<()> = rd.readable().await;
                let _: io::Result<()> = wr.writable().await;
                let _: fn(
                    &mut ReadHalf<'static>,
                    &mut Context<'_>,
                    &mut ReadBuf<'_>,
                ) -> Poll<io::Result<usize>> = ReadHalf::poll_peek;
                let _: fn(&ReadHalf<'static>, &mut [u8]) -> io::Result<usize> = ReadHalf::try_read;
                let _: fn(&ReadHalf<'static>, &mut [io::IoSliceMut<'_>]) -> io::Result<usize> =
                    ReadHalf::try_read_vectored;
                let _: fn(&ReadHalf<'static>, &mut Vec<u8>) -> io::Result<usize> =
                    ReadHalf::try_read_buf::<Vec<u8>>;
                let _: fn(&ReadHalf<'static>) -> io::Result<SocketAddr> = ReadHalf::peer_addr;
                let _: fn(&ReadHalf<'static>) -> io::Result<SocketAddr> = ReadHalf::local_addr;
                let _: fn(&WriteHalf<'static>, &[u8]) -> io::Result<usize> = WriteHalf::try_write;
                let _: fn(&WriteHalf<'static>, &[io::IoSlice<'_>]) -> io::Result<usize> =
                    WriteHalf::try_write_vectored;
                let _: fn(&WriteHalf<'static>) -> io::Result<SocketAddr> = WriteHalf::peer_addr;
                let _: fn(&WriteHalf<'static>) -> io::Result<SocketAddr> = WriteHalf::local_addr;
                let _: &TcpStream = rd.as_ref();
                let _: &TcpStream = wr.as_ref();
            }

            // OwnedReadHalf, OwnedWriteHalf, ReuniteError
            let (mut rd, wr) = stream.into_split();
            let _: io::Result<usize> = rd.peek(&mut [0u8; 1]).await;
            let _: io::Result<()> = rd.readable().await;
            let _: io::Result<()> = wr.writable().await;
            let _: fn(
                &mut OwnedReadHalf,
                &mut Context<'_>,
                &mut ReadBuf<'_>,
            ) -> Poll<io::Result<usize>> = OwnedReadHalf::poll_peek;
            let _: fn(&OwnedReadHalf, &mut [u8]) -> io::Result<usize> = OwnedReadHalf::try_read;
            let _: fn(&OwnedReadHalf, &mut [io::IoSliceMut<'_>]) -> io::Result<usize> =
                OwnedReadHalf::try_read_vectored;
            let _: fn(&OwnedReadHalf, &mut Vec<u8>) -> io::Result<usize> =
                OwnedReadHalf::try_read_buf::<Vec<u8>>;
            let _: fn(&OwnedReadHalf) -> io::Result<SocketAddr> = OwnedReadHalf::peer_addr;
            let _: fn(&OwnedReadHalf) -> io::Result<SocketAddr> = OwnedReadHalf::local_addr;
            let _: fn(OwnedReadHalf, OwnedWriteHalf) -> Result<TcpStream, ReuniteError> =
                OwnedReadHalf::reunite;
            let _: fn(&OwnedWriteHalf, &[u8]) -> io::Result<usize> = OwnedWriteHalf::try_write;
            let _: fn(&OwnedWriteHalf, &[io::IoSlice<'_>]) -> io::Result<usize> =
                OwnedWriteHalf::try_write_vectored;
            let _: fn(&OwnedWriteHalf) -> io::Result<SocketAddr> = OwnedWriteHalf::peer_addr;
            let _: fn(&OwnedWriteHalf) -> io::Result<SocketAddr> = OwnedWriteHalf::local_addr;
            let _: fn(OwnedWriteHalf, OwnedReadHalf) -> Result<TcpStream, ReuniteError> =
                OwnedWriteHalf::reunite;
            let _: fn(OwnedWriteHalf) = OwnedWriteHalf::forget;
            let _: &TcpStream = rd.as_ref();
            let _: &TcpStream = wr.as_ref();
            let ReuniteError(rd, wr): ReuniteError = rd.reunite(wr).unwrap_err();
            let _: Box<dyn std::error::Error + Send + Sync> = Box::new(rd.reunite(wr).unwrap_err());
            Ok(())
        }
    };
}

mod parity_real {
    tcp_api!();
}

mod parity_sim {
    use sim_rt as tokio;
    tcp_api!();
}
