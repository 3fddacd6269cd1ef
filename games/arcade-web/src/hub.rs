//! The hub: several games behind one game slot, and the choice of the next
//! game over the match link that is already open.
//!
//! Every datagram on the match link starts with a namespace byte:
//!
//! | first bytes | what follows | channel |
//! | --- | --- | --- |
//! | `0` | a hub message ([`HubMsg`], postcard) | reliable |
//! | `1`, generation | a datagram of the game being played | the game's |
//!
//! The generation counts the games played over the link (from 0). A game
//! datagram of another generation (a late snapshot of the game before) is
//! dropped, so a game never sees its predecessor's bytes.
//!
//! The room's host decides what runs: it starts the game its challenge
//! named (see [`GameSlot::open_on`]; the first of the list by default)
//! when the match is first driven and says so
//! (`Play { game, generation: 0 }`); the guest starts a
//! game only when told. Either player may propose the next game at any
//! time (digit keys: `1` for the first game, `2` for the second…), and the
//! other agrees by proposing the same one; the host then stops the game
//! being played (if any) and starts the new one under the next generation,
//! and the guest follows its `Play`. A game that ends by itself (a fleet
//! sunk) leaves both players on the hub with its result, waiting for the
//! next choice; a player who leaves ends the match for both, and so does a
//! lost link, unless the game being played can take the player back.
//!
//! # A lost link or a reload
//!
//! The hub takes a player back whenever the game it plays at that moment
//! can: a lock-step game (NtBA, dots), whose session holds a dropped
//! player's slot. It says it [`rejoins`](GameSlot::rejoins) when any of its
//! games does (the shell asks before the match, when no game is chosen),
//! so the shell gives the match its rejoin window and, on the host, the
//! entropy tokens are made from; [`game_config`] carries both on to each
//! game (the entropy mixed with the generation, so that no two games of
//! the match issue the same token), and a game that cannot take a player
//! back gets a window of 0.
//!
//! - [`match_identity`](GameSlot::match_identity) is the identity of the
//!   game being played (a party's: the party game's); between games, or
//!   in a game that has none, there is none, so the host refuses a guest
//!   that asks to come back then.
//! - When the link is lost while that game holds this side's place (the
//!   host's game knows its match; the guest's has its token), the game
//!   hears the loss and the match goes on; the guest's shell asks its way
//!   back. Otherwise the match ends for both at once, as it always did: a
//!   lost link between games, or while the arena or Battleship runs.
//! - The guest comes back with a fresh hub: the shell calls `start_match`
//!   with `rejoin(slot, token)`, and the hub waits in `Waiting` as at the
//!   start of any match. The host's [`match_relink`](GameSlot::match_relink)
//!   hands the new link to the game being played; if the game takes it,
//!   the hub drops what it had queued for the old link and sends
//!   `Play { game, generation }` first on the new one (then its own
//!   proposal, if it made one). The guest's hub starts that game under
//!   that generation with the rejoin, and its fresh session catches up
//!   with the one the host held. The rejoin is spent on that game: any
//!   later game of the match starts with a fresh handshake.
//! - A host whose page reloads comes back the same way, the roles
//!   swapped: the shell calls `start_match` with the host's settings and
//!   `back_as_host(token)`, and the fresh hub, a host, waits for a `Play`
//!   instead of opening its first game; the guest's hub, asked to go on
//!   over the new link ([`match_relink`](GameSlot::match_relink)), sends
//!   it, and the host's fresh session of that game, built with the
//!   generation's entropy and the token, is taken back by the guest's.
//!   Later games start afresh.
//! - A game that ends while the guest is away (NtBA plays on, the AI in
//!   the guest's slot) ends the match with its result: nobody is there to
//!   choose the next game.
//!
//! No hub message is needed for this: the `Play` the host sends when a
//! game starts says everything the guest's fresh hub needs.
//!
//! # Spectators
//!
//! A match streams to spectators while the game it plays does (NtBA and
//! dots; a party's game for its whole match): the hub hands the links
//! beyond the match link to that game, with no namespace byte, and names
//! it ([`match_game`](GameSlot::match_game)). When a match of two moves
//! to another game, or to none, the page lets its spectators go.

use std::collections::VecDeque;

use lockstep::{Channel, Millis, Outcome, Role, SessionConfig};
use serde::{Deserialize, Serialize};
use web_shell::front_end::{About, LocalOption, Painter};
use web_shell::play;
use web_shell::replay::{Control, Refusal};
use web_shell::shell::driver::{FrameReport, MatchEnd};
use web_shell::shell::game::MatchIdentity;
use web_shell::shell::view::{LocalView, LogOffer, MatchView, ReplayView};
use web_shell::shell::GameSlot;

/// Namespace byte of hub messages.
pub const HUB: u8 = 0;
/// Namespace byte of game datagrams.
pub const GAME: u8 = 1;
/// Largest hub message.
pub const MAX_HUB_MESSAGE: usize = 64;

/// What the hubs of the two pages tell each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HubMsg {
    /// From the host: game `game` of the list starts now, its datagrams
    /// marked with `generation`.
    Play {
        /// Index in the list of games.
        game: u8,
        /// The generation its datagrams carry.
        generation: u8,
    },
    /// Let us play game `game` next (agreed when both sides propose it).
    Propose {
        /// Index in the list of games.
        game: u8,
    },
    /// The sender leaves the match.
    Leave,
}

