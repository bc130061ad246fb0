//! `tokio::net`'s Unix domain sockets on a simulated host: streams,
//! listeners, datagrams, names on the host's disk and in its abstract
//! namespace, resets; pipes and std conversions are refused.

#![cfg(unix)]

mod rt_support;

use std::io::{self, ErrorKind};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::time::Duration;

use rt_support::assert_contains_all;
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::unix::{self, pipe};
use sim_rt::net::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
use sim_rt::runtime::Builder;
use sim_rt::sim;

fn run<F: std::future::Future>(future: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a simulation cannot fail")
        .block_on(future)
}

/// `err` is `Unsupported`, its message starts with `item` and says why.
fn assert_unsupported(err: io::Error, item: &str, why: &[&str]) {
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{item}: {err}");
    let msg = err.to_string();
    assert!(msg.starts_with(item), "{msg}");
    assert_contains_all(&msg, why);
}

/// The conversions of real sockets (made outside the simulation) are
/// refused with a message naming the item.
#[test]
fn std_conversions_of_real_sockets_are_unsupported() {
    let (std_a, _std_b) = std::os::unix::net::UnixStream::pair().unwrap();
    let (std_d, _std_e) = std::os::unix::net::UnixDatagram::pair().unwrap();
    let dir = std::env::temp_dir().join(format!("sim-rt-net-unix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let std_listener = std::os::unix::net::UnixListener::bind(dir.join("l.sock")).unwrap();
    let real: &[&str] = &["real OS socket"];
    let errs = run(async move {
        vec![
            (
                UnixStream::try_from(std_a).unwrap_err(),
                "UnixStream::from_std",
            ),
            (
                UnixListener::from_std(std_listener).unwrap_err(),
                "UnixListener::from_std",
            ),
            (
                UnixDatagram::from_std(std_d).unwrap_err(),
                "UnixDatagram::from_std",
            ),
        ]
    });
    std::fs::remove_dir_all(&dir).unwrap();
    for (err, item) in errs {
        assert_unsupported(err, item, real);
    }
}

/// A listener on a path accepts a stream, which carries bytes both ways
/// and reports tokio's addresses and credentials.
#[test]
fn a_stream_connects_to_a_listener_on_a_path() {
    run(async {
        let listener = UnixListener::bind("/tmp/app.sock").unwrap();
        assert_eq!(
            listener.local_addr().unwrap().as_pathname(),
            Some(Path::new("/tmp/app.sock"))
        );
        let server = sim_rt::spawn(async move {
            let (mut s, peer) = listener.accept().await.unwrap();
            assert!(peer.is_unnamed());
            let mut buf = [0; 4];
            s.read_exact(&mut buf).await.unwrap();
            s.write_all(b"pong").await.unwrap();
            buf
        });
        let mut c = UnixStream::connect("/tmp/app.sock").await.unwrap();
        assert_eq!(
            c.peer_addr().unwrap().as_pathname(),
            Some(Path::new("/tmp/app.sock"))
        );
        assert!(c.local_addr().unwrap().is_unnamed());
        // SAFETY: plain getters.
        let uid = unsafe { libc::getuid() };
        let cred = c.peer_cred().unwrap();
        assert_eq!(
            (cred.uid(), cred.pid()),
            (uid, Some(std::process::id() as i32))
        );
        c.write_all(b"ping").await.unwrap();
        let mut buf = [0; 4];
        c.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"pong");
        assert_eq!(&server.await.unwrap(), b"ping");
        // The server end is gone: end of stream, then a broken pipe.
        assert_eq!(c.read(&mut buf).await.unwrap(), 0);
        assert_eq!(
            c.write(b"x").await.unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
    });
}

/// Names as Linux has them: a missing path is `NotFound`, a taken one
/// `AddrInUse`; the socket file outlives its listener and refuses
/// connections until it is removed; the file is a socket on the disk.
#[test]
fn paths_are_socket_files_on_the_hosts_disk() {
    run(async {
        let err = UnixStream::connect("/tmp/none.sock").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotFound);
        let l = UnixListener::bind("/tmp/s.sock").unwrap();
        let err = UnixListener::bind("/tmp/s.sock").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse);
        let meta = std::fs::metadata("/tmp/s.sock").unwrap();
        assert!(meta.file_type().is_socket(), "{meta:?}");
        drop(l);
        let err = UnixStream::connect("/tmp/s.sock").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        assert_eq!(
            UnixListener::bind("/tmp/s.sock").unwrap_err().kind(),
            ErrorKind::AddrInUse
        );
        std::fs::remove_file("/tmp/s.sock").unwrap();
        let _again = UnixListener::bind("/tmp/s.sock").unwrap();
        UnixStream::connect("/tmp/s.sock").await.unwrap();
        // A regular file is no socket.
        std::fs::write("/tmp/plain", b"x").unwrap();
        let err = UnixStream::connect("/tmp/plain").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
    });
}

