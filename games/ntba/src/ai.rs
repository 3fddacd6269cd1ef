//! The built-in team-mate AI (inside the simulation) and the CPU opponent
//! (outside it: it only produces pad bytes).

use crate::consts::*;
use crate::math::{dist, facing_of, m, Len, Sq, DIR16, DIR8, V2};
use crate::pad::Pad;
use crate::rng::Rng;
use crate::sim::{team, BallMode, Intent, Ntba};
use crate::view::Phase;

/// One metre.
const M: Len = Len::ONE;

/// A cheap deterministic mix of the tick and a player number, for the AI's
/// occasional decisions (it reads the state and must not draw from the
/// game's PRNG before the tick's rolls).
fn mix(tick: u32, p: u8) -> u32 {
    let mut x = u64::from(tick) << 8 | u64::from(p);
    x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (x >> 40) as u32
}

/// Offence spots around the attacked hoop: (distance in from the hoop
/// towards mid-court, distance across).
const SPOTS: [(Len, Len); 7] = [
    (m!(0.9), m!(-5.6)),
    (m!(0.9), m!(5.6)),
    (m!(5), m!(-5)),
    (m!(5), m!(5)),
    (m!(7.3), m!(0)),
    (m!(4.5), m!(-1.8)),
    (m!(4.5), m!(1.8)),
];

fn spot_pos(g: &Ntba, side: u8, k: usize) -> V2 {
    let h = g.attack_hoop(side);
    let into = if h.x > COURT_LENGTH / 2 { -1 } else { 1 };
    let (dx, dy) = SPOTS[k];
    V2::new(h.x + dx * into, h.y + dy)
}

fn nearest_opponent(g: &Ntba, pos: V2, side: u8) -> (Len, u8) {
    let a = (1 - side) * 2;
    let d0 = dist(g.players[a as usize].pos, pos);
    let d1 = dist(g.players[a as usize + 1].pos, pos);
    if d1 < d0 {
        (d1, a + 1)
    } else {
        (d0, a)
    }
}

/// The team-mate AI's intent for player `p` (not the one under control).
/// `alone`: nobody drives its team-mate either this tick (its person is
/// away), so the AI plays both and must not leave an opponent unguarded.
pub(crate) fn teammate(g: &Ntba, p: u8, alone: bool) -> Intent {
    let side = team(p);
    let me = g.players[p as usize];
    let mate = p ^ 1;
    let b = &g.ball;
    let mut it = Intent::default();
    let mut target = me.pos;
    match b.mode {
        BallMode::Held | BallMode::Pass if team(b.owner) == side => {
            if b.mode == BallMode::Pass && b.receiver == p {
                target = b.to;
            } else if b.owner != p {
                target = open_spot(g, p);
            }
        }
        BallMode::Held | BallMode::Pass => {
            // Defence: guard the opponent the controlled team-mate is not on.
            // With both played by the AI the first of the pair takes the
            // opponent nearest to it, and the other the other one.
            let man = if alone && p.is_multiple_of(2) {
                nearest_opponent(g, me.pos, side).1
            } else {
                nearest_opponent(g, g.players[mate as usize].pos, side).1 ^ 1
            };
            let mp = g.players[man as usize];
            let hoop = g.defend_hoop(side);
            let on_ball = b.mode == BallMode::Held && b.owner == man;
            let gap = if on_ball { M } else { m!(1.5) };
            target = mp.pos + (hoop - mp.pos).with_len(gap);
            if on_ball {
                let d = dist(me.pos, mp.pos);
                if mp.shooting && d < m!(1.6) && me.jump_t == 0 && mp.jump_t >= 2 {
                    it.shoot_press = true;
                }
                if d < STEAL_RADIUS && me.steal_cd == 0 && mix(g.tick, p).is_multiple_of(240) {
                    it.action_press = true;
                }
            }
        }
        BallMode::Shot => {
            let hoop = if team(b.owner) == side {
                g.attack_hoop(side)
            } else {
                g.defend_hoop(side)
            };
            let into = if hoop.x > COURT_LENGTH / 2 { -1 } else { 1 };
            let lat = if p.is_multiple_of(2) { -M } else { M };
            target = V2::new(hoop.x + m!(1.5) * into, hoop.y + lat);
        }
        BallMode::Loose => {
            let dm = dist(g.players[mate as usize].pos, b.pos);
            let dme = dist(me.pos, b.pos);
            if dme < dm || (dme == dm && p < mate) {
                target = b.pos + b.vel.scale(6, 1);
                it.turbo = me.stamina > 60;
                if dme < M
                    && b.z > REACH - m!(0.2)
                    && b.z < REACH + JUMP_HEIGHT
                    && b.vz <= Len::ZERO
                {
                    it.shoot_press = me.jump_t == 0;
                }
            } else {
                let hoop = g.defend_hoop(side);
                target = hoop + (b.pos - hoop).scale(1, 2);
            }
        }
        BallMode::Dead => {}
    }
    let d = target - me.pos;
    if d.len2() > m!(0.25).wide_mul(m!(0.25)) {
        it.mv = d;
        if d.len() > m!(4) && me.stamina > 120 {
            it.turbo = true;
        }
    }
    it
}

