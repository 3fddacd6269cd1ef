//! The lobby mesh: one data channel between every two lobby players.
//!
//! For each pair the lower id (compared as byte strings) makes the offer. A
//! pair that has not connected within the connect timeout (20 s) is retried
//! once by the offering side; if the retry fails too, the pair is shown as
//! "can't reach for chat or challenges". The answering side waits for both
//! attempts before it gives up.

use crate::id::PeerId;
use lockstep::Millis;

/// `true` if `me` makes the offer to `other`.
#[must_use]
pub fn is_offerer(me: &PeerId, other: &PeerId) -> bool {
    me.as_str().as_bytes() < other.as_str().as_bytes()
}

/// Timers of the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshConfig {
    /// How long one attempt may take (20 s).
    pub connect_timeout: Millis,
}

impl Default for MeshConfig {
    fn default() -> Self {
        MeshConfig {
            connect_timeout: Millis(20_000),
        }
    }
}

/// Where the link to one other lobby player stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairState {
    /// Attempt `attempt` (1 or 2) is under way; it fails at `deadline`.
    Connecting {
        /// 1 or 2.
        attempt: u8,
        /// When this attempt is given up.
        deadline: Millis,
    },
    /// The data channel is open.
    Connected,
    /// Both attempts failed, or an open link broke.
    Unreachable,
}

/// What the page must do for a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairAction {
    /// Create a peer connection for `attempt` and send an offer.
    Offer {
        /// The attempt number carried in the handshake messages.
        attempt: u8,
    },
    /// Close the peer connection (of any attempt).
    Close,
}

/// The link to one other player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    offerer: bool,
    state: PairState,
    /// The attempt whose channel opened (meaningful when connected).
    open_attempt: u8,
    /// The latest attempt whose offer we answered (0: none). Each attempt is
    /// answered once: a copy of an offer builds no second connection.
    answered: u8,
    cfg: MeshConfig,
}

impl Pair {
    /// A new pair seen at `now`. Returns the pair and, for the offering side,
    /// the first [`PairAction::Offer`].
    #[must_use]
    pub fn new(
        me: &PeerId,
        other: &PeerId,
        now: Millis,
        cfg: MeshConfig,
    ) -> (Pair, Option<PairAction>) {
        let offerer = is_offerer(me, other);
        // The answering side allows for both of the offerer's attempts.
        let wait = if offerer {
            cfg.connect_timeout
        } else {
            Millis(
                cfg.connect_timeout
                    .0
                    .saturating_mul(2)
                    .saturating_add(2_000),
            )
        };
        let pair = Pair {
            offerer,
            open_attempt: 0,
            answered: 0,
            state: PairState::Connecting {
                attempt: 1,
                deadline: now + wait,
            },
            cfg,
        };
        (pair, offerer.then_some(PairAction::Offer { attempt: 1 }))
    }

    /// `true` if we make the offers for this pair.
    #[must_use]
    pub fn offerer(&self) -> bool {
        self.offerer
    }

    /// The current state.
    #[must_use]
    pub fn state(&self) -> PairState {
        self.state
    }

    /// The attempt whose handshake messages are current.
    #[must_use]
    pub fn attempt(&self) -> u8 {
        match self.state {
            PairState::Connecting { attempt, .. } => attempt,
            _ => 0,
        }
    }

    /// The answering side got an offer for `attempt`: returns `true` if it
    /// should be answered (the current or a newer attempt, not answered
    /// before). A repeated offer is refused, so a peer that sends the same
    /// attempt again and again cannot make us build a connection and send
    /// handshake data back for each copy.
    pub fn offer_received(&mut self, attempt: u8, now: Millis) -> bool {
        if self.offerer || attempt <= self.answered {
            return false;
        }
        let answer = self.accept_offer(attempt, now);
        if answer {
            self.answered = attempt;
        }
        answer
    }

    fn accept_offer(&mut self, attempt: u8, now: Millis) -> bool {
        match self.state {
            PairState::Connecting {
                attempt: current,
                deadline,
            } if attempt >= current => {
                let deadline = if attempt > current {
                    now + self.cfg.connect_timeout + Millis(2_000)
                } else {
                    deadline
                };
                self.state = PairState::Connecting { attempt, deadline };
                true
            }
            // A retry offer after we gave up: try again with it.
            PairState::Unreachable => {
                self.state = PairState::Connecting {
                    attempt,
                    deadline: now + self.cfg.connect_timeout,
                };
                true
            }
            _ => false,
        }
    }

    /// The data channel of `attempt` opened.
    pub fn opened(&mut self, attempt: u8) {
        if self.attempt() == attempt {
            self.state = PairState::Connected;
            self.open_attempt = attempt;
        }
    }

    /// The connection of `attempt` failed or closed. An open link that
    /// breaks is shown as unreachable; the peer usually left and the lobby
    /// will say so.
    pub fn lost(&mut self, attempt: u8) -> Option<PairAction> {
        match self.state {
            PairState::Connected if attempt == self.open_attempt => {
                self.state = PairState::Unreachable;
                Some(PairAction::Close)
            }
            // A failed attempt waits for its deadline (ICE may report
            // failure early; the retry rule is by time).
            PairState::Connecting { attempt: a, .. } if a == attempt => None,
            _ => None,
        }
    }