/// A connect waits for the driver's next turn, as tokio's; a listener
/// closed before accepting the connection resets it (tokio's `epollhup`).
#[test]
fn a_listener_closed_before_accepting_resets_the_connect() {
    use std::future::Future;
    use std::task::Poll;
    run(async {
        let l = UnixListener::bind("/tmp/e.sock").unwrap();
        let mut connect = std::pin::pin!(UnixStream::connect("/tmp/e.sock"));
        std::future::poll_fn(|cx| {
            assert!(connect.as_mut().poll(cx).is_pending());
            Poll::Ready(())
        })
        .await;
        drop(l);
        let err = connect.await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    });
}

/// A name with a leading NUL byte is in the host's abstract namespace: no
/// file, freed when the socket closes.
#[test]
fn abstract_names_have_no_file() {
    use std::os::linux::net::SocketAddrExt;
    run(async {
        let name = "\0sim-rt-abstract";
        let l = UnixListener::bind(name).unwrap();
        assert_eq!(
            l.local_addr().unwrap().as_abstract_name(),
            Some(&b"sim-rt-abstract"[..])
        );
        let addr: std::os::unix::net::SocketAddr =
            std::os::unix::net::SocketAddr::from_abstract_name(b"sim-rt-abstract").unwrap();
        let c = UnixStream::connect_addr(&addr.into()).await.unwrap();
        drop(c);
        drop(l);
        UnixListener::bind(name).unwrap();
    });
}

/// `pair`, borrowed and owned halves: dropping the owned write half shuts
/// the writing down (end of stream for the peer), `forget` does not,
/// `reunite` gives the stream back; a close with bytes unread resets the
/// peer once.
#[test]
fn pairs_split_and_reset() {
    run(async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        {
            let (mut r, mut w) = a.split();
            w.write_all(b"hi").await.unwrap();
            let mut buf = [0; 2];
            b.read_exact(&mut buf).await.unwrap();
            b.write_all(b"yo").await.unwrap();
            r.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"yo");
        }
        let (r, w) = a.into_split();
        let (r2, w2) = UnixStream::pair().unwrap().0.into_split();
        let err = r.reunite(w2).unwrap_err();
        let (r, _w2) = (err.0, err.1);
        let a = r.reunite(w).unwrap();
        let (_r, w) = a.into_split();
        drop(w);
        let mut buf = [0; 1];
        assert_eq!(b.read(&mut buf).await.unwrap(), 0);
        drop((r2,));
        // A close with bytes unread: the peer's next read is a reset.
        let (x, y) = UnixStream::pair().unwrap();
        x.try_write(b"unread").unwrap();
        drop(y);
        let mut x = x;
        assert_eq!(
            x.read(&mut buf).await.unwrap_err().kind(),
            ErrorKind::ConnectionReset
        );
        assert_eq!(x.read(&mut buf).await.unwrap(), 0);
    });
}

