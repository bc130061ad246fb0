//! Replay tokens: the short text a failure report prints so that one command
//! re-runs the failing execution.
//!
//! When a search finds a failing execution it prints
//! `SIM_REPLAY=<token> cargo test <name>`. The replay search reads the token
//! back with [`ReplayToken::decode`], re-runs exactly that execution (same
//! seed, same deviations from the explorer's default) and checks that its
//! trace hash is the one recorded. A token needs no shell quoting, and it
//! carries a version and a checksum, so that a token from another build or a
//! mangled paste is rejected with a message saying what to do instead of
//! silently replaying some other execution.
//!
//! # Format
//!
//! ```text
//! token   = "sr" version base64(payload ++ crc32(payload))
//! version = "1"
//! payload = string(test) string(explorer) string(search) varint(seed)
//!           varint(count) count * (varint(index delta) varint(action))
//!           varint(steps) varint(hash) [walk]
//! walk    = varint(from) varint(walk seed) varint(length) varint(faults)
//!           [varint(time)]
//! string  = varint(byte length) ++ UTF-8 bytes
//! ```
//!
//! - `base64` is URL-safe base64 without padding (RFC 4648 §5), whose
//!   alphabet `A-Z a-z 0-9 - _` is safe unquoted in a shell.
//! - `varint` is minimal unsigned LEB128: seven bits per byte, low group
//!   first, the high bit set on every byte but the last.
//! - `walk`, present only in tokens of liveness walks (see
//!   [`WalkTail`]), follows the execution's first `from` steps with a random
//!   walk; `faults` is 0 (keep), 1 (rare) or 2 (heal); `time`, when
//!   present and not 0, is the walk's bound in simulated milliseconds
//!   since the execution's start.
//! - `crc32` is the CRC-32 (IEEE) of the payload, 4 bytes little-endian.
//! - The schedule is stored as deltas: the first choice-point index as is,
//!   each later one as its distance (>= 1) from the previous one, so a run
//!   with a few deviations gives a token well under 100 characters.
//!
//! [`ReplayToken::decode`] trims surrounding whitespace and accepts the token
//! with its `SIM_REPLAY=` prefix still on.
//!
//! # Invariants
//!
//! - `decode(encode(t)) == t` for every valid token `t`: schedule indices
//!   strictly increasing, every action >= 1 (`encode` panics otherwise).
//! - The encoding is canonical: whenever `decode(s)` succeeds, `encode` of
//!   the result gives back `s` (trimmed, without `SIM_REPLAY=`).
//! - Any single-character change or truncation of a token is rejected:
//!   certainly for a character outside the alphabet or a change to the
//!   prefix, and otherwise with probability 1 - 2^-32 because of the CRC.

use std::fmt;
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// What every token starts with, before its version digit.
const PREFIX: &str = "sr";
/// The only version this build writes and reads.
const VERSION: char = '1';
/// The environment variable the failure report sets; accepted in front of a
/// pasted token.
const ENV_PREFIX: &str = "SIM_REPLAY=";
/// Length of the CRC-32 that follows the payload.
const CRC_LEN: usize = 4;

/// What a liveness walk does with faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WalkFaults {
    /// No new faults and no heals: the environment stays as the execution
    /// left it.
    Keep,
    /// The fault injector goes on at a tenth of its probability (it may
    /// also heal its partitions).
    Rare,
    /// Every partition heals when the walk starts, and no new fault comes
    /// (the default: see the [module docs](crate::liveness); crashed hosts
    /// stay down).
    #[default]
    Heal,
}

impl WalkFaults {
    pub(crate) fn code(self) -> u8 {
        match self {
            WalkFaults::Keep => 0,
            WalkFaults::Rare => 1,
            WalkFaults::Heal => 2,
        }
    }

    pub(crate) fn from_code(code: u32) -> Option<WalkFaults> {
        Some(match code {
            0 => WalkFaults::Keep,
            1 => WalkFaults::Rare,
            2 => WalkFaults::Heal,
            _ => return None,
        })
    }

    pub(crate) fn words(self) -> &'static str {
        match self {
            WalkFaults::Keep => "no new faults",
            WalkFaults::Rare => "rare faults",
            WalkFaults::Heal => "partitions healed, no new faults",
        }
    }
}

