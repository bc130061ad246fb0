//! Controls that exist only in a simulation: hosts, signals, data choices.
//!
//! These have no tokio counterpart; test code uses them to set up the world
//! and to inject events. Code meant to also run on tokio should call them
//! only from `#[cfg(sim)]` test code.

use std::fmt::Debug;
use std::future::Future;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

pub use sim_fs::{
    CrashModel, EntryDurability, Faults, FsConfig, KeepUnsynced, Latency, TornWrites,
};
pub use sim_net::{LinkConfig, NetConfig};

pub use crate::disk::RealFiles;
pub use crate::runtime::command::{cargo_test_command, parse_seed};
pub use crate::runtime::fault::FaultInjector;
pub use crate::time::exact::{sleep_exact, SleepExact};

pub use crate::intercept::{
    allow_threads, intercepting, without_interception, SUPPORTED as INTERCEPTION_SUPPORTED,
    WALL_CLOCK_EPOCH,
};

use crate::runtime::context;
use crate::runtime::liveness::{Prop, PropKind};
use crate::runtime::world::{Entry, HostOp, Origin, World};
use crate::scheduler::ChoiceKind;
pub use crate::scheduler::HostId;
use crate::task::JoinHandle;

/// Chooses one of `n` options: user-level nondeterminism resolved by the
/// simulation's scheduler (recorded and replayed; 0 is the option an
/// explorer tries first).
///
/// # Panics
///
/// When `n` is 0, or outside a simulation.
#[track_caller]
pub fn choose(n: usize) -> usize {
    assert!(n > 0, "sim_rt::choose needs at least one option");
    context::with(|w| w.choose(ChoiceKind::User, n))
}

/// How often a [`buggify`] point fires under the default scheduler and
/// in random walks.
pub const BUGGIFY_PROBABILITY: f64 = 0.05;

/// A fault point the program marks itself, after FoundationDB's
/// `BUGGIFY`: `true` when the simulation decides that this rare path runs
/// now (a cache miss, a slow retry, a short read, an early timeout), so that
/// the code around it is tested where the fault matters instead of where
/// the network or the disk happens to fail.
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// let batch = if sim_rt::sim::buggify() { 1 } else { 64 };
/// # let _ = batch; });
/// ```
///
/// A data choice of kind [`ChoiceKind::Buggify`]: the default scheduler
/// and random walks fire it with probability [`BUGGIFY_PROBABILITY`];
/// systematic searches take `false` by default and `true` as one delay, so
/// each point is a place where a search can spend a fault. Recorded and
/// replayed like any choice.
///
/// # Panics
///
/// Outside a simulation.
#[track_caller]
pub fn buggify() -> bool {
    context::with(|w| {
        w.choose(
            ChoiceKind::Buggify {
                probability: BUGGIFY_PROBABILITY,
            },
            2,
        ) == 1
    })
}

pub use crate::runtime::coverage::{Hits, Point, PointKind};
pub use crate::{reachable, sometimes};

/// A [`sometimes!`](crate::sometimes!) point at the caller's location:
/// records whether `condition` holds here, in this execution, and returns
/// it. Unlike the macro, a point of this form is known to the explorer
/// only once reached (the macro registers it with the linker, so a point
/// never reached is reported too).
///
/// # Panics
///
/// Outside a simulation.
#[track_caller]
pub fn sometimes(condition: bool, name: &'static str) -> bool {
    cover(point_here(name, PointKind::Sometimes), condition)
}

/// A [`reachable!`](crate::reachable!) point at the caller's location,
/// known to the explorer only once reached (see [`sometimes()`]).
///
/// # Panics
///
/// Outside a simulation.
#[track_caller]
pub fn reachable(name: &'static str) {
    cover(point_here(name, PointKind::Reachable), true);
}

/// A point at the caller's caller (the function forms' user).
#[track_caller]
fn point_here(name: &'static str, kind: PointKind) -> Point {
    let at = std::panic::Location::caller();
    Point {
        file: at.file(),
        line: at.line(),
        column: at.column(),
        name,
        kind,
    }
}

/// Every coverage point that [`sometimes!`](crate::sometimes!) and
/// [`reachable!`](crate::reachable!) registered in this binary, reached or
/// not, sorted by place.
pub fn coverage_points() -> Vec<Point> {
    crate::runtime::coverage::registered()
}

