//! Who sends an ICE restart's step when the sender's lobby id changed.
//!
//! A real network change (Wi-Fi to mobile) closes the page's lobby socket
//! too; it comes back under a new lobby id, which the other page of the
//! match does not know. The sender then shows a proof that it is the
//! player at the other end of the link: the receiver takes steps (and
//! asks) from the new id when they name the running match and carry the
//! next proof, and from then on knows the player by that id.
//!
//! The proofs are the links of a hash chain (SHA-256) that starts from a
//! seed made from the sender's rejoin token, the match id and random bytes
//! of the page (so a reloaded page, with the same token, starts a chain of
//! its own): `c[0] = H(seed)`, `c[i + 1] = H(c[i])`. As the match runs the
//! sender gives each player it has a direct link to the chain's end,
//! `c[CHAIN]` (the check), from its known lobby id; at its `k`th new lobby
//! id it shows `c[CHAIN - k]`. The receiver hashes a proof at most
//! [`CHAIN`] times looking for the check it holds: found after at least
//! one hash, the proof is taken and becomes the check. So:
//!
//! - a proof cannot be made from the check (SHA-256 is one-way), nor from
//!   the relayed messages the service sees: each proof is the preimage of
//!   the last one shown;
//! - a proof shown once is refused after (it is the check now, found after
//!   no hash): a replay by whoever relayed it, or from another id, fails;
//! - ids skipped (the socket came back twice before a step got through)
//!   cost only more hashes;
//! - the proofs say nothing of the token: the token cannot be had from
//!   them, and a rejoin needs the token itself.

use crate::id::PeerId;
use crate::protocol::Proof;
use sha2::{Digest, Sha256};

/// How many new lobby ids a page may come back under in one match and
/// still be known by its proofs; past that, a lost path takes the rejoin
/// path.
pub const CHAIN: u8 = 16;

fn h(b: &[u8]) -> [u8; 32] {
    Sha256::digest(b).into()
}

/// This page's proof chain for one match.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Own {
    match_id: u64,
    seed: [u8; 32],
    /// The lobby id the chain's check was first sent from, then the one
    /// the last proof was made for.
    id: Option<PeerId>,
    /// How many proofs were used (new ids seen).
    used: u8,
}

impl std::fmt::Debug for Own {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Own")
            .field("match_id", &self.match_id)
            .field("used", &self.used)
            .finish_non_exhaustive()
    }
}

impl Own {
    /// The chain of match `match_id`, from this page's rejoin `token` and
    /// its random `nonce`.
    pub(crate) fn new(match_id: u64, token: u64, nonce: [u8; 16]) -> Own {
        let mut b = Vec::with_capacity(48);
        b.extend_from_slice(b"ice-restart proof");
        b.extend_from_slice(&token.to_le_bytes());
        b.extend_from_slice(&match_id.to_le_bytes());
        b.extend_from_slice(&nonce);
        Own {
            match_id,
            seed: h(&b),
            id: None,
            used: 0,
        }
    }

    /// The match it is for.
    pub(crate) fn match_id(&self) -> u64 {
        self.match_id
    }

    /// `c[i]`.
    fn link(&self, i: u8) -> [u8; 32] {
        let mut c = h(&self.seed);
        for _ in 0..i {
            c = h(&c);
        }
        c
    }

    /// The check, `c[CHAIN]`.
    pub(crate) fn check(&self) -> Proof {
        Proof(self.link(CHAIN))
    }

    /// This page is known as `me` on the lobby now: the proof to show
    /// with a restart message, if `me` is not the id the chain began under
    /// (`None` as well once the chain is used up).
    pub(crate) fn proof_for(&mut self, me: &PeerId) -> Option<Proof> {
        match &self.id {
            None => {
                self.id = Some(me.clone());
                return None;
            }
            Some(id) if id == me => {}
            Some(_) => {
                self.id = Some(me.clone());
                self.used = self.used.saturating_add(1);
            }
        }
        if self.used == 0 || self.used > CHAIN {
            return None;
        }
        Some(Proof(self.link(CHAIN - self.used)))
    }
}

/// The check this page holds of the other page's chain, for one match.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Theirs {
    pub(crate) match_id: u64,
    check: [u8; 32],
}

impl std::fmt::Debug for Theirs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Theirs")
            .field("match_id", &self.match_id)
            .finish_non_exhaustive()
    }
}

impl Theirs {
    /// The check `check` the other page gave for match `match_id`.
    pub(crate) fn new(match_id: u64, check: Proof) -> Theirs {
        Theirs {
            match_id,
            check: check.0,
        }
    }

    /// Whether `proof` shown for match `match_id` is a later proof of
    /// this chain; if so it becomes the check (it cannot be shown again).
    pub(crate) fn take(&mut self, match_id: u64, proof: &Proof) -> bool {
        if match_id != self.match_id {
            return false;
        }
        let mut c = proof.0;
        for _ in 0..CHAIN {
            c = h(&c);
            if c == self.check {
                self.check = proof.0;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> PeerId {
        PeerId::parse(s).unwrap()
    }

    #[test]
    fn each_new_id_shows_the_next_proof_once_and_replays_fail() {
        let mut own = Own::new(42, 0x1234, [3; 16]);
        let mut theirs = Theirs::new(42, own.check());
        // The id the chain began under shows nothing.
        assert_eq!(own.proof_for(&id("AAAAAAAAAAAA")), None);
        assert_eq!(own.proof_for(&id("AAAAAAAAAAAA")), None);
        // A new id: the next proof, the same for every message from it.
        let p1 = own.proof_for(&id("BBBBBBBBBBBB")).unwrap();
        assert_eq!(own.proof_for(&id("BBBBBBBBBBBB")), Some(p1));
        // The wrong match, then the check itself, are refused.
        assert!(!theirs.take(43, &p1));
        assert!(!theirs.take(42, &own.check()));
        assert!(theirs.take(42, &p1));
        // Shown once: a replay is refused.
        assert!(!theirs.take(42, &p1));
        // Two more ids, the first of which never got through: taken.
        let _ = own.proof_for(&id("CCCCCCCCCCCC")).unwrap();
        let p3 = own.proof_for(&id("DDDDDDDDDDDD")).unwrap();
        assert!(theirs.take(42, &p3));
        assert!(!theirs.take(42, &p1));
    }

    #[test]
    fn another_chain_or_a_forgery_is_refused_and_the_chain_runs_out() {
        let mut own = Own::new(42, 0x1234, [3; 16]);
        // The same token and match on a reloaded page: another chain.
        let mut other = Own::new(42, 0x1234, [4; 16]);
        let mut theirs = Theirs::new(42, own.check());
        own.proof_for(&id("AAAAAAAAAAAA"));
        other.proof_for(&id("AAAAAAAAAAAA"));
        let forged = other.proof_for(&id("BBBBBBBBBBBB")).unwrap();
        assert!(!theirs.take(42, &forged));
        assert!(!theirs.take(42, &Proof([0; 32])));
        for k in 1..=CHAIN {
            let p = own.proof_for(&id(&format!("{k:0>12}"))).unwrap();
            assert!(theirs.take(42, &p), "proof {k}");
        }
        assert_eq!(own.proof_for(&id("ZZZZZZZZZZZZ")), None);
        // No log shows the seed or the check.
        assert!(!format!("{own:?}{theirs:?}").contains("seed"));
    }
}
