//! The host's side of a match, as it runs in the dedicated worker.
//!
//! [`HostWorker`] is sans-IO like the `authority` host it wraps: the worker
//! glue (or a native test) feeds it the page's messages and the time, and
//! drains the messages for the page. It owns the only real simulation of
//! the match: the host player's controls and the guests' datagrams go in,
//! datagrams for each guest's link and the host player's view of each tick
//! come out. A challenge has one guest; a party up to
//! [`MAX_LINKS`].
//!
//! Calling contract: [`handle`](HostWorker::handle) each message from the
//! page, [`tick`](HostWorker::tick) at [`poll_timeout`](HostWorker::poll_timeout)
//! (or more often), and after every call drain [`poll`](HostWorker::poll).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use arena::Arena;
use authority::{
    AuthoritativeGame, Host, HostConfig, HostEvent, LeaveReason, LinkId, Millis, Seat,
};
use lockstep::Channel;

use crate::bridge::{self, FromWorker, Gone, LinkName, ToWorker, MAX_LINKS};

/// The running host and what it knows of the page's links.
struct Running {
    host: Host<Arena>,
    /// The page's name of each of the host's links.
    names: BTreeMap<LinkId, LinkName>,
    /// The seat taken on each link.
    seats: BTreeMap<Seat, LinkName>,
    /// Links whose guest is gone (each said once).
    gone: BTreeSet<LinkName>,
}

impl Running {
    fn link(&self, name: LinkName) -> Option<LinkId> {
        self.names
            .iter()
            .find(|(_, n)| **n == name)
            .map(|(id, _)| *id)
    }
}

/// The host of one match and its links to the guests.
#[derive(Default)]
pub struct HostWorker {
    host: Option<Running>,
    /// The tick of the last view sent to the page.
    shown: Option<u64>,
    out: VecDeque<FromWorker>,
    dropped: u32,
}

impl HostWorker {
    /// A worker with no match yet.
    #[must_use]
    pub fn new() -> HostWorker {
        HostWorker::default()
    }

    /// Messages from the page that did not decode.
    #[must_use]
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// A message from the page, as bytes.
    pub fn handle_bytes(&mut self, now: Millis, bytes: &[u8]) {
        match bridge::decode::<ToWorker>(bytes) {
            Ok(msg) => self.handle(now, msg),
            Err(e) => {
                self.dropped += 1;
                log::warn!("arena worker: a message from the page did not decode ({e:?})");
            }
        }
    }

    fn start(&mut self, now: Millis, seed: u64, links: &[LinkName]) {
        let distinct: BTreeSet<&LinkName> = links.iter().collect();
        let guests = u8::try_from(links.len()).unwrap_or(u8::MAX);
        if links.is_empty() || links.len() > MAX_LINKS || distinct.len() != links.len() {
            log::error!("arena worker: a start with {} links refused", links.len());
            self.out.push_back(FromWorker::Failed);
            return;
        }
        // No way back for a lost guest: the page has no link to bring it
        // back on, so a dropped seat is given up at once (the others play
        // on).
        let cfg = HostConfig::new(seed.rotate_left(17))
            .tick_ms(crate::slot::TICK_MS)
            .max_guests(guests)
            .rejoin_grace(Millis::ZERO);
        match Host::new(Arena::new(seed), cfg) {
            Ok(mut host) => {
                let names = links
                    .iter()
                    .map(|&name| (host.handle_connect(now), name))
                    .collect();
                self.host = Some(Running {
                    host,
                    names,
                    seats: BTreeMap::new(),
                    gone: BTreeSet::new(),
                });
            }
            Err(e) => {
                log::error!("arena worker: host configuration refused: {e}");
                self.out.push_back(FromWorker::Failed);
            }
        }
    }

