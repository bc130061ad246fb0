//! A lock service over UDP: one lock, granted to one owner at a time, with
//! leases that a holder renews while it works.
//!
//! ```text
//! client -> server  LOCK <owner>     reply GRANTED | BUSY
//! client -> server  RENEW <owner>    reply OK | LOST
//! client -> server  UNLOCK <owner>   reply OK
//! ```
//!
//! An owner is a client's name and its *incarnation*, `c1#3`: a client
//! counts its starts in a file on its own disk, so a restarted client is a
//! new owner and never mistakes a grant to its previous life for its own.
//! The server grants the lock when it is free, or when the holder's lease
//! (granted or renewed [`LEASE`] ago) has run out; a holder renews every
//! [`RENEW_EVERY`] while it works, and goes back to asking when a renewal
//! comes back `LOST`. Requests and replies are datagrams; a client that
//! hears no reply within [`REPLY_TIMEOUT`] asks again.
//!
//! # The planted bug ([`Server::without_expiry`])
//!
//! **What:** the server never expires a lease: the lock is held until its
//! holder says `UNLOCK`.
//!
//! **Caught by:** liveness: every client eventually finishes its work
//! under the lock.
//!
//! **Schedule:** a client crashes (and restarts) while it holds the lock.
//! Its previous life never unlocks, its new life is another owner, and the
//! server answers `BUSY` to everyone forever. A crash of a client that does
//! not hold the lock, or of the server (which forgets every grant), loses
//! nothing.
//!
//! **Critical transition:** the crash of the holder: the fault injector's
//! reset of the client's host at any step between the server's `GRANTED`
//! and the holder's `UNLOCK`. Before it, a walk lets the holder finish and
//! the other client take its turn; after it, no walk can.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::fs::{self, File};
use tokio::io::AsyncWriteExt;
use tokio::net::UdpSocket;
use tokio::time::{self, Instant};

/// How long a grant or renewal holds the lock.
pub const LEASE: Duration = Duration::from_millis(200);
/// How often a holder renews.
pub const RENEW_EVERY: Duration = Duration::from_millis(50);
/// How long a client waits for a reply before asking again.
pub const REPLY_TIMEOUT: Duration = Duration::from_millis(40);

/// The lock server.
#[derive(Debug)]
pub struct Server {
    expiry: bool,
}

impl Default for Server {
    fn default() -> Self {
        Server::new()
    }
}

impl Server {
    /// A server whose grants expire after [`LEASE`] unless renewed.
    pub fn new() -> Server {
        Server { expiry: true }
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn without_expiry(mut self, bug: bool) -> Server {
        self.expiry = !bug;
        self
    }

    /// Answers requests on `socket` forever.
    pub async fn serve(self, socket: UdpSocket) -> io::Result<()> {
        // The holder and when its lease runs out.
        let mut holder: Option<(String, Instant)> = None;
        // Reported: the holder, without its lease's end (a time).
        let report = |holder: &Option<(String, Instant)>| {
            sim_rt::sim::report_state(&holder.as_ref().map(|(h, _)| h));
        };
        report(&holder);
        let mut buf = [0u8; 256];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await?;
            let line = String::from_utf8_lossy(&buf[..n]).into_owned();
            let now = Instant::now();
            if self.expiry && holder.as_ref().is_some_and(|(_, until)| *until <= now) {
                holder = None;
            }
            let held_by = |owner: &str, holder: &Option<(String, Instant)>| {
                holder.as_ref().is_some_and(|(h, _)| h == owner)
            };
            let reply = match line.split_once(' ') {
                Some(("LOCK", owner)) if holder.is_none() || held_by(owner, &holder) => {
                    holder = Some((owner.to_string(), now + LEASE));
                    "GRANTED"
                }
                Some(("LOCK", _)) => "BUSY",
                Some(("RENEW", owner)) if held_by(owner, &holder) => {
                    holder = Some((owner.to_string(), now + LEASE));
                    "OK"
                }
                Some(("RENEW", _)) => "LOST",
                Some(("UNLOCK", owner)) => {
                    if held_by(owner, &holder) {
                        holder = None;
                    }
                    "OK"
                }
                _ => continue,
            };
            report(&holder);
            socket.send_to(reply.as_bytes(), from).await?;
        }
    }
}

/// A client of the lock server.
#[derive(Debug)]
pub struct Client {
    socket: UdpSocket,
    server: SocketAddr,
    owner: String,
}

impl Client {
    /// Starts incarnation n + 1 of client `name`, where `dir/incarnation`
    /// holds n (0 when absent), and makes that durable first. `dir` is a
    /// directory at the root of the file system.
    pub async fn start(name: &str, dir: &str, server: SocketAddr) -> io::Result<Client> {
        let path = format!("{dir}/incarnation");
        let previous: u64 = match fs::read_to_string(&path).await {
            Ok(text) => text.trim().parse().unwrap_or(0),
            Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
            Err(e) => return Err(e),
        };
        fs::create_dir_all(dir).await?;
        let mut file = File::create(&path).await?;
        file.write_all(format!("{}", previous + 1).as_bytes())
            .await?;
        file.sync_all().await?;
        // The file's directory entry is durable once the directory is
        // synced too (the first start creates it).
        File::open(dir).await?.sync_all().await?;
        File::open("/").await?.sync_all().await?;
        let client = Client {
            socket: UdpSocket::bind("0.0.0.0:0").await?,
            server,
            owner: format!("{name}#{}", previous + 1),
        };
        client.report(false);
        Ok(client)
    }

    /// Tells a search the client's state: its owner name (its
    /// incarnation) and whether it holds the lock.
    fn report(&self, holds: bool) {
        sim_rt::sim::report_state(&(&self.owner, holds));
    }

    /// This incarnation's owner name.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Sends `verb <owner>` until a reply comes.
    async fn call(&self, verb: &str) -> io::Result<String> {
        let request = format!("{verb} {}", self.owner);
        let mut buf = [0u8; 64];
        loop {
            self.socket.send_to(request.as_bytes(), self.server).await?;
            if let Ok(got) = time::timeout(REPLY_TIMEOUT, self.socket.recv_from(&mut buf)).await {
                let (n, _) = got?;
                return Ok(String::from_utf8_lossy(&buf[..n]).into_owned());
            }
        }
    }

    /// Asks for the lock every `retry` until it is granted.
    pub async fn lock(&self, retry: Duration) -> io::Result<()> {
        loop {
            if self.call("LOCK").await? == "GRANTED" {
                self.report(true);
                return Ok(());
            }
            time::sleep(retry).await;
        }
    }

    /// Holds the lock for `work`, renewing it; `false` when a renewal came
    /// back `LOST` (the lease ran out: the work must start over).
    pub async fn hold(&self, work: Duration) -> io::Result<bool> {
        let end = Instant::now() + work;
        while Instant::now() < end {
            time::sleep(RENEW_EVERY.min(end - Instant::now())).await;
            if self.call("RENEW").await? != "OK" {
                self.report(false);
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Gives the lock back.
    pub async fn unlock(&self) -> io::Result<()> {
        self.call("UNLOCK").await?;
        self.report(false);
        Ok(())
    }

    /// Takes the lock, does `work` under it (starting over when the lease
    /// is lost), and gives it back.
    pub async fn run(&self, work: Duration, retry: Duration) -> io::Result<()> {
        loop {
            self.lock(retry).await?;
            if self.hold(work).await? {
                return self.unlock().await;
            }
        }
    }
}
