//! Telling a failure in words: the few things that happened in the
//! reported execution that the defaults would not have made happen, in
//! order, as a person would say them, and the vocabulary every part of a
//! report shares (the story, the critical transition, the failure page).
//!
//! The explorer re-runs the execution it reports once more with the
//! runtime's story on ([`sim_rt::runtime::Builder::record_story`]) and the
//! scheduler noting, at each delayed pick, what would have run and what
//! ran instead. From those it tells:
//!
//! - faults: partitions and heals ("partition coordinator | p3"), host
//!   resets, stops and restarts ("reset p3"), each marked as the fault
//!   injector's or the program's; messages lost or duplicated by chance
//!   ("lose p1 -> coordinator \"ACK\" (by chance)"); disk errors and other
//!   non-default data choices ("sim::choose picked 3 of 4");
//! - delays: "p1 -> coordinator \"COMMIT ack\" delayed past task 7 on p1";
//! - races the faults made: a timer that fired on a host while a message
//!   to or from it was held by a partition, or delayed, and had not
//!   arrived ("the
//!   timer of task 9 on p3 fired before coordinator -> p3 \"COMMIT 10\"
//!   (sent at 180ms) arrived").
//!
//! # Vocabulary
//!
//! Hosts by name; tasks as "task 7 on p3", with the last label the task
//! gave itself with [`sim::annotate`](sim_rt::sim::annotate) ("task 7
//! (client) on p3"); messages as "from -> to" and a summary of the payload
//! (its first line, or its printable runs when binary, quoted: see
//! `Happening::Sent`), or the packet's kind when it has no payload ("a ->
//! b SYN"); faults by what they did ("partition a | b", "reset b").
//!
//! # Steps
//!
//! Every line starts "step N, T:", with the step numbered as
//! [`sim::step`](sim_rt::sim::step) and [`Failure::step`] number it (events
//! run, from 1). A data choice or a fault happens within a step: its line
//! has the number of the event it happened in (or after). The critical
//! transition ([`transition`]) and the failure page use the same numbers.
//!
//! [`Failure::step`]: sim_rt::runtime::Failure::step

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use sim_rt::runtime::{ChoiceTag, Happening, Step, Told, Trace};
use sim_rt::scheduler::{Event, HostId, PacketId};
use sim_rt::task::Id;

/// At most this many lines are told in a report; the rest are counted
/// (the failure page lists them all).
const MAX_LINES: usize = 12;

/// What the scheduler noted at a delayed pick: the trace step, what the
/// explorer would have run (unknown for randomized explorers), and what ran.
pub(crate) type Delayed = (u32, Option<Event>, Event);

/// One line of a story.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// The step it happened at, as [`sim::step`](sim_rt::sim::step)
    /// numbers them.
    pub(crate) step: u64,
    /// Simulated time then.
    pub(crate) at: Duration,
    /// What happened, in words.
    pub(crate) words: String,
    /// The other steps of what it names: the sends and deliveries of the
    /// messages it names.
    pub(crate) names: Vec<u64>,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {}, {:?}: {}", self.step, self.at, self.words)
    }
}

/// A packet, as the story tells it.
#[derive(Debug, Clone)]
pub(crate) struct Packet {
    pub(crate) from: HostId,
    pub(crate) to: HostId,
    pub(crate) kind: &'static str,
    pub(crate) bytes: usize,
    pub(crate) text: String,
    pub(crate) sent: Duration,
    pub(crate) sent_step: u64,
    /// The link was partitioned when it was sent, or a partition dropped
    /// it.
    pub(crate) held: bool,
    /// When and at which step it was delivered.
    pub(crate) delivered: Option<(Duration, u64)>,
}

/// The vocabulary of one story: its hosts, tasks and messages, indexed.
pub(crate) struct Words<'a> {
    hosts: &'a [String],
    packets: BTreeMap<PacketId, Packet>,
    /// Each task's host and last label.
    tasks: BTreeMap<Id, (HostId, Option<&'static str>)>,
    /// The tasks that are std threads' turns: the thread's number.
    threads: BTreeMap<Id, u32>,
}

