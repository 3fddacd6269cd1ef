//! Short effects (score pop-ups, blocks, steals, banners) and the ball's
//! trail: presentation state the front end keeps between frames.
//!
//! Events last one tick, but a page may draw less often than the game
//! steps (a slow frame, a catch-up after a stall). So [`Effects::observe`]
//! reads the events when it sees consecutive ticks, and otherwise derives
//! the effects that matter most (scores, blocks, steals) from the change of
//! the score and the team statistics. Ages are counted in game ticks, so
//! an effect fades at the game's pace and freezes while the game waits.

use crate::sound::{cue_for, Cue};
use ntba::{
    BallState, Event, Ntba, Phase, TeamStats, JUMP_APEX, RIM_HEIGHT, SUDDEN_DEATH_PERIOD,
    UNITS_PER_METER,
};

/// The banner at the start of a period.
#[must_use]
pub fn period_banner(period: u8) -> &'static str {
    match period {
        0 => "1ST HALF",
        1 => "2ND HALF",
        p if p >= SUDDEN_DEATH_PERIOD => "SUDDEN DEATH",
        _ => "OVERTIME",
    }
}

/// What an effect shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectKind {
    /// A basket: "+2", "+3" or "DUNK!" rising from the rim.
    Score {
        /// The scoring team.
        side: u8,
        /// 2 or 3.
        points: u8,
        /// From under the rim.
        dunk: bool,
    },
    /// "BLOCKED!" where the ball was stopped.
    Block {
        /// The blocking team.
        side: u8,
    },
    /// "STEAL!" over the player who took the ball.
    Steal {
        /// The team that took it.
        side: u8,
    },
    /// "PERFECT" over a shooter who let go at the top of the jump.
    Perfect {
        /// The shooting team.
        side: u8,
    },
    /// A line across mid-court: the start of a period, out of bounds, a
    /// shot clock violation.
    Banner(&'static str),
}

/// One effect: what, where (court units) and when it started (game tick).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    /// What it shows.
    pub kind: EffectKind,
    /// Court x.
    pub x: i32,
    /// Court y.
    pub y: i32,
    /// Height.
    pub z: i32,
    /// The tick it started on.
    pub born: u32,
}

impl Effect {
    /// How many ticks it lasts.
    #[must_use]
    pub fn duration(&self) -> u32 {
        match self.kind {
            EffectKind::Score { .. } => 80,
            EffectKind::Block { .. } | EffectKind::Steal { .. } => 55,
            EffectKind::Perfect { .. } => 45,
            EffectKind::Banner(_) => 70,
        }
    }

    /// Ticks since it started.
    #[must_use]
    pub fn age(&self, tick: u32) -> u32 {
        tick.saturating_sub(self.born)
    }

    /// Opacity at `tick`: fully visible for the first 40 %, then fading to
    /// nothing.
    #[must_use]
    pub fn alpha(&self, tick: u32) -> f64 {
        let d = f64::from(self.duration());
        let a = f64::from(self.age(tick));
        if a < d * 0.4 {
            1.0
        } else {
            (1.0 - (a - d * 0.4) / (d * 0.6)).clamp(0.0, 1.0)
        }
    }
}

/// At most this many effects at once (the oldest go first).
pub const MAX_EFFECTS: usize = 12;
/// Ball positions kept for the trail of a shot or pass.
pub const TRAIL: usize = 6;

#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    tick: u32,
    score: [u16; 2],
    stats: [TeamStats; 2],
    /// The phase seen last (`None` before the first sight).
    phase: Option<Phase>,
}

/// The effects tracker.
#[derive(Debug, Clone, Default)]
pub struct Effects {
    seen: Option<Seen>,
    /// Cues started by the last observation that moved the tick.
    cues: Vec<Cue>,
    list: Vec<Effect>,
    trail: Vec<(i32, i32, i32)>,
    dunk: [bool; 4],
}

const M: i32 = UNITS_PER_METER;

impl Effects {
    /// An empty tracker.
    #[must_use]
    pub fn new() -> Effects {
        Effects::default()
    }

    /// Forgets everything (a new match).
    pub fn reset(&mut self) {
        *self = Effects::default();
    }

    /// The effects alive at the last observed tick, oldest first.
    #[must_use]
    pub fn list(&self) -> &[Effect] {
        &self.list
    }

    /// The sound cues of what started at the last observed tick (empty when
    /// the tick did not move).
    #[must_use]
    pub fn cues(&self) -> &[Cue] {
        &self.cues
    }

    /// Recent ball positions of a shot or pass in flight, oldest first.
    #[must_use]
    pub fn trail(&self) -> &[(i32, i32, i32)] {
        &self.trail
    }

    /// How strongly `side`'s score should stand out (1.0 just after a
    /// basket, fading to 0.0).
    #[must_use]
    pub fn score_pulse(&self, side: u8, tick: u32) -> f64 {
        self.list
            .iter()
            .filter(|e| matches!(e.kind, EffectKind::Score { side: s, .. } if s == side))
            .map(|e| 1.0 - f64::from(e.age(tick)) / f64::from(e.duration()))
            .fold(0.0, f64::max)
    }

