// Included by tests/parity.rs twice, like code.rs: `tokio::net` items pinned
// to tokio's signatures, and a tokio-shaped TCP + UDP service that runs over
// localhost on both runtimes.

#[allow(dead_code, clippy::type_complexity)]
fn net_signatures() {
    use std::net::SocketAddr;
    use std::task::{Context, Poll};
    use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
    use tokio::net::{TcpListener, TcpStream, UdpSocket};
    fn future_of<T, F: std::future::Future<Output = T>>(_: F) {}

    // addresses
    future_of::<io::Result<TcpListener>, _>(TcpListener::bind("localhost:0"));
    future_of::<io::Result<TcpListener>, _>(TcpListener::bind(("localhost", 0)));
    future_of::<io::Result<TcpListener>, _>(TcpListener::bind(String::from("127.0.0.1:0")));
    future_of::<io::Result<TcpListener>, _>(TcpListener::bind((
        std::net::IpAddr::from([127, 0, 0, 1]),
        0,
    )));
    future_of::<io::Result<TcpListener>, _>(TcpListener::bind((
        std::net::Ipv4Addr::LOCALHOST,
        0,
    )));
    future_of::<io::Result<TcpListener>, _>(TcpListener::bind((String::from("localhost"), 0)));
    let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
    future_of::<io::Result<TcpStream>, _>(TcpStream::connect(addr));
    future_of::<io::Result<TcpStream>, _>(TcpStream::connect(&addr));
    future_of::<io::Result<TcpStream>, _>(TcpStream::connect(&[addr][..]));
    future_of::<io::Result<()>, _>(async {
        let found: Vec<SocketAddr> = tokio::net::lookup_host("localhost:1").await?.collect();
        let _ = found;
        Ok(())
    });

    // TcpListener
    fn listener(l: &TcpListener, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        let _: io::Result<SocketAddr> = l.local_addr();
        let _: io::Result<u32> = l.ttl();
        let _: io::Result<()> = l.set_ttl(64);
        future_of::<io::Result<(TcpStream, SocketAddr)>, _>(l.accept());
        l.poll_accept(cx)
    }
    let _ = listener;

    // TcpStream
    fn stream(s: &mut TcpStream, cx: &mut Context<'_>, buf: &mut [u8]) {
        let _: io::Result<SocketAddr> = s.local_addr();
        let _: io::Result<SocketAddr> = s.peer_addr();
        let _: io::Result<()> = s.set_nodelay(true);
        let _: io::Result<bool> = s.nodelay();
        let _: io::Result<u32> = s.ttl();
        let _: io::Result<()> = s.set_ttl(64);
        let _: io::Result<usize> = s.try_read(buf);
        let _: io::Result<usize> = s.try_write(b"x");
        let _: io::Result<usize> = s.try_read_buf(&mut Vec::<u8>::new());
        let _: Poll<io::Result<()>> = s.poll_read_ready(cx);
        let _: Poll<io::Result<()>> = s.poll_write_ready(cx);
        future_of::<io::Result<()>, _>(s.readable());
        future_of::<io::Result<()>, _>(s.writable());
        future_of::<io::Result<usize>, _>(s.peek(buf));
        let (r, w): (ReadHalf<'_>, WriteHalf<'_>) = s.split();
        let _ = (r, w);
    }
    let _ = stream;
    let _: fn(TcpStream) -> (OwnedReadHalf, OwnedWriteHalf) = TcpStream::into_split;
    let _: fn(OwnedReadHalf, OwnedWriteHalf) -> Result<TcpStream, ReuniteError> =
        OwnedReadHalf::reunite;
    let _: fn(OwnedWriteHalf, OwnedReadHalf) -> Result<TcpStream, ReuniteError> =
        OwnedWriteHalf::reunite;
    let _: fn(OwnedWriteHalf) = OwnedWriteHalf::forget;
    fn auto<T: Send + Sync + Unpin + tokio::io::AsyncRead>() {}
    fn auto_w<T: Send + Sync + Unpin + tokio::io::AsyncWrite>() {}
    auto::<TcpStream>();
    auto_w::<TcpStream>();
    auto::<OwnedReadHalf>();
    auto_w::<OwnedWriteHalf>();
    auto::<ReadHalf<'static>>();
    auto_w::<WriteHalf<'static>>();
    fn send_sync<T: Send + Sync>() {}
    send_sync::<TcpListener>();
    send_sync::<UdpSocket>();
    fn error<T: std::error::Error>() {}
    error::<ReuniteError>();

    // UdpSocket
    future_of::<io::Result<UdpSocket>, _>(UdpSocket::bind("0.0.0.0:0"));
    fn udp(u: &UdpSocket, cx: &mut Context<'_>, buf: &mut [u8], to: SocketAddr) {
        future_of::<io::Result<()>, _>(u.connect("127.0.0.1:1"));
        future_of::<io::Result<usize>, _>(u.send(b"x"));
        future_of::<io::Result<usize>, _>(u.recv(buf));
        future_of::<io::Result<usize>, _>(u.send_to(b"x", "localhost:1"));
        future_of::<io::Result<(usize, SocketAddr)>, _>(u.recv_from(buf));
        future_of::<io::Result<(usize, SocketAddr)>, _>(u.peek_from(buf));
        future_of::<io::Result<()>, _>(u.readable());
        future_of::<io::Result<()>, _>(u.writable());
        let _: io::Result<usize> = u.try_send_to(b"x", to);
        let _: io::Result<(usize, SocketAddr)> = u.try_recv_from(buf);
        let _: io::Result<usize> = u.try_send(b"x");
        let _: io::Result<usize> = u.try_recv(buf);
        let _: io::Result<SocketAddr> = u.local_addr();
        let _: io::Result<SocketAddr> = u.peer_addr();
        let _: Poll<io::Result<usize>> = u.poll_send(cx, b"x");
        let _: Poll<io::Result<usize>> = u.poll_send_to(cx, b"x", to);
        let mut rb = tokio::io::ReadBuf::new(buf);
        let _: Poll<io::Result<()>> = u.poll_recv(cx, &mut rb);
        let _: Poll<io::Result<SocketAddr>> = u.poll_recv_from(cx, &mut rb);
        let _: Poll<io::Result<()>> = u.poll_recv_ready(cx);
        let _: Poll<io::Result<()>> = u.poll_send_ready(cx);
    }
    let _ = udp;
}

