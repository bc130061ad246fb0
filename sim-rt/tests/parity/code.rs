// Included by tests/parity.rs twice: once with `tokio` = tokio, once with
// `tokio` = sim_rt. Only tokio paths may appear here.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::Duration;

/// Every mirrored item, pinned to tokio's signature by a typed binding.
#[allow(dead_code, clippy::type_complexity)]
fn signatures() {
    use std::future::Ready;
    type R = Ready<u8>;
    fn future_of<T, F: Future<Output = T>>(_: F) {}

    // task
    let _: fn(R) -> tokio::task::JoinHandle<u8> = tokio::task::spawn::<R>;
    let _: fn(R) -> tokio::task::JoinHandle<u8> = tokio::spawn::<R>;
    let _: fn(R) -> tokio::task::JoinHandle<u8> = tokio::task::spawn_local::<R>;
    let _: fn(fn() -> u8) -> tokio::task::JoinHandle<u8> =
        tokio::task::spawn_blocking::<fn() -> u8, u8>;
    future_of::<(), _>(tokio::task::yield_now());
    let _: fn() -> tokio::task::Id = tokio::task::id;
    let _: fn() -> Option<tokio::task::Id> = tokio::task::try_id;
    let _: fn(&tokio::task::JoinHandle<u8>) = tokio::task::JoinHandle::<u8>::abort;
    let _: fn(&tokio::task::JoinHandle<u8>) -> bool = tokio::task::JoinHandle::<u8>::is_finished;
    let _: fn(&tokio::task::JoinHandle<u8>) -> tokio::task::AbortHandle =
        tokio::task::JoinHandle::<u8>::abort_handle;
    let _: fn(&tokio::task::JoinHandle<u8>) -> tokio::task::Id = tokio::task::JoinHandle::<u8>::id;
    let _: fn(&tokio::task::AbortHandle) = tokio::task::AbortHandle::abort;
    let _: fn(&tokio::task::AbortHandle) -> bool = tokio::task::AbortHandle::is_finished;
    let _: fn(&tokio::task::JoinError) -> bool = tokio::task::JoinError::is_cancelled;
    let _: fn(&tokio::task::JoinError) -> bool = tokio::task::JoinError::is_panic;
    let _: fn(tokio::task::JoinError) -> Box<dyn std::any::Any + Send> =
        tokio::task::JoinError::into_panic;
    let _: fn(tokio::task::JoinError) -> Result<Box<dyn std::any::Any + Send>, tokio::task::JoinError> =
        tokio::task::JoinError::try_into_panic;
    let _: fn(&tokio::task::JoinError) -> tokio::task::Id = tokio::task::JoinError::id;
    let _: fn(tokio::task::JoinError) -> io::Error = io::Error::from;
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<tokio::task::JoinHandle<u8>>();
    assert_send_sync::<tokio::task::AbortHandle>();
    assert_send_sync::<tokio::task::JoinError>();
    assert_send_sync::<tokio::runtime::Handle>();
    fn assert_unpin<T: Unpin>() {}
    assert_unpin::<tokio::task::JoinHandle<std::marker::PhantomPinned>>();
    let _: fn() -> tokio::task::JoinSet<u8> = tokio::task::JoinSet::<u8>::new;
    let _: fn(&mut tokio::task::JoinSet<u8>, R) -> tokio::task::AbortHandle =
        tokio::task::JoinSet::<u8>::spawn::<R>;
    let _: fn(&tokio::task::JoinSet<u8>) -> usize = tokio::task::JoinSet::<u8>::len;
    let _: fn(&mut tokio::task::JoinSet<u8>) = tokio::task::JoinSet::<u8>::abort_all;
    let _: fn() -> tokio::task::LocalSet = tokio::task::LocalSet::new;
    let _: fn(&tokio::task::LocalSet, R) -> tokio::task::JoinHandle<u8> =
        tokio::task::LocalSet::spawn_local::<R>;

    // time
    let _: fn(Duration) -> tokio::time::Sleep = tokio::time::sleep;
    let _: fn(tokio::time::Instant) -> tokio::time::Sleep = tokio::time::sleep_until;
    let _: fn(Duration, R) -> tokio::time::Timeout<R> = tokio::time::timeout::<R>;
    let _: fn(tokio::time::Instant, R) -> tokio::time::Timeout<R> = tokio::time::timeout_at::<R>;
    let _: fn(Duration) -> tokio::time::Interval = tokio::time::interval;
    let _: fn(tokio::time::Instant, Duration) -> tokio::time::Interval = tokio::time::interval_at;
    let _: fn(&tokio::time::Interval) -> tokio::time::MissedTickBehavior =
        tokio::time::Interval::missed_tick_behavior;
    let _ = [
        tokio::time::MissedTickBehavior::Burst,
        tokio::time::MissedTickBehavior::Delay,
        tokio::time::MissedTickBehavior::Skip,
    ];
    let _: fn() -> tokio::time::Instant = tokio::time::Instant::now;
    let _: fn(&tokio::time::Instant) -> Duration = tokio::time::Instant::elapsed;
    let _: fn(&tokio::time::Instant, tokio::time::Instant) -> Duration =
        tokio::time::Instant::duration_since;
    let _: fn(&tokio::time::Instant, tokio::time::Instant) -> Option<Duration> =
        tokio::time::Instant::checked_duration_since;
    let _: fn(&tokio::time::Instant, tokio::time::Instant) -> Duration =
        tokio::time::Instant::saturating_duration_since;
    let _: fn(&tokio::time::Instant, Duration) -> Option<tokio::time::Instant> =
        tokio::time::Instant::checked_add;
    let _: fn(&tokio::time::Instant, Duration) -> Option<tokio::time::Instant> =
        tokio::time::Instant::checked_sub;
    let _: fn(std::time::Instant) -> tokio::time::Instant = tokio::time::Instant::from_std;
    let _: fn(tokio::time::Instant) -> std::time::Instant = tokio::time::Instant::into_std;
    fn instant_ops(a: tokio::time::Instant, d: tokio::time::Duration) -> (bool, Duration) {
        let mut b = a + d;
        b += d;
        b -= d;
        let c = b - d;
        let mut set = std::collections::HashSet::new();
        set.insert(a);
        let _ = format!("{a:?}");
        (a < b && c == a, b - a)
    }
    let _ = instant_ops;
    let _: fn(&tokio::time::Sleep) -> tokio::time::Instant = tokio::time::Sleep::deadline;
    let _: fn(&tokio::time::Sleep) -> bool = tokio::time::Sleep::is_elapsed;
    let _: fn(Pin<&mut tokio::time::Sleep>, tokio::time::Instant) = tokio::time::Sleep::reset;
    let _: fn(&tokio::time::Timeout<R>) -> &R = tokio::time::Timeout::<R>::get_ref;
    let _: fn(tokio::time::Timeout<R>) -> R = tokio::time::Timeout::<R>::into_inner;
    let _: fn(tokio::time::error::Elapsed) -> io::Error = io::Error::from;
    let _: fn() = tokio::time::pause;
    let _: fn() = tokio::time::resume;
    future_of::<(), _>(tokio::time::advance(Duration::from_secs(1)));

    // runtime
    let _: fn() -> tokio::runtime::Builder = tokio::runtime::Builder::new_current_thread;
    let _: fn() -> tokio::runtime::Builder = tokio::runtime::Builder::new_multi_thread;
    let _: fn(&mut tokio::runtime::Builder) -> &mut tokio::runtime::Builder =
        tokio::runtime::Builder::enable_all;
    let _: fn(&mut tokio::runtime::Builder, usize) -> &mut tokio::runtime::Builder =
        tokio::runtime::Builder::worker_threads;
    let _: fn(&mut tokio::runtime::Builder, bool) -> &mut tokio::runtime::Builder =
        tokio::runtime::Builder::start_paused;
    let _: fn(&mut tokio::runtime::Builder) -> io::Result<tokio::runtime::Runtime> =
        tokio::runtime::Builder::build;
    let _: fn() -> io::Result<tokio::runtime::Runtime> = tokio::runtime::Runtime::new;
    let _: fn(&tokio::runtime::Runtime, R) -> u8 = tokio::runtime::Runtime::block_on::<R>;
    let _: fn(&tokio::runtime::Runtime, R) -> tokio::task::JoinHandle<u8> =
        tokio::runtime::Runtime::spawn::<R>;
    let _: fn(&tokio::runtime::Runtime) -> &tokio::runtime::Handle = tokio::runtime::Runtime::handle;
    let _: fn(&tokio::runtime::Runtime) -> tokio::runtime::EnterGuard<'_> =
        tokio::runtime::Runtime::enter;
    let _: fn() -> tokio::runtime::Handle = tokio::runtime::Handle::current;
    let _: fn() -> Result<tokio::runtime::Handle, tokio::runtime::TryCurrentError> =
        tokio::runtime::Handle::try_current;
    let _: fn(&tokio::runtime::Handle, R) -> tokio::task::JoinHandle<u8> =
        tokio::runtime::Handle::spawn::<R>;
    let _: fn(&tokio::runtime::Handle, R) -> u8 = tokio::runtime::Handle::block_on::<R>;

    // signal
    future_of::<io::Result<()>, _>(tokio::signal::ctrl_c());
}

