//! The dependencies themselves on the simulator: their tasks are the
//! simulation's tasks and their timers run on the simulated clock.
//! `cargo test --config .cargo/sim.toml --test graph`.
#![cfg(sim)]

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use futures::SinkExt;
use tokio::scheduler::{ChoiceKind, Event, Observation, RandomScheduler, Scheduler};
use tokio::task::Id;
use tokio::time::Instant;

/// tower's `Timeout` layer fires after exactly its duration of simulated
/// time, however long the inner service would take (the clock paused, as a
/// tokio test that asserts times exactly has it, so that polls take no
/// time).
#[tokio::test(start_paused = true)]
async fn tower_timeout_runs_on_simulated_time() {
    use tower::{Service, ServiceExt};
    let slow = tower::service_fn(|()| async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok::<_, std::convert::Infallible>("done")
    });
    let mut svc = tower::timeout::Timeout::new(slow, Duration::from_secs(10));
    let start = Instant::now();
    let err = svc.ready().await.unwrap().call(()).await.unwrap_err();
    assert!(err.is::<tower::timeout::error::Elapsed>(), "{err}");
    assert_eq!(start.elapsed(), Duration::from_secs(10));
}

/// tokio-util's `DelayQueue` yields its entries in deadline order at their
/// simulated deadlines.
#[tokio::test]
async fn delay_queue_runs_on_simulated_time() {
    let mut queue = tokio_util::time::DelayQueue::new();
    queue.insert("hour", Duration::from_secs(3600));
    queue.insert("second", Duration::from_secs(1));
    queue.insert("minute", Duration::from_secs(60));
    let start = Instant::now();
    let mut seen = Vec::new();
    while let Some(expired) = futures::StreamExt::next(&mut queue).await {
        seen.push((expired.into_inner(), start.elapsed().as_secs()));
    }
    assert_eq!(seen, [("second", 1), ("minute", 60), ("hour", 3600)]);
}

/// tokio-stream's `StreamExt::timeout` reports the gap of a stream that
/// stalls, after exactly the timeout.
#[tokio::test(start_paused = true)]
async fn stream_timeout_runs_on_simulated_time() {
    use tokio_stream::StreamExt as _;
    let (tx, rx) = tokio::sync::mpsc::channel::<u32>(4);
    let stream =
        tokio_stream::wrappers::ReceiverStream::new(rx).timeout(Duration::from_millis(250));
    tokio::pin!(stream);
    tx.send(1).await.unwrap();
    let start = Instant::now();
    assert_eq!(stream.next().await, Some(Ok(1)));
    assert!(
        stream.next().await.unwrap().is_err(),
        "the stalled stream times out"
    );
    assert_eq!(start.elapsed(), Duration::from_millis(250));
    drop(tx);
}

/// tokio-util's `Framed` with a `LinesCodec` over a simulated TCP connection
/// between two hosts.
#[tokio::test]
async fn framed_lines_over_simulated_tcp() {
    use tokio_util::codec::{Framed, LinesCodec};
    tokio::sim::host("echo").start(|| async {
        let listener = tokio::net::TcpListener::bind("0.0.0.0:7").await?;
        loop {
            let (socket, _) = listener.accept().await?;
            tokio::spawn(async move {
                let mut lines = Framed::new(socket, LinesCodec::new());
                while let Some(Ok(line)) = futures::StreamExt::next(&mut lines).await {
                    lines.send(line.to_uppercase()).await.unwrap();
                }
            });
        }
        #[allow(unreachable_code)]
        Ok::<(), std::io::Error>(())
    });
    let socket = tokio::net::TcpStream::connect("echo:7").await.unwrap();
    let mut lines = Framed::new(socket, LinesCodec::new());
    lines.send("hello").await.unwrap();
    assert_eq!(
        futures::StreamExt::next(&mut lines).await.unwrap().unwrap(),
        "HELLO"
    );
}

