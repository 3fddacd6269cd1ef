//! Room codes: alphabet, unbiased draw, parsing.

use signaling_protocol::{RoomCode, ROOM_CODE_ALPHABET, ROOM_CODE_LEN};

#[test]
fn alphabet_has_no_look_alikes() {
    for c in b"01OIL" {
        assert!(!ROOM_CODE_ALPHABET.contains(c), "{}", *c as char);
    }
    let mut sorted = ROOM_CODE_ALPHABET.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ROOM_CODE_ALPHABET.len(), "no repeats");
}

#[test]
fn every_accepted_byte_value_is_used_equally_often() {
    // Feed every byte value once, in groups of six: each character of the
    // alphabet must come out exactly 248 / 31 = 8 times, and bytes 248..=255
    // must never be used.
    let mut counts = [0u32; 256];
    let accepted: Vec<u8> = (0u8..=255).filter(|b| *b < 248).collect();
    assert_eq!(accepted.len() % ROOM_CODE_LEN, 2); // 248 = 41 * 6 + 2
    for chunk in accepted.chunks_exact(ROOM_CODE_LEN) {
        let code = RoomCode::from_random_bytes(chunk).expect("six accepted bytes");
        for b in code.as_str().bytes() {
            counts[b as usize] += 1;
        }
    }
    let last: Vec<u8> = accepted[246..]
        .iter()
        .copied()
        .chain([0, 1, 2, 3])
        .collect();
    for b in RoomCode::from_random_bytes(&last).unwrap().as_str().bytes() {
        counts[b as usize] += 1;
    }
    // 248 + 4 extra draws of bytes 0..=3 (characters A, B, C, D).
    for (i, &c) in ROOM_CODE_ALPHABET.iter().enumerate() {
        let extra = u32::from(i < 4);
        assert_eq!(counts[c as usize], 8 + extra, "character {}", c as char);
    }
}

#[test]
fn biased_bytes_are_skipped() {
    let bytes = [255, 248, 0, 250, 1, 2, 3, 4, 252, 30];
    let code = RoomCode::from_random_bytes(&bytes).unwrap();
    assert_eq!(code.as_str(), "ABCDE9");
    assert_eq!(
        RoomCode::from_random_bytes(&[0, 1, 2, 3, 4, 255, 249]),
        None
    );
    assert_eq!(RoomCode::from_random_bytes(&[]), None);
}

#[test]
fn byte_maps_modulo_alphabet() {
    // 31 maps to the first character again, 247 to the last.
    let code = RoomCode::from_random_bytes(&[31, 62, 247, 32, 33, 30]).unwrap();
    assert_eq!(code.as_str(), "AA9BC9");
}

#[test]
fn parse_accepts_codes_and_lower_case() {
    assert_eq!(RoomCode::parse("K7M2QX").unwrap().as_str(), "K7M2QX");
    assert_eq!(RoomCode::parse("k7m2qx").unwrap().as_str(), "K7M2QX");
    for bad in [
        "", "K7M2Q", "K7M2QXX", "K7M2Q0", "K7M2QO", "K7M2QI", "K7M2Q1", "K7M2QL", "K7M2Q-",
        "K7M2Qé",
    ] {
        assert!(RoomCode::parse(bad).is_none(), "{bad:?}");
    }
}

#[test]
fn serde_round_trip_and_validation() {
    let code = RoomCode::parse("K7M2QX").unwrap();
    let json = serde_json::to_string(&code).unwrap();
    assert_eq!(json, "\"K7M2QX\"");
    assert_eq!(serde_json::from_str::<RoomCode>(&json).unwrap(), code);
    assert!(serde_json::from_str::<RoomCode>("\"OOOOOO\"").is_err());
}
