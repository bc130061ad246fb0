//! W4 over TCP, shared by `sim-rt/benches/net.rs` (the runtime alone) and
//! `explorer/benches/w8.rs` (the same protocol as an exploration): every
//! one of `HOSTS` hosts serves on port 7 and, from its entry point, sends
//! `REQUESTS` request/replies of `MSG` bytes to each other host on one
//! connection.

use std::time::Duration;

use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::sim;

/// Bytes of a request (and of its reply).
pub const MSG: usize = 64;
/// Hosts.
pub const HOSTS: usize = 3;
/// Request/replies from each host to each other host.
pub const REQUESTS: usize = 10;
/// What [`protocol`] returns: every reply.
pub const REPLIES: usize = HOSTS * (HOSTS - 1) * REQUESTS;

/// The protocol, as the future a simulation runs: returns the replies
/// received.
pub async fn protocol() -> usize {
    let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel::<usize>();
    for h in 0..HOSTS {
        let tx = tx.clone();
        sim::host(format!("h{h}")).start(move || {
            let tx = tx.clone();
            async move {
                let l = TcpListener::bind("0.0.0.0:7").await.unwrap();
                sim_rt::spawn(async move {
                    loop {
                        let (mut s, _) = l.accept().await.unwrap();
                        sim_rt::spawn(async move {
                            let mut b = [0u8; MSG];
                            while s.read_exact(&mut b).await.is_ok() {
                                s.write_all(&b).await.unwrap();
                            }
                        });
                    }
                });
                for peer in (0..HOSTS).filter(|p| *p != h) {
                    let tx = tx.clone();
                    sim_rt::spawn(async move {
                        let mut s = loop {
                            // The peer may not listen yet.
                            match TcpStream::connect((format!("h{peer}").as_str(), 7)).await {
                                Ok(s) => break s,
                                Err(_) => sim_rt::time::sleep(Duration::from_millis(1)).await,
                            }
                        };
                        let mut b = [h as u8; MSG];
                        for _ in 0..REQUESTS {
                            s.write_all(&b).await.unwrap();
                            s.read_exact(&mut b).await.unwrap();
                        }
                        tx.send(REQUESTS).unwrap();
                    });
                }
            }
        });
    }
    drop(tx);
    let mut replies = 0;
    for _ in 0..HOSTS * (HOSTS - 1) {
        replies += rx.recv().await.unwrap();
    }
    replies
}
