//! Telling a failure in words: the few things that happened in the
//! reported execution that the defaults would not have made happen, in
//! order, as a person would say them.
//!
//! The explorer re-runs the execution it reports once more with the
//! runtime's story on ([`sim_rt::runtime::Builder::record_story`]) and the
//! scheduler noting, at each delayed pick, what would have run and what
//! ran instead. From those it tells:
//!
//! - faults: partitions and heals ("partition coordinator | p3"), host
//!   resets, stops and restarts, each marked as the fault injector's or the
//!   program's; packets lost or duplicated by chance; disk errors and
//!   other non-default data choices;
//! - delays: "the packet p1 -> coordinator (data, 24 bytes, "COMMIT ack")
//!   delayed past task 7 on p1";
//! - races the faults made: a timer that fired on a host while a packet to
//!   it was held by a partition, or delayed, and had not arrived ("the
//!   timer of task 9 on p3 fired before the packet coordinator -> p3 ...
//!   sent at 180ms arrived").

use std::collections::BTreeMap;
use std::time::Duration;

use sim_rt::runtime::{Happening, Told};
use sim_rt::scheduler::{ChoiceKind, Event, HostId, PacketId};
use sim_rt::task::Id;

/// At most this many lines are told; the rest are counted.
const MAX_LINES: usize = 12;

/// What the scheduler noted at a delayed pick: the trace step, what the
/// explorer would have run (unknown for randomized explorers), and what ran.
pub(crate) type Delayed = (u32, Option<Event>, Event);

struct Packet {
    from: HostId,
    to: HostId,
    kind: &'static str,
    bytes: usize,
    text: String,
    sent: Duration,
    /// The link was partitioned when it was sent.
    held: bool,
    delivered: Option<Duration>,
}

/// The story's facts, indexed.
struct Facts<'a> {
    hosts: &'a [String],
    packets: BTreeMap<PacketId, Packet>,
    tasks: BTreeMap<Id, HostId>,
}

impl Facts<'_> {
    fn host(&self, h: HostId) -> &str {
        self.hosts.get(h.index()).map_or("?", String::as_str)
    }

    fn packet(&self, id: PacketId) -> String {
        match self.packets.get(&id) {
            Some(p) if p.bytes > 0 => format!(
                "the packet {} -> {} ({}, {} bytes, \"{}\")",
                self.host(p.from),
                self.host(p.to),
                p.kind,
                p.bytes,
                p.text
            ),
            Some(p) => format!(
                "the packet {} -> {} ({})",
                self.host(p.from),
                self.host(p.to),
                p.kind
            ),
            None => format!("{id}"),
        }
    }

    fn task(&self, id: Id) -> String {
        match self.tasks.get(&id) {
            Some(h) => format!("task {id} on {}", self.host(*h)),
            None => format!("task {id} on main"),
        }
    }

    fn event(&self, e: &Event) -> String {
        match *e {
            Event::Poll(id) => self.task(id),
            Event::Deliver(p) => self.packet(p),
            Event::Advance => "the clock".to_string(),
            _ => format!("{e:?}"),
        }
    }
}

fn choice_words(kind: u8, index: u32, of: u32) -> String {
    let name = if kind == ChoiceKind::Select.code() {
        "a select! took branch"
    } else if kind == ChoiceKind::User.code() {
        "sim::choose chose"
    } else if kind == (ChoiceKind::Buggify { probability: 0.0 }).code() {
        return "a sim::buggify point fired".to_string();
    } else if kind == (ChoiceKind::Late { probability: 0.0 }).code() {
        return "the packets in flight arrived late: the clock moved to the end of the first                 one's latency window before any was delivered"
            .to_string();
    } else if kind == (ChoiceKind::DiskEio { probability: 0.0 }).code() {
        "a disk operation failed with an injected EIO: option"
    } else if kind == ChoiceKind::DiskCrashPrefix.code()
        || kind == ChoiceKind::DiskCrashKeep.code()
        || kind == ChoiceKind::DiskTornWrite.code()
    {
        "a disk crash kept unsynced data: option"
    } else {
        return format!("data choice of kind {kind}: option {index} of {of}");
    };
    format!("{name} {index} of {of}")
}

