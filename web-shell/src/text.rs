//! Names and chat text: cleaning and validation, shared with the lobby (one
//! definition, in `signaling-protocol`, so a name the page accepts is one
//! the lobby accepts and chat is cleaned by the same character rule).

pub use signaling_protocol::text::{
    clean_chat, clean_name, display_name, incoming_chat, is_bidi_control,
    is_forbidden_char as is_forbidden, is_invisible_format, is_tag, looks_rtl, outgoing_chat,
    tag_allowed_after, ChatError, NameError, CHAT_MAX_CHARS, NAME_MAX_CHARS,
};
