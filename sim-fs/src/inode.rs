//! The volatile layer: the inode table the running program sees.
//!
//! As on Unix, directories map names to inode numbers and files are inodes
//! holding data; a socket and a FIFO are inodes with no content (the name a
//! Unix socket is bound to, a named pipe's entry); hard links are several
//! names for one inode. An inode lives while it has a name or an open
//! handle, so a file removed while open keeps its data until the last
//! handle closes.
//!
//! # Invariants
//!
//! - [`ROOT`] is always present and is a directory.
//! - `nlink` counts the entries naming the inode; an inode with
//!   `nlink == 0 && open == 0` is removed at once.
//! - A directory has at most one name (no hard links to directories), and
//!   the tree of directories reachable from [`ROOT`] has no cycles.
//! - Inode numbers are never reused, not even across a crash, so a number in
//!   the pending log or the durable layer always means the same inode.

use std::collections::BTreeMap;
use std::ffi::OsString;

use crate::metadata::FileType;

/// An inode number.
pub(crate) type Ino = u64;

/// The root directory's inode number.
pub(crate) const ROOT: Ino = 1;

/// The contents of an inode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// A regular file and its bytes.
    File(Vec<u8>),
    /// A directory: its entries, sorted by name.
    Dir(BTreeMap<OsString, Ino>),
    /// A socket's entry: no content. The socket itself (its queue, its
    /// connections) is the runtime's; the disk holds only its name.
    Socket,
    /// A FIFO's entry (named pipe): no content. The pipe itself (its
    /// buffer, its ends) is the runtime's; the disk holds only its name.
    Fifo,
}

impl Node {
    pub(crate) fn file_type(&self) -> FileType {
        match self {
            Node::File(_) => FileType::File,
            Node::Dir(_) => FileType::Dir,
            Node::Socket => FileType::Socket,
            Node::Fifo => FileType::Fifo,
        }
    }
}

/// One inode of the volatile layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Inode {
    pub(crate) node: Node,
    /// Entries naming this inode.
    pub(crate) nlink: u32,
    /// Open file descriptions on this inode.
    pub(crate) open: u32,
}

/// The volatile inode table.
#[derive(Clone, Debug)]
pub(crate) struct Inodes {
    map: BTreeMap<Ino, Inode>,
    next: Ino,
    /// Sum of the lengths of all live files, for the capacity fault.
    usage: u64,
}

impl Inodes {
    /// A table holding only an empty root.
    pub(crate) fn new() -> Self {
        let mut map = BTreeMap::new();
        map.insert(
            ROOT,
            Inode {
                node: Node::Dir(BTreeMap::new()),
                nlink: 1,
                open: 0,
            },
        );
        Inodes {
            map,
            next: ROOT + 1,
            usage: 0,
        }
    }

    /// Rebuilds the table from `map` (after a crash), keeping the inode
    /// counter so numbers stay unique.
    pub(crate) fn replace(&mut self, map: BTreeMap<Ino, Inode>) {
        debug_assert!(matches!(
            map.get(&ROOT).map(|i| &i.node),
            Some(Node::Dir(_))
        ));
        self.usage = map
            .values()
            .map(|i| match &i.node {
                Node::File(data) => data.len() as u64,
                Node::Dir(_) | Node::Socket | Node::Fifo => 0,
            })
            .sum();
        self.map = map;
    }

    /// The inode `ino`, which the caller knows is live.
    pub(crate) fn live(&self, ino: Ino) -> &Inode {
        self.map
            .get(&ino)
            .expect("inode numbers held by directories and handles are live")
    }

    fn live_mut(&mut self, ino: Ino) -> &mut Inode {
        self.map
            .get_mut(&ino)
            .expect("inode numbers held by directories and handles are live")
    }

    #[cfg(test)]
    pub(crate) fn contains(&self, ino: Ino) -> bool {
        self.map.contains_key(&ino)
    }

    /// The entries of directory `ino`, or `None` if it is not a directory.
    pub(crate) fn dir(&self, ino: Ino) -> Option<&BTreeMap<OsString, Ino>> {
        match &self.live(ino).node {
            Node::Dir(entries) => Some(entries),
            Node::File(_) | Node::Socket | Node::Fifo => None,
        }
    }

    fn dir_mut(&mut self, ino: Ino) -> &mut BTreeMap<OsString, Ino> {
        let node = &mut self.live_mut(ino).node;
        let kind = node.file_type();
        match node {
            Node::Dir(entries) => entries,
            Node::File(_) | Node::Socket | Node::Fifo => {
                panic!("inode {ino} is used as a directory but is a {kind:?}")
            }
        }
    }

