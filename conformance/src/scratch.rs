//! The two scratch crates, `target/conformance/{real,sim}/`, generated at run
//! time from the tokio package the workspace pins: its `tests/` copied in
//! (nothing of tokio's is committed), one `[[test]]` target per selected
//! file, tokio's feature names as the crate's own features (tokio's tests
//! are gated on `feature = "full"` and the like, which name the features of
//! the package they belong to), and the dev-dependencies tokio declares for
//! them, limited to the crates the test files name.
//!
//! The simulated crate differs only in its `.cargo/config.toml`: the
//! whole-graph patch (`tokio` from this repository's `sim-tokio/`) and
//! `--cfg sim`, as the guide's "The whole dependency graph"
//! (`docs/src/whole-graph.md`) describes.
//!
//! # Invariants
//!
//! A file is written only when its content changes, so cargo's freshness
//! checks (by modification time) rebuild only what changed between runs.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;

use crate_suites::names_crate;
pub use crate_suites::write_if_changed;

use crate::cfg::CfgSet;

/// Which build a scratch crate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// Real tokio, as published.
    Real,
    /// The whole-graph patch: `sim-tokio` with `--cfg sim`.
    Sim,
}

impl Mode {
    /// The directory name and the label in the table.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Real => "real",
            Mode::Sim => "sim",
        }
    }
}

/// The tokio package the workspace pins, as `cargo metadata` describes it.
pub use crate_suites::Package as TokioPackage;

/// The features of `package` the scratch crate turns on: `full` and
/// `test-util` (those of them it has) and what they name.
fn features_on(tokio: &TokioPackage) -> Vec<String> {
    let mut on = vec!["full".to_owned(), "test-util".to_owned()];
    let mut i = 0;
    while i < on.len() {
        for sub in tokio.features.get(&on[i]).into_iter().flatten() {
            if tokio.features.contains_key(sub) && !on.contains(sub) {
                on.push(sub.clone());
            }
        }
        i += 1;
    }
    on.retain(|f| tokio.features.contains_key(f));
    on.sort();
    on
}

/// The scratch crate's features: every feature name of the package whose
/// tests it holds, as an empty feature (its tests are gated on
/// `feature = "full"` and the like, which name that package's features),
/// with [`features_on`] on by default.
pub fn features_table(tokio: &TokioPackage) -> String {
    let on = features_on(tokio);
    let mut out = String::from("[features]\n");
    let quoted: Vec<String> = on.iter().map(|f| format!("{f:?}")).collect();
    let _ = writeln!(out, "default = [{}]", quoted.join(", "));
    for name in tokio.features.keys().filter(|n| n.as_str() != "default") {
        let _ = writeln!(out, "{name:?} = []");
    }
    out
}

/// The `[dev-dependencies]` tables: the crates the test sources name, as
/// tokio declares them, whose target cfg holds on the host. Integration
/// tests see the package's dependencies as well as its dev-dependencies
/// (tokio's tests use `bytes` and `pin-project-lite`), so both count; a
/// crate declared twice takes its dev-dependency entry.
pub fn dev_dependencies(
    tokio: &TokioPackage,
    sources: &str,
    host: &CfgSet,
) -> Result<String, String> {
    let mut out = String::new();
    let mut taken = std::collections::BTreeSet::new();
    let dev_first = tokio
        .dependencies
        .iter()
        .filter(|d| d.kind == "dev")
        .chain(tokio.dependencies.iter().filter(|d| d.kind == "normal"));
    for dep in dev_first {
        if dep.name == "tokio"
            || dep.name == tokio.name
            || taken.contains(&dep.name)
            || !names_crate(sources, &dep.name)
        {
            continue;
        }
        if let Some(target) = &dep.target {
            if !host.eval_target(target)? {
                continue;
            }
        }
        taken.insert(dep.name.clone());
        let features: Vec<String> = dep.features.iter().map(|f| format!("{f:?}")).collect();
        let _ = writeln!(
            out,
            "[dev-dependencies.{:?}]\nversion = {:?}\ndefault-features = {}\nfeatures = [{}]\n",
            dep.name,
            dep.req,
            dep.default_features,
            features.join(", ")
        );
    }
    Ok(out)
}

