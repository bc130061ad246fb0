//! Which search: the one place a search's name is spelled. It sits on the
//! bottom floor, beside the ids, since running one execution (`exec`)
//! needs to know what a kind implies; `search` re-exports it.
//!
//! Every name a user writes or reads (`SIM_SEARCH`, a report's `search`, a
//! replay token's search, a reproduce line's `SIM_SEARCH=`) comes from
//! [`SearchKind`], and every string is read back through it: an unknown
//! name is an error that lists the valid ones, never a quiet fallback.
//! What a kind implies for an execution (random data choices, swarm
//! rates, whether its seed alone reproduces it) is a `match` here too, so
//! adding a search makes the compiler list what it must decide.

use std::fmt;

/// A search, as named in settings, reports and replay tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchKind {
    /// Stratified exhaustive search (`ses`).
    Ses,
    /// Stratified sampling (`ss`).
    Ss,
    /// Independent executions of a randomized explorer (`walk`).
    Walk,
    /// Walks whose fault rates each execution draws from its seed
    /// (`swarm`).
    Swarm,
    /// The adaptive portfolio, as `SIM_SEARCH` names it (`adaptive`); its
    /// report says `portfolio`, with explorer `adaptive`.
    Adaptive,
    /// The default portfolio, as reports name it (`portfolio`).
    Portfolio,
    /// A walk's failure shrunk: its data choices written down as a
    /// schedule (`shrunk`, in replay tokens).
    Shrunk,
    /// A replay of a token (`replay`, in reports).
    Replay,
}

impl SearchKind {
    /// Every kind, in the order error messages list them.
    pub const ALL: [SearchKind; 8] = [
        SearchKind::Ses,
        SearchKind::Ss,
        SearchKind::Walk,
        SearchKind::Swarm,
        SearchKind::Adaptive,
        SearchKind::Portfolio,
        SearchKind::Shrunk,
        SearchKind::Replay,
    ];

