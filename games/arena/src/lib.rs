//! `arena`: ships in a walled top-down arena, 2 to 10 players, played
//! host-authoritatively on the `authority` crate.
//!
//! The physics are plain `f32` and make no promise of being the same on two
//! machines: only the host simulates, guests show its snapshots. Each ship
//! turns, thrusts and fires; a bullet that hits another ship costs it one
//! of [`MAX_HP`] hit points and knocks it back; a ship with none left is
//! destroyed and comes back after [`RESPAWN_MS`]. Ships that touch bounce
//! off each other, and off the walls.
//!
//! What it shows of the engine: a snapshot made for small deltas (ships and
//! bullets as entities with ids, positions in decimetres, angles in 256ths
//! of a turn, bullets sent once with their launch point and velocity so
//! they cost nothing while they fly), events for hits and respawns, and
//! prediction of the player's own ship through the host's own movement
//! code ([`step_motion`]). [`Bot`] plays it for tests and benchmarks.
#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::f32::consts::TAU;

use authority::{AuthoritativeGame, Predict, Recipients, Seat};
use serde::{Deserialize, Serialize};

/// Arena width in metres.
pub const WIDTH: f32 = 100.0;
/// Arena height in metres.
pub const HEIGHT: f32 = 60.0;
/// Ship radius in metres.
pub const SHIP_RADIUS: f32 = 1.5;
/// Turn rate in radians per second.
pub const TURN_RATE: f32 = 3.5;
/// Thrust acceleration in m/s².
pub const ACCEL: f32 = 30.0;
/// Top speed in m/s.
pub const MAX_SPEED: f32 = 20.0;
/// Fraction of speed kept after one second without thrust.
pub const DRAG_PER_SECOND: f32 = 0.4;
/// Bullet speed in m/s (added to nothing: bullets ignore the ship's speed).
pub const BULLET_SPEED: f32 = 45.0;
/// Bullet lifetime in milliseconds.
pub const BULLET_MS: u32 = 1200;
/// Time between two shots of one ship.
pub const COOLDOWN_MS: u32 = 300;
/// Hit points of a fresh ship.
pub const MAX_HP: u8 = 5;
/// Speed a hit adds along the bullet's path, in m/s.
pub const KNOCKBACK: f32 = 6.0;
/// Time a destroyed ship waits before it comes back.
pub const RESPAWN_MS: u32 = 2000;
/// Prediction corrections longer than this (metres) snap.
pub const SNAP_DISTANCE: f32 = 3.0;
/// Decimetres per metre: the unit of positions in snapshots.
pub const DM: f32 = 10.0;

/// A player's controls (the command type): sent when they change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Control {
    /// Engine on.
    pub thrust: bool,
    /// -1 turns left (counter-clockwise), 1 right, 0 not at all; other
    /// values count as their sign.
    pub turn: i8,
    /// Keep firing.
    pub fire: bool,
}

/// A ship's exact movement state and the controls it moves under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Motion {
    /// Position (metres).
    pub x: f32,
    /// Position (metres).
    pub y: f32,
    /// Velocity (m/s).
    pub vx: f32,
    /// Velocity (m/s).
    pub vy: f32,
    /// Heading in radians, 0 to 2π.
    pub angle: f32,
    /// Engine on.
    pub thrust: bool,
    /// Turning direction, -1, 0 or 1.
    pub turn: i8,
}

/// Takes a player's controls into its motion.
pub fn apply_control(m: &mut Motion, c: &Control) {
    m.thrust = c.thrust;
    m.turn = c.turn.signum();
}

