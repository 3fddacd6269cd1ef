//! The party rules as a pure reducer, beside the one-on-one challenge of
//! [`crate::challenge`]: an event goes in, the new state and a list of
//! effects for the page come out.
//!
//! A party is a challenge to several players at once, for a game that takes
//! more than two people (the game says how many through
//! [`PartyRules`]). The challenger picks two or more others, up to the
//! game's maximum less one, and a side (team) for each and for itself; the
//! page sends each a `party-invite`. Each invited player has 30 s to
//! answer, as for a challenge. Once every invitation is answered (accepted,
//! declined, lapsed, or its player gone), the party starts with whoever
//! accepted: the challenger's page creates a member room for that many
//! players and sends each of them `party-start` with the room, their place
//! and every place's side. Places nobody took are the game's CPU. If nobody
//! accepted, the party is called off.
//!
//! The rules around it follow the challenge's:
//! - An invited player who is busy (in a match, in a party that starts, or
//!   busy with a challenge, which the caller says) declines at once
//!   (`busy`), and so does one who has muted the challenger (`muted`;
//!   muting a challenger whose invitation waits declines it then). A page
//!   that lacks the game, or whose game takes fewer people than the party
//!   holds, declines with `unknown-game`.
//! - A player may hold several invitations; accepting one declines the
//!   others (`busy`), so two parties racing for one player get one answer
//!   each. While the player waits for the start, later invitations are
//!   declined as busy.
//! - Two players who invite each other at once: each drops the other from
//!   its party (`mutual`) and both are told. Inviting a player whose
//!   invitation to us waits for an answer is refused: answer it first.
//! - A player who leaves the lobby before the start gives up their place
//!   (a CPU takes it); after the start the room no longer needs the lobby.
//!   A challenger who leaves before the start ends the wait of those who
//!   accepted.
//! - After the start, every accepted player has 30 s to connect; the
//!   challenger calls the party off when the match has not connected by
//!   then, and so does each member on its side.
//!
//! Places: the challenger holds place 0, the players who accepted follow in
//! the order they were invited. The sides arranged before the invitations
//! hold for the places that were filled; when declines leave a side with
//! nobody while another has more than one, the last person on the fullest
//! side moves over (so two people who came are always on opposite teams of a
//! two-team game).

use crate::id::{PeerId, RoomCode};
use crate::protocol::{DeclineReason, GameName, PeerMsg, PlayerStatus};
use lockstep::Millis;

#[cfg(test)]
mod tests;

/// What a game allows in a party, said by its front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartyRules {
    /// The most people in one match, the challenger included (2 means the
    /// game takes no parties).
    pub max_people: u8,
    /// How many sides (teams) the people split into; 0 when the game has
    /// no sides to arrange.
    pub sides: u8,
    /// The most people on one side.
    pub per_side: u8,
    /// The match lengths the challenger may pick from, the default first
    /// (their labels, as the party panel shows them); empty when the game
    /// has one length. The choice reaches the match through
    /// [`FrontEnd::party_seed`](crate::front_end::FrontEnd::party_seed).
    pub lengths: &'static [&'static str],
}

impl PartyRules {
    /// A game for two people, without parties.
    pub const PAIR: PartyRules = PartyRules {
        max_people: 2,
        sides: 0,
        per_side: 1,
        lengths: &[],
    };

    /// `true` if the game takes parties at all (three people or more).
    #[must_use]
    pub fn allows_parties(&self) -> bool {
        self.max_people >= 3
    }

    /// `true` if `sides` (one per person) is an arrangement this game
    /// takes: every side below [`PartyRules::sides`] and at most
    /// [`PartyRules::per_side`] people on each (a game without sides takes
    /// only side 0 for everyone).
    #[must_use]
    pub fn takes(&self, sides: &[u8]) -> bool {
        if self.sides == 0 {
            return sides.iter().all(|s| *s == 0);
        }
        (0..self.sides)
            .all(|side| sides.iter().filter(|s| **s == side).count() <= usize::from(self.per_side))
            && sides.iter().all(|s| *s < self.sides)
    }
}

/// One game this page carries, with its party rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartyGame {
    /// Its name, as a challenge or invitation names it.
    pub name: &'static str,
    /// What it allows.
    pub rules: PartyRules,
}

/// The party timers and games, shortened in tests through configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartyConfig {
    /// How long an invited player has to answer (30 s).
    pub answer_timeout: Millis,
    /// How long the match has to connect after the start (30 s).
    pub connect_timeout: Millis,
    /// The games this page carries. An invitation naming no game means the
    /// first; one naming a game not listed is declined.
    pub games: &'static [PartyGame],
}

impl Default for PartyConfig {
    fn default() -> Self {
        PartyConfig {
            answer_timeout: Millis(30_000),
            connect_timeout: Millis(30_000),
            games: &[],
        }
    }
}

