//! What the page draws, in arena metres: the ships and bullets of one
//! moment, whichever side computed them (the host's own state, a guest's
//! interpolated view with its predicted ship, local play).

use std::f32::consts::TAU;

use arena::{ArenaSnapshot, HEIGHT, SHIP_RADIUS, WIDTH};
use authority::Seat;
use web_shell::front_end::{Align, Painter};

/// A ship as drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrawnShip {
    /// Its seat.
    pub id: Seat,
    /// Position (metres).
    pub pos: [f32; 2],
    /// Heading (radians).
    pub angle: f32,
    /// Hit points (0: destroyed).
    pub hp: u8,
    /// Ships it destroyed.
    pub score: u16,
    /// Engine on.
    pub thrust: bool,
}

/// One moment of the arena as drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    /// Every ship.
    pub ships: Vec<DrawnShip>,
    /// Every bullet's position (metres).
    pub bullets: Vec<[f32; 2]>,
    /// This page's own seat.
    pub me: Option<Seat>,
}

impl Scene {
    /// The snapshot as it stood at host tick `tick` (fractional between
    /// snapshots), `tick_ms` per tick.
    #[must_use]
    pub fn of(s: &ArenaSnapshot, tick: f64, tick_ms: u16, me: Option<Seat>) -> Scene {
        Scene {
            ships: s
                .ships
                .iter()
                .map(|v| DrawnShip {
                    id: v.id,
                    pos: v.pos(),
                    angle: f32::from(v.a) / 256.0 * TAU,
                    hp: v.hp,
                    score: v.score,
                    thrust: v.thrust,
                })
                .collect(),
            #[allow(clippy::cast_possible_truncation)]
            bullets: s
                .bullets
                .iter()
                .map(|b| b.pos_at(tick as f32, tick_ms))
                .collect(),
            me,
        }
    }

    /// The ship at `seat`.
    #[must_use]
    pub fn ship(&self, seat: Seat) -> Option<&DrawnShip> {
        self.ships.iter().find(|s| s.id == seat)
    }

    /// "Amber 2 · Teal 0": every ship's score, by seat.
    #[must_use]
    pub fn summary(&self) -> String {
        self.ships
            .iter()
            .map(|s| format!("{} {}", colour_name(s.id), s.score))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Draws the scene on the whole canvas.
    pub fn draw(&self, p: &mut dyn Painter) {
        let (w, h) = p.size();
        let scale = (w / f64::from(WIDTH)).min(h / f64::from(HEIGHT));
        let ox = (w - scale * f64::from(WIDTH)) / 2.0;
        let oy = (h - scale * f64::from(HEIGHT)) / 2.0;
        let at = |q: [f32; 2]| (ox + f64::from(q[0]) * scale, oy + f64::from(q[1]) * scale);
        p.clear("#05070d");
        p.rect(
            ox,
            oy,
            scale * f64::from(WIDTH),
            scale * f64::from(HEIGHT),
            "#0d1424",
        );
        for b in &self.bullets {
            let (x, y) = at(*b);
            p.circle(x, y, (0.35 * scale).max(1.5), "#f4f1de");
        }
        let r = f64::from(SHIP_RADIUS) * scale;
        for s in &self.ships {
            let (x, y) = at(s.pos);
            let colour = COLOURS[usize::from(s.id) % COLOURS.len()].1;
            if s.hp == 0 {
                p.set_alpha(0.25);
                p.circle(x, y, r, colour);
                p.set_alpha(1.0);
                continue;
            }
            let a = f64::from(s.angle);
            let point = |da: f64, k: f64| (x + r * k * (a + da).cos(), y + r * k * (a + da).sin());
            if s.thrust {
                let (fx, fy) = point(std::f64::consts::PI, 1.3);
                p.circle(fx, fy, r * 0.35, "#ff9f1c");
            }
            p.polygon(
                &[point(0.0, 1.4), point(2.4, 1.0), point(-2.4, 1.0)],
                colour,
            );
            if self.me == Some(s.id) {
                p.arc(x, y, r * 1.9, r * 1.9, 0.0, TAU.into(), 1.5, "#ffffff");
            }
            for i in 0..s.hp {
                p.rect(
                    x - r + f64::from(i) * r * 0.42,
                    y + r * 1.6,
                    r * 0.32,
                    r * 0.25,
                    colour,
                );
            }
        }
        p.set_font(16.0, true, Align::Left);
        p.text(ox + 8.0, oy + 20.0, &self.summary(), "#e0e6f0");
    }
}

/// Each seat's colour: its name and CSS value.
pub const COLOURS: [(&str, &str); 11] = [
    ("Amber", "#ffbf00"),
    ("Teal", "#2ec4b6"),
    ("Rose", "#ff5d8f"),
    ("Lime", "#9ef01a"),
    ("Sky", "#4cc9f0"),
    ("Violet", "#b388eb"),
    ("Coral", "#ff7f51"),
    ("Mint", "#80ffdb"),
    ("Gold", "#ffd60a"),
    ("Azure", "#4361ee"),
    ("Ivory", "#f8f9fa"),
];

/// The colour a seat plays.
#[must_use]
pub fn colour_name(seat: Seat) -> &'static str {
    COLOURS[usize::from(seat) % COLOURS.len()].0
}
