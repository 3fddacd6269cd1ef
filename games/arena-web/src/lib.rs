//! `arena-web`: the arena (`games/arena`) in the browser, on the web shell.
//!
//! The arena is host-authoritative (the `authority` crate), not lock-step,
//! so it does not use the shell's lock-step match driver: it brings its
//! own game slot ([`slot::ArenaSlot`], a `web_shell::shell::GameSlot`).
//! The lobby, challenges, room link and match link are the shell's. Once
//! the match link is open:
//!
//! - the room's host (the challenger) hosts the arena. Its simulation runs
//!   in a dedicated Web Worker ([`host_worker::HostWorker`]): the page posts
//!   it the guest's datagrams and its own player's controls
//!   ([`bridge::ToWorker`]) and gets back the datagrams to send and the
//!   state of every tick to draw ([`bridge::FromWorker`]);
//! - the other page is its guest (`authority::Guest`): it shows the host's
//!   snapshots interpolated, and its own ship predicted through the host's
//!   movement code.
//!
//! Local play is the player against a bot, on the page. Everything but the
//! worker and the page's entry point is plain Rust with native tests (the
//! host then runs in-process, [`slot::InlineHost`]).
#![warn(missing_docs)]

pub mod bridge;
pub mod host_worker;
pub mod scene;
pub mod slot;

#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub use web::{match_worker_slot, page_slot};
