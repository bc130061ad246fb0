//! Networked simulations are deterministic and replayable.
//!
//! The program under test has three hosts besides the main one: a server
//! answering TCP and UDP requests, a TCP client and a UDP client, each
//! retrying under timeouts. Every link between them loses and duplicates
//! datagrams and has a latency window wide enough to reorder them, and the
//! built-in fault injector may reset one host and partition one pair of
//! hosts. The program returns a log of what each host saw, stamped with
//! simulated time.
//!
//! The tests check that:
//!
//! - the same seed gives the same log and the same [`Trace`] (equal, and
//!   equal hashes), for 200 seeds;
//! - those seeds reach many outcomes, among them a lost datagram, a host
//!   reset, and a run with neither;
//! - a recorded trace replays to the same log, trace and sequence of picks and
//!   observations;
//! - a replay of a changed program stops with "replay diverged at step";
//! - a scheduler decides a datagram's loss, however unlikely the link makes
//!   it;
//! - a delivery is observed before the kernel replies it causes.
//!
//! # Determinism
//!
//! Everything the program logs is a function of the run: simulated time,
//! request ids, error kinds, the ports the simulated kernel hands out. The
//! log is an `Arc<Mutex<Vec<_>>>` only because spawned tasks must be `Send`;
//! there is one thread.

mod rt_support;

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::fmt::Display;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rt_support::{panic_text, sim_scheduled, udp_request_over_lossy_links, RandomWith};
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream, UdpSocket};
use sim_rt::runtime::{Builder, Step, Trace};
use sim_rt::scheduler::{ChoiceKind, Event, Observation, RandomScheduler, Replay, Scheduler};
use sim_rt::sim::{self, FaultInjector, LinkConfig};
use sim_rt::sync::mpsc;
use sim_rt::time::error::Elapsed;
use sim_rt::time::{sleep, timeout, Instant};

// ----- the program -----------------------------------------------------------

const SERVER: &str = "server";
const TCP_CLIENT: &str = "tcp-client";
const UDP_CLIENT: &str = "udp-client";
const TCP_ADDR: &str = "server:80";
const UDP_ADDR: &str = "server:53";

/// Requests each client makes, and attempts per request before it gives up.
const REQUESTS: u32 = 3;
const ATTEMPTS: u32 = 6;
/// A TCP segment on a lossy link may arrive one retransmission (200 ms)
/// late, so a request and its reply may take up to ~440 ms: this timeout
/// sometimes fires on a slow but healthy connection, on purpose.
const TCP_TIMEOUT: Duration = Duration::from_millis(300);
const UDP_TIMEOUT: Duration = Duration::from_millis(50);
const BACKOFF: Duration = Duration::from_millis(20);
/// Bounds the whole run; clients give up long before it.
const DEADLINE: Duration = Duration::from_secs(60);

/// What the hosts saw, in order.
type Log = Arc<Mutex<Vec<String>>>;

fn note(log: &Log, who: &str, what: impl Display) {
    let line = format!("{:?} {who}: {what}", sim::elapsed());
    log.lock().unwrap().push(line);
}

/// The lossy, duplicating, reordering link between any two of the hosts.
/// Logs the outcome of one attempt at request `id`; whether it was
/// answered.
fn note_reply(
    log: &Log,
    who: &str,
    id: u32,
    attempt: u32,
    reply: Result<io::Result<u32>, Elapsed>,
) -> bool {
    match reply {
        Ok(Ok(r)) => {
            note(
                log,
                who,
                format_args!("request {id} -> {r} (attempt {attempt})"),
            );
            true
        }
        Ok(Err(e)) => {
            note(log, who, format_args!("request {id}: {:?}", e.kind()));
            false
        }
        Err(_) => {
            note(log, who, format_args!("request {id}: timed out"));
            false
        }
    }
}

fn lossy() -> LinkConfig {
    LinkConfig::default()
        .with_loss(0.2)
        .with_duplicate(0.2)
        .with_latency(Duration::from_millis(1), Duration::from_millis(20))
}

/// The fault injector of every run: one reset and one partition at most.
fn faults() -> FaultInjector {
    FaultInjector::new()
        .max_resets(1)
        .max_partitions(1)
        .probability(0.01)
}

