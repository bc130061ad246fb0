//! One shell word from a string, for the commands the project prints for
//! a user to paste: sim-rt's reproduction lines (`SIM_SEED=.. cargo test
//! ..`) and `cargo sim`'s commands. A crate of its own so that `cargo sim`,
//! which must not link the runtime (its interposed libc functions), quotes
//! exactly as the runtime does.

#![deny(missing_docs)]

/// `arg` as one POSIX shell word: as is when every byte is plainly safe
/// (ASCII letters and digits, `-_.,/:=+@%`), else in single quotes, with
/// each `'` written as `'\''`.
///
/// ```
/// assert_eq!(sim_shell::quote("--cfg=sim"), "--cfg=sim");
/// assert_eq!(sim_shell::quote("--cfg sim"), "'--cfg sim'");
/// assert_eq!(sim_shell::quote("it's"), r"'it'\''s'");
/// assert_eq!(sim_shell::quote(""), "''");
/// ```
pub fn quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.,/:=+@%".contains(&b));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r#"'\''"#))
    }
}