/// What the macros expand to: records `point` in the running simulation.
#[doc(hidden)]
#[track_caller]
pub fn cover(point: Point, held: bool) -> bool {
    context::with(|w| {
        let step = w.core.borrow().step;
        w.coverage.borrow_mut().record(point, held, step);
    });
    held
}

#[doc(hidden)]
pub use crate::runtime::coverage::POINTS as __POINTS;
#[doc(hidden)]
pub use linkme as __linkme;

/// The seed of the running simulation.
#[track_caller]
pub fn seed() -> u64 {
    context::with(|w| w.seed())
}

/// Simulated time elapsed since the simulation started.
#[track_caller]
pub fn elapsed() -> Duration {
    context::with(|w| {
        let core = w.core.borrow();
        core.now - core.start
    })
}

/// The number of the step being run: events run so far, as
/// [`Failure::step`](crate::runtime::Failure::step) and failure reports
/// count them (the first step is 1). Outside a simulation, a panic says so.
///
/// This is the one numbering of a failure's report: the story in words,
/// the critical transition of a liveness failure, the failure page and
/// the log lines it shows all number steps this way. A data choice or a
/// fault happens within a step: a fault the injector makes before step
/// `n + 1` is told at step `n`. (A replay token counts choice points
/// instead, every pick and data choice: that count is internal.)
#[track_caller]
pub fn step() -> u64 {
    context::with(|w| w.core.borrow().step)
}

/// The host of the running task (the main host outside any task).
#[track_caller]
pub fn current_host() -> HostId {
    context::with(|w| w.current_host())
}

/// Reports the state of the current host, for searches that count or cache
/// visited states.
///
/// Call it whenever the host's state changes, with everything that decides
/// what the host does next (its variables, not its sockets or timers). Two
/// searches use the reports:
///
/// - the explorer's default portfolio gives part of its budget to the
///   member whose executions keep reaching new states (a host's state, or
///   the tuple of every host's latest report): a program that reports its
///   state gets a search that follows it;
/// - exhaustive search with a state cache combines the latest report of
///   every host with the runtime's own picture (time, runnable tasks,
///   packets in flight) into the program state; two executions that reach
///   the same program state are explored once.
///
/// A host that is reset has no state until it reports again.
///
/// `state` is hashed with a fixed function (the same in every run and
/// process of one build). Outside a simulation it does nothing.
///
/// ```
/// # let rt = sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let votes: Vec<u32> = vec![1, 2];
/// sim_rt::sim::report_state(&votes);
/// # });
/// ```
pub fn report_state<T: std::hash::Hash + ?Sized>(state: &T) {
    use std::hash::Hasher;
    // `DefaultHasher::new` has fixed keys: the same hash in every run.
    let mut h = std::hash::DefaultHasher::new();
    state.hash(&mut h);
    let hash = h.finish();
    let _ = context::try_with(|w| {
        let host = w
            .current()
            .map_or(crate::runtime::world::MAIN_HOST, |c| c.host);
        w.observe(crate::scheduler::Observation::State { host, hash });
    });
}

/// Labels the running task for the simulation's scheduler: reports an
/// [`Observation::Annotated`](crate::scheduler::Observation::Annotated)
/// with the task, its host and `label`.
///
/// The runtime gives labels no meaning. A failure report names a labelled
/// task by its last label ("task 7 (client) on shop"), and the labels are
/// hints for a custom delaying explorer that orders tasks by role or by
/// phase of the program (the fault injector last while the system starts, first once
/// it has: Desai, Qadeer & Seshia, FSE 2015, section 5). The labels and
/// what they mean are a contract between a program and its explorer.
/// Outside a simulation it does nothing, so code shared with real tokio may
/// call it from `#[cfg(sim)]` test code only, like the rest of this module.
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// sim_rt::spawn(async {
///     sim_rt::sim::annotate("fault-injector");
///     // ...
/// });
/// // ... once the system has started:
/// sim_rt::sim::annotate("started");
/// # });
/// ```
pub fn annotate(label: &'static str) {
    let _ = context::try_with(|w| {
        let current = w.current();
        if let Some(c) = current {
            w.tell(|| crate::runtime::Happening::Labelled { task: c.id, label });
        }
        w.observe(crate::scheduler::Observation::Annotated {
            task: current.map(|c| c.id),
            host: current.map_or(crate::runtime::world::MAIN_HOST, |c| c.host),
            label,
        });
    });
}

