//! Drawing a failure: a self-contained HTML page (one column per host,
//! time going down, polls, message arrows, faults, timers, the
//! non-default choices highlighted, the failure at the bottom; click an
//! event for its details and the log lines of its step), and the same
//! execution as a ShiViz log with vector clocks.
//!
//! Both are written under the target directory, in `sim-failures/`, when
//! a failure is reported; the report prints their paths. The page needs no
//! network: its script and styles are inline.
//!
//! # ShiViz
//!
//! The log is a sequence of events, two lines each, which ShiViz's default
//! parser expression reads:
//!
//! ```text
//! (?<event>.*)\n(?<host>\S*) (?<clock>{.*})
//! ```
//!
//! The clock is a JSON object from host names to counts; a host's own count
//! goes up by one at each of its events, a delivery merges the sender's
//! clock at the send. The file starts as ShiViz's "load a file" wants: the
//! expression on the first line, an empty executions delimiter on the
//! second.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sim_rt::runtime::{Happening, Step, Told, Trace};
use sim_rt::scheduler::{Event, HostId, PacketId};
use sim_rt::task::Id;

use crate::tell::Delayed;

/// Keeps every tracing call site's interest open for the telling runs'
/// [`Logs`]: a subscriber that records nothing and lives as long as the
/// process, registered before the first execution, so that no call site is
/// cached as "never" interesting. Without it, a call site first hit by a
/// search thread while no subscriber listened could stay "never" for a
/// telling run on another thread, rebuilt cache or not (seen with several
/// explorations in parallel: the picture lost its log lines). Costs a
/// thread-local lookup per event outside telling runs.
pub(crate) fn keep_interest() {
    struct Keeper;
    impl tracing::Subscriber for Keeper {
        fn register_callsite(
            &self,
            _: &'static tracing::Metadata<'static>,
        ) -> tracing::subscriber::Interest {
            tracing::subscriber::Interest::sometimes()
        }
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            false
        }
        fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
            Some(tracing::level_filters::LevelFilter::DEBUG)
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, _: &tracing::Event<'_>) {}
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }
    static KEEPER: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    KEEPER.get_or_init(|| tracing::Dispatch::new(Keeper));
}

/// The log lines of a run, with the step each was emitted at: a tracing
/// subscriber for the run that draws a failure.
#[derive(Clone, Default)]
pub(crate) struct Logs(Arc<Mutex<Vec<(u64, String)>>>);

impl Logs {
    pub(crate) fn take(&self) -> Vec<(u64, String)> {
        std::mem::take(&mut *self.0.lock().expect("not poisoned"))
    }
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?} ");
        } else {
            let _ = write!(self.0, "{}={value:?} ", field.name());
        }
    }
}

impl tracing::Subscriber for Logs {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::DEBUG
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if sim_rt::runtime::Handle::try_current().is_err() {
            return;
        }
        let step = sim_rt::sim::step();
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        let m = event.metadata();
        let line = format!("{} {}: {}", m.level(), m.target(), fields.0.trim_end());
        self.0.lock().expect("not poisoned").push((step, line));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Everything the drawing needs from the run that tells the failure.
pub(crate) struct Run<'a> {
    pub(crate) story: &'a [Told],
    pub(crate) hosts: &'a [String],
    pub(crate) delayed: &'a [Delayed],
    pub(crate) logs: &'a [(u64, String)],
    /// The full trace (forced steps included).
    pub(crate) trace: &'a Trace,
    /// The failure's report, and the step it failed at.
    pub(crate) failure: String,
    pub(crate) failed_at: u64,
    pub(crate) title: String,
}

/// ShiViz's default parser expression, as its documentation writes it
/// (the first line of a log file ShiViz loads).
pub(crate) const SHIVIZ_EXPRESSION: &str = r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})";

/// Where failure pictures go: `<target dir>/sim-failures`.
fn out_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            exe.ancestors()
                .find(|a| a.join("CACHEDIR.TAG").exists())
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(std::env::temp_dir);
    target.join("sim-failures")
}

/// Where a test's last failure is kept: `<target>/sim-failures/<test>.last`.
fn last_path(test: &str) -> PathBuf {
    out_dir().join(format!("{}.last", file_stem(test)))
}

