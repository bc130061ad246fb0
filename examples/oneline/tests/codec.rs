//! tokio-util's `Framed` over a `TcpStream` on both builds: real tokio, and
//! sim-rt through the one-line swap, with no feature named by this crate
//! (tokio-util is built against crates.io tokio's io traits, which sim-rt's
//! sockets implement by default).

#[cfg(sim)]
extern crate sim_rt as tokio;

use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Framed, LinesCodec};

/// An echo of lines on `listener`, one connection.
async fn echo_lines(listener: TcpListener) {
    let (socket, _) = listener.accept().await.unwrap();
    let mut lines = Framed::new(socket, LinesCodec::new());
    while let Some(line) = lines.next().await {
        lines
            .send(format!("echo: {}", line.unwrap()))
            .await
            .unwrap();
    }
}

async fn round_trip(addr: std::net::SocketAddr) -> Vec<String> {
    let stream = TcpStream::connect(addr).await.unwrap();
    let mut lines = Framed::new(stream, LinesCodec::new());
    let mut heard = Vec::new();
    for word in ["one", "two"] {
        lines.send(word).await.unwrap();
        heard.push(lines.next().await.unwrap().unwrap());
    }
    heard
}

#[tokio::test]
async fn framed_lines_over_tcp() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(echo_lines(listener));
    assert_eq!(round_trip(addr).await, ["echo: one", "echo: two"]);
}
