//! The match state as bytes, for a player who comes back to a running
//! match: the host sends its confirmed state instead of every input since
//! the start (see `docs/ntba.md`, "Saved state").
//!
//! The layout is [`Saved`], a plain record of integers written with
//! serde and postcard (varints, little endian), one fixed order. Lengths
//! are their fixed-point raw bits, enums their one-byte codes, events
//! their four canonical bytes (the ones the state hash reads). Nothing
//! derived is written: the match length, the line-up's pad slots and the
//! side that inbounded first all follow from the seed and the number of
//! people, and [`Ntba::from_bytes`] derives them again as
//! [`Ntba::with_people`] does. Event slots past this tick's count are
//! not written either (nothing reads them); they load as
//! [`Event::None`].
//!
//! Reading is strict: the bytes must be exactly one record (nothing
//! missing, nothing trailing, written as [`Ntba::to_bytes`] would write
//! it), and the state must be one the simulation can reach: every value
//! in the range the tick keeps it in, and the few facts that tie fields
//! together (a held ball's team has possession, a winner exactly when the
//! match is over ...). Anything else is refused with `None`; no byte
//! string makes it panic.

use crate::consts::*;
use crate::math::{m, Len, V2};
use crate::pad::Pad;
use crate::rng::Rng;
use crate::sim::{jump_z, team, Ball, BallMode, Ntba, Player, MAX_EVENTS};
use crate::view::{Action, Event, Phase, TeamStats};
use serde::{Deserialize, Serialize};

/// The first byte of every saved state: the layout's version. A build
/// that writes another layout changes it (peers of different builds
/// never meet: they compare the golden hash first).
const FORMAT: u8 = 1;

/// The most bytes a saved state takes: every varint at its longest and
/// the tick's events all there (a state of a real match takes about a
/// third of it; `docs/ntba.md`). Far below the engine's cap on a saved
/// state, `lockstep::wire::MAX_SAVED_STATE`.
pub const MAX_SAVED_BYTES: usize = {
    // Varints at their longest: 3 bytes for a u16, 5 for a u32 or an i32,
    // 10 for a u64; a u8 or a bool is one byte, an `Option` one more.
    let (u16_, u32_, u64_) = (3, 5, 10);
    let player = 5 * u32_ + 7 + 2 * u16_;
    let ball = 3 + 13 * u32_ + 2 * u16_ + 5;
    1 + u64_ + 1 + u64_ + u32_ // format, seed, people, rng, tick
        + 4 * player
        + ball
        + 2 * u16_ + 1 + u32_ + u16_ + 2 + 1 + u16_ // score .. phase_t
        + 1 + 2 * u32_ + 2 + 4 + 2 // restart_side .. winner
        + 1 + MAX_EVENTS * 4 // events, count first
        + 2 * 9 * u16_ // stats
};

/// Highest body speed a player can hold, per tick, with margin (turbo is
/// 0.13 m).
const MAX_PLAYER_SPEED: Len = m!(1);
/// Highest ball speed along the floor, per tick, with margin (a flight
/// covers at most a third of a metre a tick).
const MAX_BALL_SPEED: Len = m!(2);
/// Highest vertical ball speed, per tick, with margin.
const MAX_BALL_VZ: Len = m!(4);
/// Highest the ball goes, with margin (the rim is at 3.05 m, arcs at most
/// 3 m above their line).
const MAX_BALL_Z: Len = m!(16);
/// Highest arc of a flight (a shot's is capped at 3 m).
const MAX_ARC: Len = m!(3);
/// Longest flight in ticks (a pass's is capped at 200).
const MAX_FLIGHT: u16 = 200;
/// Longest steal swipe and throw animations, in ticks.
const MAX_SWIPE: u8 = 12;
const MAX_THROW: u8 = 10;
/// Longest ball-grab cool-down, in ticks (after a block).
const MAX_GRAB_CD: u8 = 8;

/// One court player, as saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SavedPlayer {
    pos: [i32; 2],
    vel: [i32; 2],
    z: i32,
    jump_t: u8,
    shooting: bool,
    facing: u8,
    stamina: u16,
    steal_cd: u8,
    swipe_t: u8,
    throw_t: u8,
    action: u8,
    anim: u16,
}

