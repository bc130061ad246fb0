//! `TcpSocket`, the raw fds of simulated sockets, `from_std`/`into_std`,
//! and what a real (socket2 or std) socket may do inside a simulation.
//!
//! The test future runs on host "main" (10.255.255.254); the first host created
//! is "server" (10.0.0.1). Ephemeral TCP ports of a host count up from
//! 49152.

mod rt_support;

mod net_support;

use std::io::{self, ErrorKind};
use std::net::{SocketAddr, ToSocketAddrs};
use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

use net_support::{addr, start_echo_server};
use rt_support::{assert_contains_all, sim as run};
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpSocket, TcpStream, UdpSocket};
use sim_rt::runtime::Builder;
use sim_rt::sim;
use socket2::{Domain, Protocol, SockRef, Socket, TcpKeepalive, Type};

/// hyper-util's `HttpConnector`, step for step
/// (`hyper_util::client::legacy::connect::http::connect`): resolve with
/// `getaddrinfo` on the blocking pool (`GaiResolver`), make a socket2
/// socket, set it non-blocking and set keepalive on the real fd, hand it to
/// `TcpSocket::from_std_stream`, set options there, connect, then
/// `set_nodelay` on the stream. Then exchange bytes with the echo server.
#[test]
fn hyper_util_connect_sequence_reaches_a_simulated_server() {
    let (reply, local, keepalive, nodelay) = run(0, async {
        start_echo_server(80);
        let addrs = sim_rt::task::spawn_blocking(|| {
            ("server", 0)
                .to_socket_addrs()
                .map(|a| a.collect::<Vec<_>>())
        })
        .await
        .unwrap()?;
        assert_eq!(addrs, vec![addr("10.0.0.1:0")]);
        let mut dst = addrs[0];
        dst.set_port(80);

        let socket = Socket::new(Domain::for_address(dst), Type::STREAM, Some(Protocol::TCP))?;
        socket.set_nonblocking(true)?;
        socket.set_tcp_keepalive(&TcpKeepalive::new().with_time(Duration::from_secs(60)))?;
        let socket = TcpSocket::from_std_stream(socket.into());
        socket.set_reuseaddr(true)?;
        socket.set_send_buffer_size(64 * 1024)?;
        socket.set_recv_buffer_size(64 * 1024)?;
        let mut stream = socket.connect(dst).await?;
        stream.set_nodelay(true)?;

        stream.write_all(b"GET / HTTP/1.1\r\n\r\n").await?;
        let mut reply = [0u8; 18];
        stream.read_exact(&mut reply).await?;
        let sock = SockRef::from(&stream);
        Ok::<_, io::Error>((
            reply.to_vec(),
            stream.local_addr()?,
            sock.keepalive()?,
            sock.tcp_nodelay()?,
        ))
    })
    .unwrap();
    assert_eq!(reply, b"GET / HTTP/1.1\r\n\r\n");
    assert_eq!(local, addr("10.255.255.254:49152"));
    assert!(
        keepalive,
        "options set through socket2 stay on the stream's fd"
    );
    assert!(nodelay, "set_nodelay on the stream is the fd's TCP_NODELAY");
}

/// `nodelay` and a zero linger set on the `TcpSocket` are the stream's; the
/// zero linger makes its drop reset the connection.
#[test]
fn tcp_socket_options_carry_over_to_the_stream() {
    let (nodelay, linger, err) = run(0, async {
        let listener = TcpListener::bind("127.0.0.1:9000").await?;
        let socket = TcpSocket::new_v4()?;
        assert!(!socket.nodelay()?);
        socket.set_nodelay(true)?;
        socket.set_zero_linger()?;
        assert_eq!(socket.linger()?, Some(Duration::ZERO));
        socket.set_keepalive(true)?;
        assert!(socket.keepalive()?);
        assert!(socket.take_error()?.is_none());
        let stream = socket.connect(addr("127.0.0.1:9000")).await?;
        let (mut server, _) = listener.accept().await?;
        let nodelay = stream.nodelay()?;
        let linger = stream.linger()?;
        drop(stream);
        let err = server.read(&mut [0; 4]).await.unwrap_err();
        Ok::<_, io::Error>((nodelay, linger, err.kind()))
    })
    .unwrap();
    assert!(nodelay);
    assert_eq!(linger, Some(Duration::ZERO));
    assert_eq!(err, ErrorKind::ConnectionReset);
}

