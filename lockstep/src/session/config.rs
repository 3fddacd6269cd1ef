//! How a session is set up: its role, its settings and their defaults, and
//! the mistakes in a configuration that [`Session::new`](super::Session::new)
//! refuses.

use core::fmt;

use crate::time::Millis;
use crate::wire::{MAX_INPUT_DELAY, MAX_PLAYERS, MAX_PREDICTION_WINDOW, MAX_SPECTATORS};

// Only the documentation links to these.
#[cfg(doc)]
use super::{delay_for_round_trips, Outcome, Session};
#[cfg(doc)]
use crate::game::DeterministicGame;

/// Default ticks between state hashes.
pub const DEFAULT_HASH_INTERVAL: u16 = 60;
/// Default frames between pings.
pub const DEFAULT_PING_INTERVAL_FRAMES: u16 = 30;
/// Default silence after which the session ends with [`Outcome::Timeout`].
pub const DEFAULT_TIMEOUT: Millis = Millis(5000);
/// Default time from the session's first call to the first tick, after
/// which it ends with [`Outcome::HandshakeTimeout`].
pub const DEFAULT_HANDSHAKE_TIMEOUT: Millis = Millis(10_000);
/// Default time this side may wait on the peer's next input, stalled,
/// before it ends with [`Outcome::NoProgress`].
pub const DEFAULT_PROGRESS_TIMEOUT: Millis = Millis(15_000);
/// Default time a dropped player's slot is held for it to come back (see
/// [`SessionConfig::rejoin_window`]).
pub const DEFAULT_REJOIN_WINDOW: Millis = Millis(20_000);
/// The prediction window [`SessionConfig::rollback`] picks: how many ticks
/// a side may run ahead of the peer's inputs on predictions.
pub const DEFAULT_PREDICTION_WINDOW: u8 = 8;
/// The most frames in a row that a session in rollback mode holds back
/// its Inputs packet while it carries nothing the peer needs at once (see
/// [`SessionConfig::max_hold_frames`]).
pub const DEFAULT_MAX_HOLD_FRAMES: u8 = 2;
/// The largest [`SessionConfig::max_hold_frames`] (a quarter of a second).
pub const MAX_HOLD_FRAMES: u8 = 15;
/// How many ticks past its present a spectator holds before it starts
/// by default (see [`SessionConfig::watch_delay`]): 12 ticks, 200 ms.
pub const DEFAULT_WATCH_DELAY: u8 = 12;
/// How many ticks behind its watch delay a spectator may fall before it
/// runs extra ticks per frame to catch up (see
/// [`SessionConfig::catch_up_speed`]).
pub const DEFAULT_MAX_FRAMES_BEHIND: u8 = 10;
/// The extra ticks per frame a spectator runs while it is too far behind
/// (see [`SessionConfig::catch_up_speed`]).
pub const DEFAULT_CATCH_UP_SPEED: u8 = 1;
/// Round trips measured before the host picks the input delay, when it
/// picks it from the round trip.
pub const HANDSHAKE_PINGS: usize = 5;

/// Which end of the match this session plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Role {
    /// Side 0: picks the seed and the input delay (and the hash interval).
    Host {
        /// The match seed, passed to `DeterministicGame::new`.
        seed: u64,
        /// Ticks between sampling a local input and applying it.
        input_delay: u8,
    },
    /// Side 1: adopts the host's seed, input delay and hash interval from
    /// its Hello. A spectator ([`SessionConfig::spectator`]) is a guest
    /// too, without a slot: see [`SessionConfig::is_spectator`].
    Guest,
}

