//! The handshake: Hellos exchanged and checked, the guest adopting the
//! host's parameters, and the host measuring round trips when it picks the
//! input delay from them.

use alloc::vec::Vec;

use serde::{de::DeserializeOwned, Serialize};

use super::config::{Role, SessionConfig, HANDSHAKE_PINGS};
use super::outcome::Version;
use super::peer::Peer;
use super::rejoin::{host_proof, proof, token};
use super::time_sync::MS_PER_3_TICKS;
use crate::hash::Fnv1a;
use crate::time::Millis;
use crate::wire::{Hello, Message, MAX_INPUT_DELAY, MAX_PLAYERS, PROTOCOL_VERSION};

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
    /// Players in the match (0 while a guest does not know it yet).
    pub(super) players: u8,
    /// The match id (see [`match_id`]; 0 while a guest does not know it).
    pub(super) match_id: u64,
}

/// The id the host gives its match: a digest of its parameters, which
/// guests show each other so that a link between members of two matches
/// is refused. (Two matches with the same parameters share it; the seed
/// the host picks makes that unlikely.)
pub(super) fn match_id(p: &Params, build: u64) -> u64 {
    let mut h = Fnv1a::new();
    h.write_u64(build);
    h.write_u64(p.seed);
    h.write_u8(p.delay);
    h.write_u16(p.hash_interval);
    h.write_u8(p.window);
    h.write_u8(p.players);
    h.finish()
}

/// The host's Hello to the player in slot `to` of the match `p`, with
/// that slot's rejoin token for its player (`seats[s]`: how many players
/// took slot `s` after its first) and the check of every slot's token (0
/// without the caller's entropy).
pub(super) fn host_hello<I>(
    p: &Params,
    cfg: &SessionConfig,
    build: u64,
    to: u8,
    seats: &[u8; MAX_PLAYERS as usize],
) -> Message<I> {
    let seat = |s: u8| seats.get(usize::from(s)).copied().unwrap_or(0);
    let mut proofs = [0; MAX_PLAYERS as usize];
    if let Some(e) = cfg.rejoin_entropy {
        for (s, check) in (0..p.players).zip(proofs.iter_mut()) {
            *check = proof(token(e, p.match_id, s, seat(s)), p.match_id, s);
        }
    }
    let seat = seat(to);
    Message::Hello(Hello {
        rejoin_token: cfg
            .rejoin_entropy
            .map_or(0, |e| token(e, p.match_id, to, seat)),
        host_proof: cfg.rejoin_entropy.map_or(0, |e| host_proof(e, p.match_id)),
        ..match_hello(p, build, 0, to, proofs)
    })
}

/// The Hello of the host of the match `p` (`side`: its slot, 0 unless
/// the host's place moved) to the player of slot `to`: the match and the
/// check of every slot's token (`proofs`), and no credentials of the
/// host's own (the caller adds what it has).
pub(super) fn match_hello(
    p: &Params,
    build: u64,
    side: u8,
    to: u8,
    proofs: [u64; MAX_PLAYERS as usize],
) -> Hello {
    Hello {
        protocol: PROTOCOL_VERSION,
        build,
        seed: p.seed,
        side,
        input_delay: p.delay,
        hash_interval: p.hash_interval,
        prediction_window: p.window,
        players: p.players,
        slot: to,
        match_id: p.match_id,
        rejoin_token: 0,
        host_proof: 0,
        proofs,
    }
}

/// Why a Hello was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HelloRefused {
    /// A second Hello.
    Unexpected,
    /// Another protocol version or game build.
    Mismatch(Version),
    /// The peer claims our own side (two hosts on one link, or a second
    /// host).
    SideConflict(u8),
    /// The host gives this side a slot beyond its player count.
    BadSlot(u8),
}

