//! Raft in the simulator: five nodes, a client submitting one command per
//! round, and a nemesis that cuts the current leader off from its peers at
//! the start of every round (the client still reaches every node).
//!
//! The nodes report what they do through their observer; the scenario
//! checks Raft's safety properties as the events happen, so an execution
//! fails at the first violation:
//!
//! - **election safety**: at most one leader per term;
//! - **log matching**: two logs with an entry of the same index and term
//!   are identical up to that index;
//! - **leader completeness**: an entry reported committed is in the log of
//!   every leader of a later term;
//! - **state machine safety**: no two nodes apply different entries at the
//!   same index.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use explorer::{Explorer, Rtc, Sampling};
use futures::FutureExt;
use sim_rt::net::UdpSocket;
use sim_rt::sim;

use super::Case;

#[path = "../raft.rs"]
pub mod system;

use self::system::{Client, Entry, Event, Node, Role};

const NODES: usize = 5;
/// How long a round lasts: the nemesis acts at its start.
pub const ROUND: Duration = Duration::from_millis(400);
/// How many rounds (after the first election).
pub const ROUNDS: usize = 5;
/// How long the client tries to get a round's command committed.
pub const GIVE_UP: Duration = Duration::from_millis(100);

fn addr(i: usize) -> String {
    format!("n{}:7000", i + 1)
}

fn name(i: usize) -> String {
    format!("n{}", i + 1)
}

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "raft",
        bug: "a leader commits entries of earlier terms by counting replicas (figure 8)",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// Run-to-completion, stratified sampling. The failing executions need no
/// delay at all from the nemesis (it cuts off the leader, its first
/// option) and the right winners of two elections, which the samples'
/// seeds (the election timeouts) and a delay or two provide.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("raft")
        .explorer(Rtc::default())
        .search(Sampling::new(3))
        .executions(2_000)
}

/// Everything the nodes reported, checked as it arrives.
#[derive(Debug, Default)]
struct History {
    /// The latest role of each node, with its term.
    roles: BTreeMap<usize, (u64, Role)>,
    /// Term -> the node elected in it.
    leaders: BTreeMap<u64, usize>,
    /// Index -> (entry, the term of the leader that committed it).
    committed: BTreeMap<u64, (Entry, u64)>,
    /// Index -> (entry, the first node that applied it).
    applied: BTreeMap<u64, (Entry, usize)>,
    /// Each node's latest log.
    logs: BTreeMap<usize, Vec<Entry>>,
}

impl History {
    fn observe(&mut self, event: &Event) {
        match event {
            Event::Role { node, term, role } => {
                self.roles.insert(*node, (*term, *role));
            }
            Event::Elected { node, term, log } => {
                if let Some(other) = self.leaders.insert(*term, *node) {
                    assert_eq!(
                        other,
                        *node,
                        "election safety: {} and {} both lead term {term}",
                        name(other),
                        name(*node)
                    );
                }
                for (index, (entry, committed_in)) in &self.committed {
                    if committed_in < term {
                        assert_eq!(
                            log.get(*index as usize - 1),
                            Some(entry),
                            "leader completeness: {entry:?} was committed at index {index} in \
                             term {committed_in}, but {} leads term {term} with {:?} there",
                            name(*node),
                            log.get(*index as usize - 1)
                        );
                    }
                }
            }
            Event::Committed {
                term,
                from,
                entries,
                ..
            } => {
                for (k, entry) in entries.iter().enumerate() {
                    self.committed
                        .entry(from + k as u64)
                        .or_insert_with(|| (entry.clone(), *term));
                }
            }
            Event::Stored { node, log } => {
                for (other, theirs) in &self.logs {
                    if other != node {
                        check_log_matching((*node, log), (*other, theirs));
                    }
                }
                self.logs.insert(*node, log.clone());
            }
            Event::Applied { node, index, entry } => {
                let (first, by) = self
                    .applied
                    .entry(*index)
                    .or_insert_with(|| (entry.clone(), *node));
                assert_eq!(
                    first,
                    entry,
                    "state machine safety: {} applied {first:?} at index {index}, {} applied \
                     {entry:?}",
                    name(*by),
                    name(*node)
                );
            }
        }
    }

    /// The leader of the newest term, if it still leads.
    fn leader(&self) -> Option<usize> {
        self.roles
            .iter()
            .filter(|(_, (_, role))| *role == Role::Leader)
            .max_by_key(|(_, (term, _))| *term)
            .map(|(node, _)| *node)
    }
}

/// Log matching between two logs.
fn check_log_matching((a, la): (usize, &[Entry]), (b, lb): (usize, &[Entry])) {
    let common = la.len().min(lb.len());
    if let Some(k) = (0..common).rev().find(|&k| la[k].term == lb[k].term) {
        assert_eq!(
            la[..=k],
            lb[..=k],
            "log matching: {} and {} both hold an entry of term {} at index {} but differ \
             before it",
            name(a),
            name(b),
            la[k].term,
            k + 1
        );
    }
}

/// One simulation: start five nodes, then for each round cut the current
/// leader off from its peers and submit one command; the properties are
/// checked as the nodes report.
pub async fn test(bug: bool) {
    let history = Arc::new(Mutex::new(History::default()));
    let peers: Vec<String> = (0..NODES).map(addr).collect();
    for i in 0..NODES {
        let history = history.clone();
        let peers = peers.clone();
        let boots = std::rc::Rc::new(std::cell::Cell::new(0u64));
        sim::host(name(i)).start(move || {
            let history = history.clone();
            let observer = Arc::new(move |e: &Event| history.lock().unwrap().observe(e));
            boots.set(boots.get() + 1);
            let node = Node::new(i, peers.clone(), "/raft.log")
                .seed(sim::seed() ^ (1000 * boots.get() + i as u64))
                .commit_previous_terms(bug)
                .observer(observer);
            async move {
                let socket = UdpSocket::bind("0.0.0.0:7000").await?;
                node.run(socket).await
            }
        });
    }

    let socket = UdpSocket::bind("0.0.0.0:0").await.expect("a client socket");
    let mut client = Client::new(socket, peers);
    // A first leader, and a first command.
    let first = client
        .submit("c0", Duration::from_secs(2))
        .await
        .expect("the client's socket works");
    assert!(
        first.is_some(),
        "liveness: no leader committed the first command"
    );

    let hosts: Vec<String> = (0..NODES).map(name).collect();
    for round in 1..=ROUNDS {
        let start = sim_rt::time::Instant::now();
        sim::heal_all();
        // The nemesis cuts off one node: the current leader by default
        // (the explorer's first option), or any other.
        let leader = match sim_rt::choose(NODES + 1) {
            0 => history.lock().unwrap().leader(),
            k => Some(k - 1),
        };

        if let Some(l) = leader {
            let others: Vec<&String> = hosts.iter().filter(|h| **h != name(l)).collect();
            sim::partition_groups(&[name(l)], &others);
        }
        client
            .submit(&format!("c{round}"), GIVE_UP)
            .await
            .expect("the client's socket works");
        sim_rt::time::sleep_until(start + ROUND).await;
    }
    sim::heal_all();
    // Once healed, the cluster commits again.
    let last = client
        .submit("end", Duration::from_secs(2))
        .await
        .expect("the client's socket works");
    assert!(
        last.is_some(),
        "liveness: no leader committed after healing"
    );
}