    /// The name users read and write.
    pub fn name(self) -> &'static str {
        match self {
            SearchKind::Ses => "ses",
            SearchKind::Ss => "ss",
            SearchKind::Walk => "walk",
            SearchKind::Swarm => "swarm",
            SearchKind::Adaptive => "adaptive",
            SearchKind::Portfolio => "portfolio",
            SearchKind::Shrunk => "shrunk",
            SearchKind::Replay => "replay",
        }
    }

    /// What it does, in a few words, for the messages that list kinds.
    fn what(self) -> &'static str {
        match self {
            SearchKind::Ses => "stratified exhaustive search",
            SearchKind::Ss => "stratified sampling",
            SearchKind::Walk => "independent random executions",
            SearchKind::Swarm => "walks with fault rates drawn per execution",
            SearchKind::Adaptive => "the default portfolio with more walks and mutations",
            SearchKind::Portfolio => "the default portfolio",
            SearchKind::Shrunk => "a walk's failure, shrunk",
            SearchKind::Replay => "a replay",
        }
    }

    /// Whether `SIM_SEARCH` may name it.
    fn settable(self) -> bool {
        match self {
            SearchKind::Ses
            | SearchKind::Ss
            | SearchKind::Walk
            | SearchKind::Swarm
            | SearchKind::Adaptive => true,
            SearchKind::Portfolio | SearchKind::Shrunk | SearchKind::Replay => false,
        }
    }

    /// Whether a replay token may carry it: the searches whose failures
    /// have tokens.
    fn in_tokens(self) -> bool {
        match self {
            SearchKind::Ses
            | SearchKind::Ss
            | SearchKind::Walk
            | SearchKind::Swarm
            | SearchKind::Shrunk => true,
            SearchKind::Adaptive | SearchKind::Portfolio | SearchKind::Replay => false,
        }
    }

    /// The kind `SIM_SEARCH=<raw>` names (any case); an error listing the
    /// valid names, with the closest one, otherwise.
    pub(crate) fn from_env(raw: &str) -> Result<SearchKind, String> {
        let lower = raw.to_ascii_lowercase();
        let valid = || SearchKind::ALL.into_iter().filter(|k| k.settable());
        valid().find(|k| k.name() == lower).ok_or_else(|| {
            let listed: Vec<String> = valid()
                .map(|k| format!("{} ({})", k.name(), k.what()))
                .collect();
            let names: Vec<String> = valid().map(|k| k.name().to_string()).collect();
            format!(
                "SIM_SEARCH={raw:?} is not a search{}: use {}",
                crate::env::did_you_mean(raw, &names),
                or_list(&listed)
            )
        })
    }

    /// The kind a replay token's search field names; an error listing the
    /// valid names otherwise.
    pub(crate) fn from_token(raw: &str) -> Result<SearchKind, String> {
        let valid = || SearchKind::ALL.into_iter().filter(|k| k.in_tokens());
        valid().find(|k| k.name() == raw).ok_or_else(|| {
            let names: Vec<String> = valid().map(|k| k.name().to_string()).collect();
            format!("unknown search {raw:?} (a token names {})", or_list(&names))
        })
    }

    /// Whether its executions draw their data choices at random (a walk's
    /// losses, latencies, faults) rather than take the default.
    pub(crate) fn random_data(self) -> bool {
        match self {
            SearchKind::Walk | SearchKind::Swarm => true,
            SearchKind::Ses
            | SearchKind::Ss
            | SearchKind::Adaptive
            | SearchKind::Portfolio
            | SearchKind::Shrunk
            | SearchKind::Replay => false,
        }
    }

    /// Whether its executions draw fault rates from their seeds.
    pub(crate) fn swarm(self) -> bool {
        self == SearchKind::Swarm
    }

    /// Whether `SIM_SEED` alone reproduces a failure it found, given
    /// whether the failing execution deviated from its seed's (a mutated
    /// walk is not its seed's walk).
    pub(crate) fn by_seed(self, deviated: bool) -> bool {
        match self {
            SearchKind::Ss => true,
            SearchKind::Walk | SearchKind::Swarm => !deviated,
            SearchKind::Ses
            | SearchKind::Adaptive
            | SearchKind::Portfolio
            | SearchKind::Shrunk
            | SearchKind::Replay => false,
        }
    }
}

impl fmt::Display for SearchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_where_it_may_appear() {
        for kind in SearchKind::ALL {
            assert_eq!(
                SearchKind::from_env(kind.name()).is_ok(),
                kind.settable(),
                "{kind}"
            );
            match kind.in_tokens() {
                true => assert_eq!(SearchKind::from_token(kind.name()), Ok(kind)),
                false => assert!(SearchKind::from_token(kind.name()).is_err(), "{kind}"),
            }
        }
    }

    /// Moved from env.rs, where `SIM_SEARCH` was parsed before.
    #[test]
    fn sim_search_is_parsed() {
        assert_eq!(SearchKind::from_env("SES"), Ok(SearchKind::Ses));
        assert!(SearchKind::from_env("bfs").unwrap_err().contains("ses"));
        assert!(SearchKind::from_env("swram")
            .unwrap_err()
            .contains("did you mean \"swarm\"?"));
        assert!(SearchKind::from_env("bfs")
            .unwrap_err()
            .contains("is not a search: use"));
    }

    #[test]
    fn an_unknown_name_lists_the_valid_ones() {
        let e = SearchKind::from_env("bfs").unwrap_err();
        assert_eq!(
            e,
            "SIM_SEARCH=\"bfs\" is not a search: use ses (stratified exhaustive search), ss \
             (stratified sampling), walk (independent random executions), swarm (walks with \
             fault rates drawn per execution) or adaptive (the default portfolio with more \
             walks and mutations)"
        );
        assert!(SearchKind::from_env("swram")
            .unwrap_err()
            .contains("did you mean \"swarm\"?"));
        assert_eq!(
            SearchKind::from_token("bfs").unwrap_err(),
            "unknown search \"bfs\" (a token names ses, ss, walk, swarm or shrunk)"
        );
    }
}
