//! Four players of dots that plays a dropped player's slot on while it
//! is held: the host's page is gone for good and its place moves to the
//! first guest. Then guest 3's links are cut: the new host benches its
//! slot (every guest plays it neutral from one tick), and guest 3's page
//! reloads with the token the old host gave it. The new host checks that
//! token against the check the old host's Hello gave it and takes the
//! player back from one tick on every guest (`Unbenched`); all three play
//! on to 3,000 confirmed ticks on the same hashes, each log replaying.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{
    assert_players_agree, bench_mesh, benched_at, in_both_modes, rejoined_ticks,
    run_some_to_confirmed, unbenched_at, Mode,
};

#[test]
fn a_guest_benched_by_the_new_host_comes_back_with_its_token() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 4, 211);
        host_never_back(&mut m);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2, 3], 2000, 60 * 120),
            "{}",
            m.progress()
        );
        assert_host_moved(&m, &[1, 2, 3], 1);
        let token = m.players[3].rejoin_token().expect("the old host's token");
        m.sever_player(3);
        m.players[3].runs = false;
        let until = m.net.frame + 60 * 20;
        while benched_at(&m, 2, 3).is_empty() {
            assert!(m.net.frame < until, "{}", m.progress());
            assert!(m.players[1].outcome().is_none(), "{}", m.progress());
            m.step_frame();
        }
        m.run_frames(60);
        let benched: Vec<Vec<u32>> = [1, 2].iter().map(|&i| benched_at(&m, i, 3)).collect();
        assert_eq!(benched[0], benched[1], "benched at different ticks");
        assert_eq!(benched[0].len(), 1);

        m.reload_with_token(3, token).expect("a guest can rejoin");
        m.sever(3, 0);
        let (from, until) = (m.players[1].confirmed_tick(), m.net.frame + 60 * 60);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2, 3], from.max(3000), until),
            "{}",
            m.progress()
        );
        m.run_frames(120);
        assert_eq!(rejoined_ticks(&m, 3).len(), 1, "{}", m.progress());
        let back: Vec<Vec<u32>> = [1, 2].iter().map(|&i| unbenched_at(&m, i, 3)).collect();
        assert_eq!(back[0], back[1], "back at different ticks");
        assert_eq!(back[0].len(), 1, "{}", m.progress());
        assert_eq!(m.players[3].host_slot(), 1);
        let want = if mode == Mode::LockStep { 300 } else { 60 };
        assert_players_agree(&m, &[1, 2, 3], want);
    });
}
