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
