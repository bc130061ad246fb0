//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::Path;

use sim_fs::{
    CrashModel, DefaultChooser, Fs, FsConfig, KeepUnsynced, OpenOptions, RecordingChooser,
    ScriptedChooser, TornWrites, TreeEntry,
};

/// The most permissive crash model: any subset of unsynced operations
/// survives, and surviving writes may be torn, with garbage. Small sectors
/// so that short writes span several.
pub fn wildest() -> FsConfig {
    FsConfig {
        sector_size: 4,
        crash: CrashModel {
            keep: KeepUnsynced::Subset,
            torn_writes: TornWrites::PrefixOrGarbage,
        },
        ..FsConfig::default()
    }
}

/// Every crash model the crate offers, with small sectors.
pub fn all_crash_models() -> Vec<FsConfig> {
    let mut configs = Vec::new();
    for keep in [
        KeepUnsynced::Nothing,
        KeepUnsynced::Prefix,
        KeepUnsynced::Subset,
    ] {
        for torn_writes in [
            TornWrites::Never,
            TornWrites::Prefix,
            TornWrites::PrefixOrGarbage,
        ] {
            configs.push(FsConfig {
                sector_size: 4,
                crash: CrashModel { keep, torn_writes },
                ..FsConfig::default()
            });
        }
    }
    configs
}

/// Syncs every file, then every directory, deepest first (a socket or a
/// FIFO has nothing to sync but its entry, and does not open).
pub fn sync_everything(fs: &mut Fs) {
    let tree = fs.tree();
    let mut paths: Vec<&Path> = tree
        .iter()
        .filter(|(_, entry)| !matches!(entry, TreeEntry::Socket | TreeEntry::Fifo))
        .map(|(p, _)| p.as_path())
        .collect();
    paths.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    paths.push(Path::new("/"));
    for path in paths {
        let fd = fs.open(path, &OpenOptions::for_open()).unwrap();
        fs.sync_all(fd, &mut DefaultChooser).unwrap();
        fs.close(fd);
    }
}

/// Calls `f` with the disk after each possible crash of `fs`, enumerating
/// every answer sequence depth first (the first is the default crash), as
/// an exhaustive explorer would. Returns how many crashes it tried.
pub fn for_each_crash(fs: &Fs, mut f: impl FnMut(&Fs, &[usize])) -> usize {
    // (answer, n) of each question asked so far on the current branch.
    let mut branch: Vec<(usize, usize)> = Vec::new();
    let mut count = 0;
    loop {
        let answers: Vec<usize> = branch.iter().map(|&(a, _)| a).collect();
        let mut crashed = fs.clone();
        let mut chooser = RecordingChooser::new(ScriptedChooser::new(answers.iter().copied()));
        crashed.crash(&mut chooser);
        crashed.check_invariants();
        for &(_, n, answer) in &chooser.log()[branch.len()..] {
            assert_eq!(answer, 0, "questions past the script are answered 0");
            branch.push((0, n));
        }
        let answers: Vec<usize> = branch.iter().map(|&(a, _)| a).collect();
        f(&crashed, &answers);
        count += 1;
        loop {
            match branch.pop() {
                None => return count,
                Some((a, n)) if a + 1 < n => {
                    branch.push((a + 1, n));
                    break;
                }
                Some(_) => {}
            }
        }
    }
}

/// The contents of file `path`, or `None` if it does not exist.
pub fn contents(fs: &Fs, path: &str) -> Option<Vec<u8>> {
    match fs.tree().get(Path::new(path))? {
        TreeEntry::File(data) => Some(data.clone()),
        other => panic!("{path} is not a file: {other:?}"),
    }
}
