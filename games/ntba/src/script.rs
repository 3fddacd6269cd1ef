//! The fixed synthetic input script behind the golden hash.

use crate::pad::Pad;
use crate::sim::Ntba;
use lockstep::DeterministicGame;

/// Seed of the golden replay.
pub const GOLDEN_SEED: u64 = 0x4e74_4241_2026;
/// Ticks in the golden replay (one minute of play).
pub const GOLDEN_TICKS: u32 = 3_600;

/// The scripted pad of team `side` at tick `t`: direction changes every 20
/// ticks, shots are held for a while and released, passes, steals, turbo
/// and switches are pressed on a fixed rhythm. Pure integer arithmetic, so
/// it is the same everywhere.
#[must_use]
pub fn script_pad(t: u32, side: u8) -> Pad {
    let s = u32::from(side & 1);
    let mut x = (u64::from(t / 20) << 1 | u64::from(s)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 29;
    let mut b = (x & 0x0f) as u8;
    if (t + s * 37) % 97 < 25 {
        b |= Pad::SHOOT;
    }
    if (t + s * 13) % 71 == 0 {
        b |= Pad::ACTION;
    }
    if (t / 45 + s) % 3 == 0 {
        b |= Pad::TURBO;
    }
    if (t + s * 29) % 131 == 0 {
        b |= Pad::SWITCH;
    }
    Pad(b)
}

/// Replays the golden script for `ticks` ticks from [`GOLDEN_SEED`] and
/// returns the state hash. With [`GOLDEN_TICKS`] this is the build id.
#[must_use]
pub fn golden_hash(ticks: u32) -> u64 {
    let mut g = Ntba::new(GOLDEN_SEED, 2);
    for t in 0..ticks {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
    }
    g.state_hash()
}

/// Plays `ticks` ticks of the script from `seed`, starting a fresh match
/// every [`GOLDEN_TICKS`] ticks so that every tick is live play (a finished
/// match ticks much faster). Returns a hash of the last match. This is the
/// loop the native and wasm benchmarks time.
#[must_use]
pub fn script_run(seed: u64, ticks: u32) -> u64 {
    let mut g = Ntba::new(seed, 2);
    let mut acc = 0u64;
    for i in 0..ticks {
        let t = i % GOLDEN_TICKS;
        if t == 0 && i > 0 {
            acc ^= g.state_hash();
            g = Ntba::new(seed.wrapping_add(u64::from(i)), 2);
        }
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
    }
    acc ^ g.state_hash()
}
