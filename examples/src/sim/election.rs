//! Leader election in the simulator: three nodes, each on its own host,
//! and a fault injector that may partition two of them once. The property
//! is liveness: eventually a node holds the office for a second.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use explorer::{Explorer, Liveness, RoundRobin, Sampling, WalkFaults};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim::{self, FaultInjector};
use sim_rt::sync::watch;
use sim_rt::time::Instant;

use super::Case;

#[path = "../election.rs"]
pub mod system;

use self::system::{Node, Role, Status};

/// The nodes, by host name (ids 1 to 3).
pub const NODES: [&str; 3] = ["n1", "n2", "n3"];
/// How long a leader must hold the office.
const STABLE: Duration = Duration::from_secs(1);
/// The test's bound: without faults n1 holds the office for a second
/// after 1.2 s.
const BOUND: Duration = Duration::from_secs(3);
/// The property.
pub const PROPERTY: &str = "a leader holds the office for a second";

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "election",
        bug: "a node follows a disruptive candidate while it hears a live leader",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// The fault injector may partition two nodes once.
pub fn runtime(b: &mut sim_rt::runtime::Builder) {
    b.fault_injector(FaultInjector::new().max_resets(0).max_partitions(1));
}

/// Round-robin, stratified sampling with one delay: the failing executions
/// need one fault (the partition of n1 from another node, before the first
/// leader has held the office for a second), which costs one delay.
///
/// The property is liveness *under a lasting partition*: with n1 cut off
/// from one node, the two that still hear each other must keep a leader.
/// So liveness walks keep the partition ([`WalkFaults::Keep`]) instead of
/// healing it, as they do by default (the planted bug heals with the
/// network).
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("election")
        .runtime(runtime)
        .explorer(RoundRobin::default())
        .search(Sampling::new(1))
        .liveness(Liveness::new().faults(WalkFaults::Keep))
        .executions(2_000)
}

/// One simulation: start the nodes and state the property; the run ends
/// after [`BOUND`].
pub async fn test(bug: bool) {
    let statuses: Rc<RefCell<Vec<watch::Receiver<Status>>>> = Rc::default();
    let seen = statuses.clone();
    sim::eventually(PROPERTY, move || {
        let now = Instant::now();
        seen.borrow().iter().any(|rx| {
            let s = *rx.borrow();
            s.role == Role::Leader && now.duration_since(s.since) >= STABLE
        })
    });
    for (i, name) in NODES.iter().enumerate() {
        let statuses = statuses.clone();
        sim::host(*name).start(move || {
            let statuses = statuses.clone();
            async move {
                let mut peers = Vec::new();
                for other in NODES.iter().filter(|n| *n != name) {
                    let addr = sim_rt::net::lookup_host(format!("{other}:7000")).await?;
                    peers.extend(addr);
                }
                let (node, status) = Node::new(i as u32 + 1, peers);
                statuses.borrow_mut().push(status);
                let socket = UdpSocket::bind("0.0.0.0:7000").await?;
                node.disruptive(bug).run(socket).await
            }
        });
    }
    sim_rt::time::sleep(BOUND).await;
}
