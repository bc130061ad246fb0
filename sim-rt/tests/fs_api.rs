//! `sim_rt::fs` against real tokio: the same calls on a real temporary
//! directory and on the simulated disk must give the same values and the
//! same error kinds (`tests/fs/scenario.rs`), plus what only a simulation
//! can check: per-host disks, crashes, latency, injected faults, misuse.

mod rt_support;

use std::time::Duration;

use rt_support::{file_of_a_stopped_host, fresh_real_dir, on_real_tokio, sim_on};
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::runtime::Builder;
use sim_rt::sim::{self, FsConfig};

mod real {
    include!("fs/scenario.rs");
}

mod sim_side {
    use sim_rt as tokio;
    include!("fs/scenario.rs");
}

#[test]
fn simulated_disk_behaves_like_the_real_one() {
    let dir = fresh_real_dir("sim-rt-fs-api");
    let real = on_real_tokio(real::scenario(&dir));
    std::fs::remove_dir_all(&dir).unwrap();

    let simulated = simulated_scenario();
    for (i, (r, s)) in real.iter().zip(&simulated).enumerate() {
        assert_eq!(r, s, "line {i} differs (left: real tokio, right: sim_rt)");
    }
    assert_eq!(real.len(), simulated.len());
}

/// The scenario's outcomes on the simulated disk, in `/tmp/work`.
fn simulated_scenario() -> Vec<String> {
    runtime().block_on(async {
        sim_rt::fs::create_dir_all("/tmp/work").await.unwrap();
        sim_side::scenario(std::path::Path::new("/tmp/work")).await
    })
}

fn runtime() -> sim_rt::runtime::Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn each_host_sees_only_its_own_disk() {
    runtime().block_on(async {
        sim_rt::fs::write("/who", b"main").await.unwrap();
        let a = sim::host("a").start(|| async { sim_rt::fs::write("/who", b"a").await });
        let b = sim::host("b").start(|| async {
            sim_rt::time::sleep(Duration::from_millis(1)).await;
            let mine = sim_rt::fs::try_exists("/who").await.unwrap();
            assert!(!mine, "host b must not see the files of main or a");
            sim_rt::fs::write("/who", b"b").await
        });
        sim_rt::time::sleep(Duration::from_millis(2)).await;
        let _ = (a, b);
        assert_eq!(sim_rt::fs::read("/who").await.unwrap(), b"main");
    });
}

#[test]
fn a_reset_loses_what_was_not_synced_and_keeps_what_was() {
    use std::sync::{Arc, Mutex};
    type Boots = Vec<(bool, bool, Vec<u8>)>;
    let seen: Arc<Mutex<Boots>> = Arc::default();
    let s = seen.clone();
    runtime().block_on(async move {
        sim::host("db").start(move || {
            let s = s.clone();
            async move {
                let boot = s.lock().unwrap().len();
                let durable = sim_rt::fs::try_exists("/durable").await?;
                let volatile = sim_rt::fs::try_exists("/volatile").await?;
                let data = if durable {
                    sim_rt::fs::read("/durable").await?
                } else {
                    Vec::new()
                };
                s.lock().unwrap().push((durable, volatile, data));
                if boot == 0 {
                    let mut f = sim_rt::fs::File::create("/durable").await?;
                    f.write_all(b"kept").await?;
                    f.sync_all().await?;
                    f.write_all(b" lost").await?; // never synced
                    f.flush().await?;
                    sim_rt::fs::File::open("/").await?.sync_all().await?;
                    sim_rt::fs::write("/volatile", b"gone").await?;
                    assert!(sim_rt::fs::try_exists("/volatile").await?);
                }
                Ok::<(), std::io::Error>(())
            }
        });
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        sim::reset("db");
        sim_rt::time::sleep(Duration::from_millis(1)).await;
    });
    let seen = seen.lock().unwrap();
    assert_eq!(
        *seen,
        vec![(false, false, vec![]), (true, false, b"kept".to_vec())],
        "boot 1 finds an empty disk; boot 2 the synced data under the synced name only"
    );
}

#[test]
fn an_open_file_of_a_crashed_host_is_dead() {
    runtime().block_on(async move {
        let mut f = file_of_a_stopped_host().await;
        let err = f.sync_all().await.unwrap_err();
        assert_eq!(err.raw_os_error(), Some(9), "EBADF: {err}");
        f.write_all(b"x").await.unwrap(); // buffered
        assert_eq!(f.flush().await.unwrap_err().raw_os_error(), Some(9));
    });
}

