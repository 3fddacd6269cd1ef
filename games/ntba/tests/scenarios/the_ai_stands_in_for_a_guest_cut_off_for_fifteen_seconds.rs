//! A two-person NtBA match (each person a CPU at its own session, a link
//! of 30 ms ±5 with 2 % loss), in lock-step and in rollback. Twenty
//! seconds in, the guest's link is cut for fifteen seconds (long enough
//! for Away to win the ball and go up for a shot, whoever holds it at the
//! cut). The host benches
//! the guest's slot a quarter of a second into the silence
//! (`SessionConfig::bench_after`; NtBA plays on while a slot is held), so
//! it stalls a few frames, not fifteen seconds: the slot plays `Pad::ABSENT`
//! and the built-in AI plays Away meanwhile (its court players run, and
//! it takes shots). Then the guest's fresh session rejoins with its token,
//! gets its slot back at a tick both agree on, and its own pads count
//! again. Host and rejoiner agree on every tick both hashed, and both
//! logs replay (the rejoiner's from the host's saved state).
use crate::common;

use common::CpuSlot;
use lockstep::{DeterministicGame, Event, Millis, SessionConfig};
use lockstep_testing::{in_both_modes, Member, Mode, Net, Player, SimLink};
use netsim::LinkConfig;
use ntba::{Event as Play, Ntba, Pad};

type Side = Player<Ntba, CpuSlot>;

fn step(net: &mut Net<SimLink>, players: &mut [Side]) {
    let mut members: Vec<&mut dyn Member> =
        players.iter_mut().map(|p| p as &mut dyn Member).collect();
    net.step_frame(&mut members);
}

/// The ticks of the events `pick` finds in `p`'s events.
fn ticks_of(p: &Side, pick: impl Fn(&Event) -> Option<u32>) -> Vec<u32> {
    p.seen.events.iter().filter_map(pick).collect()
}

