//! Two spectators of a two-player match of `Tiny` in both modes, over
//! links without loss: one with a watch delay of 0, one of 60 ticks. Each
//! runs one tick a frame, the first close behind the host, the second 60
//! ticks further behind. When the second's link is cut for three
//! seconds it plays on through the 60 ticks it holds, then stops; once
//! the link is back it catches up at two ticks a frame (the default
//! catch-up speed) until it is back within `max_frames_behind` (10 ticks)
//! of its delay, within a few seconds, and goes on at one a frame.
use crate::common;

use common::Tiny;
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{in_both_modes, Mesh};
use netsim::LinkConfig;

#[test]
fn a_spectator_watches_at_the_delay_it_chose() {
    let link = LinkConfig {
        latency: Millis(20),
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let host = mode.cfg(SessionConfig::host(1, 3));
        let guest = mode.cfg(SessionConfig::guest());
        let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 9);
        for (k, delay) in [0u8, 60].into_iter().enumerate() {
            mesh.add_spectator(
                SessionConfig::spectator().watch_delay(delay),
                link,
                30 + k as u64,
            )
            .expect("a valid spectator");
        }
        mesh.run_frames(600);
        let behind = |mesh: &Mesh<Tiny>, k: usize| {
            mesh.players[0].confirmed_tick() - mesh.spectators[k].tick()
        };
        // Behind by the delay, plus at most a send interval (6 frames)
        // and the link (2 frames), plus a frame either way.
        let (near, far) = (behind(&mesh, 0), behind(&mesh, 1));
        assert!(near <= 9, "the spectator with no delay is {near} behind");
        assert!((60..=69).contains(&far), "the one with 60 is {far} behind");
        let before_cut = mesh.spectators[1].tick();
        if let Some(l) = mesh.spectator_link(1) {
            l.0.sever_both();
        }
        mesh.run_frames(180);
        // The ticks in hand (its delay, and up to a send and the link's
        // worth more) played out, then it stopped.
        let in_cut = mesh.spectators[1].tick() - before_cut;
        assert!((60..=69).contains(&in_cut), "ran {in_cut} ticks cut off");
        let cut = behind(&mesh, 1);
        assert!(cut > 170, "{cut} behind after three seconds cut off");
        if let Some(l) = mesh.spectator_link(1) {
            l.0.heal_both();
        }
        let ticks_before = mesh.spectators[1].tick();
        mesh.run_frames(300);
        let back = behind(&mesh, 1);
        assert!(
            (60..=79).contains(&back),
            "{back} behind five seconds after"
        );
        // It caught up: more ticks than frames.
        let ran = mesh.spectators[1].tick() - ticks_before;
        assert!(ran > 300, "ran {ran} ticks in 300 frames");
        let most_per_frame = {
            let s = &mesh.spectators[1];
            let mut most = 0;
            let mut in_frame = 0;
            for e in &s.seen.events {
                match e {
                    Event::Ticked(_) => in_frame += 1,
                    Event::Stalled(_) => in_frame = 0,
                    _ => {}
                }
                most = most.max(in_frame);
            }
            most
        };
        assert!(most_per_frame >= 2);
    });
}