tokio::task_local! {
    static REQUEST_ID: u32;
}

/// A little service in tokio style: everything a user writes, in one place.
async fn service() -> io::Result<u32> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::sync::{mpsc, oneshot, Mutex};

    let (tx, mut rx) = mpsc::channel::<u32>(8);
    let shared = std::sync::Arc::new(Mutex::new(0u32));
    let mut set = tokio::task::JoinSet::new();
    for i in 0..4u32 {
        let tx = tx.clone();
        let shared = shared.clone();
        set.spawn(async move {
            tokio::time::sleep(Duration::from_millis(u64::from(i) * 10)).await;
            *shared.lock().await += i;
            tx.send(i).await.unwrap();
            i
        });
    }
    drop(tx);
    let mut total = 0;
    while let Some(res) = set.join_next().await {
        total += res.unwrap();
    }
    let mut received = 0;
    let mut ticker = tokio::time::interval(Duration::from_millis(5));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            msg = rx.recv() => match msg {
                Some(v) => received += v,
                None => break,
            },
            _ = ticker.tick() => {}
        }
    }
    let (otx, orx) = oneshot::channel();
    let h = tokio::spawn(async move { otx.send(REQUEST_ID.scope(7, async { REQUEST_ID.get() }).await) });
    h.await?.expect("receiver alive");
    let id = orx.await.unwrap();
    let late = tokio::time::timeout(Duration::from_millis(1), std::future::pending::<()>()).await;
    assert!(late.is_err());
    let (a, b) = tokio::join!(async { 1 }, async { 2 });
    let both: Result<(u32, u32), io::Error> = tokio::try_join!(async { Ok(3) }, async { Ok(4) });
    let (c, d) = both?;
    let fut = async { 5 };
    tokio::pin!(fut);
    let e = (&mut fut).await;
    let (f, g) = tokio::join!(biased; async { 6 }, async { 7 });
    let fg: Result<(u32, u32), io::Error> = tokio::try_join!(biased; async { Ok(f) }, async { Ok(g) });
    assert_eq!(fg?, (6, 7));
    tokio::pin! {
        let h = async { 8 };
    }
    assert_eq!(h.as_mut().await, 8);
    let (mut client, mut server) = tokio::io::duplex(64);
    client.write_all(b"ping").await?;
    let mut buf = [0u8; 4];
    server.read_exact(&mut buf).await?;
    assert_eq!(&buf, b"ping");
    let blocking = tokio::task::spawn_blocking(|| 6).await?;
    let guard = *shared.lock().await;
    Ok(total + received + id + a + b + c + d + e + blocking + guard)
}

