//! An ICE restart of a running match's peer connection (the match of
//! two's, or any of a party's links), tried before the rejoin path (a
//! party's comeback path) when the path underneath the link is lost (a
//! player's network changed: Wi-Fi to mobile, a new address after a
//! blip).
//!
//! The peer connection, its data channels and the session all stay: only
//! ICE looks for a new path, with fresh credentials, and the session meets
//! a quiet link for a moment, which its timers already absorb (no
//! catch-up). The rules, decided here without a browser:
//!
//! - only the side that offered in the match's own handshake (the host,
//!   who made the room) makes a restart offer, so the two never offer at
//!   once; the other side answers;
//! - the answering side whose path is lost (its own network changed: the
//!   offerer's browser may not notice for many seconds) asks the offerer
//!   for a restart, once as its wait for the offer begins
//!   ([`PeerMsg::IceRestartAsk`](crate::protocol::PeerMsg), naming the
//!   last restart it answered); the offerer, asked, offers at once unless
//!   a restart is under way or it already offered a newer one than the
//!   asker answered (a stale ask), its own path up or not;
//! - the offer, the answer and the candidates travel as lobby peer
//!   messages ([`PeerMsg::IceRestart`](crate::protocol::PeerMsg)), beside
//!   the rejoin messages and under the same size and rate limits; each
//!   carries the restart's number, and a step of another number is stale;
//!   each offer is answered once, each answer applied once;
//! - candidates are held until this side's description has gone out (the
//!   browser may gather before the offer is reported), and the other
//!   side's until its description is applied, at most
//!   [`MAX_HELD_CANDIDATES`] each way;
//! - a restart that has not brought the path back within
//!   [`RESTART_DEADLINE`] is given up: the caller closes the peer
//!   connection, and the rejoin path (`rejoin`) runs unchanged.
//!
//! A party's links follow the same rules, each link with its own
//! [`IceRestart`] (`PartyRestarts`), so several restart at once: on each
//! link the page that offered in that link's handshake (in the party's
//! member room or a comeback room) offers. Each step names its link by
//! the code of the room that made it, which both of its pages know: with
//! the sender (the player at the link's other end) that picks one link,
//! and a step meant for a link since replaced by a comeback link names
//! another room and is dropped. A restart given up closes its link as if
//! it had closed, and the party's comeback path (`party::back`) runs
//! unchanged. A link over the service's relay has no ICE and is not
//! restarted.
//!
//! While a restart runs, its steps and asks go through the signalling
//! service (the lobby socket), never over the lobby's mesh link to that
//! player: a network change takes the mesh link's path too, and that link
//! may still say open while it carries nothing. A step that finds the
//! lobby socket closed waits for it (at most [`MAX_WAITING`]) and asks for
//! it at once (no backoff). The socket that comes back has a new lobby id:
//! the steps sent from it carry a proof of who sends them (`vouch`), with
//! which the other page takes them from the new id, answers there, and
//! knows the player by it from then on (for the rejoin path too); it then
//! sends again what it had sent of the restart under way, which the old id
//! never got (each step is still taken once: the rules drop repeats).

mod vouch;

pub use vouch::CHAIN as PROOF_CHAIN;

use super::room::Candidate;
use crate::id::{PeerId, RoomCode};
use crate::protocol::{PeerMsg, Proof, SignalKind, Vouch};
use lockstep::Millis;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// How long an ICE restart may take before the page gives it up for the
/// rejoin path: on a working network the new path forms in well under a
/// second (a round of lobby messages and a round of connectivity checks),
/// and a player whose network is really gone should not wait long for the
/// fallback, whose own window (20 s) runs from the drop.
pub const RESTART_DEADLINE: Millis = Millis(5_000);

/// Most candidates held back each way during one restart: a browser
/// gathers a handful per network interface; beyond this a peer floods.
pub const MAX_HELD_CANDIDATES: usize = 32;

/// What the caller does for the restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Make an ICE-restart offer on the match's connection and report it
    /// with [`IceRestart::local_description`].
    MakeOffer,
    /// Apply the other side's restart offer, make the answer, and report
    /// it with [`IceRestart::local_description`].
    Answer(String),
    /// Apply the other side's answer and report how it went with
    /// [`IceRestart::applied`].
    Apply(String),
    /// Add a candidate of the other side to the connection.
    AddCandidate(Candidate),
    /// Ask the other player (the offerer) for a restart, naming the last
    /// restart this side answered.
    Ask {
        /// The last restart number answered (0 for none).
        after: u8,
    },
    /// Send this step of restart `n` to the other player.
    Send {
        /// The restart's number.
        n: u8,
        /// The step.
        step: SignalKind,
    },
    /// The path is back: the match went on over the same connection.
    Recovered,
    /// The restart did not bring the path back in time (or could not be
    /// made): close the connection and take the rejoin path.
    GiveUp,
}

/// Where a restart stands.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Under {
    /// Its number (0 while the answerer waits for the offer that names it).
    n: u8,
    /// When it is given up.
    until: Millis,
    /// This side's description (offer or answer) has gone out.
    sent: bool,
    /// The offerer took an answer and is applying it.
    applying: bool,
    /// Both descriptions are in place on this side (the offerer applied
    /// the answer; the answerer made its answer).
    negotiated: bool,
    /// Local candidates waiting for this side's description to go out.
    local: Vec<Candidate>,
    /// The other side's candidates waiting for the descriptions.
    remote: Vec<Candidate>,
}

/// The ICE-restart rules of one match connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IceRestart {
    offerer: bool,
    /// The last restart number offered (offerer) or answered (answerer).
    last: u8,
    /// Whether ICE has the path, as the connection last said.
    path_up: bool,
    under: Option<Under>,
    /// Restarts that brought the path back, for the page and its tests.
    recovered: u32,
}

impl IceRestart {
    /// The rules for a connection on which this side made the offer
    /// (`offerer`) or the answer of the match's handshake.
    #[must_use]
    pub fn new(offerer: bool) -> IceRestart {
        IceRestart {
            offerer,
            last: 0,
            path_up: true,
            under: None,
            recovered: 0,
        }
    }

    /// Whether a restart is under way (the page says "Reconnecting…").
    #[must_use]
    pub fn active(&self) -> bool {
        self.under.is_some()
    }

    /// How many restarts brought the path back on this connection.
    #[must_use]
    pub fn recovered(&self) -> u32 {
        self.recovered
    }

