//! The page's settings from its address, and the fallback ICE server.
//!
//! Tests shorten the timers through the query string (`?mesh_ms=1000`,
//! `?answer_ms=`, `?connect_ms=`, `?match_connect_ms=`, `?lobby_connect_ms=`)
//! and speed up local play (`?local_speed=40`); `?touch=1` or `?touch=0`
//! shows or hides the touch overlay whatever the device; `?relay=1` sends matches
//! through the signalling service's relay without trying a direct path. Anyone can send a player a
//! link, so every value is checked here: a number that does not parse keeps
//! the default, a timer is held between [`MIN_OPTION_MS`] and
//! [`MAX_OPTION_MS`] (so no timer arithmetic can overflow, and no timer
//! fires at once), and the speed between 1 and [`MAX_LOCAL_SPEED`].
//! `?signal=` is checked by the shell's settings against the origins it may
//! name ([`service_origin`]).
//!
//! `?peer_fault=` makes the page a faulty peer in its online matches, for
//! the browser tests of how the other page copes ([`PeerFault`]). It breaks
//! the page's own matches, so it is honoured only on a page served from a
//! loopback address (the tests' own server), never from a real site.

use lockstep::Millis;

/// The longest timer a query option may set: 10 minutes.
pub const MAX_OPTION_MS: u64 = 10 * 60 * 1000;

/// The shortest timer a query option may set: 100 ms, one tick of the
/// page's timer.
pub const MIN_OPTION_MS: u64 = 100;

/// The most local-play ticks per frame `?local_speed=` may ask for.
pub const MAX_LOCAL_SPEED: u32 = 100;

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

/// `?signal=`: the signalling service's address, percent-decoded as the
/// browser's `decodeURIComponent` would. A value that does not decode (a
/// `%` not followed by two hex digits, or escapes of bytes that are not
/// UTF-8) is taken as written; a `+` stays a `+`.
#[must_use]
pub fn signal_option(search: &str) -> Option<String> {
    let raw = query_param(search, "signal")?;
    let escape_ok = |rest: &str| {
        rest.get(..2)
            .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    if !raw.split('%').skip(1).all(escape_ok) {
        return Some(raw);
    }
    let decoded = percent_encoding::percent_decode_str(&raw).decode_utf8();
    Some(decoded.map_or_else(|_| raw.clone(), std::borrow::Cow::into_owned))
}

/// A timer option in milliseconds: `default` when `key` is absent or not a
/// whole number, otherwise between [`MIN_OPTION_MS`] and [`MAX_OPTION_MS`].
#[must_use]
pub fn ms_option(search: &str, key: &str, default: u64) -> Millis {
    let ms = query_param(search, key)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(default);
    Millis(ms.clamp(MIN_OPTION_MS, MAX_OPTION_MS))
}

/// `?local_speed=`: ticks of local play per frame, 1 when absent or not a
/// whole number, otherwise between 1 and [`MAX_LOCAL_SPEED`].
#[must_use]
pub fn local_speed_option(search: &str) -> u32 {
    query_param(search, "local_speed")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(1, |n| {
            u32::try_from(n.clamp(1, u64::from(MAX_LOCAL_SPEED))).unwrap_or(MAX_LOCAL_SPEED)
        })
}

/// `?relay=1`: send matches through the signalling service's relay from
/// the start. Only the exact value `1` turns it on; anything else (absent,
/// `0`, `yes`, empty) leaves the direct path first.
#[must_use]
pub fn relay_option(search: &str) -> bool {
    query_param(search, "relay").as_deref() == Some("1")
}

/// A test-only fault the page's match link puts on what the page sends
/// (`?peer_fault=`, see [`peer_fault_option`]). The session still runs as
/// usual; only its outgoing datagrams are changed, by their message tag
/// (the first byte of every datagram, docs/protocol.md): a datagram the
/// fault holds back is replaced by a Ping, so the link stays alive and the
/// other side never sees it silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerFault {
    /// `pings`: only Pings and Pongs leave the page, so the handshake
    /// never finishes (no Hello arrives).
    PingsOnly,
    /// `no_inputs`: everything but the input messages leaves the page (an
    /// input message becomes a Ping), so the match starts and then never
    /// gets this page's inputs.
    NoInputs,
}

/// Tags of the engine's wire messages the faults look at (one byte each:
/// every tag is below 128, so its varint is that byte).
const TAG_INPUTS: [u8; 3] = [1, 2, 7];
const TAG_PING: u8 = 4;
const TAG_PONG: u8 = 5;

/// The id of the Pings a fault sends in place of what it holds back, far
/// from the small ids the session numbers its own Pings with.
const FAULT_PING_ID: u16 = u16::MAX;

