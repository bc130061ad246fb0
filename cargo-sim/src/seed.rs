//! Seeding the simulated build's lockfile from the committed one.
//!
//! The simulated lockfile starts as the committed one, and `cargo update -p
//! tokio@<v>` with the patch moves crates.io's tokio to sim-tokio while
//! every other package keeps its committed version. Cargo takes a patch it
//! cannot use quietly (a warning, and crates.io's tokio stays), so every
//! step is judged by the lockfile it leaves ([`uses_patch`]):
//!
//! 1. **Offline** (unless the user said `--offline`, online is never
//!    tried then): enough when cargo's download cache already holds
//!    sim-tokio's graph. With a fresh cache, cargo cannot resolve
//!    sim-rt's dependencies offline, keeps crates.io's tokio, and says
//!    only that the patch was not used.
//! 2. **Online**, fetching what is missing, as `cargo update` would.
//! 3. **Unlocking what keeps the patch out.** When the patch is still
//!    unused, a package the committed lockfile pins is older than a
//!    requirement of sim-tokio's graph (say `libc` locked at 0.2.100 where
//!    sim-rt needs `^0.2.155`). `cargo update -p tokio@<v> --precise
//!    <sim-tokio's version>` makes cargo name the conflict ([`Conflict`]);
//!    the pinned package (or, when the pin is a locked package's exact
//!    requirement, that package) is unlocked as well, and the update runs
//!    again, until the patch is used. Only the packages named in a conflict
//!    move: everything else keeps its committed version.
//!
//! A conflict between two requirements (a workspace member's `libc =
//! "=0.2.100"` against sim-rt's `^0.2.155`) cannot be resolved by any
//! lockfile: the error names the package and both requirements.
//!
//! The cargo commands' own output is shown with `-v`; otherwise one line
//! says what the seeding changed, and a failure shows cargo's words.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::process::{Output, Stdio};

use crate::args::Invocation;
use crate::cargo::{global_args, Cargo, Selection};
use crate::lockfile::{locked_packages, registry_tokio_versions, uses_patch};
use crate::Error;

/// How many packages the seeding unlocks at most before it gives up: each
/// round of step 3 unlocks one.
const MAX_UNLOCKED: usize = 16;

/// Turns the committed lockfile at `lock`, in place, into the simulated
/// build's (see the module's docs).
pub fn reseed(
    cargo: &Cargo,
    inv: &Invocation,
    selection: &Selection,
    sim_tokio: &Path,
    lock: &Path,
) -> Result<(), Error> {
    let committed = read(lock)?;
    let before = registry_tokio_versions(&committed);
    if before.is_empty() {
        // Nothing to move; cargo resolves tokio with the patch itself, and
        // the patch check says when nothing depends on tokio.
        return Ok(());
    }
    let seeding = Seeding {
        cargo,
        selection,
        globals: global_args(inv)
            .into_iter()
            .filter(|a| a != "--locked" && a != "--frozen")
            .collect(),
        sim_version: package_version(sim_tokio)?,
        lock,
        verbose: inv.verbose(),
    };
    let unlocked = seeding.run()?;
    if !seeding.done()? {
        // Left to the patch check, which names what keeps crates.io's
        // tokio (a requirement on tokio itself, or nothing on tokio 1.x).
        return Ok(());
    }
    let mut line = format!(
        "cargo sim: seeded the simulated build's lockfile from the committed Cargo.lock (tokio {} \
         -> sim-tokio {})",
        before.join(", "),
        seeding.sim_version
    );
    if !unlocked.is_empty() {
        let after = locked_packages(&read(lock)?);
        let moved: Vec<String> = unlocked
            .iter()
            .map(|spec| {
                let (name, old) = spec.split_once('@').unwrap_or((spec, "?"));
                let now: Vec<&str> = after
                    .iter()
                    .filter(|p| p.name == name)
                    .map(|p| p.version.as_str())
                    .collect();
                format!("{name} {old} -> {}", now.join(", "))
            })
            .collect();
        line.push_str(&format!(
            "; unlocked for sim-tokio's graph, whose requirements the committed versions do not \
             meet: {}",
            moved.join("; ")
        ));
    }
    eprintln!("{line}");
    Ok(())
}

/// One seeding's settings.
struct Seeding<'a> {
    cargo: &'a Cargo,
    selection: &'a Selection,
    /// The user's global arguments, without `--locked`/`--frozen` (the
    /// seeding writes the lockfile by design).
    globals: Vec<String>,
    /// sim-tokio's version, which `--precise` asks for.
    sim_version: String,
    lock: &'a Path,
    verbose: bool,
}

