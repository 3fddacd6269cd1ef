//! A player flooded with handshake messages is not closed for answering
//! them: each signal relayed to it lets it answer the sender a few times
//! free of its own rate window, and the sender pays for what it sent.

use crate::common;

use common::{hello, pid, FakeHost};
use signaling_core::{
    close_code, Event, Lobby, LobbyAttachment, LobbyLimits, Millis, SocketId, MAX_REPLY_CREDIT,
};

fn join(lobby: &mut Lobby, h: &mut FakeHost<LobbyAttachment>, tag: &str) -> SocketId {
    let (s, a) = lobby.admit(Millis(0)).unwrap();
    h.apply(a);
    let text = hello(&pid(tag), tag);
    h.apply(lobby.handle(
        Event::Text {
            socket: s,
            text: &text,
        },
        Millis(1),
    ));
    s
}

fn signal(to: &str) -> String {
    format!(r#"{{"type":"signal","to":"{}","data":{{}}}}"#, pid(to))
}

#[test]
fn answers_cost_the_player_who_asked() {
    let limits = LobbyLimits {
        messages_per_minute: 10,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits);
    let mut h = FakeHost::default();
    let pusher = join(&mut lobby, &mut h, "p");
    let victim = join(&mut lobby, &mut h, "v");
    let (to_victim, to_pusher) = (signal("v"), signal("p"));
    // Nine signals (the hello used the tenth of the pusher's minute), each
    // answered twice: 18 answers, well over the victim's own 10.
    for i in 0..9 {
        let t = Millis(10 + i);
        h.apply(lobby.handle(
            Event::Text {
                socket: pusher,
                text: &to_victim,
            },
            t,
        ));
        for _ in 0..2 {
            h.apply(lobby.handle(
                Event::Text {
                    socket: victim,
                    text: &to_pusher,
                },
                t,
            ));
        }
    }
    assert!(h.closed.is_empty(), "nobody closed: {:?}", h.closed);
    // The pusher's own minute is spent; its next frame closes it.
    h.apply(lobby.handle(
        Event::Text {
            socket: pusher,
            text: &to_victim,
        },
        Millis(30),
    ));
    assert_eq!(h.closed.get(&pusher).map(|c| c.0), Some(close_code::POLICY));
    // Its credit went with it: the victim's next signals are its own again.
    assert!(lobby
        .attachment(victim)
        .is_some_and(|a| a.reply_credit.is_empty()));
}

#[test]
fn credit_is_banked_up_to_a_cap_and_only_toward_the_asker() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let mut h = FakeHost::default();
    let pusher = join(&mut lobby, &mut h, "p");
    let victim = join(&mut lobby, &mut h, "v");
    let _third = join(&mut lobby, &mut h, "t");
    let to_victim = signal("v");
    for i in 0..50 {
        h.apply(lobby.handle(
            Event::Text {
                socket: pusher,
                text: &to_victim,
            },
            Millis(10 + i),
        ));
    }
    let credit = &lobby.attachment(victim).unwrap().reply_credit;
    assert_eq!(credit.len(), 1, "credit only toward the sender");
    assert_eq!(credit.values().next(), Some(&MAX_REPLY_CREDIT));
}
