//! Message delivery as choice points: reordering reaches every outcome
//! across seeds, a loss is reached only when the link allows it or the
//! scheduler chooses it, and the fault injector resets and partitions hosts
//! as data choices within its budget.

mod rt_support;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rt_support::{sim_scheduled, udp_request_over_lossy_links, RandomWith};
use sim_rt::io::{AsyncReadExt, AsyncWriteExt};
use sim_rt::net::{TcpListener, TcpStream, UdpSocket};
use sim_rt::runtime::Builder;
use sim_rt::scheduler::{ChoiceKind, Event, Observation, RandomScheduler, Scheduler};
use sim_rt::sim::{self, FaultInjector};
use sim_rt::time::{sleep, timeout};

/// A register server: each connection writes one byte, the last write wins.
/// Two writers on different hosts race; the winner depends on delivery
/// order alone.
fn last_writer_wins(seed: u64) -> u8 {
    Builder::new_current_thread()
        .enable_all()
        .seed(seed)
        .build()
        .unwrap()
        .block_on(async {
            let value = Arc::new(Mutex::new(Vec::new()));
            let v = value.clone();
            sim::host("register").start(move || {
                let v = v.clone();
                async move {
                    let l = TcpListener::bind("0.0.0.0:1").await.unwrap();
                    while let Ok((mut s, _)) = l.accept().await {
                        let v = v.clone();
                        sim_rt::spawn(async move {
                            let b = s.read_u8().await.unwrap();
                            v.lock().unwrap().push(b);
                        });
                    }
                }
            });
            for (name, b) in [("a", b'a'), ("b", b'b')] {
                sim::host(name).start(move || async move {
                    let mut s = TcpStream::connect("register:1").await.unwrap();
                    s.write_u8(b).await.unwrap();
                });
            }
            while value.lock().unwrap().len() < 2 {
                sleep(Duration::from_millis(1)).await;
            }
            let last = *value.lock().unwrap().last().unwrap();
            last
        })
}

#[test]
fn reordering_reaches_both_outcomes_across_seeds() {
    let outcomes: BTreeSet<u8> = (0..40).map(last_writer_wins).collect();
    assert_eq!(outcomes, BTreeSet::from([b'a', b'b']));
    // And each seed is reproducible.
    for seed in 0..10 {
        assert_eq!(last_writer_wins(seed), last_writer_wins(seed));
    }
}

/// A UDP request to an echo server with no retry, over links that lose a
/// datagram with probability `loss`: whether the reply came.
fn udp_request<S: Scheduler + 'static>(
    seed: u64,
    loss: f64,
    scheduler: impl FnMut(u64) -> S + 'static,
) -> bool {
    sim_scheduled(seed, scheduler, async move {
        sim::host("server").start(|| async {
            let s = UdpSocket::bind("0.0.0.0:53").await.unwrap();
            let mut buf = [0u8; 16];
            while let Ok((n, from)) = s.recv_from(&mut buf).await {
                s.send_to(&buf[..n], from).await.unwrap();
            }
        });
        udp_request_over_lossy_links("server", "server:53", loss, b"query").await
    })
}

#[test]
fn a_lost_datagram_is_reached_only_when_loss_is_possible() {
    let answered: Vec<bool> = (0..100)
        .map(|seed| udp_request(seed, 0.0, RandomScheduler::new))
        .collect();
    assert!(
        answered.iter().all(|a| *a),
        "no loss configured, no timeout"
    );

    let lossy: Vec<bool> = (0..100)
        .map(|seed| udp_request(seed, 0.3, RandomScheduler::new))
        .collect();
    assert!(lossy.iter().any(|a| !a), "30% loss times out sometimes");
    assert!(lossy.iter().any(|a| *a), "and not always");
}

/// Answers every loss choice with "lose it"; otherwise the default choice.
struct DropEverything;

impl Scheduler for DropEverything {
    fn pick(&mut self, _: &[Event]) -> usize {
        0
    }
    fn choose(&mut self, kind: ChoiceKind, _: usize) -> usize {
        usize::from(matches!(kind, ChoiceKind::Loss { .. }))
    }
}

#[test]
fn a_scheduler_can_choose_the_drop_however_unlikely() {
    assert!(!udp_request(0, 1e-9, |_| DropEverything));
    // The default choice delivers.
    assert!(udp_request(0, 1e-9, RandomScheduler::new));
}

/// Counts host stops and link changes seen by the default scheduler.
struct Counting {
    inner: RandomScheduler,
    seen: Rc<RefCell<(u32, u32)>>,
    fault_at: Option<u64>,
    steps: u64,
}

