//! Matches of more than two players, and a host with spectators.
//!
//! **Players.** GGRS's `P2PSession` with 2, 4 and 8 players in a full
//! mesh (every player one session with every other as a remote player,
//! each pair of players over a `netsim` link of its own with the
//! scenario's conditions; see [`crate::link_seed`]), beside our session
//! with the same players over the same links ([`run_mesh`]). Both engines
//! play `dots` (a dot per player), in both modes:
//!
//! * lock-step: GGRS's `max_prediction` 0 (its lock-step mode), our
//!   prediction window 0;
//! * rollback with equal limits: both may predict at most
//!   [`MeshSettings::ahead`] ticks past the last tick whose inputs are all
//!   known. GGRS advances only while fewer than `max_prediction` frames are
//!   unconfirmed, so it predicts at most `max_prediction - 1` ticks ahead;
//!   our `prediction_window(n)` predicts `n`. A limit of 8 is therefore
//!   our window 8 (as the session ships) against GGRS's `max_prediction`
//!   9 ([`MeshSettings::window`]).
//!
//! Both engines of a row use the same input delay (by default 6 ticks in
//! lock-step, our lock-step default, and 2 in rollback, as the rollback
//! tables of `docs/benchmarks.md` use). Every row of a scenario plays at
//! once in the real-time 60 Hz frame loop of the two-player comparison
//! (GGRS reads the wall clock), with the same schedule: every link's clock
//! moves to the elapsed wall-clock time, then each player in slot order
//! reads what arrived, runs its frame and sends.
//!
//! Our side (`ours_mesh`) plays two players with the pair of the
//! two-player comparison and more with the same peers in a full mesh.
//!
//! **Spectators.** A two-player match whose host also serves 0 to 16
//! spectators, each over a link of its own ([`run_spectators`]): ours
//! (`SessionConfig::spectator()` sessions, the host's stream paced as it
//! ships: confirmed ticks every sixth frame) or GGRS's (a host `P2PSession`
//! with `PlayerType::Spectator` links and `SpectatorSession`s): what the
//! host uploads to each spectator and in all, to say how many spectators a
//! host's uplink carries.

use std::fmt;
use std::time::Duration;

use lockstep::session::DEFAULT_MAX_HOLD_FRAMES;
use lockstep::wire::{MAX_INPUT_DELAY, MAX_PREDICTION_WINDOW};

use crate::ggrs_side::{GgrsMesh, GgrsSpectated, Spectated, SpectatedFigures};
use crate::ours_mesh::{self, Ours, OursSpectated};
use crate::{
    calibrate_clock, play, Contender, Engine, GameKind, PeerFigures, RunResult, RunSettings,
    Scenario, SyncCheck,
};

/// The player counts measured by default.
pub const PLAYER_COUNTS: [u8; 3] = [2, 4, 8];

/// The scenarios measured by default: (b) and (d) of
/// [`SCENARIOS`](crate::SCENARIOS).
pub const MESH_SCENARIOS: [char; 2] = ['b', 'd'];

/// The most spectators measured by default (every count from 1 up).
pub const MAX_SPECTATORS: u8 = 16;

/// How the players play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A tick runs only when every player's input for it is known.
    LockStep,
    /// Missing inputs are predicted, up to [`MeshSettings::ahead`] ticks.
    Rollback,
}

/// Both modes, lock-step first.
pub const MODES: [Mode; 2] = [Mode::LockStep, Mode::Rollback];

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::LockStep => "lock-step",
            Mode::Rollback => "rollback",
        })
    }
}

/// Which engine plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Our `lockstep::Session`.
    Ours,
    /// GGRS's `P2PSession`.
    Ggrs,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Ours => "ours",
            Side::Ggrs => "GGRS",
        })
    }
}

/// Everything a mesh or spectator run needs besides the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshSettings {
    /// The seed of the run's links (each link's own seed derives from it).
    pub net_seed: u64,
    /// The match seed.
    pub match_seed: u64,
    /// Input delay in lock-step, both engines.
    pub lockstep_delay: u8,
    /// Input delay in rollback, both engines.
    pub rollback_delay: u8,
    /// In rollback, the most ticks either engine may run past the last
    /// tick whose inputs are all known (see the module docs).
    pub ahead: u8,
    /// GGRS's desync-detection interval in frames (0 turns it off); 60,
    /// like our session's hash every 60 ticks.
    pub ggrs_desync_interval: u32,
    /// Wall-clock time to play.
    pub duration: Duration,
    /// End the run early once every row has confirmed this many ticks
    /// (for tests).
    pub until_confirmed: Option<u32>,
}

