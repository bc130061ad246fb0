//! A simulated `File` and real OS files: conversions from std files panic
//! with a message that says what to do, `into_std` panics,
//! `try_into_std` hands the file back, and the raw fd is a placeholder on
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
#[should_panic(expected = "File::into_std: a simulated file has no OS file to hand over")]
fn into_std_panics_clearly() {
    runtime().block_on(async {
        let f = File::create("/f").await.unwrap();
        let _ = f.into_std().await;
    });
}

#[test]
fn try_into_std_hands_back_a_working_file() {
    runtime().block_on(async {
        let mut f = File::create_new("/f").await.unwrap();
        f.write_all(b"before").await.unwrap();
        // The write is still in flight: it must survive the round trip.
        let mut f = f
            .try_into_std()
            .expect_err("a simulated file has no std file");
        f.write_all(b" after").await.unwrap();
        f.rewind().await.unwrap();
        let mut s = String::new();
        f.read_to_string(&mut s).await.unwrap();
        assert_eq!(s, "before after");
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
fn debug_names_the_simulated_fd_not_the_placeholder() {
    runtime().block_on(async {
        let f = File::create("/f").await.unwrap();
        let before = format!("{f:?}");
        let _ = f.as_raw_fd();
        assert_eq!(format!("{f:?}"), before);
        assert!(before.starts_with("sim_rt::fs::File { fd: "), "{before}");
    });
}
