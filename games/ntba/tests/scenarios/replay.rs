//! A recorded match replays to the same hash through lockstep's InputLog.

use lockstep::{DeterministicGame, InputLog, ReplayError};
use ntba::{Cpu, Ntba, Pad};

fn record(seed: u64, ticks: u32) -> (InputLog<Pad>, Ntba) {
    let mut g = Ntba::new(seed, 2);
    let (mut a, mut b) = (Cpu::new(seed + 100), Cpu::new(seed + 200));
    let mut inputs = Vec::new();
    for _ in 0..ticks {
        let pads = [a.pad(&g, 0), b.pad(&g, 1)];
        g.step(&pads);
        inputs.extend_from_slice(&pads);
    }
    let log = InputLog {
        build: Ntba::BUILD_ID,
        seed,
        players: 2,
        input_delay: 0,
        final_hash: g.state_hash(),
        start_tick: 0,
        start_state: Vec::new(),
        inputs,
    };
    (log, g)
}

#[test]
fn an_exported_input_log_replays_to_the_final_hash() {
    let (log, game) = record(17, 5_000);
    let bytes = log.to_bytes().expect("pads encode");
    // One byte per pad, plus a small header.
    assert!(bytes.len() < 10_000 + 64, "{} bytes", bytes.len());
    let back = InputLog::<Pad>::from_bytes(&bytes).expect("decodes");
    assert_eq!(back.replay::<Ntba>(), Ok(game.state_hash()));
    let replayed: Ntba = back.replay_game().expect("replays");
    assert_eq!(replayed, game, "the whole state matches, not only the hash");
}

#[test]
fn a_tampered_log_is_caught() {
    // One changed button can legitimately converge back to the same state
    // (a press during a dead ball changes nothing that lasts), so change a
    // stretch of live play, and separately the very last input (it is in
    // the state as the previous pad).
    let (log, _) = record(18, 2_000);
    let mut stretch = log.clone();
    for pad in &mut stretch.inputs[600..1_000] {
        *pad = Pad(pad.0 ^ 0x0f);
    }
    assert!(matches!(
        stretch.replay::<Ntba>(),
        Err(ReplayError::HashMismatch { .. })
    ));
    let mut last = log.clone();
    let n = last.inputs.len() - 1;
    last.inputs[n] = Pad(last.inputs[n].0 ^ 0x40);
    assert!(matches!(
        last.replay::<Ntba>(),
        Err(ReplayError::HashMismatch { .. })
    ));
    assert!(log.replay::<Ntba>().is_ok());
}
