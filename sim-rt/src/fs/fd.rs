//! The real file descriptor behind a simulated file's `as_raw_fd`, and
//! what sim_rt does with std's (real) files.
//!
//! Some programs read a file's raw fd (to log it, to key a map, to pass it
//! to a library that only records it). A simulated [`File`](super::File)
//! has no OS file, so, as a simulated socket does (`net/fd.rs`), it gets a
//! *placeholder*: `/dev/null` opened read-only, the first time someone asks
//! for the fd. It is not the simulated file: reading it gives end of file,
//! writing it `EBADF`, `fstat` describes `/dev/null`.
//!
//! # Invariants
//!
//! - Once set, the placeholder is never replaced (`OnceLock`), so the fd a
//!   caller borrowed stays valid for the `File`'s lifetime; it is closed
//!   with the `File`.
//! - sim_rt never reads or writes through a placeholder.

#[cfg(unix)]
use std::fmt;
#[cfg(unix)]
use std::fs::File as StdFile;
#[cfg(unix)]
use std::sync::OnceLock;

/// The lazily opened real file behind a simulated file's raw fd.
#[cfg(unix)]
#[derive(Default)]
pub(crate) struct Placeholder {
    file: OnceLock<StdFile>,
}

#[cfg(unix)]
impl Placeholder {
    /// The placeholder, opened now if needed.
    ///
    /// # Panics
    ///
    /// When the OS refuses to open `/dev/null` (for example the process
    /// is out of file descriptors): `as_raw_fd` cannot report an error.
    pub(crate) fn get_or_open(&self) -> &StdFile {
        self.file.get_or_init(|| {
            StdFile::open("/dev/null").unwrap_or_else(|e| {
                panic!(
                    "sim_rt could not open /dev/null as the placeholder behind a simulated \
                     file's raw fd: {e}. Each simulated file whose fd is asked for \
                     (as_raw_fd / as_fd) holds one real descriptor on /dev/null; raise the \
                     limit on open files (ulimit -n) or drop files sooner"
                )
            })
        })
    }
}

#[cfg(unix)]
impl fmt::Debug for Placeholder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use std::os::fd::AsRawFd;
        match self.file.get() {
            Some(file) => write!(f, "Placeholder(fd {})", file.as_raw_fd()),
            None => f.write_str("Placeholder(none yet)"),
        }
    }
}

/// The panic of every conversion from a real file (`from_std`,
/// `From<std::fs::File>`, `From<OwnedFd>`, `FromRawFd`): a real OS file
/// cannot join the simulated disk.
#[track_caller]
pub(crate) fn from_std_panic(item: &str) -> ! {
    panic!(
        "{item}: the std file is a real OS file, which cannot join the simulated disk \
         (sim-rt simulates each host's disk). Open the file with sim_rt::fs \
         (tokio::fs where sim-rt stands in for tokio) inside the simulation instead"
    )
}

/// The panic of `File::into_std` where the file cannot be handed over.
#[track_caller]
pub(crate) fn into_std_panic() -> ! {
    panic!(
        "File::into_std: this simulated file cannot become a std::fs::File here. A simulated \
         file is handed over as a descriptor the interposed libc calls route to the simulated \
         disk, which needs the simulation that opened the file to be current on this thread \
         (and sim-rt's `intercept` feature on Linux with glibc, dynamically linked). Call it \
         inside that simulation; File::try_into_std returns the file back instead of panicking"
    )
}
