//! A published storage crate, unmodified, on the simulated disk: the
//! crates.io crate [`queue-file`](https://crates.io/crates/queue-file)
//! 2.0.0 (Apache-2.0), "a lightning-fast, transactional, file-based FIFO",
//! a port of Square's Tape `QueueFile`. It does all its I/O through
//! `std::fs`: `OpenOptions::open`, positioned reads and writes
//! (`FileExt::read_at`/`write_all_at`), `set_len`, `sync_data`/`sync_all`
//! and a `rename` of a freshly initialized file into place; no mmap, no
//! threads, no async. Its durability promise: with `sync_writes` on (the
//! default outside its own unit tests) every `add` is `sync_data`'d before
//! it returns, its header is written to one of two checksummed slots, and
//! an open after a crash recovers the newest valid slot.
//!
//! Inside a simulation those `std::fs` calls go to the host's simulated
//! disk (nothing reaches the real one), and a host reset takes what the
//! crate did not sync. The tests here:
//!
//! - run its public API on a host, sync as it documents, reset the host,
//!   reopen the queue and check what was synced is there;
//! - explore it under host resets (the fault injector may reset the writer's
//!   host at any step; the host's entry reopens the queue on restart and
//!   checks that every acknowledged element is in it);
//! - plant a durability bug in the caller, not in the crate (the writer
//!   turns `sync_writes` off and acknowledges each element on `add`, with
//!   one `sync_all` at the end of the batch) and show the explorer finds it
//!   and that the failure replays from its token.
//!
//! # What the explorer found
//!
//! Used exactly as its docs show (`QueueFile::open`, then `add`), the crate
//! loses every acknowledged element on the first reset: the first
//! execution fails. A new queue's file is initialized as `jobs..tmp`
//! (`Path::with_extension(".tmp")`) and renamed to `jobs.qf`, and nothing
//! syncs the directory; each `add` is `sync_data`'d, which makes the file's
//! data durable but not its name, so after the reset `jobs.qf` is gone and
//! the reopen creates a new, empty queue. The story: "step 8, 1ms: reset
//! queue (the program)", then "element 0 was acknowledged, but start 1 of
//! the host found the queue holding [] (its file was gone)". The simulated
//! disk, like POSIX (and ALICE), makes a directory entry durable only by a
//! sync of its directory; ext4 in its default mode commits the rename with
//! the file's fsync, which is why this goes unseen on a laptop. With the
//! caller syncing the directory once after the open, the unmodified crate
//! survives 400 explored executions (a reset at any of the writer's steps,
//! with the harshest crash model for what was unsynced).
//!
//! Limits of that exploration: a reset takes effect at a step of the
//! simulation, and a call into the crate is synchronous, so resets land
//! between the writer's calls (before the open, between two `add`s, after
//! the batch), not between the writes and syncs inside one `add`, nor
//! between the crate's write of the temporary file and its rename. So it
//! does not see that a new queue's file is renamed into place before
//! anything syncs its content (`init` in the crate's `factory.rs` writes
//! the length and both header slots, then renames, and never syncs): the
//! first `add`'s `sync_data` makes the whole file durable before a reset
//! can come. A reset between the open and that `add` could leave the name
//! of an empty file; whether the crate then reopens it is not explored.
//!
//! # The crate's own tests, and a bug planted in the crate
//!
//! `crate-suites/tests/queue_file.rs` runs the crate's own integration
//! tests inside a simulation. At run time it copies the published package
//! from cargo's registry cache into a scratch workspace under the target
//! directory (nothing of the crate is committed here), opens each of its
//! four test files with `use sim_rt::test;`, which makes every `#[test]`
//! in it (quickcheck's `#[quickcheck]` ones too) a `#[sim_rt::test]`: a
//! synchronous test body run in a fresh simulation, its `std::fs` calls on
//! the host's simulated disk. It runs them, and the package as published
//! on the real disk, with nested `cargo test`s: all 96 tests pass in both,
//! and each announced its simulation. The one edit to a test: test_case
//! writes the built-in test attribute by its full path on the cases of a
//! synchronous function, which no import shadows, so those 4 functions (10
//! cases) get test_case's async form, `#[sim_rt::test] async fn`. The tests
//! take a temporary path (`auto-delete-path`), corrupt the file on purpose
//! through `std::fs`, and inject errors through an environment variable;
//! they never reset a host, so what they show is that the interposed file
//! calls behave as Linux's do for everything the crate does.
//!
//! The same harness plants a durability bug in a second copy: the
//! `sync_data` in `QueueFileInner::write` (every element and header slot
//! is written through it) is deleted, so `add` returns before anything of
//! the element is durable. It runs the exploration here (the module
//! `storage_crate/scenario.rs`, copied in, with the directory synced after
//! the open) against both copies: the explorer finds the planted bug in
//! its fourth execution ("step 2, 0ns: reset queue (fault injector)", just
//! after element 0 was acknowledged; then "element 0 was acknowledged, but
//! start 1 of the host found the queue holding [] (its file was there)"),
//! prints the `SIM_REPLAY=...
//! cargo test -p queue-file-planted ...` line, and that line, pasted into a
//! shell, replays the same failure at the same step; the unmodified copy
//! passes its 400 executions, as it does here.

