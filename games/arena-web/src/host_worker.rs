//! The host's side of a match, as it runs in the dedicated worker.
//!
//! [`HostWorker`] is sans-IO like the `authority` host it wraps: the worker
//! glue (or a native test) feeds it the page's messages and the time, and
//! drains the messages for the page. It owns the only real simulation of
//! the match: the host player's controls and the guest's datagrams go in,
//! datagrams for the guest and the host player's view of each tick come
//! out.
//!
//! Calling contract: [`handle`](HostWorker::handle) each message from the
//! page, [`tick`](HostWorker::tick) at [`poll_timeout`](HostWorker::poll_timeout)
//! (or more often), and after every call drain [`poll`](HostWorker::poll).

use std::collections::VecDeque;

use arena::Arena;
use authority::{AuthoritativeGame, Host, HostConfig, HostEvent, LeaveReason, LinkId, Millis};
use lockstep::Channel;

use crate::bridge::{self, FromWorker, ToWorker};

/// The host of one match and its one link (the room gives one peer
/// connection per match).
#[derive(Default)]
pub struct HostWorker {
    host: Option<(Host<Arena>, LinkId)>,
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

    /// A message from the page.
    pub fn handle(&mut self, now: Millis, msg: ToWorker) {
        match msg {
            ToWorker::Start { seed } => {
                if self.host.is_some() {
                    log::warn!("arena worker: a second start ignored");
                    return;
                }
                match Host::new(
                    Arena::new(seed),
                    HostConfig::new(seed.rotate_left(17)).tick_ms(crate::slot::TICK_MS),
                ) {
                    Ok(mut host) => {
                        let link = host.handle_connect(now);
                        self.host = Some((host, link));
                    }
                    Err(e) => {
                        log::error!("arena worker: host configuration refused: {e}");
                        self.out.push_back(FromWorker::Failed);
                    }
                }
            }
            ToWorker::Datagram { reliable, bytes } => {
                if let Some((host, link)) = self.host.as_mut() {
                    let channel = if reliable {
                        Channel::Reliable
                    } else {
                        Channel::Unreliable
                    };
                    host.handle_datagram(now, *link, channel, &bytes);
                }
            }
            ToWorker::Control(c) => {
                if let Some((host, _)) = self.host.as_mut() {
                    host.local_command(c);
                }
            }
            ToWorker::Backlog(bytes) => {
                if let Some((host, link)) = self.host.as_mut() {
                    host.handle_backlog(*link, usize::try_from(bytes).unwrap_or(usize::MAX));
                }
            }
            ToWorker::LinkLost => {
                if let Some((host, link)) = self.host.as_mut() {
                    host.handle_link_closed(now, *link);
                }
            }
            ToWorker::Quit => {
                if let Some((host, _)) = self.host.as_mut() {
                    host.close();
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
        self.host.as_ref().and_then(|(h, _)| h.poll_timeout())
    }

    /// Runs the ticks that are due at `now`.
    pub fn tick(&mut self, now: Millis) {
        let Some((host, _)) = self.host.as_mut() else {
            return;
        };
        if host.poll_timeout().is_some_and(|t| t <= now) {
            host.handle_timeout(now);
        }
        self.drain();
    }

    /// The next message for the page.
    pub fn poll(&mut self) -> Option<FromWorker> {
        self.out.pop_front()
    }

    fn drain(&mut self) {
        let Some((host, link)) = self.host.as_mut() else {
            return;
        };
        while let Some(t) = host.poll_transmit() {
            if t.link == *link {
                self.out.push_back(FromWorker::Send {
                    reliable: t.channel == Channel::Reliable,
                    bytes: t.bytes,
                });
            }
        }
        // The link is the page's to close, when the match ends; a close the
        // host asks for (a refused or misbehaving guest) ends with the
        // guest's departure below.
        while host.poll_close().is_some() {}
        while let Some(e) = host.poll_event() {
            match e {
                HostEvent::Joined { .. } => self.out.push_back(FromWorker::Joined),
                // Our own goodbye (after Quit): `Closed` follows.
                HostEvent::Left(_, LeaveReason::Closed) => {}
                HostEvent::Left(_, why) => self.out.push_back(FromWorker::Left(why.into())),
                HostEvent::Refused(..) => {
                    self.out
                        .push_back(FromWorker::Left(crate::bridge::Gone::Misbehaved));
                }
                // With one link, a dropped guest cannot come back on another:
                // the page ends the match when its link closes.
                HostEvent::Dropped(_) | HostEvent::Event(_) => {}
            }
        }
        if self.shown != Some(host.tick()) {
            self.shown = Some(host.tick());
            self.out.push_back(FromWorker::View {
                tick: host.tick(),
                snapshot: host.game().snapshot(0),
            });
        }
    }
}