/// The name of `host`.
#[track_caller]
pub fn host_name(host: HostId) -> String {
    context::with(|w| w.host_name(host).to_string())
}

/// The host named `name`, if any.
#[track_caller]
pub fn lookup_host(name: &str) -> Option<HostId> {
    context::with(|w| w.host_by_name(name))
}

/// Sends ctrl-c (SIGINT) to `host` (a name or a [`HostId`]): every pending
/// [`crate::signal::ctrl_c`] future of that host completes, as does every
/// SIGINT listener made with [`crate::signal::unix::signal`].
///
/// # Panics
///
/// On an unknown host, or outside a simulation.
#[track_caller]
pub fn send_ctrl_c(host: impl ToHost) {
    context::with(|w| w.deliver_signal(host.to_host(w), 2));
}

/// Sends the Unix signal `signal` (a [`SignalKind`](crate::signal::unix::SignalKind)
/// or its number, `libc::SIGTERM`) to `host` (a name or a [`HostId`]),
/// as `kill -TERM` from outside would: every listener for it on that host
/// ([`crate::signal::unix::signal`], and [`crate::signal::ctrl_c`] for
/// SIGINT) made before this call sees it, at once. Explored like any other
/// step of the test: send it after a delay, or when a request is in flight,
/// to test a service's graceful shutdown.
///
/// A program that signals its own process (`kill(getpid(), ..)`, `raise`,
/// `pthread_kill`) inside a simulation raises the signal on its own host
/// instead; see the guide's "No escape" chapter.
///
/// ```
/// # sim_rt::runtime::Runtime::new().unwrap().block_on(async {
/// use sim_rt::signal::unix::{signal, SignalKind};
/// sim_rt::sim::host("server").start(|| async {
///     let mut term = signal(SignalKind::terminate()).unwrap();
///     term.recv().await;
///     println!("server: graceful shutdown");
/// });
/// sim_rt::time::sleep(std::time::Duration::from_millis(1)).await;
/// sim_rt::sim::send_signal("server", SignalKind::terminate());
/// # });
/// ```
///
/// # Differences from a real process
///
/// A host with no listener for `signal` ignores it, where a real process
/// without a handler would be terminated by most signals.
///
/// # Panics
///
/// On an unknown host, or outside a simulation.
#[cfg(unix)]
#[track_caller]
pub fn send_signal(host: impl ToHost, signal: impl Into<crate::signal::unix::SignalKind>) {
    let signum = signal.into().as_raw_value();
    context::with(|w| w.deliver_signal(host.to_host(w), signum));
}

/// States the liveness property "eventually `pred` holds": the runtime
/// evaluates `pred` after every step (see
/// [`Builder::liveness_check_every`](crate::runtime::Builder::liveness_check_every)),
/// outside any task, and fails the run with
/// [`FailureKind::Liveness`](crate::runtime::FailureKind::Liveness) if it
/// has not held by the time the main future returns. The report names the
/// property and how long it had been pending, in simulated time and steps.
/// Such a failure is *indeterminate*: the system may be stuck, or only
/// slower than the run's bound.
///
/// [`Property::stays`] asks for more: `pred` must hold at the end, and hold
/// continuously since some point.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let elected = Arc::new(AtomicBool::new(false));
/// let seen = elected.clone();
/// sim_rt::sim::eventually("a leader is elected", move || seen.load(Ordering::SeqCst));
/// sim_rt::spawn(async move {
///     sim_rt::time::sleep(Duration::from_millis(300)).await;
///     elected.store(true, Ordering::SeqCst);
/// });
/// sim_rt::time::sleep(Duration::from_secs(1)).await; // the run's bound
/// # });
/// ```
///
/// # Panics
///
/// Outside a simulation.
#[track_caller]
pub fn eventually(name: impl Into<String>, pred: impl Fn() -> bool + 'static) -> Property {
    context::with(|w| {
        let stated = w.step_and_elapsed();
        let index = w.liveness.borrow_mut().add(Prop {
            name: name.into().into(),
            stated,
            kind: PropKind::Eventually {
                pred: Rc::new(pred),
                stays: false,
                held_since: None,
                lost_at: None,
            },
        });
        Property { world: w.id, index }
    })
}

/// A liveness property stated with [`eventually`].
#[derive(Debug, Clone, Copy)]
pub struct Property {
    world: u64,
    index: usize,
}

