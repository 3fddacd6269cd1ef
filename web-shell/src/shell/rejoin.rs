//! Coming back into a running match: the rules the page follows when a
//! player's link is lost or the guest's page is reloaded.
//!
//! The engine does the hard part (docs/engine.md, "Rejoin after a
//! reload"): the host holds a dropped player's slot for the rejoin window,
//! and a fresh guest session built with the slot and the token the host
//! issued catches up and plays on. What the page adds, and what is decided
//! here without a browser:
//!
//! - [`Holds`]: which slot is held and how long for, from the session's
//!   events, so that the page can count down "Ada is reconnecting (17 s)";
//! - [`RejoinRecord`]: what a guest page keeps in its session storage to
//!   come back after a reload (the match, its slot, its token, whom it
//!   played), read back strictly, and when such a record is stale;
//! - [`after_refusal`]: what a refused rejoin leads to (try again a moment
//!   later, or give up with a plain message).
//!
//! The token is a credential for the slot: it is kept in the record and
//! nowhere else, and never written to the log.

use super::room::{Role, RoomLink, RoomOutput};
use super::{AfterIce, LinkId, Output, Part, Shell};
use crate::id::{PeerId, RoomCode};
use crate::protocol::PeerMsg;
use lockstep::{Event, Millis, RejoinRefusal, SessionConfig};
use serde::{Deserialize, Serialize};

/// How long the page's matches hold a dropped player's slot: long enough
/// for a reload on a slow connection (the page loads, joins the lobby and
/// makes a fresh link), short enough that the other player does not wait
/// long for someone who closed the tab.
pub const REJOIN_WINDOW: Millis = Millis(20_000);

/// How long a rejoin refused with [`RejoinRefusal::SlotLive`] waits before
/// asking again: the host has not yet noticed that the old link is gone
/// (its peer connection closes within a moment, or falls silent for the
/// engine's timeout), so the next try soon after will find the slot held.
pub const SLOT_LIVE_RETRY: Millis = Millis(1_000);

/// The session-storage key of a guest page's [`RejoinRecord`].
pub const RECORD_KEY: &str = "rejoin";

/// The largest record read back: a record is about 200 bytes; anything
/// much larger was not written by the page.
pub const RECORD_MAX_BYTES: usize = 1024;

/// How often a guest that lost its match link asks the host for a way
/// back until one works: a lobby message may be lost with a lobby link
/// that is being made again, and a room may fail.
pub const ASK_EVERY: Millis = Millis(2_000);

/// What the rejoining page shows while it works its way back.
pub const RECONNECTING: &str = "Reconnecting…";

/// The line the other page shows while `name`'s slot is held, with the
/// seconds left.
#[must_use]
pub fn reconnecting_line(name: &str, secs_left: u64) -> String {
    format!("{name} is reconnecting ({secs_left} s)")
}

/// The slots a match holds for dropped players, each until when, from the
/// session's events; and the tick this page rejoined at, if it did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Holds {
    held: Vec<(u8, Millis)>,
    benched: Vec<u8>,
    rejoined: Option<u32>,
}

impl Holds {
    /// Takes note of a session event at `now`; other events change nothing.
    pub fn event(&mut self, now: Millis, ev: &Event) {
        match *ev {
            Event::Dropped { slot, held_for } | Event::Waiting { slot, held_for } => {
                self.held.retain(|(s, _)| *s != slot);
                self.held.push((slot, now + held_for));
            }
            // A slot benched while held (a game that plays on, its AI
            // or the neutral input standing in) stays held, counted down,
            // until its player is back (`Unbenched`) or gone (`Left`).
            Event::Benched { slot, .. } if !self.benched.contains(&slot) => {
                self.benched.push(slot);
            }
            Event::Resumed { slot } | Event::Left { slot, .. } | Event::Unbenched { slot, .. } => {
                self.held.retain(|(s, _)| *s != slot);
                self.benched.retain(|s| *s != slot);
            }
            Event::Rejoined { tick } => self.rejoined = Some(tick),
            _ => {}
        }
    }

    /// The first held slot with the whole seconds left of its window
    /// (rounded up, so the count reads 20 … 1), if any slot is held.
    #[must_use]
    pub fn shown(&self, now: Millis) -> Option<(u8, u64)> {
        self.held
            .first()
            .map(|&(slot, until)| (slot, until.0.saturating_sub(now.0).div_ceil(1000)))
    }

    /// Whether slot `slot` is held.
    #[must_use]
    pub fn holds(&self, slot: u8) -> bool {
        self.held.iter().any(|(s, _)| *s == slot)
    }

    /// Every held slot, one bit each (slot 0 the lowest bit).
    #[must_use]
    pub fn mask(&self) -> u8 {
        self.held
            .iter()
            .filter_map(|(s, _)| 1u8.checked_shl(u32::from(*s)))
            .fold(0, |m, bit| m | bit)
    }

    /// The first slot benched while held (its game plays it on) and not
    /// back yet, if any.
    #[must_use]
    pub fn benched(&self) -> Option<u8> {
        self.benched.first().copied()
    }

    /// The tick this page's fresh session rejoined the match at.
    #[must_use]
    pub fn rejoined(&self) -> Option<u32> {
        self.rejoined
    }
}

/// What a page keeps in its session storage while it plays, so that after
/// a reload it can take its slot back: a guest's, or the host's of a match
/// of two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejoinRecord {
    /// The match's seed: which match this is (a fresh random number per
    /// match, so another match's record never matches).
    pub seed: u64,
    /// This player's slot in it (0: the host of a match of two).
    pub slot: u8,
    /// The slot's token: the one the host issued (for the host, its own).
    pub token: u64,
    /// The host's: the random bits its session made the tokens from,
    /// which its fresh session needs to be the host again. `None` for a
    /// guest.
    pub entropy: Option<u128>,
    /// The lobby peer id of the page to ask for a way back: the host's
    /// (a party's for a party guest), or for the host its guest's (that
    /// page is still in the lobby).
    pub ask: crate::id::PeerId,
    /// That player's lobby name, for the messages while reconnecting.
    pub ask_name: String,
    /// In a party's match, the other players' lobby ids, asked too: for
    /// its host, its other guests (any guest still in the match may take
    /// the host back); for a guest, the other guests (while the host's
    /// page is away, the guest keeping the room for it takes this page
    /// back too). Empty in a match of two.
    pub also: Vec<crate::id::PeerId>,
    /// The game the match plays (a page that carries several).
    pub game: String,
    /// For a party's match, how many play (its host is the party's);
    /// 0 for a match of two.
    pub people: u8,
    /// When the match was last seen running on this page, in ms since the
    /// Unix epoch (the wall clock: a reload starts the page's own clock
    /// again).
    pub alive_at: u64,
}

