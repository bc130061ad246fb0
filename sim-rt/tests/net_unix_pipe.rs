//! Pipes and FIFOs on a simulated host: `tokio::net::unix::pipe` and the
//! interposed `pipe2`/`open`/`read`/`write` of std and libc on them.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::ffi::CString;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::unix::pipe;
use sim_rt::runtime::Builder;

fn run<F: std::future::Future>(future: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a simulation cannot fail")
        .block_on(future)
}

fn mkfifo(path: &str) {
    let c = CString::new(path).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
        0,
        "mkfifo {path}"
    );
}

fn is_nonblocking(fd: &OwnedFd) -> bool {
    // SAFETY: F_GETFL on an open descriptor.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    flags & libc::O_NONBLOCK != 0
}

/// An anonymous pipe carries bytes; the sender's drop is end of file, the
/// receiver's makes writes fail with `BrokenPipe`.
#[test]
fn an_anonymous_pipe_carries_bytes_then_ends() {
    run(async {
        let (mut tx, mut rx) = pipe::pipe().unwrap();
        let reader = sim_rt::spawn(async move {
            let mut got = Vec::new();
            rx.read_to_end(&mut got).await.unwrap();
            got
        });
        tx.write_all(b"through the pipe").await.unwrap();
        drop(tx);
        assert_eq!(reader.await.unwrap(), b"through the pipe");

        let (tx, rx) = pipe::pipe().unwrap();
        drop(rx);
        // The driver reports on a new end at its next turn, as tokio's.
        assert_eq!(
            tx.try_write(b"x").unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        sim_rt::task::yield_now().await;
        assert_eq!(
            tx.try_write(b"x").unwrap_err().kind(),
            ErrorKind::BrokenPipe
        );
    });
}

/// A full pipe makes the sender wait until the receiver reads.
#[test]
fn a_full_pipe_makes_the_sender_wait() {
    run(async {
        let (mut tx, mut rx) = pipe::pipe().unwrap();
        let big = vec![7u8; 200_000];
        let writer = sim_rt::spawn(async move {
            tx.write_all(&big).await.unwrap();
        });
        let mut got = vec![0; 200_000];
        rx.read_exact(&mut got).await.unwrap();
        writer.await.unwrap();
        assert!(got.iter().all(|&b| b == 7));
    });
}

/// A FIFO made with `mkfifo` on the host's disk: a sender cannot open
/// without a reader (`ENXIO`) unless `read_write`; senders one after the
/// other reach one receiver, which sees end of file between them.
#[test]
fn a_fifo_on_the_hosts_disk_connects_its_openers() {
    let seen_inside = run(async {
        mkfifo("/tmp/sim-rt-test.fifo");
        assert!(std::fs::metadata("/tmp/sim-rt-test.fifo")
            .unwrap()
            .file_type()
            .is_fifo());
        let err = pipe::OpenOptions::new()
            .open_sender("/tmp/sim-rt-test.fifo")
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENXIO));
        let mut rx = pipe::OpenOptions::new()
            .open_receiver("/tmp/sim-rt-test.fifo")
            .unwrap();
        for msg in [&b"one"[..], b"two"] {
            let mut tx = pipe::OpenOptions::new()
                .open_sender("/tmp/sim-rt-test.fifo")
                .unwrap();
            tx.write_all(msg).await.unwrap();
            drop(tx);
            let mut got = Vec::new();
            rx.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, msg);
        }
        let mut rw = pipe::OpenOptions::new()
            .read_write(true)
            .open_sender("/tmp/sim-rt-test.fifo")
            .unwrap();
        rw.write_all(b"rw").await.unwrap();
        let mut buf = [0; 2];
        rx.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"rw");
        // Not a FIFO.
        std::fs::write("/tmp/sim-rt-plain", b"x").unwrap();
        let err = pipe::OpenOptions::new()
            .open_receiver("/tmp/sim-rt-plain")
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        std::path::Path::new("/tmp/sim-rt-test.fifo").exists()
    });
    // The entry is on the simulated disk only.
    assert!(seen_inside);
    assert!(!std::path::Path::new("/tmp/sim-rt-test.fifo").exists());
}

/// `from_file` checks the access mode and sets non-blocking; the
/// `into_*_fd` conversions set the mode asked for.
#[test]
fn from_file_and_into_fd_keep_tokios_checks() {
    run(async {
        mkfifo("/tmp/sim-rt-from-file.fifo");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/tmp/sim-rt-from-file.fifo")
            .unwrap();
        let err = pipe::Sender::from_file(file.try_clone().unwrap()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let rx = pipe::Receiver::from_file(file).unwrap();
        let fd = rx.into_blocking_fd().unwrap();
        assert!(!is_nonblocking(&fd));
        let (tx, _rx) = pipe::pipe().unwrap();
        let fd = tx.into_nonblocking_fd().unwrap();
        assert!(is_nonblocking(&fd));
        let err = pipe::Receiver::from_file(File::open("/tmp").unwrap()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    });
    // A real pipe, made outside the simulation, cannot join it.
    let mut fds = [0; 2];
    // SAFETY: into our array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the descriptors just made.
    let (r, _w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let err = run(async move { pipe::Receiver::from_owned_fd_unchecked(r).unwrap_err() });
    assert_eq!(err.kind(), ErrorKind::Unsupported);
}

/// std on a simulated pipe: a blocking read on a simulated thread waits
/// for the task that writes.
#[test]
fn a_blocking_std_read_on_a_thread_waits_for_the_writer() {
    let got = run(async {
        let mut fds = [0; 2];
        // SAFETY: into our array (interposed: a simulated pipe).
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: the descriptors just made.
        let (mut r, w) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            r.read_to_string(&mut s).unwrap();
            s
        });
        sim_rt::time::sleep(std::time::Duration::from_millis(5)).await;
        let mut w = w;
        w.write_all(b"late").unwrap();
        drop(w);
        sim_rt::task::spawn_blocking(move || reader.join().unwrap())
            .await
            .unwrap()
    });
    assert_eq!(got, "late");
}
