//! With no rejoin window (0), 5 s of silence in a running match gives
//! Timeout on each side (both ways cut, one way cut); so does a peer that
//! never says Hello, whatever the window; a shorter silence is survived.
//! (With the default window a silent player's slot is held instead: see
//! `a_player_severed_for_ten_seconds_comes_back_in_sync`.)
use crate::common;

use common::{outcome_link, running_pair, running_pair_without_hold, Pair, Tiny};
use lockstep::{Channel, Millis, Outcome, SessionConfig};
use netsim::Direction;

#[test]
fn five_seconds_of_silence_both_ways_is_timeout_on_both_sides() {
    common::in_both_modes(|mode| {
        let mut p = running_pair_without_hold(mode, 45);
        p.host_net().sever_both();
        let cut = p.now();
        let outcomes = p.run_until_both_end(p.frame() + 60 * 7);
        assert_eq!(outcomes, (Some(Outcome::Timeout), Some(Outcome::Timeout)));
        let waited = p.now().saturating_since(cut);
        // The last datagram may have been in flight for up to 60 ms.
        assert!(
            waited >= Millis(4900) && waited <= Millis(5200),
            "ended {waited:?} after the cut"
        );
    });
}

#[test]
fn silence_one_way_is_timeout_on_both_sides() {
    common::in_both_modes(|mode| {
        let mut p = running_pair_without_hold(mode, 46);
        // The host hears the guest, but the guest hears nothing: the guest
        // times out and its Bye(Timeout) reaches the host.
        p.host_net().sever(Direction::Outgoing);
        let outcomes = p.run_until_both_end(p.frame() + 60 * 7);
        assert_eq!(outcomes, (Some(Outcome::Timeout), Some(Outcome::Timeout)));
    });
}

#[test]
fn silence_shorter_than_the_timeout_is_survived() {
    common::in_both_modes(|mode| {
        let mut p = running_pair(mode, 47);
        p.host_net().sever_both();
        p.run_frames(60 * 4); // 4 s
        p.host_net().heal_both();
        let t = p.host.tick();
        p.run_frames(300);
        assert_eq!(p.host.outcome(), None);
        assert_eq!(p.guest.outcome(), None);
        assert!(p.host.tick() > t + 250);
    });
}

#[test]
fn a_peer_that_never_says_hello_times_out() {
    common::in_both_modes(|mode| {
        // The guest's own timeout is set longer, so that it can only end
        // through the host's Bye(Timeout).
        let mut p: Pair<Tiny, Tiny> = Pair::new(
            mode.cfg(SessionConfig::host(1, 6)),
            mode.cfg(SessionConfig::guest()).timeout(Millis(10_000)),
            outcome_link(),
            48,
        );
        // The host never hears the guest; the guest hears the host.
        p.host_net().sever(Direction::Incoming);
        let outcomes = p.run_until_both_end(60 * 7);
        assert_eq!(outcomes, (Some(Outcome::Timeout), Some(Outcome::Timeout)));
        // The host never started: 5 s after its first call it gave up.
        assert_eq!(p.host.tick(), 0);
        assert!(!p.host.seen.started);
        // The guest did start (the host's Hello reached it), then heard
        // the Bye one trip after the host's timeout, long before its own.
        assert!(p.guest.seen.started);
        let ended = p.now();
        assert!(
            ended >= Millis(5000) && ended <= Millis(5300),
            "ended at {ended:?}"
        );
        // It answered nothing: only its Hello went out on the reliable
        // channel, no Bye of its own.
        let sent = p.guest_net().outgoing_stats().sent.get(Channel::Reliable);
        assert_eq!(sent.packets, 1);
    });
}
