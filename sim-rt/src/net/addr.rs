//! Simulated [`tokio::net::ToSocketAddrs`](https://docs.rs/tokio/1/tokio/net/trait.ToSocketAddrs.html) and [`tokio::net::lookup_host`](https://docs.rs/tokio/1/tokio/net/fn.lookup_host.html):
//! every form tokio accepts, resolved by the simulation's name service.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

use sim_net::Net;

/// Simulated [`tokio::net::ToSocketAddrs`](https://docs.rs/tokio/1/tokio/net/trait.ToSocketAddrs.html): converts to one or more
/// addresses, resolving host names through the simulation (`localhost`,
/// the names given to [`sim::host`](crate::sim::host), IP literals).
///
/// Implemented for the same types as tokio's: `SocketAddr`,
/// `SocketAddrV4`, `SocketAddrV6`, `(IpAddr, u16)`, `(Ipv4Addr, u16)`,
/// `(Ipv6Addr, u16)`, `&[SocketAddr]`, `str` (`"host:port"`),
/// `(&str, u16)`, `(String, u16)`, `String`, and references to these.
/// The trait is sealed.
///
/// # Errors
///
/// An unknown name fails like a DNS miss (`failed to lookup address
/// information`); a string without a port is `InvalidInput`, as in std.
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

pub(crate) mod sealed {
    use std::io;
    use std::net::SocketAddr;

    use sim_net::Net;

    /// Resolution against the simulation's network.
    pub trait ToSocketAddrsPriv {
        /// The addresses, in the order tried.
        fn resolve(&self, net: &Net) -> io::Result<Vec<SocketAddr>>;
    }
}

use sealed::ToSocketAddrsPriv;

macro_rules! direct {
    ($($t:ty => |$s:ident| $e:expr;)*) => {$(
        impl ToSocketAddrs for $t {}
        impl ToSocketAddrsPriv for $t {
            fn resolve(&self, _: &Net) -> io::Result<Vec<SocketAddr>> {
                let $s = self;
                Ok(vec![$e])
            }
        }
    )*};
}

direct! {
    SocketAddr => |s| *s;
    SocketAddrV4 => |s| SocketAddr::V4(*s);
    SocketAddrV6 => |s| SocketAddr::V6(*s);
    (IpAddr, u16) => |s| SocketAddr::new(s.0, s.1);
    (Ipv4Addr, u16) => |s| SocketAddr::new(IpAddr::V4(s.0), s.1);
    (Ipv6Addr, u16) => |s| SocketAddr::new(IpAddr::V6(s.0), s.1);
}

impl ToSocketAddrs for &[SocketAddr] {}
impl ToSocketAddrsPriv for &[SocketAddr] {
    fn resolve(&self, _: &Net) -> io::Result<Vec<SocketAddr>> {
        Ok(self.to_vec())
    }
}

impl ToSocketAddrs for str {}
impl ToSocketAddrsPriv for str {
    fn resolve(&self, net: &Net) -> io::Result<Vec<SocketAddr>> {
        if let Ok(addr) = self.parse::<SocketAddr>() {
            return Ok(vec![addr]);
        }
        let Some((host, port)) = self.rsplit_once(':') else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "invalid socket address",
            ));
        };
        let port: u16 = port
            .parse()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "invalid port value"))?;
        (host, port).resolve(net)
    }
}

impl ToSocketAddrs for (&str, u16) {}
impl ToSocketAddrsPriv for (&str, u16) {
    fn resolve(&self, net: &Net) -> io::Result<Vec<SocketAddr>> {
        let (host, port) = *self;
        // IPv6 literals may come bracketed in "host:port" strings.
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        Ok(net
            .resolve(host)?
            .into_iter()
            .map(|ip| SocketAddr::new(ip, port))
            .collect())
    }
}

impl ToSocketAddrs for (String, u16) {}
impl ToSocketAddrsPriv for (String, u16) {
    fn resolve(&self, net: &Net) -> io::Result<Vec<SocketAddr>> {
        (self.0.as_str(), self.1).resolve(net)
    }
}

impl ToSocketAddrs for String {}
impl ToSocketAddrsPriv for String {
    fn resolve(&self, net: &Net) -> io::Result<Vec<SocketAddr>> {
        self.as_str().resolve(net)
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}
impl<T: ToSocketAddrsPriv + ?Sized> ToSocketAddrsPriv for &T {
    fn resolve(&self, net: &Net) -> io::Result<Vec<SocketAddr>> {
        (**self).resolve(net)
    }
}

/// Resolves `addr` in the current simulation.
pub(crate) fn resolve<A: ToSocketAddrs>(addr: &A) -> io::Result<Vec<SocketAddr>> {
    crate::runtime::context::with(|w| w.net_ref(|net| addr.resolve(net)))
}

/// Simulated [`tokio::net::lookup_host`](https://docs.rs/tokio/1/tokio/net/fn.lookup_host.html): the addresses `host` resolves to
/// in the simulation.
///
/// # Errors
///
/// As [`ToSocketAddrs`].
///
/// # Panics
///
/// Outside a simulation.
pub async fn lookup_host<T>(host: T) -> io::Result<impl Iterator<Item = SocketAddr>>
where
    T: ToSocketAddrs,
{
    Ok(resolve(&host)?.into_iter())
}

/// Tries `op` on each address in turn, as tokio's `bind`/`connect` do:
/// the first success, else the last error.
pub(crate) async fn each_addr<A, T, F, Fut>(addr: A, mut op: F) -> io::Result<T>
where
    A: ToSocketAddrs,
    F: FnMut(SocketAddr) -> Fut,
    Fut: std::future::Future<Output = io::Result<T>>,
{
    let mut last_err = None;
    for addr in resolve(&addr)? {
        match op(addr).await {
            Ok(v) => return Ok(v),
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "could not resolve to any address",
        )
    }))
}
