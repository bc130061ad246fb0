//! The items of `tokio::fs` that touch what the simulated disk lacks:
//! `DirBuilder`, `read_link`, `symlink`, `set_permissions`, `FileTimes`
//! and `File::{set_permissions, set_times, set_modified}`.
//!
//! The same scenario runs on real tokio (a temporary directory) and on
//! sim_rt (the simulated disk), and every outcome, down to the raw OS
//! error, must match; then what only the simulation shows: `symlink`'s
//! `Unsupported`, the ignored permissions and timestamps, a dead file's
//! `EBADF`, and `set_times` waiting for the write in flight.

mod rt_support;

use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime};

use rt_support::{file_of_a_stopped_host, fresh_real_dir, on_real_tokio};
use sim_rt::io::AsyncWriteExt;
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, FsConfig};

/// The scenario, written against whatever `tokio` names where it expands.
macro_rules! scenario {
    () => {
        /// Each operation's outcome as `Ok(..)` or `Err((kind, errno))`.
        pub async fn scenario(root: &Path) -> Vec<String> {
            use std::os::unix::fs::PermissionsExt;
            use tokio::fs::{self, DirBuilder, File, FileTimes};
            fn show<T: std::fmt::Debug>(r: io::Result<T>) -> String {
                format!("{:?}", r.map_err(|e| (e.kind(), e.raw_os_error())))
            }
            let at = |p: &str| root.join(p);
            let mut out = Vec::new();

            // DirBuilder, not recursive.
            out.push(show(DirBuilder::new().create(at("a")).await));
            out.push(show(DirBuilder::new().create(at("a")).await));
            out.push(show(DirBuilder::new().create(at("x/y")).await));
            // Recursive.
            let mut deep = DirBuilder::new();
            deep.recursive(true);
            out.push(show(deep.create(at("x/y/z")).await));
            out.push(show(fs::metadata(at("x/y/z")).await.map(|m| m.is_dir())));
            out.push(show(deep.create(at("x/y")).await));
            fs::write(at("f"), b"data").await.unwrap();
            out.push(show(deep.create(at("f")).await));
            out.push(show(DirBuilder::new().create(at("f")).await));
            out.push(show(deep.create(at("f/g")).await));
            // A mode.
            out.push(show(DirBuilder::new().mode(0o700).create(at("m")).await));
            out.push(show(fs::metadata(at("m")).await.map(|m| m.is_dir())));

            // read_link on what is not a link.
            out.push(show(fs::read_link(at("f")).await));
            out.push(show(fs::read_link(at("a")).await));
            out.push(show(fs::read_link(at("missing")).await));
            out.push(show(fs::read_link(at("f/x")).await));

            // set_permissions.
            let rw = std::fs::Permissions::from_mode(0o644);
            out.push(show(fs::set_permissions(at("f"), rw.clone()).await));
            out.push(show(fs::set_permissions(at("missing"), rw.clone()).await));
            out.push(show(fs::set_permissions(at("f/x"), rw.clone()).await));

            // File::set_permissions, set_times, set_modified.
            let file = File::open(at("f")).await.unwrap();
            out.push(show(file.set_permissions(rw).await));
            let times = FileTimes::new()
                .set_accessed(SystemTime::UNIX_EPOCH)
                .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(60));
            out.push(show(file.set_times(times).await));
            out.push(show(file.set_modified(SystemTime::UNIX_EPOCH).await));
            out.push(show(fs::read(at("f")).await));
            out
        }
    };
}

mod real {
    use super::*;
    scenario!();
}

mod simulated {
    use super::*;
    use sim_rt as tokio;
    scenario!();
}

