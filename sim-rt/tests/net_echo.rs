//! A TCP echo service on three hosts ("server", "c1", "c2") driven through
//! resets, stops, partitions, pauses, loss and duplication. Each test
//! asserts what each side observed (data, EOF, errors) against what a Linux
//! kernel reports in the same situation.

mod rt_support;

mod net_support;

use std::io::ErrorKind;
use std::time::Duration;

use rt_support::sim as run;
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::TcpStream;
use sim_rt::sim::{self, LinkConfig};
use sim_rt::time::{sleep, timeout};

/// Echoes every connection on port 7 until EOF, then closes it.
async fn echo_server() -> std::io::Result<()> {
    net_support::echo(7).await
}

/// Starts the three hosts; clients run `client` with their own name.
fn three_hosts<F, Fut>(client: F)
where
    F: Fn(&'static str) -> Fut + Clone + 'static,
    Fut: std::future::Future<Output = ()> + 'static,
{
    sim::host("server").start(echo_server);
    for name in ["c1", "c2"] {
        let client = client.clone();
        sim::host(name).start(move || client(name));
    }
}

async fn round_trip(stream: &mut TcpStream, msg: &[u8]) -> std::io::Result<Vec<u8>> {
    stream.write_all(msg).await?;
    let mut buf = vec![0u8; msg.len()];
    stream.read_exact(&mut buf).await?;
    Ok(buf)
}

#[test]
fn clients_on_two_hosts_get_their_own_bytes_back() {
    for seed in 0..20 {
        run(seed, async {
            let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel();
            three_hosts(move |name| {
                let tx = tx.clone();
                async move {
                    let mut s = TcpStream::connect("server:7").await.unwrap();
                    assert_eq!(s.peer_addr().unwrap(), "10.0.0.1:7".parse().unwrap());
                    for i in 0..5 {
                        let msg = format!("{name}-{i}");
                        let back = round_trip(&mut s, msg.as_bytes()).await.unwrap();
                        assert_eq!(back, msg.as_bytes());
                    }
                    // Half-close: the server reads EOF, closes, and we read EOF.
                    s.shutdown().await.unwrap();
                    let mut rest = Vec::new();
                    assert_eq!(s.read_to_end(&mut rest).await.unwrap(), 0);
                    tx.send(name).unwrap();
                }
            });
            let mut done = vec![rx.recv().await.unwrap(), rx.recv().await.unwrap()];
            done.sort();
            assert_eq!(done, ["c1", "c2"]);
        });
    }
}

#[test]
fn server_reset_breaks_connections_and_restarts_the_service() {
    run(1, async {
        sim::host("server").start(echo_server);
        let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel();
        for name in ["c1", "c2"] {
            let tx = tx.clone();
            sim::host(name).start(move || {
                let tx = tx.clone();
                async move {
                    let mut s = TcpStream::connect("server:7").await.unwrap();
                    round_trip(&mut s, b"before").await.unwrap();
                    tx.send((name, "connected")).unwrap();
                    // Idle in read when the server crashes and reboots: the
                    // rebooted kernel answers with RST.
                    let mut buf = [0u8; 8];
                    let err = s.read(&mut buf).await.unwrap_err();
                    assert_eq!(err.kind(), ErrorKind::ConnectionReset, "{name}");
                    // The error is reported once; then reads see EOF and
                    // writes EPIPE, as on Linux.
                    assert_eq!(s.read(&mut buf).await.unwrap(), 0);
                    assert_eq!(
                        s.write(b"x").await.unwrap_err().kind(),
                        ErrorKind::BrokenPipe
                    );
                    // The restarted entry point listens again.
                    let mut s = TcpStream::connect("server:7").await.unwrap();
                    let back = round_trip(&mut s, b"after").await.unwrap();
                    assert_eq!(back, b"after");
                    tx.send((name, "reconnected")).unwrap();
                }
            });
        }
        for _ in 0..2 {
            assert_eq!(rx.recv().await.unwrap().1, "connected");
        }
        sim::reset("server");
        assert!(sim::is_running("server"));
        for _ in 0..2 {
            assert_eq!(rx.recv().await.unwrap().1, "reconnected");
        }
    });
}

#[test]
fn a_stopped_server_is_silent_until_it_restarts() {
    run(2, async {
        sim::host("server").start(echo_server);
        sleep(Duration::from_millis(1)).await;
        let mut s = TcpStream::connect("server:7").await.unwrap();
        round_trip(&mut s, b"hi").await.unwrap();

        sim::stop("server");
        assert!(!sim::is_running("server"));
        // A dead host sends nothing: the client's read just waits, and so
        // does a new connect (its SYN is retransmitted).
        let mut buf = [0u8; 4];
        assert!(timeout(Duration::from_secs(5), s.read(&mut buf))
            .await
            .is_err());
        let connect = sim_rt::spawn(TcpStream::connect("server:7"));
        sleep(Duration::from_secs(5)).await;
        assert!(!connect.is_finished());

        sim::restart("server");
        // The pending SYN reaches the new listener; the old connection is
        // reset by the rebooted kernel.
        let mut fresh = connect.await.unwrap().unwrap();
        assert_eq!(round_trip(&mut fresh, b"new").await.unwrap(), b"new");
        assert_eq!(
            s.read(&mut buf).await.unwrap_err().kind(),
            ErrorKind::ConnectionReset
        );
    });
}

#[test]
fn a_partition_delays_stream_bytes_until_it_heals() {
    run(3, async {
        sim::host("server").start(echo_server);
        sleep(Duration::from_millis(1)).await;
        let mut s = TcpStream::connect("server:7").await.unwrap();
        sim::partition("main", "server");
        s.write_all(b"held").await.unwrap();
        let mut buf = [0u8; 4];
        assert!(timeout(Duration::from_secs(30), s.read_exact(&mut buf))
            .await
            .is_err());
        sim::heal("main", "server");
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"held");
    });
}

