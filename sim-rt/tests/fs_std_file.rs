//! A simulated `File` and real OS files: conversions from real std files
//! panic with a message that says what to do; `into_std` and
//! `try_into_std` give a std file that reaches the same simulated file
//! (inside its simulation), and the File's own raw fd is a placeholder on
//! `/dev/null` that leaves the simulated file untouched.

use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd, OwnedFd};

use sim_rt::fs::File;
use sim_rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use sim_rt::runtime::Builder;

fn runtime() -> sim_rt::runtime::Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

fn dev_null() -> std::fs::File {
    std::fs::File::open("/dev/null").unwrap()
}

#[test]
#[should_panic(
    expected = "File::from_std: the std file is a real OS file, which cannot join \
                           the simulated disk (sim-rt simulates each host's disk). Open the \
                           file with sim_rt::fs"
)]
fn from_std_panics_clearly() {
    let _ = File::from_std(dev_null());
}

#[test]
#[should_panic(expected = "From<std::fs::File> for File: the std file is a real OS file")]
fn from_a_std_file_panics_clearly() {
    let _: File = dev_null().into();
}

#[test]
#[should_panic(expected = "From<OwnedFd> for File: the std file is a real OS file")]
fn from_an_owned_fd_panics_clearly() {
    let _: File = OwnedFd::from(dev_null()).into();
}

#[test]
#[should_panic(expected = "FromRawFd for File: the std file is a real OS file")]
fn from_raw_fd_panics_clearly() {
    let fd = dev_null().into_raw_fd();
    // SAFETY: `fd` is an open descriptor this test owns.
    let _ = unsafe { File::from_raw_fd(fd) };
}

#[test]
fn into_std_gives_a_std_file_on_the_simulated_file() {
    use std::io::{Read, Seek, SeekFrom, Write};
    runtime().block_on(async {
        let mut f = sim_rt::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .open("/f")
            .await
            .unwrap();
        f.write_all(b"async ").await.unwrap();
        // The write in flight completes before the std file is handed over.
        let mut std = f.into_std().await;
        std.write_all(b"then std").unwrap();
        assert_eq!(
            sim_rt::fs::read("/f").await.unwrap(),
            b"async then std",
            "the std file wrote to the simulated disk"
        );
        // Back to a simulated File through the raw descriptor.
        std.seek(SeekFrom::Start(0)).unwrap();
        let raw = std.into_raw_fd();
        // SAFETY: `raw` is the descriptor `into_raw_fd` gave up.
        let mut again = unsafe { File::from_raw_fd(raw) };
        let mut s = String::new();
        again.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "async then std", "the cursor is shared, as a dup's");
        let mut read_only = File::open("/f").await.unwrap().into_std().await;
        let mut buf = String::new();
        read_only.read_to_string(&mut buf).unwrap();
        assert_eq!(buf, "async then std");
        let err = read_only.write(b"x").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EBADF), "opened read-only");
    });
}

#[test]
#[should_panic(expected = "File::into_std: this simulated file cannot become a std::fs::File here")]
fn into_std_outside_its_simulation_panics_clearly() {
    let f = runtime().block_on(async { File::create("/f").await.unwrap() });
    futures::executor::block_on(f.into_std());
}

#[test]
fn try_into_std_waits_for_nothing_and_hands_back_a_busy_file() {
    use std::io::Write;
    runtime().block_on(async {
        let mut f = File::create_new("/f").await.unwrap();
        f.write_all(b"before").await.unwrap();
        // The write is still in flight: tokio hands the file back.
        let mut f = f.try_into_std().expect_err("a write is in flight");
        f.write_all(b" after").await.unwrap();
        f.flush().await.unwrap();
        let mut std = f.try_into_std().expect("nothing in flight");
        std.write_all(b" std").unwrap();
        drop(std);
        assert_eq!(sim_rt::fs::read("/f").await.unwrap(), b"before after std");
        let mut f = File::open("/f").await.unwrap();
        f.rewind().await.unwrap();
        let mut s = String::new();
        f.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "before after std");
    });
}

#[test]
fn the_raw_fd_is_a_stable_placeholder_on_dev_null() {
    runtime().block_on(async {
        let mut f = File::create("/f").await.unwrap();
        let g = File::create("/g").await.unwrap();
        let fd = f.as_raw_fd();
        assert!(fd >= 0);
        assert_eq!(f.as_raw_fd(), fd, "the placeholder is opened once");
        assert_eq!(f.as_fd().as_raw_fd(), fd);
        assert_ne!(g.as_raw_fd(), fd, "each file has its own placeholder");
        let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
        assert_eq!(target, std::path::Path::new("/dev/null"));

        // The simulated file is untouched and keeps working.
        f.write_all(b"abc").await.unwrap();
        f.flush().await.unwrap();
        assert_eq!(sim_rt::fs::read("/f").await.unwrap(), b"abc");
        let cloned = f.try_clone().await.unwrap();
        assert_ne!(cloned.as_raw_fd(), fd, "a clone has its own placeholder");
    });
}

#[test]
fn debug_has_tokios_form_with_the_simulated_fd() {
    runtime().block_on(async {
        let f = File::create("/f").await.unwrap();
        let before = format!("{f:?}");
        let _ = f.as_raw_fd();
        assert_eq!(format!("{f:?}"), before, "the placeholder does not show");
        assert!(
            before.starts_with("tokio::fs::File { std: File { fd: "),
            "{before}"
        );
        assert!(
            before.ends_with(r#"path: "/f", read: false, write: true } }"#),
            "{before}"
        );
    });
}

#[test]
fn write_vectored_writes_every_slice() {
    use std::io::IoSlice;
    runtime().block_on(async {
        let mut f = File::create("/f").await.unwrap();
        assert!(sim_rt::io::AsyncWrite::is_write_vectored(&f));
        let n = f
            .write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b""), IoSlice::new(b"cde")])
            .await
            .unwrap();
        assert_eq!(n, 5);
        f.shutdown().await.unwrap();
        assert_eq!(sim_rt::fs::read("/f").await.unwrap(), b"abcde");
    });
}

#[test]
fn open_options_keep_mode_and_custom_flags_for_debug() {
    use sim_rt::fs::OpenOptions;
    let shown = format!("{:?}", OpenOptions::new());
    assert!(shown.contains("mode: 438"), "std's default 0o666: {shown}");
    let shown = format!(
        "{:?}",
        OpenOptions::new().mode(0o644).custom_flags(libc::O_TRUNC)
    );
    assert!(shown.contains("mode: 420"), "{shown}");
    assert!(shown.contains("custom_flags: 512"), "{shown}");
}

/// A std file opened inside a simulation and moved into a std thread (a
/// simulated thread) is still the simulated file there: descriptors are
/// the process's, so the table of simulated ones is too.
#[test]
fn a_std_file_moved_into_a_thread_stays_simulated() {
    use std::io::{Read, Seek, Write};
    let got = runtime().block_on(async {
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open("/tmp/sim-rt-moved-into-a-thread")
            .unwrap();
        f.write_all(b"hello").unwrap();
        std::thread::spawn(move || {
            f.rewind().unwrap();
            let mut s = String::new();
            f.read_to_string(&mut s).unwrap();
            f.write_all(b" again").unwrap();
            s
        })
        .join()
        .unwrap()
            + &std::fs::read_to_string("/tmp/sim-rt-moved-into-a-thread").unwrap()
    });
    assert_eq!(got, "hellohello again");
    assert!(!std::path::Path::new("/tmp/sim-rt-moved-into-a-thread").exists());
}
