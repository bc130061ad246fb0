//! The thread-local switches of interception: whether a simulation is
//! current on this thread, the scopes that turn interception off or allow
//! std threads, and the last call interception refused. A leaf below the
//! runtime: `runtime::context` turns the switch on and off, the failure
//! report reads the refused call's note, and the interposed functions
//! (`crate::intercept`) read the switches first thing.
//!
//! The flags are `const`-initialised thread-locals without destructors, so
//! the interposed functions can read them on any thread at any time
//! (before `main`, during thread exit) without allocating or panicking.

use std::cell::Cell;

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

thread_local! {
    /// A simulation is current on this thread.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    /// Depth of `without_interception` scopes on this thread.
    static SUSPENDED: Cell<u32> = const { Cell::new(0) };
    /// Depth of `allow_threads` scopes on this thread.
    static THREADS_ALLOWED: Cell<u32> = const { Cell::new(0) };
    /// The last call refused on this thread, for the failure report.
    static MISUSE: Cell<Option<Misuse>> = const { Cell::new(None) };
    /// Calls for OS randomness made on this thread, inside a simulation
    /// or not (wrapping).
    static DRAWS: Cell<u32> = const { Cell::new(0) };
}

/// Notes that this thread asked for OS randomness (an interposed
/// `getrandom`, `getentropy` or `syscall(SYS_getrandom)`): per-thread
/// generators seed themselves so (std's `RandomState` keys, `rand`'s
/// thread generator) and keep what they drew for the thread's life.
#[inline]
pub(crate) fn note_entropy() {
    DRAWS.with(|d| d.set(d.get().wrapping_add(1)));
}

/// How many times this thread asked for OS randomness (wrapping): see
/// [`note_entropy`].
pub(crate) fn entropy_draws() -> u32 {
    DRAWS.with(Cell::get)
}

/// Where this thread's draw counter lives (`runtime::clean_thread` leaves
/// it out of what it restores).
pub(crate) fn draws_address() -> usize {
    DRAWS.with(|d| d as *const Cell<u32> as usize)
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
    /// `mknod` of a character or block device, or of a socket, on the
    /// simulated disk.
    Device,
    /// An `open` of a FIFO's entry that is not simulated: a blocking one
    /// without the other end, or through `sim_rt::fs`.
    FifoOpen,
    /// `io_uring_setup`.
    IoUring,
    /// A signal sent to another process.
    Signal,
    /// A raw, packet or netlink socket (or another family the simulation
    /// has no network for).
    RawSocket,
    /// A blocking socket call in a task that only another task could end.
    BlockingSocket,
}