fn runtime() -> sim_rt::runtime::Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn the_simulated_disk_gives_the_real_outcomes() {
    let dir = fresh_real_dir("sim-rt-fs-os-items");
    let real = on_real_tokio(real::scenario(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    let simulated = runtime().block_on(async {
        sim_rt::fs::create_dir_all("/tmp/work").await.unwrap();
        simulated::scenario(Path::new("/tmp/work")).await
    });
    let expected = [
        "Ok(())",
        "Err((AlreadyExists, Some(17)))",
        "Err((NotFound, Some(2)))",
        "Ok(())",
        "Ok(true)",
        "Ok(())",
        "Err((AlreadyExists, Some(17)))",
        "Err((AlreadyExists, Some(17)))",
        "Err((NotADirectory, Some(20)))",
        "Ok(())",
        "Ok(true)",
        "Err((InvalidInput, Some(22)))",
        "Err((InvalidInput, Some(22)))",
        "Err((NotFound, Some(2)))",
        "Err((NotADirectory, Some(20)))",
        "Ok(())",
        "Err((NotFound, Some(2)))",
        "Err((NotADirectory, Some(20)))",
        "Ok(())",
        "Ok(())",
        "Ok(())",
        "Ok([100, 97, 116, 97])",
    ];
    assert_eq!(real, expected, "real tokio");
    assert_eq!(simulated, expected, "sim_rt");
}

#[test]
fn dir_builder_and_file_times_debug_like_tokio() {
    let mut real = tokio::fs::DirBuilder::new();
    let mut simulated = sim_rt::fs::DirBuilder::new();
    assert_eq!(format!("{real:?}"), format!("{simulated:?}"));
    real.recursive(true).mode(0o700);
    simulated.recursive(true).mode(0o700);
    assert_eq!(
        format!("{simulated:?}"),
        "DirBuilder { recursive: true, mode: Some(448) }"
    );
    assert_eq!(format!("{real:?}"), format!("{simulated:?}"));

    let t = SystemTime::UNIX_EPOCH;
    let real = tokio::fs::FileTimes::new().set_modified(t);
    let simulated = sim_rt::fs::FileTimes::new().set_modified(t);
    assert_eq!(format!("{real:?}"), format!("{simulated:?}"));
    assert_eq!(
        format!("{:?}", sim_rt::fs::FileTimes::new().clone()),
        "FileTimes { accessed: None, modified: None }"
    );
}

#[test]
fn symlink_is_unsupported_and_creates_nothing() {
    runtime().block_on(async {
        sim_rt::fs::write("/target", b"x").await.unwrap();
        let err = sim_rt::fs::symlink("/target", "/link").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Unsupported);
        assert_eq!(err.raw_os_error(), None);
        assert_eq!(
            err.to_string(),
            "sim_rt::fs::symlink(\"/target\", \"/link\"): the simulated disk has no \
             symbolic links (use hard_link or copy instead)"
        );
        assert!(!sim_rt::fs::try_exists("/link").await.unwrap());
        // Even where a link could not be made on Linux (a missing parent).
        let err = sim_rt::fs::symlink("/target", "/no/dir/link").await;
        assert_eq!(err.unwrap_err().kind(), io::ErrorKind::Unsupported);
    });
}

#[test]
fn permissions_and_times_change_nothing_the_simulation_reports() {
    use std::os::unix::fs::PermissionsExt;
    runtime().block_on(async {
        sim_rt::fs::write("/f", b"abc").await.unwrap();
        let before = sim_rt::fs::metadata("/f").await.unwrap();
        sim_rt::fs::set_permissions("/f", std::fs::Permissions::from_mode(0o000))
            .await
            .unwrap();
        let f = sim_rt::fs::File::open("/f").await.unwrap();
        f.set_permissions(std::fs::Permissions::from_mode(0o400))
            .await
            .unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH).await.unwrap();
        let after = sim_rt::fs::metadata("/f").await.unwrap();
        assert_eq!(before, after);
        let err = after.modified().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Unsupported);
        // "No permissions": a file set to 0o000 still reads.
        assert_eq!(sim_rt::fs::read("/f").await.unwrap(), b"abc");
    });
}

#[test]
fn set_times_waits_for_the_write_in_flight() {
    let mut disk = FsConfig::default();
    disk.latency.write = Duration::from_millis(10);
    disk.latency.meta = Duration::from_millis(1);
    Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .disk(disk)
        .build()
        .unwrap()
        .block_on(async {
            let mut f = sim_rt::fs::File::create("/f").await.unwrap();
            let start = sim_rt::time::Instant::now();
            f.write_all(b"abc").await.unwrap();
            assert_eq!(
                start.elapsed(),
                Duration::ZERO,
                "a write returns once buffered"
            );
            f.set_times(sim_rt::fs::FileTimes::new()).await.unwrap();
            // The write's job (10 ms), then set_times' own job (1 ms).
            assert_eq!(start.elapsed(), Duration::from_millis(11));
            f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
                .await
                .unwrap();
            assert_eq!(start.elapsed(), Duration::from_millis(12));
        });
}

#[test]
fn dir_builder_takes_the_metadata_latency() {
    let mut disk = FsConfig::default();
    disk.latency.meta = Duration::from_millis(3);
    Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .disk(disk)
        .build()
        .unwrap()
        .block_on(async {
            let start = sim_rt::time::Instant::now();
            sim_rt::fs::DirBuilder::new()
                .recursive(true)
                .create("/a/b/c")
                .await
                .unwrap();
            assert_eq!(start.elapsed(), Duration::from_millis(3));
            let err = sim_rt::fs::read_link("/a").await.unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
            assert_eq!(start.elapsed(), Duration::from_millis(6));
        });
}

#[test]
fn a_dead_file_fails_set_times_and_set_permissions_with_ebadf() {
    runtime().block_on(async move {
        let f = file_of_a_stopped_host().await;
        let err = f.set_modified(SystemTime::UNIX_EPOCH).await.unwrap_err();
        assert_eq!(err.raw_os_error(), Some(9), "EBADF: {err}");
        let err = f
            .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .await
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(9), "EBADF: {err}");
    });
}

#[test]
fn a_directory_made_by_dir_builder_needs_its_parent_synced() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<(bool, bool)>>> = Arc::default();
    let s = seen.clone();
    runtime().block_on(async move {
        sim::host("db").start(move || {
            let s = s.clone();
            async move {
                let found = (
                    sim_rt::fs::try_exists("/synced").await?,
                    sim_rt::fs::try_exists("/unsynced").await?,
                );
                s.lock().unwrap().push(found);
                if s.lock().unwrap().len() == 1 {
                    sim_rt::fs::DirBuilder::new().create("/synced").await?;
                    sim_rt::fs::File::open("/").await?.sync_all().await?;
                    sim_rt::fs::DirBuilder::new().create("/unsynced").await?;
                }
                Ok::<(), io::Error>(())
            }
        });
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        sim::reset("db");
        sim_rt::time::sleep(Duration::from_millis(1)).await;
    });
    assert_eq!(*seen.lock().unwrap(), [(false, false), (true, false)]);
}

#[test]
#[should_panic(expected = "sim_rt::fs was used outside a simulation")]
fn dir_builder_outside_a_simulation_panics_clearly() {
    let _ = futures::executor::block_on(sim_rt::fs::DirBuilder::new().create("/d"));
}
