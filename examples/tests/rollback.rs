//! The examples' driver in rollback mode, with the delay picked from the
//! round trip and with fewer packets: both peers stay in sync, the driver's
//! replay of every confirmed tick agrees with the sessions, and the
//! prediction counters move the way the settings say they should.

use lockstep::{Millis, Outcome};
use lockstep_examples::basketball::{CpuBot, NtbaOptions, Predictor, ReleaseTaps};
use lockstep_examples::simulated::SimulatedOptions;
use lockstep_examples::{
    play, play_loopback, play_simulated, tick_goal, Goal, MatchConfig, MatchReport, NoObserver,
    SimLink,
};
use netsim::LinkConfig;
use ntba::Ntba;

fn simulated(cfg: &MatchConfig, link: LinkConfig, net_seed: u64) -> MatchReport {
    play_simulated(cfg, link, net_seed, &mut |_| {})
}

fn assert_clean(r: &MatchReport) {
    assert!(
        r.in_sync(),
        "not in sync: {:?}/{:?} at {:?}/{:?}, follow errors {}/{}",
        r.host.hash_at_target,
        r.guest.hash_at_target,
        r.host.target_tick,
        r.guest.target_tick,
        r.host.follow_errors,
        r.guest.follow_errors
    );
    assert_eq!(r.host.target_tick, Some(r.config.ticks));
    assert_eq!(r.host.outcome, Some(Outcome::LocalQuit));
    assert_eq!(r.guest.outcome, Some(Outcome::RemoteQuit));
    // The input logs hold confirmed ticks only and replay to the state the
    // session confirmed last.
    for p in r.peers() {
        assert_eq!(p.log.replay::<dots::Dots>(), Ok(p.log.final_hash));
    }
}

fn rollback(cfg: MatchConfig, window: u8, delay: u8) -> MatchConfig {
    MatchConfig {
        window,
        input_delay: delay,
        ..cfg
    }
}

#[test]
fn rollback_on_the_default_link_predicts_instead_of_stalling() {
    let o = SimulatedOptions::default();
    // The scripted dots players do not look at the game, so the inputs and
    // the hash at tick 3600 are the same in every mode with the same delay.
    let lockstep = simulated(&rollback(o.game, 0, 2), o.link, o.net_seed);
    let r = simulated(&rollback(o.game, 8, 2), o.link, o.net_seed);
    assert_clean(&lockstep);
    assert_clean(&r);
    assert_eq!(r.host.hash_at_target, lockstep.host.hash_at_target);
    assert_eq!(r.host.window, Some(8));
    assert_eq!(
        r.guest.window,
        Some(8),
        "the guest adopts the host's window"
    );
    // 2 ticks of delay cannot cover a 50 ms trip: lock-step stalls, rollback
    // predicts, and corrects what it guessed wrong.
    assert!(lockstep.host.stats.stalled_frames > 100);
    for p in r.peers() {
        assert!(p.stats.stalled_frames < 10, "{:?}", p.stats);
        assert!(p.stats.predicted_ticks > 1000, "{:?}", p.stats);
        assert!(p.stats.rollbacks > 50, "{:?}", p.stats);
        assert!(p.stats.resimulated_ticks >= p.stats.rollbacks);
        assert!(p.stats.max_rollback <= 8);
    }
    // Lock-step never predicts.
    assert_eq!(lockstep.host.stats.predicted_ticks, 0);
    assert_eq!(lockstep.host.stats.rollbacks, 0);
}

#[test]
fn rollback_survives_a_bad_link_and_every_window() {
    let link = LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        loss_percent: 25,
        duplicate_percent: 5,
        reorder_percent: 5,
        ..LinkConfig::default()
    };
    let base = MatchConfig {
        ticks: 1200,
        ..MatchConfig::default()
    };
    let reference = simulated(&rollback(base, 0, 3), link, 7);
    assert_clean(&reference);
    for window in [1, 2, 4, 8, 16] {
        let r = simulated(&rollback(base, window, 3), link, 7);
        assert_clean(&r);
        assert_eq!(r.host.hash_at_target, reference.host.hash_at_target);
        assert!(r.host.stats.max_rollback <= u32::from(window));
        // A wider window stalls less than lock-step on the same link.
        assert!(r.host.stats.stalled_frames < reference.host.stats.stalled_frames);
    }
}

