//! SQLite, C code that does its own file I/O (rusqlite's bundled build),
//! inside a simulation: the database lives on the host's simulated disk,
//! nothing reaches the real one, and a host reset keeps what SQLite synced
//! and loses what it did not.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use rusqlite::Connection;
use sim_rt::runtime::Builder;
use sim_rt::sim;

const DB: &str = "/sim-sqlite/orders.db";

/// What the database held after the restart: its rows and its
/// `integrity_check`.
#[derive(Debug, Default, PartialEq)]
struct After {
    rows: Vec<i64>,
    integrity: String,
}

/// On host "db": commit row 1 (synchronous=EXTRA), then row 2 with
/// `synchronous` as given; main resets the host once both commits have
/// returned, and the restarted entry reads the database.
async fn commit_then_reset(synchronous: &'static str) -> After {
    let after: Rc<RefCell<Option<After>>> = Rc::default();
    let committed = Rc::new(std::cell::Cell::new(false));
    let (a, c) = (after.clone(), committed.clone());
    sim::host("db").start(move || {
        let (after, committed) = (a.clone(), c.clone());
        async move {
            if !committed.get() {
                // The directory, made durable as a real service's setup
                // would (a reset loses an entry its directory never synced).
                std::fs::create_dir_all("/sim-sqlite").unwrap();
                std::fs::File::open("/").unwrap().sync_all().unwrap();
                let db = Connection::open(DB).unwrap();
                db.pragma_update(None, "synchronous", "EXTRA").unwrap();
                db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)", [])
                    .unwrap();
                db.execute("INSERT INTO orders VALUES (1)", []).unwrap();
                db.pragma_update(None, "synchronous", synchronous).unwrap();
                db.execute("INSERT INTO orders VALUES (2)", []).unwrap();
                committed.set(true);
                std::future::pending::<()>().await;
            } else {
                let db = Connection::open(DB).unwrap();
                let mut rows = db.prepare("SELECT id FROM orders ORDER BY id").unwrap();
                let rows = rows
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .collect::<Result<Vec<i64>, _>>()
                    .unwrap();
                let integrity = db
                    .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                    .unwrap();
                *after.borrow_mut() = Some(After { rows, integrity });
            }
        }
    });
    while !committed.get() {
        sim_rt::time::sleep(Duration::from_millis(1)).await;
    }
    sim::reset("db");
    sim_rt::time::sleep(Duration::from_millis(10)).await;
    after.take().expect("the restarted host read the database")
}

fn run(synchronous: &'static str) -> After {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(commit_then_reset(synchronous))
}

#[test]
fn a_synced_commit_survives_a_reset() {
    let after = run("EXTRA");
    assert_eq!(after.rows, vec![1, 2]);
    assert_eq!(after.integrity, "ok");
    assert!(
        !std::path::Path::new(DB).exists(),
        "nothing on the real disk"
    );
}

#[test]
fn a_reset_before_a_commits_sync_loses_that_transaction_and_nothing_else() {
    // synchronous=OFF: the second commit returns without an fsync.
    let after = run("OFF");
    assert_eq!(after.rows, vec![1]);
    assert_eq!(after.integrity, "ok");
    assert!(
        !std::path::Path::new(DB).exists(),
        "nothing on the real disk"
    );
}

/// SQLite's documentation of `PRAGMA synchronous`: in the default rollback
/// journal mode, FULL does not sync the directory after it unlinks the
/// journal to commit, so a power loss right after a commit can bring the
/// journal back, hot, and roll the transaction back; EXTRA syncs it. The
/// simulated disk, which loses a directory entry change its directory did
/// not sync, shows exactly that.
#[test]
fn under_full_a_reset_right_after_a_commit_rolls_it_back_as_sqlite_documents() {
    let after = run("FULL");
    assert_eq!(after.rows, vec![1]);
    assert_eq!(after.integrity, "ok");
}
