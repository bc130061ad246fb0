//! The command line of `cargo sim`: which cargo command runs, the
//! simulator's options (each becomes a `SIM_*` variable of the test
//! binaries), and what passes through to cargo and to the test binary.
//!
//! Cargo runs a subcommand as `cargo-sim sim <args>`; [`parse`] takes the
//! arguments after the program's name, with or without that `sim`.
//!
//! # Invariants
//!
//! - Everything after the first `--` belongs to the test binary (or the
//!   program, for `run`) and is kept untouched, in order.
//! - Before `--`, an argument that is not one of cargo-sim's own goes to
//!   cargo unchanged, in order; a value of one of cargo's options that take
//!   one (`-p foo`) is never read as an option of cargo-sim's.

use std::fmt;
use std::path::PathBuf;

/// Which cargo command runs the simulated build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subcommand {
    /// `cargo test`.
    Test,
    /// `cargo run`.
    Run,
    /// `cargo nextest run`.
    Nextest,
}

impl Subcommand {
    /// The words after `cargo` that run it.
    pub fn cargo_words(self) -> &'static [&'static str] {
        match self {
            Subcommand::Test => &["test"],
            Subcommand::Run => &["run"],
            Subcommand::Nextest => &["nextest", "run"],
        }
    }
}

/// What a command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// `cargo sim`, `cargo sim help`, `cargo sim --help`, or `--help`
    /// before `--` in a subcommand's arguments.
    Help,
    /// `cargo sim --version`.
    Version,
    /// A simulated build to run.
    Run(Invocation),
}

/// A `cargo sim test|run|nextest ...` command line, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The cargo command.
    pub subcommand: Subcommand,
    /// The simulator's options as the variables the simulator reads
    /// (`SIM_SEED`...), in the order given.
    pub sim_env: Vec<(&'static str, String)>,
    /// `--sim-tokio DIR`: where sim-tokio is.
    pub sim_tokio: Option<PathBuf>,
    /// Whether the dependencies build optimized in the dev profile (see
    /// [`crate::cargo::optimized_deps`]); `--no-optimize-deps` turns it off.
    pub optimize_deps: bool,
    /// `--target-dir DIR`, taken out of cargo's arguments: the simulated
    /// build goes to `DIR/sim`.
    pub target_dir: Option<PathBuf>,
    /// Cargo's arguments (before `--`), in order, without cargo-sim's own
    /// and without `--target-dir`.
    pub cargo_args: Vec<String>,
    /// The arguments after `--`, untouched; `None` when there is no `--`.
    pub trailing: Option<Vec<String>>,
}

/// A command line that makes no sense, in one line. `cargo sim` exits with
/// code 2 on it, as cargo does on a usage error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// One of the simulator's options: its flag, the variable it sets, and the
/// check of its value (which returns the value to set).
struct SimOption {
    flag: &'static str,
    var: &'static str,
    check: fn(flag: &str, raw: &str) -> Result<String, String>,
}

/// The simulator's options, each a `SIM_*` variable the simulator (sim-rt
/// and the explorer) already reads; the checks reject what the simulator
/// would reject, before a build of minutes.
const SIM_OPTIONS: [SimOption; 6] = [
    SimOption {
        flag: "--seed",
        var: "SIM_SEED",
        check: check_seed,
    },
    SimOption {
        flag: "--replay",
        var: "SIM_REPLAY",
        check: check_word,
    },
    SimOption {
        flag: "--explorer",
        var: "SIM_EXPLORER",
        check: check_word,
    },
    SimOption {
        flag: "--search",
        var: "SIM_SEARCH",
        check: check_search,
    },
    SimOption {
        flag: "--executions",
        var: "SIM_EXECUTIONS",
        check: check_count,
    },
    SimOption {
        flag: "--jobs",
        var: "SIM_JOBS",
        check: check_count,
    },
];

