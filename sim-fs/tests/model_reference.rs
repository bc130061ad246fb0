//! Model-based test: sim-fs against a deliberately simple reference over
//! random operation sequences with crashes (default crash model, default
//! entry durability).
//!
//! The reference keeps the volatile view as a map from path to entry (a
//! directory, a file, or a socket's or a FIFO's entry: a name without data,
//! which does not open), file data by file id, and, for durability, exactly the two
//! rules of the issue, without inodes, a log or halves of renames:
//!
//! - syncing a file copies its current data to its durable data;
//! - syncing a directory copies its current listing to its durable listing;
//! - a crash keeps the durable listings reachable from the root, each file
//!   with its durable data (empty if never synced).
//!
//! Every operation's outcome (success, or the raw errno) and the whole
//! tree after it must agree, and so must what a crash would leave
//! ([`Fs::durable_tree`]) at every step.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use sim_fs::{DefaultChooser, Fs, OpenOptions, Tree, TreeEntry};

/// Directories the sequences use (never renamed; the root is implicit).
const DIRS: &[&str] = &["/", "/d1", "/d2"];
/// File names, distinct from directory names.
const NAMES: &[&str] = &["a", "b", "c"];

fn file_path(dir: usize, name: usize) -> PathBuf {
    Path::new(DIRS[dir]).join(NAMES[name])
}

#[derive(Clone, Debug)]
enum Op {
    Mkdir(usize),
    Rmdir(usize),
    Write((usize, usize), u64, Vec<u8>),
    Append((usize, usize), Vec<u8>),
    Truncate((usize, usize), u64),
    CreateNew((usize, usize)),
    Remove((usize, usize)),
    Rename((usize, usize), (usize, usize)),
    Link((usize, usize), (usize, usize)),
    Bind((usize, usize)),
    Mkfifo((usize, usize)),
    SyncFile((usize, usize)),
    SyncDir(usize),
    Read((usize, usize)),
    Crash,
}

fn file() -> impl Strategy<Value = (usize, usize)> {
    (0..DIRS.len(), 0..NAMES.len())
}

fn subdir() -> impl Strategy<Value = usize> {
    1..DIRS.len()
}

fn op() -> impl Strategy<Value = Op> {
    let data = prop::collection::vec(b'a'..=b'z', 1..8);
    prop_oneof![
        2 => subdir().prop_map(Op::Mkdir),
        1 => subdir().prop_map(Op::Rmdir),
        4 => (file(), 0..10u64, data.clone()).prop_map(|(f, o, d)| Op::Write(f, o, d)),
        2 => (file(), data).prop_map(|(f, d)| Op::Append(f, d)),
        1 => (file(), 0..10u64).prop_map(|(f, l)| Op::Truncate(f, l)),
        1 => file().prop_map(Op::CreateNew),
        2 => file().prop_map(Op::Remove),
        3 => (file(), file()).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => (file(), file()).prop_map(|(a, b)| Op::Link(a, b)),
        1 => file().prop_map(Op::Bind),
        1 => file().prop_map(Op::Mkfifo),
        3 => file().prop_map(Op::SyncFile),
        3 => (0..DIRS.len()).prop_map(Op::SyncDir),
        1 => file().prop_map(Op::Read),
        1 => Just(Op::Crash),
    ]
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Dir(u64),
    File(u64),
    Socket(u64),
    Fifo(u64),
}

const ROOT_ID: u64 = 0;

/// The reference model.
#[derive(Debug, Default)]
struct Reference {
    /// Volatile view: path → entry (the root is implicit).
    tree: BTreeMap<PathBuf, Entry>,
    /// Volatile file data by id.
    data: BTreeMap<u64, Vec<u8>>,
    /// Durable listing of each directory id at its last sync.
    durable_listing: BTreeMap<u64, BTreeMap<String, Entry>>,
    /// Durable file data by id at its last sync.
    durable_data: BTreeMap<u64, Vec<u8>>,
    next_id: u64,
}

type Outcome = Result<Option<Vec<u8>>, i32>;

impl Reference {
    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn dir_id(&self, dir: &str) -> Option<u64> {
        if dir == "/" {
            return Some(ROOT_ID);
        }
        match self.tree.get(Path::new(dir)) {
            Some(Entry::Dir(id)) => Some(*id),
            _ => None,
        }
    }

    /// `Err(ENOENT)` unless the parent directory of file `f` exists.
    fn parent(&self, f: (usize, usize)) -> Result<(), i32> {
        self.dir_id(DIRS[f.0]).map(|_| ()).ok_or(libc::ENOENT)
    }

    /// The entry at file path `f`.
    fn node(&self, f: (usize, usize)) -> Result<Entry, i32> {
        self.parent(f)?;
        self.tree
            .get(&file_path(f.0, f.1))
            .copied()
            .ok_or(libc::ENOENT)
    }

    /// The file at `f`, as opening it finds it.
    fn file_id(&self, f: (usize, usize)) -> Result<u64, i32> {
        match self.node(f)? {
            Entry::File(id) => Ok(id),
            Entry::Socket(_) | Entry::Fifo(_) => Err(libc::ENXIO),
            Entry::Dir(_) => unreachable!("file names are not directory names"),
        }
    }

