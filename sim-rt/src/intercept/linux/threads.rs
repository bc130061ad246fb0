//! The thread calls inside a simulation: `pthread_create` starts a
//! simulated thread (`runtime::world::threads`), and the calls where a
//! thread blocks give its turn back: futex waits (std's locks, condition
//! variables, channels and `park`), sleeps, `sched_yield`, `pthread_join`.
//! A futex wake wakes the simulation's waiters (and the real ones: a thread
//! outside the simulation may wait on the same word).
//!
//! On the owner thread (the one that runs the simulation's tasks), a futex
//! wait or a join runs the simulated threads until it may go on
//! (`World::block_owner`); when none can, it waits for real, as before.
//!
//! A futex word in the executable's statics is the process's, not the
//! simulation's (other simulations running at the same time and the
//! harness lock it too, with real wakes): a simulated thread waits for it
//! for real, holding its turn.
//!
//! glibc's own locks (`pthread_mutex_lock`, `pthread_cond_wait`, `sem_wait`)
//! make their futex calls inside libc, where no interposition reaches: a C
//! library's thread that waits on one holds the turn, and the poll watchdog
//! reports the thread as running without blocking.

use std::ffi::{c_int, c_long, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use libc::{clockid_t, pthread_attr_t, pthread_t, timespec};

use super::{is_wall_clock, next, set_errno, StartRoutine};
use crate::intercept::{refuse, sim_now, WALL_CLOCK_EPOCH};
use crate::runtime::context;
use crate::runtime::world::door::{self, Bell, Wait, Waited};
use crate::runtime::world::threads::{self, Op, SimThread};
use crate::switches::{in_simulation, threads_allowed, Escape};

/// What the start routine of a simulated thread receives.
struct Start {
    thread: Arc<SimThread>,
    start: StartRoutine,
    arg: *mut c_void,
}

/// The start routine of every simulated thread: waits for the first turn,
/// runs the program's start routine, gives the turn back at its end.
extern "C" fn start_simulated(arg: *mut c_void) -> *mut c_void {
    // SAFETY: `arg` is the `Box<Start>` that `pthread_create` leaked for
    // this thread, taken once.
    let Start { thread, start, arg } = *unsafe { Box::from_raw(arg.cast::<Start>()) };
    let simulated = threads::begin(&thread);
    let ret = start(arg);
    if simulated {
        threads::end();
    }
    drop(thread);
    ret
}

/// What the start routine of a thread started outside a simulation by a
/// thread that owns one receives (see `door`).
struct Outside {
    bell: Arc<Bell>,
    start: StartRoutine,
    arg: *mut c_void,
}

/// The start routine of such a thread: says when it ends.
extern "C" fn start_outside(arg: *mut c_void) -> *mut c_void {
    // SAFETY: `arg` is the `Box<Outside>` that `pthread_create` leaked for
    // this thread, taken once.
    let Outside { bell, start, arg } = *unsafe { Box::from_raw(arg.cast::<Outside>()) };
    struct Ended(Arc<Bell>);
    impl Drop for Ended {
        fn drop(&mut self) {
            door::outside_thread_ended(&self.0);
        }
    }
    let _ended = Ended(bell);
    start(arg)
}

/// A real wait of the current thread outside its simulations: `now` on
/// `clock`, for absolute times.
fn clock_now(clock: clockid_t) -> Duration {
    let mut ts = timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let gettime = real!(c"clock_gettime": unsafe extern "C" fn(clockid_t, *mut timespec) -> c_int);
    // SAFETY: a valid `timespec` to fill.
    unsafe { gettime(clock, &mut ts) };
    duration(&ts)
}

fn timespec_of(d: Duration) -> timespec {
    timespec {
        tv_sec: d.as_secs() as libc::time_t,
        tv_nsec: d.subsec_nanos() as c_long,
    }
}

/// A futex wait of a thread that owns simulations, outside them
/// (`door::owner_wait`): `None` when it drives none (wait for real).
///
/// # Safety
///
/// As the futex system call's.
pub(super) unsafe fn owner_futex_wait(
    addr: c_long,
    op: c_long,
    val: c_long,
    timeout: c_long,
) -> Option<c_long> {
    if !door::owner_may_drive() {
        return None;
    }
    let private = op as c_int & libc::FUTEX_PRIVATE_FLAG;
    let cmd = op as c_int & !(libc::FUTEX_PRIVATE_FLAG | libc::FUTEX_CLOCK_REALTIME);
    // SAFETY: the caller's futex word.
    let word = unsafe { &*(addr as *const AtomicU32) };
    // SAFETY: null or the caller's timespec.
    let deadline = unsafe { (timeout as *const timespec).as_ref() }.map(|ts| {
        let d = duration(ts);
        let left = if cmd == libc::FUTEX_WAIT {
            d
        } else if op as c_int & libc::FUTEX_CLOCK_REALTIME != 0 {
            d.saturating_sub(clock_now(libc::CLOCK_REALTIME))
        } else {
            d.saturating_sub(clock_now(libc::CLOCK_MONOTONIC))
        };
        std::time::Instant::now() + left
    });
    let syscall = real!(
        c"syscall": unsafe extern "C" fn(c_long, c_long, c_long, c_long, c_long) -> c_long
    );
    let mut real = |slice: Duration| {
        let ts = timespec_of(slice);
        // SAFETY: the caller's futex word; a valid relative timeout.
        let rc = unsafe {
            syscall(
                libc::SYS_futex,
                addr,
                (libc::FUTEX_WAIT | private) as c_long,
                val,
                &ts as *const timespec as c_long,
            )
        };
        rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN)
    };
    let waited = crate::runtime::watchdog::real_wait(|| {
        catch_unwind(AssertUnwindSafe(|| {
            door::owner_wait(Wait::Futex(word, val as u32), deadline, &mut real)
        }))
    })
    .ok()?;
    Some(if waited == Waited::TimedOut {
        set_errno(libc::ETIMEDOUT);
        -1
    } else {
        0
    })
}