    fn begin(&mut self, now: Millis, n: u8) {
        self.under = Some(Under {
            n,
            until: now + RESTART_DEADLINE,
            sent: false,
            applying: false,
            negotiated: false,
            local: Vec::new(),
            remote: Vec::new(),
        });
    }

    /// ICE lost the path at `now`. The offerer begins a restart (unless
    /// one is under way); the answerer asks the offerer for one (whose
    /// browser may not have noticed) and waits for its offer, under the
    /// same deadline.
    pub fn path_down(&mut self, now: Millis) -> Vec<Step> {
        self.path_up = false;
        if self.under.is_some() {
            return Vec::new();
        }
        if !self.offerer {
            self.begin(now, 0);
            return vec![Step::Ask { after: self.last }];
        }
        self.offer(now)
    }

    /// The other side asks for a restart at `now`, having answered restart
    /// `after` last. Only the offerer takes an ask, and begins a restart
    /// unless one is under way or it offered a newer one than `after`
    /// (the ask crossed that offer); its own path may still be up. An ask
    /// naming a restart never offered is dropped too.
    pub fn asked(&mut self, now: Millis, after: u8) -> Vec<Step> {
        if !self.offerer {
            log::info!("an ICE restart ask to the side that answers; dropped");
            return Vec::new();
        }
        if self.under.is_some() || after != self.last {
            log::info!("an ICE restart ask while one is under way, or stale; dropped");
            return Vec::new();
        }
        log::info!("the other side lost the link's path; trying an ICE restart");
        self.offer(now)
    }

    /// The offerer begins restart `last + 1` at `now`.
    fn offer(&mut self, now: Millis) -> Vec<Step> {
        let Some(n) = self.last.checked_add(1) else {
            // 255 restarts on one connection: something else is wrong.
            return vec![Step::GiveUp];
        };
        self.last = n;
        self.begin(now, n);
        vec![Step::MakeOffer]
    }

    /// ICE has the path again.
    pub fn path_up(&mut self) -> Vec<Step> {
        self.path_up = true;
        self.finish_if_done()
    }

    fn finish_if_done(&mut self) -> Vec<Step> {
        match &self.under {
            Some(u) if u.negotiated && self.path_up => {
                self.under = None;
                self.recovered += 1;
                vec![Step::Recovered]
            }
            _ => Vec::new(),
        }
    }

    /// This side's description (the offer asked for by
    /// [`Step::MakeOffer`], or the answer asked for by [`Step::Answer`]);
    /// `None` if the browser could not make it.
    pub fn local_description(&mut self, sdp: Option<String>) -> Vec<Step> {
        let offerer = self.offerer;
        let Some(u) = self.under.as_mut().filter(|u| !u.sent && u.n != 0) else {
            return Vec::new();
        };
        let Some(sdp) = sdp else {
            log::info!("the ICE restart's description could not be made");
            self.under = None;
            return vec![Step::GiveUp];
        };
        u.sent = true;
        let n = u.n;
        let step = if offerer {
            SignalKind::Offer(sdp)
        } else {
            u.negotiated = true;
            SignalKind::Answer(sdp)
        };
        let mut out = vec![Step::Send { n, step }];
        out.extend(u.local.drain(..).map(|c| Step::Send {
            n,
            step: candidate_step(c),
        }));
        if !offerer {
            out.extend(u.remote.drain(..).map(Step::AddCandidate));
            out.extend(self.finish_if_done());
        }
        out
    }

    /// The offerer's answer was applied (`ok`), or the browser refused it.
    pub fn applied(&mut self, ok: bool) -> Vec<Step> {
        let Some(u) = self.under.as_mut().filter(|u| u.applying && !u.negotiated) else {
            return Vec::new();
        };
        if !ok {
            log::info!("the ICE restart's answer was refused");
            self.under = None;
            return vec![Step::GiveUp];
        }
        u.negotiated = true;
        let mut out: Vec<Step> = u.remote.drain(..).map(Step::AddCandidate).collect();
        out.extend(self.finish_if_done());
        out
    }

    /// The connection gathered a local candidate: sent once this side's
    /// description has gone out; dropped when no restart is under way (the
    /// match's first handshake is over).
    pub fn local_candidate(&mut self, c: Candidate) -> Vec<Step> {
        let Some(u) = self.under.as_mut() else {
            return Vec::new();
        };
        if u.sent {
            return vec![Step::Send {
                n: u.n,
                step: candidate_step(c),
            }];
        }
        hold(&mut u.local, c);
        Vec::new()
    }

    /// A restart step `step` of number `n` from the other player, at
    /// `now`. An offer reaches only the answerer, once per number and in
    /// rising numbers, and begins its restart if its own ICE has not
    /// noticed the loss yet; an answer reaches only the offerer, once, for
    /// the restart under way; candidates only the restart under way
    /// (they follow its offer on the ordered lobby channel). Anything else
    /// is stale or out of turn, and dropped.
    pub fn remote(&mut self, now: Millis, n: u8, step: SignalKind) -> Vec<Step> {
        match step {
            SignalKind::Offer(sdp) => {
                if self.offerer || n <= self.last {
                    log::info!("an ICE restart offer out of turn, or answered already; dropped");
                    return Vec::new();
                }
                self.last = n;
                // The deadline runs from the first sign of trouble on
                // this side, if there was one.
                let until = self.under.as_ref().map(|u| u.until);
                self.begin(now, n);
                if let (Some(u), Some(until)) = (self.under.as_mut(), until) {
                    u.until = until;
                }
                vec![Step::Answer(sdp)]
            }
            SignalKind::Answer(sdp) => match self.under.as_mut() {
                Some(u) if self.offerer && u.n == n && u.sent && !u.applying => {
                    u.applying = true;
                    vec![Step::Apply(sdp)]
                }
                _ => {
                    log::info!("an ICE restart answer nobody waits for; dropped");
                    Vec::new()
                }
            },
            SignalKind::Ice {
                candidate,
                sdp_mid,
                sdp_m_line_index,
            } => {
                let c = Candidate {
                    candidate,
                    sdp_mid,
                    sdp_m_line_index,
                };
                match self.under.as_mut() {
                    Some(u) if u.n == n && u.n != 0 => {
                        if u.negotiated {
                            vec![Step::AddCandidate(c)]
                        } else {
                            hold(&mut u.remote, c);
                            Vec::new()
                        }
                    }
                    _ => {
                        log::debug!("an ICE restart candidate of no restart under way; dropped");
                        Vec::new()
                    }
                }
            }
        }
    }

