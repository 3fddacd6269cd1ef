//! Time synchronisation in rollback mode: each side estimates how far it
//! runs ahead of the peer (its frame advantage), tells the peer, and lets a
//! frame pass without a tick when it runs clearly ahead.

use crate::time::Millis;

/// Milliseconds per tick at 60 ticks per second, times 3 (= 50), so tick
/// arithmetic on milliseconds stays in integers: `ticks = ms * 3 / 50`.
pub(super) const MS_PER_3_TICKS: u64 = 50;
/// A side skips a frame when its own view of its frame advantage minus the
/// peer's view reaches this many ticks (the half difference, how far it
/// runs ahead, is then 1.5 ticks or more). Below it lies a dead band where
/// the estimates' noise (jitter, a lost or held packet) would cause skips
/// that only hand the lead to the other side.
const SKIP_THRESHOLD: i32 = 3;
/// Frames between two time-synchronisation skips, at least.
const SKIP_SPACING_FRAMES: u32 = 20;
/// Frames between two frame-advantage reports, at least.
const ADVANTAGE_SPACING_FRAMES: u32 = 10;

/// Half a round trip, in ticks (0 before the first is measured).
pub(super) fn travel_ticks(last_rtt: Option<Millis>) -> i64 {
    let travel = last_rtt.map_or(0, |r| r.0.saturating_mul(3) / (2 * MS_PER_3_TICKS));
    i64::try_from(travel).unwrap_or(i64::MAX / 4)
}

/// What this side knows of the peer's progress, for estimating its tick.
#[derive(Debug, Clone, Copy)]
pub(super) struct PeerView {
    /// Remote inputs received (the peer's newest input is for the tick
    /// before).
    pub(super) remote_inputs: u32,
    /// The input delay.
    pub(super) delay: u8,
    /// Half the last round trip, in ticks.
    pub(super) travel: i64,
    /// Our inputs the peer surely holds: those up to the packet before
    /// our last.
    pub(super) surely_held: u32,
    /// The prediction window.
    pub(super) window: u8,
}

/// The frame advantage, averaged, and the spacing of reports and skips.
#[derive(Debug, Default)]
pub(super) struct TimeSync {
    /// This side's frame advantage, averaged, in 1/256 ticks.
    advantage_avg: i32,
    /// The peer's last reported frame advantage.
    remote_advantage: i8,
    /// The advantage last reported to the peer.
    sent_advantage: i8,
    frames_since_advantage: u32,
    frames_since_skip: u32,
    /// Frames since the remote inputs last grew (the peer may hold back
    /// packets, so its tick moves on in between).
    frames_since_remote: u32,
}

impl TimeSync {
    /// The remote inputs just grew.
    pub(super) fn heard_inputs(&mut self) {
        self.frames_since_remote = 0;
    }

    /// The peer reported its frame advantage.
    pub(super) fn remote_advantage(&mut self, advantage: i8) {
        self.remote_advantage = advantage;
    }

    /// The peer's tick now, estimated: the tick its newest input was
    /// sampled for, minus the delay, plus half a round trip of travel,
    /// plus the frames since that input arrived (the peer runs on while
    /// it holds back its packets, however long its hold, or while one is
    /// lost). A peer never runs past our inputs it holds plus its
    /// prediction window: at most that, counting only our packets up to
    /// the one before the last (a peer that stalls because our last
    /// packet was lost waits there, as does one that stopped for longer).
    pub(super) fn peer_tick_estimate(&self, peer: PeerView) -> i64 {
        (i64::from(peer.remote_inputs) - i64::from(peer.delay)
            + peer.travel
            + i64::from(self.frames_since_remote))
        .min(i64::from(peer.surely_held) + i64::from(peer.window))
    }

    /// This side's frame advantage in ticks, from what it sees: its tick
    /// minus the peer's estimated tick now.
    fn local_advantage(&self, tick: u32, peer: PeerView) -> i32 {
        let adv = i64::from(tick) - self.peer_tick_estimate(peer);
        i32::try_from(adv.clamp(-127, 127)).unwrap_or(0)
    }