impl Seeding<'_> {
    /// Steps 1 to 3; the packages unlocked besides tokio (`name@version`
    /// as committed).
    fn run(&self) -> Result<Vec<String>, Error> {
        let user_offline = self.globals.iter().any(|a| a == "--offline");
        if !user_offline {
            let offline = self.update(&[], None, true)?;
            if offline.status.success() && self.done()? {
                return Ok(Vec::new());
            }
        }
        let mut unlocked: Vec<String> = Vec::new();
        loop {
            let out = self.update(&unlocked, None, false)?;
            if !out.status.success() {
                return Err(self.failed("cargo update -p tokio with the patch failed", &out));
            }
            if self.done()? {
                return Ok(unlocked);
            }
            if registry_tokio_versions(&read(self.lock)?).is_empty() {
                // Nothing left to move: the patch check names what is
                // wrong (nothing depends on tokio 1.x any more).
                return Ok(unlocked);
            }
            let why = self.update(&[], Some(&self.sim_version), false)?;
            if why.status.success() && self.done()? {
                return Ok(unlocked);
            }
            let text = String::from_utf8_lossy(&why.stderr);
            let Some(conflict) = Conflict::parse(&text) else {
                let what = if user_offline {
                    "the patch is not used, offline (cargo's download cache may lack sim-tokio's \
                     dependencies: run once without --offline)"
                } else {
                    "the patch is not used, and cargo update -p tokio --precise gave no conflict \
                     cargo sim can read"
                };
                return Err(self.failed(what, &why));
            };
            if conflict.package == "tokio" {
                // A requirement on tokio that sim-tokio's version does not
                // meet: the patch check names the crates that have it.
                return Ok(unlocked);
            }
            match conflict.to_unlock(&unlocked) {
                Some(spec) if unlocked.len() < MAX_UNLOCKED => unlocked.push(spec),
                Some(_) => {
                    return Err(self.failed(
                        &format!(
                            "the patch is still not used after unlocking {MAX_UNLOCKED} packages \
                             ({})",
                            unlocked.join(", ")
                        ),
                        &why,
                    ))
                }
                None => return Err(self.failed(&conflict.explain(), &why)),
            }
        }
    }

    /// Whether the lockfile now uses the patch.
    fn done(&self) -> Result<bool, Error> {
        Ok(uses_patch(&read(self.lock)?, &self.sim_version))
    }

    /// `cargo update -p tokio@<v>` for each crates.io tokio 1.x the
    /// lockfile holds, `-p <spec>` for each of `unlock`, with the patch;
    /// `--precise` when given, `--offline` when asked.
    fn update(
        &self,
        unlock: &[String],
        precise: Option<&str>,
        offline: bool,
    ) -> Result<Output, Error> {
        let mut cmd = self.cargo.command();
        cmd.arg("update");
        for v in registry_tokio_versions(&read(self.lock)?) {
            cmd.arg("-p").arg(format!("tokio@{v}"));
        }
        for spec in unlock {
            cmd.arg("-p").arg(spec);
        }
        if let Some(version) = precise {
            cmd.args(["--precise", version]);
        }
        if offline {
            cmd.arg("--offline");
        }
        cmd.args(&self.selection.patch)
            .args(&self.globals)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = cmd
            .output()
            .map_err(|e| Error::Failed(format!("could not run cargo update: {e}")))?;
        if self.verbose {
            io::stderr().write_all(&out.stderr).ok();
        }
        Ok(out)
    }

    /// The error for a seeding that stopped at `out`, with cargo's words
    /// (unless `-v` showed them already).
    fn failed(&self, what: &str, out: &Output) -> Error {
        let mut message = format!("could not seed the simulated build's lockfile: {what}");
        if !self.verbose {
            let said = String::from_utf8_lossy(&out.stderr);
            let said = said.trim_end();
            if !said.is_empty() {
                message.push_str("\ncargo said:\n");
                for line in said.lines() {
                    message.push_str("    ");
                    message.push_str(line);
                    message.push('\n');
                }
            }
        }
        Error::Failed(message.trim_end().to_string())
    }
}

/// What cargo's resolver says when it cannot select a version of a
/// package, read from its error (`failed to select a version for ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The package no version of which would do.
    pub package: String,
    /// The requirement being resolved (`^0.2.155`), and the package that
    /// has it (`sim-rt v0.1.0`).
    pub wanted: Option<(String, String)>,
    /// The version already selected, if cargo says (`0.2.100`).
    pub selected: Option<String>,
    /// The requirement that selected it (`^0.2`, `=0.2.100`), and the
    /// package that has it, as cargo names it (`oldlock v0.1.0
    /// (/path)`, or `tracing v0.1.25` for a registry package).
    pub holder: Option<(String, String)>,
    /// Whether the selected version is a lockfile's pin (`(locked to ...)`)
    /// rather than what a requirement allows.
    pub locked: bool,
}

