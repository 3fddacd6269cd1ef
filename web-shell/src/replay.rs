//! Watching a recorded match: an input log played back with play/pause, a
//! speed, seeking to any tick and jumps to each score, as a pure machine
//! for any game.
//!
//! Opening a log checks it strictly before anything is shown: its size,
//! its format ([`InputLog::from_bytes`]), the build it was recorded with
//! (another build's simulation would show another match), and that playing
//! it through ends on the hash recorded in it. That one pass also keeps a
//! copy of the game every [`SAVE_EVERY`] ticks and notes each tick where
//! the score changes, so a seek starts from the nearest copy at or before
//! its target and simulates at most `SAVE_EVERY - 1` ticks.

use lockstep::{DeterministicGame, InputLog, LogDecodeError};

/// Ticks between saved copies of the game: 5 s of play at 60 ticks a
/// second. A seek simulates fewer ticks than this.
pub const SAVE_EVERY: u32 = 300;

/// The largest file opened as a replay. A two-player match of an hour at
/// 60 ticks a second with one-byte inputs is about 430 KB.
pub const MAX_FILE_BYTES: usize = 8 * 1024 * 1024;

/// The playback speeds offered, in quarters of real time (0.25× to 8×).
pub const SPEEDS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// The speed a replay starts at (1×).
pub const NORMAL_SPEED: usize = 2;

/// Why a picked file of `size` bytes (as the browser reports it) is
/// refused before it is read: it is over `up_to` bytes.
#[must_use]
pub fn refused_unread(size: f64, up_to: usize) -> Option<Refusal> {
    #[allow(clippy::cast_precision_loss)]
    (size > up_to as f64).then_some(Refusal::TooLarge)
}

/// The label of each of [`SPEEDS`].
pub const SPEED_LABELS: [&str; 6] = ["0.25×", "0.5×", "1×", "2×", "4×", "8×"];

/// Why a file was not opened as a replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Over [`MAX_FILE_BYTES`].
    TooLarge,
    /// The browser could not read the file.
    Unreadable,
    /// Not an input log at all.
    NotALog,
    /// An input log of a format version this page cannot read.
    OtherFormat(u32),
    /// Truncated, or bytes that do not make a log.
    Damaged,
    /// Recorded with another build of the game.
    OtherBuild {
        /// The build in the file.
        log: u64,
        /// This page's build.
        ours: u64,
    },
    /// Played through, it does not end on the hash recorded in it.
    DoesNotReplay,
}

impl Refusal {
    /// The message for the player.
    #[must_use]
    pub fn message(&self, game: &str) -> String {
        match self {
            Refusal::TooLarge => "That file is too large to be a replay.".to_owned(),
            Refusal::Unreadable => "That file could not be read.".to_owned(),
            Refusal::NotALog => format!("That file is not a {game} replay."),
            Refusal::OtherFormat(_) => {
                "That replay was saved in a format this page cannot read.".to_owned()
            }
            Refusal::Damaged => "That replay file is damaged or incomplete.".to_owned(),
            Refusal::OtherBuild { log, ours } => format!(
                "That replay was recorded with another version of {game} \
                 (build {log:016x}; this page is build {ours:016x}), so it cannot be shown."
            ),
            Refusal::DoesNotReplay => {
                "That replay does not play back to the end it recorded: it is damaged.".to_owned()
            }
        }
    }
}

impl From<LogDecodeError> for Refusal {
    fn from(e: LogDecodeError) -> Refusal {
        match e {
            LogDecodeError::BadMagic => Refusal::NotALog,
            LogDecodeError::UnsupportedVersion(v) => Refusal::OtherFormat(v),
            _ => Refusal::Damaged,
        }
    }
}

/// A tick where the score changed: the state after `tick` ticks shows
/// `score`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// Ticks played when the new score shows.
    pub tick: u32,
    /// The score as the front end words it.
    pub score: String,
}

/// What the player can do to a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Play if paused (from the start if at the end), pause if playing.
    PlayPause,
    /// Playback speed: an index into [`SPEEDS`].
    Speed(usize),
    /// Go to the state after this many ticks (held within the log).
    Seek(u32),
}

/// A recorded match being watched. See the module documentation.
#[derive(Debug, Clone)]
pub struct Playback<G: DeterministicGame> {
    log: InputLog<G::Input>,
    /// `saves[i]`: the game after `i * SAVE_EVERY` ticks.
    saves: Vec<G>,
    marks: Vec<Mark>,
    game: G,
    tick: u32,
    playing: bool,
    speed: usize,
    /// Quarter ticks owed to the next frame.
    quarters: u32,
}