#[test]
fn many_conditions_stay_in_sync_in_every_mode() {
    let mut seed = 0x5eed_u64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) % n
    };
    for case in 0..12 {
        let latency = next(150);
        let link = LinkConfig {
            latency: Millis(latency),
            jitter: Millis(next(latency.min(30) + 1)),
            loss_percent: next(30) as u8,
            duplicate_percent: next(5) as u8,
            reorder_percent: next(5) as u8,
            ..LinkConfig::default()
        };
        let cfg = MatchConfig {
            ticks: 600,
            seed: case,
            input_delay: 1 + next(6) as u8,
            window: [0, 2, 8][case as usize % 3],
            delay_from_rtt: case % 2 == 1,
            send_interval: 1 + (case % 4 == 3) as u8,
            max_hold: next(4) as u8,
        };
        let r = simulated(&cfg, link, case);
        assert!(r.in_sync(), "case {case}: {cfg:?} over {link:?}");
        assert_eq!(r.host.input_delay, r.guest.input_delay, "case {case}");
    }
}

#[test]
fn delay_from_the_round_trip_follows_the_link() {
    let cfg = MatchConfig {
        ticks: 600,
        delay_from_rtt: true,
        ..MatchConfig::default()
    };
    let near = LinkConfig::default();
    let far = LinkConfig {
        latency: Millis(120),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    let mut delays = Vec::new();
    for window in [0, 8] {
        for link in [near, far] {
            let r = simulated(&MatchConfig { window, ..cfg }, link, 3);
            assert!(r.in_sync());
            let d = r.host.input_delay.unwrap();
            assert_eq!(r.guest.input_delay, Some(d));
            delays.push(d);
        }
    }
    // Lock-step: 1 tick on a perfect link, more than 120 ms / 16.7 ms on a
    // 240 ms round trip; rollback picks less than lock-step on the same link.
    assert_eq!(delays[0], 1);
    assert!(delays[1] >= 8, "{delays:?}");
    assert!(delays[3] < delays[1], "{delays:?}");
}

#[test]
fn a_send_interval_of_two_halves_the_packets() {
    let o = SimulatedOptions::default();
    let cfg = MatchConfig {
        ticks: 1800,
        window: 8,
        input_delay: 2,
        // The baseline sends one Inputs packet every frame: no holding back.
        max_hold: 0,
        ..o.game
    };
    let every = simulated(&cfg, o.link, 5);
    let half = simulated(
        &MatchConfig {
            send_interval: 2,
            ..cfg
        },
        o.link,
        5,
    );
    assert_clean(&every);
    assert_clean(&half);
    assert_eq!(every.host.hash_at_target, half.host.hash_at_target);
    let (a, b) = (
        every.per_second(every.host.packets_sent()),
        half.per_second(half.host.packets_sent()),
    );
    assert!(a > 58.0 && b < 33.0, "{a} vs {b} packets per second");
}

#[test]
fn loopback_rollback_never_needs_to_predict() {
    let r = play_loopback(&MatchConfig {
        window: 8,
        ..MatchConfig::default()
    });
    assert_clean(&r);
    assert_eq!(r.host.stats.rollbacks + r.guest.stats.rollbacks, 0);
    assert_eq!(r.host.stats.stalled_frames, 0);
}

#[test]
fn ntba_in_rollback_mode_stays_in_sync_with_either_predictor() {
    // 3,000 ticks of CPU against CPU (a whole match is in the examples and
    // stage 30) at 1 tick of delay on a 40 ms link: the CPU changes its pad
    // often, so there is plenty to predict and correct.
    let link = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    let cfg = MatchConfig {
        ticks: 3_000,
        seed: 3,
        input_delay: 1,
        window: 8,
        ..MatchConfig::default()
    };
    let (done_ours, cap) = tick_goal::<Ntba>(cfg.ticks);
    let goal = Goal {
        done: &done_ours,
        cap,
    };
    let bots = [CpuBot::new(cfg.seed, 0), CpuBot::new(cfg.seed, 1)];
    let ours = play(
        &mut SimLink::new(link, 4),
        &cfg,
        bots,
        &goal,
        &mut NoObserver,
    );
    let (done_taps, cap) = tick_goal::<ReleaseTaps>(cfg.ticks);
    let goal = Goal {
        done: &done_taps,
        cap,
    };
    let bots = [CpuBot::new(cfg.seed, 0), CpuBot::new(cfg.seed, 1)];
    let taps = play(
        &mut SimLink::new(link, 4),
        &cfg,
        bots,
        &goal,
        &mut NoObserver,
    );
    assert!(ours.in_sync());
    assert!(taps.in_sync());
    // A guess never reaches a confirmed state: the same match either way.
    assert_eq!(ours.host.hash_at_target, taps.host.hash_at_target);
    for p in ours.peers() {
        assert_eq!(p.follow_errors, 0);
        assert!(p.stats.rollbacks > 100, "{:?}", p.stats);
        assert_eq!(p.log.replay::<Ntba>(), Ok(p.log.final_hash));
    }
    for p in taps.peers() {
        assert_eq!(p.follow_errors, 0);
        assert!(p.stats.rollbacks > 100, "{:?}", p.stats);
        assert_eq!(p.log.replay::<ReleaseTaps>(), Ok(p.log.final_hash));
    }
    println!(
        "NtBA, 40 ms +-10 ms, 5% loss, delay 1, window 8, 3,000 ticks: rollbacks {}/{} \
         with NtBA's predictor, {}/{} with release-taps",
        ours.host.stats.rollbacks,
        ours.guest.stats.rollbacks,
        taps.host.stats.rollbacks,
        taps.guest.stats.rollbacks
    );
}

#[test]
fn ntba_options_parse_the_session_flags() {
    let o = NtbaOptions::simulated()
        .parse(
            "--rollback 6 --delay-from-rtt --send-interval 2 --predictor release-taps --loss 20"
                .split(' ')
                .map(String::from),
        )
        .unwrap();
    assert_eq!((o.game.window, o.game.send_interval), (6, 2));
    assert!(o.game.delay_from_rtt);
    assert_eq!(o.predictor, Predictor::ReleaseTaps);
    assert_eq!(o.link.map(|l| l.loss_percent), Some(20));
    // The loopback has no link to configure.
    assert!(NtbaOptions::loopback()
        .parse(["--loss".to_string(), "5".to_string()])
        .is_err());
    assert!(NtbaOptions::loopback()
        .parse(["--predictor".to_string(), "psychic".to_string()])
        .is_err());
}

/// `dots` plus a step counter shared by every copy (`Rc`): `Clone` is not a
/// full save, so re-simulated ticks count twice.
#[derive(Clone)]
struct Leaky {
    dots: dots::Dots,
    steps: std::rc::Rc<std::cell::Cell<u64>>,
    seen: u64,
}

impl lockstep::DeterministicGame for Leaky {
    type Input = u8;
    const BUILD_ID: u64 = 77;
    fn new(seed: u64, players: u8) -> Self {
        Leaky {
            dots: dots::Dots::new(seed, players),
            steps: std::rc::Rc::default(),
            seen: 0,
        }
    }
    fn step(&mut self, inputs: &[u8]) {
        self.dots.step(inputs);
        self.steps.set(self.steps.get() + 1);
        self.seen = self.steps.get();
    }
    fn state_hash(&self) -> u64 {
        self.dots.state_hash() ^ self.seen
    }
}

struct Script(u8, u32);

impl lockstep_examples::Bot<Leaky> for Script {
    const LOOKS: bool = false;
    fn pad(&mut self, _game: Option<&Leaky>) -> u8 {
        self.1 += 1;
        dots::scripted_input(self.1 - 1, self.0)
    }
}

#[test]
fn a_game_that_is_not_rollback_safe_does_not_pass_for_in_sync() {
    let cfg = MatchConfig {
        ticks: 1200,
        input_delay: 1,
        window: 8,
        ..MatchConfig::default()
    };
    let (done, cap) = tick_goal::<Leaky>(cfg.ticks);
    let goal = Goal { done: &done, cap };
    let link = SimulatedOptions::default().link;
    let r = play(
        &mut SimLink::new(link, 2),
        &cfg,
        [Script(0, 0), Script(1, 0)],
        &goal,
        &mut NoObserver,
    );
    assert!(!r.in_sync());
    // The engine notices (a desync) or the driver's replay does.
    let desync = r
        .peers()
        .iter()
        .any(|p| matches!(p.outcome, Some(Outcome::Desync { .. })));
    let noticed = r.host.follow_errors + r.guest.follow_errors;
    assert!(desync || noticed > 0, "{:?} / {noticed}", r.host.outcome);
    println!(
        "leaky game: outcomes {:?} / {:?}, follow errors {noticed}",
        r.host.outcome, r.guest.outcome
    );
    // The same game in lock-step never re-simulates, so it stays in sync.
    let lockstep = play(
        &mut SimLink::new(link, 2),
        &MatchConfig { window: 0, ..cfg },
        [Script(0, 0), Script(1, 0)],
        &goal,
        &mut NoObserver,
    );
    assert!(lockstep.in_sync());
}
