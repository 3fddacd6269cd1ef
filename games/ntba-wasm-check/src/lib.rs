//! NtBA's determinism check module: plain `extern "C"` exports with no
//! imports, so any WebAssembly engine (Node, wasmtime, a browser) can load
//! it and compare its answers with the native build, bit for bit.
//!
//! Exports (all integers; a `u64` is an `i64` at the wasm boundary, the same
//! bits):
//! - `ntba_build_id() -> u64`: the constant compiled in (`ntba::GOLDEN_HASH`).
//! - `ntba_golden_hash() -> u64`: the golden hash recomputed here, now (the
//!   script and both golden matches replayed, see `ntba::golden_hash`).
//! - `ntba_script_hash(ticks: u32) -> u64`: the script replayed for `ticks`
//!   (`ntba::SCRIPT_HASH` for 3,600).
//! - `ntba_match_hash() -> u64`: the two golden matches replayed
//!   (`ntba::MATCH_HASH`).
//! - `ntba_rules_hash() -> u64`: the rules' numbers and shot-odds table
//!   (`ntba::RULES_HASH`).
//! - `ntba_people_hash() -> u64`: the three- and four-person scripts
//!   replayed (`ntba::PEOPLE_HASH`).
//! - `ntba_people_script_hash(people: u32, ticks: u32) -> u64`: the script
//!   for `people` people replayed for `ticks` (`ntba::PEOPLE3_HASH` and
//!   `ntba::PEOPLE4_HASH` for 3 and 4 people and 3,600 ticks).
//! - `ntba_run_ticks(seed: u64, ticks: u32) -> u64`: a benchmark loop that
//!   plays `ticks` ticks of the script from `seed` and returns a hash.
//! - `ntba_save_restore(n: u32) -> u64`: clones and restores a mid-match
//!   state `n` times (a benchmark of saving and restoring).
//! - `peer_*`: one side of a networked match (a lockstep session playing
//!   NtBA with the CPU at the pad) for a host that carries the datagrams
//!   between two instances of this module; see [`peer`].
#![warn(missing_docs)]

pub mod peer;

use lockstep::DeterministicGame;
use ntba::{
    golden_hash, match_hash, people_hash, people_script_hash, rules_hash, script_hash, script_pad,
    script_run, Ntba, GOLDEN_HASH,
};

// `#[no_mangle]` is the only "unsafe" thing here: it promises the symbol
// name is unique in the module, which holds for these few `ntba_` names.

/// The golden hash compiled into this build.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_build_id() -> u64 {
    GOLDEN_HASH
}

/// The golden hash recomputed in this engine.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_golden_hash() -> u64 {
    golden_hash()
}

/// The script replayed for `ticks` ticks, every tick's hash folded.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_script_hash(ticks: u32) -> u64 {
    script_hash(ticks)
}

/// The two golden matches replayed, every tick's hash folded.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_match_hash() -> u64 {
    match_hash()
}

/// The rules' numbers and the shot-odds table, hashed.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_rules_hash() -> u64 {
    rules_hash()
}

/// The three- and four-person scripts replayed, every tick's hash folded.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_people_hash() -> u64 {
    people_hash()
}

/// The script for `people` people (3 or 4; more count as 4) replayed for
/// `ticks` ticks, every tick's hash folded.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_people_script_hash(people: u32, ticks: u32) -> u64 {
    people_script_hash(people.clamp(3, 4) as u8, ticks)
}

/// Plays `ticks` ticks of the script pads from `seed` (a fresh match every
/// 3,600 ticks, see `ntba::script_run`); returns a hash.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_run_ticks(seed: u64, ticks: u32) -> u64 {
    script_run(seed, ticks)
}

/// Saves (clones) and restores a mid-match state `n` times; returns its hash.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn ntba_save_restore(n: u32) -> u64 {
    let mut g = Ntba::new(9, 2);
    for t in 0..1_000 {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
    }
    for _ in 0..n {
        let saved = std::hint::black_box(&g).clone();
        g = std::hint::black_box(saved);
    }
    g.state_hash()
}

#[cfg(test)]
mod tests {
    #[test]
    fn exports_agree_with_the_native_crate() {
        assert_eq!(super::ntba_golden_hash(), super::ntba_build_id());
        assert_eq!(
            super::ntba_script_hash(ntba::GOLDEN_TICKS),
            ntba::SCRIPT_HASH
        );
        assert_eq!(super::ntba_match_hash(), ntba::MATCH_HASH);
        assert_eq!(super::ntba_rules_hash(), ntba::RULES_HASH);
        assert_eq!(super::ntba_people_hash(), ntba::PEOPLE_HASH);
        let ticks = ntba::GOLDEN_TICKS;
        assert_eq!(super::ntba_people_script_hash(3, ticks), ntba::PEOPLE3_HASH);
        assert_eq!(super::ntba_people_script_hash(4, ticks), ntba::PEOPLE4_HASH);
    }
}
