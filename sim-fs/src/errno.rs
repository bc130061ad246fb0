//! The errors the model returns, built exactly as std builds them on Linux.
//!
//! A real `std::fs` call that fails in the kernel returns
//! `io::Error::from_raw_os_error(errno)`, whose `kind()` std derives from the
//! errno (`ENOTDIR` → `NotADirectory`, `EBADF` and `EIO` → `Uncategorized`,
//! ...). The model returns the same raw errors, so `raw_os_error()`, `kind()`
//! and the message all match what the program would see on the real host.
//! The errno each call returns was checked against Linux (see the tests of
//! each operation). Checks std makes before calling the kernel (for example
//! [`OpenOptions`](crate::OpenOptions) combinations) are custom errors with
//! std's messages and no raw errno, as in std.
//!
//! On a non-Unix host there is no errno to borrow, so each error falls back
//! to a custom error of the closest stable [`io::ErrorKind`].

use std::io;

macro_rules! errnos {
    ($($(#[$doc:meta])* $name:ident = $errno:ident, $fallback:ident;)*) => {
        $(
            $(#[$doc])*
            pub(crate) fn $name() -> io::Error {
                #[cfg(unix)]
                {
                    io::Error::from_raw_os_error(libc::$errno)
                }
                #[cfg(not(unix))]
                {
                    io::Error::new(io::ErrorKind::$fallback, stringify!($errno))
                }
            }
        )*
    };
}

errnos! {
    /// `ENOENT`: a component of the path does not exist.
    not_found = ENOENT, NotFound;
    /// `EEXIST`: the name is already taken.
    already_exists = EEXIST, AlreadyExists;
    /// `ENOTDIR`: a component used as a directory is not one.
    not_a_directory = ENOTDIR, Other;
    /// `EISDIR`: a file operation on a directory.
    is_a_directory = EISDIR, Other;
    /// `ENOTEMPTY`: removing or replacing a non-empty directory.
    directory_not_empty = ENOTEMPTY, Other;
    /// `EINVAL`: an argument the kernel rejects.
    invalid_input = EINVAL, InvalidInput;
    /// `EBADF`: the handle is closed, or not open for this access.
    bad_fd = EBADF, Other;
    /// `EPERM`: for example a hard link to a directory.
    not_permitted = EPERM, PermissionDenied;
    /// `EBUSY`: renaming or removing the root.
    busy = EBUSY, Other;
    /// `EFBIG`: past the model's largest file.
    file_too_large = EFBIG, Other;
    /// `ENOSPC`: the configured capacity is exhausted.
    no_space = ENOSPC, Other;
    /// `EIO`: an injected I/O error.
    io_error = EIO, Other;
    /// `ENXIO`: opening a socket, which only `connect(2)` reaches.
    no_such_device_or_address = ENXIO, Other;
    /// `ENXIO`: opening a FIFO, which the model has no pipe behind (what
    /// Linux answers a non-blocking write-only open with no reader).
    fifo_without_pipe = ENXIO, Other;
    /// `EADDRINUSE`: binding a Unix socket to a path that exists.
    address_in_use = EADDRINUSE, AddrInUse;
}

/// A custom `InvalidInput` error with std's message, for checks std makes
/// itself before calling the kernel.
pub(crate) fn invalid_input_msg(msg: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_linux_errnos_and_std_kinds() {
        assert_eq!(not_found().kind(), io::ErrorKind::NotFound);
        assert_eq!(already_exists().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(invalid_input().kind(), io::ErrorKind::InvalidInput);
        assert_eq!(not_permitted().kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(io_error().raw_os_error(), Some(libc::EIO));
        assert_eq!(bad_fd().raw_os_error(), Some(libc::EBADF));
        assert_eq!(no_space().raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(
            no_such_device_or_address().raw_os_error(),
            Some(libc::ENXIO)
        );
        assert_eq!(fifo_without_pipe().raw_os_error(), Some(libc::ENXIO));
        assert_eq!(address_in_use().kind(), io::ErrorKind::AddrInUse);
        assert_eq!(
            invalid_input_msg("x").raw_os_error(),
            None,
            "std's own checks carry no errno"
        );
    }
}
