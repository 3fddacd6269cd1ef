//! The challenge rules as a pure reducer: an event goes in, the new state
//! and a list of effects for the page come out.
//!
//! One outgoing challenge at a time. The challenger creates a room, hosts it
//! and sends `challenge { room }` to the target, who has 30 s to answer.
//! After an accept, the challenger waits at most another 30 s for the target
//! to connect to the room ("They didn't connect - try again."). Decline,
//! timeout, cancel or either side leaving the lobby cancels a challenge that
//! has not been accepted; a brief lobby drop of the target after the accept
//! does not. Two players who challenge each other at once both get
//! cancelled, with a message. A busy player (in a match, joining a room, or
//! hosting one whose accepted guest is connecting) declines challenges
//! automatically, and so does one who has muted the challenger (muting a
//! player whose challenge waits for an answer declines it at once). Accept
//! is disabled while hosting or joining a room. When our own lobby
//! connection drops, an unanswered challenge of ours is cancelled with its
//! own message.
//!
//! A challenge may name its game (a page that carries several games, the
//! arcade's hub, always names the one picked on its title). A challenge
//! naming a game the receiving page does not carry is declined at once
//! (`unknown-game`), and both players are told which game was missing; one
//! naming no game (from a page of a single game) means the receiving
//! page's first game.

use crate::id::{PeerId, RoomCode};
use crate::protocol::{DeclineReason, GameName, PeerMsg, PlayerStatus};
use lockstep::Millis;

/// The two timers, shortened in tests through configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChallengeConfig {
    /// How long the target has to answer (30 s).
    pub answer_timeout: Millis,
    /// How long the challenger waits for an accepted target to connect (30 s).
    pub connect_timeout: Millis,
    /// The names of the games this page carries, when it carries several;
    /// empty for a page of one game, which takes only challenges that name
    /// no game.
    pub games: &'static [&'static str],
}

impl Default for ChallengeConfig {
    fn default() -> Self {
        ChallengeConfig {
            answer_timeout: Millis(30_000),
            connect_timeout: Millis(30_000),
            games: &[],
        }
    }
}

/// Where our own challenge stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutgoingPhase {
    /// `POST /rooms` is under way.
    CreatingRoom,
    /// The challenge was sent; the target must answer by `deadline`.
    Waiting {
        /// Our hosted room.
        room: RoomCode,
        /// The answer deadline.
        deadline: Millis,
    },
    /// Accepted; the target must connect to the room by `deadline`.
    Accepted {
        /// Our hosted room.
        room: RoomCode,
        /// The connect deadline.
        deadline: Millis,
    },
}

/// Our challenge to another player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// Whom we challenged.
    pub target: PeerId,
    /// The game we named, if any.
    pub game: Option<GameName>,
    /// How far it got.
    pub phase: OutgoingPhase,
}

/// A challenge we received and have not answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// The challenger.
    pub from: PeerId,
    /// The challenger's room.
    pub room: RoomCode,
    /// The game it names, if any (one this page carries).
    pub game: Option<GameName>,
    /// When it lapses.
    pub deadline: Millis,
}

/// We accepted a challenge and are joining the challenger's room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joining {
    /// The challenger (the room's host).
    pub host: PeerId,
    /// The room.
    pub room: RoomCode,
    /// When we give up connecting.
    pub deadline: Millis,
}

/// Everything the reducer remembers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChallengeState {
    /// Our challenge, if any.
    pub outgoing: Option<Outgoing>,
    /// Challenges waiting for our answer, oldest first.
    pub incoming: Vec<Incoming>,
    /// The room we are joining as guest, if any.
    pub joining: Option<Joining>,
    /// `true` while we play a match.
    pub in_match: bool,
}

/// Something that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// We pressed Challenge next to `target`.
    Challenge {
        /// The player.
        target: PeerId,
        /// The target is in a match.
        target_in_match: bool,
        /// The game to name (the one picked on a page of several games).
        game: Option<GameName>,
    },
    /// `POST /rooms` answered with a code (and the host socket is opening).
    RoomCreated(RoomCode),
    /// `POST /rooms` or the host socket failed.
    RoomFailed,
    /// We pressed Cancel on our challenge.
    Cancel,
    /// We pressed Accept on `from`'s challenge.
    Accept(PeerId),
    /// We pressed Decline on `from`'s challenge.
    Decline(PeerId),
    /// A challenge message from a peer.
    Peer {
        /// The sender.
        from: PeerId,
        /// The message (chat is not a challenge message and is ignored).
        msg: PeerMsg,
        /// We have muted the sender.
        muted: bool,
    },
    /// A player left the lobby (or its mesh link closed).
    PlayerLeft(PeerId),
    /// We muted `0`: a challenge of theirs that waits for our answer is
    /// declined at once.
    Muted(PeerId),
    /// Our own presence connection dropped (every mesh link goes with it).
    /// Sent before the links are closed, so a cancel still reaches the
    /// target.
    LobbyLost,
    /// The match data channels opened (as host or guest).
    MatchConnected,
    /// This page, reloaded, is back in the match it played before (a new
    /// link to its host opened): in a match again, unless it is busy with
    /// a challenge meanwhile.
    MatchResumed,
    /// Setting up the match connection failed.
    MatchFailed,
    /// The match is over; back to the lobby.
    MatchEnded,
    /// Time passed.
    Tick,
}

/// Something for the page to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// `POST /rooms`, then open the room socket as host.
    CreateRoom,
    /// Close our hosted room (and its socket and peer connection).
    CloseRoom,
    /// Open the room socket of `room` as guest.
    JoinRoom(RoomCode),
    /// Leave the room we were joining.
    LeaveRoom,
    /// Send a challenge message to a peer over the mesh.
    Send(PeerId, PeerMsg),
    /// Tell the lobby our status.
    SetStatus(PlayerStatus),
    /// Show a message. Player names are filled in by the page from the id.
    Notice(Notice),
    /// A challenge waits for our answer: ring, so that a player looking
    /// elsewhere notices it.
    Ring,
}