impl HubMsg {
    /// The datagram: the namespace byte and the message.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![HUB];
        // Plain integers always encode.
        out.extend(postcard::to_allocvec(self).unwrap_or_default());
        out
    }

    /// Decodes the body of a hub datagram (after the namespace byte),
    /// strictly.
    #[must_use]
    pub fn decode(body: &[u8]) -> Option<HubMsg> {
        if body.len() > MAX_HUB_MESSAGE {
            return None;
        }
        match postcard::take_from_bytes::<HubMsg>(body) {
            Ok((m, [])) => Some(m),
            _ => None,
        }
    }
}

/// A game's datagram on the link: the namespace, the generation, its
/// bytes.
fn game_datagram(generation: u8, bytes: &[u8]) -> Vec<u8> {
    let mut d = Vec::with_capacity(bytes.len() + 2);
    d.extend_from_slice(&[GAME, generation]);
    d.extend_from_slice(bytes);
    d
}

/// The session settings of the game played under `generation`: the
/// shell's settings for the match (rollback or lock-step, the input delay,
/// picked from the round trip), with the seed moved on by the generation so
/// that each game over the link gets its own. The guest's settings come from
/// the host's Hello, as ever.
///
/// The rejoin parts go on too (see the module documentation, "A lost link
/// or a reload"): the window on both sides; the host's token entropy,
/// mixed with the generation so that two games of one match never issue
/// the same token; a guest's `rejoin(slot, token)` when the shell made the
/// match to come back into a running game.
pub fn game_config(match_cfg: SessionConfig, generation: u8) -> SessionConfig {
    let cfg = match match_cfg.role() {
        Role::Host { seed, input_delay } => {
            // The shell always lets the host pick the delay from the round
            // trip measured in the handshake; `input_delay` is the fallback.
            // A host coming back gives the match id of the game it comes
            // back into (the seed that game was started with) as its seed.
            let seed = match match_cfg.returning_host() {
                Some(_) => seed,
                None => seed.wrapping_add(u64::from(generation)),
            };
            let c = SessionConfig::host(seed, input_delay).input_delay_from_rtt();
            let c = if match_cfg.window() > 0 {
                c.prediction_window(match_cfg.window())
            } else {
                c
            };
            let c = match match_cfg.token_entropy() {
                Some(e) => c.rejoin_entropy(game_entropy(e, generation)),
                None => c,
            };
            // The host's fresh hub coming back into the game the guest's
            // hub named (its token is that game's).
            match match_cfg.returning_host() {
                Some(token) => c.back_as_host(token),
                None => c,
            }
        }
        Role::Guest => match match_cfg.rejoining() {
            Some((slot, token)) => SessionConfig::guest().rejoin(slot, token),
            None => SessionConfig::guest(),
        },
    };
    cfg.rejoin_window(match_cfg.held_for())
}

/// The token entropy of the game played under `generation`: the match's,
/// XORed with the generation times an odd constant. Multiplying by an odd
/// number is one-to-one on 128 bits, so every generation gets different
/// bits (generation 0 the match's own), and a token issued in one game
/// does not open a slot in another.
fn game_entropy(match_entropy: u128, generation: u8) -> u128 {
    const ODD: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835;
    match_entropy ^ u128::from(generation).wrapping_mul(ODD)
}

/// A match's settings once the game a player came back into has started:
/// the same without the way back, so that a later game of the match starts
/// with a fresh handshake. Only what [`game_config`] reads of the settings
/// is kept.
fn without_rejoin(match_cfg: SessionConfig) -> SessionConfig {
    match (match_cfg.role(), match_cfg.rejoining()) {
        (Role::Guest, Some(_)) => SessionConfig::guest().rejoin_window(match_cfg.held_for()),
        (Role::Host { seed, input_delay }, _) if match_cfg.returning_host().is_some() => {
            let c = SessionConfig::host(seed, input_delay).prediction_window(match_cfg.window());
            let c = match match_cfg.token_entropy() {
                Some(e) => c.rejoin_entropy(e),
                None => c,
            };
            c.rejoin_window(match_cfg.held_for())
        }
        _ => match_cfg,
    }
}

/// A game's words for the title, with the hub's after them: the digit
/// keys that propose the next game online, and how the hub goes on.
/// Made once per hub (the words live as long as the page).
fn about_with_hub(game: About, count: usize) -> About {
    let digits: Vec<String> = (1..=count).map(|d| d.to_string()).collect();
    let digits: &'static str = Box::leak(digits.join(", ").into_boxed_str());
    let mut controls = game.controls.to_vec();
    controls.push((
        digits,
        "online: propose the next game (the other player presses the same digit)",
    ));
    let mut how_to_play = game.how_to_play.to_vec();
    how_to_play.extend([
        "Pick another game above: local play starts it, and your challenges and parties name it.",
        "Online, either player proposes the next game when one ends; the connection stays.",
    ]);
    About {
        tagline: game.tagline,
        controls: Box::leak(controls.into_boxed_slice()),
        how_to_play: Box::leak(how_to_play.into_boxed_slice()),
    }
}