/// The stored form: every number as text (a u64 does not fit a
/// JavaScript number, and a tool reading the storage should not round it).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    seed: String,
    slot: u8,
    token: String,
    /// The host's only (32 hexadecimal digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    entropy: Option<String>,
    ask: String,
    ask_name: String,
    /// A party's other players to ask; absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    also: Vec<String>,
    game: String,
    alive_at: u64,
    /// Absent in a match of two's record.
    #[serde(default, skip_serializing_if = "is_zero")]
    people: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Why a stored record was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordError {
    /// Larger than [`RECORD_MAX_BYTES`].
    TooLarge,
    /// Not the record's shape.
    Malformed,
    /// The shape, with a value out of its range (slot 0, a bad peer id or
    /// name, a number that does not read).
    BadValue,
}

impl RejoinRecord {
    /// The text kept in session storage.
    #[must_use]
    pub fn to_storage(&self) -> String {
        let s = Stored {
            seed: format!("{:016x}", self.seed),
            slot: self.slot,
            token: format!("{:016x}", self.token),
            entropy: self.entropy.map(|e| format!("{e:032x}")),
            ask: self.ask.as_str().to_owned(),
            ask_name: self.ask_name.clone(),
            also: self.also.iter().map(|a| a.as_str().to_owned()).collect(),
            game: self.game.clone(),
            alive_at: self.alive_at,
            people: self.people,
        };
        serde_json::to_string(&s).unwrap_or_default()
    }

    /// Reads a record back strictly: size first, then the exact shape,
    /// then each value.
    ///
    /// # Errors
    ///
    /// Why the text is not a record this page wrote.
    pub fn from_storage(text: &str) -> Result<RejoinRecord, RecordError> {
        if text.len() > RECORD_MAX_BYTES {
            return Err(RecordError::TooLarge);
        }
        let s: Stored = serde_json::from_str(text).map_err(|_| RecordError::Malformed)?;
        let hex = |t: &str| {
            (t.len() == 16)
                .then(|| u64::from_str_radix(t, 16).ok())
                .flatten()
                .ok_or(RecordError::BadValue)
        };
        let name_ok = crate::text::clean_name(&s.ask_name).is_ok_and(|n| n == s.ask_name);
        if s.slot >= lockstep::wire::MAX_PLAYERS || !name_ok {
            return Err(RecordError::BadValue);
        }
        // The host's record, and only the host's, holds its entropy; only
        // a party's lists other players to ask (the host's: one for each
        // guest beyond the first; a guest's: one for each other guest).
        let entropy = match (s.slot, s.entropy.as_deref()) {
            (0, Some(e)) if e.len() == 32 && e.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Some(u128::from_str_radix(e, 16).map_err(|_| RecordError::BadValue)?)
            }
            (1.., None) => None,
            _ => return Err(RecordError::BadValue),
        };
        let also_fits = if s.people != 0 {
            s.also.len() + 2 <= usize::from(s.people)
        } else {
            s.also.is_empty()
        };
        if !also_fits {
            return Err(RecordError::BadValue);
        }
        let also = s
            .also
            .iter()
            .map(|a| crate::id::PeerId::parse(a).ok_or(RecordError::BadValue))
            .collect::<Result<Vec<_>, _>>()?;
        // A party's record: its size holds the slot, within the engine's
        // players.
        if s.people != 0 && (s.people <= s.slot || s.people > lockstep::wire::MAX_PLAYERS) {
            return Err(RecordError::BadValue);
        }
        if s.game.is_empty() || s.game.len() > 64 || s.game.chars().any(char::is_control) {
            return Err(RecordError::BadValue);
        }
        Ok(RejoinRecord {
            seed: hex(&s.seed)?,
            slot: s.slot,
            token: hex(&s.token)?,
            entropy,
            ask: crate::id::PeerId::parse(&s.ask).ok_or(RecordError::BadValue)?,
            ask_name: s.ask_name,
            also,
            game: s.game,
            alive_at: s.alive_at,
            people: s.people,
        })
    }

    /// Whether the slot may still be held at wall-clock time `wall_ms`:
    /// the window has not run out since the match was last seen running.
    /// A record from the future (the clock was set back) is taken as
    /// fresh only within one window, like any other.
    #[must_use]
    pub fn fresh(&self, wall_ms: u64) -> bool {
        wall_ms.abs_diff(self.alive_at) < REJOIN_WINDOW.0
    }
}

/// What to do after the host refused a rejoin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Ask again at this time (same record, a fresh link).
    Retry(Millis),
    /// Give up: clear the record and tell the player this.
    GiveUp(&'static str),
}

/// The message when the player this page played is gone from the lobby.
pub const HOST_GONE: &str =
    "The player you were playing is no longer in the lobby, so the match is over.";

/// The message when the host says the match is over.
pub const MATCH_OVER: &str = "That match is over.";

/// The message when the page could not take its place back (a link for
/// it opened too late, or its game could not make the session).
pub const COULD_NOT: &str = "Could not get back into the match.";

/// The message when the window ran out before the host took us back.
pub const TOO_LATE: &str = "Could not get back into the match in time, so it is over.";

/// What the page of a party's host says when it comes back too late: in a
/// game that plays on after a leave the host's place moved to a guest and
/// the match went on (docs/engine.md, "A host that never comes back");
/// in another the match ended.
pub const WENT_ON: &str = "You were away too long: the match went on without you, or it is over.";

/// What follows a refusal `why` at `now`, for a rejoin first tried at
/// `since`: only [`RejoinRefusal::SlotLive`] is worth another try (the
/// host has yet to notice the old link gone), and only within the window.
///
/// The page's new link takes the old one's place on the host (the host's
/// session hears it as the slot's own link, and drops the old session
/// there at once), so the page itself does not meet `SlotLive`; a caller
/// that brings a guest back over a link of its own would.
#[must_use]
pub fn after_refusal(why: RejoinRefusal, since: Millis, now: Millis) -> Next {
    match why {
        RejoinRefusal::SlotLive if now + SLOT_LIVE_RETRY < since + REJOIN_WINDOW => {
            Next::Retry(now + SLOT_LIVE_RETRY)
        }
        why => Next::GiveUp(refusal_message(why)),
    }
}

/// What the player reads when the host refused to take it back.
#[must_use]
pub fn refusal_message(why: RejoinRefusal) -> &'static str {
    match why {
        RejoinRefusal::SlotLive => TOO_LATE,
        RejoinRefusal::SlotNotHeld => "The match is over, or your place in it was not kept.",
        RejoinRefusal::WrongToken => "The host did not recognise this page's place in the match.",
        // A refusal this page does not know yet: the host cannot take
        // us back, whatever the reason.
        _ => "The host cannot take a player back into the match now.",
    }
}

