//! The three limits that end a match gone quiet or stuck: silence, a
//! handshake that does not finish, and a wait on the peer's input that
//! does not end.

use super::config::SessionConfig;
use crate::time::Millis;

/// Which deadline passed, and how long ago its clock started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expired {
    /// No datagram from the peer for this long.
    Silence(Millis),
    /// The match has not started this long after the first call.
    Handshake(Millis),
    /// Stalled on the peer's next input for this long.
    Progress(Millis),
}

/// When the session was first called and began to wait on the peers'
/// input. When each peer was last heard is the peer's own (see
/// `peer.rs`); the quietest one is passed in.
#[derive(Debug, Default)]
pub(super) struct Deadlines {
    /// The time of the first call: the handshake's deadline counts from it.
    began: Option<Millis>,
    /// Since when this side has stalled on a peer's next input (none
    /// while ticks run).
    waiting_since: Option<Millis>,
    /// The last time the stall was explained by a held slot (a player
    /// still heard is not counted stuck from before then).
    excused_at: Option<Millis>,
}

impl Deadlines {
    /// The session was called at `now` (starts the handshake's clock).
    pub(super) fn called(&mut self, now: Millis) {
        self.began.get_or_insert(now);
    }

    /// The host keeps this side's request to enter a running match
    /// waiting and said so at `now` (its keep-alive): the handshake's
    /// deadline counts from then.
    pub(super) fn restart_handshake(&mut self, now: Millis) {
        self.began = Some(now);
    }

    /// A tick could run, or a peer's inputs grew: the wait is over.
    pub(super) fn progressed(&mut self) {
        self.waiting_since = None;
    }

    /// A frame stalled on a peer's input: the wait starts (if it had not).
    pub(super) fn stalled(&mut self, now: Millis) {
        self.waiting_since.get_or_insert(now);
    }

    /// The first deadline that has passed at `now`, if any (`handshake`:
    /// the match has not started; `quietest`: when the peer heard least
    /// recently was last heard, `None` without peers, when silence counts
    /// from the first call). Starts the clocks on the first call.
    pub(super) fn expired(
        &mut self,
        now: Millis,
        cfg: &SessionConfig,
        handshake: bool,
        quietest: Option<Millis>,
    ) -> Option<Expired> {
        let began = *self.began.get_or_insert(now);
        let heard = quietest.unwrap_or(began);
        if now.saturating_since(heard) >= cfg.timeout {
            Some(Expired::Silence(now.saturating_since(heard)))
        } else if handshake && now.saturating_since(began) >= cfg.handshake_timeout {
            Some(Expired::Handshake(now.saturating_since(began)))
        } else {
            let since = self.waiting_since?;
            (now.saturating_since(since) >= cfg.progress_timeout)
                .then(|| Expired::Progress(now.saturating_since(since)))
        }
    }

    /// When a stall will have lasted `cfg.timeout` since it was last
    /// excused (its players still heard are then held: see the session's
    /// `drop_stuck`).
    pub(super) fn stuck_next(&self, cfg: &SessionConfig) -> Option<Millis> {
        self.stuck_since().map(|t| t + cfg.timeout)
    }

    /// How long the match has been stalled with nothing to explain it
    /// but the players still heard, if it is.
    pub(super) fn stalled_for(&self, now: Millis) -> Option<Millis> {
        self.stuck_since().map(|t| now.saturating_since(t))
    }

    /// The stall at `now` is explained by a held slot: the count towards
    /// taking a player still heard for stuck starts again (the progress
    /// timeout's does not).
    pub(super) fn excuse(&mut self, now: Millis) {
        self.excused_at = Some(now);
    }

    fn stuck_since(&self) -> Option<Millis> {
        let since = self.waiting_since?;
        Some(self.excused_at.map_or(since, |e| e.max(since)))
    }