    /// The timer at `now`: a restart past its deadline is given up.
    pub fn tick(&mut self, now: Millis) -> Vec<Step> {
        match &self.under {
            Some(u) if now >= u.until => {
                log::info!("the ICE restart did not bring the path back in time");
                self.under = None;
                vec![Step::GiveUp]
            }
            _ => Vec::new(),
        }
    }
}

fn candidate_step(c: Candidate) -> SignalKind {
    SignalKind::Ice {
        candidate: c.candidate,
        sdp_mid: c.sdp_mid,
        sdp_m_line_index: c.sdp_m_line_index,
    }
}

fn hold(list: &mut Vec<Candidate>, c: Candidate) {
    if list.len() < MAX_HELD_CANDIDATES {
        list.push(c);
    } else {
        log::warn!("too many ICE restart candidates held back; dropped one");
    }
}

/// A restart message from the other player, as the lobby read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Remote {
    /// Step `step` of restart `n`.
    Step {
        /// The restart's number.
        n: u8,
        /// The step.
        step: SignalKind,
    },
    /// An ask for a restart, after restart `after`.
    Ask {
        /// The last restart the asker answered.
        after: u8,
    },
}

impl Remote {
    /// What the rules `r` make of this message at `now`.
    fn take(self, now: Millis, r: &mut IceRestart) -> Vec<Step> {
        match self {
            Remote::Step { n, step } => r.remote(now, n, step),
            Remote::Ask { after } => r.asked(now, after),
        }
    }
}

/// Most restart messages kept waiting for the lobby socket, or kept to be
/// sent again to a player's new lobby id: a restart sends an offer or an
/// answer and a handful of candidates per link.
pub const MAX_WAITING: usize = 64;

/// Most checks of other players' proofs kept: a party's players, and a
/// few of earlier matches.
const MAX_CHECKS: usize = 16;

/// A restart message to send, without the link and the vouch, which are
/// filled in when it goes.
#[derive(Debug, Clone)]
enum Out {
    Step { n: u8, step: SignalKind },
    Ask { after: u8 },
}

/// Who sends a restart's steps when a lobby id changed (see `vouch`).
#[derive(Debug, Default)]
pub(super) struct Vouches {
    /// This page's proof chain for the running match.
    own: Option<vouch::Own>,
    /// The players given its check, by lobby id.
    told: BTreeSet<PeerId>,
    /// The checks of the other players' chains, by their lobby id.
    theirs: BTreeMap<PeerId, vouch::Theirs>,
    /// Messages waiting for the lobby socket, in order.
    waiting: VecDeque<(On, Out)>,
    /// Messages sent lately (within a restart's deadline), to send again
    /// to a player's new id, or from this page's.
    sent: VecDeque<(Millis, On, Out)>,
    /// This page's lobby id when it last sent restart messages: a socket
    /// that came back under another has lost what went on the old one.
    sent_as: Option<PeerId>,
}

/// The link a restart runs on.
#[derive(Debug, Clone)]
enum On {
    /// The match of two's connection of attempt `tag`.
    Match(u32),
    /// A party's link to `place`: its key and tag, and the room that made
    /// it (the name both ends know it by).
    Party {
        place: u8,
        key: u8,
        tag: u32,
        room: RoomCode,
    },
}

/// How a party link was made: its attempt's tag, whether this side
/// offered, and the room that made it.
#[derive(Debug, Clone)]
struct Made {
    tag: u32,
    offered: bool,
    room: RoomCode,
}

/// The restart rules of one party link.
#[derive(Debug)]
struct LinkRestart {
    key: u8,
    tag: u32,
    room: RoomCode,
    rules: IceRestart,
}

/// The ICE-restart rules of a party match's links: the match of two's,
/// one set per link, each link named by the room that made it.
#[derive(Debug, Default)]
pub(super) struct PartyRestarts {
    /// How each party link was made, by key (a new link of a key
    /// replaces the old one's).
    made: BTreeMap<u8, Made>,
    /// The rules of the match's links, by the place at the other end,
    /// made when a link first needs them.
    links: BTreeMap<u8, LinkRestart>,
    /// Restarts that brought a link's path back.
    recovered: u32,
}

impl PartyRestarts {
    /// The link to `place` closed: its rules go with it.
    pub(super) fn forget(&mut self, place: u8) {
        self.links.remove(&place);
    }
}

impl super::Shell {
    /// The match's peer connection of attempt `tag` opened, on this side
    /// of its handshake (`role`) and over this path: a direct connection
    /// gets the ICE-restart rules (a relay socket has no ICE to restart).
    pub(super) fn restart_rules(
        &mut self,
        tag: u32,
        role: super::room::Role,
        path: super::room::Path,
    ) {
        self.comeback.restart = (path == super::room::Path::Direct)
            .then(|| (tag, IceRestart::new(role == super::room::Role::Host)));
    }

    /// A peer connection is made for `link` of attempt `tag`, offering
    /// (`offered`) or answering: for a party's link, that side and the
    /// room making it are kept for its restarts.
    pub(super) fn party_link_made(&mut self, link: &super::LinkId, tag: u32, offered: bool) {
        let super::LinkId::Party(key) = *link else {
            return;
        };
        let Some(room) = self.party_link_room(key, tag) else {
            return;
        };
        if let Some(p) = self.party.as_mut() {
            p.restarts.made.insert(key, Made { tag, offered, room });
        }
    }

    /// The restart rules of the running party match's link to `place`,
    /// made when first needed; none for a relayed link (no ICE) or one
    /// made before this page kept how.
    fn link_restart_rules(&mut self, place: u8) -> Option<(On, &mut IceRestart)> {
        let (key, tag, relayed) = self.party_match_link(place)?;
        let r = &mut self.party.as_mut()?.restarts;
        if relayed {
            r.links.remove(&place);
            return None;
        }
        let current = r
            .links
            .get(&place)
            .is_some_and(|l| l.key == key && l.tag == tag);
        if !current {
            r.links.remove(&place);
            let made = r.made.get(&key).filter(|m| m.tag == tag)?.clone();
            r.links.insert(
                place,
                LinkRestart {
                    key,
                    tag,
                    room: made.room,
                    rules: IceRestart::new(made.offered),
                },
            );
        }
        let l = r.links.get_mut(&place)?;
        let on = On::Party {
            place,
            key,
            tag,
            room: l.room.clone(),
        };
        Some((on, &mut l.rules))
    }