/// The name of the scratch crate of `suite`'s tests in `mode`.
pub fn crate_name(suite: &str, mode: Mode) -> String {
    format!("{suite}-conformance-{}", mode.name())
}

/// The scratch crate's `Cargo.toml`, for the tests of `suite` (tokio
/// itself, or a package built on it, such as tokio-util, which the crate
/// then depends on at its pinned version with [`features_on`]).
pub fn manifest(
    tokio: &TokioPackage,
    suite: &TokioPackage,
    mode: Mode,
    dev_deps: &str,
    files: &[String],
) -> String {
    // The real build takes exactly the pinned version; the simulated one any
    // 1.x, which the patch (a higher 1.x) then satisfies.
    let req = match mode {
        Mode::Real => format!("={}", tokio.version),
        Mode::Sim => "1".to_owned(),
    };
    let package = if suite.name == "tokio" {
        String::new()
    } else {
        let on: Vec<String> = features_on(suite)
            .iter()
            .map(|f| format!("{f:?}"))
            .collect();
        format!(
            "{:?} = {{ version = \"={}\", features = [{}] }}\n",
            suite.name,
            suite.version,
            on.join(", ")
        )
    };
    let mut out = format!(
        "# Generated by the conformance harness (conformance/): do not edit.\n\
         [package]\nname = \"{name}\"\nversion = \"0.0.0\"\n\
         edition = {edition:?}\npublish = false\nautotests = false\n\
         autobenches = false\nautoexamples = false\n\n\
         # Its own workspace (it lives under the repository's target/).\n\
         [workspace]\n\n\
         [lib]\npath = \"lib.rs\"\n\n\
         [dependencies]\ntokio = {{ version = {req:?}, features = [\"full\", \"test-util\"] }}\n{package}\n\
         {dev_deps}{features}\n\
         [lints.rust]\nunexpected_cfgs = \"allow\"\n\n\
         # About 190 test binaries per build: without debug info and\n\
         # incremental caches they take a fifth of the disk and link faster\n\
         # (a panic still names its file and line).\n\
         [profile.dev]\ndebug = false\nincremental = false\n",
        name = crate_name(&suite.name, mode),
        edition = suite.edition,
        features = features_table(suite),
    );
    for file in files {
        let _ = write!(
            out,
            "\n[[test]]\nname = {file:?}\npath = \"tests/{file}.rs\"\n"
        );
    }
    out
}

/// The simulated crate's `.cargo/config.toml`.
pub fn sim_config(sim_tokio: &Path) -> String {
    format!(
        "# Generated by the conformance harness: the whole-graph patch.\n\
         [patch.crates-io]\ntokio = {{ path = {:?} }}\n\n\
         [build]\nrustflags = [\"--cfg\", \"sim\"]\n",
        sim_tokio.display().to_string()
    )
}

/// Copies tokio's `tests/` tree (every file, so `support/` modules and any
/// file a test includes come along) into `dest`, changed files only.
pub fn copy_tests(from: &Path, dest: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = dest.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tests(&entry.path(), &target)?;
        } else {
            write_if_changed(&target, &fs::read(entry.path())?)?;
        }
    }
    Ok(())
}