/// The ball, as saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SavedBall {
    mode: u8,
    owner: u8,
    receiver: u8,
    pos: [i32; 2],
    z: i32,
    vel: [i32; 2],
    vz: i32,
    from: [i32; 2],
    from_z: i32,
    to: [i32; 2],
    to_z: i32,
    t: u16,
    dur: u16,
    arc: i32,
    points: u8,
    made: bool,
    tried: u8,
    rim: bool,
    grab_cd: u8,
}

/// The whole saved state, in the order it is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Saved {
    format: u8,
    seed: u64,
    people: u8,
    rng: u64,
    tick: u32,
    players: [SavedPlayer; 4],
    ball: SavedBall,
    score: [u16; 2],
    period: u8,
    clock: u32,
    shot_clock: u16,
    possession: Option<u8>,
    phase: u8,
    phase_t: u16,
    restart_side: u8,
    restart_spot: [i32; 2],
    controlled: [u8; 2],
    prev_pad: [u8; 4],
    winner: Option<u8>,
    /// This tick's events, at most [`MAX_EVENTS`].
    events: Vec<[u8; 4]>,
    stats: [[u16; 9]; 2],
}

fn bits(v: V2) -> [i32; 2] {
    [v.x.to_bits(), v.y.to_bits()]
}

fn v2([x, y]: [i32; 2]) -> V2 {
    V2::new(Len::from_bits(x), Len::from_bits(y))
}

fn len(b: i32) -> Len {
    Len::from_bits(b)
}

