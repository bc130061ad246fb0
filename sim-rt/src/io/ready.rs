//! [`Ready`]: the readiness state of an I/O resource.

use std::fmt;
use std::ops;

// tokio's bit values.
const READABLE: usize = 0b00_0001;
const WRITABLE: usize = 0b00_0010;
const READ_CLOSED: usize = 0b00_0100;
const WRITE_CLOSED: usize = 0b00_1000;
const PRIORITY: usize = 0b01_0000;
const ERROR: usize = 0b10_0000;

/// Own version of
/// [`tokio::io::Ready`](https://docs.rs/tokio/1/tokio/io/struct.Ready.html):
/// which operations an I/O resource is ready to perform.
///
/// # Differences from tokio
///
/// None.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ready(usize);

impl Ready {
    /// No readiness.
    pub const EMPTY: Ready = Ready(0);
    /// Readable readiness.
    pub const READABLE: Ready = Ready(READABLE);
    /// Writable readiness.
    pub const WRITABLE: Ready = Ready(WRITABLE);
    /// The read half is closed.
    pub const READ_CLOSED: Ready = Ready(READ_CLOSED);
    /// The write half is closed.
    pub const WRITE_CLOSED: Ready = Ready(WRITE_CLOSED);
    /// Priority readiness (Linux and Android).
    pub const PRIORITY: Ready = Ready(PRIORITY);
    /// Error readiness.
    pub const ERROR: Ready = Ready(ERROR);
    /// Every readiness.
    pub const ALL: Ready =
        Ready(READABLE | WRITABLE | READ_CLOSED | WRITE_CLOSED | ERROR | PRIORITY);

    fn has(self, bits: usize) -> bool {
        self.0 & bits == bits
    }

    /// Whether no readiness is set.
    pub fn is_empty(self) -> bool {
        self == Ready::EMPTY
    }

    /// Whether readable readiness is set.
    pub fn is_readable(self) -> bool {
        self.has(READABLE) || self.is_read_closed()
    }

    /// Whether writable readiness is set.
    pub fn is_writable(self) -> bool {
        self.has(WRITABLE) || self.is_write_closed()
    }

    /// Whether the read half is closed.
    pub fn is_read_closed(self) -> bool {
        self.has(READ_CLOSED)
    }

    /// Whether the write half is closed.
    pub fn is_write_closed(self) -> bool {
        self.has(WRITE_CLOSED)
    }

    /// Whether priority readiness is set.
    pub fn is_priority(self) -> bool {
        self.has(PRIORITY)
    }

    /// Whether error readiness is set.
    pub fn is_error(self) -> bool {
        self.has(ERROR)
    }
}

impl ops::BitOr<Ready> for Ready {
    type Output = Ready;

    #[inline]
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl ops::BitOrAssign<Ready> for Ready {
    #[inline]
    fn bitor_assign(&mut self, other: Ready) {
        self.0 |= other.0;
    }
}

impl ops::BitAnd<Ready> for Ready {
    type Output = Ready;

    #[inline]
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

impl ops::Sub<Ready> for Ready {
    type Output = Ready;

    #[inline]
    fn sub(self, other: Ready) -> Ready {
        Ready(self.0 & !other.0)
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ready")
            .field("is_readable", &self.is_readable())
            .field("is_writable", &self.is_writable())
            .field("is_read_closed", &self.is_read_closed())
            .field("is_write_closed", &self.is_write_closed())
            .field("is_error", &self.is_error())
            .field("is_priority", &self.is_priority())
            .finish()
    }
}
