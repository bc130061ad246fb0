//! std's TCP and UDP sockets inside a simulation (`std::net`, through the
//! interposed socket calls): on the simulated network, blocking as
//! simulated threads block, converted to and from tokio's types.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod net_support;
mod rt_support;

use std::io::{ErrorKind, Read, Write};
use std::time::Duration;

use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::runtime::Builder;
use sim_rt::sim;

fn run<F: std::future::Future>(future: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a simulation cannot fail")
        .block_on(future)
}

/// tokio's `tcp_peek` shape: a std listener, a std thread accepting, a
/// blocking std connect from the task (the simulation delivers the
/// handshake while the task blocks), then the stream handed to tokio.
#[test]
fn a_std_listener_and_a_blocking_connect_from_a_task() {
    run(async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        assert_ne!(addr.port(), 0);
        let t = std::thread::spawn(move || listener.accept().unwrap().0);
        let left = std::net::TcpStream::connect(addr).unwrap();
        let mut right = t.join().unwrap();
        right.write_all(&[1, 2, 3, 4]).unwrap();
        let mut left = TcpStream::from_std(left).unwrap();
        let mut buf = [0; 4];
        left.peek(&mut buf).await.unwrap();
        left.read_exact(&mut buf).await.unwrap();
        assert_eq!(buf, [1, 2, 3, 4]);
        left.write_all(b"ok").await.unwrap();
        let mut two = [0; 2];
        right.read_exact(&mut two).unwrap();
        assert_eq!(&two, b"ok");
        // Nothing listens on port 9: refused, as on Linux.
        let err = std::net::TcpStream::connect("127.0.0.1:9").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
    });
}

/// A blocking std client on a std thread talks to a tokio server on
/// another host, by name; a partition makes its read time out as
/// configured (`set_read_timeout`), in simulated time.
#[test]
fn a_blocking_client_on_a_thread_reaches_another_host_and_times_out() {
    let (reply, timed_out, waited) = run(async {
        sim::host("server").start(|| async {
            let l = TcpListener::bind("0.0.0.0:80").await.unwrap();
            while let Ok((mut s, _)) = l.accept().await {
                sim_rt::spawn(async move {
                    let mut buf = [0; 4];
                    while s.read_exact(&mut buf).await.is_ok() {
                        s.write_all(&buf).await.unwrap();
                    }
                });
            }
        });
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        let (replied, reply) = sim_rt::sync::oneshot::channel();
        let client = std::thread::spawn(move || {
            let mut s = std::net::TcpStream::connect("server:80").unwrap();
            s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            s.write_all(b"ping").unwrap();
            let mut buf = [0; 4];
            s.read_exact(&mut buf).unwrap();
            // The test partitions the hosts now.
            replied.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(10));
            s.write_all(b"lost").unwrap();
            let start = std::time::Instant::now();
            let err = s.read(&mut buf).unwrap_err();
            (buf, err.kind(), start.elapsed())
        });
        reply.await.unwrap();
        let main = sim::current_host();
        sim::partition(main, "server");
        let (buf, kind, waited) = sim_rt::task::spawn_blocking(move || client.join().unwrap())
            .await
            .unwrap();
        (buf, kind, waited)
    });
    assert_eq!(&reply, b"ping");
    assert_eq!(timed_out, ErrorKind::WouldBlock);
    assert!(
        (Duration::from_secs(2)..Duration::from_millis(2100)).contains(&waited),
        "{waited:?}"
    );
}

/// std's UDP sockets made inside the simulation exchange datagrams and
/// convert to tokio's.
#[test]
fn std_udp_sockets_are_simulated() {
    run(async {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let a_addr = a.local_addr().unwrap();
        b.send_to(b"hello", a_addr).unwrap();
        let a = sim_rt::net::UdpSocket::from_std(a).unwrap();
        let mut buf = [0; 8];
        let (n, from) = a.recv_from(&mut buf).await.unwrap();
        assert_eq!((&buf[..n], from), (&b"hello"[..], b.local_addr().unwrap()));
        let a = a.into_std().unwrap();
        a.send_to(b"back", b.local_addr().unwrap()).unwrap();
        b.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        let t = std::thread::spawn(move || {
            let mut buf = [0; 8];
            let (n, _) = b.recv_from(&mut buf).unwrap();
            buf[..n].to_vec()
        });
        let got = sim_rt::task::spawn_blocking(move || t.join().unwrap())
            .await
            .unwrap();
        assert_eq!(got, b"back");
    });
}

/// tokio's `tcp_accept_ready` shape: a task spins with socket2's `peek` on
/// a tokio stream's raw fd and `std::thread::yield_now` until the bytes a
/// std client sent have arrived: the raw fd is a view of the simulated
/// connection, and each yield lets a packet arrive.
#[test]
fn spinning_on_a_raw_fd_peek_sees_the_bytes_arrive() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.write_all(b"hello").unwrap();
        let (s, _) = listener.accept().await.unwrap();
        let sock = socket2::SockRef::from(&s);
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 8];
        let mut spins = 0;
        while !matches!(sock.peek(&mut buf), Ok(n) if n >= 5) {
            spins += 1;
            assert!(spins < 1_000, "the bytes never arrived");
            std::thread::yield_now();
        }
        let mut got = [0u8; 16];
        assert_eq!(s.try_read(&mut got).unwrap(), 5);
        assert_eq!(&got[..5], b"hello");
    });
}

