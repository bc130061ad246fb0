//! Crash properties over random operation sequences, under every crash
//! model:
//!
//! - everything synced survives any crash (any answers to any question);
//! - the default crash (all answers 0) keeps exactly what was synced
//!   ([`Fs::durable_tree`]), under every crash model;
//! - a crash that keeps every unsynced operation whole gives back the
//!   volatile view;
//! - a crash asks exactly the documented questions, and the same answers
//!   give the same disk.
//!
//! Sequences mix files, directories, sockets' and FIFOs' entries, renames
//! (of directories too), hard links, open handles on removed files, partial
//! syncs and crashes with arbitrary answers; every operation's result is
//! ignored, and the model's invariants are checked after each.

mod common;

use common::{all_crash_models, sync_everything, wildest};
use proptest::prelude::*;
use sim_fs::{Choice, DefaultChooser, Fd, FnChooser, Fs, FsConfig, OpenOptions, RecordingChooser};

const PATHS: &[&str] = &[
    "/a", "/b", "/d", "/d/a", "/d/b", "/d/e", "/d/e/a", "/x", "/x/a",
];

#[derive(Clone, Debug)]
enum Op {
    Mkdir(usize),
    Write(usize, u64, Vec<u8>),
    Append(usize, Vec<u8>),
    SetLen(usize, u64),
    Remove(usize),
    RemoveDir(usize),
    RemoveDirAll(usize),
    Rename(usize, usize),
    Link(usize, usize),
    Copy(usize, usize),
    Bind(usize),
    Mkfifo(usize),
    Sync(usize),
    SyncRoot,
    Hold(usize),
    WriteHeld(usize, Vec<u8>),
    CloseHeld(usize),
    Crash(Vec<usize>),
}

fn path() -> impl Strategy<Value = usize> {
    0..PATHS.len()
}

fn data() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(b'a'..=b'z', 1..12)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => path().prop_map(Op::Mkdir),
        4 => (path(), 0..16u64, data()).prop_map(|(p, o, d)| Op::Write(p, o, d)),
        2 => (path(), data()).prop_map(|(p, d)| Op::Append(p, d)),
        1 => (path(), 0..16u64).prop_map(|(p, l)| Op::SetLen(p, l)),
        2 => path().prop_map(Op::Remove),
        1 => path().prop_map(Op::RemoveDir),
        1 => path().prop_map(Op::RemoveDirAll),
        3 => (path(), path()).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => (path(), path()).prop_map(|(a, b)| Op::Link(a, b)),
        1 => (path(), path()).prop_map(|(a, b)| Op::Copy(a, b)),
        1 => path().prop_map(Op::Bind),
        1 => path().prop_map(Op::Mkfifo),
        3 => path().prop_map(Op::Sync),
        1 => Just(Op::SyncRoot),
        1 => path().prop_map(Op::Hold),
        1 => (0..4usize, data()).prop_map(|(i, d)| Op::WriteHeld(i, d)),
        1 => (0..4usize).prop_map(Op::CloseHeld),
        1 => prop::collection::vec(any::<usize>(), 0..16).prop_map(Op::Crash),
    ]
}

/// A chooser answering `answers[i] % n`, cycling, then 0 if empty.
fn cycling(answers: &[usize]) -> FnChooser<impl FnMut(&Choice, usize) -> usize + '_> {
    let mut i = 0;
    FnChooser(move |_: &Choice, n: usize| {
        if answers.is_empty() {
            return 0;
        }
        i += 1;
        answers[(i - 1) % answers.len()] % n
    })
}

