//! The user's entry point: [`Explorer`], a property checked over many
//! executions.

use std::future::Future;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use sim_rt::runtime::Builder;

use crate::env;
use crate::exec::{run_test, Program, Target, TestOutcome};
use crate::explorers::{DelayingExplorer, Pct, Pos, Random, RandomizedRoundRobin, RoundRobin, Rtc};
use crate::liveness::Liveness;
use crate::nondet::Nondeterministic;
use crate::progress::Progress;
use crate::report::Report;
use crate::search::portfolio::{self, Member};
use crate::search::replay::Replayed;
use crate::search::{self, Ctx, Exhaustive, Sampling, Search, SearchKind, Swarm, Walk};
use crate::token::ReplayToken;

/// Checks a property of a simulated program over many executions chosen by
/// a delaying explorer and a search.
///
/// ```
/// use explorer::{Explorer, Rtc, Sampling};
///
/// Explorer::new()
///     .explorer(Rtc::default())
///     .search(Sampling::new(2))
///     .executions(200)
///     .check(|| async {
///         let (tx, rx) = sim_rt::sync::oneshot::channel();
///         sim_rt::spawn(async move { tx.send(1).unwrap() });
///         assert_eq!(rx.await.unwrap(), 1);
///     });
/// ```
///
/// Each execution is a fresh simulation (a new runtime with the settings of
/// [`runtime`](Self::runtime)) running the future the closure makes; it
/// fails when the future or a task panics, a host's entry point returns an
/// error, the future returns `Err`, or it deadlocks or hits a step or time
/// limit. [`check`](Self::check) panics with a report naming the test, the
/// explorer, the search, the delays, the seed, the failing step and host,
/// and one command that replays the failure:
///
/// ```text
/// SIM_REPLAY=sr1... cargo test -p my-crate my_test -- --exact
/// ```
///
/// # Delays and messages
///
/// A scheduled delay puts off the event the explorer would run next. When
/// that event is a packet's delivery, the packet is *held*: it gives way
/// to every other event until a later packet to the same host has been
/// delivered, or nothing else can run (time never passes its latest
/// arrival). So one delay lets a later message overtake an earlier one,
/// as a slow link would; without holding, a delay bought one step, and
/// the clock's next advance put the delivery first again. Explorers whose
/// [`next_is_pure`](crate::DelayingExplorer::next_is_pure) is false (the
/// randomized baselines, and custom ones by default) do not hold.
///
/// # Environment
///
/// These override the settings in code, so a failure found in CI can be
/// explored further or replayed without editing the test: `SIM_EXPLORER`,
/// `SIM_SEARCH`, `SIM_MAX_DELAYS`, `SIM_EXECUTIONS`, `SIM_SEED`,
/// `SIM_REPLAY`, `SIM_JOBS`, `SIM_SHARD`, `SIM_SHRINK`, `SIM_CHECK_DETERMINISM`
/// (see the crate docs for their values). A value that does not parse is a
/// panic saying what is wrong.
#[must_use = "an Explorer does nothing until `check` or `run`"]
#[derive(Clone)]
pub struct Explorer {
    make: Arc<dyn Fn() -> Box<dyn DelayingExplorer> + Send + Sync>,
    explorer_name: String,
    randomized: bool,
    search: Search,
    executions: u64,
    pub(crate) seed: u64,
    jobs: Option<usize>,
    shard: Option<(u32, u32)>,
    configure: Arc<dyn Fn(&mut Builder) + Send + Sync>,
    multi_thread: bool,
    pub(crate) replay: Option<String>,
    pub(crate) progress: bool,
    pub(crate) name: Option<String>,
    liveness: Liveness,
    fair: bool,
    pub(crate) shrink: Option<u64>,
    /// Neither an explorer nor a search was named: run the portfolio.
    portfolio: bool,
    /// The portfolio is the adaptive one ([`adaptive`](Self::adaptive)).
    adaptive: bool,
    /// Signals to tally in the report ([`probe_signal`](Self::probe_signal)).
    probe: Vec<crate::signals::Signal>,
    /// An explorer was named (a walk named without one gets `Random`).
    explorer_named: bool,
    /// One case of a property test (see `prop.rs`): `SIM_SEED`,
    /// `SIM_REPLAY` and `SIM_SHARD` belong to the property test, not to
    /// this exploration, and a failure is told and drawn only when
    /// `describe`.
    pub(crate) case: bool,
    pub(crate) describe: bool,
    /// `check` fails when a coverage point was never hit.
    require_coverage: bool,
    /// Property tests' settings (see `prop.rs`).
    #[cfg(feature = "proptest")]
    pub(crate) prop: Option<proptest::test_runner::Config>,
}

