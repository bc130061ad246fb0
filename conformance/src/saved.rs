//! A run's outcomes saved as JSON (`target/conformance/results.json`), so
//! the table can be made again against an edited `known.toml` without
//! building or running anything (`--from-last-run`).

use serde_json::{json, Value};

use crate::report::{FileResult, RunInfo, TestResult};
use crate::run::Outcome;

/// A saved run: what it was, whether it covered every file, its outcomes.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The run's description.
    pub info: RunInfo,
    /// Whether every test file was selected.
    pub all_files: bool,
    /// The outcomes.
    pub files: Vec<FileResult>,
}

fn outcome_to_json(o: &Outcome) -> Value {
    match o {
        Outcome::Pass => json!(["pass"]),
        Outcome::Fail(m) => json!(["fail", m]),
        Outcome::Hang => json!(["hang"]),
        Outcome::Crash(m) => json!(["crash", m]),
        Outcome::NotBuilt => json!(["not built"]),
    }
}

fn outcome_from_json(v: &Value) -> Result<Outcome, String> {
    let detail = || v[1].as_str().unwrap_or("").to_owned();
    match v[0].as_str() {
        Some("pass") => Ok(Outcome::Pass),
        Some("fail") => Ok(Outcome::Fail(detail())),
        Some("hang") => Ok(Outcome::Hang),
        Some("crash") => Ok(Outcome::Crash(detail())),
        Some("not built") => Ok(Outcome::NotBuilt),
        _ => Err(format!("results.json: not an outcome: {v}")),
    }
}

/// The saved form.
pub fn to_json(saved: &Saved) -> String {
    let files: Vec<Value> = saved
        .files
        .iter()
        .map(|f| {
            json!({
                "file": f.file,
                "real_error": f.real_error,
                "sim_error": f.sim_error,
                "ignored": f.ignored,
                "tests": f.tests.iter().map(|t| json!({
                    "name": t.name,
                    "real": outcome_to_json(&t.real),
                    "sim": outcome_to_json(&t.sim),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "command": saved.info.command,
        "suite": saved.info.suite,
        "tokio_version": saved.info.tokio_version,
        "timeout_secs": saved.info.timeout_secs,
        "phases": saved.info.phases,
        "all_files": saved.all_files,
        "files": files,
    });
    serde_json::to_string_pretty(&doc).expect("a JSON value serializes")
}

/// Reads the saved form back.
pub fn from_json(text: &str) -> Result<Saved, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("results.json: {e}"))?;
    let s = |v: &Value| v.as_str().unwrap_or("").to_owned();
    let phases = doc["phases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| (s(&p[0]), p[1].as_u64().unwrap_or(0)))
        .collect();
    let mut files = Vec::new();
    for f in doc["files"].as_array().into_iter().flatten() {
        let mut tests = Vec::new();
        for t in f["tests"].as_array().into_iter().flatten() {
            tests.push(TestResult {
                name: s(&t["name"]),
                real: outcome_from_json(&t["real"])?,
                sim: outcome_from_json(&t["sim"])?,
            });
        }
        files.push(FileResult {
            file: s(&f["file"]),
            real_error: f["real_error"].as_str().map(str::to_owned),
            sim_error: f["sim_error"].as_str().map(str::to_owned),
            ignored: f["ignored"].as_u64().unwrap_or(0) as usize,
            tests,
        });
    }
    Ok(Saved {
        info: RunInfo {
            command: s(&doc["command"]),
            suite: doc["suite"].as_str().unwrap_or("tokio").to_owned(),
            tokio_version: s(&doc["tokio_version"]),
            timeout_secs: doc["timeout_secs"].as_u64().unwrap_or(0),
            phases,
        },
        all_files: doc["all_files"].as_bool().unwrap_or(false),
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_round_trips() {
        let saved = Saved {
            info: RunInfo {
                command: "cargo run -p conformance".to_owned(),
                suite: "tokio-util".to_owned(),
                tokio_version: "1.54.1".to_owned(),
                timeout_secs: 30,
                phases: vec![("run".to_owned(), 12)],
            },
            all_files: true,
            files: vec![FileResult {
                file: "a".to_owned(),
                real_error: None,
                sim_error: Some("e".to_owned()),
                ignored: 2,
                tests: vec![
                    TestResult {
                        name: "t".to_owned(),
                        real: Outcome::Pass,
                        sim: Outcome::Crash("signal 6".to_owned()),
                    },
                    TestResult {
                        name: "u".to_owned(),
                        real: Outcome::Fail("x".to_owned()),
                        sim: Outcome::Hang,
                    },
                ],
            }],
        };
        let back = from_json(&to_json(&saved)).unwrap();
        assert_eq!(to_json(&back), to_json(&saved));
        assert_eq!(
            back.files[0].tests[0].sim,
            Outcome::Crash("signal 6".to_owned())
        );
        assert_eq!(back.info.phases, [("run".to_owned(), 12)]);
        assert!(from_json("{\"files\":[{\"tests\":[{\"real\":[\"maybe\"]}]}]}").is_err());
    }
}
