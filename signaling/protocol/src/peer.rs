//! Messages between two lobby players over their data channel: chat,
//! challenges, and the arrival by an invite link. They never pass through the service, but they share the
//! service's room codes and the chat rules of [`crate::text`], so they live
//! beside them.

use serde_json::{json, Map, Value};

use crate::id::{PeerId, RoomCode};
use crate::json::{parse_json, string, typed};
use crate::limits::PEER_MESSAGE_MAX_BYTES;
use crate::room::{Signal, SignalKind};
use crate::MessageError;

/// Why a challenge was declined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclineReason {
    /// The player pressed Decline.
    Declined,
    /// The player is in a match (or connecting to one).
    Busy,
    /// The player has muted the challenger.
    Muted,
    /// Both challenged each other at once.
    Mutual,
    /// The challenge names a game the player's page does not carry.
    UnknownGame,
}

impl DeclineReason {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DeclineReason::Declined => "declined",
            DeclineReason::Busy => "busy",
            DeclineReason::Muted => "muted",
            DeclineReason::Mutual => "mutual",
            DeclineReason::UnknownGame => "unknown-game",
        }
    }

    fn parse(s: &str) -> Option<DeclineReason> {
        Some(match s {
            "declined" => DeclineReason::Declined,
            "busy" => DeclineReason::Busy,
            "muted" => DeclineReason::Muted,
            "mutual" => DeclineReason::Mutual,
            "unknown-game" => DeclineReason::UnknownGame,
            _ => return None,
        })
    }
}

/// The secret part of an invite link: 12 ASCII letters or digits (about 71
/// bits) drawn by the inviting page, so a link cannot be guessed from the
/// inviter's id. Its `Debug` form hides it, so that no log shows one.
#[derive(Clone, PartialEq, Eq)]
pub struct InviteCode(String);

impl InviteCode {
    /// Draws a code from random bytes supplied by `next_byte`, as a peer id
    /// is drawn (every character equally likely).
    pub fn generate(next_byte: impl FnMut() -> u8) -> InviteCode {
        InviteCode(PeerId::generate(next_byte).as_str().to_owned())
    }

    /// Accepts exactly 12 ASCII letters or digits.
    #[must_use]
    pub fn parse(s: &str) -> Option<InviteCode> {
        PeerId::parse(s).map(|id| InviteCode(id.as_str().to_owned()))
    }

    /// The code as text, for the link and the wire only.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for InviteCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InviteCode(..)")
    }
}

/// Why an inviter's page turned down a player who came by its invite link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InviteRefusal {
    /// The page never issued that code (a forged or mistyped link, or one
    /// from before the inviter reloaded the page).
    Unknown,
    /// The code was issued but has expired.
    Expired,
    /// The inviter cannot challenge now: in a match, or already busy with
    /// a challenge.
    Busy,
}

impl InviteRefusal {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            InviteRefusal::Unknown => "unknown",
            InviteRefusal::Expired => "expired",
            InviteRefusal::Busy => "busy",
        }
    }

    fn parse(s: &str) -> Option<InviteRefusal> {
        Some(match s {
            "unknown" => InviteRefusal::Unknown,
            "expired" => InviteRefusal::Expired,
            "busy" => InviteRefusal::Busy,
            _ => return None,
        })
    }
}

/// The game a challenge names, on a page that carries several (the
/// arcade's hub): 1 to 24 ASCII letters, digits, spaces or hyphens,
/// starting with a letter or digit and not ending with a space. Pages
/// compare it with the names of the games they carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameName(String);

/// The longest game name a challenge may carry, in bytes.
pub const GAME_NAME_MAX_BYTES: usize = 24;

impl GameName {
    /// Accepts a name of the shape above; `None` otherwise.
    #[must_use]
    pub fn parse(s: &str) -> Option<GameName> {
        let shaped = (1..=GAME_NAME_MAX_BYTES).contains(&s.len())
            && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
            && !s.ends_with(' ')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b' ' || b == b'-');
        shaped.then(|| GameName(s.to_owned()))
    }

    /// The name as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// 32 bytes of a restart proof chain (a proof, or the check at its end),
/// written as 64 hexadecimal digits. Its `Debug` form hides it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Proof(pub [u8; 32]);

impl std::fmt::Debug for Proof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Proof(..)")
    }
}

impl Proof {
    fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn parse(s: &str) -> Option<Proof> {
        if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Proof(out))
    }
}

/// What an ICE-restart message carries when its sender's lobby id changed
/// during the match (its lobby socket closed and came back): the match it
/// is about and the sender's next proof, an earlier link of a hash chain
/// whose end (the check) the sender gave the receiver as the match ran
/// ([`PeerMsg::IceRestartCheck`]). Each proof is shown once: a proof seen
/// before is refused, so the service, which relays it, cannot replay it;
/// and it says nothing of the sender's rejoin token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vouch {
    /// The match's id (its seed).
    pub match_id: u64,
    /// The proof.
    pub proof: Proof,
}

