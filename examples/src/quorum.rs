//! A replicated register over UDP: three replicas, writes to all of them,
//! reads from the first two that answer (a read quorum that overlaps every
//! write).
//!
//! ```text
//! client -> replica  PUT <key> <version> <value>   reply OK <key> <version>
//! client -> replica  GET <key>                     reply VALUE <key> <version> <value> (version 0: none)
//! ```
//!
//! A replica keeps a value only if its version is newer than the one it
//! has, and makes it durable (a file per key, synced, the directory synced
//! when the file is new) before it answers `OK`; on start it loads what
//! its disk has. A write completes when all three replicas have
//! acknowledged it; a read takes the newest of the first two answers.
//!
//! # The planted bug ([`Replica::volatile`])
//!
//! **What:** a replica keeps values in memory only: a restart forgets them.
//!
//! **Caught by:** a read after a completed write returns the written
//! value.
//!
//! **Schedule:** two faults: two different replicas restart (the fault
//! injector's resets) after the write completed and before the read. One
//! restart loses nothing (the read quorum always includes a replica that
//! kept the value); after two, the third alone has it, and a read that
//! hears the two forgetful replicas first returns nothing. The two resets
//! can fall anywhere in the second between the write and the read.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::fs::{self, File};
use tokio::io::AsyncWriteExt;
use tokio::net::UdpSocket;
use tokio::time;

/// How long a client waits for answers before asking again.
pub const RETRY: Duration = Duration::from_millis(50);

/// One replica.
#[derive(Debug, Default)]
pub struct Replica {
    volatile: bool,
}

impl Replica {
    /// A replica that keeps its values on its disk.
    pub fn new() -> Replica {
        Replica::default()
    }

    /// The planted bug (see the module docs) when `bug`.
    pub fn volatile(mut self, bug: bool) -> Replica {
        self.volatile = bug;
        self
    }

    /// Serves on `socket` forever, keeping its values under `dir` (a
    /// directory at the root of the file system).
    pub async fn serve(self, socket: UdpSocket, dir: &str) -> io::Result<()> {
        let mut values: BTreeMap<String, (u64, String)> = BTreeMap::new();
        if !self.volatile {
            fs::create_dir_all(dir).await?;
            // The directory's own entry is durable once the root is synced.
            File::open("/").await?.sync_all().await?;
            let mut entries = fs::read_dir(dir).await?;
            while let Some(e) = entries.next_entry().await? {
                let text = fs::read_to_string(e.path()).await?;
                if let Some((version, value)) = text.split_once(' ') {
                    if let Ok(version) = version.parse() {
                        let key = e.file_name().to_string_lossy().into_owned();
                        values.insert(key, (version, value.to_string()));
                    }
                }
            }
        }
        sim_rt::sim::report_state(&values);
        let mut buf = [0u8; 512];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await?;
            let line = String::from_utf8_lossy(&buf[..n]).into_owned();
            let words: Vec<&str> = line.splitn(4, ' ').collect();
            let reply = match words.as_slice() {
                ["PUT", key, version, value] => {
                    let Ok(version) = version.parse::<u64>() else {
                        continue;
                    };
                    let newer = values.get(*key).is_none_or(|(v, _)| *v < version);
                    if newer {
                        if !self.volatile {
                            let path = format!("{dir}/{key}");
                            let new = !values.contains_key(*key);
                            let mut file = File::create(&path).await?;
                            file.write_all(format!("{version} {value}").as_bytes())
                                .await?;
                            file.sync_all().await?;
                            if new {
                                File::open(dir).await?.sync_all().await?;
                            }
                        }
                        values.insert(key.to_string(), (version, value.to_string()));
                        sim_rt::sim::report_state(&values);
                    }
                    format!("OK {key} {version}")
                }
                ["GET", key] => match values.get(*key) {
                    Some((version, value)) => format!("VALUE {key} {version} {value}"),
                    None => format!("VALUE {key} 0 -"),
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
}

impl Client {
    /// A client of the replicas at `replicas`.
    pub async fn new(replicas: Vec<SocketAddr>) -> io::Result<Client> {
        Ok(Client {
            socket: UdpSocket::bind("0.0.0.0:0").await?,
            replicas,
        })
    }

    /// Writes `key = value` at `version` to every replica.
    pub async fn put(&self, key: &str, version: u64, value: &str) -> io::Result<()> {
        let request = format!("PUT {key} {version} {value}");
        let ok = format!("OK {key} {version}");
        let mut acked = vec![false; self.replicas.len()];
        let mut buf = [0u8; 512];
        while acked.iter().any(|a| !a) {
            for (r, done) in self.replicas.iter().zip(&acked) {
                if !done {
                    self.socket.send_to(request.as_bytes(), r).await?;
                }
            }
            let deadline = time::Instant::now() + RETRY;
            while let Ok(got) = time::timeout_at(deadline, self.socket.recv_from(&mut buf)).await {
                let (n, from) = got?;
                if buf[..n] == *ok.as_bytes() {
                    if let Some(i) = self.replicas.iter().position(|r| *r == from) {
                        acked[i] = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads `key`: the newest of the first two answers (`None` when
    /// neither has it).
    pub async fn get(&self, key: &str) -> io::Result<Option<String>> {
        let request = format!("GET {key}");
        let mut answers: BTreeMap<SocketAddr, (u64, String)> = BTreeMap::new();
        let mut buf = [0u8; 512];
        while answers.len() < 2 {
            for r in &self.replicas {
                self.socket.send_to(request.as_bytes(), r).await?;
            }
            let deadline = time::Instant::now() + RETRY;
            while answers.len() < 2 {
                let Ok(got) = time::timeout_at(deadline, self.socket.recv_from(&mut buf)).await
                else {
                    break;
                };
                let (n, from) = got?;
                let line = String::from_utf8_lossy(&buf[..n]).into_owned();
                let words: Vec<&str> = line.splitn(4, ' ').collect();
                if let ["VALUE", k, version, value] = words.as_slice() {
                    if *k == key {
                        let version = version.parse().unwrap_or(0);
                        answers.insert(from, (version, value.to_string()));
                    }
                }
            }
        }
        let newest = answers.into_values().max().expect("two answers");
        Ok((newest.0 > 0).then_some(newest.1))
    }
}
