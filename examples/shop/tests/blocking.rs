//! Blocking clients inside the simulation: `ureq` (HTTP) and the `redis`
//! crate's synchronous client, unmodified, on std threads, against an axum
//! service and a RESP server on other simulated hosts. Their std sockets,
//! `connect_timeout`'s `poll`, their read timeouts and their name lookups
//! are the simulation's (the interposed socket calls), so a partition
//! makes a blocking call time out as configured, in simulated time, and
//! the explorer finds a bug in how a client treats that timeout.
//! `cargo test --config .cargo/sim.toml --test blocking`.
#![cfg(sim)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sim::{self, Explorer, FaultInjector, RoundRobin, Sampling};

/// The keys and values a [`resp_server`] holds, readable by the test.
type Store = Arc<Mutex<BTreeMap<String, String>>>;

/// One RESP request: an array of bulk strings (what every client sends).
async fn request(r: &mut BufReader<TcpStream>) -> std::io::Result<Option<Vec<String>>> {
    let mut line = String::new();
    if r.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not a RESP array");
    let n: usize = line
        .trim_end()
        .strip_prefix('*')
        .ok_or_else(bad)?
        .parse()
        .map_err(|_| bad())?;
    let mut args = Vec::with_capacity(n);
    for _ in 0..n {
        line.clear();
        r.read_line(&mut line).await?;
        let len: usize = line
            .trim_end()
            .strip_prefix('$')
            .ok_or_else(bad)?
            .parse()
            .map_err(|_| bad())?;
        let mut arg = vec![0; len + 2];
        r.read_exact(&mut arg).await?;
        arg.truncate(len);
        args.push(String::from_utf8(arg).map_err(|_| bad())?);
    }
    Ok(Some(args))
}

/// A RESP server (the Redis protocol) on `port`: `PING`, `GET`, `SET`,
/// `CLIENT` (the client's `SETINFO`), one task per connection.
async fn resp_server(store: Store) -> std::io::Result<()> {
    let listener = TcpListener::bind("0.0.0.0:6379").await?;
    loop {
        let (socket, _) = listener.accept().await?;
        let store = store.clone();
        tokio::spawn(async move {
            let mut r = BufReader::new(socket);
            while let Ok(Some(args)) = request(&mut r).await {
                let reply = match args.first().map(|c| c.to_ascii_uppercase()).as_deref() {
                    Some("PING") => "+PONG\r\n".to_string(),
                    Some("CLIENT") => "+OK\r\n".to_string(),
                    Some("SET") if args.len() == 3 => {
                        store
                            .lock()
                            .unwrap()
                            .insert(args[1].clone(), args[2].clone());
                        "+OK\r\n".to_string()
                    }
                    Some("GET") if args.len() == 2 => match store.lock().unwrap().get(&args[1]) {
                        Some(v) => format!("${}\r\n{v}\r\n", v.len()),
                        None => "$-1\r\n".to_string(),
                    },
                    _ => "-ERR unknown command\r\n".to_string(),
                };
                if r.get_mut().write_all(reply.as_bytes()).await.is_err() {
                    break;
                }
            }
        });
    }
}

/// An axum service on port 8080: `GET /greeting`.
async fn web_server() -> std::io::Result<()> {
    let app = axum::Router::new().route(
        "/greeting",
        axum::routing::get(|| async { "hello from web" }),
    );
    axum::serve(TcpListener::bind("0.0.0.0:8080").await?, app).await
}

/// Starts the web and cache hosts; the cache's store.
fn services() -> Store {
    let store = Store::default();
    sim::host("web").start(web_server);
    let served = store.clone();
    sim::host("cache").start(move || resp_server(served.clone()));
    store
}

/// An HTTP agent whose every call gives up after `timeout`.
fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .build()
        .into()
}

/// Starts `f` on a std thread started from a task of a new host named
/// `host`; what it returns arrives on the receiver (a tokio channel: the
/// awaiting task does not block).
fn on_thread<T: Send + 'static>(
    host: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> tokio::sync::oneshot::Receiver<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    drop(sim::host(host).spawn(async move {
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
    }));
    rx
}