/// One tick of a ship's own movement: turning, thrust, drag, top speed,
/// and the walls. The host runs this for every ship; a guest runs it to
/// predict its own.
pub fn step_motion(m: &mut Motion, dt_ms: u32) {
    #[allow(clippy::cast_precision_loss)]
    let dt = dt_ms as f32 / 1000.0;
    m.angle = (m.angle + f32::from(m.turn) * TURN_RATE * dt).rem_euclid(TAU);
    if m.thrust {
        m.vx += m.angle.cos() * ACCEL * dt;
        m.vy += m.angle.sin() * ACCEL * dt;
    }
    let keep = DRAG_PER_SECOND.powf(dt);
    m.vx *= keep;
    m.vy *= keep;
    let speed = m.vx.hypot(m.vy);
    if speed > MAX_SPEED {
        m.vx *= MAX_SPEED / speed;
        m.vy *= MAX_SPEED / speed;
    }
    m.x += m.vx * dt;
    m.y += m.vy * dt;
    walls(m);
    quantize(m);
}

/// Millimetres (and millimetres per second) per metre: the resolution of a
/// ship's motion.
const MM: f32 = 1000.0;
/// Steps of a full turn in a ship's heading.
const ANGLE_STEPS: f32 = 65536.0;

/// Rounds a motion to the resolution a snapshot carries (millimetres,
/// millimetres per second, 65536ths of a turn). The host does this after
/// every tick, so the motion a player's snapshot gives is exactly the
/// host's, and its prediction starts from the host's very state.
pub fn quantize(m: &mut Motion) {
    *m = MotionView::of(m).motion();
}

/// A motion as a snapshot carries it: integers, so that an unchanged value
/// costs nothing and a changed one only its difference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MotionView {
    /// Position in millimetres.
    pub x: i32,
    /// Position in millimetres.
    pub y: i32,
    /// Velocity in millimetres per second.
    pub vx: i32,
    /// Velocity in millimetres per second.
    pub vy: i32,
    /// Heading in 65536ths of a turn.
    pub a: u16,
    /// Engine on.
    pub thrust: bool,
    /// Turning direction, -1, 0 or 1.
    pub turn: i8,
}

impl MotionView {
    /// The view of a motion (rounded).
    #[must_use]
    pub fn of(m: &Motion) -> MotionView {
        #[allow(clippy::cast_possible_truncation)]
        let q = |v: f32| (v * MM).round() as i32;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let a = ((m.angle / TAU * ANGLE_STEPS).round() as i64).rem_euclid(65536) as u16;
        MotionView {
            x: q(m.x),
            y: q(m.y),
            vx: q(m.vx),
            vy: q(m.vy),
            a,
            thrust: m.thrust,
            turn: m.turn.signum(),
        }
    }

    /// The motion it stands for.
    #[must_use]
    pub fn motion(&self) -> Motion {
        #[allow(clippy::cast_precision_loss)]
        let f = |v: i32| v as f32 / MM;
        Motion {
            x: f(self.x),
            y: f(self.y),
            vx: f(self.vx),
            vy: f(self.vy),
            angle: f32::from(self.a) / ANGLE_STEPS * TAU,
            thrust: self.thrust,
            turn: self.turn.signum(),
        }
    }
}

/// Keeps a ship inside the walls; one that hits a wall bounces off it at
/// half its speed.
pub fn walls(m: &mut Motion) {
    if m.x < SHIP_RADIUS {
        m.x = SHIP_RADIUS;
        m.vx = m.vx.abs() * 0.5;
    } else if m.x > WIDTH - SHIP_RADIUS {
        m.x = WIDTH - SHIP_RADIUS;
        m.vx = -m.vx.abs() * 0.5;
    }
    if m.y < SHIP_RADIUS {
        m.y = SHIP_RADIUS;
        m.vy = m.vy.abs() * 0.5;
    } else if m.y > HEIGHT - SHIP_RADIUS {
        m.y = HEIGHT - SHIP_RADIUS;
        m.vy = -m.vy.abs() * 0.5;
    }
}

/// A ship on the host.
#[derive(Debug, Clone, PartialEq)]
pub struct Ship {
    /// Movement.
    pub motion: Motion,
    /// Keeps firing.
    pub fire: bool,
    /// Hit points left (0: destroyed, waiting to respawn).
    pub hp: u8,
    /// Ships destroyed.
    pub score: u16,
    /// Milliseconds until the next shot.
    pub cooldown_ms: u32,
    /// Milliseconds until a destroyed ship respawns.
    pub respawn_ms: u32,
}

