//! Comparing the two builds' outcomes with the list of known differences,
//! and the table (`RESULTS.md`) and totals that say how it went.
//!
//! Only tests that pass on real tokio count: the headline is "tests that
//! pass on the simulator, of those that pass on real tokio".

use std::fmt::Write as _;

use crate::known::{Category, Known};
use crate::run::Outcome;

/// One test's outcomes.
#[derive(Debug, Clone)]
pub struct TestResult {
    /// Its name, as libtest lists it.
    pub name: String,
    /// On real tokio.
    pub real: Outcome,
    /// Under the simulator.
    pub sim: Outcome,
}

/// One test file's outcomes.
#[derive(Debug, Clone, Default)]
pub struct FileResult {
    /// Its stem (`sync_mpsc`).
    pub file: String,
    /// The first error when it did not compile against real tokio.
    pub real_error: Option<String>,
    /// The first error when it did not compile under the simulator.
    pub sim_error: Option<String>,
    /// Its `#[ignore]`d tests (not run).
    pub ignored: usize,
    /// Its other tests, in listing order.
    pub tests: Vec<TestResult>,
}

/// What the comparison makes of one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It fails on real tokio too (here): not counted.
    RealFails,
    /// It passes on both.
    Passes,
    /// It passes on both, but the list says it should not: the entry is stale.
    PassesListed,
    /// It does not pass on the simulator, and the list says why.
    Listed(Category),
    /// It does not pass on the simulator, and the list does not name it: a
    /// regression (`--check` fails on it).
    Unlisted,
}

/// The verdict on `test` of `file`.
pub fn verdict(known: &Known, file: &str, test: &TestResult) -> Verdict {
    if !test.real.passed() {
        return Verdict::RealFails;
    }
    match (test.sim.passed(), known.get(file, &test.name)) {
        (true, None) => Verdict::Passes,
        (true, Some(_)) => Verdict::PassesListed,
        (false, Some(e)) => Verdict::Listed(e.category),
        (false, None) => Verdict::Unlisted,
    }
}

/// Counts over a set of tests, all of them among those that pass on real
/// tokio except `tests` and `real_fail`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Tests run (not ignored).
    pub tests: usize,
    /// Tests that fail on real tokio.
    pub real_fail: usize,
    /// Tests that pass on real tokio.
    pub real_pass: usize,
    /// Of those, pass on the simulator.
    pub sim_pass: usize,
    /// Of those, fail on the simulator.
    pub sim_fail: usize,
    /// Of those, hang on the simulator.
    pub sim_hang: usize,
    /// Of those, crash on the simulator.
    pub sim_crash: usize,
    /// Of those, in a file that does not compile under the simulator.
    pub sim_not_built: usize,
    /// Not passing, on the list as by design.
    pub by_design: usize,
    /// Not passing, on the list as a bug.
    pub bug: usize,
    /// Not passing and not on the list.
    pub unlisted: usize,
    /// Passing, but on the list.
    pub stale: usize,
}

impl Counts {
    /// Counts one file's tests.
    pub fn of(known: &Known, file: &FileResult) -> Counts {
        let mut c = Counts {
            tests: file.tests.len(),
            ..Counts::default()
        };
        for t in &file.tests {
            if !t.real.passed() {
                c.real_fail += 1;
                continue;
            }
            c.real_pass += 1;
            match t.sim {
                Outcome::Pass => c.sim_pass += 1,
                Outcome::Fail(_) => c.sim_fail += 1,
                Outcome::Hang => c.sim_hang += 1,
                Outcome::Crash(_) => c.sim_crash += 1,
                Outcome::NotBuilt => c.sim_not_built += 1,
            }
            match verdict(known, &file.file, t) {
                Verdict::Listed(Category::ByDesign) => c.by_design += 1,
                Verdict::Listed(Category::Bug) => c.bug += 1,
                Verdict::Unlisted => c.unlisted += 1,
                Verdict::PassesListed => c.stale += 1,
                Verdict::Passes | Verdict::RealFails => {}
            }
        }
        c
    }

    fn add(&mut self, o: Counts) {
        self.tests += o.tests;
        self.real_fail += o.real_fail;
        self.real_pass += o.real_pass;
        self.sim_pass += o.sim_pass;
        self.sim_fail += o.sim_fail;
        self.sim_hang += o.sim_hang;
        self.sim_crash += o.sim_crash;
        self.sim_not_built += o.sim_not_built;
        self.by_design += o.by_design;
        self.bug += o.bug;
        self.unlisted += o.unlisted;
        self.stale += o.stale;
    }

    /// The sum over files.
    pub fn total(known: &Known, files: &[FileResult]) -> Counts {
        let mut c = Counts::default();
        for f in files {
            c.add(Counts::of(known, f));
        }
        c
    }
}

