//! A failed or closed transport (without a Bye) gives TransportLost.
mod common;

use common::running_pair;
use lockstep::{Outcome, Transport};

#[test]
fn a_failed_transport_is_transport_lost_on_both_sides() {
    common::in_both_modes(|mode| {
        let mut p = running_pair(mode, 43);
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
        let mut p = running_pair(mode, 44);
        p.link_mut().0.close();
        // The host sees its own transport closed (its driver closed it
        // without quitting first); the guest sees the close arrive.
        assert_eq!(
            p.run_until_both_end(p.frame() + 60),
            (Some(Outcome::TransportLost), Some(Outcome::TransportLost))
        );
    });
}