/// A full queue makes the writer wait until the reader drains it.
#[test]
fn a_full_queue_makes_the_writer_wait() {
    run(async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let big = vec![1u8; 1 << 20];
        let writer = sim_rt::spawn(async move {
            a.write_all(&big).await.unwrap();
            a
        });
        let mut got = Vec::new();
        let mut buf = vec![0; 64 * 1024];
        while got.len() < 1 << 20 {
            let n = b.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        let _a = writer.await.unwrap();
        assert_eq!(got.len(), 1 << 20);
        assert!(b.try_read(&mut buf).unwrap_err().kind() == ErrorKind::WouldBlock);
    });
}

/// Datagrams keep their boundaries, report the sender's name, and a
/// sender waits while the receiver's queue is full.
#[test]
fn datagrams_between_named_sockets() {
    run(async {
        let rx = UnixDatagram::bind("/tmp/rx.sock").unwrap();
        let tx = UnixDatagram::bind("/tmp/tx.sock").unwrap();
        tx.send_to(b"one", "/tmp/rx.sock").await.unwrap();
        tx.send_to(b"two!", "/tmp/rx.sock").await.unwrap();
        let mut buf = [0; 16];
        let (n, from) = rx.recv_from(&mut buf).await.unwrap();
        assert_eq!(
            (&buf[..n], from.as_pathname()),
            (&b"one"[..], Some(Path::new("/tmp/tx.sock")))
        );
        assert_eq!(rx.recv(&mut buf).await.unwrap(), 4);
        // An unconnected receiver takes 11 datagrams from strangers.
        let mut sent = 0;
        while tx.try_send_to(b"x", "/tmp/rx.sock").is_ok() {
            sent += 1;
        }
        assert_eq!(sent, 11);
        let blocked = sim_rt::spawn(async move { tx.send_to(b"last", "/tmp/rx.sock").await });
        sim_rt::task::yield_now().await;
        assert!(!blocked.is_finished());
        rx.recv(&mut buf).await.unwrap();
        assert_eq!(blocked.await.unwrap().unwrap(), 4);
        // A connected pair, then the peer closes.
        let (a, b) = UnixDatagram::pair().unwrap();
        a.send(b"p").await.unwrap();
        assert_eq!(b.recv(&mut buf).await.unwrap(), 1);
        drop(b);
        assert_eq!(
            a.send(b"p").await.unwrap_err().kind(),
            ErrorKind::ConnectionRefused
        );
        let u = UnixDatagram::unbound().unwrap();
        assert_eq!(
            u.send(b"x").await.unwrap_err().kind(),
            ErrorKind::NotConnected
        );
    });
}

/// `UnixSocket`: bind then listen or connect, tokio's builder.
#[test]
fn unix_socket_binds_listens_and_connects() {
    run(async {
        let s = UnixSocket::new_stream().unwrap();
        s.bind("/tmp/b.sock").unwrap();
        let l = s.listen(4).unwrap();
        let c = UnixSocket::new_stream().unwrap();
        c.bind("/tmp/c.sock").unwrap();
        let c = c.connect("/tmp/b.sock").await.unwrap();
        let (_s, peer) = l.accept().await.unwrap();
        assert_eq!(peer.as_pathname(), Some(Path::new("/tmp/c.sock")));
        assert_eq!(
            c.local_addr().unwrap().as_pathname(),
            Some(Path::new("/tmp/c.sock"))
        );
        let err = UnixSocket::new_datagram().unwrap().listen(1).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let d = UnixSocket::new_datagram().unwrap().datagram().unwrap();
        assert!(d.local_addr().unwrap().is_unnamed());
    });
}

