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

use super::room::Candidate;
use crate::id::RoomCode;
use crate::protocol::SignalKind;
use lockstep::Millis;
use std::collections::BTreeMap;

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
    /// one is under way); the answerer waits for its offer, under the same
    /// deadline.
    pub fn path_down(&mut self, now: Millis) -> Vec<Step> {
        self.path_up = false;
        if self.under.is_some() {
            return Vec::new();
        }
        if !self.offerer {
            self.begin(now, 0);
            return Vec::new();
        }
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

    /// A restart step from `from` over the lobby: for the running match
    /// of two's connection (no `link`), taken only from the player this
    /// page plays; for a party's link (named by the room that made it),
    /// only from the party player at its other end.
    pub(super) fn restart_message(
        &mut self,
        now: Millis,
        from: &crate::id::PeerId,
        n: u8,
        step: SignalKind,
        link: Option<RoomCode>,
    ) {
        if let Some(room) = link {
            self.party_restart_message(now, from, n, step, &room);
            return;
        }
        if self.last_opponent.as_ref() != Some(from) || !self.in_match() {
            log::info!("an ICE restart step from someone this page does not play; dropped");
            return;
        }
        let Some((tag, r)) = self.comeback.restart.as_mut() else {
            log::info!("an ICE restart step with no direct match connection; dropped");
            return;
        };
        let tag = *tag;
        let steps = r.remote(now, n, step);
        self.restart_steps(now, &On::Match(tag), steps);
    }

    fn party_restart_message(
        &mut self,
        now: Millis,
        from: &crate::id::PeerId,
        n: u8,
        step: SignalKind,
        room: &RoomCode,
    ) {
        let Some(place) = self.party_place_of(from) else {
            log::info!("an ICE restart step from someone not in this party; dropped");
            return;
        };
        let Some((on, r)) = self
            .link_restart_rules(place)
            .filter(|(on, _)| matches!(on, On::Party { room: r, .. } if r == room))
        else {
            log::info!("an ICE restart step for a party link this page does not have; dropped");
            return;
        };
        let steps = r.remote(now, n, step);
        self.restart_steps(now, &on, steps);
    }

    /// The restarts' timers.
    pub(super) fn restart_tick(&mut self, now: Millis) {
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
                Step::Send { n, step } => {
                    let (to, link) = match on {
                        On::Match(_) => (self.last_opponent.clone(), None),
                        On::Party { place, room, .. } => {
                            (self.party_id_at(*place), Some(room.clone()))
                        }
                    };
                    let msg = crate::protocol::PeerMsg::IceRestart { n, step, link };
                    if let (Some(to), Some(c)) = (to, self.client.as_mut()) {
                        c.send_peer(&to, &msg);
                    }
                }
                Step::Recovered => {
                    log::info!("the ICE restart brought the link's path back");
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
        // Both lose the path; only the host offers.
        assert_eq!(host.path_down(t), vec![Step::MakeOffer]);
        assert_eq!(guest.path_down(t), vec![]);
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
        guest.path_down(Millis(0));
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