/// With three or four people: the intent of a ball handler no person
/// drives. It drives at the hoop, sidestepping a defender in its way, and
/// shoots close in, when open or when the shot clock runs low. `call` is
/// what its team-mate's person pressed this tick: [`Pad::ACTION`] asks for
/// the ball (it passes), [`Pad::SHOOT`] asks for a shot (it goes up).
pub(crate) fn handler(g: &Ntba, p: u8, call: u8) -> Intent {
    let side = team(p);
    let me = g.players[p as usize];
    let mut it = Intent::default();
    if me.shooting {
        // Let go at the top of the jump.
        it.shoot_held = me.jump_t + 1 < JUMP_APEX;
        return it;
    }
    if me.jump_t > 0 {
        return it;
    }
    if call & Pad::ACTION != 0 {
        it.action_press = true;
        return it;
    }
    let hoop = g.attack_hoop(side);
    let d = dist(me.pos, hoop);
    let (open, o) = nearest_opponent(g, me.pos, side);
    let sc = g.shot_clock;
    let roll = mix(g.tick, p) % 1000;
    if call & Pad::SHOOT != 0
        || d < m!(1.6)
        || (sc < 70 && d < m!(9))
        || sc < 30
        || (open > m!(2.5) && d < m!(6) && roll < 30)
    {
        it.shoot_held = true;
        return it;
    }
    let to_hoop = hoop - me.pos;
    let to_o = g.players[o as usize].pos - me.pos;
    it.mv = to_hoop;
    if open < m!(2) && to_hoop.dot(to_o) > Sq::ZERO {
        let flip = if (g.tick / 90 + u32::from(p)).is_multiple_of(2) {
            1
        } else {
            -1
        };
        let side_step = V2::new(-to_o.y, to_o.x).with_len(m!(2)).scale(flip, 1);
        it.mv = to_hoop.with_len(M) + side_step;
    }
    it.turbo = me.stamina > 80 && d > m!(4);
    it
}

/// The free spot an off-ball attacker runs to: away from the ball handler
/// and from the nearest defender, preferring the spot it is nearest to.
fn open_spot(g: &Ntba, p: u8) -> V2 {
    let side = team(p);
    let me = g.players[p as usize].pos;
    let holder = g.players[(p ^ 1) as usize].pos;
    let mut best = (Len::MIN, me);
    let mut nearest = (Len::MAX, 0usize);
    for k in 0..SPOTS.len() {
        let d = dist(spot_pos(g, side, k), me);
        if d < nearest.0 {
            nearest = (d, k);
        }
    }
    for k in 0..SPOTS.len() {
        let s = spot_pos(g, side, k);
        let dh = dist(s, holder).min(m!(6));
        let (dd, _) = nearest_opponent(g, s, side);
        let mut score = dh + dd.min(m!(4));
        if k == nearest.1 {
            score += M;
        }
        if score > best.0 {
            best = (score, s);
        }
    }
    best.1
}