impl Escape {
    pub(crate) fn note(self) -> &'static str {
        match self {
            Escape::Thread => {
                "a std thread could not be started as a simulated thread (pthread_create \
                 failed: the simulation was not reachable from the calling code, as in a \
                 destructor the runtime runs). Start it from a task or a simulated thread; code \
                 that really needs a real thread can run inside \
                 sim_rt::sim::allow_threads(|| ...)"
            }
            Escape::Socket => {
                "a real socket, made outside the simulation, was used inside it (bind/connect/\
                 listen/send on it was refused). Sockets made inside a simulation (std::net, \
                 socket2, std::os::unix::net) are simulated; one made before it started reaches \
                 the real network, which escapes the simulation: make it inside, or use \
                 sim_rt::net (tokio::net under --cfg sim, including TcpSocket::from_std_stream \
                 for a socket2 socket); code that really needs a real socket can run inside \
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
            Escape::Device => {
                "a device or socket node was made on the simulated disk (mknod with S_IFCHR, \
                 S_IFBLK or S_IFSOCK was refused with EPERM: the simulated disk has no devices). \
                 Use mkfifo for a named pipe, bind a tokio::net::UnixListener for a socket's \
                 entry, and the real devices under /dev, which stay real"
            }
            Escape::FifoOpen => {
                "a FIFO (named pipe) was opened inside a simulation in a way that is not \
                 simulated (it failed with ENXIO): a blocking open while the other end is not \
                 open (Linux would wait for it), or an open through tokio::fs (sim_rt::fs::File). \
                 Open it with O_NONBLOCK through std or libc (tokio's net::unix::pipe::OpenOptions \
                 does), which gives an end of the simulated pipe"
            }
            Escape::Signal => {
                "a signal was sent to another process from inside a simulation (kill was \
                 refused with EPERM): processes are not simulated. Send a signal to a simulated \
                 host with sim_rt::sim::send_signal; a signal a program sends to itself \
                 (kill(getpid(), ..), raise) reaches its own host's tokio::signal listeners"
            }
            Escape::RawSocket => {
                "a raw, packet or netlink socket was created inside a simulation (socket was \
                 refused: EPERM for SOCK_RAW/SOCK_PACKET, EAFNOSUPPORT for a family other than \
                 AF_INET, AF_INET6 and AF_UNIX): the simulated network has no link layer, no \
                 ICMP and no routing tables, and the real ones would escape it. Use TCP, UDP or \
                 Unix sockets between simulated hosts; code that really needs one can run inside \
                 sim_rt::sim::without_interception(|| ...)"
            }
            Escape::BlockingSocket => {
                "a blocking socket call in a task waited for something only another task could \
                 do (it failed with EDEADLK): on tokio the worker thread would block in the call \
                 and the other task would never run. Make the call from spawn_blocking or a std \
                 thread (a simulated thread, which waits for its turn), or use the tokio::net \
                 type (from_std converts the socket)"
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
    pub(crate) fn once(self) -> bool {
        matches!(
            self,
            Escape::SharedMap
                | Escape::Symlink
                | Escape::Device
                | Escape::FifoOpen
                | Escape::IoUring
                | Escape::RawSocket
        )
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
/// # let rt = sim_rt::runtime::Builder::new_current_thread().enable_all().build().unwrap();
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

/// The fast check every interposed function makes first: one thread-local
/// read outside a simulation.
#[inline]
pub(crate) fn in_simulation() -> bool {
    ACTIVE.with(|a| a.get()) && SUSPENDED.with(|s| s.get()) == 0
}

/// Whether interception is off on this thread (inside
/// [`without_interception`]): the runtime's own real waits.
#[inline]
pub(crate) fn suspended() -> bool {
    SUSPENDED.with(|s| s.get()) > 0
}

pub(crate) fn threads_allowed() -> bool {
    THREADS_ALLOWED.with(|t| t.get()) > 0
}

/// Called by `intercept::set_active` (from `context::enter` and its
/// guard): whether a simulation is now current on this thread. Returns
/// the previous value.
pub(crate) fn set_active(active: bool) -> bool {
    ACTIVE.with(|a| a.replace(active))
}

/// Says `what`'s note on stderr: once per process for a note said once
/// ([`Escape::once`]), else every time. Never panics (the callers include
/// `extern "C"` functions).
pub(crate) fn say(what: Escape) {
    if what.once() {
        use std::sync::atomic::{AtomicU32, Ordering};
        // One bit per kind of escape (there are fewer than 32).
        static SAID: AtomicU32 = AtomicU32::new(0);
        let bit = 1 << (what as u32);
        if SAID.fetch_or(bit, Ordering::Relaxed) & bit != 0 {
            return;
        }
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "sim_rt: {}", what.note());
}

/// Remembers a call refused in `world` (a runtime id) at `step`, for
/// [`take_note`].
pub(crate) fn note_refusal(what: Escape, world: u64, step: u64) {
    MISUSE.with(|m| m.set(Some(Misuse { what, world, step })));
}

/// The note for a panic of the current simulation's current step, if that
/// step had a call refused: what the failure report adds to the message.
/// `world` and `step` say which simulation and step are current (the
/// caller reads them: this module looks at no simulation).
pub(crate) fn take_note(world: u64, step: u64) -> Option<&'static str> {
    let misuse = MISUSE.with(|m| m.take())?;
    (misuse.world == world && misuse.step == step).then(|| misuse.what.note())
}