impl PartyConfig {
    /// The rules of the game an invitation names (`None`: the first game),
    /// or `None` when this page does not carry it.
    #[must_use]
    pub fn rules(&self, game: Option<&GameName>) -> Option<PartyRules> {
        match game {
            None => self.games.first(),
            Some(name) => self.games.iter().find(|g| g.name == name.as_str()),
        }
        .map(|g| g.rules)
    }
}

/// Where an invited player's answer stands, on the challenger's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// No answer yet; the invitation lapses at `deadline`.
    Waiting {
        /// When it lapses.
        deadline: Millis,
    },
    /// They accepted and wait for the start.
    Accepted,
    /// They declined (or their page did, for this reason).
    Declined(DeclineReason),
    /// They did not answer in time.
    NoAnswer,
    /// They left the lobby before the start.
    Left,
}

/// A player we invited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invitee {
    /// The player.
    pub id: PeerId,
    /// The side we arranged for them.
    pub side: u8,
    /// Their answer.
    pub answer: Answer,
}

/// Where our own party stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPhase {
    /// Invitations are out; some wait for an answer.
    Inviting,
    /// Everyone answered; `POST /rooms?players=N` is under way.
    CreatingRoom,
    /// The start went out; the match must connect by `deadline`.
    Starting {
        /// The member room.
        room: RoomCode,
        /// Every place's side, place 0 ours.
        sides: Vec<u8>,
        /// The connect deadline.
        deadline: Millis,
    },
}

/// Our party.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hosting {
    /// The game named, if any.
    pub game: Option<GameName>,
    /// What the game allows.
    pub rules: PartyRules,
    /// Our own side.
    pub side: u8,
    /// The players invited, in the order of their places.
    pub invitees: Vec<Invitee>,
    /// How far it got.
    pub phase: HostPhase,
}

impl Hosting {
    /// The players who accepted and have not left, in place order.
    pub fn accepted(&self) -> impl Iterator<Item = &Invitee> {
        self.invitees
            .iter()
            .filter(|i| i.answer == Answer::Accepted)
    }

    /// `true` once no invitation waits for an answer.
    #[must_use]
    pub fn all_answered(&self) -> bool {
        !self
            .invitees
            .iter()
            .any(|i| matches!(i.answer, Answer::Waiting { .. }))
    }

    /// The sides of the places filled: ours, then each accepted player's,
    /// evened out as the module explains.
    #[must_use]
    pub fn final_sides(&self) -> Vec<u8> {
        let mut sides: Vec<u8> = std::iter::once(self.side)
            .chain(self.accepted().map(|i| i.side))
            .collect();
        even_out(&mut sides, self.rules.sides);
        sides
    }
}

/// Moves people from the fullest side to an empty one until no side is
/// empty while another holds two or more.
fn even_out(sides: &mut [u8], count: u8) {
    if count < 2 {
        return;
    }
    loop {
        let on = |side: u8| sides.iter().filter(|s| **s == side).count();
        let Some(empty) = (0..count).find(|s| on(*s) == 0) else {
            return;
        };
        let Some(fullest) = (0..count).filter(|s| on(*s) >= 2).max_by_key(|s| on(*s)) else {
            return;
        };
        // The last person of the fullest side moves (never place 0 while
        // another is on that side, since place 0 comes first).
        if let Some(last) = sides.iter().rposition(|s| *s == fullest) {
            sides[last] = empty;
        }
    }
}

/// An invitation we received and have not answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invitation {
    /// The challenger.
    pub from: PeerId,
    /// The game it names, if any (one this page carries).
    pub game: Option<GameName>,
    /// How many people the party would hold.
    pub people: u8,
    /// When it lapses.
    pub deadline: Millis,
}

/// Where our place in someone's party stands, once we accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberPhase {
    /// Waiting for `party-start`: the others may still be answering.
    Waiting {
        /// When we give up waiting.
        deadline: Millis,
    },
    /// The start came; we are connecting to the room.
    Joining {
        /// The member room.
        room: RoomCode,
        /// Our place.
        place: u8,
        /// Every place's side.
        sides: Vec<u8>,
        /// When we give up connecting.
        deadline: Millis,
    },
}

/// Our place in someone's party.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The challenger.
    pub host: PeerId,
    /// The game its invitation named, if any.
    pub game: Option<GameName>,
    /// How far it got.
    pub phase: MemberPhase,
}

/// Everything the reducer remembers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartyState {
    /// Our party, if any.
    pub hosting: Option<Hosting>,
    /// Invitations waiting for our answer, oldest first.
    pub incoming: Vec<Invitation>,
    /// Our place in someone's party, once we accepted.
    pub member: Option<Member>,
    /// `true` while we play a party's match.
    pub in_match: bool,
}

/// A player picked for a party.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// The player.
    pub id: PeerId,
    /// The side arranged for them.
    pub side: u8,
    /// They are in a match now.
    pub in_match: bool,
}