/// The lines telling `story` (with its hosts' names and the delays the
/// scheduler noted).
pub(crate) fn tell(story: &[Told], hosts: &[String], delayed: &[Delayed]) -> Vec<String> {
    let mut facts = Facts {
        hosts,
        packets: BTreeMap::new(),
        tasks: BTreeMap::new(),
    };
    // Partitioned links (from, to), as the story goes.
    let mut cut: Vec<(HostId, HostId)> = Vec::new();
    let mut lines: Vec<(u64, Duration, String)> = Vec::new();
    // The link and host changes of the current step, told together.
    let mut group: Vec<Happening> = Vec::new();
    let mut group_at = (0, Duration::ZERO);
    let mut injected = false;
    for t in story {
        if !group.is_empty() && t.step != group_at.0 {
            flush(&facts, &mut group, group_at, injected, &mut lines);
            injected = false;
        }
        match &t.what {
            Happening::Spawned { task, host } => {
                facts.tasks.insert(*task, *host);
            }
            Happening::Sent {
                packet,
                from,
                to,
                kind,
                bytes,
                text,
            } => {
                facts.packets.insert(
                    *packet,
                    Packet {
                        from: *from,
                        to: *to,
                        kind,
                        bytes: *bytes,
                        text: text.clone(),
                        sent: t.at,
                        held: cut.contains(&(*from, *to)),
                        delivered: None,
                    },
                );
            }
            Happening::Delivered { packet } => {
                if let Some(p) = facts.packets.get_mut(packet) {
                    p.delivered = Some(t.at);
                }
            }
            Happening::Lost { packet, why } => {
                if *why == "partitioned" {
                    if let Some(p) = facts.packets.get_mut(packet) {
                        p.held = true;
                    }
                } else {
                    lines.push((t.step, t.at, format!("{} {why}", facts.packet(*packet))));
                }
            }
            Happening::Duplicated { packet, .. } => {
                lines.push((
                    t.step,
                    t.at,
                    format!("{} duplicated", facts.packet(*packet)),
                ));
            }
            Happening::Choice { kind, index, of } => {
                let loss = ChoiceKind::Loss { probability: 0.0 }.code();
                let dup = ChoiceKind::Duplicate { probability: 0.0 }.code();
                let fault = ChoiceKind::Fault { probability: 0.0 }.code();
                if ![loss, dup, fault].contains(kind) {
                    lines.push((t.step, t.at, choice_words(*kind, *index, *of)));
                }
            }
            Happening::Injected => {
                injected = true;
                group_at = (t.step, t.at);
            }
            what @ (Happening::Link { .. }
            | Happening::Stopped { .. }
            | Happening::Started { .. }
            | Happening::Paused { .. }) => {
                if let Happening::Link {
                    from,
                    to,
                    partitioned,
                } = *what
                {
                    if partitioned {
                        if !cut.contains(&(from, to)) {
                            cut.push((from, to));
                        }
                    } else {
                        cut.retain(|&l| l != (from, to));
                    }
                }
                if group.is_empty() && !injected {
                    group_at = (t.step, t.at);
                }
                group.push(what.clone());
            }
            _ => {}
        }
    }
    flush(&facts, &mut group, group_at, injected, &mut lines);
    // Delays, at the time of the story entry just before them.
    for &(point, default, picked) in delayed {
        let (step, at) = story
            .iter()
            .take_while(|t| t.point <= u64::from(point))
            .last()
            .map_or((0, Duration::ZERO), |t| (t.step, t.at));
        let what = match default {
            Some(d) => format!("{} delayed past {}", facts.event(&d), facts.event(&picked)),
            None => format!(
                "{} ran ahead of the explorer's choice",
                facts.event(&picked)
            ),
        };
        lines.push((step, at, what));
    }
    lines.extend(races(story, &facts, delayed));
    lines.sort_by_key(|l| (l.0, l.1));
    let total = lines.len();
    let mut out: Vec<String> = lines
        .into_iter()
        .take(MAX_LINES)
        .map(|(step, at, words)| format!("step {step}, {at:?}: {words}"))
        .collect();
    if total > MAX_LINES {
        out.push(format!("... and {} more", total - MAX_LINES));
    }
    out
}

