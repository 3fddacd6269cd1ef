//! What the page shows, as plain data: the browser glue writes these
//! structs to the DOM in one place each, and tests read them natively.

use crate::challenge::Notice;
use crate::id::PeerId;
use crate::lobby::{Connection, PlayerView};
use crate::screens::Screen;
use signaling_protocol::{LobbyDirectory, LobbyFill};

/// The match screen: the status line and the `data-*` attributes of
/// `#match` that tools and tests read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchView {
    /// `data-state`: "connected" (the session is made), "running" (the
    /// game exists), "ended".
    pub state: Option<&'static str>,
    /// `data-side`: 0 host, 1 guest, once the match started.
    pub side: Option<u8>,
    /// `data-present-tick`: ticks simulated (some may rest on predictions).
    pub present_tick: Option<u32>,
    /// `data-tick`: confirmed ticks.
    pub tick: Option<u32>,
    /// `data-hash`: the state hash after the confirmed ticks.
    pub hash: Option<u64>,
    /// `data-input`: the input this page made at its last tick, as the
    /// bytes the session sends for it (hex).
    pub input: Option<String>,
    /// `data-summary`: the front end's line about the present state.
    pub summary: Option<String>,
    /// `data-confirmed-summary`: the same about the confirmed state.
    pub confirmed_summary: Option<String>,
    /// `data-mode`: "lockstep" or "rollback".
    pub mode: Option<&'static str>,
    /// `data-delay`: the input delay in ticks.
    pub delay: Option<u8>,
    /// `data-ping`: the last round trip, in ms.
    pub ping: Option<u64>,
    /// `data-waiting` and the "Waiting for the other player…" line.
    pub waiting: bool,
    /// `data-stats`: the session's counters.
    pub stats: Option<String>,
    /// `data-first-tick-ms`: from the session's creation to its first tick.
    pub first_tick_ms: Option<u64>,
    /// `data-accept-to-tick-ms`: from this page's Accept to the first tick.
    pub accept_to_tick_ms: Option<u64>,
    /// `data-frames`: match frames run.
    pub frames: Option<usize>,
    /// `data-frame-ms`: "count mean median p95" of the time per frame (ms).
    pub frame_ms: Option<String>,
    /// `data-path`: "direct" or "relayed" (the match goes through the
    /// signalling service's relay), once the match link is open.
    pub path: Option<&'static str>,
    /// `data-quality` and the connection line: good, fair or poor, once
    /// the first round trip was measured.
    pub quality: Option<crate::quality::Quality>,
    /// `data-held`: a dropped player's slot held for its rejoin, and the
    /// whole seconds left ("1 17"); absent when no slot is held.
    pub held: Option<(u8, u64)>,
    /// `data-benched`: a held slot that the game plays on meanwhile (its
    /// AI or the neutral input), until its player is back.
    pub benched: Option<u8>,
    /// A guest's session holds the host's slot (the host went silent to
    /// it); not shown.
    pub host_held: bool,
    /// Every slot the session holds for a dropped player, one bit each
    /// (slot 0 the lowest); not shown.
    pub held_slots: u8,
    /// `data-host`: the slot that hosts the match now, once it started
    /// (0 until the host's place moves to a guest, see docs/engine.md,
    /// "A host that never comes back").
    pub host: Option<u8>,
    /// For a few seconds after the host's place moved: the slot it moved
    /// to; not shown (the shell words [`MatchView::host_moved`] from it).
    pub moved_to: Option<u8>,
    /// The line in place of "Waiting for the other player…" for a few
    /// seconds after the host's place moved: "Ada left; Bo hosts now".
    pub host_moved: Option<String>,
    /// `data-rejoined`: the tick this page's fresh session caught up to
    /// when it came back into the match.
    pub rejoined: Option<u32>,
    /// `data-ice-restarts`: how many ICE restarts brought the match
    /// connection's path back (absent until one did).
    pub ice_restarts: Option<u32>,
    /// The line in place of "Waiting for the other player…" while a link
    /// is being made again: "Reconnecting…" on the page that comes back,
    /// "Ada is reconnecting (17 s)" on the other.
    pub reconnecting: Option<String>,
    /// The details line (side, netcode, input delay, ping), shown one
    /// click away.
    pub status: String,
    /// What the game tells the player now, shown above the court (whose
    /// turn it is, a result, a proposal to answer); empty hides the line.
    pub headline: String,
    /// `data-watching` and "· 2 watching" on the connection line: how many
    /// spectators watch the match, as every player's session counts them.
    pub watching: u8,
}

