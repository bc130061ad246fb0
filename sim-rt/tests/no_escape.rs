//! No escape from the simulation: `std::time`, OS randomness (std's
//! `HashMap`, `rand`, `uuid`), std threads and real sockets inside a
//! simulation; real time and randomness outside one, in the same binary.
//!
//! The acceptance test for reproducibility runs the program in separate
//! processes: this test binary spawns itself with a filter on an ignored
//! child test and the seed in an environment variable, twice with one seed
//! and once with another, and compares what the children print. Separate
//! processes matter: std's `RandomState` and `rand`'s `ThreadRng` draw OS
//! randomness once per thread, so only a fresh process (or thread) shows
//! that the program's values come from the seed and from nothing else.
#![cfg(all(feature = "intercept", target_os = "linux", target_env = "gnu"))]

mod rt_support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rt_support::{assert_contains_all, child_test, sim, sim_failure};
use sim_rt::runtime::{Builder, FailureKind};
use sim_rt::sim::{allow_threads, intercepting, without_interception, WALL_CLOCK_EPOCH};

/// The child tests read their seed from this variable.
const CHILD_SEED: &str = "SIM_NO_ESCAPE_CHILD_SEED";

const DAY: Duration = Duration::from_secs(86_400);

/// A program that reads time and randomness the ways real code does, and
/// lets them shape its schedule: tasks are spawned in `HashMap` order and
/// sleep for `rand::random` durations, so a value that is not a function of
/// the seed changes the trace as well as the output.
async fn program() -> Vec<String> {
    let mut out = Vec::new();
    let start = std::time::Instant::now();
    let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    assert!(
        wall > WALL_CLOCK_EPOCH + DAY && wall < WALL_CLOCK_EPOCH + 366 * DAY,
        "SystemTime inside a simulation is the simulated wall clock, got {wall:?}"
    );
    out.push(format!("wall clock {wall:?}"));

    let map: HashMap<String, u32> = (0..8).map(|i| (format!("key{i}"), i)).collect();
    let order: Vec<u32> = map.values().copied().collect();
    out.push(format!("hashmap order {order:?}"));

    let log = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for i in order {
        let log = log.clone();
        tasks.push(sim_rt::spawn(async move {
            let ms = rand::random::<u64>() % 20;
            sim_rt::time::sleep(Duration::from_millis(ms)).await;
            let id = uuid::Uuid::new_v4();
            log.lock().unwrap().push(format!(
                "task {i} slept {ms}ms, uuid {id}, std elapsed {:?}",
                start.elapsed()
            ));
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    out.extend(log.lock().unwrap().drain(..));

    // std's Instant follows the simulated clock exactly.
    let before = std::time::Instant::now();
    sim_rt::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(before.elapsed(), Duration::from_millis(1500));
    let wall_after = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    out.push(format!("wall clock after {wall_after:?}"));
    out
}

/// Runs [`program`] with `seed`; prints its output and trace hash.
#[test]
#[ignore = "run in a child process by same_seed_same_output_in_separate_processes"]
fn child_runs_program() {
    let seed: u64 = std::env::var(CHILD_SEED)
        .expect("run by same_seed_same_output_in_separate_processes")
        .parse()
        .unwrap();
    let rt = Builder::new_current_thread()
        .poll_cost(Duration::ZERO)
        .enable_all()
        .exact_seed(seed)
        .build()
        .unwrap();
    let lines = rt.block_on(program());
    for line in lines {
        println!("OUT {line}");
    }
    let trace = rt.trace();
    println!("TRACE {:016x} {}", trace.hash(), trace.len());
}

/// Runs the ignored test `name` of this binary in a child process with
/// `seed` and the extra environment `env`; returns (success, stdout+stderr).
fn run_child(name: &str, seed: u64, env: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = child_test(name);
    cmd.env(CHILD_SEED, seed.to_string())
        .env_remove("SIM_CHECK_DETERMINISM");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The program's output lines and trace line, from a child's output.
fn program_output(seed: u64) -> (Vec<String>, String) {
    let (ok, text) = run_child("child_runs_program", seed, &[]);
    assert!(ok, "child with seed {seed} failed:\n{text}");
    // libtest's "test child_runs_program ... " may start the first line.
    let tagged = |tag: &'static str| {
        text.lines()
            .filter_map(move |l| l.find(tag).map(|i| l[i..].to_string()))
    };
    let lines: Vec<String> = tagged("OUT ").collect();
    let trace = tagged("TRACE ")
        .next()
        .unwrap_or_else(|| panic!("child printed no trace:\n{text}"));
    (lines, trace)
}

#[test]
fn same_seed_same_output_in_separate_processes() {
    let (a1, ta1) = program_output(7);
    let (a2, ta2) = program_output(7);
    let (b, tb) = program_output(8);
    // 1 wall clock + 1 order + 8 tasks + 1 wall clock after.
    assert_eq!(a1.len(), 11, "{a1:#?}");
    assert!(a1.iter().filter(|l| l.contains("uuid")).count() == 8);
    assert_eq!(a1, a2, "same seed, different output across processes");
    assert_eq!(ta1, ta2, "same seed, different trace across processes");
    assert_ne!(a1, b, "different seeds gave the same output");
    assert_ne!(ta1, tb, "different seeds gave the same trace");
    // Every source of randomness differs with the seed, not only the clock.
    let uuids = |o: &[String]| -> Vec<String> {
        o.iter()
            .filter_map(|l| l.split("uuid ").nth(1))
            .map(|s| s[..36].to_string())
            .collect()
    };
    assert!(uuids(&a1).iter().all(|u| !uuids(&b).contains(u)));
}

/// Per-call sources (no per-thread cache): equal for equal seeds within one
/// thread, too, and different for different seeds.
#[test]
fn per_call_randomness_and_time_follow_the_seed_in_process() {
    fn sample(seed: u64) -> (Vec<u8>, Vec<u8>, Vec<u8>, uuid::Uuid, Duration) {
        let rt = Builder::new_current_thread()
            .enable_all()
            .exact_seed(seed)
            .build()
            .unwrap();
        rt.block_on(async {
            assert!(intercepting());
            let mut libc_getrandom = vec![0u8; 32];
            let n = unsafe { libc::getrandom(libc_getrandom.as_mut_ptr().cast(), 32, 0) };
            assert_eq!(n, 32);
            // The path of the `getrandom` crate 0.2 (rand 0.8): syscall().
            let mut raw = vec![0u8; 32];
            let n = unsafe { libc::syscall(libc::SYS_getrandom, raw.as_mut_ptr(), 32usize, 0u32) };
            assert_eq!(n, 32);
            let mut entropy = vec![0u8; 16];
            assert_eq!(
                unsafe { libc::getentropy(entropy.as_mut_ptr().cast(), 16) },
                0
            );
            let id = uuid::Uuid::new_v4();
            // time(), gettimeofday() and a raw clock_gettime syscall agree
            // with SystemTime.
            let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            assert_eq!(
                unsafe { libc::time(std::ptr::null_mut()) } as u64,
                wall.as_secs()
            );
            let mut tv = libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            };
            unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) };
            assert_eq!(tv.tv_sec as u64, wall.as_secs());
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            let r =
                unsafe { libc::syscall(libc::SYS_clock_gettime, libc::CLOCK_REALTIME, &mut ts) };
            assert_eq!(r, 0);
            assert_eq!(
                Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32),
                wall,
                "the clock does not move while a task runs"
            );
            (libc_getrandom, raw, entropy, id, wall)
        })
    }
    let a = sample(11);
    assert_eq!(a, sample(11));
    let b = sample(12);
    assert_ne!(a.0, b.0);
    assert_ne!(a.1, b.1);
    assert_ne!(a.2, b.2);
    assert_ne!(a.3, b.3);
    assert_ne!(a.4, b.4);
    // Different calls draw different bytes.
    assert_ne!(a.0, a.1);
}