impl Property {
    /// Requires that the property, once it holds, keeps holding to the end
    /// of the run ("eventually always"): the run fails if it does not hold
    /// at the end, and the report says when it last stopped holding.
    ///
    /// # Panics
    ///
    /// Outside the simulation that stated the property.
    #[track_caller]
    pub fn stays(self) -> Self {
        with_prop(self.world, self.index, |kind| {
            if let PropKind::Eventually { stays, .. } = kind {
                *stays = true;
            }
        });
        self
    }
}

/// Starts a hot/cold monitor (as in Coyote): while it is hot, something is
/// owed (a request awaits its reply, a lock awaits release, a partition
/// awaits healing); a monitor that stays hot longer than `limit` of
/// simulated time fails the run with
/// [`FailureKind::Liveness`](crate::runtime::FailureKind::Liveness) at the
/// first check past the limit, naming the monitor and how long it was hot.
/// It starts cold.
///
/// ```
/// use std::time::Duration;
///
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let reply = sim_rt::sim::monitor("a request gets its reply", Duration::from_secs(5));
/// reply.hot(); // sent
/// sim_rt::time::sleep(Duration::from_millis(20)).await;
/// reply.cold(); // answered
/// # });
/// ```
///
/// # Panics
///
/// Outside a simulation.
#[track_caller]
pub fn monitor(name: impl Into<String>, limit: Duration) -> Monitor {
    context::with(|w| {
        let stated = w.step_and_elapsed();
        let index = w.liveness.borrow_mut().add(Prop {
            name: name.into().into(),
            stated,
            kind: PropKind::Monitor {
                limit,
                hot_since: None,
            },
        });
        Monitor { world: w.id, index }
    })
}

/// A hot/cold monitor: see [`monitor`].
#[derive(Debug, Clone, Copy)]
pub struct Monitor {
    world: u64,
    index: usize,
}

impl Monitor {
    /// Makes the monitor hot (from now, unless it already is).
    ///
    /// # Panics
    ///
    /// Outside the simulation that made the monitor.
    #[track_caller]
    pub fn hot(&self) {
        let now = context::with(|w| w.step_and_elapsed());
        with_prop(self.world, self.index, |kind| {
            if let PropKind::Monitor { hot_since, .. } = kind {
                hot_since.get_or_insert(now);
            }
        });
    }

    /// Makes the monitor cold.
    ///
    /// # Panics
    ///
    /// Outside the simulation that made the monitor.
    #[track_caller]
    pub fn cold(&self) {
        with_prop(self.world, self.index, |kind| {
            if let PropKind::Monitor { hot_since, .. } = kind {
                *hot_since = None;
            }
        });
    }

    /// Whether the monitor is hot.
    ///
    /// # Panics
    ///
    /// Outside the simulation that made the monitor.
    #[track_caller]
    pub fn is_hot(&self) -> bool {
        let mut hot = false;
        with_prop(self.world, self.index, |kind| {
            hot = matches!(
                kind,
                PropKind::Monitor {
                    hot_since: Some(_),
                    ..
                }
            );
        });
        hot
    }
}

#[track_caller]
fn with_prop(world: u64, index: usize, f: impl FnOnce(&mut PropKind)) {
    context::with(|w| {
        assert_eq!(
            w.id, world,
            "a liveness property or monitor belongs to the simulation that stated it; \
             state it again in this one"
        );
        f(&mut w.liveness.borrow_mut().props[index].kind);
    })
}

/// Starts describing a new host named `name`; see [`HostBuilder::start`].
///
/// ```
/// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use sim_rt::net::{TcpListener, TcpStream};
/// use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// sim_rt::sim::host("server").start(|| async {
///     let listener = TcpListener::bind("0.0.0.0:7").await?;
///     loop {
///         let (mut socket, _) = listener.accept().await?;
///         sim_rt::spawn(async move {
///             let mut buf = [0; 64];
///             let n = socket.read(&mut buf).await.unwrap();
///             socket.write_all(&buf[..n]).await.unwrap();
///         });
///     }
///     #[allow(unreachable_code)]
///     Ok::<(), std::io::Error>(())
/// });
/// let mut stream = TcpStream::connect("server:7").await.unwrap();
/// stream.write_all(b"hello").await.unwrap();
/// let mut buf = [0; 5];
/// stream.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"hello");
/// # });
/// ```
pub fn host(name: impl Into<String>) -> HostBuilder {
    HostBuilder {
        name: name.into(),
        addrs: Vec::new(),
        disk: None,
    }
}

