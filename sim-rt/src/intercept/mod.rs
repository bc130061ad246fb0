//! No escape from the simulation: real time, OS randomness, threads,
//! sockets and files, seen from inside a simulation.
//!
//! Programs read the clock and the OS's randomness through std and other
//! crates (`Instant::now`, `SystemTime::now`, the keys of std's `HashMap`,
//! `rand`'s OS-seeded generators, `uuid::Uuid::new_v4`), all of which end in
//! a few libc functions. On Linux with glibc, sim_rt defines those functions
//! itself (`linux.rs`); a definition in the executable wins over libc's for
//! every call in the process, including std's (symbol interposition, as
//! madsim does). Each one looks at a thread-local flag: outside a simulation
//! it forwards to the real libc function, so other tests in the same
//! binary, real tokio and the explorer's worker threads see real time and
//! real randomness; inside one it answers from the simulation:
//!
//! | call | inside a simulation |
//! |---|---|
//! | `clock_gettime` (every clock id), `gettimeofday`, `time`, `syscall(SYS_clock_gettime / SYS_gettimeofday / SYS_time)` | simulated time: realtime clocks read [`WALL_CLOCK_EPOCH`] plus the simulation's clock, monotonic, boot and CPU-time clocks the simulation's clock |
//! | `getrandom`, `getentropy`, `syscall(SYS_getrandom)` | bytes from the execution's entropy stream, seeded from the simulation seed |
//! | `pthread_create` (`std::thread::spawn`) | refused (`EPERM`) with a message, unless inside [`allow_threads`] |
//! | `bind`, `connect`, `listen`, `send`, `sendto`, `sendmsg`, `sendmmsg` (`std::net`, socket2) | refused (`EPERM`) with a message |
//! | `epoll_create`/`epoll_create1` (a real tokio runtime / mio) | refused (`EPERM`) with a message |
//! | `getaddrinfo` (`std::net::ToSocketAddrs`, hyper-util's `GaiResolver`) | the simulation's names: a host's addresses, `localhost`, literals; anything else `EAI_NONAME` |
//! | the file calls (`open`, `read`, `write`, `fsync`, `stat`/`statx`, `rename`, `readdir`, ...: `std::fs`, `tempfile`, C code) | the calling task's host's simulated disk under the real files (`crate::fs::posix` says what each does; `/proc`, `/sys`, `/dev` stay real) |
//!
//! `socket` itself is allowed: a real socket that is never bound, connected
//! nor sent on reaches no network, and libraries create one before handing
//! it to tokio (hyper-util's connector makes a socket2 socket, sets options
//! on it, then calls `TcpSocket::from_std_stream`; sim_rt's
//! [`TcpSocket`](crate::net::TcpSocket) turns it into a simulated socket
//! and keeps the fd as a placeholder for its options). Every call that
//! would make such a socket reach the network is refused.
//!
//! A refused call prints what to use instead on stderr at once, and when the
//! program then panics on the error (`thread::spawn` does), the simulation's
//! failure report carries the same note.
//!
//! # Determinism
//!
//! The entropy stream is a xoshiro256++ generator owned by the simulation
//! (seeded with [`derive_seed`]`(seed,
//! ENTROPY_STREAM)`): it is fresh for every runtime built, so the two runs
//! of `SIM_CHECK_DETERMINISM` draw the same bytes, and it is separate from
//! the scheduler's stream, so intercepted reads do not change the schedule.
//!
//! Generators that cache OS randomness per thread keep their state between
//! simulations on the same thread: std's `RandomState` draws its keys once
//! per thread and then counts up, and `rand`'s `ThreadRng` is seeded once per
//! thread. Their values are a function of the seed when the simulation is
//! the first to use them on its thread, so every simulation sim_rt and the
//! explorer run themselves gets a fresh thread: each `#[test]` runs on one;
//! the determinism check of `#[sim_rt::test]`/`#[sim_rt::main]` runs its
//! first run on a thread started for it and its second on the test's own;
//! the explorer runs every execution (searches, replays, shrinking, liveness
//! walks) on a thread started for it. What stays outside: such state
//! created before the simulation and used inside it (a `RandomState` made
//! before `block_on`, or by the explorer's `runtime` closure), state kept in
//! a `static`, and a program's own loop of simulations on one thread. See
//! the guide's "No escape" chapter (`docs/src/no-escape.md`).
//!
//! # Invariants
//!
//! - The flags are `const`-initialised thread-locals without destructors,
//!   so the interposed functions can read them on any thread at any time
//!   (before `main`, during thread exit) without allocating or panicking.
//! - `ACTIVE` is true exactly while a simulation is current on this thread
//!   (set by `context::enter` and restored by its guard).
//! - No interposed function panics or unwinds (a panic across `extern "C"`
//!   aborts); failures of the simulation side fall back to a documented
//!   value.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::runtime::context;
use crate::scheduler::derive_seed;