/// Saves a failure of `test` (its token on the first line, then its
/// reproduce line) as the one `SIM_REPLAY=last` replays; its path.
pub(crate) fn save_last(test: &str, text: &str) -> Result<PathBuf, String> {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = last_path(test);
    write_whole(&path, text.as_bytes())?;
    Ok(path)
}

/// The token of `test`'s last saved failure.
pub(crate) fn load_last(test: &str) -> Result<String, String> {
    let path = last_path(test);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "SIM_REPLAY=last: no failure of {test} is saved ({}: {e}); run the test until it \
             fails, in this target directory, then replay it",
            path.display()
        )
    })?;
    text.lines()
        .next()
        .map(str::to_string)
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| format!("SIM_REPLAY=last: {} holds no token", path.display()))
}

/// A file name made of `name`: letters, digits and `-`, the rest `_`.
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes the page and the ShiViz log for `run` as `<name>.html` and
/// `<name>.shiviz.log`; their paths, or why not.
pub(crate) fn write(name: &str, run: &Run<'_>) -> Result<(PathBuf, PathBuf), String> {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let stem = file_stem(name);
    let model = Model::new(run);
    let html = dir.join(format!("{stem}.html"));
    let log = dir.join(format!("{stem}.shiviz.log"));
    write_whole(&html, model.html(run).as_bytes())?;
    write_whole(&log, model.shiviz(run).as_bytes())?;
    Ok((html, log))
}

/// Writes `path` whole: to a file of its own first, then renamed into
/// place, so that a reader (or another thread or process writing the same
/// failure's picture) never sees it half written.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.{n}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

/// One thing drawn.
#[derive(Debug, Clone)]
struct Mark {
    /// Row: the step it happened at (rows are steps, from 0).
    row: u64,
    host: usize,
    /// Class: poll, timer, send, lost, dup, fault, host, choice.
    class: &'static str,
    label: String,
    detail: String,
    /// A non-default choice of the schedule.
    chosen: bool,
}

#[derive(Debug, Clone)]
struct Arrow {
    packet: PacketId,
    from: usize,
    to: usize,
    sent_row: u64,
    /// Delivered at (`None`: lost or never).
    delivered_row: Option<u64>,
    lost: Option<&'static str>,
    label: String,
    detail: String,
}

struct Model {
    hosts: Vec<String>,
    marks: Vec<Mark>,
    arrows: Vec<Arrow>,
    /// Simulated time at each row where it changed.
    times: BTreeMap<u64, Duration>,
    rows: u64,
}

/// At most this many rows are drawn (the last ones, where the failure is).
const MAX_ROWS: u64 = 4_000;

