//! Three players of a dots game that plays on when a player leaves and
//! takes new players into the slot left free. One player's links are cut
//! for good; the other two wait out the rejoin window and play on with
//! its slot on the neutral input. Then a new page asks to join: the host
//! orders the change at one tick, the newcomer replays the catch-up (every
//! input from tick 0), and from that tick the slot plays the newcomer's
//! inputs on every side. All three play on to the same hashes in
//! lock-step and in rollback, the newcomer's input log replays natively
//! to its state, the two that stayed never replay more than an ordinary
//! rollback, and the newcomer holds a rejoin token of its own.
use crate::common;

use common::{
    assert_players_agree, in_both_modes, joins_seen, mesh_after_a_leave, run_some_to_confirmed,
    Mode, OpenDots,
};
use lockstep::{Event, Outcome, SessionConfig};

#[test]
fn a_new_player_takes_a_free_slot_in_sync() {
    in_both_modes(|mode| {
        let link = common::lossy_link();
        let mut m = mesh_after_a_leave::<OpenDots<false>>(mode, 0x101e, link, 3, 1500);
        let old_token = m.players[2].rejoin_token();
        let joiner = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
            .expect("a valid configuration");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, joiner], 4000, 60 * 300),
            "{}",
            m.progress()
        );
        // Everyone saw the change once, for slot 2, at the same tick.
        let seen: Vec<Vec<(u8, u32)>> = [0, 1, joiner].iter().map(|&i| joins_seen(&m, i)).collect();
        let tick = seen[0]
            .first()
            .map(|&(_, t)| t)
            .expect("the host let it in");
        for s in &seen {
            assert_eq!(s, &[(2, tick)], "{seen:?}");
        }
        assert!(tick > 1500, "{tick}");
        assert_eq!(m.players[joiner].side(), Some(2));
        assert!(m.players[joiner]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Started { side: 2, .. })));
        // A token of its own: the one who left cannot come back with its.
        let token = m.players[joiner].rejoin_token();
        assert!(token.is_some_and(|t| t != 0));
        assert_ne!(token, old_token);
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::PlayerLeft { slot: 0 })
        );
        // The same states at every tick compared, the same inputs, each
        // log (the newcomer's from tick 0) replaying natively to its state.
        let want = if mode == Mode::LockStep { 1500 } else { 150 };
        let ticks = assert_players_agree(&m, &[0, 1, joiner], want);
        assert!(ticks >= 4000, "{ticks}");
        // The newcomer compared hashes with both others past the change.
        for i in [0, 1] {
            let n = m.players[joiner]
                .seen
                .hashes
                .iter()
                .filter(|(t, h)| **t > tick && m.players[i].seen.hashes.get(t) == Some(h))
                .count();
            assert!(n >= want / 2, "player {i}: {n} ticks past the join");
        }
        // Slot 2 played the neutral input from the leave to the join,
        // then the newcomer's own (which its pads changed).
        let log = m.players[0].input_log();
        let left = m.players[0]
            .seen
            .events
            .iter()
            .find_map(|e| match e {
                Event::Left { slot: 2, tick } => Some(*tick as usize),
                _ => None,
            })
            .expect("slot 2 left");
        let slot2: Vec<u8> = log.inputs.chunks(3).map(|t| t[2]).collect();
        assert!(slot2[left..tick as usize].iter().all(|&p| p == 0));
        assert!(slot2[tick as usize..].iter().any(|&p| p != 0));
        // The two that stayed never replayed the match.
        for p in &m.players[..2] {
            assert!(p.stats().max_rollback <= 12, "{}", p.stats().max_rollback);
        }
        // All three end on the same final state when the host quits.
        m.players[0].quit(m.net.now());
        let ends = m.run_until_all_end(m.net.frame + 600);
        assert_eq!(ends[1], Some(Outcome::RemoteQuit));
        assert_eq!(ends[joiner], Some(Outcome::RemoteQuit));
        let last = [0, 1, joiner]
            .iter()
            .map(|&i| m.players[i].confirmed_tick())
            .min()
            .unwrap_or(0);
        // The newest tick all three recorded (a confirmed tick that moved
        // on by two in one frame is not recorded on that side), near the
        // end.
        let both = m.players[0]
            .seen
            .hashes
            .keys()
            .rev()
            .copied()
            .find(|t| {
                [1, joiner]
                    .iter()
                    .all(|&i| m.players[i].seen.hash_at(*t).is_some())
            })
            .unwrap_or(0);
        assert!(
            both + 30 >= last,
            "last recorded by all: {both}, ended at {last}"
        );
        let finals: Vec<Option<u64>> = [0, 1, joiner]
            .iter()
            .map(|&i| m.players[i].seen.hash_at(both))
            .collect();
        assert!(
            finals.iter().all(|h| h.is_some() && *h == finals[0]),
            "{finals:?}"
        );
    });
}
