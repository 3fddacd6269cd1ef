//! Each machine can say whether it would admit a socket without admitting
//! it (`check_admission`), and its answer is always the one `admit` then
//! gives: the hosts ask first, charge the day's budget only for an upgrade
//! the machine takes, and admit while still holding the machine.

use std::net::IpAddr;

use signaling_core::{
    JoinRole, Lobby, LobbyLimits, LobbyRefusal, Millis, Relay, RelayLimits, RelayRefusal, Role,
    Room, RoomCapacity, RoomCode, RoomLimits, RoomRefusal,
};

fn code() -> RoomCode {
    RoomCode::parse("ABCDEF").unwrap()
}

/// Asks, then admits, and checks that both gave the same answer.
fn ask_then_admit(room: &mut Room, role: JoinRole, now: Millis) -> Result<(), RoomRefusal> {
    let asked = room.check_admission(role, now);
    let taken = room.admit(role, now).map(|_| ());
    assert_eq!(asked, taken, "{role:?} at {now:?}");
    taken
}

#[test]
fn a_two_seat_room_answers_the_same_before_and_when_admitting() {
    let (mut room, _) = Room::new(code(), RoomLimits::default(), Millis(0));
    // Asking changes nothing: the host's place is still free afterwards.
    for _ in 0..3 {
        assert_eq!(room.check_admission(JoinRole::Host, Millis(1)), Ok(()));
    }
    assert_eq!(ask_then_admit(&mut room, JoinRole::Host, Millis(1)), Ok(()));
    assert_eq!(
        ask_then_admit(&mut room, JoinRole::Host, Millis(2)),
        Err(RoomRefusal::Occupied)
    );
    for role in [JoinRole::Player, JoinRole::Spectator] {
        assert_eq!(
            ask_then_admit(&mut room, role, Millis(2)),
            Err(RoomRefusal::WrongRole)
        );
    }
    let expired = Millis(RoomLimits::default().ttl_ms);
    assert_eq!(
        ask_then_admit(&mut room, JoinRole::Guest, expired),
        Err(RoomRefusal::NotFound)
    );
    assert_eq!(
        ask_then_admit(&mut room, JoinRole::Guest, Millis(3)),
        Ok(())
    );
}

#[test]
fn a_member_room_answers_the_same_before_and_when_admitting() {
    let capacity = RoomCapacity::from_query("players=3&spectators=1")
        .unwrap()
        .unwrap();
    let (mut room, _) = Room::with_members(code(), capacity, RoomLimits::default(), Millis(0));
    let now = Millis(1);
    assert_eq!(
        ask_then_admit(&mut room, JoinRole::Guest, now),
        Err(RoomRefusal::WrongRole)
    );
    assert_eq!(ask_then_admit(&mut room, JoinRole::Host, now), Ok(()));
    assert_eq!(
        ask_then_admit(&mut room, JoinRole::Host, now),
        Err(RoomRefusal::Occupied)
    );
    for _ in 0..2 {
        assert_eq!(ask_then_admit(&mut room, JoinRole::Player, now), Ok(()));
    }
    assert_eq!(
        ask_then_admit(&mut room, JoinRole::Player, now),
        Err(RoomRefusal::PlayersFull)
    );
    assert_eq!(ask_then_admit(&mut room, JoinRole::Spectator, now), Ok(()));
    assert_eq!(
        ask_then_admit(&mut room, JoinRole::Spectator, now),
        Err(RoomRefusal::SpectatorsFull)
    );
}

#[test]
fn a_relay_answers_the_same_before_and_when_admitting() {
    let limits = RelayLimits::default();
    let (mut relay, _) = Relay::new(code(), limits, Millis(0));
    let mut both = |role: Role, now: Millis| {
        let asked = relay.check_admission(role, now);
        let taken = relay.admit(role, now).map(|_| ());
        assert_eq!(asked, taken, "{role:?} at {now:?}");
        taken
    };
    assert_eq!(both(Role::Host, Millis(1)), Ok(()));
    assert_eq!(both(Role::Host, Millis(1)), Err(RelayRefusal::Occupied));
    assert_eq!(
        both(Role::Guest, Millis(limits.ttl_ms)),
        Err(RelayRefusal::Gone)
    );
    assert_eq!(both(Role::Guest, Millis(2)), Ok(()));
}

#[test]
fn a_lobby_answers_the_same_before_and_when_admitting() {
    let mut lobby = Lobby::new(LobbyLimits {
        max_sockets: 3,
        max_sockets_per_address: 2,
        ..LobbyLimits::default()
    });
    let one: IpAddr = "192.0.2.1".parse().unwrap();
    let other: IpAddr = "192.0.2.2".parse().unwrap();
    let mut both = |address: Option<IpAddr>| {
        let asked = lobby.check_admission(address);
        let taken = lobby.admit_from(Millis(1), address).map(|_| ());
        assert_eq!(asked, taken, "{address:?}");
        taken
    };
    assert_eq!(both(Some(one)), Ok(()));
    assert_eq!(both(Some(one)), Ok(()));
    assert_eq!(both(Some(one)), Err(LobbyRefusal::TooManyFromAddress));
    assert_eq!(both(Some(other)), Ok(()));
    assert_eq!(both(None), Err(LobbyRefusal::TooManySockets));
}