/// Everything needed to re-run one execution of an exploration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayToken {
    /// The test (libtest's thread name, e.g. "tests::two_phase_commit"), or "" when unknown.
    pub test: String,
    /// The explorer's name with its parameters, e.g. "rtc", "pct:3:1000".
    pub explorer: String,
    /// The search that found it: "ses", "ss", "walk" (informational).
    pub search: String,
    /// The runtime seed of the execution.
    pub seed: u64,
    /// The deviations from the explorer's default, as (choice-point index, action) pairs,
    /// choice-point indices strictly increasing, every action >= 1.
    pub schedule: Vec<(u32, u32)>,
    /// Number of choice points (trace steps) in the execution.
    pub steps: u32,
    /// The execution's trace hash ([`sim_rt::runtime::Trace::hash`]), to check the replay is
    /// the same execution.
    pub hash: u64,
    /// For a liveness walk: the execution's first steps, then this walk.
    pub walk: Option<WalkTail>,
}

/// A liveness walk after a prefix of an execution: what a token needs to
/// replay one of the walks a liveness check or a critical-transition probe
/// ran (see [`Liveness`](crate::Liveness)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkTail {
    /// The execution's first `from` steps (trace steps) are replayed.
    pub from: u32,
    /// The walk's own seed (the runtime keeps the execution's).
    pub seed: u64,
    /// The walk goes on for at least this many steps after the prefix.
    pub length: u64,
    /// What the walk does with faults.
    pub faults: WalkFaults,
    /// The walk ends when the simulated clock would pass this (time since
    /// the execution's start, whole milliseconds), if it has not reached
    /// the property or stopped before; `None`: only `length` bounds it.
    pub time: Option<std::time::Duration>,
}

impl ReplayToken {
    /// The token as text: `sr1` followed by URL-safe base64 (see the
    /// [module docs](self) for the format).
    ///
    /// # Panics
    ///
    /// If the schedule's choice-point indices are not strictly increasing or
    /// an action is 0: such a schedule is not a set of deviations, and its
    /// token would not decode.
    pub fn encode(&self) -> String {
        let mut bytes = Vec::new();
        put_str(&mut bytes, &self.test);
        put_str(&mut bytes, &self.explorer);
        put_str(&mut bytes, &self.search);
        put_varint(&mut bytes, self.seed);
        put_varint(&mut bytes, self.schedule.len() as u64);
        let mut previous = None;
        for &(index, action) in &self.schedule {
            let delta = match previous {
                None => index,
                Some(previous) => {
                    assert!(
                        index > previous,
                        "replay schedule indices must be strictly increasing ({previous} then {index})"
                    );
                    index - previous
                }
            };
            assert!(
                action >= 1,
                "replay schedule action at choice point {index} is 0 (the default is not a deviation)"
            );
            put_varint(&mut bytes, delta.into());
            put_varint(&mut bytes, action.into());
            previous = Some(index);
        }
        put_varint(&mut bytes, self.steps.into());
        put_varint(&mut bytes, self.hash);
        if let Some(w) = &self.walk {
            put_varint(&mut bytes, w.from.into());
            put_varint(&mut bytes, w.seed);
            put_varint(&mut bytes, w.length);
            put_varint(&mut bytes, w.faults.code().into());
            if let Some(t) = w.time {
                put_varint(&mut bytes, u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
            }
        }
        let crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());

        let mut text = format!("{PREFIX}{VERSION}");
        URL_SAFE_NO_PAD.encode_string(&bytes, &mut text);
        text
    }

