//! The lobby's party controls: the panel to pick a party (who, and on
//! which team) and to follow it, and the prompt of an invitation to
//! someone else's party.
//!
//! `#party-panel` shows, by what the party rules say of us:
//! - nothing we take part in: an "Invite to a party…" button
//!   (`data-action="party-open"`), enabled while we may invite;
//! - picking (after that button): one row per connected player
//!   (`li[data-id]`) with an Invite toggle (`party-pick`, `aria-pressed`)
//!   and, for a game with teams, its team (`party-team`, cycles); our own
//!   team (`party-my-team`); the match length, for a game that offers
//!   several (`party-length`, cycles, `data-length` the index); Start (`party-start`, enabled for two to the
//!   game's most less one picked) and Close (`party-close`);
//! - our party under way: each invited player's answer and Cancel
//!   (`party-cancel`);
//! - our place in someone's party: what we wait for.
//!
//! `#party-prompt` holds one prompt per invitation waiting for our
//! answer: who invites, how many play, the time left, Accept
//! (`party-accept`) and Decline (`party-decline`), each with the
//! inviter's `data-id`.
//!
//! The panel's state (`data-party`: `closed`, `picking`, `hosting`,
//! `member`) is on the panel for tests.

use super::page::{Node, Patch};
use super::Shell;
use crate::id::PeerId;
use crate::lobby::Connection;
use crate::party::{Answer, HostPhase, MemberPhase, PartyRules};
use lockstep::Millis;

/// The players picked for a party and their teams, in the order picked
/// (the order of their places), and our own team.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Picker {
    picks: Vec<(PeerId, u8)>,
    side: u8,
    /// The match length picked, an index into [`PartyRules::lengths`].
    length: usize,
}

/// The party controls' own state: the picker while open, and what was
/// last written (rebuilding the buttons under the pointer is avoided).
#[derive(Debug, Default)]
pub(super) struct PartyUi {
    picker: Option<Picker>,
    /// The match length of the party we started last (our page picks the
    /// seed that carries it when it hosts that party's match).
    pub(super) length: usize,
    /// The player we asked to let us watch their match (its answer is
    /// taken from them alone).
    pub(super) watch_asked: Option<PeerId>,
    written_panel: Option<Vec<Node>>,
    written_prompts: Option<Vec<Node>>,
}

// The page's node builders, as functions for nesting.
fn el(tag: &'static str, class: &str, text: &str) -> Node {
    Node::el(tag, class, text)
}

fn attr(n: Node, name: &'static str, value: &str) -> Node {
    n.attr(name, value)
}

fn child(n: Node, c: Node) -> Node {
    n.child(c)
}

/// A player's `name#ABC`, the name isolated as the roster shows it.
fn name(display: &str) -> Node {
    super::page::display_name("span", "name", display)
}

/// A button of the party controls.
fn button(label: &str, action: &str, id: Option<&PeerId>, enabled: bool) -> Node {
    let mut b = attr(el("button", action, label), "data-action", action);
    if let Some(id) = id {
        b = attr(b, "data-id", id.as_str());
    }
    if enabled {
        b
    } else {
        attr(b, "disabled", "")
    }
}

fn team_label(side: u8) -> String {
    format!("Team {}", side + 1)
}

fn answer_text(a: &Answer) -> &'static str {
    match a {
        Answer::Waiting { .. } => "waiting for an answer",
        Answer::Accepted => "accepted",
        Answer::Declined(_) => "declined",
        Answer::NoAnswer => "didn't answer",
        Answer::Left => "left",
    }
}

impl Shell {
    /// The rules of the game our parties are made for (the one picked on
    /// the title), when this page takes parties for it.
    fn party_rules(&self) -> Option<PartyRules> {
        self.cfg
            .lobby
            .party
            .rules(self.named_game().as_ref())
            .filter(PartyRules::allows_parties)
    }

