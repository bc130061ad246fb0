//! The lease server in the simulator: a server and two clients, each on its
//! own host, each client taking the lease once for a piece of work longer
//! than the lease (so it renews); the fault injector may partition two
//! hosts once. No two clients may act under the lease at the same time.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use explorer::{Explorer, RoundRobin, Sampling};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, FaultInjector};
use sim_rt::sync::Notify;

use super::Case;

#[path = "../lease.rs"]
pub mod system;

use self::system::{Client, Server};

/// The clients, by host name.
pub const CLIENTS: [&str; 2] = ["c1", "c2"];
/// Steps of work under the lease, and how long each takes: 150 ms in all,
/// more than twice the lease.
const STEPS: usize = 30;
const STEP: Duration = Duration::from_millis(5);
/// How often a client asks again for a busy lease.
const RETRY: Duration = Duration::from_millis(10);
/// The test's bound: without faults both clients are done in a fifth of
/// it; a client cut off from the server for good never is.
const BOUND: Duration = Duration::from_millis(1_500);
/// The property.
pub const PROPERTY: &str = "mutual exclusion";

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "lease",
        bug: "a holder counts its lease from the renewal's reply, not its request, so cut off it outlives the server's",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The fault injector may partition two hosts once, and resets nothing.
pub fn runtime(b: &mut sim_rt::runtime::Builder) {
    b.fault_injector(FaultInjector::new().max_resets(0).max_partitions(1));
}

/// Round-robin, stratified sampling with two delays: the failing
/// executions need one fault (the holder cut off from the server while it
/// holds the lease) and, most of the time, a delivery or poll out of the
/// default order so that the other client's grant falls in the few
/// milliseconds between the two expiries.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("lease")
        .runtime(runtime)
        .explorer(RoundRobin::default())
        .search(Sampling::new(2))
        .executions(2_000)
}

/// Who is acting under the lease, the first time two were at once, and how
/// many clients are done.
#[derive(Default)]
struct Monitor {
    acting: Vec<&'static str>,
    violation: Option<String>,
    finished: usize,
}

/// One step of `name`'s work under the lease: it acts for [`STEP`].
async fn act(name: &'static str, monitor: Rc<RefCell<Monitor>>, wake: Rc<Notify>) {
    {
        let mut m = monitor.borrow_mut();
        if let Some(other) = m.acting.first() {
            if m.violation.is_none() {
                m.violation = Some(format!(
                    "{name} acts under the lease while {other} does, at {:?}",
                    sim::elapsed()
                ));
                wake.notify_one();
            }
        }
        m.acting.push(name);
    }
    sim_rt::time::sleep(STEP).await;
    monitor.borrow_mut().acting.retain(|n| *n != name);
}

/// One simulation: start the server and the clients; stop at the first
/// time two clients act at once, when both are done, or at [`BOUND`].
pub async fn test(bug: bool) {
    let monitor = Rc::new(RefCell::new(Monitor::default()));
    let wake = Rc::new(Notify::new());
    sim::host("leases").start(|| async {
        let socket = UdpSocket::bind("0.0.0.0:7000").await?;
        Server::new().serve(socket).await
    });
    for name in CLIENTS {
        let (monitor, wake) = (monitor.clone(), wake.clone());
        // The handle is not needed: the monitor says when the client is
        // done.
        drop(sim::host(name).spawn(async move {
            let server = sim_rt::net::lookup_host("leases:7000")
                .await
                .unwrap()
                .next()
                .expect("the server's address");
            let mut client = Client::new(name, server)
                .await
                .unwrap()
                .lease_from_reply(bug);
            let mut left = STEPS;
            while left > 0 {
                client.acquire(RETRY).await.unwrap();
                let step = || act(name, monitor.clone(), wake.clone());
                left -= client.work(left, STEP, step).await.unwrap();
            }
            client.release().await.unwrap();
            monitor.borrow_mut().finished += 1;
            wake.notify_one();
        }));
    }
    let deadline = sim_rt::time::Instant::now() + BOUND;
    loop {
        {
            let m = monitor.borrow();
            if let Some(v) = &m.violation {
                panic!("{PROPERTY}: {v}");
            }
            if m.finished == CLIENTS.len() {
                return;
            }
        }
        if sim_rt::time::timeout_at(deadline, wake.notified())
            .await
            .is_err()
        {
            return;
        }
    }
}
