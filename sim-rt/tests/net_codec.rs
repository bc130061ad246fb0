//! tokio-util codecs over simulated TCP: `Framed<TcpStream,
//! LengthDelimitedCodec>` over a sim socket.
//!
//! sim_rt owns its `io` traits; this test's tokio-util is built against
//! crates.io tokio, so the socket goes through [`Compat`], which presents
//! sim_rt's `AsyncRead`/`AsyncWrite` as tokio's. (In the whole-graph swap
//! tokio-util is built against sim_rt's traits and needs no adapter.)

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::sim;
use tokio_util::codec::{Framed, LengthDelimitedCodec};

/// A sim_rt reader/writer seen through crates.io tokio's io traits.
struct Compat<T>(T);

impl<T: sim_rt::io::AsyncRead + Unpin> tokio::io::AsyncRead for Compat<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut inner = sim_rt::io::ReadBuf::new(buf.initialize_unfilled());
        ready!(Pin::new(&mut self.0).poll_read(cx, &mut inner))?;
        let n = inner.filled().len();
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<T: sim_rt::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Compat<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

#[sim_rt::test]
async fn length_delimited_frames_round_trip() {
    sim::host("server").start(|| async {
        let listener = TcpListener::bind("0.0.0.0:4000").await?;
        let (socket, _) = listener.accept().await?;
        let mut frames = Framed::new(Compat(socket), LengthDelimitedCodec::new());
        while let Some(frame) = frames.next().await {
            let mut frame = frame?.to_vec();
            frame.reverse();
            frames.send(Bytes::from(frame)).await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let socket = TcpStream::connect("server:4000").await.unwrap();
    let mut frames = Framed::new(Compat(socket), LengthDelimitedCodec::new());
    // Frames of many sizes, including ones larger than a segment, so frame
    // boundaries and segment boundaries disagree.
    let sizes = [0usize, 1, 7, 100, 16 * 1024 + 3, 70_000];
    for (i, n) in sizes.into_iter().enumerate() {
        let msg: Vec<u8> = (0..n).map(|j| (i * 31 + j) as u8).collect();
        frames.send(Bytes::from(msg.clone())).await.unwrap();
        let back = frames.next().await.unwrap().unwrap();
        let mut expected = msg;
        expected.reverse();
        assert_eq!(back.len(), n);
        assert_eq!(&back[..], &expected[..]);
    }
    // Closing our side ends the server's stream; it closes too.
    let mut socket = frames.into_inner().0;
    sim_rt::io::AsyncWriteExt::shutdown(&mut socket)
        .await
        .unwrap();
    let mut rest = Vec::new();
    let n = sim_rt::io::AsyncReadExt::read_to_end(&mut socket, &mut rest)
        .await
        .unwrap();
    assert_eq!(n, 0);
}