    /// A message from the page.
    pub fn handle(&mut self, now: Millis, msg: ToWorker) {
        match msg {
            ToWorker::Start { seed, links } => {
                if self.host.is_some() {
                    log::warn!("arena worker: a second start ignored");
                    return;
                }
                self.start(now, seed, &links);
            }
            ToWorker::Datagram {
                link,
                reliable,
                bytes,
            } => {
                if let Some(r) = self.host.as_mut() {
                    let channel = if reliable {
                        Channel::Reliable
                    } else {
                        Channel::Unreliable
                    };
                    match r.link(link) {
                        Some(id) => r.host.handle_datagram(now, id, channel, &bytes),
                        None => log::debug!("arena worker: a datagram on no link of ours"),
                    }
                }
            }
            ToWorker::Control(c) => {
                if let Some(r) = self.host.as_mut() {
                    r.host.local_command(c);
                }
            }
            ToWorker::Backlog { link, bytes } => {
                if let Some(r) = self.host.as_mut() {
                    if let Some(id) = r.link(link) {
                        r.host
                            .handle_backlog(id, usize::try_from(bytes).unwrap_or(usize::MAX));
                    }
                }
            }
            ToWorker::LinkLost(link) => {
                if let Some(r) = self.host.as_mut() {
                    if let Some(id) = r.link(link) {
                        r.host.handle_link_closed(now, id);
                        // A link lost before its guest took a seat has no
                        // seat to leave: it is gone all the same.
                        if !r.seats.values().any(|n| *n == link) && r.gone.insert(link) {
                            self.out.push_back(FromWorker::Left(link, Gone::Lost));
                        }
                    }
                }
            }
            ToWorker::Quit => {
                if let Some(r) = self.host.as_mut() {
                    r.host.close();
                    self.drain();
                }
                self.host = None;
                self.out.push_back(FromWorker::Closed);
                return;
            }
        }
        self.drain();
    }

    /// When the host next wants [`tick`](Self::tick).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.host.as_ref().and_then(|r| r.host.poll_timeout())
    }

    /// Runs the ticks that are due at `now`.
    pub fn tick(&mut self, now: Millis) {
        let Some(r) = self.host.as_mut() else {
            return;
        };
        if r.host.poll_timeout().is_some_and(|t| t <= now) {
            r.host.handle_timeout(now);
        }
        self.drain();
    }

    /// The next message for the page.
    pub fn poll(&mut self) -> Option<FromWorker> {
        self.out.pop_front()
    }

    fn drain(&mut self) {
        let Some(r) = self.host.as_mut() else {
            return;
        };
        while let Some(t) = r.host.poll_transmit() {
            if let Some(&link) = r.names.get(&t.link) {
                self.out.push_back(FromWorker::Send {
                    link,
                    reliable: t.channel == Channel::Reliable,
                    bytes: t.bytes,
                });
            }
        }
        // The links are the page's to close, when the match ends; a close
        // the host asks for (a refused or misbehaving guest) ends with the
        // guest's departure below.
        while r.host.poll_close().is_some() {}
        while let Some(e) = r.host.poll_event() {
            let gone = match e {
                HostEvent::Joined { seat, link, .. } => {
                    if let Some(&name) = r.names.get(&link) {
                        r.seats.insert(seat, name);
                        self.out.push_back(FromWorker::Joined(name));
                    }
                    None
                }
                // Our own goodbye (after Quit): `Closed` follows.
                HostEvent::Left(_, LeaveReason::Closed) => None,
                HostEvent::Left(seat, why) => r.seats.get(&seat).map(|&n| (n, why.into())),
                HostEvent::Refused(link, _) => r.names.get(&link).map(|&n| (n, Gone::Misbehaved)),
                // The seat is given up on the next tick (no rejoin grace):
                // `Left` follows.
                HostEvent::Dropped(_) | HostEvent::Event(_) => None,
            };
            if let Some((name, why)) = gone {
                if r.gone.insert(name) {
                    self.out.push_back(FromWorker::Left(name, why));
                }
            }
        }
        if self.shown != Some(r.host.tick()) {
            self.shown = Some(r.host.tick());
            self.out.push_back(FromWorker::View {
                tick: r.host.tick(),
                snapshot: r.host.game().snapshot(0),
            });
        }
    }
}