/// Settings of a [`Session`], built with `host`/`guest` and the chainable
/// setters, checked by [`Session::new`](super::Session::new).
/// It also travels as serde data (a page hands it to the worker that runs
/// its match); the receiving `Session::new` checks it all the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[must_use]
pub struct SessionConfig {
    pub(super) role: Role,
    pub(super) hash_interval: u16,
    pub(super) ping_interval_frames: u16,
    pub(super) timeout: Millis,
    pub(super) handshake_timeout: Millis,
    pub(super) progress_timeout: Millis,
    pub(super) prediction_window: u8,
    pub(super) delay_from_rtt: bool,
    #[serde(default)]
    pub(super) adaptive_delay: bool,
    pub(super) send_interval_frames: u8,
    pub(super) max_hold_frames: u8,
    /// Host: players in the match (this side included).
    pub(super) players: u8,
    pub(super) rejoin_window: Millis,
    /// Host, in a game that plays on while a slot is held: the silence
    /// after which a player is dropped and benched (`None`: the timeout).
    #[serde(default)]
    pub(super) bench_after: Option<Millis>,
    pub(super) rejoin_entropy: Option<u128>,
    pub(super) rejoin_as: Option<(u8, u64)>,
    /// The host's fresh session coming back to a running match: its own
    /// token (see [`SessionConfig::back_as_host`]).
    #[serde(default)]
    pub(super) host_back: Option<u64>,
    /// A new player asking for a free slot of a running match: the slot
    /// named, or `None` for any.
    #[serde(default)]
    pub(super) join_as: Option<Option<u8>>,
    /// A spectator: a guest without a slot that watches.
    pub(super) watching: bool,
    /// Spectator: ticks behind the newest confirmed tick held.
    pub(super) watch_delay: u8,
    /// Spectator: ticks behind the watch delay before catching up.
    pub(super) max_frames_behind: u8,
    /// Spectator: extra ticks per frame while catching up.
    pub(super) catch_up_speed: u8,
    /// Host: the most spectators admitted.
    pub(super) max_spectators: u8,
}

impl SessionConfig {
    /// The host (side 0) of a match with this seed and input delay (ticks,
    /// at most [`MAX_INPUT_DELAY`]; 6 ticks = 100 ms is a good default on
    /// the internet). A delay of 0 is allowed, but then every tick waits for
    /// the peer's input sampled in the same frame, so even a perfect link
    /// runs at half speed: use at least 1.
    pub fn host(seed: u64, input_delay: u8) -> Self {
        SessionConfig {
            role: Role::Host { seed, input_delay },
            hash_interval: DEFAULT_HASH_INTERVAL,
            ping_interval_frames: DEFAULT_PING_INTERVAL_FRAMES,
            timeout: DEFAULT_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            progress_timeout: DEFAULT_PROGRESS_TIMEOUT,
            prediction_window: 0,
            delay_from_rtt: false,
            send_interval_frames: 1,
            max_hold_frames: DEFAULT_MAX_HOLD_FRAMES,
            adaptive_delay: false,
            players: 2,
            rejoin_window: DEFAULT_REJOIN_WINDOW,
            bench_after: None,
            rejoin_entropy: None,
            rejoin_as: None,
            host_back: None,
            join_as: None,
            watching: false,
            watch_delay: DEFAULT_WATCH_DELAY,
            max_frames_behind: DEFAULT_MAX_FRAMES_BEHIND,
            catch_up_speed: DEFAULT_CATCH_UP_SPEED,
            max_spectators: MAX_SPECTATORS,
        }
    }

    /// The guest (side 1): seed, input delay and hash interval come from the
    /// host.
    pub fn guest() -> Self {
        SessionConfig {
            role: Role::Guest,
            hash_interval: DEFAULT_HASH_INTERVAL,
            ping_interval_frames: DEFAULT_PING_INTERVAL_FRAMES,
            timeout: DEFAULT_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            progress_timeout: DEFAULT_PROGRESS_TIMEOUT,
            prediction_window: 0,
            delay_from_rtt: false,
            send_interval_frames: 1,
            max_hold_frames: DEFAULT_MAX_HOLD_FRAMES,
            adaptive_delay: false,
            players: 2,
            rejoin_window: DEFAULT_REJOIN_WINDOW,
            bench_after: None,
            rejoin_entropy: None,
            rejoin_as: None,
            host_back: None,
            join_as: None,
            watching: false,
            watch_delay: DEFAULT_WATCH_DELAY,
            max_frames_behind: DEFAULT_MAX_FRAMES_BEHIND,
            catch_up_speed: DEFAULT_CATCH_UP_SPEED,
            max_spectators: MAX_SPECTATORS,
        }
    }

