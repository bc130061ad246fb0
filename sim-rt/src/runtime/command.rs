//! The line that reproduces a run: the cargo command that re-runs the
//! current test or binary alone, with the same build, and the seed as
//! `SIM_SEED` gives it. Pure (the process's arguments, environment and
//! executable name); [`crate::sim`] re-exports the public part.

/// The cargo command that re-runs the current test alone, for reproduction
/// lines: `cargo test -p <package> --test <target> <test name> -- --exact`.
///
/// The test name is the running thread's (libtest names each test's thread
/// after the test), the package comes from `CARGO_PKG_NAME` (set by cargo when
/// it runs a test), and the target from the test executable's name. Parts
/// that cannot be known are left out; outside a test (a binary), it is
/// `cargo run`.
///
/// The line also selects the same build: it starts with the `RUSTFLAGS` the
/// test was run with (`RUSTFLAGS='--cfg sim' cargo test ...` for a crate
/// that swaps tokio for sim_rt under `cfg(sim)`: without it, a pasted line
/// would rebuild on real tokio and ignore `SIM_REPLAY`), and carries the
/// arguments of the cargo command that started the test which choose what
/// is built (`--config .cargo/sim.toml` for the whole-graph mode,
/// `--release`, `--profile`, features, `--target`, `--manifest-path`; read
/// from the parent process on Linux). Under `cargo sim`, which runs cargo
/// with configuration of its own, the line starts with the command it
/// exports as `CARGO_SIM_COMMAND` instead (`cargo sim test --release`).
pub fn cargo_test_command() -> String {
    cargo_test_command_for(std::thread::current().name())
}

/// [`cargo_test_command`] for the test whose thread is named `thread` (for
/// a line made on another thread than the test's).
pub(crate) fn cargo_test_command_for(thread: Option<&str>) -> String {
    let Some(test) = thread.filter(|n| *n != "main").map(str::to_string) else {
        return cargo_run_command();
    };
    let mut cmd = build_selection("test");
    if let Ok(pkg) = std::env::var("CARGO_PKG_NAME") {
        cmd.push_str(&format!(" -p {pkg}"));
        let target = std::env::current_exe().ok().and_then(|exe| {
            let stem = exe.file_stem()?.to_str()?.to_string();
            // `<target>-<16 hex digits>` as cargo names test executables.
            let (name, hash) = stem.rsplit_once('-')?;
            (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| name.to_string())
        });
        match target {
            Some(t) if t != pkg.replace('-', "_") => cmd.push_str(&format!(" --test {t}")),
            _ => {}
        }
    }
    cmd.push_str(&format!(" {test} -- --exact"));
    cmd
}