impl<'a> Words<'a> {
    /// Indexes `story`, whose hosts are named `hosts`.
    pub(crate) fn new(story: &[Told], hosts: &'a [String]) -> Words<'a> {
        let mut words = Words {
            hosts,
            packets: BTreeMap::new(),
            tasks: BTreeMap::new(),
            threads: BTreeMap::new(),
        };
        // Partitioned links (from, to), as the story goes.
        let mut cut: Vec<(HostId, HostId)> = Vec::new();
        for t in story {
            match &t.what {
                Happening::Spawned { task, host } => {
                    words.tasks.insert(*task, (*host, None));
                }
                Happening::Labelled { task, label } => {
                    if let Some(entry) = words.tasks.get_mut(task) {
                        entry.1 = Some(label);
                    }
                }
                Happening::Thread { task, number, .. } => {
                    words.threads.insert(*task, *number);
                }
                Happening::Sent {
                    packet,
                    from,
                    to,
                    kind,
                    bytes,
                    text,
                } => {
                    words.packets.insert(
                        *packet,
                        Packet {
                            from: *from,
                            to: *to,
                            kind,
                            bytes: *bytes,
                            text: text.clone(),
                            sent: t.at,
                            sent_step: t.step,
                            held: cut.contains(&(*from, *to)),
                            delivered: None,
                        },
                    );
                }
                Happening::Duplicated { packet, copy } => {
                    if let Some(p) = words.packets.get(packet).cloned() {
                        words.packets.insert(*copy, p);
                    }
                }
                Happening::Delivered { packet } => {
                    if let Some(p) = words.packets.get_mut(packet) {
                        p.delivered = Some((t.at, t.step));
                    }
                }
                Happening::Lost {
                    packet,
                    why: "partitioned",
                } => {
                    if let Some(p) = words.packets.get_mut(packet) {
                        p.held = true;
                    }
                }
                Happening::Link {
                    from,
                    to,
                    partitioned,
                } => {
                    if *partitioned {
                        if !cut.contains(&(*from, *to)) {
                            cut.push((*from, *to));
                        }
                    } else {
                        cut.retain(|&l| l != (*from, *to));
                    }
                }
                _ => {}
            }
        }
        words
    }

    /// A host's name.
    pub(crate) fn host(&self, h: HostId) -> &str {
        self.hosts.get(h.index()).map_or("?", String::as_str)
    }

    /// A packet, when the story saw it sent.
    pub(crate) fn packet(&self, id: PacketId) -> Option<&Packet> {
        self.packets.get(&id)
    }

    /// A message's summary: its payload's text, quoted, or its kind when
    /// it has no payload, or its size when none of it is text.
    pub(crate) fn summary(&self, id: PacketId) -> String {
        match self.packets.get(&id) {
            Some(p) if p.bytes == 0 => p.kind.to_string(),
            Some(p) if p.text.is_empty() => format!("({} bytes)", p.bytes),
            Some(p) => format!("\"{}\"", p.text),
            None => format!("{id}"),
        }
    }

    /// A message: "a -> b \"hello b\"".
    pub(crate) fn message(&self, id: PacketId) -> String {
        match self.packets.get(&id) {
            Some(p) => format!(
                "{} -> {} {}",
                self.host(p.from),
                self.host(p.to),
                self.summary(id)
            ),
            None => format!("{id}"),
        }
    }

    /// The steps a message was sent and delivered at.
    fn message_steps(&self, id: PacketId) -> Vec<u64> {
        self.packets.get(&id).map_or_else(Vec::new, |p| {
            std::iter::once(p.sent_step)
                .chain(p.delivered.map(|d| d.1))
                .collect()
        })
    }

    /// A task: "task 7 on a", "task 7 (client) on a"; a std thread's
    /// turns: "std thread 2 (task 7) on a".
    pub(crate) fn task(&self, id: Id) -> String {
        if let Some(n) = self.threads.get(&id) {
            let host = self.tasks.get(&id).map_or("main", |t| self.host(t.0));
            return format!("std thread {n} (task {id}) on {host}");
        }
        match self.tasks.get(&id) {
            Some((h, Some(label))) => format!("task {id} ({label}) on {}", self.host(*h)),
            Some((h, None)) => format!("task {id} on {}", self.host(*h)),
            None => format!("task {id} on main"),
        }
    }

    /// A task's host.
    pub(crate) fn task_host(&self, id: Id) -> Option<HostId> {
        self.tasks.get(&id).map(|t| t.0)
    }

    /// What a pick ran, as a subject: "task 7 on a", "a -> b \"x\"",
    /// "the clock".
    pub(crate) fn event(&self, e: &Event) -> String {
        match *e {
            Event::Poll(id) => self.task(id),
            Event::Deliver(p) => self.message(p),
            Event::Advance => "the clock".to_string(),
            _ => format!("{e:?}"),
        }
    }
}

/// Words for a data choice that took option `index` of `of`, other than a
/// loss, a duplicate or a fault (told by what they did).
pub(crate) fn choice_words(kind: ChoiceTag, index: u32, of: u32) -> String {
    match kind {
        ChoiceTag::Select => format!("a select! took branch {index} of {of}"),
        ChoiceTag::User => format!("sim::choose picked {index} of {of}"),
        ChoiceTag::Thread => format!(
            "while a task blocked the runtime's thread, runnable std thread {} of {of} ran",
            index + 1
        ),
        ChoiceTag::Buggify if index == 0 => "a sim::buggify point did not fire".to_string(),
        ChoiceTag::Buggify => "a sim::buggify point fired".to_string(),
        ChoiceTag::Late if index == 0 => {
            "the packets in flight were delivered in their windows".to_string()
        }
        ChoiceTag::Late => "the packets in flight arrived late: the clock moved to the end of \
                            the first one's latency window before any was delivered"
            .to_string(),
        ChoiceTag::DiskEio if index == 0 => "a disk operation succeeded".to_string(),
        ChoiceTag::DiskEio => "a disk operation failed with an injected EIO".to_string(),
        ChoiceTag::DiskCrashPrefix => format!(
            "a disk crash kept the oldest {index} of {} unsynced operations",
            of - 1
        ),
        ChoiceTag::DiskCrashKeep if index == 0 => {
            "a disk crash lost an unsynced operation".to_string()
        }
        ChoiceTag::DiskCrashKeep => "a disk crash kept an unsynced operation".to_string(),
        ChoiceTag::DiskTornWrite if index == 0 => {
            "a disk crash kept an unsynced write whole".to_string()
        }
        ChoiceTag::DiskTornWrite => format!(
            "a disk crash tore an unsynced write (tear {index} of {})",
            of - 1
        ),
        ChoiceTag::Loss => format!("a loss choice: option {index} of {of}"),
        ChoiceTag::Duplicate => format!("a duplication choice: option {index} of {of}"),
        ChoiceTag::Fault => format!("the fault injector's option {index} of {of}"),
    }
}

/// The tag of a choice's kind from the code a trace or a story records.
pub(crate) fn tag(code: u8) -> ChoiceTag {
    ChoiceTag::from_code(code).expect("a trace records only the codes of ChoiceKinds")
}

/// Whether a choice of `kind` is told by what it did (a message lost or
/// duplicated, the injector's faults) rather than in [`choice_words`].
pub(crate) fn told_by_effects(kind: ChoiceTag) -> bool {
    match kind {
        ChoiceTag::Loss | ChoiceTag::Duplicate | ChoiceTag::Fault => true,
        ChoiceTag::Select
        | ChoiceTag::User
        | ChoiceTag::Buggify
        | ChoiceTag::Late
        | ChoiceTag::DiskEio
        | ChoiceTag::DiskCrashPrefix
        | ChoiceTag::DiskCrashKeep
        | ChoiceTag::DiskTornWrite
        | ChoiceTag::Thread => false,
    }
}

/// Every line telling `story` (with its hosts' names and the delays the
/// scheduler noted), in step order. With the run's full `trace`, a delay
/// is told at the step of the pick it delayed, as [`transition`] and the
/// picture number it; without, at the story's entry just before it.
pub(crate) fn lines(
    story: &[Told],
    hosts: &[String],
    delayed: &[Delayed],
    trace: Option<&Trace>,
) -> Vec<Line> {
    let words = Words::new(story, hosts);
    let mut lines: Vec<Line> = Vec::new();
    // The link and host changes of the current step, told together.
    let mut group: Vec<Happening> = Vec::new();
    let mut group_at = (0, Duration::ZERO);
    let mut injected = false;
    for t in story {
        if !group.is_empty() && t.step != group_at.0 {
            flush(&words, &mut group, group_at, injected, &mut lines);
            injected = false;
        }
        let line = |words: String, names: Vec<u64>| Line {
            step: t.step,
            at: t.at,
            words,
            names,
        };
        match &t.what {
            Happening::Lost { packet, why } => {
                let names = words.message_steps(*packet);
                match *why {
                    "partitioned" => {}
                    "lost by chance" => lines.push(line(
                        format!("lose {} (by chance)", words.message(*packet)),
                        names,
                    )),
                    why => lines.push(line(
                        format!("{} dropped: {why}", words.message(*packet)),
                        names,
                    )),
                }
            }
            Happening::Duplicated { packet, .. } => lines.push(line(
                format!("duplicate {} (by chance)", words.message(*packet)),
                words.message_steps(*packet),
            )),
            Happening::Choice { kind, index, of } if !told_by_effects(tag(*kind)) => {
                lines.push(line(choice_words(tag(*kind), *index, *of), Vec::new()));
            }
            Happening::Choice { .. } => {}
            Happening::Injected => {
                // The injector's effects follow; what the step changed
                // before them, the program did.
                if !injected {
                    flush(&words, &mut group, group_at, false, &mut lines);
                }
                injected = true;
                group_at = (t.step, t.at);
            }
            what @ (Happening::Link { .. }
            | Happening::Stopped { .. }
            | Happening::Started { .. }
            | Happening::Paused { .. }) => {
                if group.is_empty() && !injected {
                    group_at = (t.step, t.at);
                }
                group.push(what.clone());
            }
            _ => {}
        }
    }
    flush(&words, &mut group, group_at, injected, &mut lines);
    // Delays, at the step of the pick they delayed.
    // The points of the run's picks, in order.
    let picks: Option<Vec<u64>> = trace.map(|t| {
        t.positions()
            .iter()
            .zip(t.steps())
            .filter(|(_, s)| matches!(s, Step::Pick { .. }))
            .map(|(&p, _)| p)
            .collect()
    });
    for &(point, default, picked) in delayed {
        let point = u64::from(point);
        let before = story
            .iter()
            .take_while(|t| t.point <= point)
            .last()
            .map_or((0, Duration::ZERO), |t| (t.step, t.at));
        let (step, at) = match &picks {
            // The pick's number: the picks up to and including it.
            Some(picks) => {
                let at = story
                    .iter()
                    .find(|t| t.point == point + 1)
                    .map_or(before.1, |t| t.at);
                (picks.partition_point(|&p| p <= point) as u64, at)
            }
            None => before,
        };
        let mut names = Vec::new();
        for e in default.iter().chain([&picked]) {
            if let Event::Deliver(p) = e {
                names.extend(words.message_steps(*p));
            }
        }
        let what = match default {
            Some(d) => format!("{} delayed past {}", words.event(&d), words.event(&picked)),
            None => format!(
                "{} ran ahead of the explorer's choice",
                words.event(&picked)
            ),
        };
        lines.push(Line {
            step,
            at,
            words: what,
            names,
        });
    }
    lines.extend(races(story, &words, delayed));
    lines.sort_by_key(|l| (l.step, l.at));
    lines
}

/// The story as a report tells it: the first lines, and how many more.
pub(crate) fn tell(lines: &[Line]) -> Vec<String> {
    let mut out: Vec<String> = lines.iter().take(MAX_LINES).map(Line::to_string).collect();
    if lines.len() > MAX_LINES {
        out.push(format!("... and {} more", lines.len() - MAX_LINES));
    }
    out
}

/// Tells the link and host changes of one step, and empties `group`.
fn flush(
    words: &Words<'_>,
    group: &mut Vec<Happening>,
    (step, at): (u64, Duration),
    injected: bool,
    lines: &mut Vec<Line>,
) {
    for (_, what) in group_words(words, group) {
        lines.push(Line {
            step,
            at,
            words: format!("{what} ({})", by(injected)),
            names: Vec::new(),
        });
    }
    group.clear();
}

/// Who made a fault.
pub(crate) fn by(injected: bool) -> &'static str {
    if injected {
        "fault injector"
    } else {
        "the program"
    }
}