/// Messages shown to the player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The target declined.
    Declined(PeerId),
    /// The target is busy in a match.
    Busy(PeerId),
    /// The target has muted us.
    NotTaking(PeerId),
    /// Both of us challenged each other at once.
    Mutual(PeerId),
    /// The target did not answer in time.
    NoAnswer(PeerId),
    /// The accepted target did not connect in time.
    DidNotConnect,
    /// The other player left the lobby.
    Left(PeerId),
    /// Our own lobby connection dropped while our challenge to this player
    /// waited for an answer.
    LobbyLost(PeerId),
    /// The challenger withdrew.
    Withdrawn(PeerId),
    /// The room could not be created or the connection failed.
    ConnectFailed,
    /// Only one challenge at a time.
    AlreadyChallenging,
    /// That player is in a match.
    TargetInMatch(PeerId),
    /// The target's page does not carry the game we named.
    TheyLackGame(PeerId, GameName),
    /// The player challenged us to a game this page does not carry (the
    /// challenge was declined at once).
    WeLackGame(PeerId, GameName),
}

impl Notice {
    /// The player the notice is about, if any.
    #[must_use]
    pub fn player(&self) -> Option<&PeerId> {
        match self {
            Notice::Declined(p)
            | Notice::Busy(p)
            | Notice::NotTaking(p)
            | Notice::Mutual(p)
            | Notice::NoAnswer(p)
            | Notice::Left(p)
            | Notice::LobbyLost(p)
            | Notice::Withdrawn(p)
            | Notice::TargetInMatch(p)
            | Notice::TheyLackGame(p, _)
            | Notice::WeLackGame(p, _) => Some(p),
            Notice::DidNotConnect | Notice::ConnectFailed | Notice::AlreadyChallenging => None,
        }
    }

    /// The English text, with `name` the display name of the player concerned.
    #[must_use]
    pub fn text(&self, name: impl Fn(&PeerId) -> String) -> String {
        match self {
            Notice::Declined(p) => format!("{} declined your challenge.", name(p)),
            Notice::Busy(p) => format!("{} is busy in a match.", name(p)),
            Notice::NotTaking(p) => format!("{} is not taking challenges from you.", name(p)),
            Notice::Mutual(p) => format!("You and {} challenged each other at once, so both challenges were cancelled. Try again.", name(p)),
            Notice::NoAnswer(p) => format!("{} didn't answer.", name(p)),
            Notice::DidNotConnect => "They didn't connect - try again.".to_owned(),
            Notice::Left(p) => format!("{} left the lobby.", name(p)),
            Notice::LobbyLost(p) => format!("Lost the lobby connection, so your challenge to {} was cancelled.", name(p)),
            Notice::Withdrawn(p) => format!("{} withdrew the challenge.", name(p)),
            Notice::ConnectFailed => "Couldn't connect directly - try again, or try a different network.".to_owned(),
            Notice::AlreadyChallenging => "You already have a challenge open.".to_owned(),
            Notice::TargetInMatch(p) => format!("{} is in a match.", name(p)),
            Notice::TheyLackGame(p, game) => format!(
                "{}'s page does not have {}, so the challenge was cancelled.",
                name(p),
                game.as_str()
            ),
            Notice::WeLackGame(p, game) => format!(
                "{} challenged you to {}, which this page does not have.",
                name(p),
                game.as_str()
            ),
        }
    }
}

impl ChallengeState {
    /// `true` while we host a room (our challenge has a room) or join one:
    /// the Accept buttons are disabled.
    #[must_use]
    pub fn accept_disabled(&self) -> bool {
        self.outgoing.is_some() || self.joining.is_some() || self.in_match
    }

    /// The pending challenge from `from`, if any.
    #[must_use]
    pub fn incoming_from(&self, from: &PeerId) -> Option<&Incoming> {
        self.incoming.iter().find(|c| &c.from == from)
    }

    /// `true` if we can press Challenge at all (no challenge of ours open,
    /// not joining, not in a match).
    #[must_use]
    pub fn can_challenge(&self) -> bool {
        self.outgoing.is_none() && self.joining.is_none() && !self.in_match
    }

    /// The earliest deadline, for the page's timer.
    #[must_use]
    pub fn next_deadline(&self) -> Option<Millis> {
        let out = self.outgoing.as_ref().and_then(|o| match o.phase {
            OutgoingPhase::CreatingRoom => None,
            OutgoingPhase::Waiting { deadline, .. } | OutgoingPhase::Accepted { deadline, .. } => {
                Some(deadline)
            }
        });
        let inc = self.incoming.iter().map(|c| c.deadline).min();
        let join = self.joining.as_ref().map(|j| j.deadline);
        [out, inc, join].into_iter().flatten().min()
    }