impl std::fmt::Debug for Explorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explorer")
            .field("portfolio", &self.portfolio)
            .field("explorer", &self.explorer_name)
            .field("search", &self.search)
            .field("executions", &self.executions)
            .field("seed", &self.seed)
            .field("jobs", &self.jobs)
            .field("shard", &self.shard)
            .finish_non_exhaustive()
    }
}

impl Default for Explorer {
    fn default() -> Self {
        Explorer::new()
    }
}

/// The default execution budget.
pub const DEFAULT_EXECUTIONS: u64 = 10_000;

impl Explorer {
    /// The default portfolio (see [`portfolio`](Self::portfolio)),
    /// [`DEFAULT_EXECUTIONS`] executions, seed 0, all cores, fair
    /// scheduling, failures shrunk.
    pub fn new() -> Explorer {
        let mut e = Explorer {
            make: Arc::new(|| Box::new(Rtc::default())),
            explorer_name: String::new(),
            randomized: false,
            search: Search::Sampling(Sampling::default()),
            executions: DEFAULT_EXECUTIONS,
            seed: 0,
            jobs: None,
            shard: None,
            configure: Arc::new(|_| {}),
            multi_thread: false,
            replay: None,
            progress: true,
            name: None,
            liveness: Liveness::new(),
            fair: true,
            shrink: None,
            portfolio: true,
            adaptive: false,
            probe: Vec::new(),
            explorer_named: false,
            case: false,
            describe: true,
            require_coverage: false,
            #[cfg(feature = "proptest")]
            prop: None,
        };
        e.set_explorer(Rtc::default());
        e
    }

