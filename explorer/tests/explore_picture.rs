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

/// The part of `page` that draws the view `id` ("folded" or "full").
fn view<'a>(page: &'a str, id: &str) -> &'a str {
    let id = page
        .find(&format!(r#"id="{id}" class="view""#))
        .unwrap_or_else(|| panic!("the page has a {id} view"));
    let start = page[..id].rfind("<svg").unwrap();
    let end = start + page[start..].find("</svg>").expect("the view ends");
    &page[start..end]
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
    // One header row of host names, above both views.
    assert_eq!(page.matches(r#"<div id="hosts""#).count(), 1);
    assert_eq!(page.matches(r#"<span style="left: "#).count(), 3);
    assert!(!page.contains("host-name"), "no second row of names");
    for id in ["folded", "full"] {
        let view = view(&page, id);
        for (part, what) in [
            (r#"<g class="message lost" data-i="#, "the lost hello"),
            (r#"class="chosen-row""#, "the partition highlighted"),
            // The fault by its name.
            (r#"class="mark fault chosen""#, "the partition named"),
            (">partition a | b<", "the partition named"),
            (r#"class="mark timer"#, "the timeout firing"),
            // Arrows carry their message's first bytes.
            (
                r#"class="msg-label">&quot;hello b&quot;</text>"#,
                "the hello labelled",
            ),
        ] {
            assert!(view.contains(part), "{what} in {id}");
        }
        // The failure is the last thing drawn, at its step.
        let failure = view.find(r#"<g class="failure""#).unwrap();
        assert!(!view[failure + 10..].contains(r#"<g class="mark"#));
        assert!(
            view[failure..].contains(&format!(">step {}: ", found.failure.step())),
            "{}",
            &view[failure..]
        );
    }
    // The story in words and the reproduce line, at the top.
    assert!(
        page.contains(&format!(r#"<code id="reproduce">{}</code>"#, found.command)),
        "the reproduce line"
    );
    for line in &found.story {
        let html = line
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;");
        assert!(page.contains(&html), "the story's line {line:?}");
    }
    // Details: the log line emitted by "a" is in the events' data, and the
    // failure's details give the banner's step.
    assert!(
        page.contains("a said hello"),
        "log lines are in the details"
    );
    assert!(
        page.contains(&format!(r#""step":{},"logs""#, found.failure.step())),
        "the failure's details"
    );
    // Self-contained.
    assert!(!page.contains("<link") && !page.contains(" src="));
    assert!(!page.contains("https://"));
}

/// [`common::hello`] beside a task on main that ticks every 2 ms: steps
/// the story does not name, for the folded view to fold.
async fn hello_with_ticks() {
    sim_rt::spawn(async {
        for _ in 0..40 {
            sim_rt::time::sleep(std::time::Duration::from_millis(2)).await;
        }
    });
    common::hello().await;
}

#[test]
fn the_folded_view_shows_the_steps_the_story_names() {
    let found = common::partition_explorer()
        .run(hello_with_ticks)
        .failure
        .expect("a partition before the hello");
    let page = std::fs::read_to_string(found.picture.as_ref().unwrap()).unwrap();
    let folded = view(&page, "folded");
    let full = view(&page, "full");
    let step = |l: &str| -> u64 {
        let n = l.strip_prefix("step ").unwrap().split(',').next().unwrap();
        n.parse().unwrap()
    };
    // Every step the story tells is a named row of both views, and the
    // story's line jumps to it.
    for line in &found.story {
        let named = format!(r#"class="named-row" data-step="{}""#, step(line));
        assert!(folded.contains(&named) && full.contains(&named), "{line}");
        assert!(page.contains(&format!(r##"<a href="#" data-step="{}""##, step(line))));
    }
    // Folded: fewer rows than steps, the rest in folds one can open.
    let rows = |v: &str| v.matches(r#"class="stepno""#).count() as u64;
    assert_eq!(rows(full), found.failure.step());
    assert!(
        rows(folded) < rows(full),
        "{} of {}",
        rows(folded),
        rows(full)
    );
    assert!(folded.contains(r#"<g class="fold" data-row=""#));
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
    assert!(log.contains(&format!("failure at step {}: ", found.failure.step())));
    // A delivery merges the sender's clock: a's receive of main's "hi"
    // knows main's send.
    let receive = log.lines().position(|l| l.starts_with("receive")).unwrap();
    let clock = log.lines().nth(receive + 1).unwrap();
    assert!(clock.contains("\"main\":"), "{clock}");
}

/// Opens `page` in Debian's Chromium (headless, in a 1280 x 800 window)
/// with its self-test; returns the DOM after the script ran and what
/// Chromium logged, or `None` when Chromium is not installed (unless
/// `SIM_REQUIRE_CHROMIUM=1`: CI sets it).
fn open_in_chromium(page: &Path) -> Option<(String, String)> {
    let chromium = Path::new("/usr/bin/chromium");
    if !chromium.exists() {
        assert!(
            std::env::var_os("SIM_REQUIRE_CHROMIUM").is_none(),
            "SIM_REQUIRE_CHROMIUM is set but /usr/bin/chromium is missing: apt-get install chromium"
        );
        eprintln!("skipped: /usr/bin/chromium is not installed (apt-get install chromium)");
        return None;
    }
    let out = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,800",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("file://{}?selftest", page.display()))
        .output()
        .expect("chromium runs");
    Some((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The value of the attribute `name` the self-test set on the body.
fn attribute<'a>(dom: &'a str, name: &str) -> &'a str {
    let start = dom
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("the self-test set {name}"))
        + name.len()
        + 2;
    let end = start + dom[start..].find('"').unwrap();
    &dom[start..end]
}

/// Opens the page in Chromium with its self-test, and checks the script
/// ran, a click showed details, nothing was logged to the console, and
/// the page shows the story, the reproduce line and labelled arrows, with
/// the failure's step the same in its banner and its details.
#[test]
fn the_page_opens_in_a_headless_browser_without_console_errors() {
    let found = found();
    let Some((dom, log)) = open_in_chromium(found.picture.as_ref().unwrap()) else {
        return;
    };
    assert!(dom.contains("data-ready=\""), "the script ran: {log}");
    assert!(
        dom.contains("data-selftest=\"ok\""),
        "a click showed details: {log}"
    );
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE:")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    let story: usize = attribute(&dom, "data-story").parse().unwrap();
    assert_eq!(story, found.story.len(), "the story's lines, on the page");
    assert_eq!(attribute(&dom, "data-reproduce"), found.command);
    // The folded view's arrows, as drawn: the hello, labelled.
    let labels = attribute(&dom, "data-labels");
    assert!(
        labels.contains("&quot;hello b&quot;"),
        "labelled arrows drawn: {labels}"
    );
    let step = found.failure.step();
    assert_eq!(
        attribute(&dom, "data-failure-steps"),
        format!("step {step} / step {step}"),
        "the banner and the details agree"
    );
}

/// How many ticks "c" sends in [`chatty_hello`]: about 900 steps before
/// the failure.
const TICKS: u32 = 225;

/// [`common::hello`] in a busy network: "c" sends "a" a tick every
/// millisecond for 225 ms, which "a" reads, and "a" says hello only after
/// 200 ms. A
/// partition of a | b before then fails it, some 900 steps in.
async fn chatty_hello() {
    use std::time::Duration;
    sim_rt::sim::host("a").start(|| async {
        let sock = std::sync::Arc::new(sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?);
        let reader = sock.clone();
        sim_rt::spawn(async move {
            let mut buf = [0u8; 16];
            while reader.recv_from(&mut buf).await.is_ok() {}
        });
        sim_rt::time::sleep(Duration::from_millis(200)).await;
        sock.send_to(b"hello b", "b:9").await?;
        std::future::pending::<std::io::Result<()>>().await
    });
    common::start_b_waiting_for_a(Duration::from_millis(250));
    sim_rt::sim::host("c").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:0").await?;
        for i in 0..TICKS {
            sim_rt::time::sleep(Duration::from_millis(1)).await;
            sock.send_to(format!("tick {i}").as_bytes(), "a:9").await?;
        }
        Ok::<(), std::io::Error>(())
    });
    sim_rt::time::sleep(Duration::from_millis(300)).await;
}

/// Screens the folded view of a long failure may take: the acceptance
/// bound.
const SCREENS: u64 = 2;
/// A screen, in pixels: a laptop's window (Chromium's, here, is 800 px
/// high, with some 710 px inside).
const SCREEN: u64 = 700;

#[test]
fn the_folded_view_of_a_900_step_failure_fits_in_two_screens() {
    let report = common::partition_explorer().run(chatty_hello);
    let found = report
        .failure
        .as_ref()
        .expect("a partition of a | b before the hello");
    eprintln!("{report}");
    let steps = found.failure.step();
    assert!((800..=1_200).contains(&steps), "about 900 steps: {steps}");
    common::assert_story_tells(&found.story, "the story", |l| {
        l.contains("partition a | b (fault injector)")
    });
    let path = found.picture.as_ref().unwrap();
    let page = std::fs::read_to_string(path).unwrap();
    let height = |view: &str| -> u64 {
        let h = view.split("height=\"").nth(1).unwrap();
        h[..h.find('"').unwrap()].parse().unwrap()
    };
    let (folded, full) = (view(&page, "folded"), view(&page, "full"));
    assert!(
        height(folded) <= SCREENS * SCREEN,
        "the folded view is {} px high",
        height(folded)
    );
    assert!(
        height(full) > 10 * height(folded),
        "{} vs {}",
        height(full),
        height(folded)
    );
    // As Chromium lays it out: the folded view against its window.
    if let Some((dom, log)) = open_in_chromium(path) {
        assert!(dom.contains("data-selftest=\"ok\""), "{log}");
        let drawn: u64 = attribute(&dom, "data-folded-height").parse().unwrap();
        let screen: u64 = attribute(&dom, "data-screen-height").parse().unwrap();
        eprintln!("the folded view: {drawn} px drawn, in a window {screen} px high");
        assert!(
            drawn <= SCREENS * screen,
            "{drawn} px drawn, screens of {screen}"
        );
    }
}

/// A task that yields this many times before the run fails: that many
/// steps, each a poll.
const LONG_RUN_POLLS: u32 = 100_000;

/// The page of a failure after a hundred thousand polls holds a detail only
/// for the polls a view draws (the last rows, and those around the steps
/// the story names), not one for every poll of the run.
#[test]
fn a_long_failures_page_holds_only_what_it_draws() {
    let report = explorer::Explorer::new()
        .progress(false)
        .jobs(1)
        .search(explorer::Sampling::new(0))
        .executions(1)
        .run(|| async {
            sim_rt::spawn(async {
                for _ in 0..LONG_RUN_POLLS {
                    sim_rt::task::yield_now().await;
                }
            })
            .await
            .unwrap();
            assert!(sim_rt::sim::step() == 0, "the long run ends");
        });
    let found = report.failure.as_ref().expect("it fails");
    assert!(found.failure.step() > u64::from(LONG_RUN_POLLS), "{report}");
    let page = std::fs::read_to_string(found.picture.as_ref().unwrap()).unwrap();
    let polls = page.matches("poll task 2 on main").count();
    assert!(
        (1_000..20_000).contains(&polls),
        "{polls} poll details in a page of {} bytes",
        page.len()
    );
}
