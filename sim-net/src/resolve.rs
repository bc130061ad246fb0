//! Name resolution: the simulation's DNS and `/etc/hosts`.
//!
//! `localhost` resolves to `127.0.0.1` then `::1`; an IP literal resolves
//! to itself; a host's name resolves to its addresses in the order given to
//! [`Net::add_host`]. Names compare case-insensitively and may end with a
//! dot, as in DNS. Anything else fails the way `getaddrinfo` does.
//! Resolution does not depend on whether the host is up: DNS still answers
//! for a crashed machine.

use std::borrow::Cow;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::{error, Net};

/// The key a name is stored and looked up under: without a trailing dot,
/// in lower case (borrowed when `name` is already so, as most are).
pub(crate) fn normalize(name: &str) -> Cow<'_, str> {
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// Whether `key` might parse as an IP address: only hex digits, dots and
/// colons (a host name with any other character cannot, and most have
/// one, so they skip the parse).
pub(crate) fn may_be_ip(key: &str) -> bool {
    key.bytes()
        .all(|b| b.is_ascii_hexdigit() || b == b'.' || b == b':')
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
        if let Some(ip) = may_be_ip(name)
            .then(|| name.parse::<IpAddr>().ok())
            .flatten()
        {
            return Ok(vec![ip]);
        }
        let key = normalize(name);
        if key == "localhost" {
            return Ok(vec![
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(Ipv6Addr::LOCALHOST),
            ]);
        }
        match self.names.get(&*key) {
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
    fn every_address_may_be_one_and_most_names_may_not() {
        for ip in [
            "10.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "FE80::1:aB",
            "::ffff:192.0.2.1",
            "2001:db8:85a3::8a2e:370:7334",
        ] {
            assert!(may_be_ip(ip), "{ip}");
            assert!(
                may_be_ip(&ip.parse::<IpAddr>().unwrap().to_string()),
                "{ip}"
            );
        }
        for name in ["main", "shop", "db-1", "x.example", "ledger:50051"] {
            assert!(
                !may_be_ip(name) || name.parse::<IpAddr>().is_err(),
                "{name}"
            );
        }
        assert!(!may_be_ip("main"));
        assert_eq!(normalize("Db."), "db");
        assert!(matches!(normalize("db."), Cow::Borrowed("db")));
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
