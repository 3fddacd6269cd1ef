//! `web-shell`: the game-agnostic browser shell.
//!
//! Everything the page decides is pure Rust, tested natively: names and
//! chat text ([`text`]), ids ([`id`]), rate limits ([`rate`]), message
//! shapes ([`protocol`]), the mesh offer and retry rules ([`mesh`]),
//! reconnect backoff ([`backoff`]), the game canvas's size ([`canvas`]), the
//! page's address options ([`options`]), what it reads from the browser's
//! objects ([`js`]), invite links ([`invite`]), the challenge reducer
//! ([`challenge`]) and the party reducer beside it ([`party`]), the screen machine ([`screens`]), the match's frame
//! schedule and messages ([`play`]), the connection quality shown to a
//! player ([`quality`]), the lobby client ([`lobby`]), and the
//! sans-IO [`shell::Shell`] that owns them all with the room link and the
//! match driver: one `Input` in, `Output`s out. A game plugs in through
//! [`front_end::FrontEnd`].
//!
//! On `wasm32` the `web` module carries out the shell's outputs with the
//! browser's APIs (the DOM and canvas, sockets and HTTP, peer connections
//! through `webrtc-transport`) and feeds back what happens; it decides
//! nothing itself. See `docs/web-shell.md`.
#![warn(missing_docs)]

pub mod backoff;
pub mod canvas;
pub mod challenge;
pub mod front_end;
pub mod id;
pub mod invite;
pub mod js;
pub mod lobby;
pub mod mesh;
pub mod options;
pub mod pad;
pub mod party;
pub mod play;
pub mod protocol;
pub mod quality;
pub mod rate;
pub mod relay;
pub mod replay;
pub mod screens;
pub mod shell;
pub mod sound;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod touch;

#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub use web::{run, run_game, wake};
