//! A member room's members leaving (closing, `done`, a cap), each announced
//! to the others, and every frame a member room refuses.

use crate::common;

use common::FakeHost;
use serde_json::json;
use signaling_core::{
    close_code, Event, JoinRole, MemberId, Millis, Room, RoomAttachment, RoomCapacity, RoomCode,
    RoomLimits, SocketId,
};

struct Setup {
    room: Room,
    h: FakeHost<RoomAttachment>,
    /// Host 0, players 1 and 2, spectator 8.
    s: [SocketId; 4],
}

fn setup(limits: RoomLimits) -> Setup {
    let mut h = FakeHost::default();
    let cap = RoomCapacity {
        players: 3,
        spectators: 2,
    };
    let (mut room, a) =
        Room::with_members(RoomCode::parse("ABCDEF").unwrap(), cap, limits, Millis(0));
    h.apply(a);
    let mut s = [SocketId(0); 4];
    for (i, role) in [
        JoinRole::Host,
        JoinRole::Player,
        JoinRole::Player,
        JoinRole::Spectator,
    ]
    .into_iter()
    .enumerate()
    {
        let (socket, a) = room.admit(role, Millis(1)).unwrap();
        h.apply(a);
        s[i] = socket;
    }
    for socket in s {
        h.take(socket);
    }
    Setup { room, h, s }
}

impl Setup {
    fn send(&mut self, i: usize, text: &str) {
        let a = self.room.handle(
            Event::Text {
                socket: self.s[i],
                text,
            },
            Millis(5),
        );
        self.h.apply(a);
    }

    fn nobody_else_heard(&mut self, but: usize) {
        for (i, s) in self.s.into_iter().enumerate() {
            if i != but {
                assert!(
                    self.h.take(s).is_empty(),
                    "member socket {i} heard something"
                );
            }
        }
    }
}

#[test]
fn frames_a_member_room_does_not_take_are_refused_to_the_sender_alone() {
    let mut x = setup(RoomLimits::default());
    for bad in [
        r#"{"type":"signal","to":9,"data":{}}"#,
        r#"{"type":"signal","to":2,"data":{}}"#,
        r#"{"type":"signal","to":24,"data":{}}"#,
        r#"{"type":"signal","to":"0","data":{}}"#,
        r#"{"type":"signal","to":0}"#,
        r#"{"type":"offer","sdp":"x"}"#,
        r#"{"type":"ice","candidate":""}"#,
        r#"{"type":"relay-ticket"}"#,
        r#"{"type":"welcome"}"#,
        "[1]",
        "",
    ] {
        x.send(2, bad);
        let got = x.h.only(x.s[2]);
        assert_eq!(got["type"], "error", "{bad}: {got}");
        x.nobody_else_heard(2);
    }
    let a = x.room.handle(
        Event::Binary {
            socket: x.s[2],
            len: 3,
        },
        Millis(5),
    );
    x.h.apply(a);
    assert_eq!(x.h.only(x.s[2])["type"], "error");
    x.send(3, r#"{"type":"ping"}"#);
    assert_eq!(x.h.only(x.s[3]), json!({"type":"pong"}));
}

#[test]
fn a_member_that_closes_is_announced_and_its_place_is_free_again() {
    let mut x = setup(RoomLimits::default());
    let a = x.room.handle(Event::Closed { socket: x.s[1] }, Millis(6));
    x.h.apply(a);
    for i in [0, 2, 3] {
        assert_eq!(x.h.only(x.s[i]), json!({"type":"member-left","id":1}));
    }
    assert!(x.h.take(x.s[1]).is_empty());
    x.send(0, r#"{"type":"signal","to":1,"data":1}"#);
    assert_eq!(x.h.only(x.s[0])["type"], "error");
    let (again, a) = x.room.admit(JoinRole::Player, Millis(7)).unwrap();
    x.h.apply(a);
    assert_eq!(x.h.only(again)["you"], 1);
    assert_eq!(x.room.member_socket(MemberId(1)), Some(again));
}

#[test]
fn done_ends_a_member_or_from_the_host_the_room() {
    let mut x = setup(RoomLimits::default());
    x.send(3, r#"{"type":"done"}"#);
    assert_eq!(x.h.closed.get(&x.s[3]), Some(&(close_code::NORMAL, "done")));
    for i in [0, 1, 2] {
        assert_eq!(x.h.only(x.s[i]), json!({"type":"member-left","id":8}));
    }
    assert!(!x.h.finished);
    x.send(1, r#"{"type":"done"}"#);
    assert!(!x.h.finished);
    for i in [0, 2] {
        assert_eq!(x.h.only(x.s[i]), json!({"type":"member-left","id":1}));
    }
    x.send(0, r#"{"type":"done"}"#);
    assert!(x.h.finished);
    for i in [0, 2] {
        assert_eq!(x.h.closed.get(&x.s[i]), Some(&(close_code::NORMAL, "done")));
    }
    assert!(x.room.admit(JoinRole::Player, Millis(8)).is_err());
}

#[test]
fn caps_close_only_the_member_over_them_and_its_count_outlives_its_socket() {
    let limits = RoomLimits {
        max_member_messages: 3,
        ..RoomLimits::default()
    };
    let mut x = setup(limits);
    let big = format!(r#"{{"type":"ping","pad":"{}"}}"#, "x".repeat(8200));
    x.send(2, &big);
    assert_eq!(
        x.h.closed.get(&x.s[2]).map(|c| c.0),
        Some(close_code::TOO_BIG)
    );
    for i in [0, 1, 3] {
        assert_eq!(x.h.only(x.s[i]), json!({"type":"member-left","id":2}));
    }
    for _ in 0..3 {
        x.send(1, r#"{"type":"ping"}"#);
    }
    x.send(1, r#"{"type":"ping"}"#);
    assert_eq!(
        x.h.closed.get(&x.s[1]).map(|c| c.0),
        Some(close_code::POLICY)
    );
    assert!(x.h.logs.iter().any(|l| l.contains("room.kicked")));
    // Whoever takes place 1 next carries on from its four messages (the
    // one over the cap counted too).
    let (again, a) = x.room.admit(JoinRole::Player, Millis(9)).unwrap();
    x.h.apply(a);
    assert_eq!(x.h.attachments[&again].messages, 4);
    let a = x.room.handle(
        Event::Text {
            socket: again,
            text: r#"{"type":"ping"}"#,
        },
        Millis(9),
    );
    x.h.apply(a);
    assert_eq!(
        x.h.closed.get(&again).map(|c| c.0),
        Some(close_code::POLICY)
    );
}

#[test]
fn the_expiry_alarm_closes_every_member() {
    let mut x = setup(RoomLimits::default());
    let at = x.h.alarm.expect("an expiry alarm");
    let a = x.room.handle(Event::Alarm, at);
    x.h.apply(a);
    assert!(x.h.finished);
    for s in x.s {
        assert_eq!(
            x.h.closed.get(&s),
            Some(&(close_code::NORMAL, "room expired"))
        );
    }
}
