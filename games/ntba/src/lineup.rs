//! The line-up of a match for three or four people: which team each pad
//! slot plays for, and so which court player it drives.
//!
//! The engine creates a game from a seed and a number of players only, so
//! the line-up travels inside the seed: every peer derives the same one from
//! what the session already agrees on. [`Lineup::seed`] writes it into the
//! top byte of a seed; [`Lineup::for_match`] reads and checks it.

use std::fmt;
use std::str::FromStr;

/// The top four bits of a seed that carries a line-up.
pub(crate) const MARK: u64 = 0xa;

/// Which team each pad slot of a three- or four-person match plays for.
///
/// Slots of one team take its court players in slot order: Home's first
/// slot drives court player 0 and its second player 1; Away's first drives
/// player 2 and its second player 3. With three people the court player
/// left over (the second of the team with one person) is played by the
/// built-in AI. A team has two court players, so a line-up puts at most two
/// people on a team: with four, two each; with three, two and one.
///
/// The text form is one letter per slot, `H` for Home and `A` for Away:
/// `"HAH"` is the default for three, `"HAAH"` puts slots 0 and 3 on Home.
///
/// ```
/// use ntba::{Lineup, Ntba};
/// use lockstep::DeterministicGame;
///
/// let lineup: Lineup = "AHHA".parse()?;
/// assert_eq!(lineup.court_player(0), Some(2)); // Away's first court player
/// assert_eq!(lineup.court_player(2), Some(1)); // Home's second
/// let seed = lineup.seed(12345);
/// assert_eq!(Lineup::for_match(seed, 4), Ok(Some(lineup)));
/// let game = Ntba::new(seed, 4);
/// assert_eq!(game.player_of_slot(0), Some(2));
/// // A third person on one team is refused, with a reason.
/// assert!("HHHA".parse::<Lineup>().is_err());
/// # Ok::<(), ntba::LineupError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lineup {
    /// 3 or 4.
    people: u8,
    /// `teams[slot]`: 0 Home, 1 Away; 0 past `people`.
    teams: [u8; 4],
}

/// Why a line-up (or a match configuration carrying one) was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineupError {
    /// A line-up is for three or four people; this many were given.
    People(usize),
    /// NtBA is played by two to four people; the match asked for this many.
    Players(u8),
    /// Slot `slot` was given side `side`; sides are 0 (Home) and 1 (Away).
    Side {
        /// The pad slot.
        slot: u8,
        /// The side given.
        side: u8,
    },
    /// More than two people on team `side` (0 Home, 1 Away): a team has two
    /// court players.
    Crowded {
        /// The team.
        side: u8,
    },
    /// In the text form, character number `at` (from 0) is `found`, which
    /// is neither `H` (Home) nor `A` (Away).
    Letter {
        /// Where, counting characters from 0.
        at: usize,
        /// The character found.
        found: char,
    },
}

impl fmt::Display for LineupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LineupError::People(n) => {
                write!(f, "a line-up is for 3 or 4 people, not {n}")
            }
            LineupError::Players(n) => {
                write!(f, "NtBA is played by 2 to 4 people, not {n}")
            }
            LineupError::Side { slot, side } => write!(
                f,
                "slot {slot} is given side {side}; sides are 0 (Home) and 1 (Away)"
            ),
            LineupError::Crowded { side } => write!(
                f,
                "more than two people on {}: a team has two court players",
                if side == 0 { "Home" } else { "Away" }
            ),
            LineupError::Letter { at, found } => write!(
                f,
                "character {} of the line-up is {found:?}; write one H (Home) or A (Away) per person",
                at + 1
            ),
        }
    }
}

impl std::error::Error for LineupError {}

impl Lineup {
    /// The line-up in which slot `i` plays for `teams[i]` (0 Home, 1 Away).
    /// `teams` has one entry per person, three or four.
    ///
    /// # Errors
    ///
    /// [`LineupError::People`] for fewer than three or more than four
    /// entries, [`LineupError::Side`] for a side other than 0 or 1, and
    /// [`LineupError::Crowded`] for a third person on one team.
    pub const fn new(teams: &[u8]) -> Result<Lineup, LineupError> {
        if teams.len() < 3 || teams.len() > 4 {
            return Err(LineupError::People(teams.len()));
        }
        let mut on = [0u8; 2];
        let mut lineup = Lineup {
            people: teams.len() as u8,
            teams: [0; 4],
        };
        let mut slot = 0;
        while slot < teams.len() {
            let side = teams[slot];
            if side > 1 {
                return Err(LineupError::Side {
                    slot: slot as u8,
                    side,
                });
            }
            on[side as usize] += 1;
            if on[side as usize] > 2 {
                return Err(LineupError::Crowded { side });
            }
            lineup.teams[slot] = side;
            slot += 1;
        }
        Ok(lineup)
    }