/// Something that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// We pressed Invite with these players picked.
    Invite {
        /// The players and their sides, in the order of their places.
        picks: Vec<Pick>,
        /// Our own side.
        side: u8,
        /// The game to name (the one picked on a page of several games).
        game: Option<GameName>,
        /// We are busy with a one-on-one challenge (ours, or one we
        /// accepted).
        busy: bool,
    },
    /// `POST /rooms?players=N` answered with a code (and the host socket
    /// is opening).
    RoomCreated(RoomCode),
    /// `POST /rooms` or the host socket failed.
    RoomFailed,
    /// We pressed Cancel on our party.
    Cancel,
    /// We pressed Accept on `from`'s invitation.
    Accept {
        /// The challenger.
        from: PeerId,
        /// We are busy with a one-on-one challenge.
        busy: bool,
    },
    /// We pressed Decline on `from`'s invitation.
    Decline(PeerId),
    /// A party message from a peer (any other message is ignored).
    Peer {
        /// The sender.
        from: PeerId,
        /// The message.
        msg: PeerMsg,
        /// We have muted the sender.
        muted: bool,
        /// We are busy with a one-on-one challenge.
        busy: bool,
    },
    /// A player left the lobby (or its mesh link closed).
    PlayerLeft(PeerId),
    /// We muted this player.
    Muted(PeerId),
    /// Our own presence connection dropped; sent before the links close.
    LobbyLost,
    /// The party's match connected (every link open).
    MatchConnected,
    /// Setting up the party's match failed.
    MatchFailed,
    /// The match is over; back to the lobby.
    MatchEnded,
    /// We watch someone's match as a spectator (our link to it is open):
    /// busy as in a match of our own, until [`Event::MatchEnded`]. Ignored
    /// unless we are free (no party of ours, not in a match).
    Watching,
    /// Everyone of the party that just played pressed Play again: its
    /// next match starts over the same connections. Busy again as in
    /// [`Event::Watching`].
    Rematch,
    /// Time passed.
    Tick,
}

/// The room and places of a party that starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineup {
    /// The game the party plays, as its invitation named it (`None`: the
    /// page's first).
    pub game: Option<GameName>,
    /// The member room.
    pub room: RoomCode,
    /// Our place (0 for the challenger).
    pub place: u8,
    /// Every place's side.
    pub sides: Vec<u8>,
}

/// Something for the page to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// `POST /rooms?players=N`, then open the room socket as its host.
    CreateRoom {
        /// Players the room holds, us included.
        players: u8,
    },
    /// Close our member room.
    CloseRoom,
    /// Play the party's match: the challenger's page (place 0) goes on in
    /// the room it hosts; a member's page opens the room socket as a
    /// player.
    Play(Lineup),
    /// Leave the room we were joining.
    LeaveRoom,
    /// Send a party message to a peer over the mesh.
    Send(PeerId, PeerMsg),
    /// Tell the lobby our status.
    SetStatus(PlayerStatus),
    /// Show a message.
    Notice(Notice),
    /// An invitation waits for our answer.
    Ring,
}

/// Messages shown to the player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The game picked takes two people only.
    NoParties,
    /// A party needs two to this many others.
    PartySize(u8),
    /// The sides picked put too many on one side.
    Arrangement,
    /// The same player was picked twice.
    Twice(PeerId),
    /// That player is in a match.
    TargetInMatch(PeerId),
    /// That player invited us first; answer them.
    AnswerFirst(PeerId),
    /// We are busy (a challenge, a party, a match).
    Busy,
    /// A party holds us, so we cannot challenge anyone now.
    InParty,
    /// An invited player declined.
    Declined(PeerId),
    /// An invited player is busy.
    TheyAreBusy(PeerId),
    /// An invited player has muted us.
    NotTaking(PeerId),
    /// An invited player's page lacks the game (or takes fewer people).
    TheyLackGame(PeerId),
    /// We and this player invited each other at once.
    Mutual(PeerId),
    /// An invited player did not answer in time.
    NoAnswer(PeerId),
    /// A player of the party left the lobby before the start.
    Left(PeerId),
    /// Nobody accepted: the party is called off.
    NobodyCame,
    /// The challenger withdrew the invitation or called the party off.
    Withdrawn(PeerId),
    /// An invitation to a game this page lacks (declined at once).
    WeLackGame(PeerId),
    /// Our lobby connection dropped before the start.
    LobbyLost,
    /// The match did not connect in time.
    DidNotConnect,
    /// The room could not be made or the connection failed.
    ConnectFailed,
}

impl Notice {
    /// The player the notice is about, if any.
    #[must_use]
    pub fn player(&self) -> Option<&PeerId> {
        match self {
            Notice::Twice(p)
            | Notice::TargetInMatch(p)
            | Notice::AnswerFirst(p)
            | Notice::Declined(p)
            | Notice::TheyAreBusy(p)
            | Notice::NotTaking(p)
            | Notice::TheyLackGame(p)
            | Notice::Mutual(p)
            | Notice::NoAnswer(p)
            | Notice::Left(p)
            | Notice::Withdrawn(p)
            | Notice::WeLackGame(p) => Some(p),
            Notice::NoParties
            | Notice::PartySize(_)
            | Notice::Arrangement
            | Notice::Busy
            | Notice::InParty
            | Notice::NobodyCame
            | Notice::LobbyLost
            | Notice::DidNotConnect
            | Notice::ConnectFailed => None,
        }
    }

