//! For the tests of the member-room machines ([`MemberLink`] and
//! [`Relink`]): the service's real room machine (`signaling_core::Room`,
//! as both hosts run it) with the room sockets of the pages in it, and
//! the delivery of what it sends until nothing moves.
//!
//! [`MemberLink`]: super::members::MemberLink
//! [`Relink`]: super::relink::Relink

use lockstep::Millis;
use signaling_core::{
    Action, Event, JoinRole, RelayKey, Room, RoomAttachment, RoomCapacity, RoomCode, RoomLimits,
    SocketId,
};
use std::collections::{BTreeMap, VecDeque};

/// A member room (with a relay for its pairs) and the room socket of
/// each page, by the page's index.
pub(super) struct TestRoom {
    /// The service's room machine.
    pub(super) room: Room,
    sockets: BTreeMap<usize, SocketId>,
    /// Frames and closes from the room, in order.
    from_room: VecDeque<Action<RoomAttachment>>,
}

/// The pages of a test, as [`pump`] drives them.
pub(super) trait RoomPages {
    /// Their room.
    fn test_room(&mut self) -> &mut TestRoom;
    /// A frame from the room for page `page`.
    fn hear(&mut self, page: usize, text: &str);
    /// The room closed page `page`'s socket.
    fn room_closed(&mut self, page: usize);
    /// Carries out every output page `page` has; whether it had any.
    fn drain(&mut self, page: usize) -> bool;
    /// How many pages there are.
    fn count(&self) -> usize;
}

impl TestRoom {
    /// A member room for `players` players and `spectators` spectators.
    pub(super) fn new(players: u8, spectators: u8) -> TestRoom {
        let cap = RoomCapacity {
            players,
            spectators,
        };
        let code = RoomCode::parse("K7M2QX").unwrap();
        let limits = RoomLimits {
            relay_key: Some(RelayKey::from_bytes([3; 32])),
            ..RoomLimits::default()
        };
        let (room, _) = Room::with_members(code, cap, limits, Millis(0));
        TestRoom {
            room,
            sockets: BTreeMap::new(),
            from_room: VecDeque::new(),
        }
    }

    /// Page `page` opens its room socket as `role`.
    pub(super) fn join(&mut self, page: usize, role: JoinRole) {
        let socket = self.stranger(role);
        self.sockets.insert(page, socket);
    }

    /// A socket of no page of the test joins as `role` (a forger, say).
    pub(super) fn stranger(&mut self, role: JoinRole) -> SocketId {
        let (socket, actions) = self.room.admit(role, Millis(1)).unwrap();
        self.from_room.extend(actions);
        socket
    }

    /// Page `page`'s room socket, while open.
    pub(super) fn socket(&self, page: usize) -> Option<SocketId> {
        self.sockets.get(&page).copied()
    }

    /// Page `page` sends a text frame, if its socket is open.
    pub(super) fn send(&mut self, page: usize, text: &str) {
        if let Some(socket) = self.socket(page) {
            self.send_on(socket, text);
        }
    }

    /// A text frame on `socket`.
    pub(super) fn send_on(&mut self, socket: SocketId, text: &str) {
        let actions = self.room.handle(Event::Text { socket, text }, Millis(2));
        self.from_room.extend(actions);
    }

    /// Page `page` closes its room socket; whether it was open.
    pub(super) fn close(&mut self, page: usize) -> bool {
        let Some(socket) = self.sockets.remove(&page) else {
            return false;
        };
        let actions = self.room.handle(Event::Closed { socket }, Millis(3));
        self.from_room.extend(actions);
        true
    }

    /// The next thing the room does to a page: a frame (`Some`), or the
    /// page's socket closed (`None`).
    fn next(&mut self) -> Option<Option<(usize, Option<String>)>> {
        let action = self.from_room.pop_front()?;
        Some(match action {
            Action::Send { socket, text } => self
                .sockets
                .iter()
                .find(|(_, s)| **s == socket)
                .map(|(page, _)| (*page, Some(text))),
            Action::Close { socket, .. } => {
                let page = self
                    .sockets
                    .iter()
                    .find(|(_, s)| **s == socket)
                    .map(|(page, _)| *page);
                page.inspect(|p| {
                    self.sockets.remove(p);
                })
                .map(|p| (p, None))
            }
            _ => None,
        })
    }
}

/// Delivers everything, the room's frames and the pages' outputs, until
/// nothing moves.
pub(super) fn pump(pages: &mut impl RoomPages) {
    for _ in 0..10_000 {
        let mut moved = false;
        while let Some(delivery) = pages.test_room().next() {
            moved = true;
            match delivery {
                Some((page, Some(text))) => pages.hear(page, &text),
                Some((page, None)) => pages.room_closed(page),
                None => {}
            }
        }
        for page in 0..pages.count() {
            moved |= pages.drain(page);
        }
        if !moved {
            return;
        }
    }
    panic!("the pages never settled");
}
