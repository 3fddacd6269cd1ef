//! The link from the guest to the host is cut one way only: the host hears
//! nothing and drops the guest after the silence timeout, while the guest
//! still hears the host's few packets but gets no new input from it. The
//! guest does not wait out the 15 s progress timeout (which would end the
//! match before the 20 s window): after the same timeout of stalling on a
//! player it still hears, it holds that slot too. Cut for good, both end
//! with `PlayerLeft` once the window is over (the host's `Bye`, naming the
//! guest's slot, still reaches the guest); healed within the window, both
//! resume and stay in sync.
use crate::common;

use common::{in_both_modes, Bench, Mode};
use lockstep::{Event, Millis, Outcome, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh};
use netsim::Direction;

fn mesh(mode: Mode, seed: u64) -> Mesh<Bench> {
    let link = LinkConfig {
        latency: Millis(30),
        ..LinkConfig::default()
    };
    let delay = if mode == Mode::LockStep { 3 } else { 1 };
    let mut m = Mesh::<Bench>::new(
        2,
        mode.cfg(SessionConfig::host(seed, delay)),
        mode.cfg(SessionConfig::guest()),
        link,
        seed,
    );
    assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
    m
}

/// Cuts the guest's way to the host.
fn cut_guest_to_host(m: &mut Mesh<Bench>, cut: bool) {
    if let Some(l) = m.net.link(0, 1) {
        // End 1 is the guest's.
        if cut {
            l.1.sever(Direction::Outgoing);
        } else {
            l.1.heal(Direction::Outgoing);
        }
    }
}

#[test]
fn a_one_way_cut_holds_the_slot_on_both_sides() {
    in_both_modes(|mode| {
        // Cut for good.
        let mut m = mesh(mode, 41);
        cut_guest_to_host(&mut m, true);
        let from = m.net.now();
        assert!(m.run_until_all_end_of(&[0, 1], 60 * 40), "{}", m.progress());
        assert_eq!(
            m.players[0].outcome(),
            Some(&Outcome::PlayerLeft { slot: 1 })
        );
        assert_eq!(
            m.players[1].outcome(),
            Some(&Outcome::PlayerLeft { slot: 1 })
        );
        assert!(m.players[1]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 0, .. })));
        let took = m.net.now().saturating_since(from);
        assert!(took >= Millis(25_000), "ended {took:?} after the cut");

        // Healed after 12 s: past the timeout, within the window.
        let mut m = mesh(mode, 42);
        cut_guest_to_host(&mut m, true);
        m.run_frames(60 * 12);
        assert!(
            m.players.iter().all(|p| p.outcome().is_none()),
            "{}",
            m.progress()
        );
        cut_guest_to_host(&mut m, false);
        let t = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(t + 1200, m.net.frame + 3000),
            "{}",
            m.progress()
        );
        for (p, slot) in m.players.iter().zip([1u8, 0]) {
            assert!(
                p.seen.events.contains(&Event::Resumed { slot }),
                "{:?}",
                p.seen
                    .events
                    .iter()
                    .filter(|e| !matches!(
                        e,
                        Event::Ticked(_)
                            | Event::HashMatched(_)
                            | Event::RoundTrip(_)
                            | Event::Stalled(_)
                    ))
                    .collect::<Vec<_>>()
            );
        }
        common::assert_players_agree(&m, &[0, 1], 10);
    });
}
