//! Running cargo for the simulated build: where the workspace and its target
//! directory are, the command-line configuration that selects sim-tokio and
//! `--cfg sim`, the re-seeding of the simulated lockfile, the check that the
//! patch is used, and the run itself, its output streamed to the user as it
//! comes while libtest's test counts are read from it.

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use serde_json::Value;

use crate::args::Invocation;
use crate::Error;

/// The cargo that runs everything: `$CARGO` (set by cargo when it runs a
/// subcommand, so `cargo +nightly sim` stays on nightly), else `cargo`.
#[derive(Debug, Clone)]
pub struct Cargo {
    program: OsString,
}

/// What `cargo metadata --no-deps` says of the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The directory of the workspace's root `Cargo.toml` (and `Cargo.lock`).
    pub root: PathBuf,
    /// Its target directory (`CARGO_TARGET_DIR`, `build.target-dir`, or
    /// `<root>/target`).
    pub target_dir: PathBuf,
}

/// The configuration of the simulated build, as command-line arguments and
/// environment variables for cargo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// `--config patch.crates-io.tokio.path="<sim-tokio>"`.
    pub patch: Vec<String>,
    /// `--config build.rustflags=["--cfg","sim"]` (and rustdocflags, for
    /// doc-tests), for the flags the environment does not set.
    pub flags_config: Vec<String>,
    /// The environment's `RUSTFLAGS`/`RUSTDOCFLAGS` (or their
    /// `CARGO_ENCODED_` forms) with `--cfg sim` appended: cargo ignores
    /// `build.rustflags` when they are set.
    pub flags_env: Vec<(&'static str, OsString)>,
}

