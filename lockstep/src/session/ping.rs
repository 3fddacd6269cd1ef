//! Pings and pongs: the round trip, the pings lost, and the pong owed to
//! the peer.

use alloc::collections::VecDeque;

use crate::time::Millis;
use crate::wire::Pong;

/// Pings kept waiting for their pong.
const PINGS_KEPT: usize = 8;
/// Delay from the round trip: pings kept waiting for their pong while the
/// host measures (one a frame; more than the 2 s a ping is waited for).
const PROBE_PINGS_KEPT: usize = 128;
/// Delay from the round trip: how long the host waits for the pong of a
/// measuring ping before forgetting it.
const PROBE_PING_EXPIRY: Millis = Millis(2000);

/// The pings sent and not answered yet, and the pong this side owes.
#[derive(Debug, Default)]
pub(super) struct Pinger {
    next_id: u16,
    /// Pings waiting for their pong, oldest first, with when they left.
    waiting: VecDeque<(u16, Millis)>,
    /// The peer's last ping, to be answered on the next Inputs packet,
    /// with when it arrived.
    pong_owed: Option<(u16, Millis)>,
    frames_since_ping: u16,
    /// The last 8 pings, newest in the lowest bit: 1 where the ping or
    /// its pong was lost.
    losses: u8,
}

impl Pinger {
    /// One more frame passed.
    pub(super) fn frame(&mut self) {
        self.frames_since_ping = self.frames_since_ping.saturating_add(1);
    }

    /// The match starts: ping at once, and forget the handshake's pings
    /// (they neither count as lost nor keep a place).
    pub(super) fn start(&mut self, interval: u16) {
        self.frames_since_ping = interval;
        self.waiting.clear();
        self.losses = 0;
    }

    fn new_id(&mut self) -> u16 {
        let id = self.next_id;
        self.next_id = id.wrapping_add(1);
        id
    }

    /// Before the match: a ping every `interval` frames, so the peer keeps
    /// hearing this side while it waits.
    pub(super) fn handshake_ping(&mut self, now: Millis, interval: u16) -> Option<u16> {
        if self.frames_since_ping < interval {
            return None;
        }
        self.frames_since_ping = 0;
        let id = self.new_id();
        if self.waiting.len() >= PINGS_KEPT {
            self.waiting.pop_front();
        }
        self.waiting.push_back((id, now));
        Some(id)
    }

    /// The host measuring the round trip: one ping a frame; one unanswered
    /// after [`PROBE_PING_EXPIRY`] is forgotten (it, or its pong, was lost).
    pub(super) fn probe_ping(&mut self, now: Millis) -> u16 {
        self.waiting
            .retain(|&(_, at)| now.saturating_since(at) < PROBE_PING_EXPIRY);
        if self.waiting.len() >= PROBE_PINGS_KEPT {
            self.waiting.pop_front();
        }
        let id = self.new_id();
        self.waiting.push_back((id, now));
        id
    }

    /// During the match, when an Inputs packet goes out: a ping every
    /// `interval` frames. A ping unanswered for a second (or three round
    /// trips) counts as lost, as does one pushed out of the queue.
    pub(super) fn match_ping(
        &mut self,
        now: Millis,
        interval: u16,
        last_rtt: Option<Millis>,
    ) -> Option<u16> {
        if self.frames_since_ping < interval {
            return None;
        }
        self.frames_since_ping = 0;
        let id = self.new_id();
        let rtt = last_rtt.map_or(0, |r| r.0);
        let expiry = Millis(rtt.saturating_mul(3).max(1000));
        while self
            .waiting
            .front()
            .is_some_and(|&(_, at)| now.saturating_since(at) >= expiry)
            || self.waiting.len() >= PINGS_KEPT
        {
            self.waiting.pop_front();
            self.losses = (self.losses << 1) | 1;
        }
        self.waiting.push_back((id, now));
        Some(id)
    }

    /// A pong arrived: the round trip it measures (less the time the peer
    /// held it), or `None` for an unknown ping.
    pub(super) fn on_pong(&mut self, now: Millis, p: Pong) -> Option<Millis> {
        let i = self.waiting.iter().position(|&(id, _)| id == p.id)?;
        let (_, sent) = self.waiting.remove(i)?;
        self.losses <<= 1;
        Some(
            now.saturating_since(sent)
                .saturating_since(Millis(u64::from(p.held_ms))),
        )
    }

    /// The peer pinged during the match: the pong rides on the next
    /// Inputs packet.
    pub(super) fn owe_pong(&mut self, id: u16, now: Millis) {
        self.pong_owed = Some((id, now));
    }

    /// The pong owed, if any, saying how long it was held.
    pub(super) fn take_pong(&mut self, now: Millis) -> Option<Pong> {
        self.pong_owed.take().map(|(id, at)| Pong {
            id,
            held_ms: u16::try_from(now.saturating_since(at).0).unwrap_or(u16::MAX),
        })
    }

    /// Of the last 8 pings, how many were lost (the ping or its pong).
    pub(super) fn losses(&self) -> u32 {
        self.losses.count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_leaves_out_the_time_the_pong_was_held() {
        let mut p = Pinger::default();
        p.start(30);
        let id = p.match_ping(Millis(1000), 30, None).expect("due at once");
        assert_eq!(p.match_ping(Millis(1001), 30, None), None, "not due again");
        assert_eq!(
            p.on_pong(Millis(1150), Pong { id, held_ms: 30 }),
            Some(Millis(120))
        );
        // Answered once: a second pong for it is unknown.
        assert_eq!(p.on_pong(Millis(1160), Pong { id, held_ms: 0 }), None);
        assert_eq!(p.losses(), 0);
    }

    #[test]
    fn pings_unanswered_past_the_expiry_count_as_lost() {
        let mut p = Pinger::default();
        p.start(1);
        let mut now = 0;
        for _ in 0..4 {
            p.frame();
            assert!(p.match_ping(Millis(now), 1, None).is_some());
            now += 600;
        }
        // Sent at 0, 600, 1200 and 1800 with no pong: the ping sent at
        // 1200 finds the first a second old (lost), the one at 1800 the
        // second.
        assert_eq!(p.losses(), 2);
        p.frame();
        assert!(p.match_ping(Millis(now), 1, None).is_some());
        assert_eq!(p.losses(), 3);
    }

    #[test]
    fn the_pong_owed_says_how_long_it_waited() {
        let mut p = Pinger::default();
        p.owe_pong(9, Millis(100));
        assert_eq!(p.take_pong(Millis(133)), Some(Pong { id: 9, held_ms: 33 }));
        assert_eq!(p.take_pong(Millis(150)), None);
    }
}