/// A player coming back (a guest, or the host of a match of two after a
/// reload): what it asks with, and when it asks next.
#[derive(Debug)]
struct Asking {
    /// The page asked: the host's, or the host's guest's.
    host: PeerId,
    match_id: u64,
    slot: u8,
    token: u64,
    next_ask: Millis,
    /// The page was reloaded: it is not in the match (to the challenge
    /// rules) until the new link opens, and its record is cleared when it
    /// gives up.
    reloaded: bool,
    /// When the host's window runs out: no use asking after that.
    until: Millis,
    /// A party's match, of this many people: the way back is a comeback
    /// room (see `party::back`).
    party: Option<u8>,
    /// After a reload: the game the match plays, opened before the fresh
    /// session starts.
    game: Option<String>,
    /// The host's entropy, when the host comes back (slot 0).
    entropy: Option<u128>,
    /// A party's host coming back: the other guests it asks too (any may
    /// answer).
    also: Vec<PeerId>,
    /// A party guest whose link to the host is down while it still
    /// reaches another guest: the host's page may be the one away (a
    /// reload), so this page keeps its session and links, shows the host
    /// counted down, and asks the host's old page in case it is this
    /// link alone that failed. It stops asking when the host's page comes
    /// back through a room of the party's guests.
    kept: bool,
}

/// Coming back into the running match, on either side: the guest asks the
/// host over their lobby link for a way back ([`PeerMsg::Rejoin`]); the
/// host makes a fresh room and sends its code ([`PeerMsg::RejoinRoom`]);
/// the guest joins it; once the new link opens, the guest's fresh session
/// rejoins the slot over it (the engine's catch-up does the rest) and the
/// host's session hears the new link as the slot's own.
#[derive(Debug, Default)]
pub(super) struct Comeback {
    /// The room made for the new link, with its attempt number.
    room: Option<(u32, RoomLink)>,
    /// The host's room code, once the service made it (sent again to a
    /// guest that asks again meanwhile).
    code: Option<RoomCode>,
    /// Guest: asking for a way back.
    asking: Option<Asking>,
    /// Host of a match of two: the match link was closed because the
    /// guest's slot was benched (until the guest is back).
    closed_for_bench: bool,
    /// Host: who asked (a reloaded guest has a new lobby id).
    asker: Option<PeerId>,
    /// A record found in session storage at start-up, acted on at the
    /// first tick (the shell learns the time with its inputs).
    restore: Option<RejoinRecord>,
    /// Guest: when the record is written next (once a second while the
    /// match runs), and whether one was written.
    next_write: Millis,
    written: bool,
    /// The other player's lobby name, kept for the countdown (a reloaded
    /// guest leaves the roster under its old id).
    name: Option<String>,
    /// The ICE-restart rules of the running match's direct connection,
    /// with its attempt (`restart`).
    pub(super) restart: Option<(u32, super::restart::IceRestart)>,
    /// Who sends a restart's steps when a lobby id changed: this page's
    /// proof chain, the other pages' checks, and the steps waiting for
    /// the lobby socket.
    pub(super) vouches: super::restart::Vouches,
    /// Host: the random bits its session made the tokens from, kept for
    /// its record (a fresh session needs them to be the host again).
    entropy: Option<u128>,
}

impl Comeback {
    /// Whether a room for a new match link is being made.
    pub(super) fn room_of_any(&self) -> bool {
        self.room.is_some()
    }

    pub(super) fn room_of(&mut self, gen: u32) -> Option<&mut RoomLink> {
        self.room
            .as_mut()
            .filter(|(g, _)| *g == gen)
            .map(|(_, r)| r)
    }

    /// Whether this page is asking its way back.
    pub(super) fn reconnecting(&self) -> bool {
        self.asking.is_some()
    }

    /// Whether this page shows "Reconnecting…": it asks its way back, and
    /// not merely in case the link to a party's host alone failed.
    fn shows_reconnecting(&self) -> bool {
        self.asking.as_ref().is_some_and(|a| !a.kept)
    }
}

impl Shell {
    /// The session configuration's rejoin part: the page's window, and for
    /// the host the random bits its tokens are made from; a window of 0
    /// for a game that cannot take a player back.
    pub(super) fn rejoin_config(&mut self, cfg: SessionConfig, host: bool) -> SessionConfig {
        if !self.game.rejoins() {
            return cfg.rejoin_window(Millis::ZERO);
        }
        let cfg = cfg.rejoin_window(REJOIN_WINDOW);
        let mut bytes = [0u8; 16];
        if host && (self.random)(&mut bytes) {
            let entropy = u128::from_le_bytes(bytes);
            self.comeback.entropy = Some(entropy);
            cfg.rejoin_entropy(entropy)
        } else {
            cfg
        }
    }

    /// The wall-clock time at page time `now`, in ms since the epoch.
    fn wall(&self, now: Millis) -> u64 {
        self.cfg.clock_origin_ms.saturating_add(now.0)
    }

    /// At start-up: a record in session storage means this page was a
    /// guest in a match before a reload. One for this page's game is kept
    /// for the first tick (the page opens on the lobby); anything else is
    /// removed.
    pub(super) fn restore_rejoin(&mut self) {
        let Some(text) = self.cfg.rejoin_record.take() else {
            return;
        };
        let games = self.game.games();
        match RejoinRecord::from_storage(&text) {
            Ok(r) if r.game == self.game.name() || games.contains(&r.game.as_str()) => {
                if self.cfg.online_note.is_none() && self.cfg.stored_name.is_some() {
                    self.comeback.restore = Some(r);
                    self.screens
                        .handle(crate::screens::ScreenEvent::ChooseOnline);
                    return;
                }
                log::info!("a match to come back to, but no way online here");
            }
            Ok(_) => log::info!("dropped a rejoin record of another game"),
            Err(e) => log::warn!("dropped an unreadable rejoin record ({e:?})"),
        }
        self.clear_record();
    }

    fn clear_record(&mut self) {
        self.comeback.written = false;
        self.out.push_back(Output::SessionStore {
            key: RECORD_KEY,
            value: None,
        });
    }

    /// Gives up coming back after a reload: the record goes, and the lobby
    /// says why.
    fn give_up(&mut self, why: &'static str) {
        log::info!("gave up coming back into the match: {why}");
        self.comeback.asking = None;
        self.clear_record();
        if let Some(c) = self.client.as_mut() {
            c.note(crate::lobby::LobbyNotice::Rejoin(why));
        }
    }

