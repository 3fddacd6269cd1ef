//! The examples' harness functions (what the example binaries run), checked:
//! both peers agree, logs replay, bad input is refused cleanly.

use lockstep::{DeterministicGame, InputLog, Millis, Outcome};
use lockstep_examples::simulated::SimulatedOptions;
use lockstep_examples::{
    play_loopback, play_simulated, replay_log, MatchConfig, MatchReport, ReplayFailure,
};
use netsim::LinkConfig;

fn simulated(cfg: &MatchConfig, link: LinkConfig, net_seed: u64) -> MatchReport {
    play_simulated(cfg, link, net_seed, &mut |_| {})
}

/// Both reached the target with equal hashes, and the match then ended
/// with the host leaving.
fn assert_clean_match(r: &MatchReport) {
    assert!(
        r.in_sync(),
        "not in sync: {:?} / {:?}",
        r.host.hash_at_target,
        r.guest.hash_at_target
    );
    assert!(r.host.ticks >= r.config.ticks && r.guest.ticks >= r.config.ticks);
    assert_eq!(r.host.outcome, Some(Outcome::LocalQuit));
    assert_eq!(r.guest.outcome, Some(Outcome::RemoteQuit));
}

#[test]
fn loopback_example_agrees_at_tick_3600_without_stalls() {
    let r = play_loopback(&MatchConfig::default());
    assert_clean_match(&r);
    assert_eq!(r.host.stats.stalled_frames, 0);
    assert_eq!(r.guest.stats.stalled_frames, 0);
    // One frame per tick, plus the handshake frame and the input delay.
    assert!(r.frames <= 3600 + 10, "{} frames", r.frames);
    // The in-band checks ran too: pings were answered.
    assert!(r.host.rtt.samples > 100);
    // The hash is the game's, not an artefact of the driver: replaying the
    // host's log offline gives the same.
    let bytes = r.host.log.to_bytes().unwrap();
    let replay = replay_log(&bytes).unwrap();
    assert_eq!(replay.ticks, r.host.ticks);
    assert_eq!(replay.hash, r.host.log.final_hash);
    // The host may have run a tick or two past the target while the guest
    // caught up: replay both logs to the target tick itself.
    assert_eq!(r.host.target_tick, Some(3600));
    for log in [&r.host.log, &r.guest.log] {
        assert_eq!(Some(hash_after(log, 3600)), r.host.hash_at_target);
    }
}

/// The state hash after replaying the first `ticks` ticks of `log` (which
/// must hold that many).
fn hash_after(log: &InputLog<u8>, ticks: u32) -> u64 {
    assert!(log.ticks() >= ticks, "{} ticks logged", log.ticks());
    let mut head = log.clone();
    head.inputs
        .truncate(ticks as usize * usize::from(log.players));
    // Cannot fail: the log was recorded by a dots session (same build id)
    // and keeps whole ticks.
    head.replay_game::<dots::Dots>()
        .expect("a dots log replays")
        .state_hash()
}

#[test]
fn simulated_example_defaults_stay_in_sync_and_frugal() {
    let o = SimulatedOptions::default();
    let r = simulated(&o.game, o.link, o.net_seed);
    assert_clean_match(&r);
    // The conditions make themselves felt ...
    let [hg, gh] = r.link.unwrap();
    assert!(hg.lost > 100 && gh.lost > 100);
    assert!(hg.duplicated > 0 && hg.reordered > 0);
    let rtt = r.host.rtt.mean.unwrap();
    assert!((80..=130).contains(&rtt.0), "mean rtt {rtt:?}");
    // ... and the engine copes: few stalls, about one packet per tick.
    assert!(r.host.stats.stalled_frames < 30);
    assert!(r.per_second(r.host.packets_sent()) <= 64.0);
    assert!(r.per_second(r.host.bytes_sent()) < 1000.0);
}