#[path = "storage_crate/scenario.rs"]
mod scenario;

use scenario::{explorer, scenario, ACK_BEFORE_SYNC, AS_DOCUMENTED, DIR_SYNCED, QUEUE};
use sim_rt::runtime::Builder;

/// What the explorer finds in the crate used exactly as documented: a new
/// queue's file is initialized as `jobs..tmp` and renamed to `jobs.qf`, and
/// nothing syncs the directory; every `add` after it is `sync_data`'d, but
/// a reset takes the file's name, the reopen creates a new, empty queue,
/// and every acknowledged element is gone. (The simulated disk, like
/// POSIX, makes a directory entry durable only by syncing its directory;
/// on ext4 in its default mode a file's fsync happens to commit the rename
/// with it, which is why this goes unseen on a laptop.)
#[test]
fn as_documented_a_reset_loses_the_new_queues_name_and_every_element() {
    let report = explorer().executions(300).run(|| scenario(AS_DOCUMENTED));
    let found = report
        .failure
        .as_ref()
        .expect("the explorer finds the loss");
    let message = found.failure.to_string();
    assert!(
        message.contains("durability") && message.contains("its file was gone"),
        "{report}"
    );
}

/// Point 1 without exploration: add (synced, as documented), sync the
/// directory once after the open, reset, reopen: everything is there.
#[test]
fn synced_elements_survive_a_host_reset() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(scenario(DIR_SYNCED));
    assert!(
        !std::path::Path::new(QUEUE).exists(),
        "nothing on the real disk"
    );
}

/// With the directory synced after the open, the unmodified crate keeps
/// every acknowledged element whatever step the reset comes at and
/// whatever the crash kept of its unsynced writes.
#[test]
fn with_the_directory_synced_the_crate_survives_resets_at_any_step() {
    let report = explorer().executions(400).run(|| scenario(DIR_SYNCED));
    assert!(!report.failed(), "{report}");
}

/// The planted bug, in the caller: acknowledging an element before the
/// crate's sync. The explorer finds it under resets, and the failure
/// replays from its token, step for step.
#[test]
fn acknowledging_before_the_sync_is_found_and_replays_from_its_token() {
    let report = explorer().executions(400).run(|| scenario(ACK_BEFORE_SYNC));
    let found = report.failure.as_ref().expect("the planted bug is found");
    assert!(found.failure.to_string().contains("durability"), "{report}");
    let token = found.token.to_string();
    let again = explorer()
        .replay(token.clone())
        .run(|| scenario(ACK_BEFORE_SYNC));
    let replayed = again.failure.as_ref().expect("the replay fails");
    assert_eq!(replayed.trace.first_difference(&found.trace), None);
    assert_eq!(replayed.failure.to_string(), found.failure.to_string());
    assert_eq!(replayed.token.to_string(), token);
    assert_eq!(again.executions, 1);
}