impl Selection {
    /// The selection of `sim_tokio`, given the environment's flag
    /// variables (`env("RUSTFLAGS")`...).
    pub fn new(sim_tokio: &Path, env: impl Fn(&str) -> Option<OsString>) -> Selection {
        let mut selection = Selection {
            patch: vec![
                "--config".to_string(),
                format!(
                    "patch.crates-io.tokio.path={}",
                    toml_string(&sim_tokio.to_string_lossy())
                ),
            ],
            flags_config: Vec::new(),
            flags_env: Vec::new(),
        };
        for (plain, encoded, key) in [
            ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "build.rustflags"),
            (
                "RUSTDOCFLAGS",
                "CARGO_ENCODED_RUSTDOCFLAGS",
                "build.rustdocflags",
            ),
        ] {
            // Cargo's order: the encoded form, then the plain one (even
            // when empty), then the configuration.
            if let Some(mut flags) = env(encoded) {
                if !flags.is_empty() {
                    flags.push("\x1f");
                }
                flags.push("--cfg\x1fsim");
                selection.flags_env.push((encoded, flags));
            } else if let Some(mut flags) = env(plain) {
                flags.push(" --cfg sim");
                selection.flags_env.push((plain, flags));
            } else {
                selection.flags_config.push("--config".to_string());
                selection
                    .flags_config
                    .push(format!(r#"{key}=["--cfg","sim"]"#));
            }
        }
        selection
    }
}

/// The optimization level of the dependencies in the simulated build's
/// dev profile (`cargo sim test` without `--release`).
pub const DEPS_OPT_LEVEL: u8 = 2;

/// The debug information of the dependencies in the simulated build's dev
/// profile: file and line tables only (backtraces through a dependency
/// name its lines; a debugger shows no local variables there). Full
/// debug information for an optimized graph costs about a fifth of a
/// first build's time (measured on a fresh axum crate: 133 s against
/// 109 s; see the guide's whole-graph chapter).
pub const DEPS_DEBUG: &str = "line-tables-only";

/// The configuration that builds every package that is not a workspace
/// member (crates.io's, git and path dependencies, sim-rt and sim-tokio
/// among them) with [`DEPS_OPT_LEVEL`] and [`DEPS_DEBUG`], through cargo's
/// per-package profile override (`profile.dev.package."*"`), unless
/// `--no-optimize-deps`: an exploration runs hyper, h2, tonic and the
/// simulator itself thousands of times, several times faster optimized,
/// while the workspace's own crates keep the dev profile as written
/// (unoptimized, debug assertions, full debug information). The profiles
/// that inherit `dev` (`test`, and custom ones) inherit it; `--release` is
/// optimized anyway.
///
/// `build_only` names the packages that only build scripts and proc macros
/// use (syn, serde_derive, prost-build...; see [`build_only`]): each gets a
/// named override back to cargo's own defaults for build code (`opt-level
/// = 0`, no debug information), since a named override takes precedence
/// over `"*"` (which would otherwise also reach them, past
/// `build-override`), and optimizing code that runs once per build costs
/// build time and buys nothing.
///
/// It goes before the user's arguments, so a `--config` of theirs for
/// the same key wins (`--config 'profile.dev.package."*".opt-level=3'`).
/// It replaces an `opt-level` the workspace's `Cargo.toml` sets for
/// `[profile.dev.package."*"]` (cargo prefers configuration to the
/// manifest): `--no-optimize-deps` keeps the manifest's.
pub fn optimized_deps(inv: &Invocation, build_only: &[String]) -> Vec<String> {
    if !inv.optimize_deps {
        return Vec::new();
    }
    let mut args = vec![
        "--config".to_string(),
        format!(r#"profile.dev.package."*".opt-level={DEPS_OPT_LEVEL}"#),
        "--config".to_string(),
        format!(r#"profile.dev.package."*".debug="{DEPS_DEBUG}""#),
    ];
    for spec in build_only {
        for setting in ["opt-level=0", "debug=false"] {
            args.push("--config".to_string());
            args.push(format!(
                "profile.dev.package.{}.{setting}",
                toml_string(spec)
            ));
        }
    }
    args
}

/// The packages of `cargo metadata`'s resolve that only build code uses:
/// reached from the workspace's members only through build dependencies
/// and proc macros (and their own dependencies), never as a dependency of
/// code that runs in a test or a binary. Each as a package spec for a
/// profile override: its name, or `name@version` where another version of
/// the same name is not build-only. Sorted; empty when the metadata has no
/// resolve.
pub fn build_only(metadata: &Value) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};

    let empty = Vec::new();
    let packages: BTreeMap<&str, &Value> = metadata["packages"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let nodes: BTreeMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .filter_map(|n| Some((n["id"].as_str()?, n)))
        .collect();
    let members: BTreeSet<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let is_proc_macro = |id: &str| {
        packages.get(id).is_some_and(|p| {
            p["targets"].as_array().is_some_and(|ts| {
                ts.iter().any(|t| {
                    t["kind"]
                        .as_array()
                        .is_some_and(|k| k.iter().any(|k| k == "proc-macro"))
                })
            })
        })
    };
    // Each dependency edge of `id`: the package, and whether it is a build
    // dependency (rather than normal or dev).
    let edges = |id: &str| -> Vec<(&str, bool)> {
        let Some(node) = nodes.get(id) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for dep in node["deps"].as_array().unwrap_or(&empty) {
            let Some(pkg) = dep["pkg"].as_str() else {
                continue;
            };
            for kind in dep["dep_kinds"].as_array().unwrap_or(&empty) {
                out.push((pkg, kind["kind"].as_str() == Some("build")));
            }
        }
        out
    };
    // Code that runs: the members and what they reach through normal and
    // dev dependencies, short of proc macros. Build code: the rest.
    let mut runs: BTreeSet<&str> = BTreeSet::new();
    let mut builds: BTreeSet<&str> = BTreeSet::new();
    let mut todo: Vec<(&str, bool)> = members.iter().map(|m| (*m, false)).collect();
    while let Some((id, build)) = todo.pop() {
        let build = build || is_proc_macro(id);
        let seen = if build { &mut builds } else { &mut runs };
        if !seen.insert(id) {
            continue;
        }
        for (dep, is_build_dep) in edges(id) {
            todo.push((dep, build || is_build_dep));
        }
    }
    let only: BTreeSet<&str> = builds
        .iter()
        .copied()
        .filter(|id| !runs.contains(id) && !members.contains(id))
        .collect();
    let name = |id: &str| packages.get(id).and_then(|p| p["name"].as_str());
    let mut specs = BTreeSet::new();
    for id in &only {
        let (Some(n), Some(p)) = (name(id), packages.get(id)) else {
            continue;
        };
        let shared = nodes
            .keys()
            .any(|other| name(other) == Some(n) && !only.contains(other));
        specs.insert(match shared {
            false => n.to_string(),
            true => format!("{n}@{}", p["version"].as_str().unwrap_or("0.0.0")),
        });
    }
    specs.into_iter().collect()
}

/// `s` as a TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The user's arguments that every cargo command of the run takes: which
/// workspace (`--manifest-path`), their `--config`s, `-Z` flags, and
/// whether the network and the lockfile may be used (`--offline`,
/// `--frozen`, `--locked`).
pub(crate) fn global_args(inv: &Invocation) -> Vec<String> {
    pick(
        inv,
        &["--offline", "--frozen", "--locked"],
        &["--manifest-path", "--config", "-Z"],
    )
}

/// The user's feature arguments, which decide whether an optional
/// dependency on tokio is in the graph.
fn feature_args(inv: &Invocation) -> Vec<String> {
    pick(
        inv,
        &["--all-features", "--no-default-features"],
        &["--features", "-F"],
    )
}

/// The arguments of `inv` that are flags in `alone` or options in
/// `with_value` (with their values, in any of their forms), in order.
fn pick(inv: &Invocation, alone: &[&str], with_value: &[&str]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut args = inv.cargo_args.iter();
    while let Some(arg) = args.next() {
        let attached = arg.split_once('=').map_or(arg.as_str(), |(flag, _)| flag);
        let short_attached = with_value
            .iter()
            .any(|f| f.len() == 2 && arg.len() > 2 && arg.starts_with(f));
        if alone.contains(&arg.as_str()) || short_attached {
            kept.push(arg.clone());
        } else if with_value.contains(&arg.as_str()) {
            kept.push(arg.clone());
            kept.extend(args.next().cloned());
        } else if attached.starts_with("--") && with_value.contains(&attached) {
            kept.push(arg.clone());
        }
    }
    kept
}

/// How many tests libtest said it was running, read from its output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TestCount {
    /// Test binaries (doc-tests included) that started.
    pub suites: u64,
    /// The sum of their `running N tests`.
    pub tests: u64,
}

impl TestCount {
    /// Counts one line of output: libtest's `running N tests` (also printed
    /// by the doc-tests' runner, whose tests are tests too), or its JSON
    /// format's suite start.
    pub fn read(&mut self, line: &str) {
        let line = line.trim_end();
        let n = if let Some(rest) = line.strip_prefix("running ") {
            rest.strip_suffix(" tests")
                .or_else(|| rest.strip_suffix(" test"))
                .and_then(|n| n.parse::<u64>().ok())
        } else if line.starts_with('{')
            && line.contains(r#""type": "suite""#)
            && line.contains(r#""event": "started""#)
        {
            line.split_once(r#""test_count":"#).and_then(|(_, rest)| {
                let digits: String = rest
                    .trim_start()
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse().ok()
            })
        } else {
            None
        };
        if let Some(n) = n {
            self.suites += 1;
            self.tests += n;
        }
    }
}

/// How the cargo command of the run ended.
#[derive(Debug, Clone, Copy)]
pub struct Ran {
    /// Its exit status.
    pub status: ExitStatus,
    /// The tests libtest reported running.
    pub count: TestCount,
}

impl Cargo {
    /// `$CARGO`, else `cargo` from `PATH`.
    pub fn from_env() -> Cargo {
        Cargo {
            program: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
        }
    }

