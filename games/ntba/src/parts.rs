//! NtBA's state as named parts, so that a desync says what diverged ("the
//! ball and Away player 2"), and the words a page shows about it.
//!
//! Each part hashes its fields exactly as [`Ntba::hash_into`] does (same
//! widths, same order within the part); the whole-state hash is unchanged.
//! The parts together cover every field of the state: [`Ntba::parts`]
//! destructures the state without `..`, so a new field does not compile
//! until it is given a part.

use lockstep::parts::{in_words, StatePart};

use crate::sim::Ntba;
use crate::view::Phase;

/// The clocks: tick, period, game clock, shot clock and the match stage.
pub const CLOCKS: &str = "the clocks";
/// The score, the winner and both teams' statistics.
pub const SCORE: &str = "the score";
/// The ball and which team has it.
pub const BALL: &str = "the ball";
/// The four court players, Home first ([`Ntba::players`] order).
pub const PLAYERS: [&str; 4] = [
    "Home player 1",
    "Home player 2",
    "Away player 1",
    "Away player 2",
];
/// Who inbounds next, from where, and who started the match.
pub const RESTART: &str = "the restart";
/// Which court player each pad drives, and last tick's pads.
pub const CONTROLS: &str = "the controls";
/// The game's random generator (and the seed it came from).
pub const RANDOM: &str = "the random generator";
/// What happened during the last tick.
pub const EVENTS: &str = "the events";

/// Every part's name, in the order [`Ntba::parts`] lists them.
pub const PART_NAMES: [&str; 11] = [
    CLOCKS, SCORE, BALL, PLAYERS[0], PLAYERS[1], PLAYERS[2], PLAYERS[3], RESTART, CONTROLS, RANDOM,
    EVENTS,
];

impl Ntba {
    /// The state's parts with their hashes, in [`PART_NAMES`] order (what
    /// [`lockstep::DeterministicGame::state_parts`] returns).
    #[must_use]
    pub fn parts(&self) -> Vec<StatePart> {
        // Without `..`: a new field must be placed in a part to compile.
        let Ntba {
            seed,
            rng,
            tick,
            players,
            ball,
            score,
            period,
            clock,
            shot_clock,
            possession,
            phase,
            phase_t,
            restart_side,
            restart_spot,
            first_side,
            controlled,
            people,
            slot_of,
            // Read from the seed (in the random part below) and never
            // changed: the seed's hash covers it.
            length: _,
            prev_pad,
            winner,
            events: _,
            n_events: _,
            stats: _,
        } = self;
        let mut parts = Vec::with_capacity(PART_NAMES.len());
        parts.push(StatePart::hashed(CLOCKS, |h| {
            h.write_u32(*tick);
            h.write_u8(*period);
            h.write_u32(*clock);
            h.write_u16(*shot_clock);
            h.write_u8(*phase as u8);
            h.write_u16(*phase_t);
        }));
        parts.push(StatePart::hashed(SCORE, |h| {
            h.write_u16(score[0]);
            h.write_u16(score[1]);
            h.write_u8(winner.map_or(0xff, |s| s));
            self.hash_stats_into(h);
        }));
        parts.push(StatePart::hashed(BALL, |h| {
            ball.hash_into(h);
            h.write_u8(possession.map_or(0xff, |s| s));
        }));
        for (name, pl) in PLAYERS.iter().zip(players) {
            parts.push(StatePart::hashed(name, |h| pl.hash_into(h)));
        }
        parts.push(StatePart::hashed(RESTART, |h| {
            h.write_u8(*restart_side);
            h.write_i32(restart_spot.x.to_bits());
            h.write_i32(restart_spot.y.to_bits());
            h.write_u8(*first_side);
        }));
        parts.push(StatePart::hashed(CONTROLS, |h| {
            h.write_u8(controlled[0]);
            h.write_u8(controlled[1]);
            h.write_u8(prev_pad[0].0);
            h.write_u8(prev_pad[1].0);
            // As in the whole-state hash: two people never touch these.
            if *people != 2 {
                h.write_u8(*people);
                h.write_bytes(slot_of);
                h.write_u8(prev_pad[2].0);
                h.write_u8(prev_pad[3].0);
            }
        }));
        parts.push(StatePart::hashed(RANDOM, |h| {
            h.write_u64(*seed);
            h.write_u64(rng.state());
        }));
        parts.push(StatePart::hashed(EVENTS, |h| self.hash_events_into(h)));
        parts
    }

    /// The value of the part `name` in words a developer reads (the
    /// fields of the part), or `None` for a name that is not a part.
    #[must_use]
    pub fn describe_part(&self, name: &str) -> Option<String> {
        let s = self;
        Some(match name {
            CLOCKS => format!(
                "tick {}, period {}, clock {}, shot clock {}, {:?} for {} ticks",
                s.tick, s.period, s.clock, s.shot_clock, s.phase, s.phase_t
            ),
            SCORE => format!(
                "{}-{}, winner {:?}, stats {:?}",
                s.score[0], s.score[1], s.winner, s.stats
            ),
            BALL => format!("{:?}, possession {:?}", s.ball, s.possession),
            RESTART => format!(
                "side {} from {:?}, first side {}",
                s.restart_side, s.restart_spot, s.first_side
            ),
            CONTROLS => format!(
                "controlled {:?}, people {}, slots {:?}, last pads {:?}",
                s.controlled, s.people, s.slot_of, s.prev_pad
            ),
            RANDOM => format!("seed {:#018x}, state {:#018x}", s.seed, s.rng.state()),
            EVENTS => format!("{:?}", &s.events[..usize::from(s.n_events)]),
            _ => {
                let i = PLAYERS.iter().position(|p| *p == name)?;
                format!("{:?}", s.players[i])
            }
        })
    }

    /// When this state is, as a player reads the scoreboard: "at 1:23 in
    /// the first half", "at 0:12 in the second overtime", "after the final
    /// buzzer".
    #[must_use]
    pub fn game_time_in_words(&self) -> String {
        if self.phase == Phase::Over {
            return "after the final buzzer".to_owned();
        }
        let (min, sec) = self.clocks().game_clock_min_sec();
        let period = match self.period {
            0 => "the first half",
            1 => "the second half",
            2 => "overtime",
            3 => "the second overtime",
            _ => "sudden death",
        };
        format!("at {min}:{sec:02} in {period}")
    }
}

/// What the page says after a desync: when (from the game at the desync
/// tick) and, when the peers exchanged their parts, what differed.
///
/// ```
/// use lockstep::DeterministicGame;
/// let game = ntba::Ntba::new(7, 2);
/// assert_eq!(
///     ntba::desync_message(&game, &["the ball", "Away player 2"]),
///     "The two games went out of sync at 2:00 in the first half: \
///      the ball and Away player 2 differ."
/// );
/// ```
#[must_use]
pub fn desync_message<S: AsRef<str>>(game_at_tick: &Ntba, differing: &[S]) -> String {
    let when = game_at_tick.game_time_in_words();
    match differing {
        [] => format!("The two games went out of sync {when}, so the match was stopped."),
        [one] => {
            // "the clocks", "the controls" and "the events" are plural.
            let one = one.as_ref();
            let verb = if one.ends_with('s') {
                "differ"
            } else {
                "differs"
            };
            format!("The two games went out of sync {when}: {one} {verb}.")
        }
        many => format!(
            "The two games went out of sync {when}: {} differ.",
            in_words(many)
        ),
    }
}
