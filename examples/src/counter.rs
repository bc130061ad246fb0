//! A counter service over UDP: clients add to a shared counter and read
//! it back. Each request carries the client's name and a request number,
//! and a client asks again when no reply comes in time.
//!
//! ```text
//! client -> server  ADD <client> <request> <amount>   reply OK <request> <total>
//! client -> server  GET                               reply <total>
//! ```
//!
//! The server remembers, per client, the last request it applied and its
//! reply: a request it has already applied (a client's retry, or a copy
//! the network made) gets the same reply again and changes nothing.
//!
//! # The planted bug ([`Server::without_dedup`])
//!
//! **What:** the server applies every `ADD` it receives, without looking at
//! the request number.
//!
//! **Caught by:** the total: once the clients are done, the counter is the
//! sum of what they added.
//!
//! **Schedule:** the network duplicates one `ADD` datagram (the link's
//! duplication probability makes each datagram a data choice): the server
//! applies it twice. A duplicated reply is harmless, and no reply is slow
//! enough to make a client retry, so nothing else breaks it.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::time;

/// How long a client waits for a reply before asking again: more than any
/// round trip of the simulated network (at most 20 ms).
pub const REPLY_TIMEOUT: Duration = Duration::from_millis(100);

/// The counter server.
#[derive(Debug, Default)]
pub struct Server {
    no_dedup: bool,
}

impl Server {
    /// A server that applies each request once.
    pub fn new() -> Server {
        Server::default()
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn without_dedup(mut self, bug: bool) -> Server {
        self.no_dedup = bug;
        self
    }

    /// Serves on `socket` forever.
    pub async fn serve(self, socket: UdpSocket) -> io::Result<()> {
        let mut total: u64 = 0;
        // Per client: the last request applied and its reply.
        let mut last: BTreeMap<String, (u64, String)> = BTreeMap::new();
        sim_rt::sim::report_state(&(total, &last));
        let mut buf = [0u8; 256];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await?;
            let line = String::from_utf8_lossy(&buf[..n]).into_owned();
            let words: Vec<&str> = line.split(' ').collect();
            let reply = match words.as_slice() {
                ["ADD", client, request, amount] => {
                    let (Ok(request), Ok(amount)) = (request.parse::<u64>(), amount.parse::<u64>())
                    else {
                        continue;
                    };
                    match last.get(*client) {
                        Some((done, reply)) if *done >= request && !self.no_dedup => reply.clone(),
                        _ => {
                            total += amount;
                            let reply = format!("OK {request} {total}");
                            last.insert(client.to_string(), (request, reply.clone()));
                            sim_rt::sim::report_state(&(total, &last));
                            reply
                        }
                    }
                }
                ["GET"] => total.to_string(),
                _ => continue,
            };
            socket.send_to(reply.as_bytes(), from).await?;
        }
    }
}

/// A client of the counter.
#[derive(Debug)]
pub struct Client {
    name: String,
    socket: UdpSocket,
    server: SocketAddr,
    next: u64,
}

impl Client {
    /// Client `name` of the server at `server`.
    pub async fn new(name: &str, server: SocketAddr) -> io::Result<Client> {
        Ok(Client {
            name: name.to_string(),
            socket: UdpSocket::bind("0.0.0.0:0").await?,
            server,
            next: 1,
        })
    }

    /// Sends `request` until the reply `accept` takes comes.
    async fn ask(&self, request: &str, accept: impl Fn(&str) -> bool) -> io::Result<String> {
        let mut buf = [0u8; 256];
        loop {
            self.socket.send_to(request.as_bytes(), self.server).await?;
            let deadline = time::Instant::now() + REPLY_TIMEOUT;
            while let Ok(got) = time::timeout_at(deadline, self.socket.recv_from(&mut buf)).await {
                let (n, _) = got?;
                let reply = String::from_utf8_lossy(&buf[..n]).into_owned();
                if accept(&reply) {
                    return Ok(reply);
                }
                // A stale or duplicated reply: keep waiting.
            }
        }
    }

    /// Adds `amount` to the counter.
    pub async fn add(&mut self, amount: u64) -> io::Result<()> {
        let request = self.next;
        self.next += 1;
        let prefix = format!("OK {request} ");
        self.ask(&format!("ADD {} {request} {amount}", self.name), |r| {
            r.starts_with(&prefix)
        })
        .await
        .map(drop)
    }

    /// The counter's total.
    pub async fn get(&self) -> io::Result<u64> {
        let reply = self.ask("GET", |r| r.parse::<u64>().is_ok()).await?;
        Ok(reply.parse().expect("accepted as a number"))
    }
}
