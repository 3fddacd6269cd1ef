//! The read-only view a renderer (or a test, or a CPU player) uses.
//!
//! Nothing here can change the simulation. Lengths are plain `i32`s in
//! [`UNITS_PER_METER`](crate::UNITS_PER_METER) units (divide by 4096.0 for
//! metres when drawing): the raw bits of the simulation's fixed-point
//! metres, so the conversion is exact. Times are in ticks (60 per second).
//! Screen convention:
//! x grows to the right along the court, y grows downwards across it, z is
//! height above the floor.

use crate::consts::{SHOT_CLOCK_TICKS, TICKS_PER_SECOND};
use crate::math::DIR8;
use crate::sim::{attack_hoop_in, team, BallMode, Ntba};
use crate::view_lengths::units;

/// The stage of the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The ball is live; the clocks run.
    Play = 0,
    /// A short pause after a basket or a turnover, before the inbound.
    Dead = 1,
    /// The pause between periods.
    Break = 2,
    /// The match is over; see [`Ntba::winner`].
    Over = 3,
}

/// What a player's body is doing, for choosing a sprite. Pair it with
/// [`PlayerView::anim`], the ticks spent in it, for the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Standing without the ball.
    Idle = 0,
    /// Running without the ball.
    Run = 1,
    /// Standing and dribbling.
    DribbleStand = 2,
    /// Running and dribbling.
    Dribble = 3,
    /// In the air without the ball (block or rebound attempt).
    Jump = 4,
    /// In the air with the ball (shooting jump, or caught in the air).
    JumpWithBall = 5,
    /// Just released a shot or a pass (about ten ticks).
    Throw = 6,
    /// Swiping for a steal (about twelve ticks).
    Steal = 7,
    /// The match is won.
    Celebrate = 8,
}

/// Something that happened during the last tick, for short effects
/// (sounds, flashes, score pop-ups). Player numbers are 0..4: 0 and 1 are
/// Home, 2 and 3 are Away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Unused slot.
    None,
    /// A team put the ball in play from out of bounds.
    Inbound {
        /// The inbounding team.
        side: u8,
        /// The player with the ball.
        player: u8,
    },
    /// A pass left the passer's hands.
    Pass {
        /// Passer.
        from: u8,
        /// Intended receiver.
        to: u8,
    },
    /// A shot left the shooter's hands.
    Shot {
        /// Shooter.
        player: u8,
        /// 2 or 3.
        points: u8,
        /// The jump tick of the release; [`JUMP_APEX`](crate::JUMP_APEX)
        /// is perfect (show "perfect release" within two ticks of it).
        release: u8,
        /// Taken from under the rim (a dunk or lay-up, within 1.8 m).
        dunk: bool,
    },
    /// A shot went in.
    Score {
        /// The scoring team.
        side: u8,
        /// Shooter.
        player: u8,
        /// 2 or 3.
        points: u8,
    },
    /// A shot hit the rim and stayed out.
    Miss {
        /// Shooter.
        player: u8,
    },
    /// A shot was blocked.
    Block {
        /// The blocker.
        player: u8,
        /// The shooter.
        shooter: u8,
    },
    /// A steal or an intercepted pass.
    Steal {
        /// The player who took the ball.
        player: u8,
        /// The player who lost it.
        from: u8,
    },
    /// A loose ball was picked up.
    Rebound {
        /// Who got it.
        player: u8,
        /// True after a missed shot (a real rebound), false for a loose ball.
        off_rim: bool,
    },
    /// The ball left the court; `side` gets it.
    OutOfBounds {
        /// The team that inbounds next.
        side: u8,
    },
    /// The team in possession did not shoot in time.
    ShotClockViolation {
        /// The team that lost the ball.
        side: u8,
    },
    /// A period ended (0 = first half, 1 = second half, 2.. = overtimes).
    PeriodEnd {
        /// The period that ended.
        period: u8,
    },
    /// The match is over.
    GameOver {
        /// The winning team.
        winner: u8,
    },
}