impl MatchView {
    /// The connection line a player reads: the quality in one word and
    /// the round trip ("Connection: good · ping 33 ms"), and whether the
    /// match goes through the relay.
    #[must_use]
    pub fn connection_line(&self) -> String {
        let Some(q) = self.quality else {
            return format!("Connection: measuring…{}", watching_text(self.watching));
        };
        let ping = self
            .ping
            .map_or(String::new(), |p| format!(" · ping {p} ms"));
        let relayed = if self.path == Some("relayed") {
            " · relayed"
        } else {
            ""
        };
        format!(
            "Connection: {}{ping}{relayed}{}",
            q.word(),
            watching_text(self.watching)
        )
    }

    /// The `data-*` attributes of `#match`, by name; `None` means absent.
    #[must_use]
    pub fn attributes(&self) -> Vec<(&'static str, Option<String>)> {
        let s = |v: Option<&dyn ToString>| v.map(ToString::to_string);
        vec![
            ("data-state", self.state.map(str::to_owned)),
            ("data-side", s(self.side.as_ref().map(|v| v as _))),
            (
                "data-present-tick",
                s(self.present_tick.as_ref().map(|v| v as _)),
            ),
            ("data-tick", s(self.tick.as_ref().map(|v| v as _))),
            ("data-host", s(self.host.as_ref().map(|v| v as _))),
            ("data-hash", self.hash.map(hash_text)),
            ("data-input", self.input.clone()),
            ("data-summary", self.summary.clone()),
            ("data-confirmed-summary", self.confirmed_summary.clone()),
            ("data-mode", self.mode.map(str::to_owned)),
            ("data-delay", s(self.delay.as_ref().map(|v| v as _))),
            ("data-ping", s(self.ping.as_ref().map(|v| v as _))),
            (
                "data-waiting",
                self.state
                    .map(|_| if self.waiting { "1" } else { "0" }.to_owned()),
            ),
            ("data-stats", self.stats.clone()),
            (
                "data-first-tick-ms",
                s(self.first_tick_ms.as_ref().map(|v| v as _)),
            ),
            (
                "data-accept-to-tick-ms",
                s(self.accept_to_tick_ms.as_ref().map(|v| v as _)),
            ),
            ("data-frames", s(self.frames.as_ref().map(|v| v as _))),
            ("data-frame-ms", self.frame_ms.clone()),
            ("data-path", self.path.map(str::to_owned)),
            ("data-quality", self.quality.map(|q| q.word().to_owned())),
            (
                "data-held",
                self.held.map(|(slot, secs)| format!("{slot} {secs}")),
            ),
            ("data-benched", s(self.benched.as_ref().map(|v| v as _))),
            ("data-rejoined", s(self.rejoined.as_ref().map(|v| v as _))),
            (
                "data-ice-restarts",
                s(self.ice_restarts.as_ref().map(|v| v as _)),
            ),
            (
                "data-watching",
                self.state.map(|_| self.watching.to_string()),
            ),
        ]
    }
}

/// " · 2 watching" for the connection line; nothing while nobody watches.
#[must_use]
pub fn watching_text(count: u8) -> String {
    if count == 0 {
        String::new()
    } else {
        format!(" · {count} watching")
    }
}

/// A state hash as the page shows it to tools (`data-hash`,
/// `matchHashAt`): 16 lower-case hex digits.
#[must_use]
pub fn hash_text(hash: u64) -> String {
    format!("{hash:016x}")
}

/// Local play: the front end's summary and, once over, the result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocalView {
    /// `#local[data-summary]`.
    pub summary: Option<String>,
    /// `#local[data-result]` and the status line.
    pub result: Option<String>,
    /// `#local[data-paused]`: the game stands still (Escape or Pause; again
    /// to go on).
    pub paused: bool,
}

/// A notice in the lobby, typed until shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeView {
    /// What happened.
    pub notice: crate::lobby::LobbyNotice,
    /// Whom Try again challenges, for a connection that could not be made.
    pub try_again: Option<PeerId>,
}

impl NoticeView {
    /// The English text.
    #[must_use]
    pub fn text(&self) -> String {
        self.notice.text()
    }

    /// `true` for a notice about the match connection.
    #[must_use]
    pub fn is_connect_failure(&self) -> bool {
        matches!(
            self.notice,
            crate::lobby::LobbyNotice::Challenge {
                notice: Notice::ConnectFailed,
                ..
            }
        )
    }
}