/// What the hub is doing over the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The guest, before the host's first `Play`.
    Waiting,
    /// Game `game` runs under `generation`.
    Playing { game: u8, generation: u8 },
    /// The last game ended by itself; the next is to be chosen.
    Between { generation: u8 },
}

struct Online {
    tag: u32,
    host: bool,
    /// The session settings the shell gave the match.
    cfg: SessionConfig,
    phase: Phase,
    ours: Option<u8>,
    theirs: Option<u8>,
    /// The last game's result, shown between games.
    result: Option<String>,
    held: Vec<String>,
    out: VecDeque<(Channel, Vec<u8>)>,
    end: Option<(Outcome, String)>,
    /// The game's own end was asked for by leaving: report it as ours.
    leaving: bool,
    /// A game has just started: the match view still shows the last one's
    /// words, which the new game's first frame must not inherit.
    fresh: bool,
    /// The host's first game is still to start, at the time the match
    /// was made (see [`HubSlot::open_first`]).
    opening: Option<Millis>,
    /// The input log and the desync report of the last game that ended,
    /// which the match's end offers (a lock-step game keeps them).
    log: Option<LogOffer>,
    report: Option<LogOffer>,
    /// The link was lost while the game held the match for a comeback, and
    /// no new one came yet: nobody is there to choose a next game, so a
    /// game that ends meanwhile (NtBA's clock runs on with the AI playing
    /// the absent guest) ends the match with its result.
    away: bool,
    /// The other player's `Leave` came while a game was played: the match
    /// ends as that game ends.
    other_left: bool,
}

impl Online {
    /// Records how the match ended, given what ended it, unless an end is
    /// already recorded. Once the local player has left, whatever follows
    /// (the other side closing the link on our goodbye, its own goodbye
    /// crossing ours) is the end of a match we left, and the player is told
    /// so.
    fn end_with(&mut self, what: Outcome) {
        if self.end.is_some() {
            return;
        }
        let outcome = if self.leaving {
            Outcome::LocalQuit
        } else {
            what
        };
        let message = play::outcome_message(&outcome).to_owned();
        self.end = Some((outcome, message));
    }
}

/// Several games behind one slot. See the module documentation.
pub struct HubSlot {
    games: Vec<Box<dyn GameSlot>>,
    options: &'static [LocalOption],
    /// Where each game's own choices start in `options`.
    offsets: Vec<usize>,
    /// The choices local play was last started with, for playing again.
    choices: Vec<usize>,
    /// The games' names, in order.
    names: &'static [&'static str],
    /// The game the next match this side hosts opens on.
    first: u8,
    /// The game of local play, and of drawing when no match runs.
    shown: usize,
    online: Option<Online>,
    /// The party match that runs, or ran last, and whether it still runs.
    party: Option<Party>,
    /// The game whose recording is open.
    replaying: Option<usize>,
    /// What the title says with each game picked: the game's own words
    /// and the hub's.
    abouts: Vec<About>,
}

/// A party's match: one game of the hub played over the party's links
/// from start to end, with no hub messages (a party does not switch
/// games; its invitation named the one it plays).
#[derive(Debug, Clone, Copy)]
struct Party {
    /// The game, in the list.
    game: usize,
    /// Its match still runs (else its result stays to be shown).
    running: bool,
}

impl HubSlot {
    /// A hub over `games` (at least one; at most nine, one digit key
    /// each).
    ///
    /// # Panics
    ///
    /// With no game, or more than nine: a mistake in the page's code.
    #[must_use]
    pub fn new(games: Vec<Box<dyn GameSlot>>) -> HubSlot {
        assert!(
            (1..=9).contains(&games.len()),
            "a hub carries one to nine games"
        );
        // Made once per page: the shell keeps the options for its life.
        let names: &'static [&'static str] = Box::leak(
            games
                .iter()
                .map(|g| g.name())
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        // The choice of game, then each game's own choices, named after
        // their game (a game's choices count only when it is the one
        // chosen).
        let mut options = vec![LocalOption {
            label: "Game",
            choices: names,
        }];
        let mut offsets = Vec::with_capacity(games.len());
        for g in &games {
            offsets.push(options.len());
            for o in g.local_options() {
                let label: &'static str = Box::leak(format!("{}: {}", g.name(), o.label).into());
                options.push(LocalOption {
                    label,
                    choices: o.choices,
                });
            }
        }
        let options: &'static [LocalOption] = Box::leak(options.into_boxed_slice());
        let abouts = games
            .iter()
            .map(|g| about_with_hub(g.about(), games.len()))
            .collect();
        HubSlot {
            games,
            options,
            offsets,
            choices: Vec::new(),
            names,
            first: 0,
            shown: 0,
            online: None,
            party: None,
            replaying: None,
            abouts,
        }
    }

    /// The game being played online, if any.
    #[must_use]
    pub fn playing(&self) -> Option<(u8, u8)> {
        match self.online.as_ref()?.phase {
            Phase::Playing { game, generation } => Some((game, generation)),
            _ => None,
        }
    }

    /// The game of the running party match, if one runs.
    fn party_game(&mut self) -> Option<&mut Box<dyn GameSlot>> {
        let p = self.party.filter(|p| p.running)?;
        self.games.get_mut(p.game)
    }

