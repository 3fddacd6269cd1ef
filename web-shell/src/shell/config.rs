//! The shell's settings, read from what the page knows about itself.

use crate::challenge::ChallengeConfig;
use crate::invite::{invite_option, Damaged, InviteLink};
use crate::js::JsRead;
use crate::lobby::LobbyConfig;
use crate::mesh::MeshConfig;
use crate::options::{local_speed_option, ms_option, service_address, service_origin};
use crate::party::PartyConfig;
use lockstep::Millis;

/// The storage key of the name last joined under.
pub const NAME_KEY: &str = "netplay.name";

/// The storage key of the netcode setting (`lockstep` or `rollback`).
pub const NETCODE_KEY: &str = "netplay.netcode";

/// The storage key of the game picked on the title of a page that carries
/// several (its name).
pub const GAME_KEY: &str = "netplay.game";

/// Every key the shell stores a setting under: the page reads each back
/// into the `stored` field of [`PageFacts`] at start-up.
pub const STORED_KEYS: [&str; 3] = [NAME_KEY, NETCODE_KEY, GAME_KEY];

/// What the page knows about itself when it starts.
#[derive(Debug, Clone, Default)]
pub struct PageFacts {
    /// `location.search`.
    pub search: String,
    /// `window.SIGNALING_URL`, when set and not empty.
    pub configured: Option<String>,
    /// `location.origin`.
    pub origin: String,
    /// `location.pathname`, for this page's invite links.
    pub path: String,
    /// The browser has `RTCPeerConnection` and `WebSocket`.
    pub has_webrtc: bool,
    /// `crypto.getRandomValues` works.
    pub has_random: bool,
    /// The device has a touch screen (`navigator.maxTouchPoints > 0`, or
    /// the primary pointer is coarse): the touch overlay shows by itself.
    pub touch_device: bool,
    /// The remembered settings: for each of [`STORED_KEYS`] the browser
    /// has a value for, the key and the value.
    pub stored: Vec<(&'static str, String)>,
    /// This tab's session storage under
    /// [`rejoin::RECORD_KEY`](super::rejoin::RECORD_KEY): a match this
    /// page was a guest in before a reload.
    pub rejoin_record: Option<String>,
    /// The wall-clock time (ms since the Unix epoch) of the page clock's
    /// zero (`performance.timeOrigin`), so that the shell can tell the
    /// wall-clock time from the page clock.
    pub clock_origin_ms: u64,
}

impl PageFacts {
    /// What the page knows, read from its global object (`window`):
    /// `location`, `SIGNALING_URL` (when a non-empty string), the
    /// browser's features, `navigator`'s touch points and `matchMedia`
    /// for a coarse pointer, the two storages and `performance`.
    /// `has_random` is whether `crypto.getRandomValues` just worked.
    pub fn read<V: JsRead>(window: &V, has_random: bool) -> PageFacts {
        let location = window.get("location");
        let text = |v: V| v.text().unwrap_or_default();
        let touch_points = window.get("navigator").get("maxTouchPoints").number();
        let coarse = window.call("matchMedia", Some("(pointer: coarse)"));
        let local = window.get("localStorage");
        PageFacts {
            search: text(location.get("search")),
            configured: window.get("SIGNALING_URL").text().filter(|s| !s.is_empty()),
            origin: text(location.get("origin")),
            path: text(location.get("pathname")),
            has_webrtc: window.has("RTCPeerConnection") && window.has("WebSocket"),
            has_random,
            touch_device: touch_points.unwrap_or(0.0) > 0.0
                || coarse.get("matches").boolean() == Some(true),
            stored: STORED_KEYS
                .into_iter()
                .filter_map(|k| Some((k, local.call("getItem", Some(k)).text()?)))
                .collect(),
            rejoin_record: window
                .get("sessionStorage")
                .call("getItem", Some(super::rejoin::RECORD_KEY))
                .text(),
            // Saturating, and 0 for NaN.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            clock_origin_ms: window
                .get("performance")
                .get("timeOrigin")
                .number()
                .unwrap_or(0.0) as u64,
        }
    }

