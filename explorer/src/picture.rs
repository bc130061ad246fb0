//! Drawing a failure: a self-contained HTML page, and the same execution
//! as a ShiViz log with vector clocks.
//!
//! The page opens with the failure, the line that reproduces it and the
//! story in words ([`crate::tell`]), a liveness failure's critical
//! transition among its lines; each line links to its step. Below, the
//! execution: one column per host under a single row of host names, time
//! going down, a row per step numbered as the story numbers them; polls,
//! message arrows labelled with the message's summary, faults by name
//! ("partition a | b", "lose a -> b \"x\""), timers, the schedule's
//! non-default choices highlighted, the failure at the bottom. Click
//! anything for its details and the log lines of its step.
//!
//! Two views of the same drawing: folded (the default), which shows only
//! the steps the story names (its lines' steps, the sends and deliveries
//! of the messages they name, the failure's), each with a step of context,
//! and folds every other run of steps into one row; and every step (at
//! most the last [`MAX_ROWS`]). A fold opens the view of every step
//! there. Folded, a failure of any length takes a few rows per line of
//! its story.
//!
//! Both files are written under the target directory, in
//! `sim-failures/`, when a failure is reported; the report prints their
//! paths. The page needs no network: its script and styles are inline.
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
use std::time::Duration;

use sim_rt::runtime::{Happening, Step, Told, Trace};
use sim_rt::scheduler::{Event, HostId, PacketId};

use crate::tell::{Delayed, Line, Words};

/// Everything the drawing needs from the run that tells the failure.
pub(crate) struct Run<'a> {
    pub(crate) story: &'a [Told],
    pub(crate) hosts: &'a [String],
    pub(crate) delayed: &'a [Delayed],
    pub(crate) logs: &'a [(u64, String)],
    /// The full trace (forced steps included).
    pub(crate) trace: &'a Trace,
    /// The story in words, every line of it.
    pub(crate) lines: &'a [Line],
    /// A liveness failure's critical transition, as a line.
    pub(crate) critical: Option<Line>,
    /// The failure's report, and the step it failed at.
    pub(crate) failure: String,
    pub(crate) failed_at: u64,
    /// The command that replays it.
    pub(crate) reproduce: String,
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
    let words = Words::new(run.story, run.hosts);
    let model = Model::new(run, &words);
    let html = dir.join(format!("{stem}.html"));
    let log = dir.join(format!("{stem}.shiviz.log"));
    write_whole(&html, model.html(run).as_bytes())?;
    write_whole(&log, model.shiviz(run, &words).as_bytes())?;
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
    /// Row: the step it happened at, less one (rows are steps, from 0).
    row: u64,
    host: usize,
    /// Class: poll, timer, fault, heal, dup, choice.
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
    lost: bool,
    /// The message's summary ("\"GET alice\"", "SYN").
    label: String,
    detail: String,
}

struct Model {
    hosts: Vec<String>,
    marks: Vec<Mark>,
    arrows: Vec<Arrow>,
    /// Simulated time at each row where something was told.
    times: BTreeMap<u64, Duration>,
    /// The failure's row: after the last step's.
    rows: u64,
    /// The rows of the steps the story names.
    named: std::collections::BTreeSet<u64>,
}

/// Rows shown around each named one in the folded view.
const CONTEXT: usize = 1;
/// The fewest rows a fold hides.
const MIN_FOLD: usize = 3;

/// At most this many rows are drawn in the view of every step (the last
/// ones, where the failure is; the rest are one fold).
const MAX_ROWS: u64 = 4_000;