/// Names for what one step did to links and hosts, each with the first
/// host it concerns: a link cut both ways is one partition ("partition a
/// | b"), partitions of one host from several are one ("partition a | b,
/// c"), a stop and a start of one host are a reset ("reset a").
pub(crate) fn group_words(words: &Words<'_>, group: &[Happening]) -> Vec<(HostId, String)> {
    let mut out = Vec::new();
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
        // One host on one side of every pair: one name.
        let common = both.first().and_then(|&(a, b)| {
            [a, b]
                .into_iter()
                .find(|&h| both.iter().all(|&(x, y)| x == h || y == h))
        });
        match common {
            Some(h) if both.len() > 1 => {
                let others: Vec<&str> = both
                    .iter()
                    .map(|&(x, y)| words.host(if x == h { y } else { x }))
                    .collect();
                out.push((
                    h,
                    format!("{verb} {} | {}", words.host(h), others.join(", ")),
                ));
            }
            _ => {
                for (a, b) in both {
                    out.push((a, format!("{verb} {} | {}", words.host(a), words.host(b))));
                }
            }
        }
        for (a, b) in one_way {
            out.push((a, format!("{verb} {} -> {}", words.host(a), words.host(b))));
        }
    }
    let mut done: Vec<HostId> = Vec::new();
    for h in group {
        match *h {
            Happening::Stopped { host } if !done.contains(&host) => {
                done.push(host);
                let restarted = group.contains(&Happening::Started { host });
                let what = if restarted { "reset" } else { "stop" };
                out.push((host, format!("{what} {}", words.host(host))));
            }
            Happening::Started { host } if !done.contains(&host) => {
                done.push(host);
                out.push((host, format!("start {}", words.host(host))));
            }
            Happening::Paused { host, paused } => out.push((
                host,
                format!(
                    "{} {}",
                    if paused { "pause" } else { "resume" },
                    words.host(host)
                ),
            )),
            _ => {}
        }
    }
    out
}