/// std's `connect_timeout` (a non-blocking connect, then `poll` for
/// `POLLOUT`) on simulated sockets: it connects to a listening host,
/// reports a refusal as `ConnectionRefused` (`POLLERR`, then `SO_ERROR`),
/// and, across a partition, gives up after exactly its timeout of
/// simulated time.
#[test]
fn connect_timeout_polls_the_simulated_socket() {
    let (refused, timed_out, waited) = run(async {
        sim::host("server").start(|| async {
            let l = TcpListener::bind("0.0.0.0:80").await.unwrap();
            let mut kept = Vec::new();
            while let Ok((s, _)) = l.accept().await {
                kept.push(s);
            }
        });
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        let server = sim_rt::net::lookup_host("server:80")
            .await
            .unwrap()
            .next()
            .unwrap();
        let client = std::thread::spawn(move || {
            let t = Duration::from_secs(3);
            let s = std::net::TcpStream::connect_timeout(&server, t).unwrap();
            assert_eq!(s.peer_addr().unwrap(), server);
            let refused = std::net::TcpStream::connect_timeout(
                &std::net::SocketAddr::new(server.ip(), 81),
                t,
            )
            .unwrap_err()
            .kind();
            (s, refused)
        });
        let (_kept, refused) = sim_rt::task::spawn_blocking(move || client.join().unwrap())
            .await
            .unwrap();
        sim::partition(sim::current_host(), "server");
        let client = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            let err = std::net::TcpStream::connect_timeout(&server, Duration::from_secs(3))
                .unwrap_err()
                .kind();
            (err, start.elapsed())
        });
        let (timed_out, waited) = sim_rt::task::spawn_blocking(move || client.join().unwrap())
            .await
            .unwrap();
        (refused, timed_out, waited)
    });
    assert_eq!(refused, ErrorKind::ConnectionRefused);
    assert_eq!(timed_out, ErrorKind::TimedOut);
    // Exactly its timeout, plus the microsecond of simulated work each
    // poll of the thread's task costs.
    assert!(
        (Duration::from_secs(3)..Duration::from_millis(3010)).contains(&waited),
        "{waited:?}"
    );
}

/// `poll` over several simulated descriptors waits on the simulated clock
/// until one is ready, and reports what Linux would: `POLLIN` for the
/// socket another thread wrote to, `POLLHUP` for a pipe whose writer
/// closed, 0 at the timeout; `select` agrees.
#[test]
fn poll_and_select_wait_for_simulated_descriptors() {
    use std::os::fd::AsRawFd;
    run(async {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let (r, w) = std::io::pipe().unwrap();
        let (a_fd, r_fd) = (a.as_raw_fd(), r.as_raw_fd());
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(250));
            (&b).write_all(b"x").unwrap();
            std::thread::sleep(Duration::from_millis(250));
            drop(w);
            b
        });
        let poller = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            let mut set = [
                libc::pollfd {
                    fd: a_fd,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: r_fd,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            let poll = |set: &mut [libc::pollfd], ms| {
                // SAFETY: a valid array of its length.
                unsafe { libc::poll(set.as_mut_ptr(), set.len() as libc::nfds_t, ms) }
            };
            let mut seen = vec![(
                poll(&mut set, 10_000),
                set[0].revents,
                set[1].revents,
                start.elapsed(),
            )];
            let mut byte = [0; 1];
            (&a).read_exact(&mut byte).unwrap();
            seen.push((
                poll(&mut set, 10_000),
                set[0].revents,
                set[1].revents,
                start.elapsed(),
            ));
            // Only the socket now, quiet: the timeout.
            seen.push((poll(&mut set[..1], 100), set[0].revents, 0, start.elapsed()));
            // select(2) on the socket, quiet, then the pipe at its end.
            let mut tv = libc::timeval {
                tv_sec: 0,
                tv_usec: 50_000,
            };
            // SAFETY: fd sets and a timeval of ours.
            let selected = unsafe {
                let mut read: libc::fd_set = std::mem::zeroed();
                libc::FD_SET(a_fd, &mut read);
                libc::FD_SET(r_fd, &mut read);
                let n = libc::select(
                    a_fd.max(r_fd) + 1,
                    &mut read,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    &mut tv,
                );
                (n, libc::FD_ISSET(a_fd, &read), libc::FD_ISSET(r_fd, &read))
            };
            (seen, selected, tv.tv_usec, r, a)
        });
        let (seen, selected, left, _r, _a) =
            sim_rt::task::spawn_blocking(move || poller.join().unwrap())
                .await
                .unwrap();
        drop(writer);
        // The instants, give or take the microseconds of simulated work
        // the tasks' polls cost.
        let at = |i: usize, ms: u64| {
            let t = seen[i].3;
            assert!(
                (Duration::from_millis(ms)..Duration::from_millis(ms + 5)).contains(&t),
                "poll {i} returned at {t:?}, not {ms} ms"
            );
            (seen[i].0, seen[i].1, seen[i].2)
        };
        assert_eq!(at(0, 250), (1, libc::POLLIN, 0));
        assert_eq!(at(1, 500), (1, 0, libc::POLLHUP));
        assert_eq!(at(2, 600), (0, 0, 0));
        assert_eq!(selected, (1, false, true));
        assert_eq!(
            left, 50_000,
            "nothing waited: the pipe was at its end already"
        );
    });
}