/// Cargo's options that take a value as the next argument, for `cargo
/// test`, `cargo run` and `cargo nextest run` (nextest's own among them):
/// their values are passed on and never read as anything else. `--jobs` is
/// not here: in `cargo sim` it is the simulator's (cargo's build jobs are
/// `-j`).
const CARGO_WITH_VALUE: &[&str] = &[
    "-p",
    "--package",
    "--exclude",
    "-j",
    "-F",
    "--features",
    "--bin",
    "--example",
    "--test",
    "--bench",
    "--profile",
    "--target",
    "--target-dir",
    "--manifest-path",
    "--lockfile-path",
    "--message-format",
    "--color",
    "--config",
    "-Z",
    "--artifact-dir",
    // cargo nextest run
    "--cargo-profile",
    "-E",
    "--filterset",
    "--filter-expr",
    "--partition",
    "--test-threads",
    "--retries",
    "--run-ignored",
    "--no-tests",
    "--status-level",
    "--final-status-level",
    "--failure-output",
    "--success-output",
    "--max-fail",
    "--archive-file",
    "--workspace-remap",
    "--tool-config-file",
    "--config-file",
    "--show-progress",
];

/// libtest's options that take a value as the next argument.
const LIBTEST_WITH_VALUE: &[&str] = &[
    "--test-threads",
    "--logfile",
    "--skip",
    "--format",
    "--color",
    "-Z",
    "--shuffle-seed",
];

/// Parses `cargo sim`'s arguments (without the program's name; a leading
/// `sim`, as cargo passes it, is skipped).
pub fn parse<I, S>(args: I) -> Result<Parsed, UsageError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut args: Vec<String> = args.into_iter().map(Into::into).collect();
    if args.first().is_some_and(|a| a == "sim") {
        args.remove(0);
    }
    let mut args = args.into_iter();
    let subcommand = match args.next().as_deref() {
        None | Some("help" | "--help" | "-h") => return Ok(Parsed::Help),
        Some("--version" | "-V") => return Ok(Parsed::Version),
        Some("test") => Subcommand::Test,
        Some("run") => Subcommand::Run,
        Some("nextest") => Subcommand::Nextest,
        Some(other) => {
            return Err(UsageError(format!(
                "unknown subcommand {other:?}: cargo sim runs test, run or nextest \
                 (see cargo sim --help)"
            )))
        }
    };
    let mut args = args.peekable();
    // `cargo sim nextest run ...` reads as `cargo nextest run ...` does.
    if subcommand == Subcommand::Nextest && args.peek().is_some_and(|a| a == "run") {
        args.next();
    }
    let mut invocation = Invocation {
        subcommand,
        sim_env: Vec::new(),
        sim_tokio: None,
        optimize_deps: true,
        target_dir: None,
        cargo_args: Vec::new(),
        trailing: None,
    };
    while let Some(arg) = args.next() {
        if arg == "--" {
            invocation.trailing = Some(args.by_ref().collect());
            break;
        }
        if arg == "--help" || arg == "-h" {
            return Ok(Parsed::Help);
        }
        let (flag, attached) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (arg.as_str(), None),
        };
        let value = |args: &mut dyn Iterator<Item = String>, example: &str| {
            attached
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| UsageError(format!("{flag} needs a value, e.g. {flag} {example}")))
        };
        if let Some(option) = SIM_OPTIONS.iter().find(|o| o.flag == flag) {
            let raw = value(&mut args, example(option.flag))?;
            let checked = (option.check)(option.flag, &raw).map_err(UsageError)?;
            if invocation.sim_env.iter().any(|(var, _)| *var == option.var) {
                return Err(UsageError(format!("{flag} is given twice")));
            }
            invocation.sim_env.push((option.var, checked));
        } else if flag == "--sim-tokio" {
            let dir = value(&mut args, "../sim-rt/sim-tokio")?;
            invocation.sim_tokio = Some(PathBuf::from(non_empty(flag, &dir)?));
        } else if flag == "--no-optimize-deps" {
            if attached.is_some() {
                return Err(UsageError(format!("{flag} takes no value")));
            }
            invocation.optimize_deps = false;
        } else if flag == "--target-dir" {
            let dir = value(&mut args, "target")?;
            invocation.target_dir = Some(PathBuf::from(non_empty(flag, &dir)?));
        } else if attached.is_none() && CARGO_WITH_VALUE.contains(&flag) {
            invocation.cargo_args.push(arg.clone());
            if let Some(v) = args.next() {
                invocation.cargo_args.push(v);
            }
        } else {
            invocation.cargo_args.push(arg);
        }
    }
    Ok(Parsed::Run(invocation))
}

