//! Exported input log -> replay -> same final hash, on both sides of a
//! lossy match; and the log's byte format is read strictly.
use crate::common;

use common::{Mode, Pair, Tiny, TinyOtherBuild};
use lockstep::{DeterministicGame, InputLog, LogDecodeError, Millis, ReplayError};
use netsim::LinkConfig;

fn played() -> Pair<Tiny, Tiny> {
    played_in(Mode::LockStep)
}

fn played_in(mode: Mode) -> Pair<Tiny, Tiny> {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 10,
        ..LinkConfig::default()
    };
    let mut p = Pair::tiny_in(mode, link, 61, 0xabc, 6);
    assert!(p.run_to_tick(1200, 4000));
    p
}

#[test]
fn exported_logs_replay_to_the_same_hash() {
    // In rollback the log holds the confirmed ticks (the last few may
    // still rest on predictions), and its hash is the confirmed state's.
    common::in_both_modes(|mode| {
        let p = played_in(mode);
        for (log, hash, ticks) in [
            (
                p.host.input_log(),
                // Cannot fail: the test ran the match to a tick before this.
                p.host
                    .confirmed_game()
                    .expect("the match started")
                    .state_hash(),
                p.host.confirmed_tick(),
            ),
            (
                p.guest.input_log(),
                // Cannot fail: the test ran the match to a tick before this.
                p.guest
                    .confirmed_game()
                    .expect("the match started")
                    .state_hash(),
                p.guest.confirmed_tick(),
            ),
        ] {
            assert_eq!(log.ticks(), ticks);
            assert_eq!(log.seed, 0xabc);
            // Cannot fail: u8 inputs always encode with postcard.
            let bytes = log.to_bytes().expect("u8 inputs encode");
            // Cannot fail: the bytes were produced by to_bytes just above.
            let back = InputLog::<u8>::from_bytes(&bytes).expect("just exported");
            assert_eq!(back, log);
            assert_eq!(back.replay::<Tiny>(), Ok(hash));
        }
        // Both logs agree on every tick both recorded (side 0 first).
        let (h, g) = (p.host.input_log(), p.guest.input_log());
        let common_ticks = h.ticks().min(g.ticks());
        for t in 0..common_ticks {
            assert_eq!(h.tick_inputs(t), g.tick_inputs(t), "tick {t}");
        }
    });
}

#[test]
fn replay_checks_build_and_hash() {
    let p = played();
    let mut log = p.host.input_log();
    assert!(matches!(
        log.replay::<TinyOtherBuild>(),
        Err(ReplayError::BuildMismatch { .. })
    ));
    log.inputs[100] ^= 1;
    assert!(matches!(
        log.replay::<Tiny>(),
        Err(ReplayError::HashMismatch { .. })
    ));
}

#[test]
fn log_bytes_are_read_strictly() {
    let bytes = played()
        .host
        .input_log()
        .to_bytes()
        // Cannot fail: u8 inputs always encode with postcard.
        .expect("u8 inputs encode");
    assert_eq!(&bytes[..4], b"LSIL");
    for n in [0, 3, 10, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            InputLog::<u8>::from_bytes(&bytes[..n]).is_err(),
            "cut at {n}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        InputLog::<u8>::from_bytes(&longer),
        Err(LogDecodeError::TrailingBytes(1))
    );
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(
        InputLog::<u8>::from_bytes(&magic),
        Err(LogDecodeError::BadMagic)
    );
    let mut version = bytes.clone();
    version[4] = 3;
    assert_eq!(
        InputLog::<u8>::from_bytes(&version),
        Err(LogDecodeError::UnsupportedVersion(3))
    );
    // A start tick past 0 needs the saved state it starts from, and a
    // saved state a start tick (bytes 31 and 32: after the magic, version,
    // three 8-byte fields, players and input delay).
    assert_eq!(bytes[START_AT..START_AT + 2], [0, 0], "a log from the seed");
    let mut tick_only = bytes.clone();
    tick_only[START_AT] = 5;
    assert_eq!(
        InputLog::<u8>::from_bytes(&tick_only),
        Err(LogDecodeError::Inconsistent)
    );
    let mut state_only = bytes.clone();
    state_only.splice(START_AT + 1..START_AT + 2, [1, 7]);
    assert_eq!(
        InputLog::<u8>::from_bytes(&state_only),
        Err(LogDecodeError::Inconsistent)
    );
}

/// Where the start tick lies in a log's bytes.
const START_AT: usize = 4 + 1 + 8 + 8 + 8 + 1 + 1;

#[test]
fn a_log_of_format_version_1_still_reads() {
    let log = played().host.input_log();
    let bytes = log.to_bytes().expect("u8 inputs encode");
    // Version 1 had no start tick and no saved state.
    let mut v1 = bytes.clone();
    v1[4] = 1;
    v1.drain(START_AT..START_AT + 2);
    assert_eq!(InputLog::<u8>::from_bytes(&v1).as_ref(), Ok(&log));
    // It has no room for them either: version 2's bytes read as version 1
    // are not a log.
    let mut v2_as_v1 = bytes;
    v2_as_v1[4] = 1;
    assert!(InputLog::<u8>::from_bytes(&v2_as_v1).is_err());
}

#[test]
fn a_log_plays_to_any_tick_within_it_and_no_further() {
    let log = played().host.input_log();
    let mut game = Tiny::new(log.seed, log.players);
    for t in 0..600 {
        game.step(log.tick_inputs(t).expect("within the log"));
    }
    assert_eq!(
        log.game_at::<Tiny>(600).map(|g| g.state_hash()),
        Ok(game.state_hash())
    );
    assert_eq!(
        log.game_at::<Tiny>(log.ticks() + 1).err(),
        Some(ReplayError::PastEnd { end: log.ticks() })
    );
    assert_eq!(
        log.game_at::<TinyOtherBuild>(600)
            .err()
            .map(|e| matches!(e, ReplayError::BuildMismatch { .. })),
        Some(true)
    );
}

#[test]
fn an_unstarted_session_exports_an_empty_log() {
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let s = lockstep::Session::<Tiny>::new(lockstep::SessionConfig::guest()).expect("valid config");
    let log = s.input_log();
    assert_eq!(log.ticks(), 0);
    assert_eq!(log.replay::<Tiny>(), Ok(Tiny::new(0, 2).state_hash()));
}