/// The headline: "N of M tests that pass on real tokio pass on the
/// simulator (P%)", with what the others did.
pub fn totals_line(c: &Counts) -> String {
    let pct = if c.real_pass == 0 {
        0.0
    } else {
        100.0 * c.sim_pass as f64 / c.real_pass as f64
    };
    format!(
        "{} of the {} tests that pass on real tokio pass on the simulator ({pct:.1}%); \
         of the others {} fail, {} hang, {} crash, {} are in files that do not compile. \
         On the list: {} by design, {} bugs; not on the list: {}; listed but passing: {}. \
         ({} tests run, {} fail on real tokio here.)",
        c.sim_pass,
        c.real_pass,
        c.sim_fail,
        c.sim_hang,
        c.sim_crash,
        c.sim_not_built,
        c.by_design,
        c.bug,
        c.unlisted,
        c.stale,
        c.tests,
        c.real_fail,
    )
}

/// What the run was, for the table's header.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    /// The command that made it.
    pub command: String,
    /// The package whose tests ran (`tokio`, `tokio-util`, ...).
    pub suite: String,
    /// Its version.
    pub tokio_version: String,
    /// The time limit per test, in seconds.
    pub timeout_secs: u64,
    /// Wall time of each phase, in seconds: (phase, seconds).
    pub phases: Vec<(String, u64)>,
}

/// Names listed for files that ran, matching no test of that file.
pub fn stale_names<'a>(known: &'a Known, files: &[FileResult]) -> Vec<(&'a str, &'a str)> {
    known
        .names()
        .filter(|(file, test)| {
            *test != "*"
                && files
                    .iter()
                    .find(|f| f.file == *file)
                    .is_some_and(|f| !f.tests.iter().any(|t| t.name == *test))
        })
        .collect()
}

/// The list of known differences of `suite`'s tests, under `conformance/`:
/// `known.toml` for tokio's own, `known-<suite>.toml` for another
/// package's.
pub fn known_file(suite: &str) -> String {
    if suite == "tokio" {
        "known.toml".to_owned()
    } else {
        format!("known-{suite}.toml")
    }
}

/// The table of a run of every file of `suite`, under `conformance/`.
pub fn results_file(suite: &str) -> String {
    if suite == "tokio" {
        "RESULTS.md".to_owned()
    } else {
        format!("RESULTS-{suite}.md")
    }
}

/// The Markdown table of a run.
pub fn render(known: &Known, files: &[FileResult], info: &RunInfo) -> String {
    let total = Counts::total(known, files);
    let mut out = format!(
        "# {suite} {v}'s integration tests on the simulator\n\n\
         Made by `{cmd}` (each test alone in its own process, {t} s limit; \
         the harness is `conformance/`, its list of known differences \
         `conformance/{known}`).\n\n**{line}**\n\n",
        suite = info.suite,
        known = known_file(&info.suite),
        v = info.tokio_version,
        cmd = info.command,
        t = info.timeout_secs,
        line = totals_line(&total),
    );
    let built = |e: fn(&FileResult) -> bool| files.iter().filter(|f| e(f)).count();
    let _ = writeln!(
        out,
        "Files: {n}; compile against real tokio: {r}/{n}; under the simulator: {s}/{n}.\n",
        n = files.len(),
        r = built(|f| f.real_error.is_none()),
        s = built(|f| f.sim_error.is_none()),
    );
    if !info.phases.is_empty() {
        let phases: Vec<String> = info
            .phases
            .iter()
            .map(|(p, s)| format!("{p} {}m{:02}s", s / 60, s % 60))
            .collect();
        let _ = writeln!(out, "Wall time: {}.\n", phases.join(", "));
    }
    out.push_str(
        "The simulator's columns count the tests that pass on real tokio.\n\n\
         | file | tests | real pass | real fail | sim pass | sim fail | sim hang | sim crash | not compiled | listed (by design / bug) | not listed |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for f in files {
        table_row(&mut out, &f.file, &Counts::of(known, f));
    }
    table_row(&mut out, "**total**", &total);

    let broken: Vec<_> = files
        .iter()
        .flat_map(|f| {
            [("real", &f.real_error), ("sim", &f.sim_error)]
                .into_iter()
                .filter_map(move |(m, e)| e.as_ref().map(|e| (f.file.as_str(), m, e)))
        })
        .collect();
    if !broken.is_empty() {
        out.push_str(
            "\n## Files that do not compile\n\n| file | build | first error |\n|---|---|---|\n",
        );
        for (file, mode, err) in broken {
            let _ = writeln!(out, "| {file} | {mode} | {} |", cell(err));
        }
    }

    let mut unlisted = String::new();
    let mut passing = String::new();
    for f in files {
        for t in &f.tests {
            match verdict(known, &f.file, t) {
                Verdict::Unlisted => {
                    let _ = writeln!(
                        unlisted,
                        "| {} | {} | {} |",
                        f.file,
                        t.name,
                        cell(&t.sim.describe())
                    );
                }
                Verdict::PassesListed => {
                    let _ = writeln!(passing, "| {} | {} |", f.file, t.name);
                }
                _ => {}
            }
        }
    }
    if !unlisted.is_empty() {
        out.push_str(
            "\n## Differences not on the list\n\nThey pass on real tokio and not on the simulator.\n\n\
             | file | test | simulator |\n|---|---|---|\n",
        );
        out.push_str(&unlisted);
    }
    if !passing.is_empty() {
        out.push_str("\n## On the list, and passing now\n\n| file | test |\n|---|---|\n");
        out.push_str(&passing);
    }
    let stale = stale_names(known, files);
    if !stale.is_empty() {
        out.push_str("\n## Listed names with no such test\n\n| file | test |\n|---|---|\n");
        for (file, test) in stale {
            let _ = writeln!(out, "| {file} | {test} |");
        }
    }
    out
}

