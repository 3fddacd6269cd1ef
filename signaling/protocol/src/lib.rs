//! The signalling contract, written once.
//!
//! Everything the page and the signalling service must agree on lives here,
//! and both sides import it: the service's core (`signaling-core`), its two
//! hosts (the embedded server and the Cloudflare Worker) and the browser
//! shell (`web-shell`).
//!
//! * [`id`]: peer ids and room codes (the alphabet, the unbiased draw, the
//!   parse that accepts exactly what the service can issue).
//! * [`text`]: the name rule ([`clean_name`]) and chat cleaning, with the
//!   character classes behind them.
//! * [`lobby`]: the lobby socket's frames both ways, player statuses and
//!   roster entries.
//! * [`room`]: the room socket's frames both ways, the WebRTC handshake
//!   data relayed by rooms and the lobby, roles and the HTTP bodies of
//!   `POST /rooms` and refusals.
//! * [`members`]: member rooms, holding a whole match's players and
//!   spectators, each member addressing any other by its member id.
//! * [`peer`]: chat and challenge messages between lobby players.
//! * [`heartbeat`]: the fixed ping and pong that keep a lobby socket alive.
//! * [`relay`]: the match relay's tickets and route, for matches that
//!   cannot connect directly.
//! * [`limits`]: the sizes and counts of the contract.
//! * [`query_param`]: how every host and the page read a query string.
//!
//! Each frame has one encoder (used by the side that sends it) and one
//! parser (used by the side that receives it), side by side, and the tests
//! hold each pair together. The page parses strictly (exact shapes); the
//! service parses tolerantly (unknown fields ignored, relayed data passed on
//! byte for byte) and answers a bad frame with an `error` frame. Nothing
//! here panics on any input. The contract is written up for people in
//! `docs/signaling.md`.
//!
//! ```
//! use signaling_protocol::{lobby_out, LobbyRequest, PeerId};
//!
//! // The page says hello with an id it drew and the name the player typed...
//! let id = PeerId::parse("AAAAAAAAAAAA").unwrap();
//! let frame = lobby_out::hello(&id, "  Ada ");
//! // ...and the lobby reads it back with the same rules, the name cleaned.
//! match LobbyRequest::parse(&frame) {
//!     Ok(LobbyRequest::Hello { id: got, nick }) => {
//!         assert_eq!(got, id);
//!         assert_eq!(nick, "Ada");
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod heartbeat;
pub mod id;
mod json;
pub mod limits;
pub mod lobby;
pub mod members;
pub mod peer;
mod query;
pub mod relay;
pub mod room;
pub mod text;

pub use id::{
    InvalidRoomCode, PeerId, PlayerTag, RoomCode, ID_LEN, ROOM_CODE_ALPHABET, ROOM_CODE_LEN,
    TAG_LEN,
};
pub use lobby::{
    lobby_out, lobby_server, relayed_data, relayed_text, LobbyDirectory, LobbyFill, LobbyRequest,
    LobbyServerMsg, PlayerStatus, RequestError, RosterEntry,
};
pub use members::{
    member_out, member_server, CapacityError, JoinRole, MemberEntry, MemberId, MemberRequest,
    MemberRequestError, MemberRole, MemberRoomCreated, MemberServerMsg, RoomCapacity,
};
pub use peer::{
    DeclineReason, GameName, InviteCode, InviteRefusal, PeerMsg, Proof, Vouch, PARTY_MAX_PEOPLE,
};
pub use query::query_param;
pub use relay::{relay_out, relay_path, relay_server, MemberPair, RelayTicket, RelayTicketMsg};
pub use room::{
    error_body, room_out, room_server, Role, RoomCreated, RoomRequest, RoomServerMsg, Signal,
    SignalKind,
};
pub use text::{clean_chat, clean_name, NameError, CHAT_MAX_CHARS, NAME_MAX_CHARS};

/// Why a received message was refused by the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageError {
    /// Over the size cap.
    TooLarge,
    /// Not JSON, or not one of the known shapes.
    Malformed,
    /// The right shape with a bad value (an id, a code, a status).
    BadValue,
}
