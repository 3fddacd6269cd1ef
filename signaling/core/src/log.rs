//! Structured log records: one JSON object per line with a `level`.
//!
//! Field values can only be numbers, `'static` strings and room codes, so a
//! nickname, a payload or an IP address cannot end up in a record by
//! accident: none of those is `'static`.

use std::fmt::Write as _;

use crate::RoomCode;

/// Severity of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Detail for debugging (every frame, every socket).
    Debug,
    /// Normal life events (joins, rooms created and ended).
    Info,
    /// Refusals caused by a client (caps, bad messages, timeouts).
    Warn,
    /// Something wrong on our side.
    Error,
}

impl Level {
    /// `"debug"`, `"info"`, `"warn"` or `"error"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }

    /// Reads a level name as written by [`Level::as_str`].
    #[must_use]
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "debug" => Some(Level::Debug),
            "info" => Some(Level::Info),
            "warn" => Some(Level::Warn),
            "error" => Some(Level::Error),
            _ => None,
        }
    }
}

/// A field value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogValue {
    /// A number.
    U64(u64),
    /// A fixed word chosen by our code.
    Str(&'static str),
    /// A room code.
    Code(RoomCode),
}

impl From<u64> for LogValue {
    fn from(v: u64) -> Self {
        LogValue::U64(v)
    }
}

impl From<usize> for LogValue {
    fn from(v: usize) -> Self {
        LogValue::U64(v as u64)
    }
}

impl From<u16> for LogValue {
    fn from(v: u16) -> Self {
        LogValue::U64(u64::from(v))
    }
}

impl From<&RoomCode> for LogValue {
    fn from(v: &RoomCode) -> Self {
        LogValue::Code(v.clone())
    }
}

impl From<&'static str> for LogValue {
    fn from(v: &'static str) -> Self {
        LogValue::Str(v)
    }
}

impl From<RoomCode> for LogValue {
    fn from(v: RoomCode) -> Self {
        LogValue::Code(v)
    }
}

/// One log record: a level, an event name and some fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    /// Severity.
    pub level: Level,
    /// What happened, as a dotted name (`"lobby.joined"`).
    pub event: &'static str,
    /// Extra fields, in order.
    pub fields: Vec<(&'static str, LogValue)>,
}

impl LogRecord {
    /// A record with no fields.
    #[must_use]
    pub fn new(level: Level, event: &'static str) -> LogRecord {
        LogRecord {
            level,
            event,
            fields: Vec::new(),
        }
    }

    /// Adds a field.
    #[must_use]
    pub fn with(mut self, name: &'static str, value: impl Into<LogValue>) -> LogRecord {
        self.fields.push((name, value.into()));
        self
    }

    /// The record as one line of JSON (no trailing newline):
    /// `{"level":"info","event":"room.created","code":"K7M2QX"}`.
    #[must_use]
    pub fn to_json_line(&self) -> String {
        let mut out = String::with_capacity(64);
        out.push_str("{\"level\":\"");
        out.push_str(self.level.as_str());
        out.push_str("\",\"event\":");
        push_str(&mut out, self.event);
        for (name, value) in &self.fields {
            out.push(',');
            push_str(&mut out, name);
            out.push(':');
            match value {
                LogValue::U64(n) => {
                    let _ = write!(out, "{n}");
                }
                LogValue::Str(s) => push_str(&mut out, s),
                LogValue::Code(c) => push_str(&mut out, c.as_str()),
            }
        }
        out.push('}');
        out
    }
}

fn push_str(out: &mut String, s: &str) {
    out.push_str(&crate::msg::to_json(&s));
}
