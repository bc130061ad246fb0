//! Lexical path parsing, as the kernel splits a path before walking it.
//!
//! The model has no working directory of its own: a relative path is
//! resolved from the root, as if the process ran in `/`. `.` and `..` are
//! walked like the kernel does, one component at a time (so `file/..` is
//! `ENOTDIR`, and `..` at the root stays at the root), and a trailing `/` or
//! `/.` means the target must be a directory. std's
//! [`Path::components`] drops a trailing `.` and `/`, so those two facts are
//! read from the raw bytes.

use std::ffi::OsString;
use std::path::{Component, Path};

use crate::errno;

/// One component of a parsed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Comp {
    /// `.`
    Cur,
    /// `..`
    Parent,
    /// A name.
    Name(OsString),
}

/// A parsed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// The components after the root, in order.
    pub(crate) comps: Vec<Comp>,
    /// The raw path ends in `/`, so its target must be a directory.
    pub(crate) trailing_slash: bool,
}

impl Parsed {
    /// Splits `path`. The empty path is `ENOENT`, as for the kernel.
    pub(crate) fn new(path: &Path) -> std::io::Result<Parsed> {
        let raw = path.as_os_str().as_encoded_bytes();
        if raw.is_empty() {
            return Err(errno::not_found());
        }
        let mut comps = Vec::new();
        for c in path.components() {
            match c {
                Component::Prefix(_) => {
                    return Err(errno::invalid_input_msg(
                        "the simulated disk has Unix paths: no drive or UNC prefix",
                    ))
                }
                Component::RootDir => {}
                Component::CurDir => comps.push(Comp::Cur),
                Component::ParentDir => comps.push(Comp::Parent),
                Component::Normal(name) => comps.push(Comp::Name(name.to_os_string())),
            }
        }
        if raw.ends_with(b"/.") && comps.last() != Some(&Comp::Cur) {
            comps.push(Comp::Cur);
        }
        Ok(Parsed {
            comps,
            trailing_slash: raw.ends_with(b"/"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(p: &str) -> Parsed {
        Parsed::new(Path::new(p)).unwrap()
    }

    fn name(n: &str) -> Comp {
        Comp::Name(n.into())
    }

    #[test]
    fn keeps_dots_and_trailing_slash() {
        assert_eq!(
            parse("/a/./b/..").comps,
            [name("a"), name("b"), Comp::Parent]
        );
        assert_eq!(parse("a/.").comps, [name("a"), Comp::Cur]);
        assert_eq!(parse(".").comps, [Comp::Cur]);
        assert!(parse("a/").trailing_slash);
        assert!(!parse("a").trailing_slash);
        assert_eq!(parse("/").comps, []);
        assert_eq!(parse("//a//b").comps, [name("a"), name("b")]);
    }

    #[test]
    fn empty_path_is_not_found() {
        assert_eq!(
            Parsed::new(Path::new("")).unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
    }
}