impl PeerFault {
    /// What leaves the page for a match datagram of these bytes on
    /// `channel`: the same, or a Ping in their place (on the channel Pings
    /// travel on).
    #[must_use]
    pub fn apply(
        self,
        channel: lockstep::Channel,
        datagram: Vec<u8>,
    ) -> (lockstep::Channel, Vec<u8>) {
        let tag = datagram.first().copied();
        let passes = match self {
            PeerFault::PingsOnly => tag == Some(TAG_PING) || tag == Some(TAG_PONG),
            PeerFault::NoInputs => tag.is_some_and(|t| !TAG_INPUTS.contains(&t)),
        };
        if passes {
            return (channel, datagram);
        }
        let ping = lockstep::wire::Message::<()>::Ping(FAULT_PING_ID);
        // A Ping encodes without an input, so this cannot fail; an empty
        // datagram (which the other side drops) stands in if it did.
        (ping.channel(), ping.encode().unwrap_or_default())
    }

    /// This page's session settings under the fault: a page that only
    /// pings holds the handshake open far past the usual deadline, as a
    /// hostile page would, so the other page's deadline is the one that
    /// ends it (and the other page, not this one, says why first).
    pub fn session(self, cfg: lockstep::SessionConfig) -> lockstep::SessionConfig {
        match self {
            PeerFault::PingsOnly => cfg.handshake_timeout(FAULTY_HANDSHAKE_TIMEOUT),
            PeerFault::NoInputs => cfg,
        }
    }
}

/// How long a page that only pings waits for its handshake: far longer
/// than the other page's default deadline (10 s).
const FAULTY_HANDSHAKE_TIMEOUT: lockstep::Millis = lockstep::Millis(120_000);

/// `?peer_fault=pings` or `?peer_fault=no_inputs` ([`PeerFault`]), honoured
/// only when the page's origin is on a loopback host (`127.0.0.0/8`,
/// `localhost`, `[::1]`); anything else is ignored (with a warning when the
/// option was given).
#[must_use]
pub fn peer_fault_option(search: &str, page_origin: &str) -> Option<PeerFault> {
    let value = query_param(search, "peer_fault")?;
    let host = split_address(page_origin).map(|(origin, _)| {
        let authority = origin.split_once("://").map_or("", |(_, a)| a).to_owned();
        match authority.rsplit_once(':') {
            Some((h, port)) if !h.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
                h.to_owned()
            }
            _ => authority,
        }
    });
    let loopback = host.is_some_and(|h| {
        h == "localhost"
            || h == "[::1]"
            || h.parse::<std::net::Ipv4Addr>()
                .is_ok_and(|a| a.is_loopback())
    });
    let fault = match value.as_str() {
        "pings" => Some(PeerFault::PingsOnly),
        "no_inputs" => Some(PeerFault::NoInputs),
        _ => None,
    };
    if fault.is_none() || !loopback {
        log::warn!("config: ignored a peer fault option (unknown, or not a loopback page)");
        return None;
    }
    fault
}

/// `?touch=1` shows the touch overlay on any device, `?touch=0` hides it
/// on a touch screen; `None` (the device decides) when absent. Any other
/// value is ignored with a warning.
#[must_use]
pub fn touch_option(search: &str) -> Option<bool> {
    match query_param(search, "touch")?.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        _ => {
            log::warn!("config: ignored a touch option that is neither 0 nor 1");
            None
        }
    }
}

/// The parts of a signalling address: lower-case scheme (`http` or
/// `https`), lower-case host with any port but the scheme's default, and
/// the path. `None` for anything else: another scheme, no host, user
/// information (`user@host`), or characters a host cannot hold.
fn split_address(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return None,
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let path = &tail[..tail.find(['?', '#']).unwrap_or(tail.len())];
    let host_chars = |c: char| c.is_ascii_alphanumeric() || ".-:[]".contains(c);
    if authority.is_empty() || !authority.chars().all(host_chars) {
        return None;
    }
    let mut authority = authority.to_ascii_lowercase();
    if authority.ends_with(default_port) {
        authority.truncate(authority.len() - default_port.len());
    }
    Some((format!("{scheme}://{authority}"), path.to_owned()))
}

/// The origin (`scheme://host[:port]`) of a signalling address, in the
/// form the browser writes `location.origin`; `None` if it is not an
/// `http(s)` address with a plain host.
#[must_use]
pub fn service_origin(url: &str) -> Option<String> {
    split_address(url).map(|(origin, _)| origin)
}

