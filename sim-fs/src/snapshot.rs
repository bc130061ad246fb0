//! Snapshots of a whole tree by path, for tests, state hashing and traces.
//!
//! [`Fs::tree`](crate::Fs::tree) snapshots what the program sees now;
//! [`Fs::durable_tree`](crate::Fs::durable_tree) what the default crash
//! would leave. Two disks with equal snapshots are indistinguishable by path
//! operations (inode numbers aside).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::PathBuf;

use crate::inode::{Ino, ROOT};

/// One path of a [`Tree`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum TreeEntry {
    /// A directory.
    Dir,
    /// A file and its contents.
    File(Vec<u8>),
    /// A socket (the entry of a Unix socket bound to the path).
    Socket,
    /// A FIFO (a named pipe's entry).
    Fifo,
}

impl std::fmt::Debug for TreeEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeEntry::Dir => f.write_str("Dir"),
            TreeEntry::Socket => f.write_str("Socket"),
            TreeEntry::Fifo => f.write_str("Fifo"),
            TreeEntry::File(data) => match std::str::from_utf8(data) {
                Ok(s) => write!(f, "File({s:?})"),
                Err(_) => write!(f, "File({data:?})"),
            },
        }
    }
}

/// Every path under the root (the root itself excluded), sorted, with what
/// it names. Hard links appear once per name.
pub type Tree = BTreeMap<PathBuf, TreeEntry>;

/// Walks from the root. `dir` gives a directory's entries (`None` for
/// anything else), `leaf` what any other inode is (a file with its data, a
/// socket or a FIFO).
pub(crate) fn build<'a>(
    dir: impl Fn(Ino) -> Option<&'a BTreeMap<OsString, Ino>>,
    leaf: impl Fn(Ino) -> TreeEntry,
) -> Tree {
    let mut tree = Tree::new();
    let mut seen = BTreeSet::from([ROOT]);
    let mut stack = vec![(ROOT, PathBuf::from("/"))];
    while let Some((ino, path)) = stack.pop() {
        let entries = dir(ino).expect("only directories are pushed");
        for (name, &child) in entries {
            let child_path = path.join(name);
            if dir(child).is_some() {
                if seen.insert(child) {
                    tree.insert(child_path.clone(), TreeEntry::Dir);
                    stack.push((child, child_path));
                }
            } else {
                tree.insert(child_path, leaf(child));
            }
        }
    }
    tree
}
