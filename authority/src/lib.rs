//! `authority`: the host-authoritative sync model, sans-IO.
//!
//! For games that are not deterministic (floats, physics engines, anything
//! that would drift between machines), where lock-step (the `lockstep`
//! crate) cannot work. One peer, the host, runs the only real simulation;
//! up to [`MAX_GUESTS`] guests send it commands and show what it sends
//! back:
//!
//! - **snapshots** of what each player sees, every few ticks, as
//!   **deltas** against the newest snapshot the guest acknowledged (a
//!   generic codec over any `serde` type, [`delta`]), on the unreliable
//!   channel; whole snapshots reliably on joining, and after
//!   [`WHOLE_AFTER`] snapshots without an acknowledgement;
//! - **events**, numbered per guest and repeated on every snapshot until
//!   acknowledged: each arrives exactly once, in order;
//! - **congestion**: while a guest's link has more than [`BACKLOG_LIMIT`]
//!   bytes queued ([`Transport::send_backlog`](lockstep::Transport::send_backlog)),
//!   its snapshots are skipped rather than queued; its events wait;
//! - on the guest, an **interpolation** buffer at a delay adapted to the
//!   measured interval and jitter of snapshots (40–250 ms,
//!   [`Interpolation`]), and **prediction** of the player's own entity
//!   with blended or snapped corrections ([`Predictor`]);
//! - join, leave, late join (a whole snapshot, then deltas) and rejoin of
//!   the same seat with a token.
//!
//! The same habits as `lockstep`: no clock (time is [`Millis`], passed in),
//! no socket (bytes in and out through method calls, over any
//! [`Transport`](lockstep::Transport)), no randomness of its own (the host's
//! token generator is seeded by the caller). The design and the wire
//! format are in `docs/authority.md`.
//!
//! # Quick start
//!
//! A game where each player moves a counter, over the in-process loopback.
//!
//! ```
//! use authority::{AuthoritativeGame, Guest, GuestEvent, Host, HostConfig, HostLinks, Recipients, Seat};
//! use lockstep::Millis;
//! use serde::{Deserialize, Serialize};
//!
//! // The host's whole state: one counter per seat.
//! #[derive(Default)]
//! struct Counters(Vec<(Seat, i32)>);
//!
//! // What a player sees: every counter, as entities with an `id`.
//! #[derive(Clone, Serialize, Deserialize)]
//! struct View { counters: Vec<Counter> }
//! #[derive(Clone, Serialize, Deserialize)]
//! struct Counter { id: Seat, value: i32 }
//!
//! impl AuthoritativeGame for Counters {
//!     type Snapshot = View;
//!     type Command = i32; // add this to my counter
//!     type Event = Seat;  // someone reached 10
//!     const GAME_ID: u64 = 0xC0_FFEE;
//!     fn add_player(&mut self, seat: Seat) { self.0.push((seat, 0)); }
//!     fn remove_player(&mut self, seat: Seat) { self.0.retain(|(s, _)| *s != seat); }
//!     fn command(&mut self, seat: Seat, add: i32) {
//!         // Commands come from the network: clamp what a player may do.
//!         for (s, v) in &mut self.0 {
//!             if *s == seat { *v = v.saturating_add(add.clamp(-1, 1)); }
//!         }
//!     }
//!     fn advance(&mut self, _dt_ms: u32) {}
//!     fn drain_events(&mut self, _out: &mut Vec<(Recipients, Seat)>) {}
//!     fn snapshot(&self, _seat: Seat) -> View {
//!         View { counters: self.0.iter().map(|&(id, value)| Counter { id, value }).collect() }
//!     }
//! }
//!
//! // Cannot fail: the default configuration is valid.
//! let mut host = Host::new(Counters::default(), HostConfig::new(7)).expect("valid config");
//! let mut links = HostLinks::new();
//! let (host_end, mut guest_end) = loopback::pair();
//! links.add(&mut host, Millis(0), host_end);
//! let mut guest = Guest::<Counters>::new(Millis(0), None);
//!
//! for ms in (0..2000).step_by(10) {
//!     let now = Millis(ms);
//!     // Each side: datagrams in, timers run, datagrams out.
//!     authority::pump_guest(&mut guest, now, &mut guest_end);
//!     links.pump(&mut host, now);
//!     while let Some(event) = guest.poll_event() {
//!         if let GuestEvent::Welcomed { seat, .. } = event {
//!             assert_eq!(seat, 1); // seat 0 is the host's own player
//!         }
//!     }
//!     while host.poll_event().is_some() {}
//!     if ms == 500 {
//!         guest.command(&1); // sent reliably, applied on the next tick
//!     }
//! }
//! // The guest sees the host's state: its counter went up by one.
//! let (_, _, view) = guest.latest().expect("snapshots arrived");
//! assert_eq!(view.counters.iter().find(|c| c.id == 1).map(|c| c.value), Some(1));
//! ```
//!
//! # Panic policy
//!
//! A panic in this crate is a bug in this crate. Nothing a peer sends and
//! nothing a caller passes at run time may make it panic: bytes that do not
//! decode strictly are dropped (guest) or end that guest's visit (host),
//! and the test `garbage_never_panics` feeds random and mutated datagrams
//! through every entry point. Logging goes through `log` and never includes
//! payloads or tokens.
#![warn(missing_docs)]

pub mod delta;
mod drive;
pub mod game;
pub mod guest;
pub mod host;
pub mod interp;
pub mod predict;
pub mod rng;
pub mod wire;

pub use drive::{exchange_in_memory, pump_guest, HostLinks, Way};
pub use game::{AuthoritativeGame, Predict, Recipients, Seat};
pub use guest::{EndReason, Guest, GuestEvent, GuestStats};
pub use host::{
    ConfigError, Host, HostConfig, HostEvent, LeaveReason, LinkId, SeatStats, Transmit,
    BACKLOG_LIMIT, MAX_GUESTS, WHOLE_AFTER,
};
pub use interp::{Bracket, Interpolation};
pub use lockstep::Millis;
pub use predict::{Correction, Predictor};
