//! Every party rule, played out on the reducers of the challenger and of
//! the players it invites.

use super::*;

const NTBA: PartyRules = PartyRules {
    max_people: 4,
    sides: 2,
    per_side: 2,
    lengths: &[],
};

const GAMES: &[PartyGame] = &[
    PartyGame {
        name: "NtBA",
        rules: NTBA,
    },
    PartyGame {
        name: "Dots",
        rules: PartyRules::PAIR,
    },
];

fn cfg() -> PartyConfig {
    PartyConfig {
        games: GAMES,
        ..PartyConfig::default()
    }
}

fn id(c: char) -> PeerId {
    PeerId::parse(&c.to_string().repeat(12)).unwrap()
}

fn room() -> RoomCode {
    RoomCode::parse("K7M2QX").unwrap()
}

fn pick(c: char, side: u8) -> Pick {
    Pick {
        id: id(c),
        side,
        in_match: false,
    }
}

fn invite(picks: Vec<Pick>, side: u8) -> Event {
    Event::Invite {
        picks,
        side,
        game: None,
        busy: false,
    }
}

fn peer(from: char, msg: PeerMsg) -> Event {
    Event::Peer {
        from: id(from),
        msg,
        muted: false,
        busy: false,
    }
}

fn invitation(people: u8) -> PeerMsg {
    PeerMsg::PartyInvite { game: None, people }
}

/// A (Home) has invited B (Away), C (Away) and D (Home) at `t`.
fn party_of_four(t: Millis) -> PartyState {
    let mut a = PartyState::default();
    let fx = a.reduce(
        invite(vec![pick('B', 1), pick('C', 1), pick('D', 0)], 0),
        t,
        &cfg(),
    );
    assert_eq!(
        fx,
        ['B', 'C', 'D']
            .into_iter()
            .map(|c| Effect::Send(id(c), invitation(4)))
            .collect::<Vec<_>>()
    );
    a
}

fn start(room: RoomCode, place: u8, sides: &[u8]) -> PeerMsg {
    PeerMsg::PartyStart {
        room,
        place,
        sides: sides.to_vec(),
    }
}

#[test]
fn four_who_all_accept_start_in_a_member_room_with_the_teams_arranged() {
    let mut a = party_of_four(Millis(0));
    assert!(a
        .reduce(peer('B', PeerMsg::PartyAccept), Millis(10), &cfg())
        .is_empty());
    assert!(a
        .reduce(peer('D', PeerMsg::PartyAccept), Millis(20), &cfg())
        .is_empty());
    assert!(
        !a.busy(),
        "challenges may still wait for us while we invite"
    );
    assert_eq!(
        a.reduce(peer('C', PeerMsg::PartyAccept), Millis(30), &cfg()),
        vec![Effect::CreateRoom { players: 4 }]
    );
    assert!(a.busy());
    let fx = a.reduce(Event::RoomCreated(room()), Millis(40), &cfg());
    let sides = [0, 1, 1, 0];
    assert_eq!(
        fx,
        vec![
            Effect::Send(id('B'), start(room(), 1, &sides)),
            Effect::Send(id('C'), start(room(), 2, &sides)),
            Effect::Send(id('D'), start(room(), 3, &sides)),
            Effect::Play(Lineup {
                game: None,
                room: room(),
                place: 0,
                sides: sides.to_vec()
            }),
        ]
    );
    assert_eq!(
        a.reduce(Event::MatchConnected, Millis(50), &cfg()),
        vec![Effect::SetStatus(PlayerStatus::InMatch)]
    );
    assert_eq!(
        a.reduce(Event::MatchEnded, Millis(60), &cfg()),
        vec![Effect::SetStatus(PlayerStatus::Lobby)]
    );
    assert_eq!(a, PartyState::default());
}

