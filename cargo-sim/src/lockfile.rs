//! The simulated build's own `Cargo.lock`, swapped with the committed one
//! for the time cargo runs.
//!
//! With the patch, cargo resolves `tokio` to sim-tokio and rewrites
//! `Cargo.lock`; the real build would rewrite it back. So the simulated
//! build keeps a lockfile of its own in `<target>/sim/Cargo.lock`, seeded
//! from the committed one (the same versions of everything but tokio and
//! what it brings), and for each run:
//!
//! 1. [`LockDir::hold`] takes `<target>/sim/cargo-sim.lock`, so two `cargo
//!    sim` runs sharing that directory take turns, and puts back a committed
//!    lockfile that a killed run left swapped (from its swap record);
//! 2. [`LockDir::swap_in`] records the committed lockfile (bytes and
//!    modification time) in `<target>/sim/Cargo.lock.swapped`, then puts
//!    the simulated one in its place, re-seeding it first when it was seeded
//!    from another committed lockfile (or another workspace or sim-tokio);
//! 3. cargo runs;
//! 4. [`Swap::restore`] (or the guard's drop, on an error or a panic) reads
//!    the workspace's `Cargo.lock`, which cargo may have updated, writes the
//!    committed bytes and modification time back (or removes the file if
//!    there was none), deletes the swap record, and saves what it read as
//!    the simulated lockfile.
//!
//! # Invariants
//!
//! - While the swap record exists, the workspace's `Cargo.lock` may hold the
//!   simulated lockfile, and the record holds the committed one; the record
//!   is written before the first change to `Cargo.lock` and deleted after
//!   the last.
//! - `Cargo.lock.seed` holds the key of the seed (workspace, sim-tokio,
//!   committed bytes) the saved simulated lockfile was made from; a
//!   simulated lockfile is saved only when it was seeded or reused.
//!
//! # The hazard
//!
//! While cargo runs, the workspace's `Cargo.lock` is the simulated one: a
//! real cargo build started in the same workspace at that moment sees it,
//! re-resolves tokio to crates.io's and writes that back, and then the swap
//! saves a lockfile without sim-tokio (the next `cargo sim` run fixes it
//! with `cargo update -p tokio`; the committed lockfile is restored either
//! way).

use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The directory of the simulated build's lockfile, `<target>/sim`, for the
/// workspace whose `Cargo.lock` is `workspace_lock`.
#[derive(Debug, Clone)]
pub struct LockDir {
    dir: PathBuf,
    workspace_lock: PathBuf,
    /// What a seed depends on besides the committed lockfile: the
    /// workspace and sim-tokio, one per line.
    key: String,
}

/// `<target>/sim/cargo-sim.lock`, held: no other `cargo sim` swaps through
/// the same directory until it is dropped.
#[derive(Debug)]
pub struct Held {
    _file: File,
}

/// The committed lockfile as it was before the swap.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Committed {
    bytes: Vec<u8>,
    modified: SystemTime,
}

/// The workspace's `Cargo.lock` is the simulated one until [`restore`]
/// (or drop) puts the committed one back.
///
/// [`restore`]: Swap::restore
#[must_use = "dropping a Swap puts the committed Cargo.lock back at once"]
#[derive(Debug)]
pub struct Swap<'h> {
    /// The swap happens under the directory's lock.
    _held: &'h Held,
    dir: LockDir,
    committed: Option<Committed>,
    /// The seed key (with the committed bytes) to save with the simulated
    /// lockfile; `None` when the simulated lockfile is not to be saved
    /// (seeding failed).
    seed: Option<Vec<u8>>,
    /// Whether the simulated lockfile in place was seeded by this swap
    /// (rather than saved by an earlier run).
    fresh: bool,
    restored: bool,
}

impl LockDir {
    /// The lock directory `dir` (`<target>/sim`) of the workspace at
    /// `workspace_root`, for a build that patches tokio with `sim_tokio`.
    pub fn new(dir: &Path, workspace_root: &Path, sim_tokio: &Path) -> LockDir {
        LockDir {
            dir: dir.to_path_buf(),
            workspace_lock: workspace_root.join("Cargo.lock"),
            key: format!(
                "workspace {}\nsim-tokio {}\n",
                workspace_root.display(),
                sim_tokio.display()
            ),
        }
    }