impl Event {
    /// Canonical bytes for the state hash.
    pub(crate) fn to_bytes(self) -> [u8; 4] {
        match self {
            Event::None => [0, 0, 0, 0],
            Event::Inbound { side, player } => [1, side, player, 0],
            Event::Pass { from, to } => [2, from, to, 0],
            Event::Shot {
                player,
                points,
                release,
                dunk,
            } => [3, player, points, release | (u8::from(dunk) << 7)],
            Event::Score {
                side,
                player,
                points,
            } => [4, side, player, points],
            Event::Miss { player } => [5, player, 0, 0],
            Event::Block { player, shooter } => [6, player, shooter, 0],
            Event::Steal { player, from } => [7, player, from, 0],
            Event::Rebound { player, off_rim } => [8, player, u8::from(off_rim), 0],
            Event::OutOfBounds { side } => [9, side, 0, 0],
            Event::ShotClockViolation { side } => [10, side, 0, 0],
            Event::PeriodEnd { period } => [11, period, 0, 0],
            Event::GameOver { winner } => [12, winner, 0, 0],
        }
    }
}

/// Running totals per team (for a box score, and for tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TeamStats {
    /// Shots attempted.
    pub shots: u16,
    /// Shots made.
    pub made: u16,
    /// Three-point shots attempted.
    pub threes: u16,
    /// Three-point shots made.
    pub threes_made: u16,
    /// Steals and interceptions.
    pub steals: u16,
    /// Blocks.
    pub blocks: u16,
    /// Rebounds off the rim.
    pub rebounds: u16,
    /// Of which on the shooting team's own miss.
    pub offensive_rebounds: u16,
    /// Balls lost (steals against, out of bounds, shot clock).
    pub turnovers: u16,
}

impl TeamStats {
    pub(crate) fn to_array(self) -> [u16; 9] {
        [
            self.shots,
            self.made,
            self.threes,
            self.threes_made,
            self.steals,
            self.blocks,
            self.rebounds,
            self.offensive_rebounds,
            self.turnovers,
        ]
    }
}

/// One player as a renderer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerView {
    /// Team: 0 Home, 1 Away.
    pub side: u8,
    /// 0 or 1 within the team.
    pub slot: u8,
    /// Floor position (the centre of the body).
    pub x: i32,
    /// Floor position.
    pub y: i32,
    /// Height of the feet above the floor (jumps).
    pub z: i32,
    /// Velocity per tick, for motion blur or interpolation.
    pub vx: i32,
    /// Velocity per tick.
    pub vy: i32,
    /// Facing, 0..8: 0 right, 1 down-right, 2 down, 3 down-left, 4 left,
    /// 5 up-left, 6 up, 7 up-right (screen y grows downwards).
    pub facing: u8,
    /// What the body is doing.
    pub action: Action,
    /// Ticks spent in `action` so far (the animation phase).
    pub anim: u16,
    /// Turbo left, 0..=[`STAMINA_MAX`](crate::STAMINA_MAX).
    pub stamina: u16,
    /// Whether a person's pad drives this player (else the built-in AI):
    /// with two people the one its team's pad controls now, with three or
    /// four the ones given a pad slot ([`Ntba::pad_slot`]); never while
    /// nobody is at that pad (it played [`Pad::ABSENT`](crate::Pad::ABSENT)
    /// last tick).
    pub controlled: bool,
    /// Whether this player holds the ball.
    pub has_ball: bool,
}

impl PlayerView {
    /// The facing as a unit vector scaled to 256 (for drawing an arrow).
    #[must_use]
    pub fn facing_vector(&self) -> (i32, i32) {
        let v = DIR8[(self.facing & 7) as usize];
        ((v.x * 256).to_num(), (v.y * 256).to_num())
    }
}

/// What the ball is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BallState {
    /// Dribbled or held by a player (0..4).
    Held(u8),
    /// In flight as a shot by a player; `progress` and `duration` in ticks.
    Shot {
        /// The shooter.
        shooter: u8,
        /// Ticks since release.
        progress: u16,
        /// Ticks from release to the rim.
        duration: u16,
    },
    /// In flight as a pass.
    Pass {
        /// Passer.
        from: u8,
        /// Intended receiver.
        to: u8,
    },
    /// Bouncing or rolling free.
    Loose,
    /// Out of play (after a basket, a turnover, between periods).
    Dead,
}

