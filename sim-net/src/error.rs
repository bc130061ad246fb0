//! The `io::Error`s the model reports, with the kinds a Linux kernel (and so
//! tokio) would give.
//!
//! | situation | kind |
//! |---|---|
//! | SYN answered by RST (no listener, full backlog, host restarted) | `ConnectionRefused` |
//! | connect to an address no host owns | `ConnectionRefused` (Linux: `EHOSTUNREACH`, whose `ErrorKind` is newer than this crate's MSRV) |
//! | RST on an open connection, first read or write after it | `ConnectionReset` (`BrokenPipe` if the peer's FIN came first, as Linux reports `EPIPE` in `CLOSE_WAIT`) |
//! | write after `shutdown(Write)`, or after the reset error was reported | `BrokenPipe` |
//! | write with a full send buffer, read with nothing buffered, accept with an empty queue, connect still in progress | `WouldBlock` |
//! | bind to a port another socket holds | `AddrInUse` |
//! | bind to an address the host does not own, no ephemeral port left, no source address of the destination's family | `AddrNotAvailable` |
//! | shutdown on a connection not (or no longer) established, `send` on an unconnected datagram socket | `NotConnected` |
//! | datagram larger than 65507 bytes, address family mismatch, loopback-bound socket sending off-host | `InvalidInput` |
//! | unknown host name | `Other`, with getaddrinfo's message |
//!
//! A connection error is reported once, like the kernel's `SO_ERROR`: the
//! first read or write after an RST returns `ConnectionReset`, later reads
//! return `Ok(0)` and later writes `BrokenPipe`. Reads return bytes
//! received before the RST first, and once the peer's FIN has arrived they
//! return `Ok(0)` rather than the error, as Linux's `tcp_recvmsg` does.

use std::io::{Error, ErrorKind};
use std::net::{IpAddr, SocketAddr};

pub(crate) fn kind(kind: ErrorKind) -> Error {
    let msg = match kind {
        ErrorKind::ConnectionRefused => "connection refused",
        ErrorKind::ConnectionReset => "connection reset by peer",
        ErrorKind::BrokenPipe => "broken pipe",
        ErrorKind::NotConnected => "transport endpoint is not connected",
        ErrorKind::WouldBlock => "resource temporarily unavailable",
        _ => "simulated network error",
    };
    Error::new(kind, msg)
}

/// `WouldBlock` is the model's most frequent answer (every read that finds
/// nothing buffered), so it is a simple error: no allocation, like the
/// kernel's `EAGAIN`.
pub(crate) fn would_block() -> Error {
    Error::from(ErrorKind::WouldBlock)
}

pub(crate) fn addr_in_use(addr: SocketAddr) -> Error {
    Error::new(
        ErrorKind::AddrInUse,
        format!("address already in use: {addr}"),
    )
}

pub(crate) fn addr_not_available(what: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::AddrNotAvailable,
        format!("cannot assign requested address: {what}"),
    )
}

pub(crate) fn no_route(ip: IpAddr) -> Error {
    Error::new(
        ErrorKind::ConnectionRefused,
        format!("no route to host: no simulated host has address {ip}"),
    )
}

pub(crate) fn invalid_input(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg.into())
}

pub(crate) fn unknown_name(name: &str) -> Error {
    Error::other(format!(
        "failed to lookup address information: Name or service not known ({name})"
    ))
}