/// tokio-util's `TaskTracker` (its `rt` feature) waits for tasks spawned on
/// two simulated hosts, and its `AbortOnDropHandle` cancels a task on a
/// third when dropped: tokio-util's task helpers on the simulator's
/// `JoinHandle`.
#[tokio::test(start_paused = true)]
async fn task_tracker_and_abort_on_drop_on_simulated_hosts() {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use tokio_util::task::{AbortOnDropHandle, TaskTracker};

    let done = Arc::new(AtomicU32::new(0));
    let tracker = TaskTracker::new();
    for (name, ms) in [("a", 30), ("b", 10)] {
        let (tracker, done) = (tracker.clone(), done.clone());
        tokio::sim::host(name).start(move || {
            let (tracker, done) = (tracker.clone(), done.clone());
            async move {
                tracker
                    .spawn(async move {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        done.fetch_add(1, Ordering::SeqCst);
                    })
                    .await
                    .unwrap();
                Ok::<(), std::io::Error>(())
            }
        });
    }
    let start = Instant::now();
    // Let the hosts start their tasks before the tracker is closed.
    tokio::time::sleep(Duration::from_millis(1)).await;
    tracker.close();
    tracker.wait().await;
    assert_eq!(done.load(Ordering::SeqCst), 2);
    assert_eq!(start.elapsed(), Duration::from_millis(30));

    let ticks = Arc::new(AtomicU32::new(0));
    let counted = ticks.clone();
    let aborted = Arc::new(std::sync::Mutex::new(None));
    let shared = aborted.clone();
    tokio::sim::host("c").start(move || {
        let (counted, shared) = (counted.clone(), shared.clone());
        async move {
            let handle = AbortOnDropHandle::new(tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    counted.fetch_add(1, Ordering::SeqCst);
                }
            }));
            *shared.lock().unwrap() = Some(handle.abort_handle());
            tokio::time::sleep(Duration::from_millis(35)).await;
            drop(handle);
            Ok::<(), std::io::Error>(())
        }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let aborted = aborted.lock().unwrap().take().expect("host c ran");
    assert!(
        aborted.is_finished(),
        "dropping the handle aborted the task"
    );
    assert_eq!(ticks.load(Ordering::SeqCst), 3);
}

/// What the watching scheduler saw.
#[derive(Default)]
struct Seen {
    /// Tasks spawned from axum's source, with the line.
    axum: BTreeSet<Id>,
    spawned_at: Vec<String>,
    /// Picks in order.
    picks: Vec<Event>,
    /// Steps at which an axum task's poll was enabled together with
    /// something else: a choice the scheduler made about it.
    contested: usize,
}

/// The default scheduler, watched; with `delay_axum`, it runs axum's tasks
/// only when nothing else can run.
struct Watching {
    inner: RandomScheduler,
    seen: Rc<RefCell<Seen>>,
    delay_axum: bool,
}

impl Scheduler for Watching {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        let mut seen = self.seen.borrow_mut();
        let axum = &seen.axum;
        let is_axum = |e: &Event| matches!(e, Event::Poll(t) if axum.contains(t));
        let contested = enabled.len() > 1 && enabled.iter().any(is_axum);
        let pick = match enabled.iter().position(|e| !is_axum(e)) {
            Some(other) if self.delay_axum => other,
            _ => self.inner.pick(enabled),
        };
        seen.contested += usize::from(contested);
        seen.picks.push(enabled[pick]);
        pick
    }

    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        self.inner.choose(kind, n)
    }

    fn observe(&mut self, observation: &Observation) {
        if let Observation::Spawned {
            task,
            spawned_at: Some(at),
            ..
        } = *observation
        {
            if at.file().contains("axum") {
                let mut seen = self.seen.borrow_mut();
                seen.axum.insert(task);
                seen.spawned_at.push(at.to_string());
            }
        }
        self.inner.observe(observation);
    }
}

/// One axum server and three concurrent requests through reqwest, under a
/// watching
/// scheduler.
fn serve_three_requests(delay_axum: bool) -> Seen {
    let seen = Rc::new(RefCell::new(Seen::default()));
    let log = seen.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .scheduler(move |seed| Watching {
            inner: RandomScheduler::new(seed),
            seen: log.clone(),
            delay_axum,
        })
        .build()
        .unwrap();
    rt.block_on(async {
        tokio::sim::host("web").start(|| async {
            let app = axum::Router::new().route("/", axum::routing::get(|| async { "hi" }));
            let listener = tokio::net::TcpListener::bind("0.0.0.0:80").await?;
            axum::serve(listener, app).await
        });
        let web = tokio::net::lookup_host("web:80")
            .await
            .unwrap()
            .next()
            .unwrap();
        // Three customers at once: three connections, three axum tasks.
        let customers: Vec<_> = (0..3)
            .map(|_| {
                tokio::spawn(async move {
                    let http = reqwest::Client::new();
                    let response = http.get(format!("http://{web}/")).send().await.unwrap();
                    response.text().await.unwrap()
                })
            })
            .collect();
        for c in customers {
            assert_eq!(c.await.unwrap(), "hi");
        }
    });
    drop(rt);
    Rc::try_unwrap(seen)
        .ok()
        .expect("the runtime is gone")
        .into_inner()
}