impl<G: DeterministicGame> Playback<G> {
    /// Opens `bytes` for a game of build `build`; `score` words a state's
    /// score (or `None` for a game that has none). Starts paused at the log's first tick.
    ///
    /// # Errors
    ///
    /// When the file is refused (see [`Refusal`]).
    pub fn open(
        bytes: &[u8],
        build: u64,
        mut score: impl FnMut(&G) -> Option<String>,
    ) -> Result<Playback<G>, Refusal> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(Refusal::TooLarge);
        }
        let log = InputLog::<G::Input>::from_bytes(bytes)?;
        if log.build != build {
            return Err(Refusal::OtherBuild {
                log: log.build,
                ours: build,
            });
        }
        let ticks = log.ticks();
        let start = log.start_tick;
        // A log that starts from a saved state (a player who came back into
        // a running match) plays from there.
        let mut game = if log.start_state.is_empty() {
            G::new(log.seed, log.players)
        } else {
            G::load(&log.start_state).ok_or(Refusal::Damaged)?
        };
        let mut saves = vec![game.clone()];
        let mut marks = Vec::new();
        let mut last = score(&game);
        for t in start..ticks {
            let inputs = log.tick_inputs(t).ok_or(Refusal::Damaged)?;
            game.step(inputs);
            let now = t + 1;
            if (now - start).is_multiple_of(SAVE_EVERY) {
                saves.push(game.clone());
            }
            let s = score(&game);
            if s != last {
                if let Some(s) = &s {
                    marks.push(Mark {
                        tick: now,
                        score: s.clone(),
                    });
                }
                last = s;
            }
        }
        if game.state_hash() != log.final_hash {
            return Err(Refusal::DoesNotReplay);
        }
        let first = saves[0].clone();
        Ok(Playback {
            log,
            saves,
            marks,
            game: first,
            tick: start,
            playing: false,
            speed: NORMAL_SPEED,
            quarters: 0,
        })
    }

    /// The tick after the log's last (counted from the match's start).
    #[must_use]
    pub fn ticks(&self) -> u32 {
        self.log.ticks()
    }

    /// The tick the log starts at: 0, or where the saved state it starts
    /// from stands; seeking before it goes to it.
    #[must_use]
    pub fn start_tick(&self) -> u32 {
        self.log.start_tick
    }

    /// Ticks played so far.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// The game after [`tick`](Self::tick) ticks.
    #[must_use]
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The ticks where the score changed, in order.
    #[must_use]
    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// Whether it is playing.
    #[must_use]
    pub fn playing(&self) -> bool {
        self.playing
    }

    /// The speed, an index into [`SPEEDS`].
    #[must_use]
    pub fn speed(&self) -> usize {
        self.speed
    }

    /// The log's player count.
    #[must_use]
    pub fn players(&self) -> u8 {
        self.log.players
    }

    /// Applies a control.
    pub fn control(&mut self, c: Control) {
        match c {
            Control::PlayPause => {
                if self.playing {
                    self.playing = false;
                } else {
                    if self.tick >= self.ticks() {
                        self.seek(self.start_tick());
                    }
                    self.playing = true;
                    self.quarters = 0;
                }
            }
            Control::Speed(i) => {
                if i < SPEEDS.len() {
                    self.speed = i;
                }
            }
            Control::Seek(t) => self.seek(t),
        }
    }

    /// Goes to the state after `tick` ticks (at most the log's): from the
    /// game itself when the target is ahead within one save interval, else
    /// from the nearest saved copy at or before it.
    pub fn seek(&mut self, tick: u32) {
        self.go_to(tick);
        self.quarters = 0;
    }

    fn go_to(&mut self, tick: u32) {
        let start = self.start_tick();
        let target = tick.clamp(start, self.ticks());
        let save = (target - start) / SAVE_EVERY;
        let from_save = start + save * SAVE_EVERY;
        if target < self.tick || from_save > self.tick {
            let Some(g) = self.saves.get(save as usize) else {
                // Every multiple of SAVE_EVERY up to the log's end was saved.
                debug_assert!(false, "no save for tick {from_save}");
                return;
            };
            self.game = g.clone();
            self.tick = from_save;
        }
        while self.tick < target {
            let Some(inputs) = self.log.tick_inputs(self.tick) else {
                debug_assert!(false, "the log has every tick up to its end");
                return;
            };
            self.game.step(inputs);
            self.tick += 1;
        }
    }

    /// One 60 Hz frame: while playing, moves on by the speed (a quarter
    /// tick a frame at 0.25×, eight ticks at 8×) and pauses at the end.
    /// Returns `true` when the game shown changed.
    pub fn frame(&mut self) -> bool {
        if !self.playing {
            return false;
        }
        self.quarters += SPEEDS[self.speed];
        let steps = self.quarters / 4;
        self.quarters %= 4;
        let before = self.tick;
        self.go_to(self.tick.saturating_add(steps));
        if self.tick >= self.ticks() {
            self.playing = false;
        }
        self.tick != before
    }
}

