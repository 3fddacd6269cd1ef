//! The handshake: Hellos exchanged and checked, the guest adopting the
//! host's parameters, and the host measuring round trips when it picks the
//! input delay from them.

use alloc::vec::Vec;

use serde::{de::DeserializeOwned, Serialize};

use super::config::{Role, SessionConfig, HANDSHAKE_PINGS};
use super::hash_book::HashBook;
use super::outcome::Version;
use super::ping::Pinger;
use super::sender::Outbox;
use super::time_sync::MS_PER_3_TICKS;
use crate::time::Millis;
use crate::wire::{Hello, Message, MAX_INPUT_DELAY, PROTOCOL_VERSION};

/// The parameters of a match: the host's, adopted by the guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Params {
    /// The seed passed to `DeterministicGame::new`.
    pub(super) seed: u64,
    /// The input delay in ticks.
    pub(super) delay: u8,
    /// Ticks between state hashes.
    pub(super) hash_interval: u16,
    /// The prediction window (0 = lock-step).
    pub(super) window: u8,
}

/// Why a Hello was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HelloRefused {
    /// A second Hello.
    Unexpected,
    /// Another protocol version or game build.
    Mismatch(Version),
    /// The peer claims our own side.
    SideConflict(u8),
}

/// What the handshake needs until the match starts.
#[derive(Debug)]
pub(super) struct Handshake {
    /// The parameters so far (a guest's change with the host's Hello).
    pub(super) params: Params,
    /// The peer's version, once its Hello arrived.
    pub(super) remote_version: Option<Version>,
    /// Delay from the round trip: round trips measured.
    rtt_samples: Vec<Millis>,
    /// Delay from the round trip: when the host starts (after its Hello).
    start_at: Option<Millis>,
    /// Hashes the guest sends between the host's Hello and the host's
    /// start (a host measuring round trips starts half a round trip after
    /// its Hello); carried into the match and compared there.
    pub(super) hashes: HashBook,
}

impl Handshake {
    pub(super) fn new(cfg: &SessionConfig) -> Self {
        let (seed, delay) = match cfg.role {
            Role::Host { seed, input_delay } => (seed, input_delay),
            Role::Guest => (0, 0),
        };
        Handshake {
            params: Params {
                seed,
                delay,
                hash_interval: cfg.hash_interval,
                window: cfg.prediction_window,
            },
            remote_version: None,
            rtt_samples: Vec::new(),
            start_at: None,
            hashes: HashBook::default(),
        }
    }

    /// The host measuring round trips before it sends its Hello.
    pub(super) fn probing(&self, cfg: &SessionConfig, side: u8) -> bool {
        cfg.delay_from_rtt && side == 0 && self.start_at.is_none()
    }

    /// Whether both Hellos have been exchanged (the host measuring round
    /// trips sent its Hello and waits to start).
    pub(super) fn hellos_exchanged(&self) -> bool {
        self.start_at.is_some()
    }

    /// Round trips measured so far.
    pub(super) fn samples(&self) -> usize {
        self.rtt_samples.len()
    }

