//! A guest's page reloads two minutes into a two-person NtBA match (each
//! person a CPU, links of 50 ms ±10 with 5% loss), in lock-step and in
//! rollback. The host's catch-up is its saved confirmed state and the
//! inputs since, not every input from tick 0: the fresh session loads
//! it, checks the host's hash, plays on to the final whistle and ends on
//! the host's state, agreeing with it on every tick both hashed after the
//! rejoin. Its input log starts from that saved state and replays, from
//! it, to the state the host's log (from tick 0) gives at the same tick.
use crate::common;

use common::CpuSlot;
use lockstep::{DeterministicGame, Event, Millis, SessionConfig};
use lockstep_testing::{in_both_modes, Member, Mode, Net, Player, SimLink};
use netsim::LinkConfig;
use ntba::Ntba;

fn scenario(mode: Mode) {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    let delay = if mode == Mode::LockStep { 6 } else { 2 };
    let seed = 0x5a7e_4e7b;
    let host = mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(0x5a7e_2026));
    let guest = mode.cfg(SessionConfig::guest());
    let mut net = Net::<SimLink>::new();
    net.join(0, 1, SimLink::new(link, 1));
    let mut players: Vec<Player<Ntba, CpuSlot>> = (0..2u8)
        .map(|slot| {
            let cfg = if slot == 0 { host } else { guest };
            let session = lockstep::Session::new(cfg).expect("a valid configuration");
            Player::new(session, CpuSlot::new(0x77 + u64::from(slot), slot))
        })
        .collect();
    let step = |net: &mut Net<SimLink>, players: &mut Vec<Player<Ntba, CpuSlot>>| {
        let mut members: Vec<&mut dyn Member> =
            players.iter_mut().map(|p| p as &mut dyn Member).collect();
        net.step_frame(&mut members);
    };
    let two_minutes = 2 * 60 * 60;
    while players[1].confirmed_tick() < two_minutes && net.frame < 20_000 {
        step(&mut net, &mut players);
    }
    assert!(players.iter().all(|p| p.outcome().is_none()));

    // The guest's page reloads: a fresh session rejoins its slot with the
    // old one's token, over a fresh link.
    let token = players[1].rejoin_token().expect("a token from the host");
    let session = lockstep::Session::new(guest.rejoin(1, token)).expect("a valid configuration");
    let now = net.now();
    if let Some(l) = net.link_mut(0, 1) {
        *l = SimLink::new(link, 2);
        l.0.advance_to(now);
    }
    players[1] = Player::new(session, CpuSlot::new(0x78, 1));

    let over = |p: &Player<Ntba, CpuSlot>| p.confirmed_game().is_some_and(Ntba::is_over);
    while !players.iter().all(over) && net.frame < 80_000 {
        assert!(
            players.iter().all(|p| p.outcome().is_none()),
            "{:?}",
            players.iter().map(|p| p.outcome()).collect::<Vec<_>>()
        );
        step(&mut net, &mut players);
    }
    for _ in 0..120 {
        step(&mut net, &mut players);
    }
    assert!(players.iter().all(over), "not over by frame {}", net.frame);
    let back: Vec<u32> = players[1]
        .seen
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Rejoined { tick } => Some(*tick),
            _ => None,
        })
        .collect();
    assert_eq!(back.len(), 1, "{back:?}");
    assert!(back[0] >= two_minutes, "{back:?}");

    // The rejoiner's log starts from the host's state, reads back from its
    // bytes, and replays to what the host's log gives at its last tick.
    let mine = players[1].input_log();
    assert!(mine.start_tick >= two_minutes - 600, "{}", mine.start_tick);
    assert!(!mine.start_state.is_empty());
    let bytes = mine.to_bytes().expect("encodes");
    assert_eq!(lockstep::InputLog::from_bytes(&bytes).as_ref(), Ok(&mine));
    assert_eq!(mine.replay::<Ntba>(), Ok(mine.final_hash));
    let host_log = players[0].input_log();
    assert_eq!(host_log.replay::<Ntba>(), Ok(host_log.final_hash));
    let at = mine.ticks().min(host_log.ticks());
    assert!(at > mine.start_tick + 60 * 60, "{at}");
    assert_eq!(
        mine.game_at::<Ntba>(at).map(|g| g.state_hash()),
        host_log.game_at::<Ntba>(at).map(|g| g.state_hash()),
        "at tick {at}"
    );

    let mut compared = 0;
    for (t, h) in &players[1].seen.hashes {
        if let Some(g) = players[0].seen.hashes.get(t) {
            assert_eq!(h, g, "the rejoiner differs from the host at tick {t}");
            compared += 1;
        }
    }
    // Rollback hashes confirmed ticks less often.
    let want = if mode == Mode::LockStep { 3_000 } else { 1_000 };
    assert!(compared > want, "only {compared} ticks compared");
    // The final whistle's tick, from the host's record.
    let log = players[0].input_log();
    let mut g = Ntba::new(seed, 2);
    for pads in log.inputs.chunks(2) {
        if g.is_over() {
            break;
        }
        g.step(pads);
    }
    assert!(
        g.is_over(),
        "the host's record stops before the final whistle"
    );
    // Both hashed a tick past it, and agreed there (checked above).
    let last_common = players[1]
        .seen
        .hashes
        .keys()
        .rev()
        .find(|t| players[0].seen.hashes.contains_key(t))
        .copied()
        .unwrap_or(0);
    assert!(last_common >= g.tick(), "{last_common} < {}", g.tick());
    let (mine, theirs) = (
        players[1].confirmed_game().expect("a match"),
        players[0].confirmed_game().expect("a match"),
    );
    assert_eq!(mine.score(), g.score());
    assert_eq!(mine.score(), theirs.score());
    assert_eq!(mine.winner(), theirs.winner());
    eprintln!(
        "{mode:?}: rejoined at {}, {compared} ticks compared, final score {:?}",
        back[0],
        mine.score()
    );
}

#[test]
fn a_rejoiner_catches_up_from_a_saved_state() {
    in_both_modes(scenario);
}
