//! Battleship's game slot in the web shell: an online match between two
//! pages, each with its own hidden fleet, and local play against a CPU on
//! the page.
//!
//! The side that hosted the room fires first. The person aims at the
//! other board with the arrow keys (the cursor runs on from the end of a
//! row into the next) and fires with Space or Enter. Once the game is
//! over, the result stays on screen for [`play::RESULT_HOLD_MS`], then
//! the match ends by itself.

use std::cell::RefCell;
use std::rc::Rc;

use battleship::{Board, Cell, End, Mark, Peer, FLEET, SIZE};
use lockstep::{Channel, Millis, Outcome, Role, SessionConfig};
use serde::Serialize;
use web_shell::front_end::{Align, LocalOption, Painter};
use web_shell::play::{self, RESULT_HOLD_MS};
use web_shell::shell::driver::{FrameReport, MatchEnd};
use web_shell::shell::view::{LocalView, MatchView};
use web_shell::shell::GameSlot;

/// The keys the game uses.
const GAME_KEYS: [&str; 6] = [
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "ArrowDown",
    "Space",
    "Enter",
];

/// What a page shows and knows, for tests (read through the crate's
/// `battleshipProbe` export): updated every frame.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Probe {
    /// 0 for the page that fires first, 1 for the other, while a match
    /// runs.
    pub side: Option<u8>,
    /// This page may fire.
    pub my_turn: bool,
    /// Where the cursor is on the other board.
    pub cursor: [u8; 2],
    /// "won", "lost", "violation", "left" or "other left" once the game
    /// is over.
    pub ended: Option<&'static str>,
    /// What this page knows of the other board: `[x, y, mark]` with mark
    /// 1 miss, 2 hit, 3 sunk.
    pub known: Vec<[u8; 3]>,
    /// This page's own ship cells (never sent: the test compares pages).
    pub fleet: Vec<[u8; 2]>,
    /// Cells of this page's board the other side fired at.
    pub shot_at: Vec<[u8; 2]>,
}

fn cells() -> impl Iterator<Item = Cell> {
    (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| Cell { x, y }))
}

fn probe_of(peer: &Peer, cursor: Cell, side: Option<u8>) -> Probe {
    Probe {
        side,
        my_turn: peer.my_turn(),
        cursor: [cursor.x, cursor.y],
        ended: peer.ended().map(|e| match e {
            End::Won => "won",
            End::Lost => "lost",
            End::Violation => "violation",
            End::Left => "left",
            End::OtherLeft => "other left",
        }),
        known: cells()
            .filter_map(|c| {
                let m = match peer.mark(c) {
                    Mark::Unknown => return None,
                    Mark::Miss => 1,
                    Mark::Hit => 2,
                    Mark::Sunk => 3,
                };
                Some([c.x, c.y, m])
            })
            .collect(),
        fleet: peer
            .board()
            .ships()
            .iter()
            .flat_map(|s| s.cells().iter().map(|c| [c.x, c.y]))
            .collect(),
        shot_at: cells()
            .filter(|&c| peer.board().is_shot(c))
            .map(|c| [c.x, c.y])
            .collect(),
    }
}

/// The cursor after an arrow key: along a row and on into the next, or
/// up and down a column, wrapping at the edges.
#[must_use]
pub fn move_cursor(c: Cell, key: &str) -> Cell {
    let i = u16::from(c.y) * u16::from(SIZE) + u16::from(c.x);
    let n = u16::from(SIZE) * u16::from(SIZE);
    let s = u16::from(SIZE);
    let i = match key {
        "ArrowRight" => (i + 1) % n,
        "ArrowLeft" => (i + n - 1) % n,
        "ArrowDown" => (i + s) % n,
        "ArrowUp" => (i + n - s) % n,
        _ => i,
    };
    #[allow(clippy::cast_possible_truncation)]
    Cell {
        x: (i % s) as u8,
        y: (i / s) as u8,
    }
}

/// The person at the keyboard: a cursor moved and a shot fired on each
/// key press (a key newly held this frame).
#[derive(Debug, Clone, Default)]
struct Aim {
    cursor: Option<Cell>,
    held: Vec<String>,
}