    /// A button of the party controls was pressed: its `data-action` and
    /// `data-id`.
    pub(super) fn party_control(&mut self, now: Millis, action: &str, id: Option<&str>) {
        use super::PlayerAction;
        if self.screens.screen() != &super::Screen::Lobby {
            return;
        }
        if self.cfg.lobby.party.games.is_empty() {
            return;
        }
        // Making a party needs a game that takes them on the title;
        // answering an invitation or cancelling ours does not.
        let rules = self.party_rules();
        let making = matches!(
            action,
            "party-open"
                | "party-pick"
                | "party-team"
                | "party-my-team"
                | "party-length"
                | "party-start"
        );
        if making && rules.is_none() {
            log::debug!("party: the game on the title takes no parties; control ignored");
            return;
        }
        let rules = rules.unwrap_or(PartyRules::PAIR);
        let id = id.and_then(PeerId::parse);
        let sides = rules.sides.max(1);
        let ui = &mut self.party_ui;
        match (action, id) {
            ("party-open", _) => ui.picker = Some(Picker::default()),
            ("party-close", _) => ui.picker = None,
            ("party-pick", Some(id)) => {
                if let Some(p) = ui.picker.as_mut() {
                    if let Some(i) = p.picks.iter().position(|(q, _)| *q == id) {
                        p.picks.remove(i);
                    } else {
                        // Teams alternate from ours by default: the first
                        // picked plays against us.
                        let side = (p.side + 1 + p.picks.len() as u8) % sides;
                        p.picks.push((id, side));
                    }
                }
            }
            ("party-team", Some(id)) => {
                if let Some((_, side)) = ui
                    .picker
                    .as_mut()
                    .and_then(|p| p.picks.iter_mut().find(|(q, _)| *q == id))
                {
                    *side = (*side + 1) % sides;
                }
            }
            ("party-my-team", _) => {
                if let Some(p) = ui.picker.as_mut() {
                    p.side = (p.side + 1) % sides;
                }
            }
            ("party-length", _) => {
                if let Some(p) = ui.picker.as_mut() {
                    p.length = (p.length + 1) % rules.lengths.len().max(1);
                }
            }
            ("party-start", _) => {
                if let Some(p) = ui.picker.take() {
                    ui.length = p.length;
                    if let Some(c) = self.client.as_mut() {
                        c.invite_party(now, &p.picks, p.side);
                    }
                }
            }
            ("party-cancel", _) => self.cancel_party(now),
            ("party-accept", Some(id)) => {
                self.player_action(now, PlayerAction::PartyAccept, id.as_str());
            }
            ("party-decline", Some(id)) => {
                self.player_action(now, PlayerAction::PartyDecline, id.as_str());
            }
            _ => {
                log::warn!("party: ignored a control the page does not have");
                return;
            }
        }
        self.render(super::Part::Lobby);
    }

    /// Whether the party prompt's time left is shown (so it counts down).
    pub(super) fn party_prompt_shown(&self) -> bool {
        self.client
            .as_ref()
            .is_some_and(|c| !c.parties().incoming.is_empty())
    }

    /// The party controls' patches, for the lobby's redraw.
    pub(super) fn party_patches(&mut self) -> Vec<Patch> {
        let (panel, state, prompts) = self.party_nodes();
        let mut p = vec![
            Patch::Shown("party-panel", !panel.is_empty()),
            Patch::Attr("party-panel", "data-party", Some(state.to_owned())),
        ];
        if self.party_ui.written_panel.as_ref() != Some(&panel) {
            p.push(Patch::Children("party-panel", panel.clone()));
            self.party_ui.written_panel = Some(panel);
        }
        if self.party_ui.written_prompts.as_ref() != Some(&prompts) {
            p.push(Patch::Shown("party-prompt", !prompts.is_empty()));
            p.push(Patch::Children("party-prompt", prompts.clone()));
            self.party_ui.written_prompts = Some(prompts);
        }
        p
    }