/// A message between two lobby players over their data channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerMsg {
    /// A chat line (already cleaned when received).
    Chat(String),
    /// "Play me": the challenger hosts `room`, for a match of `game`. A
    /// challenge without a game (from a page that carries one game) means
    /// the receiving page's first game: the match's version handshake then
    /// refuses a page of another build.
    Challenge {
        /// The challenger's room.
        room: RoomCode,
        /// The game the match opens on, when the challenger names one.
        game: Option<GameName>,
    },
    /// The target accepted and is joining the room.
    Accept,
    /// The target declined.
    Decline(DeclineReason),
    /// The challenger withdrew (or gave up waiting).
    Cancel,
    /// "I came by your invite link with this code": the inviter's page
    /// answers with a challenge, or with [`PeerMsg::InviteRefused`].
    Invited(InviteCode),
    /// The inviter's page turned the arrival down.
    InviteRefused(InviteRefusal),
    /// A guest whose link to its match is gone (the page reloaded, or the
    /// connection dropped) asks the host of the match with this id for a
    /// way back: the host answers with [`PeerMsg::RejoinRoom`] or
    /// [`PeerMsg::RejoinGone`].
    Rejoin {
        /// The match's id (its seed), as the guest's session knew it.
        match_id: u64,
    },
    /// The host's answer: join this fresh room for the new link.
    RejoinRoom(RoomCode),
    /// The host's answer: it runs no match of that id that holds a place
    /// for the asker (the match is over, or was another).
    RejoinGone,
    /// Another player of the match's answer to a [`PeerMsg::Rejoin`]: this
    /// page takes nobody back, but the page at this lobby id hosts the
    /// match now (the asker's record named the host's page from before its
    /// own reload).
    RejoinElsewhere(PeerId),
    /// A step of an ICE restart on a running match's link between the
    /// sender and the receiver (its offer, its answer, or one of its
    /// trickled candidates), for restart number `n` of that link (1 to
    /// 255; steps of another number are stale).
    IceRestart {
        /// Which restart of the link this step belongs to.
        n: u8,
        /// The step, checked as a room's handshake data is (its sizes).
        step: SignalKind,
        /// The link: none for a match of two (the two players have one
        /// match link); on a party's link, the room that made it (the
        /// party's member room, or the comeback room of a link made again),
        /// which both ends know, so that a step meant for a link since
        /// replaced reaches no other.
        link: Option<RoomCode>,
        /// Who sends it, when the sender's lobby id is not the one the
        /// receiver knows (its lobby socket came back under a new id).
        vouch: Option<Vouch>,
    },
    /// The side that answered in a link's handshake lost that link's ICE
    /// path and asks the side that offered (which alone makes restart
    /// offers) for an ICE restart: its own path may still look up, so it
    /// may not have noticed.
    IceRestartAsk {
        /// The last restart number the asker answered on that link (0 for
        /// none): an ask after a newer restart was offered is stale.
        after: u8,
        /// The link, named as in [`PeerMsg::IceRestart`].
        link: Option<RoomCode>,
        /// As in [`PeerMsg::IceRestart`].
        vouch: Option<Vouch>,
    },
    /// The check of the sender's restart proofs in the running match
    /// `match_id`, sent once to each player it has a direct link to as the
    /// match runs: with it, the receiver can tell the sender's later
    /// [`Vouch`] from a forgery when the sender's lobby id has changed.
    IceRestartCheck {
        /// The match's id (its seed).
        match_id: u64,
        /// The end of the sender's proof chain (see [`Vouch`]).
        check: Proof,
    },
    /// "Join my party": the challenger invites this player, among others,
    /// to a match of `game` for `people` people in all (the challenger
    /// included). The room comes later, in [`PeerMsg::PartyStart`], once
    /// everyone invited has answered.
    PartyInvite {
        /// The game, when the challenger names one.
        game: Option<GameName>,
        /// How many people the party would hold if everyone accepted: 3
        /// to [`PARTY_MAX_PEOPLE`].
        people: u8,
    },
    /// The invited player accepts and waits for the start.
    PartyAccept,
    /// The invited player declines (or their page does, for them).
    PartyDecline(DeclineReason),
    /// The challenger withdrew the invitation, or called the party off.
    PartyCancel,
    /// Everyone invited has answered: the party plays in member room
    /// `room`, and `sides[p]` is the side (team) of place `p`, place 0
    /// being the challenger's. The receiver holds place `place`.
    PartyStart {
        /// The member room.
        room: RoomCode,
        /// The receiver's place, 1 to `sides.len() - 1`.
        place: u8,
        /// One side per person who plays, 2 to [`PARTY_MAX_PEOPLE`]
        /// entries, each below [`PARTY_MAX_PEOPLE`].
        sides: Vec<u8>,
    },
    /// "Let me watch your match": a lobby player asks a player seen in a
    /// match for a spectator's way in. The answer is
    /// [`PeerMsg::WatchRoom`] or [`PeerMsg::WatchGone`].
    Watch,
    /// The answer to [`PeerMsg::Watch`]: join member room `room` as a
    /// spectator; its host runs the match, of `game` when the page carries
    /// several (the spectator's page opens that one).
    WatchRoom {
        /// The member room.
        room: RoomCode,
        /// The game its match plays, when the answering page names one.
        game: Option<GameName>,
    },
    /// The answer to [`PeerMsg::Watch`]: no match here takes spectators
    /// (it is over, or not one that can be watched).
    WatchGone,
}

