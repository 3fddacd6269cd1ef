//! `lockstep`: a sans-IO engine for deterministic peer-to-peer netplay.
//!
//! A game implements [`DeterministicGame`]; a transport implements
//! [`Transport`]. The engine never reads a clock, never draws randomness and
//! never touches a socket: time arrives as [`Millis`], seeds arrive as numbers
//! and bytes arrive through method calls. That keeps every behaviour
//! reproducible in tests that run minutes of network time in milliseconds.
//!
//! Panic policy: a panic in this crate is a bug in this crate. Nothing a peer
//! sends and nothing a caller passes at run time may make it panic.
#![warn(missing_docs)]

pub mod game;
pub mod hash;
pub mod time;
pub mod transport;
pub mod wire;

pub use game::DeterministicGame;
pub use hash::Fnv1a;
pub use time::Millis;
pub use transport::{Channel, LinkState, Transport, TransportError};