/// A seed as `SIM_SEED` gives it: decimal or `0x` hex, surrounding spaces
/// ignored. For harnesses that read `SIM_SEED` themselves (the explorer),
/// so that a seed means the same everywhere.
///
/// ```
/// assert_eq!(sim_rt::sim::parse_seed("42"), Some(42));
/// assert_eq!(sim_rt::sim::parse_seed(" 0x2a"), Some(42));
/// assert_eq!(sim_rt::sim::parse_seed("-1"), None);
/// ```
pub fn parse_seed(raw: &str) -> Option<u64> {
    let s = raw.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `cargo run [--release] -p <package> [--example <name> | --bin <name>]
/// [-- <args>]` for the running executable, as far as it can be told.
fn cargo_run_command() -> String {
    let exe = std::env::current_exe().ok();
    let package = std::env::var("CARGO_PKG_NAME").ok();
    let args: Vec<String> = std::env::args().skip(1).collect();
    run_command(
        build_selection("run"),
        exe.as_deref(),
        package.as_deref(),
        &args,
    )
}

/// [`cargo_run_command`] for an executable at `exe`, of `package`, run with
/// `args`: the arguments are part of what reproduces a run.
///
/// `cmd` is what [`build_selection`] made of the build (`cargo run` and the
/// arguments that select it).
fn run_command(
    mut cmd: String,
    exe: Option<&std::path::Path>,
    package: Option<&str>,
    args: &[String],
) -> String {
    let in_dir = |name: &str| {
        exe.is_some_and(|e| {
            e.ancestors()
                .any(|a| a.file_name().is_some_and(|f| f == name))
        })
    };
    let profile_given = cmd
        .split(' ')
        .any(|w| ["--release", "-r", "--profile"].contains(&w));
    if in_dir("release") && !profile_given {
        cmd.push_str(" --release");
    }
    if let Some(pkg) = package {
        cmd.push_str(&format!(" -p {pkg}"));
    }
    if let Some(stem) = exe.and_then(|e| e.file_stem()?.to_str()) {
        let parent_is_examples = exe
            .and_then(|e| e.parent()?.file_name())
            .is_some_and(|f| f == "examples");
        if parent_is_examples {
            cmd.push_str(&format!(" --example {stem}"));
        } else {
            cmd.push_str(&format!(" --bin {stem}"));
        }
    }
    if !args.is_empty() {
        cmd.push_str(" --");
        for arg in args {
            cmd.push(' ');
            cmd.push_str(&sim_shell::quote(arg));
        }
    }
    cmd
}

/// `[RUSTFLAGS=...] cargo <subcommand> [<build-selecting args>]` for the
/// build this process is: see [`cargo_test_command`]. `--release` is among
/// the parent's arguments when it was given, so [`run_command`]'s own guess
/// from the executable's directory is then not repeated.
///
/// Under `cargo sim`, its own command (which it passes in
/// `CARGO_SIM_COMMAND`). A process built with `--cfg sim` and started by
/// something else than cargo (a test binary run directly) cannot tell
/// how it was built from its environment, so the line says it from what
/// was known at compile time: `cargo sim <subcommand>` in a whole-graph
/// build (sim-tokio in the graph), else `RUSTFLAGS='--cfg sim' cargo
/// <subcommand>` (the one-line swap).
fn build_selection(subcommand: &str) -> String {
    if let Some(cmd) = cargo_sim_command(std::env::var("CARGO_SIM_COMMAND").ok()) {
        return cmd;
    }
    let parent = parent_cargo_args();
    let flags = std::env::var("RUSTFLAGS")
        .ok()
        .filter(|f| !f.trim().is_empty());
    let by_cargo = parent.is_some() || std::env::var_os("CARGO").is_some();
    let mut cmd = String::new();
    match flags {
        Some(flags) => cmd.push_str(&format!("RUSTFLAGS={} ", sim_shell::quote(&flags))),
        None if cfg!(sim) && !by_cargo => {
            if cfg!(feature = "whole-graph") {
                return format!("cargo sim {subcommand}");
            }
            cmd.push_str("RUSTFLAGS='--cfg sim' ");
        }
        // Built as cargo's configuration says (a config file, or none).
        None => {}
    }
    cmd.push_str("cargo ");
    cmd.push_str(subcommand);
    for arg in selecting_args(&parent.unwrap_or_default()) {
        cmd.push(' ');
        cmd.push_str(&sim_shell::quote(&arg));
    }
    cmd
}

/// `CARGO_SIM_COMMAND`'s value, when set and not blank: the shell-quoted
/// `cargo sim test|run <build-selecting args>` that `cargo sim` exports,
/// which selects its build (the patch, `--cfg sim`, its own target
/// directory and lockfile) where the parent cargo's arguments would not.
fn cargo_sim_command(var: Option<String>) -> Option<String> {
    var.map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// The arguments of the parent process when it is cargo (Linux only: read
/// from `/proc`), without the program name; `None` when the parent is not
/// cargo (or cannot be told).
fn parent_cargo_args() -> Option<Vec<String>> {
    #[cfg(target_os = "linux")]
    {
        let ppid = std::os::unix::process::parent_id();
        let raw = std::fs::read(format!("/proc/{ppid}/cmdline")).ok()?;
        let mut args = raw
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned());
        let is_cargo = args.next().is_some_and(|program| {
            std::path::Path::new(&program)
                .file_name()
                .is_some_and(|f| f == "cargo")
        });
        if is_cargo {
            return Some(args.filter(|a| !a.is_empty()).collect());
        }
    }
    None
}

/// From a cargo command line (without the program), the arguments that
/// choose what is built, in their order, each flag with its value:
/// `--config`, `--release`/`-r`, `--profile`, `--features`/`-F`,
/// `--all-features`, `--no-default-features`, `--target`,
/// `--manifest-path`. Everything after `--` belongs to the test binary.
fn selecting_args(args: &[String]) -> Vec<String> {
    const WITH_VALUE: [&str; 6] = [
        "--config",
        "--profile",
        "--features",
        "-F",
        "--target",
        "--manifest-path",
    ];
    const ALONE: [&str; 4] = ["--release", "-r", "--all-features", "--no-default-features"];
    let mut kept = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if ALONE.contains(&arg.as_str()) {
            kept.push(arg.clone());
        } else if WITH_VALUE.contains(&arg.as_str()) {
            if let Some(value) = args.next() {
                kept.push(arg.clone());
                kept.push(value.clone());
            }
        } else if WITH_VALUE
            .iter()
            .any(|flag| flag.starts_with("--") && arg.starts_with(&format!("{flag}=")))
        {
            kept.push(arg.clone());
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn run() -> String {
        "cargo run".into()
    }

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn the_build_is_selected_by_the_same_cargo_arguments() {
        let parent = strings(&[
            "test",
            "--config",
            ".cargo/sim.toml",
            "-p",
            "shop",
            "--release",
            "--features=x",
            "-F",
            "y",
            "--manifest-path",
            "a/Cargo.toml",
            "--workspace",
            "--",
            "--config",
            "not-cargo's",
        ]);
        assert_eq!(
            selecting_args(&parent),
            strings(&[
                "--config",
                ".cargo/sim.toml",
                "--release",
                "--features=x",
                "-F",
                "y",
                "--manifest-path",
                "a/Cargo.toml",
            ])
        );
        assert!(selecting_args(&strings(&["test", "--config"])).is_empty());
        let release = Path::new("/w/target/release/explore");
        assert_eq!(
            run_command("cargo run --release".into(), Some(release), None, &[]),
            "cargo run --release --bin explore"
        );
    }

    #[test]
    fn cargo_sim_selects_the_build_with_its_own_command() {
        assert_eq!(cargo_sim_command(None), None);
        assert_eq!(cargo_sim_command(Some(" ".into())), None);
        let prefix = cargo_sim_command(Some("cargo sim run --release -F f\n".into()));
        assert_eq!(prefix.as_deref(), Some("cargo sim run --release -F f"));
        let release = Path::new("/w/target/sim/release/explore");
        assert_eq!(
            run_command(prefix.unwrap(), Some(release), Some("app"), &[]),
            "cargo sim run --release -F f -p app --bin explore"
        );
    }

    #[test]
    fn the_run_command_names_the_binary_and_repeats_its_arguments() {
        let exe = Path::new("/w/target/release/explore");
        assert_eq!(
            run_command(run(), Some(exe), Some("examples"), &["2pc".into()]),
            "cargo run --release -p examples --bin explore -- 2pc"
        );
        let exe = Path::new("/w/target/debug/examples/demo");
        assert_eq!(
            run_command(run(), Some(exe), Some("explorer"), &[]),
            "cargo run -p explorer --example demo"
        );
        let odd = ["a b".to_string(), "it's".to_string(), String::new()];
        assert_eq!(
            run_command(run(), None, None, &odd),
            r#"cargo run -- 'a b' 'it'\''s' ''"#
        );
    }
}
