//! With no rejoin window (0), a failed or closed transport (without a Bye)
//! gives TransportLost; with the default window the player's slot is held
//! for it, and a link that never comes back ends in PlayerLeft.
use crate::common;

use common::{running_pair, running_pair_without_hold};
use lockstep::{Event, Millis};
use lockstep::{Outcome, Transport};

#[test]
fn a_failed_transport_is_transport_lost_on_both_sides() {
    common::in_both_modes(|mode| {
        let mut p = running_pair_without_hold(mode, 43);
        p.host_net().fail_link();
        assert_eq!(
            p.run_until_both_end(p.frame() + 5),
            (Some(Outcome::TransportLost), Some(Outcome::TransportLost))
        );
    });
}

#[test]
fn a_closed_transport_without_bye_is_transport_lost() {
    common::in_both_modes(|mode| {
        let mut p = running_pair_without_hold(mode, 44);
        p.link_mut().0.close();
        // The host sees its own transport closed (its driver closed it
        // without quitting first); the guest sees the close arrive.
        assert_eq!(
            p.run_until_both_end(p.frame() + 60),
            (Some(Outcome::TransportLost), Some(Outcome::TransportLost))
        );
    });
}

#[test]
fn a_failed_transport_holds_the_slot_then_ends_in_player_left() {
    common::in_both_modes(|mode| {
        let mut p = running_pair(mode, 43);
        p.host_net().fail_link();
        let failed = p.now();
        p.run_frames(5);
        assert_eq!(p.host.outcome(), None);
        assert_eq!(p.guest.outcome(), None);
        assert!(p.host.seen.events.contains(&Event::Dropped {
            slot: 1,
            held_for: Millis(20_000)
        }));
        assert_eq!(
            p.run_until_both_end(p.frame() + 60 * 21),
            (
                Some(Outcome::PlayerLeft { slot: 1 }),
                Some(Outcome::PlayerLeft { slot: 0 })
            )
        );
        let waited = p.now().saturating_since(failed);
        assert!(
            waited >= Millis(20_000) && waited <= Millis(20_100),
            "{waited:?}"
        );
    });
}