    /// The English text, with `name` the display name of the player concerned.
    #[must_use]
    pub fn text(&self, name: impl Fn(&PeerId) -> String) -> String {
        match self {
            Notice::NoParties => "This game is for two: challenge one player.".to_owned(),
            Notice::PartySize(n) => format!("Pick two to {n} players for a party."),
            Notice::Arrangement => "Too many people on one team.".to_owned(),
            Notice::Twice(p) => format!("{} is picked twice.", name(p)),
            Notice::TargetInMatch(p) => format!("{} is in a match.", name(p)),
            Notice::AnswerFirst(p) => format!("{} invited you first: answer them.", name(p)),
            Notice::Busy => "Finish your challenge first.".to_owned(),
            Notice::InParty => "You are in a party: challenge once it is over.".to_owned(),
            Notice::Declined(p) => format!("{} declined; a CPU takes the place.", name(p)),
            Notice::TheyAreBusy(p) => format!("{} is busy; a CPU takes the place.", name(p)),
            Notice::NotTaking(p) => format!("{} is not taking invitations from you.", name(p)),
            Notice::TheyLackGame(p) => {
                format!(
                    "{}'s page cannot play this party; a CPU takes the place.",
                    name(p)
                )
            }
            Notice::Mutual(p) => format!(
                "You and {} invited each other at once, so neither invitation counts.",
                name(p)
            ),
            Notice::NoAnswer(p) => format!("{} didn't answer; a CPU takes the place.", name(p)),
            Notice::Left(p) => format!("{} left the lobby.", name(p)),
            Notice::NobodyCame => "Nobody accepted, so the party is called off.".to_owned(),
            Notice::Withdrawn(p) => format!("{} called the party off.", name(p)),
            Notice::WeLackGame(p) => {
                format!("{} invited you to a party this page cannot play.", name(p))
            }
            Notice::LobbyLost => {
                "Lost the lobby connection, so the party was called off.".to_owned()
            }
            Notice::DidNotConnect => "Not everyone connected - try again.".to_owned(),
            Notice::ConnectFailed => {
                "Couldn't connect to the party - try again, or try a different network.".to_owned()
            }
        }
    }
}

impl PartyState {
    /// `true` while a party keeps us from answering a challenge: ours has
    /// everyone's answers, we accepted one, or we play its match. (While
    /// our invitations wait for answers, challenges to us may still wait
    /// for ours.)
    #[must_use]
    pub fn busy(&self) -> bool {
        self.in_match
            || self.member.is_some()
            || matches!(&self.hosting, Some(h) if h.phase != HostPhase::Inviting)
    }

    /// `true` if we can open a party now.
    #[must_use]
    pub fn can_invite(&self) -> bool {
        self.hosting.is_none() && self.member.is_none() && !self.in_match
    }

    /// `true` while Accept on an invitation is disabled.
    #[must_use]
    pub fn accept_disabled(&self) -> bool {
        !self.can_invite()
    }

    /// The waiting invitation from `from`, if any.
    #[must_use]
    pub fn incoming_from(&self, from: &PeerId) -> Option<&Invitation> {
        self.incoming.iter().find(|i| &i.from == from)
    }

    /// The earliest deadline, for the page's timer.
    #[must_use]
    pub fn next_deadline(&self) -> Option<Millis> {
        let hosting = self.hosting.as_ref().and_then(|h| match &h.phase {
            HostPhase::Inviting => h
                .invitees
                .iter()
                .filter_map(|i| match i.answer {
                    Answer::Waiting { deadline } => Some(deadline),
                    _ => None,
                })
                .min(),
            HostPhase::CreatingRoom => None,
            HostPhase::Starting { deadline, .. } => Some(*deadline),
        });
        let incoming = self.incoming.iter().map(|i| i.deadline).min();
        let member = self.member.as_ref().map(|m| match &m.phase {
            MemberPhase::Waiting { deadline } | MemberPhase::Joining { deadline, .. } => *deadline,
        });
        [hosting, incoming, member].into_iter().flatten().min()
    }