/// A bullet on the host.
#[derive(Debug, Clone, PartialEq)]
pub struct Bullet {
    /// Unique id.
    pub id: u32,
    /// Who fired it.
    pub owner: Seat,
    /// Launch point and tick, and velocity: its path.
    pub x0: f32,
    /// Launch point.
    pub y0: f32,
    /// Velocity.
    pub vx: f32,
    /// Velocity.
    pub vy: f32,
    /// The tick it was launched after.
    pub born: u64,
    /// Milliseconds flown.
    pub age_ms: u32,
}

impl Bullet {
    fn pos(&self) -> (f32, f32) {
        #[allow(clippy::cast_precision_loss)]
        let t = self.age_ms as f32 / 1000.0;
        (self.x0 + self.vx * t, self.y0 + self.vy * t)
    }
}

/// Something that happened, for sound, effects and the score board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArenaEvent {
    /// `target` was hit by a bullet of `by`.
    Hit {
        /// The ship hit.
        target: Seat,
        /// The shooter.
        by: Seat,
    },
    /// `target` lost its last hit point to `by`.
    Destroyed {
        /// The ship destroyed.
        target: Seat,
        /// The shooter.
        by: Seat,
    },
    /// The ship at this seat came back.
    Respawned(Seat),
    /// Two ships collided (sent to each of them).
    Bumped(Seat, Seat),
}

impl ArenaEvent {
    /// Whether the event moved `seat`'s ship in a way its own prediction
    /// could not foresee.
    #[must_use]
    pub fn moves(&self, seat: Seat) -> bool {
        match *self {
            ArenaEvent::Hit { target, .. } | ArenaEvent::Destroyed { target, .. } => target == seat,
            ArenaEvent::Respawned(s) => s == seat,
            ArenaEvent::Bumped(a, b) => a == seat || b == seat,
        }
    }
}

/// A ship as a player sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShipView {
    /// The seat.
    pub id: Seat,
    /// Position in decimetres.
    pub x: i32,
    /// Position in decimetres.
    pub y: i32,
    /// Heading in 256ths of a turn.
    pub a: u8,
    /// Hit points (0: destroyed).
    pub hp: u8,
    /// Ships destroyed.
    pub score: u16,
    /// Engine on (for the flame).
    pub thrust: bool,
}

impl ShipView {
    /// Position in metres.
    #[must_use]
    pub fn pos(&self) -> [f32; 2] {
        #[allow(clippy::cast_precision_loss)]
        [self.x as f32 / DM, self.y as f32 / DM]
    }
}

/// A bullet as a player sees it: its path, which never changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulletView {
    /// Unique id.
    pub id: u32,
    /// Launch point in decimetres.
    pub x: i32,
    /// Launch point in decimetres.
    pub y: i32,
    /// Velocity in decimetres per second.
    pub vx: i16,
    /// Velocity in decimetres per second.
    pub vy: i16,
    /// The tick it was launched after.
    pub born: u64,
}

impl BulletView {
    /// Position in metres at host tick `tick` (`tick_ms` per tick).
    #[must_use]
    pub fn pos_at(&self, tick: f32, tick_ms: u16) -> [f32; 2] {
        #[allow(clippy::cast_precision_loss)]
        let t = (tick - self.born as f32) * f32::from(tick_ms) / 1000.0;
        #[allow(clippy::cast_precision_loss)]
        [
            (self.x as f32 + f32::from(self.vx) * t) / DM,
            (self.y as f32 + f32::from(self.vy) * t) / DM,
        ]
    }
}

/// What one player sees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArenaSnapshot {
    /// Every ship, by seat.
    pub ships: Vec<ShipView>,
    /// Every bullet in flight.
    pub bullets: Vec<BulletView>,
    /// The player's own ship's exact motion, for prediction (`None` while
    /// destroyed).
    pub me: Option<MotionView>,
}

