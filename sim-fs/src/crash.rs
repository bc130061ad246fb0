//! The crash: power is lost, the volatile layer with it.
//!
//! [`Fs::crash`] rebuilds the disk from the durable layer plus whatever
//! unsynced operations the [`CrashModel`](crate::CrashModel) lets survive,
//! as decided by the [`Chooser`]:
//!
//! 1. **Which operations survive.** [`KeepUnsynced::Nothing`] (default):
//!    none, and nothing is asked. [`KeepUnsynced::Prefix`]: one
//!    [`Choice::CrashKeepPrefix`], `n = pending + 1`. [`KeepUnsynced::Subset`]:
//!    one [`Choice::CrashKeepOp`] per pending operation, oldest first,
//!    `n = 2`.
//! 2. **Torn writes.** With [`TornWrites`] other than `Never`, each
//!    surviving write, in log order, asks one [`Choice::TornWrite`].
//! 3. Surviving operations are applied to the durable layer in log order,
//!    then fsck drops what is no longer reachable from the root (and a
//!    second name of a directory, which out-of-order renames can produce).
//! 4. The volatile view becomes the new durable state; every handle is
//!    closed (a file removed while open is gone); the log is empty.
//!
//! So a crash asks at most `pending + kept writes` questions, each small, in
//! an order that depends only on the log: an explorer can enumerate them
//! depth first, and the all-zero answer is the default crash.
//!
//! Garbage is deterministic: the bytes `DE AD BE EF` repeated, aligned on the
//! file offset.

use crate::choice::{ask, Choice, Chooser};
use crate::config::{KeepUnsynced, TornWrites};
use crate::fs::Fs;
use crate::inode::Ino;
use crate::pending::PendingOp;

/// The garbage a torn sector may hold, repeated and aligned on file offsets.
pub const GARBAGE: [u8; 4] = [0xDE, 0xAD, 0xBE, 0xEF];

/// What a crash did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrashReport {
    /// Unsynced operations at the crash.
    pub pending: usize,
    /// Of those, how many survived (whole or torn).
    pub kept: usize,
    /// Of the survivors, how many writes were torn.
    pub torn: usize,
    /// Descriptors the crash closed.
    pub closed_handles: usize,
}

impl Fs {
    /// Crashes the host: loses the volatile layer according to the crash
    /// model, closes every handle, and leaves the disk as it would be found
    /// on reboot. See the [module documentation](self) for the choices it
    /// asks.
    pub fn crash(&mut self, chooser: &mut dyn Chooser) -> CrashReport {
        let log = std::mem::take(&mut self.log);
        let pending = log.len();
        let keep: Vec<bool> = match self.config.crash.keep {
            KeepUnsynced::Nothing => vec![false; pending],
            KeepUnsynced::Prefix => {
                let k = if pending == 0 {
                    0
                } else {
                    ask(chooser, Choice::CrashKeepPrefix { pending }, pending + 1)
                };
                (0..pending).map(|i| i < k).collect()
            }
            KeepUnsynced::Subset => log
                .iter()
                .enumerate()
                .map(|(index, op)| {
                    let choice = Choice::CrashKeepOp {
                        index,
                        pending,
                        kind: op.kind(),
                    };
                    ask(chooser, choice, 2) == 1
                })
                .collect(),
        };
        let mut report = CrashReport {
            pending,
            closed_handles: self.fds.len(),
            ..CrashReport::default()
        };
        for (op, keep) in log.into_iter().zip(keep) {
            if !keep {
                continue;
            }
            report.kept += 1;
            match op {
                PendingOp::Write { ino, offset, data }
                    if self.config.crash.torn_writes != TornWrites::Never =>
                {
                    if self.torn_write(ino, offset, &data, chooser) {
                        report.torn += 1;
                    }
                }
                op => self.durable.apply(&op),
            }
        }
        self.durable.fsck();
        self.inodes.replace(self.durable.to_inodes());
        self.fds.clear();
        self.descs.clear();
        self.lost_dirty.clear();
        report
    }

