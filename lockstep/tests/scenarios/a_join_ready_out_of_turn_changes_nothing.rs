//! A `JoinReady` where none belongs changes nothing: on a player's link
//! (at the host and at a guest), from a link that is not joining, from
//! the newcomer's own link for another tick than its catch-up's (a ready
//! before it replayed it), and said again once the newcomer is in. Each
//! is logged and dropped: the match goes on, nobody ends, and the genuine
//! newcomer takes the slot once, at the same tick on every side, and
//! plays in sync. In lock-step and in rollback.
use crate::common;

use common::{assert_players_agree, in_both_modes, joins_seen, mesh_after_a_leave, Mode};
use lockstep::wire::Message;
use lockstep::{Channel, PeerId, SessionConfig};
use lockstep_testing::{member_id, Mesh, OpenDots};

/// A `JoinReady` for `tick`, as bytes.
fn ready(tick: u32) -> Vec<u8> {
    Message::<u8>::JoinReady(tick)
        .encode()
        .expect("a JoinReady encodes")
}

/// `bytes` on the reliable channel of player `to`'s link `from`, now.
fn inject(m: &mut Mesh<OpenDots<false>>, to: usize, from: PeerId, bytes: &[u8]) {
    let now = m.net.now();
    m.players[to]
        .session
        .handle_datagram(now, from, Channel::Reliable, bytes);
}

#[test]
fn a_join_ready_out_of_turn_changes_nothing() {
    in_both_modes(|mode| {
        let mut m =
            mesh_after_a_leave::<OpenDots<false>>(mode, 0x4ead_0001, common::mild_link(), 3, 1500);
        let stranger = PeerId(77);
        for t in [0, 1500, u32::MAX] {
            inject(&mut m, 0, member_id(1), &ready(t));
            inject(&mut m, 1, member_id(0), &ready(t));
            inject(&mut m, 0, stranger, &ready(t));
        }
        m.run_frames(120);
        for i in [0, 1] {
            assert!(m.players[i].outcome().is_none(), "{}", m.progress());
            assert!(joins_seen(&m, i).is_empty());
        }
        let joiner = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
            .expect("a valid configuration");
        // While the host lets it in: readies for other ticks on its link,
        // and for any tick near the host's from a link that is not it.
        for _ in 0..5 {
            m.step_frame();
            let near = m.players[0].confirmed_tick();
            inject(&mut m, 0, member_id(joiner), &ready(0));
            inject(&mut m, 0, member_id(joiner), &ready(u32::MAX));
            for t in near.saturating_sub(8)..near + 8 {
                inject(&mut m, 0, stranger, &ready(t));
            }
        }
        m.run_frames(300);
        let tick = joins_seen(&m, 0).first().map(|&(_, t)| t).expect("joined");
        assert!(m.players[joiner].tick() > tick, "{}", m.progress());
        // Once in, its link is a player's: a ready there is dropped.
        let near = m.players[0].confirmed_tick();
        for t in [0, tick, near] {
            inject(&mut m, 0, member_id(joiner), &ready(t));
            inject(&mut m, 1, member_id(joiner), &ready(t));
        }
        m.run_frames(300);
        for i in [0, 1, joiner] {
            assert!(m.players[i].outcome().is_none(), "{}", m.progress());
            assert_eq!(joins_seen(&m, i), [(2, tick)], "player {i}");
        }
        let want = if mode == Mode::LockStep { 300 } else { 30 };
        assert_players_agree(&m, &[0, 1, joiner], want);
    });
}
