//! The dependencies' builds, shared by every workspace's simulated build.
//!
//! Every simulated build compiles sim-tokio's graph (sim-rt, sim-net,
//! sim-fs, the explorer, proptest...) and, optimized, the service's own
//! dependencies. Cargo would reuse those across workspaces if they shared a
//! target directory: a dependency's artifacts are named by a hash of its
//! package id, version, features, profile, flags and dependencies, none of
//! which is the workspace. But a shared target directory is unsafe for the
//! workspace's own packages: cargo hashes a path package by its path
//! *relative to the workspace root*, so two clones of one repository get
//! the same hashes, and a clone whose files are older than the other's
//! last build would pass as up to date, with the other's code.
//!
//! So each workspace keeps its own `<target>/sim`, and cargo-sim copies
//! the units of every package that is not local (not a path package under
//! the workspace's root) between it and a cache:
//!
//! - after a run, each such unit the cache lacks is copied in: its
//!   `.fingerprint/<package>-<hash>/` and `build/<package>-<hash>/`
//!   directories and its `deps/<crate>-<hash>.*` files;
//! - before a run, each unit the workspace's target lacks is copied out;
//! - either way, a unit both have is replaced where the copy is newer
//!   (rebuilt under the same hash after a path dependency's sources
//!   changed, as sim-rt's do while it is being worked on).
//!
//! Cargo then decides what is fresh as it always does: a unit whose hash
//! this build does not ask for is never looked at, one whose sources
//! changed (sim-rt edited in place) is rebuilt. Modification times are
//! kept, since cargo compares them; a unit's fingerprint directory is
//! copied last, so a unit copied halfway has none and is rebuilt.
//!
//! The cache is `$CARGO_SIM_CACHE`, else `$XDG_CACHE_HOME/cargo-sim`, else
//! `$HOME/.cache/cargo-sim`, with one directory per toolchain (`rustc
//! -vV`), cargo-sim version and sim-tokio under it; `CARGO_SIM_CACHE=off`
//! turns it off. Deleting it at any time is safe (the next build of a new
//! workspace compiles everything). It is never cleaned by cargo-sim: every
//! distinct build of a dependency (another version, other features) adds
//! to it. A failure to read or write it is a warning, never a failed run.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::{self, File};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The packages whose units are copied: those of the build's graph that
/// are not local (a path package under the workspace's root, its members
/// among them, never is), by package name (the names of `.fingerprint/`
/// and `build/` entries) and by crate name (those of `deps/` files:
/// `sim_rt-<hash>.d`, `libsim_rt-<hash>.rlib`). A name that a local
/// package also has is left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Units {
    packages: BTreeSet<String>,
    crates: BTreeSet<String>,
}

impl Units {
    /// The shared packages of `cargo metadata`'s output for the workspace
    /// at `root`: every package of the resolve but those without a source
    /// whose manifest is under `root`.
    pub fn shared(metadata: &Value, root: &Path) -> Units {
        let mut shared = Units::default();
        let mut local = Units::default();
        let empty = Vec::new();
        for p in metadata["packages"].as_array().unwrap_or(&empty) {
            let under_root = p["manifest_path"]
                .as_str()
                .is_some_and(|m| Path::new(m).starts_with(root));
            let set = match p["source"].is_null() && under_root {
                true => &mut local,
                false => &mut shared,
            };
            if let Some(name) = p["name"].as_str() {
                set.packages.insert(name.to_string());
                set.crates.insert(name.replace('-', "_"));
            }
            for t in p["targets"].as_array().unwrap_or(&empty) {
                if let Some(name) = t["name"].as_str() {
                    set.crates.insert(name.replace('-', "_"));
                }
            }
        }
        shared.packages.retain(|n| !local.packages.contains(n));
        shared.crates.retain(|n| !local.crates.contains(n));
        shared
    }

    /// Whether the entry `name` of a profile directory's `sub` (`deps`,
    /// `build` or `.fingerprint`) is a unit of one of these packages.
    fn has(&self, sub: &str, name: &str) -> bool {
        // `<name>-<hash>`, with an extension in `deps/` (`.rlib`, `.d`; a
        // test executable has none).
        let stem = match sub {
            "deps" => name.split('.').next().unwrap_or(name),
            _ => name,
        };
        let Some((unit, _hash)) = stem.rsplit_once('-') else {
            return false;
        };
        match sub {
            "deps" => {
                self.crates.contains(unit)
                    || unit
                        .strip_prefix("lib")
                        .is_some_and(|u| self.crates.contains(u))
            }
            _ => self.packages.contains(unit),
        }
    }
}

