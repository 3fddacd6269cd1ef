//! Hostile membership messages in a running three-player match: a guest
//! that sends another guest the host's question or a change, a change
//! nobody asked for from the host itself, and an answer to a question the
//! host never asked. Each receiver ends with `InvalidData {
//! UnexpectedRoster }` and tells the others (`RejectedByPeer`); no honest
//! player ever reports a desync.
use crate::common;

use common::{in_both_modes, Crowd};
use lockstep::wire::{Held, Message, Missing, Roster, RosterChange};
use lockstep::{Channel, Millis, Outcome, SessionConfig, Violation};
use lockstep_testing::{member_id, LinkConfig, Mesh};

fn encode(m: &Message<u8>) -> Vec<u8> {
    // Cannot fail: well-formed messages with u8 inputs always encode.
    m.encode().expect("valid messages encode")
}

/// A running three-player match.
fn running(mode: lockstep_testing::Mode) -> Mesh<Crowd> {
    let link = LinkConfig {
        latency: Millis(20),
        ..LinkConfig::default()
    };
    let mut m = Mesh::<Crowd>::new(
        3,
        mode.cfg(SessionConfig::host(2, 3)),
        mode.cfg(SessionConfig::guest()),
        link,
        2,
    );
    assert!(m.run_to_confirmed(200, 2000), "{}", m.progress());
    m
}

/// Feeds `msg` to player `to` as if it came from player `from`, runs a
/// second, and checks `to` refused it and nobody found a desync.
fn refused(mode: lockstep_testing::Mode, from: usize, to: usize, msg: &Message<u8>) {
    let mut m = running(mode);
    let now = m.net.now();
    m.players[to]
        .session
        .handle_datagram(now, member_id(from), Channel::Reliable, &encode(msg));
    m.run_frames(60);
    assert_eq!(
        m.players[to].outcome(),
        Some(&Outcome::InvalidData {
            violation: Violation::UnexpectedRoster
        }),
        "{msg:?}"
    );
    for (i, p) in m.players.iter().enumerate() {
        assert!(
            !matches!(p.outcome(), Some(Outcome::Desync { .. })),
            "player {i}: {:?}",
            p.outcome()
        );
    }
}

#[test]
fn membership_messages_out_of_turn_are_refused() {
    in_both_modes(|mode| {
        let question = Message::Missing(Missing { slot: 2, have: 10 });
        let change = Message::Roster(Roster {
            seq: 1,
            tick: 50,
            change: RosterChange::Neutral { slot: 2 },
        });
        // Only the host asks and orders.
        refused(mode, 1, 2, &question);
        refused(mode, 2, 1, &change);
        // A change with no question before it, even from the host.
        refused(mode, 0, 1, &change);
        // A question about the receiver's own slot.
        refused(mode, 0, 2, &question);
        // An answer the host never asked for.
        let answer = Message::Held(Held {
            slot: 2,
            first_tick: 0,
            pads: vec![],
        });
        refused(mode, 1, 0, &answer);
        // An acknowledgement of a change never made.
        refused(mode, 1, 0, &Message::RosterAck(1));
    });
}
