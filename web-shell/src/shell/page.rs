//! The page's elements as data: each view becomes a list of [`Patch`]es
//! (set a text, show or hide, set an attribute, replace an element's
//! children with a tree of [`Node`]s), and the browser glue applies them
//! without deciding anything. The markup rules live here, tested
//! natively: a player's name in a `<bdi>` so a right-to-left name cannot
//! reorder what is around it, text always as text nodes, `dir="auto"` on
//! every line others wrote, lists rebuilt only when they changed (so a
//! button is not replaced under the pointer).

use super::view::{
    roster_items, status_text, LobbyView, LocalView, MatchView, NoticeView, ReplayView, RosterItem,
    ScreenView,
};
use crate::front_end::LocalOption;
use crate::id::PeerId;
use crate::lobby::{InviteNote, NoticePart, PlayerView};
use crate::screens::Screen;
use crate::touch::Phase;

/// A piece of markup: a text node, or an element with its attributes
/// (`class` among them) and children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Text, never markup.
    Text(String),
    /// `<tag attrs…>children</tag>`.
    El {
        /// The tag name.
        tag: &'static str,
        /// Attributes in order.
        attrs: Vec<(&'static str, String)>,
        /// Children in order.
        children: Vec<Node>,
    },
}

impl Node {
    /// `<tag class="class">text</tag>` (no class attribute when empty, no
    /// text node when empty).
    pub(super) fn el(tag: &'static str, class: &str, text: &str) -> Node {
        let mut attrs = Vec::new();
        if !class.is_empty() {
            attrs.push(("class", class.to_owned()));
        }
        let children = if text.is_empty() {
            Vec::new()
        } else {
            vec![Node::Text(text.to_owned())]
        };
        Node::El {
            tag,
            attrs,
            children,
        }
    }

    pub(super) fn attr(mut self, name: &'static str, value: &str) -> Node {
        if let Node::El { attrs, .. } = &mut self {
            attrs.push((name, value.to_owned()));
        }
        self
    }

    pub(super) fn child(mut self, node: Node) -> Node {
        if let Node::El { children, .. } = &mut self {
            children.push(node);
        }
        self
    }
}