fn real_time_and_randomness_checks(when: &str) {
    assert!(!intercepting(), "{when}");
    // Real wall time: not before this executable was written, and past the
    // simulated year.
    let exe_written = std::fs::metadata(std::env::current_exe().unwrap())
        .unwrap()
        .modified()
        .unwrap();
    let now = SystemTime::now();
    assert!(now >= exe_written, "{when}: {now:?} < {exe_written:?}");
    assert!(now.duration_since(UNIX_EPOCH).unwrap() > WALL_CLOCK_EPOCH + 366 * DAY);
    // Real monotonic time moves with a real sleep (a lower bound only).
    let t = std::time::Instant::now();
    std::thread::sleep(Duration::from_millis(2));
    assert!(t.elapsed() >= Duration::from_millis(2), "{when}");
    // OS randomness: two draws of 256 bits differ.
    let draw = || {
        let mut b = [0u8; 32];
        assert_eq!(unsafe { libc::getrandom(b.as_mut_ptr().cast(), 32, 0) }, 32);
        b
    };
    assert_ne!(draw(), draw(), "{when}");
    assert_ne!(uuid::Uuid::new_v4(), uuid::Uuid::new_v4(), "{when}");
    // Threads and sockets work.
    assert_eq!(std::thread::spawn(|| 5).join().unwrap(), 5, "{when}");
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
}