/// The rows the folded view shows, of `rows` and the failure's row after
/// them: the `named` ones and their neighbours; a run of fewer than
/// [`MIN_FOLD`] other rows is shown too, since its fold would take as much
/// room.
fn folded_rows(rows: u64, named: &std::collections::BTreeSet<u64>) -> Vec<bool> {
    let n = rows as usize;
    let mut shown = vec![false; n + 1];
    shown[n] = true;
    for &r in named {
        let r = r as usize;
        for s in shown
            .iter_mut()
            .take((r + CONTEXT + 1).min(n))
            .skip(r.saturating_sub(CONTEXT))
        {
            *s = true;
        }
    }
    let mut run = 0;
    for r in 0..=n {
        if !shown[r] {
            run += 1;
            continue;
        }
        if run > 0 && run < MIN_FOLD {
            shown[r - run..r].iter_mut().for_each(|s| *s = true);
        }
        run = 0;
    }
    shown
}

/// The row of step `step` (steps count from 1; step 0, before the first
/// event, shares the first row).
fn row_of(step: u64) -> u64 {
    step.saturating_sub(1)
}

/// The step of row `row`.
fn step_of(row: u64) -> u64 {
    row + 1
}

impl Model {
    fn new(run: &Run<'_>, words: &Words<'_>) -> Model {
        // The rows, the named ones, and which rows either view draws: a
        // poll on a row neither draws gets no mark (a run of millions of
        // steps would otherwise write a detail for each into the page).
        let picks = run
            .trace
            .steps()
            .iter()
            .filter(|s| matches!(s, Step::Pick { .. }))
            .count() as u64;
        let rows = picks.max(run.failed_at).max(1);
        let mut named: std::collections::BTreeSet<u64> = run
            .lines
            .iter()
            .chain(&run.critical)
            .flat_map(|l| std::iter::once(l.step).chain(l.names.iter().copied()))
            .map(row_of)
            .filter(|&r| r < rows)
            .collect();
        named.insert(row_of(run.failed_at).min(rows - 1));
        let folded = folded_rows(rows, &named);
        let first_full = rows.saturating_sub(MAX_ROWS);
        let drawn = |row: u64| row >= first_full || folded[row as usize];
        let mut marks = Vec::new();
        let mut arrows: Vec<Arrow> = Vec::new();
        let mut index: BTreeMap<PacketId, usize> = BTreeMap::new();
        let mut times = BTreeMap::new();
        let host = |h: HostId| h.index();
        // What each row's pick ran, and the picks the explorer delayed.
        let delayed: BTreeMap<u64, &Delayed> =
            run.delayed.iter().map(|d| (u64::from(d.0), d)).collect();
        let mut picked: Vec<Event> = Vec::new();
        for (point, step) in run.trace.positions().iter().zip(run.trace.steps()) {
            let Step::Pick { event, .. } = step else {
                continue;
            };
            let row = picked.len() as u64;
            picked.push(*event);
            let d = delayed.get(point);
            let instead = match d {
                Some((_, Some(d), _)) => format!("; ran instead of {} (a delay)", words.event(d)),
                Some(_) => "; a delay".to_string(),
                None => String::new(),
            };
            match event {
                Event::Poll(_) if !drawn(row) => {}
                Event::Poll(task) => marks.push(Mark {
                    row,
                    host: words.task_host(*task).map_or(0, host),
                    class: "poll",
                    label: words.task(*task),
                    detail: format!("poll {}{instead}", words.task(*task)),
                    chosen: d.is_some(),
                }),
                _ if d.is_some() => marks.push(Mark {
                    row,
                    host: match event {
                        Event::Deliver(p) => words.packet(*p).map_or(0, |p| host(p.to)),
                        _ => 0,
                    },
                    class: "choice",
                    label: "delay".into(),
                    detail: format!("{}{instead}", words.event(event)),
                    chosen: true,
                }),
                _ => {}
            }
        }
        // The host a data choice was made on: the polled task's.
        let choice_host = |row: u64| match picked.get(row as usize) {
            Some(Event::Poll(task)) => words.task_host(*task).map_or(0, host),
            _ => 0,
        };
        let mut after_advance = false;
        let mut injected_row = None;
        // The link and host changes of one row, drawn as named faults.
        let mut group: Vec<Happening> = Vec::new();
        let mut group_row = 0;
        let flush =
            |group: &mut Vec<Happening>, row: u64, injected: bool, marks: &mut Vec<Mark>| {
                for (h, name) in crate::tell::group_words(words, group) {
                    let heals = name.starts_with("heal")
                        || name.starts_with("start")
                        || name.starts_with("resume");
                    marks.push(Mark {
                        row,
                        host: host(h),
                        class: if heals { "heal" } else { "fault" },
                        detail: format!("{name} ({})", crate::tell::by(injected)),
                        label: name,
                        chosen: injected,
                    });
                }
                group.clear();
            };
        for t in run.story {
            let row = row_of(t.step);
            times.entry(row).or_insert(t.at);
            if !group.is_empty() && row != group_row {
                flush(
                    &mut group,
                    group_row,
                    injected_row == Some(group_row),
                    &mut marks,
                );
            }
            match &t.what {
                Happening::Sent {
                    packet,
                    from,
                    to,
                    kind,
                    bytes,
                    ..
                } => {
                    index.insert(*packet, arrows.len());
                    arrows.push(Arrow {
                        packet: *packet,
                        from: host(*from),
                        to: host(*to),
                        sent_row: row,
                        delivered_row: None,
                        lost: false,
                        label: words.summary(*packet),
                        detail: format!(
                            "{}: {kind}, {bytes} bytes; sent at {:?} (step {})",
                            words.message(*packet),
                            t.at,
                            t.step
                        ),
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
                        arrows[i].lost = true;
                        let _ = write!(arrows[i].detail, "; {why} at {:?} (step {})", t.at, t.step);
                        if *why == "lost by chance" {
                            marks.push(Mark {
                                row,
                                host: arrows[i].from,
                                class: "fault",
                                label: "lose".into(),
                                detail: format!("lose {} (by chance)", words.message(*packet)),
                                chosen: true,
                            });
                        }
                    }
                }
                Happening::Duplicated { packet, copy } => {
                    if let Some(&i) = index.get(packet) {
                        marks.push(Mark {
                            row,
                            host: arrows[i].from,
                            class: "dup",
                            label: "duplicate".into(),
                            detail: format!("duplicate {} (by chance)", words.message(*packet)),
                            chosen: true,
                        });
                        index.insert(*copy, arrows.len());
                        let copy = Arrow {
                            packet: *copy,
                            sent_row: row,
                            delivered_row: None,
                            lost: false,
                            detail: format!(
                                "a duplicate of {}, made at {:?} (step {})",
                                words.message(*packet),
                                t.at,
                                t.step
                            ),
                            ..arrows[i].clone()
                        };
                        arrows.push(copy);
                    }
                }
                Happening::Injected => {
                    // The injector's effects follow; what the row changed
                    // before them, the program did.
                    if injected_row != Some(row) {
                        flush(&mut group, group_row, false, &mut marks);
                    }
                    injected_row = Some(row);
                }
                what @ (Happening::Link { .. }
                | Happening::Stopped { .. }
                | Happening::Started { .. }
                | Happening::Paused { .. }) => {
                    group_row = row;
                    group.push(what.clone());
                }
                Happening::Advanced => {
                    after_advance = true;
                    continue;
                }
                Happening::Woken { task, host: h } if after_advance => {
                    marks.push(Mark {
                        row,
                        host: host(*h),
                        class: "timer",
                        label: format!("timer of task {task}"),
                        detail: format!("the timer of {} fired at {:?}", words.task(*task), t.at),
                        chosen: false,
                    });
                    continue;
                }
                Happening::Choice { kind, index: i, of } => {
                    let kind = crate::tell::tag(*kind);
                    if !crate::tell::told_by_effects(kind) {
                        let words = crate::tell::choice_words(kind, *i, *of);
                        marks.push(Mark {
                            row,
                            host: choice_host(row),
                            class: "choice",
                            label: words.clone(),
                            detail: words,
                            chosen: true,
                        });
                    }
                }
                _ => {}
            }
            after_advance = false;
        }
        flush(
            &mut group,
            group_row,
            injected_row == Some(group_row),
            &mut marks,
        );
        debug_assert_eq!(picked.len() as u64, picks);
        Model {
            hosts: run.hosts.to_vec(),
            marks,
            arrows,
            times,
            rows,
            named,
        }
    }

    /// The ShiViz log: sends, deliveries, losses, faults, timers and host
    /// changes, with vector clocks.
    fn shiviz(&self, run: &Run<'_>, words: &Words<'_>) -> String {
        // Events in row order: (row, order, host, text, kind).
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
                    format!("receive {} (step {})", words.message(a.packet), step_of(r)),
                    Kind::Receive(a.packet),
                ));
            }
        }
        let base = 2 * self.arrows.len();
        for (i, m) in self.marks.iter().enumerate() {
            if m.class != "poll" {
                events.push((
                    m.row,
                    base + i,
                    m.host,
                    format!("{} (step {})", m.detail, step_of(m.row)),
                    Kind::Local,
                ));
            }
        }
        events.push((
            self.rows,
            usize::MAX,
            0,
            format!(
                "failure at step {}: {}",
                run.failed_at,
                first_line(&run.failure)
            ),
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
}

/// Where each row is drawn in one view of the page: shown rows one after
/// the other, each run of hidden rows as one fold.
struct Layout {
    /// The y of each row's centre (`rows + 1` of them: the failure's row
    /// last); a hidden row has its fold's.
    y: Vec<u64>,
    shown: Vec<bool>,
    /// Folds: first and last row hidden, and y.
    folds: Vec<(u64, u64, u64)>,
    height: u64,
}

const COL: u64 = 170;
const ROW: u64 = 16;
const TOP: u64 = 6;
const LEFT: u64 = 110;
/// Room for the failure's line, however few the hosts.
const MIN_WIDTH: u64 = 720;

impl Layout {
    fn new(rows: u64, shown: impl Fn(u64) -> bool) -> Layout {
        let mut layout = Layout {
            y: Vec::with_capacity(rows as usize + 1),
            shown: Vec::with_capacity(rows as usize + 1),
            folds: Vec::new(),
            height: 0,
        };
        let mut slots = 0u64;
        let centre = |slot: u64| TOP + slot * ROW + ROW / 2;
        for row in 0..=rows {
            let show = row == rows || shown(row);
            if show {
                slots += 1;
            } else {
                match layout.folds.last_mut() {
                    Some(f) if f.1 + 1 == row => f.1 = row,
                    _ => {
                        slots += 1;
                        layout.folds.push((row, row, centre(slots - 1)));
                    }
                }
            }
            layout.y.push(centre(slots - 1));
            layout.shown.push(show);
        }
        layout.height = TOP + slots * ROW + 2 * ROW;
        layout
    }

    fn y(&self, row: u64) -> u64 {
        self.y[row.min(self.y.len() as u64 - 1) as usize]
    }

    fn shown(&self, row: u64) -> bool {
        self.shown.get(row as usize).copied().unwrap_or(false)
    }
}

fn x(h: usize) -> u64 {
    LEFT + h as u64 * COL + COL / 2
}

/// What the details panel shows for one thing drawn or told.
struct Detail {
    text: String,
    step: u64,
}

impl Model {
    fn width(&self) -> u64 {
        (LEFT + self.hosts.len() as u64 * COL + 20).max(MIN_WIDTH)
    }

    /// The rows the folded view shows (see [`folded_rows`]).
    fn folded(&self) -> Vec<bool> {
        folded_rows(self.rows, &self.named)
    }

    /// One view: `id` "folded" or "full". Things drawn carry `data-i`, the
    /// index of their [`Detail`]: arrows first, then marks, then the
    /// failure.
    fn svg(&self, run: &Run<'_>, layout: &Layout, id: &str) -> String {
        let width = self.width();
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{}" id="{id}" class="view">"#,
            layout.height
        );
        let _ = writeln!(
            svg,
            r##"<defs><marker id="head-{id}" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#3465a4"/></marker></defs>"##
        );
        // Named rows and the schedule's non-default choices, highlighted.
        for &row in self.named.iter().filter(|&&r| layout.shown(r)) {
            let _ = writeln!(
                svg,
                r#"<rect x="0" y="{}" width="{width}" height="{ROW}" class="named-row" data-step="{}"/>"#,
                layout.y(row) - ROW / 2,
                step_of(row)
            );
        }
        let mut chosen: Vec<u64> = self
            .marks
            .iter()
            .filter(|m| m.chosen && layout.shown(m.row))
            .map(|m| m.row)
            .collect();
        chosen.dedup();
        for row in chosen {
            let _ = writeln!(
                svg,
                r#"<rect x="{LEFT}" y="{}" width="{}" height="{ROW}" class="chosen-row"/>"#,
                layout.y(row) - ROW / 2,
                width - LEFT
            );
        }
        // Host lifelines (their names are the page's one header row).
        for (i, h) in self.hosts.iter().enumerate() {
            let _ = writeln!(
                svg,
                r#"<g class="host-column" data-host="{}"><line x1="{}" y1="{TOP}" x2="{}" y2="{}" class="lifeline"/></g>"#,
                html(h),
                x(i),
                x(i),
                layout.y(self.rows)
            );
        }
        // Folds: a click shows every step there.
        for &(first, last, y) in &layout.folds {
            let (from, to) = (
                self.times.range(..=first).next_back().map(|t| *t.1),
                self.times.range(..=last).next_back().map(|t| *t.1),
            );
            let when = match (from, to) {
                (Some(a), Some(b)) if a != b => format!(", {a:?} to {b:?}"),
                (Some(a), _) => format!(", at {a:?}"),
                _ => String::new(),
            };
            let n = last - first + 1;
            let _ = writeln!(
                svg,
                r#"<g class="fold" data-row="{first}"><rect x="0" y="{}" width="{width}" height="{ROW}"/><text x="{}" y="{}">{} step{} folded (steps {} to {}{when})</text><title>Nothing the story names happened in these steps: click to show every step</title></g>"#,
                y - ROW / 2 + 2,
                LEFT + 6,
                y + 4,
                n,
                if n == 1 { "" } else { "s" },
                step_of(first),
                step_of(last),
            );
        }
        // Step numbers and times at the left.
        let mut last = None;
        for row in (0..self.rows).filter(|&r| layout.shown(r)) {
            let y = layout.y(row);
            let _ = writeln!(
                svg,
                r#"<text x="4" y="{}" class="stepno">{}</text>"#,
                y + 4,
                step_of(row)
            );
            if let Some((_, &at)) = self.times.range(..=row).next_back() {
                if last != Some(at) {
                    last = Some(at);
                    let _ = writeln!(
                        svg,
                        r#"<text x="46" y="{}" class="time">{at:?}</text>"#,
                        y + 4
                    );
                }
            }
        }
        // Arrows, labelled with their message's summary: those whose ends
        // are both shown (a fold hides the others; the story's messages
        // have both ends named).
        for (i, a) in self.arrows.iter().enumerate() {
            let ends = [Some(a.sent_row), a.delivered_row];
            if !ends.iter().flatten().all(|&r| layout.shown(r)) {
                continue;
            }
            let (x1, y1) = (x(a.from), layout.y(a.sent_row));
            let (x2, y2, class) = match (a.delivered_row, a.lost) {
                (Some(r), _) => (x(a.to), layout.y(r).max(y1), "message"),
                (None, true) => ((x(a.from) + x(a.to)) / 2, y1 + ROW, "message lost"),
                (None, false) => ((x(a.from) + x(a.to)) / 2, y1 + ROW, "message undelivered"),
            };
            // Along a delivered arrow; past the cross of one that was not
            // (a short arrow, whose start a fault's mark may cover).
            let (lx, ly) = if class == "message" {
                ((3 * x1 + x2) / 4, (3 * y1 + y2) / 4)
            } else {
                (x2 + 10 + 3 * a.label.len() as u64, y2 + 7)
            };
            let _ = writeln!(
                svg,
                r#"<g class="{class}" data-i="{i}"><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" marker-end="url(#head-{id})"/><text x="{lx}" y="{}" text-anchor="middle" class="msg-label">{}</text><title>{}</title></g>"#,
                ly.saturating_sub(3),
                html(&a.label),
                html(&a.detail)
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
        let base = self.arrows.len();
        for (j, m) in self.marks.iter().enumerate() {
            if !layout.shown(m.row) {
                continue;
            }
            let (cx, cy) = (x(m.host), layout.y(m.row));
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
                r#"<g class="mark {}{chosen}" data-i="{}">{shape}<title>{}</title></g>"#,
                m.class,
                base + j,
                html(&m.label)
            );
        }
        // The failure, at the bottom.
        let y = layout.y(self.rows);
        let _ = writeln!(
            svg,
            r#"<g class="failure" data-i="{}"><rect x="{LEFT}" y="{}" width="{}" height="{}"/><text x="{}" y="{}">step {}: {}</text></g>"#,
            base + self.marks.len(),
            y - ROW / 2,
            width - LEFT,
            ROW + 6,
            LEFT + 6,
            y + 6,
            run.failed_at,
            html(&first_line(&run.failure))
        );
        svg.push_str("</svg>\n");
        svg
    }

    fn html(&self, run: &Run<'_>) -> String {
        let first = self.rows.saturating_sub(MAX_ROWS);
        let full = Layout::new(self.rows, |r| r >= first);
        let folded = self.folded();
        let folded = Layout::new(self.rows, |r| folded[r as usize]);
        // Details: arrows, marks, the failure, then the story's lines.
        let mut details: Vec<Detail> = Vec::new();
        for a in &self.arrows {
            details.push(Detail {
                text: a.detail.clone(),
                step: step_of(a.sent_row),
            });
        }
        for m in &self.marks {
            details.push(Detail {
                text: m.detail.clone(),
                step: step_of(m.row),
            });
        }
        details.push(Detail {
            text: run.failure.clone(),
            step: run.failed_at,
        });
        let told = details.len();
        let mut lines: Vec<&Line> = run.lines.iter().chain(&run.critical).collect();
        lines.sort_by_key(|l| l.step);
        for l in &lines {
            details.push(Detail {
                text: l.to_string(),
                step: l.step,
            });
        }
        let story: String = lines
            .iter()
            .enumerate()
            .map(|(k, l)| {
                format!(
                    r##"<li><a href="#" data-step="{}" data-i="{}">{}</a></li>"##,
                    l.step,
                    told + k,
                    html(&l.to_string())
                )
            })
            .collect();
        let story = if story.is_empty() {
            "<p>Nothing happened that the defaults would not do.</p>".to_string()
        } else {
            format!(r#"<ol id="story">{story}</ol>"#)
        };
        // Log lines by step, for the details panel.
        let mut logs: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
        for (step, line) in run.logs {
            logs.entry(*step).or_default().push(line);
        }
        let data: Vec<String> = details
            .iter()
            .map(|d| {
                let lines: Vec<String> = logs
                    .get(&d.step)
                    .map(|l| l.iter().map(|s| json(s)).collect())
                    .unwrap_or_default();
                format!(
                    "{{\"text\":{},\"step\":{},\"logs\":[{}]}}",
                    json(&d.text),
                    d.step,
                    lines.join(",")
                )
            })
            .collect();
        let width = self.width();
        let mut page = String::new();
        let _ = write!(
            page,
            r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 12px sans-serif; margin: 0; height: 100vh; overflow: hidden; display: grid; grid-template-rows: auto 1fr; grid-template-columns: 1fr 30%; }}
header {{ grid-column: 1 / 3; max-height: 40vh; overflow: auto; padding: 6px 12px; background: #eee; border-bottom: 1px solid #ccc; }}
header p {{ margin: 2px 0; }}
#reproduce {{ user-select: all; background: #fff; padding: 1px 4px; }}
#story {{ margin: 4px 0; padding-left: 2em; }}
#story a {{ color: #204a87; text-decoration: none; }}
#story a:hover {{ text-decoration: underline; }}
#main {{ overflow: auto; position: relative; }}
#details {{ overflow: auto; background: #fafafa; border-left: 1px solid #ccc; padding: 8px; white-space: pre-wrap; }}
#hosts {{ position: sticky; top: 0; height: 18px; background: rgba(255, 255, 255, 0.9); z-index: 1; border-bottom: 1px solid #ddd; }}
#hosts span {{ position: absolute; top: 2px; transform: translateX(-50%); font-weight: bold; }}
body[data-view="folded"] #full, body[data-view="full"] #folded {{ display: none; }}
.lifeline {{ stroke: #bbb; stroke-width: 1; }}
.stepno {{ fill: #888; font-size: 10px; }}
.time {{ fill: #555; font-size: 10px; }}
.named-row {{ fill: #e3ecf7; }}
.named-row.flash {{ fill: #fcaf3e; }}
.chosen-row {{ fill: #fff3b0; }}
.fold rect {{ fill: #f3f3f3; stroke: #ccc; stroke-dasharray: 3 2; }}
.fold text {{ fill: #777; font-size: 10px; font-style: italic; }}
.fold {{ cursor: pointer; }}
.message line {{ stroke: #3465a4; stroke-width: 1.2; }}
.message.lost line, .message.undelivered line {{ stroke: #cc0000; stroke-dasharray: 4 2; }}
.msg-label {{ fill: #204a87; font-size: 9px; }}
.message.lost .msg-label, .message.undelivered .msg-label {{ fill: #a40000; }}
.cross {{ fill: #cc0000; font-weight: bold; }}
.mark circle {{ fill: #555; }}
.mark.timer rect {{ fill: #c17d11; }}
.mark.fault rect {{ fill: #cc0000; }}
.mark.heal rect {{ fill: #4e9a06; }}
.mark.dup rect, .mark.choice rect {{ fill: #75507b; }}
.mark.chosen circle, .mark.chosen rect {{ stroke: #f57900; stroke-width: 3; }}
.label {{ font-size: 10px; }}
.failure rect {{ fill: #f8d7da; stroke: #cc0000; }}
[data-i] {{ cursor: pointer; }}
</style></head><body data-view="folded">
<header>
<p><b>{title}</b></p>
<p>{failure}</p>
<p>reproduce: <code id="reproduce">{reproduce}</code></p>
<p>What happened that the defaults would not do (click a line to go to its step):</p>
{story}
<p><label><input type="checkbox" id="every"> show every step</label> (folded: only the steps the story names, the failure's and the messages they name). One column per host, time going down, a row per step; circles are polls, diamonds timers firing, squares faults and host changes, arrows messages (labelled with their first bytes); yellow rows are the schedule's non-default choices, blue rows the steps the story names. Click anything for its details.</p>
</header>
<div id="main">
<div id="hosts" style="width: {width}px">{names}</div>
{folded_svg}{full_svg}</div>
<div id="details">Click an event, or a line of the story.

{failure_text}</div>
<script type="application/json" id="events">[{data}]</script>
<script>
(function () {{
  var events = JSON.parse(document.getElementById("events").textContent);
  var panel = document.getElementById("details");
  var main = document.getElementById("main");
  var every = document.getElementById("every");
  function show(i) {{
    var ev = events[i];
    var text = "step " + ev.step + "\n\n" + ev.text;
    if (ev.logs.length) {{ text += "\n\nlog lines of step " + ev.step + ":\n" + ev.logs.join("\n"); }}
    panel.textContent = text;
  }}
  function current() {{
    return document.getElementById(every.checked ? "full" : "folded");
  }}
  function setView(full) {{
    every.checked = full;
    document.body.setAttribute("data-view", full ? "full" : "folded");
  }}
  function scrollTo(el) {{
    main.scrollTop += el.getBoundingClientRect().top - main.getBoundingClientRect().top - main.clientHeight / 3;
  }}
  function jump(step) {{
    var row = current().querySelector('.named-row[data-step="' + step + '"]');
    if (!row) {{ return; }}
    scrollTo(row);
    row.classList.add("flash");
    setTimeout(function () {{ row.classList.remove("flash"); }}, 1200);
  }}
  every.addEventListener("change", function () {{ setView(every.checked); }});
  main.addEventListener("click", function (e) {{
    var fold = e.target.closest(".fold");
    if (fold) {{
      var row = Number(fold.getAttribute("data-row"));
      setView(true);
      var full = document.getElementById("full");
      var top = Number(full.getAttribute("data-top")), h = Number(full.getAttribute("data-row-height"));
      var first = Number(full.getAttribute("data-first"));
      main.scrollTop = Math.max(0, top + (Math.max(row, first) - first) * h - main.clientHeight / 3);
      return;
    }}
    var el = e.target.closest("[data-i]");
    if (el) {{ show(Number(el.getAttribute("data-i"))); }}
  }});
  var story = document.getElementById("story");
  if (story) {{
    story.addEventListener("click", function (e) {{
      var a = e.target.closest("a[data-i]");
      if (!a) {{ return; }}
      e.preventDefault();
      show(Number(a.getAttribute("data-i")));
      jump(a.getAttribute("data-step"));
    }});
  }}
  document.body.setAttribute("data-ready", String(events.length));
  // ?selftest: click an event and the failure, and measure the folded view.
  if (location.search.indexOf("selftest") >= 0) {{
    var target = document.querySelector("#folded g[data-i]");
    target.dispatchEvent(new MouseEvent("click", {{ bubbles: true }}));
    var ok = panel.textContent.indexOf("step ") === 0;
    var failure = document.querySelector("#folded .failure");
    failure.dispatchEvent(new MouseEvent("click", {{ bubbles: true }}));
    var banner = failure.querySelector("text").textContent.split(":")[0];
    var detail = panel.textContent.split("\n")[0];
    var labels = Array.prototype.filter.call(document.querySelectorAll("#folded .msg-label"), function (t) {{
      return t.textContent.length > 0 && t.getBoundingClientRect().width > 0;
    }}).map(function (t) {{ return t.textContent; }}).join(" | ");
    // A line of the story shows its details; a fold opens every step.
    var line = document.querySelector("#story a");
    if (line) {{
      line.dispatchEvent(new MouseEvent("click", {{ bubbles: true }}));
      ok = ok && panel.textContent.indexOf(line.textContent.split(":").slice(1).join(":").trim()) > 0;
    }}
    var fold = document.querySelector("#folded .fold");
    if (fold) {{
      fold.dispatchEvent(new MouseEvent("click", {{ bubbles: true }}));
      ok = ok && document.body.getAttribute("data-view") === "full";
      setView(false);
    }}
    var b = document.body;
    b.setAttribute("data-selftest", ok ? "ok" : "failed");
    b.setAttribute("data-failure-steps", banner + " / " + detail);
    b.setAttribute("data-labels", labels);
    b.setAttribute("data-story", String(document.querySelectorAll("#story li").length));
    b.setAttribute("data-reproduce", document.getElementById("reproduce").textContent);
    b.setAttribute("data-folded-height", String(Math.round(document.getElementById("folded").getBoundingClientRect().height)));
    b.setAttribute("data-screen-height", String(window.innerHeight));
  }}
}})();
</script>
</body></html>
"##,
            title = html(&run.title),
            failure = html(&first_line(&run.failure)),
            failure_text = html(&run.failure),
            reproduce = html(&run.reproduce),
            data = data.join(","),
            folded_svg = self.svg(run, &folded, "folded"),
            full_svg = self.svg(run, &full, "full").replacen(
                r#"id="full" class="view">"#,
                &format!(
                    r#"id="full" class="view" data-top="{}" data-row-height="{ROW}" data-first="{first}">"#,
                    TOP + if first > 0 { ROW } else { 0 }
                ),
                1
            ),
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