    /// Applies `event` at `now`, returning the effects in order.
    pub fn reduce(&mut self, event: Event, now: Millis, cfg: &PartyConfig) -> Vec<Effect> {
        let mut fx = Vec::new();
        match event {
            Event::Invite {
                picks,
                side,
                game,
                busy,
            } => self.invite(picks, side, game, busy, now, cfg, &mut fx),
            Event::RoomCreated(room) => self.room_created(room, now, cfg, &mut fx),
            Event::RoomFailed => {
                if matches!(&self.hosting, Some(h) if h.phase != HostPhase::Inviting) {
                    self.call_off(Notice::ConnectFailed, &mut fx);
                }
            }
            Event::MatchFailed => {
                // Only a party that started has a match to fail (a failed
                // one-on-one match leaves invitations alone).
                if matches!(&self.hosting, Some(h) if matches!(h.phase, HostPhase::Starting { .. }))
                {
                    self.call_off(Notice::ConnectFailed, &mut fx);
                }
                if matches!(
                    &self.member,
                    Some(Member {
                        phase: MemberPhase::Joining { .. },
                        ..
                    })
                ) {
                    self.member = None;
                    fx.push(Effect::LeaveRoom);
                    fx.push(Effect::Notice(Notice::ConnectFailed));
                }
            }
            Event::Cancel => {
                if let Some(h) = self.hosting.take() {
                    cancel_all(&h, &mut fx);
                    if h.phase != HostPhase::Inviting {
                        fx.push(Effect::CloseRoom);
                    }
                }
            }
            Event::Accept { from, busy } => self.accept(from, busy, now, cfg, &mut fx),
            Event::Decline(from) => {
                if let Some(i) = self.incoming.iter().position(|c| c.from == from) {
                    self.incoming.remove(i);
                    fx.push(Effect::Send(
                        from,
                        PeerMsg::PartyDecline(DeclineReason::Declined),
                    ));
                }
            }
            Event::Peer {
                from,
                msg,
                muted,
                busy,
            } => self.peer(from, msg, muted, busy, now, cfg, &mut fx),
            Event::PlayerLeft(id) => self.player_left(&id, &mut fx),
            Event::Muted(id) => {
                if let Some(i) = self.incoming.iter().position(|c| c.from == id) {
                    self.incoming.remove(i);
                    fx.push(Effect::Send(
                        id,
                        PeerMsg::PartyDecline(DeclineReason::Muted),
                    ));
                }
            }
            Event::LobbyLost => {
                // Invitations to us lapse quietly: their senders see us go.
                self.incoming.clear();
                if matches!(&self.hosting, Some(h) if !matches!(h.phase, HostPhase::Starting { .. }))
                {
                    self.call_off(Notice::LobbyLost, &mut fx);
                }
                if matches!(
                    &self.member,
                    Some(Member {
                        phase: MemberPhase::Waiting { .. },
                        ..
                    })
                ) {
                    if let Some(m) = self.member.take() {
                        fx.push(Effect::Send(
                            m.host,
                            PeerMsg::PartyDecline(DeclineReason::Busy),
                        ));
                        fx.push(Effect::Notice(Notice::LobbyLost));
                    }
                }
                // A party that started carries on: its room does not need
                // the lobby.
            }
            Event::MatchConnected => {
                let started = matches!(
                    &self.hosting,
                    Some(Hosting {
                        phase: HostPhase::Starting { .. },
                        ..
                    })
                ) || matches!(
                    &self.member,
                    Some(Member {
                        phase: MemberPhase::Joining { .. },
                        ..
                    })
                );
                if started {
                    self.hosting = None;
                    self.member = None;
                    self.in_match = true;
                    fx.push(Effect::SetStatus(PlayerStatus::InMatch));
                    for c in std::mem::take(&mut self.incoming) {
                        fx.push(Effect::Send(
                            c.from,
                            PeerMsg::PartyDecline(DeclineReason::Busy),
                        ));
                    }
                }
            }
            Event::Watching | Event::Rematch => {
                if self.can_invite() {
                    self.in_match = true;
                    fx.push(Effect::SetStatus(PlayerStatus::InMatch));
                    for c in std::mem::take(&mut self.incoming) {
                        fx.push(Effect::Send(
                            c.from,
                            PeerMsg::PartyDecline(DeclineReason::Busy),
                        ));
                    }
                }
            }
            Event::MatchEnded => {
                if self.in_match {
                    self.in_match = false;
                    fx.push(Effect::SetStatus(PlayerStatus::Lobby));
                }
            }
            Event::Tick => self.tick(now, &mut fx),
        }
        fx
    }

