//! A room code lets anyone into its room while it lives: a room's life,
//! from creation through a kick and a reconnect to `done` and to expiry,
//! logs its code in one debug record and nowhere else.

use crate::common;

use common::FakeHost;
use signaling_core::{Event, Millis, Role, Room, RoomAttachment, RoomCode, RoomLimits};

fn check(logs: &[String]) {
    let with_code: Vec<&String> = logs.iter().filter(|l| l.contains("K7M2QX")).collect();
    assert_eq!(with_code.len(), 1, "{logs:#?}");
    assert!(
        with_code[0].starts_with(r#"{"level":"debug","event":"room.code""#),
        "{}",
        with_code[0]
    );
    for l in logs.iter().filter(|l| l.contains(r#""event":"room."#)) {
        assert!(
            l.contains(r#""room":1000"#),
            "each room record names the room: {l}"
        );
    }
}

#[test]
fn a_rooms_code_appears_only_in_its_debug_record() {
    let code = RoomCode::parse("K7M2QX").unwrap();
    let mut h = FakeHost::<RoomAttachment>::default();
    let (mut room, a) = Room::new(code.clone(), RoomLimits::default(), Millis(1_000));
    h.apply(a);
    let (host, a) = room.admit(Role::Host, Millis(1_100)).unwrap();
    h.apply(a);
    h.apply(room.handle(
        Event::Binary {
            socket: host,
            len: 9_000,
        },
        Millis(1_200),
    ));
    let (host, a) = room.admit(Role::Host, Millis(1_300)).unwrap();
    h.apply(a);
    let (guest, a) = room.admit(Role::Guest, Millis(1_400)).unwrap();
    h.apply(a);
    h.apply(room.handle(Event::Closed { socket: guest }, Millis(1_500)));
    h.apply(room.handle(
        Event::Text {
            socket: host,
            text: r#"{"type":"done"}"#,
        },
        Millis(1_600),
    ));
    assert!(h.finished);
    check(&h.logs);

    let mut h = FakeHost::<RoomAttachment>::default();
    let (mut room, a) = Room::new(code, RoomLimits::default(), Millis(1_000));
    h.apply(a);
    h.apply(room.handle(Event::Alarm, Millis(601_000)));
    assert!(h.finished, "expired");
    check(&h.logs);
}
