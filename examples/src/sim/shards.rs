//! The sharded directory in the simulator: one host, four tasks (two
//! movers, the syncer, the checkpointer), no faults. After every
//! checkpoint, recovery from the disk must list every name exactly once.

use std::time::Duration;

use explorer::{Exhaustive, Explorer, Rtc};
use futures::FutureExt;
use sim_rt::sim;

use super::Case;

#[path = "../shards.rs"]
pub mod system;

use self::system::{recover, Directory};

/// Names each mover moves, one every [`MOVE_EVERY`]: the first from
/// shard 0 to shard 1, the second back.
const MOVES: usize = 8;
const MOVE_EVERY: [Duration; 2] = [Duration::from_millis(3), Duration::from_millis(4)];
/// Checkpoints, one every [`CHECKPOINT_EVERY`]: the one at 21 ms falls at
/// the same instant as the first mover's seventh move, and no other at the
/// instant of a move.
const CHECKPOINTS: usize = 3;
const CHECKPOINT_EVERY: Duration = Duration::from_millis(7);

/// The property.
pub const PROPERTY: &str = "recovery keeps every name";

/// The planted bug and how to find it.
pub fn case() -> Case {
    Case {
        name: "shards",
        bug: "a move lets the source shard go before journaling, so a checkpoint can include the move but not the name",
        test: |bug| test(bug).boxed_local(),
        explorer,
        custom: None,
    }
}

/// Run-to-completion, stratified exhaustive search with one delay. At the
/// instant the checkpointer and a mover wake together, run-to-completion
/// follows what each step woke, so the mover's chain (its flush, the
/// syncer, the sync) runs through and the mover, woken last, inserts
/// before the checkpointer copies; one delay at the right step puts the
/// checkpointer in the gap, and the first stratum gets there in about ten
/// executions. Uniform walks need about a hundred: the checkpointer must
/// lose every draw to the mover's chain, then win the one in the gap.
pub fn explorer() -> Explorer {
    Explorer::new()
        .name("shards")
        .explorer(Rtc::default())
        .search(Exhaustive::new(1))
        .executions(2_000)
}

/// One simulation: two movers move their names to the other shard one by
/// one, while the checkpointer checkpoints and checks recovery.
pub async fn test(bug: bool) {
    let host = sim::host("dir").spawn(async move {
        let a: Vec<String> = (0..MOVES).map(|i| format!("a{i}")).collect();
        let b: Vec<String> = (0..MOVES).map(|i| format!("b{i}")).collect();
        let a_ref: Vec<&str> = a.iter().map(String::as_str).collect();
        let b_ref: Vec<&str> = b.iter().map(String::as_str).collect();
        let dir = Directory::create("/dir", [&a_ref, &b_ref])
            .await
            .unwrap()
            .early_release(bug);
        sim_rt::spawn(dir.clone().syncer());
        for (from, names) in [(0, a.clone()), (1, b.clone())] {
            let dir = dir.clone();
            sim_rt::spawn(async move {
                for name in names {
                    sim_rt::time::sleep(MOVE_EVERY[from]).await;
                    assert!(dir.move_name(&name, from).await.unwrap());
                }
            });
        }
        let all: Vec<String> = a.into_iter().chain(b).collect();
        for _ in 0..CHECKPOINTS {
            sim_rt::time::sleep(CHECKPOINT_EVERY).await;
            dir.checkpoint().await.unwrap();
            let shards = recover("/dir").await.unwrap();
            for name in &all {
                let copies = shards.iter().filter(|s| s.contains(name)).count();
                if copies != 1 {
                    return Err(format!(
                        "{name} is in {copies} shards after recovery, at {:?}",
                        sim::elapsed()
                    ));
                }
            }
        }
        Ok(())
    });
    if let Err(violation) = host.await.expect("the checkpointer finished") {
        panic!("{PROPERTY}: {violation}");
    }
}
