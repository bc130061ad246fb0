//! A lease server over UDP: one lease, held by one client at a time for
//! [`LEASE`] after the server granted or last renewed it. A holder renews
//! every [`RENEW_EVERY`] while it works, and works (acts on whatever the
//! lease guards) only while it knows the lease is still its own.
//!
//! ```text
//! client -> server  ACQUIRE <owner> <n>   reply GRANTED <n> | BUSY <n>
//! client -> server  RENEW <owner> <n>     reply OK <n> | LOST <n>
//! client -> server  RELEASE <owner> <n>   reply OK <n>
//! ```
//!
//! `n` numbers a client's requests, so that a late reply to an earlier
//! request is never taken for the answer to this one; a request that gets
//! no reply within [`REPLY_TIMEOUT`] is sent again with the same number.
//!
//! # Whose clock
//!
//! The server starts a lease's [`LEASE`] when it *handles* a grant or a
//! renewal, and hands the lease to the next client that asks once that
//! runs out. A client cannot know that instant; it only knows it lies
//! after it first sent the request the reply answers. So a holder counts
//! its lease from there: it stops acting at most [`LEASE`] after it first
//! sent its last answered grant or renewal, which is never after the
//! server's expiry. (The simulated hosts share one clock; across real
//! machines the holder would also subtract a bound on clock drift.)
//!
//! # The planted bug ([`Client::lease_from_reply`])
//!
//! **What:** the holder counts its lease from the moment it reads the
//! reply, not from when it sent the request: it forgets the reply's trip
//! back (and however long the reply waited to be read).
//!
//! **Caught by:** mutual exclusion: no two clients act under the lease at
//! once.
//!
//! **Schedule:** while a client holds the lease, a partition cuts it off
//! from the server. Its renewals get no reply, and it keeps acting until
//! its own idea of the expiry, which is later than the server's by the last
//! reply's trip (one network latency, a few milliseconds). The other
//! client's `ACQUIRE` must reach the server inside that gap, after the
//! server's expiry, and its `GRANTED` must come back before the cut-off
//! holder stops: a partition at a time the lease is held, long enough to
//! let the lease run out, and a race of a few milliseconds after it.
//! Without the partition, renewals always arrive in time and nothing
//! breaks.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::time::{self, Instant};

/// How long a grant or renewal holds the lease, from when the server
/// handles it.
pub const LEASE: Duration = Duration::from_millis(60);
/// How often a holder renews.
pub const RENEW_EVERY: Duration = Duration::from_millis(20);
/// How long a client waits for a reply before sending a request again.
pub const REPLY_TIMEOUT: Duration = Duration::from_millis(25);

/// The lease server.
#[derive(Debug, Default)]
pub struct Server {}

impl Server {
    /// A server with no holder.
    pub fn new() -> Server {
        Server::default()
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
            let (len, from) = socket.recv_from(&mut buf).await?;
            let line = String::from_utf8_lossy(&buf[..len]).into_owned();
            let [verb, owner, n] = line.split(' ').collect::<Vec<_>>()[..] else {
                continue;
            };
            let now = Instant::now();
            if holder.as_ref().is_some_and(|(_, until)| *until <= now) {
                holder = None;
            }
            let holds = holder.as_ref().is_some_and(|(h, _)| h == owner);
            let reply = match verb {
                "ACQUIRE" if holder.is_none() || holds => {
                    holder = Some((owner.to_string(), now + LEASE));
                    "GRANTED"
                }
                "ACQUIRE" => "BUSY",
                "RENEW" if holds => {
                    holder = Some((owner.to_string(), now + LEASE));
                    "OK"
                }
                "RENEW" => "LOST",
                "RELEASE" => {
                    if holds {
                        holder = None;
                    }
                    "OK"
                }
                _ => continue,
            };
            report(&holder);
            socket
                .send_to(format!("{reply} {n}").as_bytes(), from)
                .await?;
        }
    }
}

/// A request in flight: its number and when it was first sent.
#[derive(Debug, Clone, Copy)]
struct Sent {
    n: u64,
    at: Instant,
}

/// A client of the lease server.
#[derive(Debug)]
pub struct Client {
    socket: UdpSocket,
    server: SocketAddr,
    owner: String,
    /// The last request number used.
    n: u64,
    /// Until when this client may act, while it holds the lease.
    expiry: Option<Instant>,
    from_reply: bool,
}

impl Client {
    /// A client named `owner` of the server at `server`.
    pub async fn new(owner: &str, server: SocketAddr) -> io::Result<Client> {
        let client = Client {
            socket: UdpSocket::bind("0.0.0.0:0").await?,
            server,
            owner: owner.to_string(),
            n: 0,
            expiry: None,
            from_reply: false,
        };
        client.report();
        Ok(client)
    }