/// bind + listen, as tokio's docs show it; the address checks a kernel
/// makes; an unbound listen takes the wildcard address and an ephemeral
/// port.
#[test]
fn tcp_socket_bind_and_listen() {
    run(0, async {
        start_echo_server(1);
        let socket = TcpSocket::new_v4()?;
        assert_eq!(socket.local_addr()?, addr("0.0.0.0:0"));
        socket.bind(addr("10.255.255.254:8080"))?;
        assert_eq!(socket.local_addr()?, addr("10.255.255.254:8080"));
        let again = socket.bind(addr("10.255.255.254:8081")).unwrap_err();
        assert_eq!(again.raw_os_error(), Some(libc::EINVAL));
        let listener = socket.listen(1024)?;
        assert_eq!(listener.local_addr()?, addr("10.255.255.254:8080"));

        // Another host's address, and the other family.
        let other = TcpSocket::new_v4()?;
        let err = other.bind(addr("10.0.0.1:80")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrNotAvailable);
        assert!(err.to_string().contains("not an address of host"), "{err}");
        let err = other.bind(addr("[::1]:80")).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EAFNOSUPPORT));
        let v6 = TcpSocket::new_v6()?;
        let err = v6.bind(addr("127.0.0.1:80")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let err = TcpSocket::new_v4()?
            .connect(addr("[::1]:80"))
            .await
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EAFNOSUPPORT));

        // The port is taken when the socket listens.
        let taken = TcpSocket::new_v4()?;
        taken.bind(addr("0.0.0.0:8080"))?;
        assert_eq!(taken.listen(16).unwrap_err().kind(), ErrorKind::AddrInUse);

        // Unbound: the wildcard address and an ephemeral port.
        let ephemeral = TcpSocket::new_v4()?.listen(16)?;
        assert_eq!(ephemeral.local_addr()?, addr("0.0.0.0:49152"));

        // A client made with a TcpSocket reaches it.
        let client = TcpSocket::new_v4()?
            .connect(addr("10.255.255.254:8080"))
            .await?;
        let (_accepted, peer) = listener.accept().await?;
        assert_eq!(peer, client.local_addr()?);
        Ok::<_, io::Error>(())
    })
    .unwrap();
}

/// A socket bound for real before the simulation cannot join it.
#[test]
fn a_socket_bound_outside_the_simulation_is_unsupported() {
    let real = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).unwrap();
    real.bind(&addr("127.0.0.1:0").into()).unwrap();
    let socket = TcpSocket::from_std_stream(real.into());
    let err = run(0, async move {
        socket.connect(addr("127.0.0.1:80")).await.unwrap_err()
    });
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert!(
        err.to_string().starts_with(
            "TcpSocket::connect: the socket was bound or connected outside the simulation"
        ),
        "{err}"
    );
}

