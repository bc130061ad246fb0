//! Property-based tests whose cases are explorations: proptest generates
//! and shrinks the input, the explorer explores each case.
//!
//! ```
//! use explorer::{Explorer, Random, Walk};
//! use proptest::prelude::*;
//!
//! let report = Explorer::new()
//!     .explorer(Random::default())
//!     .search(Walk)
//!     .executions(1) // one execution per case; any search works
//!     .prop_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })
//!     .run_prop(prop::collection::vec(0..10u32, 1..8), |xs| async move {
//!         let total: u32 = xs.iter().sum();
//!         assert!(total < 30, "the sum is {total}");
//!     });
//! println!("{report}");
//! let failure = report.failure.expect("some input sums to 30 or more");
//! assert_eq!(failure.input.iter().sum::<u32>(), 30); // shrunk to the boundary
//! ```
//!
//! [`Explorer::check_prop`] panics with the report; [`Explorer::run_prop`]
//! returns it ([`PropReport`]).
//!
//! # Cases, shrinking, reproducing
//!
//! Case `i` draws its input with a generator seeded from the explorer's
//! seed and `i`, and explores it with the explorer's settings (explorer,
//! search, budget), from a search seed of its own. When an exploration
//! fails, proptest shrinks the input: each smaller input is explored again
//! with the same search seed, and the smallest that still fails is kept.
//! Its exploration then runs once more with shrinking and telling on, so
//! the reported schedule is shrunk too ([`crate::shrink`]).
//!
//! The report prints the input (`Debug`), the exploration's report and one
//! line: `SIM_PROP=<case> SIM_REPLAY=<token> cargo test ...`. `SIM_PROP`
//! names the case's generator seed and the shrinking steps that led to the
//! input (`cc<hex>:s3c1s2`: three simplifications, one complication, two
//! simplifications), so the input is regenerated without any plumbing of
//! the test's own; `SIM_REPLAY` replays the execution. With `SIM_PROP`
//! alone, the input's exploration runs again in full.
//!
//! # Settings
//!
//! [`Explorer::prop_config`] takes proptest's `Config`: `cases`,
//! `max_shrink_iters`, the rejection limits and `failure_persistence` are
//! honoured. Without it: proptest's defaults (and its `PROPTEST_*`
//! variables), but 32 cases unless `PROPTEST_CASES` says otherwise, and at
//! most 256 shrinking steps (each is an exploration). proptest's
//! regression files keep working: the seeds they hold run first, and a
//! failing case's seed is saved to them.
//!
//! `SIM_SEED` sets the property test's base seed. `SIM_EXPLORER`,
//! `SIM_SEARCH`, `SIM_EXECUTIONS` and the others apply to each case's
//! exploration; `SIM_SHARD` does not apply.

use std::fmt;
use std::future::Future;
use std::panic::Location;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, PersistedSeed, RngAlgorithm, TestRng, TestRunner};
use sim_rt::scheduler::derive_seed;

use crate::{env, Explorer, Report, TestOutcome};

/// The proptest crate these property tests take their strategies and
/// `Config` from, for crates that reach the explorer through
/// `tokio::sim` and do not depend on proptest themselves.
pub use proptest;

/// Cases when neither `prop_config` nor `PROPTEST_CASES` says.
const DEFAULT_CASES: u32 = 32;
/// Shrinking steps when proptest's limit is its default (none).
const DEFAULT_SHRINK_STEPS: u32 = 256;

/// A case's generator seed, in proptest's two formats.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CaseSeed {
    ChaCha([u8; 32]),
    XorShift([u8; 16]),
}