    /// The data of regular file `ino`, or `None` if it is not a regular
    /// file.
    pub(crate) fn data(&self, ino: Ino) -> Option<&Vec<u8>> {
        match &self.live(ino).node {
            Node::File(data) => Some(data),
            Node::Dir(_) | Node::Socket | Node::Fifo => None,
        }
    }

    /// Total length of all live files.
    pub(crate) fn usage(&self) -> u64 {
        self.usage
    }

    /// Changes the data of file `ino` with `f`, keeping `usage` current.
    pub(crate) fn update_data(&mut self, ino: Ino, f: impl FnOnce(&mut Vec<u8>)) {
        let node = &mut self.map.get_mut(&ino).expect("file is live").node;
        let kind = node.file_type();
        let data = match node {
            Node::File(data) => data,
            Node::Dir(_) | Node::Socket | Node::Fifo => {
                panic!("inode {ino} is written as a file but is a {kind:?}")
            }
        };
        let before = data.len() as u64;
        f(data);
        let after = data.len() as u64;
        self.usage = self.usage - before + after;
    }

    /// Allocates a new, unnamed inode holding `node`.
    pub(crate) fn alloc(&mut self, node: Node) -> Ino {
        let ino = self.next;
        self.next += 1;
        if let Node::File(data) = &node {
            self.usage += data.len() as u64;
        }
        self.map.insert(
            ino,
            Inode {
                node,
                nlink: 0,
                open: 0,
            },
        );
        ino
    }

    /// Adds the entry `dir/name -> ino`; `name` must be free.
    pub(crate) fn link(&mut self, dir: Ino, name: OsString, ino: Ino) {
        let previous = self.dir_mut(dir).insert(name, ino);
        debug_assert!(previous.is_none(), "link targets a free name");
        self.live_mut(ino).nlink += 1;
    }

    /// Removes the entry `dir/name` and returns the inode it named (which is
    /// freed if nothing else holds it).
    pub(crate) fn unlink(&mut self, dir: Ino, name: &OsString) -> Ino {
        let ino = self
            .dir_mut(dir)
            .remove(name)
            .expect("unlink targets an existing entry");
        let inode = self.live_mut(ino);
        inode.nlink -= 1;
        self.free_if_unused(ino);
        ino
    }

    /// Records one more open handle on `ino`.
    pub(crate) fn open(&mut self, ino: Ino) {
        self.live_mut(ino).open += 1;
    }

    /// Records that a handle on `ino` closed.
    pub(crate) fn close(&mut self, ino: Ino) {
        let inode = self.live_mut(ino);
        debug_assert!(inode.open > 0, "closing an inode with no open handle");
        inode.open -= 1;
        self.free_if_unused(ino);
    }

    fn free_if_unused(&mut self, ino: Ino) {
        let inode = self.live(ino);
        if inode.nlink == 0 && inode.open == 0 {
            debug_assert_ne!(ino, ROOT, "the root is never freed");
            if let Some(Inode {
                node: Node::File(data),
                ..
            }) = self.map.remove(&ino)
            {
                self.usage -= data.len() as u64;
            }
        }
    }

    /// Iterates over live inodes in inode order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Ino, &Inode)> {
        self.map.iter().map(|(&ino, inode)| (ino, inode))
    }

    /// The file type of live inode `ino`.
    pub(crate) fn file_type(&self, ino: Ino) -> FileType {
        self.live(ino).node.file_type()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlinked_inode_lives_while_open() {
        let mut t = Inodes::new();
        let f = t.alloc(Node::File(b"abc".to_vec()));
        t.link(ROOT, "f".into(), f);
        t.open(f);
        assert_eq!(t.usage(), 3);
        t.unlink(ROOT, &"f".into());
        assert!(t.contains(f), "an open handle keeps the inode");
        assert_eq!(t.usage(), 3);
        t.close(f);
        assert!(!t.contains(f), "the last close frees it");
        assert_eq!(t.usage(), 0);
    }

    #[test]
    fn hard_links_count() {
        let mut t = Inodes::new();
        let f = t.alloc(Node::File(Vec::new()));
        t.link(ROOT, "a".into(), f);
        t.link(ROOT, "b".into(), f);
        assert_eq!(t.live(f).nlink, 2);
        t.unlink(ROOT, &"a".into());
        assert!(t.contains(f));
        t.unlink(ROOT, &"b".into());
        assert!(!t.contains(f));
    }
}