    fn set_explorer<E: DelayingExplorer + Clone + Sync + 'static>(&mut self, explorer: E) {
        self.explorer_name = explorer.name();
        self.randomized = explorer.is_randomized();
        self.make = Arc::new(move || Box::new(explorer.clone()));
    }

    /// The delaying explorer: a built-in ([`Rtc`], [`RoundRobin`],
    /// [`RandomizedRoundRobin`], [`Random`], [`Pct`]) or your own. It is
    /// cloned for each execution. Naming one replaces the default
    /// portfolio; the search is then [`Sampling`] unless one is named.
    pub fn explorer<E: DelayingExplorer + Clone + Sync + 'static>(mut self, explorer: E) -> Self {
        self.set_explorer(explorer);
        self.portfolio = false;
        self.explorer_named = true;
        self
    }

    /// The search: [`Exhaustive`], [`Sampling`], [`Walk`] or [`Swarm`].
    /// Naming one replaces the default portfolio; the explorer is then
    /// [`Rtc`] for the delaying searches and [`Random`] for walks, unless
    /// one is named.
    pub fn search(mut self, search: impl Into<Search>) -> Self {
        self.search = search.into();
        self.portfolio = false;
        if !self.explorer_named {
            match self.search {
                Search::Walk(_) | Search::Swarm(_) => self.set_explorer(Random::default()),
                _ => self.set_explorer(Rtc::default()),
            }
        }
        self
    }

    /// Runs the default portfolio, also after an explorer or a search was
    /// named: several strategies interleaved over the execution budget,
    /// each with its share, on every core. Its members:
    ///
    /// | member | share |
    /// |---|---|
    /// | first-delay sweep: [`Rtc`]'s default execution, then each execution with one delay, in order (exhaustive search's first two strata) | a quarter, until it runs out |
    /// | [`Pct`] (depth 3) [`Swarm`] walks | half |
    /// | [`RoundRobin`] [`Sampling`] (up to 4 delays) | a quarter |
    ///
    /// Those shares are a floor of two thirds of every generation of 16
    /// planned executions; the remaining third goes to the walk or
    /// sampling member most likely, by Good-Turing's estimate over its own
    /// executions, to reach an abstract state none of them reached before
    /// (a host's state as the program reports it with
    /// [`sim_rt::sim::report_state`], a tuple of every host's latest
    /// report, a coverage point hit), once that member has run 32
    /// executions; until then, and for a program that reports no state and
    /// has no coverage points, the remainder follows the shares too. So no
    /// member gets less than two thirds of its share.
    ///
    /// Which single strategy finds a bug soonest changes from bug to bug;
    /// the portfolio needs about `1 / share` times the executions of the
    /// member that finds it soonest, and fewer when several can (see the
    /// effectiveness table in the guide, `docs/src/effectiveness.md`). Same
    /// seed, same result whatever `SIM_JOBS`; under `SIM_SHARD` each shard
    /// learns from its own executions. A failure is reported and replayed
    /// as its member's.
    ///
    /// `SIM_EXPLORER` or `SIM_SEARCH` in the environment replace the
    /// portfolio with one strategy; `SIM_MAX_DELAYS` sets the sampling
    /// member's delay bound.
    pub fn portfolio(mut self) -> Self {
        self.portfolio = true;
        self.adaptive = false;
        self
    }

    /// Tallies a signal's keys in the report ([`Report::signal`]), beside
    /// those of signals probed before (each key says its signal:
    /// [`Signal::owns`](crate::Signal::owns)): for the effectiveness bench,
    /// which measures whether a signal predicts the strategy that finds a
    /// bug. Not a user setting: its keys and their meaning may change.
    #[doc(hidden)]
    pub fn probe_signal(mut self, signal: crate::signals::Signal) -> Self {
        if !self.probe.contains(&signal) {
            self.probe.push(signal);
        }
        self
    }

    /// Runs the adaptive portfolio (also `SIM_SEARCH=adaptive`): the
    /// default portfolio's members at its shares and the other built-in
    /// walks (uniform, PCT, swarm) at a share of 1 each, with the default's
    /// floor and remainder (see [`portfolio`](Self::portfolio)), and
    /// mutations: the walks that reached anything no execution before them
    /// did (an abstract state, a fault context, an ordering of events at a
    /// host) are kept and run again with one or two choices changed.
    ///
    /// Experimental: it is not the default, and the guide's effectiveness
    /// chapter has its numbers against the default. Same seed, same result
    /// whatever `SIM_JOBS`; under `SIM_SHARD` each shard learns from its
    /// own executions. A failure is reported and replayed as its member's.
    pub fn adaptive(mut self) -> Self {
        self.portfolio = true;
        self.adaptive = true;
        self
    }

    /// The execution budget (default [`DEFAULT_EXECUTIONS`]).
    pub fn executions(mut self, executions: u64) -> Self {
        assert!(
            executions > 0,
            "an exploration needs at least one execution"
        );
        self.executions = executions;
        self
    }

    /// The search's base seed (default 0). It means the same as `SIM_SEED`
    /// (which overrides it): the same seed, set either way, runs the same
    /// executions; for sampling and walks it is the first unit's own seed,
    /// so the seed a report prints for a sample or a walk, set here or in
    /// the environment, runs that one first.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Threads for sampling and walks (default: all cores). Results do not
    /// depend on it.
    pub fn jobs(mut self, jobs: usize) -> Self {
        assert!(jobs > 0, "an exploration needs at least one job");
        self.jobs = Some(jobs);
        self
    }

    /// Runs only shard `index` (from 0) of `count` of a sampling or walk
    /// search; the shards together run exactly the unsharded search's
    /// samples.
    pub fn shard(mut self, index: u32, count: u32) -> Self {
        assert!(index < count, "shard {index} of {count} does not exist");
        self.shard = Some((index, count));
        self
    }

    /// Configures each execution's runtime: network, fault injector,
    /// limits. The explorer sets the seed and the scheduler.
    ///
    /// The closure runs on the execution's thread before its simulation
    /// starts, so whatever per-thread state it seeds is not the
    /// simulation's: a std `HashMap` made here draws the thread's keys from
    /// the OS, and the maps of every execution then follow them. Make maps
    /// and generators inside the test's future.
    pub fn runtime(mut self, configure: impl Fn(&mut Builder) + Send + Sync + 'static) -> Self {
        self.configure = Arc::new(configure);
        self
    }

    /// Runs each execution on a runtime built with
    /// [`Builder::new_multi_thread`] instead of `new_current_thread`: what
    /// `#[tokio::test(flavor = "multi_thread")]` gives. A simulation runs on
    /// one thread either way; what changes is what tokio's multi-thread
    /// runtime allows, such as `block_in_place` in a task (whose closure
    /// then runs as a simulated thread, its blocking calls choice points).
    pub fn multi_thread(mut self) -> Self {
        self.multi_thread = true;
        self
    }

    /// How an execution that ends with a
    /// [`sim::eventually`](sim_rt::sim::eventually) property unmet is
    /// decided: walks from its end, and the critical-transition search for
    /// a dead one (default [`Liveness::new`]; see [`crate::liveness`]).
    pub fn liveness(mut self, liveness: Liveness) -> Self {
        self.liveness = liveness;
        self
    }

    /// The liveness settings this explorer runs with, to change one of them
    /// and keep the others:
    /// `e.liveness(e.liveness_settings().clone().critical_transition(false))`.
    pub fn liveness_settings(&self) -> &Liveness {
        &self.liveness
    }

    /// Shrinks a failure a search found with at most `executions` more
    /// executions, reporting the smallest that fails the same way (see
    /// [`crate::shrink`]); 0 reports it as found. Default
    /// [`DEFAULT_SHRINK_EXECUTIONS`](crate::DEFAULT_SHRINK_EXECUTIONS) for
    /// searches; a replay is shrunk only when asked (here or with
    /// `SIM_SHRINK`).
    pub fn shrink(mut self, executions: u64) -> Self {
        self.shrink = Some(executions);
        self
    }

    /// Whether explorers schedule fairly (default on), after CHESS: a task
    /// that polled twice in a row, each time waking itself and returning
    /// `Pending` with nothing else run between (a spin on `yield_now`, a
    /// busy retry), is delayed once when it would be polled a third time
    /// while anything else can run. So a spin-wait for another task's work
    /// ends under every explorer, as it does on tokio, instead of starving
    /// that task into a livelock report. The move is the explorer's own: it
    /// costs no delay and replays the same. A spin that cannot end still
    /// fails as a livelock ([`Builder::livelock_steps`](sim_rt::runtime::Builder::livelock_steps)).
    pub fn fair(mut self, on: bool) -> Self {
        self.fair = on;
        self
    }

    /// Replays the execution of a token (as `SIM_REPLAY` does).
    pub fn replay(mut self, token: impl Into<String>) -> Self {
        self.replay = Some(token.into());
        self
    }

    /// Whether to print progress lines (at most one a second, after the
    /// first second) on stderr (default on).
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }

    /// The test's name in reports and tokens (default: the name of the
    /// running test, which libtest gives its thread).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Whether [`check`](Self::check) fails when a coverage point
    /// ([`sim_rt::sometimes!`], [`sim_rt::reachable!`]) was hit in none of
    /// the executions (default off: such a pass is noted on stderr). On, a
    /// `sometimes!` is a property of the exploration, as Antithesis's
    /// assertion of that name is: the search must reach it.
    pub fn require_coverage(mut self, on: bool) -> Self {
        self.require_coverage = on;
        self
    }

    /// Explores, and panics with the report if an execution failed.
    ///
    /// A pass with coverage points that no execution hit (see
    /// [`Report::never_hit`]) says so on stderr, or fails with
    /// [`require_coverage`](Self::require_coverage).
    ///
    /// # Panics
    ///
    /// On a failure (the message is the [`Report`]), a replay that does
    /// not reproduce its execution, a program found not deterministic (see
    /// [`run`](Self::run)), or a malformed `SIM_*` variable.
    #[track_caller]
    pub fn check<F, Fut>(&self, test: F)
    where
        F: Fn() -> Fut + Sync,
        Fut: Future,
        Fut::Output: TestOutcome,
    {
        let report = self.run(test);
        if report.failed() {
            sim_rt::runtime::__private::fail_quietly(report.to_string());
        }
        if !report.never_hit().is_empty() && report.search != SearchKind::Replay.name() {
            if self.require_coverage {
                panic!(
                    "{report}\nThe search never reached every coverage point it must \
                     (`require_coverage`): give it more executions (SIM_EXECUTIONS), a deeper \
                     delay bound (SIM_MAX_DELAYS), or another strategy (SIM_SEARCH=swarm, \
                     SIM_EXPLORER=pct:3), or check that the state can happen at all"
                );
            }
            eprintln!("explorer: passed, but not everywhere: {report}");
        }
    }

    /// Explores and returns the report, failure or not.
    ///
    /// # Panics
    ///
    /// On a replay that does not reproduce its execution, a program found
    /// not deterministic, or a malformed `SIM_*` variable (reported at the
    /// caller's line). A program is found not deterministic when a run
    /// disagrees with what the search knows of its execution (a sample's
    /// next run, an exhaustive search's child, the run that tells a
    /// failure), or under `SIM_CHECK_DETERMINISM=1` when an execution's two
    /// runs differ: the message names the execution, gives the
    /// determinism check's first divergence, and the line that replays it
    /// under the check.
    #[track_caller]
    pub fn run<F, Fut>(&self, test: F) -> Report
    where
        F: Fn() -> Fut + Sync,
        Fut: Future,
        Fut::Output: TestOutcome,
    {
        let started = Instant::now();
        crate::logs::keep_interest();
        let test_name = self.test_name();
        let program = move |rt: &sim_rt::runtime::Runtime| run_test(&test, rt);
        let (settings, what) = match self.resolve(&test_name) {
            Ok(resolved) => resolved,
            Err(msg) => sim_rt::runtime::__private::fail_quietly(format!(
                "explorer: {msg}\n  (the exploration at {})",
                std::panic::Location::caller()
            )),
        };
        let slow = AtomicU64::new(0);
        let progress = Progress::new(
            settings.progress,
            format!(
                "explorer {test_name} ({}, {})",
                settings.search, settings.explorer
            ),
        );
        let ctx = Ctx {
            target: Target {
                program: &program as &Program<'_>,
                configure: &*self.configure,
                multi_thread: self.multi_thread,
                explorer: &*settings.make,
                liveness: &self.liveness,
                fair: self.fair,
                slow: &slow,
                check: sim_rt::runtime::__private::check_determinism_requested(),
                signals: &self.probe,
            },
            test: test_name.clone(),
            command: sim_rt::sim::cargo_test_command(),
            env_prefix: settings.env_prefix,
            explorer: settings.explorer.clone(),
            search: settings.search,
            executions: settings.executions,
            seed: settings.seed,
            jobs: settings.jobs,
            shard: settings.shard,
            shrink: settings.shrink,
            describe: self.describe,
            progress: &progress,
            strategy: matches!(what, Resolved::Replay(_))
                .then(|| format!("replay with {}", settings.explorer)),
            started,
        };
        crate::progress::set_unit_line(match &what {
            Resolved::Replay(token) => Some(format!("SIM_REPLAY={token} {}", ctx.command).into()),
            _ => None,
        });
        let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            watched(&progress, || match what {
                Resolved::Search(search) => search::run(&ctx, &search),
                Resolved::Portfolio(members, adaptive) => {
                    search::run_portfolio(&ctx, &members, adaptive)
                }
                Resolved::Replay(token) => replayed(&ctx, &token, &test_name),
            })
        }));
        let mut report = match searched {
            Ok(report) => report,
            Err(payload) => match payload.downcast::<Nondeterministic>() {
                Ok(n) => panic!("{}", n.text(&test_name)),
                Err(other) => std::panic::resume_unwind(other),
            },
        };
        // On disk too, for `SIM_REPLAY=last` and for CI logs that were cut
        // (not for a property test's cases: their token needs the case).
        if let (Some(found), false) = (&mut report.failure, self.case || test_name.is_empty()) {
            let text = format!(
                "{}\n{report_text}",
                found.token,
                report_text = found.command
            );
            match crate::picture::save_last(&test_name, &text) {
                Ok(path) => found.saved = Some(path),
                Err(e) => eprintln!("explorer: could not save the failure: {e}"),
            }
        }
        report
    }

    /// The test's name: set with [`name`](Self::name), or the running
    /// test's (libtest names its thread after it).
    pub(crate) fn test_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            std::thread::current()
                .name()
                .filter(|n| *n != "main")
                .unwrap_or("")
                .to_string()
        })
    }

    /// Applies the environment to the settings in code; a setting that
    /// makes no sense is an `Err` saying what to do, which
    /// [`run`](Self::run) reports at its caller.
    fn resolve(&self, test_name: &str) -> Result<(Settings, Resolved), String> {
        let shrink_asked = match env::var("SIM_SHRINK") {
            Some(raw) => Some(env::parse_shrink(&raw)?),
            None => self.shrink,
        };
        // Replay first: a token carries its own explorer and search.
        let var = |name: &str| {
            let own = matches!(name, "SIM_SEED" | "SIM_REPLAY" | "SIM_SHARD");
            if self.case && own {
                None
            } else {
                env::var(name)
            }
        };
        let replay = var("SIM_REPLAY").or_else(|| self.replay.clone());
        let replay = match replay {
            Some(raw) if raw.eq_ignore_ascii_case("last") => {
                if test_name.is_empty() {
                    return Err(
                        "SIM_REPLAY=last replays the last failure of a test, but this \
                         exploration runs outside a test: give it a name with Explorer::name, \
                         or paste the token"
                            .to_string(),
                    );
                }
                Some(crate::picture::load_last(test_name)?)
            }
            other => other,
        };
        if let Some(raw) = replay {
            let token = ReplayToken::decode(&raw).map_err(|e| e.to_string())?;
            if token.test.is_empty() || test_name.is_empty() || token.test == test_name {
                let make = if token.explorer == self.explorer_name {
                    self.make.clone()
                } else {
                    builtin(&token.explorer).ok_or_else(|| {
                        format!(
                            "the replay token was made with explorer {:?}, which is neither a \
                             built-in nor this test's explorer ({:?}); replay it in the test \
                             that made it",
                            token.explorer, self.explorer_name
                        )
                    })?
                };
                let settings = Settings {
                    make,
                    explorer: token.explorer.clone(),
                    search: SearchKind::from_token(&token.search)
                        .map_err(|e| format!("the replay token names an {e}"))?,
                    executions: 1,
                    seed: token.seed,
                    jobs: 1,
                    shard: None,
                    env_prefix: String::new(),
                    progress: false,
                    shrink: shrink_asked.unwrap_or(0),
                };
                return Ok((settings, Resolved::Replay(token)));
            }
            return Err(format!(
                "SIM_REPLAY holds a token of test {:?}, and this is test {test_name:?}: run that \
                 test alone to replay it (`SIM_REPLAY=<token> cargo test {} -- --exact`, with \
                 the -p and --test of its reproduce line), or unset SIM_REPLAY to run this \
                 test's search",
                token.test, token.test
            ));
        }
        let mut env_prefix = String::new();
        let (mut make, mut explorer, mut randomized) = (
            self.make.clone(),
            self.explorer_name.clone(),
            self.randomized,
        );
        let env_explorer = env::var("SIM_EXPLORER");
        let mut env_search = env::var("SIM_SEARCH");
        // `SIM_SEARCH=adaptive` names the adaptive portfolio, not a search.
        let env_adaptive = match &env_search {
            Some(raw) => SearchKind::from_env(raw)? == SearchKind::Adaptive,
            None => false,
        };
        if env_adaptive {
            env_search = None;
        }
        let portfolio =
            (self.portfolio && env_explorer.is_none() && env_search.is_none()) || env_adaptive;
        let adaptive = env_adaptive || (self.adaptive && portfolio);
        if let Some(raw) = env_explorer {
            if raw != self.explorer_name {
                make = builtin(&raw).ok_or_else(|| {
                    let own = (self.explorer_named && builtin(&self.explorer_name).is_none())
                        .then_some(self.explorer_name.as_str());
                    format!(
                        "SIM_EXPLORER={raw:?} is not an explorer{}: use rtc, rr, prr, random, \
                         pos, pct, pct:<depth> or pct:<depth>:<steps>{}",
                        env::did_you_mean(&raw, &explorer_names(own)),
                        own.map_or(String::new(), |o| format!(", or this test's own {o:?}"))
                    )
                })?;
                let probe = make();
                explorer = probe.name();
                randomized = probe.is_randomized();
            }
            env_prefix.push_str(&format!("SIM_EXPLORER={raw} "));
        }
        let mut search = self.search.clone();
        let max_delays = match env::var("SIM_MAX_DELAYS") {
            Some(raw) => {
                let d = raw.replace('_', "").parse::<u32>().map_err(|_| {
                    format!(
                        "SIM_MAX_DELAYS={raw:?} is not a number of delays: give a small \
                         non-negative integer, e.g. SIM_MAX_DELAYS=3"
                    )
                })?;
                env_prefix.push_str(&format!("SIM_MAX_DELAYS={d} "));
                Some(d)
            }
            None => None,
        };
        if let Some(raw) = env_search {
            let name = SearchKind::from_env(&raw)?;
            let bound = search.max_delays();
            search = match (name, &search) {
                (SearchKind::Ses, Search::Exhaustive(_)) => search,
                (SearchKind::Ss, Search::Sampling(_)) => search,
                (SearchKind::Walk, Search::Walk(_)) => search,
                (SearchKind::Swarm, Search::Swarm(_)) => search,
                (SearchKind::Ses, _) => Search::Exhaustive(Exhaustive {
                    max_delays: bound.unwrap_or(Exhaustive::default().max_delays),
                    ..Exhaustive::default()
                }),
                (SearchKind::Ss, _) => Search::Sampling(Sampling {
                    max_delays: bound.unwrap_or(Sampling::default().max_delays),
                    ..Sampling::default()
                }),
                (SearchKind::Walk, _) => Search::Walk(Walk),
                (SearchKind::Swarm, _) => Search::Swarm(Swarm),
                (
                    SearchKind::Adaptive
                    | SearchKind::Portfolio
                    | SearchKind::Shrunk
                    | SearchKind::Replay,
                    _,
                ) => unreachable!("SIM_SEARCH names a search, and adaptive is taken out above"),
            };
            let walks = matches!(search, Search::Walk(_) | Search::Swarm(_));
            if walks && !self.explorer_named && env::var("SIM_EXPLORER").is_none() {
                // A walk named with no explorer walks uniformly at random.
                let random = Random::default();
                (explorer, randomized) = (random.name(), true);
                make = Arc::new(move || Box::new(random.clone()));
            }
            env_prefix.push_str(&format!("SIM_SEARCH={} ", search.name()));
        }
        let mut members = portfolio.then(|| {
            if adaptive {
                portfolio::adaptive_members()
            } else {
                portfolio::default_members()
            }
        });

        if let Some(d) = max_delays {
            match (&mut members, &mut search) {
                (Some(members), _) => {
                    for m in members {
                        m.set_max_delays(d);
                    }
                }
                (None, Search::Exhaustive(e)) => e.max_delays = d,
                (None, Search::Sampling(s)) => s.max_delays = d,
                // One environment often serves several tests; a setting
                // that does not apply to this one is noted, not an error.
                (None, Search::Walk(_) | Search::Swarm(_)) => eprintln!(
                    "explorer: {test_name}: SIM_MAX_DELAYS={d} is ignored: it applies to ses and \
                     ss, and this test runs {} walks, which place no delays",
                    search.name()
                ),
            }
        }
        let executions = match env::var("SIM_EXECUTIONS") {
            Some(raw) => env::parse_count("SIM_EXECUTIONS", &raw, "the execution budget")?,
            None => self.executions,
        };
        let seed = match var("SIM_SEED") {
            Some(raw) => env::parse_seed(&raw)?,
            None => self.seed,
        };
        let jobs = match env::var("SIM_JOBS") {
            Some(raw) => env::parse_count("SIM_JOBS", &raw, "the number of jobs")? as usize,
            None => self
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        };
        let shard = match var("SIM_SHARD") {
            Some(raw) => Some(env::parse_shard(&raw)?),
            None => self.shard,
        };
        if let (None, Search::Exhaustive(_)) = (&members, &search) {
            if shard.is_some() {
                return Err(
                    "SIM_SHARD applies to ss and walk; exhaustive search (ses) runs as one \
                     shard"
                        .to_string(),
                );
            }
        }
        if let (None, Search::Walk(_) | Search::Swarm(_)) = (&members, &search) {
            if !randomized {
                return Err(format!(
                    "a walk runs independent executions of a randomized explorer, but {explorer} \
                     is deterministic: every walk would be the same execution. Use \
                     SIM_EXPLORER=random or pct with walk, or ss/ses with {explorer}"
                ));
            }
        }
        let (explorer, search_name) = match members {
            Some(_) if adaptive => ("adaptive".to_string(), SearchKind::Portfolio),
            Some(_) => ("default".to_string(), SearchKind::Portfolio),
            None => (explorer, search.kind()),
        };
        let settings = Settings {
            make,
            explorer,
            search: search_name,
            executions,
            seed,
            jobs,
            shard,
            env_prefix,
            progress: self.progress,
            shrink: shrink_asked.unwrap_or(crate::DEFAULT_SHRINK_EXECUTIONS),
        };
        let what = match members {
            Some(members) => Resolved::Portfolio(members, adaptive),
            None => Resolved::Search(search),
        };
        Ok((settings, what))
    }
}