/// One change to the page, to an element found by its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Patch {
    /// The document's title.
    Title(String),
    /// An element's text.
    Text(&'static str, String),
    /// Shows (`true`) or hides an element.
    Shown(&'static str, bool),
    /// Sets an attribute, or removes it (`None`).
    Attr(&'static str, &'static str, Option<String>),
    /// The value of an `<input>` or `<select>`.
    Value(&'static str, String),
    /// Replaces an element's children.
    Children(&'static str, Vec<Node>),
    /// Appends a child, keeps only the last `keep` children, and scrolls
    /// to the end.
    Append(&'static str, Node, u32),
}

impl Patch {
    /// The id of the element it changes (`None` for the document's title).
    #[must_use]
    pub fn target(&self) -> Option<&'static str> {
        match self {
            Patch::Title(_) => None,
            Patch::Text(id, _)
            | Patch::Shown(id, _)
            | Patch::Attr(id, ..)
            | Patch::Value(id, _)
            | Patch::Children(id, _)
            | Patch::Append(id, ..) => Some(id),
        }
    }
}

/// Chat lines kept on screen (there is no history).
pub const CHAT_LINES_KEPT: u32 = 200;

/// `name#ABC` as `<tag class><bdi>name</bdi>#ABC</tag>`: the name is
/// isolated, so a right-to-left name cannot pull the `#ABC` tag to its
/// other side.
pub(super) fn display_name(tag: &'static str, class: &str, display: &str) -> Node {
    let (nick, id_tag) = display.rsplit_once('#').unwrap_or((display, ""));
    Node::el(tag, class, "")
        .child(Node::el("bdi", "", nick))
        .child(Node::Text(format!("#{id_tag}")))
}

/// A button next to a player: `data-action` names what it does.
fn player_button(label: &str, action: &str, id: &PeerId, enabled: bool) -> Node {
    let b = Node::el("button", action, label)
        .attr("data-action", action)
        .attr("data-id", id.as_str());
    if enabled {
        b
    } else {
        b.attr("disabled", "")
    }
}

/// What was last written where rebuilding costs (and would replace
/// buttons under the pointer).
#[derive(Debug, Default)]
pub struct Written {
    roster: Option<Vec<PlayerView>>,
    prompts: Option<Vec<super::view::ChallengePrompt>>,
    notices: Option<Vec<(Vec<NoticePart>, Option<PeerId>)>>,
    marks: Option<Vec<(u32, String)>>,
    invite_note: Option<Option<InviteNote>>,
    lobbies: Option<Vec<String>>,
}

/// The id of local option `i`'s label and choices together.
fn option_id(i: usize) -> String {
    format!("local-optw-{i}")
}

/// Which local options show (`shown[i]` for option `i`: a page of several
/// games shows only the game picked's choices). `ids` are the options'
/// element ids, made once for the page by [`option_ids`].
#[must_use]
pub fn options_shown(ids: &[&'static str], shown: &[bool]) -> Vec<Patch> {
    ids.iter()
        .zip(shown)
        .map(|(id, s)| Patch::Shown(id, *s))
        .collect()
}

/// The element ids of `count` local options, for [`options_shown`]. Made
/// once per page (they live as long as it).
#[must_use]
pub fn option_ids(count: usize) -> Vec<&'static str> {
    (0..count)
        .map(|i| &*Box::leak(option_id(i).into_boxed_str()))
        .collect()
}

/// What the page shows once, at start-up: the game's name (and the tab's
/// title), its build, the local-play choices, the remembered name and
/// netcode.
#[must_use]
pub fn start(
    name: &str,
    build: u64,
    options: &[LocalOption],
    stored_name: Option<&str>,
    netcode: &str,
) -> Vec<Patch> {
    let mut nodes = Vec::new();
    for (i, opt) in options.iter().enumerate() {
        let id = format!("local-opt-{i}");
        let mut select = Node::el("select", "", "").attr("id", &id);
        for (v, choice) in opt.choices.iter().enumerate() {
            select = select.child(Node::el("option", "", choice).attr("value", &v.to_string()));
        }
        // The label and its choices, shown or hidden together (see
        // `options_shown`).
        nodes.push(
            Node::el("span", "opt", "")
                .attr("id", &option_id(i))
                .child(Node::el("label", "", opt.label).attr("for", &id))
                .child(select),
        );
    }
    let mut patches = vec![
        Patch::Text("game-name", name.to_owned()),
        Patch::Title(name.to_owned()),
        Patch::Text("build", format!("build {build:016x}")),
        Patch::Children("local-options", nodes),
        Patch::Value("netcode", netcode.to_owned()),
    ];
    if let Some(n) = stored_name {
        patches.push(Patch::Value("name", n.to_owned()));
    }
    patches
}

/// The title page's words about the game: what it is, a table of its
/// controls and a list of how to play, each hidden when the game says
/// nothing.
#[must_use]
///
/// `pad` are the game's lines about a gamepad's buttons, shown under the
/// keys while a pad is connected (empty otherwise).
pub fn about(a: &crate::front_end::About, pad: &[(&str, &str)]) -> Vec<Patch> {
    let controls = a
        .controls
        .iter()
        .chain(pad)
        .map(|(keys, what)| {
            Node::el("tr", "", "")
                .child(Node::el("th", "", keys))
                .child(Node::el("td", "", what))
        })
        .collect();
    let how = a
        .how_to_play
        .iter()
        .map(|line| Node::el("li", "", line))
        .collect();
    vec![
        Patch::Text("tagline", a.tagline.to_owned()),
        Patch::Shown("tagline", !a.tagline.is_empty()),
        Patch::Children("controls", controls),
        Patch::Shown("about-controls", !a.controls.is_empty()),
        Patch::Children("how-to-play", how),
        Patch::Shown("about-how", !a.how_to_play.is_empty()),
    ]
}

/// The screens and their small texts.
#[must_use]
pub fn screen(v: &ScreenView) -> Vec<Patch> {
    let mut p: Vec<Patch> = v
        .shown()
        .into_iter()
        .map(|(id, shown)| Patch::Shown(id, shown))
        .collect();
    if let Screen::Result { message, .. } = &v.screen {
        p.push(Patch::Text("result-text", message.clone()));
    }
    p.extend([
        Patch::Text("online-note", v.online_note.unwrap_or("").to_owned()),
        Patch::Text("name-error", v.name_error.clone()),
        Patch::Text("chat-error", v.chat_error.to_owned()),
        Patch::Text("replay-error", v.replay_error.clone().unwrap_or_default()),
        Patch::Shown("replay-error", v.replay_error.is_some()),
        // The page's column widens to the window while the court shows.
        Patch::Attr("page", "data-court", v.court().then(String::new)),
    ]);
    p
}

/// The touch overlay's buttons: one per button the game names, each with
/// its label and its place in the game's list (`data-touch`), which the
/// glue reports for a finger that comes down on it.
#[must_use]
pub fn touch_buttons(labels: &[&str]) -> Vec<Patch> {
    let buttons = labels
        .iter()
        .enumerate()
        .map(|(i, label)| Node::el("div", "touch-button", label).attr("data-touch", &i.to_string()))
        .collect();
    vec![Patch::Children("touch-buttons", buttons)]
}

/// The touch overlay while it shows: the buttons held (`data-held`, their
/// places separated by spaces) and, while a finger holds the stick, the
/// directions it holds (`data-stick`: `up`, `down`, `left`, `right`
/// separated by spaces, empty inside the dead zone). The page's style
/// lights the buttons and leans the stick's knob from them.
#[must_use]
pub fn touch_state(held: &[usize], stick: Option<String>) -> Vec<Patch> {
    let held: Vec<String> = held.iter().map(usize::to_string).collect();
    vec![
        Patch::Attr("touch", "data-held", Some(held.join(" "))),
        Patch::Attr("touch", "data-stick", stick),
    ]
}

/// Local play's status line and attributes.
#[must_use]
pub fn local(v: &LocalView) -> Vec<Patch> {
    let result = v.result.clone().unwrap_or_default();
    let mut p = vec![
        Patch::Text("local-status", result.clone()),
        Patch::Shown("local-again", v.result.is_some()),
        Patch::Shown("local-paused", v.paused),
        Patch::Shown("local-pause", v.result.is_none()),
        Patch::Text(
            "local-pause",
            if v.paused { "Resume" } else { "Pause" }.to_owned(),
        ),
        Patch::Attr("local", "data-paused", Some(u8::from(v.paused).to_string())),
        Patch::Attr("local", "data-result", Some(result)),
    ];
    if let Some(s) = &v.summary {
        p.push(Patch::Attr("local", "data-summary", Some(s.clone())));
    }
    p
}

/// What `#match-waiting` says while the match stalls on the other
/// player's inputs.
pub const WAITING_LINE: &str = "Waiting for the other player…";

/// The match's status line and attributes.
#[must_use]
pub fn match_(v: &MatchView) -> Vec<Patch> {
    let mut p: Vec<Patch> = v
        .attributes()
        .into_iter()
        .map(|(name, value)| Patch::Attr("match", name, value))
        .collect();
    p.push(Patch::Text(
        "match-waiting",
        v.reconnecting
            .clone()
            .or_else(|| v.host_moved.clone())
            .unwrap_or_else(|| WAITING_LINE.to_owned()),
    ));
    p.push(Patch::Shown(
        "match-waiting",
        v.waiting || v.reconnecting.is_some() || v.host_moved.is_some(),
    ));
    p.push(Patch::Text("match-status", v.status.clone()));
    p.push(Patch::Shown("match-details", !v.status.is_empty()));
    p.push(Patch::Text("match-headline", v.headline.clone()));
    p.push(Patch::Shown("match-headline", !v.headline.is_empty()));
    p.push(Patch::Text("match-quality", v.connection_line()));
    p
}

/// The lobby: banner, who we are, the notices and the roster (each list
/// only when it changed).
pub fn lobby(v: &LobbyView, written: &mut Written) -> Vec<Patch> {
    let conn = v.connection;
    let mut p = vec![
        Patch::Shown("banner", conn.banner().is_some()),
        Patch::Text("banner-text", conn.banner().unwrap_or("").to_owned()),
        Patch::Shown("retry", conn.retry_shown()),
        Patch::Attr(
            "lobby",
            "data-connection",
            Some(v.connection_attr().to_owned()),
        ),
        Patch::Children(
            "me",
            vec![
                Node::Text("You are ".to_owned()),
                display_name("span", "", &v.me),
            ],
        ),
        Patch::Text("lobby-fill", v.lobbies.ours_text()),
        Patch::Shown("lobby-fill", v.lobbies.ours.is_some()),
        // Alone in a connected lobby: say what to do rather than show an
        // empty list.
        Patch::Shown(
            "roster-empty",
            v.roster.is_empty() && v.connection_attr() == "online",
        ),
    ];
    let notices: Vec<_> = v
        .notices
        .iter()
        .map(|n| (n.notice.parts(), n.try_again.clone()))
        .collect();
    if written.notices.as_ref() != Some(&notices) {
        p.push(Patch::Children(
            "notices",
            v.notices.iter().map(notice).collect(),
        ));
        written.notices = Some(notices);
    }
    if written.prompts.as_ref() != Some(&v.prompts) {
        p.push(Patch::Shown("challenge-prompt", !v.prompts.is_empty()));
        p.push(Patch::Children(
            "challenge-prompt",
            v.prompts.iter().map(prompt).collect(),
        ));
        written.prompts = Some(v.prompts.clone());
    }
    let others = v.lobbies.others_text();
    if written.lobbies.as_ref() != Some(&others) {
        p.push(Patch::Shown("lobby-others", !others.is_empty()));
        p.push(Patch::Children(
            "lobby-others",
            others.iter().map(|l| Node::el("li", "", l)).collect(),
        ));
        written.lobbies = Some(others);
    }
    if written.roster.as_ref() != Some(&v.roster) {
        p.push(Patch::Children(
            "roster",
            v.roster.iter().map(roster_entry).collect(),
        ));
        written.roster = Some(v.roster.clone());
    }
    p
}

/// The invite parts of the lobby: the note on the link this page was
/// opened with (`#invite-note`, its state in `data-invite`), and this
/// page's own link under its Copy button (`#invite-link`), shown while in
/// the lobby.
pub fn invite(
    note: Option<&InviteNote>,
    link: Option<&str>,
    in_lobby: bool,
    written: &mut Written,
) -> Vec<Patch> {
    let mut p = vec![
        Patch::Shown("invite-row", in_lobby),
        Patch::Shown("invite-link", link.is_some()),
        Patch::Text("invite-link", link.unwrap_or("").to_owned()),
    ];
    if written.invite_note.as_ref().map(Option::as_ref) != Some(note) {
        p.push(Patch::Shown("invite-note", note.is_some()));
        p.push(Patch::Attr(
            "invite-note",
            "data-invite",
            note.map(|n| n.state.to_owned()),
        ));
        let line = note.map(|n| {
            n.parts
                .iter()
                .map(|part| match part {
                    NoticePart::Name(name) => display_name("span", "name", name),
                    other => Node::Text(other.as_str().to_owned()),
                })
                .collect()
        });
        p.push(Patch::Children("invite-note", line.unwrap_or_default()));
        written.invite_note = Some(note.cloned());
    }
    p
}

/// A notice: our words as text, a player's name as the roster shows it,
/// the service's words in a `<bdi>`, and Try again where it applies.
fn notice(n: &NoticeView) -> Node {
    let mut line = Node::el("p", "notice", "").attr("dir", "auto");
    for part in n.notice.parts() {
        line = line.child(match part {
            NoticePart::Text(t) => Node::Text(t),
            NoticePart::Name(name) => display_name("span", "name", &name),
            NoticePart::Isolated(t) => Node::el("bdi", "", &t),
        });
    }
    if let Some(id) = &n.try_again {
        let mut b = player_button("Try again", "challenge", id, true);
        if let Node::El { attrs, .. } = &mut b {
            attrs[0].1 = "try-again".to_owned();
        }
        line = line.child(Node::Text(" ".to_owned())).child(b);
    }
    line
}

/// A challenge waiting for our answer: who, the time left, Accept and
/// Decline.
fn prompt(c: &super::view::ChallengePrompt) -> Node {
    Node::el("div", "prompt", "")
        .attr("role", "alert")
        .child(
            Node::el("p", "prompt-line", "")
                .child(display_name("strong", "", &c.display))
                .child(Node::Text(match &c.game {
                    Some(game) => format!(" challenges you to {game}!"),
                    None => " challenges you to a match!".to_owned(),
                })),
        )
        .child(Node::el("p", "time-left", &c.time_left()))
        .child(player_button("Accept", "accept", &c.id, c.accept_enabled))
        .child(player_button("Decline", "decline", &c.id, true))
}

/// A roster entry: the name, status, link, and the buttons that apply.
fn roster_entry(p: &PlayerView) -> Node {
    let mut li = Node::el("li", "player", "")
        .attr("data-id", p.id.as_str())
        .attr("data-status", status_text(p.status))
        .attr("data-link", p.link)
        .child(display_name("span", "name", &p.display));
    for item in roster_items(p) {
        li = li.child(match item {
            RosterItem::Text(class, text) => Node::el("span", class, text),
            RosterItem::Button(label, action, on) => player_button(label, action, &p.id, on),
        });
    }
    li
}

/// A chat line: the sender and the text in their own blocks, the text
/// `dir="auto"`, the line marked as ours and as right-to-left where so.
#[must_use]
pub fn chat_line(mine: bool, rtl: bool, name: &str, text: &str) -> Patch {
    let class = match (mine, rtl) {
        (true, true) => "chat-msg mine rtl",
        (true, false) => "chat-msg mine",
        (false, true) => "chat-msg rtl",
        (false, false) => "chat-msg",
    };
    let line = Node::el("div", class, "")
        .child(display_name("div", "who", name))
        .child(Node::el("div", "text", text).attr("dir", "auto"));
    Patch::Append("chat-log", line, CHAT_LINES_KEPT)
}

/// The replay's controls and attributes (the score buttons only when they
/// changed).
pub fn replay(v: &ReplayView, written: &mut Written) -> Vec<Patch> {
    let mut p: Vec<Patch> = v
        .attributes()
        .into_iter()
        .map(|(name, value)| Patch::Attr("replay", name, Some(value)))
        .collect();
    p.extend([
        Patch::Text("replay-play", v.play_label().to_owned()),
        Patch::Text("replay-time", v.time_text()),
        Patch::Attr("replay-seek", "max", Some(v.ticks.to_string())),
        Patch::Value("replay-seek", v.tick.to_string()),
        Patch::Value("replay-speed", v.speed.to_string()),
    ]);
    if written.marks.as_ref() != Some(&v.marks) {
        let marks = v
            .marks
            .iter()
            .map(|(tick, label)| {
                Node::el("button", "mark", label)
                    .attr("data-control", "replay-mark")
                    .attr("value", &tick.to_string())
            })
            .collect();
        p.push(Patch::Children("replay-marks", marks));
        written.marks = Some(v.marks.clone());
    }
    p
}

/// The result screen's download link for `file` (all but its `href`,
/// the object URL the page makes of the bytes), or the link hidden. With
/// an input log, its figures as `#result`'s `data-log-start` (0, or the
/// tick of the saved state it starts from), `data-log-ticks` and
/// `data-log-hash`; with a desync report, the diverging tick as
/// `data-report-tick`.
#[must_use]
pub fn file_link(link: super::FileLink, file: Option<&super::view::LogOffer>) -> Vec<Patch> {
    let id = link.id();
    let Some(f) = file else {
        return vec![Patch::Shown(id, false)];
    };
    let mut p = vec![Patch::Attr(id, "download", Some(f.file_name.clone()))];
    match link {
        super::FileLink::Log => {
            p.push(Patch::Attr(
                "result",
                "data-log-start",
                Some(f.start.to_string()),
            ));
            p.push(Patch::Attr(
                "result",
                "data-log-ticks",
                Some(f.ticks.to_string()),
            ));
            p.push(Patch::Attr(
                "result",
                "data-log-hash",
                Some(format!("{:016x}", f.hash)),
            ));
        }
        super::FileLink::Report => {
            p.push(Patch::Attr(
                "result",
                "data-report-tick",
                Some(f.ticks.to_string()),
            ));
        }
    }
    p.push(Patch::Shown(id, true));
    p
}

/// An event of the page the shell listens to: on element `el`, browser
/// event `event`; what the page feeds the shell for it is `feed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listener {
    /// The element's id ([`BODY`]: the page's `<body>`).
    pub el: &'static str,
    /// The browser event (`click`, `submit`, `input`, `change`, `keydown`,
    /// `touchstart`...).
    pub event: &'static str,
    /// Keep the browser's own action (a form's submission, a link's
    /// navigation, a touch's scrolling) from happening.
    pub prevent_default: bool,
    /// The ids of the fields whose values go with the event.
    pub reads: Vec<String>,
    /// What the page feeds the shell.
    pub feed: Feed,
}

/// The [`Listener::el`] of the page's `<body>`, which has no id: the keys
/// are listened to on the whole page.
pub const BODY: &str = "";

/// What the page feeds the shell when a listened event happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// An [`Input::Dom`]: a [`DomEvent`].
    ///
    /// [`Input::Dom`]: super::Input::Dom
    Dom,
    /// The element is a file picker: instead of an [`Input::Dom`], the
    /// page reads the first file picked and reports it as
    /// [`Input::ReplayFile`] (a file over `up_to` bytes is refused unread
    /// as [`Refusal::TooLarge`]), then clears the picker so that the same
    /// file can be picked again.
    ///
    /// [`Input::Dom`]: super::Input::Dom
    /// [`Input::ReplayFile`]: super::Input::ReplayFile
    /// [`Refusal::TooLarge`]: crate::replay::Refusal::TooLarge
    File {
        /// The largest file read.
        up_to: usize,
    },
    /// An [`Input::Key`] for the key going down (or up); the page stops
    /// the browser's own use of the key when
    /// [`Shell::captures_key`](super::Shell::captures_key) says so.
    ///
    /// [`Input::Key`]: super::Input::Key
    Key {
        /// `keydown` rather than `keyup`.
        down: bool,
    },
    /// An [`Input::Touch`] of the fingers that changed, each read with
    /// [`Touch::read`](crate::touch::Touch::read): relative to the element
    /// (the touch overlay), with the `data-touch` of the part it is on.
    ///
    /// [`Input::Touch`]: super::Input::Touch
    Touch(Phase),
}

/// What the page reports of one listened event: which [`Listener`], the
/// values of its `reads`, and the element the event happened on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomEvent {
    /// The listener's index in [`listeners`].
    pub listener: usize,
    /// The values of the listener's `reads`, in order.
    pub values: Vec<String>,
    /// The target's tag name, upper case (`BUTTON`, `INPUT`…).
    pub tag: String,
    /// The target's `data-action`, `data-id` and `data-control`.
    pub data_action: Option<String>,
    /// See `data_action`.
    pub data_id: Option<String>,
    /// See `data_action`.
    pub data_control: Option<String>,
    /// The target's value (an input's or select's, else its `value`
    /// attribute).
    pub value: Option<String>,
}

