//! The lobby client's side of parties: the buttons, the `party-` messages
//! from the mesh, and the party reducer's effects turned into outputs. The
//! rules themselves are [`crate::party`]'s; this file only joins them to
//! the challenge's, so that one page never plays in two things at once:
//! a party keeps challenges out while it holds us, and a challenge keeps
//! parties out while it holds us.

use super::{LobbyClient, LobbyNotice, Output};
use crate::challenge;
use crate::id::{PeerId, RoomCode};
use crate::party::{self, Effect, Event, PartyState, Pick};
use crate::protocol::{lobby_out, PeerMsg, PlayerStatus};
use lockstep::Millis;

impl LobbyClient {
    /// The party rules' state (our party, invitations waiting, our place).
    #[must_use]
    pub fn parties(&self) -> &PartyState {
        &self.party
    }

    /// The Invite button: a party with `picks` (each player and the side
    /// arranged for them, in the order of their places) and us on `side`,
    /// for the game picked. Players not in the roster or out of reach
    /// ([`LobbyClient::reachable`]) are left out (the reducer then counts the rest).
    pub fn invite_party(&mut self, now: Millis, picks: &[(PeerId, u8)], side: u8) {
        let picks = picks
            .iter()
            .filter_map(|(id, side)| {
                let p = self.players.get(id)?;
                self.reaches(p).then(|| Pick {
                    id: id.clone(),
                    side: *side,
                    in_match: p.status == PlayerStatus::InMatch,
                })
            })
            .collect();
        let busy = self.challenge_holds_us();
        let game = self.game.clone();
        self.party_reduce(
            Event::Invite {
                picks,
                side,
                game,
                busy,
            },
            now,
        );
        self.out.push_back(Output::Changed);
    }

    /// The Accept button on `from`'s party invitation.
    pub fn accept_party(&mut self, now: Millis, from: &PeerId) {
        let busy = self.challenge_holds_us();
        self.party_reduce(
            Event::Accept {
                from: from.clone(),
                busy,
            },
            now,
        );
        self.out.push_back(Output::Changed);
    }

    /// The Decline button on `from`'s party invitation.
    pub fn decline_party(&mut self, now: Millis, from: &PeerId) {
        self.party_reduce(Event::Decline(from.clone()), now);
        self.out.push_back(Output::Changed);
    }

    /// The Cancel button on our party.
    pub fn cancel_party(&mut self, now: Millis) {
        self.party_reduce(Event::Cancel, now);
        self.out.push_back(Output::Changed);
    }

    /// Our party's member room exists and we host it.
    pub fn party_room_created(&mut self, now: Millis, room: RoomCode) {
        self.party_reduce(Event::RoomCreated(room), now);
        self.out.push_back(Output::Changed);
    }

    /// Creating or hosting our party's member room failed.
    pub fn party_room_failed(&mut self, now: Millis) {
        self.party_reduce(Event::RoomFailed, now);
        self.out.push_back(Output::Changed);
    }

    /// The waiting party invitation from `from`, if any.
    #[must_use]
    pub fn party_invitation(&self, from: &PeerId) -> Option<&party::Invitation> {
        self.party.incoming_from(from)
    }

    /// `true` while a one-on-one challenge holds us: ours is open, we are
    /// joining one's room, or we play its match.
    pub(super) fn challenge_holds_us(&self) -> bool {
        !self.challenge.can_challenge()
    }

    /// A `party-` message from `from`.
    pub(super) fn party_message(&mut self, now: Millis, from: &PeerId, msg: PeerMsg, muted: bool) {
        let busy = self.challenge_holds_us();
        self.party_reduce(
            Event::Peer {
                from: from.clone(),
                msg,
                muted,
                busy,
            },
            now,
        );
        self.out.push_back(Output::Changed);
    }

    /// Passes on to the party rules what the challenge rules heard too: a
    /// player leaving, a mute, our lobby connection lost, the match, time.
    pub(super) fn party_also(&mut self, event: &challenge::Event, now: Millis) {
        let event = match event {
            challenge::Event::PlayerLeft(id) => Event::PlayerLeft(id.clone()),
            challenge::Event::Muted(id) => Event::Muted(id.clone()),
            challenge::Event::LobbyLost => Event::LobbyLost,
            challenge::Event::MatchConnected => Event::MatchConnected,
            challenge::Event::MatchFailed => Event::MatchFailed,
            challenge::Event::MatchEnded => Event::MatchEnded,
            challenge::Event::Tick => Event::Tick,
            _ => return,
        };
        self.party_reduce(event, now);
    }

