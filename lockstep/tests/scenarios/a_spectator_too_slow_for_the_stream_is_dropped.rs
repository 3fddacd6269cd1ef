//! A spectator whose link from the host slows to 40 bytes a second five
//! seconds into a two-player match of `Tiny` (in both modes) falls
//! further and further behind: the host stops sending it more than its
//! acknowledgements allow, and once the match is 600 ticks past what it
//! acknowledged drops it with `WatchRefused { TooSlow }`, which the
//! spectator ends with. The players never wait for it: they stall exactly
//! the frames they stall without a spectator, and count none at the end.
use crate::common;

use common::Tiny;
use lockstep::{Millis, Outcome, SessionConfig, WatchRefusal};
use lockstep_testing::{in_both_modes, Mesh, Mode};
use netsim::LinkConfig;

fn play(mode: Mode, watched: bool) -> Mesh<Tiny> {
    // A fixed latency: see sixteen_spectators_never_stall_the_players.rs.
    let link = LinkConfig {
        latency: Millis(80),
        ..LinkConfig::default()
    };
    let host = mode.cfg(SessionConfig::host(8, 4));
    let guest = mode.cfg(SessionConfig::guest());
    let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 4);
    if watched {
        mesh.add_spectator(SessionConfig::spectator(), link, 60)
            .expect("a valid spectator");
    }
    for frame in 0..3_000 {
        if watched && frame == 300 {
            if let Some(l) = mesh.spectator_link(0) {
                l.0.throttle(Some(40));
            }
        }
        mesh.step_frame();
    }
    mesh
}

#[test]
fn a_spectator_too_slow_for_the_stream_is_dropped() {
    in_both_modes(|mode| {
        let alone = play(mode, false);
        let mesh = play(mode, true);
        assert_eq!(
            mesh.spectators[0].outcome(),
            Some(&Outcome::WatchRefused {
                why: WatchRefusal::TooSlow
            })
        );
        for i in 0..2 {
            let p = &mesh.players[i];
            assert_eq!(p.outcome(), None, "player {i}");
            assert_eq!(p.spectators(), 0, "player {i}");
            assert_eq!(
                p.stats().stalled_frames,
                alone.players[i].stats().stalled_frames,
                "player {i}'s stalls"
            );
            assert_eq!(p.confirmed_tick(), alone.players[i].confirmed_tick());
        }
    });
}