/// The real ports (local addresses) the kernel lists in `/proc/net/<file>`;
/// `None` when the file is not there (`tcp6`, `udp6` without IPv6).
fn real_ports(file: &str) -> Option<Vec<u16>> {
    let text = std::fs::read_to_string(format!("/proc/net/{file}")).ok()?;
    let ports = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            l.split_whitespace()
                .nth(1)?
                .split(':')
                .nth(1)
                .map(str::to_string)
        })
        .filter_map(|port| u16::from_str_radix(&port, 16).ok())
        .collect();
    Some(ports)
}

/// No socket a simulated program makes reaches the real network: while a
/// std listener, a connection to it and a UDP socket live inside the
/// simulation on fixed ports, the kernel lists none of those ports, the
/// descriptors' real sockets are unbound (port 0), and a real listener
/// outside the simulation can take the same port at the same time.
#[test]
fn a_simulated_program_opens_no_real_socket_on_the_network() {
    use std::os::fd::AsRawFd;
    const TCP: u16 = 47_811;
    const UDP: u16 = 47_812;
    let (listed, real_names) = run(async {
        let listener = std::net::TcpListener::bind(("127.0.0.1", TCP)).unwrap();
        let client = std::net::TcpStream::connect(("127.0.0.1", TCP)).unwrap();
        let (server, _) = listener.accept().unwrap();
        let udp = std::net::UdpSocket::bind(("0.0.0.0", UDP)).unwrap();
        udp.send_to(b"x", ("127.0.0.1", UDP)).unwrap();
        // IPv4's tables are always there (so the check cannot pass for
        // want of reading them); IPv6's when the kernel has it.
        let mut listed = real_ports("tcp").expect("/proc/net/tcp is readable");
        listed.extend(real_ports("udp").expect("/proc/net/udp is readable"));
        listed.extend(
            ["tcp6", "udp6"]
                .iter()
                .filter_map(|f| real_ports(f))
                .flatten(),
        );
        // What the kernel says of each descriptor's real socket.
        let real_names: Vec<u16> = sim::without_interception(|| {
            [
                listener.as_raw_fd(),
                client.as_raw_fd(),
                server.as_raw_fd(),
                udp.as_raw_fd(),
            ]
            .iter()
            .map(|&fd| {
                // SAFETY: the descriptors are open (their owners live).
                socket2::SockRef::from(&unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) })
                    .local_addr()
                    .ok()
                    .and_then(|a| a.as_socket())
                    .map_or(0, |a| a.port())
            })
            .collect()
        });
        // The same port, for real, outside the simulation, while the
        // simulated listener holds it.
        let real = sim::without_interception(|| std::net::TcpListener::bind(("127.0.0.1", TCP)));
        assert!(real.is_ok(), "{real:?}");
        (listed, real_names)
    });
    assert!(
        !listed.contains(&TCP) && !listed.contains(&UDP),
        "{listed:?}"
    );
    assert_eq!(real_names, [0, 0, 0, 0]);
}

/// tokio's `later_reads_after_runtime_drop_report_shutdown`: a stream that
/// outlives its runtime still reads what it had received (its kernel
/// socket's queue), then reports the runtime gone in another runtime.
#[test]
fn a_stream_outliving_its_runtime_reads_what_it_had_received() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (stream, _client) = rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        client.write_all(b"hello").await.unwrap();
        let (s, _) = listener.accept().await.unwrap();
        s.readable().await.unwrap();
        sim_rt::time::sleep(Duration::from_millis(10)).await;
        (s, client)
    });
    drop(rt);
    let mut buf = [0; 8];
    assert_eq!(stream.try_read(&mut buf).unwrap(), 5);
    assert_eq!(&buf[..5], b"hello");
    assert!(stream.try_read(&mut buf).is_err(), "nothing more");
    let rt2 = Builder::new_current_thread().enable_all().build().unwrap();
    let mut stream = stream;
    let err = rt2.block_on(async { stream.read(&mut buf).await.unwrap_err() });
    assert!(sim_rt::runtime::is_rt_shutdown_err(&err), "{err}");
}