    /// The panel's nodes and state, and the prompts.
    fn party_nodes(&self) -> (Vec<Node>, &'static str, Vec<Node>) {
        let Some(c) = self
            .client
            .as_ref()
            .filter(|_| !self.cfg.lobby.party.games.is_empty())
        else {
            return (Vec::new(), "closed", Vec::new());
        };
        let roster = c.roster();
        let display = |id: &PeerId| {
            roster
                .iter()
                .find(|p| p.id == *id)
                .map_or_else(|| "someone#".to_owned(), |p| p.display.clone())
        };
        let parties = c.parties();
        let prompts = parties
            .incoming
            .iter()
            .map(|inv| {
                let line = child(
                    child(el("p", "prompt-line", ""), name(&display(&inv.from))),
                    Node::Text(format!(
                        " invites you to a party of {}{}!",
                        inv.people,
                        inv.game
                            .as_ref()
                            .map(|g| format!(" ({})", g.as_str()))
                            .unwrap_or_default()
                    )),
                );
                let left = inv.deadline.0.saturating_sub(self.now.0).div_ceil(1000);
                let mut prompt = attr(el("div", "prompt", ""), "role", "alert");
                prompt = attr(prompt, "data-id", inv.from.as_str());
                for n in [
                    line,
                    el("p", "time-left", &format!("{left} s left to answer")),
                    button(
                        "Accept",
                        "party-accept",
                        Some(&inv.from),
                        !parties.accept_disabled(),
                    ),
                    button("Decline", "party-decline", Some(&inv.from), true),
                ] {
                    prompt = child(prompt, n);
                }
                prompt
            })
            .collect();
        if c.connection() != Connection::Online && parties.can_invite() {
            return (Vec::new(), "closed", prompts);
        }
        // Our party's own rules once it is made; before, those of the game
        // on the title (none: no party to make, only invitations to answer).
        let rules = match (&parties.hosting, self.party_rules()) {
            (Some(h), _) => h.rules,
            (None, Some(r)) => r,
            (None, None) if parties.member.is_some() => PartyRules::PAIR,
            (None, None) => return (Vec::new(), "closed", prompts),
        };
        let teams = rules.sides >= 2;
        let mut panel = vec![el("h3", "lobby-head", "Party")];
        let state = if let Some(h) = &parties.hosting {
            let phase = match h.phase {
                HostPhase::Inviting => "Your party: waiting for answers.",
                HostPhase::CreatingRoom => "Your party: making its room…",
                HostPhase::Starting { .. } => "Your party: connecting…",
            };
            panel.push(el("p", "party-phase", phase));
            let mut list = el("ul", "party-list", "");
            for i in &h.invitees {
                let mut row = attr(el("li", "", ""), "data-id", i.id.as_str());
                row = attr(row, "data-answer", answer_text(&i.answer));
                row = child(row, name(&display(&i.id)));
                if teams {
                    row = child(row, el("span", "team", &team_label(i.side)));
                }
                row = child(row, el("span", "answer", answer_text(&i.answer)));
                list = child(list, row);
            }
            panel.push(list);
            panel.push(button("Cancel party", "party-cancel", None, true));
            "hosting"
        } else if let Some(m) = &parties.member {
            let text = match m.phase {
                MemberPhase::Waiting { .. } => "'s party: waiting for the others to answer.",
                MemberPhase::Joining { .. } => "'s party: connecting…",
            };
            panel.push(child(
                child(el("p", "party-phase", ""), name(&display(&m.host))),
                Node::Text(text.to_owned()),
            ));
            "member"
        } else if let Some(p) = &self.party_ui.picker {
            let most = rules.max_people.saturating_sub(1);
            panel.push(el(
                "p",
                "party-phase",
                &format!(
                    "Pick 2 to {most} players{}, then Start.",
                    if teams { " and their teams" } else { "" }
                ),
            ));
            let mut list = el("ul", "party-list", "");
            let connected = roster.iter().filter(|r| {
                r.link == "connected" && r.status == crate::protocol::PlayerStatus::Lobby
            });
            for r in connected {
                let pick = p.picks.iter().find(|(q, _)| *q == r.id);
                let mut row = attr(el("li", "", ""), "data-id", r.id.as_str());
                row = child(row, name(&r.display));
                let toggle = button(
                    if pick.is_some() { "Invited" } else { "Invite" },
                    "party-pick",
                    Some(&r.id),
                    true,
                );
                row = child(
                    row,
                    attr(
                        toggle,
                        "aria-pressed",
                        if pick.is_some() { "true" } else { "false" },
                    ),
                );
                if let (true, Some((_, side))) = (teams, pick) {
                    row = child(
                        row,
                        button(&team_label(*side), "party-team", Some(&r.id), true),
                    );
                }
                list = child(list, row);
            }
            panel.push(list);
            if teams {
                let mine = child(
                    el("p", "", "You play on "),
                    button(&team_label(p.side), "party-my-team", None, true),
                );
                panel.push(mine);
            }
            if rules.lengths.len() > 1 {
                let label = rules.lengths.get(p.length).copied().unwrap_or_default();
                let length = attr(
                    button(label, "party-length", None, true),
                    "data-length",
                    &p.length.to_string(),
                );
                panel.push(child(el("p", "", "Match length: "), length));
            }
            let picked = p
                .picks
                .iter()
                .filter(|(id, _)| roster.iter().any(|r| r.id == *id))
                .count();
            let ok = (2..=usize::from(most)).contains(&picked);
            panel.push(button("Start", "party-start", None, ok));
            panel.push(button("Close", "party-close", None, true));
            "picking"
        } else {
            panel.push(button(
                "Invite to a party…",
                "party-open",
                None,
                parties.can_invite(),
            ));
            "closed"
        };
        (panel, state, prompts)
    }
}
