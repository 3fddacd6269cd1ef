//! What a game implements to be played host-authoritatively.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A player's place in the match: 0 is the host's own player, guests get
/// 1 to [`MAX_GUESTS`](crate::MAX_GUESTS).
pub type Seat = u8;

/// Who receives an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipients {
    /// Every player (the host's own player included).
    All,
    /// One player.
    Only(Seat),
    /// Everyone but one player (for example the one who caused it and
    /// already showed it through prediction).
    AllBut(Seat),
}

impl Recipients {
    /// Whether `seat` receives the event.
    #[must_use]
    pub fn includes(self, seat: Seat) -> bool {
        match self {
            Recipients::All => true,
            Recipients::Only(s) => s == seat,
            Recipients::AllBut(s) => s != seat,
        }
    }
}

/// A game whose host runs the only real simulation.
///
/// Nothing here needs to be deterministic: the host's state is the truth,
/// and guests only see what [`snapshot`](Self::snapshot) shows them. The
/// host calls, per tick: [`command`](Self::command) for each command that
/// arrived (in order, per player), then [`advance`](Self::advance), then
/// [`drain_events`](Self::drain_events), and on snapshot ticks
/// [`snapshot`](Self::snapshot) once per guest.
///
/// # Snapshot rules
///
/// A snapshot is any `serde` type; the engine diffs it generically
/// (`docs/authority.md`). To keep deltas small:
///
/// - keep entities in sequences (`Vec`) of structs with a field named `id`:
///   they are matched by id, so an entity that did not change costs nothing;
/// - quantise what is drawn (positions as integers in a small unit, angles
///   as a byte): an unchanged value costs nothing and a changed integer
///   costs its difference;
/// - put one-shot things (a sound, a hit, a message) in events, never in
///   the snapshot: only events are sure to arrive;
/// - floats must be finite (a NaN or an infinity cannot be sent).
pub trait AuthoritativeGame {
    /// What one player sees (the host may hide what a player must not know).
    type Snapshot: Serialize + DeserializeOwned + Clone;
    /// A player's order (a control state, a click), sent reliably and in
    /// order.
    type Command: Serialize + DeserializeOwned + Clone;
    /// A one-shot happening, delivered exactly once and in order to each of
    /// its recipients.
    type Event: Serialize + DeserializeOwned + Clone;

    /// Identifies the game and its message formats. A guest whose value
    /// differs is refused (bump it when the snapshot, command or event
    /// types change).
    const GAME_ID: u64;

    /// A player took `seat` (at the start or late).
    fn add_player(&mut self, seat: Seat);
    /// The player at `seat` left for good (not called while a dropped guest
    /// may still rejoin).
    fn remove_player(&mut self, seat: Seat);
    /// A command from the player at `seat`. Commands come from the network:
    /// check them like any other input (the type decoded, but its values
    /// may still be out of range).
    fn command(&mut self, seat: Seat, command: Self::Command);
    /// Advances the simulation by `dt_ms` milliseconds (the host's tick).
    fn advance(&mut self, dt_ms: u32);
    /// Moves the events that happened since the last call into `out`.
    fn drain_events(&mut self, out: &mut Vec<(Recipients, Self::Event)>);
    /// What the player at `seat` sees now.
    fn snapshot(&self, seat: Seat) -> Self::Snapshot;

    /// Blends two snapshots for display, `t` from 0 (`from`) to 1 (`to`).
    /// The default shows `from` until halfway, then `to`; games with
    /// motion interpolate positions.
    fn interpolate(from: &Self::Snapshot, to: &Self::Snapshot, t: f32) -> Self::Snapshot {
        if t < 0.5 {
            from.clone()
        } else {
            to.clone()
        }
    }
}

/// Optional hooks that let a guest predict its own entity's movement: the
/// guest re-runs the host's own movement code from the state the last
/// snapshot gave, for the commands the host has not applied yet
/// ([`Predictor`](crate::Predictor)).
pub trait Predict: AuthoritativeGame {
    /// The exact movement state of one player's entity (with the control it
    /// is under), as the host's simulation holds it.
    type Motion: Clone;

    /// The player's own movement state in a snapshot made for it (`None`
    /// while it has no entity, for example when it is dead).
    fn own_motion(snapshot: &Self::Snapshot) -> Option<Self::Motion>;
    /// A command takes effect on the motion (the host applies commands at
    /// the start of a tick, before it advances).
    fn apply_command(motion: &mut Self::Motion, command: &Self::Command);
    /// One host tick of movement. Must be the host's own code for the
    /// movement the guest can foresee (walls included).
    fn step_motion(motion: &mut Self::Motion, dt_ms: u32);
    /// Where the motion puts the entity, in the game's distance unit.
    fn position(motion: &Self::Motion) -> [f32; 2];
    /// Corrections larger than this are snapped rather than blended.
    fn snap_distance() -> f32;
}
