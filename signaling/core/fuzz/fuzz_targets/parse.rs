//! Every parser of the signalling contract, on any text: never a panic; a
//! name the lobby accepts is already clean (cleaning it again changes
//! nothing); and an attachment that reads back writes back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use signaling_core::{LobbyAttachment, RoomAttachment};
use signaling_protocol::{
    clean_chat, clean_name, LobbyRequest, LobbyServerMsg, MemberRequest, MemberRoomCreated,
    MemberServerMsg, PeerMsg, RoomCapacity, RoomCreated, RoomRequest, Signal,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    if let Ok(LobbyRequest::Hello { nick, .. }) = LobbyRequest::parse(text) {
        assert_eq!(clean_name(&nick).as_deref(), Ok(nick.as_str()));
    }
    let _ = RoomRequest::parse(text);
    let _ = LobbyServerMsg::parse(text);
    let _ = Signal::parse_room(text);
    let _ = RoomCreated::parse(text);
    let _ = MemberRequest::parse(text);
    let _ = MemberServerMsg::parse(text);
    let _ = MemberRoomCreated::parse(text);
    let _ = RoomCapacity::from_query(text);
    let _ = PeerMsg::parse(text);
    if let Ok(name) = clean_name(text) {
        assert_eq!(clean_name(&name).as_deref(), Ok(name.as_str()));
    }
    let _ = clean_chat(text);
    if let Some(a) = LobbyAttachment::from_json(text) {
        assert_eq!(LobbyAttachment::from_json(&a.to_json()), Some(a));
    }
    if let Some(a) = RoomAttachment::from_json(text) {
        assert_eq!(RoomAttachment::from_json(&a.to_json()), Some(a));
    }
});
