//! The interposed libc functions (Linux, glibc, dynamic linking).
//!
//! Each `#[no_mangle]` function here is defined in the executable that links
//! sim_rt, so the static linker binds std's (and every Rust crate's) calls to
//! it, and, because libc also defines the name, the linker exports it, so the
//! dynamic linker resolves shared libraries' calls and
//! `dlsym(RTLD_DEFAULT, ..)` lookups (std's weak `getrandom`, the `getrandom`
//! crate) to it too. Outside a simulation each one forwards to the next
//! definition, libc's, found once with `dlsym(RTLD_NEXT, ..)`.
//!
//! # Invariants
//!
//! - Nothing here panics or unwinds: errors become a return value and
//!   `errno`, as libc would report them.
//! - The outside-simulation path is one thread-local read, then the
//!   forward (a cached function pointer).
//! - `syscall` is defined with six fixed arguments after the number: on the
//!   System V x86-64 and AAPCS64 ABIs a variadic caller passes integer
//!   arguments exactly where a fixed-argument callee reads them, and a
//!   syscall never takes more than six. Arguments the caller did not pass
//!   are garbage that the forwarded syscall ignores.

use std::ffi::{c_char, c_int, c_long, c_uint, c_void, CStr};
use std::net::IpAddr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::time::Duration;

use libc::{
    addrinfo, clockid_t, mmsghdr, msghdr, size_t, sockaddr, socklen_t, ssize_t, time_t, timespec,
    timeval,
};

use super::{refuse, sim_fill, sim_now, sim_resolve, WALL_CLOCK_EPOCH};
use crate::switches::{in_simulation, Escape};

/// Finds libc's definition of `name` (the next one after ours) once.
fn next(slot: &AtomicPtr<c_void>, name: &CStr) -> *mut c_void {
    let p = slot.load(Ordering::Relaxed);
    if !p.is_null() {
        return p;
    }
    // SAFETY: `name` is a NUL-terminated string; RTLD_NEXT is valid from
    // code in the executable.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    if p.is_null() {
        let msg = b"sim_rt: dlsym(RTLD_NEXT) found no libc definition of an intercepted function; \
                    build with sim-rt's `intercept` feature off on this platform\n";
        // SAFETY: writing a static buffer to stderr, then aborting (we
        // cannot forward and must not unwind).
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::abort();
        }
    }
    slot.store(p, Ordering::Relaxed);
    p
}

/// `real!(name: fn(args) -> ret)`: libc's `name` (a C string literal, or
/// a table entry's `NAME`), as a function pointer.
macro_rules! real {
    ($name:tt: $ty:ty) => {{
        static SLOT: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
        let p = next(&SLOT, $name);
        // SAFETY: `p` is libc's definition of the function of that name,
        // whose C signature is `$ty`. (Used inside `unsafe` blocks too.)
        #[allow(unused_unsafe)]
        let f = unsafe { std::mem::transmute::<*mut c_void, $ty>(p) };
        f
    }};
}