#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
mod linux;

/// Whether this build intercepts time, randomness, threads and sockets:
/// Linux with glibc, dynamically linked, with the `intercept` feature (on by
/// default). Elsewhere the simulation still runs, but a program that reads
/// `std::time` or OS randomness inside it is not reproducible (the
/// determinism check, `SIM_CHECK_DETERMINISM=1`, catches it when the value
/// changes what the program does).
pub const SUPPORTED: bool = cfg!(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
));

/// The wall-clock time at the simulation's epoch: 2024-01-01T00:00:00Z, as
/// a duration since the Unix epoch.
///
/// Inside a simulation `SystemTime::now()` (and every realtime clock) reads
/// this plus the simulation's clock, which starts at a seed-derived point
/// between one day and one year after the epoch: so wall-clock dates in a
/// simulation fall in 2024, and differ between seeds.
pub const WALL_CLOCK_EPOCH: Duration = Duration::from_secs(1_704_067_200);

/// The stream of [`derive_seed`] that feeds intercepted randomness ("OSRAND").
pub(crate) const ENTROPY_STREAM: u64 = 0x4f53_5241_4e44;

thread_local! {
    /// A simulation is current on this thread.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    /// Depth of `without_interception` scopes on this thread.
    static SUSPENDED: Cell<u32> = const { Cell::new(0) };
    /// Depth of `allow_threads` scopes on this thread.
    static THREADS_ALLOWED: Cell<u32> = const { Cell::new(0) };
    /// The last call refused on this thread, for the failure report.
    static MISUSE: Cell<Option<Misuse>> = const { Cell::new(None) };
    /// The last simulated time read on this thread, should the world be
    /// unreachable (borrowed) when the clock is read.
    static LAST_NOW: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// A refused escape, remembered so the failure it causes can say why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Misuse {
    what: Escape,
    /// The simulation (runtime id) and the step it happened in.
    world: u64,
    step: u64,
}

/// What a program tried to do that leaves the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escape {
    Thread,
    Socket,
    Reactor,
    /// A writable shared `mmap` of a simulated file.
    SharedMap,
    /// `symlink` on the simulated disk.
    Symlink,
    /// `io_uring_setup`.
    IoUring,
}