    /// The first tick after a reload with a record: into the lobby under
    /// the remembered name, and ask the host once its lobby link is up.
    fn act_on_record(&mut self, now: Millis, r: RejoinRecord) {
        let name = self.cfg.stored_name.clone().unwrap_or_default();
        self.join_lobby(now, &name);
        if self.client.is_none() {
            self.clear_record();
            return;
        }
        if !r.fresh(self.wall(now)) {
            let party_host = r.slot == 0 && r.people >= 3;
            self.give_up(if party_host { WENT_ON } else { TOO_LATE });
            return;
        }
        // The record in storage is this page's from here on: it goes when
        // the match ends, however it ends (a refused comeback included).
        self.comeback.written = true;
        let left = (r.alive_at + REJOIN_WINDOW.0).saturating_sub(self.wall(now));
        self.last_opponent = Some(r.ask.clone());
        self.comeback.name = Some(r.ask_name.clone());
        self.comeback.asking = Some(Asking {
            host: r.ask,
            match_id: r.seed,
            slot: r.slot,
            token: r.token,
            next_ask: now,
            reloaded: true,
            until: now + Millis(left),
            party: (r.people != 0).then_some(r.people),
            game: Some(r.game),
            entropy: r.entropy,
            also: r.also,
            kept: false,
        });
        if let Some(c) = self.client.as_mut() {
            c.note(crate::lobby::LobbyNotice::Rejoin(RECONNECTING));
        }
    }

    /// The record of the running match, written once a second (its time
    /// says until when the slot may be held): a guest's, or the host's of
    /// a match whose game can take its host back (a party's once every
    /// guest said who it is).
    fn write_record(&mut self, now: Millis) {
        if now < self.comeback.next_write || !self.in_match() || self.comeback.asking.is_some() {
            return;
        }
        let Some(id) = self.game.match_identity() else {
            return;
        };
        let Some(token) = id.token else {
            return;
        };
        // A party's guest comes back through the party's host; a party's
        // host through its guests; in a match of two, each through the
        // other.
        let in_party = self.party_links_up();
        if self.party_hosts_moved_here() {
            // The host's place moved to this page's slot: nobody holds
            // the old host's entropy, so a reload of this page could not
            // take the host's part back (docs/web-shell.md, "Parties").
            if self.comeback.written {
                self.clear_record();
            }
            return;
        }
        let (ask, also, ask_name, people) = if let Some((host, people)) = self.party_host() {
            let name = self
                .client
                .as_ref()
                .and_then(|c| c.player(&host))
                .map(|p| p.nick.clone());
            (host, self.party_guests_besides(id.side), name, people)
        } else if in_party {
            let Some((first, mut guests, people)) =
                self.party_guests_to_ask().filter(|_| id.side == 0)
            else {
                return;
            };
            let ask = guests.remove(0);
            (ask, guests, self.party_name(first), people)
        } else {
            let Some(other) = self.last_opponent.clone() else {
                return;
            };
            (other, Vec::new(), self.comeback.name.clone(), 0)
        };
        let entropy = match id.side {
            0 if !self.game.host_rejoins() => return,
            0 => match self.comeback.entropy {
                Some(e) => Some(e),
                None => return,
            },
            _ => None,
        };
        self.comeback.next_write = now + Millis(1_000);
        let game = if in_party {
            self.party_game_name()
        } else {
            self.game.name().to_owned()
        };
        let record = RejoinRecord {
            seed: id.match_id,
            slot: id.side,
            token,
            entropy,
            ask,
            ask_name: ask_name.unwrap_or_else(|| "The other player".to_owned()),
            also,
            game,
            alive_at: self.wall(now),
            people,
        };
        self.comeback.written = true;
        self.out.push_back(Output::SessionStore {
            key: RECORD_KEY,
            value: Some(record.to_storage()),
        });
    }

    /// Host of a match of two, once a frame: when the session benched the
    /// guest (the game plays its slot on while it is held), the match link
    /// is closed. The session no longer listens on it, and the guest's
    /// page may still take it for alive (a page that was blocked, a
    /// network path lost without a word); closed, the guest's page takes
    /// the way back a lost link takes, and its fresh session gets the slot
    /// back. A party's links are left as they are.
    pub(super) fn close_benched_link(&mut self) {
        if self.match_view.benched.is_none() {
            self.comeback.closed_for_bench = false;
            return;
        }
        let host = self.game.match_identity().is_some_and(|id| id.side == 0);
        let party = self.party_links_up();
        if self.comeback.closed_for_bench || !host || party {
            return;
        }
        log::info!("the guest's slot is benched: closing the match link so that it comes back on a new one");
        self.comeback.closed_for_bench = true;
        self.out.push_back(Output::ClosePeer(LinkId::Match));
    }

    /// The running match's link closed or failed. A guest with a token
    /// asks its way back; the host waits to be asked (its session holds
    /// the slot).
    pub(super) fn match_link_gone(&mut self, now: Millis) {
        if self.comeback.asking.is_some() || !self.in_match() {
            return;
        }
        let Some(id) = self.game.match_identity() else {
            return;
        };
        let (Some(token), Some(host)) = (id.token, self.last_opponent.clone()) else {
            return;
        };
        if id.side == 0 {
            return;
        }
        log::info!("the match link was lost; asking the host for a way back");
        self.ask_way_back(now, host, &id, token, None, false);
    }

    /// A guest whose link was lost (not reloaded) starts asking `host` for
    /// a way back into the running match `id` (of `party` people, for a
    /// party's), within the window from now.
    fn ask_way_back(
        &mut self,
        now: Millis,
        host: PeerId,
        id: &super::game::MatchIdentity,
        token: u64,
        party: Option<u8>,
        kept: bool,
    ) {
        self.comeback.asking = Some(Asking {
            host,
            match_id: id.match_id,
            slot: id.side,
            token,
            next_ask: now,
            reloaded: false,
            until: now + REJOIN_WINDOW,
            party,
            game: None,
            entropy: None,
            also: Vec::new(),
            kept,
        });
        self.comeback_tick(now);
    }

    /// A party guest's link to the host closed while the match runs (its
    /// other links are closed already, or `kept`: see [`Asking::kept`]):
    /// with a token, it asks the host `host` for a way back into the match
    /// of `people`.
    pub(super) fn party_link_to_host_lost(
        &mut self,
        now: Millis,
        host: PeerId,
        people: u8,
        kept: bool,
    ) {
        if self.comeback.asking.is_some() || !self.in_match() {
            return;
        }
        let Some(id) = self.game.match_identity() else {
            return;
        };
        let Some(token) = id.token.filter(|_| id.side != 0) else {
            log::info!("the party's host is lost, and this page has no way back");
            return;
        };
        if kept {
            log::info!("the link to the party's host was lost; holding its place, and asking it");
        } else {
            log::info!("the links to the party were lost; asking the host for a way back");
        }
        self.ask_way_back(now, host, &id, token, Some(people), kept);
    }