#[test]
fn an_invited_player_accepts_joins_on_the_start_and_plays() {
    let mut c = PartyState::default();
    assert_eq!(
        c.reduce(peer('A', invitation(4)), Millis(0), &cfg()),
        vec![Effect::Ring]
    );
    assert_eq!(c.next_deadline(), Some(Millis(30_000)));
    assert_eq!(
        c.reduce(
            Event::Accept {
                from: id('A'),
                busy: false
            },
            Millis(5),
            &cfg()
        ),
        vec![Effect::Send(id('A'), PeerMsg::PartyAccept)]
    );
    assert!(c.busy() && c.accept_disabled() && !c.can_invite());
    let fx = c.reduce(
        peer('A', start(room(), 2, &[0, 1, 1, 0])),
        Millis(9),
        &cfg(),
    );
    assert_eq!(
        fx,
        vec![Effect::Play(Lineup {
            game: None,
            room: room(),
            place: 2,
            sides: vec![0, 1, 1, 0]
        })]
    );
    assert_eq!(c.next_deadline(), Some(Millis(30_009)));
    assert_eq!(
        c.reduce(Event::MatchConnected, Millis(20), &cfg()),
        vec![Effect::SetStatus(PlayerStatus::InMatch)]
    );
    assert!(c.in_match && c.member.is_none());
}

#[test]
fn a_decline_leaves_a_cpu_place_and_the_others_start() {
    // A invites B and C for three people: B declines, C accepts.
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 0)], 1),
        Millis(0),
        &cfg(),
    );
    assert_eq!(
        a.reduce(
            peer('B', PeerMsg::PartyDecline(DeclineReason::Declined)),
            Millis(1),
            &cfg()
        ),
        vec![Effect::Notice(Notice::Declined(id('B')))]
    );
    assert_eq!(
        a.reduce(peer('C', PeerMsg::PartyAccept), Millis(2), &cfg()),
        vec![Effect::CreateRoom { players: 2 }]
    );
    // A (Away) and C (Home) are two: one each side, as arranged.
    let fx = a.reduce(Event::RoomCreated(room()), Millis(3), &cfg());
    assert_eq!(fx[0], Effect::Send(id('C'), start(room(), 1, &[1, 0])));
    // The invited player's side of a decline.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    assert_eq!(
        b.reduce(Event::Decline(id('A')), Millis(1), &cfg()),
        vec![Effect::Send(
            id('A'),
            PeerMsg::PartyDecline(DeclineReason::Declined)
        )]
    );
    assert_eq!(b, PartyState::default());
    assert_eq!(
        Notice::Declined(id('B')).text(|_| "Bo#BBB".into()),
        "Bo#BBB declined; a CPU takes the place."
    );
}

#[test]
fn two_who_came_on_one_team_are_split_across_the_teams() {
    // A and D are both Home; B and C (Away) decline.
    let mut a = party_of_four(Millis(0));
    for c in ['B', 'C'] {
        a.reduce(
            peer(c, PeerMsg::PartyDecline(DeclineReason::Declined)),
            Millis(1),
            &cfg(),
        );
    }
    a.reduce(peer('D', PeerMsg::PartyAccept), Millis(2), &cfg());
    let fx = a.reduce(Event::RoomCreated(room()), Millis(3), &cfg());
    assert_eq!(fx[0], Effect::Send(id('D'), start(room(), 1, &[0, 1])));
    // Three on a four-place court keep their arrangement (two and one).
    let mut three = vec![0, 0, 1];
    even_out(&mut three, 2);
    assert_eq!(three, [0, 0, 1]);
    let mut lopsided = vec![1, 1];
    even_out(&mut lopsided, 2);
    assert_eq!(lopsided, [1, 0], "place 0 keeps its side");
    let mut no_sides = vec![0, 0, 0];
    even_out(&mut no_sides, 0);
    assert_eq!(no_sides, [0, 0, 0]);
}