/// Tells the link and host changes of one step, and empties `group`.
fn flush(
    facts: &Facts<'_>,
    group: &mut Vec<Happening>,
    (step, at): (u64, Duration),
    injected: bool,
    lines: &mut Vec<(u64, Duration, String)>,
) {
    let by = if injected {
        "fault injector"
    } else {
        "the program"
    };
    for words in group_words(facts, group) {
        lines.push((step, at, format!("{words} ({by})")));
    }
    group.clear();
}

/// Words for what one step did to links and hosts: a link cut both ways
/// is one partition, partitions of one host from several are one line, a
/// stop and a start of one host are a reset.
fn group_words(facts: &Facts<'_>, group: &[Happening]) -> Vec<String> {
    let mut words = Vec::new();
    for partitioned in [true, false] {
        let links: Vec<(HostId, HostId)> = group
            .iter()
            .filter_map(|h| match *h {
                Happening::Link {
                    from,
                    to,
                    partitioned: p,
                } if p == partitioned => Some((from, to)),
                _ => None,
            })
            .collect();
        // Pairs cut both ways, once each, and the one-way rest.
        let mut both: Vec<(HostId, HostId)> = Vec::new();
        let mut one_way: Vec<(HostId, HostId)> = Vec::new();
        for &(a, b) in &links {
            if links.contains(&(b, a)) {
                if !both.contains(&(b, a)) {
                    both.push((a, b));
                }
            } else {
                one_way.push((a, b));
            }
        }
        let verb = if partitioned { "partition" } else { "heal" };
        // One host on one side of every pair: one line.
        let common = both.first().and_then(|&(a, b)| {
            [a, b]
                .into_iter()
                .find(|&h| both.iter().all(|&(x, y)| x == h || y == h))
        });
        match common {
            Some(h) if both.len() > 1 => {
                let others: Vec<&str> = both
                    .iter()
                    .map(|&(x, y)| facts.host(if x == h { y } else { x }))
                    .collect();
                words.push(format!("{verb} {} | {}", facts.host(h), others.join(", ")));
            }
            _ => {
                for (a, b) in both {
                    words.push(format!("{verb} {} | {}", facts.host(a), facts.host(b)));
                }
            }
        }
        for (a, b) in one_way {
            words.push(format!("{verb} {} -> {}", facts.host(a), facts.host(b)));
        }
    }
    let mut done: Vec<HostId> = Vec::new();
    for h in group {
        match *h {
            Happening::Stopped { host } if !done.contains(&host) => {
                done.push(host);
                let restarted = group.contains(&Happening::Started { host });
                let what = if restarted { "reset" } else { "stopped" };
                words.push(format!("host {} {what}", facts.host(host)));
            }
            Happening::Started { host } if !done.contains(&host) => {
                done.push(host);
                words.push(format!("host {} started", facts.host(host)));
            }
            Happening::Paused { host, paused } => words.push(format!(
                "host {} {}",
                facts.host(host),
                if paused { "paused" } else { "resumed" }
            )),
            _ => {}
        }
    }
    words
}

/// Timers that fired on a host while a packet to it, held by a partition
/// or delayed, had not arrived: the first such timer per packet.
fn races(story: &[Told], facts: &Facts<'_>, delayed: &[Delayed]) -> Vec<(u64, Duration, String)> {
    let delayed_packets: Vec<PacketId> = delayed
        .iter()
        .filter_map(|(_, d, _)| match d {
            Some(Event::Deliver(p)) => Some(*p),
            _ => None,
        })
        .collect();
    let mut told: Vec<PacketId> = Vec::new();
    let mut out = Vec::new();
    let mut after_advance = false;
    for t in story {
        match t.what {
            Happening::Advanced => after_advance = true,
            Happening::Woken { task, host } if after_advance => {
                for (&id, p) in &facts.packets {
                    let waiting = p.to == host
                        && p.sent < t.at
                        && p.delivered.is_none_or(|d| d > t.at)
                        && (p.held || delayed_packets.contains(&id))
                        && p.bytes > 0;
                    if waiting && !told.contains(&id) {
                        told.push(id);
                        out.push((
                            t.step,
                            t.at,
                            format!(
                                "the timer of {} fired before {} sent at {:?} arrived{}",
                                facts.task(task),
                                facts.packet(id),
                                p.sent,
                                if p.held {
                                    " (held by the partition)"
                                } else {
                                    " (delayed)"
                                }
                            ),
                        ));
                    }
                }
            }
            _ => after_advance = false,
        }
    }
    out
}
