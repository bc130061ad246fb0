//! Running one test alone: `<binary> --exact <name>` in a process group of
//! its own, killed (the whole group) when it outlives its time limit; and
//! listing a binary's tests (`--list --format terse`).

use std::fs::{self, File};
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How one test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It passed.
    Pass,
    /// It failed (libtest's exit status 101), with the first line of its
    /// panic message when one was printed.
    Fail(String),
    /// It was still running at its time limit, and was killed.
    Hang,
    /// It died otherwise (a signal, an abort, another exit status).
    Crash(String),
    /// Its file did not compile in this build.
    NotBuilt,
}

impl Outcome {
    /// Whether this is a pass.
    pub fn passed(&self) -> bool {
        *self == Outcome::Pass
    }

    /// A short label for tables.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail(_) => "fail",
            Outcome::Hang => "hang",
            Outcome::Crash(_) => "crash",
            Outcome::NotBuilt => "does not compile",
        }
    }

    /// The label with its detail, for the list of differences.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Fail(m) | Outcome::Crash(m) if !m.is_empty() => {
                format!("{}: {}", self.label(), m)
            }
            _ => self.label().to_owned(),
        }
    }
}

/// The tests of a binary, from `--list --format terse` output: the names
/// of the lines that end in `: test`.
pub fn parse_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect()
}

/// Lists a binary's tests; `ignored` lists only the `#[ignore]`d ones.
pub fn list(binary: &Path, cwd: &Path, ignored: bool) -> io::Result<Vec<String>> {
    let mut cmd = Command::new(binary);
    cmd.args(["--list", "--format", "terse"]).current_dir(cwd);
    if ignored {
        cmd.arg("--ignored");
    }
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "{} --list failed: {}",
            binary.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(parse_list(&String::from_utf8_lossy(&out.stdout)))
}

/// Classifies a finished test process from its exit status and output.
pub fn classify(status: ExitStatus, output: &str) -> Outcome {
    if let Some(signal) = status.signal() {
        return Outcome::Crash(format!("signal {signal}{}", panic_suffix(output)));
    }
    match status.code() {
        // Exactly the one test ran and passed (a filter that matched
        // nothing also exits 0).
        Some(0) if output.contains("test result: ok. 1 passed") => Outcome::Pass,
        Some(0) => Outcome::Crash("exit 0 without the test's pass".to_owned()),
        Some(101) => Outcome::Fail(panic_message(output).unwrap_or_default()),
        Some(code) => Outcome::Crash(format!("exit {code}{}", panic_suffix(output))),
        None => Outcome::Crash("no exit status".to_owned()),
    }
}

fn panic_suffix(output: &str) -> String {
    panic_message(output)
        .map(|m| format!(": {m}"))
        .unwrap_or_default()
}

