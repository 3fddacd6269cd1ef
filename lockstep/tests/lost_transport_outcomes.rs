//! A failed or closed transport (without a Bye) gives TransportLost.
mod common;

use common::{Mode, Pair};
use lockstep::{Millis, Outcome, Transport};
use netsim::LinkConfig;

fn link() -> LinkConfig {
    LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    }
}

fn running_pair(mode: Mode, seed: u64) -> Pair<common::Tiny, common::Tiny> {
    let mut p = Pair::tiny_in(mode, link(), seed, seed, 6);
    assert!(p.run_to_tick(300, 1000));
    p
}

#[test]
fn a_failed_transport_is_transport_lost_on_both_sides() {
    common::in_both_modes(|mode| {
        let mut p = running_pair(mode, 43);
        p.host_net.fail_link();
        assert_eq!(
            p.run_until_both_end(p.frame + 5),
            (Some(Outcome::TransportLost), Some(Outcome::TransportLost))
        );
    });
}

#[test]
fn a_closed_transport_without_bye_is_transport_lost() {
    common::in_both_modes(|mode| {
        let mut p = running_pair(mode, 44);
        p.host_net.close();
        let (_, guest) = p.run_until_both_end(p.frame + 60);
        assert_eq!(guest, Some(Outcome::TransportLost));
    });
}