/// Replays `token`; panics when the replay is not the recorded execution,
/// with what the determinism check says of it.
fn replayed(ctx: &Ctx<'_>, token: &ReplayToken, test_name: &str) -> Report {
    let (report, steps, hash, check) = match search::replay::run(ctx, token) {
        Replayed::Same(report) => return report,
        Replayed::Diverged {
            report,
            steps,
            hash,
            check,
        } => (report, steps, hash, check),
    };
    let what = match &report.failure {
        None => "it ran to the end without failing".to_string(),
        Some(f) => format!(
            "it failed differently ({} steps, trace hash {hash:016x}, instead of {} steps, hash \
             {:016x}):\n{}",
            steps, token.steps, token.hash, f.failure
        ),
    };
    let check = match check {
        Some(divergence) => divergence,
        None => "The determinism check ran it twice more, each on a fresh thread, and both \
                 runs agreed with this replay: the program changed since the token was made, or \
                 something it reads outside the simulation differs between processes (a file, \
                 an environment variable, a `static` set before the test)"
            .to_string(),
    };
    panic!(
        "SIM_REPLAY: the replayed execution of {} is not the recorded one: {what}\n{check}\n\
         reproduce: SIM_CHECK_DETERMINISM=1 SIM_REPLAY={token} {}\n{}",
        if test_name.is_empty() {
            "this program"
        } else {
            test_name
        },
        ctx.command,
        crate::nondet::HINT
    )
}

