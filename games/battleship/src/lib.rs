//! `battleship`: the hidden-state model, natively, on the game of
//! Battleship.
//!
//! Neither peer holds the whole game. Each owns its board ([`Board`]),
//! which never leaves it: no message carries a board, a fleet or a
//! placement. What crosses the wire is what the rules let the other side
//! learn, and nothing more:
//!
//! - a shot names a cell of the opponent's board ([`Msg::Fire`]);
//! - the owner of that board, the only peer that can, answers with the
//!   outcome ([`Msg::Result`]): a miss, a hit, or a sunk ship, and only a
//!   sunk ship reveals cells beyond the one fired at (its own, every one of
//!   them hit by then); the last ship sunk ends the game;
//! - a player who leaves says goodbye ([`Msg::Leave`]), so the other side
//!   can tell a departure from a lost link.
//!
//! [`Peer`] is the sans-IO machine of one side: [`Peer::fire`] on its turn,
//! [`Peer::handle_datagram`] for what the other side sent,
//! [`Peer::poll_transmit`] and [`Peer::poll_event`] after every call. All
//! messages go on the reliable channel; decoding is strict (postcard
//! `take_from_bytes`, no trailing bytes, capped lengths, values checked).
//! A peer that receives something that breaks the rules (a shot out of
//! turn, a result for a cell it did not fire at, a "sunk" ship that is not
//! a straight line of its hits) ends the game with [`End::Violation`]; it
//! never panics.
//!
//! What this cannot stop: a peer lying about its own board (answering
//! "miss" for a hit). Catching that needs a commitment to the board before
//! play and its opening at the end; it is not done here.
#![warn(missing_docs)]

use std::collections::VecDeque;

use lockstep::{Channel, Transport};
use serde::{Deserialize, Serialize};

/// Rows and columns of a board.
pub const SIZE: u8 = 10;
/// The fleet: the length of each ship.
pub const FLEET: [u8; 5] = [5, 4, 3, 3, 2];
/// Largest datagram accepted.
pub const MAX_DATAGRAM: usize = 256;

/// A cell: column `x` and row `y`, both below [`SIZE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Cell {
    /// Column.
    pub x: u8,
    /// Row.
    pub y: u8,
}

impl Cell {
    fn valid(self) -> bool {
        self.x < SIZE && self.y < SIZE
    }

    fn index(self) -> usize {
        usize::from(self.y) * usize::from(SIZE) + usize::from(self.x)
    }
}

/// One ship: its cells, in a straight line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ship {
    cells: Vec<Cell>,
}

impl Ship {
    /// The ship's cells.
    #[must_use]
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }
}

/// Why a fleet cannot be placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementError {
    /// A ship leaves the board.
    OffBoard,
    /// Two ships share a cell.
    Overlap,
    /// The lengths are not [`FLEET`]'s.
    WrongFleet,
}

/// A peer's own board: its fleet and the shots it received. Private: it is
/// never serialised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    ships: Vec<Ship>,
    shot: [bool; (SIZE as usize) * (SIZE as usize)],
}

impl Board {
    /// A fleet from `(bow, horizontal)` per ship, in [`FLEET`] order.
    pub fn place(placements: &[(Cell, bool)]) -> Result<Board, PlacementError> {
        if placements.len() != FLEET.len() {
            return Err(PlacementError::WrongFleet);
        }
        let mut taken = [false; (SIZE as usize) * (SIZE as usize)];
        let mut ships = Vec::new();
        for (&(bow, horizontal), &len) in placements.iter().zip(FLEET.iter()) {
            let mut cells = Vec::new();
            for i in 0..len {
                let c = if horizontal {
                    Cell {
                        x: bow.x.saturating_add(i),
                        y: bow.y,
                    }
                } else {
                    Cell {
                        x: bow.x,
                        y: bow.y.saturating_add(i),
                    }
                };
                if !c.valid() {
                    return Err(PlacementError::OffBoard);
                }
                if std::mem::replace(&mut taken[c.index()], true) {
                    return Err(PlacementError::Overlap);
                }
                cells.push(c);
            }
            ships.push(Ship { cells });
        }
        Ok(Board {
            ships,
            shot: [false; (SIZE as usize) * (SIZE as usize)],
        })
    }

    /// A random legal fleet from `seed` (SplitMix64).
    #[must_use]
    pub fn random(seed: u64) -> Board {
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        loop {
            let placements: Vec<(Cell, bool)> = FLEET
                .iter()
                .map(|_| {
                    let r = next();
                    #[allow(clippy::cast_possible_truncation)]
                    let cell = Cell {
                        x: (r % u64::from(SIZE)) as u8,
                        y: ((r >> 8) % u64::from(SIZE)) as u8,
                    };
                    (cell, r >> 16 & 1 == 1)
                })
                .collect();
            if let Ok(b) = Board::place(&placements) {
                return b;
            }
        }
    }

    /// The fleet.
    #[must_use]
    pub fn ships(&self) -> &[Ship] {
        &self.ships
    }