/// Text made safe for one Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// One row of the per-file table: `name`, then `c`'s columns.
fn table_row(out: &mut String, name: &str, c: &Counts) {
    let _ = writeln!(
        out,
        "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |",
        c.tests,
        c.real_pass,
        c.real_fail,
        c.sim_pass,
        c.sim_fail,
        c.sim_hang,
        c.sim_crash,
        c.sim_not_built,
        c.by_design,
        c.bug,
        c.unlisted,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, real: Outcome, sim: Outcome) -> TestResult {
        TestResult {
            name: name.to_owned(),
            real,
            sim,
        }
    }

    fn sample() -> (Known, Vec<FileResult>) {
        let known = Known::parse(
            "[a]\nlisted_fail = { category = \"bug\", reason = \"r\" }\n\
             listed_pass = { category = \"bug\", reason = \"r\" }\n\
             gone = { category = \"bug\", reason = \"r\" }\n\
             [b]\n\"*\" = { category = \"by design\", reason = \"processes\" }\n",
        )
        .unwrap();
        let files = vec![
            FileResult {
                file: "a".to_owned(),
                tests: vec![
                    t("ok", Outcome::Pass, Outcome::Pass),
                    t("listed_fail", Outcome::Pass, Outcome::Fail("x".to_owned())),
                    t("listed_pass", Outcome::Pass, Outcome::Pass),
                    t("new_hang", Outcome::Pass, Outcome::Hang),
                    t("real_broken", Outcome::Fail(String::new()), Outcome::Hang),
                ],
                ..FileResult::default()
            },
            FileResult {
                file: "b".to_owned(),
                sim_error: Some("no `spawn` | here".to_owned()),
                tests: vec![t("p", Outcome::Pass, Outcome::NotBuilt)],
                ..FileResult::default()
            },
        ];
        (known, files)
    }

    #[test]
    fn verdicts_compare_with_the_list() {
        let (known, files) = sample();
        let v: Vec<Verdict> = files[0]
            .tests
            .iter()
            .map(|t| verdict(&known, "a", t))
            .collect();
        assert_eq!(
            v,
            [
                Verdict::Passes,
                Verdict::Listed(Category::Bug),
                Verdict::PassesListed,
                Verdict::Unlisted,
                Verdict::RealFails
            ]
        );
        assert_eq!(
            verdict(&known, "b", &files[1].tests[0]),
            Verdict::Listed(Category::ByDesign)
        );
    }

    #[test]
    fn counts_only_real_passes_for_the_simulator() {
        let (known, files) = sample();
        let c = Counts::total(&known, &files);
        assert_eq!(
            c,
            Counts {
                tests: 6,
                real_fail: 1,
                real_pass: 5,
                sim_pass: 2,
                sim_fail: 1,
                sim_hang: 1,
                sim_crash: 0,
                sim_not_built: 1,
                by_design: 1,
                bug: 1,
                unlisted: 1,
                stale: 1,
            }
        );
        assert!(totals_line(&c)
            .starts_with("2 of the 5 tests that pass on real tokio pass on the simulator (40.0%)"));
    }

    #[test]
    fn the_table_names_what_differs() {
        let (known, files) = sample();
        let info = RunInfo {
            command: "cargo run -p conformance".to_owned(),
            suite: "tokio".to_owned(),
            tokio_version: "1.54.1".to_owned(),
            timeout_secs: 30,
            phases: vec![("build real".to_owned(), 75)],
        };
        let md = render(&known, &files, &info);
        assert!(
            md.contains("| a | 5 | 4 | 1 | 2 | 1 | 1 | 0 | 0 | 0 / 1 | 1 |"),
            "{md}"
        );
        assert!(md.contains("| b | sim | no `spawn` \\| here |"), "{md}");
        assert!(md.contains("| a | new_hang | hang |"), "{md}");
        assert!(md.contains(
            "## On the list, and passing now\n\n| file | test |\n|---|---|\n| a | listed_pass |"
        ));
        assert!(
            md.contains("| a | gone |"),
            "a stale name is reported: {md}"
        );
        assert!(md.contains("Wall time: build real 1m15s."));
        assert!(md.contains("under the simulator: 1/2"));
    }
}
