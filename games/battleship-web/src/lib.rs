//! `battleship-web`: Battleship (`games/battleship`) in the browser, on the
//! web shell.
//!
//! Battleship is a hidden-state game: neither page may know the other's
//! fleet, so there is no shared simulation at all, neither lock-step nor
//! host-authoritative. Each page places its own fleet at random and keeps
//! it (`battleship::Board`, never serialised); the match link carries only
//! shots and their outcomes (`battleship::Msg`), on the reliable channel.
//! Like the arena, it brings its own game slot ([`slot::BattleshipSlot`])
//! to the shell, which supplies the lobby, the challenge and the link.
#![warn(missing_docs)]

pub mod slot;

#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub use web::page_slot;