    /// The restart rules of the match connection of attempt `tag`.
    fn restart_of(&mut self, tag: u32) -> Option<&mut IceRestart> {
        self.comeback
            .restart
            .as_mut()
            .filter(|(t, _)| *t == tag)
            .map(|(_, r)| r)
    }

    /// An event of the running match's connection of attempt `tag` that
    /// the restart rules take; `false` for the others (datagrams, its end).
    pub(super) fn restart_event(&mut self, now: Millis, tag: u32, event: &super::RtcEvent) -> bool {
        let Some(r) = self.restart_of(tag) else {
            return false;
        };
        let Some(steps) = restart_input(now, r, event) else {
            return false;
        };
        self.restart_steps(now, &On::Match(tag), steps);
        true
    }

    /// An event of the running party match's link to `place` that the
    /// restart rules take (its path lost or back, a step of its restart);
    /// ignored on a link without them.
    pub(super) fn party_restart_event(&mut self, now: Millis, place: u8, event: &super::RtcEvent) {
        let Some((on, r)) = self.link_restart_rules(place) else {
            return;
        };
        if let Some(steps) = restart_input(now, r, event) {
            self.restart_steps(now, &on, steps);
        }
    }

    /// A restart message (a step, or an ask) from `from` over the lobby:
    /// for the running match of two's connection (no `link`), taken only
    /// from the player this page plays; for a party's link (named by the
    /// room that made it), only from the party player at its other end.
    pub(super) fn restart_message(
        &mut self,
        now: Millis,
        from: &crate::id::PeerId,
        msg: Remote,
        link: Option<RoomCode>,
        vouch: Option<Vouch>,
    ) {
        if let Some(room) = link {
            if self.party_place_of(from).is_none() && !self.vouched_in_party(from, vouch) {
                log::info!("an ICE restart message from someone not in this party; dropped");
                return;
            }
            self.party_restart_message(now, from, msg, &room);
            return;
        }
        let known = self.last_opponent.as_ref() == Some(from) || self.vouched_in_match(from, vouch);
        if !known || !self.in_match() {
            log::info!("an ICE restart message from someone this page does not play; dropped");
            return;
        }
        let Some((tag, r)) = self.comeback.restart.as_mut() else {
            log::info!("an ICE restart message with no direct match connection; dropped");
            return;
        };
        let tag = *tag;
        let steps = msg.take(now, r);
        self.restart_steps(now, &On::Match(tag), steps);
    }

    fn party_restart_message(
        &mut self,
        now: Millis,
        from: &crate::id::PeerId,
        msg: Remote,
        room: &RoomCode,
    ) {
        let Some(place) = self.party_place_of(from) else {
            log::info!("an ICE restart message from someone not in this party; dropped");
            return;
        };
        let Some((on, r)) = self
            .link_restart_rules(place)
            .filter(|(on, _)| matches!(on, On::Party { room: r, .. } if r == room))
        else {
            log::info!("an ICE restart message for a party link this page does not have; dropped");
            return;
        };
        let steps = msg.take(now, r);
        self.restart_steps(now, &on, steps);
    }

    /// The restarts' timers, their checks and their waiting messages.
    pub(super) fn restart_tick(&mut self, now: Millis) {
        self.restart_checks();
        self.flush_restart_msgs(now);
        if let Some((tag, r)) = self.comeback.restart.as_mut() {
            let tag = *tag;
            let steps = r.tick(now);
            self.restart_steps(now, &On::Match(tag), steps);
        }
        let under: Vec<u8> = self.party.as_ref().map_or_else(Vec::new, |p| {
            let links = &p.restarts.links;
            links
                .iter()
                .filter(|(_, l)| l.rules.active())
                .map(|(q, _)| *q)
                .collect()
        });
        for place in under {
            if let Some((on, r)) = self.link_restart_rules(place) {
                let steps = r.tick(now);
                self.restart_steps(now, &on, steps);
            }
        }
    }

    /// Whether an ICE restart of the match connection, or of one of the
    /// party match's links, is under way.
    pub(super) fn restarting(&self) -> bool {
        let pair = self
            .comeback
            .restart
            .as_ref()
            .is_some_and(|(_, r)| r.active());
        pair || self.party.as_ref().is_some_and(|p| {
            p.restarts.links.iter().any(|(q, l)| {
                l.rules.active()
                    && self
                        .party_match_link(*q)
                        .is_some_and(|(key, tag, _)| key == l.key && tag == l.tag)
            })
        })
    }

    /// Sends a restart message to the player at the other end of the link
    /// `on`, naming a party's link by its room, through the service and
    /// under its limits; kept, and the lobby socket asked for at once, if
    /// the socket is not online. Kept too for a while, to go again to the
    /// player's new lobby id should it change.
    fn send_restart_msg(&mut self, on: &On, out: Out) {
        let now = self.now;
        let v = &mut self.comeback.vouches;
        while v
            .sent
            .front()
            .is_some_and(|(at, _, _)| *at + RESTART_DEADLINE <= now)
        {
            v.sent.pop_front();
        }
        if v.sent.len() < MAX_WAITING {
            v.sent.push_back((now, on.clone(), out.clone()));
        }
        if !self.try_send_restart(on, &out) {
            self.keep_restart_msg(on.clone(), out);
            self.lobby_now(now);
        }
    }

    fn keep_restart_msg(&mut self, on: On, out: Out) {
        let v = &mut self.comeback.vouches;
        if v.waiting.len() < MAX_WAITING {
            v.waiting.push_back((on, out));
        } else {
            log::warn!("too many ICE restart messages wait for the lobby; dropped one");
        }
    }

