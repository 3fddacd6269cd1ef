//! The game state and its tick.

use crate::ai;
use crate::consts::*;
use crate::length::MatchLength;
use crate::lineup::Lineup;
use crate::math::{dist, facing_of, m, mul_div, Len, Sq, DIR16, DIR8, V2};
use crate::pad::Pad;
use crate::rng::Rng;
use crate::view::{Action, Event, Phase, TeamStats};
use lockstep::Fnv1a;

/// Most events recorded during one tick (more are dropped; one tick never
/// produces that many in practice).
pub const MAX_EVENTS: usize = 8;

/// One metre.
const M: Len = Len::ONE;

/// In [`Ntba::slot_of`]: no pad drives this court player, the built-in AI
/// plays it.
pub(crate) const NO_SLOT: u8 = 0xff;

/// The pad slot that drives each court player for `people` people (3 or
/// 4) from the line-up `seed` carries ([`Lineup::for_match`]), [`NO_SLOT`]
/// for the ones the AI plays. The engine cannot refuse a seed, so a line-up
/// that puts three people on a team is played with the default one (every
/// peer derives the same) and a warning says so; hosts check with
/// [`Lineup::for_match`] first.
fn lineup(seed: u64, people: u8) -> [u8; 4] {
    let lineup = match Lineup::for_match(seed, people) {
        Ok(Some(lineup)) => Some(lineup),
        Ok(None) => None,
        Err(e) => {
            log::warn!("ntba: the match seed's line-up is refused ({e}); playing the default one");
            Lineup::alternating(people).ok()
        }
    };
    let mut slot_of = [NO_SLOT; 4];
    if let Some(lineup) = lineup {
        for slot in 0..lineup.people() {
            if let Some(p) = lineup.court_player(slot) {
                slot_of[usize::from(p & 3)] = slot;
            }
        }
    }
    slot_of
}

/// A ball landing faster than this (0.02 m per tick, 1.2 m/s) bounces.
const BOUNCE_SPEED: Len = m!(0.02);

/// What a player wants to do this tick: from the pad for a controlled
/// player, from the built-in AI otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Intent {
    /// Desired direction of movement (any length; zero = stop).
    pub mv: V2,
    pub turbo: bool,
    /// Shoot button held.
    pub shoot_held: bool,
    /// Shoot button pressed this tick.
    pub shoot_press: bool,
    /// Pass / steal pressed this tick.
    pub action_press: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Player {
    pub pos: V2,
    pub vel: V2,
    /// Height of the feet above the floor.
    pub z: Len,
    /// Ticks into the current jump, 0 on the ground.
    pub jump_t: u8,
    /// In a shooting jump with the ball.
    pub shooting: bool,
    pub facing: u8,
    pub stamina: u16,
    pub steal_cd: u8,
    /// Ticks left of a steal swipe animation.
    pub swipe_t: u8,
    /// Ticks left of a throw (pass or shot release) animation.
    pub throw_t: u8,
    pub action: Action,
    pub anim: u16,
}

impl Player {
    const fn new(pos: V2, facing: u8) -> Self {
        Player {
            pos,
            vel: V2::ZERO,
            z: Len::ZERO,
            jump_t: 0,
            shooting: false,
            facing,
            stamina: STAMINA_MAX,
            steal_cd: 0,
            swipe_t: 0,
            throw_t: 0,
            action: Action::Idle,
            anim: 0,
        }
    }
}

/// What the ball is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BallMode {
    Held = 0,
    Shot = 1,
    Pass = 2,
    Loose = 3,
    Dead = 4,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ball {
    pub mode: BallMode,
    /// Held: the holder. Shot: the shooter. Pass: the passer. Otherwise the
    /// last player who touched it.
    pub owner: u8,
    /// Pass: the receiver.
    pub receiver: u8,
    pub pos: V2,
    pub z: Len,
    pub vel: V2,
    pub vz: Len,
    /// Flight (shot or pass) from, to, tick, duration, arc height.
    pub from: V2,
    pub from_z: Len,
    pub to: V2,
    pub to_z: Len,
    pub t: u16,
    pub dur: u16,
    pub arc: Len,
    /// Shot: points it is worth and whether it goes in.
    pub points: u8,
    pub made: bool,
    /// Bit per player who already tried to block or intercept this flight.
    pub tried: u8,
    /// The rim was touched since the last possession (resets the shot clock).
    pub rim: bool,
    /// Ticks before a loose ball can be grabbed.
    pub grab_cd: u8,
}

/// The whole NtBA match state. Plain data, `Copy`-sized: saving is a clone.
///
/// Read it through its accessors ([`Ntba::players`], [`Ntba::ball`],
/// [`Ntba::clocks`], [`Ntba::events`] ...); advance it with
/// [`lockstep::DeterministicGame::step`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ntba {
    pub(crate) seed: u64,
    pub(crate) rng: Rng,
    pub(crate) tick: u32,
    pub(crate) players: [Player; 4],
    pub(crate) ball: Ball,
    pub(crate) score: [u16; 2],
    pub(crate) period: u8,
    pub(crate) clock: u32,
    pub(crate) shot_clock: u16,
    pub(crate) possession: Option<u8>,
    pub(crate) phase: Phase,
    pub(crate) phase_t: u16,
    pub(crate) restart_side: u8,
    pub(crate) restart_spot: V2,
    pub(crate) first_side: u8,
    pub(crate) controlled: [u8; 2],
    /// How many people play: 2 (each drives a team, switching between its
    /// two court players) or 3 and 4 (each drives one court player).
    pub(crate) people: u8,
    /// With three or four people, the pad slot that drives each court
    /// player ([`NO_SLOT`]: the AI). Unused with two.
    pub(crate) slot_of: [u8; 4],
    /// How long the halves and overtimes last (from the seed, which the
    /// state hash already covers).
    pub(crate) length: MatchLength,
    /// Last tick's pads, by slot (with two people only the first two are
    /// used; the others stay unpressed). [`Pad::ABSENT`] here: nobody was
    /// at that pad last tick (it counts as nothing pressed).
    pub(crate) prev_pad: [Pad; 4],
    pub(crate) winner: Option<u8>,
    pub(crate) events: [Event; MAX_EVENTS],
    pub(crate) n_events: u8,
    pub(crate) stats: [TeamStats; 2],
}