    #[allow(clippy::too_many_arguments)]
    fn invite(
        &mut self,
        picks: Vec<Pick>,
        side: u8,
        game: Option<GameName>,
        busy: bool,
        now: Millis,
        cfg: &PartyConfig,
        fx: &mut Vec<Effect>,
    ) {
        if !self.can_invite() || busy {
            fx.push(Effect::Notice(Notice::Busy));
            return;
        }
        let Some(rules) = cfg.rules(game.as_ref()).filter(PartyRules::allows_parties) else {
            fx.push(Effect::Notice(Notice::NoParties));
            return;
        };
        let most = rules.max_people - 1;
        if picks.len() < 2 || picks.len() > usize::from(most) {
            fx.push(Effect::Notice(Notice::PartySize(most)));
            return;
        }
        for (n, pick) in picks.iter().enumerate() {
            if picks[..n].iter().any(|p| p.id == pick.id) {
                fx.push(Effect::Notice(Notice::Twice(pick.id.clone())));
                return;
            }
            if pick.in_match {
                fx.push(Effect::Notice(Notice::TargetInMatch(pick.id.clone())));
                return;
            }
            if self.incoming_from(&pick.id).is_some() {
                fx.push(Effect::Notice(Notice::AnswerFirst(pick.id.clone())));
                return;
            }
        }
        let sides: Vec<u8> = std::iter::once(side)
            .chain(picks.iter().map(|p| p.side))
            .collect();
        if !rules.takes(&sides) {
            fx.push(Effect::Notice(Notice::Arrangement));
            return;
        }
        // `picks` holds at most seven, so the count fits a byte.
        let people = u8::try_from(picks.len() + 1).unwrap_or(u8::MAX);
        let deadline = now + cfg.answer_timeout;
        for pick in &picks {
            fx.push(Effect::Send(
                pick.id.clone(),
                PeerMsg::PartyInvite {
                    game: game.clone(),
                    people,
                },
            ));
        }
        self.hosting = Some(Hosting {
            game,
            rules,
            side,
            invitees: picks
                .into_iter()
                .map(|p| Invitee {
                    id: p.id,
                    side: p.side,
                    answer: Answer::Waiting { deadline },
                })
                .collect(),
            phase: HostPhase::Inviting,
        });
    }

    /// Once every invitation is answered: the room, or the call-off.
    fn settle(&mut self, fx: &mut Vec<Effect>) {
        let Some(h) = &mut self.hosting else {
            return;
        };
        if h.phase != HostPhase::Inviting || !h.all_answered() {
            return;
        }
        let came = h.accepted().count();
        if came == 0 {
            self.hosting = None;
            fx.push(Effect::Notice(Notice::NobodyCame));
            return;
        }
        h.phase = HostPhase::CreatingRoom;
        // At most seven accepted, so the count fits a byte.
        let players = u8::try_from(came + 1).unwrap_or(u8::MAX);
        fx.push(Effect::CreateRoom { players });
    }

    fn room_created(
        &mut self,
        room: RoomCode,
        now: Millis,
        cfg: &PartyConfig,
        fx: &mut Vec<Effect>,
    ) {
        let Some(h) = self
            .hosting
            .as_mut()
            .filter(|h| h.phase == HostPhase::CreatingRoom)
        else {
            // Called off while the room was being made: close it again.
            fx.push(Effect::CloseRoom);
            return;
        };
        let sides = h.final_sides();
        for (place, who) in (1u8..).zip(h.accepted()) {
            fx.push(Effect::Send(
                who.id.clone(),
                PeerMsg::PartyStart {
                    room: room.clone(),
                    place,
                    sides: sides.clone(),
                },
            ));
        }
        fx.push(Effect::Play(Lineup {
            game: h.game.clone(),
            room: room.clone(),
            place: 0,
            sides: sides.clone(),
        }));
        h.phase = HostPhase::Starting {
            room,
            sides,
            deadline: now + cfg.connect_timeout,
        };
    }

    /// Ends our party with `notice`, withdrawing every invitation and
    /// closing the room if one was asked for.
    fn call_off(&mut self, notice: Notice, fx: &mut Vec<Effect>) {
        if let Some(h) = self.hosting.take() {
            cancel_all(&h, fx);
            if h.phase != HostPhase::Inviting {
                fx.push(Effect::CloseRoom);
            }
            fx.push(Effect::Notice(notice));
        }
    }