    /// Reads a token written by [`encode`](Self::encode), after trimming
    /// surrounding whitespace and an optional `SIM_REPLAY=` prefix.
    ///
    /// # Errors
    ///
    /// A [`TokenError`] saying what is wrong (empty, not a token, another
    /// version, an invalid character, truncated or corrupted, malformed
    /// fields) and what to do about it.
    pub fn decode(text: &str) -> Result<ReplayToken, TokenError> {
        let text = text.trim();
        let text = text.strip_prefix(ENV_PREFIX).unwrap_or(text);
        if text.is_empty() {
            return Err(ErrorKind::Empty.into());
        }
        let mut prefix = PREFIX.chars().chain([VERSION]);
        if text.chars().all(|c| prefix.next() == Some(c)) {
            // A non-empty beginning of "sr1", with no payload at all.
            return Err(ErrorKind::Truncated.into());
        }
        let rest = text.strip_prefix(PREFIX).ok_or(ErrorKind::NotAToken)?;
        let mut chars = rest.chars();
        match chars.next() {
            Some(VERSION) => {}
            Some(version) if version.is_ascii_digit() => {
                return Err(ErrorKind::UnknownVersion(version).into());
            }
            _ => return Err(ErrorKind::NotAToken.into()),
        }
        let body = chars.as_str();
        let skipped = PREFIX.len() + 1;
        if let Some((i, ch)) = body.chars().enumerate().find(|&(_, c)| !is_alphabet(c)) {
            let position = skipped + i + 1;
            return Err(ErrorKind::InvalidChar { position, ch }.into());
        }

        let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|e| match e {
            base64::DecodeError::InvalidLength(_) => ErrorKind::Truncated,
            _ => ErrorKind::BadLastChar,
        })?;
        if bytes.len() < CRC_LEN {
            return Err(ErrorKind::Truncated.into());
        }
        let (payload, crc) = bytes.split_at(bytes.len() - CRC_LEN);
        let crc = u32::from_le_bytes(crc.try_into().expect("split_at leaves CRC_LEN bytes"));
        if crc32fast::hash(payload) != crc {
            return Err(ErrorKind::Checksum.into());
        }

        let mut r = Reader { bytes: payload };
        let test = r.string("test name")?;
        let explorer = r.string("explorer")?;
        let search = r.string("search")?;
        let seed = r.varint("seed")?;
        let count = r.varint("schedule length")?;
        let mut schedule = Vec::new();
        let mut previous: Option<u32> = None;
        for _ in 0..count {
            let delta = r.u32("schedule index")?;
            let index = match previous {
                None => delta,
                Some(_) if delta == 0 => {
                    return Err(malformed(
                        "schedule",
                        "choice-point indices not strictly increasing",
                    ));
                }
                Some(previous) => previous
                    .checked_add(delta)
                    .ok_or_else(|| malformed("schedule", "choice-point index beyond u32::MAX"))?,
            };
            let action = r.u32("schedule action")?;
            if action == 0 {
                return Err(malformed(
                    "schedule",
                    "action 0 (the default is not a deviation)",
                ));
            }
            schedule.push((index, action));
            previous = Some(index);
        }
        let steps = r.u32("steps")?;
        let hash = r.varint("hash")?;
        let walk = if r.bytes.is_empty() {
            None
        } else {
            let from = r.u32("walk start")?;
            let seed = r.varint("walk seed")?;
            let length = r.varint("walk length")?;
            let code = r.u32("walk faults")?;
            let faults = WalkFaults::from_code(code)
                .ok_or_else(|| malformed("walk", "unknown fault mode"))?;
            let time = if r.bytes.is_empty() {
                None
            } else {
                let ms = r.varint("walk time")?;
                (ms > 0).then(|| std::time::Duration::from_millis(ms))
            };
            Some(WalkTail {
                from,
                seed,
                length,
                faults,
                time,
            })
        };
        if !r.bytes.is_empty() {
            return Err(malformed("payload", "trailing bytes after the last field"));
        }
        Ok(ReplayToken {
            test,
            explorer,
            search,
            seed,
            schedule,
            steps,
            hash,
            walk,
        })
    }
}

impl fmt::Display for ReplayToken {
    /// Writes [`encode`](Self::encode)'s text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

impl FromStr for ReplayToken {
    type Err = TokenError;

    /// Same as [`decode`](Self::decode).
    fn from_str(text: &str) -> Result<Self, TokenError> {
        ReplayToken::decode(text)
    }
}

/// Why a text is not a replay token; its `Display` says what is wrong and
/// what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ErrorKind {
    Empty,
    NotAToken,
    UnknownVersion(char),
    InvalidChar {
        position: usize,
        ch: char,
    },
    Truncated,
    /// The base64 ends in a character no encoder writes (nonzero spare bits).
    BadLastChar,
    Checksum,
    /// The checksum matched but a field is wrong.
    Malformed {
        field: &'static str,
        problem: &'static str,
    },
}

impl From<ErrorKind> for TokenError {
    fn from(kind: ErrorKind) -> Self {
        TokenError { kind }
    }
}

fn malformed(field: &'static str, problem: &'static str) -> TokenError {
    ErrorKind::Malformed { field, problem }.into()
}

const PASTE_EXACTLY: &str =
    "copy the whole SIM_REPLAY=... value from the failure report, it must be pasted exactly";