/// The team (0 Home, 1 Away) of player `p` (0..4).
pub(crate) const fn team(p: u8) -> u8 {
    p / 2
}

/// The hoop `side` attacks in `period`. Teams change ends at half time:
/// in the first half (period 0) Home attacks the right hoop and Away the
/// left one; from the second half on, overtimes included (they keep the
/// second half's ends, as in real basketball), Home attacks the left hoop
/// and Away the right one.
pub(crate) const fn attack_hoop_in(period: u8, side: u8) -> V2 {
    let home_right = period == 0;
    if (side & 1 == 0) == home_right {
        V2::new(HOOP_RIGHT_X, HOOP_Y)
    } else {
        V2::new(HOOP_LEFT_X, HOOP_Y)
    }
}

/// Height of a jump `t` ticks in: a parabola peaking at the apex.
pub(crate) fn jump_z(t: u8) -> Len {
    let t = i32::from(t);
    let d = i32::from(JUMP_TICKS);
    JUMP_HEIGHT * (4 * t * (d - t)) / (d * d)
}

/// `p` clamped to the court, keeping a player's body inside the lines.
pub(crate) fn pin(p: V2) -> V2 {
    V2::new(
        p.x.clamp(PLAYER_RADIUS, COURT_LENGTH - PLAYER_RADIUS),
        p.y.clamp(PLAYER_RADIUS, COURT_WIDTH - PLAYER_RADIUS),
    )
}

fn in_court(p: V2) -> bool {
    (Len::ZERO..=COURT_LENGTH).contains(&p.x) && (Len::ZERO..=COURT_WIDTH).contains(&p.y)
}