/// The most people a party may hold, the challenger included (the engine's
/// and the member room's limit on players).
pub const PARTY_MAX_PEOPLE: u8 = crate::limits::MAX_ROOM_PLAYERS;

impl PeerMsg {
    /// Encodes for the data channel.
    #[must_use]
    pub fn encode(&self) -> String {
        match self {
            PeerMsg::Chat(text) => json!({"type": "chat", "text": text}),
            PeerMsg::Challenge { room, game: None } => {
                json!({"type": "challenge", "room": room.as_str()})
            }
            PeerMsg::Challenge {
                room,
                game: Some(game),
            } => json!({"type": "challenge", "room": room.as_str(), "game": game.as_str()}),
            PeerMsg::Accept => json!({"type": "accept"}),
            PeerMsg::Decline(reason) => json!({"type": "decline", "reason": reason.as_str()}),
            PeerMsg::Cancel => json!({"type": "cancel"}),
            PeerMsg::Invited(code) => json!({"type": "invited", "code": code.as_str()}),
            PeerMsg::InviteRefused(why) => {
                json!({"type": "invite-refused", "reason": why.as_str()})
            }
            PeerMsg::Rejoin { match_id } => {
                json!({"type": "rejoin", "match": format!("{match_id:016x}")})
            }
            PeerMsg::RejoinRoom(room) => json!({"type": "rejoin-room", "room": room.as_str()}),
            PeerMsg::RejoinGone => json!({"type": "rejoin-gone"}),
            PeerMsg::RejoinElsewhere(id) => json!({"type": "rejoin-elsewhere", "ask": id.as_str()}),
            PeerMsg::IceRestart {
                n,
                step,
                link,
                vouch,
            } => {
                let mut v = json!({"type": "ice-restart", "n": n, "step": restart_step(step)});
                if let Some(room) = link {
                    v["link"] = json!(room.as_str());
                }
                put_vouch(&mut v, vouch.as_ref());
                v
            }
            PeerMsg::IceRestartAsk { after, link, vouch } => {
                let mut v = json!({"type": "ice-restart-ask", "after": after});
                if let Some(room) = link {
                    v["link"] = json!(room.as_str());
                }
                put_vouch(&mut v, vouch.as_ref());
                v
            }
            PeerMsg::IceRestartCheck { match_id, check } => json!({
                "type": "ice-restart-check",
                "match": format!("{match_id:016x}"),
                "check": check.hex(),
            }),
            PeerMsg::PartyInvite { game: None, people } => {
                json!({"type": "party-invite", "people": people})
            }
            PeerMsg::PartyInvite {
                game: Some(game),
                people,
            } => json!({"type": "party-invite", "people": people, "game": game.as_str()}),
            PeerMsg::PartyAccept => json!({"type": "party-accept"}),
            PeerMsg::PartyDecline(reason) => {
                json!({"type": "party-decline", "reason": reason.as_str()})
            }
            PeerMsg::PartyCancel => json!({"type": "party-cancel"}),
            PeerMsg::PartyStart { room, place, sides } => json!({
                "type": "party-start",
                "room": room.as_str(),
                "place": place,
                "sides": sides,
            }),
            PeerMsg::Watch => json!({"type": "watch"}),
            PeerMsg::WatchRoom { room, game } => match game {
                Some(g) => json!({"type": "watch-room", "room": room.as_str(), "game": g.as_str()}),
                None => json!({"type": "watch-room", "room": room.as_str()}),
            },
            PeerMsg::WatchGone => json!({"type": "watch-gone"}),
        }
        .to_string()
    }