fn scenario(mode: Mode) {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        loss_percent: 2,
        ..LinkConfig::default()
    };
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let seed = 0xab5e_47a1;
    let host = mode.cfg(
        SessionConfig::host(seed, delay)
            .rejoin_entropy(0xab5e_2026)
            .bench_after(Millis(250)),
    );
    let guest = mode.cfg(SessionConfig::guest());
    let mut net = Net::<SimLink>::new();
    net.join(0, 1, SimLink::new(link, 1));
    let mut players: Vec<Side> = (0..2u8)
        .map(|slot| {
            let cfg = if slot == 0 { host } else { guest };
            let session = lockstep::Session::new(cfg).expect("a valid configuration");
            Player::new(session, CpuSlot::new(0x91 + u64::from(slot), slot))
        })
        .collect();
    let twenty_seconds = 20 * 60;
    while players[1].confirmed_tick() < twenty_seconds && net.frame < 5_000 {
        step(&mut net, &mut players);
    }
    assert!(players.iter().all(|p| p.outcome().is_none()));

    // The guest's link is cut for fifteen seconds: the host plays on.
    let stalled_before = players[0].stats().stalled_frames;
    let tick_before = players[0].confirmed_tick();
    if let Some(l) = net.link(0, 1) {
        l.0.sever_both();
    }
    for _ in 0..900 {
        step(&mut net, &mut players);
    }
    let stalled = players[0].stats().stalled_frames - stalled_before;
    assert!(stalled <= 30, "the host stalled {stalled} frames");
    assert!(players[0].confirmed_tick() >= tick_before + 840);
    let benched = ticks_of(&players[0], |e| match e {
        Event::Benched { slot: 1, tick } => Some(*tick),
        _ => None,
    });
    assert_eq!(benched.len(), 1, "{:?}", players[0].seen.events);
    let benched = benched[0];

    // The guest's page comes back: a fresh session rejoins its slot with
    // the old one's token, over the link restored.
    let token = players[1].rejoin_token().expect("a token from the host");
    let session = lockstep::Session::new(guest.rejoin(1, token)).expect("a valid configuration");
    let now = net.now();
    if let Some(l) = net.link_mut(0, 1) {
        *l = SimLink::new(link, 2);
        l.0.advance_to(now);
    }
    let old = std::mem::replace(&mut players[1], Player::new(session, CpuSlot::new(0x92, 1)));
    let back = net.frame;
    let unbenched = |p: &Side| {
        ticks_of(p, |e| match e {
            Event::Unbenched { slot: 1, tick } => Some(*tick),
            _ => None,
        })
    };
    while !(players[1].is_running() && unbenched(&players[0]).len() == 1) {
        assert!(net.frame < back + 600, "not back by frame {}", net.frame);
        step(&mut net, &mut players);
    }
    let handed_back = unbenched(&players[0])[0];
    assert!(handed_back > benched + 840, "{benched} {handed_back}");
    assert!(players[1]
        .seen
        .events
        .iter()
        .any(|e| matches!(e, Event::Rejoined { .. })));
    let until = players[0].confirmed_tick() + 20 * 60;
    while players.iter().any(|p| p.confirmed_tick() < until) && net.frame < back + 5_000 {
        step(&mut net, &mut players);
    }
    assert!(
        players.iter().all(|p| p.outcome().is_none()),
        "{:?}",
        players.iter().map(|p| p.outcome()).collect::<Vec<_>>()
    );
    assert!(players.iter().all(|p| p.confirmed_tick() >= until));

    // The host's record: Away's pad slot played `Pad::ABSENT` from the
    // bench to the hand-back, then the guest's own pads.
    let log = players[0].input_log();
    assert_eq!(log.replay::<Ntba>(), Ok(log.final_hash));
    let away = |t: u32| log.inputs[t as usize * 2 + 1];
    assert!((benched..handed_back).all(|t| away(t) == Pad::ABSENT));
    assert!((0..benched).all(|t| away(t) != Pad::ABSENT));
    assert!((handed_back..handed_back + 600).all(|t| away(t) != Pad::ABSENT));
    assert!((handed_back..handed_back + 600).any(|t| away(t) != Pad::NONE));

    // Meanwhile the AI played Away: replay the bench from the host's
    // record and watch Away's court players.
    let mut g = log.game_at::<Ntba>(benched).expect("the host's record");
    let (mut moved, mut shots) = (0u32, 0u32);
    for t in benched..handed_back {
        let before = [g.player(2), g.player(3)];
        g.step(&log.inputs[t as usize * 2..t as usize * 2 + 2]);
        assert_eq!(
            (g.pad_slot(2), g.pad_slot(3)),
            (None, None),
            "tick {t}: nobody drives Away"
        );
        let after = [g.player(2), g.player(3)];
        if before
            .iter()
            .zip(&after)
            .any(|(b, a)| (b.x, b.y) != (a.x, a.y))
        {
            moved += 1;
        }
        shots += g
            .events()
            .iter()
            .filter(|e| matches!(e, Play::Shot { player, .. } if *player >= 2))
            .count() as u32;
    }
    let ticks = handed_back - benched;
    assert!(moved > ticks / 2, "Away moved on {moved} of {ticks} ticks");
    assert!(shots >= 1, "Away took {shots} shots");
    // And a person drives Away again once the slot is handed back.
    let g = log
        .game_at::<Ntba>(handed_back + 1)
        .expect("the host's record");
    assert_eq!(g.pad_slot(g.controlled(1)), Some(1));

    // Host and rejoiner agree on every tick both hashed; so did the old
    // session up to the cut.
    let mut compared = 0;
    for (t, h) in &players[1].seen.hashes {
        if let Some(o) = players[0].seen.hashes.get(t) {
            assert_eq!(h, o, "the rejoiner differs from the host at tick {t}");
            compared += 1;
        }
    }
    let want = if mode == Mode::LockStep { 600 } else { 200 };
    assert!(compared > want, "only {compared} ticks compared");
    for (t, h) in &old.seen.hashes {
        if let Some(o) = players[0].seen.hashes.get(t) {
            assert_eq!(h, o, "the old session differs from the host at tick {t}");
        }
    }
    // The rejoiner's log starts from the host's saved state and replays to
    // what the host's log gives at its last tick.
    let mine = players[1].input_log();
    assert!(mine.start_tick >= benched, "{}", mine.start_tick);
    assert_eq!(mine.replay::<Ntba>(), Ok(mine.final_hash));
    let at = mine.ticks().min(log.ticks());
    assert!(at > handed_back + 600, "{at}");
    assert_eq!(
        mine.game_at::<Ntba>(at).map(|g| g.state_hash()),
        log.game_at::<Ntba>(at).map(|g| g.state_hash()),
        "at tick {at}"
    );
    eprintln!(
        "{mode:?}: host stalled {stalled} frames over the cut; benched at {benched}, handed \
         back at {handed_back}; Away moved on {moved} of {ticks} ticks and took {shots} shots; \
         {compared} ticks compared"
    );
}

#[test]
fn the_ai_stands_in_for_a_guest_cut_off_for_fifteen_seconds() {
    in_both_modes(scenario);
}
