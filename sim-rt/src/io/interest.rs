//! [`Interest`]: the readiness events a task waits for.

use std::fmt;
use std::ops;

// tokio's (and mio's) bit values, so `Debug` and set operations agree.
const READABLE: usize = 0b00_0001;
const WRITABLE: usize = 0b00_0010;
const PRIORITY: usize = 0b01_0000;
const ERROR: usize = 0b10_0000;

/// Own version of
/// [`tokio::io::Interest`](https://docs.rs/tokio/1/tokio/io/struct.Interest.html):
/// a set of readiness events (readable, writable, priority, error),
/// combined with `|`.
///
/// # Differences from tokio
///
/// None. (The sockets' `ready`, `try_io` and `async_io` take it: see
/// `sim_rt::net` for how readiness is simulated.)
#[derive(Clone, Copy, Eq, PartialEq)]
pub struct Interest(usize);

impl Interest {
    /// Interest in readable readiness.
    pub const READABLE: Interest = Interest(READABLE);
    /// Interest in writable readiness.
    pub const WRITABLE: Interest = Interest(WRITABLE);
    /// Interest in error readiness.
    pub const ERROR: Interest = Interest(ERROR);
    /// Interest in priority (out-of-band) readiness (Linux and Android).
    pub const PRIORITY: Interest = Interest(PRIORITY);

    /// Whether the set contains [`READABLE`](Self::READABLE).
    pub const fn is_readable(self) -> bool {
        self.0 & READABLE != 0
    }

    /// Whether the set contains [`WRITABLE`](Self::WRITABLE).
    pub const fn is_writable(self) -> bool {
        self.0 & WRITABLE != 0
    }

    /// Whether the set contains [`ERROR`](Self::ERROR).
    pub const fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }

    /// Whether the set contains [`PRIORITY`](Self::PRIORITY).
    pub const fn is_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }

    /// The union of two sets.
    #[must_use = "this returns the result of the operation, without modifying the original"]
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// The set without `other`, or `None` if that leaves it empty.
    #[must_use = "this returns the result of the operation, without modifying the original"]
    pub fn remove(self, other: Interest) -> Option<Interest> {
        match self.0 & !other.0 {
            0 => None,
            rest => Some(Interest(rest)),
        }
    }
}

impl ops::BitOr for Interest {
    type Output = Self;

    #[inline]
    fn bitor(self, other: Self) -> Self {
        self.add(other)
    }
}

impl ops::BitOrAssign for Interest {
    #[inline]
    fn bitor_assign(&mut self, other: Self) {
        *self = *self | other;
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (self.is_readable(), "READABLE"),
            (self.is_writable(), "WRITABLE"),
            (self.is_priority(), "PRIORITY"),
            (self.is_error(), "ERROR"),
        ];
        let mut first = true;
        for (_, name) in names.iter().filter(|(set, _)| *set) {
            if !first {
                f.write_str(" | ")?;
            }
            f.write_str(name)?;
            first = false;
        }
        Ok(())
    }
}
