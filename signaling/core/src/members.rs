//! The members of a member room: who holds which member id, and what each
//! id has sent over the room's life. The [`crate::Room`] machine drives
//! this table for rooms created with a capacity; two-seat rooms use
//! [`crate::seats`] instead.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use signaling_protocol::{MemberEntry, MemberId, MemberRole, RoomCapacity};

use crate::rate::MinuteWindow;
use crate::{Millis, SocketId};

/// What a member room keeps beyond a two-seat room's facts: its capacity
/// and the messages each member id sent on sockets that have since closed
/// (so that leaving and joining again does not start a fresh allowance).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberMeta {
    /// The places the room was created with.
    pub capacity: RoomCapacity,
    /// Messages spent, indexed by member id (missing entries are 0).
    #[serde(default)]
    pub spent: Vec<u32>,
}

impl MemberMeta {
    /// A fresh room's member facts.
    #[must_use]
    pub fn new(capacity: RoomCapacity) -> MemberMeta {
        MemberMeta {
            capacity,
            spent: Vec::new(),
        }
    }

    /// Messages `id` sent on sockets that closed.
    pub(crate) fn spent(&self, id: MemberId) -> u32 {
        self.spent.get(usize::from(id.0)).copied().unwrap_or(0)
    }

    /// Records that `id`'s socket closed having sent `messages` in all.
    pub(crate) fn record(&mut self, id: MemberId, messages: u32) {
        let i = usize::from(id.0);
        if self.spent.len() <= i {
            self.spent.resize(i + 1, 0);
        }
        self.spent[i] = self.spent[i].max(messages);
    }
}

/// One member present: its socket, the messages its id has sent over the
/// room's life, and its socket's current rate window.
#[derive(Clone, Copy, Debug)]
struct Present {
    socket: SocketId,
    messages: u32,
    window: MinuteWindow,
}

/// The members present, by id.
#[derive(Debug, Default)]
pub(crate) struct Members {
    by_id: BTreeMap<MemberId, Present>,
    /// One past the highest socket id seen (see [`SocketId::allocate`]).
    pub next_socket: u64,
}

impl Members {
    /// Members rebuilt from attachments: one whose socket or id is already
    /// taken, or whose id the capacity has no place for, is left out.
    pub fn restore(
        capacity: RoomCapacity,
        attachments: impl IntoIterator<Item = (SocketId, MemberId, u32, MinuteWindow)>,
    ) -> Members {
        let mut m = Members::default();
        for (socket, id, messages, window) in attachments {
            let fits = id
                .role()
                .is_some_and(|role| capacity.ids(role).any(|i| i == id));
            if !fits || m.by_id.contains_key(&id) || m.id_of(socket).is_some() {
                continue;
            }
            m.by_id.insert(
                id,
                Present {
                    socket,
                    messages,
                    window,
                },
            );
            m.next_socket = m.next_socket.max(socket.0.saturating_add(1));
        }
        m
    }

    /// The lowest free id of `role`, if the room has a place for it.
    pub fn free_id(&self, capacity: RoomCapacity, role: MemberRole) -> Option<MemberId> {
        capacity.ids(role).find(|id| !self.by_id.contains_key(id))
    }

    pub fn insert(&mut self, id: MemberId, socket: SocketId, messages: u32) {
        self.by_id.insert(
            id,
            Present {
                socket,
                messages,
                window: MinuteWindow::new(),
            },
        );
    }

    pub fn remove(&mut self, id: MemberId) -> Option<(SocketId, u32)> {
        self.by_id.remove(&id).map(|p| (p.socket, p.messages))
    }

    /// The member id `socket` holds.
    pub fn id_of(&self, socket: SocketId) -> Option<MemberId> {
        self.by_id
            .iter()
            .find(|(_, p)| p.socket == socket)
            .map(|(id, _)| *id)
    }

    /// The socket holding `id`.
    pub fn socket(&self, id: MemberId) -> Option<SocketId> {
        self.by_id.get(&id).map(|p| p.socket)
    }

    /// Counts one more message from `id` at `now`: its new lifetime count,
    /// its rate window, and whether the window had room for it at
    /// `per_minute` (0: no rate).
    pub fn count(
        &mut self,
        id: MemberId,
        per_minute: u32,
        now: Millis,
    ) -> Option<(u32, MinuteWindow, bool)> {
        self.by_id.get_mut(&id).map(|p| {
            p.messages = p.messages.saturating_add(1);
            let within = p.window.try_take(per_minute, now);
            (p.messages, p.window, within)
        })
    }

    /// Everyone present, by id.
    pub fn entries(&self) -> Vec<MemberEntry> {
        self.by_id
            .keys()
            .filter_map(|id| MemberEntry::of(*id))
            .collect()
    }

    /// Every member's socket except `but`'s.
    pub fn others(&self, but: MemberId) -> Vec<SocketId> {
        self.by_id
            .iter()
            .filter(|(id, _)| **id != but)
            .map(|(_, p)| p.socket)
            .collect()
    }

    /// All ids present.
    pub fn ids(&self) -> Vec<MemberId> {
        self.by_id.keys().copied().collect()
    }
}
