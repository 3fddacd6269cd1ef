//! Three dots players that play a held slot on; guest 2's link to the
//! host is cut, its link to guest 1 stays. The host drops guest 2 after
//! its `bench_after` and benches the slot; guest 1, still hearing guest 2,
//! never saw it go, and learns of it from the bench order. That order
//! carries what is left of the slot's window, so guest 1 raises
//! `Dropped { slot: 2, held_for }` with the host's time left (a little
//! under the 20 s window: the bench follows the drop by a gathering),
//! just before `Benched`, and its page shows the same countdown.
use crate::common;

use common::{bench_mesh, benched_at, in_both_modes};
use lockstep::{Event, Millis};

#[test]
fn a_guest_that_hears_of_a_bench_first_shows_the_hosts_countdown() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 3, 229);
        m.sever(0, 2);
        let until = m.net.frame + 60 * 10;
        while benched_at(&m, 1, 2).is_empty() {
            assert!(m.net.frame < until, "{}", m.progress());
            m.step_frame();
        }
        let events = &m.players[1].seen.events;
        let dropped: Vec<(usize, Millis)> = events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                Event::Dropped { slot: 2, held_for } => Some((i, *held_for)),
                _ => None,
            })
            .collect();
        assert_eq!(dropped.len(), 1, "{events:?}");
        let (at, held_for) = dropped[0];
        assert!(
            held_for < Millis(20_000) && held_for > Millis(19_000),
            "{held_for:?}"
        );
        let bench = events
            .iter()
            .position(|e| matches!(e, Event::Benched { slot: 2, .. }));
        assert_eq!(bench, Some(at + 1), "{events:?}");
        assert!(m.players[1].outcome().is_none());
    });
}
