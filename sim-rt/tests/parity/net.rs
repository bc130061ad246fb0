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