    /// Applies `event` at `now`, returning the effects in order.
    pub fn reduce(&mut self, event: Event, now: Millis, cfg: &ChallengeConfig) -> Vec<Effect> {
        let mut fx = Vec::new();
        match event {
            Event::Challenge {
                target,
                target_in_match,
                game,
            } => self.challenge(target, target_in_match, game, &mut fx),
            Event::RoomCreated(room) => match &mut self.outgoing {
                Some(Outgoing {
                    target,
                    game,
                    phase: phase @ OutgoingPhase::CreatingRoom,
                }) => {
                    fx.push(Effect::Send(
                        target.clone(),
                        PeerMsg::Challenge {
                            room: room.clone(),
                            game: game.clone(),
                        },
                    ));
                    *phase = OutgoingPhase::Waiting {
                        room,
                        deadline: now + cfg.answer_timeout,
                    };
                }
                // Cancelled while the room was being made: close it again.
                _ => fx.push(Effect::CloseRoom),
            },
            Event::RoomFailed => {
                if let Some(out) = self.outgoing.take() {
                    if matches!(
                        out.phase,
                        OutgoingPhase::Waiting { .. } | OutgoingPhase::Accepted { .. }
                    ) {
                        fx.push(Effect::Send(out.target, PeerMsg::Cancel));
                    }
                    fx.push(Effect::CloseRoom);
                    fx.push(Effect::Notice(Notice::ConnectFailed));
                }
            }
            Event::Cancel => {
                if let Some(out) = self.outgoing.take() {
                    if !matches!(out.phase, OutgoingPhase::CreatingRoom) {
                        fx.push(Effect::Send(out.target, PeerMsg::Cancel));
                    }
                    fx.push(Effect::CloseRoom);
                }
            }
            Event::Accept(from) => self.accept(from, now, cfg, &mut fx),
            Event::Decline(from) => {
                if let Some(i) = self.incoming.iter().position(|c| c.from == from) {
                    self.incoming.remove(i);
                    fx.push(Effect::Send(
                        from,
                        PeerMsg::Decline(DeclineReason::Declined),
                    ));
                }
            }
            Event::Peer { from, msg, muted } => self.peer(from, msg, muted, now, cfg, &mut fx),
            Event::PlayerLeft(id) => {
                self.incoming.retain(|c| c.from != id);
                let unaccepted = matches!(
                    &self.outgoing,
                    Some(o) if o.target == id && !matches!(o.phase, OutgoingPhase::Accepted { .. })
                );
                if unaccepted {
                    self.outgoing = None;
                    fx.push(Effect::CloseRoom);
                    fx.push(Effect::Notice(Notice::Left(id)));
                }
                // An accepted challenge, or a room we are joining, carries
                // on: the room connection does not need the lobby.
            }
            Event::Muted(id) => {
                if let Some(i) = self.incoming.iter().position(|c| c.from == id) {
                    self.incoming.remove(i);
                    fx.push(Effect::Send(id, PeerMsg::Decline(DeclineReason::Muted)));
                }
            }
            Event::LobbyLost => {
                // Challenges to us lapse quietly: their senders see us leave.
                self.incoming.clear();
                let unaccepted = matches!(
                    &self.outgoing,
                    Some(o) if !matches!(o.phase, OutgoingPhase::Accepted { .. })
                );
                if unaccepted {
                    if let Some(out) = self.outgoing.take() {
                        if !matches!(out.phase, OutgoingPhase::CreatingRoom) {
                            fx.push(Effect::Send(out.target.clone(), PeerMsg::Cancel));
                        }
                        fx.push(Effect::CloseRoom);
                        fx.push(Effect::Notice(Notice::LobbyLost(out.target)));
                    }
                }
                // As for a player leaving: an accepted challenge or a room
                // we are joining carries on without the lobby.
            }
            Event::MatchConnected => {
                if self.outgoing.take().is_some() || self.joining.take().is_some() {
                    self.in_match = true;
                    fx.push(Effect::SetStatus(PlayerStatus::InMatch));
                    for c in std::mem::take(&mut self.incoming) {
                        fx.push(Effect::Send(c.from, PeerMsg::Decline(DeclineReason::Busy)));
                    }
                }
            }
            Event::MatchResumed => {
                if self.outgoing.is_none() && self.joining.is_none() && !self.in_match {
                    self.in_match = true;
                    fx.push(Effect::SetStatus(PlayerStatus::InMatch));
                    for c in std::mem::take(&mut self.incoming) {
                        fx.push(Effect::Send(c.from, PeerMsg::Decline(DeclineReason::Busy)));
                    }
                }
            }
            Event::MatchFailed => {
                if let Some(out) = self.outgoing.take() {
                    fx.push(Effect::Send(out.target, PeerMsg::Cancel));
                    fx.push(Effect::CloseRoom);
                    fx.push(Effect::Notice(Notice::ConnectFailed));
                }
                if self.joining.take().is_some() {
                    fx.push(Effect::LeaveRoom);
                    fx.push(Effect::Notice(Notice::ConnectFailed));
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

    fn challenge(
        &mut self,
        target: PeerId,
        target_in_match: bool,
        game: Option<GameName>,
        fx: &mut Vec<Effect>,
    ) {
        if self.in_match || self.joining.is_some() {
            return;
        }
        if self.outgoing.is_some() {
            fx.push(Effect::Notice(Notice::AlreadyChallenging));
            return;
        }
        if target_in_match {
            fx.push(Effect::Notice(Notice::TargetInMatch(target)));
            return;
        }
        if let Some(i) = self.incoming.iter().position(|c| c.from == target) {
            // They challenged us and we challenge them: a mutual challenge.
            self.incoming.remove(i);
            fx.push(Effect::Send(
                target.clone(),
                PeerMsg::Decline(DeclineReason::Mutual),
            ));
            fx.push(Effect::Notice(Notice::Mutual(target)));
            return;
        }
        self.outgoing = Some(Outgoing {
            target,
            game,
            phase: OutgoingPhase::CreatingRoom,
        });
        fx.push(Effect::CreateRoom);
    }

    fn accept(&mut self, from: PeerId, now: Millis, cfg: &ChallengeConfig, fx: &mut Vec<Effect>) {
        if self.accept_disabled() {
            return;
        }
        let Some(i) = self.incoming.iter().position(|c| c.from == from) else {
            return;
        };
        let chosen = self.incoming.remove(i);
        fx.push(Effect::Send(from.clone(), PeerMsg::Accept));
        fx.push(Effect::JoinRoom(chosen.room.clone()));
        for other in std::mem::take(&mut self.incoming) {
            fx.push(Effect::Send(
                other.from,
                PeerMsg::Decline(DeclineReason::Busy),
            ));
        }
        self.joining = Some(Joining {
            host: from,
            room: chosen.room,
            deadline: now + cfg.connect_timeout,
        });
    }

    fn peer(
        &mut self,
        from: PeerId,
        msg: PeerMsg,
        muted: bool,
        now: Millis,
        cfg: &ChallengeConfig,
        fx: &mut Vec<Effect>,
    ) {
        match msg {
            // Chat, and the arrival by an invite link, are the lobby
            // client's: an arrival it honours comes back as our Challenge.
            // Parties are the party reducer's (`crate::party`); coming back
            // into a match is the shell's (it knows the match).
            PeerMsg::Chat(_)
            | PeerMsg::Invited(_)
            | PeerMsg::InviteRefused(_)
            | PeerMsg::PartyInvite { .. }
            | PeerMsg::PartyAccept
            | PeerMsg::PartyDecline(_)
            | PeerMsg::PartyCancel
            | PeerMsg::PartyStart { .. }
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
            PeerMsg::Challenge { room, game } => {
                let unknown = game
                    .as_ref()
                    .filter(|g| !cfg.games.contains(&g.as_str()))
                    .cloned();
                // Busy: in a match, joining a room, or hosting one whose
                // guest has accepted and is connecting.
                let busy = self.in_match
                    || self.joining.is_some()
                    || matches!(
                        &self.outgoing,
                        Some(Outgoing {
                            phase: OutgoingPhase::Accepted { .. },
                            ..
                        })
                    );
                if muted {
                    fx.push(Effect::Send(from, PeerMsg::Decline(DeclineReason::Muted)));
                } else if let Some(game) = unknown {
                    fx.push(Effect::Send(
                        from.clone(),
                        PeerMsg::Decline(DeclineReason::UnknownGame),
                    ));
                    fx.push(Effect::Notice(Notice::WeLackGame(from, game)));
                } else if busy {
                    fx.push(Effect::Send(from, PeerMsg::Decline(DeclineReason::Busy)));
                } else if matches!(&self.outgoing, Some(o) if o.target == from && !matches!(o.phase, OutgoingPhase::Accepted { .. }))
                {
                    // Our challenge to them crossed theirs to us.
                    let had_room = !matches!(
                        self.outgoing.as_ref().map(|o| &o.phase),
                        Some(OutgoingPhase::CreatingRoom)
                    );
                    self.outgoing = None;
                    if had_room {
                        fx.push(Effect::Send(from.clone(), PeerMsg::Cancel));
                    }
                    fx.push(Effect::CloseRoom);
                    fx.push(Effect::Send(
                        from.clone(),
                        PeerMsg::Decline(DeclineReason::Mutual),
                    ));
                    fx.push(Effect::Notice(Notice::Mutual(from)));
                } else {
                    self.incoming.retain(|c| c.from != from);
                    self.incoming.push(Incoming {
                        from,
                        room,
                        game,
                        deadline: now + cfg.answer_timeout,
                    });
                    fx.push(Effect::Ring);
                }
            }
            PeerMsg::Accept => {
                if let Some(Outgoing { target, phase, .. }) = &mut self.outgoing {
                    if *target == from {
                        if let OutgoingPhase::Waiting { room, .. } = phase {
                            *phase = OutgoingPhase::Accepted {
                                room: room.clone(),
                                deadline: now + cfg.connect_timeout,
                            };
                        }
                    }
                }
            }
            PeerMsg::Decline(reason) => {
                if matches!(&self.outgoing, Some(o) if o.target == from && !matches!(o.phase, OutgoingPhase::Accepted { .. }))
                {
                    let named = self.outgoing.take().and_then(|o| o.game);
                    fx.push(Effect::CloseRoom);
                    fx.push(Effect::Notice(match (reason, named) {
                        (DeclineReason::Declined, _) => Notice::Declined(from),
                        (DeclineReason::Busy, _) => Notice::Busy(from),
                        (DeclineReason::Muted, _) => Notice::NotTaking(from),
                        (DeclineReason::Mutual, _) => Notice::Mutual(from),
                        (DeclineReason::UnknownGame, Some(game)) => {
                            Notice::TheyLackGame(from, game)
                        }
                        // We named no game: their page lacks ours under any
                        // name, which only a page of another kind says.
                        (DeclineReason::UnknownGame, None) => Notice::Declined(from),
                    }));
                }
            }
            PeerMsg::Cancel => {
                let before = self.incoming.len();
                self.incoming.retain(|c| c.from != from);
                if self.incoming.len() != before {
                    fx.push(Effect::Notice(Notice::Withdrawn(from.clone())));
                }
                if matches!(&self.joining, Some(j) if j.host == from) {
                    // After an accept the challenger only cancels when the
                    // connection could not be made (its link failed or its
                    // 30 s ran out), so say that rather than "withdrew".
                    self.joining = None;
                    fx.push(Effect::LeaveRoom);
                    fx.push(Effect::Notice(Notice::ConnectFailed));
                }
            }
        }
    }

    fn tick(&mut self, now: Millis, fx: &mut Vec<Effect>) {
        if let Some(out) = &self.outgoing {
            match out.phase {
                OutgoingPhase::Waiting { deadline, .. } if now >= deadline => {
                    let target = out.target.clone();
                    self.outgoing = None;
                    fx.push(Effect::Send(target.clone(), PeerMsg::Cancel));
                    fx.push(Effect::CloseRoom);
                    fx.push(Effect::Notice(Notice::NoAnswer(target)));
                }
                OutgoingPhase::Accepted { deadline, .. } if now >= deadline => {
                    let target = out.target.clone();
                    self.outgoing = None;
                    fx.push(Effect::Send(target, PeerMsg::Cancel));
                    fx.push(Effect::CloseRoom);
                    fx.push(Effect::Notice(Notice::DidNotConnect));
                }
                _ => {}
            }
        }
        // An unanswered challenge lapses quietly; the challenger's own timer
        // tells them.
        self.incoming.retain(|c| now < c.deadline);
        if matches!(&self.joining, Some(j) if now >= j.deadline) {
            self.joining = None;
            fx.push(Effect::LeaveRoom);
            fx.push(Effect::Notice(Notice::ConnectFailed));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A challenge to `room` that names no game.
    fn chal(room: RoomCode) -> PeerMsg {
        PeerMsg::Challenge { room, game: None }
    }

    fn id(c: char) -> PeerId {
        PeerId::parse(&c.to_string().repeat(12)).unwrap()
    }
    fn room() -> RoomCode {
        RoomCode::parse("K7M2QX").unwrap()
    }
    const CFG: ChallengeConfig = ChallengeConfig {
        answer_timeout: Millis(30_000),
        connect_timeout: Millis(30_000),
        games: &["NtBA", "Dots"],
    };

    fn peer(from: char, msg: PeerMsg) -> Event {
        Event::Peer {
            from: id(from),
            msg,
            muted: false,
        }
    }

    fn game(name: &str) -> Option<GameName> {
        GameName::parse(name)
    }

    #[test]
    fn a_challenge_carries_the_game_picked_to_a_page_that_has_it() {
        let mut a = ChallengeState::default();
        let go = Event::Challenge {
            target: id('B'),
            target_in_match: false,
            game: game("Dots"),
        };
        assert_eq!(a.reduce(go, Millis(0), &CFG), vec![Effect::CreateRoom]);
        let named = PeerMsg::Challenge {
            room: room(),
            game: game("Dots"),
        };
        assert_eq!(
            a.reduce(Event::RoomCreated(room()), Millis(0), &CFG),
            vec![Effect::Send(id('B'), named.clone())]
        );
        let mut b = ChallengeState::default();
        assert_eq!(
            b.reduce(peer('A', named), Millis(10), &CFG),
            vec![Effect::Ring]
        );
        assert_eq!(b.incoming_from(&id('A')).unwrap().game, game("Dots"));
    }

    #[test]
    fn a_challenge_naming_no_game_means_the_first_and_waits_as_before() {
        let mut b = ChallengeState::default();
        assert_eq!(
            b.reduce(peer('A', chal(room())), Millis(0), &CFG),
            vec![Effect::Ring]
        );
        assert_eq!(b.incoming_from(&id('A')).unwrap().game, None);
    }

    #[test]
    fn a_game_the_page_lacks_is_refused_with_a_message_on_both_pages() {
        // B carries NtBA and Dots; A names Battleship.
        let mut a = ChallengeState::default();
        a.reduce(
            Event::Challenge {
                target: id('B'),
                target_in_match: false,
                game: game("Battleship"),
            },
            Millis(0),
            &CFG,
        );
        let fx = a.reduce(Event::RoomCreated(room()), Millis(0), &CFG);
        let Some(Effect::Send(_, msg)) = fx.first() else {
            panic!("no challenge sent: {fx:?}");
        };
        let mut b = ChallengeState::default();
        assert_eq!(
            b.reduce(peer('A', msg.clone()), Millis(5), &CFG),
            vec![
                Effect::Send(id('A'), PeerMsg::Decline(DeclineReason::UnknownGame)),
                Effect::Notice(Notice::WeLackGame(id('A'), game("Battleship").unwrap())),
            ]
        );
        assert!(b.incoming.is_empty(), "nothing waits for an answer");
        assert_eq!(
            a.reduce(
                peer('B', PeerMsg::Decline(DeclineReason::UnknownGame)),
                Millis(9),
                &CFG
            ),
            vec![
                Effect::CloseRoom,
                Effect::Notice(Notice::TheyLackGame(id('B'), game("Battleship").unwrap())),
            ]
        );
        assert!(a.outgoing.is_none());
        let says = |n: &Notice| n.text(|_| "Bo#BBB".to_owned());
        assert_eq!(
            says(&Notice::TheyLackGame(id('B'), game("Battleship").unwrap())),
            "Bo#BBB's page does not have Battleship, so the challenge was cancelled."
        );
        assert_eq!(
            says(&Notice::WeLackGame(id('A'), game("Battleship").unwrap())),
            "Bo#BBB challenged you to Battleship, which this page does not have."
        );
    }

    #[test]
    fn a_page_of_one_game_refuses_every_named_game() {
        let one = ChallengeConfig { games: &[], ..CFG };
        let mut b = ChallengeState::default();
        let named = PeerMsg::Challenge {
            room: room(),
            game: game("NtBA"),
        };
        assert_eq!(
            b.reduce(peer('A', named), Millis(0), &one)[0],
            Effect::Send(id('A'), PeerMsg::Decline(DeclineReason::UnknownGame))
        );
        assert_eq!(
            b.reduce(peer('A', chal(room())), Millis(1), &one),
            vec![Effect::Ring]
        );
    }

    /// A has challenged B and the room exists; returns A's state.
    fn challenged(now: Millis) -> ChallengeState {
        let mut a = ChallengeState::default();
        assert_eq!(
            a.reduce(
                Event::Challenge {
                    target: id('B'),
                    target_in_match: false,
                    game: None,
                },
                now,
                &CFG
            ),
            vec![Effect::CreateRoom]
        );
        assert_eq!(
            a.reduce(Event::RoomCreated(room()), now, &CFG),
            vec![Effect::Send(id('B'), chal(room()))]
        );
        a
    }

    #[test]
    fn challenge_decline_is_reported() {
        let mut a = challenged(Millis(0));
        assert!(a.accept_disabled(), "hosting");
        let fx = a.reduce(
            peer('B', PeerMsg::Decline(DeclineReason::Declined)),
            Millis(5),
            &CFG,
        );
        assert_eq!(
            fx,
            vec![Effect::CloseRoom, Effect::Notice(Notice::Declined(id('B')))]
        );
        assert_eq!(a, ChallengeState::default());
    }

    #[test]
    fn target_sees_and_declines() {
        let mut b = ChallengeState::default();
        assert_eq!(
            b.reduce(peer('A', chal(room())), Millis(0), &CFG),
            vec![Effect::Ring]
        );
        assert!(b.incoming_from(&id('A')).is_some());
        assert!(!b.accept_disabled());
        let fx = b.reduce(Event::Decline(id('A')), Millis(1), &CFG);
        assert_eq!(
            fx,
            vec![Effect::Send(
                id('A'),
                PeerMsg::Decline(DeclineReason::Declined)
            )]
        );
        assert!(b.incoming.is_empty());
    }

    #[test]
    fn accept_joins_the_room_and_both_end_in_a_match() {
        let mut a = challenged(Millis(0));
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        b.reduce(
            peer('C', chal(RoomCode::parse("AAAAAA").unwrap())),
            Millis(0),
            &CFG,
        );
        let fx = b.reduce(Event::Accept(id('A')), Millis(10), &CFG);
        assert_eq!(
            fx,
            vec![
                Effect::Send(id('A'), PeerMsg::Accept),
                Effect::JoinRoom(room()),
                Effect::Send(id('C'), PeerMsg::Decline(DeclineReason::Busy)),
            ]
        );
        assert!(b.accept_disabled(), "joining");
        assert!(a
            .reduce(peer('B', PeerMsg::Accept), Millis(20), &CFG)
            .is_empty());
        assert!(matches!(
            a.outgoing.as_ref().unwrap().phase,
            OutgoingPhase::Accepted { .. }
        ));
        assert_eq!(
            a.reduce(Event::MatchConnected, Millis(500), &CFG),
            vec![Effect::SetStatus(PlayerStatus::InMatch)]
        );
        assert_eq!(
            b.reduce(Event::MatchConnected, Millis(500), &CFG),
            vec![Effect::SetStatus(PlayerStatus::InMatch)]
        );
        assert!(a.in_match && b.in_match);
        assert_eq!(
            a.reduce(Event::MatchEnded, Millis(900), &CFG),
            vec![Effect::SetStatus(PlayerStatus::Lobby)]
        );
    }

    #[test]
    fn unanswered_challenge_times_out_after_30_s() {
        let mut a = challenged(Millis(0));
        assert!(a.reduce(Event::Tick, Millis(29_999), &CFG).is_empty());
        assert_eq!(a.next_deadline(), Some(Millis(30_000)));
        let fx = a.reduce(Event::Tick, Millis(30_000), &CFG);
        assert_eq!(
            fx,
            vec![
                Effect::Send(id('B'), PeerMsg::Cancel),
                Effect::CloseRoom,
                Effect::Notice(Notice::NoAnswer(id('B')))
            ]
        );
        // The target's copy lapses quietly at the same time.
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        assert!(b.reduce(Event::Tick, Millis(30_000), &CFG).is_empty());
        assert!(b.incoming.is_empty());
    }

    #[test]
    fn timers_come_from_configuration() {
        let short = ChallengeConfig {
            answer_timeout: Millis(2_000),
            connect_timeout: Millis(1_000),
            games: &[],
        };
        let mut a = ChallengeState::default();
        a.reduce(
            Event::Challenge {
                target: id('B'),
                target_in_match: false,
                game: None,
            },
            Millis(0),
            &short,
        );
        a.reduce(Event::RoomCreated(room()), Millis(0), &short);
        assert_eq!(a.reduce(Event::Tick, Millis(2_000), &short).len(), 3);
    }

    #[test]
    fn accepted_target_that_never_connects_is_given_30_s() {
        let mut a = challenged(Millis(0));
        a.reduce(peer('B', PeerMsg::Accept), Millis(10_000), &CFG);
        assert!(a.reduce(Event::Tick, Millis(39_999), &CFG).is_empty());
        let fx = a.reduce(Event::Tick, Millis(40_000), &CFG);
        assert_eq!(
            fx,
            vec![
                Effect::Send(id('B'), PeerMsg::Cancel),
                Effect::CloseRoom,
                Effect::Notice(Notice::DidNotConnect)
            ]
        );
        assert_eq!(
            Notice::DidNotConnect.text(|_| String::new()),
            "They didn't connect - try again."
        );
    }

    #[test]
    fn brief_lobby_drop_of_accepted_target_does_not_cancel() {
        let mut a = challenged(Millis(0));
        a.reduce(peer('B', PeerMsg::Accept), Millis(10), &CFG);
        assert!(a
            .reduce(Event::PlayerLeft(id('B')), Millis(20), &CFG)
            .is_empty());
        assert!(a.outgoing.is_some());
        assert_eq!(
            a.reduce(Event::MatchConnected, Millis(30), &CFG),
            vec![Effect::SetStatus(PlayerStatus::InMatch)]
        );
    }

    #[test]
    fn target_leaving_before_answer_cancels() {
        let mut a = challenged(Millis(0));
        let fx = a.reduce(Event::PlayerLeft(id('B')), Millis(20), &CFG);
        assert_eq!(
            fx,
            vec![Effect::CloseRoom, Effect::Notice(Notice::Left(id('B')))]
        );
        assert!(a.outgoing.is_none());
    }

    #[test]
    fn challenger_leaving_removes_the_incoming_challenge() {
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        assert!(b
            .reduce(Event::PlayerLeft(id('A')), Millis(1), &CFG)
            .is_empty());
        assert!(b.incoming.is_empty());
    }

    #[test]
    fn cancel_withdraws_and_closes_the_room() {
        let mut a = challenged(Millis(0));
        assert_eq!(
            a.reduce(Event::Cancel, Millis(1), &CFG),
            vec![Effect::Send(id('B'), PeerMsg::Cancel), Effect::CloseRoom]
        );
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        assert_eq!(
            b.reduce(peer('A', PeerMsg::Cancel), Millis(1), &CFG),
            vec![Effect::Notice(Notice::Withdrawn(id('A')))]
        );
        assert!(b.incoming.is_empty());
    }

    #[test]
    fn cancel_while_the_room_is_being_made_closes_it_when_it_arrives() {
        let mut a = ChallengeState::default();
        a.reduce(
            Event::Challenge {
                target: id('B'),
                target_in_match: false,
                game: None,
            },
            Millis(0),
            &CFG,
        );
        assert_eq!(
            a.reduce(Event::Cancel, Millis(1), &CFG),
            vec![Effect::CloseRoom]
        );
        assert_eq!(
            a.reduce(Event::RoomCreated(room()), Millis(2), &CFG),
            vec![Effect::CloseRoom]
        );
    }

    #[test]
    fn mutual_challenge_cancels_both_with_a_message() {
        let mut a = challenged(Millis(0));
        let mut b = ChallengeState::default();
        b.reduce(
            Event::Challenge {
                target: id('A'),
                target_in_match: false,
                game: None,
            },
            Millis(0),
            &CFG,
        );
        let room_b = RoomCode::parse("BBBBBB").unwrap();
        b.reduce(Event::RoomCreated(room_b.clone()), Millis(0), &CFG);
        // The two challenges cross.
        let fa = a.reduce(peer('B', chal(room_b)), Millis(5), &CFG);
        let fb = b.reduce(peer('A', chal(room())), Millis(5), &CFG);
        for (fx, other) in [(fa, 'B'), (fb, 'A')] {
            assert_eq!(
                fx,
                vec![
                    Effect::Send(id(other), PeerMsg::Cancel),
                    Effect::CloseRoom,
                    Effect::Send(id(other), PeerMsg::Decline(DeclineReason::Mutual)),
                    Effect::Notice(Notice::Mutual(id(other))),
                ]
            );
        }
        assert_eq!(a, ChallengeState::default());
        assert_eq!(b, ChallengeState::default());
        // The crossing cancel and decline then find nothing to act on.
        assert!(a
            .reduce(peer('B', PeerMsg::Cancel), Millis(6), &CFG)
            .is_empty());
        assert!(a
            .reduce(
                peer('B', PeerMsg::Decline(DeclineReason::Mutual)),
                Millis(6),
                &CFG
            )
            .is_empty());
    }

    #[test]
    fn challenging_someone_who_challenged_you_is_mutual() {
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        let fx = b.reduce(
            Event::Challenge {
                target: id('A'),
                target_in_match: false,
                game: None,
            },
            Millis(1),
            &CFG,
        );
        assert_eq!(
            fx,
            vec![
                Effect::Send(id('A'), PeerMsg::Decline(DeclineReason::Mutual)),
                Effect::Notice(Notice::Mutual(id('A')))
            ]
        );
        let mut a = challenged(Millis(0));
        assert_eq!(
            a.reduce(
                peer('B', PeerMsg::Decline(DeclineReason::Mutual)),
                Millis(2),
                &CFG
            ),
            vec![Effect::CloseRoom, Effect::Notice(Notice::Mutual(id('B')))]
        );
    }

    #[test]
    fn busy_and_muted_players_decline_automatically() {
        let mut b = ChallengeState {
            in_match: true,
            ..Default::default()
        };
        assert_eq!(
            b.reduce(peer('A', chal(room())), Millis(0), &CFG),
            vec![Effect::Send(id('A'), PeerMsg::Decline(DeclineReason::Busy))]
        );
        let mut c = ChallengeState::default();
        let ev = Event::Peer {
            from: id('A'),
            msg: chal(room()),
            muted: true,
        };
        assert_eq!(
            c.reduce(ev, Millis(0), &CFG),
            vec![Effect::Send(
                id('A'),
                PeerMsg::Decline(DeclineReason::Muted)
            )]
        );
        assert!(c.incoming.is_empty());
        let mut a = challenged(Millis(0));
        assert_eq!(
            a.reduce(
                peer('B', PeerMsg::Decline(DeclineReason::Busy)),
                Millis(1),
                &CFG
            ),
            vec![Effect::CloseRoom, Effect::Notice(Notice::Busy(id('B')))]
        );
    }

    #[test]
    fn accept_is_disabled_while_hosting_or_joining() {
        let mut a = challenged(Millis(0));
        a.reduce(peer('C', chal(room())), Millis(0), &CFG);
        assert!(a.accept_disabled());
        assert!(a.reduce(Event::Accept(id('C')), Millis(1), &CFG).is_empty());
        assert!(a.incoming_from(&id('C')).is_some());
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        b.reduce(Event::Accept(id('A')), Millis(1), &CFG);
        b.reduce(peer('C', chal(room())), Millis(2), &CFG);
        assert!(b.accept_disabled());
        assert!(b.reduce(Event::Accept(id('C')), Millis(3), &CFG).is_empty());
        assert!(!b.can_challenge());
    }

    #[test]
    fn players_in_a_match_cannot_be_challenged() {
        let mut a = ChallengeState::default();
        let fx = a.reduce(
            Event::Challenge {
                target: id('B'),
                target_in_match: true,
                game: None,
            },
            Millis(0),
            &CFG,
        );
        assert_eq!(fx, vec![Effect::Notice(Notice::TargetInMatch(id('B')))]);
        assert!(a.outgoing.is_none());
    }

    #[test]
    fn one_challenge_at_a_time() {
        let mut a = challenged(Millis(0));
        let fx = a.reduce(
            Event::Challenge {
                target: id('C'),
                target_in_match: false,
                game: None,
            },
            Millis(1),
            &CFG,
        );
        assert_eq!(fx, vec![Effect::Notice(Notice::AlreadyChallenging)]);
    }

    #[test]
    fn joining_side_gives_up_and_challenger_cancel_stops_joining() {
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        b.reduce(Event::Accept(id('A')), Millis(0), &CFG);
        assert_eq!(
            b.reduce(peer('A', PeerMsg::Cancel), Millis(5), &CFG),
            vec![Effect::LeaveRoom, Effect::Notice(Notice::ConnectFailed)]
        );
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        b.reduce(Event::Accept(id('A')), Millis(0), &CFG);
        assert!(
            b.reduce(Event::PlayerLeft(id('A')), Millis(5), &CFG)
                .is_empty(),
            "lobby drop does not stop joining"
        );
        assert_eq!(
            b.reduce(Event::Tick, Millis(30_000), &CFG),
            vec![Effect::LeaveRoom, Effect::Notice(Notice::ConnectFailed)]
        );
    }

    #[test]
    fn room_failure_cancels_with_a_message() {
        let mut a = ChallengeState::default();
        a.reduce(
            Event::Challenge {
                target: id('B'),
                target_in_match: false,
                game: None,
            },
            Millis(0),
            &CFG,
        );
        assert_eq!(
            a.reduce(Event::RoomFailed, Millis(1), &CFG),
            vec![Effect::CloseRoom, Effect::Notice(Notice::ConnectFailed)]
        );
        let mut a = challenged(Millis(0));
        a.reduce(peer('B', PeerMsg::Accept), Millis(1), &CFG);
        assert_eq!(
            a.reduce(Event::MatchFailed, Millis(2), &CFG),
            vec![
                Effect::Send(id('B'), PeerMsg::Cancel),
                Effect::CloseRoom,
                Effect::Notice(Notice::ConnectFailed)
            ]
        );
    }

    #[test]
    fn stray_messages_change_nothing() {
        let mut s = ChallengeState::default();
        for msg in [
            PeerMsg::Accept,
            PeerMsg::Cancel,
            PeerMsg::Decline(DeclineReason::Declined),
            PeerMsg::Chat("x".into()),
        ] {
            assert!(s.reduce(peer('Z', msg), Millis(0), &CFG).is_empty());
        }
        assert!(s.reduce(Event::Accept(id('Z')), Millis(0), &CFG).is_empty());
        assert!(s.reduce(Event::MatchConnected, Millis(0), &CFG).is_empty());
        assert_eq!(s, ChallengeState::default());
    }

    #[test]
    fn challenges_while_joining_or_while_our_accepted_guest_connects_are_busy() {
        let busy = vec![Effect::Send(id('C'), PeerMsg::Decline(DeclineReason::Busy))];
        // B accepted A's challenge and is joining A's room.
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        b.reduce(Event::Accept(id('A')), Millis(1), &CFG);
        assert!(b.joining.is_some());
        assert_eq!(b.reduce(peer('C', chal(room())), Millis(2), &CFG), busy);
        assert!(b.incoming.is_empty(), "not kept as a pending challenge");
        // A's challenge was accepted and B is connecting to A's room.
        let mut a = challenged(Millis(0));
        a.reduce(peer('B', PeerMsg::Accept), Millis(1), &CFG);
        assert_eq!(a.reduce(peer('C', chal(room())), Millis(2), &CFG), busy);
        assert!(a.incoming.is_empty());
        // While A only waits for an answer, a third player may still
        // challenge A (Accept stays disabled until A's challenge ends).
        let mut a = challenged(Millis(0));
        assert_eq!(
            a.reduce(peer('C', chal(room())), Millis(2), &CFG),
            vec![Effect::Ring]
        );
        assert_eq!(a.incoming.len(), 1);
    }

    #[test]
    fn muting_a_challenger_declines_the_waiting_challenge() {
        let mut b = ChallengeState::default();
        b.reduce(peer('A', chal(room())), Millis(0), &CFG);
        b.reduce(peer('C', chal(room())), Millis(0), &CFG);
        assert_eq!(
            b.reduce(Event::Muted(id('A')), Millis(1), &CFG),
            vec![Effect::Send(
                id('A'),
                PeerMsg::Decline(DeclineReason::Muted)
            )]
        );
        assert!(b.incoming_from(&id('A')).is_none());
        assert!(b.incoming_from(&id('C')).is_some(), "others stay");
        // Muting someone with no challenge open sends nothing.
        assert!(b.reduce(Event::Muted(id('D')), Millis(1), &CFG).is_empty());
        // The challenger sees that we are not taking their challenges.
        let mut a = challenged(Millis(0));
        assert_eq!(
            a.reduce(
                peer('B', PeerMsg::Decline(DeclineReason::Muted)),
                Millis(2),
                &CFG
            ),
            vec![
                Effect::CloseRoom,
                Effect::Notice(Notice::NotTaking(id('B')))
            ]
        );
    }

    #[test]
    fn losing_our_lobby_connection_cancels_an_unanswered_challenge_with_its_own_notice() {
        let mut a = challenged(Millis(0));
        a.reduce(peer('C', chal(room())), Millis(1), &CFG);
        assert_eq!(
            a.reduce(Event::LobbyLost, Millis(2), &CFG),
            vec![
                Effect::Send(id('B'), PeerMsg::Cancel),
                Effect::CloseRoom,
                Effect::Notice(Notice::LobbyLost(id('B'))),
            ]
        );
        assert_eq!(a, ChallengeState::default());
        assert_eq!(
            Notice::LobbyLost(id('B')).text(|_| "Bo#BBB".into()),
            "Lost the lobby connection, so your challenge to Bo#BBB was cancelled."
        );
        // An accepted challenge carries on: the room does not need the lobby.
        let mut a = challenged(Millis(0));
        a.reduce(peer('B', PeerMsg::Accept), Millis(1), &CFG);
        assert!(a.reduce(Event::LobbyLost, Millis(2), &CFG).is_empty());
        assert!(a.outgoing.is_some());
    }
}
