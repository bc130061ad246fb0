//! Operations on paths: metadata, directories, removal, rename, hard links,
//! copy, std's whole-file helpers, the entry of a Unix socket bound to a
//! path, and a FIFO's entry.
//!
//! Each changes the volatile view at once. A change to a directory entry
//! (create, mkdir, bind, mkfifo, remove, rename, link) is pending until that
//! directory is synced (see [`EntryDurability`](crate::EntryDurability)).
//!
//! A socket's or a FIFO's entry is a name like a file's: it is listed,
//! removed, renamed (over a file, or a file over it) and linked as a file
//! is. What holds data fails on it: it does not open (`ENXIO`: as Linux
//! answers for a socket; for a FIFO, because the model has no pipe behind
//! it), so neither [`Fs::read_file`], [`Fs::write_file`] nor [`Fs::copy`]
//! from or to it works.
//!
//! # Determinism
//!
//! [`Fs::read_dir`] lists entries sorted by name (byte order). Real file
//! systems use an order of their own that programs must not rely on; sorted
//! order keeps runs reproducible.

use std::io;
use std::path::{Path, PathBuf};

use crate::choice::Chooser;
use crate::config::IoOp;
use crate::errno;
use crate::handle::OpenOptions;
use crate::inode::Node;
use crate::metadata::{DirEntry, FileType, Metadata};
use crate::pending::PendingOp;

use super::{Fs, Last, Target};

impl Fs {
    /// Simulated [`std::fs::metadata`].
    pub fn metadata(&self, path: impl AsRef<Path>) -> io::Result<Metadata> {
        Ok(self.metadata_of(self.lookup(path.as_ref())?))
    }

    /// Simulated [`std::fs::symlink_metadata`]: the same as
    /// [`Fs::metadata`], since the model has no symlinks.
    pub fn symlink_metadata(&self, path: impl AsRef<Path>) -> io::Result<Metadata> {
        self.metadata(path)
    }