#[test]
fn a_one_way_partition_blocks_only_replies() {
    run(4, async {
        sim::host("server").start(echo_server);
        sleep(Duration::from_millis(1)).await;
        let mut s = TcpStream::connect("server:7").await.unwrap();
        sim::partition_oneway("server", "main");
        s.write_all(b"ping").await.unwrap();
        let mut buf = [0u8; 4];
        assert!(timeout(Duration::from_secs(1), s.read_exact(&mut buf))
            .await
            .is_err());
        sim::heal_oneway("server", "main");
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
    });
}

#[test]
fn a_paused_server_answers_after_it_resumes() {
    run(5, async {
        sim::host("server").start(echo_server);
        sleep(Duration::from_millis(1)).await;
        let mut s = TcpStream::connect("server:7").await.unwrap();
        sim::pause("server");
        assert!(sim::is_paused("server"));
        s.write_all(b"wait").await.unwrap();
        let mut buf = [0u8; 4];
        assert!(timeout(Duration::from_secs(10), s.read_exact(&mut buf))
            .await
            .is_err());
        let before = sim::elapsed();
        sim::resume("server");
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"wait");
        assert!(sim::elapsed() - before <= Duration::from_millis(10));
    });
}

#[test]
fn streams_hide_loss_and_duplication() {
    for seed in 0..10 {
        run(seed, async {
            sim::host("server").start(echo_server);
            let lossy = LinkConfig::default().with_loss(0.5).with_duplicate(0.5);
            sim::set_link("main", "server", lossy.clone());
            sim::set_link("server", "main", lossy);
            let mut s = TcpStream::connect("server:7").await.unwrap();
            let msg: Vec<u8> = (0..=255u8).cycle().take(4000).collect();
            assert_eq!(round_trip(&mut s, &msg).await.unwrap(), msg);
        });
    }
}

#[test]
fn link_latency_can_change_during_a_run() {
    run(6, async {
        sim::host("server").start(echo_server);
        let mut s = TcpStream::connect("server:7").await.unwrap();
        let slow = LinkConfig::default()
            .with_latency(Duration::from_millis(100), Duration::from_millis(100));
        sim::set_link("main", "server", slow.clone());
        sim::set_link("server", "main", slow);
        assert_eq!(
            sim::link("main", "server").min_latency,
            Duration::from_millis(100)
        );
        let t0 = sim_rt::time::Instant::now();
        round_trip(&mut s, b"slow").await.unwrap();
        assert_eq!(t0.elapsed(), Duration::from_millis(200));
    });
}

#[test]
fn connect_to_a_port_nobody_listens_on_is_refused() {
    run(7, async {
        sim::host("server").start(echo_server);
        sleep(Duration::from_millis(1)).await;
        let err = TcpStream::connect("server:8").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        let err = TcpStream::connect("nowhere:7").await.unwrap_err();
        assert!(err.to_string().contains("nowhere"), "{err}");
    });
}

#[test]
fn a_host_can_reset_itself_after_its_current_poll() {
    run(8, async {
        let (tx, mut rx) = sim_rt::sync::mpsc::unbounded_channel();
        sim::host("flaky").start(move || {
            let tx = tx.clone();
            async move {
                let boots = tx.send(()).is_ok();
                if boots && sim::elapsed() < Duration::from_secs(1) {
                    sleep(Duration::from_secs(1)).await;
                    sim::reset("flaky");
                    // Still running until the next await.
                    sim_rt::task::yield_now().await;
                    unreachable!("the host was reset while this task yielded");
                }
            }
        });
        rx.recv().await.unwrap();
        rx.recv().await.unwrap();
        assert!(sim::is_running("flaky"));
    });
}

#[test]
#[should_panic(expected = "the main host runs the test's own future")]
fn the_main_host_cannot_be_reset() {
    run(9, async { sim::reset("main") });
}

#[test]
fn a_host_is_named_as_the_resolver_names_it() {
    run(10, async {
        sim::host("server").start(echo_server);
        let mut s = TcpStream::connect("Server.:7").await.unwrap();
        assert_eq!(round_trip(&mut s, b"hi").await.unwrap(), b"hi");
        // Every name connect accepts names the host for sim's functions too.
        assert_eq!(sim::lookup_host("Server."), sim::lookup_host("server"));
        assert!(sim::lookup_host("server.").is_some());
        sim::stop("SERVER.");
        assert!(!sim::is_running("server"));
    });
}
