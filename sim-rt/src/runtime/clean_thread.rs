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
//! first key). The region to restore is that word and the bytes near it
//! that the first made change (the thread-local's state and the second
//! key; a key's byte may happen to equal what was there before, so the
//! first key's word is taken whole). It then restores them and requires
//! that the next `RandomState::new` draws again. Anything unexpected
//! (another platform, another layout, no interposition) and the probe
//! gives up: when it gave up before making a `RandomState`, the thread is
//! reused only while its simulations draw nothing at all; after (std's
//! keys were drawn from the OS, and this thread's maps would iterate in
//! an order no seed gives), the thread is no worker, and every simulation
//! runs on a fresh thread.

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
/// thread is no worker) when this build cannot count the thread's draws,
/// or the probe drew std's keys and could not find them to put back.
pub(crate) fn become_worker() -> bool {
    if !crate::switches::SUPPORTED {
        return false;
    }
    let keys = match probe() {
        Probe::Found(keys) => Some(keys),
        Probe::Untouched => None,
        Probe::Drawn => return false,
    };
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

/// What the probe found.
enum Probe {
    /// Std's keys, put back to "not drawn yet".
    Found(Keys),
    /// It gave up before making a `RandomState`: the thread drew nothing.
    Untouched,
    /// It gave up after: std's keys on this thread came from the OS.
    Drawn,
}

/// Finds std's `RandomState` keys in this thread's static TLS block (see
/// the module's docs).
fn probe() -> Probe {
    let Some(block) = tls::executable_block() else {
        return Probe::Untouched;
    };
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
        return Probe::Drawn;
    }
    let drawn = snapshot();
    let d1 = entropy_draws();
    std::hint::black_box(RandomState::new());
    let counted = snapshot();
    if entropy_draws() != d1 {
        return Probe::Drawn;
    }
    let counter = crate::switches::draws_address();
    let Some(region) = keys_region(block.0, &before, &drawn, &counted, counter) else {
        return Probe::Drawn;
    };
    let keys = Keys {
        at: block.0 + region.start,
        fresh: before[region].to_vec(),
    };
    // Check: restored, the next `RandomState::new` draws again.
    keys.restore();
    let d2 = entropy_draws();
    std::hint::black_box(RandomState::new());
    let redrew = entropy_draws().wrapping_sub(d2) == 1 && keys.drawn();
    keys.restore();
    if redrew {
        Probe::Found(keys)
    } else {
        Probe::Drawn
    }
}

/// The offsets in a TLS block at address `base` of std's keys'
/// thread-local, from the block's bytes `before` the first
/// `RandomState::new`, after it (`drawn`) and after the second
/// (`counted`); `counter` is the address of the draw counter, which the
/// first draw changes too and which is not restored. `None` when the bytes
/// are not as the module's docs say.
fn keys_region(
    base: usize,
    before: &[u8],
    drawn: &[u8],
    counted: &[u8],
    counter: usize,
) -> Option<std::ops::Range<usize>> {
    let len = before.len();
    // Exactly one aligned word changed, by +1: the first key.
    let changed: Vec<usize> = (0..len).filter(|&i| drawn[i] != counted[i]).collect();
    let first = *changed.first()?;
    let word = first - (base + first) % 8;
    if changed.iter().any(|&i| i < word || i >= word + 8) || word + 8 > len {
        return None;
    }
    let read = |bytes: &[u8]| u64::from_ne_bytes(bytes[word..word + 8].try_into().unwrap());
    if read(counted) != read(drawn).wrapping_add(1) {
        return None;
    }
    // The thread-local's bytes the first draw changed, near the key: its
    // state before it, the second key after it; and the first key's word
    // whole (any of its bytes may have been drawn equal to what was there
    // before). The draw counter itself (sim_rt's own thread-local) is left
    // out.
    let lo = word.saturating_sub(16);
    let hi = (word + 24).min(len);
    let near: Vec<usize> = (lo..hi)
        .filter(|&i| before[i] != drawn[i])
        .filter(|&i| !(counter..counter + 4).contains(&(base + i)))
        .collect();
    let start = near.first().map_or(word, |&i| i.min(word));
    let end = near.last().map_or(word + 8, |&i| (i + 1).max(word + 8));
    Some(start..end)
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

#[cfg(test)]
mod tests {
    use super::keys_region;

    /// A TLS block at 0x1000 with std's keys' thread-local at 16: the first
    /// key at 16, the second at 24, the state byte at 32; `before` all
    /// zero. Returns (before, drawn, counted) for a first key laid out as
    /// `k0` and a second key of `k1`.
    fn block(k0: [u8; 8], k1: [u8; 8]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        let before = vec![0u8; 64];
        let mut drawn = before.clone();
        drawn[16..24].copy_from_slice(&k0);
        drawn[24..32].copy_from_slice(&k1);
        drawn[32] = 1;
        let mut counted = drawn.clone();
        let next = u64::from_ne_bytes(k0).wrapping_add(1);
        counted[16..24].copy_from_slice(&next.to_ne_bytes());
        (before, drawn, counted)
    }

    const NO_COUNTER: usize = 0x9000;

    #[test]
    fn the_region_is_both_keys_and_the_state() {
        let (before, drawn, counted) = block([7; 8], [9; 8]);
        let region = keys_region(0x1000, &before, &drawn, &counted, NO_COUNTER);
        assert_eq!(region, Some(16..33));
    }

    #[test]
    fn a_key_byte_drawn_equal_to_the_old_one_is_still_restored() {
        // One draw in 256 gives a key's first byte (or last) the value that
        // was there before; the region must not start past the first key.
        let k0 = [0, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0];
        let k1 = [0, 5, 5, 5, 5, 5, 5, 0];
        let (before, drawn, counted) = block(k0, k1);
        let region = keys_region(0x1000, &before, &drawn, &counted, NO_COUNTER);
        assert_eq!(region, Some(16..33));
    }

    #[test]
    fn the_draw_counter_is_left_out() {
        let (before, mut drawn, mut counted) = block([7; 8], [9; 8]);
        // The counter, just below the keys, counted the draw.
        drawn[8] = 1;
        counted[8] = 1;
        let region = keys_region(0x1000, &before, &drawn, &counted, 0x1008);
        assert_eq!(region, Some(16..33));
    }

    #[test]
    fn a_change_that_is_not_a_count_is_not_the_keys() {
        let (before, drawn, mut counted) = block([7; 8], [9; 8]);
        counted[16..24].copy_from_slice(&[3; 8]);
        assert_eq!(
            keys_region(0x1000, &before, &drawn, &counted, NO_COUNTER),
            None
        );
        // Nor two words changed.
        let (before, drawn, mut counted) = block([7; 8], [9; 8]);
        counted[40] = 2;
        assert_eq!(
            keys_region(0x1000, &before, &drawn, &counted, NO_COUNTER),
            None
        );
    }
}
