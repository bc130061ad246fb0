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
//! | `pthread_create` (`std::thread::spawn`), `pthread_join`, `sched_yield`, `nanosleep`, `syscall(SYS_futex)` | a simulated thread, run one at a time under the scheduler; its blocking calls give the turn back (`runtime::world::threads`); a real thread inside [`allow_threads`] |
//! | `socket(AF_UNIX)`, `socketpair`, and on such a socket `bind`, `listen`, `accept`/`accept4`, `connect`, `read`/`write`/`readv`/`writev`, `recv`/`recvfrom`/`recvmsg`, `send`/`sendto`/`sendmsg`, `shutdown`, `getsockname`/`getpeername`, `getsockopt`/`setsockopt` (`SO_ERROR`, `SO_PEERCRED`, `SO_RCVTIMEO`, `SO_SNDTIMEO`), `ioctl` (`FIONBIO`, `FIONREAD`), `fcntl`, `dup`, `close` (`std::os::unix::net`) | a Unix domain socket of the calling task's host, the one `tokio::net`'s Unix types use (`disk::posix::sock`); a blocking call waits as a simulated thread waits |
//! | `socket(AF_INET/AF_INET6)` and the same calls on such a socket (`std::net`, socket2) | a TCP or UDP socket of the calling task's host on the simulated network (`disk::posix::ip`) |
//! | `bind`, `connect`, `listen`, `send`, `sendto`, `sendmsg`, `sendmmsg` on a real socket made before the simulation | refused (`EPERM`) with a message |
//! | `socket` of a raw or packet type (`EPERM`) or of a family other than `AF_INET`, `AF_INET6`, `AF_UNIX` (`EAFNOSUPPORT`: netlink, `AF_PACKET`) | refused, with a message said once |
//! | `kill`, `killpg`, `raise`, `pthread_kill`, `syscall(SYS_kill / SYS_tgkill / SYS_tkill)` | a signal to the calling process (or its group) raised on the calling task's host, seen by its `tokio::signal` listeners when the raising poll returns (`crate::signal`); one to another process refused (`EPERM`) with a message; `SIGKILL`, `SIGSTOP`, `SIGSEGV`, `SIGILL`, `SIGFPE`, `SIGABRT` real |
//! | `epoll_create`/`epoll_create1` (a real tokio runtime / mio) | refused (`EPERM`) with a message |
//! | `getaddrinfo` (`std::net::ToSocketAddrs`, hyper-util's `GaiResolver`) | the simulation's names: a host's addresses, `localhost`, literals; anything else `EAI_NONAME` |
//! | the file calls (`open`, `read`, `write`, `fsync`, `stat`/`statx`, `rename`, `readdir`, ...: `std::fs`, `tempfile`, C code) | the calling task's host's simulated disk under the real files (`crate::disk::posix` says what each does; `/proc`, `/sys`, `/dev` stay real) |
//! | `mkfifo`, `mkfifoat`, `mknod`, `mknodat` (`nix::unistd::mkfifo`, C code) | a FIFO's entry (or an empty file) on the simulated disk, whose `open` gives an end of the host's pipe for it (`disk::posix::pipe`); a device or socket node refused (`EPERM`) with a message |
//! | `pipe`, `pipe2`, and `read`/`write`/`close`/`dup`/`fcntl`/`ioctl(FIONREAD, FIONBIO)` on a pipe's end | a pipe of the calling task's host (`disk::posix::pipe`); a blocking call waits as a simulated thread waits |
//! | `poll`, `ppoll`, `select`, `pselect` on a set holding a simulated descriptor (std's `connect_timeout`) | what Linux's `poll` would report from the models, waiting on the simulated clock (`disk::posix::poll`); a set of real descriptors only is the real call's |
//!
//! A socket made inside a simulation is the real one `socket` returns,
//! never bound, connected nor sent on for real (the kernel keeps its
//! options), standing for a socket of the simulated network: libraries
//! that create one before handing it to tokio (hyper-util's connector makes
//! a socket2 socket, sets options on it, then calls
//! `TcpSocket::from_std_stream`) keep working, and std's own calls on it
//! reach the simulation. A real socket made before the simulation stays
//! real, and every call that would make it reach the network inside the
//! simulation is refused.
//!
//! A refused call prints what to use instead on stderr at once, and when the
//! program then panics on the error (`thread::spawn` does), the simulation's
//! failure report carries the same note.
//!
//! # Determinism
//!
//! The entropy stream is a xoshiro256++ generator owned by the simulation
//! (seeded with [`derive_seed`](crate::scheduler::derive_seed)`(seed,
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

use std::cell::Cell;
use std::time::Duration;

use crate::runtime::context;
pub use crate::switches::{allow_threads, intercepting, without_interception, SUPPORTED};
use crate::switches::{note_refusal, say, Escape};

#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
mod linux;

/// The wall-clock time at the simulation's epoch: 2024-01-01T00:00:00Z, as
/// a duration since the Unix epoch.
///
/// Inside a simulation `SystemTime::now()` (and every realtime clock) reads
/// this plus the simulation's clock, which starts at a seed-derived point
/// between one day and one year after the epoch: so wall-clock dates in a
/// simulation fall in 2024, and differ between seeds.
pub const WALL_CLOCK_EPOCH: Duration = Duration::from_secs(1_704_067_200);

thread_local! {
    /// The last simulated time read on this thread, should the world be
    /// unreachable (borrowed) when the clock is read.
    static LAST_NOW: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// Forgets the last simulated time read on this thread, as on a fresh
/// thread (`runtime::clean_thread`).
pub(crate) fn reset_thread_clock() {
    LAST_NOW.with(|l| l.set(Duration::ZERO));
}

/// Makes the linker keep every interposed function: called when a
/// runtime is built, before any simulation can be current.
pub(crate) fn keep_linked() {
    #[cfg(all(
        feature = "intercept",
        target_os = "linux",
        target_env = "gnu",
        not(target_feature = "crt-static")
    ))]
    linux::keep_linked();
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
    world.entropy.fill(buf)
}

/// Remembers a refused escape and says on stderr what to use instead.
pub(crate) fn refuse(what: Escape) {
    let (world, step) = context::try_current_quiet()
        .map(|w| (w.id, w.core.try_borrow().map_or(u64::MAX, |c| c.step)))
        .unwrap_or((0, u64::MAX));
    note_refusal(what, world, step);
    say(what);
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
