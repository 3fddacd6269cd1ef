//! The page's settings from its address, and the fallback ICE server.
//!
//! Tests shorten the timers through the query string (`?mesh_ms=1000`,
//! `?answer_ms=`, `?connect_ms=`, `?match_connect_ms=`, `?lobby_connect_ms=`).
//! Anyone can type an address, so every value is checked here: a number
//! that does not parse keeps the default, and a huge one is capped at
//! [`MAX_OPTION_MS`] so that no timer arithmetic can overflow.

use lockstep::Millis;

/// The longest timer a query option may set: 10 minutes.
pub const MAX_OPTION_MS: u64 = 10 * 60 * 1000;

/// The STUN server the page uses when `/ice` cannot be fetched: the one the
/// signalling service's `/ice` lists by default.
pub const FALLBACK_STUN_URL: &str = signaling_protocol::limits::DEFAULT_STUN_URL;

/// The value of `key` in a query string such as `?a=1&b=2` (raw, not
/// percent-decoded), or `None` when it is absent. Read as the signalling
/// service reads its own queries ([`signaling_protocol::query_param`]): the
/// first occurrence wins and a bare `key` reads as empty.
#[must_use]
pub fn query_param(search: &str, key: &str) -> Option<String> {
    signaling_protocol::query_param(search, key).map(str::to_owned)
}

/// A timer option in milliseconds: `default` when `key` is absent or not a
/// whole number, at most [`MAX_OPTION_MS`].
#[must_use]
pub fn ms_option(search: &str, key: &str, default: u64) -> Millis {
    let ms = query_param(search, key)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(default);
    Millis(ms.min(MAX_OPTION_MS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_found_by_key() {
        let q = "?signal=http%3A%2F%2Fx&mesh_ms=1000&empty=";
        assert_eq!(query_param(q, "mesh_ms").as_deref(), Some("1000"));
        assert_eq!(query_param(q, "signal").as_deref(), Some("http%3A%2F%2Fx"));
        assert_eq!(query_param(q, "empty").as_deref(), Some(""));
        assert_eq!(query_param("?a=1&bare", "bare").as_deref(), Some(""));
        assert_eq!(query_param("?x=1&x=2", "x").as_deref(), Some("1"));
        assert_eq!(query_param(q, "mesh"), None);
        assert_eq!(query_param("", "mesh_ms"), None);
    }

    #[test]
    fn timer_options_default_and_are_capped() {
        assert_eq!(ms_option("?mesh_ms=1000", "mesh_ms", 20_000), Millis(1000));
        assert_eq!(ms_option("", "mesh_ms", 20_000), Millis(20_000));
        assert_eq!(ms_option("?mesh_ms=-5", "mesh_ms", 20_000), Millis(20_000));
        assert_eq!(ms_option("?mesh_ms=1e3", "mesh_ms", 20_000), Millis(20_000));
        // 2^63 and 2^64 - 1 parse as u64 but are capped; 2^64 does not parse.
        for huge in ["9223372036854775808", "18446744073709551615"] {
            assert_eq!(
                ms_option(&format!("?mesh_ms={huge}"), "mesh_ms", 20_000),
                Millis(MAX_OPTION_MS)
            );
        }
        assert_eq!(
            ms_option("?mesh_ms=18446744073709551616", "mesh_ms", 20_000),
            Millis(20_000)
        );
    }
}