/// A computer player for a whole team: it reads the game and produces that
/// team's pad byte each tick, exactly as a person would.
///
/// It has its own seeded generator, so a CPU player with the same seed
/// facing the same game produces the same pads (handy for tests and
/// examples). It never changes the game: feed its pad to
/// [`DeterministicGame::step`](lockstep::DeterministicGame::step) like any
/// other input.
#[derive(Clone, Debug)]
pub struct Cpu {
    level: Level,
    rng: Rng,
    /// Direction bits held from the last decision (slower levels turn less
    /// often) and the tick they were chosen on.
    held_dir: u8,
    held_since: u32,
    last: Pad,
    release_at: u8,
    plan: u8,
    plan_t: u16,
    plan_target: V2,
    possession_key: u32,
}

impl Cpu {
    /// A CPU player with its own seed, at [`Level::Normal`].
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self::with_level(seed, Level::Normal)
    }

    /// A CPU player with its own seed at the given level.
    #[must_use]
    pub fn with_level(seed: u64, level: Level) -> Self {
        Cpu {
            level,
            held_dir: 0,
            held_since: 0,
            rng: Rng::new(seed ^ 0x6e74_6261_2d63_7075),
            last: Pad::NONE,
            release_at: JUMP_APEX,
            plan: 0,
            plan_t: 0,
            plan_target: V2::ZERO,
            possession_key: u32::MAX,
        }
    }

    /// Its level.
    #[must_use]
    pub fn level(&self) -> Level {
        self.level
    }

    /// The pad for team `side` (0 Home, 1 Away) this tick, in a match for
    /// two people (each drives a team). With three or four it is
    /// [`pad_for_slot`](Self::pad_for_slot)`(g, side)`.
    pub fn pad(&mut self, g: &Ntba, side: u8) -> Pad {
        self.pad_for_slot(g, side)
    }

    /// The pad for pad slot `slot` this tick: with two people the team
    /// `slot` (0 Home, 1 Away), with three or four the court player that
    /// slot drives (it never presses switch then). A slot that drives
    /// nobody gets nothing pressed.
    pub fn pad_for_slot(&mut self, g: &Ntba, slot: u8) -> Pad {
        let (p, switch) = if g.people <= 2 {
            (g.controlled_player(slot & 1), true)
        } else {
            match g.player_of_slot(slot) {
                Some(p) => (p, false),
                None => return Pad::NONE,
            }
        };
        let mut out = if g.phase == Phase::Play {
            self.decide(g, p, switch)
        } else {
            Pad::NONE
        };
        // Reaction time: a new direction is taken only every few ticks.
        let dirs = Pad::UP | Pad::DOWN | Pad::LEFT | Pad::RIGHT;
        let t = g.tick;
        if t.wrapping_sub(self.held_since) >= self.level.turn_ticks() || g.phase != Phase::Play {
            self.held_dir = out.0 & dirs;
            self.held_since = t;
        } else {
            out = Pad((out.0 & !dirs) | self.held_dir);
        }
        self.last = out;
        out
    }

    /// The pad for court player `p`; `switch`: whether it may press
    /// switch to hand control to its team-mate.
    fn decide(&mut self, g: &Ntba, p: u8, switch: bool) -> Pad {
        let side = team(p);
        let me = g.players[p as usize];
        let b = &g.ball;
        let mut bits = 0u8;
        let mut target = me.pos;
        let mut turbo = false;
        let own_ball = matches!(b.mode, BallMode::Held | BallMode::Pass | BallMode::Shot)
            && team(b.owner) == side;
        // With three or four people this CPU always plays the same court
        // player: off the ball, or when its team-mate is nearer the ball,
        // it takes up the spot the built-in team-mate AI would.
        if !switch && self.off_the_ball(g, p) {
            let it = teammate(g, p, false);
            let mut bits = steer(me.pos, me.pos + it.mv);
            if it.turbo {
                bits |= Pad::TURBO;
            }
            if it.shoot_press && !self.last.has(Pad::SHOOT) {
                bits |= Pad::SHOOT;
            }
            if it.action_press && !self.last.has(Pad::ACTION) {
                bits |= Pad::ACTION;
            }
            return Pad(bits);
        }
        // On defence and for loose balls, steer the team-mate best placed.
        if !(b.mode == BallMode::Held && team(b.owner) == side) {
            let focus = match b.mode {
                BallMode::Pass => b.to,
                _ => b.pos,
            };
            let other = p ^ 1;
            let d_me = dist(me.pos, focus);
            let d_other = dist(g.players[other as usize].pos, focus);
            if switch && !own_ball && d_other + M < d_me && !self.last.has(Pad::SWITCH) {
                bits |= Pad::SWITCH;
            }
        }
        match b.mode {
            BallMode::Held if b.owner == p => {
                return Pad(self.offence(g, p) | bits);
            }
            BallMode::Pass if b.receiver == p => target = b.to,
            BallMode::Held | BallMode::Pass if team(b.owner) == side => {}
            BallMode::Held => {
                let h = g.players[b.owner as usize];
                let hoop = g.defend_hoop(side);
                target = h.pos + (hoop - h.pos).with_len(m!(0.9));
                let d = dist(me.pos, h.pos);
                if h.shooting
                    && d < m!(1.8)
                    && me.jump_t == 0
                    && !self.last.has(Pad::SHOOT)
                    && self.rng.chance(self.level.block_jump())
                {
                    bits |= Pad::SHOOT;
                } else if d < STEAL_RADIUS
                    && !h.shooting
                    && me.steal_cd == 0
                    && !self.last.has(Pad::ACTION)
                    && self.rng.chance(self.level.steal_try())
                {
                    bits |= Pad::ACTION;
                }
                turbo = dist(me.pos, target) > m!(3) && me.stamina > 100;
            }
            BallMode::Pass => {
                target = b.pos + (b.to - b.pos).scale(1, 2);
                turbo = me.stamina > 60;
            }
            BallMode::Shot => {
                let hoop = if own_ball {
                    g.attack_hoop(side)
                } else {
                    g.defend_hoop(side)
                };
                let into = if hoop.x > COURT_LENGTH / 2 { -1 } else { 1 };
                target = V2::new(hoop.x + m!(1.2) * into, hoop.y);
            }
            BallMode::Loose => {
                target = b.pos + b.vel.scale(6, 1);
                turbo = me.stamina > 60;
                let d = dist(me.pos, b.pos);
                if d < M
                    && b.z > REACH - m!(0.2)
                    && b.z < REACH + JUMP_HEIGHT
                    && b.vz <= Len::ZERO
                    && me.jump_t == 0
                    && !self.last.has(Pad::SHOOT)
                {
                    bits |= Pad::SHOOT;
                }
            }
            BallMode::Dead => {}
        }
        bits |= steer(me.pos, target);
        if turbo {
            bits |= Pad::TURBO;
        }
        Pad(bits)
    }

    /// Whether court player `p` leaves the ball to its team-mate: its
    /// team holds the ball (or passes it) to the other, or the team-mate is
    /// nearer the ball (or where a pass goes).
    fn off_the_ball(&self, g: &Ntba, p: u8) -> bool {
        let b = &g.ball;
        let side = team(p);
        match b.mode {
            BallMode::Held if team(b.owner) == side => b.owner != p,
            BallMode::Pass if team(b.owner) == side => b.receiver != p,
            BallMode::Dead => false,
            _ => {
                let focus = if b.mode == BallMode::Pass {
                    b.to
                } else {
                    b.pos
                };
                let d_me = dist(g.players[p as usize].pos, focus);
                let d_mate = dist(g.players[(p ^ 1) as usize].pos, focus);
                d_mate < d_me || (d_mate == d_me && p & 1 == 1)
            }
        }
    }

    /// The ball handler's pad: drive, pull up, pass or shoot.
    fn offence(&mut self, g: &Ntba, p: u8) -> u8 {
        let side = team(p);
        let me = g.players[p as usize];
        let hoop = g.attack_hoop(side);
        if me.shooting {
            // The pad read now acts on the next tick, whose jump tick is one
            // more: let go one tick early.
            return if me.jump_t + 1 < self.release_at {
                Pad::SHOOT
            } else {
                0
            };
        }
        if me.jump_t > 0 {
            // Caught in the air: wait to land.
            return 0;
        }
        let key = g.tick.wrapping_sub(u32::from(g.shot_clock));
        if key != self.possession_key {
            // A new possession (the shot clock was reset): pick a fresh plan.
            self.possession_key = key;
            self.plan_t = 0;
        }
        let d = dist(me.pos, hoop);
        let (open, _) = nearest_opponent(g, me.pos, side);
        let sc = g.shot_clock;
        let r = self.rng.below(1000);
        let in_three = (THREE_POINT_RADIUS + m!(0.1)..THREE_POINT_RADIUS + m!(0.9)).contains(&d);
        let want_shot = d < m!(1.6)
            || (sc < 70 && d < m!(9))
            || sc < 30
            || (open > m!(1.5) && d < m!(5) && r < 60)
            || (in_three && self.plan == 2 && r < 50)
            || (d < m!(4) && r < 20)
            || (open > m!(2.6) && d < m!(7.5) && r < 25);
        if want_shot && !self.last.has(Pad::SHOOT) {
            let spread = self.level.release_spread();
            self.release_at = (i32::from(JUMP_APEX) + self.rng.range(-spread, spread)) as u8;
            return Pad::SHOOT;
        }
        let mate = g.players[(p ^ 1) as usize];
        let (mate_open, _) = nearest_opponent(g, mate.pos, side);
        let mate_d = dist(mate.pos, hoop);
        let want_pass = (open < m!(1.2) && mate_open > m!(2.5) && r > 960)
            || (mate_open > m!(3) && mate_d + m!(2) < d && r > 985)
            || r > 997;
        if want_pass && !self.last.has(Pad::ACTION) && g.ball.mode == BallMode::Held {
            return Pad::ACTION;
        }
        if self.plan_t == 0 {
            self.plan = self.rng.below(3) as u8;
            self.plan_t = self.rng.range(50, 140) as u16;
            let into_base = if hoop.x > COURT_LENGTH / 2 { 4 } else { 12 };
            let k = (into_base + 1 + self.rng.below(7) as usize) % 16;
            let radius = match self.plan {
                0 => M,
                1 => m!(4.5),
                _ => THREE_POINT_RADIUS + m!(0.5),
            };
            self.plan_target = hoop + DIR16[k].times(radius);
        }
        self.plan_t -= 1;
        let mut target = self.plan_target;
        // Sidestep a defender standing in the way.
        let (od, o) = nearest_opponent(g, me.pos, side);
        let op = g.players[o as usize].pos;
        let to_t = target - me.pos;
        let to_o = op - me.pos;
        let ahead = to_t.dot(to_o);
        if od < m!(2) && ahead > Sq::ZERO {
            let perp = V2::new(-to_o.y, to_o.x).with_len(m!(2));
            let flip = if (g.tick / 90 + u32::from(p)).is_multiple_of(2) {
                1
            } else {
                -1
            };
            target = me.pos + to_t.with_len(M) + perp.scale(flip, 1);
        }
        let mut bits = steer(me.pos, target);
        if self.plan == 0 && me.stamina > 80 && bits != 0 {
            bits |= Pad::TURBO;
        }
        bits
    }
}