impl Model {
    fn new(run: &Run<'_>) -> Model {
        let mut tasks: BTreeMap<Id, usize> = BTreeMap::new();
        let mut marks = Vec::new();
        let mut arrows: Vec<Arrow> = Vec::new();
        let mut index: BTreeMap<PacketId, usize> = BTreeMap::new();
        let mut times = BTreeMap::new();
        let host = |h: HostId| h.index();
        let name = |h: usize| run.hosts.get(h).map_or("?", String::as_str).to_string();
        let mut after_advance = false;
        let mut injected_row = None;
        for t in run.story {
            let row = t.step.saturating_sub(1);
            times.entry(row).or_insert(t.at);
            match &t.what {
                Happening::Spawned { task, host: h } => {
                    tasks.insert(*task, host(*h));
                }
                Happening::Sent {
                    packet,
                    from,
                    to,
                    kind,
                    bytes,
                    text,
                } => {
                    index.insert(*packet, arrows.len());
                    let label = if *bytes > 0 {
                        format!("{kind} \"{text}\"")
                    } else {
                        kind.to_string()
                    };
                    arrows.push(Arrow {
                        packet: *packet,
                        from: host(*from),
                        to: host(*to),
                        sent_row: row,
                        delivered_row: None,
                        lost: None,
                        detail: format!(
                            "{packet}: {} -> {}, {kind}, {bytes} bytes: \"{text}\"; sent at {:?} (step {})",
                            name(host(*from)),
                            name(host(*to)),
                            t.at,
                            t.step
                        ),
                        label,
                    });
                }
                Happening::Delivered { packet } => {
                    if let Some(&i) = index.get(packet) {
                        arrows[i].delivered_row = Some(row);
                        let _ = write!(
                            arrows[i].detail,
                            "; delivered at {:?} (step {})",
                            t.at, t.step
                        );
                    }
                }
                Happening::Lost { packet, why } => {
                    if let Some(&i) = index.get(packet) {
                        arrows[i].lost = Some(why);
                        let _ = write!(arrows[i].detail, "; {why} at {:?} (step {})", t.at, t.step);
                    }
                }
                Happening::Duplicated { packet, copy } => {
                    if let Some(&i) = index.get(packet) {
                        marks.push(Mark {
                            row,
                            host: arrows[i].from,
                            class: "dup",
                            label: "dup".into(),
                            detail: format!("{packet} duplicated as {copy}"),
                            chosen: true,
                        });
                    }
                }
                Happening::Injected => injected_row = Some(row),
                Happening::Link {
                    from,
                    to,
                    partitioned,
                } => {
                    let by = if injected_row == Some(row) {
                        "the fault injector"
                    } else {
                        "the program"
                    };
                    let verb = if *partitioned { "partition" } else { "heal" };
                    marks.push(Mark {
                        row,
                        host: host(*from),
                        class: if *partitioned { "fault" } else { "heal" },
                        label: format!("{verb} -> {}", name(host(*to))),
                        detail: format!(
                            "{verb} the link {} -> {} (by {by}) at {:?}",
                            name(host(*from)),
                            name(host(*to)),
                            t.at
                        ),
                        chosen: injected_row == Some(row),
                    });
                }
                Happening::Stopped { host: h } | Happening::Started { host: h } => {
                    let what = if matches!(t.what, Happening::Stopped { .. }) {
                        "stopped"
                    } else {
                        "started"
                    };
                    marks.push(Mark {
                        row,
                        host: host(*h),
                        class: "host",
                        label: what.into(),
                        detail: format!("host {} {what} at {:?}", name(host(*h)), t.at),
                        chosen: injected_row == Some(row),
                    });
                }
                Happening::Paused { host: h, paused } => marks.push(Mark {
                    row,
                    host: host(*h),
                    class: "host",
                    label: if *paused { "paused" } else { "resumed" }.into(),
                    detail: format!("host {} paused: {paused}", name(host(*h))),
                    chosen: false,
                }),
                Happening::Advanced => {
                    after_advance = true;
                    continue;
                }
                Happening::Woken { task, host: h } if after_advance => {
                    marks.push(Mark {
                        row,
                        host: host(*h),
                        class: "timer",
                        label: format!("timer: task {task}"),
                        detail: format!("a timer of task {task} fired at {:?}", t.at),
                        chosen: false,
                    });
                    continue;
                }
                Happening::Choice { kind, index: i, of } => marks.push(Mark {
                    row,
                    host: 0,
                    class: "choice",
                    label: if *kind
                        == (sim_rt::scheduler::ChoiceKind::Fault { probability: 0.0 }).code()
                    {
                        format!("fault injector: option {i} of {of}")
                    } else {
                        format!("data choice: option {i} of {of}")
                    },
                    detail: format!("data choice of kind {kind}: option {i} of {of}"),
                    chosen: true,
                }),
                _ => {}
            }
            after_advance = false;
        }
        // Polls and delays, from the trace's picks.
        let delayed: BTreeMap<u64, &Delayed> =
            run.delayed.iter().map(|d| (u64::from(d.0), d)).collect();
        let mut row = 0u64;
        for (point, step) in run.trace.positions().iter().zip(run.trace.steps()) {
            let Step::Pick { event, .. } = step else {
                continue;
            };
            if let Event::Poll(task) = event {
                let h = tasks.get(task).copied().unwrap_or(0);
                let (chosen, detail) = match delayed.get(point) {
                    Some((_, Some(d), _)) => (true, format!("; ran instead of {d:?} (a delay)")),
                    Some(_) => (true, "; a delay".to_string()),
                    None => (false, String::new()),
                };
                marks.push(Mark {
                    row,
                    host: h,
                    class: "poll",
                    label: format!("task {task}"),
                    detail: format!(
                        "poll of task {task} on {} (step {}){detail}",
                        name(h),
                        row + 1
                    ),
                    chosen,
                });
            } else if let Some(d) = delayed.get(point) {
                marks.push(Mark {
                    row,
                    host: 0,
                    class: "choice",
                    label: "delay".into(),
                    detail: format!("{:?} ran instead of {:?} (a delay)", d.2, d.1),
                    chosen: true,
                });
            }
            row += 1;
        }
        let rows = row.max(run.failed_at).max(1);
        Model {
            hosts: run.hosts.to_vec(),
            marks,
            arrows,
            times,
            rows,
        }
    }