/// A host's reset closes its Unix sockets; a socket file whose entry was
/// synced stays (and refuses connections, and blocks a bind until it is
/// removed), one bound after the sync is lost with the crash.
#[test]
fn a_host_reset_closes_its_sockets_and_the_disk_keeps_what_was_synced() {
    use std::cell::Cell;
    use std::rc::Rc;
    let kinds = run(async {
        let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel();
        let starts = Rc::new(Cell::new(0));
        sim::host("h").start(move || {
            let (tx, starts) = (tx.clone(), starts.clone());
            async move {
                starts.set(starts.get() + 1);
                if starts.get() == 1 {
                    std::fs::create_dir("/tmp/socks").unwrap();
                    std::fs::File::open("/tmp").unwrap().sync_all().unwrap();
                    let _durable = UnixListener::bind("/tmp/socks/d.sock").unwrap();
                    std::fs::File::open("/tmp/socks")
                        .unwrap()
                        .sync_all()
                        .unwrap();
                    let _volatile = UnixListener::bind("/tmp/socks/v.sock").unwrap();
                    let (mut a, b) = UnixStream::pair().unwrap();
                    tx.send(None).unwrap();
                    // The reset ends this task with the sockets open.
                    let mut buf = [0; 1];
                    let _ = a.read(&mut buf).await;
                    drop(b);
                } else {
                    let v = std::fs::metadata("/tmp/socks/v.sock").unwrap_err().kind();
                    let d = UnixStream::connect("/tmp/socks/d.sock")
                        .await
                        .unwrap_err()
                        .kind();
                    let bind = UnixListener::bind("/tmp/socks/d.sock").unwrap_err().kind();
                    std::fs::remove_file("/tmp/socks/d.sock").unwrap();
                    UnixListener::bind("/tmp/socks/d.sock").unwrap();
                    tx.send(Some((v, d, bind))).unwrap();
                }
            }
        });
        assert_eq!(rx.recv().await.unwrap(), None);
        sim::reset("h");
        rx.recv().await.unwrap().unwrap()
    });
    assert_eq!(
        kinds,
        (
            ErrorKind::NotFound,
            ErrorKind::ConnectionRefused,
            ErrorKind::AddrInUse
        )
    );
}

/// A service on one host: a `UnixListener` server and its client, under the
/// fault injector's resets. The socket file is made durable when bound,
/// so after a reset the restarted server finds it on the disk; `clean`
/// says whether it removes the stale file before binding (as real servers
/// do). Returns the round trips made, how many starts found a stale file,
/// and the run's error (the server's bind failing) if any.
fn service_under_resets(seed: u64, clean: bool) -> (u32, u32, Option<String>) {
    use std::cell::Cell;
    use std::rc::Rc;
    let trips = Rc::new(Cell::new(0u32));
    let stale = Rc::new(Cell::new(0u32));
    let (t, st) = (trips.clone(), stale.clone());
    let run = Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .fault_injector(
            sim::FaultInjector::new()
                .max_resets(2)
                .max_partitions(0)
                .probability(0.02),
        )
        .build()
        .unwrap()
        .try_block_on(async move {
            sim::host("svc").start(move || {
                let (trips, stale) = (t.clone(), st.clone());
                async move {
                    let path = "/run/svc.sock";
                    if std::fs::metadata(path).is_ok() {
                        stale.set(stale.get() + 1);
                        if clean {
                            std::fs::remove_file(path).unwrap();
                        }
                    }
                    let listener = UnixListener::bind(path).expect("bind the service's socket");
                    std::fs::File::open("/run").unwrap().sync_all().unwrap();
                    sim_rt::spawn(async move {
                        loop {
                            let Ok((mut s, _)) = listener.accept().await else {
                                return;
                            };
                            sim_rt::spawn(async move {
                                let mut buf = [0; 4];
                                while s.read_exact(&mut buf).await.is_ok() {
                                    if s.write_all(&buf).await.is_err() {
                                        return;
                                    }
                                }
                            });
                        }
                    });
                    // Until the run ends (or a reset drops the task).
                    for _round in 0u64.. {
                        let mut c = UnixStream::connect(path).await.unwrap();
                        let mut buf = [0; 4];
                        c.write_all(b"ping").await.unwrap();
                        c.read_exact(&mut buf).await.unwrap();
                        assert_eq!(&buf, b"ping");
                        trips.set(trips.get() + 1);
                        sim_rt::time::sleep(Duration::from_millis(1)).await;
                    }
                }
            });
            sim_rt::time::sleep(Duration::from_millis(300)).await;
        });
    (trips.get(), stale.get(), run.err().map(|f| f.to_string()))
}