/// A host about to be created.
#[derive(Debug)]
#[must_use = "a host is created only by `start`"]
pub struct HostBuilder {
    name: String,
    addrs: Vec<IpAddr>,
    disk: Option<FsConfig>,
}

/// What a host's entry point may return: `()`, or a `Result` whose error
/// fails the simulation.
pub trait HostOutput: 'static {
    /// `Err(message)` when the entry point failed.
    fn into_result(self) -> Result<(), String>;
}

impl HostOutput for () {
    fn into_result(self) -> Result<(), String> {
        Ok(())
    }
}

impl<E: Debug + 'static> HostOutput for Result<(), E> {
    fn into_result(self) -> Result<(), String> {
        self.map_err(|e| format!("{e:?}"))
    }
}

impl HostBuilder {
    /// Gives the host the address `ip` (IPv4 or IPv6; call again for more).
    /// Without any, the host gets the next free address counting up from
    /// `10.0.0.1`. The main host (where the test's future runs) has
    /// `10.255.255.254`, out of the way of the addresses tests give.
    pub fn ip(mut self, ip: impl Into<IpAddr>) -> Self {
        self.addrs.push(ip.into());
        self
    }

    /// Gives the host's disk its own settings (crash model, entry
    /// durability, faults, latency), instead of the runtime's
    /// [`Builder::disk`](crate::runtime::Builder::disk). The disk starts
    /// empty and keeps what survives across the host's resets.
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::sim::{FsConfig, KeepUnsynced};
    /// let mut disk = FsConfig::default();
    /// disk.crash.keep = KeepUnsynced::Prefix; // an ordered journal
    /// disk.faults.eio_sync = 0.01;
    /// sim_rt::sim::host("db").disk(disk).start(|| async {
    ///     sim_rt::fs::write("/data", b"x").await
    /// });
    /// # });
    /// ```
    pub fn disk(mut self, config: FsConfig) -> Self {
        self.disk = Some(config);
        self
    }

    /// Creates the host and spawns its entry point on it. The entry point is
    /// a function so the simulation can restart the host
    /// ([`reset`], [`restart`]): each (re)start runs a fresh future.
    ///
    /// An entry point that returns an error fails the simulation with a
    /// report naming the host.
    ///
    /// An entry point that never returns (a server's `loop`) is best an
    /// `async fn` with a declared output (`async fn serve() { loop { .. } }`
    /// or `-> io::Result<()>`): a closure `|| async { loop { .. } }` has the
    /// output `!`, which Rust 2024 no longer lets stand in for `()`.
    ///
    /// # Panics
    ///
    /// When a host of that name exists, the name is `localhost` or an IP
    /// literal, an address is taken or cannot be a host's (loopback,
    /// unspecified, multicast), or outside a simulation.
    #[track_caller]
    pub fn start<F, Fut>(self, entry: F) -> HostId
    where
        F: Fn() -> Fut + 'static,
        Fut: Future + 'static,
        Fut::Output: HostOutput,
    {
        let entry: Entry = Rc::new(move || {
            let fut = entry();
            Box::pin(async move {
                if let Err(message) = fut.await.into_result() {
                    context::with(|w| w.fail_host(message));
                }
            })
        });
        context::with(|w| {
            let host = w.add_host(&self.name, self.addrs, Some(entry.clone()));
            if let Some(disk) = self.disk {
                w.fs_configure(host, disk);
            }
            let handle: JoinHandle<()> =
                JoinHandle::spawn_on(w, entry(), Some(host), Origin::HostEntry);
            drop(handle);
            host
        })
    }