    /// When [`tick`](Self::tick) next has work.
    #[must_use]
    pub fn deadline(&self) -> Option<Millis> {
        match self.state {
            PairState::Connecting { deadline, .. } => Some(deadline),
            _ => None,
        }
    }

    /// Applies the timers at `now`; returns the actions to carry out in order.
    pub fn tick(&mut self, now: Millis) -> Vec<PairAction> {
        match self.state {
            PairState::Connecting { attempt, deadline } if now >= deadline => {
                if self.offerer && attempt == 1 {
                    self.state = PairState::Connecting {
                        attempt: 2,
                        deadline: now + self.cfg.connect_timeout,
                    };
                    vec![PairAction::Close, PairAction::Offer { attempt: 2 }]
                } else {
                    self.state = PairState::Unreachable;
                    vec![PairAction::Close]
                }
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> (PeerId, PeerId) {
        (
            PeerId::parse("Aaaaaaaaaaaa").unwrap(),
            PeerId::parse("aaaaaaaaaaaa").unwrap(),
        )
    }

    #[test]
    fn huge_timeouts_saturate_instead_of_overflowing() {
        let (low, high) = ids();
        let cfg = MeshConfig {
            connect_timeout: Millis(1 << 63),
        };
        let (pair, _) = Pair::new(&high, &low, Millis(5), cfg);
        assert_eq!(pair.deadline(), Some(Millis(u64::MAX)));
        let cfg = MeshConfig {
            connect_timeout: Millis(u64::MAX),
        };
        let (mut pair, _) = Pair::new(&high, &low, Millis(5), cfg);
        assert!(pair.offer_received(2, Millis(6)));
        assert_eq!(pair.deadline(), Some(Millis(u64::MAX)));
        assert!(pair.tick(Millis(u64::MAX - 1)).is_empty());
    }

    #[test]
    fn the_lower_id_offers() {
        let (low, high) = ids();
        assert!(is_offerer(&low, &high));
        assert!(!is_offerer(&high, &low));
        // Byte order: digits < upper case < lower case.
        assert!(is_offerer(&PeerId::parse("0zzzzzzzzzzz").unwrap(), &low));
    }

    #[test]
    fn offerer_retries_once_after_20_s_then_gives_up() {
        let (low, high) = ids();
        let cfg = MeshConfig::default();
        let (mut p, first) = Pair::new(&low, &high, Millis(0), cfg);
        assert_eq!(first, Some(PairAction::Offer { attempt: 1 }));
        assert!(p.tick(Millis(19_999)).is_empty());
        assert_eq!(
            p.tick(Millis(20_000)),
            vec![PairAction::Close, PairAction::Offer { attempt: 2 }]
        );
        assert_eq!(p.attempt(), 2);
        assert!(p.tick(Millis(39_999)).is_empty());
        assert_eq!(p.tick(Millis(40_000)), vec![PairAction::Close]);
        assert_eq!(p.state(), PairState::Unreachable);
        assert!(p.tick(Millis(100_000)).is_empty());
    }

    #[test]
    fn an_open_channel_stops_the_timers() {
        let (low, high) = ids();
        let (mut p, _) = Pair::new(&low, &high, Millis(0), MeshConfig::default());
        p.opened(1);
        assert_eq!(p.state(), PairState::Connected);
        assert!(p.tick(Millis(60_000)).is_empty());
        assert_eq!(p.lost(1), Some(PairAction::Close));
        assert_eq!(p.state(), PairState::Unreachable);
    }

    #[test]
    fn a_stale_attempt_opening_is_ignored() {
        let (low, high) = ids();
        let (mut p, _) = Pair::new(&low, &high, Millis(0), MeshConfig::default());
        p.tick(Millis(20_000));
        p.opened(1);
        assert_eq!(
            p.state(),
            PairState::Connecting {
                attempt: 2,
                deadline: Millis(40_000)
            }
        );
        p.opened(2);
        assert_eq!(p.state(), PairState::Connected);
    }

    #[test]
    fn answerer_waits_for_both_attempts_and_never_offers() {
        let (low, high) = ids();
        let cfg = MeshConfig::default();
        let (mut p, first) = Pair::new(&high, &low, Millis(0), cfg);
        assert_eq!(first, None);
        assert!(p.offer_received(1, Millis(100)));
        assert!(
            p.tick(Millis(20_100)).is_empty(),
            "the answerer does not retry"
        );
        assert!(p.offer_received(2, Millis(20_200)));
        assert!(!p.offer_received(1, Millis(20_300)), "stale attempt");
        assert_eq!(p.tick(Millis(42_200)), vec![PairAction::Close]);
        assert_eq!(p.state(), PairState::Unreachable);
    }

    #[test]
    fn the_offerer_ignores_offers() {
        let (low, high) = ids();
        let (mut p, _) = Pair::new(&low, &high, Millis(0), MeshConfig::default());
        assert!(!p.offer_received(1, Millis(1)));
    }
}