/// Timers that fired on a host while a message to it, held by a partition
/// or delayed, had not arrived, or while its own message was held by a
/// partition (a request that timed out): the first such timer per message.
fn races(story: &[Told], words: &Words<'_>, delayed: &[Delayed]) -> Vec<Line> {
    let delayed_packets: BTreeSet<PacketId> = delayed
        .iter()
        .filter_map(|(_, d, _)| match d {
            Some(Event::Deliver(p)) => Some(*p),
            _ => None,
        })
        .collect();
    let ever_cut: BTreeSet<(HostId, HostId)> = story
        .iter()
        .filter_map(|t| match t.what {
            Happening::Link {
                from,
                to,
                partitioned: true,
            } => Some((from, to)),
            _ => None,
        })
        .collect();
    // The messages that may yet be told: with a payload, and held, delayed
    // or on a link some partition cuts. Each is told once, and one
    // delivered by a timer's time is out for every later one (the story's
    // time only moves on), so each timer looks only at what is still in
    // flight.
    let mut pending: Vec<(PacketId, &Packet)> = words
        .packets
        .iter()
        .filter(|(id, p)| {
            p.bytes > 0
                && (p.held || delayed_packets.contains(id) || ever_cut.contains(&(p.from, p.to)))
        })
        .map(|(&id, p)| (id, p))
        .collect();
    let mut out = Vec::new();
    let mut after_advance = false;
    // Partitioned links (from, to), as the story goes: a message in flight
    // on one is held by the partition, sent before it or not.
    let mut cut: Vec<(HostId, HostId)> = Vec::new();
    for t in story {
        if let Happening::Link {
            from,
            to,
            partitioned,
        } = t.what
        {
            cut.retain(|&l| l != (from, to));
            if partitioned {
                cut.push((from, to));
            }
        }
        match t.what {
            Happening::Advanced => after_advance = true,
            Happening::Woken { task, host } if after_advance => {
                pending.retain(|(_, p)| p.delivered.is_none_or(|d| d.0 > t.at));
                pending.retain(|&(id, p)| {
                    let held = p.held || cut.contains(&(p.from, p.to));
                    // On the sender, only a partition's hold: a request
                    // that timed out (a message merely delayed while its
                    // sender slept is no race).
                    let waiting = (p.to == host || (p.from == host && held))
                        && p.sent < t.at
                        && (held || delayed_packets.contains(&id));
                    if waiting {
                        out.push(Line {
                            step: t.step,
                            at: t.at,
                            words: format!(
                                "the timer of {} fired before {} (sent at {:?}) arrived{}",
                                words.task(task),
                                words.message(id),
                                p.sent,
                                if held {
                                    " (held by the partition)"
                                } else {
                                    " (delayed)"
                                }
                            ),
                            names: words.message_steps(id),
                        });
                    }
                    !waiting
                });
            }
            _ => after_advance = false,
        }
    }
    out
}

