//! The compacting store in the simulator: two clients write while the
//! store's flusher and compactor run, and the store's host may crash at
//! any step; then the store restarts, replays its data file, and every key
//! must hold the last value acknowledged for it.

use std::io;
use std::time::Duration;

use explorer::{Explorer, RoundRobin, Sampling};
use futures::FutureExt;
use sim_rt::net::TcpListener;
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, FaultInjector, FsConfig};

use super::Case;

// The system finds the shared line protocol at `super::lines`.
use super::lines;

#[path = "../flusher.rs"]
pub mod system;

use self::system::{Client, Store};

const STORE: &str = "store:7000";

/// Clients, the keys each writes, and how many times it writes each: 16
/// writes in all, so the data file is compacted once or twice.
const CLIENTS: usize = 2;
const KEYS: usize = 2;
const ROUNDS: usize = 4;

/// The property.
pub const PROPERTY: &str = "durability";

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "flusher",
        bug: "the compactor renames its copy into place before it is synced and leaves the sync to the flusher",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The store's disk: a few microseconds per operation and half a
/// millisecond per sync.
pub fn disk() -> FsConfig {
    let mut disk = FsConfig::default();
    disk.latency.meta = Duration::from_micros(10);
    disk.latency.read = Duration::from_micros(10);
    disk.latency.write = Duration::from_micros(20);
    disk.latency.sync = Duration::from_micros(500);
    disk
}

/// The runtime every exploration of this case uses: the store's disk, and
/// the fault injector allowed one crash of the store at any step.
pub fn runtime(b: &mut Builder) {
    b.disk(disk())
        .fault_injector(FaultInjector::new().max_resets(1).max_partitions(0));
}

/// Round-robin, stratified sampling with one delay: the failing executions
/// need one fault, the crash of the store in the half millisecond after a
/// compaction's rename, which costs one delay.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("flusher")
        .runtime(runtime)
        .explorer(RoundRobin::default())
        .search(Sampling::new(1))
        .executions(2_000)
}

/// How long a client waits before trying again after an error (the store
/// is starting).
const RETRY: Duration = Duration::from_millis(5);

/// Writes `key = value`, through errors: a `PUT` is safe to repeat.
async fn put(client: &mut Client, key: &str, value: &str) {
    while client.put(key, value).await.is_err() {
        sim_rt::time::sleep(RETRY).await;
    }
}

/// Reads `key`, through errors.
async fn get(client: &mut Client, key: &str) -> Option<String> {
    loop {
        match client.get(key).await {
            Ok(got) => return got,
            Err(_) => sim_rt::time::sleep(RETRY).await,
        }
    }
}

async fn store(bug: bool) -> io::Result<()> {
    let store = Store::open("/data").await?.sync_left_to_flusher(bug);
    let listener = TcpListener::bind("0.0.0.0:7000").await?;
    store.serve(listener).await
}

/// One simulation: start the store, let the clients write their keys a
/// few times each (retrying through a crash), restart the store, and read
/// every key back: it must hold the last value acknowledged for it.
pub async fn test(bug: bool) {
    sim::host("store").start(move || store(bug));
    let writers: Vec<_> = (0..CLIENTS)
        .map(|c| {
            sim_rt::spawn(async move {
                let mut client = Client::new(STORE);
                let mut last = Vec::new();
                for r in 1..=ROUNDS {
                    for k in 0..KEYS {
                        let (key, value) = (format!("k{c}{k}"), format!("v{r}"));
                        put(&mut client, &key, &value).await;
                        if r == ROUNDS {
                            last.push((key, value));
                        }
                    }
                }
                last
            })
        })
        .collect();
    let mut acked = Vec::new();
    for w in writers {
        acked.extend(w.await.expect("a client finished"));
    }
    // Quiet (a compaction the last write started is over), then the store
    // restarts and replays its data file.
    sim_rt::time::sleep(Duration::from_millis(50)).await;
    sim::reset("store");
    let mut client = Client::new(STORE);
    for (key, value) in &acked {
        let got = get(&mut client, key).await;
        assert_eq!(
            got.as_ref(),
            Some(value),
            "{PROPERTY}: {key} = {value} was acknowledged last, but after the restart the store \
             has {key} = {got:?}"
        );
    }
}
