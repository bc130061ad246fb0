//! Links: the per-direction path from one host to another, with its latency
//! window, loss and duplication odds and partition flag.
//!
//! A link is directional: `(a, b)` and `(b, a)` are configured separately,
//! so a one-way partition or an asymmetric latency is one call. Every pair
//! without an explicit setting uses [`NetConfig::default_link`] (or
//! [`NetConfig::loopback_link`] from a host to itself).
//!
//! # Latency window
//!
//! A packet sent at `now` over a link is in flight during
//! `[now + min_latency, now + max_latency]`: it may be delivered at any
//! instant of that window and must be delivered by its end. The model does
//! not pick the instant; the runtime's scheduler does, by choosing between
//! `Deliver` and `Advance` (see the crate docs). Datagrams therefore reorder
//! whenever windows overlap. Stream segments are clamped so that a
//! segment's window never opens or closes before its predecessor's (FIFO).
//!
//! # Loss and duplication
//!
//! `loss` and `duplicate` are probabilities the runtime feeds to its
//! scheduler's data choices (see [`Net::faults`](crate::Net::faults)); the
//! model never draws them itself. They apply to datagrams only. A stream
//! hides loss and duplication from its users (TCP retransmits and discards
//! duplicates by sequence number), so a lossy link instead widens a stream
//! segment's window by `retransmit_delay`: the segment may be late by one
//! retransmission, but it is never lost or delivered twice.
//!
//! # Partitions
//!
//! Changing a link's `partitioned` flag takes effect at once (see
//! [`Net::set_link`] and the crate docs): datagrams in flight across it are
//! lost, stream segments go back to the sender's retransmission queue until
//! it heals.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::{HostId, Net, NetConfig, Window};

/// Settings of one direction of the path between two hosts.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    /// Earliest arrival after sending.
    pub min_latency: Duration,
    /// Latest arrival after sending (at least `min_latency`).
    pub max_latency: Duration,
    /// Probability in `[0, 1]` that a datagram is lost.
    pub loss: f64,
    /// Probability in `[0, 1]` that a datagram is delivered twice.
    pub duplicate: f64,
    /// Nothing crosses a partitioned link.
    pub partitioned: bool,
    /// Extra latest-arrival slack for stream segments when `loss > 0`: one
    /// retransmission timeout (Linux's minimum RTO, 200 ms, by default).
    pub retransmit_delay: Duration,
}

impl Default for LinkConfig {
    /// A LAN-like link: latency window `[1 ms, 10 ms]`, no loss, no
    /// duplication, not partitioned.
    fn default() -> Self {
        LinkConfig {
            min_latency: Duration::from_millis(1),
            max_latency: Duration::from_millis(10),
            loss: 0.0,
            duplicate: 0.0,
            partitioned: false,
            retransmit_delay: Duration::from_millis(200),
        }
    }
}

impl LinkConfig {
    /// The default link from a host to itself: a zero-length latency window
    /// (delivered before time moves), no faults.
    pub fn loopback() -> Self {
        LinkConfig {
            min_latency: Duration::ZERO,
            max_latency: Duration::ZERO,
            ..LinkConfig::default()
        }
    }

    /// This link with latency window `[min, max]`.
    pub fn with_latency(self, min: Duration, max: Duration) -> Self {
        LinkConfig {
            min_latency: min,
            max_latency: max,
            ..self
        }
    }

    /// This link with datagram loss probability `p`.
    pub fn with_loss(self, p: f64) -> Self {
        LinkConfig { loss: p, ..self }
    }

    /// This link with datagram duplication probability `p`.
    pub fn with_duplicate(self, p: f64) -> Self {
        LinkConfig {
            duplicate: p,
            ..self
        }
    }

