//! A rejoiner replays the host's catch-up and compares its state with the
//! host's hash: a catch-up that replays to another state is refused with
//! `CatchUpHashMismatch` (and the host told with `Bye(InvalidData)`); the
//! same catch-up with the right hash puts it back in the match at that
//! tick.
use crate::common;

use common::{catch_up_inputs, in_both_modes, rejoiner_after_the_hosts_hello, Mode};
use lockstep::wire::{ByeReason, CatchUp, CatchUpRun, Message};
use lockstep::{Channel, Event, Millis, Outcome, PeerId, Violation};

#[test]
fn a_catch_up_with_a_wrong_hash_is_refused() {
    in_both_modes(|mode| {
        let window = if mode == Mode::LockStep { 0 } else { 8 };
        let (inputs, hash) = catch_up_inputs(300);
        for wrong in [true, false] {
            let mut s = rejoiner_after_the_hosts_hello(window);
            for (slot, pads) in inputs.iter().enumerate() {
                for (i, c) in pads.chunks(128).enumerate() {
                    let run = Message::<u8>::CatchUpRun(CatchUpRun {
                        slot: slot as u8,
                        first_tick: (i * 128) as u32,
                        pads: c.to_vec(),
                    });
                    let bytes = run.encode().expect("a run encodes");
                    s.handle_datagram(Millis(40), PeerId(0), Channel::Reliable, &bytes);
                }
            }
            let sent = if wrong { hash ^ 1 } else { hash };
            let end = Message::<u8>::CatchUp(CatchUp {
                tick: 300,
                hash: sent,
                roster: 0,
                spectators: vec![],
                neutral: 0,
            });
            let bytes = end.encode().expect("encodes");
            s.handle_datagram(Millis(40), PeerId(0), Channel::Reliable, &bytes);
            let events: Vec<Event> = std::iter::from_fn(|| s.poll_event()).collect();
            if wrong {
                assert_eq!(
                    s.outcome(),
                    Some(&Outcome::InvalidData {
                        violation: Violation::CatchUpHashMismatch {
                            tick: 300,
                            local: hash,
                            remote: sent,
                        }
                    })
                );
                let bye = std::iter::from_fn(|| s.poll_transmit())
                    .filter_map(|(_, _, b)| Message::<u8>::decode(&b).ok())
                    .find(|m| matches!(m, Message::Bye(_)));
                assert_eq!(bye, Some(Message::Bye(ByeReason::InvalidData)));
            } else {
                assert_eq!(s.outcome(), None);
                assert!(
                    events.contains(&Event::Rejoined { tick: 300 }),
                    "{events:?}"
                );
                assert_eq!(s.tick(), 300);
                assert_eq!(s.side(), Some(1));
                assert_eq!(s.prediction_window(), Some(window));
                // It plays on from there: its own input for tick 300 is
                // sampled and sent.
                s.advance_frame(Millis(50), || 4);
                assert!(s.is_running());
            }
        }
    });
}
