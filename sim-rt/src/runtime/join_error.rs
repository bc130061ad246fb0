//! Simulated [`tokio::task::JoinError`](https://docs.rs/tokio/1/tokio/task/struct.JoinError.html).

use std::any::Any;
use std::fmt;
use std::io;
use std::sync::Mutex;

use crate::ids::Id;

enum Repr {
    Cancelled,
    // A Mutex only to make the error `Sync`, as tokio's `SyncWrapper` does.
    Panic(Mutex<Box<dyn Any + Send + 'static>>),
}

/// Simulated [`tokio::task::JoinError`](https://docs.rs/tokio/1/tokio/task/struct.JoinError.html): a task failed to run to completion.
///
/// # Differences from tokio
///
/// None. Note that a panicking task only produces a `JoinError` when the
/// runtime is built with
/// [`UnhandledPanic::Ignore`](crate::runtime::UnhandledPanic::Ignore); by
/// default a panic fails the simulation.
pub struct JoinError {
    repr: Repr,
    id: Id,
}

impl JoinError {
    pub(crate) fn cancelled(id: Id) -> JoinError {
        JoinError {
            repr: Repr::Cancelled,
            id,
        }
    }

    pub(crate) fn panic(id: Id, payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            repr: Repr::Panic(Mutex::new(payload)),
            id,
        }
    }

    /// Whether the task was cancelled (aborted, or dropped at shutdown).
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// Whether the task panicked.
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic's message, for a failure report, when this is a panic.
    pub(crate) fn panic_message(&self) -> Option<String> {
        match &self.repr {
            Repr::Panic(p) => {
                let payload = p.lock().unwrap_or_else(|e| e.into_inner());
                Some(crate::runtime::context::panic_message(&**payload))
            }
            _ => None,
        }
    }

    /// The panic payload, to resume it with [`std::panic::resume_unwind`].
    ///
    /// # Panics
    ///
    /// When the error is not a panic.
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic()
            .expect("`JoinError` reason is not a panic.")
    }

    /// The panic payload, or the error itself when it is not a panic.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            Repr::Panic(p) => Ok(p.into_inner().unwrap_or_else(|e| e.into_inner())),
            _ => Err(self),
        }
    }

    /// The id of the task that failed.
    pub fn id(&self) -> Id {
        self.id
    }

    fn panic_str(&self) -> Option<String> {
        match &self.repr {
            Repr::Panic(p) => {
                let p = p.lock().unwrap_or_else(|e| e.into_inner());
                p.downcast_ref::<&'static str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
            }
            Repr::Cancelled => None,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_str()) {
            (Repr::Cancelled, _) => write!(f, "task {} was cancelled", self.id),
            (Repr::Panic(_), Some(msg)) => {
                write!(f, "task {} panicked with message {:?}", self.id, msg)
            }
            (Repr::Panic(_), None) => write!(f, "task {} panicked", self.id),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_str()) {
            (Repr::Cancelled, _) => write!(f, "JoinError::Cancelled({:?})", self.id),
            (Repr::Panic(_), Some(msg)) => {
                write!(f, "JoinError::Panic({:?}, {:?}, ...)", self.id, msg)
            }
            (Repr::Panic(_), None) => write!(f, "JoinError::Panic({:?}, ...)", self.id),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for io::Error {
    fn from(src: JoinError) -> io::Error {
        io::Error::other(match src.repr {
            Repr::Cancelled => "task was cancelled",
            Repr::Panic(_) => "task panicked",
        })
    }
}