/// `ureq` on a std thread fetches from the axum service, and the `redis`
/// client sets and gets a key on the RESP server, each on its own host;
/// then a partition makes each blocking call fail after exactly its
/// configured timeout of simulated time.
#[tokio::test]
async fn blocking_clients_reach_other_hosts_and_time_out_across_a_partition() {
    let store = services();
    tokio::time::sleep(Duration::from_millis(10)).await;
    let (greeting, got) = on_thread("client", || {
        let greeting = agent(Duration::from_secs(2))
            .get("http://web:8080/greeting")
            .call()
            .expect("the web host answers")
            .body_mut()
            .read_to_string()
            .expect("a body");
        let client = redis::Client::open("redis://cache:6379/").expect("a valid URL");
        let mut conn = client
            .get_connection_with_timeout(Duration::from_secs(1))
            .expect("the cache answers");
        redis::cmd("SET")
            .arg("greeting")
            .arg(&greeting)
            .exec(&mut conn)
            .expect("SET");
        let got: String = redis::cmd("GET")
            .arg("greeting")
            .query(&mut conn)
            .expect("GET");
        (greeting, got)
    })
    .await
    .expect("the thread answered");
    assert_eq!(greeting, "hello from web");
    assert_eq!(got, greeting);
    assert_eq!(store.lock().unwrap()["greeting"], greeting);

    // A second client host, cut off from both services before its thread
    // starts.
    let answer = on_thread("cut-off", || {
        let start = std::time::Instant::now();
        let http = agent(Duration::from_secs(2))
            .get("http://web:8080/greeting")
            .call();
        let http_waited = start.elapsed();
        let start = std::time::Instant::now();
        let cache = redis::Client::open("redis://cache:6379/")
            .unwrap()
            .get_connection_with_timeout(Duration::from_millis(750));
        (http, http_waited, cache.err(), start.elapsed())
    });
    sim::partition("cut-off", "web");
    sim::partition("cut-off", "cache");
    let (http, http_waited, cache, cache_waited) = answer.await.expect("the thread answered");
    assert!(matches!(http, Err(ureq::Error::Timeout(_))), "{http:?}");
    let cache = cache.expect("no connection across the partition");
    assert!(cache.is_timeout(), "{cache:?}");
    // The configured timeouts, give or take a millisecond (ureq counts its
    // global timeout in whole milliseconds) and the microseconds of
    // simulated work each poll costs.
    let near = |d: Duration, t: Duration| {
        (t - Duration::from_millis(2)..t + Duration::from_millis(5)).contains(&d)
    };
    assert!(near(http_waited, Duration::from_secs(2)), "{http_waited:?}");
    assert!(
        near(cache_waited, Duration::from_millis(750)),
        "{cache_waited:?}"
    );
}

/// The planted bug: a blocking client that counts a timed-out write as
/// done ("the server probably got it"). It writes three keys to the cache
/// with a short read timeout and reports which it stored.
fn store_keys(careless: bool) -> Vec<String> {
    let client = redis::Client::open("redis://cache:6379/").expect("a valid URL");
    let mut stored = Vec::new();
    let mut conn = None;
    for i in 0..3 {
        let key = format!("order-{i}");
        if conn.is_none() {
            let timeout = Duration::from_millis(300);
            conn = client
                .get_connection_with_timeout(timeout)
                .ok()
                .filter(|c| {
                    c.set_read_timeout(Some(timeout)).is_ok()
                        && c.set_write_timeout(Some(timeout)).is_ok()
                });
        }
        let Some(c) = conn.as_mut() else {
            continue;
        };
        match redis::cmd("SET").arg(&key).arg("paid").exec(c) {
            Ok(()) => stored.push(key),
            Err(e) if careless && e.is_timeout() => stored.push(key),
            // The connection's state is unknown: a fresh one next time.
            Err(_) => conn = None,
        }
    }
    stored
}

/// One execution: the cache, a client host storing three keys, then the
/// check that every key the client reported stored is in the store.
async fn scenario(careless: bool) {
    let store = Store::default();
    let served = store.clone();
    sim::host("cache").start(move || resp_server(served.clone()));
    let stored = on_thread("client", move || store_keys(careless))
        .await
        .expect("the thread answered");
    let held = store.lock().unwrap().clone();
    for key in &stored {
        assert!(
            held.contains_key(key),
            "the client reported {key} stored, but the cache never got it: {held:?}"
        );
    }
}

/// One partition anywhere, round-robin with stratified sampling, as the
/// shop's own exploration.
fn explorer() -> Explorer {
    Explorer::new()
        .name("blocking-client")
        .runtime(|b| {
            b.fault_injector(FaultInjector::new().max_resets(0).max_partitions(1));
        })
        .explorer(RoundRobin::default())
        .search(Sampling::new(2))
        .executions(300)
}

#[test]
fn a_client_counting_a_timeout_as_success_is_found_and_replayed() {
    let report = explorer().run(|| scenario(true));
    let found = report.failure.as_ref().expect("the planted bug is found");
    assert!(
        found.failure.to_string().contains("never got it"),
        "{}",
        found.failure
    );
    let again = explorer()
        .replay(found.token.to_string())
        .run(|| scenario(true));
    let replayed = again.failure.expect("the replay fails again");
    assert_eq!(
        replayed.trace, found.trace,
        "the replay is the same execution"
    );
}

#[test]
fn a_client_counting_a_timeout_as_failure_passes() {
    explorer().executions(100).check(|| scenario(false));
}