    /// A spectator: a member without a slot that connects to the host
    /// alone (one link), sends it a `Watch`, and is sent the confirmed
    /// inputs of every player (from tick 0 when it joins late, then as
    /// they are confirmed) and the host's state hashes, which it checks
    /// against its own. It never sends an input and no player ever waits
    /// for it. The seed, player count and hash interval come from the
    /// host. Its events are [`Event::Watching`](super::Event::Watching)
    /// then [`Event::Ticked`](super::Event::Ticked) as it plays the
    /// match back; see [`watch_delay`](Self::watch_delay).
    pub fn spectator() -> Self {
        SessionConfig {
            watching: true,
            ..SessionConfig::guest()
        }
    }

    /// Spectator: it starts once it holds `ticks` confirmed ticks past its
    /// present (default [`DEFAULT_WATCH_DELAY`]), then runs one a frame
    /// while it holds any, so those in hand ride out a late or lost
    /// packet; run dry, it waits to hold `ticks` again. A larger delay
    /// rides out a slower or lossier link without pauses; 0 shows each
    /// tick as soon as it arrives.
    pub fn watch_delay(mut self, ticks: u8) -> Self {
        self.watch_delay = ticks;
        self
    }

    /// Spectator: when it is more than `max_frames_behind` ticks behind
    /// its watch delay (after a pause in the stream, say), it runs
    /// `1 + speed` ticks per frame until it is back within that margin (defaults
    /// [`DEFAULT_MAX_FRAMES_BEHIND`] and [`DEFAULT_CATCH_UP_SPEED`]; a
    /// speed of 0 never hurries).
    pub fn catch_up_speed(mut self, max_frames_behind: u8, speed: u8) -> Self {
        self.max_frames_behind = max_frames_behind;
        self.catch_up_speed = speed;
        self
    }

    /// Host: the most spectators it admits at once (default and at most
    /// [`MAX_SPECTATORS`]; 0 admits none). The next one is refused with
    /// [`WatchRefusal::Full`](crate::wire::WatchRefusal::Full).
    pub fn max_spectators(mut self, count: u8) -> Self {
        self.max_spectators = count;
        self
    }

    /// Ticks between state hashes (default 60). Only the host's value
    /// counts; the guest adopts it. Must not be 0.
    pub fn hash_interval(mut self, ticks: u16) -> Self {
        self.hash_interval = ticks;
        self
    }

    /// Frames between pings (default 30). Must not be 0. Keep it well
    /// under the timeout: while a side has no input to send, pings are
    /// what keeps the peer from timing it out.
    pub fn ping_interval_frames(mut self, frames: u16) -> Self {
        self.ping_interval_frames = frames;
        self
    }

    /// Silence (no datagram from the peer) after which the match ends with
    /// [`Outcome::Timeout`] (default 5 s). Must not be 0.
    pub fn timeout(mut self, timeout: Millis) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long the handshake may take, from the session's first call (any
    /// method given the time) to the start of the match, before it ends
    /// with [`Outcome::HandshakeTimeout`] (default 10 s). Must not be 0.
    /// Both sides keep talking while they wait (pings), so the silence
    /// timeout does not end a handshake that is only slow; this bounds
    /// one that cannot finish: a link too poor for the Hellos or the
    /// host's round-trip measure to get through, or a peer that never
    /// sends its Hello. A rejoining session whose request the host keeps
    /// waiting (another player is away) hears a keep-alive from the host
    /// every ping interval, and each one starts this deadline over.
    pub fn handshake_timeout(mut self, timeout: Millis) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// How long this side may stall waiting for the peer's next input
    /// while the peer is still heard (it answers pings, say) before the
    /// match ends with [`Outcome::NoProgress`] (default 15 s). Must not be
    /// 0. Any new input from the peer, or any tick, starts the wait over.
    pub fn progress_timeout(mut self, timeout: Millis) -> Self {
        self.progress_timeout = timeout;
        self
    }