/// What happened at choice point `point` (as replay tokens count them) of
/// an execution told by `story`, whose full trace is `trace`: its line,
/// numbered as the story numbers steps. A pick is told with what the event
/// did ("poll task 7 on a: sends a -> b \"x\""), a fault by its name
/// ("reset b (fault injector)"), a loss by its message.
pub(crate) fn transition(
    story: &[Told],
    hosts: &[String],
    trace: &Trace,
    point: u64,
) -> Option<Line> {
    let step = trace.step_at(point)?;
    let words = Words::new(story, hosts);
    // The events run up to and including this point.
    let events = trace
        .positions()
        .iter()
        .zip(trace.steps())
        .take_while(|(&p, _)| p <= point)
        .filter(|(_, s)| matches!(s, Step::Pick { .. }))
        .count() as u64;
    // What the point did: the story between it and the next point.
    let after: Vec<&Told> = story.iter().filter(|t| t.point == point + 1).collect();
    let at = after
        .first()
        .map(|t| t.at)
        .or_else(|| {
            story
                .iter()
                .take_while(|t| t.point <= point + 1)
                .last()
                .map(|t| t.at)
        })
        .unwrap_or_default();
    let mut names = Vec::new();
    // The message a loss or duplication choice was about: the last sent
    // before it.
    let just_sent = || {
        story
            .iter()
            .take_while(|t| t.point <= point)
            .filter_map(|t| match t.what {
                Happening::Sent { packet, .. } => Some(packet),
                _ => None,
            })
            .last()
    };
    let mut effects_too = true;
    let main = match step {
        Step::Pick { event, .. } => match event {
            Event::Poll(id) => format!("poll {}", words.task(id)),
            Event::Deliver(p) => {
                names.extend(words.message_steps(p));
                format!("deliver {}", words.message(p))
            }
            Event::Advance => format!("time moves to {at:?}"),
            other => format!("{other:?}"),
        },
        Step::Choose { kind, index, of } => match tag(kind) {
            ChoiceTag::Fault => {
                effects_too = false;
                let group: Vec<Happening> = after.iter().map(|t| t.what.clone()).collect();
                let named: Vec<String> = group_words(&words, &group)
                    .into_iter()
                    .map(|(_, w)| w)
                    .collect();
                if named.is_empty() {
                    format!(
                        "the fault injector did nothing (the default of {} options)",
                        of
                    )
                } else if index == 0 {
                    named.join(", ")
                } else {
                    format!("{} ({})", named.join(", "), by(true))
                }
            }
            kind @ (ChoiceTag::Loss | ChoiceTag::Duplicate) => match just_sent() {
                Some(p) => {
                    names.extend(words.message_steps(p));
                    let verb = if kind == ChoiceTag::Loss {
                        "lose"
                    } else {
                        "duplicate"
                    };
                    if index == 0 {
                        format!("do not {verb} {}", words.message(p))
                    } else {
                        format!("{verb} {} (by chance)", words.message(p))
                    }
                }
                None => choice_words(kind, index, 2),
            },
            kind => choice_words(kind, index, of),
        },
    };
    let effects = if effects_too {
        effects(&words, &after, &mut names)
    } else {
        Vec::new()
    };
    let words = if effects.is_empty() {
        main
    } else {
        format!("{main}: {}", effects.join("; "))
    };
    Some(Line {
        step: events,
        at,
        words,
        names,
    })
}

