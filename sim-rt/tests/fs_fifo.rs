//! No escape for FIFOs: `mkfifo`, `mkfifoat`, `mknod` and `mknodat` inside
//! a simulation make entries on the host's simulated disk, never on the
//! real one; outside a simulation they are libc's.
//!
//! Without the interposed calls, `mkfifo` in a simulation made a real FIFO
//! on the real disk, which outlived the run and which the simulated disk
//! did not see.
#![cfg(all(feature = "intercept", target_os = "linux", target_env = "gnu"))]

mod rt_support;

use std::ffi::CString;
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rt_support::child_test;
use sim_rt::runtime::Builder;
use sim_rt::sim::without_interception;

fn runtime() -> sim_rt::runtime::Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

/// A path under the real temporary directory that does not exist, unique to
/// this test and process.
fn real_scratch(test: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("sim-rt-fs-fifo-{}-{test}", std::process::id()));
    assert!(!path.exists(), "{} exists before the test", path.display());
    path
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).unwrap()
}

/// `Ok(())`, or the errno of a failed libc call returning `-1`.
fn errno_of(ret: libc::c_int) -> Result<(), i32> {
    match ret {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error().raw_os_error().unwrap()),
    }
}

fn mkfifo(path: &Path) -> Result<(), i32> {
    let p = c_path(path);
    // SAFETY: a NUL-terminated path.
    errno_of(unsafe { libc::mkfifo(p.as_ptr(), 0o644) })
}

fn mknod(path: &Path, mode: libc::mode_t) -> Result<(), i32> {
    let p = c_path(path);
    // SAFETY: a NUL-terminated path.
    errno_of(unsafe { libc::mknod(p.as_ptr(), mode | 0o644, libc::makedev(1, 3)) })
}

/// Whether the real disk has anything at `path` (a FIFO included).
fn on_real_disk(path: &Path) -> bool {
    without_interception(|| std::fs::symlink_metadata(path)).is_ok()
}

#[test]
fn mkfifo_makes_a_fifo_entry_on_the_simulated_disk_only() {
    // A real directory under the simulated disk, so the entry would land
    // on the real disk if it escaped.
    let dir = std::env::temp_dir();
    let fifo = dir.join(format!("sim-rt-fs-fifo-{}-entry", std::process::id()));
    assert!(!fifo.exists());
    runtime().block_on({
        let fifo = fifo.clone();
        async move {
            assert_eq!(mkfifo(&fifo), Ok(()));
            let m = std::fs::metadata(&fifo).unwrap();
            assert!(m.file_type().is_fifo(), "{m:?}");
            assert!(!m.is_file() && !m.is_dir() && !m.file_type().is_socket());
            assert_eq!(m.len(), 0);
            assert_eq!(m.permissions().mode() & 0o777, 0o644);
            assert!(
                !on_real_disk(&fifo),
                "mkfifo inside a simulation reached the real disk"
            );
            let listed = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap())
                .find(|e| e.path() == fifo)
                .expect("the FIFO is listed");
            assert!(listed.file_type().unwrap().is_fifo());

            let m = sim_rt::fs::metadata(&fifo).await.unwrap();
            assert!(m.file_type().is_fifo() && !m.is_file());

            assert_eq!(mkfifo(&fifo), Err(libc::EEXIST), "the second time");
            assert_eq!(
                mkfifo(&dir.join("no-such-dir/p")),
                Err(libc::ENOENT),
                "a missing parent"
            );

            // Without the other end: a blocking open fails with ENXIO (Linux
            // would wait; a note says so), a non-blocking writer with ENXIO
            // (as Linux), and an open through tokio::fs (a disk file) too.
            let open = std::fs::File::open(&fifo).unwrap_err();
            assert_eq!(open.raw_os_error(), Some(libc::ENXIO));
            let nonblocking_writer = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
                .unwrap_err();
            assert_eq!(nonblocking_writer.raw_os_error(), Some(libc::ENXIO));
            let open = sim_rt::fs::File::open(&fifo).await.unwrap_err();
            assert_eq!(open.raw_os_error(), Some(libc::ENXIO));
            let exclusive = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&fifo)
                .unwrap_err();
            assert_eq!(exclusive.kind(), ErrorKind::AlreadyExists);

            let p = c_path(&fifo);
            // SAFETY: a NUL-terminated path.
            let truncated = unsafe { libc::truncate(p.as_ptr(), 0) };
            assert_eq!(errno_of(truncated), Err(libc::EINVAL), "as Linux");

            std::fs::remove_file(&fifo).unwrap();
            assert!(!std::fs::exists(&fifo).unwrap());
        }
    });
    assert!(!fifo.exists(), "nothing reached the real disk");
}