/// The raw fd of a simulated socket is a placeholder whose options are the
/// socket's: set through socket2, read back through tokio's API.
#[test]
fn raw_fds_are_placeholders_holding_the_options() {
    run(0, async {
        let listener = TcpListener::bind("127.0.0.1:9000").await?;
        SockRef::from(&listener).set_ttl_v4(7)?;
        assert_eq!(listener.ttl()?, 7);
        let stream = TcpStream::connect("127.0.0.1:9000").await?;
        let (mut accepted, _) = listener.accept().await?;
        assert_eq!(
            accepted.ttl()?,
            7,
            "accepted streams start with the listener's TTL"
        );

        // Options set before the fd exists move into it.
        stream.set_nodelay(true)?;
        stream.set_ttl(12)?;
        let fd = stream.as_raw_fd();
        assert!(fd >= 0);
        assert_eq!(
            stream.as_fd().as_raw_fd(),
            fd,
            "the placeholder is made once"
        );
        let sock = SockRef::from(&stream);
        assert!(sock.tcp_nodelay()?);
        assert_eq!(sock.ttl_v4()?, 12);
        sock.set_tcp_nodelay(false)?;
        assert!(!stream.nodelay()?);
        // The kernel validates, as for tokio.
        assert_eq!(
            stream.set_ttl(0).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        // A zero linger set through the fd aborts the connection on drop.
        sock.set_linger(Some(Duration::ZERO))?;
        assert_eq!(stream.linger()?, Some(Duration::ZERO));
        drop(stream);
        let err = accepted.read(&mut [0; 4]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);

        let udp = UdpSocket::bind("127.0.0.1:0").await?;
        udp.set_ttl(9)?;
        let sock = SockRef::from(&udp);
        assert_eq!(sock.ttl_v4()?, 9);
        sock.set_broadcast(true)?;
        assert!(udp.broadcast()?);
        Ok::<_, io::Error>(())
    })
    .unwrap();
}

/// `from_std` of a real socket (made outside the simulation) is
/// `Unsupported`, naming the item; `into_std` hands a simulated socket to
/// std, and `from_std` takes it back (see `net_std.rs` for more).
#[test]
fn from_std_of_a_real_socket_is_unsupported_and_into_std_round_trips() {
    // Real sockets, made outside the simulation.
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let std_stream = std::net::TcpStream::connect(std_listener.local_addr().unwrap()).unwrap();
    let std_udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let errs = run(0, async move {
        let errs = vec![
            TcpStream::from_std(std_stream).unwrap_err(),
            TcpListener::try_from(std_listener).unwrap_err(),
            UdpSocket::from_std(std_udp).unwrap_err(),
        ];
        let listener = TcpListener::bind("127.0.0.1:9000").await.unwrap();
        let stream = TcpStream::connect("127.0.0.1:9000").await.unwrap();
        let (mut accepted, _) = listener.accept().await.unwrap();
        let mut std_stream = stream.into_std().unwrap();
        std::io::Write::write_all(&mut std_stream, b"via std").unwrap();
        let mut buf = [0; 7];
        accepted.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"via std");
        let mut back = TcpStream::from_std(std_stream).unwrap();
        back.write_all(b"back").await.unwrap();
        accepted.read_exact(&mut buf[..4]).await.unwrap();
        assert_eq!(&buf[..4], b"back");
        let std_listener = listener.into_std().unwrap();
        assert_eq!(std_listener.local_addr().unwrap(), addr("127.0.0.1:9000"));
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let at = udp.local_addr().unwrap();
        let udp = UdpSocket::from_std(udp.into_std().unwrap()).unwrap();
        assert_eq!(udp.local_addr().unwrap(), at);
        Ok::<_, io::Error>(errs)
    })
    .unwrap();
    let items = [
        "TcpStream::from_std",
        "TcpListener::from_std",
        "UdpSocket::from_std",
    ];
    for (err, item) in errs.iter().zip(items) {
        assert_eq!(err.kind(), ErrorKind::Unsupported, "{item}");
        assert!(err.to_string().starts_with(&format!("{item}: ")), "{err}");
        assert!(
            err.to_string().contains("made outside the simulation"),
            "{err}"
        );
    }
}

/// Outside a simulation `from_std` panics, as tokio's does outside a
/// runtime, and the panic names the caller's line.
#[test]
fn from_std_outside_a_simulation_panics_at_the_caller() {
    let std_udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let line = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = line.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let loc = info.location().unwrap();
        seen.lock()
            .unwrap()
            .push((loc.file().to_string(), loc.line()));
    }));
    let udp = std::panic::catch_unwind(move || UdpSocket::from_std(std_udp));
    let here = line!() - 1;
    let tcp = std::panic::catch_unwind(move || TcpListener::try_from(std_listener));
    std::panic::set_hook(previous);
    assert!(udp.is_err() && tcp.is_err());
    let file = file!().to_string();
    assert_eq!(
        *line.lock().unwrap(),
        vec![(file.clone(), here), (file, here + 2)]
    );
}

