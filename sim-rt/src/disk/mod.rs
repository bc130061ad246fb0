//! The hosts' disks, below the runtime's core: each host's `sim_fs` model
//! over the real files (this file), and the POSIX file calls on them
//! ([`posix`], which reach the world through the running simulation).
//! `tokio::fs` (`crate::fs`) and the interposed libc functions
//! (`crate::intercept`) both call down into this layer.
//!
//! # The real files under each disk
//!
//! The real file system is a read-only lower layer under each host's
//! simulated disk, with copy-up: fixtures are readable inside a simulation,
//! and nothing the simulation does reaches the real disk.
//!
//! A host's disk ([`HostDisk`]) is its `sim_fs` model plus this layer. A
//! path resolves first on the model; a path the model does not have shows
//! the real file or directory of the same (absolute) path, as overlayfs
//! shows its lower directory under an upper one:
//!
//! - **Reading** through `tokio::fs` copies the file up first (it becomes a
//!   file of the model, identical to the real one). Reading through libc
//!   (`std::fs`, C code) opens the real file read-only instead, so a large
//!   file (the test binary, read by a backtrace) is not copied, and `mmap`
//!   works on it (see [`posix`]).
//! - **Changing** a path (opening it for writing, truncating, removing,
//!   renaming from or over it, linking to it, creating in its directory)
//!   first *copies it up*: the real file (its content) or directory (only
//!   its entry; its children stay in the lower layer until they are changed
//!   themselves) is imported into the model as already durable
//!   ([`sim_fs::Fs::import_file`]), with its real ancestors; then the
//!   change is made on the model, where it is volatile until synced like
//!   any other. Removing or renaming a directory copies up all of it, so
//!   the model sees what is in it (`ENOTEMPTY`).
//! - Every path the program changed is **shadowed**: the lower layer is
//!   never consulted for it again, so a removed fixture stays removed (the
//!   model holds the whole truth about that path), while a crash that
//!   loses the removal brings back the durable copy.
//! - **Listing** a directory merges the model's entries with the real
//!   directory's entries that are neither in the model nor shadowed, sorted
//!   by name.
//!
//! A real symlink is followed (the model has none): it shows as the file or
//! directory it points to. A real entry that is neither (a device, a real
//! socket or FIFO, a dangling link) is not shown. The sockets of the simulation are
//! the model's own: a Unix socket bound to a path has a socket entry there
//! ([`HostDisk::bind_socket`]), which a connect to the path resolves
//! ([`HostDisk::socket_ino`]). So are its FIFOs: `mkfifo` makes a FIFO's
//! entry in the model ([`HostDisk::make_fifo`]); a real FIFO is not shown.
//! Opening one through libc gives an end of the host's pipe for it
//! (`posix::pipe`); through `sim_rt::fs` it fails ([`HostDisk::open_fifo`]).
//!
//! # Invariants
//!
//! - The lower layer is never written: every real call here is a read
//!   (`stat`, `read`, `readdir`), made with interception off.
//! - A path in `shadowed` is decided by the model alone.
//! - A copied-up entry is durable at once: it was on the disk before the
//!   run, so no crash loses it.
//!
//! # Determinism
//!
//! The real files are read when first needed, and each path's real kind is
//! remembered for the rest of the run; merged listings are sorted by name.
//! So a run is a function of its seed as long as the real files it reads do
//! not change while it runs (fixtures). `shadowed` and the cache are ordered
//! maps.

#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
#[allow(unsafe_code)] // the real libc calls and `DIR` streams behind the interposed functions
pub(crate) mod posix;

#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
mod slot;
#[cfg(all(
    feature = "intercept",
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
pub(crate) use self::slot::DiskSlot;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io;
use std::ops::{Deref, DerefMut};
use std::path::{Component, Path, PathBuf};

use sim_fs::{Chooser, DirEntry, Fd, FileType, Fs, Metadata, OpenOptions};

/// What a simulated disk shows of the real file system.
///
/// Set with [`Builder::real_files`](crate::runtime::Builder::real_files).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RealFiles {
    /// The real files, read-only, under every host's simulated files (the
    /// default): a path the simulated disk does not have reads through to
    /// the real file system, and changing it copies it up into the
    /// simulated disk first. See the guide's "Disk" chapter.
    #[default]
    ReadOnlyLower,
    /// None: every host's disk starts as an empty directory tree.
    Hidden,
}

/// What a real path is, as the lower layer shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RealKind {
    File,
    Dir,
}

