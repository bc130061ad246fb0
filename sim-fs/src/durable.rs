//! The durable layer: what is on the platter, and what a crash falls back to.
//!
//! It is an inode table like the volatile one, without link or open counts:
//! file data by inode, directory entries by directory inode, and the sets
//! of socket and FIFO inodes (these have no content, only their kind).
//! Syncs and
//! crashes change it only by applying [`PendingOp`]s, so it never holds a
//! state the program did not pass through one operation at a time (up to the
//! halves of a rename between directories, and torn writes).
//!
//! Applying is tolerant: an operation whose effect is already there, or
//! whose source entry is missing because an earlier operation was dropped,
//! applies what it can (a rename still adds its new name). After a crash,
//! [`Durable::fsck`] removes what no longer hangs from the root and a second
//! name of a directory, as fsck would.
//!
//! # Invariants
//!
//! - The root, [`ROOT`], is always a directory here.
//! - An inode is in at most one of `files`, `dirs`, `sockets` and `fifos`.
//! - Every entry names an inode this layer holds: a durable name always has
//!   durable content (empty if its data was never synced). So whatever frees
//!   inodes here ([`Durable::retain`]) must keep everything a kept directory
//!   names, as [`Durable::reachable_from`] and [`Durable::fsck`] do.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ffi::OsString;

use crate::inode::{Ino, Inode, Node, ROOT};
use crate::metadata::FileType;
use crate::pending::PendingOp;

/// The durable layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Durable {
    files: BTreeMap<Ino, Vec<u8>>,
    dirs: BTreeMap<Ino, BTreeMap<OsString, Ino>>,
    sockets: BTreeSet<Ino>,
    fifos: BTreeSet<Ino>,
}

impl Durable {
    /// An empty disk: only the root.
    pub(crate) fn new() -> Self {
        let mut dirs = BTreeMap::new();
        dirs.insert(ROOT, BTreeMap::new());
        Durable {
            files: BTreeMap::new(),
            dirs,
            sockets: BTreeSet::new(),
            fifos: BTreeSet::new(),
        }
    }

    /// Makes sure inode `ino` exists here as `kind` (a new inode starts empty).
    fn ensure(&mut self, ino: Ino, kind: FileType) {
        debug_assert!(
            self.kind(ino).is_none_or(|held| held == kind),
            "inode {ino} keeps its kind"
        );
        match kind {
            FileType::File => {
                self.files.entry(ino).or_default();
            }
            FileType::Dir => {
                self.dirs.entry(ino).or_default();
            }
            FileType::Socket => {
                self.sockets.insert(ino);
            }
            FileType::Fifo => {
                self.fifos.insert(ino);
            }
        }
    }

    /// The kind of inode `ino`, if this layer holds it.
    pub(crate) fn kind(&self, ino: Ino) -> Option<FileType> {
        if self.files.contains_key(&ino) {
            Some(FileType::File)
        } else if self.dirs.contains_key(&ino) {
            Some(FileType::Dir)
        } else if self.sockets.contains(&ino) {
            Some(FileType::Socket)
        } else if self.fifos.contains(&ino) {
            Some(FileType::Fifo)
        } else {
            None
        }
    }

    fn file_mut(&mut self, ino: Ino) -> &mut Vec<u8> {
        self.ensure(ino, FileType::File);
        self.files.get_mut(&ino).expect("ensured above")
    }

    /// Applies the whole of `op` (every half still pending).
    pub(crate) fn apply(&mut self, op: &PendingOp) {
        match op {
            PendingOp::Write { ino, offset, data } => self.write(*ino, *offset, data),
            PendingOp::SetLen { ino, len } => {
                let len = usize::try_from(*len).expect("file lengths fit in memory");
                self.file_mut(*ino).resize(len, 0);
            }
            PendingOp::Link {
                dir,
                name,
                ino,
                kind,
            } => self.add_entry(*dir, name.clone(), *ino, *kind),
            PendingOp::Unlink { dir, name, ino } => self.remove_entry(*dir, name, *ino),
            PendingOp::Rename {
                from,
                to,
                ino,
                kind,
            } => {
                if let Some((dir, name)) = from {
                    self.remove_entry(*dir, name, *ino);
                }
                if let Some((dir, name)) = to {
                    self.add_entry(*dir, name.clone(), *ino, *kind);
                }
            }
        }
    }

