//! The textual edits made to a copy of a package: each is small, says
//! what it changed, and fails loudly when the text it expects is not there
//! (a new version of the package changed it), instead of producing a copy
//! that silently tests something else.

/// The line that puts a test file's `#[test]`s in a simulation: the
/// import shadows the prelude's `test` with `#[sim_rt::test]`, which runs a
/// synchronous test's body inside a fresh simulation.
pub const USE_SIM_TEST: &str = "#[allow(unused_imports)]\nuse sim_rt::test;\n";

/// `source` with [`USE_SIM_TEST`] inserted after its inner doc comments and
/// inner attributes (which must open a file).
pub fn use_sim_test(source: &str) -> String {
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let t = line.trim_start();
        let opening = t.starts_with("//!") || t.starts_with("#![") || t.trim().is_empty();
        if !opening {
            break;
        }
        at += line.len();
    }
    format!("{}{USE_SIM_TEST}{}", &source[..at], &source[at..])
}

/// test_case (2.x) writes the built-in test attribute by its full path,
/// `#[::core::prelude::v1::test]`, on each case of a synchronous function,
/// so `use sim_rt::test;` does not reach those cases. For an `async fn` it
/// writes none and copies the function's other attributes onto each case,
/// which is how test_case documents `#[tokio::test]`. This edit turns each
/// synchronous `fn` under `#[test_case(..)]` lines into that form:
/// `#[sim_rt::test]` under the last of them and `async` before `fn` (the
/// body, synchronous, runs in the first poll). Returns the new source and
/// the names of the functions changed.
pub fn async_test_cases(source: &str) -> Result<(String, Vec<String>), String> {
    let mut out = String::with_capacity(source.len() + 256);
    let mut changed = Vec::new();
    let mut under_test_case = false;
    for (n, line) in source.split_inclusive('\n').enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[test_case(") {
            under_test_case = true;
        } else if under_test_case && !t.starts_with("#[") && !t.starts_with("//") {
            let indent = &line[..line.len() - t.len()];
            let Some(rest) = t.strip_prefix("fn ").or_else(|| t.strip_prefix("pub fn ")) else {
                if t.starts_with("async fn ") || t.starts_with("pub async fn ") {
                    under_test_case = false;
                    out.push_str(line);
                    continue;
                }
                return Err(format!(
                    "line {}: expected the function under #[test_case(..)], found {:?}",
                    n + 1,
                    t.trim_end()
                ));
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let vis = if t.starts_with("pub ") { "pub " } else { "" };
            out.push_str(&format!(
                "{indent}#[sim_rt::test]\n{indent}{vis}async fn {rest}"
            ));
            changed.push(name);
            under_test_case = false;
            continue;
        }
        out.push_str(line);
    }
    Ok((out, changed))
}

/// A planted bug: one textual replacement in one file of the package.
#[derive(Debug, Clone, Copy)]
pub struct Plant {
    /// The file, relative to the package's root (`src/qio.rs`).
    pub file: &'static str,
    /// Text that must occur exactly once in it.
    pub anchor: &'static str,
    /// What replaces it.
    pub replacement: &'static str,
    /// What the bug is, for reports.
    pub what: &'static str,
}

impl Plant {
    /// `source` with the anchor replaced; an error when the anchor does not
    /// occur exactly once.
    pub fn apply(&self, source: &str) -> Result<String, String> {
        match source.matches(self.anchor).count() {
            1 => Ok(source.replacen(self.anchor, self.replacement, 1)),
            n => Err(format!(
                "planting {}: the anchor occurs {n} times in {} (once expected; a new version \
                 of the package changed it?):\n{}",
                self.what, self.file, self.anchor
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_import_goes_after_inner_docs_and_attributes() {
        let src = "//! Docs.\n//!\n#![allow(dead_code)]\n\nuse std::fs;\n#[test]\nfn t() {}\n";
        assert_eq!(
            use_sim_test(src),
            "//! Docs.\n//!\n#![allow(dead_code)]\n\n#[allow(unused_imports)]\nuse sim_rt::test;\nuse std::fs;\n#[test]\nfn t() {}\n"
        );
        assert_eq!(use_sim_test("use a;\n"), format!("{USE_SIM_TEST}use a;\n"));
    }

    #[test]
    fn synchronous_test_cases_become_async_sim_tests() {
        let src = "\
#[test_case(true; \"a\")]
#[test_case(false; \"b\")]
fn cap(x: bool) {
    let _ = x;
}

#[test_case(1)]
#[tokio::test]
async fn already_async(n: u32) {}

#[test]
fn plain() {}
";
        let (out, changed) = async_test_cases(src).unwrap();
        assert_eq!(changed, ["cap"]);
        assert!(out.starts_with(
            "#[test_case(true; \"a\")]\n#[test_case(false; \"b\")]\n#[sim_rt::test]\nasync fn cap(x: bool) {\n"
        ));
        assert!(out.contains("#[test_case(1)]\n#[tokio::test]\nasync fn already_async"));
        assert!(out.ends_with("#[test]\nfn plain() {}\n"));
        let err = async_test_cases("#[test_case(1)]\nconst X: u8 = 1;\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn a_plant_matches_its_anchor_exactly_once() {
        let plant = Plant {
            file: "src/io.rs",
            anchor: "f.sync_data()?;\n",
            replacement: "// planted: no sync\n",
            what: "a missing sync",
        };
        assert_eq!(
            plant.apply("write()?;\nf.sync_data()?;\nOk(())").unwrap(),
            "write()?;\n// planted: no sync\nOk(())"
        );
        let gone = plant.apply("write()?;\nOk(())").unwrap_err();
        assert!(gone.contains("occurs 0 times in src/io.rs"), "{gone}");
        let twice = plant
            .apply("f.sync_data()?;\nf.sync_data()?;\n")
            .unwrap_err();
        assert!(twice.contains("occurs 2 times"), "{twice}");
    }
}