/// The lobby once a name was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LobbyView {
    /// The presence connection (banner, Retry, `data-connection`).
    pub connection: Connection,
    /// Our `name#ABC`.
    pub me: String,
    /// The other players, in join order.
    pub roster: Vec<PlayerView>,
    /// The last notices, oldest first.
    pub notices: Vec<NoticeView>,
    /// The challenges waiting for our answer, in roster order, each with
    /// the time left to answer.
    pub prompts: Vec<ChallengePrompt>,
    /// Our lobby's fill and the other lobbies'.
    pub lobbies: LobbiesView,
}

/// Every lobby's fill, from `GET /lobbies`: ours and the others, as the
/// lobby page shows them. Lobbies are numbered from 1 on the page (the
/// service numbers them from 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LobbiesView {
    /// Ours, when the service said which it is and listed it.
    pub ours: Option<LobbyFill>,
    /// Every other lobby, by number.
    pub others: Vec<LobbyFill>,
}

impl LobbiesView {
    /// Splits the directory (if any) into our lobby, number `ours`, and
    /// the others.
    #[must_use]
    pub fn of(ours: Option<u32>, directory: Option<&LobbyDirectory>) -> LobbiesView {
        let all = directory.map_or(&[][..], |d| d.lobbies.as_slice());
        LobbiesView {
            ours: all.iter().find(|l| Some(l.lobby) == ours).copied(),
            others: all
                .iter()
                .filter(|l| Some(l.lobby) != ours)
                .copied()
                .collect(),
        }
    }

    /// The same, with our lobby's player count taken from the roster this
    /// page holds (`players`, this page's person included): the
    /// directory's counts are only as fresh as its last fetch, the roster
    /// is live.
    #[must_use]
    pub fn with_our_count(mut self, players: usize) -> LobbiesView {
        if let Some(ours) = self.ours.as_mut() {
            ours.players = u32::try_from(players).unwrap_or(u32::MAX);
        }
        self
    }

    /// "Lobby 2 · 7/16".
    #[must_use]
    pub fn line(fill: &LobbyFill) -> String {
        format!(
            "Lobby {} \u{b7} {}/{}",
            u64::from(fill.lobby) + 1,
            fill.players,
            fill.capacity
        )
    }

    /// Our lobby's line ("" when it is not known).
    #[must_use]
    pub fn ours_text(&self) -> String {
        self.ours
            .as_ref()
            .map(LobbiesView::line)
            .unwrap_or_default()
    }

    /// The other lobbies' lines, by number.
    #[must_use]
    pub fn others_text(&self) -> Vec<String> {
        self.others.iter().map(LobbiesView::line).collect()
    }
}

/// A challenge waiting for our answer, shown where it cannot be missed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengePrompt {
    /// The challenger.
    pub id: PeerId,
    /// The challenger's `name#ABC`.
    pub display: String,
    /// Whole seconds left to answer, rounded up.
    pub seconds_left: u64,
    /// Accept can be pressed (not while we host a challenge of our own).
    pub accept_enabled: bool,
    /// The game the challenge names, if it names one.
    pub game: Option<String>,
}

impl ChallengePrompt {
    /// "23 s left to answer".
    #[must_use]
    pub fn time_left(&self) -> String {
        format!("{} s left to answer", self.seconds_left)
    }
}

impl LobbyView {
    /// `#lobby[data-connection]`.
    #[must_use]
    pub fn connection_attr(&self) -> &'static str {
        match self.connection {
            Connection::Online => "online",
            Connection::Full => "full",
            Connection::Retrying { .. } => "retrying",
            Connection::Idle | Connection::Connecting { .. } => "connecting",
        }
    }
}

/// The screens and their small texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenView {
    /// The screen shown.
    pub screen: Screen,
    /// Why online play is not offered, under the title's buttons.
    pub online_note: Option<&'static str>,
    /// Why the name was refused.
    pub name_error: String,
    /// Why a chat line was refused.
    pub chat_error: &'static str,
    /// The lobby's name row is shown (no name given yet, or left).
    pub name_row: bool,
    /// The game just played can be watched again (a match on the result
    /// screen; local play at any time, which ends it).
    pub replay_ready: bool,
    /// Why the file last opened as a replay was refused (title screen).
    pub replay_error: Option<String>,
    /// The last match's final state is drawn under its result.
    pub result_court: bool,
}

impl ScreenView {
    /// Whether the game canvas shows (local play, a match, a replay): the
    /// page then gives it the whole window, with a full-screen button.
    #[must_use]
    pub fn court(&self) -> bool {
        match self.screen {
            Screen::Replay { .. } | Screen::LocalPlay | Screen::Match => true,
            Screen::Result { .. } => self.result_court,
            _ => false,
        }
    }