#[test]
fn operations_take_the_configured_latency() {
    let mut disk = FsConfig::default();
    disk.latency.write = Duration::from_micros(30);
    disk.latency.sync = Duration::from_millis(2);
    disk.latency.meta = Duration::from_micros(5);
    sim_on(Builder::new_current_thread().disk(disk), async {
        let start = sim_rt::time::Instant::now();
        let mut f = sim_rt::fs::File::create("/f").await.unwrap();
        assert_eq!(start.elapsed(), Duration::from_micros(5));
        f.write_all(b"abc").await.unwrap();
        assert_eq!(
            start.elapsed(),
            Duration::from_micros(5),
            "a write returns once buffered"
        );
        f.sync_all().await.unwrap();
        assert_eq!(start.elapsed(), Duration::from_micros(5 + 30 + 2000));
    });
}

/// A sync or metadata job outlives its caller (tokio's blocking jobs do):
/// when the caller gave up and dropped the file, the job holds the last
/// reference to the descriptor, and closing it must wait until the disk
/// model has returned.
#[test]
fn a_file_dropped_while_its_sync_job_runs_is_closed_after_the_job() {
    let mut disk = FsConfig::default();
    disk.latency.sync = Duration::from_millis(2);
    disk.latency.meta = Duration::from_millis(2);
    sim_on(Builder::new_current_thread().disk(disk), async {
        let f = sim_rt::fs::File::create("/f").await.unwrap();
        let short = Duration::from_millis(1);
        assert!(sim_rt::time::timeout(short, f.sync_all()).await.is_err());
        assert!(sim_rt::time::timeout(short, f.metadata()).await.is_err());
        drop(f);
        // The jobs finish, and close the file, after this.
        sim_rt::time::sleep(Duration::from_millis(5)).await;
        let f = sim_rt::fs::File::open("/f").await.unwrap();
        f.sync_all().await.unwrap();
    });
}

#[test]
fn injected_eio_reaches_the_caller() {
    let mut disk = FsConfig::default();
    disk.faults.eio_read = 1.0;
    sim_on(Builder::new_current_thread().disk(disk), async {
        sim_rt::fs::write("/f", b"abc").await.unwrap();
        let err = sim_rt::fs::read("/f").await.unwrap_err();
        assert_eq!(err.raw_os_error(), Some(5), "EIO: {err}");
        let mut f = sim_rt::fs::File::open("/f").await.unwrap();
        let mut s = String::new();
        assert_eq!(
            f.read_to_string(&mut s).await.unwrap_err().raw_os_error(),
            Some(5)
        );
    });
}

#[test]
fn a_host_can_have_its_own_disk_settings() {
    let mut full = FsConfig::default();
    full.faults.capacity = Some(4);
    runtime().block_on(async move {
        sim::host("small").disk(full.clone()).start(|| async {
            let err = sim_rt::fs::write("/f", b"too big").await.unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);
            let kept = sim_rt::fs::read("/f").await?;
            assert_eq!(kept, b"too ", "the write went short, then failed");
            sim_rt::fs::remove_file("/f").await?;
            sim_rt::fs::write("/g", b"fits").await
        });
        sim_rt::time::sleep(Duration::from_millis(1)).await;
        sim_rt::fs::write("/f", b"the main host's disk is unlimited")
            .await
            .unwrap();
    });
}

#[test]
fn the_same_seed_gives_the_same_execution() {
    let run = |seed| {
        let rt = Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .build()
            .unwrap();
        rt.block_on(async {
            let mut tasks = Vec::new();
            for i in 0..4u8 {
                tasks.push(sim_rt::spawn(async move {
                    let path = format!("/f{}", i % 2);
                    let mut f = sim_rt::fs::OpenOptions::new()
                        .append(true)
                        .create(true)
                        .open(&path)
                        .await
                        .unwrap();
                    f.write_all(&[b'a' + i; 3]).await.unwrap();
                    f.sync_all().await.unwrap();
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
            (
                sim_rt::fs::read("/f0").await.unwrap(),
                sim_rt::fs::read("/f1").await.unwrap(),
            )
        });
        rt.trace()
    };
    assert_eq!(run(7), run(7));
    let differ = (0..8).any(|s| run(s).hash() != run(7).hash());
    assert!(differ, "interleavings of disk jobs depend on the seed");
}

#[test]
#[should_panic(expected = "sim_rt::fs was used outside a simulation")]
fn using_the_disk_outside_a_simulation_panics_clearly() {
    let _ = futures::executor::block_on(sim_rt::fs::read("/f"));
}

#[test]
#[ignore = "prints the scenario's outcomes, for reading"]
fn print_scenario() {
    for l in simulated_scenario() {
        println!("{l}");
    }
}