    /// Whether the opponent has fired at `c`.
    #[must_use]
    pub fn is_shot(&self, c: Cell) -> bool {
        c.valid() && self.shot[c.index()]
    }

    /// Takes a shot at `c` and says what the opponent may learn.
    fn receive(&mut self, c: Cell) -> Outcome {
        self.shot[c.index()] = true;
        let Some(ship) = self.ships.iter().find(|s| s.cells.contains(&c)) else {
            return Outcome::Miss;
        };
        if ship.cells.iter().all(|&p| self.shot[p.index()]) {
            let cells = ship.cells.clone();
            let last = self
                .ships
                .iter()
                .all(|s| s.cells.iter().all(|&p| self.shot[p.index()]));
            Outcome::Sunk { cells, last }
        } else {
            Outcome::Hit
        }
    }
}

/// What a shot did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Water.
    Miss,
    /// A ship, not yet sunk.
    Hit,
    /// The shot sank a ship: its cells (all hit now), and whether it was
    /// the fleet's last.
    Sunk {
        /// The sunk ship's cells.
        cells: Vec<Cell>,
        /// The fleet is gone: the game is over.
        last: bool,
    },
}

/// Everything one peer sends the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// A shot at the receiver's board.
    Fire(Cell),
    /// The outcome of the receiver's last shot at the sender's board.
    Result {
        /// The cell the receiver fired at.
        cell: Cell,
        /// What it did.
        outcome: Outcome,
    },
    /// The sender leaves the game before its end. Legal at any turn.
    Leave,
}

/// Why bytes did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Empty, too long, malformed, or with bytes left over.
    Malformed,
    /// A cell off the board, or a sunk ship longer than any ship.
    BadValue,
}

impl Msg {
    /// Encodes the message.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        // Cannot fail: the message holds only plain integers and short
        // vectors, which postcard always encodes.
        postcard::to_allocvec(self).expect("messages encode")
    }

    /// Decodes one message strictly.
    pub fn decode(bytes: &[u8]) -> Result<Msg, DecodeError> {
        if bytes.is_empty() || bytes.len() > MAX_DATAGRAM {
            return Err(DecodeError::Malformed);
        }
        let (msg, rest) =
            postcard::take_from_bytes::<Msg>(bytes).map_err(|_| DecodeError::Malformed)?;
        if !rest.is_empty() {
            return Err(DecodeError::Malformed);
        }
        let ok = match &msg {
            Msg::Fire(c) => c.valid(),
            Msg::Leave => true,
            Msg::Result { cell, outcome } => {
                cell.valid()
                    && match outcome {
                        Outcome::Sunk { cells, .. } => {
                            cells.len() <= usize::from(FLEET[0]) && cells.iter().all(|c| c.valid())
                        }
                        _ => true,
                    }
            }
        };
        if !ok {
            return Err(DecodeError::BadValue);
        }
        if msg.encode() != bytes {
            return Err(DecodeError::Malformed);
        }
        Ok(msg)
    }
}

/// How the game ended for this peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// This peer sank the other fleet.
    Won,
    /// The other peer sank this fleet.
    Lost,
    /// The other peer broke the rules or sent bytes that do not decode.
    Violation,
    /// This peer left before the end ([`Peer::leave`]).
    Left,
    /// The other peer left before the end.
    OtherLeft,
}

/// Something the caller should show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The other side fired at this board.
    Incoming {
        /// Where.
        cell: Cell,
        /// What it did.
        outcome: Outcome,
    },
    /// This side's shot landed.
    Landed {
        /// Where.
        cell: Cell,
        /// What it did.
        outcome: Outcome,
    },
    /// The game is over.
    Ended(End),
}

/// What this peer knows of a cell of the opponent's board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Not fired at.
    Unknown,
    /// Fired at: water.
    Miss,
    /// Fired at: a ship.
    Hit,
    /// Part of a sunk ship.
    Sunk,
}

/// Why a shot could not be fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FireError {
    /// Not this peer's turn (or waiting for the outcome of its last shot).
    NotYourTurn,
    /// Off the board, or already fired at.
    BadCell,
    /// The game is over.
    Over,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    Mine,
    AwaitingResult(Cell),
    Theirs,
    Over(End),
}

/// One side of a game (sans-IO). The side that starts fires first.
#[derive(Debug)]
pub struct Peer {
    board: Board,
    tracking: [Mark; (SIZE as usize) * (SIZE as usize)],
    turn: Turn,
    out: VecDeque<Vec<u8>>,
    events: VecDeque<Event>,
}

