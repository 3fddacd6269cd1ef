//! Strict decoding of peer datagrams (part hashes included), input logs
//! and desync reports: never a panic, and whatever decodes encodes back to
//! exactly the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep::wire::Message;
use lockstep::{DesyncReport, InputLog};

fuzz_target!(|data: &[u8]| {
    // One-byte inputs (NtBA's pad) and wider ones (a game with u16 input).
    if let Ok(m) = Message::<u8>::decode(data) {
        // Cannot fail: a message that decoded holds only encodable values.
        assert_eq!(m.encode().expect("decoded messages encode"), data);
    }
    if let Ok(m) = Message::<u16>::decode(data) {
        // Cannot fail: a message that decoded holds only encodable values.
        assert_eq!(m.encode().expect("decoded messages encode"), data);
    }
    if let Ok(log) = InputLog::<u8>::from_bytes(data) {
        // Cannot fail: a log that decoded holds only encodable u8 inputs.
        let again = log.to_bytes().expect("decoded logs encode");
        assert_eq!(InputLog::<u8>::from_bytes(&again), Ok(log));
    }
    if let Ok(report) = DesyncReport::<u8>::from_bytes(data) {
        // Cannot fail: a report that decoded holds only encodable u8 inputs.
        assert_eq!(report.to_bytes().expect("decoded reports encode"), data);
    }
});
