//! Shared pieces of NtBA's networked scenario tests: a whole match for
//! three or four people, each person a CPU at its own session, every pair
//! of sessions joined by its own simulated link (a full mesh), driven in
//! virtual time by `lockstep-testing`.
#![allow(dead_code)] // each test file uses a different part of this module

use lockstep::{DeterministicGame, Event, InputLog, SessionConfig};
use lockstep_testing::{Member, Mode, Net, PadSource, Player, SimLink};
use netsim::LinkConfig;
use ntba::{Cpu, Lineup, Ntba, Pad};

/// A person played by the CPU: it drives its pad slot's court player,
/// looking at its own session's present state as a person looks at the
/// screen.
pub struct CpuSlot {
    cpu: Cpu,
    slot: u8,
}

impl CpuSlot {
    /// The CPU of pad slot `slot`, its choices seeded by `seed`.
    pub fn new(seed: u64, slot: u8) -> Self {
        CpuSlot {
            cpu: Cpu::new(seed),
            slot,
        }
    }
}

impl PadSource<Ntba> for CpuSlot {
    const LOOKS: bool = true;

    fn next_pad(&mut self, game: Option<&Ntba>) -> Pad {
        game.map_or(Pad::NONE, |g| self.cpu.pad_for_slot(g, self.slot))
    }
}

/// How a whole networked match ended.
#[derive(Debug)]
pub struct Finish {
    /// The tick of the final whistle, found by replaying the final inputs.
    pub tick: u32,
    /// The state hash at that tick.
    pub hash: u64,
    /// The final score (Home, Away).
    pub score: [u16; 2],
    /// Frames the driver ran.
    pub frames: u64,
    /// Final ticks at which two players' recorded hashes were compared.
    pub compared: usize,
    /// Stalled frames, by player.
    pub stalled: Vec<u64>,
}

