//! Packet faults as data choices: the odds a link gives a packet, and the
//! operations that carry out the runtime's decision.
//!
//! The model never decides whether a datagram is lost or duplicated: it has
//! no randomness. The runtime, on [`Event::Sent`](crate::Event::Sent), asks
//! [`Net::faults`] for the link's odds and, where an odd is non-zero, asks
//! its scheduler a data choice (index 0, the default, means "delivered
//! once"); then it calls [`Net::drop_packet`] or [`Net::duplicate_packet`].
//! Both may be called at any time while the datagram is in flight, so a
//! runtime may also decide at delivery time instead.
//!
//! Stream segments have zero odds and these operations refuse them: a
//! TCP-like stream hides loss and duplication (see
//! [`LinkConfig`](crate::LinkConfig)), and a lost segment would break the
//! stream's guarantee.

use crate::{Net, PacketId, PacketKind};

/// The fault odds of one packet, from its link at the time of asking.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Faults {
    /// Probability the packet is lost.
    pub loss: f64,
    /// Probability the packet is delivered twice.
    pub duplicate: f64,
}

impl Faults {
    /// Whether no fault can apply (no data choice to ask).
    pub fn is_none(&self) -> bool {
        self.loss == 0.0 && self.duplicate == 0.0
    }
}

impl Net {
    /// The loss and duplication odds for packet `id`: its link's settings
    /// for a datagram, none for a stream segment.
    ///
    /// # Panics
    ///
    /// If the packet is not in the network.
    pub fn faults(&self, id: PacketId) -> Faults {
        let p = self
            .packet(id)
            .unwrap_or_else(|| panic!("faults({id}): not in the network"));
        if p.kind().is_stream() {
            return Faults::default();
        }
        let link = self.link(p.src_host(), p.dst_host());
        Faults {
            loss: link.loss,
            // A duplicated ICMP error would report one refusal twice.
            duplicate: if p.kind() == PacketKind::PortUnreachable {
                0.0
            } else {
                link.duplicate
            },
        }
    }

    /// Loses datagram (or ICMP error) `id` (the runtime chose loss). No
    /// event is queued: the runtime made the decision and records it
    /// itself.
    ///
    /// # Panics
    ///
    /// If the packet is not a datagram or ICMP error in the network:
    /// streams never lose segments (a lossy link delays them instead).
    pub fn drop_packet(&mut self, id: PacketId) {
        let p = self
            .packet(id)
            .unwrap_or_else(|| panic!("drop_packet({id}): not in the network"));
        if p.kind() != PacketKind::PortUnreachable {
            self.datagram(id, "drop_packet");
        }
        self.remove_packet(id);
    }

    /// Duplicates datagram `id` (the runtime chose duplication): a second
    /// copy with the same arrival window, delivered independently (so the
    /// copies may arrive in either order, and each may be dropped). No
    /// [`Event::Sent`](crate::Event::Sent) is queued for the copy, so a
    /// runtime that asks its fault choices on `Sent` does not duplicate
    /// copies.
    ///
    /// # Panics
    ///
    /// If the packet is not a datagram in the network: streams discard
    /// duplicate segments, so duplicating one would have no observable
    /// effect and only waste a choice.
    pub fn duplicate_packet(&mut self, id: PacketId) -> PacketId {
        let mut copy = self.datagram(id, "duplicate_packet").clone();
        let new = self.ids.packet();
        copy.id = new;
        self.packets.insert(copy);
        new
    }

    fn datagram(&self, id: PacketId, op: &str) -> &crate::Packet {
        let p = self
            .packet(id)
            .unwrap_or_else(|| panic!("{op}({id}): not in the network"));
        assert!(
            p.kind() == PacketKind::Datagram,
            "{op}({id}): a {:?} segment; streams never lose or duplicate segments, \
             give the link a wider latency window (or loss, which widens it) instead",
            p.kind()
        );
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::settle;
    use crate::LinkConfig;
    use std::time::Duration;

    const T0: Duration = Duration::ZERO;

    #[test]
    fn datagram_odds_come_from_the_link_and_decisions_apply() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        let b = net.add_host("b", []);
        net.set_link(
            a,
            b,
            LinkConfig::default().with_loss(0.25).with_duplicate(0.5),
            T0,
        );
        let sa = net.udp_bind(a, "0.0.0.0:0".parse().unwrap()).unwrap();
        let sb = net.udp_bind(b, "0.0.0.0:7".parse().unwrap()).unwrap();
        let dst = "10.0.0.2:7".parse().unwrap();
        net.udp_send_to(sa, dst, b"lost", T0).unwrap();
        net.udp_send_to(sa, dst, b"twice", T0).unwrap();
        let sent: Vec<PacketId> = net
            .drain_events()
            .filter_map(|e| match e {
                crate::Event::Sent { packet } => Some(packet),
                _ => None,
            })
            .collect();
        assert_eq!(
            net.faults(sent[0]),
            Faults {
                loss: 0.25,
                duplicate: 0.5
            }
        );
        net.drop_packet(sent[0]);
        let copy = net.duplicate_packet(sent[1]);
        assert_eq!(
            net.packet(copy).unwrap().window(),
            net.packet(sent[1]).unwrap().window()
        );
        assert!(net.drain_events().next().is_none());
        settle(&mut net, T0);
        let mut buf = [0u8; 8];
        assert_eq!(net.udp_recv_from(sb, &mut buf).unwrap().0, 5);
        assert_eq!(net.udp_recv_from(sb, &mut buf).unwrap().0, 5);
        assert!(net.udp_recv_from(sb, &mut buf).is_err());
    }

    #[test]
    #[should_panic(expected = "streams never lose or duplicate")]
    fn stream_segments_cannot_be_dropped() {
        let mut net = Net::default();
        let a = net.add_host("a", []);
        net.add_host("b", []);
        net.tcp_connect(a, "10.0.0.2:1".parse().unwrap(), T0)
            .unwrap();
        let syn = net.packets().next().unwrap().0;
        assert!(net.faults(syn).is_none());
        net.drop_packet(syn);
    }
}