/// Runs `search` with a watchdog that prints the reproduce line of any
/// execution that runs long (see `Progress::tell_long`).
fn watched<R: Send>(progress: &Progress, search: impl FnOnce() -> R + Send) -> R {
    use std::sync::atomic::{AtomicBool, Ordering};
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watchdog = s.spawn(|| {
            while !done.load(Ordering::Acquire) {
                std::thread::park_timeout(std::time::Duration::from_millis(100));
                progress.tell_long();
            }
        });
        // Stops the watchdog however the search ends: a panic (a replay
        // that diverged, a malformed setting) must not leave the scope
        // waiting for it.
        struct Stop<'a>(&'a AtomicBool, std::thread::Thread);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
                self.1.unpark();
            }
        }
        let _stop = Stop(&done, watchdog.thread().clone());
        search()
    })
}

/// What to run, once the environment is applied.
enum Resolved {
    Search(Search),
    /// The members, and whether the portfolio is the adaptive one.
    Portfolio(Vec<Member>, bool),
    Replay(ReplayToken),
}

/// The settings in effect: the test's, overridden by the environment (or
/// by a replay token).
struct Settings {
    make: Arc<dyn Fn() -> Box<dyn DelayingExplorer> + Send + Sync>,
    explorer: String,
    search: SearchKind,
    executions: u64,
    seed: u64,
    jobs: usize,
    shard: Option<(u32, u32)>,
    env_prefix: String,
    progress: bool,
    shrink: u64,
}

