//! Bytes from a peer fed to a running session, mixed with frames and time
//! passing: never a panic, and once ended the session stays ended.
//!
//! The input is read as a script: each step is one control byte followed,
//! for datagrams, by a length byte and that many bytes. Starting from a
//! session whose Hello exchange already happened gets the fuzzer past the
//! handshake at once.
//!
//! The first byte sets the scene: bit 0 plays the guest (else the host),
//! bits 0-2 the host's input delay, bits 3-4 its hash interval (1-4), bit
//! 5 makes the host pick its delay from the round trip (it pings before
//! its Hello, so the script can answer with pongs, or not) and the guest a
//! fresh session rejoining slot 1 (so the script's datagrams after the
//! host's Hello are its catch-up, a saved state or runs from the start:
//! the game saves its state), bit 6 picks rollback (window 8) over
//! lock-step, and bit 7 skips the peer's Hello. The host issues rejoin
//! tokens, so a script's Rejoin is checked in full. A guest with bits 1-2
//! both set and bit 5 clear is a spectator instead (its one link leads to
//! the host; set bit 7 too, as it refuses a Hello). A guest with bit 2 set
//! and bits 1 and 5 clear is a joiner: a fresh session asking for a free
//! slot with `Join` (bit 3: slot 1 named, else any), whose script after
//! the host's Hello is its catch-up, as a rejoiner's.
//!
//! A host also has a second link, declared a spectator's: a datagram
//! step whose control byte has bit 7 set goes there (a script can Watch,
//! acknowledge and misbehave as a spectator); and a third one it never
//! heard of before the start: a datagram step with bit 6 set (and bit 7
//! clear) goes there, where only a stranger's Rejoin, Watch or Join is
//! heard.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep::wire::{Hello, Message};
use lockstep::{
    Channel, DeterministicGame, LinkState, Millis, PeerId, Session, SessionConfig, PROTOCOL_VERSION,
};

/// The fuzzed session's link to its player peer (or, for a spectator, to
/// the host).
const PEER: PeerId = PeerId(0);

/// A host's link to a spectator.
const WATCHER: PeerId = PeerId(1);

/// A host's link that opened after the start (a fresh session's).
const STRANGER: PeerId = PeerId(2);

#[derive(Clone)]
struct Game(u64);

impl DeterministicGame for Game {
    type Input = u8;
    const BUILD_ID: u64 = 77;
    fn new(seed: u64, _: u8) -> Self {
        Game(seed)
    }
    fn step(&mut self, i: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ u64::from(i[0]) ^ (u64::from(i[1]) << 8);
    }
    fn state_hash(&self) -> u64 {
        self.0
    }
    // It saves its state, so a host's catch-up carries one and a
    // rejoiner's script can send saved states of any shape.
    fn save(&self) -> Option<Vec<u8>> {
        Some(self.0.to_le_bytes().to_vec())
    }
    fn load(bytes: &[u8]) -> Option<Self> {
        Some(Game(u64::from_le_bytes(bytes.try_into().ok()?)))
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, mut rest)) = data.split_first() else {
        return;
    };
    let window = if mode & 0x40 != 0 { 8 } else { 0 };
    let (cfg, peer_side) = if mode & 1 == 0 {
        (
            {
                let cfg = SessionConfig::host(1, mode % 8)
                    .hash_interval(u16::from(mode / 8 % 4 + 1))
                    .prediction_window(window)
                    .rejoin_entropy(3);
                if mode & 0x20 != 0 {
                    cfg.input_delay_from_rtt()
                } else {
                    cfg
                }
            },
            1,
        )
    } else if mode & 0x20 != 0 {
        (SessionConfig::guest().rejoin(1, 5), 0)
    } else if mode % 8 == 7 {
        (SessionConfig::spectator().watch_delay(mode / 8 % 4), 0)
    } else if mode % 8 == 5 {
        let slot = (mode & 8 != 0).then_some(1);
        (SessionConfig::guest().join(slot), 0)
    } else {
        (SessionConfig::guest(), 0)
    };
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Game>::new(cfg).expect("valid config");
    s.handle_link_state(Millis(0), PEER, LinkState::Open);
    if mode & 1 == 0 {
        s.add_spectator(Millis(0), WATCHER);
        s.handle_link_state(Millis(0), WATCHER, LinkState::Open);
    }
    let mut now = 0u64;
    if mode & 0x80 == 0 {
        let hello = Message::<u8>::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build: Game::BUILD_ID,
            seed: 5,
            side: peer_side,
            input_delay: mode % 8,
            hash_interval: 2,
            prediction_window: window,
            // A host's Hello gives the fuzzed guest slot 1 of 2.
            players: if peer_side == 0 { 2 } else { 0 },
            slot: u8::from(peer_side == 0),
            match_id: 0,
            rejoin_token: 0,
            host_proof: 0,
            proofs: [0; 8],
        });
        s.handle_datagram(
            Millis(0),
            PEER,
            Channel::Reliable,
            // Cannot fail: u8 inputs and in-range fields always encode.
            &hello.encode().expect("encodes"),
        );
    }
    let mut ended = false;
    while let Some((&op, tail)) = rest.split_first() {
        rest = tail;
        match op % 4 {
            0 | 1 => {
                let Some((&len, tail)) = rest.split_first() else {
                    break;
                };
                let n = usize::from(len).min(tail.len());
                let ch = if op % 4 == 0 {
                    Channel::Reliable
                } else {
                    Channel::Unreliable
                };
                let link = match (op & 0x80 != 0, op & 0x40 != 0 && mode & 1 == 0) {
                    (true, _) => WATCHER,
                    (false, true) => STRANGER,
                    (false, false) => PEER,
                };
                s.handle_datagram(Millis(now), link, ch, &tail[..n]);
                rest = &tail[n..];
            }
            2 => {
                now += u64::from(op >> 2);
                s.advance_frame(Millis(now), || op);
            }
            _ => {
                now += u64::from(op) * 40;
                s.handle_timeout(Millis(now));
            }
        }
        while s.poll_transmit().is_some() {}
        while s.poll_event().is_some() {}
        if ended {
            assert!(s.outcome().is_some(), "an ended session stays ended");
        }
        ended = s.outcome().is_some();
    }
    let _ = s.input_log().to_bytes();
});