    /// The returning party page's links to everyone are open: its fresh
    /// session takes its slot back over them.
    pub(super) fn party_back_ready(&mut self, now: Millis) {
        let Some(a) = self.comeback.asking.take() else {
            return;
        };
        let Some(tag) = self.party_gen() else {
            return;
        };
        if a.reloaded && self.screens.screen() == &crate::screens::Screen::Lobby {
            if let Some(c) = self.client.as_mut() {
                c.match_resumed(now);
            }
        }
        if !self.in_match() {
            if a.reloaded {
                self.give_up(COULD_NOT);
            }
            return;
        }
        self.returning_view(&a);
        self.match_view.path = Some(super::party::party_path(self.party.as_ref()));
        let cfg = self.comeback_config(&a);
        let names = self.party_link_names();
        if !self.game.start_party(cfg, now, tag, &names) {
            // The page has no session to play on with: the match is over
            // for it (the others count it down, then go on or end).
            log::warn!("could not make the session to come back with");
            self.close_party();
            if let Some(c) = self.client.as_mut() {
                c.match_ended(now);
            }
            if a.reloaded {
                self.give_up(COULD_NOT);
            } else {
                self.screen_event(
                    now,
                    crate::screens::ScreenEvent::Ended(COULD_NOT.into()),
                    &[],
                );
            }
            return;
        }
        if a.reloaded {
            self.screen_event(now, crate::screens::ScreenEvent::MatchStarted, &[]);
        }
        self.party_back_started(now);
        self.render(Part::Match);
    }

    /// The fresh session's configuration: a guest's rejoin of its slot,
    /// or the host's return, built as the match was (the input delay and
    /// the match's parameters come from the guests), for a match of two
    /// or a party's of `a.party` people.
    fn comeback_config(&mut self, a: &Asking) -> SessionConfig {
        let Some(entropy) = a.entropy.filter(|_| a.slot == 0) else {
            let cfg = SessionConfig::guest()
                .adaptive_input_delay()
                .rejoin(a.slot, a.token);
            return self.rejoin_config(cfg, false);
        };
        self.comeback.entropy = Some(entropy);
        let c = SessionConfig::host(a.match_id, 6);
        let c = if self.cfg.lockstep { c } else { c.rollback() };
        let c = match a.party {
            Some(people) => c.players(people),
            None => c,
        };
        self.rejoin_config(c.adaptive_input_delay(), false)
            .rejoin_entropy(entropy)
            .back_as_host(a.token)
    }

    /// A reloaded page's match view starts afresh as it comes back: its
    /// session is made now ("Reconnecting…" until it plays).
    fn returning_view(&mut self, a: &Asking) {
        if a.reloaded {
            self.frame_times = super::FrameTimes::default();
            self.match_view = super::view::MatchView {
                state: Some("connected"),
                status: RECONNECTING.to_owned(),
                ..super::view::MatchView::default()
            };
        }
    }

    /// The timers: the guest asks again every [`ASK_EVERY`] until a link
    /// is being made; the room's own deadline.
    pub(super) fn comeback_tick(&mut self, now: Millis) {
        if let Some(r) = self.comeback.restore.take() {
            self.act_on_record(now, r);
        }
        self.write_record(now);
        if let Some((_, room)) = self.comeback.room.as_mut() {
            room.tick(now);
        }
        self.restart_tick(now);
        let Some(a) = self.comeback.asking.as_ref() else {
            return;
        };
        let (reloaded, until) = (a.reloaded, a.until);
        let askees: Vec<PeerId> = std::iter::once(a.host.clone())
            .chain(a.also.iter().cloned())
            .collect();
        if reloaded && now >= until {
            self.give_up(TOO_LATE);
            return;
        }
        let Some(c) = self.client.as_ref() else {
            return;
        };
        // After a reload: once in the lobby, the page to ask must be there
        // too (the roster comes with the welcome): for a party's host, one
        // of its guests.
        let online = c.connection() == crate::lobby::Connection::Online;
        let linked: Vec<Option<bool>> = askees
            .iter()
            .map(|h| c.player(h).map(|_| c.reachable(h)))
            .collect();
        if reloaded && online && linked.iter().all(Option::is_none) {
            self.give_up(HOST_GONE);
            return;
        }
        // Asked only of a page we can reach (over our lobby link, or through
        // the service while it is not open); again after a while, unless
        // a room for the new link is being made.
        let relinking = self.party_relinking();
        let Some(a) = self.comeback.asking.as_mut() else {
            return;
        };
        if now < a.next_ask || self.comeback.room.is_some() || relinking {
            return;
        }
        let msg = PeerMsg::Rejoin {
            match_id: a.match_id,
        };
        let to: Vec<PeerId> = askees
            .into_iter()
            .zip(linked)
            .filter(|(_, l)| *l == Some(true))
            .map(|(h, _)| h)
            .collect();
        if to.is_empty() {
            return;
        }
        a.next_ask = now + ASK_EVERY;
        if let Some(c) = self.client.as_mut() {
            for h in &to {
                c.send_peer(h, &msg);
            }
        }
    }