/// std's resolver (`getaddrinfo`) answers with the simulation's names.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn std_to_socket_addrs_resolves_simulated_hosts() {
    let (server, localhost, unknown) = run(0, async {
        sim::host("server").start(std::future::pending::<()>);
        sim::host("db")
            .ip("fd00::5".parse::<std::net::IpAddr>().unwrap())
            .start(std::future::pending::<()>);
        let server: Vec<_> = ("server", 80).to_socket_addrs().unwrap().collect();
        let db: Vec<_> = "DB.:5432".to_socket_addrs().unwrap().collect();
        assert_eq!(db, vec![addr("[fd00::5]:5432")]);
        let localhost: Vec<_> = "localhost:1".to_socket_addrs().unwrap().collect();
        let unknown = "nowhere.example:80".to_socket_addrs().unwrap_err();
        (server, localhost, unknown)
    });
    assert_eq!(server, vec![addr("10.0.0.1:80")]);
    assert_eq!(localhost, vec![addr("127.0.0.1:1"), addr("[::1]:1")]);
    assert!(
        unknown
            .to_string()
            .starts_with("failed to lookup address information: Name or service not known"),
        "{unknown}"
    );
}

/// `getaddrinfo` called directly: hints, one entry per socket type, the
/// canonical name, `AI_V4MAPPED`; the list is freed by glibc's
/// `freeaddrinfo`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn getaddrinfo_follows_its_hints() {
    use std::ffi::{CStr, CString};

    /// (family, socktype, protocol, address, canonical name) of each entry.
    type Entry = (i32, i32, i32, SocketAddr, Option<String>);
    fn gai(node: &str, service: Option<&str>, hints: libc::addrinfo) -> Result<Vec<Entry>, i32> {
        let node = CString::new(node).unwrap();
        let service = service.map(|s| CString::new(s).unwrap());
        let mut res = std::ptr::null_mut();
        // SAFETY: valid strings, hints and out pointer.
        let rc = unsafe {
            libc::getaddrinfo(
                node.as_ptr(),
                service.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                &hints,
                &mut res,
            )
        };
        if rc != 0 {
            return Err(rc);
        }
        let mut out = Vec::new();
        let mut p = res;
        while !p.is_null() {
            // SAFETY: `p` is an entry of the list getaddrinfo returned.
            let ai = unsafe { &*p };
            let sa = unsafe {
                socket2::SockAddr::try_init(|storage, len| {
                    std::ptr::copy_nonoverlapping(
                        ai.ai_addr.cast::<u8>(),
                        storage.cast::<u8>(),
                        ai.ai_addrlen as usize,
                    );
                    *len = ai.ai_addrlen;
                    Ok(())
                })
            }
            .unwrap()
            .1;
            let canon = (!ai.ai_canonname.is_null()).then(|| {
                unsafe { CStr::from_ptr(ai.ai_canonname) }
                    .to_string_lossy()
                    .into_owned()
            });
            out.push((
                ai.ai_family,
                ai.ai_socktype,
                ai.ai_protocol,
                sa.as_socket().unwrap(),
                canon,
            ));
            p = ai.ai_next;
        }
        // SAFETY: the list getaddrinfo returned, freed once.
        unsafe { libc::freeaddrinfo(res) };
        Ok(out)
    }
    fn hints(family: i32, socktype: i32, flags: i32) -> libc::addrinfo {
        // SAFETY: addrinfo is plain data; all-zero is "no hints".
        let mut h: libc::addrinfo = unsafe { std::mem::zeroed() };
        h.ai_family = family;
        h.ai_socktype = socktype;
        h.ai_flags = flags;
        h
    }

    run(0, async {
        sim::host("server").start(std::future::pending::<()>);
        let all = gai(
            "server",
            Some("8080"),
            hints(libc::AF_UNSPEC, 0, libc::AI_CANONNAME),
        )
        .unwrap();
        let a = addr("10.0.0.1:8080");
        assert_eq!(
            all,
            vec![
                (
                    libc::AF_INET,
                    libc::SOCK_STREAM,
                    libc::IPPROTO_TCP,
                    a,
                    Some("server".into())
                ),
                (libc::AF_INET, libc::SOCK_DGRAM, libc::IPPROTO_UDP, a, None),
                (libc::AF_INET, libc::SOCK_RAW, 0, a, None),
            ]
        );
        let stream = hints(libc::AF_INET6, libc::SOCK_STREAM, 0);
        assert_eq!(gai("server", None, stream), Err(libc::EAI_NONAME));
        let mapped = gai(
            "server",
            None,
            hints(libc::AF_INET6, libc::SOCK_STREAM, libc::AI_V4MAPPED),
        )
        .unwrap();
        assert_eq!(mapped[0].3, addr("[::ffff:10.0.0.1]:0"));
        assert_eq!(gai("server", Some("http"), stream), Err(libc::EAI_SERVICE));
        assert_eq!(gai("nowhere", None, stream), Err(libc::EAI_NONAME));
        let numeric = hints(libc::AF_UNSPEC, libc::SOCK_STREAM, libc::AI_NUMERICHOST);
        assert_eq!(gai("server", None, numeric), Err(libc::EAI_NONAME));
        assert_eq!(
            gai("10.9.9.9", Some("1"), numeric).unwrap()[0].3,
            addr("10.9.9.9:1")
        );
    });
}

