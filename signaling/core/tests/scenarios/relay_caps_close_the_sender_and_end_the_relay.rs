//! A relay socket that sends a frame over the size cap (1009), more bytes
//! in a second than its rate (1008) or a text frame (1003) is closed, and
//! the other side with 1000: the relay is over. A steady match is never
//! limited.

use crate::relay_common;

use relay_common::paired;
use signaling_core::{close_code, Millis, RelayEvent, RelayLimits};

#[test]
fn a_frame_over_the_size_cap_closes_with_1009() {
    let (mut relay, mut h, host, guest) = paired("SXZEXX", RelayLimits::default());
    let too_big = vec![1u8; 16 * 1024 + 2];
    h.send(&mut relay, guest, &too_big, Millis(1_100));
    assert_eq!(h.closed[&guest], (close_code::TOO_BIG, "message too big"));
    assert_eq!(h.closed[&host], (close_code::NORMAL, "the other side left"));
    assert!(h.finished && relay.is_finished());
    assert!(h.frames.is_empty(), "nothing of it was forwarded");
    assert!(h
        .logs
        .iter()
        .any(|l| l.contains("\"relay.kicked\"") && l.contains("\"close\":1009")));
}

#[test]
fn a_text_frame_closes_with_1003() {
    let (mut relay, mut h, host, guest) = paired("TEXTXX", RelayLimits::default());
    let actions = relay.handle(
        RelayEvent::Frame {
            socket: host,
            len: 20,
            text: true,
        },
        Millis(1_100),
    );
    h.apply(actions, Some(b"{\"type\":\"paired\"}xx"));
    assert_eq!(
        h.closed[&host],
        (close_code::UNSUPPORTED, "binary frames only")
    );
    assert_eq!(h.closed[&guest].0, close_code::NORMAL);
    assert!(h.frames.is_empty());
}

#[test]
fn more_bytes_than_the_rate_in_one_second_closes_with_1008() {
    let limits = RelayLimits {
        bytes_per_second: 10_000,
        ..RelayLimits::default()
    };
    let (mut relay, mut h, host, guest) = paired("RATEXX", limits);
    // 10 frames of 1000 bytes fill the window exactly and all pass.
    for i in 0..10 {
        h.send(&mut relay, host, &[0; 1000], Millis(2_000 + i));
    }
    assert_eq!(h.frames[&guest].len(), 10);
    assert!(h.closed.is_empty());
    // One byte more in the same second is one too many.
    h.send(&mut relay, host, &[0], Millis(2_999));
    assert_eq!(h.closed[&host], (close_code::POLICY, "too many bytes"));
    assert_eq!(h.closed[&guest].0, close_code::NORMAL);
    assert_eq!(h.frames[&guest].len(), 10);
}

#[test]
fn tiny_frames_count_at_least_the_minimum_charge() {
    let limits = RelayLimits {
        bytes_per_second: 6_400,
        min_frame_charge: 64,
        ..RelayLimits::default()
    };
    let (mut relay, mut h, host, _guest) = paired("TXNYXX", limits);
    for i in 0..100 {
        h.send(&mut relay, host, &[1], Millis(2_000 + i));
    }
    assert!(h.closed.is_empty());
    h.send(&mut relay, host, &[1], Millis(2_500));
    assert_eq!(h.closed[&host].0, close_code::POLICY);
}

#[test]
fn a_steady_match_is_never_limited() {
    // Sixty 200-byte frames a second each way for two minutes: 12 KB/s,
    // a generous lock-step match, well under the default rate.
    let (mut relay, mut h, host, guest) = paired("STEADY", RelayLimits::default());
    for tick in 0..(60 * 120) {
        let now = Millis(2_000 + tick * 1000 / 60);
        h.send(&mut relay, host, &[2; 200], now);
        h.send(&mut relay, guest, &[3; 200], now);
    }
    assert!(h.closed.is_empty());
    assert_eq!(h.frames[&guest].len(), 60 * 120);
    assert_eq!(h.frames[&host].len(), 60 * 120);
}
