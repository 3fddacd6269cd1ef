//! Short-lived TURN credentials, when the operator configures a TURN server.
//!
//! Uses the time-limited credential scheme that coturn and most TURN servers
//! accept ("TURN REST API"): the user name is `<expiry unix time>:ntba` and
//! the password is base64(HMAC-SHA1(shared secret, user name)). The secret
//! comes from the environment and is never logged or stored.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha1::Sha1;
use signaling_core::TurnServer;

/// A TURN server and the secret shared with it.
#[derive(Clone)]
pub struct TurnConfig {
    /// `turn:` / `turns:` URLs.
    pub urls: Vec<String>,
    /// The shared secret (from `TURN_SHARED_SECRET`).
    pub shared_secret: String,
    /// How long issued credentials stay valid, in seconds.
    pub ttl_seconds: u64,
}

impl std::fmt::Debug for TurnConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnConfig")
            .field("urls", &self.urls)
            .field("shared_secret", &"<hidden>")
            .field("ttl_seconds", &self.ttl_seconds)
            .finish()
    }
}

impl TurnConfig {
    /// Reads `TURN_URLS` (comma-separated) and `TURN_SHARED_SECRET` from the
    /// environment; `None` unless both are set and non-empty.
    #[must_use]
    pub fn from_env() -> Option<TurnConfig> {
        let urls: Vec<String> = std::env::var("TURN_URLS")
            .ok()?
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(str::to_owned)
            .collect();
        let shared_secret = std::env::var("TURN_SHARED_SECRET").ok()?;
        if urls.is_empty() || shared_secret.is_empty() {
            return None;
        }
        Some(TurnConfig {
            urls,
            shared_secret,
            ttl_seconds: signaling_core::defaults::TURN_TTL_SECONDS,
        })
    }

    /// Credentials valid for `ttl_seconds` from `unix_now`.
    #[must_use]
    pub fn credentials_at(&self, unix_now: u64) -> TurnServer {
        let username = format!("{}:ntba", unix_now.saturating_add(self.ttl_seconds));
        // HMAC accepts keys of any length, so this cannot fail.
        let mut mac = <Hmac<Sha1> as Mac>::new_from_slice(self.shared_secret.as_bytes())
            .expect("HMAC takes keys of any length");
        mac.update(username.as_bytes());
        let credential =
            base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
        TurnServer {
            urls: self.urls.clone(),
            username,
            credential,
        }
    }

    /// Credentials valid for `ttl_seconds` from now.
    #[must_use]
    pub fn credentials_now(&self) -> TurnServer {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        self.credentials_at(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_follow_the_turn_rest_scheme() {
        let t = TurnConfig {
            urls: vec!["turn:turn.example:3478".into()],
            shared_secret: "north".into(),
            ttl_seconds: signaling_core::defaults::TURN_TTL_SECONDS,
        };
        let c = t.credentials_at(1_000_000);
        assert_eq!(c.username, "1003600:ntba");
        // HMAC-SHA1("north", "1003600:ntba"), computed independently with
        // Python's hmac module.
        assert_eq!(c.credential, EXPECTED);
        assert_eq!(c.urls, t.urls);
        assert!(!format!("{t:?}").contains("north"));
    }

    const EXPECTED: &str = "diUtS65khH4G3lb/WUGzc8KT7Zw=";
}
