//! Named parts of a game state, so that a desync can say *what* diverged.
//!
//! A game may describe its state as a fixed list of named parts (NtBA: the
//! clocks, the score, the ball, each court player, the random generator,
//! …), each with a hash of its own, through
//! [`DeterministicGame::state_parts`]. The whole-state hash stays what it
//! is; the parts are extra hashes over the same fields, taken at the same
//! ticks.
//!
//! When the whole-state hashes of a tick differ, each peer sends the other
//! its part hashes of that tick ([`PartHashes`], on the reliable channel)
//! and waits a moment for the peer's before it ends the match. The outcome,
//! [`Outcome::Desync`], then carries both lists and the names of the parts
//! that differ ([`DesyncParts`]); [`in_words`] joins the names for a
//! sentence. A game that describes no parts ends at once, as before.
//!
//! [`report`] holds the desync report a player can download: both
//! players' inputs up to the tick, the part hashes of both sides and the
//! build id, which a native tool replays to find where a build diverges.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::game::DeterministicGame;
use crate::hash::Fnv1a;
use crate::session::Outcome;
use crate::time::Millis;
use crate::wire::{ByeReason, DecodeError};

pub mod report;

/// The most parts a game may describe. Parts past this are not kept or
/// exchanged (the session logs it once a match) and the decoder refuses a
/// [`PartHashes`] message with more.
pub const MAX_PARTS: usize = 64;

/// The longest part name, in bytes. Names travel only in desync reports.
pub const MAX_PART_NAME: usize = 40;

/// How long a session that found a desync waits for the peer's part
/// hashes before it ends without them (at most half the silence timeout,
/// so that the silence timeout never fires first).
pub const PARTS_WAIT: Millis = Millis(2000);

/// One named part of a game state and its hash.
///
/// The name reads in a sentence after "the games differ in": "the ball",
/// "Away player 2", "the random generator".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatePart {
    /// The part's name, the same for every state of the game.
    pub name: &'static str,
    /// A hash of the fields of this part, over canonical bytes.
    pub hash: u64,
}

impl StatePart {
    /// The part `name`, hashing what `write` feeds into a fresh
    /// [`Fnv1a`].
    ///
    /// ```
    /// use lockstep::parts::StatePart;
    /// let score = [3u16, 5];
    /// let part = StatePart::hashed("the score", |h| {
    ///     h.write_u16(score[0]);
    ///     h.write_u16(score[1]);
    /// });
    /// assert_eq!(part.name, "the score");
    /// ```
    #[must_use]
    pub fn hashed(name: &'static str, write: impl FnOnce(&mut Fnv1a)) -> Self {
        let mut h = Fnv1a::new();
        write(&mut h);
        StatePart {
            name,
            hash: h.finish(),
        }
    }
}

/// The names of the parts whose hashes differ, in the game's order.
///
/// Parts are compared by position (both peers run the same build, so the
/// lists name the same parts in the same order). When `remote` is empty
/// (the peer's hashes never arrived) nothing is known to differ; when it
/// is shorter than `local`, the local parts it lacks count as differing.
#[must_use]
pub fn differing_parts(local: &[StatePart], remote: &[u64]) -> Vec<&'static str> {
    if remote.is_empty() {
        return Vec::new();
    }
    local
        .iter()
        .enumerate()
        .filter(|&(i, p)| remote.get(i) != Some(&p.hash))
        .map(|(_, p)| p.name)
        .collect()
}

/// Part names joined for a sentence: "the ball", "the ball and Away
/// player 2", "the clocks, the ball and Away player 2". Empty for no
/// names.
#[must_use]
pub fn in_words<S: AsRef<str>>(names: &[S]) -> String {
    let mut out = String::new();
    let n = names.len();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == n { " and " } else { ", " });
        }
        out.push_str(name.as_ref());
    }
    out
}

/// What a desync found about the parts of the first diverging tick, in
/// [`Outcome::Desync`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DesyncParts {
    /// This side's parts at the tick; empty when the game describes none.
    pub local: Vec<StatePart>,
    /// The peer's part hashes at the tick, in the same order; empty when
    /// they did not arrive.
    pub remote: Vec<u64>,
    /// The names of the parts that differ ([`differing_parts`]); empty
    /// when the game describes no parts or the peer's hashes did not
    /// arrive.
    pub differing: Vec<&'static str>,
}

/// A peer's part hashes for one tick, on the reliable channel after a
/// desync (`docs/protocol.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartHashes {
    /// The tick whose whole-state hashes differ (never 0).
    pub tick: u32,
    /// The sender's part hashes at that tick, in its game's part order; at
    /// most [`MAX_PARTS`].
    pub hashes: Vec<u64>,
}