impl Ntba {
    /// A new match from `seed` for two people (a team each): the seed
    /// decides who inbounds first.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self::with_people(seed, 2)
    }

    /// A new match from `seed` for `people` people: 2 (or fewer) drive a
    /// team each; 3 or 4 drive one court player each, placed by the
    /// line-up the seed carries ([`Lineup::for_match`]); more than 4 count
    /// as 4. This cannot fail: a host refuses a bad configuration before
    /// the match with [`Lineup::for_match`].
    #[must_use]
    pub fn with_people(seed: u64, people: u8) -> Self {
        let people = people.clamp(2, 4);
        let slot_of = if people > 2 {
            lineup(seed, people)
        } else {
            [NO_SLOT; 4]
        };
        let length = MatchLength::of_match(seed, people);
        let mut rng = Rng::new(seed);
        let first_side = (rng.next_u64() >> 63) as u8;
        let placeholder = Player::new(V2::ZERO, 0);
        let mut g = Ntba {
            seed,
            rng,
            tick: 0,
            players: [placeholder; 4],
            ball: Ball {
                mode: BallMode::Dead,
                owner: 0,
                receiver: 0,
                pos: V2::new(COURT_LENGTH / 2, COURT_WIDTH / 2),
                z: Len::ZERO,
                vel: V2::ZERO,
                vz: Len::ZERO,
                from: V2::ZERO,
                from_z: Len::ZERO,
                to: V2::ZERO,
                to_z: Len::ZERO,
                t: 0,
                dur: 0,
                arc: Len::ZERO,
                points: 0,
                made: false,
                tried: 0,
                rim: false,
                grab_cd: 0,
            },
            score: [0, 0],
            period: 0,
            clock: length.half_ticks(),
            shot_clock: SHOT_CLOCK_TICKS,
            possession: None,
            phase: Phase::Play,
            phase_t: 0,
            restart_side: first_side,
            restart_spot: V2::ZERO,
            first_side,
            controlled: [0, 0],
            people,
            slot_of,
            length,
            prev_pad: [Pad::NONE; 4],
            winner: None,
            events: [Event::None; MAX_EVENTS],
            n_events: 0,
            stats: [TeamStats::default(); 2],
        };
        // Spread the players out so the inbound formation below starts clean.
        for p in 0..4u8 {
            let x = if team(p) == 0 {
                COURT_LENGTH / 3
            } else {
                2 * COURT_LENGTH / 3
            };
            let y = COURT_WIDTH / 3 * (1 + i32::from(p % 2));
            g.players[p as usize] = Player::new(V2::new(x, y), if team(p) == 0 { 0 } else { 4 });
        }
        let spot = baseline_spot(g.defend_hoop(first_side));
        g.inbound(first_side, spot);
        g.n_events = 0;
        g
    }

    pub(crate) fn push_event(&mut self, e: Event) {
        if (self.n_events as usize) < MAX_EVENTS {
            self.events[self.n_events as usize] = e;
            self.n_events += 1;
        }
    }

    /// The hoop `side` attacks now (it depends on the period: teams change
    /// ends at half time).
    pub(crate) const fn attack_hoop(&self, side: u8) -> V2 {
        attack_hoop_in(self.period, side)
    }

    /// The hoop `side` defends now.
    pub(crate) const fn defend_hoop(&self, side: u8) -> V2 {
        attack_hoop_in(self.period, 1 - (side & 1))
    }

    /// The player index (0..4) `side` controls.
    pub(crate) fn controlled_player(&self, side: u8) -> u8 {
        side * 2 + self.controlled[side as usize]
    }

    /// The pad slot that drives court player `p`, if a person does.
    pub(crate) fn driver(&self, p: u8) -> Option<u8> {
        if self.people <= 2 {
            let side = team(p);
            (self.controlled_player(side) == p).then_some(side)
        } else {
            let s = self.slot_of[(p & 3) as usize];
            (s != NO_SLOT).then_some(s)
        }
    }

    /// Whether nobody was at pad slot `slot` last tick (it played
    /// [`Pad::ABSENT`]): the AI played its court players.
    pub(crate) fn absent(&self, slot: u8) -> bool {
        self.prev_pad[usize::from(slot & 3)].is_absent()
    }

    /// The holder of the ball, if someone holds it.
    pub(crate) fn holder(&self) -> Option<u8> {
        (self.ball.mode == BallMode::Held).then_some(self.ball.owner)
    }

    /// Advances one tick with one pad per slot (with two people, one per
    /// team; the last two are then ignored).
    pub(crate) fn advance(&mut self, mut pads: [Pad; 4]) {
        if self.people <= 2 {
            pads[2] = Pad::NONE;
            pads[3] = Pad::NONE;
        }
        self.tick = self.tick.wrapping_add(1);
        self.n_events = 0;
        match self.phase {
            Phase::Play => self.step_play(pads),
            Phase::Dead => {
                self.settle();
                self.ball_dead();
                self.phase_t = self.phase_t.saturating_sub(1);
                if self.phase_t == 0 {
                    if self.clock == 0 {
                        self.end_period();
                    } else {
                        self.inbound(self.restart_side, self.restart_spot);
                    }
                }
            }
            Phase::Break => {
                self.settle();
                self.ball_dead();
                self.phase_t = self.phase_t.saturating_sub(1);
                if self.phase_t == 0 {
                    // The match ends at the latest after the sudden-death
                    // period (see `end_period`), so the cap never bites; it
                    // keeps `period` small whatever happens.
                    self.period = self.period.saturating_add(1).min(SUDDEN_DEATH_PERIOD);
                    self.clock = if self.period == 1 {
                        self.length.half_ticks()
                    } else {
                        self.length.overtime_ticks()
                    };
                    // From period 1 on the teams attack the other hoop
                    // (`attack_hoop_in`); the inbound puts everyone in the
                    // formation for the new ends.
                    // Periods alternate the first possession: the team that
                    // did not start the first half starts periods 1, 3 ...
                    let side = self.first_side ^ (self.period & 1);
                    self.inbound(side, baseline_spot(self.defend_hoop(side)));
                }
            }
            Phase::Over => {
                self.settle();
                self.ball_dead();
            }
        }
        self.animate();
        self.prev_pad = pads;
    }

    /// Outside play: players glide to a stop and finish their jumps.
    fn settle(&mut self) {
        for pl in &mut self.players {
            pl.shooting = false;
            if pl.jump_t > 0 {
                pl.jump_t += 1;
                if pl.jump_t >= JUMP_TICKS {
                    pl.jump_t = 0;
                }
                pl.z = jump_z(pl.jump_t);
            }
            pl.vel = pl.vel.scale(3, 4);
            pl.pos = pin(pl.pos + pl.vel);
            pl.stamina = (pl.stamina + 1).min(STAMINA_MAX);
        }
        self.separate();
    }

    fn step_play(&mut self, pads: [Pad; 4]) {
        // A pad slot playing `Pad::ABSENT` has nobody at it: this tick the
        // AI plays the court players it would drive, and it presses
        // nothing (nor did it last tick, for what counts as a press).
        let absent: [bool; 4] = pads.map(Pad::is_absent);
        let live = |p: Pad| if p.is_absent() { Pad::NONE } else { p };
        let pads = pads.map(live);
        let prev = self.prev_pad.map(live);
        let pressed: [u8; 4] = core::array::from_fn(|i| pads[i].0 & !prev[i].0);
        let driven = |g: &Ntba, p: u8| g.driver(p).filter(|&s| !absent[usize::from(s & 3)]);
        if self.people <= 2 {
            for side in 0..2u8 {
                let holds = self.holder().is_some_and(|h| team(h) == side);
                if pressed[side as usize] & Pad::SWITCH != 0 && !holds {
                    self.controlled[side as usize] ^= 1;
                }
            }
        }
        // With three or four people, an AI court player holding the ball
        // takes orders from its team-mate's person: pass (call for the
        // ball) or shoot. Those presses are that person's for this tick.
        let mut call = (NO_SLOT, 0u8);
        if self.people > 2 {
            if let Some(h) = self.holder() {
                if let (None, Some(s)) = (driven(self, h), driven(self, h ^ 1)) {
                    call = (s, pressed[s as usize] & (Pad::ACTION | Pad::SHOOT));
                }
            }
        }
        let mut intents = [Intent::default(); 4];
        for p in 0..4u8 {
            // With two people a team's holder always has its pad, unless
            // nobody is at that pad: the AI then handles the ball as it
            // does with three or four.
            let ai_handles = self.people > 2 || absent[usize::from(team(p))];
            intents[p as usize] = match driven(self, p) {
                Some(s) if s == call.0 => Intent {
                    shoot_held: false,
                    shoot_press: false,
                    action_press: false,
                    ..pad_intent(pads[s as usize], pressed[s as usize])
                },
                Some(s) => pad_intent(pads[s as usize], pressed[s as usize]),
                None if ai_handles && self.holder() == Some(p) => ai::handler(self, p, call.1),
                None => ai::teammate(self, p, driven(self, p ^ 1).is_none()),
            };
        }
        for p in 0..4u8 {
            self.move_player(p, &intents[p as usize]);
        }
        self.separate();
        for p in 0..4u8 {
            self.act(p, &intents[p as usize]);
        }
        self.update_ball();
        self.run_clocks();
    }

    fn move_player(&mut self, p: u8, it: &Intent) {
        let holding = self.holder() == Some(p);
        let pl = &mut self.players[p as usize];
        if pl.jump_t > 0 {
            pl.jump_t += 1;
            if pl.jump_t >= JUMP_TICKS {
                pl.jump_t = 0;
            }
            pl.z = jump_z(pl.jump_t);
        } else {
            let moving = it.mv != V2::ZERO;
            let mut speed = if holding { DRIBBLE_SPEED } else { RUN_SPEED };
            if it.turbo && moving && pl.stamina > 0 {
                // Turbo scales the speed by TURBO_SPEED / RUN_SPEED.
                speed = mul_div(speed, TURBO_SPEED, RUN_SPEED);
                pl.stamina = pl.stamina.saturating_sub(2);
            } else if !it.turbo {
                pl.stamina = (pl.stamina + 1).min(STAMINA_MAX);
            }
            let target = it.mv.with_len(speed);
            let dv = target - pl.vel;
            let step = V2::new(approach(dv.x), approach(dv.y));
            pl.vel = pl.vel + step;
            if let Some(f) = facing_of(it.mv) {
                pl.facing = f;
            }
        }
        let next = pl.pos + pl.vel;
        let pinned = pin(next);
        if pinned.x != next.x {
            pl.vel.x = Len::ZERO;
        }
        if pinned.y != next.y {
            pl.vel.y = Len::ZERO;
        }
        pl.pos = pinned;
    }

    /// Pushes overlapping players apart (equal shares), then pins them to
    /// the court again; two passes settle the rare three-body case.
    pub(crate) fn separate(&mut self) {
        let min = 2 * PLAYER_RADIUS;
        for _ in 0..3 {
            let mut moved = false;
            for i in 0..4usize {
                for j in (i + 1)..4usize {
                    let d = self.players[j].pos - self.players[i].pos;
                    if d.len2() >= min.wide_mul(min) {
                        continue;
                    }
                    moved = true;
                    let len = d.len();
                    let dir = if len == Len::ZERO {
                        // Exactly on top of each other: split along x (or y at an end line).
                        if self.players[i].pos.x > COURT_LENGTH / 2 {
                            -DIR8[0]
                        } else {
                            DIR8[0]
                        }
                    } else {
                        d.with_len(Len::ONE)
                    };
                    // Each body's share of the overlap, and one step more.
                    let push = (min - len) / 2 + Len::DELTA;
                    let off = dir.times(push);
                    // i moves back by its share; whatever a line stops it
                    // from taking, j takes on top of its own.
                    let old_i = self.players[i].pos;
                    let new_i = pin(old_i - off);
                    let taken = old_i - new_i;
                    let rest = off + off - taken;
                    self.players[i].pos = new_i;
                    self.players[j].pos = pin(self.players[j].pos + rest);
                }
            }
            if !moved {
                break;
            }
        }
    }

    fn act(&mut self, p: u8, it: &Intent) {
        let side = team(p);
        let pi = p as usize;
        if self.holder() == Some(p) {
            let grounded = self.players[pi].jump_t == 0;
            if self.players[pi].shooting {
                if !it.shoot_held || self.players[pi].jump_t + 1 >= JUMP_TICKS {
                    self.release_shot(p);
                    return;
                }
            } else if it.shoot_held && grounded {
                let hoop = self.attack_hoop(side);
                let pl = &mut self.players[pi];
                pl.jump_t = 1;
                pl.z = jump_z(1);
                pl.shooting = true;
                pl.vel = pl.vel.scale(1, 3);
                if let Some(f) = facing_of(hoop - pl.pos) {
                    pl.facing = f;
                }
                return;
            }
            if it.action_press {
                self.pass(p);
            }
            return;
        }
        let opp_holds = self.holder().is_some_and(|h| team(h) != side);
        if it.action_press && opp_holds && self.players[pi].steal_cd == 0 {
            self.swipe(p);
        }
        if it.shoot_press && self.players[pi].jump_t == 0 {
            let pl = &mut self.players[pi];
            pl.jump_t = 1;
            pl.z = jump_z(1);
        }
    }

    fn swipe(&mut self, p: u8) {
        let pi = p as usize;
        self.players[pi].steal_cd = STEAL_COOLDOWN;
        self.players[pi].swipe_t = 12;
        let Some(h) = self.holder() else { return };
        let hp = self.players[h as usize];
        let me = self.players[pi];
        if let Some(f) = facing_of(hp.pos - me.pos) {
            self.players[pi].facing = f;
        }
        if dist(hp.pos, me.pos) > STEAL_RADIUS {
            return;
        }
        // Harder to strip a player who is up in the air with the ball
        // raised, easier when they are standing still.
        let still = hp.vel.len() < RUN_SPEED / 4;
        let odds = if hp.jump_t > 0 {
            STEAL_ODDS_AIRBORNE
        } else if still {
            STEAL_ODDS_STILL
        } else {
            STEAL_ODDS_MOVING
        };
        if self.rng.chance(odds) {
            self.stats[team(p) as usize].steals =
                self.stats[team(p) as usize].steals.saturating_add(1);
            self.stats[team(h) as usize].turnovers =
                self.stats[team(h) as usize].turnovers.saturating_add(1);
            self.push_event(Event::Steal { player: p, from: h });
            self.give_ball(p);
        }
    }

    /// Gives the ball to `p`: their team gains possession and control moves
    /// to them.
    pub(crate) fn give_ball(&mut self, p: u8) {
        let side = team(p);
        if self.possession != Some(side) || self.ball.rim {
            self.shot_clock = SHOT_CLOCK_TICKS;
        }
        self.possession = Some(side);
        self.ball.mode = BallMode::Held;
        self.ball.owner = p;
        self.ball.rim = false;
        self.ball.vel = V2::ZERO;
        self.ball.vz = Len::ZERO;
        self.controlled[side as usize] = p % 2;
        self.players[p as usize].shooting = false;
        self.hold_ball();
    }

    /// Puts a held ball in the holder's hands (dribble or raised).
    fn hold_ball(&mut self) {
        let h = self.players[self.ball.owner as usize];
        let hand = DIR8[(h.facing & 7) as usize].times(m!(0.45));
        let at = h.pos + hand;
        // In the hands, but never drawn beyond the lines.
        self.ball.pos = V2::new(
            at.x.clamp(Len::ZERO, COURT_LENGTH),
            at.y.clamp(Len::ZERO, COURT_WIDTH),
        );
        self.ball.z = if h.shooting {
            h.z + m!(2.2)
        } else if h.jump_t > 0 {
            h.z + m!(1.4)
        } else {
            // Dribble: a triangle wave between the hand (1 m) and the floor.
            let ph = (self.tick.wrapping_add(u32::from(self.ball.owner) * 7) % 24) as i32;
            let k = if ph < 12 { 12 - ph } else { ph - 12 };
            M * k / 12
        };
        self.ball.vel = h.vel;
    }

    fn release_shot(&mut self, p: u8) {
        let side = team(p);
        let pi = p as usize;
        let pl = self.players[pi];
        let hoop = self.attack_hoop(side);
        let d = dist(pl.pos, hoop);
        let points = if d >= THREE_POINT_RADIUS { 3 } else { 2 };
        let release = pl.jump_t;
        let odds = self.shot_odds(p, d, release);
        let made = self.rng.chance(odds);
        let to = if made {
            hoop
        } else {
            let k = self.rng.below(16) as usize;
            hoop + DIR16[k].times(RIM_RADIUS + m!(0.12))
        };
        self.hold_ball();
        let b = &mut self.ball;
        b.mode = BallMode::Shot;
        b.owner = p;
        b.from = b.pos;
        b.from_z = b.z;
        b.to = to;
        b.to_z = RIM_HEIGHT;
        b.t = 0;
        // 20 ticks and 3 more per metre.
        b.dur = (20 + (d * 3).to_num::<i32>()) as u16;
        b.arc = (M + d / 6).min(m!(3));
        b.points = points;
        b.made = made;
        b.tried = 0;
        let pl = &mut self.players[pi];
        pl.shooting = false;
        pl.throw_t = 10;
        let st = &mut self.stats[side as usize];
        st.shots = st.shots.saturating_add(1);
        if points == 3 {
            st.threes = st.threes.saturating_add(1);
        }
        self.push_event(Event::Shot {
            player: p,
            points,
            release,
            dunk: d < DUNK_RANGE,
        });
    }

    /// Chance (per mille) that a shot from distance `d` released `jump_t`
    /// ticks into the jump goes in, given the defenders around `p`.
    pub(crate) fn shot_odds(&self, p: u8, d: Len, jump_t: u8) -> u32 {
        // `per_mille * (d - from) / span`, whole per mille rounded down (d
        // is at least `from` wherever it is used).
        let falling = |per_mille: i32, from: Len, span: Len| -> i32 {
            ((d - from) * per_mille / span).to_num()
        };
        let mut odds: i32 = if d < DUNK_RANGE {
            880
        } else if d < m!(4) {
            640 - falling(100, m!(1.8), m!(2.2))
        } else if d < THREE_POINT_RADIUS {
            540 - falling(100, m!(4), THREE_POINT_RADIUS - m!(4))
        } else if d < m!(8.5) {
            400 - falling(100, THREE_POINT_RADIUS, m!(8.5) - THREE_POINT_RADIUS)
        } else {
            (300 - falling(50, m!(8.5), M)).max(20)
        };
        let off = i32::from(jump_t.abs_diff(JUMP_APEX));
        let close = d < DUNK_RANGE;
        odds += match off {
            0..=2 => 80,
            3..=5 => 0,
            6..=10 => {
                if close {
                    -40
                } else {
                    -120
                }
            }
            _ => {
                if close {
                    -100
                } else {
                    -250
                }
            }
        };
        let me = self.players[p as usize].pos;
        let mut worst = 0;
        for q in 0..4u8 {
            if team(q) == team(p) {
                continue;
            }
            let qp = self.players[q as usize];
            let dd = dist(qp.pos, me);
            let pen = if dd < M {
                if qp.jump_t > 0 {
                    220
                } else {
                    150
                }
            } else if dd < m!(1.8) {
                80
            } else if dd < m!(2.6) {
                30
            } else {
                0
            };
            worst = worst.max(pen);
        }
        (odds - worst).clamp(20, 950) as u32
    }

    fn pass(&mut self, p: u8) {
        let side = team(p);
        let mate = p ^ 1;
        let mp = self.players[mate as usize];
        self.hold_ball();
        let from = self.ball.pos;
        // A flight of 6 ticks and one more per 0.3 m.
        let flight = |d: Len| -> i32 { 6 + (d / m!(0.3)).to_num::<i32>() };
        let dur = flight(dist(from, mp.pos));
        let to = pin(mp.pos + mp.vel.scale(dur, 1));
        let d = dist(from, to);
        let dur = flight(d);
        let b = &mut self.ball;
        b.mode = BallMode::Pass;
        b.owner = p;
        b.receiver = mate;
        b.from = from;
        b.from_z = b.z.max(M);
        b.to = to;
        b.to_z = m!(1.2);
        b.t = 0;
        b.dur = dur.clamp(4, 200) as u16;
        b.arc = m!(0.25) + d / 20;
        b.tried = 0;
        let pl = &mut self.players[p as usize];
        pl.shooting = false;
        pl.throw_t = 10;
        if let Some(f) = facing_of(to - pl.pos) {
            pl.facing = f;
        }
        self.controlled[side as usize] = mate % 2;
        self.push_event(Event::Pass { from: p, to: mate });
    }

    /// Position along the current flight at its tick `t`.
    fn flight_pos(&mut self) {
        let b = &mut self.ball;
        let t = i32::from(b.t);
        let d = i32::from(b.dur.max(1));
        let lerp = |a: Len, z: Len| a + (z - a) * t / d;
        let x = lerp(b.from.x, b.to.x);
        let y = lerp(b.from.y, b.to.y);
        // The arc's parabola, in 64 bits so that arc × 4t(d - t) cannot
        // overflow whatever the flight's length.
        let (t, d) = (i64::from(t), i64::from(d));
        let lift: Len = (Sq::from(b.arc) * (4 * t * (d - t)) / (d * d)).to_num();
        let z = lerp(b.from_z, b.to_z) + lift;
        b.vel = V2::new(x - b.pos.x, y - b.pos.y);
        b.vz = z - b.z;
        b.pos = V2::new(x, y);
        b.z = z;
    }

    fn update_ball(&mut self) {
        match self.ball.mode {
            BallMode::Held => self.hold_ball(),
            BallMode::Shot => self.ball_shot(),
            BallMode::Pass => self.ball_pass(),
            BallMode::Loose => self.ball_loose(),
            BallMode::Dead => self.ball_dead(),
        }
    }

    fn ball_shot(&mut self) {
        self.ball.t += 1;
        self.flight_pos();
        let shooter = self.ball.owner;
        if self.ball.t <= 14 {
            for q in 0..4u8 {
                if team(q) == team(shooter) || self.ball.tried & (1 << q) != 0 {
                    continue;
                }
                let qp = self.players[q as usize];
                if qp.jump_t == 0
                    || dist(qp.pos, self.ball.pos) > m!(0.9)
                    || qp.z + REACH < self.ball.z
                {
                    continue;
                }
                self.ball.tried |= 1 << q;
                if self.rng.chance(BLOCK_ODDS) {
                    self.block(q);
                    return;
                }
            }
        }
        if self.ball.t >= self.ball.dur {
            let side = team(shooter);
            if self.ball.made {
                self.score_basket(side, shooter);
            } else {
                let hoop = self.attack_hoop(side);
                // Bounce off the rim back into the court (never towards the
                // baseline behind the hoop).
                let base = if hoop.x > COURT_LENGTH / 2 { 4 } else { 12 };
                let k = (base + self.rng.below(9) as usize) % 16;
                let speed = self.rng.len_range(m!(0.02), m!(0.06));
                let b = &mut self.ball;
                b.mode = BallMode::Loose;
                b.rim = true;
                b.vel = DIR16[k].times(speed);
                b.vz = self.rng.len_range(m!(0.02), m!(0.05));
                b.grab_cd = 4;
                self.possession = None;
                self.push_event(Event::Miss { player: shooter });
            }
        }
    }

    fn block(&mut self, q: u8) {
        let shooter = self.ball.owner;
        let away = (self.ball.from - self.ball.to).with_len(m!(0.08));
        let side = self.rng.len_range(m!(-0.03), m!(0.03));
        let b = &mut self.ball;
        b.mode = BallMode::Loose;
        b.owner = q;
        b.vel = away + V2::new(-away.y, away.x).with_len(side);
        b.vz = m!(0.02);
        b.grab_cd = 8;
        self.stats[team(q) as usize].blocks = self.stats[team(q) as usize].blocks.saturating_add(1);
        self.push_event(Event::Block { player: q, shooter });
    }

    fn ball_pass(&mut self) {
        self.ball.t += 1;
        self.flight_pos();
        let passer = self.ball.owner;
        if !in_court(self.ball.pos) {
            self.out_of_bounds();
            return;
        }
        if self.ball.t >= 2 && self.ball.t + 1 < self.ball.dur {
            for q in 0..4u8 {
                if team(q) == team(passer) || self.ball.tried & (1 << q) != 0 {
                    continue;
                }
                let qp = self.players[q as usize];
                if dist(qp.pos, self.ball.pos) > m!(0.7) || qp.z + REACH < self.ball.z {
                    continue;
                }
                self.ball.tried |= 1 << q;
                if self.rng.chance(INTERCEPT_ODDS) {
                    self.stats[team(q) as usize].steals =
                        self.stats[team(q) as usize].steals.saturating_add(1);
                    self.stats[team(passer) as usize].turnovers = self.stats[team(passer) as usize]
                        .turnovers
                        .saturating_add(1);
                    self.push_event(Event::Steal {
                        player: q,
                        from: passer,
                    });
                    self.give_ball(q);
                    return;
                }
            }
        }
        if self.ball.t >= self.ball.dur {
            let r = self.ball.receiver;
            let rp = self.players[r as usize];
            if dist(rp.pos, self.ball.pos) <= m!(1.5) && rp.z + REACH >= self.ball.z {
                self.give_ball(r);
            } else {
                let b = &mut self.ball;
                b.mode = BallMode::Loose;
                b.grab_cd = 0;
            }
        }
    }

    fn ball_loose(&mut self) {
        let b = &mut self.ball;
        b.grab_cd = b.grab_cd.saturating_sub(1);
        b.vz -= GRAVITY;
        b.pos = b.pos + b.vel;
        b.z += b.vz;
        if b.z <= Len::ZERO {
            b.z = Len::ZERO;
            if b.vz < -BOUNCE_SPEED {
                b.vz = -b.vz * 11 / 20;
                b.vel = b.vel.scale(7, 8);
            } else {
                b.vz = Len::ZERO;
            }
        }
        if b.z == Len::ZERO && b.vz == Len::ZERO {
            b.vel = b.vel.scale(15, 16);
        }
        if !in_court(self.ball.pos) {
            self.out_of_bounds();
            return;
        }
        if self.ball.grab_cd > 0 {
            return;
        }
        let mut best: Option<(Len, u8)> = None;
        for q in 0..4u8 {
            let qp = self.players[q as usize];
            let d = dist(qp.pos, self.ball.pos);
            if d > GRAB_RADIUS || qp.z + REACH < self.ball.z {
                continue;
            }
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, q));
            }
        }
        if let Some((_, q)) = best {
            let rim = self.ball.rim;
            let side = team(q);
            if rim {
                if self.ball.owner / 2 == side {
                    self.stats[side as usize].offensive_rebounds = self.stats[side as usize]
                        .offensive_rebounds
                        .saturating_add(1);
                }
                self.stats[side as usize].rebounds =
                    self.stats[side as usize].rebounds.saturating_add(1);
            }
            self.push_event(Event::Rebound {
                player: q,
                off_rim: rim,
            });
            self.ball.owner = q;
            self.give_ball(q);
        }
    }

    fn ball_dead(&mut self) {
        let b = &mut self.ball;
        b.vel = V2::ZERO;
        if b.z > Len::ZERO || b.vz > Len::ZERO {
            b.vz -= GRAVITY;
            b.z += b.vz;
            if b.z <= Len::ZERO {
                b.z = Len::ZERO;
                b.vz = if b.vz < -BOUNCE_SPEED {
                    -b.vz / 2
                } else {
                    Len::ZERO
                };
            }
        }
    }

    fn out_of_bounds(&mut self) {
        let last = team(self.ball.owner);
        let to = 1 - last;
        let spot = V2::new(
            self.ball.pos.x.clamp(Len::ZERO, COURT_LENGTH),
            self.ball.pos.y.clamp(Len::ZERO, COURT_WIDTH),
        );
        self.ball.pos = spot;
        self.stats[last as usize].turnovers = self.stats[last as usize].turnovers.saturating_add(1);
        self.push_event(Event::OutOfBounds { side: to });
        self.dead_ball(to, spot, AFTER_TURNOVER_TICKS);
    }

    fn dead_ball(&mut self, side: u8, spot: V2, ticks: u16) {
        self.ball.mode = BallMode::Dead;
        self.ball.vel = V2::ZERO;
        // A dead ball only drops (a flight's last vertical step can be
        // steep; gravity alone would carry it far too high).
        self.ball.vz = self.ball.vz.min(Len::ZERO);
        self.phase = Phase::Dead;
        self.phase_t = ticks;
        self.restart_side = side;
        self.restart_spot = spot;
        self.possession = None;
        for pl in &mut self.players {
            pl.shooting = false;
        }
    }

    fn score_basket(&mut self, side: u8, shooter: u8) {
        let points = self.ball.points;
        self.score[side as usize] = self.score[side as usize].saturating_add(u16::from(points));
        let st = &mut self.stats[side as usize];
        st.made = st.made.saturating_add(1);
        if points == 3 {
            st.threes_made = st.threes_made.saturating_add(1);
        }
        self.push_event(Event::Score {
            side,
            player: shooter,
            points,
        });
        let hoop = self.attack_hoop(side);
        self.ball.pos = hoop;
        self.ball.z = RIM_HEIGHT;
        self.ball.vz = Len::ZERO;
        if self.period >= SUDDEN_DEATH_PERIOD {
            self.dead_ball(1 - side, baseline_spot(hoop), AFTER_SCORE_TICKS);
            self.finish(side);
            return;
        }
        self.dead_ball(1 - side, baseline_spot(hoop), AFTER_SCORE_TICKS);
    }

    fn finish(&mut self, winner: u8) {
        self.phase = Phase::Over;
        self.winner = Some(winner);
        self.possession = None;
        self.push_event(Event::GameOver { winner });
    }

    fn end_period(&mut self) {
        let period = self.period;
        self.push_event(Event::PeriodEnd { period });
        self.ball.mode = BallMode::Dead;
        self.ball.vel = V2::ZERO;
        self.ball.vz = self.ball.vz.min(Len::ZERO);
        self.possession = None;
        if period >= 1 && self.score[0] != self.score[1] {
            let w = if self.score[0] > self.score[1] { 0 } else { 1 };
            self.finish(w);
        } else if period >= SUDDEN_DEATH_PERIOD {
            // A scoreless sudden-death period: the tiebreak decides.
            let w = self.tiebreak();
            self.finish(w);
        } else {
            self.phase = Phase::Break;
            self.phase_t = BREAK_TICKS;
        }
    }

    /// The winner of a match still tied after the sudden-death period:
    /// the team that made more shots, then the one with fewer turnovers,
    /// then a coin from the game's PRNG (so every match ends).
    fn tiebreak(&mut self) -> u8 {
        let [h, a] = self.stats;
        if h.made != a.made {
            u8::from(a.made > h.made)
        } else if h.turnovers != a.turnovers {
            u8::from(a.turnovers < h.turnovers)
        } else {
            (self.rng.next_u64() >> 63) as u8
        }
    }

    fn run_clocks(&mut self) {
        if self.phase != Phase::Play {
            return;
        }
        self.clock = self.clock.saturating_sub(1);
        let live = matches!(
            self.ball.mode,
            BallMode::Held | BallMode::Pass | BallMode::Loose
        );
        if let (Some(side), true) = (self.possession, live) {
            self.shot_clock = self.shot_clock.saturating_sub(1);
            if self.shot_clock == 0 && self.clock > 0 {
                let to = 1 - side;
                let b = self.ball.pos;
                let y = if b.y < COURT_WIDTH / 2 {
                    Len::ZERO
                } else {
                    COURT_WIDTH
                };
                self.stats[side as usize].turnovers =
                    self.stats[side as usize].turnovers.saturating_add(1);
                self.push_event(Event::ShotClockViolation { side });
                self.dead_ball(
                    to,
                    V2::new(b.x.clamp(Len::ZERO, COURT_LENGTH), y),
                    AFTER_TURNOVER_TICKS,
                );
                return;
            }
        }
        if self.clock == 0 && self.ball.mode != BallMode::Shot {
            self.end_period();
        }
    }

    /// Restarts play: `side` inbounds from `spot` (a point on or inside the
    /// lines), the team-mate stands towards the attacked hoop and the
    /// defenders between them and it.
    pub(crate) fn inbound(&mut self, side: u8, spot: V2) {
        let spot = pin(spot);
        let a = side * 2;
        let pick = if dist(self.players[a as usize + 1].pos, spot)
            < dist(self.players[a as usize].pos, spot)
        {
            a + 1
        } else {
            a
        };
        let mate = pick ^ 1;
        let hoop = self.attack_hoop(side);
        let toward = (hoop - spot).with_len(m!(3.5));
        let lateral = if spot.y < HOOP_Y { m!(1.5) } else { m!(-1.5) };
        let mate_pos = pin(spot + toward + V2::new(Len::ZERO, lateral));
        self.players[pick as usize].pos = spot;
        self.players[mate as usize].pos = mate_pos;
        let d = (1 - side) * 2;
        for (k, off) in [(d, spot), (d + 1, mate_pos)] {
            let guard = off + (hoop - off).with_len(m!(2.5));
            self.players[k as usize].pos = pin(guard);
        }
        // The defender nearer the inbounder is the one under control.
        let near =
            dist(self.players[d as usize + 1].pos, spot) < dist(self.players[d as usize].pos, spot);
        self.controlled[(1 - side) as usize] = u8::from(near);
        for pl in &mut self.players {
            pl.vel = V2::ZERO;
            pl.jump_t = 0;
            pl.z = Len::ZERO;
            pl.shooting = false;
        }
        for p in 0..4u8 {
            let f =
                facing_of(self.attack_hoop(team(p)) - self.players[p as usize].pos).unwrap_or(0);
            self.players[p as usize].facing = f;
        }
        self.separate();
        self.phase = Phase::Play;
        self.phase_t = 0;
        self.ball.rim = false;
        self.ball.z = M;
        self.possession = None;
        self.give_ball(pick);
        self.shot_clock = SHOT_CLOCK_TICKS;
        self.push_event(Event::Inbound { side, player: pick });
    }

    fn animate(&mut self) {
        let holder = self.holder();
        let over = self.phase == Phase::Over;
        for p in 0..4u8 {
            let winner = self.winner == Some(team(p));
            let pl = &mut self.players[p as usize];
            let has = holder == Some(p);
            let moving = pl.vel.len2() > (RUN_SPEED / 8).wide_mul(RUN_SPEED / 8);
            let a = if over && winner {
                Action::Celebrate
            } else if pl.swipe_t > 0 {
                Action::Steal
            } else if pl.throw_t > 0 {
                Action::Throw
            } else if pl.jump_t > 0 {
                if has {
                    Action::JumpWithBall
                } else {
                    Action::Jump
                }
            } else if has {
                if moving {
                    Action::Dribble
                } else {
                    Action::DribbleStand
                }
            } else if moving {
                Action::Run
            } else {
                Action::Idle
            };
            if a == pl.action {
                pl.anim = pl.anim.saturating_add(1);
            } else {
                pl.action = a;
                pl.anim = 0;
            }
            pl.swipe_t = pl.swipe_t.saturating_sub(1);
            pl.throw_t = pl.throw_t.saturating_sub(1);
            pl.steal_cd = pl.steal_cd.saturating_sub(1);
        }
    }

    /// Feeds every field that affects the simulation into `h`, in a fixed
    /// order, at explicit widths (a length is its fixed-point raw bits, an
    /// `i32`, little endian).
    pub(crate) fn hash_into(&self, h: &mut Fnv1a) {
        h.write_u64(self.seed);
        h.write_u64(self.rng.state());
        h.write_u32(self.tick);
        for pl in &self.players {
            pl.hash_into(h);
        }
        self.ball.hash_into(h);
        h.write_u16(self.score[0]);
        h.write_u16(self.score[1]);
        h.write_u8(self.period);
        h.write_u32(self.clock);
        h.write_u16(self.shot_clock);
        h.write_u8(self.possession.map_or(0xff, |s| s));
        h.write_u8(self.phase as u8);
        h.write_u16(self.phase_t);
        h.write_u8(self.restart_side);
        h.write_i32(self.restart_spot.x.to_bits());
        h.write_i32(self.restart_spot.y.to_bits());
        h.write_u8(self.first_side);
        h.write_u8(self.controlled[0]);
        h.write_u8(self.controlled[1]);
        h.write_u8(self.prev_pad[0].0);
        h.write_u8(self.prev_pad[1].0);
        // Two people: the only mode the fields below do not change, and
        // the hash stays what it was before more people could play.
        if self.people != 2 {
            h.write_u8(self.people);
            h.write_bytes(&self.slot_of);
            h.write_u8(self.prev_pad[2].0);
            h.write_u8(self.prev_pad[3].0);
        }
        h.write_u8(self.winner.map_or(0xff, |s| s));
        self.hash_events_into(h);
        self.hash_stats_into(h);
    }

    /// The events of this tick, count first (part of [`hash_into`](Self::hash_into)).
    pub(crate) fn hash_events_into(&self, h: &mut Fnv1a) {
        h.write_u8(self.n_events);
        for e in &self.events[..self.n_events as usize] {
            h.write_bytes(&e.to_bytes());
        }
    }

    /// Both teams' running totals (part of [`hash_into`](Self::hash_into)).
    pub(crate) fn hash_stats_into(&self, h: &mut Fnv1a) {
        for s in &self.stats {
            for v in s.to_array() {
                h.write_u16(v);
            }
        }
    }
}