const GET_A_NEW_TOKEN: &str =
    "re-run the exploration with this build to get a new token for the failure";

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Empty => write!(
                f,
                "replay token is empty: set SIM_REPLAY to the token printed in the failure \
                 report, as in `SIM_REPLAY={PREFIX}{VERSION}... cargo test <name>`"
            ),
            ErrorKind::NotAToken => write!(
                f,
                "this is not a replay token: a token starts with `{PREFIX}{VERSION}` followed by \
                 letters, digits, `-` and `_` only (e.g. `SIM_REPLAY={PREFIX}{VERSION}Fy1-_Qb... \
                 cargo test <name>`); {PASTE_EXACTLY}"
            ),
            ErrorKind::UnknownVersion(version) => write!(
                f,
                "replay token has format version {version}, but this build reads version \
                 {VERSION} only: the token was made by a different version of the explorer \
                 crate; replay it with that version, or {GET_A_NEW_TOKEN}"
            ),
            ErrorKind::InvalidChar { position, ch } => write!(
                f,
                "replay token has an invalid character {ch:?} at position {position} (a token \
                 holds only letters, digits, `-` and `_`): {PASTE_EXACTLY}"
            ),
            ErrorKind::Truncated => {
                write!(
                    f,
                    "replay token is truncated (too short to be a whole token): {PASTE_EXACTLY}"
                )
            }
            ErrorKind::BadLastChar => write!(
                f,
                "replay token is corrupted or truncated (it ends in a character the encoder does \
                 not write there): \
                 {PASTE_EXACTLY}"
            ),
            ErrorKind::Checksum => write!(
                f,
                "replay token is corrupted or truncated (checksum mismatch): {PASTE_EXACTLY}"
            ),
            ErrorKind::Malformed { field, problem } => write!(
                f,
                "replay token is malformed although its checksum matches ({field}: {problem}): \
                 it was probably made by an incompatible build of the explorer crate; \
                 {GET_A_NEW_TOKEN}"
            ),
        }
    }
}

impl std::error::Error for TokenError {}