    /// A lobby message about coming back, from `from`.
    pub(super) fn comeback_message(&mut self, now: Millis, from: &PeerId, msg: PeerMsg) {
        match msg {
            PeerMsg::Rejoin { match_id } => self.asked_for_a_way_back(now, from, match_id),
            PeerMsg::RejoinRoom(code) => {
                // A party's host coming back takes the room from whichever
                // guest keeps it, which may not be one it asked (its ask
                // was passed on): the match's own checks (the guests'
                // check of its token, its check of their catch-up) stand
                // whoever sent the code.
                let party_host = self
                    .comeback
                    .asking
                    .as_ref()
                    .is_some_and(|a| a.slot == 0 && a.party.is_some());
                if !(self.asking_host(from) || party_host) || self.comeback.room.is_some() {
                    log::debug!("a rejoin room nobody here waits for; ignored");
                    return;
                }
                if let Some(a) = self.comeback.asking.as_ref() {
                    if let Some(people) = a.party {
                        // A party's host is answered by the guest that
                        // keeps the room for it.
                        let host = if a.slot == 0 {
                            from.clone()
                        } else {
                            a.host.clone()
                        };
                        let (slot, game) = (a.slot, a.game.clone());
                        self.party_rejoin_room(now, code, slot, people, host, game.as_deref());
                        return;
                    }
                }
                self.room_gen += 1;
                let link = self.room_link(RoomLink::guest(code, self.cfg.match_connect));
                self.comeback.room = Some((self.room_gen, link));
                self.refresh_ice(now, AfterIce::OpenRoom(self.room_gen));
            }
            PeerMsg::IceRestart {
                n,
                step,
                link,
                vouch,
            } => {
                let msg = super::restart::Remote::Step { n, step };
                self.restart_message(now, from, msg, link, vouch);
            }
            PeerMsg::IceRestartAsk { after, link, vouch } => {
                let msg = super::restart::Remote::Ask { after };
                self.restart_message(now, from, msg, link, vouch);
            }
            PeerMsg::IceRestartCheck { match_id, check } => {
                self.restart_check(from, match_id, check);
            }
            PeerMsg::RejoinElsewhere(host) if self.asking_host(from) => {
                // Another player of the match names the page that hosts it
                // now (the host's page came back under a new lobby id after
                // this page's record was written): asked from now on, at
                // once. The match's own check of this page's token stands,
                // whoever is asked.
                let Some(a) = self
                    .comeback
                    .asking
                    .as_mut()
                    .filter(|a| a.slot != 0 && a.party.is_some() && a.host != host)
                else {
                    return;
                };
                log::info!("party: another player names the host's page; asking it");
                a.also.retain(|h| *h != host);
                a.host = host;
                a.next_ask = now;
            }
            PeerMsg::RejoinGone if self.asking_host(from) => {
                // A party's host asks each of its guests: one that runs
                // the match no more is asked no more, and only when none
                // is left is the match over.
                if let Some(a) = self.comeback.asking.as_mut().filter(|a| !a.also.is_empty()) {
                    if &a.host == from {
                        a.host = a.also.remove(0);
                    } else {
                        a.also.retain(|h| h != from);
                    }
                    return;
                }
                // The match is over on the host. A page still in it ends
                // by itself when its window runs out; a reloaded one is
                // told now.
                if self.in_match() {
                    log::info!("the host runs no match to come back to");
                    self.comeback.asking = None;
                } else {
                    self.give_up(MATCH_OVER);
                }
            }
            _ => {}
        }
    }

    /// The record is written again at the next tick (what it holds
    /// changed: a party player's lobby id).
    pub(super) fn record_soon(&mut self) {
        self.comeback.next_write = Millis::ZERO;
    }

    /// Stops asking for a way back (a party's host came back through a
    /// room a guest keeps).
    pub(super) fn stop_asking(&mut self) {
        self.comeback.asking = None;
    }

    /// A party guest that kept its links while asking the host's old page
    /// (see [`Asking::kept`]) asks it no more: the host's place moved.
    pub(super) fn stop_asking_old_host(&mut self) {
        if self.comeback.asking.as_ref().is_some_and(|a| a.kept) {
            log::info!("party: no longer asking the old host's page");
            self.comeback.asking = None;
        }
    }

    /// A party guest that kept its links while asking the host (see
    /// [`Asking::kept`]) lost the last of them: it is the one away after
    /// all, and says "Reconnecting…" from now on.
    pub(super) fn kept_links_all_lost(&mut self) {
        if let Some(a) = self.comeback.asking.as_mut().filter(|a| a.kept) {
            log::info!("party: every link is lost; this page is the one away");
            a.kept = false;
        }
    }

    /// Whether this page asks `from` for a way back.
    fn asking_host(&self, from: &PeerId) -> bool {
        self.comeback
            .asking
            .as_ref()
            .is_some_and(|a| &a.host == from || a.also.contains(from))
    }

    /// The page that stayed in the match (the host, or the guest of a
    /// match of two whose host comes back): `from` asks for a way back
    /// into match `match_id`. Only the player this page is playing, in
    /// this match, gets a room; one room at a time.
    fn asked_for_a_way_back(&mut self, now: Millis, from: &PeerId, match_id: u64) {
        // A reloaded page asks under a new lobby id: knowing the match's
        // id (never shown or logged) is what lets it ask; its session's
        // token is then checked by this page's session. A party's guest
        // takes back only the party's host, when its link to the host is
        // down (and then only the guest that keeps the room for it).
        let party = self.party_links_up();
        let for_host = party && self.keeps_for_host();
        let ours = self.in_match()
            && self
                .game
                .match_identity()
                .is_some_and(|id| (id.side == 0 || !party || for_host) && id.match_id == match_id);
        let send = |s: &mut Shell, msg: PeerMsg| {
            if let Some(c) = s.client.as_mut() {
                c.send_peer(from, &msg);
            }
        };
        let same_match = self
            .game
            .match_identity()
            .is_some_and(|id| id.match_id == match_id);
        if !ours
            && party
            && same_match
            && self.in_match()
            && self.comeback.asking.as_ref().is_some_and(|a| a.kept)
        {
            // Another guest keeps the room for the host: the ask is passed
            // on to it (the host's record may name that guest's page
            // before a reload of its own).
            log::info!("a party player asks for a way back while the host is away; passing it on to the guest that keeps the room");
            self.pass_host_ask(from);
            return;
        }
        if !ours && party && same_match && self.in_match() {
            if let Some(host) = self.party_host_here().filter(|h| h != from) {
                // The host's page is here, under a lobby id the asker's
                // record may not know (it came back after a reload of its
                // own just before the asker's page reloaded): the asker is
                // told where to ask.
                log::info!("a party player asks for a way back here; naming the host's page");
                send(self, PeerMsg::RejoinElsewhere(host));
                return;
            }
        }
        if !ours {
            log::info!("a player asked to come back into a match not running here");
            send(self, PeerMsg::RejoinGone);
            return;
        }
        if for_host {
            // The host's page is back (or another guest's page, reloaded
            // while the host's is away, asks: this page keeps the room for
            // both): no more asking the host's old page.
            log::info!("a party player asks for a way back while the host is away; making a room");
            self.comeback.asking = None;
        }
        if party {
            self.party_way_back(now, from);
            return;
        }
        if self.comeback.asking.take().is_some() {
            // A guest that lost its link asked the host's old page: the
            // host's fresh page asks here instead, and this page makes
            // the room.
            log::info!("the host's page asks for a way back; no longer asking it");
        }
        if self.comeback.room.is_some() && self.comeback.asker.as_ref() == Some(from) {
            // Asked again while the room is made: the code goes again once
            // there is one (the last message may have been lost).
            if let Some(code) = self.comeback.code.clone() {
                send(self, PeerMsg::RejoinRoom(code));
            }
            return;
        }
        if let Some((gen, mut room)) = self.comeback.room.take() {
            // Someone else asks now (the guest's page reloaded meanwhile):
            // the last room is given up for theirs.
            room.close();
            while let Some(o) = room.poll() {
                self.room_io(now, gen, o);
            }
        }
        self.comeback.asker = Some(from.clone());
        log::info!("the other player asks for a way back into the match; making a room");
        self.room_gen += 1;
        let link = self.room_link(RoomLink::host(self.cfg.match_connect));
        self.comeback.room = Some((self.room_gen, link));
        self.comeback.code = None;
        self.refresh_ice(now, AfterIce::Nothing);
    }

