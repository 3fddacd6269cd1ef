//! The heartbeat: how a page shows the service that a welcomed lobby socket
//! is still alive, so that sockets whose page is gone (a closed laptop, a
//! lost network) leave the roster instead of lingering as ghost players.
//!
//! The page sends exactly [`PING`] every [`INTERVAL_MS`]; the service
//! answers exactly [`PONG`]. Both are fixed texts, byte for byte, because
//! the Cloudflare Worker hands them to the runtime's WebSocket
//! auto-response, which answers a frame equal to the request text without
//! waking the Durable Object (so a heartbeat costs no Durable Object
//! request). Rooms answer the same ping.
//!
//! The service closes a welcomed socket it has heard nothing from (no
//! frame of any kind, heartbeats included) for its idle timeout, which is
//! several intervals long so that a throttled background tab still makes
//! it.

/// The page's heartbeat frame.
pub const PING: &str = r#"{"type":"ping"}"#;

/// The service's answer to [`PING`].
pub const PONG: &str = r#"{"type":"pong"}"#;

/// How often the page sends [`PING`] on a welcomed lobby socket, in
/// milliseconds. Browsers may delay a hidden tab's timers to once a
/// minute, which the service's idle timeout allows for.
pub const INTERVAL_MS: u64 = 25_000;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn ping_and_pong_are_typed_objects() {
        for (text, kind) in [(PING, "ping"), (PONG, "pong")] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(v, serde_json::json!({ "type": kind }));
        }
    }
}