impl Player {
    /// Every field, in a fixed order (part of [`Ntba::hash_into`]).
    pub(crate) fn hash_into(&self, h: &mut Fnv1a) {
        h.write_i32(self.pos.x.to_bits());
        h.write_i32(self.pos.y.to_bits());
        h.write_i32(self.vel.x.to_bits());
        h.write_i32(self.vel.y.to_bits());
        h.write_i32(self.z.to_bits());
        h.write_u8(self.jump_t);
        h.write_bool(self.shooting);
        h.write_u8(self.facing);
        h.write_u16(self.stamina);
        h.write_u8(self.steal_cd);
        h.write_u8(self.swipe_t);
        h.write_u8(self.throw_t);
        h.write_u8(self.action as u8);
        h.write_u16(self.anim);
    }
}

impl Ball {
    /// Every field, in a fixed order (part of [`Ntba::hash_into`]).
    pub(crate) fn hash_into(&self, h: &mut Fnv1a) {
        h.write_u8(self.mode as u8);
        h.write_u8(self.owner);
        h.write_u8(self.receiver);
        for v in [self.pos, self.vel, self.from, self.to] {
            h.write_i32(v.x.to_bits());
            h.write_i32(v.y.to_bits());
        }
        h.write_i32(self.z.to_bits());
        h.write_i32(self.vz.to_bits());
        h.write_i32(self.from_z.to_bits());
        h.write_i32(self.to_z.to_bits());
        h.write_u16(self.t);
        h.write_u16(self.dur);
        h.write_i32(self.arc.to_bits());
        h.write_u8(self.points);
        h.write_bool(self.made);
        h.write_u8(self.tried);
        h.write_bool(self.rim);
        h.write_u8(self.grab_cd);
    }
}

/// What a person's pad asks of the court player it drives.
fn pad_intent(pad: Pad, pressed: u8) -> Intent {
    let (dx, dy) = pad.direction();
    Intent {
        mv: V2::new(M * dx, M * dy),
        turbo: pad.has(Pad::TURBO),
        shoot_held: pad.has(Pad::SHOOT),
        shoot_press: pressed & Pad::SHOOT != 0,
        action_press: pressed & Pad::ACTION != 0,
    }
}

/// One step of velocity change towards the target: a third of the gap,
/// the whole gap once it is three steps of [`Len`] or less, so velocities
/// settle exactly.
fn approach(gap: Len) -> Len {
    if gap.abs() <= Len::DELTA * 3 {
        gap
    } else {
        gap / 3
    }
}

/// The inbound spot on the baseline behind `hoop`, a little off-centre so
/// the inbounder does not stand under the rim.
pub(crate) fn baseline_spot(hoop: V2) -> V2 {
    let x = if hoop.x < COURT_LENGTH / 2 {
        Len::ZERO
    } else {
        COURT_LENGTH
    };
    V2::new(x, HOOP_Y + m!(2))
}