    /// Writes `data` at `offset` into file `ino`, extending it with zeros.
    pub(crate) fn write(&mut self, ino: Ino, offset: u64, data: &[u8]) {
        let file = self.file_mut(ino);
        let start = usize::try_from(offset).expect("file offsets fit in memory");
        let end = start + data.len();
        if file.len() < end {
            file.resize(end, 0);
        }
        file[start..end].copy_from_slice(data);
    }

    /// Adds (or replaces) the entry `dir/name -> ino`.
    pub(crate) fn add_entry(&mut self, dir: Ino, name: OsString, ino: Ino, kind: FileType) {
        self.ensure(ino, kind);
        self.ensure(dir, FileType::Dir);
        self.dirs
            .get_mut(&dir)
            .expect("ensured above")
            .insert(name, ino);
    }

    /// Removes the entry `dir/name` if it still names `ino`.
    pub(crate) fn remove_entry(&mut self, dir: Ino, name: &OsString, ino: Ino) {
        if let Some(entries) = self.dirs.get_mut(&dir) {
            if entries.get(name) == Some(&ino) {
                entries.remove(name);
            }
        }
    }

    /// Walks the tree from the root, breadth first in name order, and
    /// returns the reachable inodes and the entries that name a directory a
    /// second time (which [`Durable::fsck`] drops).
    fn walk(&self) -> (BTreeSet<Ino>, Vec<(Ino, OsString)>) {
        let mut seen = BTreeSet::from([ROOT]);
        let mut extra_dir_links = Vec::new();
        let mut queue = VecDeque::from([ROOT]);
        while let Some(dir) = queue.pop_front() {
            for (name, &child) in &self.dirs[&dir] {
                let is_dir = self.dirs.contains_key(&child);
                if !seen.insert(child) {
                    if is_dir {
                        extra_dir_links.push((dir, name.clone()));
                    }
                    continue;
                }
                if is_dir {
                    queue.push_back(child);
                }
            }
        }
        (seen, extra_dir_links)
    }

    /// `roots` and every inode reachable from one of them through entries
    /// of this layer. A root this layer does not hold (an inode never made
    /// durable) is included but leads nowhere.
    pub(crate) fn reachable_from(&self, roots: impl IntoIterator<Item = Ino>) -> BTreeSet<Ino> {
        let mut seen: BTreeSet<Ino> = roots.into_iter().collect();
        let mut stack: Vec<Ino> = seen.iter().copied().collect();
        while let Some(ino) = stack.pop() {
            for &child in self.dirs.get(&ino).into_iter().flat_map(|e| e.values()) {
                if seen.insert(child) {
                    stack.push(child);
                }
            }
        }
        seen
    }

    /// Repairs the tree as fsck would after a crash: a directory reached a
    /// second time loses that name (the first, in breadth-first name order,
    /// stays), and unreachable inodes are freed.
    pub(crate) fn fsck(&mut self) {
        let (reachable, extra) = self.walk();
        for (dir, name) in extra {
            self.dirs
                .get_mut(&dir)
                .expect("walk reports entries of live directories")
                .remove(&name);
        }
        self.retain(|ino| reachable.contains(&ino));
    }

    /// Frees every inode for which `keep` is false (never the root). `keep`
    /// must hold for everything a kept directory names (see the module
    /// invariants).
    pub(crate) fn retain(&mut self, keep: impl Fn(Ino) -> bool) {
        self.files.retain(|&ino, _| keep(ino));
        self.dirs.retain(|&ino, _| ino == ROOT || keep(ino));
        self.sockets.retain(|&ino| keep(ino));
        self.fifos.retain(|&ino| keep(ino));
        debug_assert!(
            self.dangling_entry().is_none(),
            "retain keeps everything a kept directory names"
        );
    }

    /// An entry `(dir, name, ino)` naming an inode this layer does not hold,
    /// if any (there is none while the invariants hold).
    fn dangling_entry(&self) -> Option<(Ino, &OsString, Ino)> {
        self.dirs.iter().find_map(|(&dir, entries)| {
            entries
                .iter()
                .find(|(_, &ino)| self.kind(ino).is_none())
                .map(|(name, &ino)| (dir, name, ino))
        })
    }