#[test]
fn outside_a_simulation_time_and_randomness_are_real() {
    real_time_and_randomness_checks("before any simulation");
    let rt = Builder::new_current_thread()
        .enable_all()
        .seed(1)
        .build()
        .unwrap();
    let sim_wall = rt.block_on(async {
        assert!(intercepting());
        let sim_wall = SystemTime::now();
        // An explicit escape inside the simulation reads the real world.
        without_interception(|| real_time_and_randomness_checks("in without_interception"));
        assert!(intercepting());
        sim_wall
    });
    real_time_and_randomness_checks("after a simulation ended on this thread");
    assert!(sim_wall < SystemTime::now());
    // A runtime that exists but is not running leaves the thread real.
    drop(rt);
    real_time_and_randomness_checks("after the runtime was dropped");
}

#[test]
fn std_thread_spawn_inside_a_simulation_runs_a_simulated_thread() {
    // The thread reads simulated time and the simulation's randomness: it
    // runs inside the simulation, as a task of the calling host.
    let (wall, inside) = sim(7, async {
        std::thread::spawn(|| (SystemTime::now(), intercepting()))
            .join()
            .unwrap()
    });
    assert!(inside);
    assert!(wall < UNIX_EPOCH + WALL_CLOCK_EPOCH + Duration::from_secs(400 * 86_400));
    // Builder::spawn too, from a spawned task.
    let n = sim(8, async {
        sim_rt::spawn(async {
            std::thread::Builder::new()
                .spawn(|| 3)
                .unwrap()
                .join()
                .unwrap()
        })
        .await
        .unwrap()
    });
    assert_eq!(n, 3);

    // The opt-out: a real thread, outside the simulation.
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (n, real) = rt.block_on(async {
        allow_threads(|| std::thread::spawn(|| (42, !intercepting())).join().unwrap())
    });
    assert_eq!(n, 42);
    assert!(real);
    // A panic unrelated to a refused call gets no note.
    let failure = rt.try_block_on(async { panic!("plain") }).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::MainPanic);
    assert_eq!(failure.message(), Some("plain"));
}

#[test]
fn real_sockets_and_a_real_tokio_reactor_inside_a_simulation_are_refused() {
    // A socket made before the simulation is real: used inside, refused.
    let real = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let failure = sim_failure(async move {
        let err = real.send_to(b"x", "127.0.0.1:9").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
        // One made inside is simulated: nothing listens on port 9 of the
        // simulated host.
        let err = std::net::TcpStream::connect("127.0.0.1:9").unwrap_err();
        panic!("{err}");
    });
    let msg = failure.message().unwrap();
    assert_contains_all(
        msg,
        &[
            "Connection refused",
            "note: a real socket, made outside the simulation, was used inside it",
            "use sim_rt::net",
        ],
    );

    let failure = sim_failure(async {
        tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
    });
    let msg = failure.message().unwrap();
    assert_contains_all(msg, &["note: a real I/O reactor was created", "--cfg sim"]);

    // Outside a simulation, real tokio runs on the same thread.
    let real = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    real.block_on(async {
        let sock = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        assert!(sock.local_addr().unwrap().port() > 0);
    });
}

/// Raw, packet and netlink sockets are refused inside a simulation with
/// the errno Linux gives an unprivileged or unsupported request, and a
/// note; IP and Unix sockets are still created (they are refused when
/// they would reach the network); outside, netlink works.
#[test]
fn raw_packet_and_netlink_sockets_are_refused_inside_a_simulation() {
    // SAFETY (every `libc::socket`/`close` below): plain system calls on
    // values we own.
    let open = |domain, ty, protocol| unsafe {
        let fd = libc::socket(domain, ty, protocol);
        let err = std::io::Error::last_os_error().raw_os_error();
        if fd >= 0 {
            libc::close(fd);
        }
        (fd >= 0, err)
    };
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let inside = rt.block_on(async move {
        [
            open(libc::AF_INET, libc::SOCK_RAW, libc::IPPROTO_ICMP),
            open(libc::AF_PACKET, libc::SOCK_DGRAM, 0),
            open(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0),
            open(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_NONBLOCK, 0),
            open(libc::AF_UNIX, libc::SOCK_DGRAM, 0),
        ]
    });
    assert_eq!(inside[0], (false, Some(libc::EPERM)));
    assert_eq!(inside[1], (false, Some(libc::EAFNOSUPPORT)));
    assert_eq!(inside[2], (false, Some(libc::EAFNOSUPPORT)));
    assert!(inside[3].0 && inside[4].0, "{inside:?}");
    assert!(open(libc::AF_NETLINK, libc::SOCK_RAW, 0).0);
    // A program that then panics on the error gets the note in its report.
    let failure = sim_failure(async move {
        let (made, err) = open(libc::AF_PACKET, libc::SOCK_RAW, 0);
        assert!(!made);
        panic!("no packet socket: errno {err:?}");
    });
    assert_contains_all(
        failure.message().unwrap(),
        &[
            "note: a raw, packet or netlink socket was created",
            "no link layer",
        ],
    );
}

