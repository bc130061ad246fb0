//! A tiny stand-in for the runtime's loop, shared by the model tests: it
//! holds the network and the clock, and offers exactly the moves the
//! runtime's scheduler has (deliver one deliverable packet, advance time
//! within the bound), checking the model's answers at every step.

#![allow(dead_code)]

use std::time::Duration;

use sim_net::{ConnId, HostId, ListenerId, Net, PacketId};

/// The network plus the simulated clock.
#[derive(Debug)]
pub struct World {
    pub net: Net,
    pub now: Duration,
}

impl World {
    /// Listens on port 80 of every host in `hosts`, then connects each host
    /// to the next one's first address (the last to the first); returns the
    /// listeners and the connecting ends, both in the order of `hosts`.
    pub fn listen_and_connect_in_a_ring(
        &mut self,
        hosts: &[HostId],
    ) -> (Vec<ListenerId>, Vec<ConnId>) {
        let listeners = hosts
            .iter()
            .map(|h| {
                self.net
                    .tcp_listen(*h, "0.0.0.0:80".parse().unwrap())
                    .unwrap()
            })
            .collect();
        let conns = (0..hosts.len())
            .map(|i| {
                let ip = self.net.host_addrs(hosts[(i + 1) % hosts.len()])[0];
                self.net
                    .tcp_connect(hosts[i], (ip, 80).into(), self.now)
                    .unwrap()
            })
            .collect();
        (listeners, conns)
    }

    pub fn new(net: Net) -> Self {
        World {
            net,
            now: Duration::ZERO,
        }
    }

    /// Checks the model's invariants and the consistency of its answers
    /// about time at the current instant.
    pub fn check(&self) {
        self.net.check_invariants();
        let now = self.now;
        let deliverable = self.net.deliverable(now);
        if let Some(latest) = self.net.latest_arrival() {
            assert!(now <= latest, "time passed a packet's latest arrival");
            // At the deadline something is deliverable.
            assert!(!self.net.deliverable(latest).is_empty());
            if deliverable.is_empty() {
                let next = self.net.next_deliverable_at(now).expect("something opens");
                assert!(
                    next <= latest,
                    "the next opening comes no later than the deadline"
                );
            }
        }
        if let Some(next) = self.net.next_deliverable_at(now) {
            assert!(next > now);
        }
        for id in deliverable {
            let p = self.net.packet(id).unwrap();
            let w = p.window().expect("deliverable packets are in flight");
            assert!(w.contains(now), "{id} is deliverable outside its window");
            assert!(!self.net.is_partitioned(p.src_host(), p.dst_host()));
            assert!(self.net.is_up(p.dst_host()));
        }
    }

    /// Delivers the `pick`-th deliverable packet (modulo their number), if
    /// any; returns it.
    pub fn deliver_nth(&mut self, pick: usize) -> Option<PacketId> {
        let d = self.net.deliverable(self.now);
        if d.is_empty() {
            return None;
        }
        let id = d[pick % d.len()];
        self.net.deliver(id, self.now);
        Some(id)
    }

    /// Moves time forward by up to `dt`, never past the latest arrival of
    /// a packet in flight (as `Advance` must not).
    pub fn advance(&mut self, dt: Duration) {
        let cap = self.net.latest_arrival().unwrap_or(Duration::MAX);
        self.now = (self.now + dt).min(cap).max(self.now);
    }

    /// Moves time to the next instant something becomes deliverable, if
    /// nothing is deliverable now.
    pub fn advance_to_next(&mut self) -> bool {
        if !self.net.deliverable(self.now).is_empty() {
            return false;
        }
        match self.net.next_deliverable_at(self.now) {
            Some(t) => {
                self.now = t;
                true
            }
            None => false,
        }
    }

    /// Delivers everything (oldest first), advancing time as needed, until
    /// nothing is in flight. Held packets may remain.
    pub fn settle(&mut self) {
        loop {
            self.check();
            if self.deliver_nth(0).is_none() && !self.advance_to_next() {
                return;
            }
        }
    }
}

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
