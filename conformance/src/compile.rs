//! Building a scratch crate's test targets: one `cargo build --tests
//! --keep-going --message-format json`, so a file that does not compile
//! costs only its own target, and cargo's JSON messages say which binary
//! each file became and the first error of each that failed.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the build gave for each test target, by name.
#[derive(Debug, Default)]
pub struct BuildOutcome {
    /// The executables that were built.
    pub executables: BTreeMap<String, PathBuf>,
    /// The first error of each test target that failed.
    pub errors: BTreeMap<String, String>,
    /// The first error of a package other than the scratch crate (a
    /// dependency that failed: then no test target could build).
    pub dependency_error: Option<String>,
}

/// Reads cargo's `--message-format json` lines. `package` is the scratch
/// crate's name; its test targets are the files.
pub fn parse_messages(stdout: &str, package: &str) -> BuildOutcome {
    let mut out = BuildOutcome::default();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let reason = msg["reason"].as_str().unwrap_or("");
        let target = msg["target"]["name"].as_str().unwrap_or("").to_owned();
        let is_test = msg["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "test"));
        let ours = msg["package_id"]
            .as_str()
            .is_some_and(|id| package_id_names(id, package));
        match reason {
            "compiler-artifact" if is_test => {
                if let Some(exe) = msg["executable"].as_str() {
                    out.executables.insert(target, PathBuf::from(exe));
                }
            }
            "compiler-message" if msg["message"]["level"] == "error" => {
                let text = first_error(&msg["message"]);
                if ours && is_test {
                    out.errors.entry(target).or_insert(text);
                } else if !ours && out.dependency_error.is_none() {
                    let pkg = msg["package_id"].as_str().unwrap_or("?");
                    out.dependency_error = Some(format!("{pkg}: {text}"));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a cargo package id (`path+file:///…/name#0.0.0` or the older
/// `name 0.0.0 (path+…)`) names `package`.
fn package_id_names(id: &str, package: &str) -> bool {
    id.starts_with(&format!("{package} "))
        || id.contains(&format!("/{package}#"))
        || id.contains(&format!("#{package}@"))
}

/// An error message in one line: the message and where it points.
fn first_error(message: &serde_json::Value) -> String {
    let text = message["message"]
        .as_str()
        .unwrap_or("?")
        .replace('\n', " ");
    let span = message["spans"]
        .as_array()
        .and_then(|spans| {
            spans
                .iter()
                .find(|s| s["is_primary"] == true)
                .or(spans.first())
        })
        .map(|s| {
            format!(
                " ({}:{})",
                s["file_name"].as_str().unwrap_or("?"),
                s["line_start"]
            )
        })
        .unwrap_or_default();
    format!("{text}{span}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifacts_and_first_errors_by_target() {
        let pkg = "tokio-conformance-sim";
        let id = "path+file:///t/conformance/sim#tokio-conformance-sim@0.0.0";
        let lines = [
            format!(
                r#"{{"reason":"compiler-artifact","package_id":"{id}","target":{{"name":"sync_mpsc","kind":["test"]}},"executable":"/t/deps/sync_mpsc-abc"}}"#
            ),
            format!(
                r#"{{"reason":"compiler-message","package_id":"{id}","target":{{"name":"rt_common","kind":["test"]}},"message":{{"level":"error","message":"`Rc<World>` cannot be sent","spans":[{{"file_name":"tests/rt_common.rs","line_start":12,"is_primary":true}}]}}}}"#
            ),
            format!(
                r#"{{"reason":"compiler-message","package_id":"{id}","target":{{"name":"rt_common","kind":["test"]}},"message":{{"level":"error","message":"second","spans":[]}}}}"#
            ),
            format!(
                r#"{{"reason":"compiler-message","package_id":"{id}","target":{{"name":"io_read","kind":["test"]}},"message":{{"level":"warning","message":"unused","spans":[]}}}}"#
            ),
            "not json".to_owned(),
        ];
        let out = parse_messages(&lines.join("\n"), pkg);
        assert_eq!(
            out.executables.get("sync_mpsc"),
            Some(&PathBuf::from("/t/deps/sync_mpsc-abc"))
        );
        assert_eq!(
            out.errors.get("rt_common").map(String::as_str),
            Some("`Rc<World>` cannot be sent (tests/rt_common.rs:12)")
        );
        assert!(!out.errors.contains_key("io_read"), "a warning is no error");
        assert!(out.dependency_error.is_none());
    }

    #[test]
    fn a_dependency_error_is_told_apart() {
        let line = r#"{"reason":"compiler-message","package_id":"path+file:///r/sim-tokio#tokio@1.99.0","target":{"name":"tokio","kind":["lib"]},"message":{"level":"error","message":"boom","spans":[]}}"#;
        let out = parse_messages(line, "tokio-conformance-sim");
        assert!(out.errors.is_empty());
        assert_eq!(
            out.dependency_error.as_deref(),
            Some("path+file:///r/sim-tokio#tokio@1.99.0: boom")
        );
    }
}