/// Plays a whole NtBA match of `lineup.people()` people in `mode` over a
/// full mesh of `link`s (player 0 hosts with `input_delay`; the match seed
/// carries the line-up), until every player's confirmed state has reached
/// the final whistle, then checks that they played the same match:
///
/// * nothing ended any session (no desync, no timeout);
/// * every two players agree on the state at every final tick both
///   recorded, and each compared its hashes in band with every peer;
/// * their final inputs agree, each one's input log replays to its own
///   confirmed state, and the replay reaches the final whistle on the same
///   tick, with the same score, as every player's confirmed game.
pub fn play_whole_match(
    lineup: Lineup,
    mode: Mode,
    link: LinkConfig,
    net_seed: u64,
    input_delay: u8,
) -> Finish {
    let people = lineup.people();
    let seed = lineup.seed(0x5eed_0000 ^ net_seed);
    let host = mode
        .cfg(SessionConfig::host(seed, input_delay))
        .players(people);
    let guest = mode.cfg(SessionConfig::guest());
    let mut net = Net::<SimLink>::new();
    // Links open in member order, and the host gives slots in the order its
    // links open: member i plays slot i.
    let mut pair = 0u64;
    for a in 0..usize::from(people) {
        for b in a + 1..usize::from(people) {
            pair += 1;
            net.join(a, b, SimLink::new(link, net_seed * 97 + pair));
        }
    }
    let mut players: Vec<Player<Ntba, CpuSlot>> = (0..people)
        .map(|slot| {
            let cfg = if slot == 0 { host } else { guest };
            let session = lockstep::Session::new(cfg).expect("a valid configuration");
            Player::new(session, CpuSlot::new(net_seed * 31 + u64::from(slot), slot))
        })
        .collect();
    let over = |p: &Player<Ntba, CpuSlot>| p.confirmed_game().is_some_and(Ntba::is_over);
    // A match lasts about 15,000 ticks; allow for stalls on a bad link.
    let cap = 80_000;
    while net.frame < cap && !players.iter().all(over) {
        assert!(
            players.iter().all(|p| p.outcome().is_none()),
            "a session ended at frame {}: {:?}",
            net.frame,
            players.iter().map(|p| p.outcome()).collect::<Vec<_>>()
        );
        let mut members: Vec<&mut dyn Member> =
            players.iter_mut().map(|p| p as &mut dyn Member).collect();
        net.step_frame(&mut members);
    }
    // A few more frames for the last hash reports to cross.
    for _ in 0..120 {
        let mut members: Vec<&mut dyn Member> =
            players.iter_mut().map(|p| p as &mut dyn Member).collect();
        net.step_frame(&mut members);
    }
    let ticks: Vec<u32> = players.iter().map(|p| p.confirmed_tick()).collect();
    assert!(
        players.iter().all(over),
        "not over after {} frames: confirmed ticks {ticks:?}",
        net.frame
    );
    for (slot, p) in players.iter().enumerate() {
        assert_eq!(p.outcome(), None, "player {slot}");
        assert_eq!(p.side(), Some(slot as u8), "player {slot}'s slot");
        assert_eq!(p.game().map(Ntba::people), Some(people));
    }

    // Every pair agrees wherever both recorded a confirmed state.
    let mut compared = 0;
    for (i, a) in players.iter().enumerate() {
        for b in &players[i + 1..] {
            for (t, h) in &a.seen.hashes {
                if let Some(g) = b.seen.hashes.get(t) {
                    assert_eq!(h, g, "players disagree at tick {t}");
                    compared += 1;
                }
            }
        }
    }
    // In-band checks: every player compared hashes with each peer many
    // times over a match of about 250 seconds.
    for (slot, p) in players.iter().enumerate() {
        let matched = p
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, Event::HashMatched(_)))
            .count();
        assert!(
            matched >= 200 * (usize::from(people) - 1),
            "player {slot}: {matched} hash checks"
        );
    }

    // The same final inputs, each log replaying to its own confirmed state.
    let logs: Vec<InputLog<Pad>> = players.iter().map(|p| p.input_log()).collect();
    let shortest = logs.iter().map(|l| l.inputs.len()).min().unwrap_or(0);
    for (slot, log) in logs.iter().enumerate() {
        assert_eq!(log.players, people);
        assert_eq!(log.seed, seed);
        assert_eq!(
            log.inputs[..shortest],
            logs[0].inputs[..shortest],
            "player {slot}'s final inputs"
        );
        assert_eq!(
            log.replay::<Ntba>().map(|_| ()),
            Ok(()),
            "player {slot}'s log"
        );
    }

    // Replay the common inputs to the final whistle.
    let mut g = Ntba::new(seed, people);
    let mut tick = 0u32;
    for pads in logs[0].inputs[..shortest].chunks(usize::from(people)) {
        if g.is_over() {
            break;
        }
        g.step(pads);
        tick += 1;
    }
    assert!(
        g.is_over(),
        "the common inputs stop before the final whistle"
    );
    for (slot, p) in players.iter().enumerate() {
        let confirmed = p.confirmed_game().expect("a started match");
        assert_eq!(confirmed.score(), g.score(), "player {slot}'s score");
        assert_eq!(confirmed.winner(), g.winner(), "player {slot}'s winner");
        if let Some(h) = p.seen.hash_at(tick) {
            assert_eq!(h, g.state_hash(), "player {slot} at the final whistle");
        }
    }
    Finish {
        tick,
        hash: g.state_hash(),
        score: g.score(),
        frames: net.frame,
        compared,
        stalled: players.iter().map(|p| p.stats().stalled_frames).collect(),
    }
}

/// How a watched match went for its spectator.
#[derive(Debug)]
pub struct Watched {
    /// The host's confirmed tick when the spectator's link opened.
    pub joined_at: u32,
    /// The tick the spectator's catch-up replayed to.
    pub watching_from: u32,
    /// The host's last confirmed tick, where the spectator ended.
    pub last_tick: u32,
    /// Final ticks at which the spectator's state was compared with the
    /// host's.
    pub compared: usize,
    /// Frames the spectator ran more than a second behind the host.
    pub frames_far_behind: u64,
}