impl CaseSeed {
    /// Case `i` of a property test with base seed `base`.
    fn of(base: u64, i: u64) -> CaseSeed {
        let mut bytes = [0u8; 32];
        for (k, chunk) in bytes.chunks_mut(8).enumerate() {
            let word = derive_seed(derive_seed(base, 0x5052_4f50 + i), k as u64);
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        CaseSeed::ChaCha(bytes)
    }

    fn bytes(&self) -> &[u8] {
        match self {
            CaseSeed::ChaCha(b) => b,
            CaseSeed::XorShift(b) => b,
        }
    }

    fn runner(&self, config: &Config) -> TestRunner {
        let rng = match self {
            CaseSeed::ChaCha(b) => TestRng::from_seed(RngAlgorithm::ChaCha, b),
            CaseSeed::XorShift(b) => TestRng::from_seed(RngAlgorithm::XorShift, b),
        };
        TestRunner::new_with_rng(config.clone(), rng)
    }

    /// The case's exploration seed.
    fn search_seed(&self) -> u64 {
        let mut first = [0u8; 8];
        first.copy_from_slice(&self.bytes()[..8]);
        derive_seed(u64::from_le_bytes(first), 0x5345_4152)
    }

    /// `cc<64 hex>` or `xs<32 hex>`.
    fn text(&self) -> String {
        let tag = match self {
            CaseSeed::ChaCha(_) => "cc",
            CaseSeed::XorShift(_) => "xs",
        };
        let hex: String = self.bytes().iter().map(|b| format!("{b:02x}")).collect();
        format!("{tag}{hex}")
    }

    fn parse(text: &str) -> Option<CaseSeed> {
        let hex = |s: &str, out: &mut [u8]| -> Option<()> {
            if s.len() != out.len() * 2 || !s.is_ascii() {
                return None;
            }
            for (o, pair) in out.iter_mut().zip(s.as_bytes().chunks(2)) {
                *o = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
            }
            Some(())
        };
        if let Some(rest) = text.strip_prefix("cc") {
            let mut b = [0u8; 32];
            hex(rest, &mut b)?;
            Some(CaseSeed::ChaCha(b))
        } else if let Some(rest) = text.strip_prefix("xs") {
            let mut b = [0u8; 16];
            hex(rest, &mut b)?;
            Some(CaseSeed::XorShift(b))
        } else {
            None
        }
    }

    /// In proptest's regression-file format (`cc <hex>`, `xs <4 words>`).
    fn persisted(&self) -> Option<PersistedSeed> {
        let text = match self {
            CaseSeed::ChaCha(b) => {
                let hex: String = b.iter().map(|b| format!("{b:02x}")).collect();
                format!("cc {hex}")
            }
            CaseSeed::XorShift(b) => {
                let w = |k: usize| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
                format!("xs {} {} {} {}", w(0), w(1), w(2), w(3))
            }
        };
        text.parse().ok()
    }

    fn from_persisted(seed: &PersistedSeed) -> Option<CaseSeed> {
        let text = seed.to_string();
        let mut parts = text.split_whitespace();
        match parts.next()? {
            "cc" => CaseSeed::parse(&format!("cc{}", parts.next()?)),
            "xs" => {
                let mut b = [0u8; 16];
                for k in 0..4 {
                    let w: u32 = parts.next()?.parse().ok()?;
                    b[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
                }
                Some(CaseSeed::XorShift(b))
            }
            _ => None,
        }
    }
}

/// Shrinking steps as text: runs of `s` (simplify) and `c` (complicate)
/// with their lengths, `s3c1s2`.
fn path_text(path: &[bool]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < path.len() {
        let run = path[i..].iter().take_while(|&&p| p == path[i]).count();
        out.push_str(&format!("{}{run}", if path[i] { 's' } else { 'c' }));
        i += run;
    }
    out
}

fn parse_path(text: &str) -> Option<Vec<bool>> {
    let mut path = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let step = match rest.as_bytes()[0] {
            b's' => true,
            b'c' => false,
            _ => return None,
        };
        let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        let n: usize = rest[1..1 + digits].parse().ok().filter(|&n| n > 0)?;
        path.extend(std::iter::repeat_n(step, n));
        rest = &rest[1 + digits..];
    }
    Some(path)
}

/// `SIM_PROP`'s value: a case seed and its shrinking steps.
fn parse_prop(raw: &str) -> Result<(CaseSeed, Vec<bool>), String> {
    let (seed, path) = raw.split_once(':').unwrap_or((raw, ""));
    let bad = |what: &str| {
        format!(
            "SIM_PROP={raw:?} is not a property-test case: {what}; paste it as a failure report \
             printed it (cc<64 hex digits> or xs<32 hex digits>, then :<steps> such as :s3c1s2)"
        )
    };
    let seed = CaseSeed::parse(seed).ok_or_else(|| bad("the seed does not parse"))?;
    let path = parse_path(path).ok_or_else(|| bad("the shrinking steps do not parse"))?;
    Ok((seed, path))
}

/// Misuse of a property test, reported at the test's line (the callers
/// are `#[track_caller]` and call it directly, not from a closure).
#[track_caller]
fn fail(msg: String) -> ! {
    sim_rt::runtime::__private::fail_quietly(format!(
        "explorer: {msg}\n  (the property test at {})",
        std::panic::Location::caller()
    ))
}

/// What a property test found: see [`Explorer::run_prop`].
#[derive(Debug, Clone)]
pub struct PropReport<T> {
    /// The test's name ("" outside a test).
    pub test: String,
    /// Cases explored (regression seeds included).
    pub cases: u32,
    /// Executions in all, shrinking included.
    pub executions: u64,
    /// The failure, if a case failed.
    pub failure: Option<PropFailure<T>>,
}

/// A failing case, shrunk.
#[derive(Debug, Clone)]
pub struct PropFailure<T> {
    /// The smallest input found that still fails.
    pub input: T,
    /// The input as the case generated it.
    pub generated: T,
    /// Which case it was (1 is the first).
    pub case: u32,
    /// Smaller inputs explored while shrinking.
    pub shrink_steps: u32,
    /// The exploration of `input`, with its failure (token, shrunk
    /// schedule, story, picture).
    pub report: Report,
    /// `SIM_PROP`'s value for this input: the case's seed and the
    /// shrinking steps.
    pub case_seed: String,
    /// The line that reproduces input and execution:
    /// `SIM_PROP=... SIM_REPLAY=... cargo test ...`.
    pub command: String,
}

impl<T> PropReport<T> {
    /// Whether a case failed.
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }
}

