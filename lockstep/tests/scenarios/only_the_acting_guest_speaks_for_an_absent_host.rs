//! While the host of a match of four is away, only guest 1 (the lowest
//! guest slot, acting for it) may ask about slot 0's inputs, hand them on
//! or order slot 0's return. The same messages from guest 3 are out of
//! place: the guest that gets them ends with `InvalidData {
//! UnexpectedRoster }`, as for any membership message not from the host.
use crate::common;

use common::{host_gone_for, in_both_modes, rejoin_mesh};
use lockstep::wire::{Held, Message, Missing, Roster, RosterChange};
use lockstep::{Channel, Outcome, Violation};
use lockstep_testing::member_id;

#[test]
fn only_the_acting_guest_speaks_for_an_absent_host() {
    let out_of_place = [
        Message::<u8>::Missing(Missing { slot: 0, have: 0 }),
        Message::Held(Held {
            slot: 0,
            first_tick: 0,
            pads: vec![1],
        }),
        Message::Roster(Roster {
            seq: 1,
            tick: 0,
            change: RosterChange::Returned { slot: 0, proof: 1 },
        }),
    ];
    for msg in out_of_place {
        in_both_modes(|mode| {
            let mut m = rejoin_mesh(mode, 4, 113, 0x5e6f_2026, common::mild_link(), (4, 2));
            assert!(m.run_to_confirmed(120, 3000), "{}", m.progress());
            host_gone_for(&mut m, 30);
            let bytes = msg.encode().expect("a membership message encodes");
            let now = m.net.now();
            // Guest 3's link to guest 2.
            m.players[2].handle_datagram(now, member_id(3), Channel::Reliable, &bytes);
            assert_eq!(
                m.players[2].outcome(),
                Some(&Outcome::InvalidData {
                    violation: Violation::UnexpectedRoster
                }),
                "{msg:?}"
            );
        });
    }
}