/// What a step did, in words: messages sent, delivered or lost, timers
/// fired, links and hosts changed.
fn effects(words: &Words<'_>, after: &[&Told], names: &mut Vec<u64>) -> Vec<String> {
    const SHOWN: usize = 4;
    let mut out = Vec::new();
    let mut group: Vec<Happening> = Vec::new();
    let mut after_advance = false;
    for t in after {
        match &t.what {
            Happening::Sent { packet, .. } => {
                names.extend(words.message_steps(*packet));
                out.push(format!("sends {}", words.message(*packet)));
            }
            Happening::Lost { packet, why } => {
                names.extend(words.message_steps(*packet));
                out.push(match *why {
                    "partitioned" => format!("{} dropped by the partition", words.message(*packet)),
                    "lost by chance" => format!("{} lost by chance", words.message(*packet)),
                    why => format!("{} dropped: {why}", words.message(*packet)),
                });
            }
            Happening::Duplicated { packet, .. } => {
                out.push(format!("{} duplicated", words.message(*packet)));
            }
            Happening::Advanced => {
                after_advance = true;
                continue;
            }
            Happening::Woken { task, .. } if after_advance => {
                out.push(format!("the timer of {} fires", words.task(*task)));
                continue;
            }
            what @ (Happening::Link { .. }
            | Happening::Stopped { .. }
            | Happening::Started { .. }
            | Happening::Paused { .. }) => group.push(what.clone()),
            _ => {}
        }
        after_advance = false;
    }
    let injected = after.iter().any(|t| t.what == Happening::Injected);
    for (_, w) in group_words(words, &group) {
        out.push(format!("{w} ({})", by(injected)));
    }
    if out.len() > SHOWN {
        let more = out.len() - SHOWN;
        out.truncate(SHOWN);
        out.push(format!("and {more} more"));
    }
    out
}

