//! The guide under `docs/` holds together: every chapter that SUMMARY.md
//! names exists, every chapter is named there and compiled as a doctest
//! (`src/guide.rs`), every relative link of the guide and of the README
//! reaches a file and a heading, and the README stays short.
//!
//! What `mdbook build docs` would catch too, checked here because CI may
//! not have mdbook (and mdbook does not check links).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The README is read in five minutes: about 300 lines.
const README_MAX_LINES: usize = 320;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("examples/ is in the workspace")
        .to_path_buf()
}

fn src() -> PathBuf {
    root().join("docs/src")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{} is readable: {e}", path.display()))
}

/// The chapters in `docs/src/`, SUMMARY.md aside.
fn chapter_files() -> BTreeSet<String> {
    fs::read_dir(src())
        .expect("docs/src is a directory")
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".md") && name != "SUMMARY.md")
        .collect()
}

/// `text` without its fenced blocks and inline code spans, whose brackets
/// are not links.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            // Between the odd and the even backtick is code.
            let outside: Vec<&str> = line.split('`').step_by(2).collect();
            out.push_str(&outside.join(" "));
            out.push('\n');
        }
    }
    out
}

/// The targets of the inline links and images in `text`, `[..](target)`.
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut found = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find(')').expect("a link's target ends with ')'");
        found.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    found
}

/// The anchors of the headings of `text`, as GitHub and mdBook make them.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let anchor: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        found.insert(anchor);
    }
    found
}

/// The problems with the relative links of `file`: a target that does not
/// exist, a heading that is not there, or (when `within` is set) a target
/// outside that directory, which a built book would not have.
fn broken_links(file: &Path, within: Option<&Path>) -> Vec<String> {
    let text = read(file);
    let dir = file.parent().unwrap();
    let mut broken = Vec::new();
    for link in links(&text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match link.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (link.as_str(), None),
        };
        let target = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        let Ok(target) = target.canonicalize() else {
            broken.push(format!("{}: {link}: no such file", file.display()));
            continue;
        };
        if let Some(within) = within {
            if !target.starts_with(within.canonicalize().unwrap()) {
                broken.push(format!(
                    "{}: {link}: outside {} (the built book would not have it)",
                    file.display(),
                    within.display()
                ));
            }
        }
        if let Some(anchor) = anchor {
            if !anchors(&read(&target)).contains(anchor) {
                broken.push(format!("{}: {link}: no such heading", file.display()));
            }
        }
    }
    broken
}

/// Fenced blocks that name no language: rustdoc would take them for Rust.
fn unlabelled_blocks(file: &Path) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for (number, line) in read(file).lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            if !fenced && info.trim().is_empty() {
                found.push(format!("{}:{}", file.display(), number + 1));
            }
            fenced = !fenced;
        }
    }
    found
}

#[test]
fn summary_names_every_chapter_and_only_chapters_that_exist() {
    let summary = read(&src().join("SUMMARY.md"));
    let named: BTreeSet<String> = links(&summary).into_iter().collect();
    let files = chapter_files();
    let missing: Vec<_> = named.difference(&files).collect();
    assert!(
        missing.is_empty(),
        "SUMMARY.md names missing chapters: {missing:?}"
    );
    let unnamed: Vec<_> = files.difference(&named).collect();
    assert!(
        unnamed.is_empty(),
        "chapters SUMMARY.md does not name (mdbook would leave them out): {unnamed:?}"
    );
}

#[test]
fn every_chapter_is_a_doctest() {
    let guide = read(&root().join("examples/src/guide.rs"));
    let missing: Vec<_> = chapter_files()
        .into_iter()
        .filter(|chapter| !guide.contains(&format!("\"{chapter}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "chapters whose snippets are not compiled (list them in examples/src/guide.rs): {missing:?}"
    );
}

#[test]
fn every_relative_link_reaches_its_file_and_heading() {
    let mut broken = Vec::new();
    let mut files = chapter_files();
    files.insert("SUMMARY.md".to_string());
    for file in files {
        broken.extend(broken_links(&src().join(file), Some(&src())));
    }
    broken.extend(broken_links(&root().join("README.md"), None));
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_fenced_block_names_its_language() {
    let mut found = unlabelled_blocks(&root().join("README.md"));
    for chapter in chapter_files() {
        found.extend(unlabelled_blocks(&src().join(chapter)));
    }
    assert!(
        found.is_empty(),
        "blocks with no language (rustdoc takes them for Rust: say `text`, `sh`, `toml`...):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_readme_is_read_in_five_minutes() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move the detail into a chapter of docs/src"
    );
}

#[test]
fn the_readme_links_into_the_guide() {
    let readme = read(&root().join("README.md"));
    let into_guide = links(&readme)
        .into_iter()
        .filter(|link| link.starts_with("docs/src/"))
        .count();
    assert!(into_guide > 0, "the README links to no chapter of docs/src");
}

/// The checks themselves: a broken link, a missing heading and a link out
/// of the book are each found.
#[test]
fn a_broken_link_is_found() {
    let dir = std::env::temp_dir().join(format!("sim-rt-guide-{}", std::process::id()));
    let book = dir.join("src");
    fs::create_dir_all(&book).unwrap();
    fs::write(dir.join("outside.md"), "# Outside\n").unwrap();
    fs::write(book.join("b.md"), "# B\n\n## The `cargo sim` way\n").unwrap();
    let a = book.join("a.md");
    fs::write(
        &a,
        "# A\n\n[fine](b.md#the-cargo-sim-way) [gone](c.md) [heading](b.md#nope) \
         [out](../outside.md) `[not](a link)`\n\n```text\n[nor](this)\n```\n",
    )
    .unwrap();
    let broken = broken_links(&a, Some(&book));
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].ends_with("c.md: no such file"), "{broken:#?}");
    assert!(
        broken[1].ends_with("b.md#nope: no such heading"),
        "{broken:#?}"
    );
    assert!(broken[2].contains("../outside.md: outside"), "{broken:#?}");
}