    /// The ShiViz log: sends, deliveries, losses, faults, timers and host
    /// changes, with vector clocks.
    fn shiviz(&self, run: &Run<'_>) -> String {
        // Events in row order: (row, order, host, text, Some(send clock source)).
        enum Kind {
            Local,
            Send(PacketId),
            Receive(PacketId),
        }
        let mut events: Vec<(u64, usize, usize, String, Kind)> = Vec::new();
        for (i, a) in self.arrows.iter().enumerate() {
            events.push((
                a.sent_row,
                2 * i,
                a.from,
                format!("send {}", a.detail),
                Kind::Send(a.packet),
            ));
            if let Some(r) = a.delivered_row {
                events.push((
                    r,
                    2 * i + 1,
                    a.to,
                    format!("receive {}", a.packet),
                    Kind::Receive(a.packet),
                ));
            }
        }
        let base = 2 * self.arrows.len();
        for (i, m) in self.marks.iter().enumerate() {
            if m.class != "poll" {
                events.push((m.row, base + i, m.host, m.detail.clone(), Kind::Local));
            }
        }
        events.push((
            self.rows,
            usize::MAX,
            0,
            format!("failure: {}", first_line(&run.failure)),
            Kind::Local,
        ));
        events.sort_by_key(|e| (e.0, e.1));
        let n = self.hosts.len();
        let mut clocks = vec![vec![0u64; n]; n];
        let mut at_send: BTreeMap<PacketId, Vec<u64>> = BTreeMap::new();
        // ShiViz's file format: the parser expression, the executions'
        // delimiter (none), then the log.
        let mut out = format!("{SHIVIZ_EXPRESSION}\n\n");
        for (_, _, h, text, kind) in events {
            if h >= n {
                continue;
            }
            if let Kind::Receive(p) = kind {
                if let Some(sent) = at_send.get(&p) {
                    for (c, s) in clocks[h].iter_mut().zip(sent) {
                        *c = (*c).max(*s);
                    }
                }
            }
            clocks[h][h] += 1;
            if let Kind::Send(p) = kind {
                at_send.insert(p, clocks[h].clone());
            }
            let clock: Vec<String> = clocks[h]
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c > 0)
                .map(|(i, c)| format!("{}:{c}", json(&shiviz_host(&self.hosts[i]))))
                .collect();
            let _ = writeln!(
                out,
                "{}\n{} {{{}}}",
                text.replace('\n', " "),
                shiviz_host(&self.hosts[h]),
                clock.join(", ")
            );
        }
        out
    }

    fn html(&self, run: &Run<'_>) -> String {
        const COL: u64 = 170;
        const ROW: u64 = 16;
        const TOP: u64 = 40;
        const LEFT: u64 = 90;
        let first = self.rows.saturating_sub(MAX_ROWS);
        let y = |row: u64| TOP + (row.saturating_sub(first)) * ROW + ROW / 2;
        let x = |h: usize| LEFT + h as u64 * COL + COL / 2;
        let width = LEFT + self.hosts.len() as u64 * COL + 20;
        let height = y(self.rows) + 3 * ROW;
        let mut details: Vec<(String, u64)> = Vec::new();
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" id="picture">"#
        );
        svg.push_str(
            r##"<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#3465a4"/></marker></defs>"##,
        );
        // Host columns.
        for (i, h) in self.hosts.iter().enumerate() {
            let _ = writeln!(
                svg,
                r#"<g class="host-column" data-host="{}"><text x="{}" y="20" text-anchor="middle" class="host-name">{}</text><line x1="{}" y1="{TOP}" x2="{}" y2="{}" class="lifeline"/></g>"#,
                html(h),
                x(i),
                html(h),
                x(i),
                x(i),
                y(self.rows)
            );
        }
        // Time labels.
        let mut last = None;
        for (&row, &at) in &self.times {
            if row < first || last == Some(at) {
                continue;
            }
            last = Some(at);
            let _ = writeln!(
                svg,
                r#"<text x="4" y="{}" class="time">{:?}</text>"#,
                y(row) + 4,
                at
            );
        }
        // Highlighted rows: the schedule's non-default choices.
        for m in self.marks.iter().filter(|m| m.chosen && m.row >= first) {
            let _ = writeln!(
                svg,
                r#"<rect x="{LEFT}" y="{}" width="{}" height="{ROW}" class="chosen-row"/>"#,
                y(m.row) - ROW / 2,
                width - LEFT
            );
        }
        // Arrows.
        for a in self.arrows.iter().filter(|a| a.sent_row >= first) {
            let i = details.len();
            details.push((a.detail.clone(), a.sent_row));
            let (x1, y1) = (x(a.from), y(a.sent_row));
            let (x2, y2, class) = match (a.delivered_row, a.lost) {
                (Some(r), _) => (x(a.to), y(r), "message"),
                (None, Some(_)) => ((x(a.from) + x(a.to)) / 2, y1 + ROW, "message lost"),
                (None, None) => ((x(a.from) + x(a.to)) / 2, y1 + ROW, "message undelivered"),
            };
            let _ = writeln!(
                svg,
                r#"<g class="{class}" data-i="{i}"><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" marker-end="url(#head)"/><title>{}</title></g>"#,
                html(&a.label)
            );
            if class != "message" {
                let _ = writeln!(
                    svg,
                    r#"<text x="{x2}" y="{}" class="cross" data-i="{i}">x</text>"#,
                    y2 + 4
                );
            }
        }
        // Marks.
        for m in self.marks.iter().filter(|m| m.row >= first) {
            let i = details.len();
            details.push((m.detail.clone(), m.row));
            let (cx, cy) = (x(m.host), y(m.row));
            let shape = match m.class {
                "poll" => format!(r#"<circle cx="{cx}" cy="{cy}" r="3"/>"#),
                "timer" => format!(
                    r#"<rect x="{}" y="{}" width="8" height="8" transform="rotate(45 {cx} {cy})"/>"#,
                    cx - 4,
                    cy - 4
                ),
                _ => format!(
                    r#"<rect x="{}" y="{}" width="10" height="10"/><text x="{}" y="{}" class="label">{}</text>"#,
                    cx - 5,
                    cy - 5,
                    cx + 8,
                    cy + 4,
                    html(&m.label)
                ),
            };
            let chosen = if m.chosen { " chosen" } else { "" };
            let _ = writeln!(
                svg,
                r#"<g class="mark {}{chosen}" data-i="{i}">{shape}<title>{}</title></g>"#,
                m.class,
                html(&m.label)
            );
        }
        // The failure, at the bottom.
        let i = details.len();
        details.push((run.failure.clone(), self.rows));
        let _ = writeln!(
            svg,
            r#"<g class="failure" data-i="{i}"><rect x="{LEFT}" y="{}" width="{}" height="{}"/><text x="{}" y="{}">step {}: {}</text></g>"#,
            y(self.rows) - ROW / 2,
            width - LEFT,
            ROW + 6,
            LEFT + 6,
            y(self.rows) + 6,
            run.failed_at,
            html(&first_line(&run.failure))
        );
        svg.push_str("</svg>\n");
        // Log lines by row, for the details panel.
        let mut logs: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
        for (step, line) in run.logs {
            logs.entry(step.saturating_sub(1)).or_default().push(line);
        }
        let data: Vec<String> = details
            .iter()
            .map(|(d, row)| {
                let lines: Vec<String> = logs
                    .get(row)
                    .map(|l| l.iter().map(|s| json(s)).collect())
                    .unwrap_or_default();
                format!(
                    "{{\"text\":{},\"step\":{},\"logs\":[{}]}}",
                    json(d),
                    row + 1,
                    lines.join(",")
                )
            })
            .collect();
        let mut page = String::new();
        let _ = write!(
            page,
            r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 12px sans-serif; margin: 0; overflow: hidden; }}
