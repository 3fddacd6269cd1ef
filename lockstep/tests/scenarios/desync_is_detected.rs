//! A desync injected into one peer's game is detected within one hash
//! interval; both sides end with Desync, the tick and both hashes.
use crate::common;

use common::{Pair, Tiny, TinyDesyncAt};
use lockstep::{DesyncParts, Millis, Outcome, SessionConfig};
use netsim::LinkConfig;

fn check(hash_interval: u16, at: u32, outcomes: (Option<Outcome>, Option<Outcome>)) {
    let (Some(host), Some(guest)) = outcomes else {
        panic!("both sides must end: {outcomes:?}");
    };
    let Outcome::Desync {
        tick,
        local,
        remote,
        parts,
        slots,
    } = host
    else {
        panic!("host: {host:?}");
    };
    assert!(
        tick > at && tick <= at + u32::from(hash_interval),
        "tick {tick}"
    );
    assert_eq!(tick % u32::from(hash_interval), 0);
    assert_ne!(local, remote);
    // Tiny describes no parts: the desync names none, as before parts.
    assert_eq!(parts, DesyncParts::default());
    // The host names the guest's slot, and the guest the host's.
    assert_eq!(slots, vec![1]);
    assert_eq!(
        guest,
        Outcome::Desync {
            tick,
            local: remote,
            remote: local,
            parts: DesyncParts::default(),
            slots: vec![0],
        }
    );
}

#[test]
fn desync_ends_both_sides_within_one_interval() {
    common::in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(50),
            jitter: Millis(10),
            loss_percent: 5,
            ..LinkConfig::default()
        };
        let mut p: Pair<Tiny, TinyDesyncAt<1000>> = Pair::new(
            mode.cfg(SessionConfig::host(5, 6)),
            SessionConfig::guest(),
            link,
            21,
        );
        let outcomes = p.run_until_both_end(3000);
        check(60, 1000, outcomes);
        // Nothing ran past the interval that found it (plus what was in flight).
        // (In rollback, up to the window more ran on predictions.)
        assert!(p.host.tick() < 1060 + 10 + 8);
    });
}

#[test]
fn a_shorter_hash_interval_finds_it_sooner() {
    common::in_both_modes(|mode| {
        let mut p: Pair<Tiny, TinyDesyncAt<333>> = Pair::new(
            mode.cfg(SessionConfig::host(5, 3).hash_interval(10)),
            SessionConfig::guest(),
            LinkConfig::default(),
            22,
        );
        let outcomes = p.run_until_both_end(3000);
        check(10, 333, outcomes);
    });
}