#[test]
fn simulated_example_survives_a_bad_link() {
    let link = LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        loss_percent: 25,
        duplicate_percent: 5,
        reorder_percent: 5,
        ..LinkConfig::default()
    };
    let cfg = MatchConfig {
        ticks: 1200,
        input_delay: 8,
        ..MatchConfig::default()
    };
    let r = simulated(&cfg, link, 7);
    assert_clean_match(&r);
    assert!(
        r.host.stats.stalled_frames > 0,
        "25% loss should stall a little"
    );
}

#[test]
fn same_seeds_same_match() {
    let cfg = MatchConfig {
        ticks: 600,
        ..MatchConfig::default()
    };
    let link = SimulatedOptions::default().link;
    let a = simulated(&cfg, link, 3);
    let b = simulated(&cfg, link, 3);
    assert_eq!(a, b);
    // Another network seed changes the traffic, not the game.
    let c = simulated(&cfg, link, 4);
    assert_ne!(a.link, c.link);
    assert_eq!(a.host.hash_at_target, c.host.hash_at_target);
}

#[test]
fn a_dead_link_ends_the_match_instead_of_hanging() {
    let link = LinkConfig {
        loss_percent: 100,
        ..LinkConfig::default()
    };
    let r = simulated(&MatchConfig::default(), link, 1);
    assert!(!r.in_sync());
    assert_eq!(r.host.ticks, 0);
    // Every reliable Hello is lost: the link fails and both sides see it.
    assert_eq!(r.host.outcome, Some(Outcome::TransportLost));
    assert_eq!(r.guest.outcome, Some(Outcome::TransportLost));
}

#[test]
fn saved_log_replays_and_bad_logs_are_refused() {
    let cfg = MatchConfig {
        ticks: 900,
        ..MatchConfig::default()
    };
    let r = simulated(&cfg, SimulatedOptions::default().link, 11);
    assert_clean_match(&r);
    let bytes = r.host.log.to_bytes().unwrap();
    let replay = replay_log(&bytes).unwrap();
    assert_eq!(replay.seed, cfg.seed);
    assert_eq!(replay.ticks, r.host.ticks);
    assert_eq!(replay.hash, r.host.log.final_hash);
    // The guest recorded the same match: its log replays to its own final
    // hash, and both logs give the hash both sides saw at the target tick.
    let guest = replay_log(&r.guest.log.to_bytes().unwrap()).unwrap();
    assert_eq!(guest.ticks, r.guest.ticks);
    assert_eq!(r.host.target_tick, Some(cfg.ticks));
    for log in [&r.host.log, &r.guest.log] {
        assert_eq!(Some(hash_after(log, cfg.ticks)), r.host.hash_at_target);
    }

    assert!(matches!(replay_log(b""), Err(ReplayFailure::Decode(_))));
    assert!(matches!(
        replay_log(&bytes[..bytes.len() - 1]),
        Err(ReplayFailure::Decode(_))
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(replay_log(&longer), Err(ReplayFailure::Decode(_))));
    // A tampered final hash is caught by the replay.
    let mut log = r.host.log.clone();
    log.final_hash ^= 1;
    assert!(matches!(
        replay_log(&log.to_bytes().unwrap()),
        Err(ReplayFailure::Replay(_))
    ));
    // Every truncation of a short log is refused without a panic.
    let short = play_loopback(&MatchConfig {
        ticks: 30,
        ..MatchConfig::default()
    });
    let bytes = short.host.log.to_bytes().unwrap();
    for cut in 0..bytes.len() {
        assert!(replay_log(&bytes[..cut]).is_err());
    }
}

#[test]
fn render_grid_shows_dots_coin_and_scores() {
    let game = dots::Dots::new(5, 2);
    let text = lockstep_examples::render_grid(&game);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), usize::from(dots::HEIGHT) + 1);
    assert!(lines[..usize::from(dots::HEIGHT)]
        .iter()
        .all(|l| l.len() == usize::from(dots::WIDTH)));
    let p0 = game.players()[0];
    assert_eq!(lines[usize::from(p0.y)].as_bytes()[usize::from(p0.x)], b'0');
    assert_eq!(text.matches('$').count(), 1);
    assert!(lines[usize::from(dots::HEIGHT)].contains("player 1: 0"));
}