    /// Simulated [`std::fs::exists`] (`Path::try_exists`): `Ok(false)` when
    /// the path does not exist, an error when it cannot be walked (a file
    /// used as a directory is `ENOTDIR`).
    pub fn try_exists(&self, path: impl AsRef<Path>) -> io::Result<bool> {
        match self.lookup(path.as_ref()) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Simulated [`std::fs::canonicalize`]: the absolute path without `.`
    /// and `..` (relative paths start at the root). The path must exist.
    pub fn canonicalize(&self, path: impl AsRef<Path>) -> io::Result<PathBuf> {
        let parsed = crate::path::Parsed::new(path.as_ref())?;
        let stack = self.walk(&parsed.comps)?;
        let ino = stack.last().expect("the root is never popped").0;
        if parsed.trailing_slash && self.inodes.dir(ino).is_none() {
            return Err(errno::not_a_directory());
        }
        let mut out = PathBuf::from("/");
        out.extend(stack.into_iter().filter_map(|(_, name)| name));
        Ok(out)
    }

    /// Simulated [`std::fs::create_dir`]. The new entry is pending until the
    /// parent directory is synced.
    pub fn create_dir(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        match self.target(path.as_ref())? {
            Target::Whole { .. } => Err(errno::already_exists()),
            Target::Named { dir, name, .. } => {
                if self.entry(dir, &name).is_some() {
                    return Err(errno::already_exists());
                }
                self.create_node(dir, name, Node::Dir(Default::default()));
                Ok(())
            }
        }
    }

    /// Simulated [`std::fs::create_dir_all`], with std's algorithm: an
    /// existing directory is fine, an existing file is `AlreadyExists`.
    pub fn create_dir_all(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        if path.as_os_str().is_empty() {
            return Ok(());
        }
        match self.create_dir(path) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(_) if self.is_dir(path) => return Ok(()),
            Err(e) => return Err(e),
        }
        match path.parent() {
            Some(parent) => self.create_dir_all(parent)?,
            None => return Err(io::Error::other("failed to create whole tree")),
        }
        match self.create_dir(path) {
            Ok(()) => Ok(()),
            Err(_) if self.is_dir(path) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.metadata(path).is_ok_and(|m| m.is_dir())
    }

    /// Simulated `bind(2)` of a Unix socket to `path`: creates a socket
    /// entry there and returns its inode number ([`Metadata::ino`]), which
    /// a `connect(2)` to `path` finds again with [`Fs::metadata`].
    ///
    /// The entry is pending until the parent directory is synced, as a
    /// created file's is, and a crash keeps or loses it as it would that
    /// file's. Once durable it outlives the socket and every crash: a
    /// stale socket file that a program removes before binding again, as
    /// on Linux. It does not open (`ENXIO`).
    ///
    /// # Errors
    ///
    /// As Linux's `bind(2)` on `AF_UNIX`: `EADDRINUSE` when `path` exists,
    /// whatever it is (the root, `.` and `..` included); `ENOENT` when the
    /// parent is missing, or when `path` ends in `/` and names nothing;
    /// `ENOTDIR` when the parent is not a directory.
    pub fn bind_socket(&mut self, path: impl AsRef<Path>) -> io::Result<u64> {
        self.create_entry(path.as_ref(), Node::Socket, errno::address_in_use)
    }

    /// Simulated `mkfifo(3)` (`mknod(2)` with `S_IFIFO`): creates a FIFO
    /// (named pipe) entry at `path` and returns its inode number
    /// ([`Metadata::ino`]).
    ///
    /// The entry is pending until the parent directory is synced, as a
    /// created file's is, and a crash keeps or loses it as it would that
    /// file's. The model holds no pipe behind it: it does not open
    /// (`ENXIO`, see [`Fs::open`]); the runtime answers a FIFO's opens
    /// itself.
    ///
    /// # Errors
    ///
    /// As Linux's `mkfifo(3)`: `EEXIST` when `path` exists, whatever it is
    /// (the root, `.` and `..` included); `ENOENT` when the parent is
    /// missing, or when `path` ends in `/` and names nothing; `ENOTDIR`
    /// when the parent is not a directory.
    pub fn make_fifo(&mut self, path: impl AsRef<Path>) -> io::Result<u64> {
        self.create_entry(path.as_ref(), Node::Fifo, errno::already_exists)
    }

    /// Creates the entry of a node without content (a socket, a FIFO) at
    /// `path`, with the errors of `mknod(2)`: `taken()` when the path
    /// exists, `ENOENT` for a trailing `/` on nothing.
    fn create_entry(
        &mut self,
        path: &Path,
        node: Node,
        taken: fn() -> io::Error,
    ) -> io::Result<u64> {
        debug_assert!(
            matches!(node, Node::Socket | Node::Fifo),
            "only content-less nodes are created by name alone"
        );
        match self.target(path)? {
            Target::Whole { .. } => Err(taken()),
            Target::Named {
                dir,
                name,
                trailing_slash,
                ..
            } => {
                if self.entry(dir, &name).is_some() {
                    return Err(taken());
                }
                if trailing_slash {
                    return Err(errno::not_found());
                }
                Ok(self.create_node(dir, name, node))
            }
        }
    }

    /// Simulated [`std::fs::remove_file`] (`unlink(2)`): `EISDIR` on a
    /// directory. An open handle keeps the file's data until it closes. The
    /// removal is pending until the parent directory is synced.
    pub fn remove_file(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        match self.target(path.as_ref())? {
            Target::Whole { .. } => Err(errno::is_a_directory()),
            Target::Named {
                dir,
                name,
                trailing_slash,
                ..
            } => {
                let ino = self.entry(dir, &name).ok_or_else(errno::not_found)?;
                let is_dir = self.inodes.dir(ino).is_some();
                if trailing_slash && !is_dir {
                    return Err(errno::not_a_directory());
                }
                if is_dir {
                    return Err(errno::is_a_directory());
                }
                self.remove_entry(dir, name);
                Ok(())
            }
        }
    }

    /// Simulated [`std::fs::remove_dir`] (`rmdir(2)`): `ENOTDIR` on a file,
    /// `ENOTEMPTY` unless empty, `EBUSY` on the root, `EINVAL` on `.`.
    pub fn remove_dir(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        match self.target(path.as_ref())? {
            Target::Whole { last, .. } => Err(whole_rmdir_error(last)),
            Target::Named { dir, name, .. } => {
                let ino = self.entry(dir, &name).ok_or_else(errno::not_found)?;
                match self.inodes.dir(ino) {
                    None => Err(errno::not_a_directory()),
                    Some(entries) if !entries.is_empty() => Err(errno::directory_not_empty()),
                    Some(_) => {
                        self.remove_entry(dir, name);
                        Ok(())
                    }
                }
            }
        }
    }

    /// Simulated [`std::fs::remove_dir_all`]: removes the tree depth first,
    /// entries in name order, each removal pending like a `remove_file` or
    /// `remove_dir`. `ENOTDIR` on a file.
    pub fn remove_dir_all(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        match self.target(path.as_ref())? {
            Target::Whole { last, .. } => Err(whole_rmdir_error(last)),
            Target::Named { dir, name, .. } => {
                let ino = self.entry(dir, &name).ok_or_else(errno::not_found)?;
                if self.inodes.dir(ino).is_none() {
                    return Err(errno::not_a_directory());
                }
                self.remove_tree(ino);
                self.remove_entry(dir, name);
                Ok(())
            }
        }
    }

    /// Removes everything inside directory `dir`.
    fn remove_tree(&mut self, dir: u64) {
        let entries = self
            .inodes
            .dir(dir)
            .expect("remove_tree walks directories")
            .clone();
        for (name, child) in entries {
            if self.inodes.dir(child).is_some() {
                self.remove_tree(child);
            }
            self.remove_entry(dir, name);
        }
    }

    /// Simulated [`std::fs::rename`] (`rename(2)`): atomically replaces an
    /// existing file, or an empty directory with a directory. Renaming a
    /// name onto another name of the same file does nothing. Pending until
    /// the directories are synced: each directory's sync persists its half
    /// (see [`EntryDurability`](crate::EntryDurability)).
    pub fn rename(&mut self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
        let Target::Named {
            dir: from_dir,
            name: from_name,
            trailing_slash: from_slash,
            ..
        } = self.target(from.as_ref())?
        else {
            return Err(errno::busy());
        };
        let ino = self
            .entry(from_dir, &from_name)
            .ok_or_else(errno::not_found)?;
        let is_dir = self.inodes.dir(ino).is_some();
        if from_slash && !is_dir {
            return Err(errno::not_a_directory());
        }
        let Target::Named {
            dir: to_dir,
            name: to_name,
            ancestors,
            trailing_slash: to_slash,
        } = self.target(to.as_ref())?
        else {
            return Err(errno::busy());
        };
        if to_slash && !is_dir {
            return Err(errno::not_a_directory());
        }
        let existing = self.entry(to_dir, &to_name);
        if existing == Some(ino) {
            return Ok(());
        }
        if is_dir && ancestors.contains(&ino) {
            return Err(errno::invalid_input());
        }
        if let Some(old) = existing {
            match (is_dir, self.inodes.dir(old)) {
                (true, None) => return Err(errno::not_a_directory()),
                (false, Some(_)) => return Err(errno::is_a_directory()),
                (true, Some(entries)) if !entries.is_empty() => {
                    return Err(errno::directory_not_empty())
                }
                _ => {}
            }
            self.inodes.unlink(to_dir, &to_name);
        }
        self.inodes.link(to_dir, to_name.clone(), ino);
        self.inodes.unlink(from_dir, &from_name);
        self.log.push(PendingOp::Rename {
            from: Some((from_dir, from_name)),
            to: Some((to_dir, to_name)),
            ino,
            kind: self.inodes.file_type(ino),
        });
        Ok(())
    }

    /// Simulated [`std::fs::hard_link`] (`link(2)`): a second name for a
    /// file, sharing its data. `EPERM` for a directory. Pending until the
    /// new name's directory is synced.
    pub fn hard_link(
        &mut self,
        original: impl AsRef<Path>,
        link: impl AsRef<Path>,
    ) -> io::Result<()> {
        let ino = self.lookup(original.as_ref())?;
        let Target::Named { dir, name, .. } = self.target(link.as_ref())? else {
            return Err(errno::already_exists());
        };
        if self.entry(dir, &name).is_some() {
            return Err(errno::already_exists());
        }
        if self.inodes.dir(ino).is_some() {
            return Err(errno::not_permitted());
        }
        self.inodes.link(dir, name.clone(), ino);
        self.log.push(PendingOp::Link {
            dir,
            name,
            ino,
            kind: self.inodes.file_type(ino),
        });
        Ok(())
    }

    /// Simulated [`std::fs::copy`]: creates or truncates `to` and copies
    /// `from`'s data into it; returns the number of bytes copied. Nothing is
    /// synced. As with std, copying a file onto itself empties it. Asks one
    /// read and one write fault ([`IoOp::Read`], [`IoOp::Write`]).
    ///
    /// As std opens `from` first, a socket or a FIFO there is `ENXIO`; a
    /// directory is std's own `InvalidInput`. A socket or a FIFO at `to` is
    /// `ENXIO` too.
    pub fn copy(
        &mut self,
        from: impl AsRef<Path>,
        to: impl AsRef<Path>,
        chooser: &mut dyn Chooser,
    ) -> io::Result<u64> {
        let src = self.lookup(from.as_ref())?;
        match self.inodes.file_type(src) {
            FileType::File => {}
            FileType::Socket => return Err(errno::no_such_device_or_address()),
            FileType::Fifo => return Err(errno::fifo_without_pipe()),
            FileType::Dir => {
                return Err(errno::invalid_input_msg(
                    "the source path is neither a regular file nor a symlink to a regular file",
                ))
            }
        }
        let fd = self.open(to.as_ref(), &OpenOptions::for_create())?;
        let result = (|| {
            self.fault(IoOp::Read, chooser)?;
            let data = self.inodes.data(src).expect("checked above").clone();
            self.write_all(fd, &data, chooser)?;
            Ok(data.len() as u64)
        })();
        self.close(fd);
        result
    }

    /// `write_all` over [`Fs::write`]: a short write is retried, so a full
    /// disk ends in `ENOSPC`.
    fn write_all(
        &mut self,
        fd: crate::Fd,
        mut buf: &[u8],
        chooser: &mut dyn Chooser,
    ) -> io::Result<()> {
        while !buf.is_empty() {
            let n = self.write(fd, buf, chooser)?;
            buf = &buf[n..];
        }
        Ok(())
    }

    /// Simulated [`std::fs::read_dir`]: the entries of a directory, sorted
    /// by name. `ENOTDIR` on a file.
    pub fn read_dir(&self, path: impl AsRef<Path>) -> io::Result<Vec<DirEntry>> {
        let path = path.as_ref();
        let ino = self.lookup(path)?;
        let entries = self.inodes.dir(ino).ok_or_else(errno::not_a_directory)?;
        Ok(entries
            .iter()
            .map(|(name, &child)| DirEntry {
                path: path.join(name),
                name: name.clone(),
                file_type: self.inodes.file_type(child),
                ino: child,
            })
            .collect())
    }

    /// Adds `path`, a file holding `data`, as if it had been on the disk,
    /// synced, before the run began: it is in the volatile view and the
    /// durable layer at once, with nothing pending, so no crash loses it.
    ///
    /// For a runtime that shows real files through a lower layer and copies
    /// one up into the simulated disk before the program changes it (the
    /// copy is the file as it already was, not a change of the program's).
    /// Not a file-system operation: it asks no fault and takes no capacity
    /// into account.
    ///
    /// # Errors
    ///
    /// As creating the file: `ENOENT` or `ENOTDIR` when the parent is not a
    /// directory, `EEXIST` when the name is taken.
    pub fn import_file(&mut self, path: impl AsRef<Path>, data: Vec<u8>) -> io::Result<()> {
        self.import(path.as_ref(), Node::File(data))
    }

    /// Adds `path`, an empty directory, as if it had been on the disk,
    /// synced, before the run began; see [`Fs::import_file`].
    pub fn import_dir(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        self.import(path.as_ref(), Node::Dir(Default::default()))
    }

    fn import(&mut self, path: &Path, node: Node) -> io::Result<()> {
        let Target::Named { dir, name, .. } = self.target(path)? else {
            return Err(errno::already_exists());
        };
        if self.entry(dir, &name).is_some() {
            return Err(errno::already_exists());
        }
        let kind = node.file_type();
        let data = match &node {
            Node::File(data) => Some(data.clone()),
            Node::Dir(_) | Node::Socket | Node::Fifo => None,
        };
        let ino = self.inodes.alloc(node);
        self.inodes.link(dir, name.clone(), ino);
        self.durable.add_entry(dir, name, ino, kind);
        if let Some(data) = data.filter(|d| !d.is_empty()) {
            self.durable.write(ino, 0, &data);
        }
        Ok(())
    }

    /// Simulated [`std::fs::read`]: the whole file. `EISDIR` on a
    /// directory, `ENXIO` on a socket or a FIFO (which do not open). Asks
    /// one read fault ([`IoOp::Read`]).
    pub fn read_file(
        &self,
        path: impl AsRef<Path>,
        chooser: &mut dyn Chooser,
    ) -> io::Result<Vec<u8>> {
        let ino = self.lookup(path.as_ref())?;
        let data = match &self.inodes.live(ino).node {
            Node::File(data) => data,
            Node::Dir(_) => return Err(errno::is_a_directory()),
            Node::Socket => return Err(errno::no_such_device_or_address()),
            Node::Fifo => return Err(errno::fifo_without_pipe()),
        };
        self.fault(IoOp::Read, chooser)?;
        Ok(data.clone())
    }

    /// Simulated [`std::fs::write`]: `File::create` then `write_all`.
    /// Nothing is synced. `ENXIO` on a socket or a FIFO (which do not
    /// open).
    pub fn write_file(
        &mut self,
        path: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
        chooser: &mut dyn Chooser,
    ) -> io::Result<()> {
        let fd = self.open(path.as_ref(), &OpenOptions::for_create())?;
        let result = self.write_all(fd, contents.as_ref(), chooser);
        self.close(fd);
        result
    }
}

/// What `rmdir` says about a path ending in the root, `.` or `..`.
fn whole_rmdir_error(last: Last) -> io::Error {
    match last {
        Last::Root => errno::busy(),
        Last::Cur => errno::invalid_input(),
        Last::Parent => errno::directory_not_empty(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::{DefaultChooser, FileType, Fs, OpenOptions, PendingKind, TreeEntry};

    fn errno(r: std::io::Result<impl std::fmt::Debug>) -> i32 {
        r.expect_err("expected an error")
            .raw_os_error()
            .expect("a raw OS error")
    }

    /// `/f` (a file), `/d` (empty), `/full/x`.
    fn setup() -> Fs {
        let mut fs = Fs::default();
        fs.write_file("/f", b"hello", &mut DefaultChooser).unwrap();
        fs.create_dir("/d").unwrap();
        fs.create_dir("/full").unwrap();
        fs.write_file("/full/x", b"", &mut DefaultChooser).unwrap();
        fs
    }

    #[test]
    fn imported_entries_survive_every_crash() {
        let mut fs = Fs::default();
        fs.import_dir("/etc").unwrap();
        fs.import_file("/etc/conf", b"real".to_vec()).unwrap();
        assert!(fs.pending().is_empty(), "an import is not a pending change");
        fs.check_invariants();
        // A change to the copy is volatile as any other.
        let f = fs.open("/etc/conf", &OpenOptions::for_create()).unwrap();
        fs.write(f, b"sim", &mut DefaultChooser).unwrap();
        fs.close(f);
        fs.write_file("/etc/new", b"x", &mut DefaultChooser)
            .unwrap();
        fs.check_invariants();
        fs.crash(&mut DefaultChooser);
        fs.check_invariants();
        assert_eq!(
            fs.read_file("/etc/conf", &mut DefaultChooser).unwrap(),
            b"real"
        );
        assert!(!fs.try_exists("/etc/new").unwrap());
        assert_eq!(errno(fs.import_dir("/etc")), libc::EEXIST);
        assert_eq!(errno(fs.import_file("/", Vec::new())), libc::EEXIST);
        assert_eq!(errno(fs.import_file("/no/x", Vec::new())), libc::ENOENT);
    }

    #[test]
    fn syscall_semantics_are_open_2s() {
        let mut fs = Fs::default();
        // O_RDONLY | O_CREAT creates the file and cannot write it.
        let mut ro_create = OpenOptions::new();
        ro_create.syscall(true).read(true).create(true);
        assert!(OpenOptions::new()
            .read(true)
            .create(true)
            .validate()
            .is_err());
        let f = fs.open("/lock", &ro_create).unwrap();
        assert_eq!(errno(fs.write(f, b"x", &mut DefaultChooser)), libc::EBADF);
        fs.close(f);
        assert!(fs.try_exists("/lock").unwrap());
        // O_RDONLY | O_APPEND cannot write either.
        let mut ro_append = OpenOptions::new();
        ro_append.syscall(true).read(true).append(true);
        let f = fs.open("/lock", &ro_append).unwrap();
        assert_eq!(errno(fs.write(f, b"x", &mut DefaultChooser)), libc::EBADF);
        fs.close(f);
        fs.check_invariants();
    }

    #[test]
    fn directory_errors_match_linux() {
        let mut fs = setup();
        assert_eq!(errno(fs.create_dir("/f")), libc::EEXIST);
        assert_eq!(errno(fs.create_dir("/d")), libc::EEXIST);
        assert_eq!(errno(fs.create_dir("/")), libc::EEXIST);
        assert_eq!(errno(fs.create_dir("/d/.")), libc::EEXIST);
        assert_eq!(errno(fs.create_dir("/a/b")), libc::ENOENT);
        assert_eq!(errno(fs.create_dir("/f/b")), libc::ENOTDIR);
        assert_eq!(errno(fs.create_dir_all("/f/b/c")), libc::ENOTDIR);
        assert_eq!(errno(fs.create_dir_all("/f")), libc::EEXIST);
        assert_eq!(errno(fs.remove_file("/d")), libc::EISDIR);
        assert_eq!(errno(fs.remove_file("/nope")), libc::ENOENT);
        assert_eq!(errno(fs.remove_file("/f/")), libc::ENOTDIR);
        assert_eq!(errno(fs.remove_dir("/f")), libc::ENOTDIR);
        assert_eq!(errno(fs.remove_dir("/full")), libc::ENOTEMPTY);
        assert_eq!(errno(fs.remove_dir("/nope")), libc::ENOENT);
        assert_eq!(errno(fs.remove_dir("/d/.")), libc::EINVAL);
        assert_eq!(errno(fs.remove_dir("/d/..")), libc::ENOTEMPTY);
        assert_eq!(errno(fs.remove_dir("/")), libc::EBUSY);
        assert_eq!(errno(fs.remove_dir_all("/f")), libc::ENOTDIR);
        assert_eq!(errno(fs.remove_dir_all("/nope")), libc::ENOENT);
        assert_eq!(errno(fs.read_dir("/f")), libc::ENOTDIR);
        assert_eq!(errno(fs.read_dir("/nope")), libc::ENOENT);
        assert_eq!(errno(fs.metadata("/f/")), libc::ENOTDIR);
        assert_eq!(errno(fs.metadata("/f/x")), libc::ENOTDIR);
        assert_eq!(errno(fs.try_exists("/f/x")), libc::ENOTDIR);
        assert!(!fs.try_exists("/nope").unwrap());
        assert_eq!(errno(fs.read_file("/d", &mut DefaultChooser)), libc::EISDIR);
        fs.check_invariants();
    }

    #[test]
    fn rename_and_link_errors_match_linux() {
        let mut fs = setup();
        assert_eq!(errno(fs.rename("/nope", "/x")), libc::ENOENT);
        assert_eq!(errno(fs.rename("/f", "/d")), libc::EISDIR);
        assert_eq!(errno(fs.rename("/d", "/f")), libc::ENOTDIR);
        assert_eq!(errno(fs.rename("/d", "/full")), libc::ENOTEMPTY);
        assert_eq!(errno(fs.rename("/d", "/d/sub")), libc::EINVAL);
        assert_eq!(errno(fs.rename("/f", "/nodir/x")), libc::ENOENT);
        assert_eq!(errno(fs.rename("/f", "/g/")), libc::ENOTDIR);
        assert_eq!(errno(fs.rename("/d", "/.")), libc::EBUSY);
        assert_eq!(errno(fs.rename("/d/..", "/x")), libc::EBUSY);
        fs.rename("/f", "/f")
            .expect("renaming onto itself is a no-op");
        fs.rename("/d", "/d2/")
            .expect("a directory may take a trailing slash");
        fs.rename("/d2", "/d").unwrap();
        assert_eq!(errno(fs.hard_link("/d", "/dl")), libc::EPERM);
        assert_eq!(errno(fs.hard_link("/f", "/full/x")), libc::EEXIST);
        assert_eq!(errno(fs.hard_link("/nope", "/x")), libc::ENOENT);
        assert_eq!(
            fs.copy("/d", "/x", &mut DefaultChooser).unwrap_err().kind(),
            std::io::ErrorKind::InvalidInput
        );
        assert_eq!(
            errno(fs.copy("/f", "/d", &mut DefaultChooser)),
            libc::EISDIR
        );
        assert_eq!(
            errno(fs.copy("/nope", "/x", &mut DefaultChooser)),
            libc::ENOENT
        );
        fs.check_invariants();
    }

    #[test]
    fn rename_replaces_and_hard_links_share_data() {
        let mut fs = setup();
        fs.hard_link("/f", "/d/link").unwrap();
        assert_eq!(fs.metadata("/f").unwrap().nlink(), 2);
        fs.write_file("/d/link", b"new", &mut DefaultChooser)
            .unwrap();
        assert_eq!(fs.read_file("/f", &mut DefaultChooser).unwrap(), b"new");
        fs.rename("/f", "/d/link")
            .expect("onto another name of itself: no-op");
        assert!(fs.try_exists("/f").unwrap(), "both names stay, as on Linux");
        fs.rename("/full/x", "/f").unwrap();
        assert_eq!(fs.read_file("/f", &mut DefaultChooser).unwrap(), b"");
        assert_eq!(fs.metadata("/d/link").unwrap().nlink(), 1);
        fs.create_dir("/e").unwrap();
        fs.rename("/d", "/e")
            .expect("a directory replaces an empty one");
        assert_eq!(
            fs.read_file("/e/link", &mut DefaultChooser).unwrap(),
            b"new"
        );
        fs.check_invariants();
    }

    #[test]
    fn create_dir_all_remove_dir_all_read_dir_canonicalize() {
        let mut fs = setup();
        fs.create_dir_all("/a/b/c").unwrap();
        fs.create_dir_all("/a/b/c/")
            .expect("existing directories are fine");
        fs.write_file("/a/b/z", b"z", &mut DefaultChooser).unwrap();
        fs.write_file("/a/b/y", b"y", &mut DefaultChooser).unwrap();
        let names: Vec<_> = fs
            .read_dir("/a/b")
            .unwrap()
            .into_iter()
            .map(|e| (e.file_name().into_string().unwrap(), e.file_type()))
            .collect();
        assert_eq!(
            names,
            [
                ("c".into(), FileType::Dir),
                ("y".into(), FileType::File),
                ("z".into(), FileType::File)
            ],
            "sorted by name"
        );
        assert_eq!(fs.read_dir("a/b").unwrap()[1].path(), Path::new("a/b/y"));
        assert_eq!(
            fs.metadata("/a").unwrap().nlink(),
            3,
            "2 + one subdirectory"
        );
        assert_eq!(
            fs.canonicalize("a/./b/../b/c/..").unwrap(),
            PathBuf::from("/a/b")
        );
        assert_eq!(fs.canonicalize("/..").unwrap(), PathBuf::from("/"));
        assert_eq!(errno(fs.canonicalize("/f/..")), libc::ENOTDIR);
        assert_eq!(errno(fs.canonicalize("/nope")), libc::ENOENT);
        fs.remove_dir_all("/a").unwrap();
        assert!(!fs.try_exists("/a").unwrap());
        assert_eq!(fs.tree().len(), 4, "/f /d /full /full/x remain");
        fs.check_invariants();
    }

    #[test]
    fn copy_creates_truncates_and_onto_itself_empties() {
        let mut fs = setup();
        fs.write_file("/dst", b"longer old data", &mut DefaultChooser)
            .unwrap();
        assert_eq!(fs.copy("/f", "/dst", &mut DefaultChooser).unwrap(), 5);
        assert_eq!(fs.read_file("/dst", &mut DefaultChooser).unwrap(), b"hello");
        assert_eq!(fs.copy("/f", "/f", &mut DefaultChooser).unwrap(), 0);
        assert_eq!(fs.tree()[Path::new("/f")], TreeEntry::File(Vec::new()));
        let f = fs.open("/dst", &OpenOptions::for_open()).unwrap();
        assert_eq!(fs.file_metadata(f).unwrap().len(), 5);
        fs.check_invariants();
    }

    #[test]
    fn bind_creates_a_socket_entry() {
        let mut fs = setup();
        let ino = fs.bind_socket("/d/s").unwrap();
        let m = fs.metadata("/d/s").unwrap();
        assert!(m.is_socket() && m.file_type().is_socket());
        assert!(!m.is_file() && !m.is_dir());
        assert_eq!((m.ino(), m.len(), m.nlink()), (ino, 0, 1));
        let listed = fs.read_dir("/d").unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].file_type(), listed[0].ino()),
            (FileType::Socket, ino)
        );
        assert_eq!(fs.tree()[Path::new("/d/s")], TreeEntry::Socket);
        assert_eq!(
            fs.pending().last(),
            Some(&PendingKind::Link { ino }),
            "a pending entry, as a created file's"
        );
        assert_eq!(
            fs.metadata("/d").unwrap().nlink(),
            2,
            "a socket is not a subdirectory"
        );
        assert_eq!(fs.usage(), 5, "a socket holds no data");
        fs.check_invariants();
    }