/// axum's per-connection task (spawned inside `axum::serve`) is a task of
/// the simulation: the scheduler sees it spawned, from axum's source, picks
/// its polls, and can hold them back while other tasks run.
#[test]
fn a_task_spawned_inside_axum_is_a_scheduled_task() {
    let eager = serve_three_requests(false);
    assert!(
        !eager.axum.is_empty(),
        "axum spawned no task in the simulation"
    );
    assert!(
        eager
            .spawned_at
            .iter()
            .all(|at| at.contains("axum") && at.contains("serve")),
        "{:?}",
        eager.spawned_at
    );
    let polled = |s: &Seen| {
        s.picks
            .iter()
            .filter(|e| matches!(e, Event::Poll(t) if s.axum.contains(t)))
            .count()
    };
    assert!(
        polled(&eager) > 0,
        "axum's tasks were never polled as steps"
    );
    assert!(
        eager.contested > 0,
        "an axum task never competed with another event"
    );

    let delayed = serve_three_requests(true);
    assert!(polled(&delayed) > 0);
    assert_ne!(
        eager.picks, delayed.picks,
        "holding axum's tasks back changes the execution"
    );
}

/// The setup hyper's own docs use: a server connection with hyper-util's
/// `TokioTimer` (here its header read timeout fires on simulated time) and
/// hyper-util's legacy client with `TokioExecutor` and `TokioTimer`.
#[tokio::test]
async fn hyper_with_tokio_timer_and_executor() {
    use http_body_util::{BodyExt, Empty, Full};
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use tokio::io::AsyncReadExt;

    tokio::sim::host("api").start(|| async {
        let listener = tokio::net::TcpListener::bind("0.0.0.0:80").await?;
        loop {
            let (socket, _) = listener.accept().await?;
            tokio::spawn(async move {
                let service = hyper::service::service_fn(|_req| async {
                    Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(
                        bytes::Bytes::from_static(b"pong"),
                    )))
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(5))
                    .serve_connection(TokioIo::new(socket), service)
                    .await;
            });
        }
        #[allow(unreachable_code)]
        Ok::<(), std::io::Error>(())
    });
    let api = tokio::net::lookup_host("api:80")
        .await
        .unwrap()
        .next()
        .unwrap();

    let client = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
        .timer(TokioTimer::new())
        .pool_idle_timeout(Duration::from_secs(30))
        .build_http::<Empty<bytes::Bytes>>();
    let uri: hyper::Uri = format!("http://{api}/ping").parse().unwrap();
    let response = client.get(uri).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(&body[..], b"pong");

    // A connection that never sends a request is closed by the server's
    // header read timeout, after exactly 5 simulated seconds.
    let mut idle = tokio::net::TcpStream::connect(api).await.unwrap();
    let start = Instant::now();
    let mut buf = Vec::new();
    idle.read_to_end(&mut buf).await.unwrap();
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_millis(5_100),
        "closed after {waited:?}"
    );
}

/// reqwest resolves a host name the way hyper-util's `GaiResolver` does,
/// with `getaddrinfo` on a blocking task: inside the simulation that
/// answers with the simulated host's address.
#[tokio::test]
async fn reqwest_resolves_a_simulated_host_name() {
    tokio::sim::host("named").start(|| async {
        let app = axum::Router::new().route("/", axum::routing::get(|| async { "by name" }));
        let listener = tokio::net::TcpListener::bind("0.0.0.0:8000").await?;
        axum::serve(listener, app).await
    });
    let body = reqwest::get("http://named:8000/")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(body, "by name");
}