    /// Panics with a message naming the field if the settings are invalid.
    pub(crate) fn validate(&self) {
        assert!(
            self.min_latency <= self.max_latency,
            "LinkConfig: min_latency {:?} exceeds max_latency {:?}",
            self.min_latency,
            self.max_latency
        );
        assert!(
            (0.0..=1.0).contains(&self.loss) && (0.0..=1.0).contains(&self.duplicate),
            "LinkConfig: loss ({}) and duplicate ({}) are probabilities in [0, 1]",
            self.loss,
            self.duplicate
        );
    }

    /// The arrival window of a packet sent at `now`.
    pub(crate) fn window(&self, now: Duration, stream: bool) -> Window {
        let mut latest = now + self.max_latency;
        if stream && self.loss > 0.0 {
            latest += self.retransmit_delay;
        }
        Window {
            earliest: now + self.min_latency,
            latest,
        }
    }
}

/// The link table: defaults plus per-direction overrides.
#[derive(Debug)]
pub(crate) struct Links {
    default: LinkConfig,
    loopback: LinkConfig,
    overrides: BTreeMap<(HostId, HostId), LinkConfig>,
}

impl Links {
    pub(crate) fn new(config: &NetConfig) -> Self {
        Links {
            default: config.default_link.clone(),
            loopback: config.loopback_link.clone(),
            overrides: BTreeMap::new(),
        }
    }

    pub(crate) fn get(&self, from: HostId, to: HostId) -> &LinkConfig {
        self.overrides.get(&(from, to)).unwrap_or(if from == to {
            &self.loopback
        } else {
            &self.default
        })
    }
}

impl Net {
    /// The link from `from` to `to`.
    pub fn link(&self, from: HostId, to: HostId) -> &LinkConfig {
        self.links.get(from, to)
    }

    /// Sets the link from `from` to `to` (one direction) at time `now`.
    ///
    /// If this partitions the link, datagrams in flight across it are lost
    /// ([`Event::Discarded`](crate::Event::Discarded)) and stream segments
    /// in flight return to their sender's retransmission queue. If it heals
    /// it, queued segments are sent again with windows measured from `now`.
    /// A new latency window applies to packets sent from now on.
    ///
    /// # Panics
    ///
    /// If `cfg` is invalid (`min_latency > max_latency`, a probability
    /// outside `[0, 1]`) or a host is unknown.
    pub fn set_link(&mut self, from: HostId, to: HostId, cfg: LinkConfig, now: Duration) {
        self.observe(now);
        cfg.validate();
        self.host(from);
        self.host(to);
        self.links.overrides.insert((from, to), cfg);
        self.reconcile(now);
    }

    /// Sets the link used between distinct hosts that have no explicit
    /// setting, at time `now` (same effects as [`Net::set_link`]).
    pub fn set_default_link(&mut self, cfg: LinkConfig, now: Duration) {
        self.observe(now);
        cfg.validate();
        self.links.default = cfg;
        self.reconcile(now);
    }

    /// Partitions or heals the link from `from` to `to` (one direction).
    pub fn set_partitioned(&mut self, from: HostId, to: HostId, partitioned: bool, now: Duration) {
        let cfg = LinkConfig {
            partitioned,
            ..self.link(from, to).clone()
        };
        self.set_link(from, to, cfg, now);
    }

    /// Partitions `a` and `b` from each other in both directions.
    pub fn partition(&mut self, a: HostId, b: HostId, now: Duration) {
        self.set_partitioned(a, b, true, now);
        self.set_partitioned(b, a, true, now);
    }

    /// Heals both directions between `a` and `b`.
    pub fn heal(&mut self, a: HostId, b: HostId, now: Duration) {
        self.set_partitioned(a, b, false, now);
        self.set_partitioned(b, a, false, now);
    }