impl ArenaSnapshot {
    /// The ship at `seat`.
    #[must_use]
    pub fn ship(&self, seat: Seat) -> Option<&ShipView> {
        self.ships.iter().find(|s| s.id == seat)
    }
}

/// The seeded generator for spawn points and bots.
pub use authority::rng::SplitMix64 as Rng;

/// The host's game.
#[derive(Debug, Clone)]
pub struct Arena {
    rng: Rng,
    tick: u64,
    ships: BTreeMap<Seat, Ship>,
    bullets: Vec<Bullet>,
    next_bullet: u32,
    events: Vec<(Recipients, ArenaEvent)>,
}

impl Arena {
    /// An empty arena; `seed` picks spawn points.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Arena {
            rng: Rng::new(seed),
            tick: 0,
            ships: BTreeMap::new(),
            bullets: Vec::new(),
            next_bullet: 1,
            events: Vec::new(),
        }
    }

    /// Ticks advanced.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The ship at `seat`.
    #[must_use]
    pub fn ship(&self, seat: Seat) -> Option<&Ship> {
        self.ships.get(&seat)
    }

    /// Bullets in flight.
    #[must_use]
    pub fn bullets(&self) -> &[Bullet] {
        &self.bullets
    }

    fn spawn_motion(&mut self) -> Motion {
        let margin = 5.0;
        Motion {
            x: margin + self.rng.unit() * (WIDTH - 2.0 * margin),
            y: margin + self.rng.unit() * (HEIGHT - 2.0 * margin),
            angle: self.rng.unit() * TAU,
            ..Motion::default()
        }
    }

    fn fire(&mut self, seat: Seat) {
        let Some(ship) = self.ships.get(&seat) else {
            return;
        };
        let m = ship.motion;
        let (s, c) = m.angle.sin_cos();
        self.bullets.push(Bullet {
            id: self.next_bullet,
            owner: seat,
            x0: m.x + c * (SHIP_RADIUS + 0.2),
            y0: m.y + s * (SHIP_RADIUS + 0.2),
            vx: c * BULLET_SPEED,
            vy: s * BULLET_SPEED,
            born: self.tick,
            age_ms: 0,
        });
        self.next_bullet = self.next_bullet.wrapping_add(1).max(1);
    }

    fn collide_ships(&mut self) {
        let seats: Vec<Seat> = self
            .ships
            .iter()
            .filter(|(_, s)| s.hp > 0)
            .map(|(&k, _)| k)
            .collect();
        for (i, &a) in seats.iter().enumerate() {
            for &b in &seats[i + 1..] {
                let (ma, mb) = (self.ships[&a].motion, self.ships[&b].motion);
                let (dx, dy) = (mb.x - ma.x, mb.y - ma.y);
                let d = dx.hypot(dy);
                if d >= 2.0 * SHIP_RADIUS {
                    continue;
                }
                let (nx, ny) = if d > 1e-4 {
                    (dx / d, dy / d)
                } else {
                    (1.0, 0.0)
                };
                let push = (2.0 * SHIP_RADIUS - d) / 2.0;
                // Swap the velocity components along the normal (equal
                // masses, elastic), and separate the two.
                let va = ma.vx * nx + ma.vy * ny;
                let vb = mb.vx * nx + mb.vy * ny;
                if let Some(s) = self.ships.get_mut(&a) {
                    s.motion.x -= nx * push;
                    s.motion.y -= ny * push;
                    s.motion.vx += (vb - va) * nx;
                    s.motion.vy += (vb - va) * ny;
                }
                if let Some(s) = self.ships.get_mut(&b) {
                    s.motion.x += nx * push;
                    s.motion.y += ny * push;
                    s.motion.vx += (va - vb) * nx;
                    s.motion.vy += (va - vb) * ny;
                }
                for seat in [a, b] {
                    if let Some(s) = self.ships.get_mut(&seat) {
                        walls(&mut s.motion);
                    }
                }
                let e = ArenaEvent::Bumped(a, b);
                self.events.push((Recipients::Only(a), e));
                self.events.push((Recipients::Only(b), e));
            }
        }
    }

    fn move_bullets(&mut self, dt_ms: u32) {
        let mut hits = Vec::new();
        self.bullets.retain_mut(|b| {
            b.age_ms += dt_ms;
            if b.age_ms > BULLET_MS {
                return false;
            }
            let (x, y) = b.pos();
            if !(0.0..=WIDTH).contains(&x) || !(0.0..=HEIGHT).contains(&y) {
                return false;
            }
            let hit = self.ships.iter().find(|(&seat, s)| {
                seat != b.owner && s.hp > 0 && (s.motion.x - x).hypot(s.motion.y - y) < SHIP_RADIUS
            });
            if let Some((&seat, _)) = hit {
                hits.push((seat, b.owner, b.vx / BULLET_SPEED, b.vy / BULLET_SPEED));
                return false;
            }
            true
        });
        for (target, by, dx, dy) in hits {
            let Some(s) = self.ships.get_mut(&target) else {
                continue;
            };
            if s.hp == 0 {
                continue;
            }
            s.hp -= 1;
            s.motion.vx += dx * KNOCKBACK;
            s.motion.vy += dy * KNOCKBACK;
            self.events
                .push((Recipients::All, ArenaEvent::Hit { target, by }));
            if s.hp == 0 {
                s.respawn_ms = RESPAWN_MS;
                s.motion.vx = 0.0;
                s.motion.vy = 0.0;
                self.events
                    .push((Recipients::All, ArenaEvent::Destroyed { target, by }));
                if let Some(shooter) = self.ships.get_mut(&by) {
                    shooter.score = shooter.score.saturating_add(1);
                }
            }
        }
    }

    fn ship_view(seat: Seat, s: &Ship) -> ShipView {
        #[allow(clippy::cast_possible_truncation)]
        let q = |v: f32| (v * DM).round() as i32;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let a = ((s.motion.angle / TAU * 256.0).round() as i32).rem_euclid(256) as u8;
        ShipView {
            id: seat,
            x: q(s.motion.x),
            y: q(s.motion.y),
            a,
            hp: s.hp,
            score: s.score,
            thrust: s.motion.thrust && s.hp > 0,
        }
    }
}