#[test]
fn an_invitation_lapses_after_30_s_and_a_cpu_takes_the_place() {
    let mut a = party_of_four(Millis(0));
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(10), &cfg());
    // A repeated accept changes nothing.
    assert!(a
        .reduce(peer('B', PeerMsg::PartyAccept), Millis(10), &cfg())
        .is_empty());
    a.reduce(
        peer('C', PeerMsg::PartyDecline(DeclineReason::Declined)),
        Millis(10),
        &cfg(),
    );
    assert_eq!(a.next_deadline(), Some(Millis(30_000)));
    assert!(a.reduce(Event::Tick, Millis(29_999), &cfg()).is_empty());
    assert_eq!(
        a.reduce(Event::Tick, Millis(30_000), &cfg()),
        vec![
            Effect::Send(id('D'), PeerMsg::PartyCancel),
            Effect::Notice(Notice::NoAnswer(id('D'))),
            Effect::CreateRoom { players: 2 },
        ]
    );
    // D's copy lapses quietly at the same time, and D's late accept is
    // answered with a cancel so that D does not wait for a start.
    let mut d = PartyState::default();
    d.reduce(peer('A', invitation(4)), Millis(0), &cfg());
    assert!(d.reduce(Event::Tick, Millis(30_000), &cfg()).is_empty());
    assert!(d.incoming.is_empty());
    assert_eq!(
        a.reduce(peer('D', PeerMsg::PartyAccept), Millis(30_001), &cfg()),
        vec![Effect::Send(id('D'), PeerMsg::PartyCancel)]
    );
}

#[test]
fn nobody_accepting_calls_the_party_off() {
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 1)], 0),
        Millis(0),
        &cfg(),
    );
    a.reduce(
        peer('B', PeerMsg::PartyDecline(DeclineReason::Declined)),
        Millis(1),
        &cfg(),
    );
    assert_eq!(
        a.reduce(Event::Tick, Millis(30_000), &cfg()),
        vec![
            Effect::Send(id('C'), PeerMsg::PartyCancel),
            Effect::Notice(Notice::NoAnswer(id('C'))),
            Effect::Notice(Notice::NobodyCame),
        ]
    );
    assert_eq!(a, PartyState::default());
}

#[test]
fn who_can_invite_whom() {
    let mut a = PartyState::default();
    let mut refused = |event: Event| {
        let fx = a.reduce(event, Millis(0), &cfg());
        assert!(a.hosting.is_none());
        fx
    };
    // A party is two to three others for NtBA.
    assert_eq!(
        refused(invite(vec![pick('B', 1)], 0)),
        vec![Effect::Notice(Notice::PartySize(3))]
    );
    assert_eq!(
        refused(invite(
            vec![pick('B', 1), pick('C', 1), pick('D', 0), pick('E', 0)],
            0
        )),
        vec![Effect::Notice(Notice::PartySize(3))]
    );
    // A game for two takes no parties; neither does one the page lacks.
    for game in ["Dots", "Chess"] {
        assert_eq!(
            refused(Event::Invite {
                picks: vec![pick('B', 1), pick('C', 0)],
                side: 0,
                game: GameName::parse(game),
                busy: false,
            }),
            vec![Effect::Notice(Notice::NoParties)]
        );
    }
    assert_eq!(
        refused(invite(vec![pick('B', 1), pick('B', 0)], 0)),
        vec![Effect::Notice(Notice::Twice(id('B')))]
    );
    let mut playing = pick('C', 1);
    playing.in_match = true;
    assert_eq!(
        refused(invite(vec![pick('B', 1), playing], 0)),
        vec![Effect::Notice(Notice::TargetInMatch(id('C')))]
    );
    // Three on one team, or a side the game does not have.
    assert_eq!(
        refused(invite(vec![pick('B', 0), pick('C', 0)], 0)),
        vec![Effect::Notice(Notice::Arrangement)]
    );
    assert_eq!(
        refused(invite(vec![pick('B', 2), pick('C', 1)], 0)),
        vec![Effect::Notice(Notice::Arrangement)]
    );
    // Busy with a challenge (the caller says so).
    assert_eq!(
        refused(Event::Invite {
            picks: vec![pick('B', 1), pick('C', 1)],
            side: 0,
            game: None,
            busy: true,
        }),
        vec![Effect::Notice(Notice::Busy)]
    );
    // One party at a time.
    let mut a = party_of_four(Millis(0));
    assert_eq!(
        a.reduce(
            invite(vec![pick('E', 1), pick('F', 1)], 0),
            Millis(1),
            &cfg()
        ),
        vec![Effect::Notice(Notice::Busy)]
    );
    // Someone whose invitation waits for our answer must be answered first.
    let mut e = PartyState::default();
    e.reduce(peer('B', invitation(3)), Millis(0), &cfg());
    assert_eq!(
        e.reduce(
            invite(vec![pick('B', 1), pick('C', 1)], 0),
            Millis(1),
            &cfg()
        ),
        vec![Effect::Notice(Notice::AnswerFirst(id('B')))]
    );
    // A page of several games names the game; the rules are that game's.
    let mut f = PartyState::default();
    let fx = f.reduce(
        Event::Invite {
            picks: vec![pick('B', 1), pick('C', 1)],
            side: 0,
            game: GameName::parse("NtBA"),
            busy: false,
        },
        Millis(0),
        &cfg(),
    );
    assert_eq!(
        fx[0],
        Effect::Send(
            id('B'),
            PeerMsg::PartyInvite {
                game: GameName::parse("NtBA"),
                people: 3
            }
        )
    );
}

