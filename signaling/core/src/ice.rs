//! The body of `GET /ice`.

use serde::Serialize;

use crate::msg::to_json;

/// A TURN server with short-lived credentials, when the operator set one up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TurnServer {
    /// `turn:` / `turns:` URLs.
    pub urls: Vec<String>,
    /// Short-lived user name.
    pub username: String,
    /// Short-lived credential.
    pub credential: String,
}

#[derive(Serialize)]
struct Stun<'a> {
    urls: &'a [String],
}

#[derive(Serialize)]
#[serde(untagged)]
enum Server<'a> {
    Stun(Stun<'a>),
    Turn(&'a TurnServer),
}

#[derive(Serialize)]
struct Body<'a> {
    #[serde(rename = "iceServers")]
    ice_servers: Vec<Server<'a>>,
}

/// `{"iceServers":[...]}`: one entry for the STUN URLs (none when the list
/// is empty) and one for TURN when configured. The shape is what
/// `RTCPeerConnection`'s `iceServers` option takes.
#[must_use]
pub fn ice_servers_json(stun_urls: &[String], turn: Option<&TurnServer>) -> String {
    let mut ice_servers = Vec::new();
    if !stun_urls.is_empty() {
        ice_servers.push(Server::Stun(Stun { urls: stun_urls }));
    }
    if let Some(t) = turn {
        ice_servers.push(Server::Turn(t));
    }
    to_json(&Body { ice_servers })
}
