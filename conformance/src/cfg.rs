//! Evaluating a Cargo `cfg(...)` target expression (the key of a
//! `[target.'cfg(..)'.dev-dependencies]` table) against the host's cfg set,
//! as `rustc --print cfg` prints it.
//!
//! A name or `key = "value"` predicate holds when the set contains it; so
//! `tokio_unstable`, `loom` and `windows` are false, as they are in the
//! builds this harness makes.

use std::collections::BTreeSet;

/// The host's cfg set: lines such as `unix` and `target_os="linux"`.
#[derive(Debug, Clone, Default)]
pub struct CfgSet {
    set: BTreeSet<String>,
}

impl CfgSet {
    /// Parses `rustc --print cfg` output.
    pub fn parse(rustc_print_cfg: &str) -> CfgSet {
        let set = rustc_print_cfg
            .lines()
            .map(|l| l.replace(' ', ""))
            .filter(|l| !l.is_empty())
            .collect();
        CfgSet { set }
    }

    /// Whether `target` (`cfg(...)`, or a target triple) holds on the host.
    /// A triple never does: the harness builds for the host with cfgs only.
    pub fn eval_target(&self, target: &str) -> Result<bool, String> {
        let target = target.trim();
        let Some(inner) = target
            .strip_prefix("cfg(")
            .and_then(|r| r.strip_suffix(')'))
        else {
            return Ok(false);
        };
        let tokens = tokenize(inner)?;
        let mut pos = 0;
        let value = self.expr(&tokens, &mut pos)?;
        if pos != tokens.len() {
            return Err(format!("trailing input in `{target}`"));
        }
        Ok(value)
    }

    fn expr(&self, tokens: &[Token], pos: &mut usize) -> Result<bool, String> {
        let Some(Token::Ident(name)) = tokens.get(*pos) else {
            return Err(format!("expected a cfg name at token {pos}"));
        };
        *pos += 1;
        match (name.as_str(), tokens.get(*pos)) {
            (op @ ("all" | "any" | "not"), Some(Token::Open)) => {
                *pos += 1;
                let mut values = Vec::new();
                while tokens.get(*pos) != Some(&Token::Close) {
                    values.push(self.expr(tokens, pos)?);
                    if tokens.get(*pos) == Some(&Token::Comma) {
                        *pos += 1;
                    }
                }
                *pos += 1;
                match op {
                    "all" => Ok(values.iter().all(|&v| v)),
                    "any" => Ok(values.iter().any(|&v| v)),
                    _ if values.len() == 1 => Ok(!values[0]),
                    _ => Err("not() takes one predicate".to_owned()),
                }
            }
            (_, Some(Token::Eq)) => {
                let Some(Token::Str(value)) = tokens.get(*pos + 1) else {
                    return Err(format!("expected a string after `{name} =`"));
                };
                *pos += 2;
                Ok(self.set.contains(&format!("{name}=\"{value}\"")))
            }
            _ => Ok(self.set.contains(name)),
        }
    }
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Open,
    Close,
    Comma,
    Eq,
}

fn tokenize(s: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            ' ' | '\t' | '\n' => {
                chars.next();
            }
            '(' | ')' | ',' | '=' => {
                chars.next();
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    ',' => Token::Comma,
                    _ => Token::Eq,
                });
            }
            '"' => {
                chars.next();
                let mut value = String::new();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some(ch) => value.push(ch),
                        None => return Err(format!("unterminated string in `{s}`")),
                    }
                }
                out.push(Token::Str(value));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut name = String::new();
                while let Some(&ch) = chars.peek() {
                    if ch.is_alphanumeric() || ch == '_' {
                        name.push(ch);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Ident(name));
            }
            other => return Err(format!("unexpected `{other}` in `{s}`")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux() -> CfgSet {
        CfgSet::parse("panic=\"unwind\"\ntarget_family=\"unix\"\ntarget_os=\"linux\"\nunix\n")
    }

    #[test]
    fn evaluates_tokio_dev_dependency_targets() {
        let h = linux();
        let t = |s: &str| h.eval_target(s).unwrap();
        assert!(t("cfg(unix)"));
        assert!(!t("cfg(windows)"));
        assert!(!t("cfg(tokio_unstable)"));
        assert!(!t("cfg(loom)"));
        assert!(t(r#"cfg(all(unix, not(target_os = "emscripten")))"#));
        assert!(t(
            r#"cfg(not(all(target_family = "wasm", target_os = "unknown")))"#
        ));
        assert!(t(
            r#"cfg(any(not(target_family = "wasm"), target_os = "emscripten"))"#
        ));
        assert!(!t(r#"cfg(target_os = "freebsd")"#));
        assert!(!t(r#"cfg(all(tokio_unstable, target_os = "linux"))"#));
        assert!(!t("x86_64-pc-windows-msvc"));
    }

    #[test]
    fn rejects_malformed_expressions() {
        let h = linux();
        assert!(h.eval_target("cfg(not(unix, windows))").is_err());
        assert!(h.eval_target("cfg(target_os = )").is_err());
        assert!(h.eval_target("cfg(unix unix)").is_err());
    }
}