/// Answers UDP request `id` (4 bytes) with `10 * id` and each `u32` read on a
/// TCP connection with ten times it.
async fn server(log: Log, boot: u32) -> io::Result<()> {
    note(&log, SERVER, format_args!("boot {boot}"));
    let udp = UdpSocket::bind("0.0.0.0:53").await?;
    let tcp = TcpListener::bind("0.0.0.0:80").await?;
    let l = log.clone();
    sim_rt::spawn(async move {
        let mut buf = [0u8; 8];
        while let Ok((n, from)) = udp.recv_from(&mut buf).await {
            let Ok(id) = <[u8; 4]>::try_from(&buf[..n]).map(u32::from_be_bytes) else {
                note(&l, SERVER, format_args!("udp: {n} stray bytes from {from}"));
                continue;
            };
            note(&l, SERVER, format_args!("udp: request {id} from {from}"));
            if let Err(e) = udp.send_to(&(id * 10).to_be_bytes(), from).await {
                note(&l, SERVER, format_args!("udp: reply {id}: {:?}", e.kind()));
            }
        }
    });
    while let Ok((mut stream, peer)) = tcp.accept().await {
        note(&log, SERVER, format_args!("tcp: accepted {peer}"));
        let l = log.clone();
        sim_rt::spawn(async move {
            loop {
                let id = match stream.read_u32().await {
                    Ok(id) => id,
                    Err(e) => return note(&l, SERVER, format_args!("tcp: {peer}: {:?}", e.kind())),
                };
                note(&l, SERVER, format_args!("tcp: request {id} from {peer}"));
                if let Err(e) = stream.write_u32(id * 10).await {
                    return note(&l, SERVER, format_args!("tcp: {peer}: {:?}", e.kind()));
                }
            }
        });
    }
    Ok(())
}

/// Makes `REQUESTS` requests over TCP, reconnecting after an error or a
/// timeout, then reports itself done.
async fn tcp_client(log: Log, boot: u32, done: mpsc::UnboundedSender<&'static str>) {
    let who = TCP_CLIENT;
    note(&log, who, format_args!("boot {boot}"));
    let mut conn: Option<TcpStream> = None;
    for id in 1..=REQUESTS {
        let mut answered = false;
        for attempt in 1..=ATTEMPTS {
            let stream = match conn.as_mut() {
                Some(s) => s,
                None => match timeout(TCP_TIMEOUT, TcpStream::connect(TCP_ADDR)).await {
                    Ok(Ok(s)) => {
                        note(
                            &log,
                            who,
                            format_args!("connected from {}", s.local_addr().unwrap()),
                        );
                        conn.insert(s)
                    }
                    Ok(Err(e)) => {
                        note(&log, who, format_args!("connect: {:?}", e.kind()));
                        sleep(BACKOFF).await;
                        continue;
                    }
                    Err(_) => {
                        note(&log, who, "connect: timed out");
                        continue;
                    }
                },
            };
            let reply = timeout(TCP_TIMEOUT, async {
                stream.write_u32(id).await?;
                stream.read_u32().await
            })
            .await;
            if note_reply(&log, who, id, attempt, reply) {
                answered = true;
                break;
            }
            // A broken or slow connection is abandoned: the next attempt
            // reconnects.
            conn = None;
        }
        if !answered {
            note(&log, who, format_args!("request {id}: gave up"));
        }
    }
    note(&log, who, "done");
    let _ = done.send(who);
}

/// Makes `REQUESTS` requests over UDP, resending after a timeout and
/// skipping replies to earlier requests (duplicates, late replies), then
/// reports itself done. With `extra`, first sends one more datagram: the
/// "changed program" of the divergence test.
async fn udp_client(log: Log, boot: u32, done: mpsc::UnboundedSender<&'static str>, extra: bool) {
    let who = UDP_CLIENT;
    note(&log, who, format_args!("boot {boot}"));
    let socket = UdpSocket::bind("0.0.0.0:0")
        .await
        .expect("binding port 0 on a fresh host cannot fail");
    if extra {
        let _ = socket.send_to(b"hi", UDP_ADDR).await;
    }
    let mut buf = [0u8; 8];
    for id in 1..=REQUESTS {
        let mut answered = false;
        for attempt in 1..=ATTEMPTS {
            if let Err(e) = socket.send_to(&id.to_be_bytes(), UDP_ADDR).await {
                note(&log, who, format_args!("send {id}: {:?}", e.kind()));
            }
            let reply = timeout(UDP_TIMEOUT, async {
                loop {
                    let (n, _) = socket.recv_from(&mut buf).await?;
                    let r = <[u8; 4]>::try_from(&buf[..n]).map_or(0, u32::from_be_bytes);
                    if r == id * 10 {
                        return Ok::<u32, io::Error>(r);
                    }
                    note(&log, who, format_args!("request {id}: stale reply {r}"));
                }
            })
            .await;
            if note_reply(&log, who, id, attempt, reply) {
                answered = true;
                break;
            }
        }
        if !answered {
            note(&log, who, format_args!("request {id}: gave up"));
        }
    }
    note(&log, who, "done");
    let _ = done.send(who);
}