    /// Applies a surviving write, possibly torn; returns whether it was.
    fn torn_write(
        &mut self,
        ino: Ino,
        offset: u64,
        data: &[u8],
        chooser: &mut dyn Chooser,
    ) -> bool {
        let garbage = self.config.crash.torn_writes == TornWrites::PrefixOrGarbage;
        let sector = self.config.sector_size;
        assert!(sector > 0, "FsConfig::sector_size must be positive");
        let len = data.len() as u64;
        let first = offset / sector;
        let sectors = ((offset + len - 1) / sector - first + 1) as usize;
        let n = if garbage {
            2 * sectors + 1
        } else {
            sectors + 1
        };
        let answer = ask(chooser, Choice::TornWrite { sectors, garbage }, n);
        if answer == 0 {
            self.durable.write(ino, offset, data);
            return false;
        }
        let (survivors, with_garbage) = if answer <= sectors {
            (answer - 1, false)
        } else {
            (answer - sectors - 1, true)
        };
        let boundary = (first + survivors as u64) * sector;
        let prefix = boundary.saturating_sub(offset).min(len) as usize;
        if prefix > 0 {
            self.durable.write(ino, offset, &data[..prefix]);
        }
        if with_garbage {
            let start = boundary.max(offset);
            let end = (boundary + sector).min(offset + len);
            let junk: Vec<u8> = (start..end).map(|at| GARBAGE[(at % 4) as usize]).collect();
            self.durable.write(ino, start, &junk);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::{
        CrashModel, DefaultChooser, FnChooser, FsConfig, OpenOptions, PendingKind,
        RecordingChooser, ScriptedChooser, TreeEntry,
    };

    fn fs_with(keep: KeepUnsynced, torn_writes: TornWrites) -> Fs {
        Fs::new(FsConfig {
            sector_size: 4,
            crash: CrashModel { keep, torn_writes },
            ..FsConfig::default()
        })
    }

    /// `/f` durable with `old-data`, then one unsynced write over it.
    fn one_pending_write(fs: &mut Fs, offset: u64, data: &[u8]) {
        let d = &mut DefaultChooser;
        let f = fs.open("/f", &OpenOptions::for_create()).unwrap();
        fs.write(f, b"old-data", d).unwrap();
        fs.sync_all(f, d).unwrap();
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        fs.sync_all(root, d).unwrap();
        fs.write_at(f, offset, data, d).unwrap();
    }

    fn contents(fs: &Fs) -> Vec<u8> {
        match &fs.tree()[Path::new("/f")] {
            TreeEntry::File(data) => data.clone(),
            other => panic!("/f is not a file: {other:?}"),
        }
    }

    #[test]
    fn default_crash_asks_nothing_and_reverts() {
        let mut fs = fs_with(KeepUnsynced::Nothing, TornWrites::PrefixOrGarbage);
        one_pending_write(&mut fs, 0, b"NEW");
        let mut rec = RecordingChooser::new(DefaultChooser);
        let report = fs.crash(&mut rec);
        assert!(rec.log().is_empty());
        assert_eq!(
            report,
            CrashReport {
                pending: 1,
                kept: 0,
                torn: 0,
                closed_handles: 2
            }
        );
        assert_eq!(contents(&fs), b"old-data");
        assert_eq!(fs.open_handles(), 0);
        fs.check_invariants();
    }

    #[test]
    fn prefix_asks_once_and_subset_once_per_op() {
        for (keep, asked) in [(KeepUnsynced::Prefix, 1), (KeepUnsynced::Subset, 2)] {
            let mut fs = fs_with(keep, TornWrites::Never);
            fs.write_file("/a", b"1", &mut DefaultChooser).unwrap();
            assert_eq!(fs.pending().len(), 2, "the create and the write");
            let mut rec = RecordingChooser::new(DefaultChooser);
            fs.crash(&mut rec);
            assert_eq!(rec.log().len(), asked, "{keep:?}: {:?}", rec.log());
            assert!(fs.tree().is_empty());
        }
    }

    #[test]
    fn keeping_everything_gives_the_volatile_view() {
        let mut fs = fs_with(KeepUnsynced::Prefix, TornWrites::Never);
        fs.create_dir("/d").unwrap();
        fs.write_file("/d/a", b"abc", &mut DefaultChooser).unwrap();
        fs.rename("/d/a", "/b").unwrap();
        let before = fs.tree();
        fs.crash(&mut FnChooser(|_: &Choice, n: usize| n - 1));
        assert_eq!(fs.tree(), before);
        fs.check_invariants();
    }

    #[test]
    fn torn_write_keeps_a_prefix_of_sectors() {
        // Sector size 4; the write covers bytes 2..10, i.e. sectors 0, 1, 2.
        let cases: [(usize, &[u8]); 4] = [
            (0, b"olABCDEFGH"),
            (1, b"old-data"),
            (2, b"olABdata"),
            (3, b"olABCDEF"),
        ];
        for (answer, expected) in cases {
            let mut fs = fs_with(KeepUnsynced::Subset, TornWrites::Prefix);
            one_pending_write(&mut fs, 2, b"ABCDEFGH");
            let mut rec = RecordingChooser::new(ScriptedChooser::new([1, answer]));
            let report = fs.crash(&mut rec);
            assert_eq!(
                rec.log()[1].0,
                Choice::TornWrite {
                    sectors: 3,
                    garbage: false
                }
            );
            assert_eq!(rec.log()[1].1, 4);
            assert_eq!(report.torn, usize::from(answer != 0));
            assert_eq!(contents(&fs), expected, "answer {answer}");
        }
    }

    #[test]
    fn torn_write_may_end_in_a_garbage_sector() {
        let mut fs = fs_with(KeepUnsynced::Subset, TornWrites::PrefixOrGarbage);
        one_pending_write(&mut fs, 2, b"ABCDEFGH");
        // n = 2 * 3 + 1; answer 3 + 2 = one sector survives, then garbage.
        fs.crash(&mut ScriptedChooser::new([1, 5]));
        assert_eq!(
            contents(&fs),
            [b'o', b'l', b'A', b'B', 0xDE, 0xAD, 0xBE, 0xEF]
        );
    }

    #[test]
    fn out_of_order_renames_are_repaired_by_fsck() {
        let mut fs = fs_with(KeepUnsynced::Subset, TornWrites::Never);
        fs.create_dir("/b").unwrap();
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        fs.sync_all(root, &mut DefaultChooser).unwrap();
        fs.create_dir("/a").unwrap();
        fs.rename("/b", "/a/b").unwrap();
        fs.rename("/a/b", "/c").unwrap();
        // Keep the mkdir and the second rename: /b is durable and /c names
        // it too; fsck keeps one name.
        fs.crash(&mut ScriptedChooser::new([1, 0, 1]));
        let dirs = fs.tree().len();
        assert_eq!(dirs, 2, "/a and one name of b: {:?}", fs.tree());
        fs.check_invariants();
    }

    /// A socket's entry is a created file's, for a crash: lost while its
    /// directory is unsynced, kept once it is synced, and then found by a
    /// new bind as a stale socket file in its way.
    #[test]
    fn a_socket_entry_is_durable_once_its_directory_is_synced() {
        let d = &mut DefaultChooser;
        let mut fs = Fs::default();
        fs.create_dir("/run").unwrap();
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        fs.sync_all(root, d).unwrap();
        fs.bind_socket("/run/s").unwrap();
        fs.crash(d);
        fs.check_invariants();
        assert!(
            !fs.try_exists("/run/s").unwrap(),
            "the unsynced bind is lost"
        );

        let ino = fs.bind_socket("/run/s").unwrap();
        let run = fs.open("/run", &OpenOptions::for_open()).unwrap();
        fs.sync_all(run, d).unwrap();
        assert!(fs.pending().is_empty());
        assert_eq!(fs.durable_tree()[Path::new("/run/s")], TreeEntry::Socket);
        fs.crash(d);
        fs.check_invariants();
        let m = fs.metadata("/run/s").unwrap();
        assert!(m.is_socket());
        assert_eq!(m.ino(), ino, "the same inode, as on a real disk");
        assert_eq!(
            fs.bind_socket("/run/s").unwrap_err().kind(),
            std::io::ErrorKind::AddrInUse,
            "a stale socket file"
        );
    }

    #[test]
    fn a_crash_may_keep_an_unsynced_socket_entry() {
        let mut fs = fs_with(KeepUnsynced::Subset, TornWrites::PrefixOrGarbage);
        let ino = fs.bind_socket("/s").unwrap();
        assert_eq!(fs.pending(), [PendingKind::Link { ino }]);
        let mut lost = fs.clone();
        let mut rec = RecordingChooser::new(ScriptedChooser::new([1]));
        let report = fs.crash(&mut rec);
        assert_eq!(
            rec.log()
                .iter()
                .map(|(c, n, _)| (c, *n))
                .collect::<Vec<_>>(),
            [(
                &Choice::CrashKeepOp {
                    index: 0,
                    pending: 1,
                    kind: PendingKind::Link { ino }
                },
                2
            )],
            "one question, as for a created file; nothing to tear"
        );
        assert_eq!(report.kept, 1);
        assert_eq!(fs.tree()[Path::new("/s")], TreeEntry::Socket);
        assert_eq!(fs.metadata("/s").unwrap().ino(), ino);
        fs.check_invariants();
        lost.crash(&mut ScriptedChooser::new([0]));
        assert!(lost.tree().is_empty());
        lost.check_invariants();
    }

    /// A FIFO's entry is a created file's, for a crash, as a socket's is:
    /// lost while its directory is unsynced, kept (the same inode) once it
    /// is synced, and then in a new mkfifo's way.
    #[test]
    fn a_fifo_entry_is_durable_once_its_directory_is_synced() {
        let d = &mut DefaultChooser;
        let mut fs = Fs::default();
        fs.create_dir("/run").unwrap();
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        fs.sync_all(root, d).unwrap();
        fs.make_fifo("/run/p").unwrap();
        fs.crash(d);
        fs.check_invariants();
        assert!(
            !fs.try_exists("/run/p").unwrap(),
            "the unsynced mkfifo is lost"
        );

        let ino = fs.make_fifo("/run/p").unwrap();
        let run = fs.open("/run", &OpenOptions::for_open()).unwrap();
        fs.sync_all(run, d).unwrap();
        assert!(fs.pending().is_empty());
        assert_eq!(fs.durable_tree()[Path::new("/run/p")], TreeEntry::Fifo);
        fs.crash(d);
        fs.check_invariants();
        let m = fs.metadata("/run/p").unwrap();
        assert!(m.is_fifo());
        assert_eq!(m.ino(), ino, "the same inode, as on a real disk");
        assert_eq!(
            fs.make_fifo("/run/p").unwrap_err().kind(),
            std::io::ErrorKind::AlreadyExists
        );
    }

    #[test]
    fn a_crash_may_keep_an_unsynced_fifo_entry() {
        let mut fs = fs_with(KeepUnsynced::Subset, TornWrites::PrefixOrGarbage);
        let ino = fs.make_fifo("/p").unwrap();
        assert_eq!(fs.pending(), [PendingKind::Link { ino }]);
        let mut lost = fs.clone();
        let mut rec = RecordingChooser::new(ScriptedChooser::new([1]));
        let report = fs.crash(&mut rec);
        assert_eq!(
            rec.log()
                .iter()
                .map(|(c, n, _)| (c, *n))
                .collect::<Vec<_>>(),
            [(
                &Choice::CrashKeepOp {
                    index: 0,
                    pending: 1,
                    kind: PendingKind::Link { ino }
                },
                2
            )],
            "one question, as for a created file; nothing to tear"
        );
        assert_eq!(report.kept, 1);
        assert_eq!(fs.tree()[Path::new("/p")], TreeEntry::Fifo);
        assert_eq!(fs.metadata("/p").unwrap().ino(), ino);
        fs.check_invariants();
        lost.crash(&mut ScriptedChooser::new([0]));
        assert!(lost.tree().is_empty());
        lost.check_invariants();
    }

    /// A socket and a FIFO made durable side by side keep their kinds
    /// through a crash (the durable layer holds each kind apart).
    #[test]
    fn a_crash_keeps_sockets_and_fifos_apart() {
        let d = &mut DefaultChooser;
        let mut fs = Fs::default();
        let s = fs.bind_socket("/s").unwrap();
        let p = fs.make_fifo("/p").unwrap();
        fs.hard_link("/p", "/q").unwrap();
        let root = fs.open("/", &OpenOptions::for_open()).unwrap();
        fs.sync_all(root, d).unwrap();
        fs.crash(d);
        fs.check_invariants();
        assert_eq!(
            fs.tree().into_iter().collect::<Vec<_>>(),
            [
                ("/p".into(), TreeEntry::Fifo),
                ("/q".into(), TreeEntry::Fifo),
                ("/s".into(), TreeEntry::Socket),
            ]
        );
        let (ms, mp) = (fs.metadata("/s").unwrap(), fs.metadata("/q").unwrap());
        assert_eq!((ms.ino(), ms.is_socket()), (s, true));
        assert_eq!((mp.ino(), mp.is_fifo(), mp.nlink()), (p, true, 2));
    }

    #[test]
    fn crash_closes_handles_and_frees_removed_open_files() {
        let mut fs = Fs::default();
        let f = fs.open("/f", &OpenOptions::for_create()).unwrap();
        fs.write(f, b"x", &mut DefaultChooser).unwrap();
        fs.crash(&mut DefaultChooser);
        assert_eq!(fs.usage(), 0);
        assert_eq!(
            fs.write(f, b"x", &mut DefaultChooser).unwrap_err().kind(),
            fs.write(crate::Fd(u64::MAX), b"", &mut DefaultChooser)
                .unwrap_err()
                .kind(),
            "a descriptor from before the crash is unknown"
        );
        fs.close(f);
        fs.check_invariants();
    }
}