    /// Tells a search the client's state: whether it takes itself for the
    /// holder (its expiry left out: a time).
    fn report(&self) {
        sim_rt::sim::report_state(&self.expiry.is_some());
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn lease_from_reply(mut self, bug: bool) -> Client {
        self.from_reply = bug;
        self
    }

    /// Sends a new request `verb`; returns its number and sending time.
    async fn send(&mut self, verb: &str) -> io::Result<Sent> {
        self.n += 1;
        let sent = Sent {
            n: self.n,
            at: Instant::now(),
        };
        self.resend(verb, sent).await?;
        Ok(sent)
    }

    async fn resend(&self, verb: &str, sent: Sent) -> io::Result<()> {
        let request = format!("{verb} {} {}", self.owner, sent.n);
        self.socket.send_to(request.as_bytes(), self.server).await?;
        Ok(())
    }

    /// The reply word `line` gives to request `n`, if it answers it.
    fn answer(line: &str, n: u64) -> Option<&str> {
        let (word, of) = line.split_once(' ')?;
        (of.parse() == Ok(n)).then_some(word)
    }

    /// Sends `verb` until its reply comes; returns the reply word.
    async fn call(&mut self, verb: &str) -> io::Result<String> {
        let sent = self.send(verb).await?;
        let mut buf = [0u8; 64];
        loop {
            let deadline = Instant::now() + REPLY_TIMEOUT;
            while let Ok(got) = time::timeout_at(deadline, self.socket.recv_from(&mut buf)).await {
                let (len, _) = got?;
                let line = String::from_utf8_lossy(&buf[..len]).into_owned();
                if let Some(word) = Client::answer(&line, sent.n) {
                    if word == "GRANTED" {
                        self.granted(sent);
                    }
                    return Ok(word.to_string());
                }
            }
            self.resend(verb, sent).await?;
        }
    }

    /// The lease was granted or renewed in answer to `sent`.
    fn granted(&mut self, sent: Sent) {
        let from = if self.from_reply {
            // BUG: the server started the lease when it handled the
            // request, a trip earlier.
            Instant::now()
        } else {
            sent.at
        };
        self.expiry = Some(from + LEASE);
        self.report();
    }

    /// Asks for the lease every `retry` until it is granted.
    pub async fn acquire(&mut self, retry: Duration) -> io::Result<()> {
        while self.call("ACQUIRE").await? != "GRANTED" {
            time::sleep(retry).await;
        }
        Ok(())
    }

    /// Whether this client may start something that takes `d` under the
    /// lease: it holds the lease until at least `d` from now.
    pub fn holds_for(&self, d: Duration) -> bool {
        self.expiry.is_some_and(|e| Instant::now() + d <= e)
    }

    /// Works under the lease: runs `step` (which takes `step_time`) up to
    /// `steps` times, renewing the lease meanwhile. Returns how many steps
    /// ran; fewer than `steps` when the lease was lost or ran out.
    pub async fn work<F, Fut>(
        &mut self,
        steps: usize,
        step_time: Duration,
        mut step: F,
    ) -> io::Result<usize>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let mut done = 0;
        // The renewal in flight, if any.
        let mut renewal: Option<Sent> = None;
        let mut renew_at = Instant::now() + RENEW_EVERY;
        let mut buf = [0u8; 64];
        while done < steps {
            // Replies that came during the last step.
            while let Ok((len, _)) = self.socket.try_recv_from(&mut buf) {
                let line = String::from_utf8_lossy(&buf[..len]).into_owned();
                let Some(sent) = renewal else { continue };
                match Client::answer(&line, sent.n) {
                    Some("OK") => {
                        self.granted(sent);
                        renewal = None;
                        renew_at = sent.at + RENEW_EVERY;
                    }
                    Some("LOST") => {
                        self.expiry = None;
                        self.report();
                        return Ok(done);
                    }
                    _ => {}
                }
            }
            let now = Instant::now();
            if now >= renew_at {
                match renewal {
                    None => renewal = Some(self.send("RENEW").await?),
                    Some(sent) => self.resend("RENEW", sent).await?,
                }
                renew_at = now + REPLY_TIMEOUT;
            }
            if !self.holds_for(step_time) {
                self.expiry = None;
                self.report();
                return Ok(done);
            }
            step().await;
            done += 1;
        }
        Ok(done)
    }

    /// Gives the lease back.
    pub async fn release(&mut self) -> io::Result<()> {
        self.expiry = None;
        self.report();
        self.call("RELEASE").await.map(drop)
    }
}
