//! A host that hibernates whenever time passes between two events
//! (rebuilding the machine from its live sockets' attachments, as a Durable
//! Object may) sends exactly the same frames and closes as one that never
//! hibernates, and never hands out a socket id twice: for the lobby, a
//! two-seat room and a member room.

use std::collections::BTreeMap;

use proptest::prelude::*;
use signaling_core::{
    Action, Event, JoinRole, Lobby, LobbyAttachment, LobbyLimits, Millis, Role, Room,
    RoomAttachment, RoomCapacity, RoomCode, RoomLimits, SocketId,
};

#[derive(Debug, Clone)]
enum Op {
    Admit,
    /// A frame on the k-th admitted socket.
    Text(usize, String),
    /// The k-th admitted socket closes from the client's side.
    Close(usize),
    Alarm,
    Wait(u64),
}

fn frame() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u8..6, 0u8..4).prop_map(|(id, nick)| format!(
            r#"{{"type":"hello","id":"PLAYER{id:06}","nick":"{}"}}"#,
            ["a", "  b  ", "", "\u{202E}x"][nick as usize]
        )),
        (0u8..3).prop_map(|s| format!(
            r#"{{"type":"status","status":"{}"}}"#,
            ["lobby", "in-match", "away"][s as usize]
        )),
        (0u8..7).prop_map(|to| format!(
            r#"{{"type":"signal","to":"PLAYER{to:06}","data":{{"k":[1, 2]}}}}"#
        )),
        (0u8..10).prop_map(|to| format!(r#"{{"type":"signal","to":{to},"data":[1, {{}}]}}"#)),
        (0u8..5).prop_map(|t| format!(
            r#"{{"type":"{}","x":1}}"#,
            ["offer", "answer", "ice", "done", "bogus"][t as usize]
        )),
        Just("junk".to_owned()),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            2 => Just(Op::Admit),
            6 => (0usize..8, frame()).prop_map(|(s, f)| Op::Text(s, f)),
            1 => (0usize..8).prop_map(Op::Close),
            1 => Just(Op::Alarm),
            3 => (0u64..4_000).prop_map(Op::Wait),
        ],
        1..120,
    )
}

/// One host: a machine (rebuilt before every event when `hibernates`), the
/// attachments of its live sockets, and the sockets in admission order.
struct Host<M, A> {
    machine: M,
    live: BTreeMap<SocketId, A>,
    admitted: Vec<SocketId>,
}

impl<M, A: Clone> Host<M, A> {
    /// Names a socket by its admission index, so two hosts compare equal
    /// even if they number sockets differently.
    fn name(&self, s: SocketId) -> usize {
        self.admitted
            .iter()
            .position(|x| *x == s)
            .unwrap_or(usize::MAX)
    }