    /// Brings the tracker up to the game's current tick. Call before every
    /// draw; calling twice for one tick changes nothing.
    pub fn observe(&mut self, g: &Ntba) {
        let tick = g.tick();
        let seen = match self.seen {
            Some(s) if tick == s.tick => {
                self.cues.clear();
                return;
            }
            Some(s) if tick > s.tick => s,
            // First sight, or the tick went back (a new match).
            _ => {
                self.reset();
                Seen::default()
            }
        };
        self.cues.clear();
        let before = self.list.len();
        if tick == seen.tick + 1 {
            self.read_events(g);
        } else {
            self.read_totals(g, &seen);
        }
        let clocks = g.clocks();
        // A period starts: the first frames of the match, or the end of a
        // break.
        let kick_off = match seen.phase {
            None => tick <= 2,
            Some(Phase::Break) => matches!(clocks.phase, Phase::Play | Phase::Dead),
            Some(_) => false,
        };
        if kick_off {
            self.banner(period_banner(clocks.period), tick);
        }
        self.cues = self.list[before..]
            .iter()
            .filter_map(|e| cue_for(&e.kind))
            .collect();
        // The buzzer: a period, or the match, just ended.
        if seen.phase.is_some_and(|p| p != clocks.phase)
            && matches!(clocks.phase, Phase::Break | Phase::Over)
        {
            self.cues.push(Cue::Buzzer);
        }
        self.seen = Some(Seen {
            tick,
            score: g.score(),
            stats: g.stats(),
            phase: Some(clocks.phase),
        });
        self.list.retain(|e| e.age(tick) < e.duration());
        if self.list.len() > MAX_EFFECTS {
            let extra = self.list.len() - MAX_EFFECTS;
            self.list.drain(..extra);
        }
        let b = g.ball();
        match b.state {
            BallState::Shot { .. } | BallState::Pass { .. } => {
                self.trail.push((b.x, b.y, b.z));
                if self.trail.len() > TRAIL {
                    self.trail.remove(0);
                }
            }
            _ => self.trail.clear(),
        }
    }

    fn add(&mut self, kind: EffectKind, (x, y, z): (i32, i32, i32), born: u32) {
        self.list.push(Effect {
            kind,
            x,
            y,
            z,
            born,
        });
    }

    fn read_events(&mut self, g: &Ntba) {
        let tick = g.tick();
        let ball = g.ball();
        let at_ball = (ball.x, ball.y, ball.z.max(M));
        let over = |p: u8, lift: i32| {
            let v = g.player(p);
            (v.x, v.y, v.z + lift)
        };
        for &e in g.events() {
            match e {
                Event::Shot {
                    player,
                    release,
                    dunk,
                    ..
                } => {
                    self.dunk[usize::from(player % 4)] = dunk;
                    if !dunk && release.abs_diff(JUMP_APEX) <= 2 {
                        self.add(
                            EffectKind::Perfect { side: player / 2 },
                            over(player, 3 * M),
                            tick,
                        );
                    }
                }
                Event::Score {
                    side,
                    player,
                    points,
                } => {
                    let dunk = self.dunk[usize::from(player % 4)];
                    self.add_score(g, side, points, dunk);
                }
                Event::Block { player, .. } => {
                    self.add(EffectKind::Block { side: player / 2 }, at_ball, tick);
                }
                Event::Steal { player, .. } => {
                    self.add(
                        EffectKind::Steal { side: player / 2 },
                        over(player, 2 * M),
                        tick,
                    );
                }
                Event::OutOfBounds { .. } => self.banner("OUT OF BOUNDS", tick),
                Event::ShotClockViolation { .. } => self.banner("SHOT CLOCK VIOLATION", tick),
                _ => {}
            }
        }
    }

    fn read_totals(&mut self, g: &Ntba, seen: &Seen) {
        let tick = g.tick();
        let score = g.score();
        let stats = g.stats();
        let ball = g.ball();
        for side in 0..2u8 {
            let s = usize::from(side);
            let points = score[s].saturating_sub(seen.score[s]);
            if points > 0 {
                self.add_score(g, side, points.min(3) as u8, false);
            }
            if stats[s].blocks > seen.stats[s].blocks {
                self.add(
                    EffectKind::Block { side },
                    (ball.x, ball.y, ball.z.max(M)),
                    tick,
                );
            }
            if stats[s].steals > seen.stats[s].steals {
                self.add(EffectKind::Steal { side }, (ball.x, ball.y, 2 * M), tick);
            }
        }
    }

    /// A basket by `side`: the pop-up rises from the hoop `side` attacks in
    /// the game's current period (teams change ends at half time). A
    /// basket seen late, from the totals, is placed by the period of the
    /// frame that sees it; baskets are never scored during the half-time
    /// break, so only a frame stalled across a whole break could misplace
    /// one.
    fn add_score(&mut self, g: &Ntba, side: u8, points: u8, dunk: bool) {
        let tick = g.tick();
        let (x, y) = g.attacked_hoop(side);
        self.add(
            EffectKind::Score { side, points, dunk },
            (x, y, RIM_HEIGHT),
            tick,
        );
    }

    fn banner(&mut self, text: &'static str, tick: u32) {
        self.add(EffectKind::Banner(text), (0, 0, 0), tick);
    }
}