/// A sleep of a thread that owns simulations, outside them
/// (`door::owner_wait`): false when it drives none (sleep for real).
///
/// # Safety
///
/// `req` is a valid `timespec`.
pub(super) unsafe fn owner_sleep(clock: clockid_t, flags: c_int, req: *const timespec) -> bool {
    if !door::owner_may_drive() {
        return false;
    }
    // SAFETY: the caller's request.
    let ts = unsafe { &*req };
    let d = if flags & libc::TIMER_ABSTIME != 0 {
        duration(ts).saturating_sub(clock_now(clock))
    } else {
        duration(ts)
    };
    let sleep = real!(c"nanosleep": unsafe extern "C" fn(*const timespec, *mut timespec) -> c_int);
    let mut real = |slice: Duration| {
        let ts = timespec_of(slice);
        // SAFETY: a valid request; no remainder wanted.
        unsafe { sleep(&ts, std::ptr::null_mut()) };
        false
    };
    crate::runtime::watchdog::real_wait(|| {
        catch_unwind(AssertUnwindSafe(|| {
            door::owner_wait(Wait::Sleep(d), None, &mut real)
        }))
    })
    .is_ok()
}

/// A thread's handle as the simulation keeps it.
#[allow(clippy::unnecessary_cast)] // `pthread_t` is narrower on 32-bit targets
fn handle(thread: pthread_t) -> u64 {
    thread as u64
}

