//! The two seats of a room or a relay: at most one socket for the host and
//! one for the guest, each with its attachment, rebuilt from attachments
//! after hibernation the same way for both machines.

use signaling_protocol::Role;

use crate::SocketId;

/// An attachment that names its socket and the seat it holds.
pub(crate) trait Seated: Copy {
    /// The socket.
    fn socket(&self) -> SocketId;
    /// The seat.
    fn role(&self) -> Role;
}

/// The host's and the guest's seats, and the next socket id to hand out.
#[derive(Debug)]
pub(crate) struct Seats<A> {
    host: Option<A>,
    guest: Option<A>,
    /// One past the highest socket id seen (see [`SocketId::allocate`]).
    pub next_socket: u64,
}

impl<A: Seated> Seats<A> {
    /// Seats rebuilt from attachments: an attachment whose socket already
    /// holds a seat, or for a seat already taken, is left out (the host
    /// should close that socket).
    pub fn restore(attachments: impl IntoIterator<Item = A>) -> Seats<A> {
        let mut seats = Seats {
            host: None,
            guest: None,
            next_socket: 0,
        };
        for a in attachments {
            if seats.role_of(a.socket()).is_some() {
                continue;
            }
            let seat = seats.seat(a.role());
            if seat.is_none() {
                *seat = Some(a);
                seats.next_socket = seats.next_socket.max(a.socket().0.saturating_add(1));
            }
        }
        seats
    }

    /// The seat `socket` holds, if any.
    pub fn role_of(&self, socket: SocketId) -> Option<Role> {
        [(Role::Host, self.host), (Role::Guest, self.guest)]
            .into_iter()
            .find(|(_, a)| a.is_some_and(|a| a.socket() == socket))
            .map(|(role, _)| role)
    }

    /// The seat of `role`, to read, fill or empty.
    pub fn seat(&mut self, role: Role) -> &mut Option<A> {
        match role {
            Role::Host => &mut self.host,
            Role::Guest => &mut self.guest,
        }
    }

    /// Who holds the seat of `role`.
    pub fn get(&self, role: Role) -> Option<A> {
        match role {
            Role::Host => self.host,
            Role::Guest => self.guest,
        }
    }

    /// Both seated attachments, when both seats are taken.
    pub fn both(&self) -> Option<(A, A)> {
        self.host.zip(self.guest)
    }
}

/// The other seat.
pub(crate) fn other_role(role: Role) -> Role {
    match role {
        Role::Host => Role::Guest,
        Role::Guest => Role::Host,
    }
}