/// Where a path leads on a host's disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// The model has it.
    Sim(Metadata),
    /// Only the real file system has it.
    Lower(RealKind),
    /// Neither (the model's own error says why).
    Missing,
}

/// One host's disk: the model, and the real files under it.
#[derive(Debug)]
pub(crate) struct HostDisk {
    pub(crate) fs: Fs,
    lower: Lower,
}

#[derive(Debug)]
struct Lower {
    real: RealFiles,
    /// Paths the program changed: the model alone decides them.
    shadowed: BTreeSet<PathBuf>,
    /// The real kind of each path asked about (`None`: nothing shown).
    known: BTreeMap<PathBuf, Option<RealKind>>,
}

impl Deref for HostDisk {
    type Target = Fs;
    fn deref(&self) -> &Fs {
        &self.fs
    }
}

impl DerefMut for HostDisk {
    fn deref_mut(&mut self) -> &mut Fs {
        &mut self.fs
    }
}

/// `path` made absolute (a relative path starts at the process's working
/// directory) and normalised lexically: no `.`, no `..`, no repeated or
/// trailing `/`. The empty path stays empty (it names nothing: `ENOENT`).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.as_os_str().is_empty() {
        return PathBuf::new();
    }
    let mut out = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        // getcwd is not intercepted: the real working directory.
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
    };
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => out = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

/// [`absolute`], keeping a trailing `/` (or `/.`), which tells the model
/// the path must be a directory.
pub(crate) fn for_model(path: &Path) -> PathBuf {
    let abs = absolute(path);
    let raw = path.as_os_str().as_encoded_bytes();
    if abs.parent().is_some() && (raw.ends_with(b"/") || raw.ends_with(b"/.")) {
        let mut s = abs.into_os_string();
        s.push("/");
        PathBuf::from(s)
    } else {
        abs
    }
}

impl HostDisk {
    pub(crate) fn new(fs: Fs, real: RealFiles) -> HostDisk {
        HostDisk {
            fs,
            lower: Lower {
                real,
                shadowed: BTreeSet::new(),
                known: BTreeMap::new(),
            },
        }
    }

    /// Where absolute path `abs` leads.
    pub(crate) fn find(&mut self, abs: &Path) -> Found {
        match self.fs.metadata(abs) {
            Ok(m) => Found::Sim(m),
            Err(_) => match self.lower_kind(abs) {
                Some(kind) => Found::Lower(kind),
                None => Found::Missing,
            },
        }
    }

    /// What the lower layer shows at absolute path `abs`: nothing when it
    /// is shadowed, or its parent is not a directory of the merged view.
    fn lower_kind(&mut self, abs: &Path) -> Option<RealKind> {
        if self.lower.real == RealFiles::Hidden || self.lower.shadowed.contains(abs) {
            return None;
        }
        let parent = abs.parent()?;
        let parent_is_dir = match self.fs.metadata(parent) {
            Ok(m) => m.is_dir(),
            Err(_) => self.lower_kind(parent) == Some(RealKind::Dir),
        };
        if !parent_is_dir {
            return None;
        }
        if let Some(&kind) = self.lower.known.get(abs) {
            return kind;
        }
        let kind = real_kind(abs);
        self.lower.known.insert(abs.to_owned(), kind);
        kind
    }