#[test]
fn busy_and_muted_players_decline_automatically() {
    let busy = |c| {
        vec![Effect::Send(
            id(c),
            PeerMsg::PartyDecline(DeclineReason::Busy),
        )]
    };
    // In a match.
    let mut b = PartyState {
        in_match: true,
        ..Default::default()
    };
    assert_eq!(
        b.reduce(peer('A', invitation(3)), Millis(0), &cfg()),
        busy('A')
    );
    // Busy with a challenge: the caller says so.
    let mut b = PartyState::default();
    let ev = Event::Peer {
        from: id('A'),
        msg: invitation(3),
        muted: false,
        busy: true,
    };
    assert_eq!(b.reduce(ev, Millis(0), &cfg()), busy('A'));
    // Waiting for another party's start.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(1),
        &cfg(),
    );
    assert_eq!(
        b.reduce(peer('C', invitation(3)), Millis(2), &cfg()),
        busy('C')
    );
    assert!(b.incoming.is_empty());
    // Muted.
    let mut b = PartyState::default();
    let ev = Event::Peer {
        from: id('A'),
        msg: invitation(3),
        muted: true,
        busy: false,
    };
    assert_eq!(
        b.reduce(ev, Millis(0), &cfg()),
        vec![Effect::Send(
            id('A'),
            PeerMsg::PartyDecline(DeclineReason::Muted)
        )]
    );
    // Muting a challenger whose invitation waits declines it then.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(peer('C', invitation(3)), Millis(0), &cfg());
    assert_eq!(
        b.reduce(Event::Muted(id('A')), Millis(1), &cfg()),
        vec![Effect::Send(
            id('A'),
            PeerMsg::PartyDecline(DeclineReason::Muted)
        )]
    );
    assert!(b.incoming_from(&id('C')).is_some(), "others stay");
    // The challenger's side: a CPU takes each such place, with a notice.
    let mut a = party_of_four(Millis(0));
    for (c, reason, notice) in [
        ('B', DeclineReason::Busy, Notice::TheyAreBusy(id('B'))),
        ('C', DeclineReason::Muted, Notice::NotTaking(id('C'))),
        (
            'D',
            DeclineReason::UnknownGame,
            Notice::TheyLackGame(id('D')),
        ),
    ] {
        let fx = a.reduce(peer(c, PeerMsg::PartyDecline(reason)), Millis(1), &cfg());
        assert_eq!(fx[0], Effect::Notice(notice));
    }
    assert_eq!(a, PartyState::default(), "nobody came");
}

#[test]
fn a_page_that_cannot_play_the_party_declines_it() {
    let mut b = PartyState::default();
    // A game this page lacks.
    let ev = peer(
        'A',
        PeerMsg::PartyInvite {
            game: GameName::parse("Chess"),
            people: 3,
        },
    );
    assert_eq!(
        b.reduce(ev, Millis(0), &cfg()),
        vec![
            Effect::Send(id('A'), PeerMsg::PartyDecline(DeclineReason::UnknownGame)),
            Effect::Notice(Notice::WeLackGame(id('A'))),
        ]
    );
    // A game for fewer people than the party holds.
    let ev = peer(
        'A',
        PeerMsg::PartyInvite {
            game: GameName::parse("Dots"),
            people: 3,
        },
    );
    assert_eq!(b.reduce(ev, Millis(0), &cfg()).len(), 2);
    assert!(b.incoming.is_empty());
}

