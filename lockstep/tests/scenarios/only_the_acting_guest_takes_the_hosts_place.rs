//! Four players of a game that plays on after a leave; the host's page is
//! gone for good. Forged moves of the host's place change nothing, each
//! refused on its link alone (the guest that gets it plays on, nobody's
//! host changes):
//! - before slot 0's window ran out: from guest 3 (not the acting guest)
//!   naming itself or guest 1, and from guest 1 itself out of turn (it
//!   has not asked about slot 0 yet) or naming another slot;
//! - once guest 1 asked about slot 0 and guest 2 answered (guest 1 still
//!   waits for guest 3, whose link to it is cut for a few seconds), from
//!   guest 3, every other field fitting what guest 2 holds;
//! - after guest 1 took the place, from guest 3 again.
//!
//! The real move then comes from guest 1 and everyone plays on in sync.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back, moves_seen};
use common::{assert_players_agree, in_both_modes, rejoin_mesh, run_some_to_confirmed, Mode};
use lockstep::wire::{Message, Roster, RosterChange};
use lockstep::Channel;
use lockstep_testing::member_id;

fn moved(seq: u16, tick: u32, host: u8) -> Vec<u8> {
    Message::<u8>::Roster(Roster {
        seq,
        tick,
        change: RosterChange::HostMoved { host },
    })
    .encode()
    .expect("a membership message encodes")
}

#[test]
fn only_the_acting_guest_takes_the_hosts_place() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 4, 171, 0x6b6b_2026, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        host_never_back(&mut m);
        m.run_frames(60 * 6);
        let tick = m.players[2].tick();
        let now = m.net.now();
        // Guest 3 claims the place, for itself or for guest 1; guest 1
        // claims it before its question, and names guest 3.
        for (from, host) in [(3, 3), (3, 1), (1, 1), (1, 3)] {
            m.players[2].handle_datagram(
                now,
                member_id(from),
                Channel::Reliable,
                &moved(1, tick, host),
            );
        }
        assert!(m.players[2].outcome().is_none(), "{}", m.progress());
        assert!(moves_seen(&m, 2).is_empty());
        assert_eq!(m.players[2].host_slot(), 0);
        // Slot 0 is dropped about 5 s after the host went, and its window
        // (20 s) runs out about 25 s after. Guest 3's link to guest 1 is
        // cut just before, so guest 1's gathering waits for its answer.
        m.run_frames(60 * 18);
        m.sever(1, 3);
        m.run_frames(60 * 3);
        assert!(moves_seen(&m, 2).is_empty(), "{}", m.progress());
        // Guest 2 was asked and answered: a move at the end of what it
        // holds of slot 0 (where its match stalls) would fit but for the
        // link it comes on.
        let (now, tick) = (m.net.now(), m.players[2].confirmed_tick());
        for host in [3, 1] {
            m.players[2].handle_datagram(
                now,
                member_id(3),
                Channel::Reliable,
                &moved(1, tick, host),
            );
        }
        assert!(moves_seen(&m, 2).is_empty());
        assert_eq!(m.players[2].host_slot(), 0);
        m.restore(1, 3);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2, 3], 2400, 60 * 120),
            "{}",
            m.progress()
        );
        assert_host_moved(&m, &[1, 2, 3], 1);
        // Once guest 1 is the host, guest 3 claims the place again.
        let (now, tick) = (m.net.now(), m.players[2].tick());
        m.players[2].handle_datagram(now, member_id(3), Channel::Reliable, &moved(2, tick, 3));
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2, 3], 3000, 60 * 200),
            "{}",
            m.progress()
        );
        m.run_frames(120);
        assert_host_moved(&m, &[1, 2, 3], 1);
        let want = if mode == Mode::LockStep { 1000 } else { 200 };
        assert_players_agree(&m, &[1, 2, 3], want);
    });
}