    /// How many ticks this side may simulate ahead of the peer's inputs,
    /// on predicted inputs (at most [`MAX_PREDICTION_WINDOW`]). 0, the
    /// default, is lock-step: a tick runs only when both inputs are known.
    /// Above 0 is rollback: a missing remote input is predicted (see
    /// [`DeterministicGame::predict_input`]), and when the real one differs
    /// the session restores the last correct state and re-simulates to the
    /// present within the same frame. Only the host's value counts; the
    /// guest adopts it from the host's Hello.
    pub fn prediction_window(mut self, ticks: u8) -> Self {
        self.prediction_window = ticks;
        self
    }

    /// Rollback mode with the default window of
    /// [`DEFAULT_PREDICTION_WINDOW`] ticks: `prediction_window(8)`.
    pub fn rollback(self) -> Self {
        self.prediction_window(DEFAULT_PREDICTION_WINDOW)
    }

    /// The host measures the round trip during the handshake
    /// ([`HANDSHAKE_PINGS`] round trips before the first tick) and picks the input
    /// delay from it (see [`delay_for_round_trips`]), instead of the fixed
    /// delay given to [`host`](Self::host). The guest adopts the result from
    /// the host's Hello as usual. No effect on a guest.
    pub fn input_delay_from_rtt(mut self) -> Self {
        self.delay_from_rtt = true;
        self
    }

    /// Lock-step: this side raises its own input delay during the match
    /// when its round trips grow past what the delay covers, and lowers it
    /// again (never below the match's delay) when they shrink. Without it
    /// a round trip longer than the delay slows the whole match to the
    /// pace the link allows; with it the match keeps 60 ticks a second at
    /// the cost of more delay on this side's inputs. A raise takes effect
    /// at once (the pad sampled is repeated for the ticks it adds, so
    /// nobody freezes for it), up to [`MAX_ADAPTIVE_DELAY`](super::MAX_ADAPTIVE_DELAY);
    /// a fall is one tick per 3 s. Decided from the round trips to every
    /// peer (the longest that are not outliers), with a tick of margin.
    /// Each side's own choice; nothing changes on the wire. No effect in
    /// rollback, whose prediction covers a longer trip.
    pub fn adaptive_input_delay(mut self) -> Self {
        self.adaptive_delay = true;
        self
    }

    /// Frames between two Inputs packets (default 1: one per frame; must
    /// not be 0). 2 halves the packet rate for up to one frame (16.7 ms) of
    /// extra age on each input: lock-step needs a delay covering it (or it
    /// stalls more), rollback predicts up to a tick further. Nothing else
    /// changes: every packet still carries every unacknowledged input, and
    /// pings and pongs wait for the next packet (the pong says how long).
    /// Each side's own choice; the peer need not use the same.
    pub fn send_interval_frames(mut self, frames: u8) -> Self {
        self.send_interval_frames = frames;
        self
    }

    /// Rollback mode: the most frames in a row this side may hold back
    /// its Inputs packet while it carries nothing the peer needs at once
    /// (default [`DEFAULT_MAX_HOLD_FRAMES`]; 0 sends one every frame).
    ///
    /// A packet goes out at once when it carries a pad that differs from
    /// the one before it and the peer has not acknowledged it yet (the
    /// peer's repeat-last guess would be wrong), when it acknowledges such
    /// a change from the peer (so the peer stops resending it), or when
    /// the peer's prediction window could run out before the next packet.
    /// Otherwise the new pads equal the last one the peer knows, which it
    /// predicts anyway: holding them costs no re-simulation, and they, the
    /// acknowledgement, pings, pongs and the frame advantage ride on the
    /// next packet, at most this many frames later. Lock-step (window 0)
    /// always sends every frame, as does a side whose
    /// [`send_interval_frames`](Self::send_interval_frames) is above 1.
    /// Each side's own choice; the wire is unchanged.
    /// Values above [`MAX_HOLD_FRAMES`] count as that.
    pub fn max_hold_frames(mut self, frames: u8) -> Self {
        self.max_hold_frames = frames.min(MAX_HOLD_FRAMES);
        self
    }

    /// Host: players in the match, this side included (2 to 8; 2 by
    /// default). The host gives the others slots 1 and up in the order
    /// their links open; a guest learns the count from the host's Hello
    /// (its own setting is ignored).
    pub fn players(mut self, players: u8) -> Self {
        self.players = players;
        self
    }

