//! The stream behind intercepted randomness (`getrandom` and the like,
//! answered by `crate::intercept`), one per simulation: owned by the
//! world, separate from the scheduler's stream so that reading it never
//! changes the schedule.

use std::cell::RefCell;

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::scheduler::derive_seed;

/// The stream of [`derive_seed`] that feeds intercepted randomness ("OSRAND").
pub(crate) const ENTROPY_STREAM: u64 = 0x4f53_5241_4e44;

/// The generator behind intercepted randomness, one per simulation.
pub(crate) struct Entropy(RefCell<Xoshiro256PlusPlus>);

impl Entropy {
    pub(crate) fn new(seed: u64) -> Entropy {
        Entropy(RefCell::new(Xoshiro256PlusPlus::seed_from_u64(
            derive_seed(seed, ENTROPY_STREAM),
        )))
    }
}

impl Entropy {
    /// Fills `buf` from the stream; false when it is in use (a fill called
    /// from inside a fill cannot happen, but an interposed function must
    /// not panic).
    pub(crate) fn fill(&self, buf: &mut [u8]) -> bool {
        let Ok(mut rng) = self.0.try_borrow_mut() else {
            return false;
        };
        rng.fill_bytes(buf);
        true
    }
}

impl std::fmt::Debug for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Entropy")
    }
}