    /// This side's Hello, naming the game's build id.
    pub(super) fn hello<I>(&self, cfg: &SessionConfig, side: u8, build: u64) -> Message<I> {
        let host = side == 0;
        Message::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build,
            seed: self.params.seed,
            side,
            input_delay: self.params.delay,
            hash_interval: cfg.hash_interval,
            prediction_window: if host { self.params.window } else { 0 },
        })
    }

    /// The peer's Hello. `Ok(true)`: the match starts now; `Ok(false)`:
    /// the host still measures the round trip.
    pub(super) fn on_hello(
        &mut self,
        h: Hello,
        local: Version,
        cfg: &SessionConfig,
        side: u8,
    ) -> Result<bool, HelloRefused> {
        if self.remote_version.is_some() {
            return Err(HelloRefused::Unexpected);
        }
        let remote = Version {
            protocol: h.protocol,
            build: Some(h.build),
        };
        if remote != local {
            return Err(HelloRefused::Mismatch(remote));
        }
        self.remote_version = Some(remote);
        if h.side == side {
            return Err(HelloRefused::SideConflict(h.side));
        }
        if cfg.role == Role::Guest {
            self.params = Params {
                seed: h.seed,
                delay: h.input_delay,
                hash_interval: h.hash_interval,
                window: h.prediction_window,
            };
        }
        // A host measuring the round trip starts once it has sent its own
        // Hello (see `frame`).
        Ok(!self.probing(cfg, side))
    }

    /// A round trip was measured: kept while the host measures.
    pub(super) fn on_round_trip(&mut self, rtt: Millis, cfg: &SessionConfig, side: u8) {
        if self.probing(cfg, side) && self.rtt_samples.len() < HANDSHAKE_PINGS {
            self.rtt_samples.push(rtt);
        }
    }

    /// One frame of the handshake; `true` when the match starts now.
    ///
    /// Every side but a measuring host sends a Ping every ping interval,
    /// so the peer keeps hearing it while it waits for the peer's Hello
    /// (the peer answers, or lets the pong ride on its inputs once it
    /// runs).
    ///
    /// The host that picks its delay from the round trip sends nothing
    /// until the guest's Hello is in (so the guest's session exists and
    /// answers at once: no ping waits in a queue to inflate the measure),
    /// then pings every frame until [`HANDSHAKE_PINGS`] pongs came back
    /// (on a lossy link more pings go out, never a pause), then sends its
    /// Hello and starts half a round trip later, about when the guest
    /// receives it.
    pub(super) fn frame<I>(
        &mut self,
        now: Millis,
        cfg: &SessionConfig,
        side: u8,
        build: u64,
        pinger: &mut Pinger,
        out: &mut Outbox,
    ) -> bool
    where
        I: Serialize + DeserializeOwned + Clone + PartialEq,
    {
        pinger.frame();
        if let Some(at) = self.start_at {
            return now >= at;
        }
        if !self.probing(cfg, side) {
            if let Some(id) = pinger.handshake_ping(now, cfg.ping_interval_frames) {
                out.send(&Message::<I>::Ping(id));
            }
            return false;
        }
        if self.remote_version.is_none() {
            return false;
        }
        if self.rtt_samples.len() < HANDSHAKE_PINGS {
            out.send(&Message::<I>::Ping(pinger.probe_ping(now)));
            return false;
        }
        self.params.delay = delay_for_round_trips(&self.rtt_samples, self.params.window);
        let mut ms: Vec<u64> = self.rtt_samples.iter().map(|m| m.0).collect();
        ms.sort_unstable();
        let mid = ms.get(ms.len() / 2).copied().unwrap_or(0);
        log::info!(
            "input delay {} ticks from round trips of {:?} ms",
            self.params.delay,
            ms
        );
        self.start_at = Some(now + Millis(mid / 2));
        out.send(&self.hello::<I>(cfg, side, build));
        mid / 2 == 0
    }
}

/// The input delay the host picks from the round trips measured in the
/// handshake (milliseconds, any order), for a match at 60 ticks per second
/// with the given prediction window (0 = lock-step). See `docs/engine.md`.
///
/// With `hi` the largest round trip and `mid` the median:
///
/// * lock-step: `ceil(hi / 2 / 16.7 ms) + 1` ticks: an input sampled at
///   tick `t - delay` reaches the peer by the frame that runs `t` even on the
///   slowest measured trip, with one frame of margin for the two sides'
///   frame phases, so stalls stay rare;
/// * rollback: `ceil(mid / 2 / 16.7 ms) + 1 - min(window, 3)` ticks: typical
///   predictions, and so rollbacks, stay about 3 ticks long.
///
/// Clamped to 1..=[`MAX_INPUT_DELAY`]; no sample gives the lock-step
/// delay of a 100 ms round trip (4 ticks).
#[must_use]
pub fn delay_for_round_trips(samples: &[Millis], window: u8) -> u8 {
    let mut ms: Vec<u64> = samples.iter().map(|m| m.0).collect();
    ms.sort_unstable();
    let (hi, mid) = match (ms.last(), ms.get(ms.len() / 2)) {
        (Some(&hi), Some(&mid)) => (hi, mid),
        _ => (100, 100),
    };
    // Ticks for half the round trip, rounded up: ms / 2 * 60 / 1000.
    let one_way = |rtt: u64| rtt.saturating_mul(3).div_ceil(2 * MS_PER_3_TICKS);
    let d = if window == 0 {
        one_way(hi).saturating_add(1)
    } else {
        one_way(mid)
            .saturating_add(1)
            .saturating_sub(u64::from(window.min(3)))
    };
    u8::try_from(d.clamp(1, u64::from(MAX_INPUT_DELAY))).unwrap_or(MAX_INPUT_DELAY)
}