    /// The remembered value of `key`.
    fn stored(&self, key: &str) -> Option<&str> {
        self.stored
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The shell's settings.
#[derive(Debug, Clone)]
pub struct ShellConfig {
    /// The signalling service's address (`http(s)://...`, no trailing `/`).
    pub http_base: String,
    /// The same as `ws(s)://...`.
    pub ws_base: String,
    /// The lobby's timers.
    pub lobby: LobbyConfig,
    /// How long a match connection may take to open.
    pub match_connect: Millis,
    /// Ticks of local play per frame (1; more with the test-only
    /// `?local_speed=`).
    pub local_speed: u32,
    /// Why online play is not offered, if it is not.
    pub online_note: Option<&'static str>,
    /// `?signal=` named a service other than this page's origin or the
    /// configured one, and was ignored.
    pub signal_refused: bool,
    /// `?relay=1`: matches skip the direct path and go through the
    /// signalling service's relay at once (for testing the relay).
    pub force_relay: bool,
    /// `?peer_fault=` on a page served from loopback: what this page's
    /// match link holds back, for tests of how the other page copes.
    pub peer_fault: Option<crate::options::PeerFault>,
    /// The touch overlay shows while a game runs: on a touch device,
    /// unless `?touch=0`; anywhere with `?touch=1`.
    pub touch: bool,
    /// Matches hosted here run lock-step rather than rollback.
    pub lockstep: bool,
    /// The name remembered from the last visit, to fill in.
    pub stored_name: Option<String>,
    /// The game picked on the last visit (a page of several games).
    pub stored_game: Option<String>,
    /// `?invite=`: the page was opened with an invite link (or a damaged
    /// one).
    pub invite: Option<Result<InviteLink, Damaged>>,
    /// This page's address for the invite links it makes: without query,
    /// but for an accepted `?signal=` (the friend must reach the same
    /// service to find the inviter).
    pub page_address: String,
    /// [`PageFacts::rejoin_record`].
    pub rejoin_record: Option<String>,
    /// [`PageFacts::clock_origin_ms`].
    pub clock_origin_ms: u64,
}

impl ShellConfig {
    /// The settings from what the page knows: the signalling service is
    /// `?signal=` when it names this page's origin or the configured
    /// service's (a link cannot send a player's lobby, rooms and `/ice` to
    /// a server of its choosing), else `window.SIGNALING_URL`, else this
    /// page's origin; the test-only options are read from the address, each
    /// within its bounds ([`crate::options`]).
    #[must_use]
    pub fn from_page(page: &PageFacts) -> ShellConfig {
        let allowed = [Some(page.origin.as_str()), page.configured.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(service_origin)
            .collect::<Vec<_>>();
        let signal = crate::options::signal_option(&page.search);
        let raw_signal = crate::options::query_param(&page.search, "signal");
        let chosen = signal.as_deref().and_then(|s| {
            let address = service_address(s)?;
            let origin = service_origin(s)?;
            allowed.contains(&origin).then_some(address)
        });
        let signal_refused = signal.is_some() && chosen.is_none();
        if signal_refused {
            log::warn!("config: ignored a signal option that names another origin");
        }
        let carried = match (&chosen, raw_signal) {
            (Some(_), Some(raw)) => format!("?signal={raw}"),
            _ => String::new(),
        };
        let http_base = chosen
            .or_else(|| page.configured.clone())
            .unwrap_or_else(|| page.origin.clone())
            .trim_end_matches('/')
            .to_owned();
        let ws_base = http_base
            .replacen("https://", "wss://", 1)
            .replacen("http://", "ws://", 1);
        let ms = |key: &str, default: u64| ms_option(&page.search, key, default);
        let online_note = if !page.has_webrtc {
            Some("Online play needs WebRTC, which this browser does not offer.")
        } else if !page.has_random {
            // Peer ids must be random: without it every page would draw
            // the same id.
            Some("Online play is unavailable: this browser gives no secure random numbers.")
        } else {
            None
        };
        ShellConfig {
            http_base,
            ws_base,
            lobby: LobbyConfig {
                mesh: MeshConfig {
                    connect_timeout: ms("mesh_ms", 20_000),
                },
                challenge: ChallengeConfig {
                    answer_timeout: ms("answer_ms", 30_000),
                    connect_timeout: ms("connect_ms", 30_000),
                    // Filled in by the shell from its game.
                    games: &[],
                },
                party: PartyConfig {
                    answer_timeout: ms("answer_ms", 30_000),
                    connect_timeout: ms("connect_ms", 30_000),
                    // No game takes parties on the page yet: every
                    // invitation is declined at once as one the page
                    // cannot play.
                    games: &[],
                },
                connect_timeout: ms("lobby_connect_ms", 10_000),
                pong_timeout: LobbyConfig::default().pong_timeout,
                // Filled in by the shell from its game.
                watchable: false,
            },
            match_connect: ms("match_connect_ms", super::room::MATCH_CONNECT_TIMEOUT.0),
            local_speed: local_speed_option(&page.search),
            online_note,
            signal_refused,
            force_relay: crate::options::relay_option(&page.search),
            peer_fault: crate::options::peer_fault_option(&page.search, &page.origin),
            touch: crate::options::touch_option(&page.search).unwrap_or(page.touch_device),
            lockstep: page.stored(NETCODE_KEY) == Some("lockstep"),
            stored_name: page.stored(NAME_KEY).map(str::to_owned),
            stored_game: page.stored(GAME_KEY).map(str::to_owned),
            invite: invite_option(&page.search),
            rejoin_record: page.rejoin_record.clone(),
            clock_origin_ms: page.clock_origin_ms,
            page_address: format!(
                "{}{}{carried}",
                page.origin,
                if page.path.is_empty() {
                    "/"
                } else {
                    &page.path
                }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page whose address has `search`, then `signal` as `?signal=`
    /// (percent-encoded as a link would carry it).
    fn page(search: &str, signal: Option<&str>, configured: Option<&str>) -> PageFacts {
        let signal = signal.map(|s| {
            let encoded =
                percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC);
            format!(
                "{}signal={encoded}",
                if search.is_empty() { "?" } else { "&" }
            )
        });
        PageFacts {
            search: format!("{search}{}", signal.unwrap_or_default()),
            configured: configured.map(str::to_owned),
            origin: "http://127.0.0.1:8080".to_owned(),
            path: "/play/".to_owned(),
            has_webrtc: true,
            has_random: true,
            touch_device: false,
            stored: Vec::new(),
            rejoin_record: None,
            clock_origin_ms: 0,
        }
    }

    #[test]
    fn a_pages_facts_are_read_from_its_window() {
        use crate::js::Stand;
        use serde_json::json;
        let window = Stand(json!({
            "location": {"search": "?x=1", "origin": "https://a.example", "pathname": "/p/"},
            "SIGNALING_URL": "wss://s.example",
            "RTCPeerConnection": {}, "WebSocket": {},
            "navigator": {"maxTouchPoints": 0},
            "matchMedia": {"(pointer: coarse)": {"matches": true}},
            "localStorage": {"getItem": {NAME_KEY: "Ada", GAME_KEY: 3}},
            "sessionStorage": {"getItem": {"rejoin": "r"}},
            "performance": {"timeOrigin": 1_700_000_000_123.7}
        }));
        let f = PageFacts::read(&window, true);
        assert_eq!(
            (f.search.as_str(), f.origin.as_str(), f.path.as_str()),
            ("?x=1", "https://a.example", "/p/")
        );
        assert_eq!(f.configured.as_deref(), Some("wss://s.example"));
        assert!(f.has_webrtc && f.has_random && f.touch_device);
        assert_eq!(f.stored, vec![(NAME_KEY, "Ada".to_owned())]);
        assert_eq!(f.rejoin_record.as_deref(), Some("r"));
        assert_eq!(f.clock_origin_ms, 1_700_000_000_123);

        // A bare window: nothing configured, no features, nothing stored.
        let f = PageFacts::read(&Stand(json!({"SIGNALING_URL": "", "WebSocket": {}})), false);
        assert!(f.search.is_empty() && f.origin.is_empty() && f.configured.is_none());
        assert!(!f.has_webrtc && !f.has_random && !f.touch_device);
        assert!(f.stored.is_empty() && f.rejoin_record.is_none() && f.clock_origin_ms == 0);
        let touch = Stand(json!({"navigator": {"maxTouchPoints": 5}}));
        assert!(PageFacts::read(&touch, true).touch_device);
    }

    #[test]
    fn invite_links_are_made_on_this_pages_address() {
        let cfg = ShellConfig::from_page(&page("?mesh_ms=500", None, None));
        assert_eq!(cfg.page_address, "http://127.0.0.1:8080/play/");
        assert!(cfg.invite.is_none());
        let cfg = ShellConfig::from_page(&page("?invite=x", None, None));
        assert!(matches!(cfg.invite, Some(Err(_))));
    }

    #[test]
    fn invite_links_carry_an_accepted_signal_option_and_not_a_refused_one() {
        let configured = Some("https://signal.example.com");
        let cfg = ShellConfig::from_page(&page("", Some("https://signal.example.com"), configured));
        assert_eq!(
            cfg.page_address,
            "http://127.0.0.1:8080/play/?signal=https%3A%2F%2Fsignal%2Eexample%2Ecom"
        );
        let link = InviteLink::parse("AbCdEfGhIj12.zYxWvU987654").unwrap();
        let url = link.url(&cfg.page_address);
        assert_eq!(
            url,
            "http://127.0.0.1:8080/play/?signal=https%3A%2F%2Fsignal%2Eexample%2Ecom&invite=AbCdEfGhIj12.zYxWvU987654"
        );
        // The friend's page reads both options back.
        let search = &url[url.find('?').unwrap()..];
        let friend = ShellConfig::from_page(&PageFacts {
            search: search.to_owned(),
            ..page("", None, configured)
        });
        assert_eq!(friend.http_base, "https://signal.example.com");
        assert_eq!(friend.invite, Some(Ok(link)));
        // A refused one (another origin) is not passed on.
        let cfg = ShellConfig::from_page(&page("", Some("https://evil.example"), None));
        assert_eq!(cfg.page_address, "http://127.0.0.1:8080/play/");
    }

    #[test]
    fn the_signal_option_names_only_our_own_or_the_configured_origin() {
        let base = |p: &PageFacts| ShellConfig::from_page(p).http_base;
        // Nothing given: this page's origin.
        assert_eq!(base(&page("", None, None)), "http://127.0.0.1:8080");
        // Our own origin (any case, a default-free port, a trailing slash).
        assert_eq!(
            base(&page("", Some("HTTP://127.0.0.1:8080/"), None)),
            "http://127.0.0.1:8080"
        );
        // Any other origin is refused: the page keeps its own service.
        for foreign in [
            "http://127.0.0.1:9",
            "https://127.0.0.1:8080",
            "http://evil.example",
            "http://127.0.0.1:8080@evil.example",
            "http://evil.example#@127.0.0.1:8080",
            "javascript:alert(1)",
            "ws://127.0.0.1:8080",
            "//evil.example",
            "",
        ] {
            let cfg = ShellConfig::from_page(&page("", Some(foreign), None));
            assert_eq!(cfg.http_base, "http://127.0.0.1:8080", "{foreign}");
            assert!(cfg.signal_refused, "{foreign}");
        }
        // With a configured service: that origin is allowed too, and a
        // foreign one falls back to the configured service.
        let configured = Some("https://signal.example.com");
        assert_eq!(
            base(&page(
                "",
                Some("https://SIGNAL.example.com:443/"),
                configured
            )),
            "https://signal.example.com"
        );
        assert_eq!(
            base(&page("", Some("https://other.example.com"), configured)),
            "https://signal.example.com"
        );
        assert_eq!(
            base(&page("", Some("http://127.0.0.1:8080"), configured)),
            "http://127.0.0.1:8080"
        );
        let ok = ShellConfig::from_page(&page("", Some("http://127.0.0.1:8080"), None));
        assert!(!ok.signal_refused);
        assert_eq!(ok.ws_base, "ws://127.0.0.1:8080");
    }

    #[test]
    fn the_signal_option_is_read_as_the_browser_decodes_it() {
        let signal = |search: &str| crate::options::signal_option(search);
        assert_eq!(signal(""), None);
        assert_eq!(signal("?signal="), Some(String::new()));
        assert_eq!(
            signal("?signal=http%3A%2F%2F127.0.0.1%3A8080&x=1").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        // Plain text and a `+` stay as they are.
        assert_eq!(signal("?signal=http://a+b").as_deref(), Some("http://a+b"));
        // UTF-8 escapes decode; escapes of bytes that are not UTF-8, and
        // broken escapes, leave the value as written.
        assert_eq!(signal("?signal=%C3%A9").as_deref(), Some("é"));
        assert_eq!(signal("?signal=%E0%A4").as_deref(), Some("%E0%A4"));
        assert_eq!(signal("?signal=%zz%4").as_deref(), Some("%zz%4"));
        assert_eq!(signal("?signal=%zz%C3%A9").as_deref(), Some("%zz%C3%A9"));
        // The first occurrence wins, as everywhere in the query.
        assert_eq!(signal("?signal=a&signal=b").as_deref(), Some("a"));
    }

    #[test]
    fn every_test_option_is_bounded() {
        let cfg = |search: &str| ShellConfig::from_page(&page(search, None, None));
        let huge = "99999999999999";
        let c = cfg(&format!(
            "?mesh_ms={huge}&answer_ms={huge}&connect_ms={huge}&lobby_connect_ms={huge}&match_connect_ms={huge}&local_speed={huge}"
        ));
        let max = Millis(crate::options::MAX_OPTION_MS);
        assert_eq!(c.lobby.mesh.connect_timeout, max);
        assert_eq!(c.lobby.challenge.answer_timeout, max);
        assert_eq!(c.lobby.challenge.connect_timeout, max);
        assert_eq!(c.lobby.connect_timeout, max);
        assert_eq!(c.match_connect, max);
        assert_eq!(c.local_speed, crate::options::MAX_LOCAL_SPEED);
        let c = cfg("?mesh_ms=0&answer_ms=1&connect_ms=0&lobby_connect_ms=0&match_connect_ms=5&local_speed=0");
        let min = Millis(crate::options::MIN_OPTION_MS);
        assert_eq!(c.lobby.mesh.connect_timeout, min);
        assert_eq!(c.lobby.challenge.answer_timeout, min);
        assert_eq!(c.lobby.challenge.connect_timeout, min);
        assert_eq!(c.lobby.connect_timeout, min);
        assert_eq!(c.match_connect, min);
        assert_eq!(c.local_speed, 1);
        let c = cfg("?local_speed=40&mesh_ms=1000");
        assert_eq!(c.local_speed, 40);
        assert_eq!(c.lobby.mesh.connect_timeout, Millis(1000));
        assert_eq!(cfg("?local_speed=fast").local_speed, 1);
    }
}