    #[test]
    fn bind_errors_match_linux() {
        let mut fs = setup();
        fs.bind_socket("/s").unwrap();
        let before = (fs.tree(), fs.pending());
        for taken in ["/f", "/d", "/s", "/", "/d/.", "/d/..", "/f/", "/s/", "/d/"] {
            assert_eq!(errno(fs.bind_socket(taken)), libc::EADDRINUSE, "{taken}");
        }
        assert_eq!(
            fs.bind_socket("/f").unwrap_err().kind(),
            std::io::ErrorKind::AddrInUse
        );
        assert_eq!(errno(fs.bind_socket("/nope/s")), libc::ENOENT);
        assert_eq!(errno(fs.bind_socket("/new/")), libc::ENOENT);
        assert_eq!(errno(fs.bind_socket("")), libc::ENOENT);
        assert_eq!(errno(fs.bind_socket("/f/s")), libc::ENOTDIR);
        assert_eq!(errno(fs.bind_socket("/s/x")), libc::ENOTDIR);
        assert_eq!(
            (fs.tree(), fs.pending()),
            before,
            "a failed bind changes nothing"
        );
        fs.check_invariants();
    }

    #[test]
    fn a_socket_does_not_open_but_is_named_like_a_file() {
        let d = &mut DefaultChooser;
        let mut fs = setup();
        let ino = fs.bind_socket("/s").unwrap();
        for options in [
            OpenOptions::for_open(),
            OpenOptions::for_create(),
            *OpenOptions::new().write(true).truncate(true),
            *OpenOptions::new().append(true),
        ] {
            assert_eq!(errno(fs.open("/s", &options)), libc::ENXIO, "{options:?}");
        }
        assert_eq!(
            errno(fs.open("/s", &OpenOptions::for_create_new())),
            libc::EEXIST
        );
        assert_eq!(
            errno(fs.open("/s/", &OpenOptions::for_open())),
            libc::ENOTDIR
        );
        assert_eq!(errno(fs.read_file("/s", d)), libc::ENXIO);
        assert_eq!(errno(fs.write_file("/s", b"x", d)), libc::ENXIO);
        assert_eq!(errno(fs.copy("/s", "/x", d)), libc::ENXIO);
        assert!(
            !fs.try_exists("/x").unwrap(),
            "std's copy opens its source first"
        );
        assert_eq!(errno(fs.copy("/f", "/s", d)), libc::ENXIO);
        assert_eq!(errno(fs.read_dir("/s")), libc::ENOTDIR);
        assert_eq!(errno(fs.remove_dir("/s")), libc::ENOTDIR);
        assert_eq!(errno(fs.create_dir("/s")), libc::EEXIST);
        assert_eq!(fs.open_handles(), 0);
        assert_eq!(fs.tree()[Path::new("/s")], TreeEntry::Socket);
        // Named like a file: linked, renamed (over a file and under one),
        // removed.
        fs.hard_link("/s", "/d/t").unwrap();
        assert_eq!(fs.metadata("/s").unwrap().nlink(), 2);
        fs.rename("/s", "/d/u").unwrap();
        fs.rename("/f", "/d/t").expect("a file replaces a socket");
        assert_eq!(fs.metadata("/d/u").unwrap().nlink(), 1);
        fs.rename("/d/u", "/full/x")
            .expect("a socket replaces a file");
        assert_eq!(errno(fs.rename("/full/x", "/d")), libc::EISDIR);
        assert_eq!(fs.metadata("/full/x").unwrap().ino(), ino);
        fs.check_invariants();
        fs.remove_file("/full/x").unwrap();
        assert!(!fs.try_exists("/full/x").unwrap());
        fs.check_invariants();
    }

