//! `lockstep`: a sans-IO engine for deterministic peer-to-peer netplay.
//!
//! A game implements [`DeterministicGame`]; a transport implements
//! [`Transport`]. A [`Session`] plays one side of a match of 2 to 8 players
//! in delay-based lock-step: every player runs the same simulation and
//! sends only its inputs, to every other player over its own link, each
//! tick runs when every input for it is known, and state hashes catch any
//! divergence. Up to 16 spectators
//! ([`SessionConfig::spectator`]) watch through the host, which sends
//! them the confirmed inputs; no player ever waits for one. The engine never reads a clock, never draws randomness and
//! never touches a socket: time arrives as [`Millis`], seeds arrive as numbers
//! and bytes arrive through method calls. That keeps every behaviour
//! reproducible in tests that run minutes of network time in milliseconds.
//!
//! Modules: [`session`] (the state machine), [`wire`] (the messages and
//! their strict codec), [`input_log`] (recorded matches and replay),
//! [`sync_test`] (rollback safety without a network), [`parts`] (named
//! parts of a state, what a desync names, and the desync report),
//! [`hash`] (FNV-1a over canonical bytes), [`game`], [`transport`], [`time`].
//!
//! # Quick start
//!
//! Two sessions of a tiny game over an in-memory link that hands datagrams
//! across at once (the `loopback` crate is the same thing as a
//! [`Transport`]; with a transport, [`Session::pump`] does the shuttling).
//!
//! ```
//! use lockstep::{DeterministicGame, Event, Fnv1a, LinkState, Millis, PeerId, Session, SessionConfig};
//!
//! // The game: a running sum of both players' inputs. Integers only.
//! #[derive(Clone)]
//! struct Sum(u64);
//!
//! impl DeterministicGame for Sum {
//!     type Input = u8; // one pad byte per player
//!     const BUILD_ID: u64 = 0x5e55_1011;
//!     fn new(seed: u64, _players: u8) -> Self {
//!         Sum(seed)
//!     }
//!     fn step(&mut self, inputs: &[u8]) {
//!         let mixed = u64::from(inputs[0]) + 3 * u64::from(inputs[1]);
//!         self.0 = self.0.wrapping_mul(31).wrapping_add(mixed);
//!     }
//!     fn state_hash(&self) -> u64 {
//!         let mut h = Fnv1a::new();
//!         h.write_u64(self.0);
//!         h.finish()
//!     }
//! }
//!
//! // The host picks the seed and a 2-tick input delay; the guest adopts both.
//! // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
//! let mut host = Session::<Sum>::new(SessionConfig::host(7, 2)).expect("valid config");
//! // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
//! let mut guest = Session::<Sum>::new(SessionConfig::guest()).expect("valid config");
//!
//! // Each side names its link to the other (here by the other's slot) and
//! // says when it opens: the Hellos are queued then.
//! let (to_guest, to_host) = (PeerId(1), PeerId(0));
//! host.handle_link_state(Millis(0), to_guest, LinkState::Open);
//! guest.handle_link_state(Millis(0), to_host, LinkState::Open);
//!
//! for frame in 0..600u64 {
//!     let now = Millis(frame * 1000 / 60); // the caller's clock, passed in
//!     // Once per frame: each side samples its pad only if it needs one.
//!     host.advance_frame(now, || (frame % 3) as u8);
//!     guest.advance_frame(now, || 1);
//!     // After every call, drain what the sessions want to send ...
//!     // (each datagram names the link it goes on; there is one here).
//!     while let Some((_link, channel, bytes)) = host.poll_transmit() {
//!         guest.handle_datagram(now, to_host, channel, &bytes);
//!     }
//!     while let Some((_link, channel, bytes)) = guest.poll_transmit() {
//!         host.handle_datagram(now, to_guest, channel, &bytes);
//!     }
//!     // ... and what happened.
//!     while let Some(event) = host.poll_event() {
//!         if let Event::Ended(outcome) = event {
//!             panic!("unexpected end: {outcome:?}");
//!         }
//!     }
//!     while guest.poll_event().is_some() {}
//! }
//!
//! // Both sides simulated the same ticks to the same state.
//! assert_eq!(host.tick(), guest.tick());
//! assert_eq!(host.game().map(Sum::state_hash), guest.game().map(Sum::state_hash));
//!
//! // The match can be exported and replayed offline to the same hash.
//! // Cannot fail: u8 inputs always encode with postcard.
//! let bytes = host.input_log().to_bytes().expect("u8 inputs encode");
//! // Cannot fail: the bytes were produced by to_bytes just above.
//! let log = lockstep::InputLog::<u8>::from_bytes(&bytes).expect("just written");
//! assert_eq!(log.replay::<Sum>(), Ok(host.game().map_or(0, Sum::state_hash)));
//! ```
//!
//! The calling contract (what to call when, and draining after every call)
//! is on [`Session`]; outcomes and the invalid-data policy are in
//! `docs/engine.md`; the byte layout of every message is in
//! `docs/protocol.md`; the rules a game must follow are in
//! `docs/determinism.md`.
//!
//! Panic policy: a panic in this crate is a bug in this crate. Nothing a peer
//! sends and nothing a caller passes at run time may make it panic. Logging
//! goes through the `log` crate (debug, info, warn, error); the crate
//! installs no logger and never logs payloads.
//!
//! Rollback: with [`SessionConfig::prediction_window`] above 0 (or
//! [`SessionConfig::rollback`] for 8 ticks), a session runs ahead on
//! predicted remote inputs and, when the real input differs, restores the
//! last correct state (games are `Clone`) and re-simulates to the present
//! in the same frame. Lock-step is the window of 0, the default. A side
//! that runs ahead slows gently (time synchronisation), and the host can
//! pick the input delay from round trips measured in the handshake
//! ([`SessionConfig::input_delay_from_rtt`]). [`SyncTest`] proves a game
//! rollback-safe without a network.
#![no_std]
#![warn(missing_docs)]

// The engine needs allocation (vectors, queues) and nothing else of the
// standard library: without std it cannot read a clock, open a socket or
// start a thread (docs/engine.md, "Portability"). Unit tests may use std.
extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod game;
pub mod hash;
pub mod input_log;
pub mod parts;
pub mod session;
pub mod sync_test;
pub mod time;
pub mod transport;
pub mod wire;

pub use game::DeterministicGame;
pub use hash::Fnv1a;
pub use input_log::{InputLog, LogDecodeError, ReplayError};
pub use parts::report::DesyncReport;
pub use parts::{DesyncParts, StatePart};
pub use session::{
    delay_for_round_trips, ConfigError, Event, Frame, Outcome, PeerId, Role, Session,
    SessionConfig, SessionStats, Version, Violation, MAX_ADAPTIVE_DELAY,
};
pub use sync_test::{SyncTest, SyncTestError};
pub use time::Millis;
pub use transport::{Channel, LinkState, Transport, TransportError};
pub use wire::{DecodeError, RejoinRefusal, WatchRefusal, MAX_SPECTATORS, PROTOCOL_VERSION};