    fn create(&mut self, f: (usize, usize)) -> u64 {
        let id = self.new_id();
        self.tree.insert(file_path(f.0, f.1), Entry::File(id));
        self.data.insert(id, Vec::new());
        id
    }

    fn write_at(&mut self, id: u64, offset: usize, bytes: &[u8]) {
        let data = self.data.get_mut(&id).unwrap();
        if data.len() < offset + bytes.len() {
            data.resize(offset + bytes.len(), 0);
        }
        data[offset..offset + bytes.len()].copy_from_slice(bytes);
    }

    fn apply(&mut self, op: &Op) -> Outcome {
        match op {
            Op::Mkdir(d) => {
                if self.tree.contains_key(Path::new(DIRS[*d])) {
                    return Err(libc::EEXIST);
                }
                let id = self.new_id();
                self.tree.insert(DIRS[*d].into(), Entry::Dir(id));
            }
            Op::Rmdir(d) => {
                self.dir_id(DIRS[*d]).ok_or(libc::ENOENT)?;
                if self
                    .tree
                    .keys()
                    .any(|p| p.parent() == Some(Path::new(DIRS[*d])))
                {
                    return Err(libc::ENOTEMPTY);
                }
                self.tree.remove(Path::new(DIRS[*d]));
            }
            Op::Write(f, offset, bytes) => {
                let id = match self.file_id(*f) {
                    Ok(id) => id,
                    Err(libc::ENOENT) => {
                        self.parent(*f)?;
                        self.create(*f)
                    }
                    Err(e) => return Err(e),
                };
                self.write_at(id, *offset as usize, bytes);
            }
            Op::Append(f, bytes) => {
                let id = self.file_id(*f)?;
                let end = self.data[&id].len();
                self.write_at(id, end, bytes);
            }
            Op::Truncate(f, len) => {
                let id = self.file_id(*f)?;
                self.data.get_mut(&id).unwrap().resize(*len as usize, 0);
            }
            Op::CreateNew(f) => {
                self.parent(*f)?;
                if self.node(*f).is_ok() {
                    return Err(libc::EEXIST);
                }
                self.create(*f);
            }
            Op::Remove(f) => {
                self.node(*f)?;
                self.tree.remove(&file_path(f.0, f.1));
            }
            Op::Rename(from, to) => {
                let entry = self.node(*from)?;
                self.parent(*to)?;
                if self.node(*to) == Ok(entry) {
                    return Ok(None);
                }
                self.tree.remove(&file_path(from.0, from.1));
                self.tree.insert(file_path(to.0, to.1), entry);
            }
            Op::Link(from, to) => {
                let entry = self.node(*from)?;
                self.parent(*to)?;
                if self.node(*to).is_ok() {
                    return Err(libc::EEXIST);
                }
                self.tree.insert(file_path(to.0, to.1), entry);
            }
            Op::Bind(f) => {
                self.parent(*f)?;
                if self.node(*f).is_ok() {
                    return Err(libc::EADDRINUSE);
                }
                let id = self.new_id();
                self.tree.insert(file_path(f.0, f.1), Entry::Socket(id));
            }
            Op::Mkfifo(f) => {
                self.parent(*f)?;
                if self.node(*f).is_ok() {
                    return Err(libc::EEXIST);
                }
                let id = self.new_id();
                self.tree.insert(file_path(f.0, f.1), Entry::Fifo(id));
            }
            Op::SyncFile(f) => {
                let id = self.file_id(*f)?;
                self.durable_data.insert(id, self.data[&id].clone());
            }
            Op::SyncDir(d) => {
                let id = self.dir_id(DIRS[*d]).ok_or(libc::ENOENT)?;
                let listing = self
                    .tree
                    .iter()
                    .filter(|(p, _)| p.parent() == Some(Path::new(DIRS[*d])))
                    .map(|(p, e)| (p.file_name().unwrap().to_str().unwrap().to_owned(), *e))
                    .collect();
                self.durable_listing.insert(id, listing);
            }
            Op::Read(f) => {
                let id = self.file_id(*f)?;
                return Ok(Some(self.data[&id].clone()));
            }
            Op::Crash => {
                let mut tree = BTreeMap::new();
                let mut data = BTreeMap::new();
                let mut stack = vec![(ROOT_ID, PathBuf::from("/"))];
                while let Some((dir, path)) = stack.pop() {
                    for (name, entry) in self.durable_listing.get(&dir).into_iter().flatten() {
                        let child = path.join(name);
                        tree.insert(child.clone(), *entry);
                        match *entry {
                            Entry::Dir(id) => stack.push((id, child)),
                            Entry::File(id) => {
                                let bytes = self.durable_data.get(&id).cloned().unwrap_or_default();
                                data.insert(id, bytes);
                            }
                            Entry::Socket(_) | Entry::Fifo(_) => {}
                        }
                    }
                }
                self.tree = tree;
                self.durable_data = data.clone();
                self.data = data;
                let reachable: Vec<u64> = std::iter::once(ROOT_ID)
                    .chain(self.tree.values().filter_map(|e| match e {
                        Entry::Dir(id) => Some(*id),
                        Entry::File(_) | Entry::Socket(_) | Entry::Fifo(_) => None,
                    }))
                    .collect();
                self.durable_listing.retain(|id, _| reachable.contains(id));
            }
        }
        Ok(None)
    }