/// `TcpSocket`, the std conversions and raw fds, and the Unix items, pinned
/// to tokio's signatures.
#[allow(dead_code, deprecated, clippy::type_complexity)]
fn net_socket_signatures() {
    use std::net::SocketAddr;
    use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd};
    use std::task::{Context, Poll};
    use std::time::Duration;
    use tokio::net::{TcpListener, TcpSocket, TcpStream, UdpSocket};
    fn future_of<T, F: std::future::Future<Output = T> + Send>(_: F) {}

    // TcpSocket.
    let _: fn() -> io::Result<TcpSocket> = TcpSocket::new_v4;
    let _: fn() -> io::Result<TcpSocket> = TcpSocket::new_v6;
    let _: fn(&TcpSocket, bool) -> io::Result<()> = TcpSocket::set_keepalive;
    let _: fn(&TcpSocket) -> io::Result<bool> = TcpSocket::keepalive;
    let _: fn(&TcpSocket, bool) -> io::Result<()> = TcpSocket::set_reuseaddr;
    let _: fn(&TcpSocket) -> io::Result<bool> = TcpSocket::reuseaddr;
    let _: fn(&TcpSocket, bool) -> io::Result<()> = TcpSocket::set_reuseport;
    let _: fn(&TcpSocket) -> io::Result<bool> = TcpSocket::reuseport;
    let _: fn(&TcpSocket, u32) -> io::Result<()> = TcpSocket::set_send_buffer_size;
    let _: fn(&TcpSocket) -> io::Result<u32> = TcpSocket::send_buffer_size;
    let _: fn(&TcpSocket, u32) -> io::Result<()> = TcpSocket::set_recv_buffer_size;
    let _: fn(&TcpSocket) -> io::Result<u32> = TcpSocket::recv_buffer_size;
    let _: fn(&TcpSocket, Option<Duration>) -> io::Result<()> = TcpSocket::set_linger;
    let _: fn(&TcpSocket) -> io::Result<()> = TcpSocket::set_zero_linger;
    let _: fn(&TcpSocket) -> io::Result<Option<Duration>> = TcpSocket::linger;
    let _: fn(&TcpSocket, bool) -> io::Result<()> = TcpSocket::set_nodelay;
    let _: fn(&TcpSocket) -> io::Result<bool> = TcpSocket::nodelay;
    let _: fn(&TcpSocket) -> io::Result<u32> = TcpSocket::tclass_v6;
    let _: fn(&TcpSocket, u32) -> io::Result<()> = TcpSocket::set_tclass_v6;
    let _: fn(&TcpSocket) -> io::Result<u32> = TcpSocket::tos_v4;
    let _: fn(&TcpSocket) -> io::Result<u32> = TcpSocket::tos;
    let _: fn(&TcpSocket, u32) -> io::Result<()> = TcpSocket::set_tos_v4;
    let _: fn(&TcpSocket, u32) -> io::Result<()> = TcpSocket::set_tos;
    let _: fn(&TcpSocket) -> io::Result<Option<Vec<u8>>> = TcpSocket::device;
    let _: fn(&TcpSocket, Option<&[u8]>) -> io::Result<()> = TcpSocket::bind_device;
    let _: fn(&TcpSocket) -> io::Result<SocketAddr> = TcpSocket::local_addr;
    let _: fn(&TcpSocket) -> io::Result<Option<io::Error>> = TcpSocket::take_error;
    let _: fn(&TcpSocket, SocketAddr) -> io::Result<()> = TcpSocket::bind;
    let _: fn(TcpSocket, u32) -> io::Result<TcpListener> = TcpSocket::listen;
    let _: fn(std::net::TcpStream) -> TcpSocket = TcpSocket::from_std_stream;
    fn socket_connect(s: TcpSocket, a: SocketAddr) {
        future_of::<io::Result<TcpStream>, _>(s.connect(a));
    }
    fn fd_traits<T: AsRawFd + AsFd + FromRawFd + IntoRawFd + std::fmt::Debug + Send + Sync + Unpin>(
    ) {
    }
    fd_traits::<TcpSocket>();

    // std conversions and raw fds of the socket types.
    let _: fn(std::net::TcpStream) -> io::Result<TcpStream> = TcpStream::from_std;
    let _: fn(TcpStream) -> io::Result<std::net::TcpStream> = TcpStream::into_std;
    let _: fn(std::net::TcpListener) -> io::Result<TcpListener> = TcpListener::from_std;
    let _: fn(TcpListener) -> io::Result<std::net::TcpListener> = TcpListener::into_std;
    let _: fn(std::net::UdpSocket) -> io::Result<UdpSocket> = UdpSocket::from_std;
    let _: fn(UdpSocket) -> io::Result<std::net::UdpSocket> = UdpSocket::into_std;
    fn try_from_std<T: TryFrom<S, Error = io::Error>, S>() {}
    try_from_std::<TcpStream, std::net::TcpStream>();
    try_from_std::<TcpListener, std::net::TcpListener>();
    try_from_std::<UdpSocket, std::net::UdpSocket>();
    fn raw_fd<T: AsRawFd + AsFd>() {}
    raw_fd::<TcpStream>();
    raw_fd::<TcpListener>();
    raw_fd::<UdpSocket>();
    let _: fn(&TcpStream) -> io::Result<Option<io::Error>> = TcpStream::take_error;
    let _: fn(&TcpStream) -> io::Result<bool> = TcpStream::quickack;
    let _: fn(&TcpStream, bool) -> io::Result<()> = TcpStream::set_quickack;
    let _: fn(&TcpStream) -> io::Result<Option<Duration>> = TcpStream::linger;
    let _: fn(&TcpStream) -> io::Result<()> = TcpStream::set_zero_linger;

    // UdpSocket: BufMut receives and the options tokio exposes.
    fn udp_more(u: &UdpSocket, v: &mut Vec<u8>) {
        future_of::<io::Result<usize>, _>(u.recv_buf(v));
        let _: io::Result<usize> = u.try_recv_buf(&mut Vec::<u8>::new());
        let _: io::Result<(usize, SocketAddr)> = u.try_recv_buf_from(&mut Vec::<u8>::new());
    }
    fn udp_more_from(u: &UdpSocket, v: &mut Vec<u8>) {
        future_of::<io::Result<(usize, SocketAddr)>, _>(u.recv_buf_from(v));
    }
    let _: fn(&UdpSocket) -> io::Result<bool> = UdpSocket::multicast_loop_v4;
    let _: fn(&UdpSocket, bool) -> io::Result<()> = UdpSocket::set_multicast_loop_v4;
    let _: fn(&UdpSocket) -> io::Result<u32> = UdpSocket::multicast_ttl_v4;
    let _: fn(&UdpSocket, u32) -> io::Result<()> = UdpSocket::set_multicast_ttl_v4;
    let _: fn(&UdpSocket) -> io::Result<bool> = UdpSocket::multicast_loop_v6;
    let _: fn(&UdpSocket, bool) -> io::Result<()> = UdpSocket::set_multicast_loop_v6;
    let _: fn(&UdpSocket) -> io::Result<u32> = UdpSocket::tclass_v6;
    let _: fn(&UdpSocket, u32) -> io::Result<()> = UdpSocket::set_tclass_v6;
    let _: fn(&UdpSocket) -> io::Result<u32> = UdpSocket::tos_v4;
    let _: fn(&UdpSocket) -> io::Result<u32> = UdpSocket::tos;
    let _: fn(&UdpSocket, u32) -> io::Result<()> = UdpSocket::set_tos_v4;
    let _: fn(&UdpSocket, u32) -> io::Result<()> = UdpSocket::set_tos;
    let _: fn(&UdpSocket) -> io::Result<Option<Vec<u8>>> = UdpSocket::device;
    let _: fn(&UdpSocket, Option<&[u8]>) -> io::Result<()> = UdpSocket::bind_device;
    let _: fn(&UdpSocket, std::net::Ipv4Addr, std::net::Ipv4Addr) -> io::Result<()> =
        UdpSocket::join_multicast_v4;
    let _: fn(&UdpSocket, &std::net::Ipv6Addr, u32) -> io::Result<()> = UdpSocket::join_multicast_v6;
    let _: fn(&UdpSocket, std::net::Ipv4Addr, std::net::Ipv4Addr) -> io::Result<()> =
        UdpSocket::leave_multicast_v4;
    let _: fn(&UdpSocket, &std::net::Ipv6Addr, u32) -> io::Result<()> =
        UdpSocket::leave_multicast_v6;

    // Unix domain sockets.
    use tokio::net::unix::{self, pipe};
    use tokio::net::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
    fn unix_futures(p: &'static str, a: &'static unix::SocketAddr) {
        future_of::<io::Result<UnixStream>, _>(UnixStream::connect(p));
        future_of::<io::Result<UnixStream>, _>(UnixStream::connect_addr(a));
    }
    let _: fn() -> io::Result<(UnixStream, UnixStream)> = UnixStream::pair;
    let _: fn(std::os::unix::net::UnixStream) -> io::Result<UnixStream> = UnixStream::from_std;
    let _: fn(UnixStream) -> io::Result<std::os::unix::net::UnixStream> = UnixStream::into_std;
    fn unix_stream(s: &mut UnixStream, cx: &mut Context<'_>, buf: &mut [u8]) {
        let _: io::Result<unix::SocketAddr> = s.local_addr();
        let _: io::Result<unix::SocketAddr> = s.peer_addr();
        let _: io::Result<unix::UCred> = s.peer_cred();
        let _: io::Result<Option<io::Error>> = s.take_error();
        let _: io::Result<usize> = s.try_read(buf);
        let _: io::Result<usize> = s.try_read_buf(&mut Vec::<u8>::new());
        let _: io::Result<usize> = s.try_write(b"x");
        let _: Poll<io::Result<()>> = s.poll_read_ready(cx);
        let _: Poll<io::Result<()>> = s.poll_write_ready(cx);
        future_of::<io::Result<()>, _>(s.readable());
        future_of::<io::Result<()>, _>(s.writable());
        let (r, w): (unix::ReadHalf<'_>, unix::WriteHalf<'_>) = s.split();
        let _: io::Result<usize> = r.try_read(buf);
        let _: io::Result<usize> = w.try_write(b"x");
    }
    let _: fn(UnixStream) -> (unix::OwnedReadHalf, unix::OwnedWriteHalf) = UnixStream::into_split;
    let _: fn(unix::OwnedReadHalf, unix::OwnedWriteHalf) -> Result<UnixStream, unix::ReuniteError> =
        unix::OwnedReadHalf::reunite;
    let _: fn(unix::OwnedWriteHalf) = unix::OwnedWriteHalf::forget;
    fn unix_stream_traits<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + AsRawFd + AsFd + Send + Sync + Unpin>() {}
    unix_stream_traits::<UnixStream>();
    try_from_std::<UnixStream, std::os::unix::net::UnixStream>();

    let _: fn(&'static str) -> io::Result<UnixListener> = UnixListener::bind::<&'static str>;
    let _: fn(&unix::SocketAddr) -> io::Result<UnixListener> = UnixListener::bind_addr;
    let _: fn(std::os::unix::net::UnixListener) -> io::Result<UnixListener> = UnixListener::from_std;
    fn unix_listener(l: &UnixListener, cx: &mut Context<'_>) {
        future_of::<io::Result<(UnixStream, unix::SocketAddr)>, _>(l.accept());
        let _: Poll<io::Result<(UnixStream, unix::SocketAddr)>> = l.poll_accept(cx);
        let _: io::Result<unix::SocketAddr> = l.local_addr();
    }
    raw_fd::<UnixListener>();

    let _: fn(&'static str) -> io::Result<UnixDatagram> = UnixDatagram::bind::<&'static str>;
    let _: fn() -> io::Result<(UnixDatagram, UnixDatagram)> = UnixDatagram::pair;
    let _: fn() -> io::Result<UnixDatagram> = UnixDatagram::unbound;
    fn unix_datagram(d: &UnixDatagram, cx: &mut Context<'_>, buf: &mut [u8]) {
        let _: io::Result<()> = d.connect("/x");
        future_of::<io::Result<usize>, _>(d.send_to(b"x", "/x"));
        future_of::<io::Result<(usize, unix::SocketAddr)>, _>(d.recv_from(buf));
        let _: io::Result<usize> = d.try_send_to(b"x", "/x");
        let _: io::Result<(usize, unix::SocketAddr)> = d.try_recv_buf_from(&mut Vec::<u8>::new());
        let mut rb = tokio::io::ReadBuf::new(buf);
        let _: Poll<io::Result<unix::SocketAddr>> = d.poll_recv_from(cx, &mut rb);
        let _: io::Result<()> = d.shutdown(std::net::Shutdown::Both);
    }
    raw_fd::<UnixDatagram>();

    let _: fn() -> io::Result<UnixSocket> = UnixSocket::new_stream;
    let _: fn(UnixSocket) -> io::Result<UnixDatagram> = UnixSocket::datagram;
    fd_traits::<UnixSocket>();

    let _: fn() -> io::Result<(pipe::Sender, pipe::Receiver)> = pipe::pipe;
    let _: fn(&mut pipe::OpenOptions, bool) -> &mut pipe::OpenOptions = pipe::OpenOptions::read_write;
    let _: fn(std::fs::File) -> io::Result<pipe::Sender> = pipe::Sender::from_file;
    let _: fn(std::os::fd::OwnedFd) -> io::Result<pipe::Receiver> = pipe::Receiver::from_owned_fd;
    let _: fn(pipe::Sender) -> io::Result<std::os::fd::OwnedFd> = pipe::Sender::into_blocking_fd;
    fn opts<T: Clone + Default + std::fmt::Debug>() {}
    opts::<pipe::OpenOptions>();

    let _: fn(&unix::SocketAddr) -> bool = unix::SocketAddr::is_unnamed;
    let _: fn(&unix::SocketAddr) -> Option<&std::path::Path> = unix::SocketAddr::as_pathname;
    let _: fn(&unix::UCred) -> unix::uid_t = unix::UCred::uid;
    let _: fn(&unix::UCred) -> unix::gid_t = unix::UCred::gid;
    let _: fn(&unix::UCred) -> Option<unix::pid_t> = unix::UCred::pid;
    fn ucred<T: Copy + Eq + std::hash::Hash + std::fmt::Debug>() {}
    ucred::<unix::UCred>();
}

/// A line-protocol TCP service and a UDP echo, both on localhost, in tokio
/// style: what a user's code does with `tokio::net`.
async fn net_service() -> io::Result<(String, Vec<u8>)> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    use tokio::net::{TcpListener, TcpStream, UdpSocket};

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    assert_ne!(addr.port(), 0);
    let server = tokio::spawn(async move {
        let (socket, peer) = listener.accept().await?;
        assert_eq!(peer.ip(), addr.ip());
        let (r, mut w) = socket.into_split();
        let mut lines = BufReader::new(r).lines();
        while let Some(line) = lines.next_line().await? {
            w.write_all(format!("{}\n", line.to_uppercase()).as_bytes())
                .await?;
        }
        w.shutdown().await?;
        Ok::<_, io::Error>(())
    });
    let mut client = TcpStream::connect(addr).await?;
    client.set_nodelay(true)?;
    assert!(client.nodelay()?);
    assert_eq!(client.peer_addr()?, addr);
    {
        let (mut r, mut w) = client.split();
        w.write_all(b"hello\nworld\n").await?;
        w.shutdown().await?;
        let mut out = String::new();
        r.read_to_string(&mut out).await?;
        server.await.unwrap()?;
        assert_eq!(out, "HELLO\nWORLD\n");
    }
    let mut reply = String::new();
    reply.push_str("tcp ok");

    let a = UdpSocket::bind("127.0.0.1:0").await?;
    let b = UdpSocket::bind("127.0.0.1:0").await?;
    b.connect(a.local_addr()?).await?;
    b.send(b"ping").await?;
    let mut buf = [0u8; 16];
    let (n, from) = a.recv_from(&mut buf).await?;
    assert_eq!(from, b.local_addr()?);
    a.send_to(&buf[..n], from).await?;
    let n = b.recv(&mut buf).await?;
    let addrs: Vec<_> = tokio::net::lookup_host("localhost:80").await?.collect();
    assert!(addrs.iter().any(|a| a.ip().is_loopback() && a.port() == 80));
    Ok((reply, buf[..n].to_vec()))
}