    /// Copies absolute path `abs` up from the lower layer if only the lower
    /// layer has it, with every ancestor only the lower layer has; `deep`
    /// copies a directory's whole content up too. Does nothing where the
    /// path leads nowhere (the model's operation then fails as it should).
    pub(crate) fn copy_up(&mut self, abs: &Path, deep: bool) -> io::Result<()> {
        if self.lower.real == RealFiles::Hidden {
            return Ok(());
        }
        if let Some(parent) = abs.parent() {
            let mut dir = PathBuf::from("/");
            for c in parent.components().skip(1) {
                dir.push(c);
                match self.fs.metadata(&dir) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => return Ok(()),
                    Err(_) => match self.lower_kind(&dir) {
                        Some(RealKind::Dir) => {
                            self.fs.import_dir(&dir)?;
                            self.lower.shadowed.insert(dir.clone());
                        }
                        _ => return Ok(()),
                    },
                }
            }
        }
        let is_dir = match self.fs.metadata(abs) {
            Ok(m) => m.is_dir(),
            Err(_) => match self.lower_kind(abs) {
                Some(RealKind::File) => {
                    let data = real_read(abs)?;
                    self.fs.import_file(abs, data)?;
                    self.lower.shadowed.insert(abs.to_owned());
                    false
                }
                Some(RealKind::Dir) => {
                    self.fs.import_dir(abs)?;
                    self.lower.shadowed.insert(abs.to_owned());
                    true
                }
                None => return Ok(()),
            },
        };
        if deep && is_dir {
            for (name, _) in real_list(abs) {
                let child = abs.join(&name);
                if self.fs.metadata(&child).is_err() && self.lower_kind(&child).is_some() {
                    self.copy_up(&child, true)?;
                }
            }
        }
        Ok(())
    }

    /// Prepares absolute path `abs` for a change: copies it up (all of a
    /// directory when `deep`) and shadows it.
    pub(crate) fn touch(&mut self, abs: &Path, deep: bool) -> io::Result<()> {
        self.copy_up(abs, deep)?;
        if self.lower.real != RealFiles::Hidden && abs.parent().is_some() {
            self.lower.shadowed.insert(abs.to_owned());
        }
        Ok(())
    }

    /// The merged entries of directory `path` (made absolute here), sorted
    /// by name; each entry's path is `path` joined with its name.
    pub(crate) fn list(&mut self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let abs = for_model(path);
        let mut entries = match self.fs.read_dir(&abs) {
            Ok(entries) => entries,
            Err(e) => match self.lower_kind(&absolute(path)) {
                Some(RealKind::Dir) => Vec::new(),
                _ => return Err(e),
            },
        };
        let abs = absolute(path);
        if self.lower.real == RealFiles::Hidden {
            return Ok(entries);
        }
        let mut merged = false;
        for (name, ino) in real_list(&abs) {
            let child = abs.join(&name);
            if self.fs.metadata(&child).is_ok() {
                continue;
            }
            if let Some(kind) = self.lower_kind(&child) {
                let file_type = match kind {
                    RealKind::File => FileType::File,
                    RealKind::Dir => FileType::Dir,
                };
                entries.push(DirEntry::new(path.join(&name), name, file_type, ino));
                merged = true;
            }
        }
        if merged {
            entries.sort_by_key(|e| e.file_name());
        }
        Ok(entries)
    }

    // ----- the operations of `tokio::fs`, on the merged view -------------
    //
    // The closures of `sim_rt::fs` call these by the model's names: each
    // makes its paths absolute, copies up what it reads or changes, then
    // calls the model.

    pub(crate) fn metadata(&mut self, path: impl AsRef<Path>) -> io::Result<Metadata> {
        let abs = absolute(path.as_ref());
        self.copy_up(&abs, false)?;
        self.fs.metadata(for_model(path.as_ref()))
    }

    pub(crate) fn symlink_metadata(&mut self, path: impl AsRef<Path>) -> io::Result<Metadata> {
        self.metadata(path)
    }

    pub(crate) fn canonicalize(&mut self, path: impl AsRef<Path>) -> io::Result<PathBuf> {
        let abs = absolute(path.as_ref());
        self.copy_up(&abs, false)?;
        self.fs.canonicalize(for_model(path.as_ref()))
    }

    pub(crate) fn create_dir(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        self.touch(&absolute(path.as_ref()), false)?;
        self.fs.create_dir(for_model(path.as_ref()))
    }

    pub(crate) fn create_dir_all(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        let abs = absolute(path.as_ref());
        if abs.as_os_str().is_empty() {
            return Ok(());
        }
        self.touch(&abs, false)?;
        self.fs.create_dir_all(&abs)
    }

    pub(crate) fn remove_file(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        self.touch(&absolute(path.as_ref()), false)?;
        self.fs.remove_file(for_model(path.as_ref()))
    }

    pub(crate) fn remove_dir(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        self.touch(&absolute(path.as_ref()), true)?;
        self.fs.remove_dir(for_model(path.as_ref()))
    }

    pub(crate) fn remove_dir_all(&mut self, path: impl AsRef<Path>) -> io::Result<()> {
        self.touch(&absolute(path.as_ref()), true)?;
        self.fs.remove_dir_all(for_model(path.as_ref()))
    }

    pub(crate) fn rename(
        &mut self,
        from: impl AsRef<Path>,
        to: impl AsRef<Path>,
    ) -> io::Result<()> {
        self.touch(&absolute(from.as_ref()), true)?;
        self.touch(&absolute(to.as_ref()), true)?;
        self.fs
            .rename(for_model(from.as_ref()), for_model(to.as_ref()))
    }

    pub(crate) fn hard_link(
        &mut self,
        original: impl AsRef<Path>,
        link: impl AsRef<Path>,
    ) -> io::Result<()> {
        self.touch(&absolute(original.as_ref()), false)?;
        self.touch(&absolute(link.as_ref()), false)?;
        self.fs
            .hard_link(for_model(original.as_ref()), for_model(link.as_ref()))
    }

    pub(crate) fn copy(
        &mut self,
        from: impl AsRef<Path>,
        to: impl AsRef<Path>,
        chooser: &mut dyn Chooser,
    ) -> io::Result<u64> {
        self.copy_up(&absolute(from.as_ref()), false)?;
        self.touch(&absolute(to.as_ref()), false)?;
        self.fs
            .copy(for_model(from.as_ref()), for_model(to.as_ref()), chooser)
    }

    pub(crate) fn read_dir(&mut self, path: impl AsRef<Path>) -> io::Result<Vec<DirEntry>> {
        self.list(path.as_ref())
    }

    pub(crate) fn read_file(
        &mut self,
        path: impl AsRef<Path>,
        chooser: &mut dyn Chooser,
    ) -> io::Result<Vec<u8>> {
        self.copy_up(&absolute(path.as_ref()), false)?;
        self.fs.read_file(for_model(path.as_ref()), chooser)
    }

    pub(crate) fn write_file(
        &mut self,
        path: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
        chooser: &mut dyn Chooser,
    ) -> io::Result<()> {
        self.touch(&absolute(path.as_ref()), false)?;
        self.fs
            .write_file(for_model(path.as_ref()), contents, chooser)
    }

    pub(crate) fn open(&mut self, path: impl AsRef<Path>, options: &OpenOptions) -> io::Result<Fd> {
        let abs = absolute(path.as_ref());
        if changes(options) {
            self.touch(&abs, false)?;
        } else {
            self.copy_up(&abs, false)?;
        }
        self.open_model(&for_model(path.as_ref()), options)
    }

    /// The model's open of `model` (a path [`for_model`] gave, already
    /// copied up or touched as the open needs); a FIFO's entry goes to
    /// [`HostDisk::open_fifo`]. Every open of the simulation (`tokio::fs`
    /// and the interposed `open`) comes here.
    pub(crate) fn open_model(&mut self, model: &Path, options: &OpenOptions) -> io::Result<Fd> {
        match self.fs.open(model, options) {
            // The model refuses a FIFO after its own checks (`EEXIST` for
            // `create_new`, `ENOTDIR` for a trailing `/`), with `ENXIO`.
            Err(e)
                if e.raw_os_error() == Some(libc::ENXIO)
                    && self.fs.metadata(model).is_ok_and(|m| m.is_fifo()) =>
            {
                self.open_fifo(model, options)
            }
            opened => opened,
        }
    }

    /// Opens the FIFO (named pipe) entry at `model` as a file of the disk
    /// model (`sim_rt::fs::File::open`): not simulated, so it fails with
    /// `ENXIO` and says so once on stderr. The interposed `open` (std,
    /// libc, tokio's `net::unix::pipe`) does not come here: it gives an
    /// end of the host's pipe (`posix::pipe`).
    fn open_fifo(&mut self, model: &Path, options: &OpenOptions) -> io::Result<Fd> {
        let _ = (model, options);
        crate::switches::say(crate::switches::Escape::FifoOpen);
        Err(io::Error::from_raw_os_error(libc::ENXIO))
    }

    /// `mkfifo(3)` at `path`: creates a FIFO's entry ([`Fs::make_fifo`])
    /// and returns its inode number. As any creating operation, copies the
    /// parent up and shadows the path first, so a real file there is in
    /// the way (`EEXIST`) and a real FIFO there, which is not shown, is
    /// not. Takes no mode: the disk keeps none.
    #[cfg_attr(
        not(all(
            feature = "intercept",
            target_os = "linux",
            target_env = "gnu",
            not(target_feature = "crt-static")
        )),
        allow(dead_code) // called by the interposed `mkfifo` only
    )]
    pub(crate) fn make_fifo(&mut self, path: impl AsRef<Path>) -> io::Result<u64> {
        self.touch(&absolute(path.as_ref()), false)?;
        self.fs.make_fifo(for_model(path.as_ref()))
    }

    // ----- the names of Unix sockets ---------------------------------------

    /// `bind(2)` of a Unix socket to `path`: creates the socket's entry
    /// ([`Fs::bind_socket`]) and returns its inode number. As any creating
    /// operation, copies the parent up and shadows the path first, so a
    /// real file there is in the way (`EADDRINUSE`) and a real socket
    /// there, which is not shown, is not.
    pub(crate) fn bind_socket(&mut self, path: impl AsRef<Path>) -> io::Result<u64> {
        self.touch(&absolute(path.as_ref()), false)?;
        self.fs.bind_socket(for_model(path.as_ref()))
    }

    /// What `connect(2)` of a Unix socket to `path` resolves: the inode
    /// number of the socket entry there. Nothing is copied up: a connect
    /// only reads the path.
    ///
    /// # Errors
    ///
    /// As Linux: the model's error when the path leads nowhere (`ENOENT`,
    /// `ENOTDIR`), a real socket included (not shown); `ECONNREFUSED` when
    /// it leads to something that is not a socket (a file or a directory,
    /// of either layer).
    pub(crate) fn socket_ino(&mut self, path: impl AsRef<Path>) -> io::Result<u64> {
        let path = path.as_ref();
        let refused = || io::Error::from_raw_os_error(libc::ECONNREFUSED);
        match self.fs.metadata(for_model(path)) {
            Ok(m) if m.is_socket() => Ok(m.ino()),
            Ok(_) => Err(refused()),
            Err(e) => match self.find(&absolute(path)) {
                Found::Lower(_) => Err(refused()),
                Found::Sim(_) | Found::Missing => Err(e),
            },
        }
    }
}