    /// Checks the module invariants; panics naming the one broken.
    pub(crate) fn check_invariants(&self) {
        assert!(
            self.dirs.contains_key(&ROOT),
            "the durable root is a directory"
        );
        let kinds = [
            self.files.keys().collect::<BTreeSet<_>>(),
            self.dirs.keys().collect(),
            self.sockets.iter().collect(),
            self.fifos.iter().collect(),
        ];
        for (i, a) in kinds.iter().enumerate() {
            for b in &kinds[i + 1..] {
                if let Some(ino) = a.intersection(b).next() {
                    panic!("durable inode {ino} has two kinds: an inode has one kind");
                }
            }
        }
        if let Some((dir, name, ino)) = self.dangling_entry() {
            panic!(
                "durable entry {dir}/{name:?} names inode {ino}, which has no durable \
                 content: a durable entry always names a durable inode"
            );
        }
    }

    /// The volatile inode table this layer turns into after a crash: every
    /// inode here, with link counts from the entries. Call after
    /// [`Durable::fsck`].
    pub(crate) fn to_inodes(&self) -> BTreeMap<Ino, Inode> {
        let mut nlink: BTreeMap<Ino, u32> = BTreeMap::new();
        for entries in self.dirs.values() {
            for &ino in entries.values() {
                *nlink.entry(ino).or_default() += 1;
            }
        }
        let mut map = BTreeMap::new();
        for (&ino, data) in &self.files {
            let inode = Inode {
                node: Node::File(data.clone()),
                nlink: nlink.get(&ino).copied().unwrap_or(0),
                open: 0,
            };
            debug_assert!(inode.nlink > 0, "fsck frees unnamed files");
            map.insert(ino, inode);
        }
        let sockets = self.sockets.iter().map(|&ino| (ino, Node::Socket));
        let fifos = self.fifos.iter().map(|&ino| (ino, Node::Fifo));
        for (ino, node) in sockets.chain(fifos) {
            let inode = Inode {
                node,
                nlink: nlink.get(&ino).copied().unwrap_or(0),
                open: 0,
            };
            debug_assert!(inode.nlink > 0, "fsck frees unnamed sockets and FIFOs");
            map.insert(ino, inode);
        }
        for (&ino, entries) in &self.dirs {
            let inode = Inode {
                node: Node::Dir(entries.clone()),
                nlink: 1,
                open: 0,
            };
            map.insert(ino, inode);
        }
        map
    }

    /// The data of file `ino`, if this layer holds it.
    pub(crate) fn file(&self, ino: Ino) -> Option<&Vec<u8>> {
        self.files.get(&ino)
    }

    /// The entries of directory `ino`, if this layer holds it.
    pub(crate) fn dir(&self, ino: Ino) -> Option<&BTreeMap<OsString, Ino>> {
        self.dirs.get(&ino)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_resolve_by_inode_not_path() {
        let mut d = Durable::new();
        // A file synced into a directory whose own entry is not durable.
        d.add_entry(5, "f".into(), 6, FileType::File);
        d.write(6, 0, b"x");
        assert_eq!(d.reachable_from([ROOT]), BTreeSet::from([ROOT]));
        assert_eq!(d.reachable_from([ROOT, 5]), BTreeSet::from([ROOT, 5, 6]));
        d.add_entry(ROOT, "d".into(), 5, FileType::Dir);
        assert_eq!(d.reachable_from([ROOT]), BTreeSet::from([ROOT, 5, 6]));
    }

    #[test]
    fn fsck_drops_second_directory_name_and_orphans() {
        let mut d = Durable::new();
        d.add_entry(ROOT, "a".into(), 2, FileType::Dir);
        d.add_entry(ROOT, "b".into(), 2, FileType::Dir);
        d.add_entry(9, "lost".into(), 10, FileType::File);
        d.fsck();
        assert_eq!(d.dir(ROOT).unwrap().len(), 1);
        assert!(d.dir(ROOT).unwrap().contains_key(&OsString::from("a")));
        assert!(d.file(10).is_none() && d.dir(9).is_none());
    }

    #[test]
    fn remove_entry_only_removes_the_named_inode() {
        let mut d = Durable::new();
        d.add_entry(ROOT, "a".into(), 2, FileType::File);
        d.remove_entry(ROOT, &"a".into(), 3);
        assert_eq!(d.dir(ROOT).unwrap().get(&OsString::from("a")), Some(&2));
    }
}
