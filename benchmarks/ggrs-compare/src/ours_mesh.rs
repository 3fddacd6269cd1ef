//! Our side of the matches of [`crate::mesh`]: one function per player
//! count.
//!
//! Two players play today through `lockstep::Session`'s two-player API
//! (the pair of the two-player comparison, `ours::OursPair`). Four and
//! eight players wait for the session's N-player API; until it lands their
//! functions answer [`Ours::NotYet`] and the table shows the row as not
//! measured, beside GGRS's figures.
//!
//! To fill one in, keep what makes the rows comparable with GGRS's:
//!
//! * the links: a `lockstep_testing::Net` on `Schedule::FrameOnly` (each
//!   member in turn reads what arrived, runs its frame and sends, as GGRS's
//!   side does), every pair of slots `a < b` joined with
//!   `SimLink::new(settings.link, link_seed(settings.net_seed, a, b))`
//!   ([`crate::link_seed`]), the link GGRS's players `a` and `b` get;
//! * the game: `Timed::<dots::Dots>::new(settings.match_seed, players)`,
//!   each slot's pads from `BenchGame::pad` with its own slot as `side`;
//! * the figures: one `PeerFigures` per slot, its traffic summed over all
//!   its links' outgoing statistics (`Sent::sum`), counted from its first
//!   running frame, its session time measured as `ours::Peer` does;
//! * the settings: `window` as the prediction window (0 lock-step),
//!   `settings.input_delay` as the input delay.

use lockstep::session::DEFAULT_MAX_HOLD_FRAMES;

use crate::ours::OursPair;
use crate::{Contender, RunSettings};

/// Our side of one row, or why it cannot run yet.
pub(crate) enum Ours {
    /// The players, ready for the frame loop.
    Ready(Box<dyn Contender>),
    /// Not measurable yet: the reason, for the table.
    NotYet(&'static str),
}

/// Our players for a match of `players` players with prediction window
/// `window` (0 is lock-step), as the session ships otherwise (an Inputs
/// packet every frame at most, held back up to the default in rollback).
///
/// # Errors
///
/// A setting the session refuses.
pub(crate) fn players(players: u8, settings: &RunSettings, window: u8) -> Result<Ours, String> {
    match players {
        2 => two_players(settings, window).map(Ours::Ready),
        4 => four_players(settings, window),
        8 => eight_players(settings, window),
        _ => Ok(Ours::NotYet("no function of ours for this many players")),
    }
}

/// Two players: the two-player session as it ships.
fn two_players(settings: &RunSettings, window: u8) -> Result<Box<dyn Contender>, String> {
    Ok(Box::new(OursPair::<dots::Dots>::new(
        settings,
        window,
        1,
        DEFAULT_MAX_HOLD_FRAMES,
    )?))
}

/// Four players in a full mesh: waits for the N-player session.
fn four_players(_settings: &RunSettings, _window: u8) -> Result<Ours, String> {
    Ok(Ours::NotYet(NOT_YET))
}

/// Eight players in a full mesh: waits for the N-player session.
fn eight_players(_settings: &RunSettings, _window: u8) -> Result<Ours, String> {
    Ok(Ours::NotYet(NOT_YET))
}

const NOT_YET: &str = "waiting for the N-player session";
