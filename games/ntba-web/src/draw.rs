//! The picture: court, hoops, players, ball, effects, scoreboard, help
//! line, banners and the end screen. Everything goes through the
//! [`Painter`], so tests can record and inspect it.

use crate::effects::{EffectKind, Effects};
use crate::layout::Layout;
use ntba::{
    Action, BallState, Ntba, Phase, PlayerView, COURT_LENGTH, COURT_WIDTH, HOOP_LEFT_X,
    HOOP_RIGHT_X, HOOP_Y, JUMP_APEX, STAMINA_MAX, SUDDEN_DEATH_PERIOD, UNITS_PER_METER,
};
use std::f64::consts::{PI, TAU};
use web_shell::front_end::{Align, Painter};

/// A team's colours and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Team {
    /// Shown on the scoreboard.
    pub name: &'static str,
    /// Jerseys.
    pub main: &'static str,
    /// Shorts and outlines.
    pub dark: &'static str,
    /// Markers and highlights.
    pub light: &'static str,
}

/// Home (red) and Away (blue).
pub const TEAMS: [Team; 2] = [
    Team {
        name: "HOME",
        main: "#e63946",
        dark: "#8e1b27",
        light: "#ff9aa2",
    },
    Team {
        name: "AWAY",
        main: "#2f80ed",
        dark: "#163f85",
        light: "#9cc8ff",
    },
];

/// Players are drawn this much larger than life, for readability (their
/// positions are not scaled).
pub const FIGURE: f64 = 1.2;

/// Canvas background around the court.
pub const BACKGROUND: &str = "#14171f";
/// Court lines.
pub const LINE: &str = "#fbf6ea";
/// The ball.
pub const BALL: &str = "#f48c06";
/// The controlled player's pointer above the head.
pub const POINTER: &str = "#ffd166";
const SHADOW: &str = "rgba(0,0,0,0.35)";
const SKIN: [&str; 2] = ["#8d5524", "#e0ac69"];
const PANEL: &str = "#0d1016";
const DIM_TEXT: &str = "#aab1bf";

