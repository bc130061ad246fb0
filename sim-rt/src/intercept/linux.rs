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

use std::ffi::{c_int, c_long, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::time::Duration;

use libc::{clockid_t, pthread_attr_t, pthread_t, size_t, ssize_t, time_t, timespec, timeval};

use super::{in_simulation, refuse, sim_fill, sim_now, threads_allowed, Escape, WALL_CLOCK_EPOCH};

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

/// `real!(name: fn(args) -> ret)`: libc's `name`, as a function pointer.
macro_rules! real {
    ($name:literal: $ty:ty) => {{
        static SLOT: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
        let p = next(&SLOT, $name);
        // SAFETY: `p` is libc's definition of the function of that name,
        // whose C signature is `$ty`.
        unsafe { std::mem::transmute::<*mut c_void, $ty>(p) }
    }};
}

fn set_errno(e: c_int) {
    // SAFETY: `__errno_location` returns this thread's errno.
    unsafe { *libc::__errno_location() = e }
}

/// References every interposed function, so the object file holding them
/// is linked (and kept) whenever the runtime is: an unreferenced member of
/// an rlib is not pulled into the executable.
pub(super) fn keep_linked() {
    std::hint::black_box([
        clock_gettime as *const (),
        gettimeofday as *const (),
        time as *const (),
        getrandom as *const (),
        getentropy as *const (),
        syscall as *const (),
        pthread_create as *const (),
        socket as *const (),
        epoll_create as *const (),
        epoll_create1 as *const (),
    ]);
}

// ----- time ------------------------------------------------------------------

fn is_wall_clock(clock: clockid_t) -> bool {
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

/// Interposed `clock_gettime`: `Instant::now` (CLOCK_MONOTONIC) and
/// `SystemTime::now` (CLOCK_REALTIME) in std.
///
/// # Safety
///
/// As libc's: `tp` is valid for writes.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clock: clockid_t, tp: *mut timespec) -> c_int {
    if !in_simulation() || !is_static_clock(clock) {
        return real!(c"clock_gettime": unsafe extern "C" fn(clockid_t, *mut timespec) -> c_int)(
            clock, tp,
        );
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
#[no_mangle]
pub unsafe extern "C" fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
    if !in_simulation() {
        return real!(c"gettimeofday": unsafe extern "C" fn(*mut timeval, *mut c_void) -> c_int)(
            tv, tz,
        );
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
#[no_mangle]
pub unsafe extern "C" fn time(t: *mut time_t) -> time_t {
    if !in_simulation() {
        return real!(c"time": unsafe extern "C" fn(*mut time_t) -> time_t)(t);
    }
    let secs = sim_clock(libc::CLOCK_REALTIME).as_secs() as time_t;
    if !t.is_null() {
        // SAFETY: the caller passes a valid pointer (non-null).
        unsafe { t.write(secs) };
    }
    secs
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

/// Interposed `getrandom`: std's `RandomState` keys (found with a weak
/// `dlsym` lookup) and the `getrandom` crate 0.3/0.4 (likewise).
///
/// # Safety
///
/// As libc's: `buf` is valid for `len` bytes of writes.
#[no_mangle]
pub unsafe extern "C" fn getrandom(buf: *mut c_void, len: size_t, flags: c_uint) -> ssize_t {
    if !in_simulation() {
        return real!(c"getrandom": unsafe extern "C" fn(*mut c_void, size_t, c_uint) -> ssize_t)(
            buf, len, flags,
        );
    }
    // SAFETY: forwarded from our caller.
    unsafe { fill_raw(buf, len) }
}

/// Interposed `getentropy`.
///
/// # Safety
///
/// As libc's: `buf` is valid for `len` bytes of writes.
#[no_mangle]
pub unsafe extern "C" fn getentropy(buf: *mut c_void, len: size_t) -> c_int {
    if !in_simulation() {
        return real!(c"getentropy": unsafe extern "C" fn(*mut c_void, size_t) -> c_int)(buf, len);
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
/// many others) calls `syscall(SYS_getrandom, ..)`; std's futexes and
/// everything else pass through.
///
/// # Safety
///
/// As libc's: the arguments are valid for the system call `num`.
#[no_mangle]
pub unsafe extern "C" fn syscall(
    num: c_long,
    a1: c_long,
    a2: c_long,
    a3: c_long,
    a4: c_long,
    a5: c_long,
    a6: c_long,
) -> c_long {
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
            _ => {}
        }
    }
    type Syscall = unsafe extern "C" fn(c_long, ...) -> c_long;
    real!(c"syscall": Syscall)(num, a1, a2, a3, a4, a5, a6)
}

// ----- threads and real I/O --------------------------------------------------

type StartRoutine = extern "C" fn(*mut c_void) -> *mut c_void;

/// Interposed `pthread_create`: `std::thread::spawn` and `Builder::spawn`.
/// Refused inside a simulation unless [`allow_threads`](super::allow_threads)
/// is open on this thread.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn pthread_create(
    thread: *mut pthread_t,
    attr: *const pthread_attr_t,
    start: StartRoutine,
    arg: *mut c_void,
) -> c_int {
    if in_simulation() && !threads_allowed() {
        refuse(Escape::Thread);
        return libc::EPERM;
    }
    type Create = unsafe extern "C" fn(
        *mut pthread_t,
        *const pthread_attr_t,
        StartRoutine,
        *mut c_void,
    ) -> c_int;
    real!(c"pthread_create": Create)(thread, attr, start, arg)
}

/// Interposed `socket`: `std::net` (and real tokio's sockets). Refused
/// inside a simulation.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn socket(domain: c_int, ty: c_int, protocol: c_int) -> c_int {
    if in_simulation() {
        refuse(Escape::Socket);
        set_errno(libc::EPERM);
        return -1;
    }
    real!(c"socket": unsafe extern "C" fn(c_int, c_int, c_int) -> c_int)(domain, ty, protocol)
}

/// Interposed `epoll_create1`: a real tokio runtime's (mio's) reactor.
/// Refused inside a simulation.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn epoll_create1(flags: c_int) -> c_int {
    if in_simulation() {
        refuse(Escape::Reactor);
        set_errno(libc::EPERM);
        return -1;
    }
    real!(c"epoll_create1": unsafe extern "C" fn(c_int) -> c_int)(flags)
}

/// Interposed `epoll_create`. Refused inside a simulation.
///
/// # Safety
///
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn epoll_create(size: c_int) -> c_int {
    if in_simulation() {
        refuse(Escape::Reactor);
        set_errno(libc::EPERM);
        return -1;
    }
    real!(c"epoll_create": unsafe extern "C" fn(c_int) -> c_int)(size)
}