/// The names `SIM_EXPLORER` takes, for suggesting one (the test's own
/// explorer's, when it has one).
fn explorer_names(own: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = ["rtc", "rr", "prr", "random", "pct", "pos"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    names.extend(own.map(str::to_string));
    names
}

/// A built-in explorer by name: `rtc`, `rr`, `prr`, `random`, `pos`,
/// `pct`, `pct:<depth>`, `pct:<depth>:<steps>`.
pub(crate) fn builtin(
    name: &str,
) -> Option<Arc<dyn Fn() -> Box<dyn DelayingExplorer> + Send + Sync>> {
    fn make<E: DelayingExplorer + Clone + Sync + 'static>(
        e: E,
    ) -> Arc<dyn Fn() -> Box<dyn DelayingExplorer> + Send + Sync> {
        Arc::new(move || Box::new(e.clone()))
    }
    let lower = name.to_ascii_lowercase();
    Some(match lower.as_str() {
        "rtc" => make(Rtc::default()),
        "rr" => make(RoundRobin::default()),
        "prr" => make(RandomizedRoundRobin::default()),
        "random" => make(Random::default()),
        "pos" => make(Pos::default()),
        _ => {
            let rest = lower.strip_prefix("pct")?;
            let mut parts = rest.split(':').skip(1);
            if !rest.is_empty() && !rest.starts_with(':') {
                return None;
            }
            let depth = match parts.next() {
                Some(d) => d.parse().ok().filter(|&d: &usize| d >= 1)?,
                None => 3,
            };
            let pct = match parts.next() {
                Some(s) => Pct::new(depth).steps(s.parse().ok().filter(|&s: &usize| s >= 1)?),
                None => Pct::new(depth),
            };
            if parts.next().is_some() {
                return None;
            }
            make(pct)
        }
    })
}
