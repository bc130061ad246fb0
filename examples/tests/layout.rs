//! The floors the guide's layout chapter (`docs/src/layout.md`) draws hold
//! in the code: every file of sim-rt and of the explorer stands on a floor
//! of its crate's table, no import runs to a higher floor unless the
//! chapter names that arrow (`from.rs -> to.rs`), and no import circle
//! runs through two folders.
//!
//! Imports are read as text: the paths that start with `crate::`,
//! `super::` or `self::` in `use` items and in code (comments and a file's
//! `#[cfg(test)] mod tests` left out), each taken to the file of the
//! longest module it names. Re-exports are not followed: a module imports
//! an item from the file that defines it, or counts as importing from the
//! file that re-exports it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate's files by module path (`["runtime", "world"]` for
/// `runtime/world.rs`), each with its path below `src/`.
type Modules = BTreeMap<Vec<String>, String>;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn modules(src: &Path) -> Modules {
    fn walk(dir: &Path, src: &Path, out: &mut Modules) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, src, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(src)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                let mut parts: Vec<String> = rel
                    .trim_end_matches(".rs")
                    .split('/')
                    .map(String::from)
                    .collect();
                if matches!(
                    parts.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    parts.pop();
                }
                out.insert(parts, rel);
            }
        }
    }
    let mut out = Modules::new();
    walk(src, src, &mut out);
    out
}

/// The text of a file that counts: no comments, no string contents, no
/// trailing `#[cfg(test)] mod tests`.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
        } else if text[i..].starts_with("/*") {
            i = text[i..].find("*/").map_or(bytes.len(), |n| i + n + 2);
        } else if let Some(len) = char_literal(&text[i..]) {
            i += len;
        } else if bytes[i] == b'"' {
            // A string's words are not paths (a raw string's `#` is rare
            // enough here to be left to this simple scan).
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The length of a char literal at the start of `text` (`'"'`, `'\''`,
/// `'é'`), if one starts there (a lifetime does not close).
fn char_literal(text: &str) -> Option<usize> {
    let mut chars = text.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let (_, c) = chars.next()?;
    if c == '\\' {
        chars.next()?;
    }
    let (at, close) = chars.next()?;
    (close == '\'').then_some(at + 1)
}

/// The paths of a `use` tree (`a::{b, c::d as e}` gives `a::b`, `a::c::d`).
fn use_paths(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let mut depth = 0;
    let mut start = 0;
    let mut items = Vec::new();
    for (i, ch) in tree.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&tree[start..]);
    for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
        match item.find('{') {
            Some(open) => {
                let head = item[..open].trim_end_matches("::");
                // A `{` without its `}` is not a use tree (text in a macro).
                if let Some(close) = item.rfind('}').filter(|&c| c > open) {
                    use_paths(&item[open + 1..close], &format!("{prefix}{head}::"), out);
                }
            }
            None => {
                let name = item.split(" as ").next().unwrap().trim();
                out.push(format!("{prefix}{name}"));
            }
        }
    }
}

/// The files `module` imports from, each with the paths that name it.
fn imports(
    module: &[String],
    code: &str,
    all: &Modules,
) -> BTreeMap<Vec<String>, BTreeSet<String>> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut cursor = 0;
    for (at, _) in code.match_indices("use ") {
        let boundary = at == 0 || !code.as_bytes()[at - 1].is_ascii_alphanumeric();
        if !boundary || at < cursor {
            continue;
        }
        let Some(end) = code[at..].find(';') else {
            break;
        };
        rest.push_str(&code[cursor..at]);
        let tree: String = code[at + 4..at + end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        use_paths(&tree, "", &mut paths);
        cursor = at + end + 1;
    }
    rest.push_str(&code[cursor..]);
    // Paths in code: `crate::x::y`, `super::x`, `self::x`.
    let bytes = rest.as_bytes();
    for root in ["crate::", "super::", "self::"] {
        for (at, _) in rest.match_indices(root) {
            if at > 0
                && (bytes[at - 1].is_ascii_alphanumeric()
                    || bytes[at - 1] == b'_'
                    || bytes[at - 1] == b':')
            {
                continue;
            }
            let end = rest[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(rest.len(), |n| at + n);
            paths.push(rest[at..end].trim_end_matches(':').to_string());
        }
    }
    let mut out: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let (mut base, mut segs): (Vec<String>, &[&str]) = match segs.first() {
            Some(&"crate") => (Vec::new(), &segs[1..]),
            Some(&"self") => (module.to_vec(), &segs[1..]),
            Some(&"super") => (module.to_vec(), &segs[..]),
            _ => continue,
        };
        while let Some((&"super", more)) = segs.split_first() {
            base.pop();
            segs = more;
        }
        base.extend(segs.iter().map(|s| s.to_string()));
        let target = (0..=base.len())
            .rev()
            .map(|n| base[..n].to_vec())
            .find(|m| all.contains_key(m))
            .unwrap_or_default();
        // Not itself, not the crate root, not its own descendants (a
        // module's arrows to its children declare them).
        if target.is_empty() || target == module || target.starts_with(module) {
            continue;
        }
        out.entry(target).or_default().insert(path);
    }
    out
}