impl Conflict {
    /// Reads cargo's error text; `None` when it holds no version conflict.
    pub fn parse(text: &str) -> Option<Conflict> {
        let after = |line: &str, prefix: &str| -> Option<String> {
            let rest = line.trim().trim_start_matches("... ");
            let rest = rest.strip_prefix(prefix)?.trim_start().strip_prefix('`')?;
            Some(rest[..rest.find('`')?].to_string())
        };
        let mut conflict: Option<Conflict> = None;
        let mut wanted_req = None;
        let mut wanted_by = None;
        let mut in_previous = false;
        for line in text.lines() {
            let trimmed = line.trim();
            if let Some(rest) = trimmed
                .strip_prefix("error: ")
                .and_then(|r| r.strip_prefix("failed to select a version for "))
            {
                if conflict.is_some() {
                    break;
                }
                let quoted = rest.trim_start_matches("the requirement ");
                let inner = quoted.strip_prefix('`')?;
                let inner = &inner[..inner.find('`')?];
                // `libc` or `libc = "^0.2.155"`.
                let (package, req) = match inner.split_once(" = ") {
                    Some((name, req)) => (name, Some(req.trim_matches('"').to_string())),
                    None => (inner, None),
                };
                wanted_req = req;
                conflict = Some(Conflict {
                    package: package.to_string(),
                    wanted: None,
                    selected: None,
                    holder: None,
                    locked: false,
                });
                continue;
            }
            let Some(c) = conflict.as_mut() else {
                continue;
            };
            if wanted_by.is_none() {
                if let Some(by) = after(trimmed, "required by package") {
                    wanted_by = Some(by);
                    continue;
                }
            }
            if let Some(rest) = trimmed.strip_prefix("versions that meet the requirements `") {
                wanted_req.get_or_insert_with(|| rest[..rest.find('`').unwrap_or(0)].to_string());
            } else if let Some(selected) = after(trimmed, "previously selected package") {
                if c.selected.is_none() {
                    // `libc v0.2.100`.
                    c.selected = selected.rsplit_once(" v").map(|(_, v)| v.to_string());
                    in_previous = true;
                }
            } else if in_previous && c.holder.is_none() {
                // `... which satisfies dependency `libc = "^0.2"` (locked to
                // 0.2.100) of package `oldlock v0.1.0 (/w)``.
                if let Some(dep) = after(trimmed, "which satisfies dependency") {
                    let req = dep
                        .split_once(" = ")
                        .map_or(dep.as_str(), |(_, r)| r)
                        .trim_matches('"')
                        .to_string();
                    let by = trimmed
                        .split_once(" of package `")
                        .and_then(|(_, r)| r.split('`').next())
                        .unwrap_or("?")
                        .to_string();
                    c.locked = trimmed.contains("(locked to ");
                    c.holder = Some((req, by));
                }
            }
        }
        let mut conflict = conflict?;
        conflict.wanted = match (wanted_req, wanted_by) {
            (Some(req), Some(by)) => Some((req, short(&by))),
            (Some(req), None) => Some((req, "?".to_string())),
            _ => None,
        };
        Some(conflict)
    }

    /// The package to unlock next (`name@version`) so that cargo may
    /// resolve the conflict, unless `unlocked` has it already: the pinned
    /// package itself, or else the registry package whose requirement
    /// pins it. `None` when only a requirement of a path package (a
    /// workspace member) is in the way, which no lockfile can change.
    pub fn to_unlock(&self, unlocked: &[String]) -> Option<String> {
        let fresh = |spec: String| (!unlocked.contains(&spec)).then_some(spec);
        if self.locked {
            if let Some(spec) = self
                .selected
                .as_ref()
                .and_then(|v| fresh(format!("{}@{v}", self.package)))
            {
                return Some(spec);
            }
        }
        let (_, holder) = self.holder.as_ref()?;
        if holder.contains(" (") {
            return None;
        }
        let (name, version) = holder.rsplit_once(" v")?;
        fresh(format!("{name}@{version}"))
    }

    /// The conflict in a sentence: the package and both requirements.
    pub fn explain(&self) -> String {
        let wanted = match &self.wanted {
            Some((req, by)) => format!("`{req}` by {by}"),
            None => "a version cargo did not name".to_string(),
        };
        match &self.holder {
            Some((req, by)) => format!(
                "{pkg} is required as {wanted} (in sim-tokio's graph) and as `{req}` by {holder}: \
                 no version of {pkg} meets both, so cargo keeps crates.io's tokio. Loosen {holder}'s \
                 requirement on {pkg} to allow {want} (what sim-tokio's graph needs)",
                pkg = self.package,
                holder = short(by),
                want = self.wanted.as_ref().map_or("?", |(r, _)| r.as_str()),
            ),
            None => format!(
                "no version of {} meets {wanted}, so cargo keeps crates.io's tokio",
                self.package
            ),
        }
    }
}

