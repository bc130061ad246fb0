//! tokio-util codecs over simulated TCP: `Framed<TcpStream,
//! LengthDelimitedCodec>` over a sim socket.
//!
//! sim_rt owns its `io` traits; this test's tokio-util is built against
//! crates.io tokio, as a one-line-swap crate's dependencies are, and takes
//! the sim socket through the `tokio-compat` feature's impls of crates.io
//! tokio's traits. (In the whole-graph swap tokio-util is built against
//! sim_rt's traits and needs no feature.)

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::sim;
use tokio_util::codec::{Framed, LengthDelimitedCodec};

#[sim_rt::test]
async fn length_delimited_frames_round_trip() {
    sim::host("server").start(|| async {
        let listener = TcpListener::bind("0.0.0.0:4000").await?;
        let (socket, _) = listener.accept().await?;
        let mut frames = Framed::new(socket, LengthDelimitedCodec::new());
        while let Some(frame) = frames.next().await {
            let mut frame = frame?.to_vec();
            frame.reverse();
            frames.send(Bytes::from(frame)).await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let socket = TcpStream::connect("server:4000").await.unwrap();
    let mut frames = Framed::new(socket, LengthDelimitedCodec::new());
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
    let mut socket = frames.into_inner();
    sim_rt::io::AsyncWriteExt::shutdown(&mut socket)
        .await
        .unwrap();
    let mut rest = Vec::new();
    let n = sim_rt::io::AsyncReadExt::read_to_end(&mut socket, &mut rest)
        .await
        .unwrap();
    assert_eq!(n, 0);
}
