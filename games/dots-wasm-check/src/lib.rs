//! The dots game's determinism check module: plain `extern "C"` exports
//! with no imports, so any WebAssembly engine (Node, wasmtime, Chromium,
//! Firefox) can load it and compare its answers with the native build.
//!
//! Exports (a `u64` is an `i64` at the wasm boundary, the same bits):
//! - `dots_build_id() -> u64`: the constant compiled in (`Dots::BUILD_ID`).
//! - `dots_golden_hash() -> u64`: the golden script replayed here, now
//!   (`dots::golden_hash`).
#![warn(missing_docs)]

use dots::Dots;
use lockstep::DeterministicGame;

// `#[no_mangle]` is the only "unsafe" thing here: it promises the symbol
// name is unique in the module, which holds for these two `dots_` names.

/// The build id compiled into this build.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn dots_build_id() -> u64 {
    Dots::BUILD_ID
}

/// The golden script replayed in this engine.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn dots_golden_hash() -> u64 {
    dots::golden_hash()
}

#[cfg(test)]
mod tests {
    #[test]
    fn exports_agree_with_the_native_crate() {
        assert_eq!(super::dots_golden_hash(), super::dots_build_id());
        assert_eq!(super::dots_golden_hash(), dots::golden_hash());
    }
}