    /// Once per running frame: folds this frame's advantage into the
    /// running average (about the last 8 frames).
    pub(super) fn update(&mut self, tick: u32, peer: PeerView) {
        let adv = self.local_advantage(tick, peer) * 256;
        self.advantage_avg += (adv - self.advantage_avg) / 8;
        self.frames_since_advantage = self.frames_since_advantage.saturating_add(1);
        self.frames_since_skip = self.frames_since_skip.saturating_add(1);
        self.frames_since_remote = self.frames_since_remote.saturating_add(1);
    }

    /// The averaged advantage, rounded to whole ticks.
    fn rounded_advantage(&self) -> i8 {
        let t = (self.advantage_avg + 128).div_euclid(256);
        i8::try_from(t.clamp(-127, 127)).unwrap_or(0)
    }

    /// The advantage to put on this frame's Inputs packet: when it changed
    /// since the last report and that was at least
    /// [`ADVANTAGE_SPACING_FRAMES`] ago.
    pub(super) fn report(&mut self) -> Option<i8> {
        if self.frames_since_advantage >= ADVANTAGE_SPACING_FRAMES
            && self.rounded_advantage() != self.sent_advantage
        {
            self.frames_since_advantage = 0;
            self.sent_advantage = self.rounded_advantage();
            Some(self.sent_advantage)
        } else {
            None
        }
    }

    /// Whether to let this frame pass without a tick because of this peer:
    /// this side runs ahead of it by 1.5 ticks or more (its own view of
    /// its advantage minus the peer's view reaches [`SKIP_THRESHOLD`]; half
    /// that difference is how far it runs ahead, so that an uneven link
    /// cancels out). At most once per [`SKIP_SPACING_FRAMES`]. With
    /// several peers, the session skips when any one asks, and tells them
    /// all with [`skipped`](Self::skipped).
    pub(super) fn wants_skip(&self, tick: u32, peer: PeerView) -> bool {
        if self.frames_since_skip < SKIP_SPACING_FRAMES {
            return false;
        }
        // The average, unless this frame's view says less: just after a
        // late burst of the peer's inputs the average still remembers the
        // gap, but the side is not ahead any more.
        let own = self
            .advantage_avg
            .min(self.local_advantage(tick, peer) * 256);
        let ahead = own - i32::from(self.remote_advantage) * 256;
        ahead >= SKIP_THRESHOLD * 256
    }

    /// This side let a frame pass without a tick.
    pub(super) fn skipped(&mut self) {
        self.frames_since_skip = 0;
        // The skipped tick shifts this side's view by one at once.
        self.advantage_avg -= 256;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn peer(remote_inputs: u32) -> PeerView {
        PeerView {
            remote_inputs,
            delay: 2,
            travel: 0,
            surely_held: 1000,
            window: 8,
        }
    }

    #[test]
    fn a_side_running_ahead_skips_at_most_one_frame_in_twenty() {
        let mut ts = TimeSync::default();
        let mut skips = Vec::new();
        for frame in 0..60u32 {
            // Our tick runs 4 ahead of the peer's newest input minus the
            // delay, and the inputs keep arriving (the peer is not late).
            let tick = 100 + frame;
            ts.heard_inputs();
            ts.update(tick, peer(tick - 4 + 2));
            if ts.wants_skip(tick, peer(tick - 4 + 2)) {
                ts.skipped();
                skips.push(frame);
            }
        }
        assert!(!skips.is_empty());
        assert!(skips.windows(2).all(|w| w[1] - w[0] >= SKIP_SPACING_FRAMES));
    }

    #[test]
    fn no_skip_inside_the_dead_band_or_when_the_peer_sees_the_same_lead() {
        let mut level = TimeSync::default();
        let mut same_view = TimeSync::default();
        same_view.remote_advantage(4);
        for frame in 0..60u32 {
            let tick = 100 + frame;
            level.heard_inputs();
            level.update(tick, peer(tick - 1 + 2));
            assert!(!level.wants_skip(tick, peer(tick - 1 + 2)), "1 tick ahead");
            same_view.heard_inputs();
            same_view.update(tick, peer(tick - 4 + 2));
            assert!(
                !same_view.wants_skip(tick, peer(tick - 4 + 2)),
                "an uneven link"
            );
        }
        // The rounded advantage is reported once it differs from the last.
        assert_eq!(level.report(), Some(1));
        assert_eq!(level.report(), None);
    }
}
