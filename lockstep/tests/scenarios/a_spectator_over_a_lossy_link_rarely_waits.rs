//! A spectator at the default watch delay (12 ticks) over link (d) (100 ms
//! ±20, a quarter of the datagrams lost), watching a two-player match of
//! `Tiny` whose players are joined by a lossless link, for 60 s of
//! virtual time in both modes.
//!
//! The host sends the spectator every unacknowledged confirmed tick every
//! sixth frame on the unreliable channel, so a lost send is carried by the
//! next one, six frames later. The spectator starts once it holds its
//! delay's worth of ticks and then plays one a frame while it holds any:
//! when a send is due it holds at least the 12 ticks of its delay, so a
//! run of `k` lost sends in a row (`6 k` frames without news) makes it
//! wait `6 k - 12` frames, only for `k >= 3`. With a loss of `p = 1/4`,
//! a run of losses starts `10 (1 - p) p` = 1.9 times a second and is `k`
//! long with chance `(1 - p) p^(k - 1)`: the expected wait is
//! `sum over k >= 3 of (1 - p) p^(k - 1) (6 k - 12)` = 0.5 frames a run,
//! 0.93 frames a second, 56 in a minute. To that add the first fill of
//! the delay (12 ticks, and the first send's wait: about 20 frames, the
//! whole wait of the same run without loss). The bound allows twice the
//! expected loss-bound wait plus that start: 20 + 2 × 56 ≈ 130 frames a
//! minute; 150 for round numbers. The same match with the stream on the
//! reliable channel, where each lost run waits for a retransmission and
//! everything behind it waits too, and a spectator that stopped at its
//! delay instead of playing the ticks it held, waited 927 frames here.
use crate::common;

use common::Tiny;
use lockstep::{Frame, SessionConfig};
use lockstep_testing::{in_both_modes, Mesh};
use netsim::LinkConfig;

/// Frames of the run: a minute.
const FRAMES: u64 = 3_600;
/// The most frames the spectator may wait in it (see above).
const MOST_WAITED: usize = 150;

#[test]
fn a_spectator_over_a_lossy_link_rarely_waits() {
    let lossless = LinkConfig {
        latency: lockstep::Millis(20),
        ..LinkConfig::default()
    };
    let d = common::scenario_links()[3].1;
    in_both_modes(|mode| {
        let host = mode.cfg(SessionConfig::host(5, 2));
        let guest = mode.cfg(SessionConfig::guest());
        let mut mesh = Mesh::<Tiny>::new(2, host, guest, lossless, 17);
        mesh.add_spectator(SessionConfig::spectator(), d, 41)
            .expect("a valid spectator");
        mesh.run_frames(FRAMES);
        let s = &mesh.spectators[0];
        assert!(s.seen.started, "the spectator never started watching");
        let waited = s
            .seen
            .frames
            .iter()
            .filter(|f| matches!(f, Frame::Stalled(_)))
            .count();
        let players_waited = mesh.players[0]
            .seen
            .frames
            .iter()
            .filter(|f| matches!(f, Frame::Stalled(_)))
            .count();
        eprintln!(
            "{mode:?}: the spectator waited {waited} frames, the host {players_waited}, \
             it ran {} ticks of the host's {}",
            s.tick(),
            mesh.players[0].confirmed_tick()
        );
        assert!(
            waited <= MOST_WAITED + players_waited,
            "the spectator waited {waited} frames in a minute (the host {players_waited})"
        );
        // It kept up: the delay, a send interval and the link behind.
        let behind = mesh.players[0].confirmed_tick() - s.tick();
        assert!(behind < 60, "the spectator is {behind} ticks behind");
        // And it is in sync: every state both recorded is the same.
        let host = &mesh.players[0].seen;
        let mut compared = 0;
        for (tick, hash) in &s.seen.hashes {
            if let Some(h) = host.hash_at(*tick) {
                assert_eq!(*hash, h, "the states differ at tick {tick}");
                compared += 1;
            }
        }
        assert!(compared > 100, "only {compared} states compared");
        assert!(s.outcome().is_none(), "{:?}", s.outcome());
    });
}
