//! `sim_rt::io` against tokio's own `io`: each scenario runs twice, once
//! with `t` = tokio and once with `t` = sim_rt, on `futures`' executor
//! (both are runtime independent), and must produce the same log: the same
//! results, byte counts, buffer contents, error kinds and error messages
//! (the log holds `{:?}` of every `io::Error`), and `Debug` output.
//!
//! The readers and writers of the scenarios deliver data in small chunks,
//! return `Pending` (waking at once) and `Interrupted` on a fixed script,
//! so the helpers' loops, retries and partial progress are exercised.

mod rt_support;

use std::fmt::Debug;

/// Runs `$body` (an async block's contents returning a `Vec<String>`) with
/// `$t` = tokio and `$t` = sim_rt, and compares the logs.
macro_rules! both {
    ($(#[$attr:meta])* $name:ident, |$t:ident| $body:block) => {
        $(#[$attr])*
        #[test]
        fn $name() {
            let real: Vec<String> = {
                #[allow(unused_imports)]
                use tokio as $t;
                futures::executor::block_on(async $body)
            };
            let sim: Vec<String> = {
                #[allow(unused_imports)]
                use sim_rt as $t;
                futures::executor::block_on(async $body)
            };
            assert_logs_equal(&real, &sim);
        }
    };
}

fn assert_logs_equal(real: &[String], sim: &[String]) {
    for (i, (r, s)) in real.iter().zip(sim).enumerate() {
        assert_eq!(r, s, "log line {i} differs (left: tokio, right: sim_rt)");
    }
    assert_eq!(
        real.len(),
        sim.len(),
        "logs differ in length: {real:#?} vs {sim:#?}"
    );
    assert!(!real.is_empty());
}

fn show<T: Debug>(v: T) -> String {
    format!("{v:?}")
}

/// A scripted reader and writer, defined in each scenario for its `t`:
/// `Script` plays steps: `Data(bytes)` (delivered at most `chunk` at a
/// time), `Pending` (wakes itself), `Interrupted`, `Fail`, then EOF. As a
/// writer it accepts at most `chunk` bytes per call, with the same steps
/// interleaved (data steps mean "accept").
macro_rules! script_type {
    ($t:ident) => {
        #[derive(Debug, Clone)]
        #[allow(dead_code)]
        enum Step {
            Data(&'static [u8]),
            Pending,
            Interrupted,
            Fail,
        }

        #[derive(Debug)]
        struct Script {
            steps: std::collections::VecDeque<Step>,
            chunk: usize,
            written: Vec<u8>,
            vectored: bool,
            flushed: usize,
            shut: bool,
        }

        #[allow(dead_code)]
        impl Script {
            fn new(chunk: usize, steps: Vec<Step>) -> Self {
                Script {
                    steps: steps.into(),
                    chunk,
                    written: Vec::new(),
                    vectored: false,
                    flushed: 0,
                    shut: false,
                }
            }
        }

        impl Script {
            /// Takes the next step: the data of a data step (`None` once
            /// the script is done), or the poll's answer for any other.
            fn step<T>(
                &mut self,
                cx: &mut std::task::Context<'_>,
            ) -> Result<Option<&'static [u8]>, std::task::Poll<std::io::Result<T>>> {
                use std::task::Poll;
                match self.steps.pop_front() {
                    None => Ok(None),
                    Some(Step::Data(d)) => Ok(Some(d)),
                    Some(Step::Pending) => {
                        cx.waker().wake_by_ref();
                        Err(Poll::Pending)
                    }
                    Some(Step::Interrupted) => {
                        Err(Poll::Ready(Err(std::io::ErrorKind::Interrupted.into())))
                    }
                    Some(Step::Fail) => {
                        Err(Poll::Ready(Err(std::io::Error::other("scripted failure"))))
                    }
                }
            }
        }

        impl $t::io::AsyncRead for Script {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut $t::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                match self.step(cx) {
                    Err(poll) => poll,
                    Ok(None) => std::task::Poll::Ready(Ok(())),
                    Ok(Some(d)) => {
                        let n = d.len().min(self.chunk).min(buf.remaining());
                        buf.put_slice(&d[..n]);
                        if n < d.len() {
                            self.steps.push_front(Step::Data(&d[n..]));
                        }
                        std::task::Poll::Ready(Ok(()))
                    }
                }
            }
        }

        impl $t::io::AsyncWrite for Script {
            fn poll_write(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                if let Err(poll) = self.step(cx) {
                    return poll;
                }
                let n = buf.len().min(self.chunk);
                self.written.extend_from_slice(&buf[..n]);
                std::task::Poll::Ready(Ok(n))
            }

            fn is_write_vectored(&self) -> bool {
                self.vectored
            }

            fn poll_write_vectored(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                bufs: &[std::io::IoSlice<'_>],
            ) -> std::task::Poll<std::io::Result<usize>> {
                let all: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
                self.poll_write(cx, &all)
            }

            fn poll_flush(
                mut self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.flushed += 1;
                std::task::Poll::Ready(Ok(()))
            }

            fn poll_shutdown(
                mut self: std::pin::Pin<&mut Self>,
                _cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                self.shut = true;
                std::task::Poll::Ready(Ok(()))
            }
        }
    };
}

both!(read_exact_and_ints, |t| {
    use t::io::AsyncReadExt;
    script_type!(t);
    let mut log = Vec::new();
    let steps = vec![
        Step::Data(b"\x01\x02\x03"),
        Step::Pending,
        Step::Interrupted,
        Step::Data(b"\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"),
        Step::Data(&[0x3f, 0x80, 0, 0, 0, 0, 0x80, 0x3f]),
        Step::Data(b"\xff\xfe"),
    ];
    let mut r = Script::new(2, steps);
    let mut four = [0u8; 4];
    log.push(show(r.read_exact(&mut four).await));
    log.push(show(four));
    log.push(show(r.read_u16().await));
    log.push(show(r.read_u16_le().await));
    log.push(show(r.read_i32().await));
    log.push(show(r.read_u8().await));
    log.push(show(r.read_i8().await));
    log.push(show(r.read_f32().await));
    log.push(show(r.read_f32_le().await));
    log.push(show(r.read_i16_le().await));
    // EOF in the middle of a value, and a read_exact at EOF.
    log.push(show(r.read_u64().await));
    log.push(show(r.read_exact(&mut four).await));
    let mut r = Script::new(3, vec![Step::Data(&[7; 16]), Step::Fail]);
    log.push(show(r.read_u128_le().await));
    log.push(show(r.read_u32().await));
    let mut r = Script::new(
        8,
        vec![Step::Data(&[
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
            25, 26, 27, 28, 29, 30, 31, 32,
        ])],
    );
    log.push(show(r.read_i128().await));
    log.push(show(r.read_u64_le().await));
    log.push(show(r.read_f64().await));
    log
});

both!(read_and_read_buf, |t| {
    use t::io::AsyncReadExt;
    script_type!(t);
    let mut log = Vec::new();
    let mut r = Script::new(
        5,
        vec![
            Step::Data(b"hello world"),
            Step::Interrupted,
            Step::Fail,
            Step::Data(b"!"),
        ],
    );
    let mut buf = [0u8; 3];
    log.push(show(r.read(&mut buf).await));
    log.push(show(buf));
    log.push(show(r.read(&mut []).await));
    let mut v = Vec::with_capacity(4);
    log.push(show(r.read_buf(&mut v).await));
    log.push(show(&v));
    let mut bm = bytes::BytesMut::with_capacity(64);
    log.push(show(r.read_buf(&mut bm).await));
    log.push(show(&bm));
    // `read` does not retry `Interrupted`.
    log.push(show(r.read(&mut buf).await));
    log.push(show(r.read(&mut buf).await));
    log.push(show(r.read(&mut buf).await));
    log.push(show(r.read(&mut buf).await));
    // A full buffer reads nothing.
    let mut full: &mut [u8] = &mut [];
    log.push(show(r.read_buf(&mut full).await));
    log
});

both!(read_to_end_and_string, |t| {
    use t::io::AsyncReadExt;
    script_type!(t);
    let mut log = Vec::new();
    let long: &'static [u8] = Box::leak(vec![b'x'; 100].into_boxed_slice());
    let mut r = Script::new(
        7,
        vec![
            Step::Data(b"abc"),
            Step::Pending,
            Step::Interrupted,
            Step::Data(long),
        ],
    );
    let mut v = b"pre".to_vec();
    log.push(show(r.read_to_end(&mut v).await));
    log.push(show(v.len()));
    // An error keeps what was read.
    let mut r = Script::new(2, vec![Step::Data(b"abcde"), Step::Fail]);
    let mut v = Vec::new();
    log.push(show(r.read_to_end(&mut v).await));
    log.push(show(&v));
    // read_to_string: valid, invalid UTF-8, error after valid data.
    let mut s = String::from("keep:");
    let mut r = Script::new(3, vec![Step::Data("héllo".as_bytes())]);
    log.push(show(r.read_to_string(&mut s).await));
    log.push(show(&s));
    let mut s = String::from("keep:");
    let mut r = Script::new(3, vec![Step::Data(b"ab\xffcd")]);
    log.push(show(r.read_to_string(&mut s).await));
    log.push(show(&s));
    let mut s = String::from("keep:");
    let mut r = Script::new(3, vec![Step::Data(b"abcd"), Step::Fail]);
    log.push(show(r.read_to_string(&mut s).await));
    log.push(show(&s));
    let mut s = String::from("keep:");
    let mut r = Script::new(3, vec![Step::Data(b"ab\xff"), Step::Fail]);
    log.push(show(r.read_to_string(&mut s).await));
    log.push(show(&s));
    log
});

// How `read_to_end` and `read_to_string` grow their vector: the capacity
// after reading `len` bytes (in one or two reads) into a vector of
// capacity `cap`, for lengths and capacities around the 32-byte minimum
// room and the small read into a stack buffer.
both!(read_to_end_capacity, |t| {
    use t::io::AsyncReadExt;
    script_type!(t);
    let data: &'static [u8] = Box::leak((0..120u8).collect::<Vec<_>>().into_boxed_slice());
    let mut log = Vec::new();
    for len in [0usize, 1, 20, 31, 32, 33, 40, 63, 64, 65, 99, 120] {
        for split in [0, 1, len / 2, len.saturating_sub(1)] {
            for cap in [0, 1, 16, 31, 32, 33, 40, 63, 64, 65, 100, 128] {
                let steps = if split == 0 || split >= len {
                    vec![Step::Data(&data[..len])]
                } else {
                    vec![Step::Data(&data[..split]), Step::Data(&data[split..len])]
                };
                let mut r = Script::new(usize::MAX, steps.clone());
                let mut v = Vec::with_capacity(cap);
                let n = r.read_to_end(&mut v).await.unwrap();
                assert_eq!(&v[..], &data[..len]);
                let mut r = Script::new(usize::MAX, steps);
                let mut s = String::with_capacity(cap);
                let m = r.read_to_string(&mut s).await.unwrap_or(0);
                log.push(format!(
                    "len {len} split {split} cap {cap}: {n} -> {}, string {m} -> {}",
                    v.capacity(),
                    s.capacity()
                ));
            }
        }
    }
    // Appending to a vector that already holds data.
    for (pre, cap) in [(10, 10), (10, 40), (30, 64), (40, 64), (64, 64)] {
        let mut r = Script::new(5, vec![Step::Data(&data[..50])]);
        let mut v = Vec::with_capacity(cap);
        v.extend_from_slice(&data[..pre]);
        let n = r.read_to_end(&mut v).await.unwrap();
        log.push(format!(
            "pre {pre} cap {cap}: {n} -> {} {}",
            v.len(),
            v.capacity()
        ));
    }
    log
});

// What a reader under `read_to_end` sees of its `ReadBuf`: the filled
// part (the vector's contents), the initialized part (what earlier reads
// initialized is remembered, not zeroed again) and the capacity.
both!(read_to_end_initialized, |t| {
    use t::io::AsyncReadExt;
    struct Observer {
        calls: usize,
        seen: Vec<String>,
    }
    impl t::io::AsyncRead for Observer {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
            buf: &mut t::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            let line = format!(
                "filled {} initialized {} capacity {}",
                buf.filled().len(),
                buf.initialized().len(),
                buf.capacity()
            );
            self.seen.push(line);
            self.calls += 1;
            let calls = self.calls;
            // Initialize more than is filled on some calls, fill one byte
            // on most, and stop after 40 calls.
            if calls <= 40 && buf.remaining() > 0 {
                let want = (calls % 5).min(buf.remaining());
                buf.initialize_unfilled_to(want.max(1));
                buf.advance(1);
            }
            std::task::Poll::Ready(Ok(()))
        }
    }
    let mut log = Vec::new();
    // Through a `Take`: what it lends the inner reader is not initialized
    // for it.
    for limit in [3u64, 40] {
        let o = Observer {
            calls: 0,
            seen: Vec::new(),
        };
        let mut t = o.take(limit);
        let mut v = Vec::with_capacity(33);
        let n = t.read_to_end(&mut v).await.unwrap();
        log.push(format!("take {limit}: {n} -> {}", v.capacity()));
        log.extend(t.into_inner().seen);
    }
    for cap in [0, 8, 33, 64] {
        let mut o = Observer {
            calls: 0,
            seen: Vec::new(),
        };
        let mut v = Vec::with_capacity(cap);
        let n = o.read_to_end(&mut v).await.unwrap();
        log.push(format!("cap {cap}: {n} -> {}", v.capacity()));
        log.extend(o.seen);
    }
    log
});

both!(buf_read_lines_split_until, |t| {
    use t::io::{AsyncBufReadExt, BufReader};
    script_type!(t);
    let mut log = Vec::new();
    let text: &'static [u8] = b"one\ntwo\r\nthree\n\nlast";
    let mut r = BufReader::with_capacity(4, Script::new(3, vec![Step::Data(text)]));
    let mut s = String::from(">");
    log.push(show(r.read_line(&mut s).await));
    log.push(show(&s));
    let mut v = Vec::new();
    log.push(show(r.read_until(b'\r', &mut v).await));
    log.push(show(&v));
    log.push(show(r.fill_buf().await.map(|b| b.to_vec())));
    r.consume(2);
    log.push(show(r.buffer()));
    let mut lines = r.lines();
    while let Some(line) = lines.next_line().await.transpose() {
        log.push(show(line));
    }
    log.push(show(lines.next_line().await));
    // Split, with an empty segment and no trailing delimiter.
    let mut split = BufReader::with_capacity(
        3,
        Script::new(
            2,
            vec![Step::Data(b"a,,bc,"), Step::Pending, Step::Data(b"d")],
        ),
    )
    .split(b',');
    while let Some(seg) = split.next_segment().await.transpose() {
        log.push(show(seg));
    }
    // Invalid UTF-8 in read_line keeps the original string; in lines it is
    // an InvalidData error.
    let mut r = BufReader::new(Script::new(8, vec![Step::Data(b"ok\n\xc3\x28\nafter\n")]));
    let mut s = String::from("orig");
    log.push(show(r.read_line(&mut s).await));
    log.push(show(&s));
    log.push(show(r.read_line(&mut s).await));
    log.push(show(&s));
    let mut lines = r.lines();
    log.push(show(lines.next_line().await));
    let mut lines = BufReader::new(Script::new(8, vec![Step::Data(b"\xff\n")])).lines();
    log.push(show(lines.next_line().await));
    // An I/O error in read_line keeps what was read.
    let mut r = BufReader::with_capacity(2, Script::new(2, vec![Step::Data(b"abc"), Step::Fail]));
    let mut s = String::from("x");
    log.push(show(r.read_line(&mut s).await));
    log.push(show(&s));
    log
});

both!(write_ext, |t| {
    use t::io::AsyncWriteExt;
    script_type!(t);
    let mut log = Vec::new();
    let mut w = Script::new(3, vec![Step::Data(b""), Step::Pending, Step::Interrupted]);
    log.push(show(w.write(b"hello").await));
    log.push(show(w.write_all(b" world, all of it").await));
    log.push(show(w.write_u32(0x01020304).await));
    log.push(show(w.write_i64_le(-2).await));
    log.push(show(w.write_f64(1.5).await));
    log.push(show(w.write_u128_le(7).await));
    log.push(show(w.write_i8(-1).await));
    log.push(show(w.write_u16(9).await));
    let bufs = [std::io::IoSlice::new(b"ab"), std::io::IoSlice::new(b"cd")];
    log.push(show(w.write_vectored(&bufs).await));
    w.vectored = true;
    log.push(show(w.write_vectored(&bufs).await));
    let mut b = bytes::Bytes::from_static(b"buffered");
    log.push(show(w.write_buf(&mut b).await));
    log.push(show(&b));
    let mut chained = bytes::Buf::chain(&b"12"[..], &b"345"[..]);
    log.push(show(w.write_all_buf(&mut chained).await));
    w.vectored = false;
    let mut chained = bytes::Buf::chain(&b"67"[..], &b"890"[..]);
    log.push(show(w.write_all_buf(&mut chained).await));
    log.push(show(w.write(b"").await));
    log.push(show(w.write_all(b"").await));
    log.push(show(w.flush().await));
    log.push(show(w.shutdown().await));
    log.push(show(&w.written));
    log.push(show((w.flushed, w.shut)));
    // WriteZero and errors.
    let mut four = [0u8; 4];
    let mut full = std::io::Cursor::new(&mut four[..]);
    log.push(show(full.write_all(b"too long").await));
    log.push(show(full.write_u64(1).await));
    let mut three = [0u8; 3];
    let mut cur = std::io::Cursor::new(&mut three[..]);
    log.push(show(
        cur.write_all_buf(&mut bytes::Bytes::from_static(b"abcd"))
            .await,
    ));
    let mut w = Script::new(3, vec![Step::Fail]);
    log.push(show(w.write_all(b"x").await));
    log
});

both!(seek_cursor_and_std_impls, |t| {
    use std::io::SeekFrom;
    use t::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
    let mut log = Vec::new();
    let mut c = std::io::Cursor::new(b"0123456789".to_vec());
    log.push(show(c.seek(SeekFrom::End(-3)).await));
    let mut s = String::new();
    log.push(show(c.read_to_string(&mut s).await));
    log.push(show(&s));
    log.push(show(c.seek(SeekFrom::Current(-20)).await));
    log.push(show(c.rewind().await));
    log.push(show(c.seek(SeekFrom::Start(20)).await));
    log.push(show(c.read(&mut [0; 4]).await));
    log.push(show(c.stream_position().await));
    log.push(show(c.write_all(b"ab").await));
    log.push(show(c.get_ref().len()));
    log.push(show(c.seek(SeekFrom::Start(8)).await));
    log.push(show(c.fill_buf().await.map(|b| b.to_vec())));
    // &[u8], Vec<u8>, Box, &mut, Pin<Box<..>>.
    let mut slice: &[u8] = b"slice";
    let mut buf = [0u8; 3];
    log.push(show(slice.read(&mut buf).await));
    log.push(show(slice));
    let mut v: Vec<u8> = Vec::new();
    log.push(show(v.write_all(b"vec").await));
    let mut boxed: Box<Vec<u8>> = Box::default();
    log.push(show(boxed.write_all(b"box").await));
    let mut pinned = Box::pin(std::io::Cursor::new(b"pinned".to_vec()));
    let mut out = String::new();
    log.push(show(pinned.read_to_string(&mut out).await));
    log.push(show((&v, &boxed, out)));
    let mut cb = std::io::Cursor::new(vec![0u8; 2].into_boxed_slice());
    log.push(show(cb.write(b"xyz").await));
    let mut cv = Vec::new();
    let mut cmv = std::io::Cursor::new(&mut cv);
    log.push(show(cmv.write(b"xyz").await));
    log.push(show(cv));
    log
});

both!(buf_reader_and_writer, |t| {
    use std::io::SeekFrom;
    use t::io::{
        AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, BufStream, BufWriter,
    };
    script_type!(t);
    let mut log = Vec::new();
    let data: Vec<u8> = (0..64u8).collect();
    let mut r = BufReader::with_capacity(8, std::io::Cursor::new(data.clone()));
    let mut small = [0u8; 3];
    log.push(show(r.read(&mut small).await));
    log.push(show(format!("{r:?}")));
    log.push(show(r.buffer()));
    // A read larger than the buffer with buffered data: served from it.
    let mut big = [0u8; 16];
    log.push(show(r.read(&mut big).await));
    log.push(show(big));
    // Empty buffer, large read: goes straight through.
    log.push(show(r.read(&mut big).await));
    log.push(show(big));
    // Seeks relative to what the caller has read, not the inner cursor.
    log.push(show(r.read(&mut small).await));
    log.push(show(r.seek(SeekFrom::Current(-2)).await));
    log.push(show(r.read(&mut small).await));
    log.push(show(small));
    log.push(show(r.seek(SeekFrom::Current(i64::MIN)).await));
    log.push(show(r.seek(SeekFrom::End(-1)).await));
    log.push(show(r.read_u8().await));
    log.push(show(r.stream_position().await));
    log.push(show(r.get_ref().position()));
    let inner = r.into_inner();
    log.push(show(inner.position()));

    // BufWriter: small writes are held, big ones go straight through.
    let mut w = BufWriter::with_capacity(8, Script::new(5, vec![]));
    log.push(show(w.write(b"abc").await));
    log.push(show((w.buffer(), &w.get_ref().written)));
    log.push(show(w.write(b"defgh").await));
    log.push(show((w.buffer(), &w.get_ref().written)));
    log.push(show(w.write(b"0123456789").await));
    log.push(show((w.buffer(), &w.get_ref().written)));
    log.push(show(w.write_all(b"xy").await));
    let bufs = [
        std::io::IoSlice::new(b""),
        std::io::IoSlice::new(b"12"),
        std::io::IoSlice::new(b"345678"),
        std::io::IoSlice::new(b"9"),
    ];
    log.push(show(w.write_vectored(&bufs).await));
    log.push(show((w.buffer(), &w.get_ref().written)));
    w.get_mut().vectored = true;
    log.push(show(w.write_vectored(&bufs).await));
    log.push(show((w.buffer(), &w.get_ref().written)));
    log.push(show(w.flush().await));
    log.push(show((
        w.buffer(),
        &w.get_ref().written,
        w.get_ref().flushed,
    )));
    log.push(show(w.write(b"q").await));
    log.push(show(w.shutdown().await));
    log.push(show((w.buffer(), &w.get_ref().written, w.get_ref().shut)));
    // A writer that stops accepting.
    let mut two = [0u8; 2];
    let mut w = BufWriter::with_capacity(4, std::io::Cursor::new(&mut two[..]));
    log.push(show(w.write(b"abc").await));
    log.push(show(w.flush().await));
    log.push(show(w.buffer()));
    // BufWriter seek flushes first.
    let mut w = BufWriter::new(std::io::Cursor::new(Vec::new()));
    log.push(show(w.write_all(b"hello").await));
    log.push(show(w.seek(SeekFrom::Start(1)).await));
    log.push(show(w.write_all(b"EL").await));
    log.push(show(w.flush().await));
    log.push(show(w.get_ref().get_ref()));

    // BufStream and its From impls.
    let mut s = BufStream::with_capacity(4, 4, std::io::Cursor::new(b"stream data".to_vec()));
    let mut word = String::new();
    log.push(show(s.read_line(&mut word).await));
    log.push(show(s.write_all(b"XY").await));
    log.push(show(s.seek(SeekFrom::Start(0)).await));
    log.push(show(s.get_ref().get_ref()));
    log.push(show(s.flush().await));
    log.push(show(s.get_ref().get_ref()));
    let mut swapped: BufStream<_> =
        BufWriter::new(BufReader::new(std::io::Cursor::new(b"ab".to_vec()))).into();
    let mut all = Vec::new();
    log.push(show(swapped.read_to_end(&mut all).await));
    log.push(show(all));
    log
});

both!(chain_take_empty_repeat_sink, |t| {
    use t::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
    let mut log = Vec::new();
    let mut c = (&b"ab"[..]).chain(&b""[..]).chain(&b"cde"[..]);
    let mut buf = [0u8; 2];
    for _ in 0..5 {
        let n = c.read(&mut buf).await;
        log.push(show((n, buf)));
    }
    log.push(show(format!("{c:?}")));
    let mut c = (&b"ab"[..]).chain(&b"cd"[..]);
    log.push(show(c.fill_buf().await.map(|b| b.to_vec())));
    c.consume(2);
    log.push(show(c.fill_buf().await.map(|b| b.to_vec())));
    log.push(show(c.get_ref()));
    let mut tk = (&b"0123456789"[..]).take(4);
    let mut v = Vec::new();
    log.push(show(tk.read_to_end(&mut v).await));
    log.push(show((&v, tk.limit())));
    tk.set_limit(3);
    log.push(show(tk.fill_buf().await.map(|b| b.to_vec())));
    tk.consume(100);
    log.push(show((tk.limit(), tk.get_ref())));
    log.push(show(format!("{tk:?}")));
    let mut e = t::io::empty();
    log.push(show(e.read(&mut buf).await));
    log.push(show(e.write(b"abc").await));
    log.push(show(e.seek(std::io::SeekFrom::End(5)).await));
    log.push(show(e.fill_buf().await.map(|b| b.to_vec())));
    log.push(show(format!("{e:?}")));
    let mut r = t::io::repeat(b'z').take(5);
    let mut s = String::new();
    log.push(show(r.read_to_string(&mut s).await));
    log.push(show(&s));
    log.push(show(format!("{:?}", t::io::repeat(1))));
    let mut k = t::io::sink();
    log.push(show(k.write(b"gone").await));
    log.push(show(
        k.write_vectored(&[std::io::IoSlice::new(b"a"), std::io::IoSlice::new(b"bc")])
            .await,
    ));
    log.push(show((k.flush().await, k.shutdown().await)));
    log.push(show(format!("{k:?}")));
    log
});

both!(copies, |t| {
    use t::io::{AsyncReadExt, BufReader};
    script_type!(t);
    let mut log = Vec::new();
    let long: &'static [u8] = Box::leak(
        (0..20_000u32)
            .map(|i| i as u8)
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let mut r = Script::new(
        1000,
        vec![
            Step::Data(long),
            Step::Pending,
            Step::Interrupted,
            Step::Data(b"end"),
        ],
    );
    let mut w = Script::new(700, vec![Step::Pending, Step::Interrupted, Step::Data(b"")]);
    log.push(show(t::io::copy(&mut r, &mut w).await));
    log.push(show((
        w.written.len(),
        w.written.ends_with(b"end"),
        w.flushed,
    )));
    let mut r = BufReader::with_capacity(5, Script::new(3, vec![Step::Data(b"buffered copy")]));
    let mut w = Script::new(4, vec![]);
    log.push(show(t::io::copy_buf(&mut r, &mut w).await));
    log.push(show((&w.written, w.flushed)));
    // Errors: reader fails, writer stops accepting.
    let mut r = Script::new(3, vec![Step::Data(b"abc"), Step::Fail]);
    log.push(show(t::io::copy(&mut r, &mut Vec::new()).await));
    let mut two = [0u8; 2];
    let mut full = std::io::Cursor::new(&mut two[..]);
    log.push(show(t::io::copy(&mut &b"abcd"[..], &mut full).await));
    let mut full = std::io::Cursor::new(&mut two[..]);
    log.push(show(t::io::copy_buf(&mut &b"abcd"[..], &mut full).await));
    // copy from repeat into sink, through take.
    log.push(show(
        t::io::copy(&mut t::io::repeat(1).take(100_000), &mut t::io::sink()).await,
    ));
    log
});

both!(duplex_and_simplex, |t| {
    use t::io::{AsyncReadExt, AsyncWriteExt};
    let mut log = Vec::new();
    let (mut a, mut b) = t::io::duplex(4);
    log.push(show(a.write(b"abcdef").await));
    log.push(show(a.write_vectored(&[std::io::IoSlice::new(b"")]).await));
    let mut buf = [0u8; 8];
    log.push(show(b.read(&mut buf).await));
    log.push(show(&buf[..4]));
    log.push(show(b.write_all(b"xy").await));
    log.push(show(
        a.write_vectored(&[std::io::IoSlice::new(b"12"), std::io::IoSlice::new(b"345")])
            .await,
    ));
    log.push(show(b.read(&mut buf).await));
    log.push(show(&buf[..4]));
    // shutdown: the other side reads the rest, then EOF; we can't write.
    log.push(show(a.shutdown().await));
    log.push(show(a.write(b"z").await));
    log.push(show(b.read(&mut buf).await));
    // The other direction is still open.
    log.push(show(a.read(&mut buf).await));
    log.push(show(&buf[..2]));
    // Dropping one end closes both directions for the other.
    log.push(show(b.write(b"last").await));
    drop(a);
    log.push(show(b.read(&mut buf).await));
    log.push(show(b.write(b"more").await));
    log.push(show(b.flush().await));
    // simplex.
    let (mut r, mut w) = t::io::simplex(3);
    log.push(show(w.write(b"hello").await));
    log.push(show(w.is_pair_of(&r)));
    log.push(show(r.read(&mut buf).await));
    log.push(show(&buf[..3]));
    log.push(show(w.shutdown().await));
    log.push(show(r.read(&mut buf).await));
    let s = r.unsplit(w);
    log.push(show(format!("{s:?}")));
    let mut s = t::io::SimplexStream::new_unsplit(2);
    log.push(show(s.write(b"abc").await));
    log.push(show(s.read(&mut buf).await));
    log
});

both!(split_and_join, |t| {
    use t::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
    let mut log = Vec::new();
    let (r, mut w) = t::io::split(std::io::Cursor::new(b"data".to_vec()));
    log.push(show(w.is_write_vectored()));
    let mut r2 = r;
    let mut buf = [0u8; 2];
    log.push(show(r2.read(&mut buf).await));
    log.push(show(w.write_all(b"XY").await));
    log.push(show(format!("{r2:?} {w:?}")));
    log.push(show(r2.is_pair_of(&w)));
    let (other_r, other_w) = t::io::split(std::io::Cursor::new(Vec::<u8>::new()));
    log.push(show(r2.is_pair_of(&other_w)));
    log.push(show(other_r.is_pair_of(&w)));
    let c = r2.unsplit(w);
    log.push(show(c.into_inner()));
    let mut j = t::io::join(&b"in"[..], Vec::new());
    let mut s = String::new();
    log.push(show(j.read_to_string(&mut s).await));
    log.push(show(j.write_all(b"out").await));
    log.push(show(format!("{j:?}")));
    log.push(show(j.writer().is_write_vectored()));
    let (rd, wr) = j.into_inner();
    log.push(show((rd, wr, s)));
    log
});

both!(read_buf_api_and_debug, |t| {
    use std::mem::MaybeUninit;
    use t::io::ReadBuf;
    let mut log = Vec::new();
    let mut storage = [MaybeUninit::<u8>::uninit(); 10];
    let mut rb = ReadBuf::uninit(&mut storage);
    log.push(show(format!("{rb:?}")));
    log.push(show((
        rb.capacity(),
        rb.remaining(),
        rb.filled(),
        rb.initialized(),
    )));
    rb.put_slice(b"abc");
    log.push(show(format!("{rb:?}")));
    log.push(show(rb.initialize_unfilled_to(2).len()));
    log.push(show(format!("{rb:?}")));
    rb.advance(2);
    log.push(show((rb.filled(), rb.initialized())));
    rb.set_filled(1);
    log.push(show((rb.filled(), rb.initialized(), rb.remaining())));
    {
        let mut sub = rb.take(4);
        log.push(show(format!("{sub:?}")));
        sub.put_slice(b"WXYZ");
    }
    // SAFETY: `take` wrote 4 bytes after the filled one.
    unsafe { rb.assume_init(4) };
    rb.advance(4);
    log.push(show((rb.filled(), format!("{rb:?}"))));
    rb.filled_mut()[0] = b'A';
    rb.initialized_mut()[1] = b'w';
    log.push(show(rb.filled()));
    log.push(show(rb.initialize_unfilled().len()));
    log.push(show(format!("{rb:?}")));
    rb.clear();
    log.push(show((rb.filled(), rb.initialized().len())));
    let mut plain = [1u8; 4];
    let mut rb = ReadBuf::new(&mut plain);
    log.push(show(format!("{rb:?}")));
    bytes::BufMut::put_slice(&mut rb, b"hi");
    log.push(show((rb.filled(), bytes::BufMut::remaining_mut(&rb))));
    log.push(show(rb.take(100).capacity()));
    log
});

both!(interest_and_ready, |t| {
    use t::io::{Interest, Ready};
    let mut log = Vec::new();
    let all = Interest::READABLE | Interest::WRITABLE | Interest::PRIORITY | Interest::ERROR;
    log.push(show(format!("{all:?}")));
    log.push(show(format!(
        "{:?}",
        Interest::WRITABLE.add(Interest::ERROR)
    )));
    log.push(show(format!("{:?}", all.remove(Interest::READABLE))));
    log.push(show(format!(
        "{:?}",
        Interest::READABLE.remove(Interest::READABLE)
    )));
    let mut i = Interest::READABLE;
    i |= Interest::PRIORITY;
    log.push(show((
        i.is_readable(),
        i.is_writable(),
        i.is_priority(),
        i.is_error(),
        i == Interest::READABLE,
    )));
    for r in [
        Ready::EMPTY,
        Ready::READABLE,
        Ready::WRITABLE,
        Ready::READ_CLOSED,
        Ready::WRITE_CLOSED,
        Ready::PRIORITY,
        Ready::ERROR,
        Ready::ALL,
    ] {
        log.push(show(format!("{r:?}")));
        log.push(show((
            r.is_empty(),
            r.is_readable(),
            r.is_writable(),
            r.is_read_closed(),
            r.is_write_closed(),
            r.is_priority(),
            r.is_error(),
        )));
    }
    let mut r = Ready::READABLE;
    r |= Ready::ERROR;
    log.push(show(format!("{:?}", r - Ready::READABLE)));
    log.push(show(format!("{:?}", r & Ready::ERROR)));
    log.push(show((
        Ready::READABLE < Ready::WRITABLE,
        Ready::ALL.max(Ready::EMPTY) == Ready::ALL,
    )));
    log
});

both!(copy_bidirectional_over_duplex, |t| {
    use t::io::{AsyncReadExt, AsyncWriteExt};
    let mut log = Vec::new();
    let (mut a1, mut a2) = t::io::duplex(5);
    let (mut b1, mut b2) = t::io::duplex(7);
    let proxy = t::io::copy_bidirectional_with_sizes(&mut a2, &mut b1, 3, 2);
    let ends = async {
        a1.write_all(b"to b: hello").await.unwrap();
        a1.shutdown().await.unwrap();
        b2.write_all(b"to a: hi").await.unwrap();
        b2.shutdown().await.unwrap();
        let mut at_b = String::new();
        b2.read_to_string(&mut at_b).await.unwrap();
        let mut at_a = String::new();
        a1.read_to_string(&mut at_a).await.unwrap();
        (at_a, at_b)
    };
    let (res, got) = futures::join!(proxy, ends);
    log.push(show(res));
    log.push(show(got));
    log
});

/// Panics are tokio's: same messages.
mod panics {
    fn message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let err = std::panic::catch_unwind(f).expect_err("should panic");
        crate::rt_support::panic_text(&*err).unwrap()
    }

    macro_rules! same_panic {
        ($name:ident, |$t:ident| $body:block) => {
            #[test]
            fn $name() {
                let real = message(|| {
                    use tokio as $t;
                    $body
                });
                let sim = message(|| {
                    use sim_rt as $t;
                    $body
                });
                assert_eq!(real, sim);
            }
        };
    }

    same_panic!(put_slice_overflow, |t| {
        let mut b = [0u8; 2];
        t::io::ReadBuf::new(&mut b).put_slice(b"abc");
    });
    same_panic!(set_filled_past_initialized, |t| {
        let mut b = [std::mem::MaybeUninit::uninit(); 2];
        t::io::ReadBuf::uninit(&mut b).set_filled(1);
    });
    same_panic!(initialize_unfilled_to_overflow, |t| {
        let mut b = [0u8; 2];
        t::io::ReadBuf::new(&mut b).initialize_unfilled_to(3);
    });
    same_panic!(buf_reader_zero_capacity, |t| {
        let _ = t::io::BufReader::with_capacity(0, &b""[..]);
    });
    same_panic!(duplex_zero, |t| {
        let _ = t::io::duplex(0);
    });
    same_panic!(simplex_zero, |t| {
        let _ = t::io::simplex(0);
    });
    same_panic!(unsplit_unrelated, |t| {
        let (r, _w) = t::io::split(std::io::Cursor::new(Vec::<u8>::new()));
        let (_r2, w2) = t::io::split(std::io::Cursor::new(Vec::<u8>::new()));
        let _ = r.unsplit(w2);
    });
    same_panic!(copy_bidirectional_zero_size, |t| {
        let (mut a, mut b) = t::io::duplex(1);
        let _ =
            futures::executor::block_on(t::io::copy_bidirectional_with_sizes(&mut a, &mut b, 0, 1));
    });
}