/// The first panic message in a test's output: the line after
/// `panicked at <location>:` (or, for a `should_panic` test that did not
/// panic, libtest's note), cut to 200 characters.
pub fn panic_message(output: &str) -> Option<String> {
    let mut lines = output.lines();
    while let Some(line) = lines.next() {
        if line.contains("panicked at ") {
            let rest = line.split_once("panicked at ").map(|(_, r)| r)?;
            let message = if rest.trim_end().ends_with(':') {
                lines.next().unwrap_or("").to_owned()
            } else {
                rest.to_owned()
            };
            return Some(cut(message.trim(), 200));
        }
        if line.contains("note: test did not panic as expected") {
            return Some("did not panic as expected".to_owned());
        }
    }
    // The simulator's own reports, which end a test without the panic
    // hook (`fail_quietly`): a failed simulation, and the poll watchdog.
    if let Some(report) = output.lines().find(|l| {
        [
            "simulation failed: ",
            "sim_rt: the simulation",
            "sim_rt: the thread",
        ]
        .iter()
        .any(|p| l.starts_with(p))
    }) {
        return Some(cut(report.trim(), 200));
    }
    // A test that returned `Err`: libtest prints `Error: {err:?}`.
    output
        .lines()
        .find_map(|l| l.strip_prefix("Error: "))
        .map(|e| cut(e.trim(), 200))
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

/// Runs `name` of `binary` alone, its output to `log`, within `limit`, in
/// `cwd` as the root of the package named `package` (as `cargo test` runs
/// a package's tests: in its directory, with `CARGO_MANIFEST_DIR` and
/// `CARGO_PKG_NAME` set).
pub fn run_one(
    binary: &Path,
    name: &str,
    (cwd, package): (&Path, &str),
    log: &Path,
    limit: Duration,
) -> io::Result<Outcome> {
    if let Some(dir) = log.parent() {
        fs::create_dir_all(dir)?;
    }
    let out = File::create(log)?;
    let mut cmd = Command::new(binary);
    // As `cargo test` runs it in its package: not with the `CARGO_*`
    // variables `cargo run -p conformance` gave the harness (the
    // simulator's reproduce lines name the package from them).
    for (var, _) in std::env::vars_os() {
        if var.to_string_lossy().starts_with("CARGO_") {
            cmd.env_remove(var);
        }
    }
    cmd.env("CARGO_MANIFEST_DIR", cwd)
        .env("CARGO_PKG_NAME", package);
    let mut child = cmd
        .args([name, "--exact", "--test-threads", "1"])
        .current_dir(cwd)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .process_group(0)
        .spawn()?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() >= limit {
            break None;
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    match status {
        Some(status) => {
            // The test's own children (a spawned process) go with it.
            kill_group(child.id());
            let output = fs::read_to_string(log).unwrap_or_default();
            Ok(classify(status, &output))
        }
        None => {
            kill_group(child.id());
            child.wait()?;
            Ok(Outcome::Hang)
        }
    }
}

/// SIGKILL to the process group `pgid` (the test and whatever it started).
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulators_own_reports_are_messages_too() {
        let watchdog = "running 1 test\n\nsim_rt: the simulation of t has been inside one poll \
                        for 10.0s of real time, and nothing simulated moves until it returns:\n  \
                        in task 1";
        assert!(panic_message(watchdog)
            .unwrap()
            .starts_with("sim_rt: the simulation of t has been inside one poll"));
        let waited = "sim_rt: the thread of t has been blocked in a real wait";
        assert_eq!(panic_message(waited).as_deref(), Some(waited));
        let failed = "simulation failed: deadlock: no task can run\n  at simulated time 0ns";
        assert_eq!(
            panic_message(failed).as_deref(),
            Some("simulation failed: deadlock: no task can run")
        );
    }

    #[test]
    fn list_keeps_tests_only() {
        let out =
            "send_recv: test\nnested::case: test\nbench_x: benchmark\n\n2 tests, 1 benchmark\n";
        assert_eq!(parse_list(out), ["send_recv", "nested::case"]);
    }

    #[test]
    fn classification_by_status_and_output() {
        let code = |c: i32| ExitStatus::from_raw(c << 8);
        let ok = "running 1 test\ntest a ... ok\n\ntest result: ok. 1 passed; 0 failed;";
        assert_eq!(classify(code(0), ok), Outcome::Pass);
        let none = "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored";
        assert!(matches!(classify(code(0), none), Outcome::Crash(_)));
        let failed =
            "thread 'a' (7) panicked at tests/x.rs:3:5:\nassertion failed: x\nnote: run with";
        assert_eq!(
            classify(code(101), failed),
            Outcome::Fail("assertion failed: x".to_owned())
        );
        assert_eq!(
            classify(ExitStatus::from_raw(6), failed),
            Outcome::Crash("signal 6: assertion failed: x".to_owned())
        );
        assert_eq!(classify(code(3), ""), Outcome::Crash("exit 3".to_owned()));
    }

    #[test]
    fn panic_messages_in_both_formats() {
        assert_eq!(
            panic_message("thread 'main' panicked at 'boom', src/x.rs:1:1").as_deref(),
            Some("'boom', src/x.rs:1:1")
        );
        assert_eq!(
            panic_message("note: test did not panic as expected at x.rs").as_deref(),
            Some("did not panic as expected")
        );
        assert_eq!(panic_message("nothing"), None);
        assert_eq!(
            panic_message("---- t stdout ----\nError: Custom { kind: Unsupported }\n").as_deref(),
            Some("Custom { kind: Unsupported }")
        );
        assert_eq!(cut("abcdef", 3), "abc…");
    }

    #[test]
    fn a_hang_is_killed_at_its_limit_with_its_children() {
        let dir = std::env::temp_dir().join(format!("conformance-run-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        // A "test binary" that ignores its arguments and sleeps in a child.
        let script = dir.join("hang.sh");
        fs::write(&script, "#!/bin/sh\nsleep 30 &\nwait\n").unwrap();
        let mut perms = fs::metadata(&script).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        fs::set_permissions(&script, perms).unwrap();
        let start = Instant::now();
        let outcome = run_one(
            &script,
            "t",
            (&dir, "p"),
            &dir.join("log"),
            Duration::from_millis(300),
        )
        .unwrap();
        assert_eq!(outcome, Outcome::Hang);
        assert!(start.elapsed() < Duration::from_secs(5));
        let pass = dir.join("pass.sh");
        fs::write(
            &pass,
            "#!/bin/sh\n[ \"$CARGO_PKG_NAME\" = p ] && echo 'test result: ok. 1 passed; 0 failed'\n",
        )
        .unwrap();
        fs::set_permissions(&pass, fs::metadata(&script).unwrap().permissions()).unwrap();
        let outcome = run_one(
            &pass,
            "t",
            (&dir, "p"),
            &dir.join("log2"),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(outcome, Outcome::Pass);
        fs::remove_dir_all(&dir).unwrap();
    }
}