/// The URL-safe base64 alphabet (RFC 4648 §5).
fn is_alphabet(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads payload fields front to back; `field` names the field for errors.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn varint(&mut self, field: &'static str) -> Result<u64, TokenError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self
                .bytes
                .split_first()
                .ok_or_else(|| malformed(field, "payload ends inside this field"))?;
            self.bytes = rest;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(malformed(field, "integer wider than 64 bits"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 {
                    return Err(malformed(field, "integer not minimally encoded"));
                }
                return Ok(value);
            }
        }
        Err(malformed(field, "integer wider than 64 bits"))
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, TokenError> {
        let value = self.varint(field)?;
        u32::try_from(value).map_err(|_| malformed(field, "integer wider than 32 bits"))
    }

    fn string(&mut self, field: &'static str) -> Result<String, TokenError> {
        let len = self.varint(field)?;
        let len = usize::try_from(len)
            .ok()
            .filter(|&len| len <= self.bytes.len())
            .ok_or_else(|| malformed(field, "payload ends inside this field"))?;
        let (text, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        String::from_utf8(text.to_vec()).map_err(|_| malformed(field, "not valid UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    /// A failure as a search would report it: three deviations, full-width
    /// seed and hash.
    fn sample() -> ReplayToken {
        ReplayToken {
            test: "tests::two_phase_commit".into(),
            explorer: "rtc".into(),
            search: "ses".into(),
            seed: u64::MAX - 12345,
            schedule: vec![(3, 1), (1040, 2), (2999, 1)],
            steps: 3000,
            hash: 0x9e37_79b9_7f4a_7c15,
            walk: None,
        }
    }

    /// A token text around a hand-built payload, with a correct CRC.
    fn seal(mut payload: Vec<u8>) -> String {
        let crc = crc32fast::hash(&payload);
        payload.extend_from_slice(&crc.to_le_bytes());
        format!("sr1{}", URL_SAFE_NO_PAD.encode(payload))
    }

    /// The payload of a token with the given raw (delta, action) pairs.
    fn payload_with_schedule(pairs: &[(u64, u64)]) -> Vec<u8> {
        let mut p = Vec::new();
        put_str(&mut p, "t");
        put_str(&mut p, "rtc");
        put_str(&mut p, "ses");
        put_varint(&mut p, 7);
        put_varint(&mut p, pairs.len() as u64);
        for &(delta, action) in pairs {
            put_varint(&mut p, delta);
            put_varint(&mut p, action);
        }
        put_varint(&mut p, 10);
        put_varint(&mut p, 99);
        p
    }

    fn message(text: &str) -> String {
        ReplayToken::decode(text).expect_err(text).to_string()
    }

    /// Strictly increasing indices from a start and deltas >= 1, stopping
    /// before u32 overflow; actions >= 1.
    fn schedules() -> impl Strategy<Value = Vec<(u32, u32)>> {
        let start = prop_oneof![0u32..10, any::<u32>()];
        let delta = prop_oneof![1u32..4, 1u32..=u32::MAX];
        let action = prop_oneof![1u32..4, 1u32..=u32::MAX];
        (start, vec((delta, action), 0..16)).prop_map(|(start, pairs)| {
            let mut index = start;
            let mut schedule = Vec::new();
            for (i, (delta, action)) in pairs.into_iter().enumerate() {
                if i > 0 {
                    match index.checked_add(delta) {
                        Some(next) => index = next,
                        None => break,
                    }
                }
                schedule.push((index, action));
            }
            schedule
        })
    }

    fn tokens() -> impl Strategy<Value = ReplayToken> {
        (
            any::<String>(),
            any::<String>(),
            "ses|ss|walk|.*",
            any::<u64>(),
            schedules(),
            any::<u32>(),
            any::<u64>(),
            proptest::option::of((
                any::<u32>(),
                any::<u64>(),
                any::<u64>(),
                0u32..3,
                proptest::option::of(1u64..u64::MAX / 2),
            )),
        )
            .prop_map(
                |(test, explorer, search, seed, schedule, steps, hash, walk)| ReplayToken {
                    test,
                    explorer,
                    search,
                    seed,
                    schedule,
                    steps,
                    hash,
                    walk: walk.map(|(from, seed, length, faults, time)| WalkTail {
                        from,
                        seed,
                        length,
                        faults: WalkFaults::from_code(faults).expect("0..3"),
                        time: time.map(std::time::Duration::from_millis),
                    }),
                },
            )
    }

    proptest! {
        #[test]
        fn round_trip(token in tokens()) {
            let text = token.encode();
            prop_assert!(text.starts_with("sr1"));
            prop_assert!(text[3..].chars().all(is_alphabet), "not shell-safe: {}", text);
            prop_assert_eq!(ReplayToken::decode(&text), Ok(token.clone()));
            prop_assert_eq!(text.parse::<ReplayToken>(), Ok(token.clone()));
            prop_assert_eq!(token.to_string(), text);
        }

        /// Any checksummed payload decodes to a token that re-encodes to the
        /// same text, or is rejected as malformed; it never panics.
        #[test]
        fn checksummed_garbage_is_malformed_or_canonical(payload in vec(any::<u8>(), 0..64)) {
            let text = seal(payload);
            match ReplayToken::decode(&text) {
                Ok(token) => prop_assert_eq!(token.encode(), text),
                Err(e) => prop_assert!(e.to_string().contains("malformed"), "{}", e),
            }
        }

        #[test]
        fn decode_never_panics(text in ".*") {
            let _ = ReplayToken::decode(&text);
            let _ = ReplayToken::decode(&format!("sr1{text}"));
        }
    }

    #[test]
    fn every_substitution_is_rejected() {
        let text = sample().encode();
        let chars: Vec<char> = text.chars().collect();
        for position in 0..chars.len() {
            for ch in ALPHABET.chars().chain(['!']) {
                if ch == chars[position] {
                    continue;
                }
                let mut changed = chars.clone();
                changed[position] = ch;
                let changed: String = changed.into_iter().collect();
                let msg = message(&changed);
                let expected = match position {
                    0 | 1 => "not a replay token".to_string(),
                    2 if ch.is_ascii_digit() => {
                        "different version of the explorer crate".to_string()
                    }
                    2 => "not a replay token".to_string(),
                    _ if ch == '!' => format!("invalid character '!' at position {}", position + 1),
                    _ => "corrupted".to_string(),
                };
                assert!(msg.contains(&expected), "{changed}: {msg}");
            }
        }
    }

    #[test]
    fn every_truncation_is_rejected() {
        let text = sample().encode();
        for len in 0..text.len() {
            let msg = message(&text[..len]);
            let expected = if len == 0 { "empty" } else { "truncated" };
            assert!(msg.contains(expected), "{}: {msg}", &text[..len]);
        }
    }

    #[test]
    fn checksum_mismatch_says_corrupted() {
        // Swapping two different characters keeps every character valid.
        let mut chars: Vec<char> = sample().encode().chars().collect();
        chars.swap(5, 6);
        assert_ne!(chars[5], chars[6]);
        let msg = message(&chars.into_iter().collect::<String>());
        assert!(
            msg.contains("corrupted or truncated (checksum mismatch)"),
            "{msg}"
        );
        assert!(msg.contains("pasted exactly"), "{msg}");
    }

    #[test]
    fn other_versions_empty_and_garbage_are_explained() {
        let newer = format!("sr2{}", &sample().encode()[3..]);
        assert!(message(&newer).contains("made by a different version of the explorer crate"));
        assert!(message("hello").contains("not a replay token: a token starts with `sr1`"));
        assert!(message("").contains("empty"));
        assert!(message("  \n").contains("empty"));
        assert!(message("SIM_REPLAY=").contains("empty"));
        assert!(message("sr1").contains("truncated"));
    }

    #[test]
    fn whitespace_and_env_prefix_are_accepted() {
        let token = sample();
        let text = token.encode();
        for pasted in [
            format!("{text}\n"),
            format!("  \t{text}  \r\n"),
            format!("SIM_REPLAY={text}"),
            format!(" SIM_REPLAY={text}\n"),
        ] {
            assert_eq!(
                ReplayToken::decode(&pasted),
                Ok(token.clone()),
                "{pasted:?}"
            );
        }
    }

    #[test]
    fn three_deviation_token_is_short() {
        let text = sample().encode();
        assert!(text.len() < 100, "{} chars: {text}", text.len());
    }

    #[test]
    fn schedule_not_increasing_is_malformed() {
        // Second delta 0: index repeats.
        let msg = message(&seal(payload_with_schedule(&[(4, 1), (0, 1)])));
        assert!(
            msg.contains("malformed") && msg.contains("not strictly increasing"),
            "{msg}"
        );
        // Indices beyond u32::MAX.
        let msg = message(&seal(payload_with_schedule(&[
            (u32::MAX.into(), 1),
            (1, 1),
        ])));
        assert!(
            msg.contains("malformed") && msg.contains("beyond u32::MAX"),
            "{msg}"
        );
    }

    #[test]
    fn action_zero_is_malformed() {
        let msg = message(&seal(payload_with_schedule(&[(4, 1), (2, 0)])));
        assert!(
            msg.contains("malformed") && msg.contains("action 0"),
            "{msg}"
        );
    }

    #[test]
    fn bad_fields_after_checksum_are_malformed() {
        let good = payload_with_schedule(&[(4, 1)]);
        assert!(ReplayToken::decode(&seal(good.clone())).is_ok());

        // A walk (from 0, seed 0, length 0, faults 0, time 0), then one
        // more byte.
        let mut trailing = good.clone();
        trailing.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        assert!(message(&seal(trailing)).contains("trailing bytes"));
        let mut bad_mode = good.clone();
        bad_mode.extend_from_slice(&[0, 0, 0, 3]);
        assert!(message(&seal(bad_mode)).contains("walk: unknown fault mode"));

        let mut short = good.clone();
        short.pop();
        assert!(message(&seal(short)).contains("payload ends inside this field"));

        // Test name of one byte that is not UTF-8.
        let mut bad_utf8 = vec![1, 0xff];
        bad_utf8.extend_from_slice(&good[2..]);
        let msg = message(&seal(bad_utf8));
        assert!(msg.contains("test name: not valid UTF-8"), "{msg}");

        // Seed 7 (byte 10, after the three names) written in two bytes.
        assert_eq!(good[10], 7);
        let mut long_varint = good[..10].to_vec();
        long_varint.extend_from_slice(&[0x87, 0x00]);
        long_varint.extend_from_slice(&good[11..]);
        assert!(message(&seal(long_varint)).contains("seed: integer not minimally encoded"));

        // A schedule action wider than 32 bits.
        let msg = message(&seal(payload_with_schedule(&[(4, 1 << 32)])));
        assert!(
            msg.contains("schedule action: integer wider than 32 bits"),
            "{msg}"
        );
    }

    #[test]
    #[should_panic(expected = "strictly increasing")]
    fn encode_rejects_unsorted_schedule() {
        ReplayToken {
            schedule: vec![(5, 1), (5, 1)],
            ..sample()
        }
        .encode();
    }
}