impl MeshSettings {
    /// Defaults: seeds 1, input delay 6 in lock-step and 2 in rollback, 8
    /// ticks ahead at most, GGRS desync detection every 60 frames.
    #[must_use]
    pub fn new(duration: Duration) -> Self {
        MeshSettings {
            net_seed: 1,
            match_seed: 1,
            lockstep_delay: 6,
            rollback_delay: 2,
            ahead: 8,
            ggrs_desync_interval: 60,
            duration,
            until_confirmed: None,
        }
    }

    /// The input delay of both engines in `mode`.
    #[must_use]
    pub fn input_delay(&self, mode: Mode) -> u8 {
        match mode {
            Mode::LockStep => self.lockstep_delay,
            Mode::Rollback => self.rollback_delay,
        }
    }

    /// The engine's own setting for `mode`: our prediction window, or
    /// GGRS's `max_prediction` (one more than the ticks it predicts).
    #[must_use]
    pub fn window(&self, side: Side, mode: Mode) -> u8 {
        match (mode, side) {
            (Mode::LockStep, _) => 0,
            (Mode::Rollback, Side::Ours) => self.ahead,
            (Mode::Rollback, Side::Ggrs) => self.ahead + 1,
        }
    }

    /// Checks the delays and the limit: delays at most lockstep's
    /// `MAX_INPUT_DELAY`; a limit from 1 up to one below lockstep's
    /// `MAX_PREDICTION_WINDOW`, so GGRS's `max_prediction` (one more)
    /// stays within the same bound.
    ///
    /// # Errors
    ///
    /// A description of the first setting out of range.
    pub fn check(&self) -> Result<(), String> {
        for delay in [self.lockstep_delay, self.rollback_delay] {
            if delay > MAX_INPUT_DELAY {
                return Err(format!(
                    "input delay {delay}: at most {MAX_INPUT_DELAY} ticks"
                ));
            }
        }
        if self.ahead == 0 || self.ahead >= MAX_PREDICTION_WINDOW {
            return Err(format!(
                "{} ticks ahead: from 1 to {} (GGRS's max_prediction is one more, \
                 and at most {MAX_PREDICTION_WINDOW})",
                self.ahead,
                MAX_PREDICTION_WINDOW - 1
            ));
        }
        Ok(())
    }

    /// The two-player harness's settings for one engine in `mode` over
    /// `scenario`.
    fn run_settings(&self, scenario: &Scenario, mode: Mode) -> RunSettings {
        RunSettings {
            link: scenario.link,
            net_seed: self.net_seed,
            match_seed: self.match_seed,
            input_delay: self.input_delay(mode),
            ggrs_desync_interval: self.ggrs_desync_interval,
            scripted_ntba: false,
            duration: self.duration,
            until_confirmed: self.until_confirmed,
        }
    }
}

/// One engine's players of one match size in one mode.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshResult {
    /// The scenario.
    pub scenario: Scenario,
    /// Players in the match.
    pub players: u8,
    /// The mode.
    pub mode: Mode,
    /// The engine.
    pub side: Side,
    /// The input delay both engines used.
    pub input_delay: u8,
    /// The engine's own setting ([`MeshSettings::window`]).
    pub window: u8,
    /// The figures (every player by slot in `peers`), or why this engine
    /// has no figures for this row yet.
    pub run: Result<RunResult, &'static str>,
}

impl MeshResult {
    /// The mean over the players of `f(run, player)`, and the highest.
    #[must_use]
    pub fn mean_and_worst(&self, f: impl Fn(&RunResult, usize) -> f64) -> Option<(f64, f64)> {
        let run = self.run.as_ref().ok()?;
        let values: Vec<f64> = (0..run.peers.len()).map(|i| f(run, i)).collect();
        let worst = values.iter().copied().fold(f64::NAN, f64::max);
        let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
        Some((mean, worst))
    }
}

