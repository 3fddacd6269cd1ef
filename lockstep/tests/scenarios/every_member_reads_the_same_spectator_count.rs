//! Two players and a spectator from the start; a second spectator joins
//! at second 10, and at second 15 the guest's page reloads and its fresh
//! session rejoins. Every member records the spectator count it reads at
//! each tick: the host, the guest (its old session, then the rejoiner)
//! and both spectators read the same count at every tick they share.
//! The rejoiner reads 2 from its first tick (its catch-up carries the
//! count), and the spectators read the count too (the host sends them
//! its changes), themselves included.
use crate::common;

use std::collections::BTreeMap;

use common::{in_both_modes, rejoin_mesh, Bench};
use lockstep::{Millis, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh};

/// `(tick, count)` as each member read it after each frame.
type Reads = BTreeMap<u32, u8>;

fn record(m: &Mesh<Bench>, players: &mut [Reads], spectators: &mut Vec<Reads>) {
    for (i, p) in m.players.iter().enumerate() {
        if p.outcome().is_none() && p.seen.started {
            players[i].insert(p.tick(), p.spectators());
        }
    }
    spectators.resize(m.spectators.len(), Reads::new());
    for (k, s) in m.spectators.iter().enumerate() {
        if s.seen.started {
            spectators[k].insert(s.tick(), s.spectators());
        }
    }
}

/// Every tick both `a` and `b` read: the same count. Returns how many.
fn agree(a: &Reads, b: &Reads, who: &str) -> usize {
    let mut shared = 0;
    for (tick, count) in a {
        if let Some(other) = b.get(tick) {
            assert_eq!(count, other, "{who} at tick {tick}");
            shared += 1;
        }
    }
    shared
}

#[test]
fn every_member_reads_the_same_spectator_count() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(30),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 2, 71, 0x5ec_2026, link, (4, 2));
        m.add_spectator(SessionConfig::spectator(), link, 5)
            .expect("a valid spectator");
        let mut players = vec![Reads::new(), Reads::new()];
        let mut spectators = Vec::new();
        let mut rejoiner = Reads::new();
        for frame in 0..1500u32 {
            if frame == 600 {
                m.add_spectator(SessionConfig::spectator(), link, 6)
                    .expect("a valid spectator");
            }
            if frame == 900 {
                m.reload(1).expect("the guest's slot can be rejoined");
            }
            m.step_frame();
            if frame < 900 {
                record(&m, &mut players, &mut spectators);
            } else {
                let mut both = [players[0].clone(), rejoiner.clone()];
                record(&m, &mut both, &mut spectators);
                let [host, back] = both;
                players[0] = host;
                rejoiner = back;
            }
        }
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let first = rejoiner.keys().next().copied().expect("the rejoiner plays");
        assert!(first >= 800, "the rejoiner started at tick {first}");
        assert_eq!(rejoiner.get(&first), Some(&2), "the rejoiner's first count");
        assert_eq!(m.players[0].spectators(), 2);
        assert!(agree(&players[0], &players[1], "the old guest") > 500);
        assert!(agree(&players[0], &rejoiner, "the rejoiner") > 300);
        for (k, reads) in spectators.iter().enumerate() {
            let shared = agree(&players[0], reads, &format!("spectator {k}"));
            assert!(shared > 300, "spectator {k} shares {shared} ticks");
            assert_eq!(reads.values().last(), Some(&2), "spectator {k}");
        }
        // The first spectator saw the second come.
        let seen: Vec<u8> = spectators[0].values().copied().collect();
        assert!(seen.contains(&1) && seen.contains(&2), "{seen:?}");
    });
}
