//! The caps on live rooms: the service's ledger ([`ALL_ROOMS_NAME`], for
//! `MAX_ROOMS`) and, for the per-address cap, one small Durable Object per
//! client address key ([`signaling_core::address_key`]: IPv4 as is, IPv6 by its
//! /64), `idFromName` of that key, holding the codes of the live rooms
//! created from it and when each expires.
//!
//! `POST /rooms` reserves a place here before creating the room (429 when
//! the address already holds `ROOMS_PER_IP` live rooms); the room's own
//! object gives the place back when the room ends (`done`, or its TTL), and
//! an entry past its expiry no longer counts in any case. The ledger is
//! deleted, storage and alarm, once it is empty or its last room expired,
//! so nothing about an address outlives its rooms. The room objects keep
//! only this object's id (a hash, not the address) to find it again.

// `#[durable_object]` generates undocumented JavaScript bindings.
#![allow(missing_docs)]

use std::collections::BTreeMap;

use signaling_core::{Level, LogRecord, Millis};
use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

use crate::host::{self, error_response, json_response, Logger};

/// The name of the service's own ledger, which holds every live room for
/// the cap on rooms alive at once (`MAX_ROOMS`). No address key looks like
/// it. One object for the whole service: every `POST /rooms` passes
/// through it, so it bounds the rate of room creation to what one Durable
/// Object serves (hundreds a second), and it rewrites its whole ledger
/// (about 24 bytes a room) on each one.
pub const ALL_ROOMS_NAME: &str = "all-rooms";

/// Storage key of the ledger.
const LEDGER_KEY: &str = "rooms";

/// The live rooms of one address: code → expiry (ms since the epoch).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger(pub BTreeMap<String, u64>);

impl Ledger {
    /// Reads the stored JSON (an empty ledger if missing or unreadable).
    #[must_use]
    pub fn from_json(text: Option<&str>) -> Ledger {
        Ledger(
            text.and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or_default(),
        )
    }

    /// As JSON, for storage.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "{}".to_owned())
    }

    /// Forgets rooms expired at `now`.
    pub fn prune(&mut self, now: Millis) {
        self.0.retain(|_, expiry| *expiry > now.0);
    }

    /// Takes a place for `code` until `expiry` unless `cap` live rooms are
    /// already held (expired ones do not count). A repeated code just
    /// updates its expiry.
    pub fn reserve(&mut self, code: &str, expiry: Millis, now: Millis, cap: usize) -> bool {
        self.prune(now);
        if !self.0.contains_key(code) && self.0.len() >= cap {
            return false;
        }
        self.0.insert(code.to_owned(), expiry.0);
        true
    }

    /// Gives `code`'s place back.
    pub fn release(&mut self, code: &str) {
        self.0.remove(code);
    }

    /// When the last place expires, if any is held.
    #[must_use]
    pub fn last_expiry(&self) -> Option<Millis> {
        self.0.values().max().copied().map(Millis)
    }
}

/// The object holding one address's [`Ledger`].
#[durable_object]
pub struct AddressRoomsObject {
    state: State,
    env: Env,
}

impl DurableObject for AddressRoomsObject {
    fn new(state: State, env: Env) -> Self {
        AddressRoomsObject { state, env }
    }

    /// `POST /reserve?code=C&expires=MS&cap=N` (201, or 429 when full) and
    /// `POST /release?code=C` (204), from the entry Worker and the room
    /// objects only.
    async fn fetch(&self, req: Request) -> Result<Response> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        let url = req.url()?;
        let query = url.query().unwrap_or("");
        let param = |name| signaling_protocol::query_param(query, name);
        let number = |name| param(name).and_then(|v| v.parse::<u64>().ok());
        let Some(code) = param("code").filter(|c| signaling_core::RoomCode::parse(c).is_some())
        else {
            return error_response(400, "bad request");
        };
        let now = host::now();
        let mut ledger = self.load().await?;
        let answer = match url.path() {
            "/reserve" => {
                let (Some(expiry), Some(cap)) = (number("expires"), number("cap")) else {
                    return error_response(400, "bad request");
                };
                let cap = usize::try_from(cap).unwrap_or(usize::MAX);
                if !ledger.reserve(code, Millis(expiry), now, cap) {
                    logger.record(&LogRecord::new(Level::Warn, "room.too_many_from_client"));
                    return error_response(
                        429,
                        "too many open rooms from your address; try again when one ends",
                    );
                }
                json_response(201, "{}".to_owned())
            }
            "/release" => {
                ledger.release(code);
                ledger.prune(now);
                Ok(Response::empty()?.with_status(204))
            }
            _ => return error_response(404, "not found"),
        };
        self.store(&ledger, &logger).await;
        answer
    }

    /// The last room expired: forget everything.
    async fn alarm(&self) -> Result<Response> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        let mut ledger = self.load().await?;
        ledger.prune(host::now());
        self.store(&ledger, &logger).await;
        Response::empty()
    }
}

impl AddressRoomsObject {
    async fn load(&self) -> Result<Ledger> {
        let text: Option<String> = self.state.storage().get(LEDGER_KEY).await?;
        Ok(Ledger::from_json(text.as_deref()))
    }

    /// Stores the ledger with an alarm at its last expiry, or deletes
    /// everything when it is empty.
    async fn store(&self, ledger: &Ledger, logger: &Logger) {
        let storage = self.state.storage();
        match ledger.last_expiry() {
            None => {
                if let Err(e) = storage.delete_alarm().await {
                    logger.failure("storage.delete_alarm_failed", &e);
                }
                if let Err(e) = storage.delete_all().await {
                    logger.failure("storage.delete_failed", &e);
                }
            }
            Some(last) => {
                if let Err(e) = storage.put(LEDGER_KEY, ledger.to_json()).await {
                    logger.failure("storage.put_failed", &e);
                }
                let when = worker::js_sys::Date::new(&(last.0 as f64).into());
                if let Err(e) = storage.set_alarm(worker::ScheduledTime::new(when)).await {
                    logger.failure("storage.alarm_failed", &e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_cap_live_rooms() {
        let mut l = Ledger::default();
        assert!(l.reserve("AAAAAA", Millis(100), Millis(0), 2));
        assert!(l.reserve("BBBBBB", Millis(200), Millis(0), 2));
        assert!(!l.reserve("CCCCCC", Millis(300), Millis(0), 2));
        // Ended rooms give their place back; expired ones stop counting.
        l.release("AAAAAA");
        assert!(l.reserve("CCCCCC", Millis(300), Millis(0), 2));
        assert!(!l.reserve("DDDDDD", Millis(300), Millis(199), 2));
        assert!(l.reserve("DDDDDD", Millis(300), Millis(200), 2));
        assert_eq!(l.last_expiry(), Some(Millis(300)));
        let again = Ledger::from_json(Some(&l.to_json()));
        assert_eq!(again, l);
        assert_eq!(Ledger::from_json(Some("junk")), Ledger::default());
        l.prune(Millis(300));
        assert_eq!(l.last_expiry(), None);
    }
}