/// A real socket made outside a simulation cannot reach the network from
/// inside it: binding, sending or connecting on it is refused, with the
/// note saying what to use (one made inside is simulated: `net_std.rs`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_real_socket_cannot_reach_the_network_from_a_simulation() {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).unwrap();
    let udp = Socket::new(Domain::IPV4, Type::DGRAM, None).unwrap();
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let failure = rt
        .try_block_on(async move {
            let err = socket.bind(&addr("127.0.0.1:0").into()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::PermissionDenied);
            let err = udp.send_to(b"x", &addr("10.0.0.1:53").into()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::PermissionDenied);
            socket.connect(&addr("10.0.0.1:80").into()).unwrap();
        })
        .unwrap_err();
    let msg = failure.message().unwrap();
    assert_contains_all(
        msg,
        &[
            "note: a real socket, made outside the simulation, was used inside it",
            "TcpSocket::from_std_stream",
        ],
    );
}

/// `UdpSocket`'s `BufMut` receives, its placeholder-held options, and
/// multicast membership (not simulated).
#[test]
fn udp_buf_receives_options_and_multicast() {
    run(0, async {
        let a = UdpSocket::bind("127.0.0.1:0").await?;
        let b = UdpSocket::bind("127.0.0.1:0").await?;
        b.connect(a.local_addr()?).await?;
        // One datagram at a time: datagrams may reorder, even on loopback.
        b.send(b"one").await?;
        let mut buf = Vec::with_capacity(16);
        let (n, from) = a.recv_buf_from(&mut buf).await?;
        assert_eq!((n, from, &buf[..]), (3, b.local_addr()?, &b"one"[..]));
        a.connect(b.local_addr()?).await?;
        b.send(b"two").await?;
        assert_eq!(a.recv_buf(&mut buf).await?, 3);
        assert_eq!(buf, b"onetwo");
        b.send(b"three").await?;
        a.readable().await?;
        let mut small = [0u8; 2];
        let mut slice = &mut small[..];
        assert_eq!(
            a.try_recv_buf(&mut slice)?,
            2,
            "truncated to the room given"
        );
        assert_eq!(&small, b"th");
        let err = a.try_recv_buf_from(&mut Vec::with_capacity(4)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);

        a.set_multicast_ttl_v4(3)?;
        assert_eq!(a.multicast_ttl_v4()?, 3);
        a.set_multicast_loop_v4(false)?;
        assert!(!a.multicast_loop_v4()?);
        a.set_tos_v4(0x10)?;
        assert_eq!(a.tos_v4()?, 0x10);
        assert_eq!(a.device()?, None);
        let err = a
            .join_multicast_v4("239.0.0.1".parse().unwrap(), "0.0.0.0".parse().unwrap())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported);
        assert!(
            err.to_string()
                .starts_with("UdpSocket::join_multicast_v4(239.0.0.1): multicast is not simulated"),
            "{err}"
        );
        Ok::<_, io::Error>(())
    })
    .unwrap();
}