    /// Creates the host and runs `future` on it once, as a client: the
    /// returned handle gives its output to whoever awaits it (the test),
    /// the way turmoil's `client` and madsim's `NodeHandle::spawn` do.
    ///
    /// ```
    /// # sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use sim_rt::net::UdpSocket;
    /// async fn echo() -> std::io::Result<()> {
    ///     let socket = UdpSocket::bind("0.0.0.0:53").await?;
    ///     let mut buf = [0; 64];
    ///     loop {
    ///         let (n, from) = socket.recv_from(&mut buf).await?;
    ///         socket.send_to(&buf[..n], from).await?;
    ///     }
    /// }
    /// sim_rt::sim::host("server").start(echo);
    /// let client = sim_rt::sim::host("client").spawn(async {
    ///     let socket = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    ///     socket.send_to(b"ping", "server:53").await.unwrap();
    ///     let mut buf = [0; 64];
    ///     let (n, _) = socket.recv_from(&mut buf).await.unwrap();
    ///     buf[..n].to_vec()
    /// });
    /// assert_eq!(client.await.unwrap(), b"ping");
    /// # });
    /// ```
    ///
    /// The host has no entry point: a [`reset`] or [`stop`] ends the task
    /// (its handle then gives a cancelled [`JoinError`](crate::task::JoinError)),
    /// and a restart brings the host back up with nothing running. A panic
    /// in `future` goes to the handle, as for [`spawn`](crate::spawn).
    ///
    /// # Panics
    ///
    /// As [`start`](Self::start).
    #[track_caller]
    pub fn spawn<Fut>(self, future: Fut) -> JoinHandle<Fut::Output>
    where
        Fut: Future + 'static,
        Fut::Output: 'static,
    {
        let origin = Origin::Spawn(std::panic::Location::caller());
        context::with(|w| {
            let host = w.add_host(&self.name, self.addrs, None);
            if let Some(disk) = self.disk {
                w.fs_configure(host, disk);
            }
            JoinHandle::spawn_on(w, future, Some(host), origin)
        })
    }
}

/// Names a host in the controls below: its name (`&str`, `String`) or its
/// [`HostId`]. Sealed.
pub trait ToHost: sealed::Sealed {}

mod sealed {
    use crate::scheduler::HostId;

    pub trait Sealed {
        /// The host's id, or its name to look up.
        fn host_key(&self) -> Result<HostId, &str>;
    }
}

use sealed::Sealed;

impl ToHost for str {}
impl ToHost for String {}
impl ToHost for HostId {}
impl<T: ToHost + ?Sized> ToHost for &T {}

impl Sealed for str {
    fn host_key(&self) -> Result<HostId, &str> {
        Err(self)
    }
}

impl Sealed for String {
    fn host_key(&self) -> Result<HostId, &str> {
        Err(self)
    }
}

impl Sealed for HostId {
    fn host_key(&self) -> Result<HostId, &str> {
        Ok(*self)
    }
}

impl<T: Sealed + ?Sized> Sealed for &T {
    fn host_key(&self) -> Result<HostId, &str> {
        (**self).host_key()
    }
}

trait Resolve {
    fn to_host(&self, world: &World) -> HostId;
}

impl<T: ToHost + ?Sized> Resolve for T {
    #[track_caller]
    fn to_host(&self, world: &World) -> HostId {
        match self.host_key() {
            Ok(id) => {
                assert!(
                    id.index() < world.host_count(),
                    "{id} is not a host of this simulation"
                );
                id
            }
            Err(name) => world
                .host_by_name(name)
                .unwrap_or_else(|| panic!("no host named \"{name}\" in this simulation")),
        }
    }
}

/// Every host of the simulation, in creation order (the main host first).
#[track_caller]
pub fn hosts() -> Vec<HostId> {
    context::with(|w| (0..w.host_count()).map(|i| HostId(i as u32)).collect())
}

/// The addresses of `host` (not counting loopback).
#[track_caller]
pub fn host_addrs(host: impl ToHost) -> Vec<IpAddr> {
    context::with(|w| {
        let h = w.net_host(host.to_host(w));
        w.net_ref(|net| net.host_addrs(h).to_vec())
    })
}

/// Whether `host` is running: not stopped (it may be paused).
#[track_caller]
pub fn is_running(host: impl ToHost) -> bool {
    context::with(|w| !w.host_state(host.to_host(w)).0)
}

/// Whether `host` is paused.
#[track_caller]
pub fn is_paused(host: impl ToHost) -> bool {
    context::with(|w| w.host_state(host.to_host(w)).1)
}

/// Crashes `host` and restarts it at once: every task of the host is
/// dropped, its kernel forgets its sockets (peers see `ConnectionReset` on
/// their next read or write, as after a real reboot; packets in flight to
/// it are lost), its disk loses what was not synced (as its
/// [`CrashModel`] allows; open files die), and its entry point runs again.
///
/// Called by one of the host's own tasks, it takes effect when that task's
/// poll returns (so the code after the call still runs, up to the next
/// `.await`).
///
/// # Panics
///
/// On the main host (it runs the test's future), an unknown host, or
/// outside a simulation.
#[track_caller]
pub fn reset(host: impl ToHost) {
    context::with(|w| w.host_op(host.to_host(w), HostOp::Reset))
}