/// The ball as a renderer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BallView {
    /// Floor position of the ball (draw its shadow here).
    pub x: i32,
    /// Floor position.
    pub y: i32,
    /// Height above the floor.
    pub z: i32,
    /// What it is doing.
    pub state: BallState,
}

/// Scoreboard data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// 0 first half, 1 second half, 2 and more: overtimes.
    pub period: u8,
    /// Ticks left in the period.
    pub game_clock: u32,
    /// Ticks left on the shot clock, or `None` when no team has the ball.
    pub shot_clock: Option<u16>,
    /// The match stage.
    pub phase: Phase,
}

impl Clocks {
    /// The game clock as (minutes, seconds), rounded up like a scoreboard.
    #[must_use]
    pub fn game_clock_min_sec(&self) -> (u32, u32) {
        let s = self.game_clock.div_ceil(TICKS_PER_SECOND);
        (s / 60, s % 60)
    }

    /// The shot clock in whole seconds, rounded up.
    #[must_use]
    pub fn shot_clock_seconds(&self) -> Option<u32> {
        self.shot_clock
            .map(|t| u32::from(t.min(SHOT_CLOCK_TICKS)).div_ceil(TICKS_PER_SECOND))
    }
}

/// Everything drawn in one frame, copied out of the game (a renderer can
/// keep the previous one and interpolate between the two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Ticks simulated so far.
    pub tick: u32,
    /// The four players, Home first.
    pub players: [PlayerView; 4],
    /// The ball.
    pub ball: BallView,
    /// Points of Home and Away.
    pub score: [u16; 2],
    /// Period, clocks and phase.
    pub clocks: Clocks,
    /// The team in possession, if any.
    pub possession: Option<u8>,
    /// The winner once the match is over.
    pub winner: Option<u8>,
}