    /// Each element of the page that shows or hides with the screen, and
    /// whether it shows.
    #[must_use]
    pub fn shown(&self) -> [(&'static str, bool); 16] {
        let s = &self.screen;
        let replay = matches!(s, Screen::Replay { .. });
        let court = self.court();
        [
            ("title", matches!(s, Screen::Title { .. })),
            ("btn-online", matches!(s, Screen::Title { online: true })),
            ("local", *s == Screen::LocalPlay),
            ("lobby", *s == Screen::Lobby),
            ("match", *s == Screen::Match),
            ("result", matches!(s, Screen::Result { .. })),
            (
                "play-again",
                matches!(s, Screen::Result { online: true, .. }),
            ),
            ("replay", replay),
            ("replay-controls", replay),
            ("canvas", court),
            ("fullscreen", court),
            (
                "watch-replay",
                self.replay_ready && matches!(s, Screen::Result { .. }),
            ),
            ("local-watch", self.replay_ready && *s == Screen::LocalPlay),
            ("online-note", self.online_note.is_some()),
            ("name-row", self.name_row),
            ("lobby-main", !self.name_row),
        ]
    }
}

/// One piece of a roster entry, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RosterItem {
    /// A text span with this class.
    Text(&'static str, &'static str),
    /// A button: label, `data-action`, enabled.
    Button(&'static str, &'static str, bool),
}

/// What a roster entry shows after the name: status, link, and the
/// buttons that apply.
#[must_use]
pub fn roster_items(p: &PlayerView) -> Vec<RosterItem> {
    use RosterItem::{Button, Text};
    let mut items = vec![
        Text("status", status_text(p.status)),
        Text("link", p.link),
        Button(if p.muted { "Unmute" } else { "Mute" }, "mute", true),
    ];
    if p.can_challenge {
        items.push(Button("Challenge", "challenge", true));
    }
    if p.can_watch {
        items.push(Button("Watch", "watch", true));
    }
    if p.challenged_us {
        items.push(Text("incoming", "challenges you!"));
        items.push(Button("Accept", "accept", p.accept_enabled));
        items.push(Button("Decline", "decline", true));
    }
    if let Some(state) = p.our_challenge {
        items.push(Text("outgoing", state));
        items.push(Button("Cancel", "cancel", true));
    }
    items
}

/// A player's status as the roster words it (`data-status` too).
#[must_use]
pub fn status_text(s: crate::protocol::PlayerStatus) -> &'static str {
    match s {
        crate::protocol::PlayerStatus::Lobby => "in the lobby",
        crate::protocol::PlayerStatus::InMatch => "in a match",
    }
}

/// A replay being watched: the controls and the `data-*` attributes of
/// `#replay` that tests read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayView {
    /// `data-ticks`: ticks in the recording (the timeline's end).
    pub ticks: u32,
    /// `data-tick`: ticks played (the timeline's position).
    pub tick: u32,
    /// `data-hash`: the state hash after `tick` ticks.
    pub hash: u64,
    /// `data-summary`: the front end's line about the state shown.
    pub summary: Option<String>,
    /// `data-playing`, and the play button's label.
    pub playing: bool,
    /// The speed, an index into [`crate::replay::SPEEDS`].
    pub speed: usize,
    /// A jump to each score: the tick and its label ("0:45 · HOME 2 - 0").
    pub marks: Vec<(u32, String)>,
}

impl ReplayView {
    /// The `data-*` attributes of `#replay`.
    #[must_use]
    pub fn attributes(&self) -> [(&'static str, String); 6] {
        [
            ("data-ticks", self.ticks.to_string()),
            ("data-tick", self.tick.to_string()),
            ("data-hash", hash_text(self.hash)),
            ("data-summary", self.summary.clone().unwrap_or_default()),
            ("data-playing", u8::from(self.playing).to_string()),
            (
                "data-speed",
                crate::replay::SPEED_LABELS[self.speed].to_owned(),
            ),
        ]
    }

    /// The play button's label.
    #[must_use]
    pub fn play_label(&self) -> &'static str {
        if self.playing {
            "Pause"
        } else {
            "Play"
        }
    }

    /// The time shown beside the timeline: "1:23 / 5:00".
    #[must_use]
    pub fn time_text(&self) -> String {
        use crate::replay::clock_text;
        format!("{} / {}", clock_text(self.tick), clock_text(self.ticks))
    }
}

