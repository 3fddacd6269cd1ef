//! Writing the machines' own JSON (attachments and log lines); every frame
//! on the wire is written by `signaling-protocol`.

use serde::Serialize;

/// Serialises a value made only of strings, numbers and lists of those.
pub(crate) fn to_json<T: Serialize>(value: &T) -> String {
    // Every type passed here has string keys and plain fields only, which
    // serde_json always writes; an empty object stands in should that ever
    // change, rather than a panic.
    serde_json::to_string(value).unwrap_or_else(|_| String::from("{}"))
}
