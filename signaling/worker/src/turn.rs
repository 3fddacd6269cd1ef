//! Short-lived TURN credentials from Cloudflare's TURN service.
//!
//! Only used when the operator set the `TURN_KEY_ID` and
//! `TURN_KEY_API_TOKEN` secrets. For each `GET /ice` the Worker asks
//! Cloudflare's Realtime API (`TURN_API_BASE`, by default
//! `https://rtc.live.cloudflare.com`) to mint credentials valid for
//! `TURN_TTL_SECONDS`, and hands the browser the TURN entry next to the
//! configured STUN URLs. The long-lived key never leaves the Worker. The
//! call is bounded by [`MINT_TIMEOUT`]: a slow or silent API costs the page
//! at most that long, and it then gets STUN only.

use std::pin::pin;
use std::time::Duration;

use futures_util::future::{select, Either};
use serde::Deserialize;
use signaling_core::TurnServer;
use worker::{AbortController, AbortSignal, Delay, Fetch, Headers, Method, Request, RequestInit};

use crate::config::TurnKey;

/// How long one minting call (request and whole answer) may take before
/// the Worker gives up on it.
pub const MINT_TIMEOUT: Duration = Duration::from_secs(3);

/// The credential-minting endpoint for a TURN key id, under the API origin
/// `base` (as [`crate::config::api_origin`] returns it: no trailing `/`).
#[must_use]
pub fn credentials_url(base: &str, key_id: &str) -> String {
    format!("{base}/v1/turn/keys/{key_id}/credentials/generate-ice-servers")
}

/// The JSON body of the minting request.
#[must_use]
pub fn request_body(ttl_seconds: u64) -> String {
    format!("{{\"ttl\":{ttl_seconds}}}")
}

#[derive(Deserialize)]
struct Minted {
    #[serde(rename = "iceServers")]
    ice_servers: Vec<MintedServer>,
}

#[derive(Deserialize)]
struct MintedServer {
    #[serde(default)]
    urls: Urls,
    username: Option<String>,
    credential: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Urls {
    One(String),
    Many(Vec<String>),
}

impl Default for Urls {
    fn default() -> Self {
        Urls::Many(Vec::new())
    }
}

/// Reads the service's answer: the first entry carrying a user name and a
/// credential, keeping only its `turn:`/`turns:` URLs and dropping those on
/// port 53, which browsers refuse or stall on. `None` when there is no
/// usable entry.
#[must_use]
pub fn parse_minted(body: &str) -> Option<TurnServer> {
    let minted: Minted = serde_json::from_str(body).ok()?;
    minted.ice_servers.into_iter().find_map(|s| {
        let (Some(username), Some(credential)) = (s.username, s.credential) else {
            return None;
        };
        let urls: Vec<String> = match s.urls {
            Urls::One(u) => vec![u],
            Urls::Many(v) => v,
        }
        .into_iter()
        .filter(|u| (u.starts_with("turn:") || u.starts_with("turns:")) && !on_port_53(u))
        .collect();
        (!urls.is_empty()).then_some(TurnServer {
            urls,
            username,
            credential,
        })
    })
}

fn on_port_53(url: &str) -> bool {
    let without_query = url.split('?').next().unwrap_or(url);
    without_query.ends_with(":53")
}

/// Why no TURN credentials could be had (the details stay out of the logs:
/// they could echo the token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnError {
    /// The request could not be made or sent (no connection, refused).
    Request,
    /// The service answered with this HTTP status.
    Status(u16),
    /// The answer held no usable TURN entry.
    Answer,
    /// No complete answer within [`MINT_TIMEOUT`].
    Timeout,
}

impl TurnError {
    /// A fixed word for logs.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            TurnError::Request => "request",
            TurnError::Status(_) => "status",
            TurnError::Answer => "answer",
            TurnError::Timeout => "timeout",
        }
    }

    /// The HTTP status the service answered with, 0 when there was none.
    #[must_use]
    pub fn status(self) -> u16 {
        match self {
            TurnError::Status(s) => s,
            TurnError::Request | TurnError::Answer | TurnError::Timeout => 0,
        }
    }
}