/// `{a,b}` expanded: `runtime/{x,y}.rs` gives `runtime/x.rs`, `runtime/y.rs`.
fn expand(pattern: &str) -> Vec<String> {
    match (pattern.find('{'), pattern.find('}')) {
        (Some(open), Some(close)) => pattern[open + 1..close]
            .split(',')
            .flat_map(|alt| {
                expand(&format!(
                    "{}{alt}{}",
                    &pattern[..open],
                    &pattern[close + 1..]
                ))
            })
            .collect(),
        _ => vec![pattern.to_string()],
    }
}

/// The floors of the table under `heading` in the layout chapter: each
/// file or folder (a name ending in `/`) written in backticks in a row's
/// second column, with the row's floor number.
fn floors(layout: &str, heading: &str) -> Vec<(u32, String)> {
    let table = &layout[layout
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in layout.md"))..];
    let mut out = Vec::new();
    for line in table.lines().skip(1).skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').collect();
        let Some(floor) = cells[1]
            .trim()
            .split('.')
            .next()
            .and_then(|n| n.parse().ok())
        else {
            continue;
        };
        for token in cells[2].split('`').skip(1).step_by(2) {
            if token.ends_with(".rs") || token.ends_with('/') {
                out.extend(expand(token).into_iter().map(|p| (floor, p)));
            }
        }
    }
    out
}

fn floor_of(file: &str, floors: &[(u32, String)]) -> Option<u32> {
    // The most specific entry: a file itself, else the longest folder.
    floors
        .iter()
        .filter(|(_, p)| p == file || (p.ends_with('/') && file.starts_with(p.as_str())))
        .max_by_key(|(_, p)| p.len())
        .map(|(f, _)| *f)
}

/// Strongly connected groups of files (Tarjan), each as its files.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        for w in t.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.stack.contains(&w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut group = Vec::new();
            while let Some(w) = t.stack.pop() {
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                t.out.push(group);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn check(krate: &str, heading: &str) {
    let layout = std::fs::read_to_string(repo().join("docs/src/layout.md")).unwrap();
    let src = repo().join(krate).join("src");
    let all = modules(&src);
    let floors = floors(&layout, heading);
    // The arrows the chapter names, as `from.rs -> to.rs` in backticks.
    let named: BTreeSet<(String, String)> = layout
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|t| t.split_once(" -> "))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut problems = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &all {
        let Some(from) = floor_of(file, &floors) else {
            problems.push(format!(
                "{krate}/src/{file} is on no floor of the layout chapter's table"
            ));
            continue;
        };
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        for (target, paths) in imports(module, &code(&text), &all) {
            let to_file = &all[&target];
            edges
                .entry(file.clone())
                .or_default()
                .insert(to_file.clone());
            let to = floor_of(to_file, &floors).unwrap_or(0);
            if to > from && !named.contains(&(file.clone(), to_file.clone())) {
                problems.push(format!(
                    "{file} (floor {from}) imports from {to_file} (floor {to}): {}",
                    paths.into_iter().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    for group in circles(&edges) {
        let folders: BTreeSet<&str> = group
            .iter()
            .map(|f| f.rsplit_once('/').map_or("", |(dir, _)| dir))
            .collect();
        if folders.len() > 1 {
            problems.push(format!(
                "an import circle runs through {folders:?}: {group:?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{krate} does not stand on the floors docs/src/layout.md draws (move the import \
         down, or the item to a lower floor; an arrow that must run up is named in the \
         chapter with its reason):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn sim_rt_stands_on_its_floors() {
    check("sim-rt", "### sim-rt, bottom to top");
}

#[test]
fn the_explorer_stands_on_its_floors() {
    check("explorer", "### The explorer, bottom to top");
}

#[test]
fn an_upward_import_is_found() {
    let all: Modules = [
        (vec![], "lib.rs"),
        (vec!["low".to_string()], "low.rs"),
        (vec!["high".to_string()], "high/mod.rs"),
    ]
    .into_iter()
    .map(|(m, f)| (m, f.to_string()))
    .collect();
    let text =
        "use crate::high::{Thing, other as o};\nfn f() { super::high::g(); } // crate::low\n";
    let found = imports(&["low".to_string()], &code(text), &all);
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        vec![&vec!["high".to_string()]]
    );
    assert_eq!(
        expand("runtime/{a,b}.rs"),
        vec!["runtime/a.rs", "runtime/b.rs"]
    );
}