impl Aim {
    fn cursor(&self) -> Cell {
        self.cursor.unwrap_or(Cell { x: 0, y: 0 })
    }

    /// Moves the cursor for the keys pressed since the last frame; `true`
    /// when a fire key was pressed.
    fn frame(&mut self, held: &[&str]) -> bool {
        let mut fire = false;
        let mut c = self.cursor();
        for k in held {
            if self.held.iter().any(|h| h == k) {
                continue;
            }
            if *k == "Space" || *k == "Enter" {
                fire = true;
            } else {
                c = move_cursor(c, k);
            }
        }
        self.cursor = Some(c);
        self.held = held.iter().map(|k| (*k).to_owned()).collect();
        fire
    }
}

/// A small seeded generator for the CPU's shots.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

struct Local {
    me: Peer,
    cpu: Peer,
    rng: Rng,
    aim: Aim,
}

impl Local {
    /// Moves every message between the two boards on the page.
    fn exchange(&mut self) {
        loop {
            let mut moved = false;
            while let Some(b) = self.me.poll_transmit() {
                self.cpu.handle_datagram(&b);
                moved = true;
            }
            while let Some(b) = self.cpu.poll_transmit() {
                self.me.handle_datagram(&b);
                moved = true;
            }
            if !moved {
                break;
            }
        }
        while self.me.poll_event().is_some() {}
        while self.cpu.poll_event().is_some() {}
    }
}

struct Online {
    peer: Peer,
    side: u8,
    aim: Aim,
    /// When the game was seen over.
    over_at: Option<Millis>,
    quit: bool,
    link_lost: bool,
}

/// Battleship in the shell. See the module documentation.
pub struct BattleshipSlot {
    random: Box<dyn FnMut() -> u64>,
    local: Option<Local>,
    online: Option<(u32, Online)>,
    probe: Rc<RefCell<Probe>>,
}

impl BattleshipSlot {
    /// A slot that places fleets from `random` and writes what it shows
    /// into `probe` (shared with the page's test export).
    #[must_use]
    pub fn new(random: Box<dyn FnMut() -> u64>, probe: Rc<RefCell<Probe>>) -> BattleshipSlot {
        BattleshipSlot {
            random,
            local: None,
            online: None,
            probe,
        }
    }

