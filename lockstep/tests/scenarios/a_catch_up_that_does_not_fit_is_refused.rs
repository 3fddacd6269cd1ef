//! A rejoiner refuses a catch-up that does not fit the match with
//! `BadCatchUp`: garbage bytes while it comes, a run that leaves a gap, a
//! run for a slot beyond the match, and an end whose tick one slot's
//! inputs (or no run at all) do not reach. Each ends the rejoiner's session (telling the
//! host) and nothing else.
use crate::common;

use common::{catch_up_inputs, in_both_modes, rejoiner_after_the_hosts_hello, Mode};
use lockstep::wire::{CatchUp, CatchUpRun, Message};
use lockstep::{Channel, Millis, Outcome, PeerId, Violation};

fn run(slot: u8, first_tick: u32, pads: &[u8]) -> Vec<u8> {
    Message::<u8>::CatchUpRun(CatchUpRun {
        slot,
        first_tick,
        pads: pads.to_vec(),
    })
    .encode()
    .expect("a run encodes")
}

#[test]
fn a_catch_up_that_does_not_fit_is_refused() {
    in_both_modes(|mode| {
        let window = if mode == Mode::LockStep { 0 } else { 8 };
        let ([a, b], hash) = catch_up_inputs(100);
        let end = Message::<u8>::CatchUp(CatchUp {
            tick: 100,
            hash,
            roster: 0,
            spectators: vec![],
            neutral: 0,
        })
        .encode()
        .expect("encodes");
        let cases: Vec<(&str, Vec<Vec<u8>>)> = vec![
            ("garbage", vec![run(0, 0, &a), vec![15, 0, 0xff]]),
            ("a gap", vec![run(0, 0, &a[..50]), run(0, 60, &a[60..])]),
            ("slot 2 of 2", vec![run(0, 0, &a), run(2, 0, &b)]),
            (
                "short of the tick",
                vec![run(0, 0, &a), run(1, 0, &b[..90]), end.clone()],
            ),
            ("an end without runs", vec![end.clone()]),
        ];
        for (what, datagrams) in cases {
            let mut s = rejoiner_after_the_hosts_hello(window);
            for d in &datagrams {
                s.handle_datagram(Millis(40), PeerId(0), Channel::Reliable, d);
            }
            assert_eq!(
                s.outcome(),
                Some(&Outcome::InvalidData {
                    violation: Violation::BadCatchUp
                }),
                "{what}"
            );
            assert!(!s.is_running(), "{what}");
        }
    });
}
