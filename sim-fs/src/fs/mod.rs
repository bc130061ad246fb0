//! [`Fs`]: one host's disk, and the operations a program makes on it.
//!
//! The operations are split by what they act on: [`file`](mod@file) holds
//! those on an open handle (open, read, write, seek, set_len, sync, close),
//! [`dir`] those on paths (metadata, directories, rename, links, copy), and
//! [`crate::crash`] the crash. This module holds the state and path
//! resolution they share.
//!
//! # Invariants
//!
//! Those of the [volatile layer](crate::inode), the
//! [durable layer](crate::durable), the [log](crate::pending) and the
//! [handles](crate::handle), plus:
//!
//! - every descriptor in `fds` names a description in `descs`, and every
//!   description's inode is live with `open` counting the descriptions on it.
//!
//! [`Fs::check_invariants`] checks them all; the tests call it after every
//! operation.

mod dir;
mod file;

pub use self::file::MAX_FILE_LEN;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io;
use std::path::Path;

use crate::choice::{ask, Choice, Chooser};
use crate::config::{FsConfig, IoOp};
use crate::durable::Durable;
use crate::errno;
use crate::handle::{Fd, OpenFile};
use crate::inode::{Ino, Inodes, Node, ROOT};
use crate::metadata::{FileType, Metadata, DIR_LEN};
use crate::path::{Comp, Parsed};
use crate::pending::{PendingKind, PendingOp};
use crate::snapshot::{self, Tree, TreeEntry};

/// One host's simulated disk: a volatile view, a durable layer, the log of
/// unsynced operations between them, and open handles.
///
/// See the [crate documentation](crate) for the model. Methods mirror the
/// `std::fs` call they simulate and return the same errors; a method that
/// may be hit by an injected fault takes the [`Chooser`] that decides it.
#[derive(Clone, Debug)]
pub struct Fs {
    pub(crate) config: FsConfig,
    pub(crate) inodes: Inodes,
    pub(crate) durable: Durable,
    pub(crate) log: Vec<PendingOp>,
    pub(crate) fds: BTreeMap<Fd, u64>,
    pub(crate) descs: BTreeMap<u64, OpenFile>,
    next_fd: u64,
    next_desc: u64,
    /// Inodes whose dirty data a failed sync dropped (so the volatile view
    /// is no longer durable + log for them); cleared by a crash.
    pub(crate) lost_dirty: BTreeSet<Ino>,
}

impl Default for Fs {
    fn default() -> Self {
        Fs::new(FsConfig::default())
    }
}

/// Where a path leads, before its last component is looked up.
#[derive(Debug)]
pub(crate) enum Target {
    /// The path ends in a name, `name` in directory `dir`. `ancestors` are
    /// the directories walked from the root to `dir`, both included.
    Named {
        dir: Ino,
        name: OsString,
        ancestors: Vec<Ino>,
        trailing_slash: bool,
    },
    /// The path ends in the root, `.` or `..`: it names directory `ino`
    /// without a name an operation could create, remove or rename.
    Whole { ino: Ino, last: Last },
}

/// How a [`Target::Whole`] path ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Last {
    Root,
    Cur,
    Parent,
}