/// `m:ss` of `ticks` at 60 ticks a second.
#[must_use]
pub fn clock_text(ticks: u32) -> String {
    let s = ticks / 60;
    format!("{}:{:02}", s / 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_limit_is_refused_unread() {
        assert_eq!(refused_unread(8.0, 8), None);
        assert_eq!(refused_unread(0.0, 8), None);
        assert_eq!(refused_unread(9.0, 8), Some(Refusal::TooLarge));
        assert_eq!(
            refused_unread(1e15, MAX_FILE_BYTES),
            Some(Refusal::TooLarge)
        );
    }

    /// A small game: a counter per player, summed into the state; a player
    /// "scores" each time their counter passes a multiple of 50.
    #[derive(Clone, Debug)]
    struct Count {
        n: [u32; 2],
        t: u32,
    }

    impl DeterministicGame for Count {
        type Input = u8;
        const BUILD_ID: u64 = 0xC0;
        fn new(seed: u64, _: u8) -> Self {
            Count {
                n: [seed as u32, 0],
                t: 0,
            }
        }
        fn step(&mut self, inputs: &[u8]) {
            self.t += 1;
            for (n, i) in self.n.iter_mut().zip(inputs) {
                *n += u32::from(*i);
            }
        }
        fn state_hash(&self) -> u64 {
            let mut h = lockstep::Fnv1a::new();
            h.write_u32(self.t);
            h.write_u32(self.n[0]);
            h.write_u32(self.n[1]);
            h.finish()
        }
        fn save(&self) -> Option<Vec<u8>> {
            Some(
                [self.t, self.n[0], self.n[1]]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect(),
            )
        }
        fn load(bytes: &[u8]) -> Option<Self> {
            let word = |i: usize| {
                Some(u32::from_le_bytes(
                    bytes.get(i * 4..i * 4 + 4)?.try_into().ok()?,
                ))
            };
            (bytes.len() == 12).then_some(())?;
            Some(Count {
                t: word(0)?,
                n: [word(1)?, word(2)?],
            })
        }
    }

    fn score(g: &Count) -> Option<String> {
        Some(format!("{} - {}", g.n[0] / 50, g.n[1] / 50))
    }

    fn log_of(ticks: u32) -> (Vec<u8>, Vec<Count>) {
        let mut g = Count::new(0, 2);
        let mut states = vec![g.clone()];
        let mut inputs = Vec::new();
        for t in 0..ticks {
            let i = [(t % 3) as u8, (t % 5 == 0) as u8];
            g.step(&i);
            inputs.extend(i);
            states.push(g.clone());
        }
        let log = InputLog {
            build: Count::BUILD_ID,
            seed: 0,
            players: 2,
            input_delay: 2,
            final_hash: g.state_hash(),
            start_tick: 0,
            start_state: Vec::new(),
            inputs,
        };
        (log.to_bytes().unwrap(), states)
    }

    /// The log of `log_of(ticks)` as a player who came back at tick `at`
    /// recorded it: the saved state there, then the inputs since.
    fn log_from(ticks: u32, at: u32) -> Vec<u8> {
        let (bytes, states) = log_of(ticks);
        let mut log = InputLog::<u8>::from_bytes(&bytes).unwrap();
        log.inputs.drain(..at as usize * 2);
        log.start_tick = at;
        log.start_state = states[at as usize].save().unwrap();
        log.to_bytes().unwrap()
    }

    #[test]
    fn a_log_from_a_saved_state_plays_from_its_start() {
        let (_, states) = log_of(1_000);
        let mut p = open(&log_from(1_000, 437)).unwrap();
        assert_eq!((p.tick(), p.ticks()), (437, 1_000));
        assert_eq!(p.game().state_hash(), states[437].state_hash());
        for t in [800, 437, 738, 736, 1_000, 500] {
            p.seek(t);
            assert_eq!(p.tick(), t);
            assert_eq!(
                p.game().state_hash(),
                states[t as usize].state_hash(),
                "tick {t}"
            );
        }
        // Before its start: its start.
        p.seek(3);
        assert_eq!(p.tick(), 437);
        // Played from the end, it starts again from its start.
        p.seek(1_000);
        p.control(Control::PlayPause);
        assert_eq!(p.tick(), 437);
        // A saved state that does not load is a damaged file.
        let mut log = InputLog::<u8>::from_bytes(&log_from(1_000, 437)).unwrap();
        log.start_state.pop();
        assert_eq!(open(&log.to_bytes().unwrap()).err(), Some(Refusal::Damaged));
    }

    fn open(bytes: &[u8]) -> Result<Playback<Count>, Refusal> {
        Playback::open(bytes, Count::BUILD_ID, score)
    }

    #[test]
    fn every_seek_shows_the_state_the_match_had_at_that_tick() {
        let (bytes, states) = log_of(1_000);
        let mut p = open(&bytes).unwrap();
        assert_eq!(p.ticks(), 1_000);
        assert_eq!(p.tick(), 0);
        // Forwards, backwards, across saves, within one, the ends.
        for t in [0, 1, 299, 300, 301, 999, 1_000, 650, 20, 600, 599, 1_000, 0] {
            p.seek(t);
            assert_eq!(p.tick(), t);
            assert_eq!(
                p.game().state_hash(),
                states[t as usize].state_hash(),
                "tick {t}"
            );
        }
        // Past the end: the end.
        p.seek(5_000);
        assert_eq!(p.tick(), 1_000);
    }

    #[test]
    fn marks_are_the_ticks_where_the_score_changed() {
        let (bytes, states) = log_of(1_000);
        let p = open(&bytes).unwrap();
        let expected: Vec<u32> = (1..=1_000)
            .filter(|&t| score(&states[t]) != score(&states[t - 1]))
            .map(|t| t as u32)
            .collect();
        assert!(expected.len() > 5);
        let got: Vec<u32> = p.marks().iter().map(|m| m.tick).collect();
        assert_eq!(got, expected);
        for m in p.marks() {
            assert_eq!(Some(&m.score), score(&states[m.tick as usize]).as_ref());
        }
    }

    #[test]
    fn playing_moves_by_the_speed_and_stops_at_the_end() {
        let (bytes, _) = log_of(100);
        let mut p = open(&bytes).unwrap();
        assert!(!p.frame(), "paused at first");
        p.control(Control::PlayPause);
        assert!(p.frame());
        assert_eq!(p.tick(), 1, "1x: a tick a frame");
        p.control(Control::Speed(0));
        let changed: Vec<bool> = (0..8).map(|_| p.frame()).collect();
        assert_eq!(p.tick(), 3, "0.25x: a tick every fourth frame");
        assert_eq!(changed.iter().filter(|c| **c).count(), 2);
        p.control(Control::Speed(5));
        p.frame();
        assert_eq!(p.tick(), 11, "8x: eight ticks a frame");
        p.control(Control::Speed(99));
        assert_eq!(p.speed(), 5, "an unknown speed is ignored");
        while p.frame() {}
        assert_eq!(p.tick(), 100);
        assert!(!p.playing(), "paused at the end");
        // Play at the end starts over.
        p.control(Control::PlayPause);
        assert!(p.playing());
        assert_eq!(p.tick(), 0);
    }

    #[test]
    fn refused_files_say_why() {
        let (bytes, _) = log_of(400);
        // Another build.
        assert_eq!(
            Playback::<Count>::open(&bytes, 0xC1, score).unwrap_err(),
            Refusal::OtherBuild {
                log: 0xC0,
                ours: 0xC1
            }
        );
        // Truncated anywhere, and with a byte more.
        for cut in [1, 10, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                matches!(
                    open(&bytes[..cut]),
                    Err(Refusal::Damaged | Refusal::NotALog)
                ),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(open(&longer).unwrap_err(), Refusal::Damaged);
        // Not a log.
        assert_eq!(
            open(b"<html>not a log</html>").unwrap_err(),
            Refusal::NotALog
        );
        assert_eq!(open(&[]).unwrap_err(), Refusal::NotALog);
        // Too large, before reading it.
        assert_eq!(
            open(&vec![0; MAX_FILE_BYTES + 1]).unwrap_err(),
            Refusal::TooLarge
        );
        // An input changed: it decodes, but does not replay to its end.
        let (mut changed, _) = log_of(400);
        let last = changed.len() - 1;
        changed[last] ^= 1;
        assert_eq!(open(&changed).unwrap_err(), Refusal::DoesNotReplay);
        // Every message names the problem in words.
        let other = Refusal::OtherBuild { log: 1, ours: 2 }.message("NtBA");
        assert!(other.contains("another version of NtBA"), "{other}");
    }

    #[test]
    fn an_empty_match_opens_and_stays_at_zero() {
        let (bytes, _) = log_of(0);
        let mut p = open(&bytes).unwrap();
        p.control(Control::PlayPause);
        assert!(!p.frame());
        assert!(!p.playing());
        assert_eq!(p.tick(), 0);
    }

    #[test]
    fn the_clock_reads_minutes_and_seconds() {
        assert_eq!(clock_text(0), "0:00");
        assert_eq!(clock_text(59 * 60), "0:59");
        assert_eq!(clock_text(18_000), "5:00");
    }
}