    /// How long a running match holds the slot of a player whose link
    /// failed or went silent for the [`timeout`](Self::timeout) (default
    /// 20 s). Meanwhile the others play on as far as their inputs allow,
    /// then wait ([`Event::Dropped`](super::Event::Dropped),
    /// [`Event::Waiting`](super::Event::Waiting)); if the player is heard
    /// again the match resumes. When the window runs out the match ends
    /// with [`Outcome::PlayerLeft`], or, with three players or more and a
    /// game that allows it ([`DeterministicGame::plays_on_after_leave`]),
    /// the others play on with the slot on the game's absent input
    /// ([`DeterministicGame::absent_input`](crate::DeterministicGame::absent_input)).
    ///
    /// 0 holds nothing: a silent peer ends the match with
    /// [`Outcome::Timeout`] and a failed link with
    /// [`Outcome::TransportLost`] at once.
    pub fn rejoin_window(mut self, window: Millis) -> Self {
        self.rejoin_window = window;
        self
    }

    /// Host, in a game whose dropped slots play on while held
    /// ([`DeterministicGame::plays_on_while_held`](crate::DeterministicGame::plays_on_while_held)):
    /// how long nothing may arrive from a player before it is dropped and
    /// its slot benched (played with the game's absent input while held), instead
    /// of the [`timeout`](Self::timeout). Nobody waits for a benched slot,
    /// so a short value (a few hundred ms) keeps the others from stalling
    /// more than that; but a benched player comes back only through a
    /// rejoin (a fresh session with its token), so too short a value turns
    /// every blip of a lossy link into a rejoin. At most the timeout (a
    /// longer value counts as the timeout); must not be 0.
    pub fn bench_after(mut self, silence: Millis) -> Self {
        self.bench_after = Some(silence);
        self
    }

    /// Host: random bits from the caller (the engine reads no OS
    /// randomness) from which the host derives each guest's rejoin token
    /// (a keyed hash of the match id and the slot). Without it the host
    /// issues no tokens and refuses every rejoin
    /// ([`RejoinRefusal::HostUnable`](crate::wire::RejoinRefusal::HostUnable)).
    pub fn rejoin_entropy(mut self, entropy: u128) -> Self {
        self.rejoin_entropy = Some(entropy);
        self
    }

    /// A fresh session of a player coming back to its `slot` in a running
    /// match (after a page reload, say) with the `token` its old session
    /// was given ([`Session::rejoin_token`]): a guest that sends the host
    /// a `Rejoin` instead of a Hello, replays the host's catch-up and
    /// plays on. The host's own slot (0) cannot be rejoined:
    /// [`Session::new`] refuses it. The token stays valid for the whole
    /// match: a player may come back any number of times with it. The
    /// session reports `slot` as its [`Session::side`] from the start.
    pub fn rejoin(mut self, slot: u8, token: u64) -> Self {
        self.role = Role::Guest;
        self.watching = false;
        self.host_back = None;
        self.rejoin_as = Some((slot, token));
        self
    }

    /// The host's fresh session coming back to its running match (after
    /// a page reload, say), with the host's own `token` as its old
    /// session reported it ([`Session::rejoin_token`]). Build it as the
    /// old host was built (the same seed, delay, mode, player count and
    /// [`rejoin_entropy`](Self::rejoin_entropy)), then add this. It sends
    /// the guest a `Rejoin` for slot 0 instead of a Hello; the guest, which
    /// holds the match meanwhile, checks the token against what the old
    /// host's Hello told it, sends back the match's parameters and the
    /// catch-up, and this session replays it and is the host again:
    /// [`Event::Started`](super::Event::Started) then
    /// [`Event::Rejoined`](super::Event::Rejoined). The match's input
    /// delay and id come from the guest (an input delay picked from the
    /// round trip is the one picked then). With three players or more it
    /// sends the `Rejoin` on every link; the lowest guest slot answers
    /// for all, and each guest takes the session on its own link once it
    /// checked the token (see `docs/engine.md`, "A host that reloads").
    /// [`Session::new`] refuses it without entropy
    /// ([`ConfigError::HostBack`]); a refusal ends the session with
    /// `Outcome::RejoinRefused`.
    pub fn back_as_host(mut self, token: u64) -> Self {
        self.host_back = Some(token);
        self
    }