impl Peer {
    /// A peer with its own `board`; `starts` fires first.
    #[must_use]
    pub fn new(board: Board, starts: bool) -> Peer {
        Peer {
            board,
            tracking: [Mark::Unknown; (SIZE as usize) * (SIZE as usize)],
            turn: if starts { Turn::Mine } else { Turn::Theirs },
            out: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    /// This peer's own board.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// What this peer knows of a cell of the opponent's board.
    #[must_use]
    pub fn mark(&self, c: Cell) -> Mark {
        if c.valid() {
            self.tracking[c.index()]
        } else {
            Mark::Unknown
        }
    }

    /// Whether this peer may fire now.
    #[must_use]
    pub fn my_turn(&self) -> bool {
        self.turn == Turn::Mine
    }

    /// How the game ended, if it did.
    #[must_use]
    pub fn ended(&self) -> Option<End> {
        match self.turn {
            Turn::Over(e) => Some(e),
            _ => None,
        }
    }

    /// Fires at `cell` of the opponent's board.
    pub fn fire(&mut self, cell: Cell) -> Result<(), FireError> {
        match self.turn {
            Turn::Over(_) => return Err(FireError::Over),
            Turn::Mine => {}
            _ => return Err(FireError::NotYourTurn),
        }
        if !cell.valid() || self.tracking[cell.index()] != Mark::Unknown {
            return Err(FireError::BadCell);
        }
        self.turn = Turn::AwaitingResult(cell);
        self.out.push_back(Msg::Fire(cell).encode());
        Ok(())
    }

    /// Leaves the game: the other side is told ([`Msg::Leave`]) and the
    /// game is over for this peer ([`End::Left`]). Nothing happens once
    /// the game is over.
    pub fn leave(&mut self) {
        if matches!(self.turn, Turn::Over(_)) {
            return;
        }
        self.out.push_back(Msg::Leave.encode());
        self.end(End::Left);
    }

    fn end(&mut self, end: End) {
        self.turn = Turn::Over(end);
        self.events.push_back(Event::Ended(end));
    }

    fn violation(&mut self, why: &str) {
        log::warn!("battleship: the other side broke the rules ({why})");
        self.end(End::Violation);
    }

    /// A datagram from the other side.
    pub fn handle_datagram(&mut self, bytes: &[u8]) {
        if matches!(self.turn, Turn::Over(_)) {
            return;
        }
        let msg = match Msg::decode(bytes) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("battleship: undecodable datagram ({e:?})");
                self.end(End::Violation);
                return;
            }
        };
        match (self.turn, msg) {
            (_, Msg::Leave) => self.end(End::OtherLeft),
            (Turn::Theirs, Msg::Fire(cell)) => {
                if self.board.is_shot(cell) {
                    return self.violation("a cell fired at twice");
                }
                let outcome = self.board.receive(cell);
                self.out.push_back(
                    Msg::Result {
                        cell,
                        outcome: outcome.clone(),
                    }
                    .encode(),
                );
                let last = matches!(outcome, Outcome::Sunk { last: true, .. });
                self.events.push_back(Event::Incoming { cell, outcome });
                if last {
                    self.end(End::Lost);
                } else {
                    self.turn = Turn::Mine;
                }
            }
            (Turn::AwaitingResult(fired), Msg::Result { cell, outcome }) => {
                if cell != fired {
                    return self.violation("a result for another cell");
                }
                match &outcome {
                    Outcome::Miss => self.tracking[cell.index()] = Mark::Miss,
                    Outcome::Hit => self.tracking[cell.index()] = Mark::Hit,
                    Outcome::Sunk { cells, .. } => {
                        if !self.plausible_wreck(cell, cells) {
                            return self.violation("an impossible sunk ship");
                        }
                        for c in cells {
                            self.tracking[c.index()] = Mark::Sunk;
                        }
                    }
                }
                let last = matches!(outcome, Outcome::Sunk { last: true, .. });
                self.events.push_back(Event::Landed { cell, outcome });
                if last {
                    self.end(End::Won);
                } else {
                    self.turn = Turn::Theirs;
                }
            }
            _ => self.violation("a message out of turn"),
        }
    }

    /// A sunk ship must be a straight, unbroken line of a fleet length,
    /// through the cell just fired at, every other cell of it a hit this
    /// peer already saw.
    fn plausible_wreck(&self, fired: Cell, cells: &[Cell]) -> bool {
        let len = cells.len();
        if !FLEET.iter().any(|&l| usize::from(l) == len) || !cells.contains(&fired) {
            return false;
        }
        let mut sorted = cells.to_vec();
        sorted.sort_unstable();
        let row = sorted.iter().all(|c| c.y == sorted[0].y)
            && sorted.windows(2).all(|w| w[1].x == w[0].x + 1);
        let column = sorted.iter().all(|c| c.x == sorted[0].x)
            && sorted.windows(2).all(|w| w[1].y == w[0].y + 1);
        (row || column)
            && cells
                .iter()
                .all(|&c| c == fired || self.tracking[c.index()] == Mark::Hit)
    }

    /// The next datagram to send (reliable channel).
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.out.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Moves datagrams between the peer and a transport: everything
    /// received in, everything queued out (reliable channel).
    pub fn pump<T: Transport>(&mut self, transport: &mut T) {
        while let Some((channel, bytes)) = transport.recv() {
            if channel == Channel::Reliable {
                self.handle_datagram(&bytes);
            } else {
                log::debug!("battleship: datagram on the unreliable channel ignored");
            }
        }
        while let Some(bytes) = self.poll_transmit() {
            if let Err(e) = transport.send(Channel::Reliable, &bytes) {
                log::debug!("battleship: send failed ({e})");
            }
        }
    }
}
