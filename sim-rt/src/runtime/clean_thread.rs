//! A thread that runs simulations one after another while it keeps nothing
//! a fresh thread would not have.
//!
//! A harness (the explorer) used to start an OS thread for every
//! simulation, because a program keeps state per thread: std's
//! `RandomState` keys (drawn from the OS once per thread, then counted up
//! by every `RandomState::new`), `rand`'s thread generator, any crate's
//! thread-locals. Inside a simulation the draws come from the simulation's
//! seed (the interposed `getrandom`), so on a fresh thread they replay;
//! on a reused one the second simulation would start from the first's.
//! Starting a thread is most of a small simulation's cost, so a worker
//! thread runs them itself while it stays clean:
//!
//! - Before each simulation, what sim_rt keeps per thread between
//!   simulations is as on a fresh thread, and so are std's `RandomState`
//!   keys: their thread-local is found once, by a probe (below), and put
//!   back to "not drawn yet" (its bytes as before the first draw), so the
//!   next `HashMap` draws them inside the simulation, from its seed.
//! - After it, the thread's calls for OS randomness are counted: any
//!   beyond the keys' own draw (another per-thread generator seeded
//!   itself, and keeps what it drew) retire the thread from reuse; the
//!   harness starts a fresh thread per simulation from then on.
//!
//! A program's own `thread_local!` values are not seen here: they carry
//! over as a `static`'s would, and the explorer finds a failure that needs
//! them by running the run that tells it on a fresh thread (and under
//! `SIM_CHECK_DETERMINISM=1` the second run of each), where it differs.
//!
//! # The probe
//!
//! On x86-64 Linux with glibc, the executable's thread-locals (std's among
//! them) lie in the static TLS block just below the thread pointer, which
//! `pthread_self` returns; its size is the executable's `PT_TLS` segment.
//! On a thread that has not yet made a `RandomState`, the probe copies the
//! block, makes one (one draw), copies again, makes another (no draw), and
//! requires that the second changed exactly one 8-byte word by +1 (the
//! first key). The bytes near that word that the first made change (the
//! thread-local's state and both keys) are the region to restore. It then
//! restores them and requires that the next `RandomState::new` draws
//! again. Anything unexpected (another platform, another layout, no
//! interposition) and the probe gives up: the thread is then reused only
//! while its simulations draw nothing at all.

use std::cell::RefCell;
use std::collections::hash_map::RandomState;

use crate::switches::entropy_draws;

/// What the probe found: where the keys' thread-local lives, and its bytes
/// before the first draw.
struct Keys {
    /// Address of the first byte to restore.
    at: usize,
    /// The bytes as on a thread that has not drawn its keys.
    fresh: Vec<u8>,
}

impl Keys {
    /// Whether std's keys were drawn since they were last restored.
    fn drawn(&self) -> bool {
        // SAFETY: the region lies in this thread's static TLS block (the
        // probe found it there), which lives as long as the thread.
        let now = unsafe { std::slice::from_raw_parts(self.at as *const u8, self.fresh.len()) };
        now != self.fresh.as_slice()
    }

    /// Puts std's keys back to "not drawn yet" on this thread.
    fn restore(&self) {
        // SAFETY: as in `drawn`; the bytes are the thread-local's own from
        // before its first draw, and its value (two `u64`s in a `Cell`) has
        // no destructor registered for it and no borrow outstanding (std
        // copies the keys out).
        unsafe {
            std::ptr::copy_nonoverlapping(self.fresh.as_ptr(), self.at as *mut u8, self.fresh.len())
        };
    }
}

thread_local! {
    /// This thread is a clean worker: `Some` while it may run another
    /// simulation itself. Inside, the keys the probe found (`None`: it
    /// gave up, and any draw retires the thread).
    static WORKER: RefCell<Option<Option<Keys>>> = const { RefCell::new(None) };
}

/// Makes the calling thread a clean worker. Call it first thing on a new
/// thread, before anything on it makes a `HashMap`. Returns false (and the
/// thread is no worker) when this build cannot count the thread's draws.
pub(crate) fn become_worker() -> bool {
    if !crate::switches::SUPPORTED {
        return false;
    }
    let keys = probe();
    WORKER.with(|w| *w.borrow_mut() = Some(keys));
    true
}

/// Whether the calling thread is a clean worker that may run the next
/// simulation itself.
pub(crate) fn is_clean() -> bool {
    WORKER.with(|w| w.borrow().is_some())
}

/// `f` on this worker's keys.
///
/// # Panics
///
/// When the thread is not a clean worker ([`is_clean`]).
fn with_keys<R>(f: impl FnOnce(Option<&Keys>) -> R) -> R {
    WORKER.with(|w| {
        let w = w.borrow();
        f(w.as_ref().expect("run on a clean worker only").as_ref())
    })
}