impl Ntba {
    /// A copy of everything a renderer draws (events aside: read
    /// [`events`](Self::events) after each step).
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            tick: self.tick,
            players: self.players(),
            ball: self.ball(),
            score: self.score,
            clocks: self.clocks(),
            possession: self.possession,
            winner: self.winner,
        }
    }

    /// Ticks simulated so far.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// The seed this match was created with.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How long this match's halves and overtimes last (from the seed,
    /// [`MatchLength::of_match`](crate::MatchLength::of_match)).
    #[must_use]
    pub fn length(&self) -> crate::MatchLength {
        self.length
    }

    /// Points of Home (index 0) and Away (index 1).
    #[must_use]
    pub fn score(&self) -> [u16; 2] {
        self.score
    }

    /// Periods, clocks and phase.
    #[must_use]
    pub fn clocks(&self) -> Clocks {
        Clocks {
            period: self.period,
            game_clock: self.clock,
            shot_clock: self
                .possession
                .filter(|_| self.phase == Phase::Play)
                .map(|_| self.shot_clock),
            phase: self.phase,
        }
    }

    /// The team in possession, if any (none while the ball is loose off the
    /// rim or dead).
    #[must_use]
    pub fn possession(&self) -> Option<u8> {
        self.possession
    }

    /// The winner once the match is over.
    #[must_use]
    pub fn winner(&self) -> Option<u8> {
        self.winner
    }

    /// Whether the match is over.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// Player `p` (0..4; 0, 1 Home; 2, 3 Away). Out-of-range numbers are
    /// taken modulo 4.
    #[must_use]
    pub fn player(&self, p: u8) -> PlayerView {
        let p = p % 4;
        let pl = &self.players[p as usize];
        PlayerView {
            side: team(p),
            slot: p % 2,
            x: units(pl.pos.x),
            y: units(pl.pos.y),
            z: units(pl.z),
            vx: units(pl.vel.x),
            vy: units(pl.vel.y),
            facing: pl.facing,
            action: pl.action,
            anim: pl.anim,
            stamina: pl.stamina,
            controlled: self.pad_slot(p).is_some(),
            has_ball: self.holder() == Some(p),
        }
    }

    /// All four players, Home first.
    #[must_use]
    pub fn players(&self) -> [PlayerView; 4] {
        [
            self.player(0),
            self.player(1),
            self.player(2),
            self.player(3),
        ]
    }

    /// With two people, the player (0..4) `side`'s pad drives. With three
    /// or four it is the player the team would control in a two-person
    /// match; use [`Ntba::pad_slot`] and [`Ntba::player_of_slot`] there.
    #[must_use]
    pub fn controlled(&self, side: u8) -> u8 {
        self.controlled_player(side & 1)
    }

    /// How many people play: 2 (a team each) or 3 and 4 (a court player
    /// each).
    #[must_use]
    pub fn people(&self) -> u8 {
        self.people
    }

    /// The pad slot driving player `p` (0..4, taken modulo 4) now, or
    /// `None` when the built-in AI plays it. With two people it is the
    /// player's team while that team controls it. A pad slot nobody was
    /// at last tick (it played [`Pad::ABSENT`](crate::Pad::ABSENT)) drives
    /// nobody: the AI played its court players.
    #[must_use]
    pub fn pad_slot(&self, p: u8) -> Option<u8> {
        self.driver(p % 4).filter(|&s| !self.absent(s))
    }

    /// The player (0..4) pad slot `slot` drives now: with two people the
    /// one team `slot` controls, with three or four the slot's own court
    /// player (always the same one). `None` for a slot past the match's
    /// people.
    #[must_use]
    pub fn player_of_slot(&self, slot: u8) -> Option<u8> {
        if slot >= self.people {
            None
        } else if self.people <= 2 {
            Some(self.controlled_player(slot))
        } else {
            (0..4u8).find(|&p| self.slot_of[p as usize] == slot)
        }
    }

    /// The ball.
    #[must_use]
    pub fn ball(&self) -> BallView {
        let b = &self.ball;
        let state = match b.mode {
            BallMode::Held => BallState::Held(b.owner),
            BallMode::Shot => BallState::Shot {
                shooter: b.owner,
                progress: b.t,
                duration: b.dur,
            },
            BallMode::Pass => BallState::Pass {
                from: b.owner,
                to: b.receiver,
            },
            BallMode::Loose => BallState::Loose,
            BallMode::Dead => BallState::Dead,
        };
        BallView {
            x: units(b.pos.x),
            y: units(b.pos.y),
            z: units(b.z),
            state,
        }
    }

    /// Events of the last tick, in the order they happened.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events[..self.n_events as usize]
    }

    /// Per-team statistics so far.
    #[must_use]
    pub fn stats(&self) -> [TeamStats; 2] {
        self.stats
    }

    /// The (x, y) of the hoop `side` (0 Home, 1 Away; taken modulo 2)
    /// attacks now. Teams change ends at half time: in the first half Home
    /// attacks the right hoop ([`HOOP_RIGHT_X`](crate::HOOP_RIGHT_X)) and
    /// Away the left one; from the second half on, overtimes included, it
    /// is the other way round. During the break after the first half the
    /// first half's ends still hold (the swap happens when the second half
    /// starts).
    #[must_use]
    pub fn attacked_hoop(&self, side: u8) -> (i32, i32) {
        let h = attack_hoop_in(self.period, side & 1);
        (units(h.x), units(h.y))
    }

    /// Whether `side` attacks towards the right (growing x) now: Home in
    /// the first half, Away from the second half on. See
    /// [`attacked_hoop`](Self::attacked_hoop).
    #[must_use]
    pub fn attacks_right(&self, side: u8) -> bool {
        self.attacked_hoop(side).0 > crate::COURT_LENGTH / 2
    }
}

impl Snapshot {
    /// The (x, y) of the hoop `side` attacks in this frame, as
    /// [`Ntba::attacked_hoop`] (the ends follow
    /// [`Clocks::period`]).
    #[must_use]
    pub fn attacked_hoop(&self, side: u8) -> (i32, i32) {
        let h = attack_hoop_in(self.clocks.period, side & 1);
        (units(h.x), units(h.y))
    }

    /// Whether `side` attacks towards the right in this frame, as
    /// [`Ntba::attacks_right`].
    #[must_use]
    pub fn attacks_right(&self, side: u8) -> bool {
        self.attacked_hoop(side).0 > crate::COURT_LENGTH / 2
    }
}