    #[test]
    fn remove_then_bind_again_gives_a_new_inode() {
        let mut fs = Fs::default();
        let first = fs.bind_socket("/s").unwrap();
        assert_eq!(errno(fs.bind_socket("/s")), libc::EADDRINUSE);
        fs.remove_file("/s").unwrap();
        let second = fs.bind_socket("/s").unwrap();
        assert_ne!(first, second, "inode numbers are never reused");
        assert_eq!(fs.metadata("/s").unwrap().ino(), second);
        fs.check_invariants();
    }

    #[test]
    fn make_fifo_creates_a_fifo_entry() {
        let mut fs = setup();
        let ino = fs.make_fifo("/d/p").unwrap();
        let m = fs.metadata("/d/p").unwrap();
        assert!(m.is_fifo() && m.file_type().is_fifo());
        assert!(!m.is_file() && !m.is_dir() && !m.is_socket());
        assert_eq!((m.ino(), m.len(), m.nlink()), (ino, 0, 1));
        let listed = fs.read_dir("/d").unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].file_type(), listed[0].ino()),
            (FileType::Fifo, ino)
        );
        assert_eq!(fs.tree()[Path::new("/d/p")], TreeEntry::Fifo);
        assert_eq!(
            fs.pending().last(),
            Some(&PendingKind::Link { ino }),
            "a pending entry, as a created file's"
        );
        assert_eq!(
            fs.metadata("/d").unwrap().nlink(),
            2,
            "a FIFO is not a subdirectory"
        );
        assert_eq!(fs.usage(), 5, "a FIFO holds no data");
        fs.check_invariants();
    }

    /// `mkfifo(3)`'s errors are `bind(2)`'s with `EEXIST` for
    /// `EADDRINUSE`: both create through the same path lookup on Linux.
    #[test]
    fn make_fifo_errors_match_linux() {
        let mut fs = setup();
        fs.make_fifo("/p").unwrap();
        fs.bind_socket("/s").unwrap();
        let before = (fs.tree(), fs.pending());
        for taken in [
            "/f", "/d", "/p", "/s", "/", "/d/.", "/d/..", "/f/", "/p/", "/d/",
        ] {
            assert_eq!(errno(fs.make_fifo(taken)), libc::EEXIST, "{taken}");
        }
        assert_eq!(
            fs.make_fifo("/f").unwrap_err().kind(),
            std::io::ErrorKind::AlreadyExists
        );
        assert_eq!(errno(fs.bind_socket("/p")), libc::EADDRINUSE);
        assert_eq!(errno(fs.make_fifo("/nope/p")), libc::ENOENT);
        assert_eq!(errno(fs.make_fifo("/new/")), libc::ENOENT);
        assert_eq!(errno(fs.make_fifo("")), libc::ENOENT);
        assert_eq!(errno(fs.make_fifo("/f/p")), libc::ENOTDIR);
        assert_eq!(errno(fs.make_fifo("/p/x")), libc::ENOTDIR);
        assert_eq!(
            (fs.tree(), fs.pending()),
            before,
            "a failed mkfifo changes nothing"
        );
        fs.check_invariants();
    }

    #[test]
    fn a_fifo_does_not_open_but_is_named_like_a_file() {
        let d = &mut DefaultChooser;
        let mut fs = setup();
        let ino = fs.make_fifo("/p").unwrap();
        for options in [
            OpenOptions::for_open(),
            OpenOptions::for_create(),
            *OpenOptions::new().write(true).truncate(true),
            *OpenOptions::new().append(true),
        ] {
            assert_eq!(errno(fs.open("/p", &options)), libc::ENXIO, "{options:?}");
        }
        assert_eq!(
            errno(fs.open("/p", &OpenOptions::for_create_new())),
            libc::EEXIST
        );
        assert_eq!(
            errno(fs.open("/p/", &OpenOptions::for_open())),
            libc::ENOTDIR
        );
        assert_eq!(errno(fs.read_file("/p", d)), libc::ENXIO);
        assert_eq!(errno(fs.write_file("/p", b"x", d)), libc::ENXIO);
        assert_eq!(errno(fs.copy("/p", "/x", d)), libc::ENXIO);
        assert!(
            !fs.try_exists("/x").unwrap(),
            "std's copy opens its source first"
        );
        assert_eq!(errno(fs.copy("/f", "/p", d)), libc::ENXIO);
        assert_eq!(errno(fs.read_dir("/p")), libc::ENOTDIR);
        assert_eq!(errno(fs.remove_dir("/p")), libc::ENOTDIR);
        assert_eq!(errno(fs.create_dir("/p")), libc::EEXIST);
        assert_eq!(fs.open_handles(), 0);
        assert_eq!(fs.tree()[Path::new("/p")], TreeEntry::Fifo);
        // Named like a file: linked, renamed (over a file and under one),
        // removed.
        fs.hard_link("/p", "/d/t").unwrap();
        assert_eq!(fs.metadata("/p").unwrap().nlink(), 2);
        fs.rename("/p", "/d/u").unwrap();
        fs.rename("/f", "/d/t").expect("a file replaces a FIFO");
        assert_eq!(fs.metadata("/d/u").unwrap().nlink(), 1);
        fs.rename("/d/u", "/full/x")
            .expect("a FIFO replaces a file");
        assert_eq!(errno(fs.rename("/full/x", "/d")), libc::EISDIR);
        assert_eq!(fs.metadata("/full/x").unwrap().ino(), ino);
        fs.check_invariants();
        fs.remove_file("/full/x").unwrap();
        assert!(!fs.try_exists("/full/x").unwrap());
        fs.check_invariants();
    }

    #[test]
    fn remove_then_make_fifo_again_gives_a_new_inode() {
        let mut fs = Fs::default();
        let first = fs.make_fifo("/p").unwrap();
        assert_eq!(errno(fs.make_fifo("/p")), libc::EEXIST);
        fs.remove_file("/p").unwrap();
        let second = fs.make_fifo("/p").unwrap();
        assert_ne!(first, second, "inode numbers are never reused");
        assert_eq!(fs.metadata("/p").unwrap().ino(), second);
        fs.check_invariants();
    }

    #[test]
    fn directory_sync_persists_its_half_of_a_rename() {
        let mut fs = setup();
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        let f = fs.open("/f", &OpenOptions::for_open()).unwrap();
        fs.sync_all(f, &mut DefaultChooser).unwrap();
        fs.sync_all(root, &mut DefaultChooser).unwrap();
        let d = fs.open("/d", &OpenOptions::for_open()).unwrap();
        fs.sync_all(d, &mut DefaultChooser).unwrap();
        fs.rename("/f", "/d/f").unwrap();
        fs.sync_all(d, &mut DefaultChooser).unwrap();
        let durable = fs.durable_tree();
        assert!(
            durable.contains_key(Path::new("/f")),
            "the root was not synced"
        );
        assert!(durable.contains_key(Path::new("/d/f")), "/d was");
        fs.check_invariants();
        fs.sync_all(root, &mut DefaultChooser).unwrap();
        assert!(!fs.durable_tree().contains_key(Path::new("/f")));
        assert_eq!(
            fs.pending().len(),
            1,
            "only /full/x's entry: /full is unsynced"
        );
    }
}