// ---------------------------------------------------------------------------
// Wire form: the tick (varint), then the hashes as a postcard sequence (a
// varint count, then 8 little-endian bytes each).

/// The wire form of [`PartHashes`] inside the protocol's message enum.
#[derive(Serialize, Deserialize)]
pub(crate) struct PartsWire {
    tick: u32,
    hashes: Capped<[u8; 8], MAX_PARTS>,
}

impl PartsWire {
    pub(crate) fn from_message(m: &PartHashes) -> Self {
        // The encoder writes at most MAX_PARTS (the session never builds
        // more; a longer list is cut rather than refused).
        let hashes = m.hashes.iter().take(MAX_PARTS).map(|h| h.to_le_bytes());
        PartsWire {
            tick: m.tick,
            hashes: Capped(hashes.collect()),
        }
    }

    pub(crate) fn into_message(self) -> Result<PartHashes, DecodeError> {
        if self.tick == 0 {
            return Err(DecodeError::BadValue("parts tick"));
        }
        Ok(PartHashes {
            tick: self.tick,
            hashes: self.hashes.0.into_iter().map(u64::from_le_bytes).collect(),
        })
    }
}

/// Refuses a part-hash datagram (tag, tick, count …) that announces more
/// than [`MAX_PARTS`] hashes, before any is read.
pub(crate) fn check_part_count(bytes: &[u8]) -> Result<(), DecodeError> {
    match postcard::take_from_bytes::<(u32, u32, u32)>(bytes) {
        Ok(((_, _, count), _)) if count as usize > MAX_PARTS => {
            Err(DecodeError::BadValue("part count"))
        }
        // Anything else (including truncation) is left to the full decode.
        _ => Ok(()),
    }
}

/// A sequence of at most `N` elements: decoding refuses a longer one
/// before reading its elements, and never reserves more than `N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Capped<T, const N: usize>(pub(crate) Vec<T>);

impl<T: Serialize, const N: usize> Serialize for Capped<T, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for Capped<T, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T, const N: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for V<T, N> {
            type Value = Capped<T, N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a sequence of at most {N} elements")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let announced = seq.size_hint().unwrap_or(0);
                if announced > N {
                    return Err(de::Error::invalid_length(announced, &self));
                }
                let mut out = Vec::with_capacity(announced);
                while let Some(x) = seq.next_element()? {
                    if out.len() == N {
                        return Err(de::Error::invalid_length(N + 1, &self));
                    }
                    out.push(x);
                }
                Ok(Capped(out))
            }
        }
        d.deserialize_seq(V::<T, N>(PhantomData))
    }
}

// ---------------------------------------------------------------------------
// The exchange, as the session runs it.

/// The whole-state hashes of `g` and its parts, taken together so that both
/// describe the same state.
pub(crate) fn hashes_of<G: DeterministicGame>(g: &G) -> (u64, Vec<StatePart>) {
    (g.state_hash(), g.state_parts())
}

/// A desync found by this side, waiting for the peer's part hashes.
#[derive(Debug)]
struct Pending {
    tick: u32,
    local: u64,
    remote: u64,
    parts: Vec<StatePart>,
    /// The slots whose hash differs from ours.
    slots: Vec<u8>,
    /// When the wait began.
    since: Millis,
}

/// The session's side of the part-hash exchange: the parts of the hashed
/// ticks not yet compared, and the desync waiting for the peer's parts.
#[derive(Debug, Default)]
pub(crate) struct PartsExchange {
    kept: VecDeque<(u32, Vec<StatePart>)>,
    pending: Option<Pending>,
    /// Whether the game's too many parts were logged (once a match).
    warned: bool,
}

impl PartsExchange {
    /// Keeps the parts of hashed tick `tick` (nothing for a game without
    /// parts), at most `cap` ticks: the oldest go first, as the session's
    /// own hashes do.
    pub(crate) fn keep(&mut self, tick: u32, mut parts: Vec<StatePart>, cap: usize) {
        if parts.is_empty() {
            return;
        }
        if parts.len() > MAX_PARTS && !core::mem::replace(&mut self.warned, true) {
            log::warn!(
                "the game describes {} state parts; only the first {MAX_PARTS} are compared",
                parts.len()
            );
        }
        parts.truncate(MAX_PARTS);
        if self.kept.len() >= cap {
            self.kept.pop_front();
        }
        self.kept.push_back((tick, parts));
    }

    /// Forgets the parts of ticks up to `tick`, whose hashes were compared.
    pub(crate) fn forget_upto(&mut self, tick: u32) {
        while self.kept.front().is_some_and(|&(t, _)| t <= tick) {
            self.kept.pop_front();
        }
    }

    /// Whether a desync waits for the peer's part hashes.
    pub(crate) fn waiting(&self) -> bool {
        self.pending.is_some()
    }