    /// Carries out the comeback room's outputs; `true` if there were any.
    pub(super) fn drain_comeback(&mut self, now: Millis) -> bool {
        let mut any = false;
        loop {
            let Some((gen, o)) = self
                .comeback
                .room
                .as_mut()
                .and_then(|(g, r)| r.poll().map(|o| (*g, o)))
            else {
                return any;
            };
            any = true;
            match self.room_io(now, gen, o) {
                Some(RoomOutput::Ready(code)) => {
                    self.comeback.code = Some(code.clone());
                    if let Some(to) = self.comeback.asker.clone() {
                        if let Some(c) = self.client.as_mut() {
                            c.send_peer(&to, &PeerMsg::RejoinRoom(code));
                        }
                    }
                }
                Some(RoomOutput::Opened(role, path)) => {
                    self.comeback.room = None;
                    self.comeback.code = None;
                    self.new_link_open(now, role, gen, path);
                }
                Some(RoomOutput::Failed(_)) => {
                    // The guest asks again on its timer.
                    log::info!("the link for coming back could not be made");
                    self.comeback.room = None;
                    self.comeback.code = None;
                }
                _ => {}
            }
        }
    }

    /// The new link of attempt `tag` is open: the guest's fresh session
    /// rejoins over it (a reloaded page goes back to the match screen),
    /// the host's session goes on over it.
    fn new_link_open(&mut self, now: Millis, role: Role, tag: u32, path: super::room::Path) {
        let reloaded = self.comeback.asking.as_ref().is_some_and(|a| a.reloaded);
        let on_lobby = self.screens.screen() == &crate::screens::Screen::Lobby;
        if reloaded && role == Role::Guest && on_lobby {
            // Back in the match to the challenge rules (busy to others).
            if let Some(c) = self.client.as_mut() {
                c.match_resumed(now);
            }
        }
        if !self.in_match() {
            self.out.push_back(Output::ClosePeer(LinkId::Match));
            if reloaded {
                self.give_up("Could not get back into the match.");
            }
            return;
        }
        self.restart_rules(tag, role, path);
        let path = match path {
            super::room::Path::Direct => "direct",
            super::room::Path::Relayed => "relayed",
        };
        match (role, self.comeback.asking.take()) {
            (Role::Guest, Some(a)) => {
                self.returning_view(&a);
                self.match_view.path = Some(path);
                let cfg = self.comeback_config(&a);
                if !self.game.start_match(cfg, now, tag) {
                    log::warn!("could not make the session to come back with");
                }
                if a.reloaded {
                    self.screen_event(now, crate::screens::ScreenEvent::MatchStarted, &[]);
                }
            }
            (Role::Host, None) => {
                self.match_view.path = Some(path);
                if let Some(who) = self.comeback.asker.take() {
                    self.last_opponent = Some(who);
                }
                if !self.game.match_relink(now, tag) {
                    log::warn!("this game cannot take a player back");
                }
            }
            _ => log::warn!("a link for coming back opened on the wrong side; ignored"),
        }
        self.render(Part::Match);
    }

    /// The match ended: nothing to come back to.
    pub(super) fn comeback_end(&mut self) {
        if let Some((gen, mut room)) = self.comeback.room.take() {
            room.close();
            while let Some(o) = room.poll() {
                self.room_io(self.now, gen, o);
            }
        }
        if self.comeback.written {
            self.clear_record();
        }
        self.comeback = Comeback::default();
    }