    pub(crate) fn command(&self) -> Command {
        Command::new(&self.program)
    }

    /// An error unless `cargo nextest` runs.
    pub fn require_nextest(&self) -> Result<(), Error> {
        let found = self
            .command()
            .args(["nextest", "--version"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if found {
            Ok(())
        } else {
            Err(Error::Failed(
                "cargo nextest is not installed: install it with `cargo install cargo-nextest \
                 --locked` (or a prebuilt binary, see https://nexte.st), or use `cargo sim test`"
                    .to_string(),
            ))
        }
    }

    /// The workspace `inv` names (`--manifest-path`, else the current
    /// directory's), from `cargo metadata --no-deps`.
    pub fn workspace(&self, inv: &Invocation) -> Result<Workspace, Error> {
        let mut cmd = self.command();
        cmd.args(["metadata", "--format-version", "1", "--no-deps"])
            .args(global_args(inv));
        let json = self.json(cmd, "cargo metadata --no-deps")?;
        let path = |key: &str| {
            json[key].as_str().map(PathBuf::from).ok_or_else(|| {
                Error::Failed(format!(
                    "cargo metadata gave no {key}; is this cargo too old?"
                ))
            })
        };
        Ok(Workspace {
            root: path("workspace_root")?,
            target_dir: path("target_directory")?,
        })
    }

    /// Runs `cmd` (a `cargo metadata`), returning its output as JSON; its
    /// error output is shown when it fails.
    fn json(&self, mut cmd: Command, what: &str) -> Result<Value, Error> {
        let out = cmd
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| Error::Failed(format!("could not run {what}: {e}")))?;
        if !out.status.success() {
            return Err(Error::Failed(format!("{what} failed (see above)")));
        }
        serde_json::from_slice(&out.stdout)
            .map_err(|e| Error::Failed(format!("{what} printed what is not JSON: {e}")))
    }

    /// An error unless the simulated build resolves tokio to sim-tokio, and
    /// only to it: `cargo metadata` with the patch (which also brings the
    /// simulated lockfile up to date with the manifests). Its output, for
    /// [`build_only`] and the shared cache.
    pub fn check_patch(
        &self,
        inv: &Invocation,
        selection: &Selection,
        sim_tokio: &Path,
        sim_lock: &Path,
    ) -> Result<Value, Error> {
        let mut cmd = self.command();
        cmd.args(["metadata", "--format-version", "1"])
            .args(&selection.patch)
            .args(global_args(inv))
            .args(feature_args(inv));
        let json = self.json(cmd, "cargo metadata (with the patch)")?;
        check_resolve(&json, sim_tokio, sim_lock).map_err(Error::Failed)?;
        Ok(json)
    }

    /// Runs the cargo command of `inv` on the simulated build, in
    /// `target_dir`, with `env` added to its environment; its output goes to
    /// the user as it comes (standard error as is, standard output line by
    /// line, read for libtest's counts).
    pub fn run(
        &self,
        inv: &Invocation,
        selection: &Selection,
        build_only: &[String],
        target_dir: &Path,
        env: &[(&str, OsString)],
    ) -> Result<Ran, Error> {
        let mut cmd = self.command();
        cmd.args(inv.subcommand.cargo_words())
            .args(&selection.patch)
            .args(&selection.flags_config)
            .args(optimized_deps(inv, build_only))
            .arg("--target-dir")
            .arg(target_dir)
            .args(&inv.cargo_args);
        if let Some(trailing) = &inv.trailing {
            cmd.arg("--").args(trailing);
        }
        cmd.envs(selection.flags_env.iter().map(|(k, v)| (k, v)))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| {
            Error::Failed(format!(
                "could not run {:?} {}: {e}",
                self.program,
                inv.subcommand.cargo_words().join(" ")
            ))
        })?;
        let stdout = child.stdout.take().expect("the child's stdout is piped");
        let count = stream(stdout, io::stdout().lock());
        let status = child
            .wait()
            .map_err(|e| Error::Failed(format!("could not wait for cargo: {e}")))?;
        Ok(Ran { status, count })
    }
}

/// Copies `from` to `to` line by line as it comes, counting libtest's
/// tests. When `to` is closed (`cargo sim test | head`), the rest is still
/// read, so that cargo runs to its end and the lockfile swap is undone
/// after it.
pub fn stream(from: impl Read, mut to: impl Write) -> TestCount {
    let mut count = TestCount::default();
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    let mut writing = true;
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        count.read(&String::from_utf8_lossy(&line));
        if writing {
            writing = to.write_all(&line).and_then(|()| to.flush()).is_ok();
        }
    }
    count
}

/// Checks `cargo metadata`'s resolve: tokio is sim-tokio (under
/// `sim_tokio`), and no crates.io tokio 1.x is left beside it.
pub fn check_resolve(metadata: &Value, sim_tokio: &Path, sim_lock: &Path) -> Result<(), String> {
    let empty = Vec::new();
    let packages = metadata["packages"].as_array().unwrap_or(&empty);
    let nodes = metadata["resolve"]["nodes"].as_array().unwrap_or(&empty);
    let resolved = |id: &str| nodes.iter().any(|n| n["id"].as_str() == Some(id));
    let mut patched = None;
    let mut real = Vec::new();
    for p in packages {
        let (Some(id), Some("tokio")) = (p["id"].as_str(), p["name"].as_str()) else {
            continue;
        };
        if !resolved(id) {
            continue;
        }
        let version = p["version"].as_str().unwrap_or("?");
        let manifest = Path::new(p["manifest_path"].as_str().unwrap_or(""));
        if manifest.starts_with(sim_tokio) {
            patched = Some(version.to_string());
        } else if p["source"].is_string() && version.starts_with("1.") {
            real.push((id, version));
        }
    }
    let dependents = |id: &str| {
        let mut names: Vec<String> = nodes
            .iter()
            .filter(|n| {
                n["deps"]
                    .as_array()
                    .is_some_and(|deps| deps.iter().any(|d| d["pkg"].as_str() == Some(id)))
            })
            .filter_map(|n| {
                let id = n["id"].as_str()?;
                let p = packages.iter().find(|p| p["id"].as_str() == Some(id))?;
                Some(format!(
                    "{} v{}",
                    p["name"].as_str()?,
                    p["version"].as_str()?
                ))
            })
            .collect();
        names.sort();
        names.join(", ")
    };
    let real_list = || {
        real.iter()
            .map(|(id, v)| format!("crates.io tokio v{v} (required by {})", dependents(id)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match (patched, real.is_empty()) {
        (Some(_), true) => Ok(()),
        (None, true) => Err(format!(
            "the patch of tokio with sim-tokio ({}) is not used: nothing in the dependency graph \
             depends on tokio 1.x, so nothing would run in the simulation. cargo sim is for \
             crates written on tokio; a crate that uses sim_rt directly runs its simulated tests \
             with RUSTFLAGS=\"--cfg sim\" cargo test",
            sim_tokio.display()
        )),
        (None, false) => Err(format!(
            "the patch of tokio with sim-tokio ({}) is not used: the simulated build resolves {}. \
             A requirement that sim-tokio's version does not meet (such as tokio = \"=1.40\") \
             keeps crates.io's tokio; if there is none, remove {} so that cargo sim seeds it again",
            sim_tokio.display(),
            real_list(),
            sim_lock.display()
        )),
        (Some(v), false) => Err(format!(
            "the simulated build has crates.io's tokio beside sim-tokio v{v}: {}. Those crates \
             would run on real tokio; a requirement that sim-tokio's version does not meet (such \
             as tokio = \"=1.40\") keeps crates.io's tokio; if there is none, remove {} so that \
             cargo sim seeds it again",
            real_list(),
            sim_lock.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_counts_are_read_from_its_lines() {
        let mut c = TestCount::default();
        for line in [
            "running 2 tests\n",
            "test a ... ok\n",
            "running 1 test\n",
            "running 0 tests\n",
            "   Doc-tests fx\n",
            "running 3 tests\r\n",
            r#"{ "type": "suite", "event": "started", "test_count": 4 }"#,
            "not running 5 tests\n",
            "running five tests\n",
        ] {
            c.read(line);
        }
        assert_eq!(
            c,
            TestCount {
                suites: 5,
                tests: 10
            }
        );
    }

    #[test]
    fn flags_in_the_environment_get_cfg_sim_appended() {
        let none = Selection::new(Path::new("/s"), |_| None);
        assert_eq!(
            none.flags_config,
            [
                "--config",
                r#"build.rustflags=["--cfg","sim"]"#,
                "--config",
                r#"build.rustdocflags=["--cfg","sim"]"#
            ]
        );
        assert!(none.flags_env.is_empty());
        assert_eq!(
            none.patch,
            ["--config", r#"patch.crates-io.tokio.path="/s""#]
        );

        let env = Selection::new(Path::new("/s"), |k| match k {
            "RUSTFLAGS" => Some("-C opt-level=1".into()),
            "CARGO_ENCODED_RUSTDOCFLAGS" => Some("".into()),
            _ => None,
        });
        assert!(env.flags_config.is_empty());
        assert_eq!(
            env.flags_env,
            [
                ("RUSTFLAGS", OsString::from("-C opt-level=1 --cfg sim")),
                ("CARGO_ENCODED_RUSTDOCFLAGS", OsString::from("--cfg\x1fsim"))
            ]
        );
    }

    #[test]
    fn build_only_packages_are_those_no_running_code_reaches() {
        let package = |id: &str, name: &str, version: &str, kind: &str| {
            serde_json::json!({"id": id, "name": name, "version": version,
                "targets": [{"kind": [kind]}]})
        };
        let dep = |pkg: &str, kind: Option<&str>| serde_json::json!({"pkg": pkg, "dep_kinds": [{"kind": kind}]});
        let node = |id: &str, deps: Vec<Value>| serde_json::json!({"id": id, "deps": deps});
        let meta = serde_json::json!({
            "workspace_members": ["app"],
            "packages": [
                package("app", "app", "0.1.0", "lib"),
                package("lib", "lib-a", "1.0.0", "lib"),
                package("pm", "pm", "1.0.0", "proc-macro"),
                package("syn2", "syn", "2.0.0", "lib"),
                package("syn1", "syn", "1.0.0", "lib"),
                package("cc", "cc", "1.0.0", "lib"),
                package("memchr", "memchr", "2.0.0", "lib"),
                package("tester", "tester", "1.0.0", "lib"),
            ],
            "resolve": {"nodes": [
                // The app: a library, a proc macro, a build dependency, and
                // a dev-dependency (which runs, in its tests).
                node("app", vec![dep("lib", None), dep("pm", None), dep("cc", Some("build")),
                    dep("tester", Some("dev"))]),
                node("lib", vec![dep("memchr", None), dep("syn1", None)]),
                node("pm", vec![dep("syn2", None)]),
                node("syn2", vec![]),
                node("syn1", vec![]),
                // Shared by build code and running code: optimized.
                node("cc", vec![dep("memchr", None)]),
                node("memchr", vec![]),
                node("tester", vec![]),
            ]},
        });
        assert_eq!(build_only(&meta), ["cc", "pm", "syn@2.0.0"]);
        assert!(build_only(&serde_json::json!({})).is_empty());
    }

    #[test]
    fn a_path_is_a_toml_string() {
        assert_eq!(toml_string(r#"C:\a "b""#), r#""C:\\a \"b\"""#);
    }

    #[test]
    fn the_metadata_check_names_what_keeps_crates_io_tokio() {
        let sim = Path::new("/repo/sim-tokio");
        let lock = Path::new("/t/sim/Cargo.lock");
        let meta = |tokios: Value, nodes: Value| {
            let mut packages = tokios.as_array().unwrap().clone();
            packages.push(
                serde_json::json!({"id": "app", "name": "app", "version": "0.1.0",
                "manifest_path": "/w/Cargo.toml", "source": null}),
            );
            serde_json::json!({"packages": packages, "resolve": {"nodes": nodes}})
        };
        let sim_tokio = serde_json::json!({"id": "sim", "name": "tokio", "version": "1.99.0",
            "manifest_path": "/repo/sim-tokio/Cargo.toml", "source": null});
        let real_tokio = serde_json::json!({"id": "real", "name": "tokio", "version": "1.32.0",
            "manifest_path": "/reg/tokio-1.32.0/Cargo.toml", "source": "registry+x"});
        let app_on = |ids: &[&str]| {
            let deps: Vec<Value> = ids
                .iter()
                .map(|i| serde_json::json!({"name": "tokio", "pkg": i}))
                .collect();
            serde_json::json!({"id": "app", "deps": deps})
        };

        let good = meta(
            serde_json::json!([sim_tokio]),
            serde_json::json!([app_on(&["sim"]), {"id": "sim", "deps": []}]),
        );
        assert_eq!(check_resolve(&good, sim, lock), Ok(()));

        let unused = meta(
            serde_json::json!([sim_tokio, real_tokio]),
            serde_json::json!([app_on(&["real"]), {"id": "real", "deps": []}]),
        );
        let e = check_resolve(&unused, sim, lock).unwrap_err();
        assert!(e.contains("is not used"), "{e}");
        assert!(
            e.contains("crates.io tokio v1.32.0 (required by app v0.1.0)"),
            "{e}"
        );

        let both = meta(
            serde_json::json!([sim_tokio, real_tokio]),
            serde_json::json!([app_on(&["real", "sim"]), {"id": "real", "deps": []},
                {"id": "sim", "deps": []}]),
        );
        let e = check_resolve(&both, sim, lock).unwrap_err();
        assert!(e.contains("beside sim-tokio v1.99.0"), "{e}");

        let nothing = meta(serde_json::json!([]), serde_json::json!([app_on(&[])]));
        let e = check_resolve(&nothing, sim, lock).unwrap_err();
        assert!(e.contains("nothing in the dependency graph"), "{e}");
    }
}