    /// Parses what a peer sent: at most [`PEER_MESSAGE_MAX_BYTES`], one of
    /// the known shapes exactly, a valid room code or invite code, a chat
    /// line of at most 500 characters (returned cleaned), a challenge's game
    /// name of the [`GameName`] shape when it has one; a party invitation
    /// for 3 to [`PARTY_MAX_PEOPLE`] people; a party start whose place is
    /// one of its sides other than the challenger's 0, with 2 to
    /// [`PARTY_MAX_PEOPLE`] sides each below [`PARTY_MAX_PEOPLE`].
    pub fn parse(text: &str) -> Result<PeerMsg, MessageError> {
        if text.len() > PEER_MESSAGE_MAX_BYTES {
            return Err(MessageError::TooLarge);
        }
        let v = parse_json(text)?;
        let (kind, m) = typed(
            &v,
            &[
                ("chat", &["text"], &[]),
                ("challenge", &["room"], &["game"]),
                ("accept", &[], &[]),
                ("decline", &["reason"], &[]),
                ("cancel", &[], &[]),
                ("invited", &["code"], &[]),
                ("invite-refused", &["reason"], &[]),
                ("rejoin", &["match"], &[]),
                ("rejoin-room", &["room"], &[]),
                ("rejoin-gone", &[], &[]),
                ("rejoin-elsewhere", &["ask"], &[]),
                ("ice-restart", &["n", "step"], &["link", "match", "proof"]),
                ("ice-restart-ask", &["after"], &["link", "match", "proof"]),
                ("ice-restart-check", &["match", "check"], &[]),
                ("party-invite", &["people"], &["game"]),
                ("party-accept", &[], &[]),
                ("party-decline", &["reason"], &[]),
                ("party-cancel", &[], &[]),
                ("party-start", &["room", "place", "sides"], &[]),
                ("watch", &[], &[]),
                ("watch-room", &["room"], &["game"]),
                ("watch-gone", &[], &[]),
            ],
        )?;
        Ok(match kind {
            "chat" => PeerMsg::Chat(crate::text::incoming_chat(string(m, "text")?).map_err(
                |e| match e {
                    crate::text::ChatError::TooLong => MessageError::TooLarge,
                    _ => MessageError::BadValue,
                },
            )?),
            "challenge" => PeerMsg::Challenge {
                room: RoomCode::parse(string(m, "room")?).ok_or(MessageError::BadValue)?,
                game: optional_game(m)?,
            },
            "party-invite" => PeerMsg::PartyInvite {
                game: optional_game(m)?,
                people: count(m.get("people"), 3..=PARTY_MAX_PEOPLE)?,
            },
            "party-accept" => PeerMsg::PartyAccept,
            "party-decline" => PeerMsg::PartyDecline(
                DeclineReason::parse(string(m, "reason")?).ok_or(MessageError::Malformed)?,
            ),
            "party-cancel" => PeerMsg::PartyCancel,
            "party-start" => party_start(m)?,
            "accept" => PeerMsg::Accept,
            "decline" => PeerMsg::Decline(
                DeclineReason::parse(string(m, "reason")?).ok_or(MessageError::Malformed)?,
            ),
            "invited" => PeerMsg::Invited(
                InviteCode::parse(string(m, "code")?).ok_or(MessageError::BadValue)?,
            ),
            "invite-refused" => PeerMsg::InviteRefused(
                InviteRefusal::parse(string(m, "reason")?).ok_or(MessageError::Malformed)?,
            ),
            "rejoin" => PeerMsg::Rejoin {
                match_id: match_id(m)?,
            },
            "rejoin-room" => PeerMsg::RejoinRoom(
                RoomCode::parse(string(m, "room")?).ok_or(MessageError::BadValue)?,
            ),
            "rejoin-gone" => PeerMsg::RejoinGone,
            "rejoin-elsewhere" => PeerMsg::RejoinElsewhere(
                PeerId::parse(string(m, "ask")?).ok_or(MessageError::BadValue)?,
            ),
            "ice-restart" => PeerMsg::IceRestart {
                n: count(m.get("n"), 1..=u8::MAX)?,
                step: Signal::from_value(m.get("step").cloned().unwrap_or(Value::Null))?.kind,
                link: optional_link(m)?,
                vouch: optional_vouch(m)?,
            },
            "ice-restart-ask" => PeerMsg::IceRestartAsk {
                after: count(m.get("after"), 0..=u8::MAX)?,
                link: optional_link(m)?,
                vouch: optional_vouch(m)?,
            },
            "ice-restart-check" => PeerMsg::IceRestartCheck {
                match_id: match_id(m)?,
                check: Proof::parse(string(m, "check")?).ok_or(MessageError::BadValue)?,
            },
            "watch" => PeerMsg::Watch,
            "watch-room" => PeerMsg::WatchRoom {
                room: RoomCode::parse(string(m, "room")?).ok_or(MessageError::BadValue)?,
                game: optional_game(m)?,
            },
            "watch-gone" => PeerMsg::WatchGone,
            _ => PeerMsg::Cancel,
        })
    }
}

