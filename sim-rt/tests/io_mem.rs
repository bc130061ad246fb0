//! `duplex` and `simplex` pipes: exact wakeups (hand-polled with counting
//! wakers, no runtime needed, as in tokio), backpressure, close and drop
//! behaviour, cancel safety, and use across simulated tasks.

use std::future::Future;
use std::io::ErrorKind;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use sim_rt::io::{self, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

/// A waker that counts its wakes.
#[derive(Default)]
struct Counter(AtomicUsize);

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counter() -> (Arc<Counter>, Waker) {
    let c = Arc::new(Counter::default());
    (c.clone(), Waker::from(c))
}

fn wakes(c: &Counter) -> usize {
    c.0.load(Ordering::SeqCst)
}

fn poll_read<R: AsyncRead + Unpin>(
    r: &mut R,
    waker: &Waker,
    buf: &mut [u8],
) -> Poll<std::io::Result<usize>> {
    let mut rb = ReadBuf::new(buf);
    Pin::new(r)
        .poll_read(&mut Context::from_waker(waker), &mut rb)
        .map_ok(|()| rb.filled().len())
}

fn poll_write<W: AsyncWrite + Unpin>(
    w: &mut W,
    waker: &Waker,
    buf: &[u8],
) -> Poll<std::io::Result<usize>> {
    Pin::new(w).poll_write(&mut Context::from_waker(waker), buf)
}

#[test]
fn a_full_pipe_parks_the_writer_until_the_reader_takes_data() {
    let (mut a, mut b) = io::duplex(4);
    let (wc, ww) = counter();
    let (rc, rw) = counter();
    assert!(matches!(
        poll_write(&mut a, &ww, b"abcdef"),
        Poll::Ready(Ok(4))
    ));
    assert!(poll_write(&mut a, &ww, b"ef").is_pending());
    assert_eq!(wakes(&wc), 0);
    let mut buf = [0u8; 3];
    assert!(matches!(
        poll_read(&mut b, &rw, &mut buf),
        Poll::Ready(Ok(3))
    ));
    assert_eq!(&buf, b"abc");
    assert_eq!(wakes(&wc), 1, "reading wakes the parked writer once");
    assert!(matches!(poll_write(&mut a, &ww, b"ef"), Poll::Ready(Ok(2))));
    assert!(matches!(
        poll_read(&mut b, &rw, &mut buf),
        Poll::Ready(Ok(3))
    ));
    assert_eq!(&buf, b"def");
    // Empty: the reader parks; a write wakes it once.
    assert!(poll_read(&mut b, &rw, &mut buf).is_pending());
    assert_eq!(wakes(&rc), 0);
    assert!(matches!(poll_write(&mut a, &ww, b"g"), Poll::Ready(Ok(1))));
    assert_eq!(wakes(&rc), 1);
    assert_eq!(wakes(&wc), 1, "no stray wake of the writer");
}

#[test]
fn only_the_last_waiting_task_is_kept() {
    let (_a, mut b) = io::duplex(4);
    let (first, fw) = counter();
    let (second, sw) = counter();
    let mut buf = [0u8; 1];
    assert!(poll_read(&mut b, &fw, &mut buf).is_pending());
    assert!(poll_read(&mut b, &sw, &mut buf).is_pending());
    drop(_a);
    assert_eq!((wakes(&first), wakes(&second)), (0, 1));
}

#[test]
fn dropping_one_end_wakes_and_closes_the_other() {
    let (mut a, mut b) = io::duplex(2);
    let (wc, ww) = counter();
    let (rc, rw) = counter();
    assert!(matches!(
        poll_write(&mut b, &ww, b"xyz"),
        Poll::Ready(Ok(2))
    ));
    assert!(poll_write(&mut b, &ww, b"z").is_pending());
    let mut buf = [0u8; 4];
    assert!(matches!(poll_read(&mut b, &rw, &mut buf), Poll::Pending));
    drop(a.write_all(b"ignored")); // a future never polled does nothing
    drop(a);
    assert_eq!((wakes(&wc), wakes(&rc)), (1, 1));
    match poll_write(&mut b, &ww, b"z") {
        Poll::Ready(Err(e)) => assert_eq!(e.kind(), ErrorKind::BrokenPipe),
        other => panic!("expected BrokenPipe, got {other:?}"),
    }
    assert!(matches!(
        poll_read(&mut b, &rw, &mut buf),
        Poll::Ready(Ok(0))
    ));
}

#[test]
fn shutdown_closes_one_direction_and_wakes_the_reader() {
    let (mut a, mut b) = io::duplex(8);
    let (rc, rw) = counter();
    let mut buf = [0u8; 8];
    assert!(poll_read(&mut b, &rw, &mut buf).is_pending());
    assert!(matches!(poll_write(&mut a, &rw, b"hi"), Poll::Ready(Ok(2))));
    let done = Pin::new(&mut a).poll_shutdown(&mut Context::from_waker(&rw));
    assert!(matches!(done, Poll::Ready(Ok(()))));
    assert_eq!(
        wakes(&rc),
        1,
        "the reader was woken by the write; shutdown found no waker"
    );
    assert!(matches!(
        poll_read(&mut b, &rw, &mut buf),
        Poll::Ready(Ok(2))
    ));
    assert!(matches!(
        poll_read(&mut b, &rw, &mut buf),
        Poll::Ready(Ok(0))
    ));
    // b -> a still works.
    assert!(matches!(
        poll_write(&mut b, &rw, b"back"),
        Poll::Ready(Ok(4))
    ));
    assert!(matches!(
        poll_read(&mut a, &rw, &mut buf),
        Poll::Ready(Ok(4))
    ));
    assert!(matches!(poll_write(&mut a, &rw, b"x"), Poll::Ready(Err(_))));
}

#[test]
fn a_cancelled_write_all_keeps_what_it_wrote_and_nothing_more() {
    let (mut a, mut b) = io::duplex(3);
    let (_, w) = counter();
    {
        let mut fut = std::pin::pin!(a.write_all(b"abcdef"));
        assert!(fut.as_mut().poll(&mut Context::from_waker(&w)).is_pending());
    }
    let mut buf = [0u8; 8];
    assert!(matches!(
        poll_read(&mut b, &w, &mut buf),
        Poll::Ready(Ok(3))
    ));
    assert_eq!(&buf[..3], b"abc");
    assert!(poll_read(&mut b, &w, &mut buf).is_pending());
}

#[test]
fn simplex_halves() {
    let (mut r, mut w) = io::simplex(2);
    let (rc, rw) = counter();
    let mut buf = [0u8; 4];
    assert!(poll_read(&mut r, &rw, &mut buf).is_pending());
    assert!(matches!(
        poll_write(&mut w, &rw, b"abc"),
        Poll::Ready(Ok(2))
    ));
    assert_eq!(wakes(&rc), 1);
    assert!(poll_write(&mut w, &rw, b"c").is_pending());
    assert!(matches!(
        poll_read(&mut r, &rw, &mut buf),
        Poll::Ready(Ok(2))
    ));
    assert_eq!(wakes(&rc), 2, "the read woke the parked writer");
    let shut = Pin::new(&mut w).poll_shutdown(&mut Context::from_waker(&rw));
    assert!(matches!(shut, Poll::Ready(Ok(()))));
    assert!(matches!(
        poll_read(&mut r, &rw, &mut buf),
        Poll::Ready(Ok(0))
    ));
    match poll_write(&mut w, &rw, b"late") {
        Poll::Ready(Err(e)) => assert_eq!(e.kind(), ErrorKind::BrokenPipe),
        other => panic!("expected BrokenPipe, got {other:?}"),
    }
}

/// A producer and a consumer task over a small pipe: every byte arrives in
/// order, and the run is the same for the same seed.
#[test]
fn tasks_stream_through_a_small_pipe_deterministically() {
    fn run(seed: u64) -> (Vec<u8>, u64) {
        let rt = sim_rt::runtime::Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        let got = rt.block_on(async {
            let (mut a, mut b) = io::duplex(7);
            let producer = sim_rt::spawn(async move {
                for i in 0..50u8 {
                    a.write_all(&[i; 13]).await.unwrap();
                    sim_rt::task::yield_now().await;
                }
            });
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            producer.await.unwrap();
            got
        });
        (got, rt.trace().hash())
    }
    let (got, hash) = run(7);
    assert_eq!(got.len(), 50 * 13);
    assert!(got
        .chunks(13)
        .enumerate()
        .all(|(i, c)| c.iter().all(|&b| b == i as u8)));
    assert_eq!(run(7).1, hash, "same seed, same trace");
}