/// How well a [`Cpu`] plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Level {
    /// Slow to turn (a new direction every 8 ticks), loose release timing
    /// (up to 9 ticks off the apex), rarely jumps at shots or swipes.
    Easy,
    /// A new direction every 3 ticks, releases within 4 ticks of the apex.
    #[default]
    Normal,
    /// Turns every tick, releases within 2 ticks of the apex, contests
    /// more shots and swipes more often.
    Hard,
}

impl Level {
    fn turn_ticks(self) -> u32 {
        match self {
            Level::Easy => 8,
            Level::Normal => 3,
            Level::Hard => 1,
        }
    }
    fn release_spread(self) -> i32 {
        match self {
            Level::Easy => 9,
            Level::Normal => 4,
            Level::Hard => 2,
        }
    }
    fn block_jump(self) -> u32 {
        match self {
            Level::Easy => 150,
            Level::Normal => 350,
            Level::Hard => 550,
        }
    }
    fn steal_try(self) -> u32 {
        match self {
            Level::Easy => 3,
            Level::Normal => 8,
            Level::Hard => 12,
        }
    }
}

/// Direction bits that move from `from` towards `to` (nothing when close).
fn steer(from: V2, to: V2) -> u8 {
    let d = to - from;
    if d.len2() < m!(0.25).wide_mul(m!(0.25)) {
        return 0;
    }
    match facing_of(d) {
        Some(f) => {
            let v = DIR8[f as usize];
            Pad::from_direction(v.x.signum().to_num(), v.y.signum().to_num()).0
        }
        None => 0,
    }
}
