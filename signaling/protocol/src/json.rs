//! Reading and writing JSON frames.
//!
//! Two readers, for the two sides of the contract:
//!
//! * The page reads the service's frames and its peers' messages
//!   **strictly** ([`typed`]): exact key sets, unknown fields and unknown
//!   types refused.
//! * The service reads the page's frames **tolerantly** ([`Incoming`]):
//!   fields stay raw JSON, unknown fields are ignored, and a relayed `data`
//!   is passed on byte for byte.
//!
//! Shapes are checked by hand over a parsed `serde_json::Value` rather than
//! with derived, internally tagged enums: that keeps the rules in one place
//! and keeps serde's buffering of tagged enums out of the page's wasm.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::MessageError;

/// Serialises a value made only of strings, numbers, raw JSON and lists of
/// those.
pub(crate) fn to_json<T: Serialize>(value: &T) -> String {
    // Every type passed here has string keys and plain fields only, which
    // serde_json always writes; an empty object stands in should that ever
    // change, rather than a panic.
    serde_json::to_string(value).unwrap_or_else(|_| String::from("{}"))
}

/// A JSON object whose keys are exactly `required` plus any of `optional`.
pub(crate) fn shaped<'a>(
    v: &'a Value,
    required: &[&str],
    optional: &[&str],
) -> Result<&'a Map<String, Value>, MessageError> {
    let obj = v.as_object().ok_or(MessageError::Malformed)?;
    let known = |k: &str| required.contains(&k) || optional.contains(&k);
    if !obj.keys().all(|k| known(k)) || !required.iter().all(|k| obj.contains_key(*k)) {
        return Err(MessageError::Malformed);
    }
    Ok(obj)
}

/// A string field of a shaped object.
pub(crate) fn string<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a str, MessageError> {
    obj.get(key)
        .and_then(Value::as_str)
        .ok_or(MessageError::Malformed)
}

/// The `type` of a message object, with the other keys checked against the
/// table of shapes `(type, required, optional)`.
pub(crate) fn typed<'a>(
    v: &'a Value,
    shapes: &[(&'a str, &[&str], &[&str])],
) -> Result<(&'a str, &'a Map<String, Value>), MessageError> {
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or(MessageError::Malformed)?;
    let (name, required, optional) = shapes
        .iter()
        .find(|(t, ..)| *t == kind)
        .ok_or(MessageError::Malformed)?;
    let mut req: Vec<&str> = required.to_vec();
    req.push("type");
    Ok((name, shaped(v, &req, optional)?))
}

/// Parses a frame as JSON.
pub(crate) fn parse_json(text: &str) -> Result<Value, MessageError> {
    serde_json::from_str(text).map_err(|_| MessageError::Malformed)
}

/// One incoming frame on the service's side, read as a JSON object whose
/// fields stay raw.
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
