//! `sim_rt::io` inside a simulation: the cooperative budget of the
//! always-ready helpers and of `copy`, the io helpers over simulated TCP
//! (a proxy host with `copy_bidirectional`, `BufReader::lines` and
//! `io::split` on a socket), the standard streams, and `AsyncFd`.

mod rt_support;

use std::io::ErrorKind;
use std::sync::atomic::Ordering;

use rt_support::counted;
use sim_rt::io::{self, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use sim_rt::net::{TcpListener, TcpStream};
use sim_rt::runtime::Builder;
use sim_rt::sim;

/// 300 reads of `empty()` in a loop: each takes a unit of budget, so the
/// task yields after 128 and 256 of them: three polls, as in tokio.
#[sim_rt::test]
async fn a_loop_over_empty_yields_on_budget() {
    let (task, polls) = counted(async {
        let mut e = io::empty();
        let mut buf = [0u8; 4];
        for _ in 0..300 {
            assert_eq!(e.read(&mut buf).await.unwrap(), 0);
        }
    });
    sim_rt::spawn(task).await.unwrap();
    assert_eq!(polls.load(Ordering::Relaxed), 3);
}

/// `copy` from an endless `repeat` to a `sink` never returns `Pending` on
/// its own; the budget makes it yield. Each 8 KiB round takes two units
/// (the read and the write) and each poll one more for the copy itself:
/// 1 MiB is 128 rounds, 256 units and more, 128 per poll: three polls
/// (tokio counts the same: tests/parity/io.rs checks it on both runtimes).
#[sim_rt::test]
async fn copy_between_always_ready_ends_yields_on_budget() {
    let (task, polls) = counted(async {
        let mut src = io::repeat(7).take(1 << 20);
        io::copy(&mut src, &mut io::sink()).await.unwrap()
    });
    let copied = sim_rt::spawn(task).await.unwrap();
    assert_eq!(copied, 1 << 20);
    assert_eq!(polls.load(Ordering::Relaxed), 3);
}

/// A proxy host forwards between clients and an upper-casing server with
/// `copy_bidirectional`; the client reads lines through a `BufReader` over
/// the read half of `io::split` and writes through a `BufWriter`.
#[test]
fn a_proxy_with_copy_bidirectional_over_simulated_tcp() {
    for seed in 0..10 {
        let rt = Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        let (lines, counts) = rt.block_on(async {
            sim::host("server").start(|| async {
                let listener = TcpListener::bind("0.0.0.0:80").await?;
                loop {
                    let (s, _) = listener.accept().await?;
                    sim_rt::spawn(async move {
                        let (r, mut w) = s.into_split();
                        let mut lines = BufReader::new(r).lines();
                        while let Some(line) = lines.next_line().await.unwrap() {
                            w.write_all(format!("{}\n", line.to_uppercase()).as_bytes())
                                .await
                                .unwrap();
                        }
                        w.shutdown().await.unwrap();
                    });
                }
                #[allow(unreachable_code)]
                Ok::<(), std::io::Error>(())
            });
            let (count_tx, mut count_rx) = sim_rt::sync::mpsc::unbounded_channel();
            sim::host("proxy").start(move || {
                let count_tx = count_tx.clone();
                async move {
                    let listener = TcpListener::bind("0.0.0.0:8080").await?;
                    let (mut client, _) = listener.accept().await?;
                    let mut upstream = TcpStream::connect("server:80").await?;
                    let counts = io::copy_bidirectional(&mut client, &mut upstream).await?;
                    count_tx.send(counts).unwrap();
                    Ok::<(), std::io::Error>(())
                }
            });
            let stream = TcpStream::connect("proxy:8080").await.unwrap();
            let (r, w) = io::split(stream);
            let mut w = BufWriter::new(w);
            for word in ["alpha", "beta", "gamma"] {
                w.write_all(word.as_bytes()).await.unwrap();
                w.write_all(b"\n").await.unwrap();
            }
            w.shutdown().await.unwrap();
            let mut lines = Vec::new();
            let mut reader = BufReader::new(r);
            let mut line = String::new();
            while reader.read_line(&mut line).await.unwrap() > 0 {
                lines.push(std::mem::take(&mut line));
            }
            (lines, count_rx.recv().await.unwrap())
        });
        assert_eq!(lines, ["ALPHA\n", "BETA\n", "GAMMA\n"], "seed {seed}");
        assert_eq!(counts, (17, 17), "seed {seed}");
    }
}

#[sim_rt::test]
async fn stdin_is_at_end_of_file_in_a_simulation() {
    let mut input = String::new();
    assert_eq!(io::stdin().read_to_string(&mut input).await.unwrap(), 0);
    assert_eq!(input, "");
}

#[sim_rt::test]
async fn stdout_and_stderr_accept_writes_at_once() {
    let mut out = io::stdout();
    out.write_all(b"io_sim: stdout works\n").await.unwrap();
    out.flush().await.unwrap();
    let mut err = io::stderr();
    err.write_all(b"io_sim: stderr works\n").await.unwrap();
    err.shutdown().await.unwrap();
}

#[cfg(unix)]
#[test]
fn async_fd_cannot_be_created_and_says_what_to_use() {
    use sim_rt::io::unix::AsyncFd;
    use std::os::fd::{AsRawFd, OwnedFd};

    // As tokio's, it registers with the runtime's I/O driver: inside one.
    let rt = sim_rt::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    let _in = rt.enter();
    let fd: OwnedFd = std::fs::File::open("/dev/null").unwrap().into();
    let raw = fd.as_raw_fd();
    let err = AsyncFd::try_new(fd).unwrap_err();
    let shown = err.to_string();
    let (fd, cause) = err.into_parts();
    assert_eq!(shown, cause.to_string(), "Display is the cause's");
    assert_eq!(fd.as_raw_fd(), raw, "the descriptor is handed back");
    assert_eq!(cause.kind(), ErrorKind::Unsupported);
    let msg = cause.to_string();
    assert!(
        msg.contains("AsyncFd") && msg.contains("sim_rt::net"),
        "{msg}"
    );
    let err = AsyncFd::new(fd).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
}