impl Escape {
    fn note(self) -> &'static str {
        match self {
            Escape::Thread => {
                "a std thread was spawned inside a simulation (std::thread::spawn / \
                 pthread_create was refused). A thread runs outside the simulation's control, \
                 so the run could not be reproduced: use sim_rt::spawn (tokio::spawn) for \
                 concurrent work and sim_rt::task::spawn_blocking for blocking work; code that \
                 really needs a real thread can run inside sim_rt::sim::allow_threads(|| ...)"
            }
            Escape::Socket => {
                "a real socket was used inside a simulation (bind/connect/listen/send on a real \
                 socket was refused, e.g. by std::net::TcpStream::connect, UdpSocket::bind or a \
                 socket2 socket). Real I/O escapes the simulation: use sim_rt::net (tokio::net \
                 under --cfg sim, including TcpSocket::from_std_stream for a socket2 socket) to \
                 talk to simulated hosts; code that really needs a real socket can run inside \
                 sim_rt::sim::without_interception(|| ...)"
            }
            Escape::Reactor => {
                "a real I/O reactor was created inside a simulation (epoll_create was refused: a \
                 real tokio runtime, or mio). Real tokio does not run inside a simulation: build \
                 the crate with --cfg sim so that `tokio::` resolves to sim_rt, and use \
                 sim_rt's runtime and net types"
            }
            Escape::SharedMap => {
                "a simulated file was mapped shared and writable (mmap with MAP_SHARED and \
                 PROT_WRITE was refused with ENODEV). Writes through such a mapping would bypass \
                 the simulated disk's durability model: write the file with write/pwrite (a \
                 private or read-only mapping of a simulated file works, as a copy of its bytes)"
            }
            Escape::Symlink => {
                "a symlink was created on the simulated disk (symlink was refused with EPERM: \
                 the simulated disk has no symlinks). Use a hard link (std::fs::hard_link) or a \
                 copy; the real files' symlinks under the simulated disk are followed"
            }
            Escape::IoUring => {
                "io_uring was set up inside a simulation (io_uring_setup was refused with \
                 ENOSYS): the simulation cannot see its submissions. Use tokio::fs (sim_rt::fs) \
                 or std::fs, which run on the simulated disk"
            }
        }
    }

    /// Whether the note is said once per process (file-system notes, which
    /// a program may hit in a loop) rather than at every refusal.
    fn once(self) -> bool {
        matches!(self, Escape::SharedMap | Escape::Symlink | Escape::IoUring)
    }
}

/// Runs `f` with std threads allowed on this thread although a simulation
/// is current: `std::thread::spawn` works inside `f`.
///
/// The thread it spawns runs outside the simulation (no simulated clock, no
/// simulated network; real time and randomness there), concurrently with
/// it: whatever it does is not reproducible and must not reach the
/// simulation's behaviour. Meant for tests that need a helper thread (a
/// library that insists on one, a watchdog), not for the system under test.
///
/// # Examples
///
/// ```
/// # let rt = sim_rt::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let answer = sim_rt::sim::allow_threads(|| std::thread::spawn(|| 42).join().unwrap());
/// assert_eq!(answer, 42);
/// # });
/// ```
pub fn allow_threads<R>(f: impl FnOnce() -> R) -> R {
    let _scope = Scope::enter(&THREADS_ALLOWED);
    f()
}

/// Runs `f` with interception off on this thread: real time, OS randomness,
/// threads and sockets inside `f`, even inside a simulation.
///
/// For code that really needs the outside world (measuring real elapsed
/// time, a real connection to a test fixture). Whatever it reads is not
/// reproducible: if it changes what the simulation does, the determinism
/// check (`SIM_CHECK_DETERMINISM=1`) reports the step where two runs
/// diverged.
pub fn without_interception<R>(f: impl FnOnce() -> R) -> R {
    let _scope = Scope::enter(&SUSPENDED);
    f()
}

/// Whether reads of time and randomness on this thread are answered by a
/// simulation right now: a simulation is current, this build intercepts
/// ([`SUPPORTED`]), and no [`without_interception`] scope is open.
pub fn intercepting() -> bool {
    SUPPORTED && in_simulation()
}

/// Increments a depth counter until dropped (also on unwind).
struct Scope(&'static std::thread::LocalKey<Cell<u32>>);

impl Scope {
    fn enter(key: &'static std::thread::LocalKey<Cell<u32>>) -> Scope {
        key.with(|d| d.set(d.get() + 1));
        Scope(key)
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        self.0.with(|d| d.set(d.get() - 1));
    }
}

/// Called by `context::enter` and its guard: whether a simulation is now
/// current on this thread. Returns the previous value.
pub(crate) fn set_active(active: bool) -> bool {
    #[cfg(all(
        feature = "intercept",
        target_os = "linux",
        target_env = "gnu",
        not(target_feature = "crt-static")
    ))]
    linux::keep_linked();
    ACTIVE.with(|a| a.replace(active))
}

