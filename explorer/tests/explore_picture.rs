//! A failure is drawn as a self-contained HTML page and exported as a
//! ShiViz log; the page opens in a real headless browser without console
//! errors.

use std::collections::BTreeMap;
use std::path::Path;

use explorer::FoundFailure;

mod common;

fn found() -> FoundFailure {
    let report = common::partition_explorer().run(common::hello);
    let text = report.to_string();
    let found = report.failure.expect("a partition before the hello");
    assert!(text.contains("  picture: "), "{text}");
    assert!(text.contains("  ShiViz log: "), "{text}");
    found
}

#[test]
fn the_page_has_hosts_arrows_highlights_and_the_failure() {
    let found = found();
    let path = found.picture.as_ref().expect("written");
    assert!(path.to_string_lossy().contains("sim-failures"), "{path:?}");
    let page = std::fs::read_to_string(path).unwrap();
    for host in ["main", "a", "b"] {
        assert!(
            page.contains(&format!(r#"class="host-column" data-host="{host}""#)),
            "{host}"
        );
    }
    assert!(
        page.contains(r#"<g class="message" data-i="#),
        "a delivered message"
    );
    assert!(
        page.contains(r#"<g class="message lost" data-i="#),
        "the lost hello"
    );
    assert!(
        page.contains(r#"class="chosen-row""#),
        "the partition highlighted"
    );
    assert!(
        page.contains(r#"class="mark fault chosen""#),
        "the partition marked"
    );
    assert!(page.contains(r#"class="mark timer"#), "the timeout firing");
    assert!(page.contains(r#"<g class="failure" data-i="#));
    // The failure is the last thing drawn.
    let failure = page.find(r#"<g class="failure""#).unwrap();
    assert!(page[failure..].find("data-i=").is_some());
    assert!(!page[failure + 10..].contains(r#"<g class="mark"#));
    // Details: the log line emitted by "a" is in the events' data.
    assert!(
        page.contains("a said hello"),
        "log lines are in the details"
    );
    // Self-contained.
    assert!(!page.contains("<link") && !page.contains(" src="));
    assert!(!page.contains("https://"));
}

/// ShiViz's default parser expression, as its documentation gives it:
/// `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})` (Rust writes named groups
/// `(?P<..>)` and wants the braces escaped).
const SHIVIZ: &str = r"(?P<event>.*)\n(?P<host>\S*) (?P<clock>\{.*\})";

#[test]
fn the_shiviz_log_parses_with_shivizs_expression() {
    let found = found();
    let file = std::fs::read_to_string(found.shiviz.as_ref().unwrap()).unwrap();
    // ShiViz's file format: the expression, an empty delimiter, the log.
    let (expression, rest) = file.split_once('\n').unwrap();
    assert_eq!(expression, r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})");
    let log = rest.strip_prefix('\n').expect("an empty delimiter line");
    let re = regex::Regex::new(SHIVIZ).unwrap();
    let clock_entry = regex::Regex::new(r#""([^"]+)":(\d+)"#).unwrap();
    let mut last: BTreeMap<String, u64> = BTreeMap::new();
    let mut events = 0;
    let mut end = 0;
    for m in re.captures_iter(log) {
        assert_eq!(m.get(0).unwrap().start(), end, "events follow each other");
        end = m.get(0).unwrap().end() + 1;
        events += 1;
        let host = &m["host"];
        let clock: BTreeMap<String, u64> = clock_entry
            .captures_iter(&m["clock"])
            .map(|c| (c[1].to_string(), c[2].parse().unwrap()))
            .collect();
        // A host's own count goes up by one at each of its events.
        let own = clock[host];
        assert_eq!(own, last.get(host).copied().unwrap_or(0) + 1, "{}", &m[0]);
        last.insert(host.to_string(), own);
    }
    assert_eq!(end, log.len(), "the whole log parses");
    let log = log.to_string();
    assert_eq!(events * 2, log.lines().count());
    assert!(last.contains_key("a") && last.contains_key("b"));
    assert!(log.contains("\"hello b\""));
    assert!(log.contains("failure: "));
    // A delivery merges the sender's clock: a's receive of main's "hi"
    // knows main's send.
    let receive = log.lines().position(|l| l.starts_with("receive")).unwrap();
    let clock = log.lines().nth(receive + 1).unwrap();
    assert!(clock.contains("\"main\":"), "{clock}");
}

/// Opens the page in Debian's Chromium (headless) with its self-test, and
/// checks the script ran, a click showed details, and nothing was logged
/// to the console. Skipped when Chromium is not installed, unless
/// `SIM_REQUIRE_CHROMIUM=1` (CI sets it).
#[test]
fn the_page_opens_in_a_headless_browser_without_console_errors() {
    let chromium = Path::new("/usr/bin/chromium");
    if !chromium.exists() {
        assert!(
            std::env::var_os("SIM_REQUIRE_CHROMIUM").is_none(),
            "SIM_REQUIRE_CHROMIUM is set but /usr/bin/chromium is missing: apt-get install chromium"
        );
        eprintln!("skipped: /usr/bin/chromium is not installed (apt-get install chromium)");
        return;
    }
    let found = found();
    let page = found.picture.unwrap();
    let out = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("file://{}?selftest", page.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(dom.contains("data-ready=\""), "the script ran: {log}");
    assert!(
        dom.contains("data-selftest=\"ok\""),
        "a click showed details: {log}"
    );
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE:")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
}
