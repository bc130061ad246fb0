//! The WAL-backed store in the simulator: two clients write while the
//! store's host may crash at any step; the store restarts, recovers from
//! its log, and every acknowledged write must be there.

use std::io;
use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use futures::FutureExt;
use sim_rt::net::TcpListener;
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, CrashModel, FaultInjector, FsConfig, KeepUnsynced, TornWrites};

use super::Case;

// The system finds the shared line protocol at `super::lines`.
use super::lines;

#[path = "../wal.rs"]
pub mod system;

use self::system::{Client, Store};

const STORE: &str = "store:7000";
/// Concurrent clients, and the keys each writes in turn.
const CLIENTS: u32 = 2;
const KEYS: u32 = 2;
/// How long a client waits before trying again after an error (the store
/// is restarting).
const RETRY: Duration = Duration::from_millis(5);
/// Tries before a client gives up on the store.
const TRIES: u32 = 200;

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "wal",
        bug: "the store acknowledges a write before the fsync that makes it durable",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The store's disk: the harshest crash model (any subset of the unsynced
/// writes survives, a surviving one may be torn or end in garbage), a few
/// microseconds per write and half a millisecond per `sync_all`: faster
/// than the network (1 to 10 ms a hop), as on a server with an SSD.
pub fn disk() -> FsConfig {
    let mut disk = FsConfig {
        crash: CrashModel {
            keep: KeepUnsynced::Subset,
            torn_writes: TornWrites::PrefixOrGarbage,
        },
        ..FsConfig::default()
    };
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

/// Run-to-completion, stratified sampling with one delay: the failing
/// executions need one fault (the crash, at one of the few steps between
/// an `OK` and the `sync_all` after it), which costs one delay, and the
/// default crash outcome (every unsynced append lost). Seeds 0..10 found
/// it after 2 to 78 executions (median 20).
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("wal")
        .runtime(runtime)
        .explorer(Rtc::default())
        .search(Sampling::new(1))
        .executions(2_000)
}

async fn store(bug: bool) -> io::Result<()> {
    let store = Store::open("/data").await?.ack_before_sync(bug);
    let listener = TcpListener::bind("0.0.0.0:7000").await?;
    store.serve(listener).await
}

/// Writes `key = value`, through errors (the store may be restarting): a
/// `PUT` is safe to repeat.
async fn put(client: &mut Client, key: &str, value: &str) {
    for _ in 0..TRIES {
        if client.put(key, value).await.is_ok() {
            return;
        }
        sim_rt::time::sleep(RETRY).await;
    }
    panic!("the store never acknowledged {key} = {value}");
}

/// Reads `key`, through errors.
async fn get(client: &mut Client, key: &str) -> Option<String> {
    for _ in 0..TRIES {
        if let Ok(value) = client.get(key).await {
            return value;
        }
        sim_rt::time::sleep(RETRY).await;
    }
    panic!("the store never answered GET {key}");
}

/// One simulation: start the store, let two clients write two keys each
/// (retrying through a crash), restart the store, read every key back and
/// check durability.
pub async fn test(bug: bool) {
    sim::host("store").start(move || store(bug));

    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            sim_rt::spawn(async move {
                let mut client = Client::new(STORE);
                let mut acked = Vec::new();
                for k in 0..KEYS {
                    let (key, value) = (format!("k{c}{k}"), format!("v{c}{k}"));
                    put(&mut client, &key, &value).await;
                    acked.push((key, value));
                }
                acked
            })
        })
        .collect();
    let mut acked = Vec::new();
    for c in clients {
        acked.extend(c.await.expect("a client finished"));
    }

    // The store restarts (a crash: whatever was not synced may be lost)
    // and recovers from its log.
    sim::reset("store");
    let mut client = Client::new(STORE);
    for (key, value) in &acked {
        let got = get(&mut client, key).await;
        assert_eq!(
            got.as_ref(),
            Some(value),
            "durability: {key} = {value} was acknowledged, but after the restart the store has \
             {key} = {got:?}"
        );
    }
    let never = get(&mut client, "never-written").await;
    assert_eq!(
        never, None,
        "durability: no client wrote never-written, but the store has it"
    );
}
