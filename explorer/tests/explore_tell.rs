//! A failure report tells, in words, what the defaults would not have
//! done: the delays at picks and the faults, naming hosts, tasks and
//! messages, with steps numbered as `sim::step()` numbers them.

use std::time::Duration;

use explorer::{Explorer, RoundRobin, Rtc};

mod common;

#[test]
fn a_delay_is_told_as_what_it_put_off() {
    let report = common::sampling(Rtc::default(), 2, 200).run(common::lost_update);
    let found = report.failure.expect("the lost update is found");
    assert!(found.delays > 0);
    common::assert_story_tells(&found.story, "the story", |l| {
        l.contains("task ") && l.contains(" on main delayed past task ")
    });
}

#[test]
fn an_injected_partition_and_the_timeout_it_caused_are_told() {
    let report = common::partition_explorer().run(common::hello);
    let found = report.failure.expect("a partition before the hello");
    let story = found.story.join("\n");
    assert!(
        story.contains("partition a | b (fault injector)"),
        "{story}"
    );
    assert!(
        story.contains(
            "the timer of task 3 on b fired before a -> b \"hello b\" (sent at 20ms) arrived \
             (held by the partition)"
        ),
        "{story}"
    );
    // Steps as the failure numbers them: the timer fired at the step
    // before b's poll that failed.
    let step = found.failure.step();
    assert!(
        story.contains(&format!("step {}, 50ms: the timer", step - 1)),
        "{story}"
    );
}

#[test]
fn shrinking_can_be_turned_off() {
    let explorer = || common::sampling(Rtc::default(), 2, 200);
    let off = explorer().shrink(0).run(common::lost_update);
    let off = off.failure.expect("found");
    assert!(off.shrunk.is_none());
    let on = explorer().run(common::lost_update);
    let on = on.failure.expect("found");
    let shrunk = on.shrunk.expect("on by default");
    // The search found what it found; the report is the shrunk one.
    assert_eq!(shrunk.original, off.token);
    assert!(shrunk.after <= shrunk.before);
}

#[test]
fn a_buggify_point_is_a_fault_a_search_can_spend() {
    // The retry path is wrong, and only a buggify point takes it.
    let program = || async {
        let mut sent = 0;
        for _ in 0..20 {
            sent += 1;
            if sim_rt::sim::buggify() {
                sent += 1; // the bug: a retry counted as a second message
            }
            sim_rt::task::yield_now().await;
        }
        assert_eq!(sent, 20, "every message counted once");
    };
    let report = common::sampling(Rtc::default(), 1, 100).run(program);
    let found = report.failure.expect("one fired buggify point fails it");
    common::assert_story_tells(&found.story, "the story", |l| {
        l.contains("a sim::buggify point fired")
    });
    let shrunk = found.shrunk.expect("shrunk");
    assert_eq!(shrunk.after.faults, 1, "one buggify point is a fault");
}

/// "a" sends "b" three pings over a lossy link, each saying at which step
/// (`sim::step()`) it was sent; "b" waits for all three.
async fn lossy_pings() {
    sim_rt::sim::host("a").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?;
        for i in 1..=3 {
            let ping = format!("ping {i} sent at step {}", sim_rt::sim::step());
            sock.send_to(ping.as_bytes(), "b:9").await?;
            sim_rt::time::sleep(Duration::from_millis(5)).await;
        }
        std::future::pending::<std::io::Result<()>>().await
    });
    sim_rt::sim::host("b").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?;
        let mut buf = [0u8; 64];
        for _ in 0..3 {
            let heard = sim_rt::time::timeout(Duration::from_millis(50), sock.recv_from(&mut buf));
            assert!(heard.await.is_ok(), "b missed a ping");
        }
        Ok::<(), std::io::Error>(())
    });
    sim_rt::sim::set_link("a", "b", sim_rt::sim::link("a", "b").with_loss(0.1));
    sim_rt::time::sleep(Duration::from_millis(100)).await;
}

#[test]
fn a_loss_is_told_by_its_message_at_the_step_the_program_saw() {
    let report = common::sampling(RoundRobin::default(), 1, 200).run(lossy_pings);
    let found = report.failure.as_ref().expect("one lost ping fails it");
    let line = found
        .story
        .iter()
        .find(|l| l.contains(": lose a -> b \"ping "))
        .unwrap_or_else(|| panic!("the loss, by its message: {report}"));
    // "step N, T: lose a -> b "ping K sent at step N" (by chance)": the
    // story's step is the one the program read from sim::step().
    let told: u64 = line["step ".len()..line.find(',').unwrap()]
        .parse()
        .unwrap();
    let seen: u64 = line[line.find("sent at step ").unwrap() + "sent at step ".len()..]
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(told, seen, "{line}");
    assert!(line.ends_with("(by chance)"), "{line}");
    let text = report.to_string();
    eprintln!("{text}");
    assert!(!text.contains("data choice of kind"), "{text}");
    assert!(
        !text.contains("host 1") && !text.contains("packet"),
        "{text}"
    );
}

