//! Simulated/own version of tokio's `unix::UCred`: a plain value.

use super::{gid_t, pid_t, uid_t};

/// Simulated/own version of
/// [`tokio::net::unix::UCred`](https://docs.rs/tokio/1/tokio/net/unix/struct.UCred.html):
/// credentials of a process.
///
/// # Differences from tokio
///
/// None: [`UnixStream::peer_cred`](super::UnixStream::peer_cred) reports
/// the process the simulation runs in (every simulated host's processes
/// share its ids).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct UCred {
    /// PID (process ID) of the process.
    pid: Option<pid_t>,
    /// UID (user ID) of the process.
    uid: uid_t,
    /// GID (group ID) of the process.
    gid: gid_t,
}

impl UCred {
    pub(crate) fn new(pid: Option<pid_t>, uid: uid_t, gid: gid_t) -> UCred {
        UCred { pid, uid, gid }
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::UCred::uid`](https://docs.rs/tokio/1/tokio/net/unix/struct.UCred.html#method.uid):
    /// the user id of the process.
    pub fn uid(&self) -> uid_t {
        self.uid
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::UCred::gid`](https://docs.rs/tokio/1/tokio/net/unix/struct.UCred.html#method.gid):
    /// the group id of the process.
    pub fn gid(&self) -> gid_t {
        self.gid
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::UCred::pid`](https://docs.rs/tokio/1/tokio/net/unix/struct.UCred.html#method.pid):
    /// the process id, where the platform reports it.
    pub fn pid(&self) -> Option<pid_t> {
        self.pid
    }
}