    /// The frames and closes of a batch of actions (alarms and logs may
    /// differ: a rebuilt machine re-announces its alarm).
    fn visible(&mut self, actions: Vec<Action<A>>) -> Vec<String> {
        let mut out = Vec::new();
        for a in actions {
            match a {
                Action::Send { socket, text } => {
                    out.push(format!("send {} {text}", self.name(socket)))
                }
                Action::Close {
                    socket,
                    code,
                    reason,
                } => {
                    self.live.remove(&socket);
                    out.push(format!("close {} {code} {reason}", self.name(socket)));
                }
                Action::Persist { socket, attachment } => {
                    self.live.insert(socket, attachment);
                }
                Action::Finished => out.push("finished".into()),
                Action::SetAlarm(_) | Action::Log(_) => {}
            }
        }
        out
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn lobby(ops in ops()) {
        let limits = LobbyLimits {
            max_players: 3,
            max_sockets: 5,
            hello_timeout_ms: 3_000,
            messages_per_minute: 20,
            ..LobbyLimits::default()
        };
        let mut hosts: [Host<Lobby, LobbyAttachment>; 2] = [
            Host { machine: Lobby::new(limits), live: BTreeMap::new(), admitted: Vec::new() },
            Host { machine: Lobby::new(limits), live: BTreeMap::new(), admitted: Vec::new() },
        ];
        let mut now = Millis(0);
        for op in ops {
            if let Op::Wait(ms) = op {
                now = now + Millis(ms);
                if ms > 0 {
                    // Host 1 hibernates: rebuilt from its live sockets'
                    // attachments, through JSON.
                    let stored: Vec<LobbyAttachment> = hosts[1].live.values().map(|a| LobbyAttachment::from_json(&a.to_json()).unwrap()).collect();
                    hosts[1].machine = Lobby::restore(limits, stored);
                }
                continue;
            }
            let mut seen = Vec::new();
            for h in hosts.iter_mut() {
                let actions = match &op {
                    Op::Admit => match h.machine.admit(now) {
                        Ok((s, a)) => {
                            prop_assert!(!h.admitted.contains(&s), "socket id reused");
                            h.admitted.push(s);
                            a
                        }
                        Err(e) => { seen.push(vec![format!("{e:?}")]); continue; }
                    },
                    Op::Text(k, t) => match h.admitted.get(*k) {
                        Some(&socket) => h.machine.handle(Event::Text { socket, text: t }, now),
                        None => Vec::new(),
                    },
                    Op::Close(k) => match h.admitted.get(*k) {
                        Some(&socket) => {
                            // The runtime forgets a closed socket's attachment.
                            h.live.remove(&socket);
                            h.machine.handle(Event::Closed { socket }, now)
                        }
                        None => Vec::new(),
                    },
                    Op::Alarm => h.machine.handle(Event::Alarm, now),
                    Op::Wait(_) => unreachable!(),
                };
                seen.push(h.visible(actions));
            }
            prop_assert_eq!(&seen[0], &seen[1]);
            // Same sockets, players and budgets. (Join sequence numbers may
            // differ after a restore; only their order is visible, and the
            // rosters sent above already compare equal.)
            let view = |h: &Host<Lobby, LobbyAttachment>| -> Vec<_> {
                h.live
                    .iter()
                    .map(|(s, a)| {
                        let p = a.player.as_ref().map(|p| (p.id.clone(), p.nick.clone(), p.status));
                        (h.name(*s), p, a.window)
                    })
                    .collect()
            };
            prop_assert_eq!(view(&hosts[0]), view(&hosts[1]));
        }
    }

    #[test]
    fn room(ops in ops()) {
        let limits = RoomLimits { ttl_ms: 20_000, max_messages: 8, ..RoomLimits::default() };
        let (awake, _) = Room::new(RoomCode::parse("ABCDEF").unwrap(), limits, Millis(0));
        let role = |n: u32| JoinRole::from(if n % 2 == 1 { Role::Host } else { Role::Guest });
        room_survives_hibernation(awake, limits, role, ops)?;
    }

    #[test]
    fn member_room(ops in ops()) {
        let limits = RoomLimits { ttl_ms: 20_000, max_member_messages: 8, ..RoomLimits::default() };
        let cap = RoomCapacity { players: 3, spectators: 2 };
        let (awake, _) = Room::with_members(RoomCode::parse("ABCDEF").unwrap(), cap, limits, Millis(0));
        let role = |n: u32| [JoinRole::Host, JoinRole::Player, JoinRole::Spectator][n as usize % 3];
        room_survives_hibernation(awake, limits, role, ops)?;
    }
}

/// Runs `ops` on a room that never sleeps and on one rebuilt from storage
/// whenever time passes, the `n`-th socket admitted with `role_of(n)`, and
/// checks both send the same frames and closes.
fn room_survives_hibernation(
    awake: Room,
    limits: RoomLimits,
    role_of: impl Fn(u32) -> JoinRole,
    ops: Vec<Op>,
) -> Result<(), TestCaseError> {
    // What a Durable Object keeps in storage: the meta, stored again
    // whenever an event changed it.
    let mut meta = awake.meta().clone();
    let mut hosts: [Host<Room, RoomAttachment>; 2] = [
        Host {
            machine: awake,
            live: BTreeMap::new(),
            admitted: Vec::new(),
        },
        Host {
            machine: Room::restore(meta.clone(), limits, []),
            live: BTreeMap::new(),
            admitted: Vec::new(),
        },
    ];
    let mut now = Millis(0);
    let mut n = 0u32;
    for op in ops {
        if let Op::Wait(ms) = op {
            now = now + Millis(ms);
            if ms > 0 {
                let stored: Vec<RoomAttachment> = hosts[1]
                    .live
                    .values()
                    .map(|a| RoomAttachment::from_json(&a.to_json()).unwrap())
                    .collect();
                hosts[1].machine = Room::restore(meta.clone(), limits, stored);
            }
            continue;
        }
        if matches!(op, Op::Admit) {
            n += 1;
        }
        let role = role_of(n);
        let mut seen = Vec::new();
        for h in hosts.iter_mut() {
            let actions = match &op {
                Op::Admit => match h.machine.admit(role, now) {
                    Ok((s, a)) => {
                        prop_assert!(!h.admitted.contains(&s), "socket id reused");
                        h.admitted.push(s);
                        a
                    }
                    Err(e) => {
                        seen.push(vec![format!("{e:?}")]);
                        continue;
                    }
                },
                Op::Text(k, t) => match h.admitted.get(*k) {
                    Some(&socket) => h.machine.handle(Event::Text { socket, text: t }, now),
                    None => Vec::new(),
                },
                Op::Close(k) => match h.admitted.get(*k) {
                    Some(&socket) => {
                        h.live.remove(&socket);
                        h.machine.handle(Event::Closed { socket }, now)
                    }
                    None => Vec::new(),
                },
                Op::Alarm => h.machine.handle(Event::Alarm, now),
                Op::Wait(_) => unreachable!(),
            };
            seen.push(h.visible(actions));
        }
        prop_assert_eq!(&seen[0], &seen[1]);
        meta = hosts[1].machine.meta().clone();
        if seen[0].iter().any(|l| l == "finished") {
            // A finished room's storage is deleted; nothing more to compare.
            break;
        }
    }
    Ok(())
}