/// The cache directory for this toolchain, cargo-sim and sim-tokio, unless
/// `CARGO_SIM_CACHE=off`; `None` too when no home directory is known.
pub fn directory(
    env: impl Fn(&str) -> Option<OsString>,
    rustc: &OsString,
    sim_tokio: &Path,
) -> Option<PathBuf> {
    let root = match env("CARGO_SIM_CACHE").filter(|v| !v.is_empty()) {
        Some(v) if v == "off" => return None,
        Some(v) => PathBuf::from(v),
        None => match env("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
            Some(xdg) => PathBuf::from(xdg).join("cargo-sim"),
            None => PathBuf::from(env("HOME")?).join(".cache/cargo-sim"),
        },
    };
    let version = Command::new(rustc)
        .arg("-vV")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?
        .stdout;
    let mut h = DefaultHasher::new();
    version.hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    sim_tokio.hash(&mut h);
    Some(root.join(format!("{:016x}", h.finish())))
}

/// Copies into `to` (a target directory such as `<target>/sim`, or the
/// cache) every unit of `from` of one of `units`' packages that `to`
/// lacks, under the cache's lock; the number of units copied (counted by
/// their fingerprints).
pub fn copy_units(from: &Path, to: &Path, cache: &Path, units: &Units) -> io::Result<usize> {
    if !from.is_dir() {
        return Ok(0);
    }
    fs::create_dir_all(cache)?;
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(cache.join("cargo-sim-cache.lock"))?;
    lock.lock()?;
    let mut copied = 0;
    for profile in profile_dirs(from)? {
        let rel = profile
            .strip_prefix(from)
            .expect("a profile directory is under its root");
        // Fingerprints last: a unit is used only once its fingerprint is
        // there.
        for sub in ["deps", "build", ".fingerprint"] {
            let dir = profile.join(sub);
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<OsString> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name())
                .collect();
            names.sort();
            for name in names {
                let Some(text) = name.to_str() else {
                    continue;
                };
                if text.contains(".tmp-cargo-sim") || !units.has(sub, text) {
                    continue;
                }
                let source = dir.join(&name);
                let target = to.join(rel).join(sub).join(&name);
                let there = match newest(&target) {
                    Ok(t) => Some(t),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                    Err(e) => return Err(e),
                };
                // The same unit (same hash) is there: keep it unless this
                // one is newer (rebuilt after its path dependency's sources
                // changed, as sim-rt's do while it is being worked on).
                if there.is_some_and(|t| t >= newest(&source).unwrap_or(t)) {
                    continue;
                }
                fs::create_dir_all(target.parent().expect("an entry has a directory"))?;
                let mut tmp = target.clone().into_os_string();
                tmp.push(format!(".tmp-cargo-sim-{}", std::process::id()));
                let tmp = PathBuf::from(tmp);
                copy_tree(&source, &tmp)?;
                if there.is_some() && fs::symlink_metadata(&target)?.is_dir() {
                    fs::remove_dir_all(&target)?;
                }
                fs::rename(&tmp, &target)?;
                if sub == ".fingerprint" {
                    copied += 1;
                }
            }
        }
    }
    Ok(copied)
}

/// The profile directories under `root` (`debug`, `release`,
/// `<triple>/debug`...): those with a `.fingerprint` directory, at most two
/// levels down.
fn profile_dirs(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut level = vec![root.to_path_buf()];
    for _ in 0..2 {
        let mut next = Vec::new();
        for dir in level {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.filter_map(Result::ok) {
                if !e.file_type()?.is_dir() {
                    continue;
                }
                let path = e.path();
                if path.join(".fingerprint").is_dir() {
                    found.push(path);
                } else {
                    next.push(path);
                }
            }
        }
        level = next;
    }
    found.sort();
    Ok(found)
}

/// The latest modification time of `path` (a file), or of the files under
/// it (a directory; its own when it holds none).
fn newest(path: &Path) -> io::Result<std::time::SystemTime> {
    let meta = fs::symlink_metadata(path)?;
    let mut latest = meta.modified()?;
    if meta.is_dir() {
        let mut first = true;
        for e in fs::read_dir(path)? {
            let t = newest(&e?.path())?;
            if first || t > latest {
                latest = t;
                first = false;
            }
        }
    }
    Ok(latest)
}