const EXPECTED: u32 = 6 + 6 + 7 + 1 + 2 + 3 + 4 + 5 + 6 + 6;

#[tokio::test]
async fn service_runs() {
    assert_eq!(service().await.unwrap(), EXPECTED);
}

#[tokio::test(start_paused = true)]
async fn paused_clock_advances() {
    let start = tokio::time::Instant::now();
    tokio::time::advance(Duration::from_secs(5)).await;
    assert!(start.elapsed() >= Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_thread_flavor_accepted() {
    let h = tokio::spawn(async { 40 + 2 });
    assert_eq!(h.await.unwrap(), 42);
}

#[tokio::main(flavor = "current_thread")]
async fn main_like() -> Result<u32, Box<dyn std::error::Error>> {
    Ok(service().await?)
}

#[test]
fn main_attribute_runs() {
    assert_eq!(main_like().unwrap(), EXPECTED);
}

#[test]
fn runtime_builder_block_on() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        let handle = tokio::runtime::Handle::current();
        handle.spawn(async { 1 }).await.unwrap()
    });
    assert_eq!(out, 1);
    let local = tokio::task::LocalSet::new();
    let v = local.block_on(&rt, async {
        tokio::task::spawn_local(async { std::rc::Rc::new(3) }).await.unwrap()
    });
    assert_eq!(*v, 3);
}
