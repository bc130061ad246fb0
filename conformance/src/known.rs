//! The committed list of known differences (`conformance/known.toml`):
//! each real-passing tokio test the simulator does not pass, with a
//! category and a reason.
//!
//! ```toml
//! [process_smoke]
//! "*" = { category = "by design", reason = "child processes are not simulated" }
//!
//! [sync_watch]
//! multiple_receivers_is_cooperative = { category = "bug", reason = "no coop budget" }
//! ```
//!
//! A table per test file; a key per test name, or `"*"` for every test of
//! the file. A test's own entry wins over its file's `"*"`.

use std::collections::BTreeMap;

/// Why a test is on the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// It cannot be simulated (real processes, Unix sockets, `AsyncFd`,
    /// std threads racing the runtime, files until the std::fs issue).
    ByDesign,
    /// A difference still to fix.
    Bug,
}

/// One entry of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its category.
    pub category: Category,
    /// Why the simulator does not pass it.
    pub reason: String,
}

/// The list, by file then test name (`*` for the whole file).
#[derive(Debug, Clone, Default)]
pub struct Known {
    entries: BTreeMap<String, BTreeMap<String, Entry>>,
}

impl Known {
    /// Parses the list; an error names the entry and what is wrong with it.
    pub fn parse(text: &str) -> Result<Known, String> {
        let doc: toml_edit::DocumentMut = text
            .parse()
            .map_err(|e| format!("known.toml is not TOML: {e}"))?;
        let mut entries = BTreeMap::new();
        for (file, item) in doc.iter() {
            let table = item
                .as_table_like()
                .ok_or_else(|| format!("known.toml: `{file}` must be a table of tests"))?;
            let mut tests = BTreeMap::new();
            for (test, value) in table.iter() {
                let at = format!("known.toml: {file}.{test}");
                let fields = value.as_table_like().ok_or_else(|| {
                    format!(
                        "{at}: expected {{ category = \"by design\" | \"bug\", reason = \"...\" }}"
                    )
                })?;
                let category = match fields.get("category").and_then(|v| v.as_str()) {
                    Some("by design") => Category::ByDesign,
                    Some("bug") => Category::Bug,
                    other => {
                        return Err(format!(
                            "{at}: category must be \"by design\" or \"bug\", not {other:?}"
                        ))
                    }
                };
                let reason = fields
                    .get("reason")
                    .and_then(|v| v.as_str())
                    .filter(|r| !r.trim().is_empty())
                    .ok_or_else(|| format!("{at}: a reason is required"))?
                    .to_owned();
                if let Some((key, _)) = fields
                    .iter()
                    .find(|(k, _)| *k != "category" && *k != "reason")
                {
                    return Err(format!("{at}: unknown field `{key}`"));
                }
                tests.insert(test.to_owned(), Entry { category, reason });
            }
            entries.insert(file.to_owned(), tests);
        }
        Ok(Known { entries })
    }

    /// The entry for `test` of `file`: its own, else its file's `*`.
    pub fn get(&self, file: &str, test: &str) -> Option<&Entry> {
        let tests = self.entries.get(file)?;
        tests.get(test).or_else(|| tests.get("*"))
    }

    /// Every (file, test) the list names, for stale-entry reports.
    pub fn names(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .flat_map(|(f, t)| t.keys().map(move |t| (f.as_str(), t.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"
[process_smoke]
"*" = { category = "by design", reason = "child processes are not simulated" }

[sync_watch]
multiple_receivers_is_cooperative = { category = "bug", reason = "no coop budget" }
"#;

    #[test]
    fn entries_by_test_and_by_file() {
        let k = Known::parse(LIST).unwrap();
        assert_eq!(
            k.get("process_smoke", "simple").unwrap().category,
            Category::ByDesign
        );
        let e = k
            .get("sync_watch", "multiple_receivers_is_cooperative")
            .unwrap();
        assert_eq!(
            (e.category, e.reason.as_str()),
            (Category::Bug, "no coop budget")
        );
        assert!(k.get("sync_watch", "other").is_none());
        assert!(k.get("sync_mpsc", "x").is_none());
        assert_eq!(k.names().count(), 2);
    }

    #[test]
    fn a_test_entry_wins_over_its_file() {
        let k = Known::parse(
            "[f]\n\"*\" = { category = \"by design\", reason = \"a\" }\nt = { category = \"bug\", reason = \"b\" }\n",
        )
        .unwrap();
        assert_eq!(k.get("f", "t").unwrap().reason, "b");
        assert_eq!(k.get("f", "u").unwrap().reason, "a");
    }

    #[test]
    fn misuse_is_named() {
        let err = Known::parse("[f]\nt = { category = \"maybe\", reason = \"x\" }").unwrap_err();
        assert!(err.contains("f.t") && err.contains("\"maybe\""), "{err}");
        let err = Known::parse("[f]\nt = { category = \"bug\" }").unwrap_err();
        assert!(err.contains("reason is required"), "{err}");
        let err =
            Known::parse("[f]\nt = { category = \"bug\", reason = \"r\", why = 1 }").unwrap_err();
        assert!(err.contains("unknown field `why`"), "{err}");
        assert!(Known::parse("f = 1")
            .unwrap_err()
            .contains("must be a table"));
        assert!(Known::parse("[f\n").unwrap_err().contains("not TOML"));
    }
}