/// Whether opening with `options` may change the path (create or truncate
/// it) or its content (write access).
pub(crate) fn changes(options: &OpenOptions) -> bool {
    // `OpenOptions` has no getters; its Debug form is stable within the
    // workspace, but a comparison is clearer: an open that only reads is
    // exactly one of these two.
    let mut read = OpenOptions::new();
    read.read(true);
    let mut read_syscall = read;
    read_syscall.syscall(true);
    *options != read && *options != read_syscall
}

/// Runs `f` with interception off: the real file system.
fn real<R>(f: impl FnOnce() -> R) -> R {
    crate::switches::without_interception(f)
}

/// The real kind of absolute path `abs`, following symlinks.
fn real_kind(abs: &Path) -> Option<RealKind> {
    let meta = real(|| std::fs::metadata(abs)).ok()?;
    if meta.is_file() {
        Some(RealKind::File)
    } else if meta.is_dir() {
        Some(RealKind::Dir)
    } else {
        None
    }
}

/// The content of real file `abs`.
fn real_read(abs: &Path) -> io::Result<Vec<u8>> {
    real(|| std::fs::read(abs))
}

/// The names and inode numbers in real directory `abs` (nothing when it
/// cannot be read).
pub(crate) fn real_list(abs: &Path) -> Vec<(OsString, u64)> {
    use std::os::unix::fs::DirEntryExt;
    real(|| {
        let Ok(dir) = std::fs::read_dir(abs) else {
            return Vec::new();
        };
        let mut names: Vec<(OsString, u64)> = dir
            .filter_map(|e| e.ok())
            .map(|e| (e.file_name(), e.ino()))
            .collect();
        names.sort();
        names
    })
}

