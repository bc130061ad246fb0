//! The lock service in the simulator: a server and two clients, each on
//! its own host, each client taking the lock once for a while; the fault
//! injector may reset one host once. The property is liveness: every
//! client eventually finishes its work under the lock.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use explorer::{Explorer, RoundRobin, Sampling};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, FaultInjector};

use super::Case;

#[path = "../lock.rs"]
pub mod system;

use self::system::{Client, Server};

/// The clients, by host name.
pub const CLIENTS: [&str; 2] = ["c1", "c2"];
/// How long each client works under the lock.
const WORK: Duration = Duration::from_millis(100);
/// How often a client asks again for a busy lock.
const RETRY: Duration = Duration::from_millis(20);
/// The test's bound: without faults both clients are done in a third of
/// it.
const BOUND: Duration = Duration::from_millis(800);
/// The property.
pub const PROPERTY: &str = "every client finished its work under the lock";

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "lock",
        bug: "the lock server never expires a lease, so a crashed holder keeps the lock forever",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The fault injector may reset one host (server or client) once.
pub fn runtime(b: &mut sim_rt::runtime::Builder) {
    b.fault_injector(FaultInjector::new().max_resets(1).max_partitions(0));
}

/// Round-robin, stratified sampling with one delay: the failing executions
/// need one fault (the reset of the client that holds the lock), which
/// costs one delay.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("lock")
        .runtime(runtime)
        .explorer(RoundRobin::default())
        .search(Sampling::new(1))
        .executions(2_000)
}

/// One simulation: start the server and the clients, and state the
/// property; the run ends after [`BOUND`].
pub async fn test(bug: bool) {
    test_for(bug, BOUND).await
}

/// [`test`], ending after `bound` instead.
pub async fn test_for(bug: bool, bound: Duration) {
    let done = Rc::new(RefCell::new(BTreeSet::new()));
    let seen = done.clone();
    sim::eventually(PROPERTY, move || seen.borrow().len() == CLIENTS.len());
    sim::host("locks").start(move || async move {
        let socket = UdpSocket::bind("0.0.0.0:7000").await?;
        Server::new().without_expiry(bug).serve(socket).await
    });
    for name in CLIENTS {
        let done = done.clone();
        sim::host(name).start(move || {
            let done = done.clone();
            async move {
                let server = sim_rt::net::lookup_host("locks:7000")
                    .await?
                    .next()
                    .expect("the server's address");
                let client = Client::start(name, "/client", server).await?;
                client.run(WORK, RETRY).await?;
                done.borrow_mut().insert(name);
                Ok::<(), std::io::Error>(())
            }
        });
    }
    sim_rt::time::sleep(bound).await;
}