/// How [`schedule_from_time_and_randomness`] gets its 64 bits.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    /// Clock, `getrandom` and `Uuid::new_v4`, intercepted.
    Intercepted,
    /// The same, read inside `without_interception`: real values.
    Escaping,
    /// std `HashMap` order: intercepted, but its keys are cached per thread.
    HashMapOrder,
    /// `rand::rng()`: intercepted, but seeded once per thread.
    ThreadRng,
}

/// A program whose schedule follows 64 bits read from the clock and OS
/// randomness: when those reads are not a function of the seed, two runs
/// differ.
async fn schedule_from_time_and_randomness(source: Source) {
    let read = || {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let mut b = [0u8; 8];
        assert_eq!(unsafe { libc::getrandom(b.as_mut_ptr().cast(), 8, 0) }, 8);
        nanos ^ u64::from_ne_bytes(b) ^ uuid::Uuid::new_v4().as_u64_pair().0
    };
    let bits = match source {
        Source::Intercepted => read(),
        Source::Escaping => without_interception(read),
        Source::HashMapOrder => {
            let map: HashMap<u64, ()> = (0..64).map(|i| (i, ())).collect();
            map.keys().take(16).fold(0, |acc, k| acc << 4 ^ k)
        }
        Source::ThreadRng => rand::RngExt::random(&mut rand::rng()),
    };
    for bit in 0..64 {
        if bits >> bit & 1 == 1 {
            sim_rt::spawn(async {}).await.unwrap();
        } else {
            sim_rt::task::yield_now().await;
        }
    }
}

/// Under `SIM_CHECK_DETERMINISM=1`: runs the program with the source named
/// by `SIM_NO_ESCAPE_SOURCE`.
#[test]
#[ignore = "run in a child process by the determinism check tests"]
fn child_checks_determinism() {
    let seed: u64 = std::env::var(CHILD_SEED).unwrap().parse().unwrap();
    let source = match std::env::var("SIM_NO_ESCAPE_SOURCE").unwrap().as_str() {
        "intercepted" => Source::Intercepted,
        "escaping" => Source::Escaping,
        "hashmap" => Source::HashMapOrder,
        "thread_rng" => Source::ThreadRng,
        other => panic!("unknown source {other}"),
    };
    // As `#[sim_rt::test]` runs its body: the builder and the body made
    // where each run happens.
    let builder = || {
        let mut builder = Builder::new_current_thread();
        builder.enable_all();
        builder.seed(seed);
        builder
    };
    sim_rt::runtime::__private::run_fresh(builder, || schedule_from_time_and_randomness(source));
    println!("CHECK PASSED");
}

/// The same programs in a `#[sim_rt::test]`, as a team's suite has them.
#[sim_rt::test]
#[ignore = "run in a child process by the determinism check tests"]
async fn child_test_with_per_thread_state() {
    schedule_from_time_and_randomness(Source::HashMapOrder).await;
    schedule_from_time_and_randomness(Source::ThreadRng).await;
    println!("CHECK PASSED");
}

/// The step named in a determinism-check report in `text`.
fn diverged_step(text: &str) -> u64 {
    let prefix = "SIM_CHECK_DETERMINISM: two runs with seed 3 diverged at step ";
    let at = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no divergence report:\n{text}"));
    let step: String = text[at + prefix.len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(
        text.contains("first run:") && text.contains("second run:"),
        "{text}"
    );
    step.parse()
        .unwrap_or_else(|_| panic!("the step is named:\n{text}"))
}

fn check_child(source: &str) -> (bool, String) {
    let env = [
        ("SIM_CHECK_DETERMINISM", "1"),
        ("SIM_NO_ESCAPE_SOURCE", source),
    ];
    run_child("child_checks_determinism", 3, &env)
}

#[test]
fn the_determinism_check_catches_reads_that_escape_and_passes_intercepted_ones() {
    let (ok, text) = check_child("intercepted");
    assert!(ok && text.contains("CHECK PASSED"), "{text}");

    let (ok, text) = check_child("escaping");
    assert!(!ok, "{text}");
    diverged_step(&text);
}

/// std's `RandomState` keys are drawn once per thread and `rand::rng()` is
/// seeded once per thread: each of the check's two runs is on a thread of
/// its own, so both see the keys and the generator their seed gives, the
/// same `HashMap` order and the same draws, and the check passes.
#[test]
fn the_determinism_check_passes_hashmap_order_and_thread_rng_that_shape_the_schedule() {
    for source in ["hashmap", "thread_rng"] {
        let (ok, text) = check_child(source);
        assert!(ok && text.contains("CHECK PASSED"), "{source}: {text}");
    }
    let env = [("SIM_CHECK_DETERMINISM", "1"), ("SIM_SEED", "5")];
    let (ok, text) = run_child("child_test_with_per_thread_state", 5, &env);
    assert!(ok && text.contains("CHECK PASSED"), "{text}");
}