#[tokio::test]
async fn net_service_runs() {
    let (tcp, udp) = net_service().await.unwrap();
    assert_eq!(tcp, "tcp ok");
    assert_eq!(udp, b"ping");
}

#[tokio::test]
async fn connection_refused_on_a_closed_port() {
    use tokio::net::{TcpListener, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let err = TcpStream::connect(addr).await.unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
    let held = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = TcpListener::bind(held.local_addr().unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
}

/// `ready(Interest)`, `try_io` and `async_io`, pinned to tokio's signatures:
/// `try_io` takes an `FnOnce`, `async_io` an `FnMut`, and every future is
/// `Send` when the closure is.
#[allow(dead_code, clippy::type_complexity)]
fn net_ready_signatures() {
    use tokio::io::{Interest, Ready};
    use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
    use tokio::net::{TcpStream, UdpSocket};
    fn future_of<T, F: std::future::Future<Output = T> + Send>(_: F) {}

    fn stream(s: &TcpStream, buf: &mut [u8]) {
        future_of::<io::Result<Ready>, _>(s.ready(Interest::READABLE | Interest::WRITABLE));
        let owned = vec![1u8];
        let _: io::Result<Vec<u8>> = s.try_io(Interest::READABLE, move || Ok(owned));
        let _: io::Result<usize> = s.try_io(Interest::READABLE, || s.try_read(buf));
        let mut calls = 0;
        future_of::<io::Result<usize>, _>(s.async_io(Interest::WRITABLE, move || {
            calls += 1;
            Ok(calls)
        }));
    }
    let _ = stream;
    fn halves(r: &ReadHalf<'_>, w: &WriteHalf<'_>, or: &OwnedReadHalf, ow: &OwnedWriteHalf) {
        future_of::<io::Result<Ready>, _>(r.ready(Interest::READABLE));
        future_of::<io::Result<Ready>, _>(w.ready(Interest::WRITABLE));
        future_of::<io::Result<Ready>, _>(or.ready(Interest::READABLE));
        future_of::<io::Result<Ready>, _>(ow.ready(Interest::WRITABLE));
    }
    let _ = halves;
    fn udp(u: &UdpSocket, buf: &mut [u8]) {
        future_of::<io::Result<Ready>, _>(u.ready(Interest::READABLE));
        let _: io::Result<(usize, std::net::SocketAddr)> =
            u.try_io(Interest::READABLE, || u.try_recv_from(buf));
        let mut calls = 0;
        future_of::<io::Result<usize>, _>(u.async_io(Interest::WRITABLE, move || {
            calls += 1;
            Ok(calls)
        }));
    }
    let _ = udp;

    #[cfg(unix)]
    {
        use tokio::net::unix::{self, pipe};
        use tokio::net::{UnixDatagram, UnixStream};
        fn unix_stream(s: &UnixStream, buf: &mut [u8]) {
            future_of::<io::Result<Ready>, _>(s.ready(Interest::READABLE));
            let _: io::Result<usize> = s.try_io(Interest::READABLE, || s.try_read(buf));
            let mut calls = 0;
            future_of::<io::Result<usize>, _>(s.async_io(Interest::WRITABLE, move || {
                calls += 1;
                Ok(calls)
            }));
        }
        let _ = unix_stream;
        fn unix_halves(
            r: &unix::ReadHalf<'_>,
            w: &unix::WriteHalf<'_>,
            or: &unix::OwnedReadHalf,
            ow: &unix::OwnedWriteHalf,
        ) {
            future_of::<io::Result<Ready>, _>(r.ready(Interest::READABLE));
            future_of::<io::Result<Ready>, _>(w.ready(Interest::WRITABLE));
            future_of::<io::Result<Ready>, _>(or.ready(Interest::READABLE));
            future_of::<io::Result<Ready>, _>(ow.ready(Interest::WRITABLE));
        }
        let _ = unix_halves;
        fn unix_datagram(d: &UnixDatagram, buf: &mut [u8]) {
            future_of::<io::Result<Ready>, _>(d.ready(Interest::READABLE));
            let _: io::Result<usize> = d.try_io(Interest::READABLE, || d.try_recv(buf));
            let mut calls = 0;
            future_of::<io::Result<usize>, _>(d.async_io(Interest::WRITABLE, move || {
                calls += 1;
                Ok(calls)
            }));
        }
        let _ = unix_datagram;
        fn pipes(s: &pipe::Sender, r: &pipe::Receiver) {
            future_of::<io::Result<Ready>, _>(s.ready(Interest::WRITABLE));
            future_of::<io::Result<Ready>, _>(r.ready(Interest::READABLE));
        }
        let _ = pipes;
    }
}