/// An ICE restart's step in the shape of a room's handshake data, with
/// only the fields it has (no attempt: the restart's number says which),
/// so that a step read from a peer never grows when it is written again.
fn restart_step(step: &SignalKind) -> Value {
    match step {
        SignalKind::Offer(sdp) => json!({"type": "offer", "sdp": sdp}),
        SignalKind::Answer(sdp) => json!({"type": "answer", "sdp": sdp}),
        SignalKind::Ice {
            candidate,
            sdp_mid,
            sdp_m_line_index,
        } => {
            let mut v = json!({"type": "ice", "candidate": candidate});
            if let Some(mid) = sdp_mid {
                v["sdpMid"] = json!(mid);
            }
            if let Some(index) = sdp_m_line_index {
                v["sdpMLineIndex"] = json!(index);
            }
            v
        }
    }
}

/// An ICE restart message's optional `link`: a room code.
fn optional_link(m: &Map<String, Value>) -> Result<Option<RoomCode>, MessageError> {
    match m.get("link") {
        None => Ok(None),
        Some(_) => Ok(Some(
            RoomCode::parse(string(m, "link")?).ok_or(MessageError::BadValue)?,
        )),
    }
}

/// A match id: exactly 16 hexadecimal digits.
fn match_id(m: &Map<String, Value>) -> Result<u64, MessageError> {
    let t = string(m, "match")?;
    (t.len() == 16 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| u64::from_str_radix(t, 16).ok())
        .flatten()
        .ok_or(MessageError::BadValue)
}

/// An ICE restart message's optional vouch: `match` and `proof` together,
/// or neither.
fn optional_vouch(m: &Map<String, Value>) -> Result<Option<Vouch>, MessageError> {
    match (m.contains_key("match"), m.contains_key("proof")) {
        (false, false) => Ok(None),
        (true, true) => Ok(Some(Vouch {
            match_id: match_id(m)?,
            proof: Proof::parse(string(m, "proof")?).ok_or(MessageError::BadValue)?,
        })),
        _ => Err(MessageError::Malformed),
    }
}

fn put_vouch(v: &mut Value, vouch: Option<&Vouch>) {
    if let Some(w) = vouch {
        v["match"] = json!(format!("{:016x}", w.match_id));
        v["proof"] = json!(w.proof.hex());
    }
}

/// A challenge's or party invitation's optional `game`.
fn optional_game(m: &Map<String, Value>) -> Result<Option<GameName>, MessageError> {
    match m.get("game") {
        None => Ok(None),
        Some(_) => Ok(Some(
            GameName::parse(string(m, "game")?).ok_or(MessageError::BadValue)?,
        )),
    }
}

/// A whole number in `range`: anything but a whole number that is not
/// negative is malformed, one out of range a bad value.
fn count(v: Option<&Value>, range: std::ops::RangeInclusive<u8>) -> Result<u8, MessageError> {
    let n = v.and_then(Value::as_u64).ok_or(MessageError::Malformed)?;
    u8::try_from(n)
        .ok()
        .filter(|n| range.contains(n))
        .ok_or(MessageError::BadValue)
}