    /// Sends `out` through the service now, with this page's proof if its
    /// lobby id changed since it told the other page its check; `false`
    /// if the lobby socket is not online.
    fn try_send_restart(&mut self, on: &On, out: &Out) -> bool {
        let (to, link) = match on {
            On::Match(_) => (self.last_opponent.clone(), None),
            On::Party { place, room, .. } => (self.party_id_at(*place), Some(room.clone())),
        };
        let Some(c) = self.client.as_mut() else {
            return true;
        };
        if c.connection() != crate::lobby::Connection::Online {
            return false;
        }
        let Some(to) = to else {
            return true;
        };
        let me = c.me().cloned();
        let vouch = match (self.comeback.vouches.own.as_mut(), me) {
            (Some(own), Some(me)) => own.proof_for(&me).map(|proof| Vouch {
                match_id: own.match_id(),
                proof,
            }),
            _ => None,
        };
        let msg = match out.clone() {
            Out::Step { n, step } => PeerMsg::IceRestart {
                n,
                step,
                link,
                vouch,
            },
            Out::Ask { after } => PeerMsg::IceRestartAsk { after, link, vouch },
        };
        if !c.send_peer_via_service(&to, &msg) {
            // Online, but the player is not in the roster (yet): the
            // message waits for them.
            return false;
        }
        true
    }

    /// Sends the restart messages kept for the lobby socket, once it is
    /// online (again what went lately on the old socket too, if the socket
    /// came back under a new id: a socket of the old network takes what
    /// is sent on it and delivers nothing); asks for the socket at once
    /// while a restart is under way and it is closed; forgets them when no
    /// match runs.
    fn flush_restart_msgs(&mut self, now: Millis) {
        if !self.in_match() {
            let v = &mut self.comeback.vouches;
            v.waiting.clear();
            v.sent.clear();
            v.sent_as = None;
            return;
        }
        let me = self
            .client
            .as_ref()
            .filter(|c| c.connection() == crate::lobby::Connection::Online)
            .and_then(|c| c.me().cloned());
        let Some(me) = me else {
            if self.restarting() || !self.comeback.vouches.waiting.is_empty() {
                self.lobby_now(now);
            }
            return;
        };
        let v = &mut self.comeback.vouches;
        if v.sent_as.as_ref() != Some(&me) {
            let moved = v.sent_as.is_some();
            v.sent_as = Some(me);
            if moved {
                // What waits was sent (and kept) already: it goes again
                // with the rest.
                v.waiting.clear();
                self.resend_restart_msgs(|_| true);
            }
        }
        if self.comeback.vouches.waiting.is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut self.comeback.vouches.waiting);
        for (on, out) in waiting {
            if !self.try_send_restart(&on, &out) {
                self.keep_restart_msg(on, out);
            }
        }
    }

    /// The restart on the link `on` is over (its path back, or given up):
    /// what it sent is not sent again, nor what of it still waits (a stale
    /// ask would begin another restart).
    fn restart_over(&mut self, on: &On) {
        let same = |o: &On| match (o, on) {
            (On::Match(_), On::Match(_)) => true,
            (On::Party { place: a, .. }, On::Party { place: b, .. }) => a == b,
            _ => false,
        };
        let v = &mut self.comeback.vouches;
        v.sent.retain(|(_, o, _)| !same(o));
        v.waiting.retain(|(o, _)| !same(o));
    }

    /// Sends again, to the other end's new lobby id, what this page sent
    /// lately on the links `mine` picks (the old id never got it).
    fn resend_restart_msgs(&mut self, mine: impl Fn(&On) -> bool) {
        let now = self.now;
        let again: Vec<(On, Out)> = self
            .comeback
            .vouches
            .sent
            .iter()
            .filter(|(at, on, _)| *at + RESTART_DEADLINE > now && mine(on))
            .map(|(_, on, out)| (on.clone(), out.clone()))
            .collect();
        for (on, out) in again {
            if !self.try_send_restart(&on, &out) {
                self.keep_restart_msg(on, out);
            }
        }
    }

    /// Gives this page's proof chain for the running match its start, and
    /// its check to each player at the other end of a direct link who has
    /// not had it.
    fn restart_checks(&mut self) {
        if !self.in_match() {
            // The other players' checks stay: one may come before this
            // page hears its match began, and each names its match.
            let v = &mut self.comeback.vouches;
            v.own = None;
            v.told.clear();
            return;
        }
        let Some(id) = self.game.match_identity() else {
            return;
        };
        let Some(me) = self.client.as_ref().and_then(|c| c.me().cloned()) else {
            return;
        };
        if self
            .comeback
            .vouches
            .own
            .as_ref()
            .is_none_or(|o| o.match_id() != id.match_id)
        {
            let mut nonce = [0u8; 16];
            if !(self.random)(&mut nonce) {
                return;
            }
            let mut own = vouch::Own::new(id.match_id, id.token.unwrap_or(0), nonce);
            // The chain begins under the id its check goes from.
            let _ = own.proof_for(&me);
            let v = &mut self.comeback.vouches;
            v.own = Some(own);
            v.told.clear();
        }
        let partners: Vec<PeerId> = match self.party.as_ref() {
            Some(_) => self.party_ids().into_iter().filter(|i| *i != me).collect(),
            None if self.comeback.restart.is_some() => self.last_opponent.iter().cloned().collect(),
            None => Vec::new(),
        };
        let Some(check) = self.comeback.vouches.own.as_ref().map(vouch::Own::check) else {
            return;
        };
        for to in partners {
            if self.comeback.vouches.told.contains(&to) {
                continue;
            }
            let Some(c) = self.client.as_mut().filter(|c| c.reachable(&to)) else {
                continue;
            };
            c.send_peer(
                &to,
                &PeerMsg::IceRestartCheck {
                    match_id: id.match_id,
                    check,
                },
            );
            self.comeback.vouches.told.insert(to);
        }
    }

    /// The check `check` of the proofs of the player `from` for match
    /// `match_id`: kept if `from` is a player this page plays (by the
    /// lobby id it knows), whatever it held of that player before (a
    /// reloaded page starts a new chain).
    pub(super) fn restart_check(&mut self, from: &PeerId, match_id: u64, check: Proof) {
        let known =
            self.last_opponent.as_ref() == Some(from) || self.party_place_of(from).is_some();
        if !known {
            log::info!("an ICE restart check from someone this page does not play; dropped");
            return;
        }
        let theirs = &mut self.comeback.vouches.theirs;
        if theirs.len() >= MAX_CHECKS && !theirs.contains_key(from) {
            // Checks of players met in earlier matches go first.
            let current = self.game.match_identity().map(|i| i.match_id);
            theirs.retain(|_, t| Some(t.match_id) == current);
        }
        if theirs.len() < MAX_CHECKS || theirs.contains_key(from) {
            theirs.insert(from.clone(), vouch::Theirs::new(match_id, check));
        }
    }

    /// Whether the proof `vouch` shows that `from`, a lobby id this page
    /// does not know, is the player of the running match of two under a
    /// new id; if so, that player is known by it from now on.
    fn vouched_in_match(&mut self, from: &PeerId, vouch: Option<Vouch>) -> bool {
        let Some(old) = self.last_opponent.clone() else {
            return false;
        };
        if !self.vouch_takes(&old, from, vouch) {
            if vouch.is_some() {
                log::info!(
                    "an ICE restart proof for no match here, forged or shown before; dropped"
                );
            }
            return false;
        }
        log::info!("the other player came back to the lobby under a new id; known by it now");
        self.last_opponent = Some(from.clone());
        self.resend_restart_msgs(|on| matches!(on, On::Match(_)));
        true
    }

    /// As [`vouched_in_match`](Self::vouched_in_match), for a player of
    /// the party.
    fn vouched_in_party(&mut self, from: &PeerId, vouch: Option<Vouch>) -> bool {
        let places: Vec<(u8, PeerId)> = self.party_places();
        for (place, old) in places {
            if self.vouch_takes(&old, from, vouch) {
                log::info!("a party player came back to the lobby under a new id; known by it now");
                self.party_id_moved(place, from.clone());
                self.resend_restart_msgs(
                    |on| matches!(on, On::Party { place: q, .. } if *q == place),
                );
                return true;
            }
        }
        if vouch.is_some() {
            log::info!("an ICE restart proof for no party here, forged or shown before; dropped");
        }
        false
    }

    /// Whether `vouch` is the next proof of the player known as `old`, for
    /// the running match; if so, its check is kept under `from` now. The
    /// callers log a refusal (once, whatever players they tried).
    fn vouch_takes(&mut self, old: &PeerId, from: &PeerId, vouch: Option<Vouch>) -> bool {
        let Some(w) = vouch else {
            return false;
        };
        let Some(match_id) = self.game.match_identity().map(|i| i.match_id) else {
            return false;
        };
        let v = &mut self.comeback.vouches;
        let taken = w.match_id == match_id
            && v.theirs
                .get_mut(old)
                .is_some_and(|t| t.take(match_id, &w.proof));
        if !taken {
            return false;
        }
        if let Some(t) = v.theirs.remove(old) {
            v.theirs.insert(from.clone(), t);
        }
        // That page has this page's check already.
        if v.told.remove(old) {
            v.told.insert(from.clone());
        }
        true
    }

    fn restart_steps(&mut self, now: Millis, on: &On, steps: Vec<Step>) {
        use super::{LinkId, Output, SdpStep};
        let (link, tag) = match on {
            On::Match(tag) => (LinkId::Match, *tag),
            On::Party { key, tag, .. } => (LinkId::Party(*key), *tag),
        };
        for step in steps {
            match step {
                Step::MakeOffer => self.out.push_back(Output::Describe {
                    link: link.clone(),
                    tag,
                    step: SdpStep::RestartOffer,
                }),
                Step::Answer(offer) => self.out.push_back(Output::Describe {
                    link: link.clone(),
                    tag,
                    step: SdpStep::RestartAnswer(offer),
                }),
                Step::Apply(answer) => self.out.push_back(Output::Describe {
                    link: link.clone(),
                    tag,
                    step: SdpStep::Apply(answer),
                }),
                Step::AddCandidate(candidate) => self.out.push_back(Output::AddCandidate {
                    link: link.clone(),
                    tag,
                    candidate,
                }),
                Step::Send { n, step } => self.send_restart_msg(on, Out::Step { n, step }),
                Step::Ask { after } => self.send_restart_msg(on, Out::Ask { after }),
                Step::Recovered => {
                    log::info!("the ICE restart brought the link's path back");
                    self.restart_over(on);
                    let n = match on {
                        On::Match(_) => self
                            .comeback
                            .restart
                            .as_ref()
                            .map_or(0, |(_, r)| r.recovered()),
                        On::Party { .. } => self.party.as_mut().map_or(0, |p| {
                            p.restarts.recovered += 1;
                            p.restarts.recovered
                        }),
                    };
                    self.match_view.ice_restarts = Some(n);
                }
                Step::GiveUp => match on {
                    On::Match(_) => {
                        // Today's rejoin path, unchanged: the connection
                        // goes, the session hears its link lost, and a
                        // guest asks its way back.
                        self.restart_over(on);
                        self.comeback.restart = None;
                        self.out.push_back(Output::ClosePeer(link.clone()));
                        self.game.match_link_lost(now);
                        self.match_link_gone(now);
                    }
                    On::Party {
                        place, key, tag, ..
                    } => {
                        // The party's comeback path, unchanged: the link
                        // goes as if it had closed.
                        self.restart_over(on);
                        if let Some(p) = self.party.as_mut() {
                            p.restarts.forget(*place);
                        }
                        self.out.push_back(Output::ClosePeer(link.clone()));
                        self.party_rtc(now, *key, *tag, super::RtcEvent::Closed);
                    }
                },
            }
        }
        self.reconnecting_view();
        self.render(super::Part::Match);
    }
}

