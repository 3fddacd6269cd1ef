//! The browser side (wasm32 only): carries out the [`Shell`]'s outputs
//! and feeds it what the browser reports. Split by kind of I/O: the clock,
//! randomness, storage and console ([`platform`]), the page's elements and
//! canvas ([`dom`]), sockets and HTTP ([`net`]), peer connections
//! ([`rtc`]), both ends of the match worker ([`worker`]), and the app that
//! ties them to the shell and wires the page's events ([`app`]). Nothing
//! here decides anything a native test could check: that is the shell's,
//! which reads what it needs of the browser's objects through
//! [`JsRead`](crate::js::JsRead).
//!
//! [`Shell`]: crate::shell::Shell

pub(crate) mod app;
mod dom;
mod net;
mod platform;
mod rtc;
mod worker;

pub use app::{run, run_game, wake};