/// Two people, each a CPU at its own session, play a whole NtBA match in
/// `mode` over `link` (player 0 hosts with `input_delay`), and a
/// spectator with the default watch delay joins once the host has
/// confirmed `join_after` ticks (0: before the start), over a link of its
/// own to the host with the same conditions. When both players' confirmed
/// games reach the final whistle the host quits; then checks that:
///
/// * nothing ended any session before (no desync, no timeout);
/// * the spectator's catch-up replayed to a tick at or past its joining;
/// * it ends with `RemoteQuit` on the host's last confirmed tick, with the
///   host's state, past the final whistle with the host's score, and its
///   state agrees with the host's at every tick both recorded.
pub fn watch_whole_match(
    mode: Mode,
    link: LinkConfig,
    net_seed: u64,
    input_delay: u8,
    join_after: u32,
) -> Watched {
    use lockstep::Outcome;
    use lockstep_testing::member_id;

    let seed = 0x5eed_0000 ^ net_seed;
    let host = mode.cfg(SessionConfig::host(seed, input_delay));
    let guest = mode.cfg(SessionConfig::guest());
    let mut net = Net::<SimLink>::new();
    net.join(0, 1, SimLink::new(link, net_seed * 97 + 1));
    let mut players: Vec<Player<Ntba, CpuSlot>> = (0..2u8)
        .map(|slot| {
            let cfg = if slot == 0 { host } else { guest };
            let session = lockstep::Session::new(cfg).expect("a valid configuration");
            Player::new(session, CpuSlot::new(net_seed * 31 + u64::from(slot), slot))
        })
        .collect();
    let mut spectator: Option<Player<Ntba, CpuSlot>> = None;
    let mut joined_at = 0;
    let mut frames_far_behind = 0;
    let over = |p: &Player<Ntba, CpuSlot>| p.confirmed_game().is_some_and(Ntba::is_over);
    let cap = 80_000;
    while net.frame < cap && !players.iter().all(over) {
        if spectator.is_none() && players[0].confirmed_tick() >= join_after {
            let now = net.now();
            let fresh = SimLink::new(link, net_seed * 97 + 2);
            fresh.0.advance_to(now);
            net.join(0, 2, fresh);
            players[0].add_spectator(now, member_id(2));
            let session =
                lockstep::Session::new(SessionConfig::spectator()).expect("a valid configuration");
            spectator = Some(Player::new(session, CpuSlot::new(0, 0)));
            joined_at = players[0].confirmed_tick();
        }
        assert!(
            players
                .iter()
                .chain(&spectator)
                .all(|p| p.outcome().is_none()),
            "a session ended at frame {}: {:?}",
            net.frame,
            players
                .iter()
                .chain(&spectator)
                .map(|p| p.outcome())
                .collect::<Vec<_>>()
        );
        if let Some(s) = &spectator {
            if s.seen.started && s.tick() + 60 < players[0].confirmed_tick() {
                frames_far_behind += 1;
            }
        }
        let mut members: Vec<&mut dyn Member> =
            players.iter_mut().map(|p| p as &mut dyn Member).collect();
        if let Some(s) = spectator.as_mut() {
            members.push(s);
        }
        net.step_frame(&mut members);
    }
    assert!(
        players.iter().all(over),
        "not over after {} frames",
        net.frame
    );
    let mut spectator = spectator.expect("the spectator joined");
    let now = net.now();
    players[0].quit(now);
    for _ in 0..300 {
        let mut members: Vec<&mut dyn Member> =
            players.iter_mut().map(|p| p as &mut dyn Member).collect();
        members.push(&mut spectator);
        net.step_frame(&mut members);
    }
    let host = &players[0];
    assert_eq!(spectator.outcome(), Some(&Outcome::RemoteQuit));
    assert_eq!(spectator.side(), None, "a spectator has no slot");
    let watching_from = spectator
        .seen
        .events
        .iter()
        .find_map(|e| match e {
            Event::Watching { players: 2, tick } => Some(*tick),
            _ => None,
        })
        .expect("the spectator never watched");
    assert!(
        watching_from >= joined_at,
        "caught up to {watching_from}, joined at {joined_at}"
    );
    let last_tick = host.confirmed_tick();
    assert_eq!(spectator.tick(), last_tick, "the spectator stopped short");
    let (mine, theirs) = (
        spectator.game().expect("a watched match"),
        host.confirmed_game().expect("a started match"),
    );
    assert_eq!(
        mine.state_hash(),
        theirs.state_hash(),
        "another final state"
    );
    assert!(mine.is_over(), "the spectator never saw the final whistle");
    assert_eq!(mine.score(), theirs.score());
    let mut compared = 0;
    for (t, h) in &spectator.seen.hashes {
        if let Some(g) = host.seen.hashes.get(t) {
            assert_eq!(h, g, "the spectator and the host differ at tick {t}");
            compared += 1;
        }
    }
    Watched {
        joined_at,
        watching_from,
        last_tick,
        compared,
        frames_far_behind,
    }
}