    /// The volatile view as a [`Tree`].
    fn view(&self) -> Tree {
        self.tree
            .iter()
            .map(|(p, e)| {
                let entry = match e {
                    Entry::Dir(_) => TreeEntry::Dir,
                    Entry::File(id) => TreeEntry::File(self.data[id].clone()),
                    Entry::Socket(_) => TreeEntry::Socket,
                    Entry::Fifo(_) => TreeEntry::Fifo,
                };
                (p.clone(), entry)
            })
            .collect()
    }

    /// What a crash would leave, without crashing.
    fn after_crash(&self) -> Tree {
        let mut copy = Reference {
            tree: self.tree.clone(),
            data: self.data.clone(),
            durable_listing: self.durable_listing.clone(),
            durable_data: self.durable_data.clone(),
            next_id: self.next_id,
        };
        copy.apply(&Op::Crash).unwrap();
        copy.view()
    }
}

/// Runs `op` on sim-fs through its handle API, as the runtime would.
fn apply(fs: &mut Fs, op: &Op) -> Outcome {
    let d = &mut DefaultChooser;
    let errno = |e: std::io::Error| e.raw_os_error().expect("a raw OS error");
    let with_file = |fs: &mut Fs, f: &(usize, usize), opts: &OpenOptions| {
        fs.open(file_path(f.0, f.1), opts).map_err(errno)
    };
    match op {
        Op::Mkdir(dir) => fs.create_dir(DIRS[*dir]).map_err(errno)?,
        Op::Rmdir(dir) => fs.remove_dir(DIRS[*dir]).map_err(errno)?,
        Op::Write(f, offset, bytes) => {
            let fd = with_file(fs, f, OpenOptions::new().write(true).create(true))?;
            assert_eq!(fs.write_at(fd, *offset, bytes, d).unwrap(), bytes.len());
            fs.close(fd);
        }
        Op::Append(f, bytes) => {
            let fd = with_file(fs, f, OpenOptions::new().append(true))?;
            assert_eq!(fs.write(fd, bytes, d).unwrap(), bytes.len());
            fs.close(fd);
        }
        Op::Truncate(f, len) => {
            let fd = with_file(fs, f, OpenOptions::new().write(true))?;
            fs.set_len(fd, *len, d).unwrap();
            fs.close(fd);
        }
        Op::CreateNew(f) => {
            let fd = with_file(fs, f, &OpenOptions::for_create_new())?;
            fs.close(fd);
        }
        Op::Remove(f) => fs.remove_file(file_path(f.0, f.1)).map_err(errno)?,
        Op::Rename(a, b) => fs
            .rename(file_path(a.0, a.1), file_path(b.0, b.1))
            .map_err(errno)?,
        Op::Link(a, b) => fs
            .hard_link(file_path(a.0, a.1), file_path(b.0, b.1))
            .map_err(errno)?,
        Op::Bind(f) => drop(fs.bind_socket(file_path(f.0, f.1)).map_err(errno)?),
        Op::Mkfifo(f) => drop(fs.make_fifo(file_path(f.0, f.1)).map_err(errno)?),
        Op::SyncFile(f) => {
            let fd = with_file(fs, f, &OpenOptions::for_open())?;
            fs.sync_data(fd, d).unwrap();
            fs.close(fd);
        }
        Op::SyncDir(dir) => {
            let fd = fs
                .open(DIRS[*dir], &OpenOptions::for_open())
                .map_err(errno)?;
            fs.sync_all(fd, d).unwrap();
            fs.close(fd);
        }
        Op::Read(f) => {
            let fd = with_file(fs, f, &OpenOptions::for_open())?;
            let mut out = Vec::new();
            let mut buf = [0; 3];
            loop {
                let n = fs.read(fd, &mut buf, d).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            fs.close(fd);
            return Ok(Some(out));
        }
        Op::Crash => {
            let report = fs.crash(d);
            assert_eq!(report.kept, 0, "the default crash keeps nothing unsynced");
        }
    }
    Ok(None)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn sim_fs_matches_the_reference(ops in prop::collection::vec(op(), 0..60)) {
        let mut fs = Fs::default();
        let mut reference = Reference::default();
        for (i, op) in ops.iter().enumerate() {
            let got = apply(&mut fs, op);
            let want = reference.apply(op);
            prop_assert_eq!(&got, &want, "step {}: {:?}", i, op);
            fs.check_invariants();
            prop_assert_eq!(fs.tree(), reference.view(), "view after step {}: {:?}", i, op);
            prop_assert_eq!(
                fs.durable_tree(),
                reference.after_crash(),
                "durable state after step {}: {:?}",
                i,
                op
            );
        }
    }
}
