//! File selection: `--files 'sync_*,time_sleep'` against a test file's stem.
//!
//! A pattern is a comma-separated list of globs; `*` matches any run of
//! characters and `?` any one character. A file is selected when any glob
//! matches its whole stem.

/// A set of globs, as given to `--files`.
#[derive(Debug, Clone)]
pub struct Selection {
    globs: Vec<String>,
}

impl Selection {
    /// Parses a comma-separated list of globs; empty entries are ignored.
    pub fn parse(spec: &str) -> Selection {
        let globs = spec
            .split(',')
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(str::to_owned)
            .collect();
        Selection { globs }
    }

    /// Every file.
    pub fn all() -> Selection {
        Selection::parse("*")
    }

    /// Whether `stem` (a file name without `.rs`) is selected.
    pub fn matches(&self, stem: &str) -> bool {
        self.globs
            .iter()
            .any(|g| glob_match(g.as_bytes(), stem.as_bytes()))
    }

    /// Whether this selects every file (`*`).
    pub fn is_all(&self) -> bool {
        self.globs.iter().any(|g| g == "*")
    }
}

/// Matches `text` against `pattern` in full (iterative, with backtracking to
/// the last `*`).
fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_stems() {
        let s = Selection::parse("sync_*, time_sleep,io_?ead");
        assert!(s.matches("sync_mpsc"));
        assert!(s.matches("sync_"));
        assert!(s.matches("time_sleep"));
        assert!(!s.matches("time_sleep2"));
        assert!(!s.matches("async_send_sync"));
        assert!(s.matches("io_read"));
        assert!(!s.matches("io_rread"));
        assert!(!s.is_all());
    }

    #[test]
    fn star_backtracks() {
        assert!(glob_match(b"*_b*c", b"a_b_bxc"));
        assert!(!glob_match(b"*_b*c", b"a_b_bxd"));
        assert!(glob_match(b"**", b""));
        assert!(Selection::all().matches("anything"));
        assert!(Selection::all().is_all());
        assert!(!Selection::parse(",").matches("x"));
    }
}