    fn result_text(end: End) -> &'static str {
        match end {
            End::Won => "You sank the whole fleet: you won!",
            End::Lost => "Your fleet was sunk: you lost.",
            End::Violation => "The other player broke the rules, so the match was stopped.",
            End::Left => play::outcome_message(&Outcome::LocalQuit),
            End::OtherLeft => play::outcome_message(&Outcome::RemoteQuit),
        }
    }

    fn status(peer: &Peer) -> String {
        match peer.ended() {
            Some(e) => Self::result_text(e).to_owned(),
            None if peer.my_turn() => "Your turn: arrows aim, Space fires.".to_owned(),
            None => "The other player is aiming…".to_owned(),
        }
    }

    fn summary(peer: &Peer) -> String {
        let (mut shots, mut hits, mut sunk) = (0, 0, 0);
        for c in cells() {
            match peer.mark(c) {
                Mark::Unknown => continue,
                Mark::Miss => {}
                Mark::Hit => hits += 1,
                Mark::Sunk => {
                    hits += 1;
                    sunk += 1;
                }
            }
            shots += 1;
        }
        let fleet_cells: u32 = FLEET.iter().map(|&l| u32::from(l)).sum();
        format!("shots {shots} · hits {hits} of {fleet_cells} · sunk cells {sunk}")
    }

    fn draw(peer: &Peer, cursor: Cell, p: &mut dyn Painter) {
        let (w, h) = p.size();
        p.clear("#0b132b");
        let cell = ((w - 60.0) / 20.0).min((h - 80.0) / 10.0);
        let grid = cell * f64::from(SIZE);
        let top = 50.0;
        let left_own = (w - 2.0 * grid - 40.0) / 2.0;
        let left_theirs = left_own + grid + 40.0;
        p.set_font(15.0, true, Align::Left);
        p.text(left_own, top - 12.0, "Your fleet", "#e0e6f0");
        p.text(left_theirs, top - 12.0, "Their waters", "#e0e6f0");
        let ships: Vec<Cell> = peer
            .board()
            .ships()
            .iter()
            .flat_map(|s| s.cells().iter().copied())
            .collect();
        for c in cells() {
            let x = f64::from(c.x) * cell;
            let y = top + f64::from(c.y) * cell;
            let own = if ships.contains(&c) {
                "#5c677d"
            } else {
                "#1c2541"
            };
            p.rect(left_own + x + 1.0, y + 1.0, cell - 2.0, cell - 2.0, own);
            if peer.board().is_shot(c) {
                let colour = if ships.contains(&c) {
                    "#ef476f"
                } else {
                    "#8d99ae"
                };
                p.circle(
                    left_own + x + cell / 2.0,
                    y + cell / 2.0,
                    cell / 4.0,
                    colour,
                );
            }
            let theirs = match peer.mark(c) {
                Mark::Unknown => "#1c2541",
                Mark::Miss => "#3a506b",
                Mark::Hit => "#ef476f",
                Mark::Sunk => "#9d0208",
            };
            p.rect(
                left_theirs + x + 1.0,
                y + 1.0,
                cell - 2.0,
                cell - 2.0,
                theirs,
            );
        }
        if peer.ended().is_none() {
            let x = left_theirs + f64::from(cursor.x) * cell;
            let y = top + f64::from(cursor.y) * cell;
            let colour = if peer.my_turn() { "#ffd166" } else { "#6c757d" };
            p.line(x, y, x + cell, y, 2.0, colour);
            p.line(x, y + cell, x + cell, y + cell, 2.0, colour);
            p.line(x, y, x, y + cell, 2.0, colour);
            p.line(x + cell, y, x + cell, y + cell, 2.0, colour);
        }
        p.set_font(15.0, false, Align::Left);
        p.text(left_own, top + grid + 24.0, &Self::status(peer), "#e0e6f0");
    }
}