/// What the handshake needs until the match starts (each peer's Hello and
/// round trips are the peer's own: see `peer.rs`).
#[derive(Debug)]
pub(super) struct Handshake {
    /// The parameters so far (a guest's change with the host's Hello).
    pub(super) params: Params,
    /// Delay from the round trip: when the host starts (after its Hello).
    start_at: Option<Millis>,
    /// This side's slot: the host's 0 at once, a guest's from the host's
    /// Hello.
    pub(super) own_slot: Option<u8>,
}

impl Handshake {
    pub(super) fn new(cfg: &SessionConfig, build: u64) -> Self {
        let (seed, delay, players, own_slot) = match cfg.role {
            Role::Host { seed, input_delay } => (seed, input_delay, cfg.players, Some(0)),
            Role::Guest => (0, 0, 0, None),
        };
        let mut params = Params {
            seed,
            delay,
            hash_interval: cfg.hash_interval,
            window: cfg.prediction_window,
            players,
            match_id: 0,
        };
        if own_slot.is_some() {
            params.match_id = match_id(&params, build);
        }
        Handshake {
            params,
            start_at: None,
            own_slot,
        }
    }

    /// The host measuring round trips before it sends its Hello.
    pub(super) fn probing(&self, cfg: &SessionConfig, side: u8) -> bool {
        // A host coming back takes the delay the match has.
        cfg.delay_from_rtt && side == 0 && self.start_at.is_none() && cfg.host_back.is_none()
    }