#[cfg(test)]
mod tests {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStringExt;

    use super::*;

    fn errno(r: io::Result<impl std::fmt::Debug>) -> i32 {
        r.expect_err("expected an error")
            .raw_os_error()
            .expect("a raw OS error")
    }

    #[test]
    fn a_bound_socket_is_what_a_connect_finds() {
        let mut disk = HostDisk::new(Fs::default(), RealFiles::Hidden);
        disk.create_dir("/run").unwrap();
        disk.write_file("/run/f", b"x", &mut sim_fs::DefaultChooser)
            .unwrap();
        let ino = disk.bind_socket("/run/./s").unwrap();
        assert_eq!(disk.socket_ino("/run/s").unwrap(), ino);
        assert!(disk.metadata("/run/s").unwrap().is_socket());
        assert_eq!(errno(disk.bind_socket("/run/s")), libc::EADDRINUSE);
        assert_eq!(errno(disk.bind_socket("/run/f")), libc::EADDRINUSE);
        assert_eq!(errno(disk.bind_socket("/nope/s")), libc::ENOENT);
        assert_eq!(errno(disk.bind_socket("/run/f/s")), libc::ENOTDIR);
        assert_eq!(errno(disk.socket_ino("/run/f")), libc::ECONNREFUSED);
        assert_eq!(errno(disk.socket_ino("/run")), libc::ECONNREFUSED);
        assert_eq!(errno(disk.socket_ino("/run/nope")), libc::ENOENT);
        assert_eq!(errno(disk.socket_ino("/run/s/")), libc::ENOTDIR);
        assert_eq!(errno(disk.socket_ino("/run/f/s")), libc::ENOTDIR);
        assert_eq!(
            disk.socket_ino("/run/f").unwrap_err().kind(),
            io::ErrorKind::ConnectionRefused
        );
        disk.remove_file("/run/s").unwrap();
        assert_eq!(errno(disk.socket_ino("/run/s")), libc::ENOENT);
        disk.fs.check_invariants();
    }