impl Scheduler for Counting {
    fn pick(&mut self, enabled: &[Event]) -> usize {
        self.steps += 1;
        self.inner.pick(enabled)
    }
    fn choose(&mut self, kind: ChoiceKind, n: usize) -> usize {
        match (kind, self.fault_at) {
            // Option 1 is the first fault: reset the first host.
            (ChoiceKind::Fault { .. }, Some(at)) if at == self.steps => 1,
            (ChoiceKind::Fault { .. }, Some(_)) => 0,
            _ => self.inner.choose(kind, n),
        }
    }
    fn observe(&mut self, o: &Observation) {
        let mut seen = self.seen.borrow_mut();
        match o {
            Observation::HostStopped { .. } => seen.0 += 1,
            Observation::LinkChanged { .. } => seen.1 += 1,
            _ => {}
        }
    }
}

/// A client that keeps a connection to an echo-like server and reconnects
/// when it breaks; returns how many times it had to reconnect.
fn survive_faults(
    seed: u64,
    faults: Option<FaultInjector>,
    fault_at: Option<u64>,
) -> (u32, (u32, u32)) {
    let seen = Rc::new(RefCell::new((0, 0)));
    let s2 = seen.clone();
    let mut builder = Builder::new_current_thread();
    builder.enable_all();
    if let Some(faults) = faults {
        builder.fault_injector(faults);
    }
    let reconnects = builder
        .seed(seed)
        .scheduler(move |seed| Counting {
            inner: RandomScheduler::new(seed),
            seen: s2.clone(),
            fault_at,
            steps: 0,
        })
        .build()
        .unwrap()
        .block_on(async {
            sim::host("server").start(|| async {
                let l = TcpListener::bind("0.0.0.0:9").await.unwrap();
                while let Ok((mut s, _)) = l.accept().await {
                    sim_rt::spawn(async move {
                        while let Ok(b) = s.read_u8().await {
                            if s.write_u8(b).await.is_err() {
                                return;
                            }
                        }
                    });
                }
            });
            sim::host("peer").start(|| async {});
            let mut reconnects = 0;
            let mut conn: Option<TcpStream> = None;
            let mut i = 0u8;
            while i < 50 {
                let s = match conn.as_mut() {
                    Some(s) => s,
                    None => match timeout(Duration::from_secs(1), TcpStream::connect("server:9"))
                        .await
                    {
                        Ok(Ok(s)) => conn.insert(s),
                        _ => continue,
                    },
                };
                let ok = timeout(Duration::from_secs(1), async {
                    s.write_u8(i).await?;
                    s.read_u8().await
                })
                .await;
                match ok {
                    Ok(Ok(b)) => {
                        assert_eq!(b, i);
                        i += 1;
                    }
                    _ => {
                        conn = None;
                        reconnects += 1;
                    }
                }
            }
            reconnects
        });
    let seen = *seen.borrow();
    (reconnects, seen)
}

#[test]
fn the_fault_injector_is_off_by_default_and_stays_within_budget() {
    // Off by default: a scheduler that would inject at every step it is
    // asked is never asked.
    for at in [1, 10, 30] {
        let (reconnects, seen) = survive_faults(0, None, Some(at));
        assert_eq!((reconnects, seen), (0, (0, 0)));
    }
    // With an empty budget there is nothing to choose.
    let empty = FaultInjector::new().max_resets(0).max_partitions(0);
    assert_eq!(survive_faults(0, Some(empty), Some(30)), (0, (0, 0)));

    // Forced at step 30: option 1 resets the first candidate host.
    let (reconnects, seen) = survive_faults(0, Some(FaultInjector::new()), Some(30));
    assert_eq!(seen.0, 1, "one reset");
    assert!(reconnects >= 1);

    // Likely faults from the default scheduler, within the budget.
    let mut any = false;
    for seed in 0..20 {
        let s2 = Rc::new(RefCell::new((0u32, 0u32)));
        let s3 = s2.clone();
        Builder::new_current_thread()
            .enable_all()
            .seed(seed)
            .fault_injector(
                FaultInjector::new()
                    .max_resets(2)
                    .max_partitions(1)
                    .probability(0.05),
            )
            .scheduler(move |seed| Counting {
                inner: RandomScheduler::new(seed),
                seen: s3.clone(),
                fault_at: None,
                steps: 0,
            })
            .build()
            .unwrap()
            .block_on(async {
                sim::host("a").start(|| async { sleep(Duration::from_secs(100)).await });
                sim::host("b").start(|| async { sleep(Duration::from_secs(100)).await });
                for _ in 0..200 {
                    sleep(Duration::from_millis(100)).await;
                }
            });
        let (stops, links) = *s2.borrow();
        assert!(stops <= 2, "seed {seed}: {stops} resets over a budget of 2");
        // A partition is two link changes; a heal two more.
        assert!(links <= 4, "seed {seed}: {links} link changes");
        any |= stops > 0 || links > 0;
    }
    assert!(any, "5% per step over hundreds of steps injects something");
}