    /// The default line-up for `people` (3 or 4): slots alternate Home,
    /// Away, Home, Away. With three the AI plays Away's second court player
    /// (player 3).
    ///
    /// # Errors
    ///
    /// [`LineupError::People`] unless `people` is 3 or 4.
    pub const fn alternating(people: u8) -> Result<Lineup, LineupError> {
        match people {
            3 => Lineup::new(&[0, 1, 0]),
            4 => Lineup::new(&[0, 1, 0, 1]),
            n => Err(LineupError::People(n as usize)),
        }
    }

    /// How many people play: 3 or 4.
    #[must_use]
    pub const fn people(&self) -> u8 {
        self.people
    }

    /// The team slot `slot` plays for (0 Home, 1 Away), `None` past the
    /// line-up's people.
    #[must_use]
    pub const fn side(&self, slot: u8) -> Option<u8> {
        if slot < self.people {
            Some(self.teams[slot as usize])
        } else {
            None
        }
    }

    /// The court player (0..4) slot `slot` drives, `None` past the
    /// line-up's people.
    #[must_use]
    pub const fn court_player(&self, slot: u8) -> Option<u8> {
        if slot >= self.people {
            return None;
        }
        let side = self.teams[slot as usize];
        // Earlier slots of the same team take its first court player.
        let mut before = 0;
        let mut s = 0;
        while s < slot {
            if self.teams[s as usize] == side {
                before += 1;
            }
            s += 1;
        }
        Some(side * 2 + before)
    }

    /// The pad slot that drives court player `player` (0..4), `None` when
    /// nobody does (the built-in AI plays it) or `player` is not one.
    #[must_use]
    pub fn slot_of(&self, player: u8) -> Option<u8> {
        (0..self.people).find(|&s| self.court_player(s) == Some(player))
    }

    /// `seed` carrying this line-up: its top eight bits become a marker
    /// (`0xa`) and one team bit per slot (slot 0 in bit 56); the other 56
    /// bits are kept, and they alone make the match (who inbounds first,
    /// every random roll).
    #[must_use]
    pub const fn seed(&self, seed: u64) -> u64 {
        let t = self.teams;
        let bits = t[0] | t[1] << 1 | t[2] << 2 | t[3] << 3;
        (seed & !(0xff << 56)) | MARK << 60 | (bits as u64) << 56
    }

    /// The line-up a match of `players` people from `seed` is played with:
    /// `None` for two (each person drives a team), the line-up the seed
    /// carries for three or four ([`Lineup::seed`]), or the
    /// [default](Lineup::alternating) when the seed carries none. A host
    /// calls this before it offers a match; [`Ntba::new`](crate::Ntba)
    /// itself cannot refuse: it plays a refused line-up with the default
    /// one and logs a warning.
    ///
    /// # Errors
    ///
    /// [`LineupError::Players`] unless `players` is 2, 3 or 4;
    /// [`LineupError::Crowded`] when the seed's team bits put three people
    /// on one team.
    pub const fn for_match(seed: u64, players: u8) -> Result<Option<Lineup>, LineupError> {
        match players {
            2 => Ok(None),
            3 | 4 if seed >> 60 != MARK => match Lineup::alternating(players) {
                Ok(l) => Ok(Some(l)),
                Err(e) => Err(e),
            },
            3 | 4 => {
                let mut teams = [0u8; 4];
                let mut slot = 0;
                while slot < 4 {
                    teams[slot] = (seed >> (56 + slot)) as u8 & 1;
                    slot += 1;
                }
                let (teams, _) = teams.split_at(players as usize);
                match Lineup::new(teams) {
                    Ok(l) => Ok(Some(l)),
                    Err(e) => Err(e),
                }
            }
            n => Err(LineupError::Players(n)),
        }
    }
}

impl FromStr for Lineup {
    type Err = LineupError;

    /// One letter per pad slot, `H` (Home) or `A` (Away), either case:
    /// `"HAH"`, `"haah"`.
    fn from_str(s: &str) -> Result<Lineup, LineupError> {
        let count = s.chars().count();
        if !(3..=4).contains(&count) {
            return Err(LineupError::People(count));
        }
        let mut teams = [0u8; 4];
        for (at, (found, side)) in s.chars().zip(teams.iter_mut()).enumerate() {
            *side = match found {
                'H' | 'h' => 0,
                'A' | 'a' => 1,
                _ => return Err(LineupError::Letter { at, found }),
            };
        }
        Lineup::new(&teams[..count])
    }
}

impl fmt::Display for Lineup {
    /// The text form: `HAH`, `HAAH`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &side in &self.teams[..usize::from(self.people)] {
            f.write_str(if side == 0 { "H" } else { "A" })?;
        }
        Ok(())
    }
}