/// `from` (a file or a directory) copied to `to`, with its files'
/// modification times and permissions; symbolic links are left out.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(from)?;
    if meta.is_dir() {
        fs::create_dir_all(to)?;
        for e in fs::read_dir(from)? {
            let e = e?;
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        }
    } else if meta.is_file() {
        fs::copy(from, to)?;
        File::options()
            .write(true)
            .open(to)?
            .set_modified(meta.modified()?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_units_are_told_by_their_names() {
        let meta = serde_json::json!({"packages": [
            {"name": "my-app", "source": null, "manifest_path": "/w/Cargo.toml",
             "targets": [{"name": "my-app"}, {"name": "sim"}]},
            {"name": "helper", "source": null, "manifest_path": "/w/helper/Cargo.toml",
             "targets": [{"name": "helper"}]},
            {"name": "sim-rt", "source": null, "manifest_path": "/repo/sim-rt/Cargo.toml",
             "targets": [{"name": "sim_rt"}]},
            {"name": "libc", "source": "registry+x", "manifest_path": "/w/vendor/libc/Cargo.toml",
             "targets": [{"name": "libc"}, {"name": "build-script-build"}]},
            // A registry package named as a local one: left out.
            {"name": "helper", "source": "registry+x", "manifest_path": "/r/helper/Cargo.toml",
             "targets": [{"name": "helper"}]},
        ]});
        let shared = Units::shared(&meta, Path::new("/w"));
        for (sub, name) in [
            (".fingerprint", "sim-rt-0123"),
            ("deps", "libsim_rt-0123.rlib"),
            ("deps", "liblibc-44.rmeta"),
            ("deps", "libc-44.d"),
            ("build", "libc-55"),
        ] {
            assert!(shared.has(sub, name), "{sub}/{name}");
        }
        for (sub, name) in [
            (".fingerprint", "my-app-0123abcd"),
            ("build", "helper-99"),
            ("deps", "libmy_app-0123abcd.rlib"),
            ("deps", "my_app-0123abcd.d"),
            ("deps", "sim-77"),
            ("deps", "helper-1.long-type-1.txt"),
            ("deps", "serde-12.d"),
            ("deps", "no_hash"),
        ] {
            assert!(!shared.has(sub, name), "{sub}/{name}");
        }
    }

    #[test]
    fn units_are_copied_once_with_their_times_and_never_local_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let (ws, cache) = (tmp.path().join("ws"), tmp.path().join("cache"));
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        for file in [
            "debug/deps/libdep-1.rlib",
            "debug/deps/dep-1.d",
            "debug/.fingerprint/dep-1/lib-dep",
            "debug/build/dep-2/out/gen.rs",
            "debug/deps/libapp-3.rlib",
            "debug/.fingerprint/app-3/lib-app",
            "debug/incremental/app-4/x",
            "debug/app",
        ] {
            let path = ws.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, file).unwrap();
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let units = Units {
            packages: ["dep".to_string()].into(),
            crates: ["dep".to_string()].into(),
        };
        // One unit with a fingerprint (dep's library); the build script's
        // directory goes along.
        assert_eq!(copy_units(&ws, &cache, &cache, &units).unwrap(), 1);
        let copied = cache.join("debug/deps/libdep-1.rlib");
        assert_eq!(fs::read(&copied).unwrap(), b"debug/deps/libdep-1.rlib");
        assert_eq!(fs::metadata(&copied).unwrap().modified().unwrap(), old);
        assert!(cache.join("debug/build/dep-2/out/gen.rs").is_file());
        for never in [
            "debug/deps/libapp-3.rlib",
            "debug/.fingerprint/app-3",
            "debug/incremental",
            "debug/app",
        ] {
            assert!(!cache.join(never).exists(), "{never}");
        }
        // Again: nothing new.
        assert_eq!(copy_units(&ws, &cache, &cache, &units).unwrap(), 0);
        // Rebuilt in the workspace (its path dependency's sources changed):
        // the newer unit replaces the cache's.
        let newer = old + std::time::Duration::from_secs(60);
        for file in [
            "debug/.fingerprint/dep-1/lib-dep",
            "debug/deps/libdep-1.rlib",
        ] {
            let path = ws.join(file);
            fs::write(&path, "rebuilt").unwrap();
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(newer)
                .unwrap();
        }
        assert_eq!(copy_units(&ws, &cache, &cache, &units).unwrap(), 1);
        assert_eq!(fs::read(&copied).unwrap(), b"rebuilt");
        assert_eq!(
            fs::read(cache.join("debug/.fingerprint/dep-1/lib-dep")).unwrap(),
            b"rebuilt"
        );
        // And not back: the cache's is not newer than the workspace's.
        assert_eq!(copy_units(&cache, &ws, &cache, &units).unwrap(), 0);
        // Out to a fresh target directory.
        let other = tmp.path().join("other");
        assert_eq!(copy_units(&cache, &other, &cache, &units).unwrap(), 1);
        assert!(other.join("debug/.fingerprint/dep-1/lib-dep").is_file());
    }
}