/// The input log of the last finished match, offered for download on the
/// result screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogOffer {
    /// The encoded log.
    pub bytes: Vec<u8>,
    /// The file name offered.
    pub file_name: String,
    /// The tick it starts at: 0, or where the saved state stands that the
    /// player entered the match from.
    pub start: u32,
    /// The tick it ends at (its confirmed ticks, counted from the match's
    /// start).
    pub ticks: u32,
    /// The final state hash.
    pub hash: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::PlayerStatus;

    fn screen(screen: Screen, name_row: bool) -> Vec<&'static str> {
        let v = ScreenView {
            screen,
            online_note: None,
            name_error: String::new(),
            chat_error: "",
            name_row,
            replay_ready: false,
            replay_error: None,
            result_court: false,
        };
        v.shown()
            .into_iter()
            .filter(|(_, shown)| *shown)
            .map(|(id, _)| id)
            .collect()
    }

    #[test]
    fn the_connection_line_says_the_quality_and_the_ping() {
        use crate::quality::Quality;
        let mut v = MatchView::default();
        assert_eq!(v.connection_line(), "Connection: measuring…");
        v.quality = Some(Quality::Good);
        v.ping = Some(33);
        assert_eq!(v.connection_line(), "Connection: good · ping 33 ms");
        v.quality = Some(Quality::Poor);
        v.path = Some("relayed");
        assert_eq!(
            v.connection_line(),
            "Connection: poor · ping 33 ms · relayed"
        );
        assert!(v
            .attributes()
            .contains(&("data-quality", Some("poor".to_owned()))));
        // Spectators: the count on the line and in data-watching, nothing
        // while nobody watches.
        v.state = Some("running");
        assert!(v
            .attributes()
            .contains(&("data-watching", Some("0".to_owned()))));
        v.watching = 2;
        assert_eq!(
            v.connection_line(),
            "Connection: poor · ping 33 ms · relayed · 2 watching"
        );
        assert!(v
            .attributes()
            .contains(&("data-watching", Some("2".to_owned()))));
    }

    #[test]
    fn each_screen_shows_its_elements() {
        assert_eq!(
            screen(Screen::Title { online: true }, true),
            ["title", "btn-online", "name-row"]
        );
        assert_eq!(
            screen(Screen::Title { online: false }, true),
            ["title", "name-row"]
        );
        assert_eq!(
            screen(Screen::LocalPlay, true),
            ["local", "canvas", "fullscreen", "name-row"]
        );
        assert_eq!(screen(Screen::Lobby, false), ["lobby", "lobby-main"]);
        assert_eq!(
            screen(Screen::Match, false),
            ["match", "canvas", "fullscreen", "lobby-main"]
        );
        assert_eq!(
            screen(
                Screen::Replay {
                    back: Box::new(Screen::Title { online: true })
                },
                true
            )[..4],
            ["replay", "replay-controls", "canvas", "fullscreen"]
        );
    }

    #[test]
    fn a_roster_entry_offers_the_buttons_that_apply() {
        let mut p = PlayerView {
            id: PeerId::parse("AAAAAAAAAAAA").unwrap(),
            display: "a#AAA".into(),
            status: PlayerStatus::Lobby,
            link: "connected",
            muted: false,
            can_challenge: true,
            can_watch: false,
            challenged_us: true,
            accept_enabled: false,
            our_challenge: None,
        };
        use RosterItem::{Button, Text};
        assert_eq!(
            roster_items(&p),
            [
                Text("status", "in the lobby"),
                Text("link", "connected"),
                Button("Mute", "mute", true),
                Button("Challenge", "challenge", true),
                Text("incoming", "challenges you!"),
                Button("Accept", "accept", false),
                Button("Decline", "decline", true),
            ]
        );
        p = PlayerView {
            status: PlayerStatus::InMatch,
            muted: true,
            can_challenge: false,
            challenged_us: false,
            our_challenge: Some("waiting for an answer"),
            ..p
        };
        assert_eq!(
            roster_items(&p),
            [
                Text("status", "in a match"),
                Text("link", "connected"),
                Button("Unmute", "mute", true),
                Text("outgoing", "waiting for an answer"),
                Button("Cancel", "cancel", true),
            ]
        );
        // A player in a match, and we are free: Watch.
        p = PlayerView {
            muted: false,
            can_watch: true,
            our_challenge: None,
            ..p
        };
        assert_eq!(
            roster_items(&p),
            [
                Text("status", "in a match"),
                Text("link", "connected"),
                Button("Mute", "mute", true),
                Button("Watch", "watch", true),
            ]
        );
    }
}
