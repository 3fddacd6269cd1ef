//! One side of a networked NtBA match inside this module: a lockstep
//! [`Session`] playing [`Ntba`] with the CPU at the pad, driven from
//! outside through plain C-ABI calls, so a host program (Node in
//! `scripts/ntba/two-peers.mjs`) can run two instances of the module and
//! carry their datagrams over a simulated link of its own.
//!
//! Datagrams cross the boundary through one 64 KiB buffer
//! ([`peer_buffer`]): the host writes a received datagram there before
//! [`peer_receive`], and reads an outgoing one from there after
//! [`peer_transmit`]. Times are milliseconds of the host's (virtual) clock.
//!
//! The module also follows the confirmed ticks with a second game fed with
//! the session's confirmed inputs, tick by tick, and keeps the state hash after the target tick
//! given to [`peer_start`], so two instances can be compared on exactly
//! the same tick.

use std::cell::RefCell;

use lockstep::{
    Channel, DeterministicGame, LinkState, Millis, Outcome, PeerId, Session, SessionConfig,
};
use ntba::{Cpu, Level, Ntba, Pad};

/// Size of the datagram buffer shared with the host.
const BUFFER: usize = 64 * 1024;

/// How the session names its one link (to the other peer).
const LINK: PeerId = PeerId(0);

struct Peer {
    session: Session<Ntba>,
    cpu: Cpu,
    side: u8,
    /// A copy of the game advanced over confirmed ticks only.
    follow: Option<Ntba>,
    follow_tick: u32,
    target: u32,
    target_hash: Option<u64>,
    /// Times the followed game disagreed with the session's confirmed game.
    follow_errors: u32,
    /// The inputs of one confirmed tick, reused from tick to tick.
    inputs: Vec<Pad>,
}

thread_local! {
    static PEER: RefCell<Option<Peer>> = const { RefCell::new(None) };
    static BUF: RefCell<Vec<u8>> = RefCell::new(vec![0; BUFFER]);
}

fn with_peer<T>(default: T, f: impl FnOnce(&mut Peer) -> T) -> T {
    PEER.with(|p| p.borrow_mut().as_mut().map_or(default, f))
}

/// Starts this instance's side: `host` 1 for the host (side 0, picks the
/// seed, the prediction window and the input delay from the measured round
/// trip), 0 for the guest (adopts the host's). `window` 0 is lock-step.
/// `target` is the tick whose confirmed state hash [`peer_target_hash`]
/// reports. Returns 1, or 0 if the configuration was refused.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_start(host: u32, seed: u64, window: u32, target: u32) -> u32 {
    let cfg = if host == 1 {
        SessionConfig::host(seed, 6)
            .input_delay_from_rtt()
            .prediction_window(u8::try_from(window).unwrap_or(u8::MAX))
    } else {
        SessionConfig::guest()
    };
    let Ok(mut session) = Session::<Ntba>::new(cfg) else {
        return 0;
    };
    // The one link is open from the start: its Hello is queued now.
    session.handle_link_state(Millis(0), LINK, LinkState::Open);
    let side = u8::from(host != 1);
    let peer = Peer {
        session,
        cpu: Cpu::with_level(seed ^ u64::from(side), Level::Normal),
        side,
        follow: None,
        follow_tick: 0,
        target,
        target_hash: None,
        follow_errors: 0,
        inputs: Vec::new(),
    };
    PEER.with(|p| *p.borrow_mut() = Some(peer));
    1
}

/// The address of the 64 KiB datagram buffer in this module's memory.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_buffer() -> *mut u8 {
    BUF.with(|b| b.borrow_mut().as_mut_ptr())
}

/// Hands the session the datagram of `len` bytes the host wrote into the
/// buffer, received at `now` on `channel` (0 reliable, 1 unreliable).
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_receive(now: u64, channel: u32, len: u32) {
    let ch = if channel == 0 {
        Channel::Reliable
    } else {
        Channel::Unreliable
    };
    let bytes: Vec<u8> = BUF.with(|b| {
        let b = b.borrow();
        b[..(len as usize).min(BUFFER)].to_vec()
    });
    with_peer((), |p| {
        p.session.handle_datagram(Millis(now), LINK, ch, &bytes)
    });
}

/// Runs one 60 Hz frame at `now`: the CPU picks the pad from the present
/// game, the session advances at most one tick, and the followed game
/// catches up with the confirmed ticks.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_frame(now: u64) {
    with_peer((), |p| {
        let pad = match p.session.game() {
            Some(g) => p.cpu.pad(g, p.side),
            None => Pad::default(),
        };
        p.session.advance_frame(Millis(now), || pad);
        p.follow_confirmed();
    });
}