    /// Over the real files: a real file is in a mkfifo's way; a real FIFO
    /// is not shown, so it is not, and nothing is made on the real disk.
    #[test]
    #[allow(unsafe_code)] // libc's mkfifo, to make the real FIFO
    fn make_fifo_over_the_real_files() {
        let real_dir = std::env::temp_dir().join(format!(
            "sim-rt-disk-fifo-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&real_dir).unwrap();
        std::fs::write(real_dir.join("f"), b"real").unwrap();
        let real_fifo = CString::new(real_dir.join("p").into_os_string().into_vec()).unwrap();
        // SAFETY: a NUL-terminated path; outside a simulation, libc's own.
        assert_eq!(unsafe { libc::mkfifo(real_fifo.as_ptr(), 0o644) }, 0);

        let mut disk = HostDisk::new(Fs::default(), RealFiles::ReadOnlyLower);
        assert_eq!(errno(disk.make_fifo(real_dir.join("f"))), libc::EEXIST);
        assert_eq!(errno(disk.make_fifo(real_dir.join("no/p"))), libc::ENOENT);
        let ino = disk.make_fifo(real_dir.join("p")).unwrap();
        let m = disk.metadata(real_dir.join("p")).unwrap();
        assert_eq!((m.is_fifo(), m.ino()), (true, ino));
        assert_eq!(errno(disk.make_fifo(real_dir.join("./p"))), libc::EEXIST);
        assert_eq!(
            errno(disk.open(real_dir.join("p"), &OpenOptions::for_open())),
            libc::ENXIO,
            "a FIFO does not open as a file of the disk model"
        );
        assert_eq!(
            errno(disk.open(real_dir.join("p"), &OpenOptions::for_create_new())),
            libc::EEXIST,
            "the model's checks first"
        );
        disk.make_fifo(real_dir.join("q")).unwrap();
        assert!(!real_dir.join("q").exists(), "nothing on the real disk");
        disk.fs.check_invariants();

        std::fs::remove_dir_all(&real_dir).unwrap();
    }

    /// Over the real files: a real file or directory refuses a connect and
    /// is in a bind's way; a real socket is not shown, so it is neither.
    #[test]
    fn real_files_refuse_and_real_sockets_are_not_shown() {
        let real_dir = std::env::temp_dir().join(format!(
            "sim-rt-disk-socket-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&real_dir).unwrap();
        std::fs::write(real_dir.join("f"), b"real").unwrap();
        let listener = std::os::unix::net::UnixListener::bind(real_dir.join("s")).unwrap();

        let mut disk = HostDisk::new(Fs::default(), RealFiles::ReadOnlyLower);
        let f = real_dir.join("f");
        assert_eq!(errno(disk.socket_ino(&f)), libc::ECONNREFUSED);
        assert_eq!(errno(disk.socket_ino(&real_dir)), libc::ECONNREFUSED);
        assert!(disk.fs.metadata(&f).is_err(), "a connect copies nothing up");
        assert_eq!(errno(disk.bind_socket(&f)), libc::EADDRINUSE);
        assert_eq!(errno(disk.socket_ino(real_dir.join("s"))), libc::ENOENT);
        assert!(
            !disk
                .list(&real_dir)
                .unwrap()
                .iter()
                .any(|e| e.file_name() == "s"),
            "a real socket is not listed"
        );
        let ino = disk.bind_socket(real_dir.join("s")).unwrap();
        assert_eq!(disk.socket_ino(real_dir.join("s")).unwrap(), ino);
        let listed: Vec<_> = disk
            .list(&real_dir)
            .unwrap()
            .into_iter()
            .map(|e| (e.file_name(), e.file_type()))
            .collect();
        assert_eq!(
            listed,
            [("f".into(), FileType::File), ("s".into(), FileType::Socket)]
        );
        disk.fs.check_invariants();

        drop(listener);
        std::fs::remove_dir_all(&real_dir).unwrap();
    }
}