/// The fields of `party-start`, checked against each other.
fn party_start(m: &Map<String, Value>) -> Result<PeerMsg, MessageError> {
    let room = RoomCode::parse(string(m, "room")?).ok_or(MessageError::BadValue)?;
    let Some(Value::Array(list)) = m.get("sides") else {
        return Err(MessageError::Malformed);
    };
    let people = usize::from(PARTY_MAX_PEOPLE);
    if !(2..=people).contains(&list.len()) {
        return Err(MessageError::BadValue);
    }
    let sides = list
        .iter()
        .map(|v| count(Some(v), 0..=PARTY_MAX_PEOPLE - 1))
        .collect::<Result<Vec<u8>, _>>()?;
    // `sides` holds 2 to 8 entries, so its length less one fits a byte.
    let last = u8::try_from(sides.len() - 1).unwrap_or(0);
    let place = count(m.get("place"), 1..=last)?;
    Ok(PeerMsg::PartyStart { room, place, sides })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::RoomCode;

    #[test]
    fn peer_messages_round_trip() {
        let room = RoomCode::parse("K7M2QX").unwrap();
        for msg in [
            PeerMsg::Chat("שלום <b>".into()),
            PeerMsg::Challenge {
                room: room.clone(),
                game: None,
            },
            PeerMsg::Challenge {
                room,
                game: GameName::parse("Dots"),
            },
            PeerMsg::Accept,
            PeerMsg::Decline(DeclineReason::Busy),
            PeerMsg::Decline(DeclineReason::Mutual),
            PeerMsg::Decline(DeclineReason::UnknownGame),
            PeerMsg::Cancel,
            PeerMsg::Invited(InviteCode::parse("aB3dE5fG7hJ9").unwrap()),
            PeerMsg::InviteRefused(InviteRefusal::Unknown),
            PeerMsg::InviteRefused(InviteRefusal::Expired),
            PeerMsg::InviteRefused(InviteRefusal::Busy),
            PeerMsg::Rejoin {
                match_id: u64::MAX - 1,
            },
            PeerMsg::Rejoin { match_id: 0 },
            PeerMsg::RejoinRoom(RoomCode::parse("K7M2QX").unwrap()),
            PeerMsg::RejoinGone,
            PeerMsg::RejoinElsewhere(PeerId::parse("aB3dE5fG7hJ9").unwrap()),
            PeerMsg::IceRestart {
                n: 1,
                step: SignalKind::Offer("v=0 restart".into()),
                link: None,
                vouch: None,
            },
            PeerMsg::IceRestart {
                n: 255,
                step: SignalKind::Answer("v=0".into()),
                link: Some(RoomCode::parse("K7M2QX").unwrap()),
                vouch: Some(Vouch {
                    match_id: 0x0123_4567_89ab_cdef,
                    proof: Proof([0xa5; 32]),
                }),
            },
            PeerMsg::IceRestart {
                n: 3,
                step: SignalKind::Ice {
                    candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host".into(),
                    sdp_mid: Some("0".into()),
                    sdp_m_line_index: Some(0),
                },
                link: None,
                vouch: None,
            },
            PeerMsg::IceRestartAsk {
                after: 0,
                link: None,
                vouch: Some(Vouch {
                    match_id: u64::MAX,
                    proof: Proof([0; 32]),
                }),
            },
            PeerMsg::IceRestartAsk {
                after: 255,
                link: Some(RoomCode::parse("K7M2QX").unwrap()),
                vouch: None,
            },
            PeerMsg::IceRestartCheck {
                match_id: 7,
                check: Proof([0xff; 32]),
            },
            PeerMsg::Watch,
            PeerMsg::WatchRoom {
                room: RoomCode::parse("K7M2QX").unwrap(),
                game: None,
            },
            PeerMsg::WatchRoom {
                room: RoomCode::parse("K7M2QX").unwrap(),
                game: GameName::parse("Dots"),
            },
            PeerMsg::WatchGone,
            PeerMsg::PartyInvite {
                game: None,
                people: 4,
            },
            PeerMsg::PartyInvite {
                game: GameName::parse("NtBA"),
                people: 3,
            },
            PeerMsg::PartyAccept,
            PeerMsg::PartyDecline(DeclineReason::Declined),
            PeerMsg::PartyDecline(DeclineReason::Busy),
            PeerMsg::PartyCancel,
            PeerMsg::PartyStart {
                room: RoomCode::parse("K7M2QX").unwrap(),
                place: 2,
                sides: vec![0, 1, 1, 0],
            },
            PeerMsg::PartyStart {
                room: RoomCode::parse("K7M2QX").unwrap(),
                place: 1,
                sides: vec![0, 1],
            },
        ] {
            assert_eq!(PeerMsg::parse(&msg.encode()).unwrap(), msg);
        }
        assert_eq!(
            PeerMsg::PartyStart {
                room: RoomCode::parse("K7M2QX").unwrap(),
                place: 1,
                sides: vec![0, 1, 0],
            }
            .encode(),
            r#"{"place":1,"room":"K7M2QX","sides":[0,1,0],"type":"party-start"}"#
        );
        assert_eq!(
            PeerMsg::Invited(InviteCode::parse("aB3dE5fG7hJ9").unwrap()).encode(),
            r#"{"code":"aB3dE5fG7hJ9","type":"invited"}"#
        );
        assert_eq!(PeerMsg::Accept.encode(), r#"{"type":"accept"}"#);
        // An ICE restart's step is written with only the fields it has: one
        // read with an attempt and empty fields is never longer written
        // again (a message at the size cap stays within it).
        let raw = r#"{"type":"ice-restart","n":2,"step":{"type":"ice","attempt":2,"candidate":"c","sdpMid":null,"sdpMLineIndex":null}}"#;
        let msg = PeerMsg::parse(raw).unwrap();
        assert_eq!(
            msg.encode(),
            r#"{"n":2,"step":{"candidate":"c","type":"ice"},"type":"ice-restart"}"#
        );
        assert_eq!(PeerMsg::parse(&msg.encode()).unwrap(), msg);
        assert_eq!(
            PeerMsg::IceRestartAsk {
                after: 2,
                link: RoomCode::parse("K7M2QX"),
                vouch: None,
            }
            .encode(),
            r#"{"after":2,"link":"K7M2QX","type":"ice-restart-ask"}"#
        );
        // A vouch is its match and its proof together: one without the
        // other, a short or non-hex proof, or a bad match id refuses the
        // whole message; a check is exactly its two fields.
        let proof = "ab".repeat(32);
        let ok = format!(
            r#"{{"type":"ice-restart-ask","after":1,"match":"00000000000000ff","proof":"{proof}"}}"#
        );
        assert!(matches!(
            PeerMsg::parse(&ok),
            Ok(PeerMsg::IceRestartAsk {
                vouch: Some(Vouch { match_id: 255, .. }),
                ..
            })
        ));
        for bad in [
            r#"{"type":"ice-restart-ask","after":1,"match":"00000000000000ff"}"#.to_owned(),
            format!(r#"{{"type":"ice-restart-ask","after":1,"proof":"{proof}"}}"#),
            format!(r#"{{"type":"ice-restart-ask","after":1,"match":"ff","proof":"{proof}"}}"#),
            r#"{"type":"ice-restart-ask","after":1,"match":"00000000000000ff","proof":"abcd"}"#
                .to_owned(),
            format!(
                r#"{{"type":"ice-restart-ask","after":1,"match":"00000000000000ff","proof":"{}"}}"#,
                "zz".repeat(32)
            ),
            format!(
                r#"{{"type":"ice-restart-check","match":"00000000000000ff","check":"{proof}","link":"K7M2QX"}}"#
            ),
            r#"{"type":"ice-restart-check","match":"00000000000000ff"}"#.to_owned(),
        ] {
            assert!(PeerMsg::parse(&bad).is_err(), "{bad}");
        }
        // No log shows a proof.
        assert_eq!(format!("{:?}", Proof([1; 32])), "Proof(..)");
        // A challenge from a page that names no game keeps today's shape.
        assert_eq!(
            PeerMsg::parse(r#"{"type":"challenge","room":"K7M2QX"}"#).unwrap(),
            PeerMsg::Challenge {
                room: RoomCode::parse("K7M2QX").unwrap(),
                game: None
            }
        );
    }

    #[test]
    fn malformed_peer_messages_are_refused() {
        use MessageError::*;
        let cases = [
            ("", Malformed),
            ("null", Malformed),
            ("[1,2]", Malformed),
            (r#"{"type":"chat"}"#, Malformed),
            (r#"{"type":"chat","text":5}"#, Malformed),
            (r#"{"type":"chat","text":"hi","extra":1}"#, Malformed),
            (r#"{"type":"shout","text":"hi"}"#, Malformed),
            (r#"{"type":"accept","x":1}"#, Malformed),
            (r#"{"type":"decline","reason":"bored"}"#, Malformed),
            (r#"{"type":"challenge","room":"../../"}"#, BadValue),
            (r#"{"type":"chat","text":"\u202e"}"#, BadValue),
            (r#"{"type":"invited"}"#, Malformed),
            (r#"{"type":"invited","code":"aB3dE5fG7hJ"}"#, BadValue),
            (r#"{"type":"invited","code":"aB3dE5fG7hJ9x"}"#, BadValue),
            (r#"{"type":"invited","code":"aB3dE5fG7h-9"}"#, BadValue),
            (r#"{"type":"invited","code":12}"#, Malformed),
            (
                r#"{"type":"invited","code":"aB3dE5fG7hJ9","to":"x"}"#,
                Malformed,
            ),
            (r#"{"type":"invite-refused","reason":"nope"}"#, Malformed),
            (r#"{"type":"rejoin"}"#, Malformed),
            (r#"{"type":"rejoin","match":12}"#, Malformed),
            (r#"{"type":"rejoin","match":"00ff"}"#, BadValue),
            (r#"{"type":"rejoin","match":"+0000000000000ff"}"#, BadValue),
            (r#"{"type":"rejoin","match":"000000000000000g"}"#, BadValue),
            (r#"{"type":"rejoin-room","room":"../../"}"#, BadValue),
            (r#"{"type":"rejoin-gone","room":"K7M2QX"}"#, Malformed),
            (r#"{"type":"rejoin-elsewhere"}"#, Malformed),
            (r#"{"type":"rejoin-elsewhere","ask":"short"}"#, BadValue),
            (
                r#"{"type":"rejoin-elsewhere","ask":"aB3dE5fG7h-9"}"#,
                BadValue,
            ),
            (r#"{"type":"ice-restart","n":1}"#, Malformed),
            (
                r#"{"type":"ice-restart","n":0,"step":{"type":"answer","sdp":"v=0"}}"#,
                BadValue,
            ),
            (
                r#"{"type":"ice-restart","n":256,"step":{"type":"answer","sdp":"v=0"}}"#,
                BadValue,
            ),
            (
                r#"{"type":"ice-restart","n":1,"step":{"type":"hello","sdp":"v=0"}}"#,
                Malformed,
            ),
            (
                r#"{"type":"ice-restart","n":1,"step":{"type":"answer"}}"#,
                Malformed,
            ),
            (
                r#"{"type":"ice-restart","n":1,"step":{"type":"answer","sdp":"v=0"},"link":"../../"}"#,
                BadValue,
            ),
            (
                r#"{"type":"ice-restart","n":1,"step":{"type":"answer","sdp":"v=0"},"link":7}"#,
                Malformed,
            ),
            (r#"{"type":"ice-restart-ask"}"#, Malformed),
            (r#"{"type":"ice-restart-ask","after":"1"}"#, Malformed),
            (r#"{"type":"ice-restart-ask","after":-1}"#, Malformed),
            (r#"{"type":"ice-restart-ask","after":1.5}"#, Malformed),
            (r#"{"type":"ice-restart-ask","after":256}"#, BadValue),
            (r#"{"type":"ice-restart-ask","after":1,"n":1}"#, Malformed),
            (
                r#"{"type":"ice-restart-ask","after":1,"link":"../../"}"#,
                BadValue,
            ),
            (
                r#"{"type":"ice-restart-ask","after":1,"link":null}"#,
                Malformed,
            ),
            (
                r#"{"type":"ice-restart-ask","after":1,"step":{"type":"offer","sdp":"x"}}"#,
                Malformed,
            ),
            (r#"{"type":"watch","room":"K7M2QX"}"#, Malformed),
            (r#"{"type":"watch-room"}"#, Malformed),
            (r#"{"type":"watch-room","room":"../../"}"#, BadValue),
            (
                r#"{"type":"watch-room","room":"K7M2QX","game":7}"#,
                Malformed,
            ),
            (
                r#"{"type":"watch-room","room":"K7M2QX","game":"Dots\n"}"#,
                BadValue,
            ),
            (r#"{"type":"watch-gone","x":1}"#, Malformed),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":5}"#,
                Malformed,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":null}"#,
                Malformed,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":""}"#,
                BadValue,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":" Dots"}"#,
                BadValue,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":"Dots "}"#,
                BadValue,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":"Dots\n"}"#,
                BadValue,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":"Dõts"}"#,
                BadValue,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":"Dots-and-more-dots-and-mo"}"#,
                BadValue,
            ),
            (
                r#"{"type":"challenge","room":"K7M2QX","game":"Dots","x":1}"#,
                Malformed,
            ),
            (r#"{"type":"party-invite"}"#, Malformed),
            (r#"{"type":"party-invite","people":"4"}"#, Malformed),
            (r#"{"type":"party-invite","people":4.5}"#, Malformed),
            (r#"{"type":"party-invite","people":-1}"#, Malformed),
            (r#"{"type":"party-invite","people":2}"#, BadValue),
            (r#"{"type":"party-invite","people":9}"#, BadValue),
            (r#"{"type":"party-invite","people":300}"#, BadValue),
            (r#"{"type":"party-invite","people":4,"game":""}"#, BadValue),
            (
                r#"{"type":"party-invite","people":4,"room":"K7M2QX"}"#,
                Malformed,
            ),
            (r#"{"type":"party-accept","x":1}"#, Malformed),
            (r#"{"type":"party-decline","reason":"bored"}"#, Malformed),
            (r#"{"type":"party-decline"}"#, Malformed),
            (r#"{"type":"party-cancel","reason":"x"}"#, Malformed),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":1}"#,
                Malformed,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":1,"sides":"HA"}"#,
                Malformed,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":1,"sides":[0]}"#,
                BadValue,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":1,"sides":[0,1,0,1,0,1,0,1,0]}"#,
                BadValue,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":1,"sides":[0,8]}"#,
                BadValue,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":1,"sides":[0,"1"]}"#,
                Malformed,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":0,"sides":[0,1]}"#,
                BadValue,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":2,"sides":[0,1]}"#,
                BadValue,
            ),
            (
                r#"{"type":"party-start","room":"../","place":1,"sides":[0,1]}"#,
                BadValue,
            ),
            (
                r#"{"type":"party-start","room":"K7M2QX","place":1,"sides":[0,1],"x":0}"#,
                Malformed,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(PeerMsg::parse(text), Err(want), "{text}");
        }
    }

    #[test]
    fn oversized_peer_messages_are_refused() {
        let long = PeerMsg::Chat("a".repeat(501)).encode();
        assert_eq!(PeerMsg::parse(&long), Err(MessageError::TooLarge));
        let huge = format!(r#"{{"type":"chat","text":"{}"}}"#, "a".repeat(5000));
        assert_eq!(PeerMsg::parse(&huge), Err(MessageError::TooLarge));
        let ok = PeerMsg::Chat("ש".repeat(500)).encode();
        assert!(PeerMsg::parse(&ok).is_ok());
    }

    #[test]
    fn an_invite_code_never_shows_in_debug_output() {
        let code = InviteCode::parse("aB3dE5fG7hJ9").unwrap();
        let shown = format!("{:?}", PeerMsg::Invited(code));
        assert!(!shown.contains("aB3dE5fG7hJ9"), "{shown}");
        let drawn = InviteCode::generate(|| 7);
        assert_eq!(drawn.as_str().len(), 12);
        assert!(InviteCode::parse(drawn.as_str()).is_some());
    }

    #[test]
    fn received_chat_is_cleaned() {
        let text = r#"{"type":"chat","text":"a\u202Eb\u0007c"}"#;
        assert_eq!(PeerMsg::parse(text).unwrap(), PeerMsg::Chat("abc".into()));
    }
}
