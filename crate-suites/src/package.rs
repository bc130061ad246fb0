//! A package of the workspace's dependency graph from the package registry,
//! as `cargo metadata` describes it: the version the lockfile pins, where
//! cargo unpacked it, and what it depends on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A dependency the package declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// The package name.
    pub name: String,
    /// The version requirement.
    pub req: String,
    /// `normal`, `dev` or `build`.
    pub kind: String,
    /// Features enabled on it.
    pub features: Vec<String>,
    /// Whether its default features are on.
    pub default_features: bool,
    /// Whether it is optional (behind a feature of the package).
    pub optional: bool,
    /// Its `target` cfg, if any.
    pub target: Option<String>,
}

impl Dependency {
    /// Its entry in a `[dependencies]` table: `name = { ... }`.
    pub fn entry(&self) -> String {
        let features: Vec<String> = self.features.iter().map(|f| format!("{f:?}")).collect();
        format!(
            "{:?} = {{ version = {:?}, default-features = {}, features = [{}] }}",
            self.name,
            self.req,
            self.default_features,
            features.join(", ")
        )
    }
}

/// A registry package of the workspace's graph.
#[derive(Debug, Clone)]
pub struct Package {
    /// Its name (`queue-file`).
    pub name: String,
    /// The version the lockfile pins (`2.0.0`).
    pub version: String,
    /// Its edition.
    pub edition: String,
    /// The directory of its `Cargo.toml` in cargo's registry cache.
    pub dir: PathBuf,
    /// Its `[features]` table.
    pub features: BTreeMap<String, Vec<String>>,
    /// Its dependencies of every kind.
    pub dependencies: Vec<Dependency>,
    /// The workspace's target directory.
    pub target_dir: PathBuf,
}

impl Package {
    /// The package `name` from the package registry in the graph of the
    /// workspace at `root` (the version its lockfile pins), by `cargo
    /// metadata`. An error says what is missing: cargo, the package in the
    /// graph, or cargo's unpacked copy of it.
    pub fn locate(root: &Path, name: &str) -> Result<Package, String> {
        let mut cmd = cargo();
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(root.join("Cargo.toml"));
        let out = cmd
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("could not run cargo ({cmd:?}): {e}; is cargo on PATH?"))?;
        if !out.status.success() {
            return Err(format!("{cmd:?} failed ({})", out.status));
        }
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("cargo metadata's output: {e}"))?;
        Package::from_metadata(&meta, name)
    }

    /// [`locate`](Self::locate)'s reading of `cargo metadata`'s JSON.
    pub fn from_metadata(meta: &serde_json::Value, name: &str) -> Result<Package, String> {
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        };
        let pkg = meta["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| {
                p["name"] == name
                    && p["source"]
                        .as_str()
                        .is_some_and(|s| s.starts_with("registry+"))
            })
            .ok_or_else(|| {
                format!("the workspace's dependency graph has no {name} from the package registry")
            })?;
        let manifest = PathBuf::from(text(&pkg["manifest_path"]));
        let dir = manifest
            .parent()
            .ok_or_else(|| format!("{name}'s manifest_path has no parent"))?
            .to_path_buf();
        if !dir.join("src").is_dir() {
            return Err(format!(
                "cargo's copy of {name} {} is not at {} (run `cargo fetch` in the workspace)",
                text(&pkg["version"]),
                dir.display()
            ));
        }
        Ok(Package {
            name: name.to_owned(),
            version: text(&pkg["version"]),
            edition: text(&pkg["edition"]),
            dir,
            features: pkg["features"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), strings(v)))
                .collect(),
            dependencies: pkg["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| Dependency {
                    name: text(&d["name"]),
                    req: text(&d["req"]),
                    kind: d["kind"].as_str().unwrap_or("normal").to_owned(),
                    features: strings(&d["features"]),
                    default_features: d["uses_default_features"].as_bool().unwrap_or(true),
                    optional: d["optional"].as_bool().unwrap_or(false),
                    target: d["target"].as_str().map(str::to_owned),
                })
                .collect(),
            target_dir: PathBuf::from(
                meta["target_directory"]
                    .as_str()
                    .ok_or("cargo metadata gave no target_directory")?,
            ),
        })
    }

    /// Its library name (`queue_file`).
    pub fn lib_name(&self) -> String {
        self.name.replace('-', "_")
    }

    /// The stems of the files under its `tests/`, in name order.
    pub fn test_files(&self) -> Result<Vec<String>, String> {
        let dir = self.dir.join("tests");
        let mut stems: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| format!("listing {}: {e}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                name.strip_suffix(".rs").map(str::to_owned)
            })
            .collect();
        stems.sort();
        Ok(stems)
    }

    /// The `[dependencies]` and `[dev-dependencies]` tables of a copy of
    /// it: its required dependencies without a target cfg, and the
    /// dev-dependencies that `sources` (its test files) name (a bench's,
    /// criterion say, is left out with the benches).
    pub fn dependency_tables(&self, sources: &str) -> String {
        let mut normal = String::from("[dependencies]\n");
        let mut dev = String::from("[dev-dependencies]\n");
        for d in &self.dependencies {
            if d.optional || d.target.is_some() {
                continue;
            }
            match d.kind.as_str() {
                "normal" => normal.push_str(&(d.entry() + "\n")),
                "dev" if names_crate(sources, &d.name) => dev.push_str(&(d.entry() + "\n")),
                _ => {}
            }
        }
        format!("{normal}\n{dev}")
    }
}