    /// The hashes of `tick` differ (`local` ours, `remote` the peer's),
    /// found at `now`: when this side holds the parts of that tick, starts
    /// waiting for the peer's and returns the message that sends ours.
    /// `None`: no parts (end at once, as without parts).
    pub(crate) fn begin(
        &mut self,
        tick: u32,
        local: u64,
        remote: u64,
        now: Millis,
        slots: &[u8],
    ) -> Option<PartHashes> {
        let i = self.kept.iter().position(|&(t, _)| t == tick)?;
        let (_, parts) = self.kept.remove(i)?;
        let msg = PartHashes {
            tick,
            hashes: parts.iter().map(|p| p.hash).collect(),
        };
        self.kept.clear();
        self.pending = Some(Pending {
            tick,
            local,
            remote,
            parts,
            slots: slots.to_vec(),
            since: now,
        });
        Some(msg)
    }

    /// When the wait for the peer's parts ends, given the session's
    /// silence timeout.
    pub(crate) fn deadline(&self, silence_timeout: Millis) -> Option<Millis> {
        let wait = PARTS_WAIT.min(Millis(silence_timeout.0 / 2));
        self.pending.as_ref().map(|p| p.since + wait)
    }

    /// The peer's part hashes arrived: the outcome (with the differing
    /// parts) and the `Bye` to send. `Err(tick)` when no desync of that
    /// tick waits for them, which an honest peer never causes.
    pub(crate) fn receive(&mut self, msg: PartHashes) -> Result<(Outcome, ByeReason), u32> {
        match self.pending.take() {
            Some(p) if p.tick == msg.tick => Ok(Self::outcome(p, msg.hashes)),
            other => {
                self.pending = other;
                Err(msg.tick)
            }
        }
    }

    /// The desync that waited, ended without the peer's part hashes (the
    /// wait ran out, or the peer ended first).
    pub(crate) fn give_up(&mut self) -> Option<(Outcome, ByeReason)> {
        let p = self.pending.take()?;
        log::warn!(
            "the peer's part hashes for tick {} did not arrive: the desync names no part",
            p.tick
        );
        Some(Self::outcome(p, Vec::new()))
    }

