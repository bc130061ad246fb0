//! Simulated disk throughput: how fast sim-rt runs storage code.
//!
//! - `write_4k_sync_all`: one task appends a 4 KiB block to a file and calls
//!   `sync_all`, 10,000 times, in one simulation on the default disk (no
//!   latency, no faults). Each iteration is a buffered write, its
//!   background job, and a sync job: at least four scheduled steps and two
//!   task spawns. Throughput is simulated (write + fsync)s per second of
//!   real time.
//! - `wal_crash_execution`: whole executions of a small crash test, a fresh
//!   simulation each: a host appends 5 synced records, is reset at a
//!   seed-dependent instant, and recovers its log.
//! - `std_copy_outside`: a 1 MiB file copied with `std::fs` in 4 KiB
//!   reads and writes, *outside* any simulation, on the real disk: the
//!   cost of the interposed libc file functions to a process that links
//!   sim-rt but is not simulating (each call checks a thread-local, then
//!   forwards to libc). Its instructions per call are read with callgrind
//!   off this bench's binary: `SIM_BENCH_COPY=N` runs N copies and exits
//!   (see the guide's performance chapter).
//! - `std_socket_outside`: 256 round trips of a 4 KiB block over a real
//!   std `UnixStream` pair (`write` and `recv`, both interposed), outside
//!   any simulation: the same cost for the socket calls.
//!   `SIM_BENCH_SOCKET=N` runs N rounds of 256 and exits, for callgrind.
//!
//! Run with `cargo bench -p sim-rt --bench fs`.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, Criterion, Throughput};
use sim_rt::fs::{self, File, OpenOptions};
use sim_rt::io::AsyncWriteExt;
use sim_rt::runtime::Builder;
use sim_rt::sim;

const WRITES: u64 = 10_000;
const BLOCK: usize = 4096;

fn write_sync(n: u64) -> u64 {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async move {
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open("/log")
                .await
                .unwrap();
            let block = [7u8; BLOCK];
            for _ in 0..n {
                f.write_all(&block).await.unwrap();
                f.sync_all().await.unwrap();
            }
            f.metadata().await.unwrap().len() / BLOCK as u64
        })
}

fn wal_crash(seed: u64) -> usize {
    let mut disk = sim::FsConfig::default();
    disk.latency.write = Duration::from_micros(10);
    disk.latency.sync = Duration::from_micros(100);
    Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .disk(disk)
        .build()
        .unwrap()
        .block_on(async move {
            sim::host("db").start(|| async {
                if fs::try_exists("/wal").await? {
                    return fs::read("/wal").await.map(drop);
                }
                let mut f = File::create("/wal").await?;
                File::open("/").await?.sync_all().await?;
                for i in 0..5u8 {
                    f.write_all(&[i; 16]).await?;
                    f.sync_all().await?;
                }
                Ok::<(), std::io::Error>(())
            });
            sim_rt::time::sleep(Duration::from_micros(seed % 700)).await;
            sim::reset("db");
            sim_rt::time::sleep(Duration::from_millis(1)).await;
            fs::read("/wal").await.map(|d| d.len()).unwrap_or(0)
        })
}

/// The copied file's size.
const COPY_BYTES: usize = 1 << 20;

/// Copies `src` to `dst` in `BLOCK`-byte reads and writes with `std::fs`,
/// outside any simulation; returns the bytes copied.
fn std_copy(src: &Path, dst: &Path) -> usize {
    let mut r = std::fs::File::open(src).unwrap();
    let mut w = std::fs::File::create(dst).unwrap();
    let mut buf = [0u8; BLOCK];
    let mut copied = 0;
    loop {
        let n = r.read(&mut buf).unwrap();
        if n == 0 {
            return copied;
        }
        w.write_all(&buf[..n]).unwrap();
        copied += n;
    }
}

/// A scratch directory of the real disk with the file to copy.
fn copy_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sim-rt-bench-copy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("src"), vec![7u8; COPY_BYTES]).unwrap();
    dir
}

/// Round trips over a real std `UnixStream` pair, outside any simulation:
/// `ROUNDS` blocks of `BLOCK` bytes written on one end and read on the
/// other; returns the bytes read.
fn std_socket_rounds(
    a: &mut std::os::unix::net::UnixStream,
    b: &mut std::os::unix::net::UnixStream,
) -> usize {
    const ROUNDS: usize = 256;
    let block = [7u8; BLOCK];
    let mut buf = [0u8; BLOCK];
    let mut got = 0;
    for _ in 0..ROUNDS {
        a.write_all(&block).unwrap();
        b.read_exact(&mut buf).unwrap();
        got += buf.len();
    }
    got
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fs");
    g.throughput(Throughput::Elements(WRITES));
    g.bench_function("write_4k_sync_all", |b| {
        b.iter(|| assert_eq!(write_sync(WRITES), WRITES))
    });
    g.throughput(Throughput::Elements(1));
    let mut seed = 0;
    g.bench_function("wal_crash_execution", |b| {
        b.iter(|| {
            seed += 1;
            wal_crash(seed)
        })
    });
    g.finish();
}

fn outside(c: &mut Criterion) {
    let dir = copy_dir();
    let mut g = c.benchmark_group("fs");
    g.throughput(Throughput::Bytes(COPY_BYTES as u64));
    g.bench_function("std_copy_outside", |b| {
        b.iter(|| assert_eq!(std_copy(&dir.join("src"), &dir.join("dst")), COPY_BYTES))
    });
    let (mut a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    g.throughput(Throughput::Bytes((256 * BLOCK) as u64));
    g.bench_function("std_socket_outside", |bch| {
        bch.iter(|| assert_eq!(std_socket_rounds(&mut a, &mut b), 256 * BLOCK))
    });
    g.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

criterion_group!(benches, bench, outside);

fn main() {
    // `SIM_BENCH_COPY=N`: N copies outside a simulation, for callgrind.
    if let Ok(n) = std::env::var("SIM_BENCH_COPY") {
        let n: usize = n
            .parse()
            .expect("SIM_BENCH_COPY takes a number of copies, like SIM_BENCH_COPY=20");
        let dir = copy_dir();
        for _ in 0..n {
            assert_eq!(std_copy(&dir.join("src"), &dir.join("dst")), COPY_BYTES);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    // `SIM_BENCH_SOCKET=N`: N rounds of socket round trips outside a
    // simulation, for callgrind.
    if let Ok(n) = std::env::var("SIM_BENCH_SOCKET") {
        let n: usize = n
            .parse()
            .expect("SIM_BENCH_SOCKET takes a number of rounds, like SIM_BENCH_SOCKET=20");
        let (mut a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
        for _ in 0..n {
            assert_eq!(std_socket_rounds(&mut a, &mut b), 256 * BLOCK);
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