/// What the restart rules `r` make of a connection's `event`, if they
/// take it.
fn restart_input(now: Millis, r: &mut IceRestart, event: &super::RtcEvent) -> Option<Vec<Step>> {
    use super::RtcEvent;
    Some(match event {
        RtcEvent::PathDown => {
            log::info!("a match link lost its path; trying an ICE restart");
            r.path_down(now)
        }
        RtcEvent::PathUp => r.path_up(),
        RtcEvent::Offer(sdp) | RtcEvent::Answer(sdp) => r.local_description(sdp.clone()),
        RtcEvent::Applied(ok) => r.applied(*ok),
        RtcEvent::Candidate(c) => r.local_candidate(c.clone()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(k: u32) -> Candidate {
        Candidate {
            candidate: format!("candidate:{k} 1 udp 1 127.0.0.1 {k} typ host"),
            sdp_mid: Some("0".into()),
            sdp_m_line_index: Some(0),
        }
    }

    fn ice(k: u32) -> SignalKind {
        candidate_step(cand(k))
    }

    /// Carries the steps sent by one side to the other, returning the
    /// other side's steps; the rest are returned as they are.
    fn deliver(now: Millis, steps: Vec<Step>, to: &mut IceRestart) -> (Vec<Step>, Vec<Step>) {
        let (mut kept, mut theirs) = (Vec::new(), Vec::new());
        for s in steps {
            match s {
                Step::Send { n, step } => theirs.extend(to.remote(now, n, step)),
                s => kept.push(s),
            }
        }
        (kept, theirs)
    }

    #[test]
    fn the_offerer_restarts_and_both_sides_recover_on_the_same_connection() {
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        let t = Millis(10_000);
        // Both lose the path; only the host offers (the guest's ask
        // reaches a host with its restart under way).
        assert_eq!(host.path_down(t), vec![Step::MakeOffer]);
        assert_eq!(guest.path_down(t), vec![Step::Ask { after: 0 }]);
        assert_eq!(host.asked(t, 0), vec![]);
        assert!(host.active() && guest.active());
        // The browser gathers before the offer is reported: held.
        assert_eq!(host.local_candidate(cand(1)), vec![]);
        let out = host.local_description(Some("offer".into()));
        assert_eq!(
            out,
            vec![
                Step::Send {
                    n: 1,
                    step: SignalKind::Offer("offer".into())
                },
                Step::Send { n: 1, step: ice(1) },
            ]
        );
        let (_, g) = deliver(t, out, &mut guest);
        // The guest answers the offer; the candidate that followed it is
        // held until the answer is made.
        assert_eq!(g, vec![Step::Answer("offer".into())]);
        assert_eq!(guest.local_candidate(cand(2)), vec![]);
        let out = guest.local_description(Some("answer".into()));
        assert_eq!(
            out,
            vec![
                Step::Send {
                    n: 1,
                    step: SignalKind::Answer("answer".into())
                },
                Step::Send { n: 1, step: ice(2) },
                Step::AddCandidate(cand(1)),
            ]
        );
        let (kept, h) = deliver(t, out, &mut host);
        assert_eq!(kept, vec![Step::AddCandidate(cand(1))]);
        // The host applies the answer; the guest's candidate waits for it.
        assert_eq!(h, vec![Step::Apply("answer".into())]);
        assert_eq!(host.applied(true), vec![Step::AddCandidate(cand(2))]);
        // Later candidates pass straight through.
        assert_eq!(host.remote(t, 1, ice(3)), vec![Step::AddCandidate(cand(3))]);
        // The path comes back on both: recovered, no rejoin.
        assert_eq!(host.path_up(), vec![Step::Recovered]);
        assert_eq!(guest.path_up(), vec![Step::Recovered]);
        assert!(!host.active() && !guest.active());
        assert_eq!((host.recovered(), guest.recovered()), (1, 1));
        // Nothing more happens at the old deadline.
        assert_eq!(host.tick(t + RESTART_DEADLINE), vec![]);
        assert_eq!(guest.tick(t + RESTART_DEADLINE), vec![]);
        // A second loss is restart 2.
        assert_eq!(host.path_down(t + Millis(60_000)), vec![Step::MakeOffer]);
        assert_eq!(
            host.local_description(Some("o2".into())),
            vec![Step::Send {
                n: 2,
                step: SignalKind::Offer("o2".into())
            }]
        );
    }

    #[test]
    fn a_restart_that_does_not_bring_the_path_back_is_given_up_at_the_deadline() {
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        let t = Millis(1_000);
        host.path_down(t);
        guest.path_down(t + Millis(300));
        let offer = host.local_description(Some("o".into()));
        let (_, g) = deliver(t, offer, &mut guest);
        assert_eq!(g, vec![Step::Answer("o".into())]);
        let answer = guest.local_description(Some("a".into()));
        let (_, h) = deliver(t, answer, &mut host);
        assert_eq!(h, vec![Step::Apply("a".into())]);
        assert_eq!(host.applied(true), vec![]);
        // Negotiated, but the path never comes back.
        assert_eq!(host.tick(t + RESTART_DEADLINE - Millis(1)), vec![]);
        assert_eq!(host.tick(t + RESTART_DEADLINE), vec![Step::GiveUp]);
        assert!(!host.active());
        // The guest's deadline runs from its own first sign of trouble.
        assert_eq!(guest.tick(t + RESTART_DEADLINE), vec![]);
        assert_eq!(
            guest.tick(t + Millis(300) + RESTART_DEADLINE),
            vec![Step::GiveUp]
        );
        assert_eq!(host.recovered() + guest.recovered(), 0);
    }

    #[test]
    fn an_answerer_whose_offer_never_comes_gives_up_too() {
        let mut guest = IceRestart::new(false);
        assert_eq!(guest.path_down(Millis(0)), vec![Step::Ask { after: 0 }]);
        // Its own candidates have nowhere to go yet; ones of no restart
        // under way are dropped.
        assert_eq!(guest.local_candidate(cand(1)), vec![]);
        assert_eq!(guest.remote(Millis(10), 1, ice(9)), vec![]);
        assert_eq!(guest.local_description(Some("a".into())), vec![]);
        assert_eq!(guest.tick(RESTART_DEADLINE), vec![Step::GiveUp]);
    }

    #[test]
    fn a_refused_or_unmade_description_gives_up_at_once() {
        let mut host = IceRestart::new(true);
        host.path_down(Millis(0));
        assert_eq!(host.local_description(None), vec![Step::GiveUp]);
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        host.path_down(Millis(0));
        let offer = host.local_description(Some("o".into()));
        deliver(Millis(0), offer, &mut guest);
        assert_eq!(guest.local_description(None), vec![Step::GiveUp]);
        host.remote(Millis(5), 1, SignalKind::Answer("a".into()));
        assert_eq!(host.applied(false), vec![Step::GiveUp]);
    }

    #[test]
    fn the_answerer_restarts_on_an_offer_before_its_own_ice_notices() {
        let mut guest = IceRestart::new(false);
        assert_eq!(
            guest.remote(Millis(0), 1, SignalKind::Offer("o".into())),
            vec![Step::Answer("o".into())]
        );
        assert!(guest.active());
        guest.local_description(Some("a".into()));
        // Its path never went down: recovered once the answer is made.
        assert_eq!(guest.recovered(), 1);
        assert!(!guest.active());
    }

    #[test]
    fn repeated_stale_and_out_of_turn_steps_are_dropped() {
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        // The offerer never answers an offer, and an answer it did not
        // ask for is dropped.
        assert_eq!(
            host.remote(Millis(0), 1, SignalKind::Offer("x".into())),
            vec![]
        );
        assert_eq!(
            host.remote(Millis(0), 1, SignalKind::Answer("x".into())),
            vec![]
        );
        assert!(!host.active());
        // The answerer takes no answer, and answers each offer once.
        assert_eq!(
            guest.remote(Millis(0), 1, SignalKind::Answer("x".into())),
            vec![]
        );
        assert_eq!(
            guest.remote(Millis(0), 3, SignalKind::Offer("o".into())),
            vec![Step::Answer("o".into())]
        );
        assert_eq!(
            guest.remote(Millis(1), 3, SignalKind::Offer("o".into())),
            vec![]
        );
        assert_eq!(
            guest.remote(Millis(1), 2, SignalKind::Offer("old".into())),
            vec![]
        );
        // Candidates of another restart are dropped.
        assert_eq!(guest.remote(Millis(1), 2, ice(1)), vec![]);
        // One answer per restart on the offerer.
        host.path_down(Millis(0));
        host.local_description(Some("o".into()));
        assert_eq!(
            host.remote(Millis(1), 2, SignalKind::Answer("a".into())),
            vec![]
        );
        assert_eq!(
            host.remote(Millis(1), 1, SignalKind::Answer("a".into())),
            vec![Step::Apply("a".into())]
        );
        assert_eq!(
            host.remote(Millis(2), 1, SignalKind::Answer("b".into())),
            vec![]
        );
    }

    /// Carries one restart from the host's offer to both sides' recovery,
    /// the host's path having stayed up: `out` holds the host's offer.
    fn run_restart(
        t: Millis,
        n: u8,
        out: Vec<Step>,
        host: &mut IceRestart,
        guest: &mut IceRestart,
    ) {
        assert_eq!(out, vec![Step::MakeOffer]);
        let offer = host.local_description(Some(format!("o{n}")));
        let (_, g) = deliver(t, offer, guest);
        assert_eq!(g, vec![Step::Answer(format!("o{n}"))]);
        let answer = guest.local_description(Some(format!("a{n}")));
        let (_, h) = deliver(t, answer, host);
        assert_eq!(h, vec![Step::Apply(format!("a{n}"))]);
        // The host's own path never went down: negotiated is recovered.
        assert_eq!(host.applied(true), vec![Step::Recovered]);
        assert_eq!(guest.path_up(), vec![Step::Recovered]);
        assert!(!host.active() && !guest.active());
    }

    #[test]
    fn the_answerer_that_alone_loses_the_path_asks_and_the_offerer_restarts() {
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        let t = Millis(1_000);
        // Only the guest's browser sees the loss: it asks once, however
        // often its browser says so while it waits.
        let ask = guest.path_down(t);
        assert_eq!(ask, vec![Step::Ask { after: 0 }]);
        assert_eq!(guest.path_down(t + Millis(10)), vec![]);
        assert!(guest.active() && !host.active());
        // The host, its own path up, offers at once.
        let out = host.asked(t, 0);
        assert!(host.active());
        run_restart(t, 1, out, &mut host, &mut guest);
        assert_eq!((host.recovered(), guest.recovered()), (1, 1));
        // The next loss asks after the restart the guest answered.
        let t = t + Millis(30_000);
        assert_eq!(guest.path_down(t), vec![Step::Ask { after: 1 }]);
        let out = host.asked(t, 1);
        run_restart(t, 2, out, &mut host, &mut guest);
        assert_eq!((host.recovered(), guest.recovered()), (2, 2));
    }

    #[test]
    fn stale_duplicate_and_misdirected_asks_are_dropped() {
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        let t = Millis(0);
        // An ask to the side that answers begins nothing.
        assert_eq!(guest.asked(t, 0), vec![]);
        assert!(!guest.active());
        // An ask naming a restart never offered is dropped.
        assert_eq!(host.asked(t, 3), vec![]);
        assert!(!host.active());
        // A real ask begins one restart; its duplicates, while it is under
        // way, begin none.
        assert_eq!(host.asked(t, 0), vec![Step::MakeOffer]);
        for k in 0..100 {
            assert_eq!(host.asked(t + Millis(k), 0), vec![]);
        }
        let offer = host.local_description(Some("o1".into()));
        deliver(t, offer, &mut guest);
        let answer = guest.local_description(Some("a1".into()));
        deliver(t, answer, &mut host);
        host.applied(true);
        assert!(!host.active());
        // An ask that crossed restart 1 (sent after restart 0) is stale.
        assert_eq!(host.asked(t + Millis(200), 0), vec![]);
        assert!(!host.active());
        // The host's own loss while asked keeps one restart: no offer more.
        assert_eq!(host.asked(t + Millis(300), 1), vec![Step::MakeOffer]);
        assert_eq!(host.path_down(t + Millis(301)), vec![]);
        assert_eq!(host.asked(t + Millis(302), 1), vec![]);
        // An ask the host cannot answer in time is given up at the
        // deadline like any restart.
        assert_eq!(
            host.tick(t + Millis(300) + RESTART_DEADLINE),
            vec![Step::GiveUp]
        );
    }

    #[test]
    fn an_answerer_whose_restart_is_under_way_asks_no_more() {
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        // The offer came before the guest's browser noticed the loss.
        assert_eq!(host.path_down(Millis(0)), vec![Step::MakeOffer]);
        let offer = host.local_description(Some("o1".into()));
        deliver(Millis(0), offer, &mut guest);
        assert_eq!(guest.path_down(Millis(5)), vec![]);
        // A wait that was given up asks again on the next loss.
        let mut lone = IceRestart::new(false);
        assert_eq!(lone.path_down(Millis(0)), vec![Step::Ask { after: 0 }]);
        assert_eq!(lone.tick(RESTART_DEADLINE), vec![Step::GiveUp]);
        assert_eq!(
            lone.path_down(RESTART_DEADLINE + Millis(1)),
            vec![Step::Ask { after: 0 }]
        );
    }

    #[test]
    fn a_flood_of_held_candidates_is_capped() {
        let (mut host, mut guest) = (IceRestart::new(true), IceRestart::new(false));
        host.path_down(Millis(0));
        let offer = host.local_description(Some("o".into()));
        deliver(Millis(0), offer, &mut guest);
        for k in 0..1_000 {
            assert_eq!(guest.remote(Millis(1), 1, ice(k)), vec![]);
        }
        let out = guest.local_description(Some("a".into()));
        let added = out
            .iter()
            .filter(|s| matches!(s, Step::AddCandidate(_)))
            .count();
        assert_eq!(added, MAX_HELD_CANDIDATES);
    }
}
