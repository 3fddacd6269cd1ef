//! Four dots players in a game that plays a held slot on, over mildly
//! lossy links. The players in slots 2 and 3 lose every link at the same
//! moment: two away at once, the others wait for them (the host benches
//! one slot at a time, once every other player answered for it). Then
//! both pages reload in the same frame and both fresh sessions ask for
//! their slots back. The first request waits for the other slot, which
//! the host benches meanwhile; the other's request, coming while that
//! bench is being gathered, waits for it too instead of being refused
//! (the slot is still its player's). The host takes the held slot back,
//! then hands the benched one back, and takes neither player back only
//! to bench it again while its catch-up crosses. Both are back, every
//! member knowing whose each link is, within a second of virtual time,
//! and all four play on in sync on the same hashes. Both modes.
use crate::common;

use common::{assert_all_back_in_sync, bench_mesh, in_both_modes, reload_at_once};
use lockstep_testing::{member_id, BenchDots, Mesh};

/// Whether every player of `m` knows which slot each of its links leads
/// to (every slot taken back on every side).
fn everyone_met(m: &Mesh<BenchDots>) -> bool {
    let n = m.players.len();
    (0..n).all(|i| {
        (0..n)
            .filter(|&j| j != i)
            .all(|j| m.players[i].peer_slot(member_id(j)) == u8::try_from(j).ok())
    })
}

#[test]
fn two_players_benched_at_once_both_come_back() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 4, 0x2b3c);
        m.sever_player(2);
        m.sever_player(3);
        m.run_frames(300);
        let start = m.net.frame;
        reload_at_once(&mut m, &[2, 3], 0, 60);
        while !everyone_met(&m) {
            assert!(m.net.frame < start + 60, "{}", m.progress());
            m.step_frame();
        }
        let took = m.net.frame - start;
        eprintln!("{mode:?}: both back in {took} frames");
        // 750 ms.
        assert!(took <= 45, "both back only after {took} frames");
        assert_all_back_in_sync(&mut m, &[2, 3], 600);
        assert!(everyone_met(&m), "{}", m.progress());
    });
}