/// Runs `f` (a simulation) on this clean worker: before it, the thread's
/// state is put back as a fresh thread has it; after it, the thread is
/// retired from reuse if `f` drew OS randomness other than std's keys.
///
/// # Panics
///
/// When the thread is not a clean worker ([`is_clean`]).
pub(crate) fn run<R>(f: impl FnOnce() -> R) -> R {
    with_keys(|keys| keys.map(Keys::restore));
    crate::task::deferred::reset_thread_ids();
    crate::intercept::reset_thread_clock();
    let before = entropy_draws();
    // A panic out of `f` leaves the thread retired: the guard's drop.
    let guard = Retire;
    let out = f();
    std::mem::forget(guard);
    let mut draws = entropy_draws().wrapping_sub(before);
    if with_keys(|keys| keys.is_some_and(Keys::drawn)) {
        // The keys' one draw, put back before the next simulation.
        draws = draws.saturating_sub(1);
    }
    if draws > 0 {
        retire();
    }
    out
}

/// Retires the thread from reuse when dropped.
struct Retire;

impl Drop for Retire {
    fn drop(&mut self) {
        retire();
    }
}

fn retire() {
    WORKER.with(|w| *w.borrow_mut() = None);
}

/// Finds std's `RandomState` keys in this thread's static TLS block (see
/// the module's docs); `None` when anything is not as expected.
fn probe() -> Option<Keys> {
    let block = tls::executable_block()?;
    let snapshot = || -> Vec<u8> {
        // SAFETY: `block` is this thread's static TLS block of the
        // executable, mapped for the thread's life.
        unsafe { std::slice::from_raw_parts(block.0 as *const u8, block.1) }.to_vec()
    };
    let before = snapshot();
    let d0 = entropy_draws();
    std::hint::black_box(RandomState::new());
    if entropy_draws().wrapping_sub(d0) != 1 {
        // Drawn before (or not through the interposed calls).
        return None;
    }
    let drawn = snapshot();
    let d1 = entropy_draws();
    std::hint::black_box(RandomState::new());
    let counted = snapshot();
    if entropy_draws() != d1 {
        return None;
    }
    // Exactly one aligned word changed, by +1: the first key.
    let changed: Vec<usize> = (0..block.1).filter(|&i| drawn[i] != counted[i]).collect();
    let first = *changed.first()?;
    let word = first - (block.0 + first) % 8;
    if changed.iter().any(|&i| i < word || i >= word + 8) || word + 8 > block.1 {
        return None;
    }
    let read = |bytes: &[u8]| u64::from_ne_bytes(bytes[word..word + 8].try_into().unwrap());
    if read(&counted) != read(&drawn).wrapping_add(1) {
        return None;
    }
    // The thread-local's bytes the first draw changed, near the key: its
    // state before it, the second key after it. The draw counter itself
    // (sim_rt's own thread-local) is left out.
    let counter = crate::switches::draws_address();
    let lo = word.saturating_sub(16);
    let hi = (word + 24).min(block.1);
    let near: Vec<usize> = (lo..hi)
        .filter(|&i| before[i] != drawn[i])
        .filter(|&i| !(counter..counter + 4).contains(&(block.0 + i)))
        .collect();
    let (&start, &end) = (near.first()?, near.last()?);
    if !(start..=end).contains(&word) {
        return None;
    }
    let keys = Keys {
        at: block.0 + start,
        fresh: before[start..=end].to_vec(),
    };
    // Check: restored, the next `RandomState::new` draws again.
    keys.restore();
    let d2 = entropy_draws();
    std::hint::black_box(RandomState::new());
    let redrew = entropy_draws().wrapping_sub(d2) == 1 && keys.drawn();
    keys.restore();
    redrew.then_some(keys)
}

#[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
mod tls {
    /// This thread's static TLS block of the executable: its address and
    /// size (x86-64's TLS variant II: the block ends at the thread pointer,
    /// which glibc's `pthread_self` is).
    pub(super) fn executable_block() -> Option<(usize, usize)> {
        let (size, align) = executable_tls()?;
        if size == 0 || align == 0 || !align.is_power_of_two() {
            return None;
        }
        // SAFETY: no preconditions.
        let tp = unsafe { libc::pthread_self() } as usize;
        let offset = size.div_ceil(align) * align;
        Some((tp.checked_sub(offset)?, size))
    }

    /// The executable's `PT_TLS` segment: its size in memory and alignment.
    fn executable_tls() -> Option<(usize, usize)> {
        static TLS: std::sync::OnceLock<Option<(usize, usize)>> = std::sync::OnceLock::new();
        *TLS.get_or_init(|| {
            let mut found: Option<(usize, usize)> = None;
            unsafe extern "C" fn first(
                info: *mut libc::dl_phdr_info,
                _size: libc::size_t,
                data: *mut libc::c_void,
            ) -> libc::c_int {
                // SAFETY: glibc passes a valid `info` for the call; `data`
                // is the `found` below. The first object is the executable.
                unsafe {
                    let found = &mut *(data as *mut Option<(usize, usize)>);
                    let info = &*info;
                    for i in 0..info.dlpi_phnum as usize {
                        let ph = &*info.dlpi_phdr.add(i);
                        if ph.p_type == libc::PT_TLS {
                            *found = Some((ph.p_memsz as usize, ph.p_align as usize));
                        }
                    }
                }
                1
            }
            // SAFETY: `first` only reads what glibc hands it and writes
            // `found`, which outlives the call.
            unsafe {
                libc::dl_iterate_phdr(Some(first), &mut found as *mut _ as *mut libc::c_void);
            }
            found
        })
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64")))]
mod tls {
    /// Not known here: the probe gives up.
    pub(super) fn executable_block() -> Option<(usize, usize)> {
        None
    }
}
