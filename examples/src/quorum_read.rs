//! A replicated register over UDP with majority quorums: three replicas, a
//! write completes once two of them hold it, a read asks all three and
//! takes the newest of the first two answers. Any two majorities overlap,
//! so a read sees every completed write.
//!
//! ```text
//! client -> replica  <id> PUT <key> <version> <value>   reply <id> OK
//! client -> replica  <id> GET <key>                     reply <id> VALUE <version> <value> (version 0: none)
//! ```
//!
//! `id` numbers a client's requests, so that a late answer to an earlier
//! request is not counted for this one. A replica keeps a value only if its
//! version is newer than the one it has (versions come from the key's one
//! writer, counting up from 1), and acknowledges a `PUT` either way. A
//! client sends a request to every replica that has not answered it, again
//! every [`RETRY`].
//!
//! # Reads write back (ABD)
//!
//! The newest of two answers may be a write still in progress, held by one
//! replica only. A read that returns it must make sure that every later
//! read sees it too, so before returning it writes it back: it sends the
//! value with its version to the three replicas and waits for two
//! acknowledgements (Attiya, Bar-Noy & Dolev, "Sharing memory robustly in
//! message-passing systems", JACM 1995).
//!
//! # The planted bug ([`Client::without_write_back`])
//!
//! **What:** a read returns the newest of its two answers at once, without
//! the write-back.
//!
//! **Caught by:** linearizability of the clients' history (once a read has
//! returned a value, no read that starts later returns an older one).
//!
//! **Schedule:** a write's `PUT` reaches one replica and not yet the
//! other two, and two reads fit in that gap. The first read's two answers
//! include the replica that has the new value: it returns it. The second
//! starts after the first returned, hears the two others first, and
//! returns the old value. The gap is one latency window of the network
//! (the other two `PUT`s are late, up to 10 ms: four message delays of
//! the reads inside the spread of two), or a retry interval when the
//! network loses both of them (the writer sends again after [`RETRY`]).
//! No fault is needed, but losses make the gap wide.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::time;

/// How long a client waits for answers before asking again.
pub const RETRY: Duration = Duration::from_millis(50);

/// One replica.
#[derive(Debug, Default)]
pub struct Replica {}

impl Replica {
    /// A replica that holds nothing yet.
    pub fn new() -> Replica {
        Replica::default()
    }

    /// Serves on `socket` forever.
    pub async fn serve(self, socket: UdpSocket) -> io::Result<()> {
        let mut values: BTreeMap<String, (u64, String)> = BTreeMap::new();
        sim_rt::sim::report_state(&values);
        let mut buf = [0u8; 512];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await?;
            let line = String::from_utf8_lossy(&buf[..n]).into_owned();
            let words: Vec<&str> = line.splitn(5, ' ').collect();
            let reply = match words.as_slice() {
                [id, "PUT", key, version, value] => {
                    let Ok(version) = version.parse::<u64>() else {
                        continue;
                    };
                    if values.get(*key).is_none_or(|(v, _)| *v < version) {
                        values.insert(key.to_string(), (version, value.to_string()));
                        sim_rt::sim::report_state(&values);
                    }
                    format!("{id} OK")
                }
                [id, "GET", key] => match values.get(*key) {
                    Some((version, value)) => format!("{id} VALUE {version} {value}"),
                    None => format!("{id} VALUE 0 -"),
                },
                _ => continue,
            };
            socket.send_to(reply.as_bytes(), from).await?;
        }
    }
}

/// A client of the three replicas.
#[derive(Debug)]
pub struct Client {
    socket: UdpSocket,
    replicas: Vec<SocketAddr>,
    /// The last request id used.
    id: u64,
    no_write_back: bool,
}

impl Client {
    /// A client of the replicas at `replicas`.
    pub async fn new(replicas: Vec<SocketAddr>) -> io::Result<Client> {
        Ok(Client {
            socket: UdpSocket::bind("0.0.0.0:0").await?,
            replicas,
            id: 0,
            no_write_back: false,
        })
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn without_write_back(mut self, bug: bool) -> Client {
        self.no_write_back = bug;
        self
    }

    /// Sends `request` to every replica until `quorum` of them have
    /// answered; returns the answers (without the id), by replica.
    async fn ask(&mut self, request: &str, quorum: usize) -> io::Result<BTreeMap<usize, String>> {
        self.id += 1;
        let id = self.id.to_string();
        let message = format!("{id} {request}");
        let mut answers = BTreeMap::new();
        // A client's state: the request in progress and its answers so far.
        sim_rt::sim::report_state(&(request, &answers));
        let mut buf = [0u8; 512];
        while answers.len() < quorum {
            for (i, r) in self.replicas.iter().enumerate() {
                if !answers.contains_key(&i) {
                    self.socket.send_to(message.as_bytes(), r).await?;
                }
            }
            let deadline = time::Instant::now() + RETRY;
            while answers.len() < quorum {
                let Ok(got) = time::timeout_at(deadline, self.socket.recv_from(&mut buf)).await
                else {
                    break;
                };
                let (n, from) = got?;
                let line = String::from_utf8_lossy(&buf[..n]).into_owned();
                let Some((of, answer)) = line.split_once(' ') else {
                    continue;
                };
                if let Some(i) = self.replicas.iter().position(|r| *r == from) {
                    if of == id {
                        answers.insert(i, answer.to_string());
                        sim_rt::sim::report_state(&(request, &answers));
                    }
                }
            }
        }
        Ok(answers)
    }

    /// The majority: two of three.
    fn majority(&self) -> usize {
        self.replicas.len() / 2 + 1
    }

    /// Writes `key = value` at `version`; returns once a majority holds it.
    pub async fn put(&mut self, key: &str, version: u64, value: &str) -> io::Result<()> {
        let quorum = self.majority();
        self.ask(&format!("PUT {key} {version} {value}"), quorum)
            .await
            .map(drop)
    }

    /// Reads `key`: the newest value a majority answered (`None` when none
    /// has it), written back to a majority first.
    pub async fn get(&mut self, key: &str) -> io::Result<Option<String>> {
        let quorum = self.majority();
        let answers = self.ask(&format!("GET {key}"), quorum).await?;
        let (version, value) = answers
            .values()
            .filter_map(|a| {
                let (version, value) = a.strip_prefix("VALUE ")?.split_once(' ')?;
                Some((version.parse::<u64>().ok()?, value.to_string()))
            })
            .max()
            .unwrap_or((0, String::new()));
        if version == 0 {
            return Ok(None);
        }
        let behind = answers
            .values()
            .any(|a| !a.starts_with(&format!("VALUE {version} ")));
        if behind && !self.no_write_back {
            self.put(key, version, &value).await?;
        }
        Ok(Some(value))
    }
}
