//! A match of two in a game that plays a held slot on. The guest's page
//! is blocked for 7 s: the host drops its slot after 5 s of silence,
//! benches it and plays on. Then the guest's page reloads and its fresh
//! session rejoins with its token; the host sets the return a little
//! ahead of its present, so that nobody waits for the newcomer. Right
//! after it entered, the newcomer's page is blocked again for three
//! quarters of a second while the host plays on to the return. The inputs
//! and hashes it then reads reach far past its own present, though no
//! further than the host may go before the return: it takes them, catches
//! up, and both play on in sync, in both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, mild_link, Mode};
use lockstep::SessionConfig;
use lockstep_testing::{BenchDots, Mesh};

#[test]
fn a_rejoiner_slow_after_its_catch_up_takes_the_inputs_up_to_its_return() {
    in_both_modes(play);
}

/// Runs frames with player `i` blocked for `frames` frames.
fn blocked(m: &mut Mesh<BenchDots>, i: usize, frames: u64) {
    m.players[i].busy = true;
    m.run_frames(frames);
    m.players[i].busy = false;
}

fn play(mode: Mode) {
    let host = SessionConfig::host(0x510e, 4).rejoin_entropy(0x510e_2026);
    let mut m = Mesh::<BenchDots>::new(
        2,
        mode.cfg(host),
        mode.cfg(SessionConfig::guest()),
        mild_link(),
        0x510e,
    );
    assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
    assert_eq!(m.players[1].outcome(), None, "{}", m.progress());

    blocked(&mut m, 1, 420);
    m.reload(1).expect("a valid configuration");
    let back = m.net.frame;
    while !m.players[1].is_running() {
        assert!(m.net.frame < back + 300, "not back: {}", m.progress());
        m.step_frame();
    }
    let entered = m.players[1].confirmed_tick();
    blocked(&mut m, 1, 45);
    let from = m.players[0].confirmed_tick();
    eprintln!(
        "{mode:?}: entered at tick {entered}, the host at {from} after the guest's blocked stretch"
    );
    assert!(
        m.run_to_confirmed(from + 600, m.net.frame + 3000),
        "{}",
        m.progress()
    );
    for p in &m.players {
        assert_eq!(p.outcome(), None, "{}", m.progress());
    }
    let ticks = assert_players_agree(&m, &[0, 1], 200);
    assert!(ticks as u32 >= from + 500, "{ticks} final ticks");
}