/// Whether `source` names the crate `krate` as a path (`krate::`, `use
/// krate`, `extern crate krate`).
pub fn names_crate(source: &str, krate: &str) -> bool {
    let ident = krate.replace('-', "_");
    let bytes = source.as_bytes();
    source.match_indices(&ident).any(|(at, _)| {
        let before_ok = at == 0 || {
            let b = bytes[at - 1];
            !(b.is_ascii_alphanumeric() || b == b'_' || b == b':')
        };
        let rest = &source[at + ident.len()..];
        let prefix = source[..at].trim_end();
        before_ok
            && (rest.starts_with("::")
                || ((prefix.ends_with("use") || prefix.ends_with("extern crate"))
                    && rest.starts_with([';', ' ', ':'])))
    })
}

/// The cargo that runs this (cargo sets `CARGO` for the tests it runs).
pub(crate) fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(dir: &str) -> serde_json::Value {
        serde_json::json!({
            "target_directory": "/ws/target",
            "packages": [
                { "name": "queue-file", "version": "2.0.0", "edition": "2021",
                  "source": null, "manifest_path": "/ws/queue-file/Cargo.toml",
                  "dependencies": [] },
                { "name": "queue-file", "version": "2.0.0", "edition": "2021",
                  "source": "registry+https://github.com/rust-lang/crates.io-index",
                  "manifest_path": format!("{dir}/Cargo.toml"),
                  "dependencies": [
                    { "name": "bytes", "req": "^1.12.0", "kind": null, "features": [],
                      "uses_default_features": true, "optional": false, "target": null },
                    { "name": "winapi", "req": "^0.3", "kind": null, "features": [],
                      "uses_default_features": true, "optional": false, "target": "cfg(windows)" },
                    { "name": "serde", "req": "^1", "kind": null, "features": ["derive"],
                      "uses_default_features": false, "optional": true, "target": null },
                    { "name": "test-case", "req": "^2.1.0", "kind": "dev", "features": [],
                      "uses_default_features": true, "optional": false, "target": null },
                    { "name": "criterion", "req": "^0.3", "kind": "dev", "features": [],
                      "uses_default_features": true, "optional": false, "target": null }
                  ] }
            ]
        })
    }

    #[test]
    fn the_registry_package_is_found_with_its_dependencies() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let p = Package::from_metadata(&metadata(dir), "queue-file").unwrap();
        assert_eq!(
            (p.version.as_str(), p.lib_name()),
            ("2.0.0", "queue_file".into())
        );
        assert_eq!(p.dir, Path::new(dir));
        assert_eq!(p.target_dir, Path::new("/ws/target"));
        let tables = p.dependency_tables("use test_case::test_case;\n");
        assert_eq!(
            tables,
            "[dependencies]\n\"bytes\" = { version = \"^1.12.0\", default-features = true, features = [] }\n\n\
             [dev-dependencies]\n\"test-case\" = { version = \"^2.1.0\", default-features = true, features = [] }\n"
        );
    }

    #[test]
    fn a_missing_package_or_copy_is_named() {
        let e = Package::from_metadata(&metadata("/nowhere"), "tokio").unwrap_err();
        assert!(e.contains("has no tokio from the package registry"), "{e}");
        let e = Package::from_metadata(&metadata("/nowhere"), "queue-file").unwrap_err();
        assert!(
            e.contains("is not at /nowhere") && e.contains("cargo fetch"),
            "{e}"
        );
    }

    #[test]
    fn crate_names_are_found_as_paths_only() {
        assert!(names_crate(
            "use quickcheck_macros::quickcheck;",
            "quickcheck_macros"
        ));
        assert!(names_crate("x: once_cell::sync::Lazy<()>", "once_cell"));
        assert!(names_crate(
            "auto_delete_path::AutoDeletePath::temp()",
            "auto-delete-path"
        ));
        assert!(!names_crate(
            "use quickcheck_macros::quickcheck;",
            "quickcheck"
        ));
        assert!(!names_crate("// criterion is for benches", "criterion"));
        assert!(names_crate("use tempfile;", "tempfile"));
        assert!(!names_crate("tokio::net::libc_thing", "libc"));
        assert!(names_crate("use tokio_stream::StreamExt;", "tokio-stream"));
    }
}