/// What the picture says about who plays which side (set by the front end
/// from the mode of play).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    /// Per side, a word after the team name on the scoreboard ("YOU",
    /// "CPU", "P1"...), or empty.
    pub who: [&'static str; 2],
    /// Per side, the label over the controlled player's pointer (empty for
    /// a pointer without a label; `None` for no pointer at all).
    pub pointer: [Option<&'static str>; 2],
    /// The help lines at the bottom.
    pub help: Vec<&'static str>,
}

fn m(units: i32) -> f64 {
    f64::from(units) / f64::from(UNITS_PER_METER)
}

/// Draws one frame of `g`.
pub fn frame(p: &mut dyn Painter, g: &Ntba, fx: &Effects, labels: &Labels) {
    picture(p, g, fx, labels, false);
}

/// Draws `g` as the result of an online match: the court as it was left,
/// under the final score and the box score, whether the game reached its
/// end or the match stopped early.
pub fn result(p: &mut dyn Painter, g: &Ntba, fx: &Effects, labels: &Labels) {
    picture(p, g, fx, labels, true);
}

fn picture(p: &mut dyn Painter, g: &Ntba, fx: &Effects, labels: &Labels, result: bool) {
    let (w, h) = p.size();
    let l = Layout::new(w, h);
    p.set_alpha(1.0);
    p.set_font(12.0, false, Align::Left);
    p.clear(BACKGROUND);
    court(p, &l, g);
    scene(p, &l, g, fx, labels);
    world_effects(p, &l, g.tick(), fx);
    scoreboard(p, &l, g, fx, labels);
    help(p, &l, labels);
    banners(p, &l, g.tick(), fx);
    match g.clocks().phase {
        Phase::Over => end_screen(p, &l, g),
        _ if result => end_screen(p, &l, g),
        Phase::Break => break_banner(p, &l, g),
        _ => {}
    }
    p.set_alpha(1.0);
    p.set_font(12.0, false, Align::Left);
}

// ----- the court ---------------------------------------------------------------

fn court(p: &mut dyn Painter, l: &Layout, g: &Ntba) {
    let len = m(COURT_LENGTH);
    let wid = m(COURT_WIDTH);
    // Advertising boards along the far side, in the room left above the
    // court.
    let (ax, ay) = l.at_m(-0.7, -0.7, 0.0);
    let board_h = (ay - l.band_bottom()) * 0.55;
    if board_h >= 6.0 {
        let top = ay - board_h - 2.0;
        p.rect(0.0, top, l.w, board_h, "#1f2a44");
        p.rect(0.0, top + board_h - 2.0, l.w, 2.0, "#2f80ed");
        p.set_font(board_h * 0.6, true, Align::Center);
        let slogans = [
            "NtBA",
            "2 ON 2",
            "PLAY ONLINE",
            "NtBA",
            "60 TICKS A SECOND",
            "NtBA",
        ];
        let n = slogans.len() as f64;
        for (i, s) in slogans.iter().enumerate() {
            let x = l.w * (i as f64 + 0.5) / n;
            p.set_alpha(if i % 2 == 0 { 0.9 } else { 0.55 });
            p.text(
                x,
                top + board_h * 0.72,
                s,
                if i % 3 == 0 { BALL } else { "#dfe7f5" },
            );
        }
        p.set_alpha(1.0);
    }
    // Apron and floor boards.
    p.rect(ax, ay, l.px(len + 1.4), l.py(wid + 1.4), "#6e4526");
    let boards = 16;
    let bw = len / f64::from(boards);
    for i in 0..boards {
        let (x, y) = l.at_m(f64::from(i) * bw, 0.0, 0.0);
        let c = if i % 2 == 0 { "#d9a066" } else { "#d09558" };
        p.rect(x, y, l.px(bw) + 0.5, l.py(wid), c);
    }
    let lw = (l.scale * 0.075).max(1.2);
    let hy = m(HOOP_Y);
    // The paint at each end, in the colours of the team defending it now
    // (teams change ends at half time: Home defends the left hoop in the
    // first half, the right one from the second).
    let key_len = 5.8;
    let key_half = 2.45;
    let left_defender = usize::from(g.attacks_right(1));
    for (side, x0) in [(left_defender, 0.0), (1 - left_defender, len - key_len)] {
        let (x, y) = l.at_m(x0, hy - key_half, 0.0);
        p.set_alpha(0.5);
        p.rect(x, y, l.px(key_len), l.py(2.0 * key_half), TEAMS[side].main);
        p.set_alpha(1.0);
    }
    // Centre circle and logo.
    let (cx, cy) = l.at_m(len / 2.0, hy, 0.0);
    p.set_alpha(0.35);
    p.ellipse(cx, cy, l.px(1.8), l.py(1.8), "#b5651d");
    p.set_alpha(1.0);
    // Lines.
    let line = |p: &mut dyn Painter, a: (f64, f64), b: (f64, f64)| {
        let (x0, y0) = l.at_m(a.0, a.1, 0.0);
        let (x1, y1) = l.at_m(b.0, b.1, 0.0);
        p.line(x0, y0, x1, y1, lw, LINE);
    };
    line(p, (0.0, 0.0), (len, 0.0));
    line(p, (0.0, wid), (len, wid));
    line(p, (0.0, 0.0), (0.0, wid));
    line(p, (len, 0.0), (len, wid));
    line(p, (len / 2.0, 0.0), (len / 2.0, wid));
    p.arc(cx, cy, l.px(1.8), l.py(1.8), 0.0, TAU, lw, LINE);
    p.set_font((l.scale * 0.9).max(9.0), true, Align::Center);
    p.set_alpha(0.5);
    p.text(cx, cy + l.scale * 0.3, "NtBA", "#7a3e12");
    p.set_alpha(1.0);
    let three = m(ntba::THREE_POINT_RADIUS);
    for (end, hx) in [(0, m(HOOP_LEFT_X)), (1, m(HOOP_RIGHT_X))] {
        let toward = if end == 0 { 1.0 } else { -1.0 };
        let base = if end == 0 { 0.0 } else { len };
        let ft = base + toward * key_len;
        line(p, (base, hy - key_half), (ft, hy - key_half));
        line(p, (base, hy + key_half), (ft, hy + key_half));
        line(p, (ft, hy - key_half), (ft, hy + key_half));
        // Free-throw circle, the half away from the baseline.
        let (fx, fy) = l.at_m(ft, hy, 0.0);
        let (a0, a1) = if end == 0 {
            (-PI / 2.0, PI / 2.0)
        } else {
            (PI / 2.0, 3.0 * PI / 2.0)
        };
        p.arc(fx, fy, l.px(1.8), l.py(1.8), a0, a1, lw, LINE);
        // The three-point arc: a circle around the hoop, cut by the
        // baseline.
        let cut = ((base - hx) / three).clamp(-1.0, 1.0).acos();
        let (hxp, hyp) = l.at_m(hx, hy, 0.0);
        let (s, e) = if end == 0 {
            (-cut, cut)
        } else {
            (cut, TAU - cut)
        };
        p.arc(hxp, hyp, l.px(three), l.py(three), s, e, lw, LINE);
    }
}

fn hoop(p: &mut dyn Painter, l: &Layout, end: u8) {
    let (hx, base, out) = if end == 0 {
        (m(HOOP_LEFT_X), 0.0, -1.0)
    } else {
        (m(HOOP_RIGHT_X), m(COURT_LENGTH), 1.0)
    };
    let hy = m(HOOP_Y);
    let rim_z = m(ntba::RIM_HEIGHT);
    let board_x = hx + out * 0.38;
    let pole_x = base + out * 0.55;
    // Pole and arm.
    let (px0, py0) = l.at_m(pole_x, hy, 0.0);
    let (px1, py1) = l.at_m(pole_x, hy, rim_z + 0.3);
    let (bx1, by1) = l.at_m(board_x, hy, rim_z + 0.3);
    let pw = l.px(0.16).max(2.0);
    p.line(px0, py0, px1, py1, pw, "#3a3f4b");
    p.line(px1, py1, bx1, by1, pw * 0.8, "#3a3f4b");
    // The backboard, seen edge-on: a slab across the hoop's width.
    let (_, top) = l.at_m(board_x, hy - 0.9, rim_z + 0.95);
    let (bx, bottom) = l.at_m(board_x, hy + 0.9, rim_z - 0.15);
    let bw = l.px(0.14).max(3.0);
    p.rect(
        bx - bw / 2.0 - 1.0,
        top - 1.0,
        bw + 2.0,
        bottom - top + 2.0,
        "#2b2f3a",
    );
    p.rect(bx - bw / 2.0, top, bw, bottom - top, "#f4f6fb");
    // Rim, and the net hanging from it.
    let (rx, ry) = l.at_m(hx, hy, rim_z);
    let (nx, ny) = l.at_m(hx, hy, rim_z - 0.45);
    let rr = m(ntba::RIM_RADIUS);
    p.set_alpha(0.85);
    for i in 0..8 {
        let a = f64::from(i) * TAU / 8.0;
        p.line(
            rx + l.px(rr) * a.cos(),
            ry + l.py(rr) * a.sin(),
            nx + l.px(rr * 0.6) * a.cos(),
            ny + l.py(rr * 0.6) * a.sin(),
            1.0,
            "#ffffff",
        );
    }
    p.arc(
        nx,
        ny,
        l.px(rr * 0.6),
        l.py(rr * 0.6),
        0.0,
        TAU,
        1.0,
        "#ffffff",
    );
    p.set_alpha(1.0);
    p.line(bx, ry, rx - out * l.px(rr), ry, 2.0, "#d8480f");
    p.arc(
        rx,
        ry,
        l.px(rr),
        l.py(rr),
        0.0,
        TAU,
        l.px(0.06).max(2.0),
        "#ff6b1a",
    );
}

// ----- players and ball ----------------------------------------------------------

enum Item {
    Player(usize),
    Ball,
    Hoop(u8),
}

fn scene(p: &mut dyn Painter, l: &Layout, g: &Ntba, fx: &Effects, labels: &Labels) {
    let players = g.players();
    let ball = g.ball();
    // Floor layer: shadows, the controlled players' rings, facing arrows.
    for pl in &players {
        let (x, y) = l.floor(pl.x, pl.y);
        let k = 1.0 / (1.0 + m(pl.z) * 0.8);
        p.ellipse(
            x,
            y,
            l.px(0.42 * FIGURE) * k,
            l.py(0.42 * FIGURE) * k,
            SHADOW,
        );
    }
    {
        let (x, y) = l.floor(ball.x, ball.y);
        let k = 1.0 / (1.0 + m(ball.z) * 0.35);
        if ball.state != BallState::Dead || ball.z > 0 {
            p.ellipse(x, y, l.px(0.2) * k, l.py(0.2) * k, SHADOW);
        }
    }
    for pl in &players {
        let t = TEAMS[usize::from(pl.side & 1)];
        let (x, y) = l.floor(pl.x, pl.y);
        if pl.controlled && labels.pointer[usize::from(pl.side & 1)].is_some() {
            p.arc(
                x,
                y,
                l.px(0.6 * FIGURE),
                l.py(0.6 * FIGURE),
                0.0,
                TAU,
                2.0,
                t.light,
            );
        }
        // Facing: a small arrow on the floor in front of the feet.
        let (fx_, fy_) = pl.facing_vector();
        let (dx, dy) = (f64::from(fx_) / 256.0, f64::from(fy_) / 256.0);
        let tip = l.at_m(m(pl.x) + dx * 0.85, m(pl.y) + dy * 0.85, 0.0);
        let side_a = l.at_m(
            m(pl.x) + dx * 0.55 - dy * 0.18,
            m(pl.y) + dy * 0.55 + dx * 0.18,
            0.0,
        );
        let side_b = l.at_m(
            m(pl.x) + dx * 0.55 + dy * 0.18,
            m(pl.y) + dy * 0.55 - dx * 0.18,
            0.0,
        );
        p.set_alpha(0.8);
        p.polygon(&[tip, side_a, side_b], t.light);
        p.set_alpha(1.0);
    }
    // Bodies, ball and hoops back to front.
    let mut items: Vec<(i32, u8, Item)> = Vec::with_capacity(7);
    for (i, pl) in players.iter().enumerate() {
        items.push((pl.y, 1, Item::Player(i)));
    }
    let ball_key = match ball.state {
        BallState::Held(h) => players[usize::from(h % 4)].y,
        _ => ball.y,
    };
    items.push((ball_key, 2, Item::Ball));
    items.push((HOOP_Y, 0, Item::Hoop(0)));
    items.push((HOOP_Y, 0, Item::Hoop(1)));
    items.sort_by_key(|(y, order, _)| (*y, *order));
    for (_, _, item) in items {
        match item {
            Item::Player(i) => player(p, l, &players[i], g, labels),
            Item::Ball => {
                trail(p, l, fx);
                if ball.state != BallState::Dead {
                    draw_ball(p, l, ball.x, ball.y, ball.z);
                }
            }
            Item::Hoop(end) => hoop(p, l, end),
        }
    }
}

fn player(p: &mut dyn Painter, l: &Layout, pl: &PlayerView, g: &Ntba, labels: &Labels) {
    let side = usize::from(pl.side & 1);
    let t = TEAMS[side];
    let skin = SKIN[usize::from(pl.slot & 1)];
    let (x, y, z) = (m(pl.x), m(pl.y), m(pl.z));
    let at = |dx: f64, h: f64| l.at_m(x + dx * FIGURE, y, z + h * FIGURE);
    let px = |v: f64| l.px(v * FIGURE);
    let pz = |v: f64| l.pz(v * FIGURE);
    let phase = f64::from(pl.anim);
    let running = matches!(pl.action, Action::Run | Action::Dribble);
    let swing = if running {
        (phase * 0.45).sin() * 0.2
    } else {
        0.0
    };
    let limb = px(0.13).max(2.0);
    // Legs.
    let hip_l = at(-0.1, 0.8);
    let hip_r = at(0.1, 0.8);
    let (foot_l, foot_r) = if pl.z > 0 {
        (at(-0.12, 0.12), at(0.12, 0.12))
    } else {
        (at(-0.12 + swing, 0.0), at(0.12 - swing, 0.0))
    };
    p.line(hip_l.0, hip_l.1, foot_l.0, foot_l.1, limb, skin);
    p.line(hip_r.0, hip_r.1, foot_r.0, foot_r.1, limb, skin);
    // Shorts and jersey.
    let (sx, sy) = at(0.0, 0.85);
    p.ellipse(sx, sy, px(0.25), pz(0.17), t.dark);
    let (tx, ty) = at(0.0, 1.22);
    p.ellipse(tx, ty, px(0.27), pz(0.36), t.main);
    p.set_font(px(0.36).max(7.0), true, Align::Center);
    p.text(
        tx,
        ty + pz(0.12),
        if pl.slot == 0 { "1" } else { "2" },
        "#ffffff",
    );
    // Arms: where the hands go depends on what the body is doing.
    let (fdx, fdy) = pl.facing_vector();
    let fwd = f64::from(fdx) / 256.0;
    let shoulder_l = at(-0.24, 1.45);
    let shoulder_r = at(0.24, 1.45);
    let hands: [(f64, f64); 2] = match pl.action {
        Action::Jump | Action::JumpWithBall | Action::Throw => {
            [at(-0.15 + fwd * 0.2, 2.25), at(0.15 + fwd * 0.2, 2.25)]
        }
        Action::Celebrate => {
            let wave = (phase * 0.3).sin() * 0.15;
            [at(-0.35 + wave, 2.2), at(0.35 - wave, 2.2)]
        }
        Action::Steal => {
            let reach = 0.75 * (fwd + f64::from(fdy) / 512.0);
            [at(-0.3, 1.0), at(0.2 + reach, 1.15)]
        }
        Action::Dribble | Action::DribbleStand if pl.has_ball => {
            let b = g.ball();
            let hand = l.at_m(m(b.x), m(b.y), m(b.z) + 0.15);
            let near = if fwd < 0.0 { 0 } else { 1 };
            let mut hs = [at(-0.3, 1.0), at(0.3, 1.0)];
            hs[near] = hand;
            hs
        }
        _ => [at(-0.32 - swing * 0.6, 0.95), at(0.32 + swing * 0.6, 0.95)],
    };
    p.line(
        shoulder_l.0,
        shoulder_l.1,
        hands[0].0,
        hands[0].1,
        limb * 0.85,
        skin,
    );
    p.line(
        shoulder_r.0,
        shoulder_r.1,
        hands[1].0,
        hands[1].1,
        limb * 0.85,
        skin,
    );
    // Head, turned a little the way the player faces.
    let (hx, hy) = at(fwd * 0.05, 1.74);
    p.circle(hx, hy, px(0.17).max(3.0), skin);
    p.circle(
        hx - fwd * px(0.04),
        hy - pz(0.1),
        px(0.13).max(2.0),
        "#1b1b1b",
    );
    // The controlled player's pointer, stamina and shot meter.
    if pl.controlled {
        if let Some(label) = labels.pointer[side] {
            let (ax, ay) = at(0.0, 2.25);
            let s = px(0.22).max(4.0);
            p.polygon(
                &[(ax - s, ay - s * 1.4), (ax + s, ay - s * 1.4), (ax, ay)],
                POINTER,
            );
            if !label.is_empty() {
                p.set_font(px(0.4).max(8.0), true, Align::Center);
                p.text(ax, ay - s * 1.7, label, POINTER);
            }
            if pl.stamina < STAMINA_MAX {
                let (fx_, fy_) = l.at_m(x, y, 0.0);
                let bw = px(0.9);
                let fill = bw * f64::from(pl.stamina) / f64::from(STAMINA_MAX);
                let c = if pl.stamina * 4 < STAMINA_MAX {
                    "#ef476f"
                } else {
                    "#06d6a0"
                };
                p.rect(fx_ - bw / 2.0, fy_ + l.py(0.7), bw, 3.0, "#222631");
                p.rect(fx_ - bw / 2.0, fy_ + l.py(0.7), fill, 3.0, c);
            }
            if !label.is_empty() && pl.action == Action::JumpWithBall {
                let (mx, top) = at(0.55, 2.1);
                let (_, bottom) = at(0.55, 0.5);
                shot_meter(p, mx, top, bottom, pl.anim);
            }
        }
    }
}

/// The jump tick a shooter would release on if the shoot key were let go
/// now, from the ticks spent in the jump so far (the jump starts at tick 1
/// with `anim` 0, and the release is taken on the next step, one tick on).
#[must_use]
pub fn release_tick_if_let_go(anim: u16) -> u16 {
    anim.saturating_add(2)
}

/// Colour of a full, well-timed shot meter.
pub const METER_PERFECT: &str = "#06d6a0";

/// A bar beside a person's shooter that fills as the jump rises and empties
/// as it falls: full (and green) is the moment to let go.
fn shot_meter(p: &mut dyn Painter, x: f64, top: f64, bottom: f64, anim: u16) {
    let apex = f64::from(JUMP_APEX);
    let t = f64::from(release_tick_if_let_go(anim));
    let off = (t - apex).abs();
    let fill = (1.0 - off / apex).clamp(0.0, 1.0);
    let colour = if off <= 2.0 {
        METER_PERFECT
    } else if t < apex {
        POINTER
    } else {
        "#ef476f"
    };
    let w = 5.0;
    let h = bottom - top;
    p.rect(x - w / 2.0 - 1.0, top - 1.0, w + 2.0, h + 2.0, "#111318");
    p.rect(x - w / 2.0, bottom - h * fill, w, h * fill, colour);
    p.line(x - w, top, x + w, top, 1.5, METER_PERFECT);
}

fn draw_ball(p: &mut dyn Painter, l: &Layout, x: i32, y: i32, z: i32) {
    let (bx, by) = l.at(x, y, z);
    let r = l.px(0.21).max(3.5);
    p.circle(bx, by, r + 1.0, "#4a2200");
    p.circle(bx, by, r, BALL);
    p.line(bx - r, by, bx + r, by, 1.0, "#4a2200");
    p.arc(bx, by, r * 0.45, r, -PI / 2.0, PI / 2.0, 1.0, "#4a2200");
    p.circle(bx - r * 0.35, by - r * 0.4, r * 0.25, "#ffc07a");
}

fn trail(p: &mut dyn Painter, l: &Layout, fx: &Effects) {
    let t = fx.trail();
    let n = t.len();
    for (i, &(x, y, z)) in t.iter().enumerate().take(n.saturating_sub(1)) {
        let (bx, by) = l.at(x, y, z);
        p.set_alpha(0.12 + 0.35 * (i as f64) / (n as f64));
        p.circle(bx, by, l.px(0.17).max(2.5), BALL);
    }
    p.set_alpha(1.0);
}

// ----- effects ---------------------------------------------------------------------

fn world_effects(p: &mut dyn Painter, l: &Layout, tick: u32, fx: &Effects) {
    for e in fx.list() {
        let a = e.alpha(tick);
        let age = f64::from(e.age(tick));
        let (x, y) = l.at(e.x, e.y, e.z);
        let rise = age * l.scale * 0.03;
        p.set_alpha(a);
        match e.kind {
            EffectKind::Score { side, points, dunk } => {
                let t = TEAMS[usize::from(side & 1)];
                // A ring spreading from the rim.
                let r = l.px(0.3 + age * 0.05);
                p.set_alpha(a * 0.8);
                p.arc(x, y, r, r * crate::layout::DEPTH, 0.0, TAU, 3.0, t.light);
                p.set_alpha(a);
                let text = match (dunk, points) {
                    (true, _) => "DUNK!",
                    (false, 3) => "+3",
                    _ => "+2",
                };
                let size = l.px(1.0).max(16.0);
                p.set_font(size, true, Align::Center);
                p.text(x + 1.5, y - l.pz(0.6) - rise + 1.5, text, "#000000");
                p.text(x, y - l.pz(0.6) - rise, text, t.light);
            }
            EffectKind::Block { side } | EffectKind::Steal { side } => {
                let t = TEAMS[usize::from(side & 1)];
                let word = if matches!(e.kind, EffectKind::Block { .. }) {
                    "BLOCKED!"
                } else {
                    "STEAL!"
                };
                // A burst of short rays.
                let r0 = l.px(0.3 + age * 0.02);
                for i in 0..8 {
                    let ang = f64::from(i) * TAU / 8.0;
                    let (c, s) = (ang.cos(), ang.sin());
                    p.line(
                        x + c * r0,
                        y + s * r0,
                        x + c * (r0 + l.px(0.3)),
                        y + s * (r0 + l.px(0.3)),
                        2.0,
                        POINTER,
                    );
                }
                p.set_font(l.px(0.7).max(12.0), true, Align::Center);
                p.text(x + 1.0, y - l.pz(0.5) - rise + 1.0, word, "#000000");
                p.text(x, y - l.pz(0.5) - rise, word, t.light);
            }
            EffectKind::Perfect { .. } => {
                p.set_font(l.px(0.5).max(10.0), true, Align::Center);
                p.text(x, y - rise, "PERFECT", POINTER);
            }
            // Drawn over the help band by `banners`, off the court.
            EffectKind::Banner(_) => {}
        }
    }
    p.set_alpha(1.0);
}

/// Period and whistle banners ("1ST HALF", "OUT OF BOUNDS"): over the help
/// band under the court, so that they never hide the players (at a
/// tip-off they all stand around the centre).
fn banners(p: &mut dyn Painter, l: &Layout, tick: u32, fx: &Effects) {
    let top = l.help_top();
    let room = l.h - top;
    for e in fx.list() {
        let EffectKind::Banner(text) = e.kind else {
            continue;
        };
        let a = e.alpha(tick);
        p.set_alpha(a);
        p.rect(0.0, top, l.w, room, PANEL);
        p.set_font(fit(text, l.w * 0.9, room * 0.7), true, Align::Center);
        p.text(l.w / 2.0, top + room * 0.75, text, "#ffffff");
    }
    p.set_alpha(1.0);
}

// ----- scoreboard, help, banners, end screen --------------------------------------------

/// The period's name: "1ST HALF", "2ND HALF", "OVERTIME", "OVERTIME 2",
/// then "SUDDEN DEATH".
#[must_use]
pub fn period_name(period: u8) -> String {
    match period {
        0 => "1ST HALF".to_owned(),
        1 => "2ND HALF".to_owned(),
        2 => "OVERTIME".to_owned(),
        p if p < SUDDEN_DEATH_PERIOD => format!("OVERTIME {}", p - 1),
        _ => "SUDDEN DEATH".to_owned(),
    }
}

fn scoreboard(p: &mut dyn Painter, l: &Layout, g: &Ntba, fx: &Effects, labels: &Labels) {
    let band = l.band_bottom();
    let c = g.clocks();
    let score = g.score();
    let tick = g.tick();
    p.set_alpha(0.92);
    p.rect(0.0, 0.0, l.w, band, PANEL);
    p.set_alpha(1.0);
    let mid = l.w / 2.0;
    let big = (band * 0.6).max(12.0);
    let small = (band * 0.26).max(8.0);
    // Clock block in the middle.
    let (mins, secs) = c.game_clock_min_sec();
    p.set_font(small, true, Align::Center);
    p.text(mid, band * 0.3, &period_name(c.period), DIM_TEXT);
    p.set_font(big * 0.8, true, Align::Center);
    p.text(mid, band * 0.78, &format!("{mins}:{secs:02}"), "#ffffff");
    // Shot clock beside it.
    let shot = c.shot_clock_seconds();
    let shot_text = shot.map_or_else(|| "--".to_owned(), |s| s.to_string());
    let shot_colour = match shot {
        Some(s) if s <= 5 => "#ef476f",
        Some(_) => POINTER,
        None => "#5d6473",
    };
    let sx = mid + l.w * 0.11;
    p.rect(
        sx - band * 0.42,
        band * 0.16,
        band * 0.84,
        band * 0.7,
        "#1d222c",
    );
    p.set_font(small * 0.8, false, Align::Center);
    p.text(sx, band * 0.36, "SHOT", DIM_TEXT);
    p.set_font(big * 0.55, true, Align::Center);
    p.text(sx, band * 0.76, &shot_text, shot_colour);
    // The two teams.
    for side in 0..2u8 {
        let s = usize::from(side);
        let t = TEAMS[s];
        let dir = if side == 0 { -1.0 } else { 1.0 };
        let chip_x = if side == 0 { 0.0 } else { l.w - l.w * 0.012 };
        p.rect(chip_x, 0.0, l.w * 0.012, band, t.main);
        let name_x = mid + dir * l.w * 0.42;
        let align = if side == 0 { Align::Left } else { Align::Right };
        p.set_font(small * 1.15, true, align);
        p.text(name_x, band * 0.42, t.name, t.light);
        let who = labels.who[s];
        if !who.is_empty() {
            p.set_font(small, false, align);
            p.text(name_x, band * 0.8, who, DIM_TEXT);
        }
        if g.possession() == Some(side) {
            let px = mid + dir * l.w * 0.32;
            p.circle(px, band * 0.5, (band * 0.12).max(3.0), BALL);
        }
        // The way this team attacks now (it changes at half time): an
        // arrow between the score and the possession dot.
        attack_arrow(
            p,
            mid + dir * l.w * 0.265,
            band * 0.5,
            (band * 0.13).max(3.0),
            g.attacks_right(side),
            t.light,
        );
        let pulse = fx.score_pulse(side, tick);
        let sc_x = mid + dir * l.w * 0.2;
        p.set_font(big * (1.0 + 0.25 * pulse), true, Align::Center);
        let colour = if pulse > 0.0 { t.light } else { "#ffffff" };
        p.text(sc_x, band * 0.8, &score[s].to_string(), colour);
    }
}

/// A filled arrow head centred on (`x`, `y`), `size` from the centre to
/// the tip, pointing right or left. The tip is the first corner.
fn attack_arrow(p: &mut dyn Painter, x: f64, y: f64, size: f64, right: bool, colour: &str) {
    let d = if right { 1.0 } else { -1.0 };
    p.polygon(
        &[
            (x + d * size, y),
            (x - d * size, y - size),
            (x - d * size * 0.4, y),
            (x - d * size, y + size),
        ],
        colour,
    );
}

fn help(p: &mut dyn Painter, l: &Layout, labels: &Labels) {
    let top = l.help_top();
    let room = l.h - top;
    p.set_alpha(0.85);
    p.rect(0.0, top, l.w, room, PANEL);
    p.set_alpha(1.0);
    let n = labels.help.len().max(1) as f64;
    for (i, text) in labels.help.iter().enumerate() {
        let size = fit(text, l.w * 0.96, (room / n * 0.72).clamp(7.0, 14.0));
        p.set_font(size, false, Align::Center);
        let y = top + room * (i as f64 + 0.75) / n;
        p.text(l.w / 2.0, y, text, DIM_TEXT);
    }
}

/// A text size at most `size` at which `text` fits in `width` pixels
/// (assuming an average glyph of 0.58 of the size, a little over what
/// system-ui needs).
fn fit(text: &str, width: f64, size: f64) -> f64 {
    let chars = text.chars().count().max(1) as f64;
    size.min(width / (chars * 0.58))
}

/// Said at half time, under the score: the teams attack the other hoop in
/// the second half (the scoreboard's arrows turn round when it starts).
pub const HALF_TIME_SWAP: &str = "Teams change ends";

fn break_banner(p: &mut dyn Painter, l: &Layout, g: &Ntba) {
    let c = g.clocks();
    let score = g.score();
    // During the break the clocks still show the period that just ended.
    let (title, sub) = match c.period {
        0 => (
            "HALF TIME",
            format!(
                "{} {} – {} {}  ·  {HALF_TIME_SWAP}",
                TEAMS[0].name, score[0], score[1], TEAMS[1].name
            ),
        ),
        p if p + 1 >= SUDDEN_DEATH_PERIOD => ("SUDDEN DEATH", "Next basket wins".to_owned()),
        _ => (
            "OVERTIME",
            format!("Tied at {}! Thirty more seconds", score[0]),
        ),
    };
    centre_card(p, l, title, "#ffffff", &sub);
}

fn centre_card(p: &mut dyn Painter, l: &Layout, title: &str, colour: &str, sub: &str) {
    let (cx, cy) = (l.w / 2.0, l.h * 0.5);
    p.set_alpha(0.8);
    p.rect(0.0, cy - l.h * 0.11, l.w, l.h * 0.2, PANEL);
    p.set_alpha(1.0);
    p.set_font((l.h * 0.08).max(14.0), true, Align::Center);
    p.text(cx, cy, title, colour);
    p.set_font((l.h * 0.04).max(9.0), false, Align::Center);
    p.text(cx, cy + l.h * 0.06, sub, DIM_TEXT);
}

fn end_screen(p: &mut dyn Painter, l: &Layout, g: &Ntba) {
    let score = g.score();
    let stats = g.stats();
    p.set_alpha(0.78);
    p.rect(
        0.0,
        l.band_bottom(),
        l.w,
        l.help_top() - l.band_bottom(),
        "#05070b",
    );
    p.set_alpha(1.0);
    let cx = l.w / 2.0;
    let h = l.h;
    p.set_font((h * 0.04).max(9.0), true, Align::Center);
    let over = g.clocks().phase == Phase::Over;
    let head = if over { "FINAL" } else { "MATCH STOPPED" };
    p.text(cx, h * 0.22, head, DIM_TEXT);
    let (title, colour) = match g.winner() {
        Some(w) => (
            format!("{} WINS!", TEAMS[usize::from(w & 1)].name),
            TEAMS[usize::from(w & 1)].light,
        ),
        None if over => ("GAME OVER".to_owned(), "#ffffff"),
        None => ("NO RESULT".to_owned(), "#ffffff"),
    };
    p.set_font((h * 0.1).max(16.0), true, Align::Center);
    p.text(cx, h * 0.34, &title, colour);
    p.set_font((h * 0.08).max(14.0), true, Align::Center);
    p.text(
        cx,
        h * 0.46,
        &format!("{} – {}", score[0], score[1]),
        "#ffffff",
    );
    if g.winner().is_some() && score[0] == score[1] {
        p.set_font((h * 0.03).max(8.0), false, Align::Center);
        p.text(cx, h * 0.505, "on the tiebreak", DIM_TEXT);
    }
    let rows: [(&str, [String; 2]); 6] = [
        (
            "Field goals",
            stats.map(|s| format!("{}/{}", s.made, s.shots)),
        ),
        (
            "Threes",
            stats.map(|s| format!("{}/{}", s.threes_made, s.threes)),
        ),
        ("Rebounds", stats.map(|s| s.rebounds.to_string())),
        ("Steals", stats.map(|s| s.steals.to_string())),
        ("Blocks", stats.map(|s| s.blocks.to_string())),
        ("Turnovers", stats.map(|s| s.turnovers.to_string())),
    ];
    let size = (h * 0.038).max(8.0);
    let y0 = h * 0.55;
    p.set_font(size, true, Align::Right);
    p.text(cx - l.w * 0.12, y0, TEAMS[0].name, TEAMS[0].light);
    p.set_font(size, true, Align::Left);
    p.text(cx + l.w * 0.12, y0, TEAMS[1].name, TEAMS[1].light);
    for (i, (label, v)) in rows.iter().enumerate() {
        let y = y0 + size * 1.25 * (i as f64 + 1.0);
        p.set_font(size, false, Align::Center);
        p.text(cx, y, label, DIM_TEXT);
        p.set_font(size, true, Align::Right);
        p.text(cx - l.w * 0.12, y, &v[0], "#ffffff");
        p.set_font(size, true, Align::Left);
        p.text(cx + l.w * 0.12, y, &v[1], "#ffffff");
    }
}