impl Fs {
    /// An empty disk (only the root directory, durable) with `config`.
    pub fn new(config: FsConfig) -> Self {
        Fs {
            config,
            inodes: Inodes::new(),
            durable: Durable::new(),
            log: Vec::new(),
            fds: BTreeMap::new(),
            descs: BTreeMap::new(),
            next_fd: 0,
            next_desc: 0,
            lost_dirty: BTreeSet::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &FsConfig {
        &self.config
    }

    /// Changes the configuration from now on (for example to turn faults on
    /// mid-run). Operations already logged keep their meaning.
    pub fn config_mut(&mut self) -> &mut FsConfig {
        &mut self.config
    }

    /// The simulated time an operation of kind `op` takes; the runtime
    /// sleeps that long around the call.
    pub fn latency(&self, op: IoOp) -> core::time::Duration {
        self.config.latency.of(op)
    }

    /// The unsynced operations, oldest first: what a crash may lose.
    pub fn pending(&self) -> Vec<PendingKind> {
        self.log.iter().map(PendingOp::kind).collect()
    }

    /// The number of open descriptors.
    pub fn open_handles(&self) -> usize {
        self.fds.len()
    }

    /// The sum of the lengths of all live files (what the capacity limits).
    pub fn usage(&self) -> u64 {
        self.inodes.usage()
    }

    /// Every path the program sees now.
    pub fn tree(&self) -> Tree {
        snapshot::build(
            |ino| self.inodes.dir(ino),
            |ino| match &self.inodes.live(ino).node {
                Node::File(data) => TreeEntry::File(data.clone()),
                Node::Socket => TreeEntry::Socket,
                Node::Fifo => TreeEntry::Fifo,
                Node::Dir(_) => unreachable!("snapshot::build asks only what is not a directory"),
            },
        )
    }

    /// Every path the default crash (nothing unsynced survives) would
    /// leave.
    pub fn durable_tree(&self) -> Tree {
        let mut durable = self.durable.clone();
        durable.fsck();
        snapshot::build(
            |ino| durable.dir(ino),
            |ino| match durable.kind(ino) {
                Some(FileType::File) => {
                    TreeEntry::File(durable.file(ino).expect("a durable file").clone())
                }
                Some(FileType::Socket) => TreeEntry::Socket,
                Some(FileType::Fifo) => TreeEntry::Fifo,
                Some(FileType::Dir) | None => {
                    unreachable!("a durable entry that is not a directory names a durable inode")
                }
            },
        )
    }

    /// Asks whether an operation of kind `op` fails with `EIO`.
    fn fault(&self, op: IoOp, chooser: &mut dyn Chooser) -> io::Result<()> {
        let probability = self.config.faults.eio_probability(op);
        if probability > 0.0 && ask(chooser, Choice::Eio { op, probability }, 2) == 1 {
            return Err(errno::io_error());
        }
        Ok(())
    }

    /// Walks `comps` from the root; returns the stack of `(inode, name)`
    /// from the root (named `None`) to the last component.
    fn walk(&self, comps: &[Comp]) -> io::Result<Vec<(Ino, Option<OsString>)>> {
        let mut stack: Vec<(Ino, Option<OsString>)> = vec![(ROOT, None)];
        for comp in comps {
            let top = stack.last().expect("the root is never popped").0;
            let entries = self.inodes.dir(top).ok_or_else(errno::not_a_directory)?;
            match comp {
                Comp::Cur => {}
                Comp::Parent => {
                    if stack.len() > 1 {
                        stack.pop();
                    }
                }
                Comp::Name(name) => {
                    let &child = entries.get(name).ok_or_else(errno::not_found)?;
                    stack.push((child, Some(name.clone())));
                }
            }
        }
        Ok(stack)
    }

    /// Resolves all of `path` but its last component.
    pub(crate) fn target(&self, path: &Path) -> io::Result<Target> {
        let Parsed {
            mut comps,
            trailing_slash,
        } = Parsed::new(path)?;
        match comps.last() {
            Some(Comp::Name(_)) => {
                let Some(Comp::Name(name)) = comps.pop() else {
                    unreachable!("matched above")
                };
                let stack = self.walk(&comps)?;
                let dir = stack.last().expect("the root is never popped").0;
                if self.inodes.dir(dir).is_none() {
                    return Err(errno::not_a_directory());
                }
                Ok(Target::Named {
                    dir,
                    name,
                    ancestors: stack.into_iter().map(|(ino, _)| ino).collect(),
                    trailing_slash,
                })
            }
            last => {
                let last = match last {
                    None => Last::Root,
                    Some(Comp::Cur) => Last::Cur,
                    Some(Comp::Parent) => Last::Parent,
                    Some(Comp::Name(_)) => unreachable!("matched above"),
                };
                let stack = self.walk(&comps)?;
                let ino = stack.last().expect("the root is never popped").0;
                if self.inodes.dir(ino).is_none() {
                    return Err(errno::not_a_directory());
                }
                Ok(Target::Whole { ino, last })
            }
        }
    }

    /// Resolves `path` to an inode.
    pub(crate) fn lookup(&self, path: &Path) -> io::Result<Ino> {
        match self.target(path)? {
            Target::Named {
                dir,
                name,
                trailing_slash,
                ..
            } => {
                let &ino = self
                    .inodes
                    .dir(dir)
                    .expect("targets name directories")
                    .get(&name)
                    .ok_or_else(errno::not_found)?;
                if trailing_slash && self.inodes.dir(ino).is_none() {
                    return Err(errno::not_a_directory());
                }
                Ok(ino)
            }
            Target::Whole { ino, .. } => Ok(ino),
        }
    }

    /// The inode `dir/name` names, if any.
    fn entry(&self, dir: Ino, name: &OsString) -> Option<Ino> {
        self.inodes
            .dir(dir)
            .expect("targets name directories")
            .get(name)
            .copied()
    }

    /// Allocates an inode holding `node` and names it `dir/name` (a free
    /// name), logging the new entry.
    pub(crate) fn create_node(&mut self, dir: Ino, name: OsString, node: Node) -> Ino {
        let kind = node.file_type();
        let ino = self.inodes.alloc(node);
        self.inodes.link(dir, name.clone(), ino);
        self.log.push(PendingOp::Link {
            dir,
            name,
            ino,
            kind,
        });
        ino
    }

    /// Removes the entry `dir/name`, logging it.
    pub(crate) fn remove_entry(&mut self, dir: Ino, name: OsString) {
        let ino = self.inodes.unlink(dir, &name);
        self.log.push(PendingOp::Unlink { dir, name, ino });
    }

    /// `stat` of live inode `ino`.
    pub(crate) fn metadata_of(&self, ino: Ino) -> Metadata {
        let inode = self.inodes.live(ino);
        match &inode.node {
            Node::File(data) => Metadata {
                file_type: FileType::File,
                len: data.len() as u64,
                ino,
                nlink: inode.nlink.into(),
            },
            Node::Dir(entries) => Metadata {
                file_type: FileType::Dir,
                len: DIR_LEN,
                ino,
                nlink: 2 + entries
                    .values()
                    .filter(|&&child| self.inodes.dir(child).is_some())
                    .count() as u64,
            },
            Node::Socket | Node::Fifo => Metadata {
                file_type: inode.node.file_type(),
                len: 0,
                ino,
                nlink: inode.nlink.into(),
            },
        }
    }

    /// Frees durable data and unsynced writes that no crash outcome, now or
    /// after later syncs, can reach: inodes that are not live in the
    /// volatile view, not named by a pending entry operation, and not
    /// reachable through durable entries from the root or from such an
    /// inode.
    ///
    /// The last part matters: a durable directory whose own entry is still
    /// pending (so it is unreachable in the durable tree now) becomes
    /// reachable when its parent is synced, and brings back every durable
    /// entry in it, including one naming an inode the volatile view has
    /// since freed (the old target of a rename over it, say).
    fn collect_garbage(&mut self) {
        let roots = std::iter::once(ROOT)
            .chain(self.inodes.iter().map(|(ino, _)| ino))
            .chain(
                self.log
                    .iter()
                    .filter(|op| !op.is_data())
                    .map(PendingOp::ino),
            );
        let referenced = self.durable.reachable_from(roots);
        self.durable.retain(|ino| referenced.contains(&ino));
        self.log.retain(|op| referenced.contains(&op.ino()));
    }

    /// Checks every invariant of the model; panics naming the one broken.
    /// Cheap enough for tests to call after every operation.
    pub fn check_invariants(&self) {
        // Volatile tree: link counts, single-named directories, no cycles.
        let mut nlink: BTreeMap<Ino, u32> = BTreeMap::new();
        let mut dir_names: BTreeMap<Ino, u32> = BTreeMap::new();
        let mut usage = 0;
        for (ino, inode) in self.inodes.iter() {
            match &inode.node {
                Node::Dir(entries) => {
                    for &child in entries.values() {
                        *nlink.entry(child).or_default() += 1;
                        if self.inodes.dir(child).is_some() {
                            *dir_names.entry(child).or_default() += 1;
                        }
                    }
                }
                Node::File(data) => usage += data.len() as u64,
                Node::Socket | Node::Fifo => {}
            }
            if ino != ROOT && inode.nlink == 0 {
                assert!(inode.open > 0, "inode {ino}: unnamed and unopened but live");
            }
        }
        for (ino, inode) in self.inodes.iter() {
            if ino == ROOT {
                continue;
            }
            assert_eq!(
                inode.nlink,
                nlink.get(&ino).copied().unwrap_or(0),
                "inode {ino}: nlink counts the entries naming it"
            );
            assert!(
                dir_names.get(&ino).copied().unwrap_or(0) <= 1,
                "inode {ino}: a directory has at most one name"
            );
        }
        assert_eq!(usage, self.inodes.usage(), "usage sums the file lengths");
        // Handles.
        let mut open: BTreeMap<Ino, u32> = BTreeMap::new();
        let mut refs: BTreeMap<u64, u32> = BTreeMap::new();
        for desc in self.fds.values() {
            assert!(
                self.descs.contains_key(desc),
                "descriptors name live descriptions"
            );
            *refs.entry(*desc).or_default() += 1;
        }
        for (id, desc) in &self.descs {
            assert_eq!(desc.refs, refs[id], "a description counts its descriptors");
            *open.entry(desc.ino).or_default() += 1;
        }
        for (ino, inode) in self.inodes.iter() {
            assert_eq!(
                inode.open,
                open.get(&ino).copied().unwrap_or(0),
                "inode {ino}: open counts the descriptions on it"
            );
        }
        // Durable layer: every entry names an inode with durable content.
        self.durable.check_invariants();
        // Log: replaying it over the durable layer gives the volatile view.
        let mut replayed = self.durable.clone();
        for op in &self.log {
            replayed.apply(op);
        }
        for (ino, inode) in self.inodes.iter() {
            if !self.lost_dirty.contains(&ino) {
                match &inode.node {
                    Node::File(data) => assert_eq!(
                        replayed.file(ino),
                        Some(data),
                        "inode {ino}: durable data + pending writes = volatile data"
                    ),
                    Node::Dir(entries) => assert_eq!(
                        replayed.dir(ino),
                        Some(entries),
                        "inode {ino}: durable entries + pending entry ops = volatile entries"
                    ),
                    Node::Socket | Node::Fifo => assert_eq!(
                        replayed.kind(ino),
                        Some(inode.node.file_type()),
                        "inode {ino}: durable layer + pending entry ops hold the socket or FIFO"
                    ),
                }
            }
        }
        for op in &self.log {
            if let PendingOp::Rename { from, to, .. } = op {
                assert!(
                    from.is_some() || to.is_some(),
                    "a logged rename has a half pending"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::{DefaultChooser, Fs, OpenOptions, TreeEntry};

    fn sync(fs: &mut Fs, path: &str) {
        let fd = fs.open(path, &OpenOptions::for_open()).unwrap();
        fs.sync_all(fd, &mut DefaultChooser).unwrap();
        fs.close(fd);
    }

    /// The case `model_reference` found: `/d2/c` is durable in `/d2`, whose
    /// own entry is not yet; a rename replaces `/d2/c` (freeing its old
    /// inode in the volatile view) and an unrelated directory sync collects
    /// garbage. The old inode is unreachable in the durable tree *now*, but
    /// syncing the root makes `/d2` reachable, and with it the old `/d2/c`.
    #[test]
    fn garbage_collection_keeps_what_a_durable_directory_names() {
        let d = &mut DefaultChooser;
        let mut fs = Fs::default();
        fs.create_dir("/d2").unwrap();
        fs.create_dir("/d1").unwrap();
        fs.write_file("/d2/c", b"a", d).unwrap();
        let old = fs.metadata("/d2/c").unwrap().ino();
        sync(&mut fs, "/d2");
        fs.write_file("/c", b"a", d).unwrap();
        fs.write_file("/a", b"a", d).unwrap();
        fs.rename("/c", "/d2/c").unwrap();
        sync(&mut fs, "/d1");
        fs.check_invariants();
        sync(&mut fs, "/");
        fs.check_invariants();
        let empty = TreeEntry::File(Vec::new());
        let expected = [
            ("/a", empty.clone()),
            ("/d1", TreeEntry::Dir),
            ("/d2", TreeEntry::Dir),
            ("/d2/c", empty.clone()),
        ];
        let expected = expected
            .map(|(p, e)| (Path::new(p).to_path_buf(), e))
            .into();
        assert_eq!(
            fs.durable_tree(),
            expected,
            "/d2/c is still the old, never-synced file: /d2's half of the rename is pending"
        );
        assert!(fs.durable.file(old).is_some(), "the old /d2/c is kept");

        // Once /d2's half of the rename is durable, the old inode is garbage.
        sync(&mut fs, "/d2");
        fs.check_invariants();
        assert_eq!(
            fs.durable_tree(),
            expected,
            "the new /d2/c's data is not synced"
        );
        assert!(fs.durable.file(old).is_none(), "the old /d2/c is freed");
        assert!(
            fs.log.iter().all(|op| op.ino() != old),
            "and its pending write"
        );

        fs.crash(d);
        assert_eq!(fs.tree(), expected);
        fs.check_invariants();
    }
}