impl Ntba {
    /// The state as bytes (see `docs/ntba.md`, "Saved state"): at most
    /// [`MAX_SAVED_BYTES`], about 200 in a real match.
    /// [`from_bytes`](Self::from_bytes) gives back a state that hashes and
    /// plays exactly as this one.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        // Writing plain integers into a vector cannot fail.
        postcard::to_allocvec(&self.saved()).unwrap_or_default()
    }

    /// Reads [`to_bytes`](Self::to_bytes)'s layout back, strictly: `None`
    /// unless the bytes are exactly one saved state, written as
    /// `to_bytes` writes it, of a state the simulation can reach (values
    /// in range, two to four people, the fields agreeing with each other).
    #[must_use]
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() > MAX_SAVED_BYTES {
            return None;
        }
        let (saved, rest): (Saved, _) = postcard::take_from_bytes(bytes).ok()?;
        if !rest.is_empty() {
            return None;
        }
        let game = Ntba::from_saved(saved)?;
        // One state, one encoding: a longer varint for the same number,
        // say, is not this layout.
        (game.to_bytes() == bytes).then_some(game)
    }

    /// Every field that is not derived from the seed, destructured in
    /// full so that a field added to the state stops this compiling until
    /// it is saved (or said to be derived).
    fn saved(&self) -> Saved {
        let Ntba {
            seed,
            rng,
            tick,
            players,
            ball,
            score,
            period,
            clock,
            shot_clock,
            possession,
            phase,
            phase_t,
            restart_side,
            restart_spot,
            // Derived from the seed (`Ntba::with_people`).
            first_side: _,
            controlled,
            people,
            // Derived from the seed and the people.
            slot_of: _,
            length: _,
            prev_pad,
            winner,
            events,
            n_events,
            stats,
        } = self;
        Saved {
            format: FORMAT,
            seed: *seed,
            people: *people,
            rng: rng.state(),
            tick: *tick,
            players: players.map(|p| p.saved()),
            ball: ball.saved(),
            score: *score,
            period: *period,
            clock: *clock,
            shot_clock: *shot_clock,
            possession: *possession,
            phase: *phase as u8,
            phase_t: *phase_t,
            restart_side: *restart_side,
            restart_spot: bits(*restart_spot),
            controlled: *controlled,
            prev_pad: prev_pad.map(|p| p.0),
            winner: *winner,
            events: events[..usize::from(*n_events).min(MAX_EVENTS)]
                .iter()
                .map(|e| e.to_bytes())
                .collect(),
            stats: stats.map(TeamStats::to_array),
        }
    }

    /// The state `s` describes, or `None` when it is not one the
    /// simulation can reach.
    fn from_saved(s: Saved) -> Option<Self> {
        if s.format != FORMAT || !(2..=4).contains(&s.people) || s.events.len() > MAX_EVENTS {
            return None;
        }
        // What the seed decides, exactly as a new match decides it.
        let fresh = Ntba::with_people(s.seed, s.people);
        let mut events = [Event::None; MAX_EVENTS];
        for (slot, b) in events.iter_mut().zip(&s.events) {
            *slot = event_from_bytes(*b)?;
        }
        let mut players = [fresh.players[0]; 4];
        for (p, sp) in players.iter_mut().zip(&s.players) {
            *p = Player::from_saved(sp)?;
        }
        let game = Ntba {
            seed: s.seed,
            rng: Rng::new(s.rng),
            tick: s.tick,
            players,
            ball: Ball::from_saved(&s.ball)?,
            score: s.score,
            period: s.period,
            clock: s.clock,
            shot_clock: s.shot_clock,
            possession: s.possession,
            phase: phase_from(s.phase)?,
            phase_t: s.phase_t,
            restart_side: s.restart_side,
            restart_spot: v2(s.restart_spot),
            first_side: fresh.first_side,
            controlled: s.controlled,
            people: s.people,
            slot_of: fresh.slot_of,
            length: fresh.length,
            prev_pad: s.prev_pad.map(Pad),
            winner: s.winner,
            events,
            // At most MAX_EVENTS (8), checked above.
            n_events: s.events.len() as u8,
            stats: s.stats.map(stats_from),
        };
        game.reachable().then_some(game)
    }

    /// Whether every value is in the range the tick keeps it in and the
    /// fields agree with each other (the players' and the ball's own
    /// ranges are checked as they are read).
    fn reachable(&self) -> bool {
        let side = |s: u8| s < 2;
        let period_ticks = if self.period < 2 {
            self.length.half_ticks()
        } else {
            self.length.overtime_ticks()
        };
        let b = &self.ball;
        let ranges = self.period <= SUDDEN_DEATH_PERIOD
            && self.clock <= period_ticks
            && self.shot_clock <= SHOT_CLOCK_TICKS
            && self.possession.is_none_or(side)
            && self.phase_t <= BREAK_TICKS.max(AFTER_SCORE_TICKS)
            && side(self.restart_side)
            && on_court(self.restart_spot)
            && self.controlled.iter().all(|&c| c < 2)
            && self.winner.is_none_or(side)
            // With two people the last two slots are never pressed.
            && (self.people > 2 || self.prev_pad[2..] == [Pad::NONE; 2]);
        let agree = (self.phase == Phase::Over) == self.winner.is_some()
            && (self.phase != Phase::Play || self.phase_t == 0)
            && match b.mode {
                BallMode::Held => {
                    self.phase == Phase::Play && self.possession == Some(team(b.owner))
                }
                BallMode::Shot => b.t < b.dur && b.points >= 2,
                BallMode::Pass => b.t < b.dur && b.receiver == b.owner ^ 1,
                BallMode::Loose | BallMode::Dead => true,
            };
        ranges && agree
    }
}

impl Player {
    fn saved(&self) -> SavedPlayer {
        let Player {
            pos,
            vel,
            z,
            jump_t,
            shooting,
            facing,
            stamina,
            steal_cd,
            swipe_t,
            throw_t,
            action,
            anim,
        } = *self;
        SavedPlayer {
            pos: bits(pos),
            vel: bits(vel),
            z: z.to_bits(),
            jump_t,
            shooting,
            facing,
            stamina,
            steal_cd,
            swipe_t,
            throw_t,
            action: action as u8,
            anim,
        }
    }

    /// The player `s` describes, if every value is in range: on the court
    /// inside the lines, at the height of its jump, a speed a body can
    /// have, and the timers within their lengths.
    fn from_saved(s: &SavedPlayer) -> Option<Self> {
        let pos = v2(s.pos);
        let vel = v2(s.vel);
        let inside = (PLAYER_RADIUS..=COURT_LENGTH - PLAYER_RADIUS).contains(&pos.x)
            && (PLAYER_RADIUS..=COURT_WIDTH - PLAYER_RADIUS).contains(&pos.y);
        let ok = inside
            && vel.x.abs() <= MAX_PLAYER_SPEED
            && vel.y.abs() <= MAX_PLAYER_SPEED
            && s.jump_t < JUMP_TICKS
            && len(s.z) == jump_z(s.jump_t)
            && s.facing < 8
            && s.stamina <= STAMINA_MAX
            && s.steal_cd <= STEAL_COOLDOWN
            && s.swipe_t <= MAX_SWIPE
            && s.throw_t <= MAX_THROW;
        ok.then_some(Player {
            pos,
            vel,
            z: len(s.z),
            jump_t: s.jump_t,
            shooting: s.shooting,
            facing: s.facing,
            stamina: s.stamina,
            steal_cd: s.steal_cd,
            swipe_t: s.swipe_t,
            throw_t: s.throw_t,
            action: action_from(s.action)?,
            anim: s.anim,
        })
    }
}

