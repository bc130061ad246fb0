//! Open handles: [`OpenOptions`], [`Fd`] and the open file descriptions
//! they share.
//!
//! As on Unix, a file descriptor ([`Fd`]) refers to an open file
//! description, which holds the inode, the access mode and the cursor.
//! [`Fs::try_clone`](crate::Fs::try_clone) is `dup`: the new descriptor
//! shares the description, cursor included, as `File::try_clone` does.
//!
//! # Invariants
//!
//! - Descriptor numbers are never reused, so a descriptor held across a
//!   crash (which closes them all) is simply unknown afterwards: using it
//!   is `EBADF`, closing it does nothing.
//! - A description's `refs` counts the descriptors naming it; it is removed,
//!   and its inode's `open` count decremented, when the last one closes.

use crate::inode::Ino;

/// A file descriptor on a simulated disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fd(pub(crate) u64);

impl Fd {
    /// The descriptor's number (unique for the life of the disk).
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

/// Options for [`Fs::open`](crate::Fs::open), with the semantics of
/// [`std::fs::OpenOptions`] on Linux.
///
/// # Differences from std
///
/// No permissions mode and no custom flags. [`OpenOptions::syscall`]
/// switches to the semantics of `open(2)` itself, for a runtime that
/// simulates the C call rather than std's wrapper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenOptions {
    pub(crate) read: bool,
    pub(crate) write: bool,
    pub(crate) append: bool,
    pub(crate) truncate: bool,
    pub(crate) create: bool,
    pub(crate) create_new: bool,
    pub(crate) syscall: bool,
}

impl OpenOptions {
    /// All options off.
    pub fn new() -> Self {
        Self::default()
    }

    /// Read access.
    pub fn read(&mut self, read: bool) -> &mut Self {
        self.read = read;
        self
    }

    /// Write access.
    pub fn write(&mut self, write: bool) -> &mut Self {
        self.write = write;
        self
    }

    /// Append mode: every write goes to the end (implies write access).
    pub fn append(&mut self, append: bool) -> &mut Self {
        self.append = append;
        self
    }

    /// Truncate an existing file to length 0.
    pub fn truncate(&mut self, truncate: bool) -> &mut Self {
        self.truncate = truncate;
        self
    }

    /// Create the file if it does not exist.
    pub fn create(&mut self, create: bool) -> &mut Self {
        self.create = create;
        self
    }

    /// Create the file, failing with `AlreadyExists` if the name is taken.
    pub fn create_new(&mut self, create_new: bool) -> &mut Self {
        self.create_new = create_new;
        self
    }

    /// The semantics of `open(2)` rather than std's `OpenOptions`: none of
    /// std's checks of the combination (so `O_RDONLY|O_CREAT` creates the
    /// file and opens it read-only, and `O_RDONLY|O_TRUNC` truncates it,
    /// as Linux does), and [`append`](Self::append) only moves every write
    /// to the end without granting write access (`O_RDONLY|O_APPEND`
    /// cannot write).
    pub fn syscall(&mut self, syscall: bool) -> &mut Self {
        self.syscall = syscall;
        self
    }

    /// `File::open`: read only.
    pub fn for_open() -> Self {
        *OpenOptions::new().read(true)
    }

    /// `File::create`: write, create, truncate.
    pub fn for_create() -> Self {
        *OpenOptions::new().write(true).create(true).truncate(true)
    }

    /// `File::create_new`: read, write, create_new.
    pub fn for_create_new() -> Self {
        *OpenOptions::new().read(true).write(true).create_new(true)
    }

    /// std's own checks, before the kernel sees the flags.
    pub(crate) fn validate(&self) -> std::io::Result<()> {
        if self.syscall {
            return Ok(());
        }
        if !self.read && !self.write && !self.append {
            return Err(crate::errno::invalid_input_msg(
                "must specify at least one of read, write, or append access",
            ));
        }
        let bad_creation = match (self.write, self.append) {
            (true, false) => false,
            (false, false) => self.truncate || self.create || self.create_new,
            (_, true) => self.truncate && !self.create_new,
        };
        if bad_creation {
            return Err(crate::errno::invalid_input_msg(
                "creating or truncating a file requires write or append access",
            ));
        }
        Ok(())
    }

    /// Whether the handle may write.
    pub(crate) fn writable(&self) -> bool {
        self.write || (self.append && !self.syscall)
    }
}

/// How a descriptor's open file description was opened: what
/// `fcntl(F_GETFL)` reports of it ([`Fs::access`](crate::Fs::access)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// It may read.
    pub read: bool,
    /// It may write.
    pub write: bool,
    /// Every write goes to the end.
    pub append: bool,
}

/// An open file description.
#[derive(Clone, Debug)]
pub(crate) struct OpenFile {
    pub(crate) ino: Ino,
    pub(crate) read: bool,
    pub(crate) write: bool,
    pub(crate) append: bool,
    /// The cursor.
    pub(crate) pos: u64,
    /// Descriptors sharing this description.
    pub(crate) refs: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_rejects_the_same_combinations() {
        assert!(OpenOptions::new().validate().is_err());
        assert!(OpenOptions::new()
            .read(true)
            .truncate(true)
            .validate()
            .is_err());
        assert!(OpenOptions::new()
            .read(true)
            .create(true)
            .validate()
            .is_err());
        assert!(OpenOptions::new()
            .append(true)
            .truncate(true)
            .validate()
            .is_err());
        assert!(OpenOptions::new()
            .append(true)
            .truncate(true)
            .create_new(true)
            .validate()
            .is_ok());
        assert!(OpenOptions::for_create().validate().is_ok());
        assert!(OpenOptions::for_create_new().validate().is_ok());
        assert!(OpenOptions::for_open().validate().is_ok());
    }
}