impl AuthoritativeGame for Arena {
    type Snapshot = ArenaSnapshot;
    type Command = Control;
    type Event = ArenaEvent;
    const GAME_ID: u64 = 0xA7E7_A000_0000_0001;

    fn add_player(&mut self, seat: Seat) {
        let motion = self.spawn_motion();
        self.ships.insert(
            seat,
            Ship {
                motion,
                fire: false,
                hp: MAX_HP,
                score: 0,
                cooldown_ms: 0,
                respawn_ms: 0,
            },
        );
    }

    fn remove_player(&mut self, seat: Seat) {
        self.ships.remove(&seat);
        self.bullets.retain(|b| b.owner != seat);
    }

    fn command(&mut self, seat: Seat, command: Control) {
        if let Some(s) = self.ships.get_mut(&seat) {
            apply_control(&mut s.motion, &command);
            s.fire = command.fire;
        }
    }

    fn advance(&mut self, dt_ms: u32) {
        self.tick += 1;
        let mut firing = Vec::new();
        let mut respawning = Vec::new();
        for (&seat, s) in &mut self.ships {
            if s.hp == 0 {
                s.respawn_ms = s.respawn_ms.saturating_sub(dt_ms);
                if s.respawn_ms == 0 {
                    respawning.push(seat);
                }
                continue;
            }
            step_motion(&mut s.motion, dt_ms);
            s.cooldown_ms = s.cooldown_ms.saturating_sub(dt_ms);
            if s.fire && s.cooldown_ms == 0 {
                s.cooldown_ms = COOLDOWN_MS;
                firing.push(seat);
            }
        }
        for seat in respawning {
            let mut motion = self.spawn_motion();
            if let Some(s) = self.ships.get_mut(&seat) {
                motion.thrust = s.motion.thrust;
                motion.turn = s.motion.turn;
                s.motion = motion;
                s.hp = MAX_HP;
            }
            self.events
                .push((Recipients::All, ArenaEvent::Respawned(seat)));
        }
        self.collide_ships();
        self.move_bullets(dt_ms);
        for seat in firing {
            self.fire(seat);
        }
        // Collisions, knockback and respawns moved some ships off the grid.
        for s in self.ships.values_mut() {
            quantize(&mut s.motion);
        }
    }