/// Counts (re)starts of a host's entry point: the closure, and so the
/// counter, outlives a reset.
fn next_boot(boots: &Cell<u32>) -> u32 {
    boots.set(boots.get() + 1);
    boots.get()
}

/// The program: starts the three hosts, makes every link between them
/// lossy, and waits until both clients are done (or the deadline passes).
async fn program(extra: bool) -> Vec<String> {
    let start = Instant::now();
    let log = Log::default();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();

    let (l, boots) = (log.clone(), Cell::new(0));
    sim::host(SERVER).start(move || server(l.clone(), next_boot(&boots)));
    let (l, d, boots) = (log.clone(), done_tx.clone(), Cell::new(0));
    sim::host(TCP_CLIENT).start(move || tcp_client(l.clone(), next_boot(&boots), d.clone()));
    let (l, d, boots) = (log.clone(), done_tx, Cell::new(0));
    sim::host(UDP_CLIENT).start(move || udp_client(l.clone(), next_boot(&boots), d.clone(), extra));

    let hosts = [SERVER, TCP_CLIENT, UDP_CLIENT];
    for from in hosts {
        for to in hosts {
            if from != to {
                sim::set_link(from, to, lossy());
            }
        }
    }

    let mut finished = BTreeSet::new();
    let all = timeout(DEADLINE, async {
        while finished.len() < 2 {
            match done_rx.recv().await {
                Some(who) => finished.insert(who),
                None => break,
            };
        }
    })
    .await;
    note(
        &log,
        "main",
        format_args!(
            "{} after {:?} ({finished:?})",
            if all.is_ok() { "finished" } else { "deadline" },
            start.elapsed()
        ),
    );
    let lines = log.lock().unwrap().clone();
    lines
}

/// Runs the program once on a runtime from `builder`.
fn run(builder: &mut Builder, extra: bool) -> (Vec<String>, Trace) {
    let rt = builder.enable_all().build().unwrap();
    let log = rt.block_on(program(extra));
    (log, rt.trace())
}

/// The builder every run starts from: `seed`, with the fault injector.
fn seeded(seed: u64) -> Builder {
    let mut b = Builder::new_current_thread();
    b.enable_all();
    b.seed(seed).fault_injector(faults());
    b
}

/// Whether `SIM_SEED` overrides the seeds these tests choose (then tests that
/// compare seeds have nothing to compare).
fn seed_overridden() -> bool {
    std::env::var_os("SIM_SEED").is_some()
}

/// How many datagrams the scheduler chose to lose in this run.
fn losses(trace: &Trace) -> usize {
    let loss = ChoiceKind::Loss { probability: 0.0 }.code();
    trace
        .steps()
        .iter()
        .filter(|s| matches!(s, Step::Choose { kind, index: 1, .. } if *kind == loss))
        .count()
}

/// How many faults the injector injected in this run.
fn injected(trace: &Trace) -> usize {
    let fault = ChoiceKind::Fault { probability: 0.0 }.code();
    trace
        .steps()
        .iter()
        .filter(|s| matches!(s, Step::Choose { kind, index, .. } if *kind == fault && *index > 0))
        .count()
}

/// Whether a host was reset during the run, as the program saw it: a host
/// booted twice, or a client's connection was reset.
fn saw_reset(log: &[String]) -> bool {
    log.iter()
        .any(|l| l.ends_with(": boot 2") || l.contains("ConnectionReset"))
}

// ----- same seed, same run ---------------------------------------------------

#[test]
fn same_seed_same_log_and_trace_for_200_seeds() {
    for seed in 0..200 {
        let (log1, trace1) = run(&mut seeded(seed), false);
        let (log2, trace2) = run(&mut seeded(seed), false);
        assert_eq!(log1, log2, "seed {seed}: logs differ");
        assert_eq!(
            trace1.first_difference(&trace2),
            None,
            "seed {seed}: traces differ"
        );
        assert_eq!(trace1, trace2, "seed {seed}: traces differ");
        assert_eq!(trace1.hash(), trace2.hash(), "seed {seed}: trace hashes");
        assert!(
            log1.last().is_some_and(|l| l.contains("main: finished")),
            "seed {seed}: both clients finish before the deadline: {log1:#?}"
        );
    }
}