impl GameSlot for BattleshipSlot {
    // On its own page the match stays on the page, where the test probe
    // reads it; the arcade's hub runs it in the match worker (the fleet's
    // random numbers come from either scope).
    fn match_in_worker(&self) -> bool {
        false
    }
    fn name(&self) -> &'static str {
        "Battleship"
    }
    fn build_id(&self) -> u64 {
        // The wire is the battleship crate's messages; a change to them
        // changes this.
        0xBA77_1E54_0000_0002
    }
    fn about(&self) -> web_shell::front_end::About {
        web_shell::front_end::About {
            tagline: "Battleship: sink the other fleet before yours goes down.",
            controls: &[("Arrow keys", "aim"), ("Space or Enter", "fire")],
            how_to_play: &[
                "Your fleet is placed for you and never leaves your page.",
                "Take turns firing at the other grid; only your shots and their results cross the wire.",
                "A sunk ship shows its cells; sink the whole fleet to win.",
            ],
        }
    }
    fn local_options(&self) -> &'static [LocalOption] {
        &[]
    }
    fn is_game_key(&self, code: &str) -> bool {
        GAME_KEYS.contains(&code)
    }
    fn start_local(&mut self, seed: u64, _choices: &[usize]) {
        if self.local.is_none() {
            self.local = Some(Local {
                me: Peer::new(Board::random(seed), true),
                cpu: Peer::new(Board::random(seed.rotate_left(29) ^ 0xC0), false),
                rng: Rng(seed ^ 0x5EED),
                aim: Aim::default(),
            });
        }
    }
    fn stop_local(&mut self) {
        self.local = None;
    }
    fn local_frame(&mut self, held: &[&str], _steps: u32) -> LocalView {
        let Some(l) = self.local.as_mut() else {
            return LocalView::default();
        };
        if l.aim.frame(held) && l.me.fire(l.aim.cursor()).is_ok() {
            l.exchange();
        }
        if l.cpu.my_turn() {
            let open: Vec<Cell> = cells()
                .filter(|&c| l.cpu.mark(c) == Mark::Unknown)
                .collect();
            if !open.is_empty() {
                #[allow(clippy::cast_possible_truncation)]
                let pick = open[(l.rng.next() % open.len() as u64) as usize];
                if l.cpu.fire(pick).is_ok() {
                    l.exchange();
                }
            }
        }
        *self.probe.borrow_mut() = probe_of(&l.me, l.aim.cursor(), None);
        LocalView {
            summary: Some(Self::summary(&l.me)),
            result: l.me.ended().map(|e| Self::result_text(e).to_owned()),
            paused: false,
        }
    }
    fn start_match(&mut self, cfg: SessionConfig, _now: Millis, tag: u32) -> bool {
        let first = matches!(cfg.role(), Role::Host { .. });
        let board = Board::random((self.random)());
        self.online = Some((
            tag,
            Online {
                peer: Peer::new(board, first),
                side: u8::from(!first),
                aim: Aim::default(),
                over_at: None,
                quit: false,
                link_lost: false,
            },
        ));
        true
    }
    fn match_tag(&self) -> Option<u32> {
        self.online.as_ref().map(|(t, _)| *t)
    }
    fn match_datagram(&mut self, _now: Millis, channel: Channel, bytes: &[u8]) {
        if let Some((_, o)) = self.online.as_mut() {
            if channel == Channel::Reliable {
                o.peer.handle_datagram(bytes);
            } else {
                log::debug!("battleship: datagram on the unreliable channel ignored");
            }
        }
    }
    fn match_link_lost(&mut self, _now: Millis) {
        if let Some((_, o)) = self.online.as_mut() {
            o.link_lost = true;
        }
    }
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        let Some((_, o)) = self.online.as_mut() else {
            return FrameReport::default();
        };
        let mut ticked = false;
        if o.aim.frame(held) && o.peer.my_turn() && o.peer.fire(o.aim.cursor()).is_ok() {
            ticked = true;
        }
        while o.peer.poll_event().is_some() {
            ticked = true;
        }
        if o.over_at.is_none() && o.peer.ended().is_some() {
            o.over_at = Some(now);
        }
        *self.probe.borrow_mut() = probe_of(&o.peer, o.aim.cursor(), Some(o.side));
        view.state = Some("running");
        view.side = Some(o.side);
        view.summary = Some(Self::summary(&o.peer));
        view.headline = Self::status(&o.peer);
        let end = |outcome: Outcome, message: String| FrameReport {
            ticked,
            ended: Some(MatchEnd {
                outcome,
                message,
                log: None,
                report: None,
            }),
        };
        if o.peer.ended() == Some(End::OtherLeft) {
            return end(
                Outcome::RemoteQuit,
                play::outcome_message(&Outcome::RemoteQuit).to_owned(),
            );
        }
        let result = o.peer.ended().map(Self::result_text);
        if o.quit {
            return end(
                Outcome::LocalQuit,
                play::end_message(result, &Outcome::LocalQuit),
            );
        }
        if let Some(at) = o.over_at {
            if o.link_lost || now.0 >= at.0 + RESULT_HOLD_MS {
                return end(Outcome::LocalQuit, result.unwrap_or_default().to_owned());
            }
        } else if o.link_lost {
            return end(
                Outcome::TransportLost,
                play::outcome_message(&Outcome::TransportLost).to_owned(),
            );
        }
        FrameReport {
            ticked,
            ended: None,
        }
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        let (_, o) = self.online.as_mut()?;
        o.peer.poll_transmit().map(|b| (Channel::Reliable, b))
    }
    fn quit_match(&mut self, _now: Millis) {
        if let Some((_, o)) = self.online.as_mut() {
            // The goodbye goes out with the frame that reports the end.
            o.peer.leave();
            o.quit = true;
        }
    }
    fn drop_match(&mut self) {
        self.online = None;
    }
    fn paint(&mut self, painter: &mut dyn Painter) {
        if let Some(l) = &self.local {
            Self::draw(&l.me, l.aim.cursor(), painter);
        } else if let Some((_, o)) = &self.online {
            Self::draw(&o.peer, o.aim.cursor(), painter);
        }
    }
}