/// `oldlock v0.1.0 (/w)` as `oldlock v0.1.0`.
fn short(package: &str) -> String {
    package
        .split_once(" (")
        .map_or(package, |(name, _)| name)
        .to_string()
}

/// The `version` of the package whose directory is `dir`, from its
/// `Cargo.toml`'s `[package]` table.
fn package_version(dir: &Path) -> Result<String, Error> {
    let manifest = dir.join("Cargo.toml");
    let text = read(&manifest)?;
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("version").map(str::trim_start) {
                if let Some(v) = value.strip_prefix('=') {
                    return Ok(v.trim().trim_matches('"').to_string());
                }
            }
        }
    }
    Err(Error::Failed(format!(
        "{} has no version in [package]: is it sim-tokio's?",
        manifest.display()
    )))
}

fn read(path: &Path) -> Result<String, Error> {
    fs::read_to_string(path)
        .map_err(|e| Error::Failed(format!("could not read {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cargo 1.95's words for a committed pin below sim-rt's requirement.
    const PINNED: &str = "    Updating crates.io index
error: failed to select a version for `libc`.
    ... required by package `sim-rt v0.1.0 (/work/main/sim-rt)`
    ... which satisfies path dependency `sim-rt` of package `tokio v1.99.0 (/work/main/sim-tokio)`
    ... which satisfies dependency `tokio = \"^1\"` of package `oldlock v0.1.0 (/tmp/exp/old)`
versions that meet the requirements `^0.2.155` are: 0.2.191, 0.2.190, 0.2.155

all possible versions conflict with previously selected packages.

  previously selected package `libc v0.2.100`
    ... which satisfies dependency `libc = \"^0.2\"` (locked to 0.2.100) of package `oldlock v0.1.0 (/tmp/exp/old)`

failed to select a version for `libc` which could resolve this conflict
";

    #[test]
    fn a_pin_is_unlocked() {
        let c = Conflict::parse(PINNED).unwrap();
        assert_eq!(
            c,
            Conflict {
                package: "libc".into(),
                wanted: Some(("^0.2.155".into(), "sim-rt v0.1.0".into())),
                selected: Some("0.2.100".into()),
                holder: Some(("^0.2".into(), "oldlock v0.1.0 (/tmp/exp/old)".into())),
                locked: true,
            }
        );
        assert_eq!(c.to_unlock(&[]), Some("libc@0.2.100".into()));
        // Unlocked already, and held by a workspace member: nothing to do.
        assert_eq!(c.to_unlock(&["libc@0.2.100".into()]), None);
    }

    #[test]
    fn a_requirement_is_named_with_both_sides() {
        let text = PINNED.replace(
            "`libc = \"^0.2\"` (locked to 0.2.100)",
            "`libc = \"=0.2.100\"`",
        );
        let c = Conflict::parse(&text).unwrap();
        assert!(!c.locked);
        assert_eq!(c.to_unlock(&[]), None);
        let e = c.explain();
        assert!(
            e.starts_with(
                "libc is required as `^0.2.155` by sim-rt v0.1.0 (in sim-tokio's graph) and as \
                 `=0.2.100` by oldlock v0.1.0: no version of libc meets both"
            ),
            "{e}"
        );
    }

    #[test]
    fn an_exact_requirement_of_a_locked_package_unlocks_that_package() {
        let text = PINNED.replace(
            "`libc = \"^0.2\"` (locked to 0.2.100) of package `oldlock v0.1.0 (/tmp/exp/old)`",
            "`libc = \"=0.2.100\"` of package `old-sys v0.3.1`",
        );
        let c = Conflict::parse(&text).unwrap();
        assert_eq!(c.holder, Some(("=0.2.100".into(), "old-sys v0.3.1".into())));
        assert_eq!(c.to_unlock(&[]), Some("old-sys@0.3.1".into()));
    }

    #[test]
    fn the_requirement_form_is_read_too() {
        let text = "error: failed to select a version for the requirement `libc = \"^0.2.155\"`
candidate versions found which didn't match: 0.2.100
location searched: crates.io index
required by package `sim-rt v0.1.0 (/work/main/sim-rt)`
";
        let c = Conflict::parse(text).unwrap();
        assert_eq!(c.package, "libc");
        assert_eq!(c.wanted, Some(("^0.2.155".into(), "sim-rt v0.1.0".into())));
        assert_eq!(c.holder, None);
        assert_eq!(c.to_unlock(&[]), None);
        assert!(c
            .explain()
            .contains("no version of libc meets `^0.2.155` by sim-rt"));
        assert_eq!(Conflict::parse("error: could not find `Cargo.toml`"), None);
    }

    #[test]
    fn sim_tokio_version_is_read_from_its_manifest() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim-tokio");
        assert_eq!(package_version(&dir).unwrap(), "1.99.0");
    }
}
