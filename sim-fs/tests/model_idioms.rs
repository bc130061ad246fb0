//! The atomic-replace idiom survives every crash, and each classic mistake
//! loses data under some crash.
//!
//! The idiom, as a database or a config writer does it:
//!
//! 1. create `/data.tmp`, 2. write the new contents, 3. `sync_all` it,
//! 4. close it, 5. rename it over `/data`, 6. `sync_all` the directory.
//!
//! Each test runs the first `k` steps for every `k`, then enumerates every
//! crash the wildest crash model allows (every subset of unsynced
//! operations, every tear, with garbage), as an exhaustive explorer would.

mod common;

use common::{all_crash_models, contents, for_each_crash, wildest};
use sim_fs::{DefaultChooser, Fs, FsConfig, OpenOptions};

const OLD: &[u8] = b"old contents";
const NEW: &[u8] = b"brand new contents";

/// Which steps of the idiom a program forgets.
#[derive(Clone, Copy, Debug, Default)]
struct Mistakes {
    no_file_sync: bool,
    no_dir_sync: bool,
}

/// A disk holding durable `/data` = [`OLD`].
fn disk(config: FsConfig) -> Fs {
    let mut fs = Fs::new(config);
    fs.write_file("/data", OLD, &mut DefaultChooser).unwrap();
    common::sync_everything(&mut fs);
    fs
}

/// Runs the first `steps` steps of the idiom, skipping `mistakes`.
fn atomic_replace(fs: &mut Fs, steps: usize, mistakes: Mistakes) {
    let d = &mut DefaultChooser;
    let mut tmp = None;
    for step in 1..=steps {
        match step {
            1 => tmp = Some(fs.open("/data.tmp", &OpenOptions::for_create()).unwrap()),
            2 => assert_eq!(fs.write(tmp.unwrap(), NEW, d).unwrap(), NEW.len()),
            3 if !mistakes.no_file_sync => fs.sync_all(tmp.unwrap(), d).unwrap(),
            4 => fs.close(tmp.unwrap()),
            5 => fs.rename("/data.tmp", "/data").unwrap(),
            6 if !mistakes.no_dir_sync => {
                let dir = fs.open("/", &OpenOptions::for_open()).unwrap();
                fs.sync_all(dir, d).unwrap();
                fs.close(dir);
            }
            _ => {}
        }
    }
}

const STEPS: usize = 6;

#[test]
fn atomic_replace_survives_every_crash_at_every_step() {
    for config in all_crash_models() {
        for steps in 0..=STEPS {
            let mut fs = disk(config.clone());
            atomic_replace(&mut fs, steps, Mistakes::default());
            let tried = for_each_crash(&fs, |crashed, answers| {
                let data = contents(crashed, "/data");
                assert!(
                    data.as_deref() == Some(OLD) || data.as_deref() == Some(NEW),
                    "after step {steps}, crash {answers:?} under {:?}: /data = {data:?}",
                    config.crash
                );
                if steps == STEPS {
                    assert_eq!(data.as_deref(), Some(NEW), "a completed replace is durable");
                }
            });
            assert!(tried >= 1);
        }
    }
}

#[test]
fn atomic_replace_crash_enumeration_is_exhaustive_and_small() {
    // After step 2 under the wildest model: pending = [create tmp, write
    // NEW]; NEW is 18 bytes = 5 sectors of 4, so a surviving write asks a
    // tear with 2 * 5 + 1 answers. Outcomes: drop/keep the create (2) times
    // drop the write (1) or keep it torn one of 11 ways (11): 24.
    let mut fs = disk(wildest());
    atomic_replace(&mut fs, 2, Mistakes::default());
    assert_eq!(fs.pending().len(), 2);
    assert_eq!(for_each_crash(&fs, |_, _| {}), 24);
}

/// Whether some crash after the mistaken idiom completes (or at any step)
/// leaves `/data` neither old nor new, or old after the program finished.
fn loses_data(mistakes: Mistakes) -> bool {
    let mut lost = false;
    for steps in 0..=STEPS {
        let mut fs = disk(wildest());
        atomic_replace(&mut fs, steps, mistakes);
        for_each_crash(&fs, |crashed, _| {
            let data = contents(crashed, "/data");
            let complete = steps == STEPS;
            if !(data.as_deref() == Some(NEW) || (!complete && data.as_deref() == Some(OLD))) {
                lost = true;
            }
        });
    }
    lost
}

/// Checks that `mistakes` lose data in some crash; returns what `/data`
/// holds after the whole replace with them and the default crash.
fn data_after_the_default_crash(mistakes: Mistakes) -> Option<Vec<u8>> {
    assert!(loses_data(mistakes), "{mistakes:?}");
    let mut fs = disk(FsConfig::default());
    atomic_replace(&mut fs, STEPS, mistakes);
    fs.crash(&mut DefaultChooser);
    contents(&fs, "/data")
}

#[test]
fn forgetting_the_file_sync_loses_data_even_in_the_default_crash() {
    // The classic zero-length file: the rename is durable, the data is not.
    let data = data_after_the_default_crash(Mistakes {
        no_file_sync: true,
        ..Mistakes::default()
    });
    assert_eq!(data.as_deref(), Some(&b""[..]));
}

#[test]
fn forgetting_the_directory_sync_loses_the_update() {
    let data = data_after_the_default_crash(Mistakes {
        no_dir_sync: true,
        ..Mistakes::default()
    });
    assert_eq!(data.as_deref(), Some(OLD), "the rename is lost");
}

#[test]
fn overwriting_in_place_can_tear_or_empty_the_file() {
    // No rename: truncate, write, sync the file itself.
    let mut outcomes = std::collections::BTreeSet::new();
    for steps in 0..=3 {
        let mut fs = disk(wildest());
        let d = &mut DefaultChooser;
        let f = fs.open("/data", OpenOptions::new().write(true)).unwrap();
        if steps >= 1 {
            fs.set_len(f, 0, d).unwrap();
        }
        if steps >= 2 {
            fs.write(f, NEW, d).unwrap();
        }
        if steps >= 3 {
            fs.sync_all(f, d).unwrap();
        }
        for_each_crash(&fs, |crashed, _| {
            outcomes.insert(contents(crashed, "/data").unwrap());
        });
    }
    assert!(outcomes.contains(OLD) && outcomes.contains(NEW));
    assert!(outcomes.contains(&b""[..]), "truncated but not rewritten");
    assert!(outcomes.contains(&NEW[..4]), "torn after one sector");
    assert!(
        outcomes
            .iter()
            .any(|o| o.windows(4).any(|w| w == sim_fs::GARBAGE)),
        "a garbage sector"
    );
}

#[test]
fn a_new_file_needs_its_directory_synced() {
    let mut fs = Fs::default();
    let d = &mut DefaultChooser;
    let f = fs.open("/new", &OpenOptions::for_create()).unwrap();
    fs.write(f, b"x", d).unwrap();
    fs.sync_all(f, d).unwrap();
    fs.crash(d);
    assert_eq!(contents(&fs, "/new"), None, "the entry was never durable");
}