    fn drain_events(&mut self, out: &mut Vec<(Recipients, ArenaEvent)>) {
        out.append(&mut self.events);
    }

    fn snapshot(&self, seat: Seat) -> ArenaSnapshot {
        #[allow(clippy::cast_possible_truncation)]
        let q = |v: f32| (v * DM).round() as i32;
        #[allow(clippy::cast_possible_truncation)]
        let qv = |v: f32| (v * DM).round() as i16;
        ArenaSnapshot {
            ships: self
                .ships
                .iter()
                .map(|(&k, s)| Self::ship_view(k, s))
                .collect(),
            bullets: self
                .bullets
                .iter()
                .map(|b| BulletView {
                    id: b.id,
                    x: q(b.x0),
                    y: q(b.y0),
                    vx: qv(b.vx),
                    vy: qv(b.vy),
                    born: b.born,
                })
                .collect(),
            me: self
                .ships
                .get(&seat)
                .filter(|s| s.hp > 0)
                .map(|s| MotionView::of(&s.motion)),
        }
    }

    fn interpolate(from: &ArenaSnapshot, to: &ArenaSnapshot, t: f32) -> ArenaSnapshot {
        let mut out = to.clone();
        for ship in &mut out.ships {
            let Some(old) = from.ship(ship.id) else {
                continue;
            };
            // A ship that respawned jumps; one that moved glides.
            if old.hp == 0 || ship.hp == 0 {
                continue;
            }
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            let lerp = |a: i32, b: i32| (a as f32 + (b - a) as f32 * t).round() as i32;
            ship.x = lerp(old.x, ship.x);
            ship.y = lerp(old.y, ship.y);
            let turn = i32::from(ship.a.wrapping_sub(old.a) as i8);
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            let step = (turn as f32 * t).round() as i32;
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let a = (i32::from(old.a) + step).rem_euclid(256) as u8;
            ship.a = a;
        }
        out
    }
}

impl Predict for Arena {
    type Motion = Motion;

    fn own_motion(snapshot: &ArenaSnapshot) -> Option<Motion> {
        snapshot.me.map(|m| m.motion())
    }

    fn apply_command(motion: &mut Motion, command: &Control) {
        apply_control(motion, command);
    }

    fn step_motion(motion: &mut Motion, dt_ms: u32) {
        step_motion(motion, dt_ms);
    }

    fn position(motion: &Motion) -> [f32; 2] {
        [motion.x, motion.y]
    }

    fn snap_distance() -> f32 {
        SNAP_DISTANCE
    }
}

/// A simple player: chases the nearest other ship, fires when roughly
/// aimed, and now and then wanders off in a random direction. Seeded, so a
/// test plays the same way every run.
#[derive(Debug, Clone)]
pub struct Bot {
    rng: Rng,
    wander: Option<(f32, u32)>,
    last: Control,
}