#[cfg(test)]
mod tests {
    use sim_rt::runtime::{Happening, Told};
    use sim_rt::scheduler::__testing::host;

    use super::*;

    fn told(step: u64, what: Happening) -> Told {
        Told {
            step,
            point: step,
            at: Duration::from_millis(step),
            what,
        }
    }

    fn link(from: u32, to: u32, partitioned: bool) -> Happening {
        Happening::Link {
            from: host(from),
            to: host(to),
            partitioned,
        }
    }

    /// A partition the program made in a step where the injector then
    /// also partitioned is told as the program's, and the injector's as
    /// the injector's.
    #[test]
    fn the_programs_change_and_the_injectors_in_one_step_keep_their_authors() {
        let hosts = ["main", "a", "b", "c"].map(String::from);
        let story = [
            told(3, link(1, 2, true)),
            told(3, link(2, 1, true)),
            told(3, Happening::Injected),
            told(3, link(1, 3, true)),
            told(3, link(3, 1, true)),
        ];
        let words: Vec<String> = lines(&story, &hosts, &[], None)
            .into_iter()
            .map(|l| l.words)
            .collect();
        assert_eq!(
            words,
            [
                "partition a | b (the program)",
                "partition a | c (fault injector)"
            ],
            "{words:?}"
        );
    }
}