/// `timespec` as a duration (negative fields count as zero).
fn duration(ts: &timespec) -> Duration {
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// The simulated instant an absolute `timespec` on `clock` names.
fn sim_instant(clock: clockid_t, ts: &timespec) -> Duration {
    let at = duration(ts);
    if is_wall_clock(clock) {
        at.saturating_sub(WALL_CLOCK_EPOCH)
    } else {
        at
    }
}

/// A `syscall(SYS_futex, ..)` inside a simulation, when it is a wait or a
/// wake: its result (`-1` with `errno`, or the count), or `None` to
/// forward it to the kernel.
///
/// # Safety
///
/// As the futex system call's: `addr` is a valid, aligned `u32`, and
/// `timeout` null or a valid `timespec`.
pub(super) unsafe fn futex(
    addr: c_long,
    op: c_long,
    val: c_long,
    timeout: c_long,
    val3: c_long,
    forward: impl FnOnce() -> c_long,
) -> Option<c_long> {
    let realtime = op as c_int & libc::FUTEX_CLOCK_REALTIME != 0;
    let cmd = op as c_int & !(libc::FUTEX_PRIVATE_FLAG | libc::FUTEX_CLOCK_REALTIME);
    let bitset = match cmd {
        libc::FUTEX_WAIT | libc::FUTEX_WAKE => u32::MAX,
        libc::FUTEX_WAIT_BITSET | libc::FUTEX_WAKE_BITSET => val3 as u32,
        _ => return None,
    };
    if bitset == 0 {
        set_errno(libc::EINVAL);
        return Some(-1);
    }
    let world = context::try_current_quiet()?;
    let addr_usize = addr as usize;
    if cmd == libc::FUTEX_WAKE || cmd == libc::FUTEX_WAKE_BITSET {
        let n = (val as c_int).max(0) as usize;
        let woken =
            catch_unwind(AssertUnwindSafe(|| world.futex_wake(addr_usize, n, bitset))).unwrap_or(0);
        // Threads outside the simulation may wait on the word too.
        let real = if woken < n { forward().max(0) } else { 0 };
        return Some(woken as c_long + real);
    }
    // SAFETY: the caller's futex word.
    let word = unsafe { &*(addr as *const AtomicU32) };
    if word.load(Ordering::SeqCst) != val as u32 {
        set_errno(libc::EAGAIN);
        return Some(-1);
    }
    // SAFETY: null or the caller's timespec.
    let deadline = unsafe { (timeout as *const timespec).as_ref() }.map(|ts| {
        if cmd == libc::FUTEX_WAIT {
            sim_now() + duration(ts)
        } else {
            let clock = if realtime {
                libc::CLOCK_REALTIME
            } else {
                libc::CLOCK_MONOTONIC
            };
            sim_instant(clock, ts)
        }
    });
    let result = if threads::on_turn() && in_the_image(addr_usize) {
        // A word in a static is the process's: other simulations running
        // at the same time, and the harness, lock it too, and their wakes
        // are real. Wait for real (holding the turn), a millisecond at a
        // time: a spurious wake-up, after which the caller checks again.
        drop(world);
        let ms = timespec {
            tv_sec: 0,
            tv_nsec: 1_000_000,
        };
        let _ = forward_wait(addr, val, &ms);
        0
    } else if threads::on_turn() {
        // A simulated thread holds the world only during its turn.
        drop(world);
        // Let go (the simulation ended): a spurious wake-up.
        threads::block(Op::FutexWait {
            addr: addr_usize,
            bitset,
            deadline,
        })
        .unwrap_or(0)
    } else {
        let changed = || word.load(Ordering::SeqCst) != val as u32;
        catch_unwind(AssertUnwindSafe(|| {
            world.futex_wait_owner(addr_usize, bitset, deadline, &changed)
        }))
        .ok()
        .flatten()?
    };
    Some(if result == threads::TIMED_OUT {
        set_errno(libc::ETIMEDOUT);
        -1
    } else {
        result as c_long
    })
}

/// A real `FUTEX_WAIT` of at most `timeout` on `addr` (private).
fn forward_wait(addr: c_long, val: c_long, timeout: &timespec) -> c_long {
    // libc's `syscall`: `libc::syscall` would be ours.
    let syscall = real!(
        c"syscall": unsafe extern "C" fn(c_long, c_long, c_long, c_long, c_long) -> c_long
    );
    // SAFETY: the caller's futex word; a valid relative timeout.
    unsafe {
        syscall(
            libc::SYS_futex,
            addr,
            (libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG) as c_long,
            val,
            timeout as *const timespec as c_long,
        )
    }
}

/// Whether `addr` lies in the executable's own image (its statics), from
/// `__executable_start` to `_end`, as the linker marks them.
fn in_the_image(addr: usize) -> bool {
    extern "C" {
        static __executable_start: u8;
        static _end: u8;
    }
    // Linker-defined symbols: only their addresses are taken.
    let (start, end) = (
        std::ptr::addr_of!(__executable_start) as usize,
        std::ptr::addr_of!(_end) as usize,
    );
    (start..end).contains(&addr)
}

/// A sleep of a simulated thread until the simulated instant `until`:
/// `Some` when this is one (it slept), `None` on other threads.
pub(super) fn sleep_until(until: impl FnOnce() -> Duration) -> Option<()> {
    if !threads::on_turn() {
        return None;
    }
    threads::block(Op::Sleep(until()));
    Some(())
}

/// The simulated instant a `nanosleep`/`clock_nanosleep` request ends.
///
/// # Safety
///
/// `req` is a valid `timespec`.
pub(super) unsafe fn sleep_end(clock: clockid_t, flags: c_int, req: *const timespec) -> Duration {
    // SAFETY: the caller's request.
    let ts = unsafe { &*req };
    if flags & libc::TIMER_ABSTIME != 0 {
        sim_instant(clock, ts)
    } else {
        sim_now() + duration(ts)
    }
}

interpose! {
    forward: real;

    /// Interposed `pthread_create`: `std::thread::spawn` and
    /// `Builder::spawn`. Inside a simulation the new thread is a simulated
    /// thread of the calling task's host (see the module docs); inside
    /// [`allow_threads`](crate::sim::allow_threads) a real one.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pthread_create(
        thread: *mut pthread_t,
        attr: *const pthread_attr_t,
        start: StartRoutine,
        arg: *mut c_void,
    ) -> c_int {
        if !in_simulation() {
            // A thread that owns a simulation starts one outside it: a
            // `block_on` that would deadlock waits for it to knock or end
            // (`door`). Other threads: untouched.
            let Some(bell) = door::outside_thread_started() else {
                return real();
            };
            let boxed = Box::into_raw(Box::new(Outside { bell, start, arg }));
            let create = real!(
                NAME: unsafe extern "C" fn(
                    *mut pthread_t,
                    *const pthread_attr_t,
                    StartRoutine,
                    *mut c_void,
                ) -> c_int
            );
            // SAFETY: the caller's arguments, with our start routine and
            // its argument.
            let rc = unsafe { create(thread, attr, start_outside, boxed.cast()) };
            if rc != 0 {
                // SAFETY: not handed to any thread.
                let Outside { bell, .. } = *unsafe { Box::from_raw(boxed) };
                door::outside_thread_ended(&bell);
            }
            return rc;
        }
        if threads_allowed() {
            return real();
        }
        let Some(world) = context::try_current_quiet() else {
            refuse(Escape::Thread);
            return libc::EPERM;
        };
        let Ok(sim) = catch_unwind(AssertUnwindSafe(|| world.start_thread())) else {
            refuse(Escape::Thread);
            return libc::EAGAIN;
        };
        let number = sim.number();
        let boxed = Box::into_raw(Box::new(Start {
            thread: sim,
            start,
            arg,
        }));
        let create = real!(
            NAME: unsafe extern "C" fn(
                *mut pthread_t,
                *const pthread_attr_t,
                StartRoutine,
                *mut c_void,
            ) -> c_int
        );
        // SAFETY: the caller's arguments, with our start routine and its
        // argument.
        let rc = unsafe { create(thread, attr, start_simulated, boxed.cast()) };
        let _ = catch_unwind(AssertUnwindSafe(|| {
            if rc == 0 {
                // SAFETY: libc wrote the new thread's handle.
                world.thread_started(number, handle(unsafe { *thread }));
            } else {
                // SAFETY: not handed to any thread.
                drop(unsafe { Box::from_raw(boxed) });
                world.thread_failed(number);
            }
        }));
        rc
    }

    /// Interposed `pthread_join` (`JoinHandle::join`): inside a simulation,
    /// a join of a simulated thread waits for its exit in the simulation
    /// (a simulated thread gives the turn back; the owner thread runs the
    /// threads), then reaps the OS thread.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn pthread_join(thread: pthread_t, retval: *mut *mut c_void) -> c_int {
        if in_simulation() {
            let _ = catch_unwind(AssertUnwindSafe(|| {
                let world = context::try_current_quiet()?;
                let number = world.threads.try_borrow().ok()?.by_handle(handle(thread))?;
                if threads::on_turn() {
                    // A simulated thread holds the world only during its
                    // turn.
                    drop(world);
                    threads::block(Op::Join(number));
                } else {
                    world.join_owner(number);
                }
                Some(())
            }));
        } else if door::owner_may_drive() {
            // The owner thread of simulations, outside them: drives them
            // while it waits, trying the join a slice at a time.
            let timedjoin = real!(
                c"pthread_timedjoin_np":
                    unsafe extern "C" fn(pthread_t, *mut *mut c_void, *const timespec) -> c_int
            );
            let mut rc = 0;
            let mut real = |slice: Duration| {
                let at = timespec_of(clock_now(libc::CLOCK_REALTIME) + slice);
                // SAFETY: the caller's thread and result slot; a valid time.
                rc = unsafe { timedjoin(thread, retval, &at) };
                rc != libc::ETIMEDOUT
            };
            let waited = crate::runtime::watchdog::real_wait(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    door::owner_wait(Wait::Other, None, &mut real)
                }))
            });
            if waited.is_ok() {
                return rc;
            }
        }
        crate::runtime::watchdog::real_wait(real)
    }

    /// Interposed `sched_yield` (`std::thread::yield_now`): a simulated
    /// thread goes behind every runnable task and thread; the owner thread
    /// spinning inside a poll lets one thing happen (a packet arrive, a
    /// thread run, the clock move), as a real spin lets the kernel and the
    /// other threads go on.
    ///
    /// # Safety
    ///
    /// As libc's.
    fn sched_yield() -> c_int {
        if in_simulation() && threads::on_turn() {
            threads::block(Op::Yield);
            return 0;
        }
        // The owner thread spinning inside a poll: the kernel and the
        // other threads go on meanwhile.
        if in_simulation() {
            if let Some(world) = crate::runtime::context::try_current_quiet() {
                let _ = catch_unwind(AssertUnwindSafe(|| world.owner_yield()));
            }
        }
        if !in_simulation() && door::owner_may_drive() {
            let _ = catch_unwind(AssertUnwindSafe(|| {
                door::owner_wait(Wait::Yield, None, &mut |_| true)
            }));
        }
        real()
    }
}