header {{ position: absolute; top: 0; left: 0; right: 0; height: 48px; padding: 6px 12px; box-sizing: border-box; background: #eee; overflow: hidden; }}
#details {{ position: absolute; right: 0; top: 48px; bottom: 0; width: 30%; overflow: auto; background: #fafafa; border-left: 1px solid #ccc; padding: 8px; box-sizing: border-box; white-space: pre-wrap; }}
#main {{ position: absolute; left: 0; top: 48px; bottom: 0; right: 30%; overflow: auto; }}
.host-name {{ font-weight: bold; }}
#hosts {{ position: sticky; top: 0; height: 18px; background: rgba(255, 255, 255, 0.9); z-index: 1; }}
#hosts span {{ position: absolute; top: 2px; transform: translateX(-50%); font-weight: bold; }}
.lifeline {{ stroke: #bbb; stroke-width: 1; }}
.time {{ fill: #666; font-size: 10px; }}
.chosen-row {{ fill: #fff3b0; }}
.message line {{ stroke: #3465a4; stroke-width: 1.2; }}
.message.lost line, .message.undelivered line {{ stroke: #cc0000; stroke-dasharray: 4 2; }}
.cross {{ fill: #cc0000; font-weight: bold; }}
.mark circle {{ fill: #555; }}
.mark.timer rect {{ fill: #c17d11; }}
.mark.fault rect, .mark.host rect {{ fill: #cc0000; }}
.mark.heal rect {{ fill: #4e9a06; }}
.mark.dup rect, .mark.choice rect {{ fill: #75507b; }}
.mark.chosen circle, .mark.chosen rect {{ stroke: #f57900; stroke-width: 3; }}
.label {{ font-size: 10px; }}
.failure rect {{ fill: #f8d7da; stroke: #cc0000; }}
[data-i] {{ cursor: pointer; }}
</style></head><body>
<header><b>{title}</b>: one column per host, time going down; circles are polls, diamonds timers firing, squares faults and host changes; highlighted rows are the schedule's non-default choices. Click anything for its details.</header>
<div id="details">Click an event.</div>
<div id="main">
<div id="hosts" style="width: {width}px">{names}</div>
{svg}</div>
<script type="application/json" id="events">[{data}]</script>
<script>
(function () {{
  var events = JSON.parse(document.getElementById("events").textContent);
  var panel = document.getElementById("details");
  document.getElementById("picture").addEventListener("click", function (e) {{
    var el = e.target.closest("[data-i]");
    if (!el) {{ return; }}
    var ev = events[Number(el.getAttribute("data-i"))];
    var text = "step " + ev.step + "\n\n" + ev.text;
    if (ev.logs.length) {{ text += "\n\nlog lines of this step:\n" + ev.logs.join("\n"); }}
    panel.textContent = text;
  }});
  // Start at the first non-default choice.
  var first = document.querySelector(".chosen-row");
  if (first) {{
    var main = document.getElementById("main");
    main.scrollTop = Math.max(0, first.getBoundingClientRect().top - main.getBoundingClientRect().top - main.clientHeight / 3);
  }}
  document.body.setAttribute("data-ready", String(events.length));
  // ?selftest: click the first event and say whether its details showed.
  if (location.search.indexOf("selftest") >= 0) {{
    var target = document.querySelector("g[data-i]");
    target.dispatchEvent(new MouseEvent("click", {{ bubbles: true }}));
    var ok = panel.textContent.indexOf("step ") === 0;
    document.body.setAttribute("data-selftest", ok ? "ok" : "failed");
  }}
}})();
</script>
</body></html>
"#,
            title = html(&run.title),
            data = data.join(","),
            names = self
                .hosts
                .iter()
                .enumerate()
                .map(|(i, h)| format!(r#"<span style="left: {}px">{}</span>"#, x(i), html(h)))
                .collect::<String>(),
        );
        page
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// A host name as ShiViz's `\S*` reads it.
fn shiviz_host(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

/// `s` as a JSON string.
fn json(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '<' => out.push_str("\\u003c"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` escaped for HTML text and attributes.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_failure_is_saved_and_loaded_and_its_absence_explained() {
        let test = "picture::tests::saved failure (unit test)";
        let path = save_last(test, "sr1token\nSIM_REPLAY=sr1token cargo test").unwrap();
        assert!(
            path.ends_with("picture__tests__saved_failure__unit_test_.last"),
            "{path:?}"
        );
        assert_eq!(load_last(test).unwrap(), "sr1token");
        let missing = load_last("no test of this name has failed").unwrap_err();
        assert!(
            missing.contains("no failure of no test of this name has failed is saved"),
            "{missing}"
        );
        assert!(missing.contains("run the test until it fails"), "{missing}");
    }

    #[test]
    fn escapes() {
        assert_eq!(json("a\"b\n</script>"), r#""a\"b\n\u003c/script>""#);
        assert_eq!(html("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(shiviz_host("my host"), "my_host");
    }
}