#[test]
fn an_invited_player_leaving_mid_invitation_gives_up_the_place() {
    let mut a = party_of_four(Millis(0));
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(peer('C', PeerMsg::PartyAccept), Millis(1), &cfg());
    // D leaves before answering: the party starts with A, B and C.
    assert_eq!(
        a.reduce(Event::PlayerLeft(id('D')), Millis(2), &cfg()),
        vec![
            Effect::Notice(Notice::Left(id('D'))),
            Effect::CreateRoom { players: 3 }
        ]
    );
    // B leaves after accepting, while the room is being made: C remains.
    assert_eq!(
        a.reduce(Event::PlayerLeft(id('B')), Millis(3), &cfg()),
        vec![Effect::Notice(Notice::Left(id('B')))]
    );
    let fx = a.reduce(Event::RoomCreated(room()), Millis(4), &cfg());
    assert_eq!(fx[0], Effect::Send(id('C'), start(room(), 1, &[0, 1])));
    assert_eq!(fx.len(), 2);
    // After the start, a lobby drop changes nothing: the room carries on.
    assert!(a
        .reduce(Event::PlayerLeft(id('C')), Millis(5), &cfg())
        .is_empty());
    // And the last accepted player leaving while the room is being made
    // calls the party off, closing the room.
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 1)], 0),
        Millis(0),
        &cfg(),
    );
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(Event::PlayerLeft(id('C')), Millis(2), &cfg());
    assert_eq!(
        a.reduce(Event::PlayerLeft(id('B')), Millis(3), &cfg()),
        vec![
            Effect::Notice(Notice::Left(id('B'))),
            Effect::CloseRoom,
            Effect::Notice(Notice::NobodyCame)
        ]
    );
    assert_eq!(
        a.reduce(Event::RoomCreated(room()), Millis(4), &cfg()),
        vec![Effect::CloseRoom]
    );
}

#[test]
fn the_challenger_leaving_ends_the_wait_of_those_who_accepted() {
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(peer('C', invitation(3)), Millis(0), &cfg());
    b.reduce(Event::PlayerLeft(id('C')), Millis(1), &cfg());
    assert!(b.incoming_from(&id('C')).is_none(), "C's invitation goes");
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(1),
        &cfg(),
    );
    assert_eq!(
        b.reduce(Event::PlayerLeft(id('A')), Millis(2), &cfg()),
        vec![Effect::Notice(Notice::Left(id('A')))]
    );
    assert_eq!(b, PartyState::default());
    // Once the start came, the room no longer needs the lobby.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(1),
        &cfg(),
    );
    b.reduce(peer('A', start(room(), 1, &[0, 1])), Millis(2), &cfg());
    assert!(b
        .reduce(Event::PlayerLeft(id('A')), Millis(3), &cfg())
        .is_empty());
    assert!(b.member.is_some());
}

#[test]
fn two_parties_racing_for_one_player_get_one_answer_each() {
    // A and C both invite B.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(peer('C', invitation(4)), Millis(1), &cfg());
    assert_eq!(b.incoming.len(), 2);
    assert_eq!(
        b.reduce(
            Event::Accept {
                from: id('C'),
                busy: false
            },
            Millis(2),
            &cfg()
        ),
        vec![
            Effect::Send(id('C'), PeerMsg::PartyAccept),
            Effect::Send(id('A'), PeerMsg::PartyDecline(DeclineReason::Busy)),
        ]
    );
    // A start from the party B did not join is dropped.
    assert!(b
        .reduce(peer('A', start(room(), 1, &[0, 1])), Millis(3), &cfg())
        .is_empty());
    assert!(matches!(
        &b.member,
        Some(Member { host, phase: MemberPhase::Waiting { .. }, .. }) if *host == id('C')
    ));
    // Accept is disabled while a challenge holds us (the caller says so).
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    assert!(b
        .reduce(
            Event::Accept {
                from: id('A'),
                busy: true
            },
            Millis(1),
            &cfg()
        )
        .is_empty());
    assert!(b.incoming_from(&id('A')).is_some());
    // And while our own party is out.
    let mut a = party_of_four(Millis(0));
    a.reduce(peer('E', invitation(3)), Millis(1), &cfg());
    assert_eq!(a.incoming.len(), 1, "kept: our party may be called off");
    assert!(a
        .reduce(
            Event::Accept {
                from: id('E'),
                busy: false
            },
            Millis(2),
            &cfg()
        )
        .is_empty());
}