/// An example value for a flag's error message.
fn example(flag: &str) -> &'static str {
    match flag {
        "--seed" => "42",
        "--replay" => "last",
        "--explorer" => "pct:3",
        "--search" => "ss",
        "--executions" => "10000",
        _ => "4",
    }
}

fn non_empty(flag: &str, raw: &str) -> Result<String, UsageError> {
    if raw.trim().is_empty() {
        Err(UsageError(format!(
            "{flag} needs a value, not an empty one"
        )))
    } else {
        Ok(raw.to_string())
    }
}

/// A seed as the simulator reads `SIM_SEED`: an unsigned 64-bit integer in
/// decimal or `0x` hex.
fn check_seed(flag: &str, raw: &str) -> Result<String, String> {
    let s = raw.trim();
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse::<u64>().ok(),
    };
    match parsed {
        Some(_) => Ok(s.to_string()),
        None => Err(format!(
            "{flag} {raw:?} is not a seed: give an unsigned 64-bit integer, in decimal \
             ({flag} 42) or hex ({flag} 0x2a)"
        )),
    }
}

/// A count like `20000` or `20_000`, at least 1.
fn check_count(flag: &str, raw: &str) -> Result<String, String> {
    match raw.trim().replace('_', "").parse::<u64>() {
        Ok(0) => Err(format!("{flag} 0: the number must be at least 1")),
        Ok(n) => Ok(n.to_string()),
        Err(_) => Err(format!(
            "{flag} {raw:?} is not a number: give a positive integer, e.g. {flag} {}",
            example(flag)
        )),
    }
}

/// One of the searches the explorer knows.
fn check_search(flag: &str, raw: &str) -> Result<String, String> {
    let s = raw.trim().to_ascii_lowercase();
    // The names SIM_SEARCH takes (the explorer's `SearchKind::from_env`,
    // which this crate cannot depend on: it would build the simulator).
    if ["ses", "ss", "walk", "swarm", "adaptive"].contains(&s.as_str()) {
        Ok(s)
    } else {
        Err(format!(
            "{flag} {raw:?} is not a search: use ses (stratified exhaustive search), ss \
             (stratified sampling), walk (random walks), swarm (walks with fault rates drawn \
             per execution) or adaptive (the default portfolio with more walks and mutations)"
        ))
    }
}

/// A non-blank word: an explorer (a built-in or a test's own, which only
/// the test knows) or a replay token (or `last`), which the explorer
/// checks.
fn check_word(flag: &str, raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if s.is_empty() {
        Err(format!("{flag} needs a value, not an empty one"))
    } else {
        Ok(s.to_string())
    }
}

/// What a `cargo test` command line filters the tests by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// Names a test must contain (or equal, with `--exact`): cargo's
    /// `TESTNAME` and libtest's own filters after `--`.
    pub names: Vec<String>,
    /// libtest's `--skip` patterns.
    pub skips: Vec<String>,
    /// libtest's `--ignored`: only ignored tests run.
    pub ignored_only: bool,
}

impl Filters {
    /// Whether the command line narrows the tests at all.
    pub fn any(&self) -> bool {
        !self.names.is_empty() || !self.skips.is_empty() || self.ignored_only
    }
}

impl fmt::Display for Filters {
    /// `the filter "a"`, `the filters "a", "b" with --skip "c"`...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quoted = |v: &[String]| {
            v.iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        match self.names.len() {
            0 => {}
            1 => parts.push(format!("the filter {}", quoted(&self.names))),
            _ => parts.push(format!("the filters {}", quoted(&self.names))),
        }
        if !self.skips.is_empty() {
            parts.push(format!("--skip {}", quoted(&self.skips)));
        }
        if self.ignored_only {
            parts.push("--ignored".to_string());
        }
        f.write_str(&parts.join(" with "))
    }
}