/// The fast check every interposed function makes first: one thread-local
/// read outside a simulation.
#[inline]
fn in_simulation() -> bool {
    ACTIVE.with(|a| a.get()) && SUSPENDED.with(|s| s.get()) == 0
}

fn threads_allowed() -> bool {
    THREADS_ALLOWED.with(|t| t.get()) > 0
}

/// The simulation's clock (time since its epoch), read without panicking.
fn sim_now() -> Duration {
    let now = context::try_current_quiet().and_then(|w| w.core.try_borrow().ok().map(|c| c.now));
    match now {
        Some(now) => {
            LAST_NOW.with(|l| l.set(now));
            now
        }
        // The world is being mutated (a destructor run by the runtime read
        // the clock): the clock has not moved since the last read.
        None => LAST_NOW.with(|l| l.get()),
    }
}

/// Fills `buf` from the current simulation's entropy stream. Returns false
/// when no simulation is reachable (the caller then fails the call).
fn sim_fill(buf: &mut [u8]) -> bool {
    let Some(world) = context::try_current_quiet() else {
        return false;
    };
    let Ok(mut rng) = world.entropy.0.try_borrow_mut() else {
        return false;
    };
    rng.fill_bytes(buf);
    true
}

/// Remembers a refused escape and says on stderr what to use instead.
fn refuse(what: Escape) {
    let (world, step) = context::try_current_quiet()
        .map(|w| (w.id, w.core.try_borrow().map_or(u64::MAX, |c| c.step)))
        .unwrap_or((0, u64::MAX));
    MISUSE.with(|m| m.set(Some(Misuse { what, world, step })));
    if what.once() {
        use std::sync::atomic::{AtomicU8, Ordering};
        static SAID: AtomicU8 = AtomicU8::new(0);
        let bit = 1 << (what as u8);
        if SAID.fetch_or(bit, Ordering::Relaxed) & bit != 0 {
            return;
        }
    }
    use std::io::Write;
    // Never panic here (we are inside an `extern "C"` function).
    let _ = writeln!(std::io::stderr(), "sim_rt: {}", what.note());
}

/// The note for a panic of the current simulation's current step, if that
/// step had a call refused: what the failure report adds to the message.
pub(crate) fn take_note() -> Option<&'static str> {
    let misuse = MISUSE.with(|m| m.take())?;
    let world = context::try_current_quiet()?;
    let step = world.core.try_borrow().map_or(u64::MAX, |c| c.step);
    (misuse.world == world.id && misuse.step == step).then(|| misuse.what.note())
}

/// Resolves `name` in the current simulation, as `sim_rt::net::lookup_host`
/// does: `None` when no simulation is reachable (or its network is being
/// used right now), else the model's answer.
#[cfg_attr(
    not(all(
        feature = "intercept",
        target_os = "linux",
        target_env = "gnu",
        not(target_feature = "crt-static")
    )),
    allow(dead_code)
)]
fn sim_resolve(name: &str) -> Option<std::io::Result<Vec<std::net::IpAddr>>> {
    let world = context::try_current_quiet()?;
    let net = world.net.try_borrow().ok()?;
    Some(net.net.resolve(name))
}

/// The generator behind intercepted randomness, one per simulation.
pub(crate) struct Entropy(RefCell<Xoshiro256PlusPlus>);

impl Entropy {
    pub(crate) fn new(seed: u64) -> Entropy {
        Entropy(RefCell::new(Xoshiro256PlusPlus::seed_from_u64(
            derive_seed(seed, ENTROPY_STREAM),
        )))
    }
}

impl std::fmt::Debug for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Entropy")
    }
}