/// Under resets, a server that removes its stale socket file keeps serving
/// (the file made durable at bind is found after every reset); one that
/// does not fails to bind after its first reset (`AddrInUse`), as on Linux.
#[test]
fn a_unix_service_survives_resets_when_it_removes_its_stale_socket_file() {
    let mut restarts = 0;
    for seed in 0..12 {
        let (trips, stale, err) = service_under_resets(seed, true);
        assert_eq!(err, None, "seed {seed}");
        assert!(trips > 50, "seed {seed}: {trips} round trips");
        restarts += stale;
        // The same schedule until the first reset, whose restart then
        // finds the file and cannot bind.
        let (_, _, err) = service_under_resets(seed, false);
        assert_eq!(err.is_some(), stale > 0, "seed {seed}: {err:?}");
        if let Some(e) = err {
            assert_contains_all(&e, &["bind the service's socket", "AddrInUse"]);
        }
    }
    assert!(restarts > 0, "no seed reset the host");
}

/// A `UnixSocket` is a real socket (as in tokio) until it would be used.
#[test]
fn a_unix_socket_is_a_real_unconnected_socket() {
    use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};
    run(async {
        let socket = UnixSocket::new_stream().unwrap();
        let fd = socket.as_raw_fd();
        assert!(fd >= 0);
        let raw = socket.into_raw_fd();
        assert_eq!(raw, fd);
        // SAFETY: `raw` is the socket's fd, whose ownership was just given up.
        let socket = unsafe { UnixSocket::from_raw_fd(raw) };
        assert_eq!(socket.as_raw_fd(), fd);
    });
}

/// `unix::SocketAddr` is a value: it converts to and from std's.
#[test]
fn socket_addr_is_a_value() {
    let std_addr = std::os::unix::net::SocketAddr::from_pathname("/run/x.sock").unwrap();
    let addr = unix::SocketAddr::from(std_addr);
    assert!(!addr.is_unnamed());
    assert_eq!(
        addr.as_pathname(),
        Some(std::path::Path::new("/run/x.sock"))
    );
    #[cfg(target_os = "linux")]
    assert_eq!(addr.as_abstract_name(), None);
    assert_eq!(format!("{addr:?}"), "\"/run/x.sock\" (pathname)");
    let back: std::os::unix::net::SocketAddr = addr.clone().into();
    assert_eq!(back.as_pathname(), addr.as_pathname());
}

/// The types keep tokio's auto traits and trait impls, so code that moves
/// them between tasks or boxes their errors compiles.
#[test]
fn types_keep_tokios_traits() {
    fn send_sync_unpin<T: Send + Sync + Unpin + std::fmt::Debug>() {}
    fn read<T: sim_rt::io::AsyncRead>() {}
    fn write<T: sim_rt::io::AsyncWrite>() {}
    send_sync_unpin::<UnixStream>();
    send_sync_unpin::<UnixListener>();
    send_sync_unpin::<UnixDatagram>();
    send_sync_unpin::<UnixSocket>();
    send_sync_unpin::<unix::OwnedReadHalf>();
    send_sync_unpin::<unix::OwnedWriteHalf>();
    send_sync_unpin::<unix::ReadHalf<'static>>();
    send_sync_unpin::<unix::WriteHalf<'static>>();
    send_sync_unpin::<pipe::Sender>();
    send_sync_unpin::<pipe::Receiver>();
    send_sync_unpin::<unix::UCred>();
    read::<UnixStream>();
    write::<UnixStream>();
    read::<unix::OwnedReadHalf>();
    write::<unix::OwnedWriteHalf>();
    read::<pipe::Receiver>();
    write::<pipe::Sender>();
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    error::<unix::ReuniteError>();
    let _: (unix::uid_t, unix::gid_t, unix::pid_t) = (0u32, 0u32, 0i32);
}
