//! The `cargo-sim` binary, which cargo runs for `cargo sim ...`: see the
//! library's docs (`cargo doc -p cargo-sim`) or `cargo sim --help`.
#![deny(missing_docs, rust_2018_idioms)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Result<Vec<String>, _> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect();
    let Ok(args) = args else {
        eprintln!("cargo sim: error: an argument is not valid UTF-8");
        return ExitCode::from(2);
    };
    match cargo_sim::run(args) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("cargo sim: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