impl Ball {
    fn saved(&self) -> SavedBall {
        let Ball {
            mode,
            owner,
            receiver,
            pos,
            z,
            vel,
            vz,
            from,
            from_z,
            to,
            to_z,
            t,
            dur,
            arc,
            points,
            made,
            tried,
            rim,
            grab_cd,
        } = *self;
        SavedBall {
            mode: mode as u8,
            owner,
            receiver,
            pos: bits(pos),
            z: z.to_bits(),
            vel: bits(vel),
            vz: vz.to_bits(),
            from: bits(from),
            from_z: from_z.to_bits(),
            to: bits(to),
            to_z: to_z.to_bits(),
            t,
            dur,
            arc: arc.to_bits(),
            points,
            made,
            tried,
            rim,
            grab_cd,
        }
    }

    /// The ball `s` describes, if every value is in range: on the court
    /// (its flight's ends too), above the floor and below a ceiling no
    /// flight reaches, a speed a ball can have, and players 0..4.
    fn from_saved(s: &SavedBall) -> Option<Self> {
        let height = |b: i32| (Len::ZERO..=MAX_BALL_Z).contains(&len(b));
        let (pos, vel, from, to) = (v2(s.pos), v2(s.vel), v2(s.from), v2(s.to));
        let ok = s.owner < 4
            && s.receiver < 4
            && on_court(pos)
            && on_court(from)
            && on_court(to)
            && height(s.z)
            && height(s.from_z)
            && height(s.to_z)
            && vel.x.abs() <= MAX_BALL_SPEED
            && vel.y.abs() <= MAX_BALL_SPEED
            && len(s.vz).abs() <= MAX_BALL_VZ
            && s.t <= s.dur
            && s.dur <= MAX_FLIGHT
            && (Len::ZERO..=MAX_ARC).contains(&len(s.arc))
            && matches!(s.points, 0 | 2 | 3)
            && s.tried < 16
            && s.grab_cd <= MAX_GRAB_CD;
        ok.then_some(Ball {
            mode: mode_from(s.mode)?,
            owner: s.owner,
            receiver: s.receiver,
            pos,
            z: len(s.z),
            vel,
            vz: len(s.vz),
            from,
            from_z: len(s.from_z),
            to,
            to_z: len(s.to_z),
            t: s.t,
            dur: s.dur,
            arc: len(s.arc),
            points: s.points,
            made: s.made,
            tried: s.tried,
            rim: s.rim,
            grab_cd: s.grab_cd,
        })
    }
}

/// On the court, lines included.
fn on_court(p: V2) -> bool {
    (Len::ZERO..=COURT_LENGTH).contains(&p.x) && (Len::ZERO..=COURT_WIDTH).contains(&p.y)
}

fn phase_from(code: u8) -> Option<Phase> {
    Some(match code {
        0 => Phase::Play,
        1 => Phase::Dead,
        2 => Phase::Break,
        3 => Phase::Over,
        _ => return None,
    })
}

fn mode_from(code: u8) -> Option<BallMode> {
    Some(match code {
        0 => BallMode::Held,
        1 => BallMode::Shot,
        2 => BallMode::Pass,
        3 => BallMode::Loose,
        4 => BallMode::Dead,
        _ => return None,
    })
}

fn action_from(code: u8) -> Option<Action> {
    Some(match code {
        0 => Action::Idle,
        1 => Action::Run,
        2 => Action::DribbleStand,
        3 => Action::Dribble,
        4 => Action::Jump,
        5 => Action::JumpWithBall,
        6 => Action::Throw,
        7 => Action::Steal,
        8 => Action::Celebrate,
        _ => return None,
    })
}