    /// The simulated build's lockfile, `<target>/sim/Cargo.lock`.
    pub fn sim_lock(&self) -> PathBuf {
        self.dir.join("Cargo.lock")
    }

    /// The workspace's `Cargo.lock`.
    pub fn workspace_lock(&self) -> &Path {
        &self.workspace_lock
    }

    fn seed_file(&self) -> PathBuf {
        self.dir.join("Cargo.lock.seed")
    }

    fn swap_record(&self) -> PathBuf {
        self.dir.join("Cargo.lock.swapped")
    }

    /// Takes the directory's lock file (waiting, with a note, while
    /// another `cargo sim` holds it), then puts back a committed lockfile
    /// that a killed run left swapped.
    pub fn hold(&self) -> io::Result<Held> {
        fs::create_dir_all(&self.dir)?;
        let path = self.dir.join("cargo-sim.lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                eprintln!(
                    "cargo sim: waiting for another cargo sim using {}",
                    self.dir.display()
                );
                file.lock()?;
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
        if let Some(record) = read_optional(&self.swap_record())? {
            let (path, committed) = decode_record(&record).ok_or_else(|| {
                io::Error::other(format!(
                    "{} is not a swap record cargo sim wrote: remove it, and check that \
                     the workspace's Cargo.lock is the committed one",
                    self.swap_record().display()
                ))
            })?;
            put_back(&path, committed.as_ref()).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "could not put back the committed {} from {}: {e}",
                        path.display(),
                        self.swap_record().display()
                    ),
                )
            })?;
            fs::remove_file(self.swap_record())?;
            eprintln!(
                "cargo sim: put back the committed {}, which an interrupted cargo sim had left \
                 swapped",
                path.display()
            );
        }
        Ok(Held { _file: file })
    }

    /// Puts the simulated lockfile in the workspace's place, after recording
    /// the committed one. When the saved simulated lockfile was not seeded
    /// from this committed lockfile (or there is none), `reseed` runs with
    /// the committed lockfile in place and turns it into the simulated one
    /// (`cargo update -p tokio` with the patch); when there is no committed
    /// lockfile, cargo makes the simulated one itself.
    ///
    /// `reseed`'s error is returned after the committed lockfile is put
    /// back.
    pub fn swap_in<'h, E: From<io::Error>>(
        &self,
        held: &'h Held,
        reseed: impl FnOnce() -> Result<(), E>,
    ) -> Result<Swap<'h>, E> {
        let committed = match read_optional(&self.workspace_lock)? {
            Some(bytes) => Some(Committed {
                bytes,
                modified: fs::metadata(&self.workspace_lock)?.modified()?,
            }),
            None => None,
        };
        write_atomically(
            &self.swap_record(),
            &encode_record(&self.workspace_lock, committed.as_ref()),
        )?;
        let mut seed = self.key.clone().into_bytes();
        match &committed {
            Some(c) => {
                seed.extend_from_slice(b"committed\n");
                seed.extend_from_slice(&c.bytes);
            }
            None => seed.extend_from_slice(b"no committed lockfile\n"),
        }
        let mut swap = Swap {
            _held: held,
            dir: self.clone(),
            committed,
            seed: None,
            fresh: true,
            restored: false,
        };
        let saved = read_optional(&self.sim_lock())?;
        let seeded_from = read_optional(&self.seed_file())?;
        match saved {
            Some(sim) if seeded_from.as_deref() == Some(&seed[..]) => {
                let modified = fs::metadata(self.sim_lock())?.modified()?;
                write_keeping_time(&self.workspace_lock, &sim, modified)?;
                swap.fresh = false;
            }
            _ => {
                remove_if_present(&self.sim_lock())?;
                remove_if_present(&self.seed_file())?;
                if swap.committed.is_some() {
                    reseed()?;
                }
            }
        }
        swap.seed = Some(seed);
        Ok(swap)
    }
}