impl Invocation {
    /// The test filters of a `cargo sim test` command line.
    pub fn filters(&self) -> Filters {
        let mut filters = Filters::default();
        let mut args = self.cargo_args.iter();
        while let Some(arg) = args.next() {
            if CARGO_WITH_VALUE.contains(&arg.as_str()) {
                args.next();
            } else if !arg.starts_with('-') {
                filters.names.push(arg.clone());
            }
        }
        let mut args = self.trailing.iter().flatten();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--skip" => filters.skips.extend(args.next().cloned()),
                "--ignored" => filters.ignored_only = true,
                a if LIBTEST_WITH_VALUE.contains(&a) => {
                    args.next();
                }
                a if a.starts_with("--skip=") => filters.skips.push(a["--skip=".len()..].into()),
                a if !a.starts_with('-') => filters.names.push(a.to_string()),
                _ => {}
            }
        }
        filters
    }

    /// Whether cargo's arguments ask for verbose output (`-v`, `-vv`,
    /// `--verbose`): cargo-sim then shows the output of the cargo commands
    /// it runs for itself (the lockfile's seeding) as well.
    pub fn verbose(&self) -> bool {
        self.cargo_args.iter().any(|a| {
            a == "--verbose"
                || (a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b == b'v'))
        })
    }

    /// Whether the command runs tests whose count can be read from
    /// libtest's output: `cargo sim test` without `--no-run`, and without
    /// `--list` for the test binary.
    pub fn expects_tests(&self) -> bool {
        self.subcommand == Subcommand::Test
            && !self.cargo_args.iter().any(|a| a == "--no-run")
            && !self.trailing.iter().flatten().any(|a| a == "--list")
    }

    /// The shell command that selects the same simulated build, for the
    /// simulator's reproduce lines (`CARGO_SIM_COMMAND`): the user's
    /// `RUSTFLAGS` if set, `cargo sim test` (or `run`), `--sim-tokio` and
    /// `--no-optimize-deps` if given, and cargo's arguments that choose what is built
    /// (`--release`/`-r`, `--profile`, `--features`/`-F`,
    /// `--all-features`, `--no-default-features`, `--target`,
    /// `--manifest-path`, `--config`), in their order. Not `-p`, `--test`,
    /// filters or the simulator's options: the reproduce line adds its own.
    ///
    /// A nextest run is reproduced with `cargo sim test`, nextest's
    /// `--cargo-profile` becoming cargo's `--profile` (nextest's own
    /// `--profile` is not a build profile).
    pub fn reproduce_prefix(&self, rustflags: Option<&str>) -> String {
        let mut words = Vec::new();
        if let Some(flags) = rustflags.filter(|f| !f.trim().is_empty()) {
            words.push(format!("RUSTFLAGS={}", sim_shell::quote(flags)));
        }
        words.push("cargo".to_string());
        words.push("sim".to_string());
        words.push(
            match self.subcommand {
                Subcommand::Run => "run",
                Subcommand::Test | Subcommand::Nextest => "test",
            }
            .to_string(),
        );
        if let Some(dir) = &self.sim_tokio {
            words.push("--sim-tokio".to_string());
            words.push(sim_shell::quote(&dir.to_string_lossy()));
        }
        if !self.optimize_deps {
            words.push("--no-optimize-deps".to_string());
        }
        let nextest = self.subcommand == Subcommand::Nextest;
        let profile = if nextest {
            "--cargo-profile"
        } else {
            "--profile"
        };
        let alone = ["--release", "-r", "--all-features", "--no-default-features"];
        let with_value = [
            profile,
            "--features",
            "-F",
            "--target",
            "--manifest-path",
            "--config",
        ];
        // Cargo's name for the flag (nextest's --cargo-profile is --profile).
        let rename = |flag: &str| {
            if flag == "--cargo-profile" {
                "--profile".to_string()
            } else {
                flag.to_string()
            }
        };
        let mut args = self.cargo_args.iter();
        while let Some(arg) = args.next() {
            if alone.contains(&arg.as_str()) {
                words.push(arg.clone());
            } else if with_value.contains(&arg.as_str()) {
                if let Some(value) = args.next() {
                    words.push(rename(arg));
                    words.push(sim_shell::quote(value));
                }
            } else if let Some((flag, value)) = arg.split_once('=') {
                if flag.starts_with("--") && with_value.contains(&flag) {
                    words.push(sim_shell::quote(&format!("{}={value}", rename(flag))));
                }
            } else if let Some(features) = arg.strip_prefix("-F").filter(|f| !f.is_empty()) {
                words.push(sim_shell::quote(&format!("-F{features}")));
            } else if CARGO_WITH_VALUE.contains(&arg.as_str()) {
                args.next();
            }
        }
        words.join(" ")
    }
}
