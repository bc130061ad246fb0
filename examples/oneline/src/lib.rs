//! A bank of accounts on tokio's API, swapped for sim-rt with one line
//! under `--cfg sim`: `RUSTFLAGS="--cfg sim" cargo test`.
//!
//! # The planted bug ([`Bank::transfer`] with `atomic = false`)
//!
//! A transfer reads both balances, awaits (an audit log write), then writes
//! both back: two concurrent transfers that interleave at the await lose one
//! of the updates, and money is created or destroyed.

#[cfg(sim)]
extern crate sim_rt as tokio;

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::Mutex;

/// Accounts and their balances.
#[derive(Debug, Clone, Default)]
pub struct Bank {
    accounts: Arc<Mutex<BTreeMap<String, i64>>>,
}

impl Bank {
    /// A bank with these accounts.
    pub fn new(accounts: &[(&str, i64)]) -> Bank {
        let accounts = accounts.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Bank {
            accounts: Arc::new(Mutex::new(accounts)),
        }
    }

    /// Moves `amount` from `from` to `to`. With `atomic = false` (the
    /// planted bug), the lock is released across the audit log's await.
    pub async fn transfer(&self, from: &str, to: &str, amount: i64, atomic: bool) {
        let mut accounts = self.accounts.lock().await;
        let (a, b) = (accounts[from], accounts[to]);
        if !atomic {
            drop(accounts);
            audit().await;
            accounts = self.accounts.lock().await;
        } else {
            audit().await;
        }
        accounts.insert(from.to_string(), a - amount);
        accounts.insert(to.to_string(), b + amount);
    }

    /// The sum of every balance.
    pub async fn total(&self) -> i64 {
        self.accounts.lock().await.values().sum()
    }
}

/// Writing the audit log: one yield to the scheduler.
async fn audit() {
    tokio::task::yield_now().await;
}