/// Runs `ops`, ignoring their results, checking invariants after each.
fn run(fs: &mut Fs, ops: &[Op]) {
    let d = &mut DefaultChooser;
    let mut held: Vec<Fd> = Vec::new();
    for op in ops {
        match op {
            Op::Mkdir(p) => drop(fs.create_dir(PATHS[*p])),
            Op::Write(p, offset, data) => {
                if let Ok(f) = fs.open(PATHS[*p], OpenOptions::new().write(true).create(true)) {
                    let _ = fs.write_at(f, *offset, data, d);
                    fs.close(f);
                }
            }
            Op::Append(p, data) => {
                if let Ok(f) = fs.open(PATHS[*p], OpenOptions::new().append(true)) {
                    let _ = fs.write(f, data, d);
                    fs.close(f);
                }
            }
            Op::SetLen(p, len) => {
                if let Ok(f) = fs.open(PATHS[*p], OpenOptions::new().write(true)) {
                    let _ = fs.set_len(f, *len, d);
                    fs.close(f);
                }
            }
            Op::Remove(p) => drop(fs.remove_file(PATHS[*p])),
            Op::RemoveDir(p) => drop(fs.remove_dir(PATHS[*p])),
            Op::RemoveDirAll(p) => drop(fs.remove_dir_all(PATHS[*p])),
            Op::Rename(a, b) => drop(fs.rename(PATHS[*a], PATHS[*b])),
            Op::Link(a, b) => drop(fs.hard_link(PATHS[*a], PATHS[*b])),
            Op::Copy(a, b) => drop(fs.copy(PATHS[*a], PATHS[*b], d)),
            Op::Bind(p) => drop(fs.bind_socket(PATHS[*p])),
            Op::Mkfifo(p) => drop(fs.make_fifo(PATHS[*p])),
            Op::Sync(p) => {
                if let Ok(f) = fs.open(PATHS[*p], &OpenOptions::for_open()) {
                    fs.sync_all(f, d).unwrap();
                    fs.close(f);
                }
            }
            Op::SyncRoot => {
                let f = fs.open("/", &OpenOptions::for_open()).unwrap();
                fs.sync_all(f, d).unwrap();
                fs.close(f);
            }
            Op::Hold(p) => {
                if let Ok(f) = fs.open(PATHS[*p], OpenOptions::new().read(true).write(true)) {
                    held.push(f);
                }
            }
            Op::WriteHeld(i, data) => {
                if let Some(&f) = held.get(*i) {
                    let _ = fs.write(f, data, d);
                }
            }
            Op::CloseHeld(i) => {
                if *i < held.len() {
                    fs.close(held.remove(*i));
                }
            }
            Op::Crash(answers) => {
                fs.crash(&mut cycling(answers));
                held.clear();
            }
        }
        fs.check_invariants();
    }
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 0..40)
}

fn config() -> impl Strategy<Value = FsConfig> {
    prop::sample::select(all_crash_models())
}

proptest! {
    #[test]
    fn everything_synced_survives_any_crash(
        config in config(),
        ops in ops(),
        answers in prop::collection::vec(any::<usize>(), 0..64),
    ) {
        let mut fs = Fs::new(config);
        run(&mut fs, &ops);
        sync_everything(&mut fs);
        let synced = fs.tree();
        prop_assert_eq!(&fs.durable_tree(), &synced);
        fs.crash(&mut cycling(&answers));
        fs.check_invariants();
        prop_assert_eq!(fs.tree(), synced);
    }

    #[test]
    fn default_crash_keeps_exactly_what_was_synced(config in config(), ops in ops()) {
        let mut fs = Fs::new(config);
        run(&mut fs, &ops);
        let durable = fs.durable_tree();
        fs.crash(&mut DefaultChooser);
        fs.check_invariants();
        prop_assert_eq!(fs.tree(), durable);
        prop_assert!(fs.pending().is_empty());
        prop_assert_eq!(fs.open_handles(), 0);
    }

    #[test]
    fn keeping_every_unsynced_op_whole_gives_the_volatile_view(
        config in config(),
        ops in ops(),
    ) {
        let mut fs = Fs::new(config.clone());
        run(&mut fs, &ops);
        if config.crash.keep == sim_fs::KeepUnsynced::Nothing {
            return Ok(());
        }
        let volatile = fs.tree();
        fs.crash(&mut FnChooser(|c: &Choice, n: usize| match c {
            Choice::TornWrite { .. } => 0,
            _ => n - 1,
        }));
        prop_assert_eq!(fs.tree(), volatile);
    }

    #[test]
    fn crash_asks_the_documented_questions_deterministically(
        ops in ops(),
        answers in prop::collection::vec(any::<usize>(), 0..64),
    ) {
        let mut fs = Fs::new(wildest());
        run(&mut fs, &ops);
        let pending = fs.pending();
        let mut twin = fs.clone();

        let mut rec = RecordingChooser::new(cycling(&answers));
        let report = fs.crash(&mut rec);
        let keep_questions: Vec<_> = rec
            .log()
            .iter()
            .filter(|(c, _, _)| matches!(c, Choice::CrashKeepOp { .. }))
            .collect();
        prop_assert_eq!(keep_questions.len(), pending.len(), "one per pending op");
        let kept_writes = keep_questions
            .iter()
            .filter(|(c, _, answer)| {
                *answer == 1
                    && matches!(c, Choice::CrashKeepOp { kind: sim_fs::PendingKind::Write { .. }, .. })
            })
            .count();
        let torn_questions = rec.log().len() - keep_questions.len();
        prop_assert_eq!(torn_questions, kept_writes, "one tear question per kept write");
        prop_assert_eq!(report.pending, pending.len());

        let report_twin = twin.crash(&mut cycling(&answers));
        prop_assert_eq!(report, report_twin);
        prop_assert_eq!(fs.tree(), twin.tree());
    }
}