/// Plays every player count of `players` in both modes, both engines, over
/// `scenario` for `settings.duration` of wall-clock time, every row at
/// once in one frame loop; rows by player count, then mode, ours before
/// GGRS.
///
/// # Errors
///
/// A setting out of range ([`MeshSettings::check`], a player count outside
/// 2 to 8), or one an engine refuses.
pub fn run_mesh(
    scenario: &Scenario,
    players: &[u8],
    settings: &MeshSettings,
) -> Result<Vec<MeshResult>, String> {
    settings.check()?;
    if let Some(n) = players.iter().find(|&&n| !(2..=8).contains(&n)) {
        return Err(format!("{n} players: from 2 to 8"));
    }
    let clock_nanos = calibrate_clock();
    let mut rows: Vec<Box<dyn Contender>> = Vec::new();
    // Each result and, if it runs, the index of its row.
    let mut planned = Vec::new();
    for &n in players {
        for mode in MODES {
            let run_settings = settings.run_settings(scenario, mode);
            for side in [Side::Ours, Side::Ggrs] {
                let window = settings.window(side, mode);
                let row = match side {
                    Side::Ours => ours_mesh::players(n, &run_settings, window)?,
                    Side::Ggrs => Ours::Ready(Box::new(GgrsMesh::<dots::Dots>::new(
                        &run_settings,
                        usize::from(window),
                        n,
                    )?)),
                };
                let slot = match row {
                    Ours::Ready(c) => {
                        rows.push(c);
                        Ok(rows.len() - 1)
                    }
                    Ours::NotYet(why) => Err(why),
                };
                planned.push((n, mode, side, run_settings.input_delay, window, slot));
            }
        }
    }

    let played = play(&mut rows, settings.duration, settings.until_confirmed);
    let end = played.end();
    let mut finished: Vec<Option<Vec<PeerFigures>>> =
        rows.into_iter().map(|c| Some(c.finish(end))).collect();
    Ok(planned
        .into_iter()
        .map(|(players, mode, side, input_delay, window, slot)| {
            let run = slot.map(|i| {
                let peers = finished[i].take().unwrap_or_default();
                let sync = SyncCheck::of(&peers);
                RunResult {
                    scenario: *scenario,
                    game: GameKind::Dots,
                    engine: match side {
                        Side::Ours => Engine::Ours {
                            window,
                            send_interval: 1,
                            max_hold: DEFAULT_MAX_HOLD_FRAMES,
                        },
                        Side::Ggrs => Engine::Ggrs { window },
                    },
                    seconds: played.seconds(),
                    frames: played.frames,
                    clock_nanos,
                    peers,
                    sync,
                }
            });
            MeshResult {
                scenario: *scenario,
                players,
                mode,
                side,
                input_delay,
                window,
                run,
            }
        })
        .collect())
}

/// A host with spectators (ours or GGRS's): what it sent them, and what
/// they saw.
#[derive(Debug, Clone, PartialEq)]
pub struct SpectatorResult {
    /// The scenario (every link, the players' and the spectators').
    pub scenario: Scenario,
    /// Whose sessions: ours (host, guest and spectators) or GGRS's.
    pub side: Side,
    /// Spectators served by the host.
    pub spectators: u8,
    /// The players' mode and GGRS's `max_prediction`.
    pub mode: Mode,
    /// GGRS's `max_prediction`.
    pub window: u8,
    /// The input delay.
    pub input_delay: u8,
    /// Host, then guest.
    pub players: Vec<PeerFigures>,
    /// Every spectator (`ticks` shown, `stalled` frames waiting for the
    /// host's inputs, its hash log).
    pub watchers: Vec<PeerFigures>,
    /// Datagrams the host sent to all spectators while running.
    pub to_spectators_packets: u64,
    /// Payload bytes the host sent to all spectators while running.
    pub to_spectators_bytes: u64,
    /// Datagrams the host sent to the guest while running.
    pub to_guest_packets: u64,
    /// Payload bytes the host sent to the guest while running.
    pub to_guest_bytes: u64,
    /// Whether every spectator showed the host's game, tick by tick.
    pub sync: SyncCheck,
}

impl SpectatorResult {
    /// Seconds the host ran (its handshake excluded).
    #[must_use]
    pub fn host_seconds(&self) -> f64 {
        self.players
            .first()
            .map_or(0.0, PeerFigures::running_seconds)
    }

    fn per_spectator_second(&self, count: u64) -> f64 {
        let s = self.host_seconds() * f64::from(self.spectators);
        if s > 0.0 {
            count as f64 / s
        } else {
            0.0
        }
    }

    fn per_second(&self, count: u64) -> f64 {
        let s = self.host_seconds();
        if s > 0.0 {
            count as f64 / s
        } else {
            0.0
        }
    }

    /// Datagrams per second the host sends each spectator (mean).
    #[must_use]
    pub fn packets_per_spectator(&self) -> f64 {
        self.per_spectator_second(self.to_spectators_packets)
    }

    /// Payload bytes per second the host sends each spectator (mean).
    #[must_use]
    pub fn payload_per_spectator(&self) -> f64 {
        self.per_spectator_second(self.to_spectators_bytes)
    }

    /// Payload plus 48 bytes per packet, per second, to each spectator.
    #[must_use]
    pub fn wire_per_spectator(&self) -> f64 {
        self.per_spectator_second(self.to_spectators_bytes + 48 * self.to_spectators_packets)
    }