#[test]
fn mknod_makes_fifos_and_files_and_refuses_devices() {
    let scratch = real_scratch("mknod");
    runtime().block_on({
        let scratch = scratch.clone();
        async move {
            std::fs::create_dir_all(&scratch).unwrap();
            let fifo = scratch.join("fifo");
            assert_eq!(mknod(&fifo, libc::S_IFIFO), Ok(()));
            assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
            assert_eq!(mknod(&fifo, libc::S_IFIFO), Err(libc::EEXIST));

            // POSIX's zero type, and S_IFREG: an empty regular file.
            for (name, kind) in [("zero", 0), ("reg", libc::S_IFREG)] {
                let file = scratch.join(name);
                assert_eq!(mknod(&file, kind), Ok(()), "{name}");
                let m = std::fs::metadata(&file).unwrap();
                assert!(m.is_file() && m.len() == 0, "{name}: {m:?}");
                assert_eq!(mknod(&file, kind), Err(libc::EEXIST), "{name}");
            }
            assert_eq!(
                mknod(&scratch.join("new/"), 0),
                Err(libc::ENOENT),
                "a trailing slash on nothing, as Linux"
            );

            // Devices and sockets: refused, as the disk has none.
            for (name, kind) in [
                ("chr", libc::S_IFCHR),
                ("blk", libc::S_IFBLK),
                ("sock", libc::S_IFSOCK),
            ] {
                assert_eq!(mknod(&scratch.join(name), kind), Err(libc::EPERM), "{name}");
                assert!(!std::fs::exists(scratch.join(name)).unwrap(), "{name}");
            }
            assert_eq!(mknod(&scratch.join("dir"), libc::S_IFDIR), Err(libc::EPERM));
            assert_eq!(
                mknod(&scratch.join("lnk"), libc::S_IFLNK),
                Err(libc::EINVAL)
            );

            // The *at forms, relative to a simulated directory.
            let dir = std::fs::File::open(&scratch).unwrap();
            let fd = std::os::fd::AsRawFd::as_raw_fd(&dir);
            // SAFETY: NUL-terminated relative paths and an open directory.
            let at = unsafe { libc::mkfifoat(fd, c"at-fifo".as_ptr(), 0o600) };
            assert_eq!(errno_of(at), Ok(()));
            // SAFETY: as above.
            let at = unsafe { libc::mknodat(fd, c"at-chr".as_ptr(), libc::S_IFCHR, 0) };
            assert_eq!(errno_of(at), Err(libc::EPERM));
            assert!(std::fs::metadata(scratch.join("at-fifo"))
                .unwrap()
                .file_type()
                .is_fifo());

            let mut names: Vec<_> = std::fs::read_dir(&scratch)
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    (e.file_name(), e.file_type().unwrap().is_fifo())
                })
                .collect();
            names.sort();
            assert_eq!(
                names,
                [
                    ("at-fifo".into(), true),
                    ("fifo".into(), true),
                    ("reg".into(), false),
                    ("zero".into(), false),
                ]
            );
            assert!(!on_real_disk(&scratch), "nothing reached the real disk");
        }
    });
    assert!(!scratch.exists());
}

#[test]
fn outside_a_simulation_mkfifo_is_real() {
    let scratch = real_scratch("outside");
    std::fs::create_dir_all(&scratch).unwrap();
    let fifo = scratch.join("fifo");
    assert_eq!(mkfifo(&fifo), Ok(()));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(mkfifo(&fifo), Err(libc::EEXIST));
    let node = scratch.join("node");
    assert_eq!(mknod(&node, libc::S_IFIFO), Ok(()));
    assert!(std::fs::metadata(&node).unwrap().file_type().is_fifo());
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// Run by [`each_note_is_said_once`] in a process of its own: the notes
/// are said once per process.
#[test]
#[ignore = "run by each_note_is_said_once"]
fn notes_child() {
    runtime().block_on(async {
        std::fs::create_dir_all("/run").unwrap();
        assert_eq!(mkfifo(Path::new("/run/p")), Ok(()));
        for _ in 0..2 {
            let open = std::fs::File::open("/run/p").unwrap_err();
            assert_eq!(open.raw_os_error(), Some(libc::ENXIO));
            assert_eq!(mknod(Path::new("/run/c"), libc::S_IFCHR), Err(libc::EPERM));
        }
        let open = sim_rt::fs::File::open("/run/p").await.unwrap_err();
        assert_eq!(open.raw_os_error(), Some(libc::ENXIO));
    });
}

#[test]
fn each_note_is_said_once() {
    let out = child_test("notes_child").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the child failed:\n{}\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fifo = "sim_rt: a FIFO (named pipe) was opened inside a simulation in a way that is \
                not simulated";
    let device = "sim_rt: a device or socket node was made on the simulated disk";
    assert_eq!(stderr.matches(fifo).count(), 1, "{stderr}");
    assert_eq!(stderr.matches(device).count(), 1, "{stderr}");
}
