//! Strict decoding of both directions' datagrams and of delta patches:
//! never a panic, whatever decodes encodes back to exactly the same bytes,
//! and a patch applied to a snapshot tree gives a tree within the limits or
//! an error.
#![no_main]

use authority::delta::{self, Op};
use authority::wire::{ToGuest, ToHost};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = ToHost::decode(data) {
        // Cannot fail: a message that decoded holds only encodable values.
        assert_eq!(m.encode().expect("decoded messages encode"), data);
    }
    if let Ok(m) = ToGuest::decode(data) {
        // Cannot fail: a message that decoded holds only encodable values.
        assert_eq!(m.encode().expect("decoded messages encode"), data);
    }
    if let Ok((ops, _)) = postcard::take_from_bytes::<Vec<Op>>(data) {
        let base = serde_json::json!({
            "ships": [{"id": 1, "x": 10, "y": -4}, {"id": 2, "x": 0, "y": 7}],
            "me": {"x": 1.5, "y": 2.25},
            "name": "arena",
        });
        if let Ok(tree) = delta::apply_patch(&base, &ops) {
            assert!(delta::check_limits(&tree).is_ok());
        }
        let _ = delta::read_tree(&ops);
    }
});
