//! `sim::host(name).spawn(future)`: a client host whose output the test
//! awaits.

use std::time::Duration;

use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream};

fn rt() -> sim_rt::runtime::Runtime {
    sim_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn echo() -> std::io::Result<()> {
    let listener = TcpListener::bind("0.0.0.0:7").await?;
    loop {
        let (mut s, _) = listener.accept().await?;
        sim_rt::spawn(async move {
            let mut buf = [0; 16];
            let n = s.read(&mut buf).await.unwrap();
            s.write_all(&buf[..n]).await.unwrap();
        });
    }
}

#[test]
fn clients_on_their_own_hosts_return_their_output() {
    rt().block_on(async {
        sim_rt::sim::host("server").start(echo);
        let clients: Vec<_> = (1..=3)
            .map(|i| {
                sim_rt::sim::host(format!("client{i}")).spawn(async move {
                    let mut s = TcpStream::connect("server:7").await.unwrap();
                    s.write_all(format!("hi {i}").as_bytes()).await.unwrap();
                    let mut buf = [0; 16];
                    let n = s.read(&mut buf).await.unwrap();
                    let local = s.local_addr().unwrap().ip();
                    (String::from_utf8(buf[..n].to_vec()).unwrap(), local)
                })
            })
            .collect();
        for (i, c) in clients.into_iter().enumerate() {
            let (said, ip) = c.await.unwrap();
            assert_eq!(said, format!("hi {}", i + 1));
            // The server took 10.0.0.1; each client the next address.
            assert_eq!(ip.to_string(), format!("10.0.0.{}", i + 2));
        }
    });
}

#[test]
fn a_test_may_give_its_first_node_10_0_0_1() {
    rt().block_on(async {
        let node = sim_rt::sim::host("n1")
            .ip([10, 0, 0, 1])
            .spawn(async { TcpListener::bind("10.0.0.1:80").await.map(|_| ()) });
        node.await.unwrap().unwrap();
    });
}

#[test]
fn a_reset_cancels_the_client_and_a_panic_reaches_its_handle() {
    rt().block_on(async {
        let stuck = sim_rt::sim::host("stuck").spawn(std::future::pending::<()>());
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        sim_rt::sim::reset("stuck");
        assert!(stuck.await.unwrap_err().is_cancelled());
        // The host is up again, with nothing running on it.
        assert!(!sim_rt::sim::is_paused("stuck"));

        let boom = sim_rt::sim::host("boom").spawn(async { panic!("client failed") });
        assert!(boom.await.unwrap_err().is_panic());
    });
}
