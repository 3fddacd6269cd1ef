//! A game that describes no parts ends at once on a desync, in the very
//! frame that found it. Its input log still reaches the diverging tick, in
//! lock-step and in rollback, so a desync report can be written from it
//! and replays to the hash each side had there.
use crate::common;

use common::{Pair, Tiny, TinyDesyncAt};
use lockstep::{DesyncReport, Millis, Outcome, SessionConfig};
use netsim::LinkConfig;

type Guest = TinyDesyncAt<200>;

#[test]
fn a_desync_without_parts_leaves_a_log_to_its_tick() {
    // A perfect link (a side can find the desync in the frame that hashes
    // the tick, the peer's hash having come first) and a lossy one, each
    // with a few input delays: the order of events differs between them.
    let links = [
        LinkConfig::default(),
        LinkConfig {
            latency: Millis(20),
            loss_percent: 3,
            ..LinkConfig::default()
        },
    ];
    common::in_both_modes(|mode| {
        for (link, delay) in links.iter().flat_map(|l| [0, 1, 2].map(|d| (l, d))) {
            let mut p: Pair<Tiny, Guest> = Pair::new(
                mode.cfg(SessionConfig::host(5, delay).hash_interval(10)),
                SessionConfig::guest(),
                *link,
                17,
            );
            let (Some(host), Some(guest)) = p.run_until_both_end(3000) else {
                panic!("both sides must end: {}", p.progress());
            };
            for (outcome, log, side) in [
                (&host, p.host.input_log(), 0),
                (&guest, p.guest.input_log(), 1),
            ] {
                let Outcome::Desync { tick, local, .. } = outcome else {
                    panic!("{mode:?}: not a desync: {outcome:?}");
                };
                assert!(
                    log.ticks() >= *tick,
                    "{mode:?}, delay {delay}: the log holds {} ticks, the desync is at {tick}",
                    log.ticks()
                );
                let report = DesyncReport::write::<Tiny>(&log, side, outcome, |_, _| None)
                    .unwrap_or_else(|e| panic!("{mode:?}: no report: {e:?}"));
                assert_eq!(report.tick(), *tick);
                if side == 0 {
                    assert_eq!(report.replay::<Tiny>().hash, *local, "{mode:?}");
                } else {
                    assert_eq!(report.replay::<Guest>().hash, *local, "{mode:?}");
                }
            }
        }
    });
}