/// Moves the next outgoing datagram into the buffer and returns
/// `channel << 16 | length`, or -1 when nothing is queued.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_transmit() -> i32 {
    let next = with_peer(None, |p| p.session.poll_transmit_to(LINK));
    let Some((ch, bytes)) = next else {
        return -1;
    };
    let len = bytes.len().min(0xffff);
    BUF.with(|b| b.borrow_mut()[..len].copy_from_slice(&bytes[..len]));
    let ch = match ch {
        Channel::Reliable => 0,
        Channel::Unreliable => 1,
    };
    (ch << 16) | len as i32
}

/// Ticks simulated (in rollback the last ones may rest on predictions).
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_tick() -> u32 {
    with_peer(0, |p| p.session.tick())
}

/// Ticks confirmed (every input known).
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_confirmed_tick() -> u32 {
    with_peer(0, |p| p.session.confirmed_tick())
}

/// The state hash after the target tick, once confirmed here; 0 before.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_target_hash() -> u64 {
    with_peer(0, |p| p.target_hash.unwrap_or(0))
}

/// Times the game followed from the input log disagreed with the session's
/// confirmed game (must stay 0).
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_follow_errors() -> u32 {
    with_peer(0, |p| p.follow_errors)
}

/// The score of the confirmed game as `home << 16 | away`.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_score() -> u32 {
    with_peer(0, |p| {
        p.follow.as_ref().map_or(0, |g| {
            let [h, a] = g.score();
            (u32::from(h) << 16) | u32::from(a)
        })
    })
}

/// The input delay in force (ticks), 255 before the match starts.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_input_delay() -> u32 {
    with_peer(255, |p| {
        p.session.parameters().map_or(255, |(_, d)| u32::from(d))
    })
}

/// Rollback counters: mispredictions corrected and ticks re-simulated, as
/// `rollbacks << 32 | resimulated`; and frames that stalled.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_rollbacks() -> u64 {
    with_peer(0, |p| {
        let s = p.session.stats();
        (s.rollbacks << 32) | (s.resimulated_ticks & 0xffff_ffff)
    })
}

/// Frames that could not run a tick.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_stalled_frames() -> u64 {
    with_peer(0, |p| p.session.stats().stalled_frames)
}

/// -1 while the match goes on; else how it ended: 0 local quit, 1 remote
/// quit, 2 transport lost, 3 timeout, 4 desync, 5 version mismatch,
/// 6 invalid data, 7 handshake timeout, 8 no progress, 9 an outcome added
/// to the engine since.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn peer_outcome() -> i32 {
    with_peer(-1, |p| match p.session.outcome() {
        None => -1,
        Some(Outcome::LocalQuit) => 0,
        Some(Outcome::RemoteQuit) => 1,
        Some(Outcome::TransportLost) => 2,
        Some(Outcome::Timeout) => 3,
        Some(Outcome::Desync { .. }) => 4,
        Some(Outcome::VersionMismatch { .. }) => 5,
        Some(Outcome::InvalidData { .. }) => 6,
        Some(Outcome::HandshakeTimeout) => 7,
        Some(Outcome::NoProgress) => 8,
        Some(_) => 9,
    })
}

impl Peer {
    /// Steps the followed game over the newly confirmed ticks, with the
    /// session's confirmed inputs of each tick, recording the hash after the target tick and
    /// checking it against the session's confirmed game.
    fn follow_confirmed(&mut self) {
        let c = self.session.confirmed_tick();
        if c <= self.follow_tick {
            return;
        }
        if self.follow.is_none() {
            let Some((seed, _)) = self.session.parameters() else {
                return;
            };
            self.follow = Some(Ntba::new(seed, 2));
        }
        let Some(g) = self.follow.as_mut() else {
            return;
        };
        while self.follow_tick < c {
            if !self
                .session
                .confirmed_inputs(self.follow_tick, &mut self.inputs)
            {
                self.follow_errors += 1;
                return;
            }
            g.step(&self.inputs);
            self.follow_tick += 1;
            if self.follow_tick == self.target {
                self.target_hash = Some(g.state_hash());
            }
        }
        if let Some(confirmed) = self.session.confirmed_game() {
            if confirmed.state_hash() != g.state_hash() {
                self.follow_errors += 1;
            }
        }
    }
}
