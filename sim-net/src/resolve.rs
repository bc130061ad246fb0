//! Name resolution: the simulation's DNS and `/etc/hosts`.
//!
//! `localhost` resolves to `127.0.0.1` then `::1`; an IP literal resolves
//! to itself; a host's name resolves to its addresses in the order given to
//! [`Net::add_host`]. Names compare case-insensitively and may end with a
//! dot, as in DNS. Anything else fails the way `getaddrinfo` does.
//! Resolution does not depend on whether the host is up: DNS still answers
//! for a crashed machine.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::{error, Net};

/// The key a name is stored and looked up under.
pub(crate) fn normalize(name: &str) -> String {
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

impl Net {
    /// Resolves `name` to addresses, like `getaddrinfo` (the runtime's
    /// `lookup_host` adds the port).
    ///
    /// # Errors
    ///
    /// `InvalidInput` for an empty name; `Other` ("failed to lookup address
    /// information") for a name no host has.
    pub fn resolve(&self, name: &str) -> io::Result<Vec<IpAddr>> {
        if name.is_empty() {
            return Err(error::invalid_input("empty host name"));
        }
        if let Ok(ip) = name.parse::<IpAddr>() {
            return Ok(vec![ip]);
        }
        let key = normalize(name);
        if key == "localhost" {
            return Ok(vec![
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(Ipv6Addr::LOCALHOST),
            ]);
        }
        match self.names.get(&key) {
            Some(host) => Ok(self.host(*host).addrs.clone()),
            None => Err(error::unknown_name(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetConfig;

    #[test]
    fn resolves_localhost_literals_and_names() {
        let mut net = Net::new(NetConfig::default());
        let v6: IpAddr = "fd00::7".parse().unwrap();
        let db = net.add_host("db", [v6, "10.1.1.1".parse().unwrap()]);
        assert_eq!(
            net.resolve("localhost").unwrap(),
            vec![
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(Ipv6Addr::LOCALHOST)
            ]
        );
        assert_eq!(net.resolve("LocalHost.").unwrap().len(), 2);
        assert_eq!(
            net.resolve("192.168.1.9").unwrap(),
            vec!["192.168.1.9".parse::<IpAddr>().unwrap()]
        );
        assert_eq!(net.resolve("DB.").unwrap(), net.host_addrs(db));
        net.stop_host(db, std::time::Duration::ZERO);
        assert_eq!(net.resolve("db").unwrap()[0], v6);
    }

    #[test]
    fn unknown_names_fail_like_dns() {
        let net = Net::new(NetConfig::default());
        let e = net.resolve("nowhere").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Other);
        assert!(e
            .to_string()
            .contains("failed to lookup address information"));
        assert_eq!(
            net.resolve("").unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
    }
}
