//! Peer ids and room codes, as the signalling service defines them (one
//! definition, in `signaling-protocol`, for the page and the service).

pub use signaling_protocol::id::{PeerId, RoomCode, ID_LEN, ROOM_CODE_ALPHABET, ROOM_CODE_LEN};