    /// Payload plus 48 bytes per packet, per second, to the guest.
    #[must_use]
    pub fn wire_to_guest(&self) -> f64 {
        self.per_second(self.to_guest_bytes + 48 * self.to_guest_packets)
    }

    /// Datagrams per second the host sends in all (guest and
    /// spectators).
    #[must_use]
    pub fn host_packets(&self) -> f64 {
        self.per_second(self.to_guest_packets + self.to_spectators_packets)
    }

    /// Payload plus 48 bytes per packet, per second, the host sends in
    /// all (guest and spectators).
    #[must_use]
    pub fn host_wire(&self) -> f64 {
        let packets = self.to_guest_packets + self.to_spectators_packets;
        let bytes = self.to_guest_bytes + self.to_spectators_bytes;
        self.per_second(bytes + 48 * packets)
    }
}

/// Plays, over `scenario`, one two-player match of `side`'s sessions per
/// count in `counts`, its host serving that many spectators, all at once
/// in one frame loop, in `mode`. Our spectators are
/// `SessionConfig::spectator()` sessions with the default watch delay;
/// GGRS's are `SpectatorSession`s.
///
/// # Errors
///
/// A setting out of range, or a spectator count outside 1 to 30 (GGRS)
/// or 0 to 16 (ours).
pub fn run_spectators(
    scenario: &Scenario,
    counts: &[u8],
    mode: Mode,
    settings: &MeshSettings,
    side: Side,
) -> Result<Vec<SpectatorResult>, String> {
    settings.check()?;
    let run_settings = settings.run_settings(scenario, mode);
    let window = settings.window(side, mode);
    let mut rows = counts
        .iter()
        .map(|&k| -> Result<Box<dyn Spectated>, String> {
            Ok(match side {
                Side::Ggrs => Box::new(GgrsSpectated::<dots::Dots>::new(
                    &run_settings,
                    usize::from(window),
                    k,
                )?),
                Side::Ours => Box::new(OursSpectated::<dots::Dots>::new(&run_settings, window, k)?),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let played = play(&mut rows, settings.duration, settings.until_confirmed);
    Ok(counts
        .iter()
        .zip(rows)
        .map(|(&spectators, row)| {
            let SpectatedFigures {
                players,
                to_spectators,
                to_guest,
                spectators: watchers,
            } = row.finish(played.end());
            let sync = match players.first() {
                Some(host) => {
                    let mut all = vec![host.clone()];
                    all.extend(watchers.iter().cloned());
                    SyncCheck::of(&all)
                }
                None => SyncCheck::Agreed { ticks: 0 },
            };
            SpectatorResult {
                scenario: *scenario,
                side,
                spectators,
                mode,
                window,
                input_delay: run_settings.input_delay,
                players,
                watchers,
                to_spectators_packets: to_spectators.packets,
                to_spectators_bytes: to_spectators.bytes,
                to_guest_packets: to_guest.packets,
                to_guest_bytes: to_guest.bytes,
                sync,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_limits_give_ggrs_one_more_max_prediction() {
        let s = MeshSettings::new(Duration::ZERO);
        assert_eq!(s.window(Side::Ours, Mode::Rollback), 8);
        assert_eq!(s.window(Side::Ggrs, Mode::Rollback), 9);
        assert_eq!(s.window(Side::Ggrs, Mode::LockStep), 0);
        assert_eq!(s.window(Side::Ours, Mode::LockStep), 0);
        assert_eq!(
            (s.input_delay(Mode::LockStep), s.input_delay(Mode::Rollback)),
            (6, 2)
        );
    }

    #[test]
    fn limits_and_delays_out_of_range_are_refused() {
        let base = MeshSettings::new(Duration::ZERO);
        for bad in [
            MeshSettings { ahead: 0, ..base },
            MeshSettings {
                ahead: MAX_PREDICTION_WINDOW,
                ..base
            },
            MeshSettings {
                lockstep_delay: MAX_INPUT_DELAY + 1,
                ..base
            },
            MeshSettings {
                rollback_delay: MAX_INPUT_DELAY + 1,
                ..base
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
        assert!(base.check().is_ok());
        let scenario = &crate::SCENARIOS[0];
        assert!(run_mesh(scenario, &[9], &base).is_err());
        assert!(run_mesh(scenario, &[1], &base).is_err());
        assert!(run_spectators(scenario, &[0], Mode::Rollback, &base, Side::Ggrs).is_err());
        assert!(run_spectators(scenario, &[17], Mode::Rollback, &base, Side::Ours).is_err());
    }
}