impl Bot {
    /// A bot with its own seed.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Bot {
            rng: Rng::new(seed),
            wander: None,
            last: Control::default(),
        }
    }

    /// The controls for the next `dt_ms` given what `seat` sees, and
    /// whether they changed since the last call (send only then).
    pub fn decide(&mut self, view: &ArenaSnapshot, seat: Seat, dt_ms: u32) -> (Control, bool) {
        let Some(me) = view.ship(seat).copied().filter(|s| s.hp > 0) else {
            return (self.last, false);
        };
        let [mx, my] = me.pos();
        let heading = f32::from(me.a) / 256.0 * TAU;
        if self.wander.is_none() && self.rng.unit() < 0.01 {
            self.wander = Some((self.rng.unit() * TAU, 1500));
        }
        let target = if let Some((dir, left)) = self.wander {
            self.wander = left.checked_sub(dt_ms).filter(|&l| l > 0).map(|l| (dir, l));
            Some((dir, f32::INFINITY))
        } else {
            view.ships
                .iter()
                .filter(|s| s.id != seat && s.hp > 0)
                .map(|s| {
                    let [x, y] = s.pos();
                    ((y - my).atan2(x - mx), (x - mx).hypot(y - my))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1))
        };
        let c = match target {
            Some((dir, dist)) => {
                let off = (dir - heading + TAU * 1.5).rem_euclid(TAU) - TAU / 2.0;
                Control {
                    thrust: dist > 12.0 && off.abs() < 1.0,
                    turn: if off.abs() < 0.1 {
                        0
                    } else if off > 0.0 {
                        1
                    } else {
                        -1
                    },
                    fire: dist < 40.0 && off.abs() < 0.25,
                }
            }
            None => Control::default(),
        };
        let changed = c != self.last;
        self.last = c;
        (c, changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ships_stay_inside_and_fights_happen() {
        let mut a = Arena::new(3);
        for seat in 0..4 {
            a.add_player(seat);
        }
        let mut bots: Vec<Bot> = (0..4).map(|i| Bot::new(100 + i)).collect();
        let mut events = Vec::new();
        for _ in 0..30 * 60 {
            for (seat, bot) in (0u8..).zip(&mut bots) {
                let view = a.snapshot(seat);
                let (c, changed) = bot.decide(&view, seat, 33);
                if changed {
                    a.command(seat, c);
                }
            }
            a.advance(33);
            a.drain_events(&mut events);
            for s in a.ships.values() {
                let m = s.motion;
                assert!(m.x.is_finite() && m.y.is_finite());
                assert!((SHIP_RADIUS..=WIDTH - SHIP_RADIUS).contains(&m.x), "{m:?}");
                assert!((SHIP_RADIUS..=HEIGHT - SHIP_RADIUS).contains(&m.y), "{m:?}");
                assert!(m.vx.hypot(m.vy) <= MAX_SPEED + KNOCKBACK * 2.0);
            }
        }
        let hits = events
            .iter()
            .filter(|(_, e)| matches!(e, ArenaEvent::Hit { .. }))
            .count();
        assert!(hits > 10, "bots fight: {hits} hits in a minute");
    }

    #[test]
    fn a_snapshot_gives_the_host_motion_exactly() {
        let mut a = Arena::new(9);
        a.add_player(1);
        a.command(
            1,
            Control {
                thrust: true,
                turn: 1,
                fire: false,
            },
        );
        for _ in 0..200 {
            a.advance(33);
            let ship = a.ship(1).expect("added").motion;
            let seen = Arena::own_motion(&a.snapshot(1)).expect("alive");
            assert_eq!(seen, ship);
            let mut again = ship;
            quantize(&mut again);
            assert_eq!(again, ship, "quantising twice changes nothing");
        }
    }

    #[test]
    fn interpolation_goes_the_short_way_round() {
        let ship = |x, a| ShipView {
            id: 1,
            x,
            y: 0,
            a,
            hp: 1,
            score: 0,
            thrust: false,
        };
        let snap = |s| ArenaSnapshot {
            ships: vec![s],
            bullets: vec![],
            me: None,
        };
        let mid = Arena::interpolate(&snap(ship(0, 250)), &snap(ship(100, 6)), 0.5);
        assert_eq!(mid.ships[0].x, 50);
        assert_eq!(mid.ships[0].a, 0);
    }
}