fn stats_from(a: [u16; 9]) -> TeamStats {
    let [shots, made, threes, threes_made, steals, blocks, rebounds, offensive_rebounds, turnovers] =
        a;
    TeamStats {
        shots,
        made,
        threes,
        threes_made,
        steals,
        blocks,
        rebounds,
        offensive_rebounds,
        turnovers,
    }
}

/// The event [`Event::to_bytes`] wrote as `b`, if `b` is exactly what it
/// writes for an event the tick can record: players 0..4, teams 0..2,
/// baskets of 2 or 3, a release within the jump, a period of the match.
fn event_from_bytes(b: [u8; 4]) -> Option<Event> {
    let [kind, a, c, d] = b;
    let player = |p: u8| (p < 4).then_some(p);
    let side = |s: u8| (s < 2).then_some(s);
    let points = |p: u8| matches!(p, 2 | 3).then_some(p);
    let flag = |f: u8| (f < 2).then_some(f == 1);
    let e = match kind {
        1 => Event::Inbound {
            side: side(a)?,
            player: player(c)?,
        },
        2 => Event::Pass {
            from: player(a)?,
            to: player(c)?,
        },
        3 => Event::Shot {
            player: player(a)?,
            points: points(c)?,
            release: (d & 0x7f <= JUMP_TICKS).then_some(d & 0x7f)?,
            dunk: d & 0x80 != 0,
        },
        4 => Event::Score {
            side: side(a)?,
            player: player(c)?,
            points: points(d)?,
        },
        5 => Event::Miss { player: player(a)? },
        6 => Event::Block {
            player: player(a)?,
            shooter: player(c)?,
        },
        7 => Event::Steal {
            player: player(a)?,
            from: player(c)?,
        },
        8 => Event::Rebound {
            player: player(a)?,
            off_rim: flag(c)?,
        },
        9 => Event::OutOfBounds { side: side(a)? },
        10 => Event::ShotClockViolation { side: side(a)? },
        11 => Event::PeriodEnd {
            period: (a <= SUDDEN_DEATH_PERIOD).then_some(a)?,
        },
        12 => Event::GameOver { winner: side(a)? },
        // `Event::None` only fills the slots past the tick's count.
        _ => return None,
    };
    // The padding bytes are zero: one event, one encoding.
    (e.to_bytes() == b).then_some(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lineup::Lineup;
    use lockstep::DeterministicGame;

    #[test]
    fn the_longest_record_fits_the_bound_and_the_engine_cap() {
        // Every number at the top of its type, every event there.
        let p = SavedPlayer {
            pos: [i32::MIN; 2],
            vel: [i32::MIN; 2],
            z: i32::MIN,
            jump_t: u8::MAX,
            shooting: true,
            facing: u8::MAX,
            stamina: u16::MAX,
            steal_cd: u8::MAX,
            swipe_t: u8::MAX,
            throw_t: u8::MAX,
            action: u8::MAX,
            anim: u16::MAX,
        };
        let s = Saved {
            format: u8::MAX,
            seed: u64::MAX,
            people: u8::MAX,
            rng: u64::MAX,
            tick: u32::MAX,
            players: [p; 4],
            ball: SavedBall {
                mode: u8::MAX,
                owner: u8::MAX,
                receiver: u8::MAX,
                pos: [i32::MIN; 2],
                z: i32::MIN,
                vel: [i32::MIN; 2],
                vz: i32::MIN,
                from: [i32::MIN; 2],
                from_z: i32::MIN,
                to: [i32::MIN; 2],
                to_z: i32::MIN,
                t: u16::MAX,
                dur: u16::MAX,
                arc: i32::MIN,
                points: u8::MAX,
                made: true,
                tried: u8::MAX,
                rim: true,
                grab_cd: u8::MAX,
            },
            score: [u16::MAX; 2],
            period: u8::MAX,
            clock: u32::MAX,
            shot_clock: u16::MAX,
            possession: Some(u8::MAX),
            phase: u8::MAX,
            phase_t: u16::MAX,
            restart_side: u8::MAX,
            restart_spot: [i32::MIN; 2],
            controlled: [u8::MAX; 2],
            prev_pad: [u8::MAX; 4],
            winner: Some(u8::MAX),
            events: vec![[u8::MAX; 4]; MAX_EVENTS],
            stats: [[u16::MAX; 9]; 2],
        };
        let n = postcard::to_allocvec(&s).map(|v| v.len());
        assert_eq!(n, Ok(MAX_SAVED_BYTES));
        assert!(MAX_SAVED_BYTES <= lockstep::wire::MAX_SAVED_STATE as usize);
    }

    #[test]
    fn every_event_the_tick_records_reads_back() {
        let events = [
            Event::Inbound { side: 1, player: 3 },
            Event::Pass { from: 2, to: 3 },
            Event::Shot {
                player: 0,
                points: 3,
                release: JUMP_TICKS - 1,
                dunk: true,
            },
            Event::Score {
                side: 0,
                player: 1,
                points: 2,
            },
            Event::Miss { player: 2 },
            Event::Block {
                player: 3,
                shooter: 0,
            },
            Event::Steal { player: 1, from: 2 },
            Event::Rebound {
                player: 2,
                off_rim: true,
            },
            Event::OutOfBounds { side: 1 },
            Event::ShotClockViolation { side: 0 },
            Event::PeriodEnd {
                period: SUDDEN_DEATH_PERIOD,
            },
            Event::GameOver { winner: 1 },
        ];
        for e in events {
            assert_eq!(event_from_bytes(e.to_bytes()), Some(e));
        }
        for bad in [
            [0, 0, 0, 0],
            [1, 2, 0, 0],
            [2, 0, 4, 0],
            [3, 0, 4, 0],
            [4, 0, 0, 1],
            [5, 0, 0, 1],
            [8, 0, 2, 0],
            [11, 5, 0, 0],
            [13, 0, 0, 0],
        ] {
            assert_eq!(event_from_bytes(bad), None, "{bad:?}");
        }
    }

    /// One change to a saved record.
    type Change = fn(&mut Saved);

    /// A mid-match state's record with `change` made to it, as bytes.
    fn changed(change: Change) -> Vec<u8> {
        let mut g = Ntba::new(5, 2);
        for _ in 0..900 {
            g.step(&[Pad(0x18), Pad(0x24)]);
        }
        let mut s = g.saved();
        change(&mut s);
        postcard::to_allocvec(&s).unwrap_or_default()
    }

    #[test]
    fn impossible_states_are_refused() {
        assert!(Ntba::from_bytes(&changed(|_| ())).is_some());
        let bad: [(&str, Change); 16] = [
            ("format", |s| s.format = 2),
            ("one person", |s| s.people = 1),
            ("five people", |s| s.people = 5),
            ("a ninth event", |s| s.events = vec![[9, 0, 0, 0]; 9]),
            ("period", |s| s.period = SUDDEN_DEATH_PERIOD + 1),
            ("clock", |s| s.clock = HALF_TICKS + 1),
            ("shot clock", |s| s.shot_clock = SHOT_CLOCK_TICKS + 1),
            ("possession", |s| s.possession = Some(2)),
            ("phase", |s| s.phase = 4),
            ("winner", |s| s.winner = Some(0)),
            ("owner", |s| s.ball.owner = 4),
            ("ball mode", |s| s.ball.mode = 5),
            ("ball off court", |s| s.ball.pos[0] = -1),
            ("jump", |s| s.players[1].jump_t = JUMP_TICKS),
            ("off the floor", |s| s.players[2].z = Len::ONE.to_bits()),
            ("through the sideline", |s| s.players[3].pos[1] = 0),
        ];
        for (what, change) in bad {
            assert_eq!(Ntba::from_bytes(&changed(change)), None, "{what}");
        }
    }

    #[test]
    fn a_lineup_seed_loads_its_own_pad_slots() {
        let seed = Lineup::alternating(4).map(|l| l.seed(77)).unwrap_or(77);
        let g = Ntba::new(seed, 4);
        let back = Ntba::from_bytes(&g.to_bytes()).expect("a new match loads");
        assert_eq!(back.slot_of, g.slot_of);
        assert_eq!(back.length, g.length);
        assert_eq!(back.first_side, g.first_side);
        assert_eq!(back.state_hash(), g.state_hash());
        assert_eq!(back.to_bytes(), g.to_bytes());
    }
}
