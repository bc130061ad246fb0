//! Shared by the network tests: an echo server, a connected loopback
//! pair, address literals.

#![allow(dead_code)]

use std::io;
use std::net::SocketAddr;

use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream};

/// A socket address from its literal.
pub fn addr(s: &str) -> SocketAddr {
    s.parse().expect("a socket address literal")
}

/// "server" (10.0.0.1): listens on `port` and echoes each connection until
/// end of stream, then closes it.
pub fn start_echo_server(port: u16) {
    sim_rt::sim::host("server").start(move || echo(port));
}

/// A client and the server side of its connection, over loopback on
/// `port`; the accepted peer is the client's address.
pub async fn loopback_pair(port: u16) -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    let client = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (server, peer) = listener.accept().await.unwrap();
    assert_eq!(peer, client.local_addr().unwrap());
    (client, server)
}

/// Listens on `port` and echoes every connection until end of stream (or
/// an error), then closes it. Returns only if the listener fails.
pub async fn echo(port: u16) -> io::Result<()> {
    let listener = TcpListener::bind(("0.0.0.0", port)).await?;
    loop {
        let (mut socket, _) = listener.accept().await?;
        sim_rt::spawn(async move {
            let mut buf = [0u8; 1024];
            loop {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if socket.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
}
