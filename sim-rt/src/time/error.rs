//! Simulated [`tokio::time::error`](https://docs.rs/tokio/1/tokio/time/error/index.html).

use std::error;
use std::fmt;
use std::io;

/// Simulated [`tokio::time::error::Elapsed`](https://docs.rs/tokio/1/tokio/time/error/struct.Elapsed.html): a [`timeout`](super::timeout())
/// ran out.
#[derive(Debug, PartialEq, Eq)]
pub struct Elapsed(());

impl Elapsed {
    pub(crate) fn new() -> Self {
        Elapsed(())
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        "deadline has elapsed".fmt(f)
    }
}

impl error::Error for Elapsed {}

impl From<Elapsed> for io::Error {
    fn from(_err: Elapsed) -> io::Error {
        io::ErrorKind::TimedOut.into()
    }
}

/// Simulated [`tokio::time::error::Error`](https://docs.rs/tokio/1/tokio/time/error/struct.Error.html): a timer failure. The simulated
/// timer never fails, so no simulated API returns it; it exists for code
/// that names the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error(Kind);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shutdown,
    AtCapacity,
    Invalid,
}

impl Error {
    /// The timer was shut down.
    pub fn shutdown() -> Error {
        Error(Kind::Shutdown)
    }

    /// Whether the error is [`Error::shutdown`].
    pub fn is_shutdown(&self) -> bool {
        matches!(self.0, Kind::Shutdown)
    }

    /// The timer is at capacity.
    pub fn at_capacity() -> Error {
        Error(Kind::AtCapacity)
    }

    /// Whether the error is [`Error::at_capacity`].
    pub fn is_at_capacity(&self) -> bool {
        matches!(self.0, Kind::AtCapacity)
    }

    /// The timer configuration is invalid.
    pub fn invalid() -> Error {
        Error(Kind::Invalid)
    }

    /// Whether the error is [`Error::invalid`].
    pub fn is_invalid(&self) -> bool {
        matches!(self.0, Kind::Invalid)
    }
}

impl error::Error for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Kind::Shutdown => {
                "the timer is shutdown, must be called from the context of Tokio runtime"
            }
            Kind::AtCapacity => "timer is at capacity and cannot create a new entry",
            Kind::Invalid => "timer duration exceeds maximum duration",
        })
    }
}