/// The events of the page the shell listens to, for a game with
/// `local_options` local-play choosers.
#[must_use]
///
/// With `games`, the first chooser picks the game (of a page that carries
/// several) and is listened to as it changes, so that challenges name it.
pub fn listeners(local_options: usize, games: bool) -> Vec<Listener> {
    let l = |el, event, prevent_default, reads: &[&str]| Listener {
        el,
        event,
        prevent_default,
        reads: reads.iter().map(|r| (*r).to_owned()).collect(),
        feed: Feed::Dom,
    };
    let mut v = vec![l("btn-local", "click", true, &[])];
    v[0].reads = (0..local_options)
        .map(|i| format!("local-opt-{i}"))
        .collect();
    v.extend([
        l("btn-online", "click", true, &[]),
        l("local-back", "click", true, &[]),
        l("lobby-back", "click", true, &[]),
        l("replay-back", "click", true, &[]),
        l("join", "click", true, &["name"]),
        // Enter in the name field submits its form (no inline handler: the
        // page's Content-Security-Policy forbids them).
        l("name-row", "submit", true, &["name"]),
        l("retry", "click", true, &[]),
        l("invite-copy", "click", true, &[]),
        l("chat-send", "click", true, &["chat-input"]),
        l("chat-form", "submit", true, &["chat-input"]),
        l("leave", "click", true, &[]),
        l("continue", "click", true, &[]),
        l("watch-replay", "click", true, &[]),
        l("local-watch", "click", true, &[]),
        l("fullscreen", "click", true, &[]),
        l("play-again", "click", true, &[]),
        l("local-again", "click", true, &[]),
        l("local-pause", "click", true, &[]),
        l("netcode", "change", false, &["netcode"]),
        // Buttons in the roster and the notices (Try again) carry a
        // data-action and the player's data-id.
        l("notices", "click", false, &[]),
        l("roster", "click", false, &[]),
        l("challenge-prompt", "click", false, &[]),
        // The party panel's and invitations' buttons, the same way.
        l("party-panel", "click", false, &[]),
        l("party-prompt", "click", false, &[]),
        // The replay's controls carry a data-control: buttons on click,
        // the timeline as it moves, the speed when picked.
        l("replay-controls", "click", false, &[]),
        l("replay-controls", "input", false, &[]),
        l("replay-controls", "change", false, &[]),
        // A recorded match picked to watch.
        Listener {
            feed: Feed::File {
                up_to: crate::replay::MAX_FILE_BYTES,
            },
            ..l("replay-file", "change", false, &[])
        },
    ]);
    if games {
        // On the choosers' row, which the page has from the start (the
        // choosers are made later): a change to any of them reads the game.
        v.push(l("local-options", "change", false, &["local-opt-0"]));
    }
    // The keys, on the whole page.
    v.extend(
        [("keydown", true), ("keyup", false)].map(|(event, down)| Listener {
            feed: Feed::Key { down },
            ..l(BODY, event, false, &[])
        }),
    );
    // The fingers on the touch overlay; the browser's own use of a touch
    // (scrolling, zooming, a click made up from it) is stopped.
    let touches = [
        ("touchstart", Phase::Start),
        ("touchmove", Phase::Move),
        ("touchend", Phase::End),
        ("touchcancel", Phase::Cancel),
    ];
    v.extend(touches.map(|(event, phase)| Listener {
        feed: Feed::Touch(phase),
        ..l("touch", event, true, &[])
    }));
    v
}