    /// The game whose session the links beyond the match link belong to:
    /// a party's game, or the game a match of two plays now (its
    /// spectators' links, which carry that game's own datagrams).
    fn linked_game(&mut self) -> Option<&mut Box<dyn GameSlot>> {
        let game = match self.party.filter(|p| p.running) {
            Some(p) => p.game,
            None => usize::from(self.playing()?.0),
        };
        self.games.get_mut(game)
    }

    fn game_count(&self) -> u8 {
        u8::try_from(self.games.len()).unwrap_or(9)
    }

    /// Starts game `game` under `generation` on this side.
    fn start_game(&mut self, now: Millis, game: u8, generation: u8) {
        let Some(o) = self.online.as_mut() else {
            return;
        };
        if let Phase::Playing { game: old, .. } = o.phase {
            self.games[usize::from(old)].drop_match();
        }
        let cfg = Self::session_for(o, self.games[usize::from(game)].rejoins(), generation);
        o.ours = None;
        o.theirs = None;
        o.result = None;
        o.fresh = true;
        self.shown = usize::from(game);
        if self.games[usize::from(game)].start_match(cfg, now, o.tag) {
            o.phase = Phase::Playing { game, generation };
        } else {
            o.end = Some((
                Outcome::LocalQuit,
                "The game could not be started.".to_owned(),
            ));
        }
    }

    /// The host starts its first game when the match is first driven (a
    /// frame, a datagram, a poll for datagrams), not when it is made: a
    /// page that only checks that a match can be made, while its worker
    /// plays it, starts no game (the arena's host would start a worker).
    fn open_first(&mut self, now: Millis) {
        let Some(o) = self.online.as_mut() else {
            return;
        };
        let Some(made) = o.opening.take() else {
            return;
        };
        let game = self.first;
        o.out.push_back((
            Channel::Reliable,
            HubMsg::Play {
                game,
                generation: 0,
            }
            .encode(),
        ));
        self.start_game(now.max(made), game, 0);
    }

    /// The settings game `game` starts with under `generation`
    /// ([`game_config`]). A game that cannot take a player back holds no
    /// slot (a window of 0, as the shell gives such a game when it plays
    /// alone), and a guest's rejoin is spent on the first game its hub
    /// starts: the one the host's `Play` named after the new link.
    fn session_for(o: &mut Online, rejoins: bool, generation: u8) -> SessionConfig {
        let cfg = game_config(o.cfg, generation);
        o.cfg = without_rejoin(o.cfg);
        if rejoins {
            cfg
        } else {
            cfg.rejoin_window(Millis::ZERO)
        }
    }

    /// The identity of the game played in the match of two, if one is
    /// played and has one.
    fn playing_identity(&self) -> Option<MatchIdentity> {
        let (game, _) = self.playing()?;
        self.games[usize::from(game)].match_identity()
    }

    /// Whether the game played now holds this side's place in the match
    /// for a comeback: the hub's settings hold slots, and the game knows
    /// its match as the host (side 0) or, on the guest, has the token the
    /// host issued for its slot. Only then does a lost link leave the
    /// match running.
    fn holds_for_comeback(&self) -> bool {
        let Some(o) = self.online.as_ref() else {
            return false;
        };
        if o.cfg.held_for() == Millis::ZERO || o.end.is_some() {
            return false;
        }
        self.playing_identity().is_some_and(|id| {
            if o.host {
                id.side == 0
            } else {
                id.side != 0 && id.token.is_some()
            }
        })
    }

    fn generation(phase: Phase) -> Option<u8> {
        match phase {
            Phase::Waiting => None,
            Phase::Playing { generation, .. } | Phase::Between { generation } => Some(generation),
        }
    }

    /// The host starts the agreed game, if both sides proposed the same.
    fn agree(&mut self, now: Millis) {
        let Some(o) = self.online.as_mut() else {
            return;
        };
        if !o.host || o.ours.is_none() || o.ours != o.theirs {
            return;
        }
        let game = o.ours.unwrap_or(0);
        let generation = Self::generation(o.phase).map_or(0, |g| g.wrapping_add(1));
        o.out.push_back((
            Channel::Reliable,
            HubMsg::Play { game, generation }.encode(),
        ));
        self.start_game(now, game, generation);
    }

    fn hub_message(&mut self, now: Millis, msg: HubMsg) {
        let count = self.game_count();
        let playing = self.playing().is_some();
        let Some(o) = self.online.as_mut() else {
            return;
        };
        match msg {
            HubMsg::Play { game, generation }
                if (!o.host || o.cfg.returning_host().is_some()) && game < count =>
            {
                if Self::generation(o.phase).is_some_and(|g| g == generation) {
                    log::warn!("hub: a Play for the generation already running, ignored");
                    return;
                }
                self.start_game(now, game, generation);
            }
            HubMsg::Propose { game } if game < count => {
                o.theirs = Some(game);
                self.agree(now);
            }
            // The leaver's game says its own goodbye after this: the game
            // being played ends first (its log kept), then the match.
            HubMsg::Leave if playing => o.other_left = true,
            HubMsg::Leave => o.end_with(Outcome::RemoteQuit),
            other => {
                log::warn!("hub: a message this side does not accept ({other:?})");
            }
        }
    }

