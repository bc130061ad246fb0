//! The `SIM_*` environment overrides, parsed with errors that say what was
//! wrong and what would be right.
//!
//! | variable | values |
//! |---|---|
//! | `SIM_EXPLORER` | `rtc`, `rr`, `prr`, `random`, `pos`, `pct`, `pct:<depth>`, `pct:<depth>:<steps>`, or the name of the test's own explorer |
//! | `SIM_SEARCH` | `ses`, `ss`, `walk`, `swarm` |
//! | `SIM_MAX_DELAYS` | the delay bound of `ses`/`ss` |
//! | `SIM_EXECUTIONS` | the execution budget, at least 1 |
//! | `SIM_SEED` | the base seed, decimal or `0x` hex |
//! | `SIM_REPLAY` | a replay token from a failure report, or `last`: the test's last saved failure (`<target>/sim-failures/<test>.last`) |
//! | `SIM_JOBS` | threads for `ss`/`walk`, at least 1 (default: all cores) |
//! | `SIM_SHARD` | `i/n`: run shard `i` (from 0) of `n` of an `ss`/`walk` search |

/// A `SIM_*` variable's value, if set and not blank.
pub(crate) fn var(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => Some(v.trim().to_string()),
        Ok(_) => None,
        Err(std::env::VarError::NotPresent) => None,
        Err(std::env::VarError::NotUnicode(_)) => {
            panic!("{name} is not valid UTF-8; unset it or give it a plain ASCII value")
        }
    }
}

/// A count like `20000` or `20_000`.
pub(crate) fn parse_count(name: &str, raw: &str, what: &str) -> Result<u64, String> {
    match raw.replace('_', "").parse::<u64>() {
        Ok(0) => Err(format!("{name}=0: {what} must be at least 1")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "{name}={raw:?} is not a number: {what} is a positive integer, e.g. {name}=20000"
        )),
    }
}

/// `SIM_SHRINK`: `0` (off) or a budget of executions.
pub(crate) fn parse_shrink(raw: &str) -> Result<u64, String> {
    raw.replace('_', "").parse::<u64>().map_err(|_| {
        format!(
            "SIM_SHRINK={raw:?} is not a number: give 0 to report failures as found, or a budget \
             of executions for shrinking them, e.g. SIM_SHRINK=500"
        )
    })
}

/// A seed in decimal or `0x` hex.
pub(crate) fn parse_seed(raw: &str) -> Result<u64, String> {
    sim_rt::sim::parse_seed(raw).ok_or_else(|| {
        format!(
            "SIM_SEED={raw:?} is not a valid seed: expected an unsigned 64-bit integer, in \
             decimal (SIM_SEED=42) or hex (SIM_SEED=0x2a)"
        )
    })
}

/// `i/n` with `i < n`.
pub(crate) fn parse_shard(raw: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "SIM_SHARD={raw:?} is not a shard: write i/n to run shard i (counting from 0) of n, \
             e.g. SIM_SHARD=0/4 .. SIM_SHARD=3/4 on four machines"
        )
    };
    let (i, n) = raw.split_once('/').ok_or_else(bad)?;
    let i: u32 = i.trim().parse().map_err(|_| bad())?;
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(format!(
            "SIM_SHARD={raw:?}: the number of shards must be at least 1"
        ));
    }
    if i >= n {
        return Err(format!(
            "SIM_SHARD={raw:?}: shards are numbered from 0, so shard {i} of {n} does not exist \
             (use 0/{n} .. {}/{n})",
            n - 1
        ));
    }
    Ok((i, n))
}

/// `; did you mean "x"?` naming the value of `names` closest to `raw`
/// (or `pct:<n>` for `pct<n>`), when one is close; empty otherwise.
pub(crate) fn did_you_mean(raw: &str, names: &[String]) -> String {
    let lower = raw.to_ascii_lowercase();
    if let Some(depth) = lower
        .strip_prefix("pct")
        .filter(|d| d.parse::<usize>().is_ok())
    {
        return format!("; did you mean \"pct:{depth}\"?");
    }
    let best = names
        .iter()
        .map(|n| (edit_distance(&lower, n), n))
        .min_by_key(|(d, _)| *d);
    match best {
        Some((d, n)) if d <= (n.len() / 3).max(1) => format!("; did you mean {n:?}?"),
        _ => String::new(),
    }
}

/// Edit distance counting a swap of two neighbouring letters as one edit
/// (optimal string alignment), the commonest typo.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_seeds_and_shards_parse_or_explain() {
        assert_eq!(parse_count("SIM_JOBS", "4", "jobs"), Ok(4));
        assert_eq!(parse_count("SIM_EXECUTIONS", "20_000", "x"), Ok(20_000));
        assert!(parse_count("SIM_JOBS", "0", "the number of jobs")
            .unwrap_err()
            .contains("at least 1"));
        assert!(parse_count("SIM_JOBS", "four", "jobs")
            .unwrap_err()
            .contains("not a number"));
        assert_eq!(parse_seed("42"), Ok(42));
        assert_eq!(parse_seed("0x2a"), Ok(42));
        assert!(parse_seed("-1").unwrap_err().contains("not a valid seed"));
        assert_eq!(parse_shard("1/3"), Ok((1, 3)));
        assert_eq!(parse_shard(" 0 / 1 "), Ok((0, 1)));
        assert!(parse_shard("3/3").unwrap_err().contains("does not exist"));
        assert!(parse_shard("1/0").unwrap_err().contains("at least 1"));
        assert!(parse_shard("half").unwrap_err().contains("i/n"));
        let names = ["rtc", "rr", "prr", "random", "pct"].map(String::from);
        assert_eq!(did_you_mean("pct3", &names), "; did you mean \"pct:3\"?");
        assert_eq!(did_you_mean("radnom", &names), "; did you mean \"random\"?");
        assert_eq!(did_you_mean("bogus", &names), "");
        assert_eq!(did_you_mean("rcc", &names), "; did you mean \"rtc\"?");
    }
}