/// Whether a key event whose target has this tag name (as the DOM
/// reports it, upper case) is typing in a text field rather than playing.
#[must_use]
pub fn typing_in(tag: &str) -> bool {
    matches!(tag, "INPUT" | "TEXTAREA" | "SELECT")
}

/// The shell's action for an event of the page, if it means one.
#[must_use]
pub fn action_of(listeners: &[Listener], e: DomEvent) -> Option<super::Action> {
    use super::{Action, PlayerAction};
    let listener = listeners.get(e.listener)?;
    let first = || e.values.first().cloned().unwrap_or_default();
    Some(match (listener.el, listener.event) {
        ("btn-local", _) => {
            Action::ChooseLocal(e.values.iter().map(|v| v.parse().unwrap_or(0)).collect())
        }
        ("btn-online", _) => Action::ChooseOnline,
        ("local-back" | "lobby-back" | "replay-back", _) => Action::Back,
        ("join" | "name-row", _) => Action::Join(first()),
        ("retry", _) => Action::Retry,
        ("invite-copy", _) => Action::CopyInvite,
        ("chat-send" | "chat-form", _) => Action::SendChat(first()),
        ("leave", _) => Action::Leave,
        ("continue", _) => Action::Continue,
        ("watch-replay" | "local-watch", _) => Action::WatchReplay,
        ("fullscreen", _) => Action::FullScreen,
        ("play-again" | "local-again", _) => Action::PlayAgain,
        ("local-pause", _) => Action::Pause,
        ("netcode", _) => Action::Netcode(first()),
        ("local-options", _) => Action::ChooseGame(first().parse().ok()?),
        ("notices" | "roster" | "challenge-prompt", _) => {
            Action::Player(PlayerAction::parse(e.data_action.as_deref()?)?, e.data_id?)
        }
        ("party-panel" | "party-prompt", _) => Action::PartyControl {
            action: e.data_action?,
            id: e.data_id,
        },
        ("replay-controls", event) => {
            let tag = match event {
                "click" => "BUTTON",
                "input" => "INPUT",
                _ => "SELECT",
            };
            if e.tag != tag {
                return None;
            }
            Action::Replay {
                control: e.data_control?,
                value: e.value.unwrap_or_default(),
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lobby::Connection;
    use crate::protocol::PlayerStatus;

    fn text(s: &str) -> Node {
        Node::Text(s.to_owned())
    }

    #[test]
    fn the_title_says_what_the_game_says_about_itself() {
        let a = crate::front_end::About {
            tagline: "A game.",
            controls: &[("Space", "jump")],
            how_to_play: &["Jump.", "Land."],
        };
        let p = about(&a, &[]);
        assert!(p.contains(&Patch::Text("tagline", "A game.".into())));
        assert!(p.contains(&Patch::Shown("about-controls", true)));
        let Some(Patch::Children(_, rows)) = p
            .iter()
            .find(|x| matches!(x, Patch::Children("controls", _)))
        else {
            panic!("no controls table");
        };
        assert_eq!(
            rows,
            &vec![Node::el("tr", "", "")
                .child(Node::el("th", "", "Space"))
                .child(Node::el("td", "", "jump"))]
        );
        let Some(Patch::Children(_, lines)) = p
            .iter()
            .find(|x| matches!(x, Patch::Children("how-to-play", _)))
        else {
            panic!("no how-to-play list");
        };
        assert_eq!(lines.len(), 2);
        // With a pad connected, the pad's lines follow the keys.
        let with_pad = about(&a, &[("A", "jump")]);
        let Some(Patch::Children(_, rows)) = with_pad
            .iter()
            .find(|x| matches!(x, Patch::Children("controls", _)))
        else {
            panic!("no controls table");
        };
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[1],
            Node::el("tr", "", "")
                .child(Node::el("th", "", "A"))
                .child(Node::el("td", "", "jump"))
        );
        // A game that says nothing: every part hidden.
        let none = about(&crate::front_end::About::default(), &[]);
        for id in ["tagline", "about-controls", "about-how"] {
            assert!(none.contains(&Patch::Shown(id, false)), "{id}");
        }
    }

    #[test]
    fn keys_typed_into_fields_are_typing() {
        for tag in ["INPUT", "TEXTAREA", "SELECT"] {
            assert!(typing_in(tag), "{tag}");
        }
        for tag in ["BODY", "CANVAS", "BUTTON", "input", ""] {
            assert!(!typing_in(tag), "{tag}");
        }
    }

    #[test]
    fn a_file_link_carries_its_figures_or_hides() {
        let f = super::super::view::LogOffer {
            bytes: vec![1, 2],
            file_name: "m.log".into(),
            start: 7,
            ticks: 42,
            hash: 0xab,
        };
        let log = file_link(super::super::FileLink::Log, Some(&f));
        assert!(log.contains(&Patch::Attr("result", "data-log-start", Some("7".into()))));
        assert!(log.contains(&Patch::Attr("log-link", "download", Some("m.log".into()))));
        assert!(log.contains(&Patch::Attr("result", "data-log-ticks", Some("42".into()))));
        assert!(log.contains(&Patch::Attr(
            "result",
            "data-log-hash",
            Some("00000000000000ab".into())
        )));
        assert_eq!(log.last(), Some(&Patch::Shown("log-link", true)));
        let report = file_link(super::super::FileLink::Report, Some(&f));
        assert!(report.contains(&Patch::Attr(
            "result",
            "data-report-tick",
            Some("42".into())
        )));
        assert_eq!(report.last(), Some(&Patch::Shown("report-link", true)));
        assert_eq!(
            file_link(super::super::FileLink::Report, None),
            vec![Patch::Shown("report-link", false)]
        );
    }

    fn player(id: &str, display: &str) -> PlayerView {
        PlayerView {
            id: PeerId::parse(id).unwrap(),
            display: display.into(),
            status: PlayerStatus::Lobby,
            link: "connected",
            muted: false,
            can_challenge: true,
            can_watch: false,
            challenged_us: false,
            accept_enabled: true,
            our_challenge: None,
        }
    }

    #[test]
    fn each_listened_event_means_its_action() {
        use crate::shell::{Action, PlayerAction};
        let ls = listeners(2, true);
        let at = |el: &str, event: &str| {
            ls.iter()
                .position(|l| l.el == el && l.event == event)
                .unwrap()
        };
        let ev = |el, event, values: &[&str]| DomEvent {
            listener: at(el, event),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
            ..DomEvent::default()
        };
        assert_eq!(
            ls[at("btn-local", "click")].reads,
            ["local-opt-0", "local-opt-1"]
        );
        assert_eq!(
            action_of(&ls, ev("local-options", "change", &["3"])),
            Some(Action::ChooseGame(3))
        );
        assert_eq!(action_of(&ls, ev("local-options", "change", &["x"])), None);
        assert!(!listeners(2, false).iter().any(|l| l.el == "local-options"));
        assert_eq!(
            action_of(&ls, ev("btn-local", "click", &["1", "x"])),
            Some(Action::ChooseLocal(vec![1, 0]))
        );
        assert_eq!(
            action_of(&ls, ev("chat-form", "submit", &["hi"])),
            Some(Action::SendChat("hi".into()))
        );
        // Enter in the name field joins, as the button does.
        assert_eq!(
            action_of(&ls, ev("name-row", "submit", &["Ada"])),
            Some(Action::Join("Ada".into()))
        );
        assert_eq!(
            action_of(&ls, ev("replay-back", "click", &[])),
            Some(Action::Back)
        );
        // The replay picker is the only file picker; its file comes as
        // bytes, never as an action.
        let files: Vec<_> = ls
            .iter()
            .filter(|l| matches!(l.feed, Feed::File { .. }))
            .collect();
        assert_eq!(files.len(), 1);
        assert_eq!(
            (files[0].el, files[0].feed),
            (
                "replay-file",
                Feed::File {
                    up_to: crate::replay::MAX_FILE_BYTES
                }
            )
        );
        // The keys on the whole page, the fingers on the overlay; neither
        // is ever an action.
        let kinds = |f: fn(&Feed) -> bool| {
            ls.iter()
                .filter(|l| f(&l.feed))
                .map(|l| (l.el, l.event, l.prevent_default))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            kinds(|f| matches!(f, Feed::Key { .. })),
            [(BODY, "keydown", false), (BODY, "keyup", false)]
        );
        let touches = kinds(|f| matches!(f, Feed::Touch(_)));
        assert_eq!(touches.len(), 4);
        assert!(touches
            .iter()
            .all(|&(el, _, prevent)| el == "touch" && prevent));
        assert_eq!(action_of(&ls, ev(BODY, "keydown", &[])), None);
        assert_eq!(action_of(&ls, ev("touch", "touchstart", &[])), None);
        assert_eq!(action_of(&ls, ev("replay-file", "change", &[])), None);
        // A roster button names what it does and whom.
        let mut b = ev("roster", "click", &[]);
        assert_eq!(
            action_of(&ls, b.clone()),
            None,
            "a click beside the buttons"
        );
        b.data_action = Some("accept".into());
        b.data_id = Some("AAAAAAAAAAAA".into());
        assert_eq!(
            action_of(&ls, b.clone()),
            Some(Action::Player(PlayerAction::Accept, "AAAAAAAAAAAA".into()))
        );
        b.data_action = Some("launch".into());
        assert_eq!(action_of(&ls, b), None);
        // The replay's controls: each on its own event only.
        let mut c = ev("replay-controls", "input", &[]);
        c.tag = "INPUT".into();
        c.data_control = Some("replay-seek".into());
        c.value = Some("120".into());
        assert_eq!(
            action_of(&ls, c.clone()),
            Some(Action::Replay {
                control: "replay-seek".into(),
                value: "120".into()
            })
        );
        c.listener = at("replay-controls", "click");
        assert_eq!(
            action_of(&ls, c),
            None,
            "a click on the timeline is not a seek"
        );
        // An unknown listener.
        assert_eq!(
            action_of(
                &ls,
                DomEvent {
                    listener: 99,
                    ..DomEvent::default()
                }
            ),
            None
        );
    }

    #[test]
    fn a_name_is_isolated_from_its_tag() {
        assert_eq!(
            display_name("span", "name", "דנה#ABC"),
            Node::El {
                tag: "span",
                attrs: vec![("class", "name".into())],
                children: vec![
                    Node::El {
                        tag: "bdi",
                        attrs: vec![],
                        children: vec![text("דנה")]
                    },
                    text("#ABC")
                ]
            }
        );
    }

    #[test]
    fn a_chat_line_is_text_in_its_own_blocks() {
        let Patch::Append(id, line, keep) = chat_line(false, true, "a#AAA", "<b>hi</b>") else {
            panic!("a chat line is appended");
        };
        assert_eq!((id, keep), ("chat-log", 200));
        let Node::El {
            attrs, children, ..
        } = line
        else {
            panic!()
        };
        assert_eq!(attrs, vec![("class", "chat-msg rtl".to_owned())]);
        assert_eq!(
            children[1],
            Node::El {
                tag: "div",
                attrs: vec![("class", "text".into()), ("dir", "auto".into())],
                children: vec![text("<b>hi</b>")]
            }
        );
    }

    /// The lobby as a page online and alone in it sees it.
    fn online_lobby() -> LobbyView {
        LobbyView {
            connection: Connection::Online,
            me: "me#MMM".into(),
            roster: vec![],
            notices: vec![],
            prompts: vec![],
            lobbies: Default::default(),
        }
    }

    #[test]
    fn a_challenge_waiting_for_us_is_a_prompt_with_the_time_left() {
        let mut w = Written::default();
        let id = PeerId::parse("BBBBBBBBBBBB").unwrap();
        let mut v = online_lobby();
        // Alone: the empty roster's hint, no prompt.
        let alone = lobby(&v, &mut w);
        assert!(alone.contains(&Patch::Shown("roster-empty", true)));
        assert!(alone.contains(&Patch::Shown("challenge-prompt", false)));
        v.roster = vec![player("BBBBBBBBBBBB", "Bo#BBB")];
        v.prompts = vec![super::super::view::ChallengePrompt {
            id: id.clone(),
            display: "Bo#BBB".into(),
            seconds_left: 23,
            accept_enabled: true,
            game: None,
        }];
        let p = lobby(&v, &mut w);
        assert!(p.contains(&Patch::Shown("roster-empty", false)));
        assert!(p.contains(&Patch::Shown("challenge-prompt", true)));
        let Some(Patch::Children(_, prompts)) = p
            .iter()
            .find(|p| matches!(p, Patch::Children("challenge-prompt", _)))
        else {
            panic!("no prompt")
        };
        let Node::El { children, .. } = &prompts[0] else {
            panic!()
        };
        assert_eq!(
            children[1],
            Node::el("p", "time-left", "23 s left to answer")
        );
        assert_eq!(children[2], player_button("Accept", "accept", &id, true));
        assert_eq!(children[3], player_button("Decline", "decline", &id, true));
        // Unchanged: not rebuilt; a second less: rebuilt.
        assert!(!lobby(&v, &mut w)
            .iter()
            .any(|p| matches!(p, Patch::Children("challenge-prompt", _))));
        v.prompts[0].seconds_left = 22;
        assert!(lobby(&v, &mut w)
            .iter()
            .any(|p| matches!(p, Patch::Children("challenge-prompt", _))));
        // A challenge that names its game says which.
        let line = |game: Option<&str>| {
            let mut c = v.prompts[0].clone();
            c.game = game.map(str::to_owned);
            let Node::El { children, .. } = prompt(&c) else {
                panic!()
            };
            let Node::El {
                children: words, ..
            } = &children[0]
            else {
                panic!()
            };
            words[1].clone()
        };
        assert_eq!(line(None), Node::Text(" challenges you to a match!".into()));
        assert_eq!(
            line(Some("Dots")),
            Node::Text(" challenges you to Dots!".into())
        );
    }

    #[test]
    fn every_lobbys_fill_is_shown_and_the_list_rebuilt_only_when_it_changed() {
        use signaling_protocol::{LobbyDirectory, LobbyFill};
        let fill = |lobby, players| LobbyFill {
            lobby,
            players,
            capacity: 16,
        };
        let mut w = Written::default();
        let mut v = online_lobby();
        // Nothing fetched yet: no line, no list.
        let p = lobby(&v, &mut w);
        assert!(p.contains(&Patch::Shown("lobby-fill", false)));
        assert!(p.contains(&Patch::Shown("lobby-others", false)));
        let dir = LobbyDirectory {
            lobbies: vec![fill(0, 16), fill(1, 7), fill(2, 0)],
        };
        v.lobbies = super::super::view::LobbiesView::of(Some(1), Some(&dir));
        let p = lobby(&v, &mut w);
        assert!(p.contains(&Patch::Text("lobby-fill", "Lobby 2 \u{b7} 7/16".into())));
        assert!(p.contains(&Patch::Shown("lobby-fill", true)));
        assert!(p.contains(&Patch::Children(
            "lobby-others",
            vec![
                Node::el("li", "", "Lobby 1 \u{b7} 16/16"),
                Node::el("li", "", "Lobby 3 \u{b7} 0/16"),
            ]
        )));
        assert!(!lobby(&v, &mut w)
            .iter()
            .any(|p| matches!(p, Patch::Children("lobby-others", _))));
        // A service that did not say which lobby is ours: all are others.
        v.lobbies = super::super::view::LobbiesView::of(None, Some(&dir));
        let p = lobby(&v, &mut w);
        assert!(p.contains(&Patch::Shown("lobby-fill", false)));
        assert!(p
            .iter()
            .any(|p| matches!(p, Patch::Children("lobby-others", l) if l.len() == 3)));
    }

    #[test]
    fn the_roster_is_rebuilt_only_when_it_changed() {
        let mut w = Written::default();
        let mut v = LobbyView {
            roster: vec![player("AAAAAAAAAAAA", "a#AAA")],
            ..online_lobby()
        };
        let rebuilt = |p: &[Patch], id: &str| {
            p.iter()
                .any(|p| matches!(p, Patch::Children(i, _) if *i == id))
        };
        let first = lobby(&v, &mut w);
        assert!(rebuilt(&first, "roster") && rebuilt(&first, "notices"));
        let again = lobby(&v, &mut w);
        assert!(!rebuilt(&again, "roster") && !rebuilt(&again, "notices"));
        v.roster[0].muted = true;
        let changed = lobby(&v, &mut w);
        assert!(rebuilt(&changed, "roster") && !rebuilt(&changed, "notices"));
        // The entry: its attributes, the name, then the items with their
        // buttons naming the player.
        let Some(Patch::Children(_, entries)) = changed
            .iter()
            .find(|p| matches!(p, Patch::Children("roster", _)))
        else {
            panic!()
        };
        let Node::El {
            tag,
            attrs,
            children,
        } = &entries[0]
        else {
            panic!()
        };
        assert_eq!(*tag, "li");
        assert_eq!(
            attrs,
            &vec![
                ("class", "player".to_owned()),
                ("data-id", "AAAAAAAAAAAA".into()),
                ("data-status", "in the lobby".into()),
                ("data-link", "connected".into())
            ]
        );
        assert_eq!(children[0], display_name("span", "name", "a#AAA"));
        assert_eq!(
            children[3],
            player_button("Unmute", "mute", &v.roster[0].id, true)
        );
    }

    #[test]
    fn each_screen_patch_names_an_element() {
        let v = ScreenView {
            screen: Screen::Result {
                message: "Over.".into(),
                online: true,
            },
            online_note: None,
            name_error: String::new(),
            chat_error: "",
            name_row: false,
            replay_ready: true,
            replay_error: None,
            result_court: true,
        };
        let p = screen(&v);
        assert!(p.contains(&Patch::Shown("result", true)));
        // The final picture under the result, and Play again.
        assert!(p.contains(&Patch::Shown("canvas", true)));
        assert!(p.contains(&Patch::Shown("play-again", true)));
        assert!(p.contains(&Patch::Attr("page", "data-court", Some(String::new()))));
        assert!(p.contains(&Patch::Shown("watch-replay", true)));
        assert!(p.contains(&Patch::Text("result-text", "Over.".into())));
        assert!(p.contains(&Patch::Shown("replay-error", false)));
    }

    #[test]
    fn the_start_builds_one_chooser_per_local_option() {
        let opts = [LocalOption {
            label: "Players",
            choices: &["2", "1"],
        }];
        let p = start("Dots", 0xAB, &opts, Some("Ada"), "rollback");
        assert!(p.contains(&Patch::Title("Dots".into())));
        assert!(p.contains(&Patch::Text("build", "build 00000000000000ab".into())));
        assert!(p.contains(&Patch::Value("name", "Ada".into())));
        let Some(Patch::Children(_, nodes)) = p
            .iter()
            .find(|p| matches!(p, Patch::Children("local-options", _)))
        else {
            panic!()
        };
        assert_eq!(nodes.len(), 1, "one option");
        let Node::El {
            attrs, children, ..
        } = &nodes[0]
        else {
            panic!()
        };
        assert!(attrs.contains(&("id", "local-optw-0".to_owned())));
        assert_eq!(
            children[0],
            Node::el("label", "", "Players").attr("for", "local-opt-0")
        );
        assert_eq!(
            options_shown(&option_ids(1), &[false]),
            [Patch::Shown("local-optw-0", false)]
        );
    }
}