#[test]
fn two_who_invite_each_other_at_once_drop_each_other() {
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 1)], 0),
        Millis(0),
        &cfg(),
    );
    let mut b = PartyState::default();
    b.reduce(
        invite(vec![pick('A', 1), pick('D', 1)], 0),
        Millis(0),
        &cfg(),
    );
    let fa = a.reduce(peer('B', invitation(3)), Millis(5), &cfg());
    let fb = b.reduce(peer('A', invitation(3)), Millis(5), &cfg());
    for (fx, other) in [(fa, 'B'), (fb, 'A')] {
        assert_eq!(
            fx,
            vec![
                Effect::Send(id(other), PeerMsg::PartyCancel),
                Effect::Send(id(other), PeerMsg::PartyDecline(DeclineReason::Mutual)),
                Effect::Notice(Notice::Mutual(id(other))),
            ]
        );
    }
    // The crossing cancel and decline find nothing to act on, and each
    // party goes on with its other player.
    assert!(a
        .reduce(peer('B', PeerMsg::PartyCancel), Millis(6), &cfg())
        .is_empty());
    assert!(a
        .reduce(
            peer('B', PeerMsg::PartyDecline(DeclineReason::Mutual)),
            Millis(6),
            &cfg()
        )
        .is_empty());
    assert_eq!(
        a.reduce(peer('C', PeerMsg::PartyAccept), Millis(7), &cfg()),
        vec![Effect::CreateRoom { players: 2 }]
    );
}

#[test]
fn cancel_withdraws_every_invitation_and_closes_a_room_asked_for() {
    let mut a = party_of_four(Millis(0));
    a.reduce(
        peer('B', PeerMsg::PartyDecline(DeclineReason::Declined)),
        Millis(1),
        &cfg(),
    );
    assert_eq!(
        a.reduce(Event::Cancel, Millis(2), &cfg()),
        vec![
            Effect::Send(id('C'), PeerMsg::PartyCancel),
            Effect::Send(id('D'), PeerMsg::PartyCancel),
        ]
    );
    assert_eq!(a, PartyState::default());
    // On the invited side: a waiting invitation goes with a notice; so
    // does an accepted place, leaving the room if the start came.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    assert_eq!(
        b.reduce(peer('A', PeerMsg::PartyCancel), Millis(1), &cfg()),
        vec![Effect::Notice(Notice::Withdrawn(id('A')))]
    );
    b.reduce(peer('A', invitation(3)), Millis(2), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(3),
        &cfg(),
    );
    b.reduce(peer('A', start(room(), 1, &[0, 1])), Millis(4), &cfg());
    assert_eq!(
        b.reduce(peer('A', PeerMsg::PartyCancel), Millis(5), &cfg()),
        vec![
            Effect::LeaveRoom,
            Effect::Notice(Notice::Withdrawn(id('A')))
        ]
    );
    assert_eq!(b, PartyState::default());
}

#[test]
fn a_match_that_does_not_connect_in_30_s_is_called_off_on_both_sides() {
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 1)], 0),
        Millis(0),
        &cfg(),
    );
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(peer('C', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(Event::RoomCreated(room()), Millis(2), &cfg());
    assert!(a.reduce(Event::Tick, Millis(30_001), &cfg()).is_empty());
    assert_eq!(
        a.reduce(Event::Tick, Millis(30_002), &cfg()),
        vec![
            Effect::Send(id('B'), PeerMsg::PartyCancel),
            Effect::Send(id('C'), PeerMsg::PartyCancel),
            Effect::CloseRoom,
            Effect::Notice(Notice::DidNotConnect),
        ]
    );
    // A member that joined gives up at its own deadline.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(0),
        &cfg(),
    );
    b.reduce(peer('A', start(room(), 1, &[0, 1, 1])), Millis(10), &cfg());
    assert_eq!(
        b.reduce(Event::Tick, Millis(30_010), &cfg()),
        vec![Effect::LeaveRoom, Effect::Notice(Notice::ConnectFailed)]
    );
    // One whose start never came gives up after the answer time and the
    // connect time.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(0),
        &cfg(),
    );
    assert!(b.reduce(Event::Tick, Millis(59_999), &cfg()).is_empty());
    assert_eq!(
        b.reduce(Event::Tick, Millis(60_000), &cfg()),
        vec![
            Effect::Send(id('A'), PeerMsg::PartyDecline(DeclineReason::Busy)),
            Effect::Notice(Notice::ConnectFailed)
        ]
    );
}