impl<T: fmt::Debug> fmt::Display for PropReport<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = if self.test.is_empty() {
            "property"
        } else {
            &self.test
        };
        let Some(p) = &self.failure else {
            return write!(
                f,
                "{name}: no failure in {} cases ({} executions)",
                self.cases, self.executions
            );
        };
        writeln!(
            f,
            "{name}: case {} of the property failed; its input, shrunk in {} steps:",
            p.case, p.shrink_steps
        )?;
        writeln!(f, "  {:?}", p.input)?;
        writeln!(f, "  (as generated: {:?})", p.generated)?;
        // The exploration's own report, whose replay lines need the case
        // too; its seed line would name the property test's seed, not the
        // exploration's, so it goes.
        for line in p.report.to_string().lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("reproduce: ") || trimmed.starts_with("or: SIM_SEED=") {
                continue;
            }
            let line = line.replace(
                "SIM_REPLAY=",
                &format!("SIM_PROP={} SIM_REPLAY=", p.case_seed),
            );
            writeln!(f, "  {line}")?;
        }
        write!(f, "  reproduce: {}", p.command)
    }
}

impl Explorer {
    /// proptest's settings for [`check_prop`](Self::check_prop) and
    /// [`run_prop`](Self::run_prop) (cases, shrinking steps, rejection
    /// limits, regression files).
    pub fn prop_config(mut self, config: Config) -> Self {
        self.prop = Some(config);
        self
    }