/// All `.rs` sources under tokio's `tests/`, concatenated (to find the
/// crates they name).
pub fn read_sources(dir: &Path) -> io::Result<String> {
    let mut all = String::new();
    let mut entries: Vec<_> = fs::read_dir(dir)?.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            all.push_str(&read_sources(&path)?);
        } else if path.extension().is_some_and(|e| e == "rs") {
            all.push_str(&fs::read_to_string(&path)?);
            all.push('\n');
        }
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate_suites::Dependency;

    use super::*;

    fn package() -> TokioPackage {
        let features = [
            ("default", vec![]),
            ("full", vec!["rt", "sync", "dep:bytes"]),
            ("rt", vec![]),
            ("sync", vec![]),
            ("test-util", vec!["rt", "sync", "time"]),
            ("time", vec![]),
            ("io-uring", vec!["mio/os-poll"]),
        ];
        let dep = |name: &str, kind: &str, target: Option<&str>| Dependency {
            name: name.to_owned(),
            req: format!("^0.4-{kind}"),
            kind: kind.to_owned(),
            features: vec!["async-await".to_owned()],
            default_features: true,
            optional: false,
            target: target.map(str::to_owned),
        };
        TokioPackage {
            name: "tokio".to_owned(),
            version: "1.54.1".to_owned(),
            edition: "2021".to_owned(),
            dir: PathBuf::from("/nowhere"),
            target_dir: PathBuf::from("/nowhere/target"),
            features: features
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
                .collect(),
            dependencies: vec![
                dep("bytes", "normal", None),
                dep("libc", "normal", Some("cfg(target_os = \"wasi\")")),
                dep("tokio-test", "dev", None),
                dep("mockall", "dev", None),
                dep("libc", "dev", Some("cfg(unix)")),
                dep("windows-sys", "dev", Some("cfg(windows)")),
                dep("tokio-macros", "normal", None),
            ],
        }
    }

    #[test]
    fn features_mirror_tokio_with_full_and_test_util_on() {
        let table = features_table(&package());
        assert!(table.contains("default = [\"full\", \"rt\", \"sync\", \"test-util\", \"time\"]"));
        assert!(table.contains("\"io-uring\" = []"));
        assert!(!table.contains("\"default\" = []"));
        assert!(!table.contains("bytes"));
    }

    #[test]
    fn named_crates_on_this_host_become_dev_dependencies() {
        let host = CfgSet::parse("unix\ntarget_os=\"linux\"\n");
        let src = "use tokio_test::task;\nlet x = libc::getpid();\nwindows_sys::Foo;\nuse bytes::Bytes;\ntokio_macros::x";
        let deps = dev_dependencies(&package(), src, &host).unwrap();
        assert!(deps.contains("[dev-dependencies.\"tokio-test\"]\nversion = \"^0.4-dev\""));
        assert!(deps.contains("[dev-dependencies.\"bytes\"]\nversion = \"^0.4-normal\""));
        assert!(deps.contains("[dev-dependencies.\"libc\"]\nversion = \"^0.4-dev\""));
        assert_eq!(deps.matches("\"libc\"").count(), 1, "one entry per crate");
        assert!(
            deps.contains("tokio-macros"),
            "a named normal dependency counts"
        );
        assert!(!deps.contains("mockall"), "not named by any test");
        assert!(!deps.contains("windows"), "cfg(windows) is false here");
    }

    #[test]
    fn manifests_differ_in_the_tokio_requirement() {
        let p = package();
        let real = manifest(&p, &p, Mode::Real, "", &["sync_mpsc".to_owned()]);
        let sim = manifest(&p, &p, Mode::Sim, "", &["sync_mpsc".to_owned()]);
        assert!(real.contains("version = \"=1.54.1\""));
        assert!(sim.contains("version = \"1\""));
        assert!(real.contains("[profile.dev]\ndebug = false\nincremental = false\n"));
        assert!(real.contains("[[test]]\nname = \"sync_mpsc\"\npath = \"tests/sync_mpsc.rs\""));
        assert!(sim_config(Path::new("/r/sim-tokio")).contains("path = \"/r/sim-tokio\""));
        assert!(real.contains("name = \"tokio-conformance-real\""));
    }

    #[test]
    fn another_packages_suite_depends_on_it_with_its_features() {
        let tokio = package();
        let mut util = package();
        util.name = "tokio-util".to_owned();
        util.version = "0.7.20".to_owned();
        let sim = manifest(&tokio, &util, Mode::Sim, "", &["framed".to_owned()]);
        assert!(sim.contains("name = \"tokio-util-conformance-sim\""));
        assert!(sim.contains(
            "\"tokio-util\" = { version = \"=0.7.20\", features = [\"full\", \"rt\", \"sync\", \"test-util\", \"time\"] }"
        ));
        assert!(sim.contains("tokio = { version = \"1\""));
    }
}