#[test]
fn seeds_reach_many_outcomes_with_and_without_faults() {
    let mut logs = BTreeSet::new();
    let mut hashes = BTreeSet::new();
    let (mut lost, mut timed_out, mut reset, mut clean) = (None, None, None, None);
    for seed in 0..200 {
        let (log, trace) = run(&mut seeded(seed), false);
        let (losses, resets) = (losses(&trace), saw_reset(&log));
        if losses > 0 {
            lost.get_or_insert(seed);
        }
        if log
            .iter()
            .any(|l| l.contains("udp-client: request") && l.ends_with("timed out"))
        {
            timed_out.get_or_insert(seed);
        }
        if resets {
            reset.get_or_insert(seed);
        }
        if losses == 0 && injected(&trace) == 0 && !resets {
            clean.get_or_insert(seed);
        }
        logs.insert(log);
        hashes.insert(trace.hash());
    }
    if seed_overridden() {
        return;
    }
    assert!(
        logs.len() >= 150,
        "only {} distinct logs of 200",
        logs.len()
    );
    assert!(
        hashes.len() >= 150,
        "only {} distinct traces of 200",
        hashes.len()
    );
    assert!(lost.is_some(), "no run lost a datagram");
    assert!(timed_out.is_some(), "no UDP request ever timed out");
    assert!(reset.is_some(), "no run saw a host reset");
    assert!(clean.is_some(), "every run lost a datagram or had a fault");
}

// ----- replay ----------------------------------------------------------------

/// What a scheduler is told, in order: the events it picked and the
/// observations it was given.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Told {
    Picked(Event),
    Saw(Observation),
}

/// Forwards to `inner` and records every pick and observation.
struct Observing<S> {
    inner: S,
    seen: Rc<RefCell<Vec<Told>>>,
}

impl<S: Scheduler> Scheduler for Observing<S> {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        let i = self.inner.pick(enabled);
        self.seen.borrow_mut().push(Told::Picked(enabled[i]));
        i
    }
    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        self.inner.choose(kind, n)
    }
    fn observe(&mut self, o: &Observation) {
        self.inner.observe(o);
        self.seen.borrow_mut().push(Told::Saw(*o));
    }
}

/// Runs the program on `builder` with its scheduler (made by `inner`)
/// wrapped in [`Observing`]; returns the log, trace, and the picks and
/// observations in order.
fn run_observed<S: Scheduler + 'static>(
    builder: &mut Builder,
    mut inner: impl FnMut(u64) -> S + 'static,
) -> (Vec<String>, Trace, Vec<Told>) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    builder.scheduler(move |seed| Observing {
        inner: inner(seed),
        seen: s.clone(),
    });
    let (log, trace) = run(builder, false);
    let seen = seen.take();
    (log, trace, seen)
}

#[test]
fn a_recorded_trace_replays_log_trace_and_observations() {
    let (mut lost, mut duplicated, mut stopped) = (0, 0, 0);
    for seed in 0..30 {
        let (log, trace, seen) = run_observed(&mut seeded(seed), RandomScheduler::new);

        // Builder::replay alone.
        let (replayed_log, replayed_trace) = run(
            Builder::new_current_thread()
                .replay(trace.clone())
                .fault_injector(faults()),
            false,
        );
        assert_eq!(replayed_log, log, "seed {seed}: replayed log");
        assert_eq!(
            replayed_trace.first_difference(&trace),
            None,
            "seed {seed}: replayed trace"
        );
        assert_eq!(replayed_trace, trace, "seed {seed}: replayed trace");
        assert_eq!(replayed_trace.hash(), trace.hash());

        // A replay wrapped like the original: the same observations too.
        let t = trace.clone();
        let mut builder = Builder::new_current_thread();
        builder.enable_all();
        builder.replay(trace.clone()).fault_injector(faults());
        let (replayed_log, replayed_trace, replayed_seen) =
            run_observed(&mut builder, move |_| Replay::new(t.clone()));
        assert_eq!(replayed_log, log, "seed {seed}: observed replay's log");
        assert_eq!(
            replayed_trace, trace,
            "seed {seed}: observed replay's trace"
        );
        let diverged = seen.iter().zip(&replayed_seen).position(|(a, b)| a != b);
        assert_eq!(
            diverged, None,
            "seed {seed}: first differing pick or observation"
        );
        assert_eq!(
            seen.len(),
            replayed_seen.len(),
            "seed {seed}: picks and observations"
        );

        for t in &seen {
            match t {
                Told::Saw(Observation::Lost { .. }) => lost += 1,
                Told::Saw(Observation::Duplicated { .. }) => duplicated += 1,
                Told::Saw(Observation::HostStopped { .. }) => stopped += 1,
                _ => {}
            }
        }
    }
    // The replays covered the interesting cases, not only quiet runs.
    if !seed_overridden() {
        assert!(
            lost > 0 && duplicated > 0 && stopped > 0,
            "lost {lost}, duplicated {duplicated}, stopped {stopped}"
        );
    }
}

