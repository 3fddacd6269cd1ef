//! Glue between the sans-IO machines and [`Transport`]s: receive, run,
//! send, close. Optional: a caller with its own event loop can make the
//! same calls itself.

use std::collections::BTreeMap;

use lockstep::{Millis, Transport};

use crate::game::AuthoritativeGame;
use crate::guest::Guest;
use crate::host::{Host, LinkId};

/// The host's transports, one per guest link.
pub struct HostLinks<T: Transport> {
    links: BTreeMap<LinkId, T>,
}

impl<T: Transport> Default for HostLinks<T> {
    fn default() -> Self {
        HostLinks {
            links: BTreeMap::new(),
        }
    }
}

impl<T: Transport> HostLinks<T> {
    /// No links.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A guest's transport opened: the host learns of it.
    pub fn add<G: AuthoritativeGame>(
        &mut self,
        host: &mut Host<G>,
        now: Millis,
        transport: T,
    ) -> LinkId {
        let id = host.handle_connect(now);
        self.links.insert(id, transport);
        id
    }

    /// The transport of a link still open.
    pub fn get_mut(&mut self, link: LinkId) -> Option<&mut T> {
        self.links.get_mut(&link)
    }

    /// Links still open.
    #[must_use]
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether no link is open.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// One round at `now`: every link's backlog and datagrams to the host,
    /// closed links reported, the host's due ticks run, then everything it
    /// wants sent is sent and the links it closed are closed. Events are
    /// left for the caller ([`Host::poll_event`]).
    pub fn pump<G: AuthoritativeGame>(&mut self, host: &mut Host<G>, now: Millis) {
        self.receive(host, now);
        if host.poll_timeout().is_some_and(|t| t <= now) {
            host.handle_timeout(now);
        }
        self.flush(host);
    }

    /// The first part of [`pump`](Self::pump): every link's backlog and
    /// datagrams to the host, and closed links reported.
    pub fn receive<G: AuthoritativeGame>(&mut self, host: &mut Host<G>, now: Millis) {
        let mut closed = Vec::new();
        for (&id, t) in &mut self.links {
            host.handle_backlog(id, t.send_backlog());
            while let Some((channel, bytes)) = t.recv() {
                host.handle_datagram(now, id, channel, &bytes);
            }
            if t.state().is_terminal() {
                closed.push(id);
            }
        }
        for id in closed {
            self.links.remove(&id);
            host.handle_link_closed(now, id);
        }
    }

    /// Sends what the host queued and closes the links it let go.
    pub fn flush<G: AuthoritativeGame>(&mut self, host: &mut Host<G>) {
        while let Some(tx) = host.poll_transmit() {
            if let Some(t) = self.links.get_mut(&tx.link) {
                if let Err(e) = t.send(tx.channel, &tx.bytes) {
                    log::debug!("authority host: send on link {} failed ({e})", tx.link.0);
                }
            }
        }
        while let Some(id) = host.poll_close() {
            if let Some(mut t) = self.links.remove(&id) {
                t.close();
            }
        }
    }
}

/// One round of a guest at `now` over its transport: datagrams in, a closed
/// link reported, its timer run, datagrams out. Events are left for the
/// caller ([`Guest::poll_event`]).
pub fn pump_guest<G: AuthoritativeGame, T: Transport>(
    guest: &mut Guest<G>,
    now: Millis,
    transport: &mut T,
) {
    while let Some((channel, bytes)) = transport.recv() {
        guest.handle_datagram(now, channel, &bytes);
    }
    if transport.state().is_terminal() {
        guest.handle_link_closed();
    }
    if guest.poll_timeout().is_some_and(|t| t <= now) {
        guest.handle_timeout(now);
    }
    while let Some((channel, bytes)) = guest.poll_transmit() {
        if let Err(e) = transport.send(channel, &bytes) {
            log::debug!("authority guest: send failed ({e})");
        }
    }
}

/// Which way a datagram went in [`exchange_in_memory`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// From the guest to the host.
    ToHost,
    /// From the host to the guest.
    ToGuest,
}

/// One round between a host and its guest on `link`, joined directly in
/// memory with nothing lost or delayed (for tests and fuzzing): the
/// guest's timer and datagrams to the host, then the host's timer and
/// datagrams to the guest. `seen` is shown every datagram on its way.
/// Events are left for the caller.
pub fn exchange_in_memory<G: AuthoritativeGame>(
    host: &mut Host<G>,
    link: LinkId,
    guest: &mut Guest<G>,
    now: Millis,
    mut seen: impl FnMut(Way, &[u8]),
) {
    guest.handle_timeout(now);
    while let Some((channel, bytes)) = guest.poll_transmit() {
        seen(Way::ToHost, &bytes);
        host.handle_datagram(now, link, channel, &bytes);
    }
    host.handle_timeout(now);
    while let Some(tx) = host.poll_transmit() {
        if tx.link == link {
            seen(Way::ToGuest, &tx.bytes);
            guest.handle_datagram(now, tx.channel, &tx.bytes);
        }
    }
}