/// A signalling address in canonical form: its origin and path, without
/// query or fragment.
#[must_use]
pub fn service_address(url: &str) -> Option<String> {
    split_address(url).map(|(origin, path)| origin + &path)
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
    fn the_relay_option_is_on_only_for_1() {
        assert!(relay_option("?relay=1"));
        assert!(relay_option("?mesh_ms=5&relay=1"));
        for q in [
            "",
            "?relay",
            "?relay=",
            "?relay=0",
            "?relay=yes",
            "?relay=11",
            "?relay=1x",
            "?relay=0&relay=1",
            "?relay=%31",
        ] {
            assert!(!relay_option(q), "{q}");
        }
    }

    #[test]
    fn the_touch_option_is_1_0_or_left_to_the_device() {
        assert_eq!(touch_option("?touch=1"), Some(true));
        assert_eq!(touch_option("?relay=1&touch=0"), Some(false));
        for q in [
            "",
            "?touch",
            "?touch=",
            "?touch=yes",
            "?touch=10",
            "?touch=%31",
        ] {
            assert_eq!(touch_option(q), None, "{q}");
        }
    }

    #[test]
    fn peer_faults_are_honoured_only_on_a_loopback_page() {
        let local = "http://127.0.0.1:8080";
        assert_eq!(
            peer_fault_option("?peer_fault=pings", local),
            Some(PeerFault::PingsOnly)
        );
        assert_eq!(
            peer_fault_option("?mesh_ms=1000&peer_fault=no_inputs", "http://localhost:9"),
            Some(PeerFault::NoInputs)
        );
        assert_eq!(
            peer_fault_option("?peer_fault=pings", "http://[::1]:80"),
            Some(PeerFault::PingsOnly)
        );
        assert_eq!(
            peer_fault_option("?peer_fault=pings", "http://127.9.9.9"),
            Some(PeerFault::PingsOnly)
        );
        for origin in [
            "https://play.example.com",
            "http://127.0.0.1.example.com",
            "http://localhost.example.com:8080",
            "http://10.0.0.1:8080",
            "",
        ] {
            assert_eq!(
                peer_fault_option("?peer_fault=pings", origin),
                None,
                "{origin}"
            );
        }
        for q in [
            "",
            "?peer_fault",
            "?peer_fault=",
            "?peer_fault=PINGS",
            "?peer_fault=all",
        ] {
            assert_eq!(peer_fault_option(q, local), None, "{q}");
        }
    }

    #[test]
    fn peer_faults_replace_what_they_hold_back_with_a_ping() {
        use lockstep::wire::{Inputs, Message};
        let ping = Message::<u8>::Ping(7).encode().unwrap();
        let pong = Message::<u8>::Pong(lockstep::wire::Pong { id: 7, held_ms: 1 })
            .encode()
            .unwrap();
        let bye = Message::<u8>::Bye(lockstep::wire::ByeReason::Quit)
            .encode()
            .unwrap();
        let inputs = Message::<u8>::Inputs(Inputs {
            ack: 0,
            first_tick: 0,
            pads: vec![3, 4],
            ping: Some(2),
            pong: None,
            advantage: None,
        })
        .encode()
        .unwrap();
        let (r, u) = (lockstep::Channel::Reliable, lockstep::Channel::Unreliable);
        let fault_ping = (u, Message::<u8>::Ping(FAULT_PING_ID).encode().unwrap());
        // Pings and Pongs pass both faults unchanged.
        for fault in [PeerFault::PingsOnly, PeerFault::NoInputs] {
            assert_eq!(fault.apply(u, ping.clone()), (u, ping.clone()));
            assert_eq!(fault.apply(u, pong.clone()), (u, pong.clone()));
            assert_eq!(fault.apply(u, inputs.clone()), fault_ping);
            assert_eq!(fault.apply(r, Vec::new()), fault_ping);
        }
        // Anything else passes only the input fault.
        assert_eq!(PeerFault::PingsOnly.apply(r, bye.clone()), fault_ping);
        assert_eq!(PeerFault::NoInputs.apply(r, bye.clone()), (r, bye));
    }

    #[test]
    fn a_page_that_only_pings_outwaits_the_other_pages_handshake() {
        for cfg in [
            lockstep::SessionConfig::host(1, 2),
            lockstep::SessionConfig::guest(),
        ] {
            assert_eq!(
                PeerFault::PingsOnly.session(cfg),
                cfg.handshake_timeout(FAULTY_HANDSHAKE_TIMEOUT)
            );
            assert_ne!(PeerFault::PingsOnly.session(cfg), cfg);
            assert_eq!(PeerFault::NoInputs.session(cfg), cfg);
        }
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