    /// This side's Hello to the peer in slot `to` (the host's names it),
    /// naming the game's build id.
    pub(super) fn hello<I>(&self, cfg: &SessionConfig, side: u8, build: u64, to: u8) -> Message<I> {
        if side == 0 {
            return host_hello(&self.params, cfg, build, to, &[0; MAX_PLAYERS as usize]);
        }
        // A guest's Hello names only its version, build and hash interval:
        // the match is the host's to say.
        Message::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build,
            seed: 0,
            side: 1,
            input_delay: 0,
            hash_interval: cfg.hash_interval,
            prediction_window: 0,
            players: 0,
            slot: 0,
            match_id: 0,
            rejoin_token: 0,
            host_proof: 0,
            proofs: [0; MAX_PLAYERS as usize],
        })
    }

    /// `peer`'s Hello. `Ok(true)`: the match may start once every peer is
    /// ready; `Ok(false)`: the host still measures the round trip. The
    /// host's Hello gives a guest its slot and the match (see
    /// [`own_slot`](Self::own_slot)).
    pub(super) fn on_hello(
        &mut self,
        h: Hello,
        local: Version,
        cfg: &SessionConfig,
        side: u8,
        peer: &mut Peer,
    ) -> Result<bool, HelloRefused> {
        if peer.hello.is_some() {
            return Err(HelloRefused::Unexpected);
        }
        let remote = Version {
            protocol: h.protocol,
            build: Some(h.build),
        };
        if remote != local {
            return Err(HelloRefused::Mismatch(remote));
        }
        peer.hello = Some(remote);
        if h.players != 0 {
            // From the host: this side must be a guest without a host yet.
            // Only a session entering a running match meets a host whose
            // place moved from slot 0 to a guest's.
            let entering = cfg.rejoin_as.is_some() || cfg.join_as.is_some();
            if side == 0 || self.own_slot.is_some() || (h.side != 0 && !entering) {
                return Err(HelloRefused::SideConflict(h.side));
            }
            if h.slot >= h.players {
                return Err(HelloRefused::BadSlot(h.slot));
            }
            if cfg.rejoin_as.is_some_and(|(slot, _)| slot != h.slot) {
                // A rejoiner is given back its own slot or none.
                return Err(HelloRefused::BadSlot(h.slot));
            }
            if cfg
                .join_as
                .is_some_and(|s| h.slot == 0 || s.is_some_and(|s| s != h.slot))
            {
                // A joiner is given the slot it named (or a free one).
                return Err(HelloRefused::BadSlot(h.slot));
            }
            peer.slot = Some(h.side);
            self.own_slot = Some(h.slot);
            self.params = Params {
                seed: h.seed,
                delay: h.input_delay,
                hash_interval: h.hash_interval,
                window: h.prediction_window,
                players: h.players,
                match_id: h.match_id,
            };
        }
        // A host measuring the round trip starts once it has sent its own
        // Hello (see `frame`).
        Ok(!self.probing(cfg, side))
    }

    /// A round trip to `peer` was measured: kept while the host measures.
    pub(super) fn on_round_trip(
        &self,
        rtt: Millis,
        cfg: &SessionConfig,
        side: u8,
        peer: &mut Peer,
    ) {
        if self.probing(cfg, side) && peer.rtt_samples.len() < HANDSHAKE_PINGS {
            peer.rtt_samples.push(rtt);
        }
    }

    /// One frame of the handshake; `true` when the match starts now.
    ///
    /// Every side but a measuring host sends each peer a Ping every ping
    /// interval, so the peer keeps hearing it while it waits for the
    /// peer's Hello (the peer answers, or lets the pong ride on its inputs
    /// once it runs).
    ///
    /// The host that picks its delay from the round trip sends nothing to
    /// a peer until that peer's Hello is in (so the peer's session exists
    /// and answers at once: no ping waits in a queue to inflate the
    /// measure), then pings it every frame until [`HANDSHAKE_PINGS`] pongs
    /// came back (on a lossy link more pings go out, never a pause). Once
    /// every peer is measured it picks the delay for the worst of them,
    /// sends its Hello to all and starts half the worst median round trip
    /// later, about when the slowest peer receives it.
    pub(super) fn frame<I>(
        &mut self,
        now: Millis,
        cfg: &SessionConfig,
        side: u8,
        build: u64,
        peers: &mut [Peer],
        ready: bool,
    ) -> bool
    where
        I: Serialize + DeserializeOwned + Clone + PartialEq,
    {
        for p in peers.iter_mut() {
            p.pinger.frame();
        }
        if let Some(at) = self.start_at {
            return now >= at;
        }
        if cfg.rejoin_as.is_some() || cfg.join_as.is_some() || cfg.host_back.is_some() {
            // A rejoiner's session sends nothing but its Rejoin until the
            // host answers: anything else would tell the host that the
            // old session is back. A joiner likewise waits on its Join,
            // and a host coming back on its Rejoin to the guest.
            return false;
        }
        if !self.probing(cfg, side) {
            for p in peers.iter_mut() {
                if let Some(id) = p.pinger.handshake_ping(now, cfg.ping_interval_frames) {
                    p.out.send(&Message::<I>::Ping(id));
                }
            }
            return false;
        }
        let mut measured = ready;
        for p in peers.iter_mut() {
            if p.hello.is_some() && p.rtt_samples.len() < HANDSHAKE_PINGS {
                let id = p.pinger.probe_ping(now);
                p.out.send(&Message::<I>::Ping(id));
                measured = false;
            }
        }
        if !measured {
            return false;
        }
        let mut mid_max = 0;
        let mut delay = 1;
        for p in peers.iter() {
            delay = delay.max(delay_for_round_trips(&p.rtt_samples, self.params.window));
            let mut ms: Vec<u64> = p.rtt_samples.iter().map(|m| m.0).collect();
            ms.sort_unstable();
            let mid = ms.get(ms.len() / 2).copied().unwrap_or(0);
            mid_max = mid_max.max(mid);
            log::info!("round trips to {} of {:?} ms", p.id, ms);
        }
        self.params.delay = delay;
        self.params.match_id = match_id(&self.params, build);
        log::info!("input delay {delay} ticks from the round trips");
        self.start_at = Some(now + Millis(mid_max / 2));
        for p in peers.iter_mut() {
            let hello = self.hello::<I>(cfg, side, build, p.slot.unwrap_or(0));
            p.out.send(&hello);
        }
        mid_max / 2 == 0
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
