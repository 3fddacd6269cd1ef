//! The shell's settings, read from what the page knows about itself.

use crate::challenge::ChallengeConfig;
use crate::lobby::LobbyConfig;
use crate::mesh::MeshConfig;
use crate::options::{ms_option, query_param};
use lockstep::Millis;

/// What the page knows about itself when it starts.
#[derive(Debug, Clone, Default)]
pub struct PageFacts {
    /// `location.search`.
    pub search: String,
    /// `?signal=`, percent-decoded.
    pub signal: Option<String>,
    /// `window.SIGNALING_URL`, when set and not empty.
    pub configured: Option<String>,
    /// `location.origin`.
    pub origin: String,
    /// The browser has `RTCPeerConnection` and `WebSocket`.
    pub has_webrtc: bool,
    /// `crypto.getRandomValues` works.
    pub has_random: bool,
    /// The remembered netcode setting.
    pub netcode: Option<String>,
    /// The match connection timer's default (ms).
    pub match_connect_ms: u64,
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
    /// Matches hosted here run lock-step rather than rollback.
    pub lockstep: bool,
}

impl ShellConfig {
    /// The settings from what the page knows: the signalling service is
    /// `?signal=`, else `window.SIGNALING_URL`, else this page's origin;
    /// the test-only timer options are read from the address (each capped
    /// at 10 minutes).
    #[must_use]
    pub fn from_page(page: &PageFacts) -> ShellConfig {
        let http_base = page
            .signal
            .clone()
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
                },
                connect_timeout: ms("lobby_connect_ms", 10_000),
            },
            match_connect: ms("match_connect_ms", page.match_connect_ms),
            local_speed: query_param(&page.search, "local_speed")
                .and_then(|v| v.parse::<u32>().ok())
                .map_or(1, |n| n.clamp(1, 1000)),
            online_note,
            lockstep: page.netcode.as_deref() == Some("lockstep"),
        }
    }
}