    /// A new player taking a free slot of a running match: a guest that
    /// sends `Join` on every link instead of a Hello, naming `slot` or,
    /// with `None`, taking whichever free slot the host picks (the
    /// lowest). A slot is free when its player left for good and the game
    /// plays on and takes joiners
    /// ([`DeterministicGame::takes_joiners`](crate::DeterministicGame::takes_joiners)).
    /// The host answers with the slot, a rejoin token of the session's own
    /// ([`Session::rejoin_token`], so it can come back after a reload like
    /// any player) and the catch-up; the session replays it and plays on
    /// live. A refusal ends it with `Outcome::RejoinRefused` (a host
    /// still in its handshake answers `HostUnable`: only a running match
    /// has free slots). The host's slot (0) is never free:
    /// [`Session::new`] refuses it. Its [`Session::side`] is the slot
    /// named (1 when asking for any) until the host's Hello gives it one.
    pub fn join(mut self, slot: Option<u8>) -> Self {
        self.role = Role::Guest;
        self.watching = false;
        self.rejoin_as = None;
        self.host_back = None;
        self.join_as = Some(slot);
        self
    }

    /// The role this configuration plays.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// Whether this configuration watches instead of playing (made with
    /// [`spectator`](Self::spectator); its [`role`](Self::role) is
    /// `Guest`: it adopts everything from the host).
    #[must_use]
    pub fn is_spectator(&self) -> bool {
        self.watching
    }

    /// The prediction window asked for (0 = lock-step).
    #[must_use]
    pub fn window(&self) -> u8 {
        self.prediction_window
    }

    /// How long a dropped player's slot is held, as set with
    /// [`rejoin_window`](Self::rejoin_window) (0: nothing is held).
    #[must_use]
    pub fn held_for(&self) -> Millis {
        self.rejoin_window
    }

    /// Host: the random bits its rejoin tokens are made from, as given to
    /// [`rejoin_entropy`](Self::rejoin_entropy) (`None`: it issues no
    /// tokens). A caller that builds one match's sessions from another
    /// configuration (several games played in turn over one link) reads
    /// it to carry it on. They are a secret of the host's: whoever knows
    /// them can make every slot's token, so keep them out of logs.
    #[must_use]
    pub fn token_entropy(&self) -> Option<u128> {
        self.rejoin_entropy
    }

    /// A fresh session coming back into a running match: the slot and the
    /// token given to [`rejoin`](Self::rejoin), if it was made with it.
    /// The token is a credential for the slot: keep it out of logs.
    #[must_use]
    pub fn rejoining(&self) -> Option<(u8, u64)> {
        self.rejoin_as
    }

    /// The host's fresh session coming back: its token, as given to
    /// [`back_as_host`](Self::back_as_host). A credential for slot 0:
    /// keep it out of logs.
    #[must_use]
    pub fn returning_host(&self) -> Option<u64> {
        self.host_back
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if let Role::Host { input_delay, .. } = self.role {
            if input_delay > MAX_INPUT_DELAY {
                return Err(ConfigError::InputDelayTooLarge {
                    delay: input_delay,
                    max: MAX_INPUT_DELAY,
                });
            }
        }
        if self.prediction_window > MAX_PREDICTION_WINDOW {
            return Err(ConfigError::PredictionWindowTooLarge {
                window: self.prediction_window,
                max: MAX_PREDICTION_WINDOW,
            });
        }
        if self.hash_interval == 0 {
            return Err(ConfigError::ZeroHashInterval);
        }
        if self.ping_interval_frames == 0 {
            return Err(ConfigError::ZeroPingInterval);
        }
        if self.send_interval_frames == 0 {
            return Err(ConfigError::ZeroSendInterval);
        }
        if self.timeout == Millis::ZERO
            || self.handshake_timeout == Millis::ZERO
            || self.progress_timeout == Millis::ZERO
        {
            return Err(ConfigError::ZeroTimeout);
        }
        if self.bench_after == Some(Millis::ZERO) {
            return Err(ConfigError::ZeroTimeout);
        }
        if let Some((slot, _)) = self.rejoin_as {
            if slot == 0 || slot >= MAX_PLAYERS {
                return Err(ConfigError::RejoinSlot { slot });
            }
        }
        if self.host_back.is_some() {
            let host = matches!(self.role, Role::Host { .. }) && !self.watching;
            if !host || self.rejoin_entropy.is_none() {
                return Err(ConfigError::HostBack);
            }
        }
        if let Some(Some(slot)) = self.join_as {
            if slot == 0 || slot >= MAX_PLAYERS {
                return Err(ConfigError::RejoinSlot { slot });
            }
        }
        if self.max_spectators > MAX_SPECTATORS {
            return Err(ConfigError::Spectators {
                count: self.max_spectators,
                max: MAX_SPECTATORS,
            });
        }
        if !(2..=MAX_PLAYERS).contains(&self.players) {
            return Err(ConfigError::Players {
                players: self.players,
                max: MAX_PLAYERS,
            });
        }
        Ok(())
    }
}