    pub(super) fn party_reduce(&mut self, event: Event, now: Millis) {
        self.clock = self.clock.max(now);
        let effects = self.party.reduce(event, now, &self.cfg.party);
        for fx in effects {
            let out = match fx {
                Effect::CreateRoom { players } => Output::CreatePartyRoom { players },
                Effect::CloseRoom => Output::CloseRoom,
                Effect::Play(lineup) => Output::PlayParty(lineup),
                Effect::LeaveRoom => Output::LeaveRoom,
                Effect::Send(to, msg) => {
                    self.tell(&to, msg.encode());
                    continue;
                }
                Effect::SetStatus(status) => {
                    if self.conn != super::Connection::Online {
                        continue;
                    }
                    Output::ToServer(lobby_out::status(status))
                }
                Effect::Notice(notice) => Output::Notice(LobbyNotice::Party {
                    name: notice.player().map(|id| self.name_of(id)),
                    notice,
                }),
                Effect::Ring => Output::Ring,
            };
            self.out.push_back(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::LobbyConfig;
    use super::*;
    use crate::party::{Lineup, PartyConfig, PartyGame, PartyRules};
    use crate::protocol::DeclineReason;
    use serde_json::{json, Value};

    const GAMES: &[PartyGame] = &[PartyGame {
        name: "NtBA",
        rules: PartyRules {
            max_people: 4,
            sides: 2,
            per_side: 2,
            lengths: &[],
        },
    }];

    fn id(c: char) -> PeerId {
        PeerId::parse(&c.to_string().repeat(12)).unwrap()
    }

    fn room() -> RoomCode {
        RoomCode::parse("K7M2QX").unwrap()
    }

    fn drain(c: &mut LobbyClient) -> Vec<Output> {
        std::iter::from_fn(|| c.poll_output())
            .filter(|o| *o != Output::Changed)
            .collect()
    }

    /// A client `M` online with `others`, every mesh link open, on a page
    /// whose game takes parties and spectators when `parties`.
    fn online(others: &[char], parties: bool) -> LobbyClient {
        let cfg = LobbyConfig {
            party: PartyConfig {
                games: if parties { GAMES } else { &[] },
                ..PartyConfig::default()
            },
            watchable: parties,
            ..LobbyConfig::default()
        };
        let mut c = LobbyClient::new("Me".into(), cfg);
        c.start(Millis(0), id('M'));
        c.socket_open();
        let roster: Vec<Value> = others
            .iter()
            .map(|o| json!({"id": id(*o).as_str(), "nick": format!("n{o}"), "tag": o.to_string().repeat(3), "status": "lobby"}))
            .chain([json!({"id": id('M').as_str(), "nick": "Me", "tag": "MMM", "status": "lobby"})])
            .collect();
        let welcome = json!({"type": "welcome", "you": id('M').as_str(), "roster": roster});
        c.server_text(Millis(0), &welcome.to_string());
        for o in others {
            c.peer_open(&id(*o), 1);
        }
        drain(&mut c);
        c
    }

    fn sent(out: &[Output]) -> Vec<(PeerId, PeerMsg)> {
        out.iter()
            .filter_map(|o| match o {
                Output::ToPeer(to, wire) => Some((to.clone(), PeerMsg::parse(wire).unwrap())),
                _ => None,
            })
            .collect()
    }

    fn invitation() -> String {
        PeerMsg::PartyInvite {
            game: None,
            people: 3,
        }
        .encode()
    }

    #[test]
    fn an_invitation_rings_and_an_accepted_party_starts_over_the_mesh() {
        let mut c = online(&['A', 'B'], true);
        c.peer_text(Millis(1), &id('A'), &invitation());
        assert_eq!(drain(&mut c), vec![Output::Ring]);
        assert!(c.party_invitation(&id('A')).is_some());
        c.accept_party(Millis(2), &id('A'));
        assert_eq!(sent(&drain(&mut c)), vec![(id('A'), PeerMsg::PartyAccept)]);
        let start = PeerMsg::PartyStart {
            room: room(),
            place: 1,
            sides: vec![0, 1, 1],
        };
        c.peer_text(Millis(3), &id('A'), &start.encode());
        assert_eq!(
            drain(&mut c),
            vec![Output::PlayParty(Lineup {
                game: None,
                room: room(),
                place: 1,
                sides: vec![0, 1, 1]
            })]
        );
        // While the party holds us, a challenge is declined as busy and
        // our own Challenge button refuses.
        let chal = PeerMsg::Challenge {
            room: room(),
            game: None,
        };
        c.peer_text(Millis(4), &id('B'), &chal.encode());
        assert_eq!(
            sent(&drain(&mut c)),
            vec![(id('B'), PeerMsg::Decline(DeclineReason::Busy))]
        );
        c.challenge(Millis(5), &id('B'));
        let out = drain(&mut c);
        assert!(sent(&out).is_empty());
        assert_eq!(
            out,
            vec![Output::Notice(LobbyNotice::Party {
                notice: party::Notice::InParty,
                name: None
            })]
        );
        assert!(c.challenges().outgoing.is_none());
        c.match_connected(Millis(6));
        assert!(c.parties().in_match);
    }

    #[test]
    fn a_page_whose_game_takes_no_parties_declines_invitations_at_once() {
        let mut c = online(&['A'], false);
        c.peer_text(Millis(1), &id('A'), &invitation());
        let out = drain(&mut c);
        assert_eq!(
            sent(&out),
            vec![(id('A'), PeerMsg::PartyDecline(DeclineReason::UnknownGame))]
        );
        assert!(out.iter().any(|o| matches!(
            o,
            Output::Notice(LobbyNotice::Party { notice: party::Notice::WeLackGame(_), name: Some(n) }) if n == "nA#AAA"
        )));
    }

    #[test]
    fn inviting_sends_to_connected_players_and_a_departure_frees_the_place() {
        let mut c = online(&['A', 'B', 'C'], true);
        c.invite_party(Millis(1), &[(id('A'), 1), (id('B'), 1), (id('C'), 0)], 0);
        let out = drain(&mut c);
        let to: Vec<PeerId> = sent(&out).into_iter().map(|(to, _)| to).collect();
        assert_eq!(to, vec![id('A'), id('B'), id('C')]);
        // A challenge to us may wait, but Accept on it stays disabled.
        let chal = PeerMsg::Challenge {
            room: room(),
            game: None,
        };
        c.peer_text(Millis(2), &id('A'), &chal.encode());
        drain(&mut c);
        c.accept(Millis(3), &id('A'));
        assert!(c.challenges().joining.is_none());
        // A accepts, B declines, C leaves the lobby: the room is asked for.
        c.peer_text(Millis(4), &id('A'), &PeerMsg::PartyAccept.encode());
        c.peer_text(
            Millis(5),
            &id('B'),
            &PeerMsg::PartyDecline(DeclineReason::Declined).encode(),
        );
        drain(&mut c);
        c.server_text(
            Millis(6),
            &json!({"type":"left","id":id('C').as_str()}).to_string(),
        );
        let out = drain(&mut c);
        assert!(
            out.contains(&Output::CreatePartyRoom { players: 2 }),
            "{out:?}"
        );
        c.party_room_created(Millis(7), room());
        let out = drain(&mut c);
        assert_eq!(
            sent(&out),
            vec![(
                id('A'),
                PeerMsg::PartyStart {
                    room: room(),
                    place: 1,
                    sides: vec![0, 1]
                }
            )]
        );
        assert!(out.contains(&Output::PlayParty(Lineup {
            game: None,
            room: room(),
            place: 0,
            sides: vec![0, 1]
        })));
    }

    #[test]
    fn the_party_timers_run_on_the_lobby_tick() {
        let mut c = online(&['A', 'B'], true);
        c.invite_party(Millis(0), &[(id('A'), 1), (id('B'), 1)], 0);
        drain(&mut c);
        assert_eq!(c.next_timeout().map(|t| t <= Millis(30_000)), Some(true));
        c.tick(Millis(30_000));
        let out = drain(&mut c);
        assert!(out.iter().any(|o| matches!(
            o,
            Output::Notice(LobbyNotice::Party {
                notice: party::Notice::NobodyCame,
                ..
            })
        )));
        assert!(c.parties().hosting.is_none());
        assert_eq!(
            LobbyNotice::Party {
                notice: party::Notice::NoAnswer(id('A')),
                name: Some("nA#AAA".into())
            }
            .text(),
            "nA#AAA didn't answer; a CPU takes the place."
        );
    }
}
