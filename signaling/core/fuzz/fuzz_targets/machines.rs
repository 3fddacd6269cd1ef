//! The core's lobby and room machines driven by a script of arbitrary
//! events: never a panic, and the rules hold after every step.
//!
//! The first byte picks the machine (bit 0: room, else lobby). The rest is
//! read as steps, each a control byte and its operands: admit a socket
//! (from one of four addresses, or as host or guest), a frame of raw bytes,
//! a well-formed frame from a small set (hello with one of a few ids and
//! names, signal, status, ping, offer, done), a binary frame, a socket
//! closing, time passing with the alarm firing, and (lobby) a heartbeat the
//! host's runtime answered. Admitting first asks the machine whether it
//! would (`check_admission`, as the hosts do before charging an upgrade),
//! and the two answers must agree. Well-formed templates get the fuzzer to deep
//! states at once; raw bytes cover the rest.
//!
//! Checked after every step: frames go only to open sockets, never after
//! the machine closed them; the roster and the socket table stay within
//! their caps, per address too; and every open socket's state equals what
//! the machine last asked the host to store (so a Durable Object that
//! hibernates now rebuilds exactly this machine), which the script also
//! does now and then, carrying on with the rebuilt machine.
#![no_main]

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use libfuzzer_sys::fuzz_target;
use signaling_core::{
    Action, Event, JoinRole, Lobby, LobbyAttachment, LobbyLimits, Millis, Room, RoomAttachment,
    RoomCapacity, RoomCode, RoomLimits, SocketId,
};

/// Reads operands off the script; missing bytes read as zero.
struct Script<'a>(&'a [u8]);

impl Script<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn bytes(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }

    fn done(&self) -> bool {
        self.0.is_empty()
    }
}

/// What a host knows: the open sockets and their stored state.
struct Host<A> {
    open: BTreeSet<SocketId>,
    stored: BTreeMap<SocketId, A>,
    finished: bool,
}

impl<A> Host<A> {
    fn new() -> Self {
        Host {
            open: BTreeSet::new(),
            stored: BTreeMap::new(),
            finished: false,
        }
    }

    fn apply(&mut self, actions: Vec<Action<A>>) {
        for a in actions {
            match a {
                Action::Send { socket, text } => {
                    assert!(self.open.contains(&socket), "a frame to a socket not open");
                    assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
                }
                Action::Close { socket, code, .. } => {
                    assert!(self.open.remove(&socket), "closed a socket not open");
                    assert!(matches!(code, 1000 | 1008 | 1009));
                    self.stored.remove(&socket);
                }
                Action::Persist { socket, attachment } => {
                    assert!(self.open.contains(&socket), "stored a socket not open");
                    self.stored.insert(socket, attachment);
                }
                Action::SetAlarm(_) | Action::Log(_) => {}
                Action::Finished => self.finished = true,
            }
        }
    }

    /// The socket the script names by one byte, among the open ones (or a
    /// socket never seen, now and then).
    fn pick(&self, b: u8) -> SocketId {
        let open: Vec<_> = self.open.iter().copied().collect();
        if open.is_empty() || b == 255 {
            SocketId(u64::MAX - u64::from(b))
        } else {
            open[usize::from(b) % open.len()]
        }
    }
}