/// A [`SessionConfig`] or game the session cannot work with (a mistake in
/// the calling program, not in anything a peer sent).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The input delay is over [`MAX_INPUT_DELAY`].
    InputDelayTooLarge {
        /// The delay asked for.
        delay: u8,
        /// The largest allowed.
        max: u8,
    },
    /// The prediction window is over [`MAX_PREDICTION_WINDOW`].
    PredictionWindowTooLarge {
        /// The window asked for.
        window: u8,
        /// The largest allowed.
        max: u8,
    },
    /// A hash interval of 0.
    ZeroHashInterval,
    /// A ping interval of 0.
    ZeroPingInterval,
    /// A send interval of 0.
    ZeroSendInterval,
    /// A timeout of 0 (silence, handshake or progress).
    ZeroTimeout,
    /// The player count is outside 2 to the maximum.
    Players {
        /// The count asked for.
        players: u8,
        /// The most players in a match.
        max: u8,
    },
    /// [`SessionConfig::max_spectators`] above [`MAX_SPECTATORS`].
    Spectators {
        /// The count asked for.
        count: u8,
        /// The most spectators in a match.
        max: u8,
    },
    /// The game's input type does not serialize with postcard.
    InputNotEncodable(postcard::Error),
    /// [`SessionConfig::rejoin`] or [`SessionConfig::join`] names the
    /// host's slot (0), or one past the largest match.
    RejoinSlot {
        /// The slot named.
        slot: u8,
    },
    /// [`SessionConfig::back_as_host`] on a configuration that is not a
    /// host's or has no [`SessionConfig::rejoin_entropy`].
    HostBack,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::InputDelayTooLarge { delay, max } => {
                write!(f, "input delay {delay} is over the maximum of {max} ticks")
            }
            ConfigError::PredictionWindowTooLarge { window, max } => {
                write!(
                    f,
                    "prediction window {window} is over the maximum of {max} ticks"
                )
            }
            ConfigError::ZeroHashInterval => write!(f, "hash interval must not be 0"),
            ConfigError::ZeroPingInterval => write!(f, "ping interval must not be 0"),
            ConfigError::ZeroSendInterval => write!(f, "send interval must not be 0"),
            ConfigError::ZeroTimeout => write!(f, "timeout must not be 0"),
            ConfigError::Players { players, max } => {
                write!(f, "{players} players: a match has 2 to {max}")
            }
            ConfigError::RejoinSlot { slot } => {
                write!(f, "slot {slot} cannot be rejoined or joined (1 to 7 can)")
            }
            ConfigError::HostBack => {
                write!(f, "a host comes back only as a host with rejoin entropy")
            }
            ConfigError::Spectators { count, max } => {
                write!(f, "{count} spectators: a match admits at most {max}")
            }
            ConfigError::InputNotEncodable(e) => {
                write!(f, "the game's input type cannot be encoded: {e}")
            }
        }
    }
}

impl core::error::Error for ConfigError {}