/// Asks the API at `base` for credentials valid for `ttl_seconds`, giving
/// up after [`MINT_TIMEOUT`] (the request is then aborted).
pub async fn mint(key: &TurnKey, base: &str, ttl_seconds: u64) -> Result<TurnServer, TurnError> {
    let controller = AbortController::default();
    let signal = controller.signal();
    let call = pin!(mint_with(key, base, ttl_seconds, &signal));
    match select(call, pin!(Delay::from(MINT_TIMEOUT))).await {
        Either::Left((result, _)) => result,
        Either::Right(((), _)) => {
            controller.abort();
            Err(TurnError::Timeout)
        }
    }
}

async fn mint_with(
    key: &TurnKey,
    base: &str,
    ttl_seconds: u64,
    signal: &AbortSignal,
) -> Result<TurnServer, TurnError> {
    let headers = Headers::new();
    headers
        .set("Authorization", &format!("Bearer {}", key.api_token))
        .map_err(|_| TurnError::Request)?;
    headers
        .set("Content-Type", "application/json")
        .map_err(|_| TurnError::Request)?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_body(Some(request_body(ttl_seconds).into()));
    let request = Request::new_with_init(&credentials_url(base, &key.id), &init)
        .map_err(|_| TurnError::Request)?;
    let mut response = Fetch::Request(request)
        .send_with_signal(signal)
        .await
        .map_err(|_| TurnError::Request)?;
    let status = response.status_code();
    if !(200..300).contains(&status) {
        return Err(TurnError::Status(status));
    }
    let body = response.text().await.map_err(|_| TurnError::Answer)?;
    parse_minted(&body).ok_or(TurnError::Answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_answer() {
        let body = r#"{"iceServers":[
            {"urls":["stun:stun.cloudflare.com:3478","stun:stun.cloudflare.com:53"]},
            {"urls":["turn:turn.cloudflare.com:3478?transport=udp","turn:turn.cloudflare.com:53?transport=udp",
                     "turn:turn.cloudflare.com:3478?transport=tcp","turns:turn.cloudflare.com:5349?transport=tcp"],
             "username":"u1","credential":"c1"}]}"#;
        // Test only: this body is known to parse.
        let t = parse_minted(body).unwrap();
        assert_eq!(t.username, "u1");
        assert_eq!(t.credential, "c1");
        assert_eq!(
            t.urls,
            vec![
                "turn:turn.cloudflare.com:3478?transport=udp",
                "turn:turn.cloudflare.com:3478?transport=tcp",
                "turns:turn.cloudflare.com:5349?transport=tcp",
            ]
        );
    }

    #[test]
    fn a_single_url_string_is_accepted() {
        let body =
            r#"{"iceServers":[{"urls":"turn:t.example:3478","username":"u","credential":"c"}]}"#;
        // Test only: this body is known to parse.
        assert_eq!(
            parse_minted(body).unwrap().urls,
            vec!["turn:t.example:3478"]
        );
    }

    #[test]
    fn unusable_answers_give_none() {
        for body in [
            "",
            "{}",
            "[]",
            r#"{"iceServers":[]}"#,
            r#"{"iceServers":[{"urls":["stun:s.example:3478"]}]}"#,
            r#"{"iceServers":[{"urls":["turn:t.example:3478"],"username":"u"}]}"#,
            r#"{"iceServers":[{"urls":["turn:t.example:53"],"username":"u","credential":"c"}]}"#,
        ] {
            assert_eq!(parse_minted(body), None, "{body}");
        }
    }

    #[test]
    fn the_url_names_the_key() {
        assert_eq!(
            credentials_url(crate::config::DEFAULT_TURN_API_BASE, "abc"),
            "https://rtc.live.cloudflare.com/v1/turn/keys/abc/credentials/generate-ice-servers"
        );
        assert_eq!(
            credentials_url("http://127.0.0.1:9000", "k1"),
            "http://127.0.0.1:9000/v1/turn/keys/k1/credentials/generate-ice-servers"
        );
    }

    #[test]
    fn the_body_asks_for_the_ttl() {
        // Test only: the body is JSON if the function is right.
        let v: serde_json::Value = serde_json::from_str(&request_body(86_400)).unwrap();
        assert_eq!(v, serde_json::json!({"ttl": 86_400}));
    }

    #[test]
    fn errors_have_fixed_log_words() {
        assert_eq!(TurnError::Status(503).reason(), "status");
        assert_eq!(TurnError::Status(503).status(), 503);
        assert_eq!(TurnError::Timeout.reason(), "timeout");
        assert_eq!(TurnError::Timeout.status(), 0);
        assert_eq!(TurnError::Request.reason(), "request");
        assert_eq!(TurnError::Answer.reason(), "answer");
    }
}