    /// Runs a property over inputs from `strategy`, each case one
    /// exploration with this explorer's settings, and panics with the
    /// report ([`PropReport`]) if a case fails. See [`crate::prop`].
    #[track_caller]
    pub fn check_prop<S, F, Fut>(&self, strategy: S, test: F)
    where
        S: Strategy,
        S::Value: Clone + fmt::Debug + Send + Sync,
        F: Fn(S::Value) -> Fut + Sync,
        Fut: Future,
        Fut::Output: TestOutcome,
    {
        let report = self.run_prop(strategy, test);
        if report.failed() {
            sim_rt::runtime::__private::fail_quietly(report.to_string());
        }
    }

    /// [`check_prop`](Self::check_prop), returning the report instead of
    /// panicking on a failure.
    ///
    /// # Panics
    ///
    /// On a malformed `SIM_PROP` or `SIM_SEED`, too many rejected inputs,
    /// or a shrunk input that no longer fails when explored again (the
    /// program is not deterministic).
    #[track_caller]
    pub fn run_prop<S, F, Fut>(&self, strategy: S, test: F) -> PropReport<S::Value>
    where
        S: Strategy,
        S::Value: Clone + fmt::Debug + Send + Sync,
        F: Fn(S::Value) -> Fut + Sync,
        Fut: Future,
        Fut::Output: TestOutcome,
    {
        let source = Location::caller().file();
        let test_name = self.test_name();
        let config = self.prop.clone().unwrap_or_else(|| {
            let mut c = Config::default();
            if std::env::var_os("PROPTEST_CASES").is_none() {
                c.cases = DEFAULT_CASES;
            }
            c
        });
        let max_shrink = match config.max_shrink_iters {
            u32::MAX => DEFAULT_SHRINK_STEPS,
            n => n,
        };
        let explore = |input: &S::Value, seed: u64, describe: bool, replay: Option<String>| {
            let mut e = self.clone();
            e.case = true;
            e.describe = describe;
            e.seed = seed;
            if !describe {
                e.shrink = Some(0);
                e.progress = false;
            }
            e.replay = replay;
            let input = input.clone();
            let test = &test;
            e.run(move || test(input.clone()))
        };
        let new_tree = |seed: &CaseSeed| strategy.new_tree(&mut seed.runner(&config));

        // One case, named by a failure report.
        if let Some(raw) = env::var("SIM_PROP") {
            let (seed, path) = match parse_prop(&raw) {
                Ok(case) => case,
                Err(e) => fail(e),
            };
            let mut tree = match new_tree(&seed) {
                Ok(tree) => tree,
                Err(r) => fail(format!(
                    "SIM_PROP={raw}: the strategy rejected the case's input: {r}"
                )),
            };
            let generated = tree.current();
            for (k, &simplify) in path.iter().enumerate() {
                let moved = if simplify {
                    tree.simplify()
                } else {
                    tree.complicate()
                };
                if !moved {
                    fail(format!(
                        "SIM_PROP={raw}: shrinking step {} no longer applies; the strategy \
                         changed since the case was found",
                        k + 1
                    ));
                }
            }
            let input = tree.current();
            let report = explore(&input, seed.search_seed(), true, env::var("SIM_REPLAY"));
            let executions = report.executions;
            let failure = report.failure.clone().map(|found| PropFailure {
                input,
                generated,
                case: 1,
                shrink_steps: 0,
                case_seed: raw.clone(),
                command: format!("SIM_PROP={raw} {}", found.command),
                report,
            });
            return PropReport {
                test: test_name,
                cases: 1,
                executions,
                failure,
            };
        }

        let base = match env::var("SIM_SEED") {
            Some(raw) => match env::parse_seed(&raw) {
                Ok(seed) => seed,
                Err(e) => fail(e),
            },
            None => self.seed,
        };
        let mut persistence = config.failure_persistence.clone();
        let mut seeds: Vec<CaseSeed> = persistence
            .as_ref()
            .map(|p| p.load_persisted_failures2(Some(source)))
            .unwrap_or_default()
            .iter()
            .filter_map(CaseSeed::from_persisted)
            .collect();
        let persisted = seeds.len();
        seeds.extend((0..u64::from(config.cases)).map(|i| CaseSeed::of(base, i)));
        let (mut cases, mut executions, mut rejected) = (0u32, 0u64, 0u32);
        for (k, seed) in seeds.iter().enumerate() {
            let mut tree = match new_tree(seed) {
                Ok(tree) => tree,
                Err(reason) => {
                    rejected += 1;
                    if rejected > config.max_global_rejects {
                        fail(format!(
                            "the strategy rejected {rejected} inputs (the limit is \
                             max_global_rejects = {}); the last: {reason}",
                            config.max_global_rejects
                        ));
                    }
                    continue;
                }
            };
            cases += 1;
            let generated = tree.current();
            let search_seed = seed.search_seed();
            let first = explore(&generated, search_seed, false, None);
            executions += first.executions;
            if !first.failed() {
                continue;
            }
            // Shrink: the smallest input whose exploration still fails.
            let mut best = generated.clone();
            let (mut path, mut best_path, mut steps) = (Vec::new(), Vec::new(), 0u32);
            if tree.simplify() {
                path.push(true);
                while steps < max_shrink {
                    steps += 1;
                    let candidate = tree.current();
                    let r = explore(&candidate, search_seed, false, None);
                    executions += r.executions;
                    if r.failed() {
                        best = candidate;
                        best_path = path.clone();
                        if !tree.simplify() {
                            break;
                        }
                        path.push(true);
                    } else {
                        if !tree.complicate() {
                            break;
                        }
                        path.push(false);
                    }
                }
            }
            // Once more, with the schedule shrunk and the failure told.
            let report = explore(&best, search_seed, true, None);
            executions += report.executions;
            let Some(found) = report.failure.clone() else {
                fail(format!(
                    "the shrunk input {best:?} failed while shrinking but not when explored \
                     again: the program is not deterministic (it reads real time, OS \
                     randomness, or keeps state between executions)"
                ))
            };
            let case_seed = if best_path.is_empty() {
                seed.text()
            } else {
                format!("{}:{}", seed.text(), path_text(&best_path))
            };
            if k >= persisted {
                if let (Some(p), Some(s)) = (persistence.as_mut(), seed.persisted()) {
                    p.save_persisted_failure2(Some(source), s, &best);
                }
            }
            return PropReport {
                test: test_name,
                cases,
                executions,
                failure: Some(PropFailure {
                    input: best,
                    generated,
                    case: cases,
                    shrink_steps: steps,
                    command: format!("SIM_PROP={case_seed} {}", found.command),
                    case_seed,
                    report,
                }),
            };
        }
        PropReport {
            test: test_name,
            cases,
            executions,
            failure: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_and_paths_print_and_parse_back() {
        let seed = CaseSeed::of(7, 3);
        assert_eq!(CaseSeed::parse(&seed.text()), Some(seed.clone()));
        assert_eq!(
            CaseSeed::from_persisted(&seed.persisted().unwrap()),
            Some(seed.clone())
        );
        let xs = CaseSeed::XorShift([9; 16]);
        assert_eq!(
            CaseSeed::from_persisted(&xs.persisted().unwrap()),
            Some(xs.clone())
        );
        assert_ne!(CaseSeed::of(7, 3), CaseSeed::of(7, 4));
        let path = vec![true, true, true, false, true, true];
        assert_eq!(path_text(&path), "s3c1s2");
        assert_eq!(parse_path("s3c1s2"), Some(path));
        assert_eq!(parse_path(""), Some(vec![]));
        assert_eq!(parse_path("s0"), None);
        assert_eq!(parse_path("x2"), None);
        let raw = format!("{}:s2c1", seed.text());
        assert_eq!(parse_prop(&raw), Ok((seed, vec![true, true, false])));
        assert!(parse_prop("cc12:s1")
            .unwrap_err()
            .contains("the seed does not parse"));
    }
}