    /// The line shown while a link is being made again.
    pub(super) fn reconnecting_view(&mut self) {
        if self.comeback.name.is_none() {
            self.comeback.name = self
                .last_opponent
                .as_ref()
                .and_then(|id| self.client.as_ref()?.player(id))
                .map(|p| p.nick.clone());
        }
        let restarting = self.restarting();
        let party_name = self
            .match_view
            .held
            .and_then(|(slot, _)| self.party_name(slot));
        let party = self.party_links_up();
        let moved = self.match_view.moved_to.map(|slot| {
            let old = self.party_name(0).unwrap_or_else(|| "The host".to_owned());
            if self.match_view.side == Some(slot) {
                format!("{old} left; you host now")
            } else {
                let new = self
                    .party_name(slot)
                    .unwrap_or_else(|| "another player".to_owned());
                format!("{old} left; {new} hosts now")
            }
        });
        let v = &mut self.match_view;
        v.host_moved = moved;
        // The other player's countdown wins over this page's own ICE
        // restart: a page that closed goes quiet, and its connection
        // reports the path lost soon after, but the player to tell about
        // is the one who is gone.
        v.reconnecting = if self.comeback.shows_reconnecting() {
            Some(RECONNECTING.to_owned())
        } else if let Some((_, secs)) = v.held {
            // In a party the player away is the held slot's; its name
            // came over its link (`party::back`).
            let name = if party {
                party_name
            } else {
                self.comeback.name.clone()
            };
            let name = name.unwrap_or_else(|| "The other player".to_owned());
            Some(reconnecting_line(&name, secs))
        } else if restarting {
            Some(RECONNECTING.to_owned())
        } else {
            None
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::PeerId;

    fn record() -> RejoinRecord {
        RejoinRecord {
            seed: 0x0123_4567_89ab_cdef,
            slot: 1,
            token: u64::MAX - 5,
            entropy: None,
            ask: PeerId::parse("AbCdEfGhJk12").unwrap(),
            ask_name: "Ada".to_owned(),
            also: Vec::new(),
            game: "NtBA".to_owned(),
            alive_at: 1_700_000_000_000,
            people: 0,
        }
    }

    #[test]
    fn a_held_slot_counts_down_in_whole_seconds_and_clears_when_resumed() {
        let mut h = Holds::default();
        assert_eq!(h.shown(Millis(0)), None);
        h.event(
            Millis(1_000),
            &Event::Dropped {
                slot: 1,
                held_for: Millis(20_000),
            },
        );
        assert_eq!(h.shown(Millis(1_000)), Some((1, 20)));
        assert_eq!(h.shown(Millis(1_001)), Some((1, 20)));
        h.event(
            Millis(1_000),
            &Event::Dropped {
                slot: 7,
                held_for: Millis(20_000),
            },
        );
        assert_eq!(h.mask(), 0b1000_0010, "slots 1 and 7 held");
        h.event(Millis(1_000), &Event::Left { slot: 7, tick: 9 });
        assert_eq!(h.mask(), 0b10);
        assert_eq!(h.shown(Millis(4_000)), Some((1, 17)));
        assert_eq!(h.shown(Millis(20_999)), Some((1, 1)));
        assert_eq!(h.shown(Millis(21_000)), Some((1, 0)));
        // A Waiting event corrects the deadline to the session's.
        h.event(
            Millis(5_000),
            &Event::Waiting {
                slot: 1,
                held_for: Millis(15_500),
            },
        );
        assert_eq!(h.shown(Millis(5_000)), Some((1, 16)));
        h.event(Millis(6_000), &Event::Resumed { slot: 1 });
        assert_eq!(h.shown(Millis(6_000)), None);
        assert_eq!(h.mask(), 0, "none held");
        assert_eq!(h.rejoined(), None);
        h.event(Millis(7_000), &Event::Rejoined { tick: 420 });
        assert_eq!(h.rejoined(), Some(420));
    }

    #[test]
    fn a_benched_slot_counts_down_until_its_player_is_back() {
        let mut h = Holds::default();
        h.event(
            Millis(1_000),
            &Event::Dropped {
                slot: 2,
                held_for: Millis(20_000),
            },
        );
        // The game plays the slot on meanwhile: still held, still counted.
        assert_eq!(h.benched(), None, "held, not benched yet");
        h.event(Millis(1_300), &Event::Benched { slot: 2, tick: 90 });
        assert_eq!(h.shown(Millis(4_000)), Some((2, 17)));
        assert_eq!(h.benched(), Some(2));
        h.event(Millis(6_000), &Event::Unbenched { slot: 2, tick: 400 });
        assert_eq!(h.shown(Millis(6_000)), None);
        assert_eq!(h.benched(), None, "back");
        // Benched again, then gone for good.
        h.event(Millis(7_000), &Event::Benched { slot: 2, tick: 700 });
        assert_eq!(h.benched(), Some(2));
        h.event(Millis(9_000), &Event::Left { slot: 2, tick: 900 });
        assert_eq!(h.benched(), None, "left");
    }

    #[test]
    fn the_other_page_reads_who_is_reconnecting_and_for_how_long() {
        assert_eq!(reconnecting_line("Ada", 17), "Ada is reconnecting (17 s)");
    }

    #[test]
    fn a_record_round_trips_through_storage_with_its_numbers_as_text() {
        let r = record();
        let text = r.to_storage();
        assert!(text.contains(r#""token":"fffffffffffffffa""#), "{text}");
        assert!(text.len() < RECORD_MAX_BYTES / 2);
        assert_eq!(RejoinRecord::from_storage(&text), Ok(r));
    }

    #[test]
    fn a_partys_record_keeps_its_size_and_a_pairs_has_none() {
        let pair = record().to_storage();
        assert!(!pair.contains("people"), "{pair}");
        let party = RejoinRecord {
            slot: 3,
            people: 4,
            ..record()
        };
        let text = party.to_storage();
        assert!(text.contains(r#""people":4"#), "{text}");
        assert_eq!(RejoinRecord::from_storage(&text), Ok(party));
        // A slot the party does not hold, or more people than a match
        // takes, is not a record this page wrote.
        for (slot, people) in [(3, 3), (3, 2), (1, 9), (1, 255)] {
            let bad = RejoinRecord {
                slot,
                people,
                ..record()
            };
            assert_eq!(
                RejoinRecord::from_storage(&bad.to_storage()),
                Err(RecordError::BadValue),
                "slot {slot} of {people}"
            );
        }
    }

    #[test]
    fn a_party_guests_record_names_the_other_guests_and_no_more() {
        let other = |s: &str| PeerId::parse(s).unwrap();
        let guest = RejoinRecord {
            slot: 2,
            people: 4,
            also: vec![other("BbCdEfGhJk12"), other("CbCdEfGhJk12")],
            ..record()
        };
        let text = guest.to_storage();
        assert_eq!(RejoinRecord::from_storage(&text), Ok(guest.clone()));
        // More than the other guests, or any in a match of two's record.
        let crowded = RejoinRecord {
            also: vec![
                other("BbCdEfGhJk12"),
                other("CbCdEfGhJk12"),
                other("DbCdEfGhJk12"),
            ],
            ..guest.clone()
        };
        let pair = RejoinRecord {
            people: 0,
            slot: 1,
            ..guest
        };
        for bad in [crowded, pair] {
            assert_eq!(
                RejoinRecord::from_storage(&bad.to_storage()),
                Err(RecordError::BadValue),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_damaged_or_forged_record_is_refused() {
        let good = record().to_storage();
        let swap = |from: &str, to: &str| good.replace(from, to);
        let cases = [
            (String::new(), RecordError::Malformed),
            ("null".to_owned(), RecordError::Malformed),
            (good[..good.len() - 1].to_owned(), RecordError::Malformed),
            (swap("\"slot\":1", "\"slot\":0"), RecordError::BadValue),
            (swap("\"slot\":1", "\"slot\":99"), RecordError::BadValue),
            (swap("\"slot\":1", "\"slot\":-1"), RecordError::Malformed),
            (
                swap("fffffffffffffffa", "fffffffffffffffz"),
                RecordError::BadValue,
            ),
            (swap("fffffffffffffffa", "fffa"), RecordError::BadValue),
            (swap("AbCdEfGhJk12", "AbCd"), RecordError::BadValue),
            (swap("\"Ada\"", "\"\""), RecordError::BadValue),
            (swap("\"Ada\"", "\"A\\u202eda\""), RecordError::BadValue),
            (swap("\"NtBA\"", "\"\""), RecordError::BadValue),
            (swap("{", "{\"extra\":1,"), RecordError::Malformed),
            (" ".repeat(RECORD_MAX_BYTES + 1), RecordError::TooLarge),
        ];
        for (text, why) in cases {
            assert_eq!(RejoinRecord::from_storage(&text), Err(why), "{text}");
        }
    }

    #[test]
    fn a_record_is_stale_once_the_window_ran_out() {
        let r = record();
        let w = REJOIN_WINDOW.0;
        assert!(r.fresh(r.alive_at));
        assert!(r.fresh(r.alive_at + w - 1));
        assert!(!r.fresh(r.alive_at + w));
        assert!(!r.fresh(r.alive_at + 3_600_000));
        assert!(!r.fresh(r.alive_at - w));
    }

    #[test]
    fn only_a_live_slot_is_tried_again_and_only_within_the_window() {
        let since = Millis(10_000);
        assert_eq!(
            after_refusal(RejoinRefusal::SlotLive, since, Millis(10_200)),
            Next::Retry(Millis(11_200))
        );
        assert_eq!(
            after_refusal(RejoinRefusal::SlotLive, since, Millis(29_500)),
            Next::GiveUp(TOO_LATE)
        );
        for why in [
            RejoinRefusal::SlotNotHeld,
            RejoinRefusal::WrongToken,
            RejoinRefusal::HostUnable,
        ] {
            assert!(matches!(
                after_refusal(why, since, Millis(10_200)),
                Next::GiveUp(_)
            ));
        }
    }
}
