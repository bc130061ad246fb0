//! Simulated/own version of tokio's `unix::SocketAddr`: a plain value.

use std::fmt;
use std::path::Path;

/// Simulated/own version of
/// [`tokio::net::unix::SocketAddr`](https://docs.rs/tokio/1/tokio/net/unix/struct.SocketAddr.html):
/// an address associated with a Unix socket.
///
/// # Differences from tokio
///
/// None (no simulated socket ever has one, but the value works).
#[derive(Clone)]
pub struct SocketAddr(std::os::unix::net::SocketAddr);

impl SocketAddr {
    /// Simulated/own version of
    /// [`tokio::net::unix::SocketAddr::is_unnamed`](https://docs.rs/tokio/1/tokio/net/unix/struct.SocketAddr.html#method.is_unnamed):
    /// whether the address is unnamed.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn is_unnamed(&self) -> bool {
        self.0.is_unnamed()
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::SocketAddr::as_pathname`](https://docs.rs/tokio/1/tokio/net/unix/struct.SocketAddr.html#method.as_pathname):
    /// the path, if the address is a path.
    ///
    /// # Differences from tokio
    ///
    /// None.
    pub fn as_pathname(&self) -> Option<&Path> {
        self.0.as_pathname()
    }

    /// Simulated/own version of
    /// [`tokio::net::unix::SocketAddr::as_abstract_name`](https://docs.rs/tokio/1/tokio/net/unix/struct.SocketAddr.html#method.as_abstract_name):
    /// the name, if the address is in the abstract namespace.
    ///
    /// # Differences from tokio
    ///
    /// None.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn as_abstract_name(&self) -> Option<&[u8]> {
        #[cfg(target_os = "android")]
        use std::os::android::net::SocketAddrExt;
        #[cfg(target_os = "linux")]
        use std::os::linux::net::SocketAddrExt;
        self.0.as_abstract_name()
    }
}

impl fmt::Debug for SocketAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<std::os::unix::net::SocketAddr> for SocketAddr {
    fn from(value: std::os::unix::net::SocketAddr) -> Self {
        SocketAddr(value)
    }
}

impl From<SocketAddr> for std::os::unix::net::SocketAddr {
    fn from(value: SocketAddr) -> Self {
        value.0
    }
}