// ----- the order of observations ---------------------------------------------

/// A delivery's `Delivered` comes before what it caused: the receiving
/// kernel's replies (`Sent` with no task), which an observer attributes to
/// the delivery it last saw.
#[test]
fn a_delivery_is_observed_before_what_it_causes() {
    let mut replies = 0;
    for seed in 0..10 {
        let (_, _, told) = run_observed(&mut seeded(seed), RandomScheduler::new);
        for (i, step) in told.iter().enumerate() {
            let Told::Picked(Event::Deliver(packet)) = *step else {
                continue;
            };
            let mut after = told[i + 1..].iter().map_while(|t| match t {
                Told::Saw(o) => Some(*o),
                Told::Picked(_) => None,
            });
            match after.next() {
                Some(Observation::Delivered { packet: p, .. }) if p == packet => {}
                other => panic!("seed {seed}: delivering {packet:?}, first observed {other:?}"),
            }
            replies += after
                .filter(|o| matches!(o, Observation::Sent { by: None, .. }))
                .count();
        }
    }
    // The check above covered deliveries that made a kernel reply.
    assert!(replies > 0, "no delivery caused a kernel reply");
}

#[test]
fn replaying_a_changed_program_diverges() {
    for seed in 0..5 {
        let (_, trace) = run(&mut seeded(seed), false);
        let replay = || {
            let mut b = Builder::new_current_thread();
            b.enable_all();
            b.replay(trace.clone()).fault_injector(faults());
            b
        };
        // The unchanged program replays (so the panic below is the change's).
        let (_, replayed) = run(&mut replay(), false);
        assert_eq!(replayed, trace, "seed {seed}");

        // One extra datagram sent by the UDP client.
        let err = catch_unwind(AssertUnwindSafe(|| run(&mut replay(), true)))
            .expect_err("a replay of a changed program must fail");
        let msg = panic_text(&*err).unwrap_or_default();
        let step: usize = msg
            .split("replay diverged at step ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("seed {seed}: no \"replay diverged at step N\" in: {msg}"));
        assert!(
            step < trace.len(),
            "seed {seed}: diverged at {step} of {}",
            trace.len()
        );
    }
}

// ----- the scheduler decides losses ------------------------------------------

/// Loses every datagram, counting the loss choices it is asked.
fn lose_everything(asked: Rc<Cell<u32>>) -> impl FnMut(ChoiceKind, usize) -> Option<usize> {
    move |kind, _| match kind {
        ChoiceKind::Loss { .. } => {
            asked.set(asked.get() + 1);
            Some(1)
        }
        _ => None,
    }
}

/// One UDP request to the server, no retry, over links that lose a datagram
/// with probability 1e-9; whether the reply came within a second.
fn udp_request_once<S: Scheduler + 'static>(
    seed: u64,
    scheduler: impl FnMut(u64) -> S + 'static,
) -> bool {
    sim_scheduled(seed, scheduler, async {
        let log = Log::default();
        sim::host(SERVER).start(move || server(log.clone(), 1));
        udp_request_over_lossy_links(SERVER, UDP_ADDR, 1e-9, &7u32.to_be_bytes()).await
    })
}

#[test]
fn a_scheduler_loses_a_datagram_the_link_almost_never_loses() {
    for seed in 0..10 {
        let asked = Rc::new(Cell::new(0));
        let a = asked.clone();
        let answered = udp_request_once(seed, move |seed| {
            RandomWith::answering(seed, lose_everything(a.clone()))
        });
        assert!(!answered, "seed {seed}: the request was lost, no reply");
        assert_eq!(asked.get(), 1, "seed {seed}: one datagram, one loss choice");
    }
    for seed in 0..50 {
        assert!(
            udp_request_once(seed, RandomScheduler::new),
            "seed {seed}: at 1e-9 the default scheduler delivers"
        );
    }
}