/// Crashes `host` and leaves it down (power off): its tasks are dropped,
/// its disk loses what was not synced (as for [`reset`]),
/// its sockets vanish without telling peers, datagrams to it are lost and
/// stream segments to it wait for [`restart`]. A no-op on a stopped host.
/// Timing as for [`reset`].
///
/// # Panics
///
/// As [`reset`].
#[track_caller]
pub fn stop(host: impl ToHost) {
    context::with(|w| w.host_op(host.to_host(w), HostOp::Stop))
}

/// Boots a stopped `host` and runs its entry point again; peers of its old
/// connections get an RST. A no-op on a running host.
///
/// # Panics
///
/// As [`reset`].
#[track_caller]
pub fn restart(host: impl ToHost) {
    context::with(|w| w.host_op(host.to_host(w), HostOp::Start))
}

/// Pauses `host` (a stalled process): its tasks are not polled until
/// [`resume`], timers that fire meanwhile and packets that arrive wake them
/// only then. Its kernel keeps working (packets are delivered and
/// acknowledged). Timing as for [`reset`].
///
/// # Panics
///
/// As [`reset`].
#[track_caller]
pub fn pause(host: impl ToHost) {
    context::with(|w| w.host_op(host.to_host(w), HostOp::Pause))
}

/// Resumes a paused `host`: its tasks that were woken meanwhile become
/// runnable.
///
/// # Panics
///
/// On an unknown host, or outside a simulation.
#[track_caller]
pub fn resume(host: impl ToHost) {
    context::with(|w| w.pause_host(host.to_host(w), false))
}

/// Partitions `a` and `b` both ways: nothing crosses between them until
/// [`heal`]. Datagrams in flight between them are lost; stream segments
/// wait (TCP retransmits) and go through after the heal.
#[track_caller]
pub fn partition(a: impl ToHost, b: impl ToHost) {
    context::with(|w| {
        let (a, b) = (a.to_host(w), b.to_host(w));
        w.set_partitioned(a, b, true);
        w.set_partitioned(b, a, true);
    })
}

/// Partitions the link from `from` to `to` only: `to` still reaches `from`.
#[track_caller]
pub fn partition_oneway(from: impl ToHost, to: impl ToHost) {
    context::with(|w| w.set_partitioned(from.to_host(w), to.to_host(w), true))
}

/// Heals a partition between `a` and `b`, both ways.
#[track_caller]
pub fn heal(a: impl ToHost, b: impl ToHost) {
    context::with(|w| {
        let (a, b) = (a.to_host(w), b.to_host(w));
        w.set_partitioned(a, b, false);
        w.set_partitioned(b, a, false);
    })
}

/// Heals the link from `from` to `to` only.
#[track_caller]
pub fn heal_oneway(from: impl ToHost, to: impl ToHost) {
    context::with(|w| w.set_partitioned(from.to_host(w), to.to_host(w), false))
}

/// Partitions every host of `left` from every host of `right`, both ways
/// (hosts within a group still talk).
#[track_caller]
pub fn partition_groups<A: ToHost, B: ToHost>(left: &[A], right: &[B]) {
    context::with(|w| {
        for a in left {
            for b in right {
                let (a, b) = (a.to_host(w), b.to_host(w));
                w.set_partitioned(a, b, true);
                w.set_partitioned(b, a, true);
            }
        }
    })
}

/// Heals every partition between any two hosts.
#[track_caller]
pub fn heal_all() {
    context::with(|w| w.heal_all())
}

/// Replaces the settings of the link from `from` to `to` (one direction):
/// latency window, loss and duplication odds, partition flag. Packets
/// already in flight keep their windows.
#[track_caller]
pub fn set_link(from: impl ToHost, to: impl ToHost, config: LinkConfig) {
    context::with(|w| w.set_link(from.to_host(w), to.to_host(w), config))
}

/// The current settings of the link from `from` to `to`.
#[track_caller]
pub fn link(from: impl ToHost, to: impl ToHost) -> LinkConfig {
    context::with(|w| {
        let (a, b) = (w.net_host(from.to_host(w)), w.net_host(to.to_host(w)));
        w.net_ref(|net| net.link(a, b).clone())
    })
}