    /// Whether nothing can currently cross from `from` to `to`.
    pub fn is_partitioned(&self, from: HostId, to: HostId) -> bool {
        self.link(from, to).partitioned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_measured_from_send_time() {
        let l =
            LinkConfig::default().with_latency(Duration::from_millis(2), Duration::from_millis(5));
        let w = l.window(Duration::from_millis(10), false);
        assert_eq!(w.earliest, Duration::from_millis(12));
        assert_eq!(w.latest, Duration::from_millis(15));
    }

    #[test]
    fn loss_widens_stream_windows_only() {
        let l = LinkConfig::default().with_loss(0.5);
        let d = l.window(Duration::ZERO, false);
        let s = l.window(Duration::ZERO, true);
        assert_eq!(d.latest, l.max_latency);
        assert_eq!(s.latest, l.max_latency + l.retransmit_delay);
        assert_eq!(s.earliest, d.earliest);
    }

    #[test]
    #[should_panic(expected = "min_latency")]
    fn inverted_window_is_rejected() {
        LinkConfig::default()
            .with_latency(Duration::from_millis(5), Duration::from_millis(1))
            .validate();
    }

    #[test]
    #[should_panic(expected = "probabilities")]
    fn probability_out_of_range_is_rejected() {
        LinkConfig::default().with_loss(1.5).validate();
    }

    #[test]
    fn links_are_directional_with_defaults() {
        let mut links = Links::new(&NetConfig::default());
        let (a, b) = (HostId(0), HostId(1));
        links
            .overrides
            .insert((a, b), LinkConfig::default().with_loss(1.0));
        assert_eq!(links.get(a, b).loss, 1.0);
        assert_eq!(links.get(b, a).loss, 0.0);
        assert_eq!(links.get(a, a), &LinkConfig::loopback());
    }

    fn two_hosts() -> (Net, HostId, HostId) {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        (net, a, b)
    }

    #[test]
    fn partition_loses_datagrams_in_flight_and_sent_across() {
        let (mut net, a, b) = two_hosts();
        let sa = net.udp_bind(a, "0.0.0.0:0".parse().unwrap()).unwrap();
        net.udp_bind(b, "0.0.0.0:7".parse().unwrap()).unwrap();
        let dst = "10.0.0.2:7".parse().unwrap();
        net.udp_send_to(sa, dst, b"in flight", Duration::ZERO)
            .unwrap();
        net.partition(a, b, Duration::ZERO);
        net.udp_send_to(sa, dst, b"sent across", Duration::ZERO)
            .unwrap();
        let discarded = net
            .drain_events()
            .filter(|e| {
                matches!(
                    e,
                    crate::Event::Discarded {
                        reason: crate::Discard::Partitioned,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(discarded, 2);
        assert_eq!(net.packets().count(), 0);
        // One-way heal: b -> a is still cut.
        net.set_partitioned(a, b, false, Duration::ZERO);
        assert!(!net.is_partitioned(a, b) && net.is_partitioned(b, a));
    }

    #[test]
    fn partition_holds_stream_segments_until_heal() {
        let (mut net, a, b) = two_hosts();
        let l = net.tcp_listen(b, "0.0.0.0:80".parse().unwrap()).unwrap();
        let c = net
            .tcp_connect(a, "10.0.0.2:80".parse().unwrap(), Duration::ZERO)
            .unwrap();
        let now = crate::net::settle(&mut net, Duration::ZERO);
        let (s, _) = net.tcp_accept(l).unwrap();
        net.tcp_write(c, b"before", now).unwrap();
        net.partition(a, b, now);
        net.tcp_write(c, b" during", now).unwrap();
        assert!(net.deliverable(now + Duration::from_secs(1)).is_empty());
        assert_eq!(
            net.latest_arrival(),
            None,
            "held segments do not bound time"
        );
        let heal = now + Duration::from_secs(30);
        net.heal(a, b, heal);
        let w = net.packets().next().unwrap().1.window().unwrap();
        assert_eq!(w.earliest, heal + net.link(a, b).min_latency);
        let now = crate::net::settle(&mut net, heal);
        let mut buf = [0u8; 32];
        let n = net.tcp_read(s, &mut buf, now).unwrap();
        assert_eq!(&buf[..n], b"before during");
    }
}