/// `interpose! { forward: real; entries }`: the table of interposed
/// functions, each declared once. An entry is a function's docs, then
/// `fn name(args) -> ret` and its body; the table defines it as the
/// `#[no_mangle] pub unsafe extern "C"` function `name`, and yields `KEPT`,
/// the address of every function it defines, for [`keep_linked`].
/// `fn name | name64(args)` defines both names with the same body, each
/// still forwarding to its own libc definition: libc's 64-bit-offset twins
/// (the same function on 64-bit Linux), or two calls of one C signature
/// whose body tells them apart by `NAME`.
///
/// In a body, `real()` (the name the table's first line gives it) is the
/// forward: libc's `name` called with the same arguments, found on first
/// use and then cached. `NAME` is the function's name as a C string, for
/// `real!` with other arguments or another type (libc's variadic ones).
macro_rules! interpose {
    (
        forward: $real:ident;
        $(
            $(#[$meta:meta])*
            fn $($name:ident)|+ ($($args:tt)*) $(-> $ret:ty)? $body:block
        )*
    ) => {
        $(interpose!(@names $real [$(#[$meta])*] [$($name)+] ($($args)*) [$($ret)?] $body);)*

        /// The address of every function of this table (see `keep_linked`).
        pub(super) const KEPT: &[*const ()] = &[$($($name as *const ()),+),*];
    };
    (@names $real:ident $metas:tt [$($name:ident)+] $args:tt $ret:tt $body:block) => {
        $(interpose!(@fn $real $metas $name $args $ret $body);)+
    };
    (
        @fn $real:ident [$(#[$meta:meta])*] $name:ident
        ($($arg:ident: $ty:ty),* $(,)?) [$($ret:ty)?] $body:block
    ) => {
        $(#[$meta])*
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            #[allow(dead_code)]
            const NAME: &std::ffi::CStr =
                crate::intercept::linux::c_name(concat!(stringify!($name), "\0"));
            #[allow(unused_variables)]
            let $real = move || real!(NAME: unsafe extern "C" fn($($ty),*) $(-> $ret)?)($($arg),*);
            $body
        }
    };
}

/// `s`, which ends in its only NUL byte, as a C string (at compile time).
const fn c_name(s: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(name) => name,
        Err(_) => panic!("an interposed function's name holds no NUL byte"),
    }
}

fn set_errno(e: c_int) {
    // SAFETY: `__errno_location` returns this thread's errno.
    unsafe { *libc::__errno_location() = e }
}

/// Every interposed function's address, in a static that [`keep_linked`]
/// names (for the linker only: nothing reads it).
#[allow(dead_code)]
struct Kept([&'static [*const ()]; 4]);

// SAFETY: the pointers are only addresses, never dereferenced or called
// through; a static of them is shared by nothing but the linker.
unsafe impl Sync for Kept {}

static ALL_KEPT: Kept = Kept([KEPT, fs::KEPT, sock::KEPT, threads::KEPT]);

/// References every interposed function, so the object file holding them
/// is linked (and kept) whenever the runtime is: an unreferenced member of
/// an rlib is not pulled into the executable. Names a static rather than
/// building the table on the stack: it runs each time a simulation is
/// entered (about 230 instructions each time, before).
pub(super) fn keep_linked() {
    std::hint::black_box(&ALL_KEPT);
}

// ----- time ------------------------------------------------------------------

pub(super) fn is_wall_clock(clock: clockid_t) -> bool {
    matches!(
        clock,
        libc::CLOCK_REALTIME
            | libc::CLOCK_REALTIME_COARSE
            | libc::CLOCK_REALTIME_ALARM
            | libc::CLOCK_TAI
    )
}

/// Simulated time on `clock`: the wall clock is the epoch plus the
/// simulation's clock; every other clock (monotonic, boot, and the
/// process and thread CPU-time clocks, since computation takes no simulated
/// time) is the simulation's clock.
fn sim_clock(clock: clockid_t) -> Duration {
    let now = sim_now();
    if is_wall_clock(clock) {
        WALL_CLOCK_EPOCH + now
    } else {
        now
    }
}

fn to_timespec(d: Duration) -> timespec {
    timespec {
        tv_sec: d.as_secs() as time_t,
        tv_nsec: d.subsec_nanos() as c_long,
    }
}

/// The static clock ids the kernel knows; negative ids are dynamic clocks
/// (a process's or thread's CPU clock by pid/tid, PTP devices).
fn is_static_clock(clock: clockid_t) -> bool {
    (0..=libc::CLOCK_TAI).contains(&clock)
}

/// Says once per process that a real sleep happened inside a simulation:
/// it blocks the simulation's only thread while simulated time stands
/// still, so it neither lets other tasks run nor moves the clock.
fn note_real_sleep() {
    use std::sync::atomic::AtomicBool;
    static NOTED: AtomicBool = AtomicBool::new(false);
    if !NOTED.swap(true, Ordering::Relaxed) {
        use std::io::Write;
        // Never panic here (we are inside an `extern "C"` function).
        let _ = writeln!(
            std::io::stderr(),
            "sim_rt: std::thread::sleep inside a simulation sleeps in real time and blocks \
             every simulated task, while simulated time does not move; await \
             tokio::time::sleep instead (said once per process)"
        );
    }
}

// ----- randomness ------------------------------------------------------------

/// Fills `len` bytes at `buf` from the simulation's entropy stream, as
/// `getrandom(2)` would (every flag is satisfied: the stream never blocks).
unsafe fn fill_raw(buf: *mut c_void, len: size_t) -> ssize_t {
    if len == 0 {
        return 0;
    }
    if buf.is_null() {
        set_errno(libc::EFAULT);
        return -1;
    }
    // SAFETY: the caller passes a buffer valid for `len` bytes of writes;
    // it may be uninitialised, so zero it before making a slice of it.
    let slice = unsafe {
        std::ptr::write_bytes(buf.cast::<u8>(), 0, len);
        std::slice::from_raw_parts_mut(buf.cast::<u8>(), len)
    };
    if sim_fill(slice) {
        len as ssize_t
    } else {
        set_errno(libc::EAGAIN);
        -1
    }
}

/// Whether futex operation `op` waits (`FUTEX_WAIT`, `FUTEX_WAIT_BITSET`),
/// whatever its private and clock flags.
fn is_futex_wait(op: c_long) -> bool {
    let cmd = op as c_int & !(libc::FUTEX_PRIVATE_FLAG | libc::FUTEX_CLOCK_REALTIME);
    cmd == libc::FUTEX_WAIT || cmd == libc::FUTEX_WAIT_BITSET
}

// ----- threads and real I/O --------------------------------------------------

pub(super) type StartRoutine = extern "C" fn(*mut c_void) -> *mut c_void;

/// Refuses to make a real reactor (a real tokio runtime's epoll) inside a
/// simulation: remembers it for the failure report, says so, `EPERM`.
fn refuse_reactor() -> c_int {
    refuse(Escape::Reactor);
    set_errno(libc::EPERM);
    -1
}

/// Refuses a call that would reach the network from inside a simulation:
/// remembers it for the failure report, says so on stderr, `EPERM`.
/// The errno a socket of `domain` and `ty` is refused with inside a
/// simulation, if it is: one the simulated network could not carry.
fn socket_refusal(domain: c_int, ty: c_int) -> Option<c_int> {
    let kind = ty & !(libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC);
    if !matches!(domain, libc::AF_INET | libc::AF_INET6 | libc::AF_UNIX) {
        return Some(libc::EAFNOSUPPORT);
    }
    // Linux's obsolete `SOCK_PACKET` (10), which libc marks deprecated.
    const SOCK_PACKET: c_int = 10;
    if matches!(kind, libc::SOCK_RAW | SOCK_PACKET) {
        return Some(libc::EPERM);
    }
    None
}

/// `buf`/`len` as a slice (empty for a zero length).
///
/// # Safety
///
/// `buf` is valid for `len` bytes.
unsafe fn sim_bytes<'a>(buf: *const c_void, len: size_t) -> &'a [u8] {
    if len == 0 || buf.is_null() {
        return &[];
    }
    // SAFETY: forwarded.
    unsafe { std::slice::from_raw_parts(buf.cast(), len) }
}

fn refuse_socket() -> c_int {
    refuse(Escape::Socket);
    set_errno(libc::EPERM);
    -1
}

// ----- signals ---------------------------------------------------------------

/// Whether `sig` stays real when a simulated program sends it to itself:
/// the signals no handler can catch (tokio refuses to listen for them) and
/// `SIGABRT`, whose sender means the process to end.
fn stays_real(sig: c_int) -> bool {
    matches!(
        sig,
        libc::SIGKILL | libc::SIGSTOP | libc::SIGILL | libc::SIGFPE | libc::SIGSEGV | libc::SIGABRT
    )
}

/// Raises `sig`, sent by the program to its own process, on the calling
/// task's simulated host: 0, or -1 with `errno` (`EINVAL` for a number
/// that is no signal, `EAGAIN` when the simulation is unreachable from
/// here). Signal 0 only asks whether the process exists.
fn raise_simulated(sig: c_int) -> c_int {
    if sig == 0 {
        return 0;
    }
    if !(1..=libc::SIGRTMAX()).contains(&sig) {
        set_errno(libc::EINVAL);
        return -1;
    }
    if crate::signal::raise(sig) {
        0
    } else {
        set_errno(libc::EAGAIN);
        -1
    }
}

/// Whether `pid`, as `kill` takes it, is the calling process or its
/// process group (0, or minus the group's id).
fn is_own_process(pid: libc::pid_t) -> bool {
    // SAFETY: getpid and getpgrp cannot fail.
    pid == 0 || pid == unsafe { libc::getpid() } || pid == -unsafe { libc::getpgrp() }
}

/// Refuses a signal to another process from inside a simulation:
/// remembers it for the failure report, says so on stderr, `EPERM`.
fn refuse_signal() -> c_int {
    refuse(Escape::Signal);
    set_errno(libc::EPERM);
    -1
}

/// What `kill(pid, sig)` does here: `None` to forward it to libc, else
/// what the call returns. Inside a simulation, a signal to the calling
/// process is raised on the calling task's host and one to another process
/// refused. Outside every simulation, a signal to the calling process goes
/// to the hosts of this thread's simulations that listen for it (a program
/// signalling itself between two `block_on`s), and is real when none does.
/// The signals that stay real always do.
fn signal_call(pid: libc::pid_t, sig: c_int) -> Option<c_int> {
    if stays_real(sig) {
        return None;
    }
    if in_simulation() {
        return Some(if is_own_process(pid) {
            raise_simulated(sig)
        } else {
            refuse_signal()
        });
    }
    if sig == 0 || crate::switches::suspended() || !is_own_process(pid) {
        return None;
    }
    crate::signal::raise_outside(sig).then_some(0)
}

// ----- name resolution -------------------------------------------------------

/// One entry of a `getaddrinfo` answer, before allocation.
struct GaiEntry {
    addr: std::net::SocketAddr,
    socktype: c_int,
    protocol: c_int,
    canonname: Option<Vec<u8>>,
}

/// The answer to `getaddrinfo(node, service, hints)` in the current
/// simulation, or its `EAI_*` error.
fn sim_getaddrinfo(
    node: Option<&CStr>,
    service: Option<&CStr>,
    hints: Option<&addrinfo>,
) -> Result<Vec<GaiEntry>, c_int> {
    let (flags, family, socktype, protocol) = hints.map_or((0, libc::AF_UNSPEC, 0, 0), |h| {
        (h.ai_flags, h.ai_family, h.ai_socktype, h.ai_protocol)
    });
    if !matches!(family, libc::AF_UNSPEC | libc::AF_INET | libc::AF_INET6) {
        return Err(libc::EAI_FAMILY);
    }
    let types: &[(c_int, c_int)] = match socktype {
        0 => &[
            (libc::SOCK_STREAM, libc::IPPROTO_TCP),
            (libc::SOCK_DGRAM, libc::IPPROTO_UDP),
            (libc::SOCK_RAW, 0),
        ],
        libc::SOCK_STREAM => &[(libc::SOCK_STREAM, libc::IPPROTO_TCP)],
        libc::SOCK_DGRAM => &[(libc::SOCK_DGRAM, libc::IPPROTO_UDP)],
        libc::SOCK_RAW => &[(libc::SOCK_RAW, 0)],
        _ => return Err(libc::EAI_SOCKTYPE),
    };
    let port = match service.map(|s| s.to_str()) {
        None => 0,
        Some(Ok(s)) => match s.parse::<u16>() {
            Ok(port) => port,
            Err(_) if flags & libc::AI_NUMERICSERV != 0 => return Err(libc::EAI_NONAME),
            Err(_) => return Err(libc::EAI_SERVICE),
        },
        Some(Err(_)) => return Err(libc::EAI_SERVICE),
    };
    let ips: Vec<IpAddr> = match node {
        None if service.is_none() => return Err(libc::EAI_NONAME),
        None if flags & libc::AI_PASSIVE != 0 => vec![
            std::net::Ipv4Addr::UNSPECIFIED.into(),
            std::net::Ipv6Addr::UNSPECIFIED.into(),
        ],
        None => vec![
            std::net::Ipv4Addr::LOCALHOST.into(),
            std::net::Ipv6Addr::LOCALHOST.into(),
        ],
        Some(name) => {
            let name = name.to_str().map_err(|_| libc::EAI_NONAME)?;
            if flags & libc::AI_NUMERICHOST != 0 {
                vec![name.parse::<IpAddr>().map_err(|_| libc::EAI_NONAME)?]
            } else {
                match sim_resolve(name) {
                    None => return Err(libc::EAI_AGAIN),
                    Some(Err(_)) => return Err(libc::EAI_NONAME),
                    Some(Ok(ips)) => ips,
                }
            }
        }
    };
    let mut kept: Vec<IpAddr> = ips
        .iter()
        .copied()
        .filter(|ip| match family {
            libc::AF_INET => ip.is_ipv4(),
            libc::AF_INET6 => ip.is_ipv6(),
            _ => true,
        })
        .collect();
    if kept.is_empty() && family == libc::AF_INET6 && flags & libc::AI_V4MAPPED != 0 {
        kept = ips
            .iter()
            .filter_map(|ip| match ip {
                IpAddr::V4(v4) => Some(IpAddr::V6(v4.to_ipv6_mapped())),
                IpAddr::V6(_) => None,
            })
            .collect();
    }
    if kept.is_empty() {
        return Err(libc::EAI_NONAME);
    }
    let canonname = (flags & libc::AI_CANONNAME != 0)
        .then(|| node.map(|n| n.to_bytes_with_nul().to_vec()))
        .flatten();
    let mut entries = Vec::with_capacity(kept.len() * types.len());
    for ip in kept {
        for &(socktype, default_protocol) in types {
            entries.push(GaiEntry {
                addr: std::net::SocketAddr::new(ip, port),
                socktype,
                protocol: if protocol != 0 {
                    protocol
                } else {
                    default_protocol
                },
                canonname: None,
            });
        }
    }
    entries[0].canonname = canonname;
    Ok(entries)
}

/// Allocates `entries` as a glibc-shaped `addrinfo` list (see
/// [`getaddrinfo`]); `None` (with everything freed) when `malloc` fails.
fn alloc_list(entries: &[GaiEntry]) -> Option<*mut addrinfo> {
    use std::mem::size_of;
    let mut head: *mut addrinfo = std::ptr::null_mut();
    // Built back to front, so each entry links to the one built before.
    for e in entries.iter().rev() {
        let size = size_of::<addrinfo>() + size_of::<libc::sockaddr_in6>();
        // SAFETY: plain allocation; checked for null below.
        let block = unsafe { libc::calloc(1, size) }.cast::<addrinfo>();
        let canon = match &e.canonname {
            Some(name) => {
                // SAFETY: as above.
                let p = unsafe { libc::malloc(name.len()) }.cast::<c_char>();
                if !p.is_null() {
                    // SAFETY: `p` holds `name.len()` bytes.
                    unsafe { std::ptr::copy_nonoverlapping(name.as_ptr().cast(), p, name.len()) };
                }
                p
            }
            None => std::ptr::null_mut(),
        };
        if block.is_null() || (e.canonname.is_some() && canon.is_null()) {
            // SAFETY: freeing what this function allocated (free(NULL) is
            // a no-op); `head` is a list in glibc's shape.
            unsafe {
                libc::free(block.cast());
                libc::free(canon.cast());
                libc::freeaddrinfo(head);
            }
            return None;
        }
        // SAFETY: `block` holds an `addrinfo` followed by room for a
        // `sockaddr_in6` (which is 4-aligned; `addrinfo`'s size is a
        // multiple of 8), zeroed by calloc.
        unsafe {
            let addr = block.add(1).cast::<u8>();
            let addr_len = match e.addr {
                std::net::SocketAddr::V4(a) => {
                    let sin = addr.cast::<libc::sockaddr_in>();
                    (*sin).sin_family = libc::AF_INET as libc::sa_family_t;
                    (*sin).sin_port = a.port().to_be();
                    (*sin).sin_addr.s_addr = u32::from_ne_bytes(a.ip().octets());
                    size_of::<libc::sockaddr_in>()
                }
                std::net::SocketAddr::V6(a) => {
                    let sin6 = addr.cast::<libc::sockaddr_in6>();
                    (*sin6).sin6_family = libc::AF_INET6 as libc::sa_family_t;
                    (*sin6).sin6_port = a.port().to_be();
                    (*sin6).sin6_flowinfo = a.flowinfo().to_be();
                    (*sin6).sin6_addr.s6_addr = a.ip().octets();
                    (*sin6).sin6_scope_id = a.scope_id();
                    size_of::<libc::sockaddr_in6>()
                }
            };
            (*block).ai_family = if e.addr.is_ipv4() {
                libc::AF_INET
            } else {
                libc::AF_INET6
            };
            (*block).ai_socktype = e.socktype;
            (*block).ai_protocol = e.protocol;
            (*block).ai_addrlen = addr_len as socklen_t;
            (*block).ai_addr = addr.cast::<sockaddr>();
            (*block).ai_canonname = canon;
            (*block).ai_next = head;
        }
        head = block;
    }
    Some(head)
}

interpose! {
    forward: real;

    // ----- time ------------------------------------------------------------------

    /// Interposed `clock_gettime`: `Instant::now` (CLOCK_MONOTONIC) and
    /// `SystemTime::now` (CLOCK_REALTIME) in std.
    ///
    /// # Safety
    ///
    /// As libc's: `tp` is valid for writes.
    fn clock_gettime(clock: clockid_t, tp: *mut timespec) -> c_int {
        if !in_simulation() || !is_static_clock(clock) {
            return real();
        }
        if tp.is_null() {
            set_errno(libc::EFAULT);
            return -1;
        }
        // SAFETY: the caller passes a valid `timespec` pointer (checked non-null).
        unsafe { tp.write(to_timespec(sim_clock(clock))) };
        0
    }

    /// Interposed `gettimeofday`.
    ///
    /// # Safety
    ///
    /// As libc's: `tv` is null or valid for writes.
    fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
        if !in_simulation() {
            return real();
        }
        if !tv.is_null() {
            let d = sim_clock(libc::CLOCK_REALTIME);
            // SAFETY: the caller passes a valid `timeval` pointer (non-null).
            unsafe {
                tv.write(timeval {
                    tv_sec: d.as_secs() as time_t,
                    tv_usec: d.subsec_micros() as libc::suseconds_t,
                })
            };
        }
        // The timezone argument is obsolete; glibc fills it with zeros.
        if !tz.is_null() {
            // SAFETY: a non-null `tz` points to a `struct timezone` (two ints).
            unsafe { tz.cast::<[c_int; 2]>().write([0, 0]) };
        }
        0
    }

    /// Interposed `time`.
    ///
    /// # Safety
    ///
    /// As libc's: `t` is null or valid for writes.
    fn time(t: *mut time_t) -> time_t {
        if !in_simulation() {
            return real();
        }
        let secs = sim_clock(libc::CLOCK_REALTIME).as_secs() as time_t;
        if !t.is_null() {
            // SAFETY: the caller passes a valid pointer (non-null).
            unsafe { t.write(secs) };
        }
        secs
    }

    /// Interposed `nanosleep` (`std::thread::sleep`): sleeps, and inside a
    /// simulation says once that it does not do what the program means.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn nanosleep(req: *const timespec, rem: *mut timespec) -> c_int {
        if in_simulation() && !req.is_null() {
            // SAFETY: the caller's request.
            let end = || unsafe { threads::sleep_end(libc::CLOCK_MONOTONIC, 0, req) };
            if threads::sleep_until(end).is_some() {
                return 0;
            }
            note_real_sleep();
        } else if !req.is_null() {
            // SAFETY: the caller's request.
            if unsafe { threads::owner_sleep(libc::CLOCK_MONOTONIC, 0, req) } {
                return 0;
            }
        }
        crate::runtime::watchdog::real_wait(real)
    }

    /// Interposed `clock_nanosleep` (`std::thread::sleep_until`): as
    /// [`nanosleep`].
    ///
    /// # Safety
    ///
    /// As libc's.
    fn clock_nanosleep(
        clock: clockid_t,
        flags: c_int,
        req: *const timespec,
        rem: *mut timespec,
    ) -> c_int {
        if in_simulation() && !req.is_null() {
            // SAFETY: the caller's request.
            let end = || unsafe { threads::sleep_end(clock, flags, req) };
            if threads::sleep_until(end).is_some() {
                return 0;
            }
            note_real_sleep();
        } else if !req.is_null() {
            // SAFETY: the caller's request.
            if unsafe { threads::owner_sleep(clock, flags, req) } {
                return 0;
            }
        }
        crate::runtime::watchdog::real_wait(real)
    }

    // ----- randomness ------------------------------------------------------------

    /// Interposed `getrandom`: std's `RandomState` keys (found with a weak
    /// `dlsym` lookup) and the `getrandom` crate 0.3/0.4 (likewise).
    ///
    /// # Safety
    ///
    /// As libc's: `buf` is valid for `len` bytes of writes.
    fn getrandom(buf: *mut c_void, len: size_t, flags: c_uint) -> ssize_t {
        crate::switches::note_entropy();
        if !in_simulation() {
            return real();
        }
        // SAFETY: forwarded from our caller.
        unsafe { fill_raw(buf, len) }
    }

    /// Interposed `getentropy`.
    ///
    /// # Safety
    ///
    /// As libc's: `buf` is valid for `len` bytes of writes.
    fn getentropy(buf: *mut c_void, len: size_t) -> c_int {
        crate::switches::note_entropy();
        if !in_simulation() {
            return real();
        }
        if len > 256 {
            set_errno(libc::EIO);
            return -1;
        }
        // SAFETY: forwarded from our caller.
        match unsafe { fill_raw(buf, len) } {
            n if n < 0 => -1,
            _ => 0,
        }
    }

    /// Interposed `syscall`: the `getrandom` crate 0.2 (used by `rand` 0.8 and
    /// many others) calls `syscall(SYS_getrandom, ..)`; std's futexes are
    /// the simulated threads' waits and wakes (`threads`); everything else
    /// passes through.
    ///
    /// # Safety
    ///
    /// As libc's: the arguments are valid for the system call `num`.
    fn syscall(
        num: c_long,
        a1: c_long,
        a2: c_long,
        a3: c_long,
        a4: c_long,
        a5: c_long,
        a6: c_long,
    ) -> c_long {
        if num == libc::SYS_getrandom {
            crate::switches::note_entropy();
        }
        if in_simulation() {
            // SAFETY (all arms): the arguments are the caller's, for the
            // syscall it names.
            match num {
                libc::SYS_getrandom => {
                    return unsafe { fill_raw(a1 as *mut c_void, a2 as size_t) } as c_long
                }
                libc::SYS_clock_gettime => {
                    return unsafe { clock_gettime(a1 as clockid_t, a2 as *mut timespec) } as c_long
                }
                libc::SYS_gettimeofday => {
                    return unsafe { gettimeofday(a1 as *mut timeval, a2 as *mut c_void) } as c_long
                }
                #[cfg(target_arch = "x86_64")]
                libc::SYS_time => return unsafe { time(a1 as *mut time_t) } as c_long,
                libc::SYS_statx => {
                    return unsafe {
                        fs::statx(
                            a1 as c_int,
                            a2 as *const c_char,
                            a3 as c_int,
                            a4 as c_uint,
                            a5 as *mut libc::statx,
                        )
                    } as c_long
                }
                libc::SYS_getdents64 => {
                    return unsafe { fs::getdents64(a1 as c_int, a2 as *mut c_void, a3 as size_t) }
                        as c_long
                }
                libc::SYS_io_uring_setup => {
                    super::refuse(Escape::IoUring);
                    set_errno(libc::ENOSYS);
                    return -1;
                }
                libc::SYS_futex => {
                    if let Some(r) = unsafe { threads::futex(a1, a2, a3, a4, a6, real) } {
                        return r;
                    }
                }
                _ => {}
            }
        }
        // The raw signal calls, as `kill` (a thread of this process is the
        // process, as for `pthread_kill`).
        let signal = match num {
            libc::SYS_kill => Some((a1 as libc::pid_t, a2 as c_int)),
            // SAFETY: getpid cannot fail.
            libc::SYS_tgkill if a1 as libc::pid_t == unsafe { libc::getpid() } => {
                Some((0, a3 as c_int))
            }
            libc::SYS_tgkill => Some((a1 as libc::pid_t, a3 as c_int)),
            libc::SYS_tkill => Some((0, a2 as c_int)),
            _ => None,
        };
        if let Some(r) = signal.and_then(|(pid, sig)| signal_call(pid, sig)) {
            return r as c_long;
        }
        let forward = real;
        // std's blocking waits (Mutex, Condvar, channels, Barrier, park,
        // join): the poll watchdog ends one that waits for tasks only a
        // `block_on` on this thread could run.
        if num == libc::SYS_futex && is_futex_wait(a2) {
            // SAFETY: the caller's futex arguments.
            if let Some(r) = unsafe { threads::owner_futex_wait(a1, a2, a3, a4) } {
                return r;
            }
            return crate::runtime::watchdog::real_wait(forward);
        }
        forward()
    }

    // ----- signals -----------------------------------------------------------

    /// Interposed `kill`: inside a simulation, a signal to the calling
    /// process (or its group) is raised on the calling task's simulated
    /// host, where its `tokio::signal` listeners see it once the running
    /// poll returns; one to another process is refused (`EPERM`: processes
    /// are not simulated). Outside, one to the calling process reaches this
    /// thread's simulations that listen for it, if any. `SIGKILL`,
    /// `SIGSTOP`, `SIGSEGV`, `SIGILL`, `SIGFPE` and `SIGABRT` stay real
    /// (`signal_call`).
    ///
    /// # Safety
    ///
    /// None beyond libc's.
    fn kill(pid: libc::pid_t, sig: c_int) -> c_int {
        signal_call(pid, sig).unwrap_or_else(real)
    }

    /// Interposed `killpg`: as [`kill`] of minus the group (0 is the
    /// caller's own group).
    ///
    /// # Safety
    ///
    /// None beyond libc's.
    fn killpg(pgrp: libc::pid_t, sig: c_int) -> c_int {
        signal_call(pgrp.saturating_neg(), sig).unwrap_or_else(real)
    }

    /// Interposed `raise`: inside a simulation, as [`kill`] of the calling
    /// process.
    ///
    /// # Safety
    ///
    /// None beyond libc's.
    fn raise(sig: c_int) -> c_int {
        signal_call(0, sig).unwrap_or_else(real)
    }

    /// Interposed `pthread_kill`: inside a simulation, a signal to any
    /// thread of the process is raised on the calling task's host, as
    /// [`kill`] does (tokio's listeners are the process's). Returns an
    /// error number, as `pthread_kill` does.
    ///
    /// # Safety
    ///
    /// As libc's: `thread` is a live thread of this process.
    fn pthread_kill(thread: libc::pthread_t, sig: c_int) -> c_int {
        match signal_call(0, sig) {
            Some(0) => 0,
            // SAFETY: reads this thread's errno.
            Some(_) => unsafe { *libc::__errno_location() },
            None => real(),
        }
    }

    // ----- threads and real I/O --------------------------------------------------

    /// Interposed `socket`: an `AF_INET`, `AF_INET6` or `AF_UNIX` stream or
    /// datagram socket is allowed inside a simulation too (see the module
    /// docs of `intercept`: the calls that would make it reach the network
    /// are refused instead); a raw or packet socket (`EPERM`) and any other
    /// family (`EAFNOSUPPORT`: netlink, `AF_PACKET`...) are refused, with a
    /// note said once.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn socket(domain: c_int, ty: c_int, protocol: c_int) -> c_int {
        if in_simulation() {
            if let Some(errno) = socket_refusal(domain, ty) {
                refuse(Escape::RawSocket);
                set_errno(errno);
                return -1;
            }
            // The real socket is the simulated one's placeholder.
            let fd = real();
            if fd >= 0 {
                if domain == libc::AF_UNIX {
                    crate::disk::posix::sock::adopt_new(fd, ty);
                } else {
                    crate::disk::posix::ip::adopt_new(fd, domain, ty);
                }
            }
            return fd;
        }
        real()
    }

    /// Interposed `bind`: `std::net::{TcpListener, UdpSocket}::bind`, socket2.
    /// Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn bind(fd: c_int, addr: *const sockaddr, len: socklen_t) -> c_int {
        if !in_simulation() {
            return real();
        }
        if sock::is_unix_socket(fd) {
            // SAFETY: the caller's address.
            let addr = unsafe { sock::addr_bytes(addr, len) };
            return sock::status(sock::bind(fd, addr), real);
        }
        refuse_socket()
    }

    /// Interposed `connect`: `std::net::TcpStream::connect`, socket2. Refused
    /// inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn connect(fd: c_int, addr: *const sockaddr, len: socklen_t) -> c_int {
        if !in_simulation() {
            return real();
        }
        if sock::is_unix_socket(fd) {
            // SAFETY: the caller's address.
            let addr = unsafe { sock::addr_bytes(addr, len) };
            return sock::status(sock::connect(fd, addr), real);
        }
        refuse_socket()
    }

    /// Interposed `listen`. Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn listen(fd: c_int, backlog: c_int) -> c_int {
        if !in_simulation() {
            return real();
        }
        if sock::is_unix_socket(fd) {
            return sock::status(sock::listen(fd, backlog), real);
        }
        refuse_socket()
    }

    /// Interposed `send`. Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn send(fd: c_int, buf: *const c_void, len: size_t, flags: c_int) -> ssize_t {
        if !in_simulation() {
            return real();
        }
        if sock::is_unix_socket(fd) {
            // SAFETY: the caller's buffer.
            let buf = unsafe { sim_bytes(buf, len) };
            return sock::count(sock::send(fd, buf, flags, None), real);
        }
        refuse_socket() as ssize_t
    }

    /// Interposed `sendto`: `std::net::UdpSocket::send_to` (on a socket bound
    /// outside the simulation). Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn sendto(
        fd: c_int,
        buf: *const c_void,
        len: size_t,
        flags: c_int,
        addr: *const sockaddr,
        addr_len: socklen_t,
    ) -> ssize_t {
        if !in_simulation() {
            return real();
        }
        if sock::is_unix_socket(fd) {
            // SAFETY: the caller's buffer and address.
            let (buf, to) = unsafe { (sim_bytes(buf, len), sock::addr_bytes(addr, addr_len)) };
            let to = (!addr.is_null()).then_some(to);
            return sock::count(sock::send(fd, buf, flags, to), real);
        }
        refuse_socket() as ssize_t
    }

    /// Interposed `sendmsg`. Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn sendmsg(fd: c_int, msg: *const msghdr, flags: c_int) -> ssize_t {
        if !in_simulation() {
            return real();
        }
        if !msg.is_null() && sock::is_unix_socket(fd) {
            // SAFETY: the caller's msghdr.
            return sock::count(unsafe { sock::sendmsg(fd, msg, flags) }, real);
        }
        refuse_socket() as ssize_t
    }

    /// Interposed `sendmmsg`. Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn sendmmsg(fd: c_int, msgs: *mut mmsghdr, len: c_uint, flags: c_int) -> c_int {
        if in_simulation() {
            return refuse_socket();
        }
        real()
    }

    /// Interposed `epoll_create1`: a real tokio runtime's (mio's) reactor.
    /// Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn epoll_create1(flags: c_int) -> c_int {
        if in_simulation() {
            return refuse_reactor();
        }
        real()
    }

    /// Interposed `epoll_create`. Refused inside a simulation.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn epoll_create(size: c_int) -> c_int {
        if in_simulation() {
            return refuse_reactor();
        }
        real()
    }

    // ----- name resolution -------------------------------------------------------

    /// Interposed `getaddrinfo`: `std::net::ToSocketAddrs` for host names (so
    /// hyper-util's `GaiResolver`, which calls it from `spawn_blocking`),
    /// answered by the simulation's names inside one.
    ///
    /// The list is allocated the way glibc allocates its own (one `malloc`
    /// block per entry holding the `addrinfo` and its socket address, the
    /// canonical name in a block of its own), so glibc's `freeaddrinfo` frees
    /// it, inside or outside the simulation.
    ///
    /// Inside a simulation: a node resolves as `sim_rt::net::lookup_host`
    /// resolves it (a host's name, `localhost`, an IP literal); a name no host
    /// has is `EAI_NONAME`. The service must be a port number (names from
    /// `/etc/services` are not read: `EAI_SERVICE`). `ai_family` filters the
    /// addresses (`AI_V4MAPPED` maps IPv4 ones for `AF_INET6` when there is no
    /// IPv6 one); with no `ai_socktype` every address comes once per stream,
    /// datagram and raw socket type, as glibc does; `AI_CANONNAME` names the
    /// first entry with the node as given; `AI_PASSIVE` with no node gives the
    /// wildcard addresses, else loopback.
    ///
    /// # Safety
    ///
    /// As libc's: `node` and `service` are null or NUL-terminated, `hints` is
    /// null or valid, `res` is valid for writes.
    fn getaddrinfo(
        node: *const c_char,
        service: *const c_char,
        hints: *const addrinfo,
        res: *mut *mut addrinfo,
    ) -> c_int {
        if !in_simulation() {
            return real();
        }
        if res.is_null() {
            return libc::EAI_FAIL;
        }
        // SAFETY: forwarded from our caller.
        let node = (!node.is_null()).then(|| unsafe { CStr::from_ptr(node) });
        let service = (!service.is_null()).then(|| unsafe { CStr::from_ptr(service) });
        let hints = if hints.is_null() {
            None
        } else {
            // SAFETY: a non-null `hints` points to a valid `addrinfo`.
            Some(unsafe { &*hints })
        };
        match sim_getaddrinfo(node, service, hints) {
            Ok(entries) => match alloc_list(&entries) {
                Some(list) => {
                    // SAFETY: `res` is valid for writes (checked non-null).
                    unsafe { res.write(list) };
                    0
                }
                None => libc::EAI_MEMORY,
            },
            Err(code) => code,
        }
    }
}

mod fs;
mod sock;
mod threads;
