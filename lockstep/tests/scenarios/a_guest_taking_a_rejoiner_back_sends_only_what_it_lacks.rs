//! Three players; guest 2's page reloads 15 s into the match. When guest
//! 1 takes the fresh session back, the rejoiner already holds guest 1's
//! inputs up to what the host had acknowledged when it asked guest 1
//! about slot 2 (the host's catch-up came later), so guest 1's stream to
//! it goes on from there instead of from tick 0.
//!
//! What that means in bytes: guest 1's pad changes one frame in three, so
//! a run of 128 inputs (what one packet carries at most) written from
//! tick 0 takes a 16-byte repeat mask and about 43 pads, over 60 bytes.
//! Going on from the host's acknowledgement, a packet carries the ticks
//! since then: the round trip to the host, the input delay and the time
//! the gathering took, a few dozen ticks at most here (links of 30 ms),
//! so at most 4 mask bytes and about 12 pads, plus a few bytes of header.
//! The test holds the unreliable datagrams guest 1 sends the rejoiner in
//! the 30 frames after it took it back below 40 bytes each (on average
//! within each frame, pings included).
use crate::common;

use common::{in_both_modes, rejoin_mesh};
use lockstep::{Event, Millis};
use lockstep_testing::LinkConfig;

#[test]
fn a_guest_taking_a_rejoiner_back_sends_only_what_it_lacks() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(30),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 3, 61, 0x3ee_2027, link, (4, 2));
        assert!(m.run_to_confirmed(900, 3000), "{}", m.progress());
        m.reload(2).expect("a guest's slot can be rejoined");
        let resumed = |m: &lockstep_testing::Mesh<common::Bench>| {
            m.players[1]
                .seen
                .events
                .contains(&Event::Resumed { slot: 2 })
        };
        let mut frames = 0;
        while !resumed(&m) {
            m.step_frame();
            frames += 1;
            assert!(frames < 600, "guest 1 never took slot 2 back");
        }
        let sent = |m: &lockstep_testing::Mesh<common::Bench>| {
            m.net
                .link(1, 2)
                .map(|l| l.0.outgoing_stats().sent.unreliable)
                .expect("guests 1 and 2 are linked")
        };
        let mut before = sent(&m);
        let mut largest = 0;
        for _ in 0..30 {
            m.step_frame();
            let now = sent(&m);
            let (packets, bytes) = (now.packets - before.packets, now.bytes - before.bytes);
            if let Some(each) = bytes.checked_div(packets) {
                largest = largest.max(each);
            }
            before = now;
        }
        assert!(
            largest < 40,
            "guest 1 sent the rejoiner a {largest}-byte datagram"
        );
        assert!(m.run_to_confirmed(1500, 3000), "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        common::assert_players_agree(&m, &[0, 1, 2], 10);
    });
}