#[test]
fn room_and_match_failures_call_the_party_off() {
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 1)], 0),
        Millis(0),
        &cfg(),
    );
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(peer('C', PeerMsg::PartyAccept), Millis(1), &cfg());
    assert_eq!(
        a.reduce(Event::RoomFailed, Millis(2), &cfg()),
        vec![
            Effect::Send(id('B'), PeerMsg::PartyCancel),
            Effect::Send(id('C'), PeerMsg::PartyCancel),
            Effect::CloseRoom,
            Effect::Notice(Notice::ConnectFailed),
        ]
    );
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(0),
        &cfg(),
    );
    // Before the start there is no match of the party's to fail.
    assert!(b.reduce(Event::MatchFailed, Millis(1), &cfg()).is_empty());
    b.reduce(peer('A', start(room(), 1, &[0, 1])), Millis(1), &cfg());
    assert_eq!(
        b.reduce(Event::MatchFailed, Millis(2), &cfg()),
        vec![Effect::LeaveRoom, Effect::Notice(Notice::ConnectFailed)]
    );
    // A party still inviting is not touched by another room's failure.
    let mut a = party_of_four(Millis(0));
    assert!(a.reduce(Event::RoomFailed, Millis(1), &cfg()).is_empty());
    assert!(a.reduce(Event::MatchFailed, Millis(1), &cfg()).is_empty());
    assert!(a.hosting.is_some());
}