    fn accept(
        &mut self,
        from: PeerId,
        busy: bool,
        now: Millis,
        cfg: &PartyConfig,
        fx: &mut Vec<Effect>,
    ) {
        if self.accept_disabled() || busy {
            return;
        }
        let Some(i) = self.incoming.iter().position(|c| c.from == from) else {
            return;
        };
        let game = self.incoming.remove(i).game;
        fx.push(Effect::Send(from.clone(), PeerMsg::PartyAccept));
        for other in std::mem::take(&mut self.incoming) {
            fx.push(Effect::Send(
                other.from,
                PeerMsg::PartyDecline(DeclineReason::Busy),
            ));
        }
        // The others may take the whole answer time; then the room.
        self.member = Some(Member {
            host: from,
            game,
            phase: MemberPhase::Waiting {
                deadline: now + cfg.answer_timeout + cfg.connect_timeout,
            },
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn peer(
        &mut self,
        from: PeerId,
        msg: PeerMsg,
        muted: bool,
        busy: bool,
        now: Millis,
        cfg: &PartyConfig,
        fx: &mut Vec<Effect>,
    ) {
        match msg {
            PeerMsg::PartyInvite { game, people } => {
                self.invited(from, game, people, muted, busy, now, cfg, fx);
            }
            PeerMsg::PartyAccept => {
                let counted = self.hosting.as_ref().is_some_and(|h| {
                    h.invitees
                        .iter()
                        .any(|i| i.id == from && i.answer == Answer::Accepted)
                });
                if let Some(i) = self.waiting_invitee(&from) {
                    i.answer = Answer::Accepted;
                    self.settle(fx);
                } else if !counted {
                    // A late answer (the invitation lapsed, or the party
                    // is over): tell them, so that they stop waiting.
                    fx.push(Effect::Send(from, PeerMsg::PartyCancel));
                }
            }
            PeerMsg::PartyDecline(reason) => self.declined(&from, reason, fx),
            PeerMsg::PartyCancel => {
                if let Some(i) = self.incoming.iter().position(|c| c.from == from) {
                    self.incoming.remove(i);
                    fx.push(Effect::Notice(Notice::Withdrawn(from)));
                } else if matches!(&self.member, Some(m) if m.host == from) {
                    if let Some(m) = self.member.take() {
                        if matches!(m.phase, MemberPhase::Joining { .. }) {
                            fx.push(Effect::LeaveRoom);
                        }
                    }
                    fx.push(Effect::Notice(Notice::Withdrawn(from)));
                }
            }
            PeerMsg::PartyStart { room, place, sides } => {
                let game = match &self.member {
                    Some(Member {
                        host,
                        game,
                        phase: MemberPhase::Waiting { .. },
                    }) if *host == from => game.clone(),
                    _ => {
                        log::debug!("party: a start we did not wait for; dropped");
                        return;
                    }
                };
                fx.push(Effect::Play(Lineup {
                    game: game.clone(),
                    room: room.clone(),
                    place,
                    sides: sides.clone(),
                }));
                self.member = Some(Member {
                    host: from,
                    game,
                    phase: MemberPhase::Joining {
                        room,
                        place,
                        sides,
                        deadline: now + cfg.connect_timeout,
                    },
                });
            }
            // Chat, challenges and invite links are other reducers', and
            // coming back into a match the shell's.
            PeerMsg::Chat(_)
            | PeerMsg::Challenge { .. }
            | PeerMsg::Accept
            | PeerMsg::Decline(_)
            | PeerMsg::Cancel
            | PeerMsg::Invited(_)
            | PeerMsg::InviteRefused(_)
            | PeerMsg::Rejoin { .. }
            | PeerMsg::RejoinRoom(_)
            | PeerMsg::RejoinGone
            | PeerMsg::RejoinElsewhere(_)
            | PeerMsg::IceRestart { .. }
            | PeerMsg::IceRestartAsk { .. }
            | PeerMsg::IceRestartCheck { .. }
            | PeerMsg::Watch
            | PeerMsg::WatchRoom { .. }
            | PeerMsg::WatchGone => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn invited(
        &mut self,
        from: PeerId,
        game: Option<GameName>,
        people: u8,
        muted: bool,
        busy: bool,
        now: Millis,
        cfg: &PartyConfig,
        fx: &mut Vec<Effect>,
    ) {
        let fits = cfg
            .rules(game.as_ref())
            .is_some_and(|r| r.max_people >= people);
        let ours = self
            .hosting
            .as_ref()
            .filter(|h| h.phase == HostPhase::Inviting);
        let crossed = ours.is_some_and(|h| {
            h.invitees
                .iter()
                .any(|i| i.id == from && matches!(i.answer, Answer::Waiting { .. }))
        });
        if muted {
            fx.push(Effect::Send(
                from,
                PeerMsg::PartyDecline(DeclineReason::Muted),
            ));
        } else if !fits {
            fx.push(Effect::Send(
                from.clone(),
                PeerMsg::PartyDecline(DeclineReason::UnknownGame),
            ));
            fx.push(Effect::Notice(Notice::WeLackGame(from)));
        } else if busy || self.busy() {
            fx.push(Effect::Send(
                from,
                PeerMsg::PartyDecline(DeclineReason::Busy),
            ));
        } else if crossed {
            // Our invitation to them crossed theirs to us: neither counts.
            if let Some(i) = self.waiting_invitee(&from) {
                i.answer = Answer::Declined(DeclineReason::Mutual);
            }
            fx.push(Effect::Send(from.clone(), PeerMsg::PartyCancel));
            fx.push(Effect::Send(
                from.clone(),
                PeerMsg::PartyDecline(DeclineReason::Mutual),
            ));
            fx.push(Effect::Notice(Notice::Mutual(from)));
            self.settle(fx);
        } else {
            self.incoming.retain(|c| c.from != from);
            self.incoming.push(Invitation {
                from,
                game,
                people,
                deadline: now + cfg.answer_timeout,
            });
            fx.push(Effect::Ring);
        }
    }

    fn declined(&mut self, from: &PeerId, reason: DeclineReason, fx: &mut Vec<Effect>) {
        let Some(h) = self.hosting.as_mut() else {
            return;
        };
        let Some(i) = h.invitees.iter_mut().find(|i| &i.id == from) else {
            return;
        };
        match (i.answer, &h.phase) {
            (Answer::Waiting { .. }, HostPhase::Inviting) => {
                i.answer = Answer::Declined(reason);
                fx.push(Effect::Notice(match reason {
                    DeclineReason::Declined => Notice::Declined(from.clone()),
                    DeclineReason::Busy => Notice::TheyAreBusy(from.clone()),
                    DeclineReason::Muted => Notice::NotTaking(from.clone()),
                    DeclineReason::Mutual => Notice::Mutual(from.clone()),
                    DeclineReason::UnknownGame => Notice::TheyLackGame(from.clone()),
                }));
                self.settle(fx);
            }
            // One who accepted and then gave up before the start (their
            // lobby connection dropped): the place goes to a CPU.
            (Answer::Accepted, HostPhase::Inviting | HostPhase::CreatingRoom) => {
                i.answer = Answer::Left;
                fx.push(Effect::Notice(Notice::Left(from.clone())));
                self.after_a_loss(fx);
            }
            _ => {}
        }
    }

    /// After an accepted player dropped out before the start: with nobody
    /// left, the party is called off (the room closed if one was asked
    /// for); otherwise it goes on.
    fn after_a_loss(&mut self, fx: &mut Vec<Effect>) {
        let Some(h) = &self.hosting else {
            return;
        };
        if h.phase == HostPhase::CreatingRoom && h.accepted().count() == 0 {
            self.hosting = None;
            fx.push(Effect::CloseRoom);
            fx.push(Effect::Notice(Notice::NobodyCame));
        } else {
            self.settle(fx);
        }
    }

    fn waiting_invitee(&mut self, id: &PeerId) -> Option<&mut Invitee> {
        self.hosting
            .as_mut()
            .filter(|h| h.phase == HostPhase::Inviting)?
            .invitees
            .iter_mut()
            .find(|i| &i.id == id && matches!(i.answer, Answer::Waiting { .. }))
    }

    fn player_left(&mut self, id: &PeerId, fx: &mut Vec<Effect>) {
        self.incoming.retain(|c| &c.from != id);
        if let Some(h) = &mut self.hosting {
            let before_start = h.phase == HostPhase::Inviting || h.phase == HostPhase::CreatingRoom;
            if let Some(i) = h.invitees.iter_mut().find(|i| &i.id == id) {
                let counted = matches!(i.answer, Answer::Waiting { .. } | Answer::Accepted);
                if before_start && counted {
                    i.answer = Answer::Left;
                    fx.push(Effect::Notice(Notice::Left(id.clone())));
                    self.after_a_loss(fx);
                }
            }
        }
        let host_gone_early = matches!(
            &self.member,
            Some(Member { host, phase: MemberPhase::Waiting { .. }, .. }) if host == id
        );
        if host_gone_early {
            self.member = None;
            fx.push(Effect::Notice(Notice::Left(id.clone())));
        }
    }

    fn tick(&mut self, now: Millis, fx: &mut Vec<Effect>) {
        // Invitations to us lapse quietly: the challenger's copy lapses too.
        self.incoming.retain(|c| c.deadline > now);
        let mut lapsed = Vec::new();
        if let Some(h) = &mut self.hosting {
            if h.phase == HostPhase::Inviting {
                for i in &mut h.invitees {
                    if matches!(i.answer, Answer::Waiting { deadline } if deadline <= now) {
                        i.answer = Answer::NoAnswer;
                        lapsed.push(i.id.clone());
                    }
                }
            }
        }
        for id in lapsed {
            fx.push(Effect::Send(id.clone(), PeerMsg::PartyCancel));
            fx.push(Effect::Notice(Notice::NoAnswer(id)));
        }
        self.settle(fx);
        let late = matches!(
            &self.hosting,
            Some(Hosting { phase: HostPhase::Starting { deadline, .. }, .. }) if *deadline <= now
        );
        if late {
            self.call_off(Notice::DidNotConnect, fx);
        }
        let member_late = matches!(
            &self.member,
            Some(Member { phase: MemberPhase::Waiting { deadline } | MemberPhase::Joining { deadline, .. }, .. })
                if *deadline <= now
        );
        if member_late {
            if let Some(m) = self.member.take() {
                match m.phase {
                    MemberPhase::Joining { .. } => fx.push(Effect::LeaveRoom),
                    // The start never came: tell the challenger, whose page
                    // gives the place to a CPU if it has not started yet.
                    MemberPhase::Waiting { .. } => fx.push(Effect::Send(
                        m.host,
                        PeerMsg::PartyDecline(DeclineReason::Busy),
                    )),
                }
                fx.push(Effect::Notice(Notice::ConnectFailed));
            }
        }
    }
}

/// Withdraws every invitation of `h` still open or accepted.
fn cancel_all(h: &Hosting, fx: &mut Vec<Effect>) {
    for i in &h.invitees {
        if matches!(i.answer, Answer::Waiting { .. } | Answer::Accepted) {
            fx.push(Effect::Send(i.id.clone(), PeerMsg::PartyCancel));
        }
    }
}