    /// The digit keys pressed since the last frame: a proposal.
    fn proposals(o: &mut Online, held: &[&str], count: u8) -> Option<u8> {
        let mut pick = None;
        for k in held {
            if o.held.iter().any(|h| h == k) {
                continue;
            }
            if let Some(d) = k.strip_prefix("Digit").and_then(|d| d.parse::<u8>().ok()) {
                if (1..=count).contains(&d) {
                    pick = Some(d - 1);
                }
            }
        }
        o.held = held.iter().map(|k| (*k).to_owned()).collect();
        pick
    }
}

impl GameSlot for HubSlot {
    fn name(&self) -> &'static str {
        "Arcade"
    }
    fn build_id(&self) -> u64 {
        // Pages must carry the same games in the same order.
        self.games.iter().fold(0xA4CA_DE00_0000_0001, |h: u64, g| {
            h.rotate_left(13) ^ g.build_id()
        })
    }
    // The title tells about the game picked (its tagline, keys and
    // rules), then how the hub goes on from it.
    fn about(&self) -> About {
        self.abouts[self.shown]
    }
    // The choice of game always; each game's own choices with it picked.
    fn local_option_shown(&self, game: usize, option: usize) -> bool {
        let Some(&from) = self.offsets.get(game) else {
            return option == 0;
        };
        let count = self.games[game].local_options().len();
        option == 0 || (from..from + count).contains(&option)
    }
    fn pick(&mut self, game: usize) {
        if game < self.games.len() && self.replaying.is_none() {
            self.shown = game;
        }
    }
    fn local_options(&self) -> &'static [LocalOption] {
        self.options
    }
    fn games(&self) -> &'static [&'static str] {
        self.names
    }
    // The whole hub plays in the match worker, every game it switches to
    // with it: the page's module builds the worker's hub with the arena's
    // host in that worker (see the crate's start function).
    fn match_in_worker(&self) -> bool {
        true
    }
    fn open_on(&mut self, game: usize) {
        self.first = u8::try_from(game)
            .ok()
            .filter(|g| *g < self.game_count())
            .unwrap_or(0);
    }
    fn is_game_key(&self, code: &str) -> bool {
        code.strip_prefix("Digit")
            .and_then(|d| d.parse::<u8>().ok())
            .is_some_and(|d| (1..=self.game_count()).contains(&d))
            || self.games.iter().any(|g| g.is_game_key(code))
    }
    fn start_local(&mut self, seed: u64, choices: &[usize]) {
        self.choices = choices.to_vec();
        self.shown = choices
            .first()
            .copied()
            .unwrap_or(0)
            .min(self.games.len() - 1);
        let from = self.offsets[self.shown];
        let count = self.games[self.shown].local_options().len();
        let own = choices.get(from..from + count).unwrap_or(&[]);
        self.games[self.shown].start_local(seed, own);
    }
    fn stop_local(&mut self) {
        self.games[self.shown].stop_local();
    }
    fn restart_local(&mut self, seed: u64) {
        self.stop_local();
        let choices = std::mem::take(&mut self.choices);
        self.start_local(seed, &choices);
    }
    fn pad_key(&self, person: u8, button: web_shell::pad::Button) -> Option<&'static str> {
        self.games[self.shown].pad_key(person, button)
    }
    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        self.games[self.shown].pad_controls()
    }
    fn touch_buttons(&self) -> &'static [(web_shell::pad::Button, &'static str)] {
        self.games[self.shown].touch_buttons()
    }
    fn pads_connected(&mut self, count: usize) {
        for g in &mut self.games {
            g.pads_connected(count);
        }
    }
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView {
        self.games[self.shown].local_frame(held, steps)
    }
    fn party_games(&self) -> Vec<web_shell::party::PartyGame> {
        self.games
            .iter()
            .map(|g| web_shell::party::PartyGame {
                name: g.name(),
                rules: g.party(),
            })
            .collect()
    }
    // A party plays the game its invitation named: the shell opens the
    // hub on it first.
    fn party(&self) -> web_shell::party::PartyRules {
        self.games[usize::from(self.first)].party()
    }
    fn party_seed(&self, seed: u64, sides: &[u8], length: usize) -> Option<u64> {
        self.games[usize::from(self.first)].party_seed(seed, sides, length)
    }
    fn start_party(
        &mut self,
        cfg: SessionConfig,
        now: Millis,
        tag: u32,
        links: &[lockstep::PeerId],
    ) -> bool {
        let game = usize::from(self.first);
        self.online = None;
        self.party = None;
        if !self.games[game].start_party(cfg, now, tag, links) {
            return false;
        }
        self.shown = game;
        self.party = Some(Party {
            game,
            running: true,
        });
        true
    }
    fn party_datagram(
        &mut self,
        now: Millis,
        link: lockstep::PeerId,
        channel: Channel,
        bytes: &[u8],
    ) {
        if let Some(g) = self.linked_game() {
            g.party_datagram(now, link, channel, bytes);
        }
    }
    fn party_link_lost(&mut self, now: Millis, link: lockstep::PeerId) {
        if let Some(g) = self.linked_game() {
            g.party_link_lost(now, link);
        }
    }
    fn party_backlog(&mut self, now: Millis, link: lockstep::PeerId, bytes: usize) {
        if let Some(g) = self.linked_game() {
            g.party_backlog(now, link, bytes);
        }
    }
    fn poll_party_transmit(&mut self, link: lockstep::PeerId) -> Option<(Channel, Vec<u8>)> {
        self.linked_game()?.poll_party_transmit(link)
    }
    // A match streams to spectators when the game it plays does: a
    // party's game, or the game a match of two plays now (its spectators
    // are let go when the players switch to another; see `match_game`).
    fn takes_spectators(&self) -> bool {
        self.games.iter().any(|g| g.takes_spectators())
    }
    fn match_watchable(&self) -> bool {
        let game = match self.party.filter(|p| p.running) {
            Some(p) => p.game,
            None => match self.playing() {
                Some((g, _)) => usize::from(g),
                None => return false,
            },
        };
        self.games[game].match_watchable()
    }
    fn match_game(&self) -> Option<usize> {
        match self.party.filter(|p| p.running) {
            Some(p) => Some(p.game),
            None => self.playing().map(|(g, _)| usize::from(g)),
        }
    }
    // The result screen shows the last game's own result (NtBA's final
    // score and box score): the party's game, or the game a match of two
    // played last (the one shown).
    fn has_result(&self) -> bool {
        let game = self.party.map_or(self.shown, |p| p.game);
        self.games[game].has_result()
    }
    fn forget_result(&mut self) {
        for g in &mut self.games {
            g.forget_result();
        }
    }
    // A log names the build of the game that wrote it; every other game
    // refuses it.
    fn log_hash_at(&self, log: &LogOffer, tick: u32) -> Option<u64> {
        self.games.iter().find_map(|g| g.log_hash_at(log, tick))
    }
    fn local_log(&self) -> Option<LogOffer> {
        self.games[self.shown].local_log()
    }
    // A recording is offered to each game in turn: the one whose build
    // wrote it takes it and is shown; every other refuses it as another
    // build's. When none takes it, the answer of the first game that
    // refused it for another reason (a damaged file, one that does not
    // replay) says why, else the first game's.
    fn open_replay(&mut self, bytes: &[u8]) -> Result<(), Refusal> {
        self.close_replay();
        let mut why = None;
        for (i, g) in self.games.iter_mut().enumerate() {
            match g.open_replay(bytes) {
                Ok(()) => {
                    self.replaying = Some(i);
                    self.shown = i;
                    return Ok(());
                }
                Err(r @ Refusal::OtherBuild { .. }) => {
                    why.get_or_insert(r);
                }
                Err(Refusal::NotALog) => {}
                Err(r) => return Err(r),
            }
        }
        Err(why.unwrap_or(Refusal::NotALog))
    }
    fn close_replay(&mut self) {
        if let Some(i) = self.replaying.take() {
            self.games[i].close_replay();
        }
    }
    fn replay_control(&mut self, c: Control) {
        if let Some(i) = self.replaying {
            self.games[i].replay_control(c);
        }
    }
    fn replay_frame(&mut self) -> bool {
        self.replaying.is_some_and(|i| self.games[i].replay_frame())
    }
    fn replay_view(&self) -> Option<ReplayView> {
        self.games[self.replaying?].replay_view()
    }
    fn start_match(&mut self, cfg: SessionConfig, now: Millis, tag: u32) -> bool {
        self.party = None;
        let host = matches!(cfg.role(), Role::Host { .. });
        self.online = Some(Online {
            tag,
            host,
            cfg,
            phase: Phase::Waiting,
            ours: None,
            theirs: None,
            result: None,
            held: Vec::new(),
            out: VecDeque::new(),
            end: None,
            leaving: false,
            fresh: false,
            // A host coming back waits, as a guest does, for the game the
            // other hub names.
            opening: (host && cfg.returning_host().is_none()).then_some(now),
            log: None,
            report: None,
            away: false,
            other_left: false,
        });
        true
    }
    fn match_tag(&self) -> Option<u32> {
        match self.party {
            Some(p) if p.running => self.games[p.game].match_tag(),
            _ => self.online.as_ref().map(|o| o.tag),
        }
    }
    fn match_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        self.open_first(now);
        match bytes {
            [HUB, body @ ..] if channel == Channel::Reliable => match HubMsg::decode(body) {
                Some(m) => self.hub_message(now, m),
                None => log::warn!("hub: a hub message that does not decode, dropped"),
            },
            [GAME, generation, body @ ..] => {
                if let Some((game, g)) = self.playing() {
                    if g == *generation {
                        self.games[usize::from(game)].match_datagram(now, channel, body);
                    }
                }
            }
            _ => log::warn!("hub: a datagram of no namespace, dropped"),
        }
    }
    fn match_backlog(&mut self, now: Millis, bytes: usize) {
        if let Some((game, _)) = self.playing() {
            self.games[usize::from(game)].match_backlog(now, bytes);
        }
    }
    // A game that holds this side's place (see `holds_for_comeback`)
    // hears the loss and the match goes on: its session holds the slot, and
    // the shell brings the guest back on a new link. Anything else ends the
    // match for both, as a lost link always did: between games, or while
    // a game runs that cannot take a player back (the arena, Battleship).
    fn match_link_lost(&mut self, now: Millis) {
        let holds = self.holds_for_comeback();
        if let Some((game, _)) = self.playing() {
            self.games[usize::from(game)].match_link_lost(now);
        }
        let Some(o) = self.online.as_mut() else {
            return;
        };
        if holds {
            // The other side's proposal went with its hub (a reloaded page
            // starts a fresh one): no game is agreed while it is away.
            o.theirs = None;
            o.away = true;
            log::info!("hub: the match link was lost; the game holds the match for a comeback");
        } else {
            o.end_with(Outcome::TransportLost);
        }
    }
    // A match can take a player back when one of its games can; the
    // games that cannot hold no slot (see `session_for`).
    fn rejoins(&self) -> bool {
        self.games.iter().any(|g| g.rejoins())
    }
    // The host comes back into a game that can take it back (its identity,
    // which the record is written from, is that game's): during a party's
    // match, the party's game.
    fn host_rejoins(&self) -> bool {
        match self.party {
            Some(p) if p.running => self.games[p.game].host_rejoins(),
            _ => self.games.iter().any(|g| g.host_rejoins()),
        }
    }
    fn match_identity(&self) -> Option<MatchIdentity> {
        match self.party {
            Some(p) if p.running => self.games[p.game].match_identity(),
            _ => self.playing_identity(),
        }
    }
    // The side that stayed (the host, or the guest whose host comes
    // back): the game played now goes on over the new link. The other
    // side comes back with a fresh hub (`start_match` with its rejoin, or
    // the host's `back_as_host`), which waits for a `Play`: the same game
    // under the same generation goes first on the new link, and its
    // session rejoins the one held here.
    fn match_relink(&mut self, now: Millis, tag: u32) -> bool {
        if let Some(g) = self.party_game() {
            return g.match_relink(now, tag);
        }
        let Some((game, generation)) = self.playing() else {
            log::info!("hub: no game runs to take a player back into");
            return false;
        };
        let Some(o) = self.online.as_mut() else {
            return false;
        };
        // A guest takes its host back only while the host is away (the
        // link was lost and the game holds the match).
        if (!o.host && !o.away)
            || o.end.is_some()
            || !self.games[usize::from(game)].match_relink(now, tag)
        {
            return false;
        }
        o.tag = tag;
        o.away = false;
        // What was queued for the old link is stale: the other side's fresh
        // hub hears the game first, then this side's proposal, if any.
        o.out.clear();
        o.theirs = None;
        o.out.push_back((
            Channel::Reliable,
            HubMsg::Play { game, generation }.encode(),
        ));
        if let Some(ours) = o.ours {
            o.out
                .push_back((Channel::Reliable, HubMsg::Propose { game: ours }.encode()));
        }
        true
    }
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        if let Some(g) = self.party_game() {
            return g.match_frame(now, held, view);
        }
        self.open_first(now);
        let count = self.game_count();
        let Some(o) = self.online.as_mut() else {
            return FrameReport::default();
        };
        if let Some(pick) = Self::proposals(o, held, count) {
            if o.ours != Some(pick) {
                o.ours = Some(pick);
                o.out
                    .push_back((Channel::Reliable, HubMsg::Propose { game: pick }.encode()));
                self.agree(now);
            }
        }
        let Some(o) = self.online.as_mut() else {
            return FrameReport::default();
        };
        let mut report = FrameReport::default();
        if let Phase::Playing { game, generation } = o.phase {
            if std::mem::take(&mut o.fresh) {
                // What the shell itself measures stays; the rest is the game's.
                *view = MatchView {
                    path: view.path,
                    accept_to_tick_ms: view.accept_to_tick_ms,
                    frames: view.frames,
                    frame_ms: view.frame_ms.take(),
                    ..MatchView::default()
                };
            }
            let g = &mut self.games[usize::from(game)];
            report = g.match_frame(now, held, view);
            while let Some((ch, bytes)) = g.poll_match_transmit() {
                o.out.push_back((ch, game_datagram(generation, &bytes)));
            }
            if let Some(end) = report.ended.take() {
                g.drop_match();
                if end.log.is_some() {
                    o.log = end.log;
                    o.report = end.report;
                }
                // A game that ended by itself (not by leaving, not by a
                // lost link) leaves the players on the hub, if both are
                // there.
                let by_itself = !o.leaving
                    && !o.other_left
                    && !o.away
                    && matches!(end.outcome, Outcome::LocalQuit | Outcome::RemoteQuit)
                    && o.end.is_none();
                if by_itself {
                    o.phase = Phase::Between { generation };
                    o.result = Some(end.message);
                } else if o.other_left {
                    o.end_with(Outcome::RemoteQuit);
                } else if o.leaving {
                    o.end_with(end.outcome);
                } else {
                    o.end.get_or_insert((end.outcome, end.message));
                }
            }
        }
        let names: Vec<String> = self
            .games
            .iter()
            .enumerate()
            .map(|(i, g)| format!("{} {}", i + 1, g.name()))
            .collect();
        let choose = format!("next game: press {}", names.join(", "));
        match (o.phase, &o.result) {
            (Phase::Between { .. }, result) => {
                view.state = Some("running");
                view.waiting = true;
                view.headline = format!("{} · {choose}", result.as_deref().unwrap_or("Game over"));
            }
            (Phase::Waiting, _) => view.headline = "Waiting for the host's game…".to_owned(),
            (Phase::Playing { .. }, _) => {}
        }
        if let Some(t) = o.theirs.filter(|t| Some(*t) != o.ours) {
            let name = self.games[usize::from(t)].name();
            view.headline = format!(
                "{} · The other player proposes {name}: press {} to agree",
                view.headline,
                t + 1
            );
        }
        if let Some(o) = self.online.as_mut() {
            if let Some((outcome, message)) = o.end.clone() {
                return FrameReport {
                    ticked: report.ticked,
                    ended: Some(MatchEnd {
                        outcome,
                        message,
                        log: o.log.take(),
                        report: o.report.take(),
                    }),
                };
            }
        }
        report
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        if let Some(g) = self.party_game() {
            return g.poll_match_transmit();
        }
        if let Some(made) = self.online.as_ref().and_then(|o| o.opening) {
            self.open_first(made);
        }
        let playing = self.playing();
        let o = self.online.as_mut()?;
        if let Some(t) = o.out.pop_front() {
            return Some(t);
        }
        // What the game has between frames (the arena host's worker
        // answers on its own time) goes out at once too, after everything
        // queued before it.
        let (game, generation) = playing?;
        let (ch, bytes) = self.games[usize::from(game)].poll_match_transmit()?;
        Some((ch, game_datagram(generation, &bytes)))
    }
    fn quit_match(&mut self, now: Millis) {
        if let Some(g) = self.party_game() {
            g.quit_match(now);
            return;
        }
        let playing = self.playing();
        let Some(o) = self.online.as_mut() else {
            return;
        };
        // A host that leaves before its first game started starts none.
        o.opening = None;
        o.out.push_back((Channel::Reliable, HubMsg::Leave.encode()));
        match playing {
            Some((game, _)) => {
                // The game says its own goodbye; its end ends the match.
                o.leaving = true;
                self.games[usize::from(game)].quit_match(now);
            }
            None => {
                o.end.get_or_insert((
                    Outcome::LocalQuit,
                    play::outcome_message(&Outcome::LocalQuit).to_owned(),
                ));
            }
        }
    }
    fn drop_match(&mut self) {
        if let Some(g) = self.party_game() {
            g.drop_match();
        }
        if let Some(p) = self.party.as_mut() {
            p.running = false;
        }
        if let Some((game, _)) = self.playing() {
            self.games[usize::from(game)].drop_match();
        }
        self.online = None;
    }
    fn paint(&mut self, painter: &mut dyn Painter) {
        self.games[self.shown].paint(painter);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTROPY: u128 = 0x0011_2233_4455_6677_8899_aabb_ccdd_eeff;
    const WINDOW: Millis = Millis(20_000);

    #[test]
    fn game_config_carries_the_rejoin_window_and_the_hosts_entropy() {
        let shell = SessionConfig::host(40, 6)
            .input_delay_from_rtt()
            .rejoin_window(WINDOW)
            .rejoin_entropy(ENTROPY);
        let first = game_config(shell, 0);
        assert_eq!(
            first,
            SessionConfig::host(40, 6)
                .input_delay_from_rtt()
                .rejoin_window(WINDOW)
                .rejoin_entropy(ENTROPY)
        );
        let third = game_config(shell, 2);
        assert_eq!(third.held_for(), WINDOW);
        assert_eq!(
            third.role(),
            Role::Host {
                seed: 42,
                input_delay: 6
            }
        );
        assert_ne!(
            third.token_entropy(),
            Some(ENTROPY),
            "mixed with the generation"
        );
        assert!(third.token_entropy().is_some());
        assert_eq!(third.rejoining(), None);
    }

    #[test]
    fn every_generation_gets_its_own_entropy() {
        let mut seen: Vec<u128> = (0..=u8::MAX).map(|g| game_entropy(ENTROPY, g)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 256);
        assert_eq!(game_entropy(ENTROPY, 0), ENTROPY);
    }

    #[test]
    fn a_host_without_entropy_or_window_passes_none_on() {
        let shell = SessionConfig::host(7, 4).rejoin_window(Millis::ZERO);
        let cfg = game_config(shell, 1);
        assert_eq!(cfg.held_for(), Millis::ZERO);
        assert_eq!(cfg.token_entropy(), None);
    }

    #[test]
    fn game_config_carries_a_guests_rejoin_and_window() {
        let shell = SessionConfig::guest()
            .adaptive_input_delay()
            .rejoin(1, 0xDEAD_BEEF)
            .rejoin_window(WINDOW);
        let cfg = game_config(shell, 3);
        assert_eq!(
            cfg,
            SessionConfig::guest()
                .rejoin(1, 0xDEAD_BEEF)
                .rejoin_window(WINDOW)
        );
        // Spent on that game, the rejoin is gone; the window stays.
        let later = game_config(without_rejoin(shell), 4);
        assert_eq!(later, SessionConfig::guest().rejoin_window(WINDOW));
        // A guest that starts the match afresh has no rejoin to carry.
        let plain = SessionConfig::guest().rejoin_window(WINDOW);
        assert_eq!(without_rejoin(plain), plain);
        assert_eq!(game_config(plain, 0).rejoining(), None);
    }
}