/// Records the number of options of every fault choice, and takes option
/// 1 (partition the only pair) at the first one.
fn fault_options(
    options: Rc<RefCell<Vec<usize>>>,
) -> impl FnMut(ChoiceKind, usize) -> Option<usize> {
    move |kind, n| match kind {
        ChoiceKind::Fault { .. } => {
            let mut options = options.borrow_mut();
            options.push(n);
            Some(usize::from(options.len() == 1))
        }
        _ => None,
    }
}

#[test]
fn a_partition_healed_by_the_program_is_no_longer_the_injectors_to_heal() {
    let options = Rc::new(RefCell::new(Vec::new()));
    let o2 = options.clone();
    let after_heal = Builder::new_current_thread()
        .enable_all()
        .fault_injector(FaultInjector::new().max_resets(0).max_partitions(1))
        .scheduler(move |seed| RandomWith::answering(seed, fault_options(o2.clone())))
        .build()
        .unwrap()
        .block_on(async {
            sim::host("a").start(|| async { sleep(Duration::from_secs(100)).await });
            sim::host("b").start(|| async { sleep(Duration::from_secs(100)).await });
            sleep(Duration::from_millis(10)).await;
            assert!(
                sim::link("a", "b").partitioned,
                "the injector partitioned a-b"
            );
            sim::heal_all();
            let healed = options.borrow().len();
            for _ in 0..10 {
                sleep(Duration::from_millis(10)).await;
            }
            options.borrow()[healed..].to_vec()
        });
    // The budget is spent and the partition is healed: nothing to offer,
    // so nothing is asked (before, a no-op "heal" stayed on offer).
    assert!(
        after_heal.is_empty(),
        "fault choices after the heal: {after_heal:?}"
    );
}

/// Takes option `take` at the first fault choice (recording how many there
/// were) and the default at every later one.
fn first_fault_taking(
    take: usize,
    options: Rc<RefCell<Option<usize>>>,
) -> impl FnMut(ChoiceKind, usize) -> Option<usize> {
    move |kind, n| match kind {
        ChoiceKind::Fault { .. } => {
            let mut first = options.borrow_mut();
            if first.is_none() {
                *first = Some(n);
                return Some(take);
            }
            Some(0)
        }
        _ => None,
    }
}

/// Hosts that restarted, and pairs partitioned both ways.
type Faults = (Vec<&'static str>, Vec<(&'static str, &'static str)>);

/// How many fault options there were, and what the first fault did, seen
/// from the test after 10 ms of three idle hosts.
fn first_fault(take: usize) -> (usize, Faults) {
    let options = Rc::new(RefCell::new(None));
    let o2 = options.clone();
    let starts = Rc::new(RefCell::new(Vec::new()));
    let (restarted, partitioned) = Builder::new_current_thread()
        .enable_all()
        .fault_injector(FaultInjector::new().max_resets(1).max_partitions(1))
        .scheduler(move |seed| RandomWith::answering(seed, first_fault_taking(take, o2.clone())))
        .build()
        .unwrap()
        .block_on(async {
            let names = ["a", "b", "c"];
            for name in names {
                let starts = starts.clone();
                sim::host(name).start(move || {
                    starts.borrow_mut().push(name);
                    async { sleep(Duration::from_secs(100)).await }
                });
            }
            sleep(Duration::from_millis(10)).await;
            let mut restarted: Vec<&'static str> = starts.borrow().clone();
            for name in names {
                let i = restarted.iter().position(|n| *n == name).unwrap();
                restarted.remove(i);
            }
            let mut partitioned = Vec::new();
            for (i, a) in names.iter().enumerate() {
                for b in &names[i + 1..] {
                    if sim::link(*a, *b).partitioned {
                        assert!(sim::link(*b, *a).partitioned, "both ways");
                        partitioned.push((*a, *b));
                    }
                }
            }
            (restarted, partitioned)
        });
    let n = options.borrow().expect("a fault choice was asked");
    (n, (restarted, partitioned))
}

#[test]
fn fault_options_are_resets_then_partitions_in_host_order() {
    // Three hosts with entry points, a reset and a partition in the
    // budget: the default, 3 resets, 3 pairs.
    let expected: [Faults; 7] = [
        (vec![], vec![]),
        (vec!["a"], vec![]),
        (vec!["b"], vec![]),
        (vec!["c"], vec![]),
        (vec![], vec![("a", "b")]),
        (vec![], vec![("a", "c")]),
        (vec![], vec![("b", "c")]),
    ];
    for (take, faults) in expected.into_iter().enumerate() {
        assert_eq!(first_fault(take), (7, faults), "option {take}");
    }
}