impl Swap<'_> {
    /// Whether the simulated lockfile in place was seeded by this swap
    /// rather than saved by an earlier run.
    pub fn fresh(&self) -> bool {
        self.fresh
    }

    /// Seeds the simulated lockfile again from the committed one, when the
    /// saved one would not do (a manifest changed since it was seeded, in a
    /// way cargo cannot resolve from it): the committed lockfile goes back
    /// in place (or none, when there was none) and `reseed` turns it into
    /// the simulated one, as [`LockDir::swap_in`] does. On an error the
    /// swap stays, to be undone as usual.
    pub fn reseed<E: From<io::Error>>(
        &mut self,
        reseed: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        self.fresh = true;
        match &self.committed {
            Some(c) => {
                fs::write(&self.dir.workspace_lock, &c.bytes)?;
                reseed()
            }
            None => Ok(remove_if_present(&self.dir.workspace_lock)?),
        }
    }

    /// Saves the simulated lockfile and puts the committed one back; see
    /// the module's docs.
    pub fn restore(mut self) -> io::Result<()> {
        self.restored = true;
        self.put_back()
    }

    /// The committed lockfile first, then the simulated one is saved: a
    /// failure to save (a `cargo clean` that removed `<target>/sim` while
    /// cargo ran, and then some) costs a re-seed, never the committed file.
    fn put_back(&mut self) -> io::Result<()> {
        let dir = &self.dir;
        let left = match &self.seed {
            Some(_) => read_with_time(&dir.workspace_lock),
            None => None,
        };
        put_back(&dir.workspace_lock, self.committed.as_ref())?;
        remove_if_present(&dir.swap_record())?;
        if let (Some(seed), Some((sim, modified))) = (&self.seed, left) {
            fs::create_dir_all(&dir.dir)?;
            write_keeping_time(&dir.sim_lock(), &sim, modified)?;
            write_atomically(&dir.seed_file(), seed)?;
        }
        Ok(())
    }
}

impl Drop for Swap<'_> {
    fn drop(&mut self) {
        if !self.restored {
            if let Err(e) = self.put_back() {
                eprintln!(
                    "cargo sim: error: could not put the committed {} back: {e}; its bytes are in \
                     {}",
                    self.dir.workspace_lock.display(),
                    self.dir.swap_record().display()
                );
            }
        }
    }
}

/// Writes the committed lockfile back to `path`, or removes `path` if there
/// was none. A workspace that is gone (a temporary directory, removed while
/// cargo ran) has nothing to put back.
fn put_back(path: &Path, committed: Option<&Committed>) -> io::Result<()> {
    if path.parent().is_some_and(|dir| !dir.is_dir()) {
        return Ok(());
    }
    match committed {
        Some(c) => write_keeping_time(path, &c.bytes, c.modified),
        None => remove_if_present(path),
    }
}

/// Writes `bytes` to `path` in place (keeping the file's permissions, and a
/// symbolic link a link) unless it already holds them, then sets its
/// modification time to `modified`, so that what looks at times sees the
/// file it saw before.
fn write_keeping_time(path: &Path, bytes: &[u8], modified: SystemTime) -> io::Result<()> {
    if read_optional(path)?.as_deref() != Some(bytes) {
        fs::write(path, bytes)?;
    }
    File::options()
        .write(true)
        .open(path)?
        .set_modified(modified)
}

/// Writes `bytes` to a file next to `path`, then renames it over `path`:
/// a reader sees the old or the new content, never part of it.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, path)
}

/// `path`'s bytes and modification time, if it can be read.
fn read_with_time(path: &Path) -> Option<(Vec<u8>, SystemTime)> {
    let bytes = fs::read(path).ok()?;
    let modified = fs::metadata(path).ok()?.modified().ok()?;
    Some((bytes, modified))
}

