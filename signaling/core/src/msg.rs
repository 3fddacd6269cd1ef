//! JSON shapes shared by the machines, and a tolerant reader for incoming
//! frames.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;

/// Serialises a value made only of strings, numbers, raw JSON and lists of
/// those.
pub(crate) fn to_json<T: Serialize>(value: &T) -> String {
    // Unreachable failure: every type passed here has string keys and
    // serialisable fields only, which serde_json always writes successfully.
    serde_json::to_string(value).expect("plain structs always serialise")
}

#[derive(Serialize)]
pub(crate) struct ErrorBody<'a> {
    pub error: &'a str,
}

#[derive(Serialize)]
pub(crate) struct RoomCreated<'a> {
    pub code: &'a str,
    pub ttl: u64,
}

#[derive(Serialize)]
pub(crate) struct TypeOnly<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
}

#[derive(Serialize)]
pub(crate) struct ErrorMsg<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub reason: &'a str,
}

/// `{"type":"error","reason":...}`.
pub(crate) fn error_msg(reason: &str) -> String {
    to_json(&ErrorMsg {
        kind: "error",
        reason,
    })
}

/// One incoming frame, read as a JSON object whose fields stay raw.
pub(crate) struct Incoming<'a> {
    fields: BTreeMap<String, &'a RawValue>,
}

impl<'a> Incoming<'a> {
    /// Reads `text` as one JSON object; `None` when it is anything else.
    pub(crate) fn parse(text: &'a str) -> Option<Incoming<'a>> {
        // Reject non-objects before building the map, so `[1]` or `"x"` are
        // refused quietly rather than by an error string we do not control.
        if !text.trim_start().starts_with('{') {
            return None;
        }
        serde_json::from_str::<BTreeMap<String, &'a RawValue>>(text)
            .ok()
            .map(|fields| Incoming { fields })
    }

    /// A field that is a JSON string.
    pub(crate) fn str_field(&self, name: &str) -> Option<String> {
        let raw = self.fields.get(name)?;
        serde_json::from_str::<String>(raw.get()).ok()
    }

    /// A field's raw JSON, untouched.
    pub(crate) fn raw_field(&self, name: &str) -> Option<&'a RawValue> {
        self.fields.get(name).copied()
    }

    /// The `type` field, when it is a string.
    pub(crate) fn kind(&self) -> Option<String> {
        self.str_field("type")
    }
}
