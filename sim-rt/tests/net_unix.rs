//! `tokio::net`'s Unix domain sockets and pipes: the API exists, every
//! constructor fails with `Unsupported` naming the item and saying to use
//! TCP between simulated hosts, and the values (`SocketAddr`) work.

#![cfg(unix)]

mod rt_support;

use std::io::{self, ErrorKind};

use rt_support::assert_contains_all;
use sim_rt::net::unix::{self, pipe};
use sim_rt::net::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
use sim_rt::runtime::Builder;

fn run<F: std::future::Future>(future: F) -> F::Output {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building a simulation cannot fail")
        .block_on(future)
}

/// `err` is `Unsupported`, its message starts with `item` and points to TCP.
fn assert_unsupported(err: io::Error, item: &str) {
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{item}: {err}");
    let msg = err.to_string();
    assert!(msg.starts_with(item), "{msg}");
    assert_contains_all(&msg, &["not simulated by sim-rt", "over TCP"]);
}

#[test]
fn every_constructor_is_unsupported() {
    // Real std sockets and files, made outside the simulation.
    let (std_a, _std_b) = std::os::unix::net::UnixStream::pair().unwrap();
    let (std_d, _std_e) = std::os::unix::net::UnixDatagram::pair().unwrap();
    let dir = std::env::temp_dir().join(format!("sim-rt-net-unix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let std_listener = std::os::unix::net::UnixListener::bind(dir.join("l.sock")).unwrap();
    let file = std::fs::File::open("/dev/null").unwrap();
    let fd: std::os::fd::OwnedFd = std::fs::File::open("/dev/null").unwrap().into();

    let errs = run(async move {
        let path = "/tmp/app.sock";
        let addr: unix::SocketAddr = std::os::unix::net::SocketAddr::from_pathname(path)
            .unwrap()
            .into();
        vec![
            (
                UnixStream::connect(path).await.unwrap_err(),
                "UnixStream::connect(\"/tmp/app.sock\")",
            ),
            (
                UnixStream::connect_addr(&addr).await.unwrap_err(),
                "UnixStream::connect_addr(",
            ),
            (UnixStream::pair().unwrap_err(), "UnixStream::pair"),
            (
                UnixStream::try_from(std_a).unwrap_err(),
                "UnixStream::from_std",
            ),
            (
                UnixListener::bind(path).unwrap_err(),
                "UnixListener::bind(\"/tmp/app.sock\")",
            ),
            (
                UnixListener::bind_addr(&addr).unwrap_err(),
                "UnixListener::bind_addr(",
            ),
            (
                UnixListener::from_std(std_listener).unwrap_err(),
                "UnixListener::from_std",
            ),
            (UnixDatagram::bind(path).unwrap_err(), "UnixDatagram::bind("),
            (UnixDatagram::pair().unwrap_err(), "UnixDatagram::pair"),
            (
                UnixDatagram::unbound().unwrap_err(),
                "UnixDatagram::unbound",
            ),
            (
                UnixDatagram::from_std(std_d).unwrap_err(),
                "UnixDatagram::from_std",
            ),
            (
                UnixSocket::new_stream().unwrap().bind(path).unwrap_err(),
                "UnixSocket::bind(",
            ),
            (
                UnixSocket::new_stream().unwrap().listen(8).unwrap_err(),
                "UnixSocket::listen",
            ),
            (
                UnixSocket::new_stream()
                    .unwrap()
                    .connect(path)
                    .await
                    .unwrap_err(),
                "UnixSocket::connect(",
            ),
            (
                UnixSocket::new_datagram().unwrap().datagram().unwrap_err(),
                "UnixSocket::datagram",
            ),
            (pipe::pipe().unwrap_err(), "tokio::net::unix::pipe::pipe"),
            (
                pipe::OpenOptions::new().open_sender(path).unwrap_err(),
                "pipe::OpenOptions::open_sender(",
            ),
            (
                pipe::OpenOptions::default()
                    .unchecked(true)
                    .open_receiver(path)
                    .unwrap_err(),
                "pipe::OpenOptions::open_receiver(",
            ),
            (
                pipe::Sender::from_file(file).unwrap_err(),
                "pipe::Sender::from_file",
            ),
            (
                pipe::Receiver::from_owned_fd(fd).unwrap_err(),
                "pipe::Receiver::from_owned_fd",
            ),
        ]
    });
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(errs.len(), 20);
    for (err, item) in errs {
        assert_unsupported(err, item);
    }
}

/// A `UnixSocket` is a real socket (as in tokio) until it would be used.
#[test]
fn a_unix_socket_is_a_real_unconnected_socket() {
    use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};
    run(async {
        let socket = UnixSocket::new_stream().unwrap();
        let fd = socket.as_raw_fd();
        assert!(fd >= 0);
        let raw = socket.into_raw_fd();
        assert_eq!(raw, fd);
        // SAFETY: `raw` is the socket's fd, whose ownership was just given up.
        let socket = unsafe { UnixSocket::from_raw_fd(raw) };
        assert_eq!(socket.as_raw_fd(), fd);
    });
}

/// `unix::SocketAddr` is a value: it converts to and from std's.
#[test]
fn socket_addr_is_a_value() {
    let std_addr = std::os::unix::net::SocketAddr::from_pathname("/run/x.sock").unwrap();
    let addr = unix::SocketAddr::from(std_addr);
    assert!(!addr.is_unnamed());
    assert_eq!(
        addr.as_pathname(),
        Some(std::path::Path::new("/run/x.sock"))
    );
    #[cfg(target_os = "linux")]
    assert_eq!(addr.as_abstract_name(), None);
    assert_eq!(format!("{addr:?}"), "\"/run/x.sock\" (pathname)");
    let back: std::os::unix::net::SocketAddr = addr.clone().into();
    assert_eq!(back.as_pathname(), addr.as_pathname());
}

/// The types keep tokio's auto traits and trait impls, so code that moves
/// them between tasks or boxes their errors compiles.
#[test]
fn types_keep_tokios_traits() {
    fn send_sync_unpin<T: Send + Sync + Unpin + std::fmt::Debug>() {}
    fn read<T: sim_rt::io::AsyncRead>() {}
    fn write<T: sim_rt::io::AsyncWrite>() {}
    send_sync_unpin::<UnixStream>();
    send_sync_unpin::<UnixListener>();
    send_sync_unpin::<UnixDatagram>();
    send_sync_unpin::<UnixSocket>();
    send_sync_unpin::<unix::OwnedReadHalf>();
    send_sync_unpin::<unix::OwnedWriteHalf>();
    send_sync_unpin::<unix::ReadHalf<'static>>();
    send_sync_unpin::<unix::WriteHalf<'static>>();
    send_sync_unpin::<pipe::Sender>();
    send_sync_unpin::<pipe::Receiver>();
    send_sync_unpin::<unix::UCred>();
    read::<UnixStream>();
    write::<UnixStream>();
    read::<unix::OwnedReadHalf>();
    write::<unix::OwnedWriteHalf>();
    read::<pipe::Receiver>();
    write::<pipe::Sender>();
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    error::<unix::ReuniteError>();
    let _: (unix::uid_t, unix::gid_t, unix::pid_t) = (0u32, 0u32, 0i32);
}
