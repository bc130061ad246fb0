//! `cargo sim`'s command line: what goes to cargo, to the test binary and to
//! the simulator, what is refused, and the reproduce prefix.

use std::path::PathBuf;

use cargo_sim::args::{parse, Filters, Invocation, Parsed, Subcommand};

fn run(args: &[&str]) -> Invocation {
    match parse(args.iter().copied()) {
        Ok(Parsed::Run(inv)) => inv,
        other => panic!("{args:?} parsed as {other:?}"),
    }
}

fn refused(args: &[&str]) -> String {
    match parse(args.iter().copied()) {
        Err(e) => e.0,
        Ok(p) => panic!("{args:?} was accepted: {p:?}"),
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn cargos_leading_sim_is_skipped() {
    // cargo runs `cargo sim test` as `cargo-sim sim test`.
    assert_eq!(run(&["sim", "test", "-p", "a"]), run(&["test", "-p", "a"]));
    assert_eq!(run(&["sim", "test"]).subcommand, Subcommand::Test);
    assert_eq!(run(&["run"]).subcommand, Subcommand::Run);
    assert_eq!(run(&["sim", "nextest"]).subcommand, Subcommand::Nextest);
    // `cargo sim nextest run` reads as `cargo nextest run`.
    assert!(run(&["nextest", "run", "-p", "a"]).cargo_args == ["-p", "a"]);
}

#[test]
fn help_and_version() {
    for args in [
        &[][..],
        &["sim"],
        &["help"],
        &["sim", "--help"],
        &["-h"],
        &["test", "--seed", "1", "--help"],
    ] {
        assert_eq!(parse(args.iter().copied()), Ok(Parsed::Help), "{args:?}");
    }
    assert_eq!(parse(["sim", "--version"]), Ok(Parsed::Version));
    // After `--`, --help is the test binary's.
    assert_eq!(
        run(&["test", "--", "--help"]).trailing,
        Some(strings(&["--help"]))
    );
}

#[test]
fn sim_options_become_the_simulators_variables() {
    let inv = run(&[
        "test",
        "--seed",
        "0x2a",
        "-p",
        "shop",
        "--replay=last",
        "--explorer",
        "pct:3",
        "--search",
        "SS",
        "--executions",
        "20_000",
        "--jobs=4",
        "name",
    ]);
    assert_eq!(
        inv.sim_env,
        [
            ("SIM_SEED", "0x2a".to_string()),
            ("SIM_REPLAY", "last".to_string()),
            ("SIM_EXPLORER", "pct:3".to_string()),
            ("SIM_SEARCH", "ss".to_string()),
            ("SIM_EXECUTIONS", "20000".to_string()),
            ("SIM_JOBS", "4".to_string()),
        ]
    );
    assert_eq!(inv.cargo_args, ["-p", "shop", "name"]);
    assert_eq!(inv.trailing, None);
    // A replay token is URL-safe base64, which may start with '-'.
    assert_eq!(
        run(&["test", "--replay", "-Ab_9"]).sim_env,
        [("SIM_REPLAY", "-Ab_9".to_string())]
    );
}

#[test]
fn after_the_double_dash_everything_is_the_test_binarys() {
    let inv = run(&[
        "test",
        "--release",
        "--",
        "--seed",
        "x",
        "--jobs",
        "0",
        "--",
        "name",
    ]);
    assert!(inv.sim_env.is_empty());
    assert_eq!(inv.cargo_args, ["--release"]);
    assert_eq!(
        inv.trailing,
        Some(strings(&["--seed", "x", "--jobs", "0", "--", "name"]))
    );
    assert_eq!(run(&["test", "--"]).trailing, Some(vec![]));
}

#[test]
fn values_of_cargos_options_are_never_read_as_options() {
    let inv = run(&["test", "--config", "--seed", "-p", "--jobs", "-j", "2"]);
    assert!(inv.sim_env.is_empty());
    assert_eq!(
        inv.cargo_args,
        ["--config", "--seed", "-p", "--jobs", "-j", "2"]
    );
}

#[test]
fn target_dir_and_sim_tokio_are_taken_out_of_cargos_arguments() {
    let inv = run(&[
        "test",
        "--target-dir",
        "t",
        "--sim-tokio=/x/sim-tokio",
        "-p",
        "a",
    ]);
    assert_eq!(inv.target_dir, Some(PathBuf::from("t")));
    assert_eq!(inv.sim_tokio, Some(PathBuf::from("/x/sim-tokio")));
    assert_eq!(inv.cargo_args, ["-p", "a"]);
    assert_eq!(
        run(&["test", "--target-dir=u"]).target_dir,
        Some(PathBuf::from("u"))
    );
}

#[test]
fn dependencies_are_optimized_unless_asked_not_to() {
    assert!(run(&["test", "-p", "a"]).optimize_deps);
    let inv = run(&[
        "test",
        "--no-optimize-deps",
        "-p",
        "a",
        "--",
        "--no-optimize-deps",
    ]);
    assert!(!inv.optimize_deps);
    // Taken out of cargo's arguments, not the test binary's.
    assert_eq!(inv.cargo_args, ["-p", "a"]);
    assert_eq!(inv.trailing, Some(strings(&["--no-optimize-deps"])));
    // The reproduce line selects the same build.
    assert_eq!(
        inv.reproduce_prefix(None),
        "cargo sim test --no-optimize-deps"
    );
    assert_eq!(
        cargo_sim::cargo::optimized_deps(&run(&["test"]), &[]),
        [
            "--config",
            r#"profile.dev.package."*".opt-level=2"#,
            "--config",
            r#"profile.dev.package."*".debug="line-tables-only""#
        ]
    );
    assert!(cargo_sim::cargo::optimized_deps(&inv, &["syn".to_string()]).is_empty());
}

#[test]
fn malformed_values_are_one_line_errors() {
    let cases: [(&[&str], &str); 13] = [
        (&["test", "--seed", "abc"], r#"--seed "abc" is not a seed"#),
        (&["test", "--seed", "-1"], "is not a seed"),
        (&["test", "--seed=0xg"], "is not a seed"),
        (&["test", "--seed"], "--seed needs a value, e.g. --seed 42"),
        (
            &["test", "--jobs", "0"],
            "--jobs 0: the number must be at least 1",
        ),
        (
            &["run", "--executions", "many"],
            r#"--executions "many" is not a number"#,
        ),
        (
            &["test", "--search", "bfs"],
            r#"--search "bfs" is not a search: use ses"#,
        ),
        (&["test", "--explorer", " "], "--explorer needs a value"),
        (&["test", "--replay="], "--replay needs a value"),
        (
            &["test", "--seed", "1", "--seed", "2"],
            "--seed is given twice",
        ),
        (&["test", "--sim-tokio", ""], "--sim-tokio needs a value"),
        (
            &["test", "--no-optimize-deps=yes"],
            "--no-optimize-deps takes no value",
        ),
        (&["tset"], r#"unknown subcommand "tset""#),
    ];
    for (args, expected) in cases {
        let e = refused(args);
        assert!(e.contains(expected), "{args:?}: {e}");
        assert!(!e.contains('\n'), "{args:?}: not one line: {e}");
    }
}

#[test]
fn filters_are_cargos_testname_and_libtests_positionals() {
    let f = run(&["test", "-p", "shop", "--test", "sim", "planted"]).filters();
    assert_eq!(
        f,
        Filters {
            names: strings(&["planted"]),
            skips: vec![],
            ignored_only: false
        }
    );
    assert_eq!(f.to_string(), r#"the filter "planted""#);
    let f = run(&[
        "test",
        "--",
        "--test-threads",
        "2",
        "a",
        "--exact",
        "--skip",
        "b",
        "--skip=c",
        "--ignored",
    ])
    .filters();
    assert_eq!(f.names, ["a"]);
    assert_eq!(f.skips, ["b", "c"]);
    assert!(f.ignored_only);
    assert_eq!(
        f.to_string(),
        r#"the filter "a" with --skip "b", "c" with --ignored"#
    );
    assert!(!run(&["test", "--features", "f", "-j", "2"]).filters().any());
}

#[test]
fn only_a_test_run_expects_tests() {
    assert!(run(&["test"]).expects_tests());
    assert!(!run(&["test", "--no-run"]).expects_tests());
    assert!(!run(&["test", "--", "--list"]).expects_tests());
    assert!(!run(&["run"]).expects_tests());
    // nextest fails by itself when no test runs.
    assert!(!run(&["nextest"]).expects_tests());
}

#[test]
fn the_reproduce_prefix_keeps_the_build_selecting_arguments() {
    let inv = run(&[
        "sim",
        "test",
        "-p",
        "shop",
        "--release",
        "--test",
        "sim",
        "--features",
        "a b",
        "--seed",
        "3",
        "-Fc",
        "--features=d",
        "--manifest-path",
        "x/Cargo.toml",
        "--no-default-features",
        "--all-features",
        "-r",
        "--profile=bench",
        "--target",
        "x86_64-unknown-linux-gnu",
        "--config",
        "k='v'",
        "--target-dir",
        "t",
        "--offline",
        "-j",
        "2",
        "planted",
        "--",
        "--exact",
        "--release",
    ]);
    assert_eq!(
        inv.reproduce_prefix(None),
        "cargo sim test --release --features 'a b' -Fc --features=d --manifest-path \
         x/Cargo.toml --no-default-features --all-features -r --profile=bench --target \
         x86_64-unknown-linux-gnu --config 'k='\\''v'\\'''"
    );
    assert_eq!(run(&["run"]).reproduce_prefix(None), "cargo sim run");
    assert_eq!(
        run(&["test", "--sim-tokio", "/a b/sim-tokio"]).reproduce_prefix(Some("-C debuginfo=0")),
        "RUSTFLAGS='-C debuginfo=0' cargo sim test --sim-tokio '/a b/sim-tokio'"
    );
    assert_eq!(run(&["test"]).reproduce_prefix(Some(" ")), "cargo sim test");
}

#[test]
fn a_nextest_run_is_reproduced_with_cargo_sim_test() {
    let inv = run(&[
        "nextest",
        "--profile",
        "ci",
        "--cargo-profile",
        "release-lto",
        "-E",
        "test(x)",
        "--cargo-profile=dev",
    ]);
    assert_eq!(
        inv.reproduce_prefix(None),
        "cargo sim test --profile release-lto --profile=dev"
    );
}