    /// How long this side has been stalled on a peer's input, once that
    /// passes the progress timeout (the only deadline of a running match
    /// that holds the slots of silent players: their silence is the
    /// session's to count, per player).
    pub(super) fn progress_expired(&self, now: Millis, cfg: &SessionConfig) -> Option<Millis> {
        let since = self.waiting_since?;
        let waited = now.saturating_since(since);
        (waited >= cfg.progress_timeout).then_some(waited)
    }

    /// When [`progress_expired`](Self::progress_expired) will say so.
    pub(super) fn progress_next(&self, cfg: &SessionConfig) -> Option<Millis> {
        self.waiting_since.map(|t| t + cfg.progress_timeout)
    }

    /// The earliest deadline (see [`expired`](Self::expired)), or `None`
    /// before the first call that passed a time.
    pub(super) fn next(
        &self,
        cfg: &SessionConfig,
        handshake: bool,
        quietest: Option<Millis>,
    ) -> Option<Millis> {
        let silence = quietest.or(self.began).map(|t| t + cfg.timeout);
        let start = match handshake {
            true => self.began.map(|t| t + cfg.handshake_timeout),
            false => None,
        };
        let progress = self.waiting_since.map(|t| t + cfg.progress_timeout);
        [silence, start, progress].into_iter().flatten().min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SessionConfig {
        SessionConfig::guest()
            .timeout(Millis(5000))
            .handshake_timeout(Millis(10_000))
            .progress_timeout(Millis(15_000))
    }

    #[test]
    fn silence_counts_from_the_quietest_peer_or_the_first_call() {
        let mut d = Deadlines::default();
        assert_eq!(d.next(&cfg(), false, None), None);
        assert_eq!(d.expired(Millis(100), &cfg(), false, None), None);
        assert_eq!(d.next(&cfg(), false, None), Some(Millis(5100)));
        let heard = Some(Millis(3000));
        assert_eq!(d.next(&cfg(), false, heard), Some(Millis(8000)));
        assert_eq!(d.expired(Millis(7999), &cfg(), false, heard), None);
        assert_eq!(
            d.expired(Millis(8000), &cfg(), false, heard),
            Some(Expired::Silence(Millis(5000)))
        );
    }

    #[test]
    fn the_handshake_deadline_counts_from_the_first_call_and_only_before_the_start() {
        let mut d = Deadlines::default();
        assert_eq!(d.expired(Millis(1000), &cfg(), true, None), None);
        let heard = Some(Millis(10_000));
        assert_eq!(d.next(&cfg(), true, heard), Some(Millis(11_000)));
        assert_eq!(
            d.expired(Millis(11_000), &cfg(), true, heard),
            Some(Expired::Handshake(Millis(10_000)))
        );
        assert_eq!(d.expired(Millis(11_000), &cfg(), false, heard), None);
    }

    #[test]
    fn the_hosts_keep_alive_starts_the_handshake_deadline_over() {
        let mut d = Deadlines::default();
        d.called(Millis(0));
        let heard = Some(Millis(9_500));
        assert_eq!(d.next(&cfg(), true, heard), Some(Millis(10_000)));
        d.restart_handshake(Millis(9_500));
        assert_eq!(d.expired(Millis(10_000), &cfg(), true, heard), None);
        assert_eq!(d.next(&cfg(), true, heard), Some(Millis(14_500)));
        // Silence still counts: no keep-alive for the timeout ends it.
        assert_eq!(
            d.expired(Millis(14_500), &cfg(), true, heard),
            Some(Expired::Silence(Millis(5000)))
        );
    }

    #[test]
    fn progress_counts_from_the_first_stalled_frame_until_progress() {
        let mut d = Deadlines::default();
        d.called(Millis(0));
        d.stalled(Millis(100));
        d.stalled(Millis(200));
        let heard = Some(Millis(15_000));
        assert_eq!(
            d.expired(Millis(15_100), &cfg(), false, heard),
            Some(Expired::Progress(Millis(15_000)))
        );
        d.progressed();
        assert_eq!(d.expired(Millis(15_100), &cfg(), false, heard), None);
    }
}
