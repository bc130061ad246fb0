//! std's Unix domain sockets inside a simulation (`std::os::unix::net`,
//! through the interposed socket calls): on the simulated host, blocking
//! on simulated threads, converted to and from tokio's types.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod rt_support;

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream as StdStream;
use std::os::unix::net::{UnixDatagram as StdDatagram, UnixListener as StdListener};
use std::time::Duration;

use rt_support::assert_contains_all;
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{UnixDatagram, UnixListener, UnixStream};
use sim_rt::runtime::Builder;

fn run<F: std::future::Future>(future: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a simulation cannot fail")
        .block_on(future)
}

/// A std pair made inside the simulation is simulated: bytes go through
/// the model (nothing real is connected), and a blocking read on a
/// simulated thread waits for the write.
#[test]
fn a_std_pair_is_simulated_and_blocks_on_threads() {
    let (got, real_peer) = run(async {
        let (mut a, mut b) = StdStream::pair().unwrap();
        let reader = std::thread::spawn(move || {
            let mut buf = [0; 5];
            b.read_exact(&mut buf).unwrap();
            b.write_all(b"world").unwrap();
            (buf, b)
        });
        a.write_all(b"hello").unwrap();
        let mut back = [0; 5];
        a.read_exact(&mut back).unwrap();
        // A non-blocking read with nothing queued.
        a.set_nonblocking(true).unwrap();
        let err = a.read(&mut back).unwrap_err();
        let peer_addr = a.peer_addr().unwrap();
        let (got, b) = reader.join().unwrap();
        // The peer closes: end of stream.
        drop(b);
        assert_eq!(a.read(&mut [0; 1]).unwrap(), 0);
        ((got, back, err.kind()), peer_addr.is_unnamed())
    });
    assert_eq!(got, (*b"hello", *b"world", ErrorKind::WouldBlock));
    assert!(real_peer);
}

/// A tokio listener on a path serves a blocking std client on a
/// simulated thread: connect, write, read the reply, see the close.
#[test]
fn a_blocking_std_client_on_a_thread_talks_to_a_tokio_server() {
    let reply = run(async {
        let listener = UnixListener::bind("/tmp/svc.sock").unwrap();
        let client = std::thread::spawn(|| {
            let mut s = StdStream::connect("/tmp/svc.sock").unwrap();
            assert_eq!(
                s.peer_addr().unwrap().as_pathname(),
                Some(std::path::Path::new("/tmp/svc.sock"))
            );
            s.write_all(b"ping").unwrap();
            let mut reply = String::new();
            s.read_to_string(&mut reply).unwrap();
            reply
        });
        let (mut s, _) = listener.accept().await.unwrap();
        let mut buf = [0; 4];
        s.read_exact(&mut buf).await.unwrap();
        s.write_all(b"pong").await.unwrap();
        drop(s);
        sim_rt::task::spawn_blocking(move || client.join().unwrap())
            .await
            .unwrap()
    });
    assert_eq!(reply, "pong");
}

/// A std listener, datagram socket and stream convert to tokio's and
/// back; the conversion keeps the socket (its name, its queued bytes).
#[test]
fn std_and_tokio_sockets_convert_both_ways() {
    use std::os::linux::net::SocketAddrExt;
    run(async {
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(b"conv").unwrap();
        let std_listener = StdListener::bind_addr(&addr).unwrap();
        let listener = UnixListener::from_std(std_listener).unwrap();
        let client = UnixStream::connect("\0conv").await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let mut server_std = server.into_std().unwrap();
        assert_eq!(
            server_std.local_addr().unwrap().as_abstract_name(),
            Some(&b"conv"[..])
        );
        let mut client = client;
        client.write_all(b"abc").await.unwrap();
        let mut buf = [0; 3];
        server_std.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"abc");
        let mut server = UnixStream::from_std(server_std).unwrap();
        server.write_all(b"xyz").await.unwrap();
        client.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"xyz");

        let (d1, d2) = StdDatagram::pair().unwrap();
        let d1 = UnixDatagram::from_std(d1).unwrap();
        d2.send(b"dgram").unwrap();
        let mut buf = [0; 8];
        assert_eq!(d1.recv(&mut buf).await.unwrap(), 5);
        // A real socket, made outside the simulation, cannot join it.
    });
    let (real, _peer) = StdStream::pair().unwrap();
    let err = run(async move { UnixStream::from_std(real).unwrap_err() });
    assert_eq!(err.kind(), ErrorKind::Unsupported);
}

/// `try_clone` shares the socket: closing one clone keeps it open.
#[test]
fn clones_share_the_socket_until_the_last_closes() {
    run(async {
        let (a, mut b) = StdStream::pair().unwrap();
        let mut a2 = a.try_clone().unwrap();
        drop(a);
        a2.write_all(b"still").unwrap();
        let mut buf = [0; 5];
        b.read_exact(&mut buf).unwrap();
        drop(a2);
        assert_eq!(b.read(&mut buf).unwrap(), 0);
    });
}

/// `set_read_timeout` bounds a blocking read in simulated time.
#[test]
fn a_read_timeout_passes_in_simulated_time() {
    let (kind, waited) = run(async {
        let (a, _b) = StdStream::pair().unwrap();
        let reader = std::thread::spawn(move || {
            let mut a = a;
            a.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
            assert_eq!(a.read_timeout().unwrap(), Some(Duration::from_secs(3)));
            let start = std::time::Instant::now();
            let mut buf = [0; 1];
            let kind = a.read(&mut buf).unwrap_err().kind();
            (kind, start.elapsed())
        });
        sim_rt::task::spawn_blocking(move || reader.join().unwrap())
            .await
            .unwrap()
    });
    assert_eq!(kind, ErrorKind::WouldBlock);
    assert!(
        (Duration::from_secs(3)..Duration::from_millis(3100)).contains(&waited),
        "{waited:?}"
    );
}

/// A blocking read in a task that only another task could satisfy fails
/// with `EDEADLK` and a note, where tokio's worker would hang.
#[test]
fn a_blocking_read_in_a_task_waiting_for_a_task_is_a_reported_deadlock() {
    let failure = Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .try_block_on(async {
            let (mut a, _b) = StdStream::pair().unwrap();
            let mut buf = [0; 1];
            let err = a.read(&mut buf).unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EDEADLK));
            panic!("blocked: {err}");
        })
        .unwrap_err();
    assert_contains_all(
        failure.message().unwrap(),
        &["a blocking socket call in a task", "spawn_blocking"],
    );
}