#[test]
fn losing_our_lobby_connection_before_the_start_calls_off_or_gives_up() {
    let mut a = party_of_four(Millis(0));
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(peer('E', invitation(3)), Millis(1), &cfg());
    assert_eq!(
        a.reduce(Event::LobbyLost, Millis(2), &cfg()),
        vec![
            Effect::Send(id('B'), PeerMsg::PartyCancel),
            Effect::Send(id('C'), PeerMsg::PartyCancel),
            Effect::Send(id('D'), PeerMsg::PartyCancel),
            Effect::Notice(Notice::LobbyLost),
        ]
    );
    assert_eq!(a, PartyState::default());
    // A member still waiting for the start gives its place up; the
    // challenger's page gives it to a CPU.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(4)), Millis(0), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(0),
        &cfg(),
    );
    assert_eq!(
        b.reduce(Event::LobbyLost, Millis(1), &cfg()),
        vec![
            Effect::Send(id('A'), PeerMsg::PartyDecline(DeclineReason::Busy)),
            Effect::Notice(Notice::LobbyLost),
        ]
    );
    let mut a = party_of_four(Millis(0));
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    assert_eq!(
        a.reduce(
            peer('B', PeerMsg::PartyDecline(DeclineReason::Busy)),
            Millis(2),
            &cfg()
        ),
        vec![Effect::Notice(Notice::Left(id('B')))]
    );
    // A party that started carries on without the lobby.
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 1)], 0),
        Millis(0),
        &cfg(),
    );
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(peer('C', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(Event::RoomCreated(room()), Millis(2), &cfg());
    assert!(a.reduce(Event::LobbyLost, Millis(3), &cfg()).is_empty());
}

#[test]
fn a_match_declines_the_invitations_still_waiting() {
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(
        Event::Accept {
            from: id('A'),
            busy: false,
        },
        Millis(0),
        &cfg(),
    );
    b.reduce(peer('A', start(room(), 1, &[0, 1])), Millis(1), &cfg());
    // An invitation that arrives while joining is declined at once.
    assert_eq!(
        b.reduce(peer('C', invitation(3)), Millis(2), &cfg()),
        vec![Effect::Send(
            id('C'),
            PeerMsg::PartyDecline(DeclineReason::Busy)
        )]
    );
    // The challenger's page, whose own invitations were out, declines what
    // waited once its party's match runs.
    let mut a = PartyState::default();
    a.reduce(
        invite(vec![pick('B', 1), pick('C', 1)], 0),
        Millis(0),
        &cfg(),
    );
    a.reduce(peer('E', invitation(3)), Millis(1), &cfg());
    a.reduce(peer('B', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(peer('C', PeerMsg::PartyAccept), Millis(1), &cfg());
    a.reduce(Event::RoomCreated(room()), Millis(2), &cfg());
    assert_eq!(
        a.reduce(Event::MatchConnected, Millis(3), &cfg()),
        vec![
            Effect::SetStatus(PlayerStatus::InMatch),
            Effect::Send(id('E'), PeerMsg::PartyDecline(DeclineReason::Busy)),
        ]
    );
}

#[test]
fn stray_messages_change_nothing() {
    let mut s = PartyState::default();
    for msg in [
        PeerMsg::PartyCancel,
        PeerMsg::PartyDecline(DeclineReason::Declined),
        start(room(), 1, &[0, 1]),
        PeerMsg::Accept,
        PeerMsg::Cancel,
        PeerMsg::Chat("x".into()),
    ] {
        assert!(s.reduce(peer('Z', msg), Millis(0), &cfg()).is_empty());
    }
    // A stray accept is answered with a cancel, so its sender stops waiting.
    assert_eq!(
        s.reduce(peer('Z', PeerMsg::PartyAccept), Millis(0), &cfg()),
        vec![Effect::Send(id('Z'), PeerMsg::PartyCancel)]
    );
    for ev in [
        Event::Accept {
            from: id('Z'),
            busy: false,
        },
        Event::Decline(id('Z')),
        Event::MatchConnected,
        Event::MatchEnded,
        Event::Cancel,
        Event::Muted(id('Z')),
        Event::PlayerLeft(id('Z')),
        Event::LobbyLost,
        Event::Tick,
    ] {
        assert!(s.reduce(ev, Millis(0), &cfg()).is_empty());
    }
    assert_eq!(s, PartyState::default());
    // A challenger's answers from players it never invited are dropped.
    let mut a = party_of_four(Millis(0));
    let before = a.clone();
    a.reduce(
        peer('Z', PeerMsg::PartyDecline(DeclineReason::Declined)),
        Millis(1),
        &cfg(),
    );
    assert_eq!(a, before);
}

#[test]
fn a_repeated_invitation_replaces_the_waiting_one() {
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), Millis(0), &cfg());
    b.reduce(peer('A', invitation(4)), Millis(10), &cfg());
    assert_eq!(b.incoming.len(), 1);
    assert_eq!(b.incoming[0].people, 4);
    assert_eq!(b.incoming[0].deadline, Millis(30_010));
}

#[test]
fn watching_a_match_makes_us_busy_until_it_ends_and_only_when_free() {
    let t = Millis(1_000);
    // Free: watching says we are in a match, and a waiting invitation is
    // declined as busy.
    let mut b = PartyState::default();
    b.reduce(peer('A', invitation(3)), t, &cfg());
    assert_eq!(
        b.reduce(Event::Watching, t, &cfg()),
        [
            Effect::SetStatus(PlayerStatus::InMatch),
            Effect::Send(id('A'), PeerMsg::PartyDecline(DeclineReason::Busy)),
        ]
    );
    assert!(b.in_match && b.busy() && !b.can_invite());
    // The end of what we watched frees us.
    assert_eq!(
        b.reduce(Event::MatchEnded, t, &cfg()),
        [Effect::SetStatus(PlayerStatus::Lobby)]
    );
    assert!(b.can_invite());
    // Hosting a party of our own: watching changes nothing.
    let mut a = party_of_four(t);
    assert_eq!(a.reduce(Event::Watching, t, &cfg()), []);
    assert!(!a.in_match);
}