/// What the lobby and the room have in common for the script: events in,
/// actions out.
trait Machine {
    type Attachment;
    fn handle(&mut self, event: Event<'_>, now: Millis) -> Vec<Action<Self::Attachment>>;
}

impl Machine for Lobby {
    type Attachment = LobbyAttachment;
    fn handle(&mut self, event: Event<'_>, now: Millis) -> Vec<Action<LobbyAttachment>> {
        Lobby::handle(self, event, now)
    }
}

impl Machine for Room {
    type Attachment = RoomAttachment;
    fn handle(&mut self, event: Event<'_>, now: Millis) -> Vec<Action<RoomAttachment>> {
        Room::handle(self, event, now)
    }
}

/// The steps both machines take alike, by the control byte `c` (mod 4):
/// a frame of raw bytes, a well-formed frame, a binary frame, a socket
/// closing.
fn socket_step<M: Machine>(
    machine: &mut M,
    host: &mut Host<M::Attachment>,
    s: &mut Script<'_>,
    c: u8,
    now: u64,
) {
    let socket = host.pick(s.byte());
    let text;
    let event = match c % 4 {
        0 => {
            let n = usize::from(s.byte());
            text = String::from_utf8_lossy(s.bytes(n)).into_owned();
            Event::Text {
                socket,
                text: &text,
            }
        }
        1 => {
            let (k, a) = (s.byte(), s.byte());
            text = template(k, a);
            Event::Text {
                socket,
                text: &text,
            }
        }
        2 => Event::Binary {
            socket,
            len: usize::from(s.byte()) * 8,
        },
        _ => Event::Closed { socket },
    };
    host.apply(machine.handle(event, Millis(now)));
    if matches!(event, Event::Closed { .. }) {
        host.open.remove(&socket);
        host.stored.remove(&socket);
    }
}

const IDS: [&str; 5] = [
    "AAAAAAAAAAAA",
    "BBBBBBBBBBBB",
    "CCCCCCCCCCCC",
    "DDDDDDDDDDDD",
    "bad-id",
];
const NICKS: [&str; 6] = ["Ann", " Bo ", "דנה", "", "x\u{202e}y", "\u{2800}"];

fn template(kind: u8, a: u8) -> String {
    let id = IDS[usize::from(a) % IDS.len()];
    match kind % 11 {
        0 => format!(
            r#"{{"type":"hello","id":"{id}","nick":"{}"}}"#,
            NICKS[usize::from(a / 8) % NICKS.len()]
        ),
        1 => format!(r#"{{"type":"signal","to":"{id}","data":{{"type":"offer","sdp":"v=0"}}}}"#),
        2 => r#"{"type":"status","status":"in-match"}"#.to_owned(),
        3 => signaling_protocol::heartbeat::PING.to_owned(),
        4 => r#"{"type":"offer","attempt":1,"sdp":"v=0"}"#.to_owned(),
        5 => r#"{"type":"done"}"#.to_owned(),
        6 => r#"{"type":"ice","candidate":null}"#.to_owned(),
        7 => signaling_protocol::relay_out::ticket_request(),
        // A member room's addressed signal, to an id that may hold nobody.
        8 => format!(r#"{{"type":"signal","to":{},"data":[1]}}"#, a % 12),
        // A member room's relay ticket, for a pair that may hold nobody.
        9 => format!(r#"{{"type":"relay-ticket","to":{}}}"#, a % 12),
        _ => r#"{"type":"status","status":"lobby"}"#.to_owned(),
    }
}

fn lobby(mut s: Script<'_>) {
    let limits = LobbyLimits {
        max_players: 4,
        max_sockets: 8,
        hello_timeout_ms: 5_000,
        max_message_bytes: 512,
        messages_per_minute: 40,
        idle_timeout_ms: 20_000,
        max_sockets_per_address: 3,
    };
    let mut lobby = Lobby::new(limits);
    let mut host = Host::<LobbyAttachment>::new();
    let mut now = 0u64;
    while !s.done() {
        let c = s.byte();
        match c % 9 {
            0 => {
                let a = s.byte();
                let address = (a % 5 != 4).then(|| IpAddr::from([192, 0, 2, a % 4]));
                // Asking first answers what admitting then does.
                let asked = lobby.check_admission(address);
                let admitted = lobby.admit_from(Millis(now), address);
                assert_eq!(asked, admitted.as_ref().map(|_| ()).map_err(|e| *e));
                if let Ok((socket, actions)) = admitted {
                    host.open.insert(socket);
                    host.apply(actions);
                }
            }
            1..=4 => socket_step(&mut lobby, &mut host, &mut s, c % 9 - 1, now),
            5 => {
                now += u64::from(s.byte()) * 250;
                host.apply(lobby.handle(Event::Alarm, Millis(now)));
            }
            6 => {
                let socket = host.pick(s.byte());
                lobby.heard_from(socket, Millis(now));
            }
            7 => {
                // Hibernation: rebuild from what was stored, carry on.
                lobby = Lobby::restore(limits, host.stored.values().cloned());
            }
            _ => {
                now += u64::from(s.byte());
            }
        }
        check_lobby(&lobby, &host, limits);
    }
}

fn check_lobby(lobby: &Lobby, host: &Host<LobbyAttachment>, limits: LobbyLimits) {
    assert!(lobby.roster().len() <= limits.max_players);
    assert!(lobby.socket_count() <= limits.max_sockets);
    assert_eq!(lobby.socket_count(), host.open.len());
    let mut per_address = BTreeMap::new();
    for socket in &host.open {
        let live = lobby.attachment(*socket).expect("an open socket is known");
        let stored = host.stored.get(socket).expect("an open socket was stored");
        // The time last heard may move without being stored: a host whose
        // runtime answers heartbeats reports them again after waking.
        let mut live = live.clone();
        live.heard_ms = stored.heard_ms;
        assert_eq!(&live, stored, "stored state differs from the machine's");
        if let Some(a) = live.address {
            *per_address.entry(a).or_insert(0usize) += 1;
        }
    }
    assert!(per_address
        .values()
        .all(|n| *n <= limits.max_sockets_per_address));
}

/// A two-seat room, or (when the script's first byte is odd) a member room
/// of three players and two spectators.
fn room(mut s: Script<'_>) {
    let capacity = (s.byte() & 1 == 1).then_some(RoomCapacity {
        players: 3,
        spectators: 2,
    });
    let places = capacity.map_or(2, |c| usize::from(c.players + c.spectators));
    let limits = RoomLimits {
        ttl_ms: 30_000,
        max_message_bytes: 512,
        max_messages: 12,
        max_member_messages: 12,
        // Low, so that runs reach the per-minute rate's refusal too.
        messages_per_minute: 6,
        // A key, so that ticket requests are answered with tickets.
        relay_key: signaling_core::RelayKey::from_secret("fuzzing key"),
    };
    let code = RoomCode::parse("K7M2QX").expect("a valid code");
    let (mut room, actions) = Room::create(code, capacity, limits, Millis(0));
    let mut host = Host::new();
    host.apply(actions);
    let mut now = 0u64;
    while !s.done() && !host.finished {
        let c = s.byte();
        match c % 6 {
            0 => {
                let role = [
                    JoinRole::Host,
                    JoinRole::Guest,
                    JoinRole::Player,
                    JoinRole::Spectator,
                ][usize::from(s.byte() % 4)];
                // Asking first answers what admitting then does.
                let asked = room.check_admission(role, Millis(now));
                let admitted = room.admit(role, Millis(now));
                assert_eq!(asked, admitted.as_ref().map(|_| ()).map_err(|e| *e));
                if let Ok((socket, actions)) = admitted {
                    host.open.insert(socket);
                    host.apply(actions);
                }
            }
            1..=4 => socket_step(&mut room, &mut host, &mut s, c % 6 - 1, now),
            _ => {
                now += u64::from(s.byte()) * 250;
                host.apply(room.handle(Event::Alarm, Millis(now)));
            }
        }
        assert!(
            host.open.len() <= places,
            "a room holds no more than its places"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let mut s = Script(data);
    if s.byte() & 1 == 0 {
        lobby(s);
    } else {
        room(s);
    }
});