#[test]
fn a_choice_and_a_labelled_task_are_told_in_words() {
    // Only sim::choose's option 2 fails it; the writer labels itself.
    let program = || async {
        let writer = sim_rt::spawn(async {
            sim_rt::sim::annotate("writer");
            sim_rt::task::yield_now().await;
            sim_rt::choose(3)
        });
        assert_ne!(writer.await.unwrap(), 2, "the writer chose the bad option");
    };
    let report = common::sampling(Rtc::default(), 1, 100).run(program);
    let found = report.failure.expect("option 2 is found");
    let story = found.story.join("\n");
    assert!(story.contains(": sim::choose picked 2 of 3"), "{story}");
    assert!(!story.contains("kind"), "{story}");

    // A delay names the labelled task by its label.
    let report = common::sampling(Rtc::default(), 2, 200).run(|| async {
        let total = common::racy_count_labelled(Some("incrementer")).await;
        assert_eq!(total, 2, "lost update");
    });
    let found = report.failure.expect("the lost update is found");
    common::assert_story_tells(&found.story, "the story", |l| {
        l.contains("(incrementer) on main")
    });
}

/// "a" asks "b" and waits 50 ms for the answer; a partition of a | b
/// before the question makes it time out.
async fn question() {
    sim_rt::sim::host("b").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?;
        let mut buf = [0u8; 16];
        loop {
            let (n, from) = sock.recv_from(&mut buf).await?;
            sock.send_to(&buf[..n], from).await?;
        }
        #[allow(unreachable_code)]
        Ok::<(), std::io::Error>(())
    });
    sim_rt::sim::host("a").start(|| async {
        let sock = sim_rt::net::UdpSocket::bind("0.0.0.0:9").await?;
        sim_rt::time::sleep(Duration::from_millis(20)).await;
        sock.send_to(b"are you there", "b:9").await?;
        let mut buf = [0u8; 16];
        let answer = sim_rt::time::timeout(Duration::from_millis(50), sock.recv_from(&mut buf));
        assert!(answer.await.is_ok(), "b never answered");
        Ok::<(), std::io::Error>(())
    });
    sim_rt::time::sleep(Duration::from_millis(100)).await;
}

#[test]
fn a_request_that_timed_out_is_told_with_the_message_it_waited_for() {
    let report = common::partition_explorer().run(question);
    let found = report.failure.expect("a partition before the question");
    let story = found.story.join("\n");
    assert!(
        story.contains(
            "fired before a -> b \"are you there\" (sent at 20ms) arrived (held by the partition)"
        ),
        "{story}"
    );
}

/// Where each task was polled in the run the report tells (one job: the
/// told run is the last one), as `sim::step()` numbers steps.
static POLLS: std::sync::Mutex<Vec<(String, u64)>> = std::sync::Mutex::new(Vec::new());

fn note_poll() {
    let id = sim_rt::task::id();
    POLLS
        .lock()
        .unwrap()
        .push((format!("task {id} on main"), sim_rt::sim::step()));
}

/// Two tasks each read a counter, yield, and write it back plus one.
async fn lost_update() {
    POLLS.lock().unwrap().clear();
    let counter = std::sync::Arc::new(std::sync::Mutex::new(0));
    let tasks: Vec<_> = (0..2)
        .map(|_| {
            let c = counter.clone();
            sim_rt::spawn(async move {
                note_poll();
                let v = *c.lock().unwrap();
                sim_rt::task::yield_now().await;
                note_poll();
                *c.lock().unwrap() = v + 1;
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(*counter.lock().unwrap(), 2, "lost update");
}

/// A delay is told at the step of the pick it delayed: the task it names
/// as running instead was polled at that very step.
#[test]
fn delay_lines_are_numbered_at_the_delayed_pick() {
    let report = Explorer::new()
        .progress(false)
        .jobs(1)
        .explorer(explorer::Rtc::default())
        .search(explorer::Sampling::new(2))
        .executions(200)
        .run(lost_update);
    let found = report.failure.expect("the lost update is found");
    let polls = POLLS.lock().unwrap().clone();
    let delays: Vec<&String> = found
        .story
        .iter()
        .filter(|l| l.contains(" delayed past "))
        .collect();
    assert!(!delays.is_empty(), "{:?}", found.story);
    for line in delays {
        let step: u64 = line["step ".len()..line.find(',').unwrap()]
            .trim()
            .parse()
            .unwrap();
        let ran = line.split(" delayed past ").nth(1).unwrap().trim();
        assert!(
            polls.iter().any(|(t, s)| t == ran && *s == step),
            "{line} vs {polls:?}"
        );
    }
}