    fn outcome(p: Pending, remote_parts: Vec<u64>) -> (Outcome, ByeReason) {
        let differing = differing_parts(&p.parts, &remote_parts);
        if !differing.is_empty() {
            log::error!("desync at tick {}: {} differ", p.tick, in_words(&differing));
        }
        let outcome = Outcome::Desync {
            tick: p.tick,
            local: p.local,
            remote: p.remote,
            parts: DesyncParts {
                local: p.parts,
                remote: remote_parts,
                differing,
            },
            slots: p.slots,
        };
        let bye = ByeReason::Desync {
            tick: p.tick,
            hash: p.local,
        };
        (outcome, bye)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Message;
    use std::vec;

    fn part(name: &'static str, hash: u64) -> StatePart {
        StatePart { name, hash }
    }

    #[test]
    fn differing_parts_are_named_in_order() {
        let local = [part("a", 1), part("b", 2), part("c", 3)];
        assert_eq!(differing_parts(&local, &[1, 2, 3]), Vec::<&str>::new());
        assert_eq!(differing_parts(&local, &[1, 9, 3]), vec!["b"]);
        assert_eq!(differing_parts(&local, &[0, 2, 0]), vec!["a", "c"]);
        // A shorter list: the parts it lacks differ.
        assert_eq!(differing_parts(&local, &[1]), vec!["b", "c"]);
        // Extra remote hashes name nothing more.
        assert_eq!(differing_parts(&local, &[1, 2, 3, 4]), Vec::<&str>::new());
        // Nothing arrived: nothing is known.
        assert_eq!(differing_parts(&local, &[]), Vec::<&str>::new());
    }

    #[test]
    fn names_join_for_a_sentence() {
        assert_eq!(in_words::<&str>(&[]), "");
        assert_eq!(in_words(&["the ball"]), "the ball");
        assert_eq!(
            in_words(&["the ball", "Away player 2"]),
            "the ball and Away player 2"
        );
        assert_eq!(in_words(&["a", "b", "c"]), "a, b and c");
    }

    #[test]
    fn part_messages_round_trip_and_are_documented() {
        type M = Message<u8>;
        let m = M::Parts(PartHashes {
            tick: 60,
            hashes: vec![1, u64::MAX],
        });
        // Cannot fail: part hashes always encode.
        let b = m.encode().expect("encodes");
        let mut expect = vec![8, 60, 2];
        expect.extend(1u64.to_le_bytes());
        expect.extend(u64::MAX.to_le_bytes());
        assert_eq!(b, expect);
        assert_eq!(M::decode(&b), Ok(m));
        // Every strict prefix and a trailing byte are refused.
        for n in 0..b.len() {
            assert!(M::decode(&b[..n]).is_err(), "cut at {n}");
        }
        let mut long = b.clone();
        long.push(0);
        assert_eq!(M::decode(&long), Err(DecodeError::TrailingBytes(1)));
    }

    #[test]
    fn oversized_and_bad_part_messages_are_refused() {
        type M = Message<u8>;
        // 65 hashes announced: refused before reading them.
        assert_eq!(
            M::decode(&[8, 60, 65]),
            Err(DecodeError::BadValue("part count"))
        );
        // An absurd count costs nothing either.
        assert_eq!(
            M::decode(&[8, 60, 0xff, 0xff, 0xff, 0xff, 0x0f]),
            Err(DecodeError::BadValue("part count"))
        );
        // Exactly the cap decodes.
        let mut ok = vec![8, 60, 64];
        ok.extend([7u8; 64 * 8]);
        assert!(M::decode(&ok).is_ok());
        // Tick 0 is never hashed.
        assert_eq!(
            M::decode(&[8, 0, 0]),
            Err(DecodeError::BadValue("parts tick"))
        );
        // Overlong varint count: not canonical.
        assert_eq!(
            M::decode(&[8, 60, 0x80, 0x00]),
            Err(DecodeError::NonCanonical)
        );
        // An encoder handed too many hashes writes only the cap.
        let m = M::Parts(PartHashes {
            tick: 1,
            hashes: vec![0; MAX_PARTS + 5],
        });
        // Cannot fail: part hashes always encode.
        let b = m.encode().expect("encodes");
        assert_eq!(b[2] as usize, MAX_PARTS);
    }

    #[test]
    fn the_exchange_names_the_parts_that_differ() {
        let mut x = PartsExchange::default();
        x.keep(60, vec![part("a", 1), part("b", 2)], 8);
        x.keep(120, vec![part("a", 3), part("b", 4)], 8);
        let msg = x.begin(120, 10, 11, Millis(500), &[1]).expect("parts kept");
        assert_eq!(msg.hashes, vec![3, 4]);
        assert!(x.waiting());
        assert_eq!(x.deadline(Millis(5000)), Some(Millis(2500)));
        assert_eq!(x.deadline(Millis(1000)), Some(Millis(1000)));
        // The peer's parts for another tick: refused, still waiting.
        let wrong = PartHashes {
            tick: 60,
            hashes: vec![1, 2],
        };
        assert_eq!(x.receive(wrong), Err(60));
        assert!(x.waiting());
        let (outcome, bye) = x
            .receive(PartHashes {
                tick: 120,
                hashes: vec![3, 5],
            })
            .expect("waited for");
        assert_eq!(
            bye,
            ByeReason::Desync {
                tick: 120,
                hash: 10
            }
        );
        let Outcome::Desync { tick, parts, .. } = outcome else {
            panic!("{outcome:?}");
        };
        assert_eq!(tick, 120);
        assert_eq!(parts.differing, vec!["b"]);
        assert_eq!(parts.remote, vec![3, 5]);
        assert!(!x.waiting());
    }

    #[test]
    fn parts_past_the_cap_are_not_kept() {
        let mut x = PartsExchange::default();
        x.keep(60, vec![part("a", 1); MAX_PARTS + 3], 8);
        x.keep(120, vec![part("a", 1); MAX_PARTS + 3], 8);
        assert!(x.warned);
        let msg = x.begin(120, 1, 2, Millis(0), &[1]).expect("kept");
        assert_eq!(msg.hashes.len(), MAX_PARTS);
    }

    #[test]
    fn without_parts_or_peer_the_desync_names_nothing() {
        let mut x = PartsExchange::default();
        // A game without parts keeps nothing: the session ends at once.
        x.keep(60, Vec::new(), 8);
        assert_eq!(x.begin(60, 1, 2, Millis(0), &[1]), None);
        // Compared ticks are forgotten.
        x.keep(60, vec![part("a", 1)], 8);
        x.forget_upto(60);
        assert_eq!(x.begin(60, 1, 2, Millis(0), &[1]), None);
        // The cap drops the oldest.
        x.keep(60, vec![part("a", 1)], 1);
        x.keep(120, vec![part("a", 2)], 1);
        assert_eq!(x.begin(60, 1, 2, Millis(0), &[1]), None);
        assert!(x.begin(120, 1, 2, Millis(0), &[1]).is_some());
        let (outcome, _) = x.give_up().expect("waiting");
        assert!(
            matches!(&outcome, Outcome::Desync { parts, .. } if parts.differing.is_empty() && parts.local.len() == 1)
        );
        assert!(x.give_up().is_none());
    }
}