fn read_optional(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The swap record: a header line, the workspace's `Cargo.lock` path, then
/// `absent`, or `present <seconds> <nanoseconds>` (its modification time)
/// and its bytes.
fn encode_record(path: &Path, committed: Option<&Committed>) -> Vec<u8> {
    let mut out = format!("cargo-sim lock swap\n{}\n", path.display()).into_bytes();
    match committed {
        Some(c) => {
            let since = c.modified.duration_since(UNIX_EPOCH).unwrap_or_default();
            out.extend_from_slice(
                format!("present {} {}\n", since.as_secs(), since.subsec_nanos()).as_bytes(),
            );
            out.extend_from_slice(&c.bytes);
        }
        None => out.extend_from_slice(b"absent\n"),
    }
    out
}

/// The path and committed lockfile of a swap record; `None` if it is not
/// one.
fn decode_record(record: &[u8]) -> Option<(PathBuf, Option<Committed>)> {
    let mut lines = record.splitn(4, |b| *b == b'\n');
    if lines.next()? != b"cargo-sim lock swap" {
        return None;
    }
    let path = PathBuf::from(std::str::from_utf8(lines.next()?).ok()?);
    let state = std::str::from_utf8(lines.next()?).ok()?;
    if state == "absent" {
        return Some((path, None));
    }
    let mut time = state.strip_prefix("present ")?.split(' ');
    let secs = time.next()?.parse().ok()?;
    let nanos = time.next()?.parse().ok()?;
    let committed = Committed {
        bytes: lines.next().unwrap_or_default().to_vec(),
        modified: UNIX_EPOCH + Duration::new(secs, nanos),
    };
    Some((path, Some(committed)))
}

/// One `[[package]]` of a lockfile: what cargo-sim reads of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locked {
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
    /// `source` (`registry+...`, `git+...`); `None` for a path package,
    /// which a patch with a path is.
    pub source: Option<String>,
}

/// The packages a lockfile's text holds, in its order.
pub fn locked_packages(lock: &str) -> Vec<Locked> {
    lock.split("[[package]]")
        .skip(1)
        .filter_map(|package| {
            let field = |key: &str| {
                package.lines().find_map(|line| {
                    let value = line.strip_prefix(key)?.trim().strip_prefix('=')?.trim();
                    Some(value.trim_matches('"').to_string())
                })
            };
            Some(Locked {
                name: field("name")?,
                version: field("version")?,
                source: field("source"),
            })
        })
        .collect()
}

/// The versions of crates.io's tokio 1.x a lockfile holds (the packages
/// `cargo update -p tokio@<version>` would move to the patch).
pub fn registry_tokio_versions(lock: &str) -> Vec<String> {
    locked_packages(lock)
        .into_iter()
        .filter(|p| {
            p.name == "tokio"
                && p.version.starts_with("1.")
                && p.source
                    .as_deref()
                    .is_some_and(|s| s.starts_with("registry+"))
        })
        .map(|p| p.version)
        .collect()
}

/// Whether a lockfile resolves tokio with the patch: a `tokio` of
/// `sim_version` from a path, and no crates.io tokio 1.x beside it.
pub fn uses_patch(lock: &str, sim_version: &str) -> bool {
    let packages = locked_packages(lock);
    let patched = packages
        .iter()
        .any(|p| p.name == "tokio" && p.version == sim_version && p.source.is_none());
    patched && registry_tokio_versions(lock).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swap_record_round_trips() {
        let c = Committed {
            bytes: b"# lock\n\n[[package]]\n".to_vec(),
            modified: UNIX_EPOCH + Duration::new(1_700_000_000, 123),
        };
        let path = Path::new("/w/Cargo.lock");
        assert_eq!(
            decode_record(&encode_record(path, Some(&c))),
            Some((path.to_path_buf(), Some(c)))
        );
        assert_eq!(
            decode_record(&encode_record(path, None)),
            Some((path.to_path_buf(), None))
        );
        assert_eq!(decode_record(b"something else\n"), None);
    }

    #[test]
    fn registry_tokio_1_is_found_and_the_patched_one_is_not() {
        let lock = r#"
version = 4

[[package]]
name = "tokio"
version = "0.2.25"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "tokio"
version = "1.54.1"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "00"

[[package]]
name = "tokio"
version = "1.99.0"
dependencies = [
 "sim-rt",
]

[[package]]
name = "tokio-util"
version = "0.7.20"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;
        assert_eq!(registry_tokio_versions(lock), vec!["1.54.1".to_string()]);
    }
}
