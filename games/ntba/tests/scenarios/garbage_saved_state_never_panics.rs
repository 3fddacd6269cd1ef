//! Bytes offered as a saved state never make NtBA panic: cut short or
//! with bytes added they are refused; with a byte changed or made up at
//! random they are refused, or (a change that keeps every value in range)
//! load to a state that saves back to those very bytes and plays a
//! five seconds of random pads on the court without a panic.
//!
//! Such a state is one no match reached, so what it plays into need not
//! load again (a dead ball thrown up faster than any real one rises
//! above the highest a saved ball may be); a session only ever plays a
//! loaded state whose hash is the host's.

use lockstep::DeterministicGame;
use ntba::{Cpu, Ntba, Pad, Rng, COURT_LENGTH, COURT_WIDTH, MAX_SAVED_BYTES, PLAYER_RADIUS};

/// Saved states from a CPU match of `people`, one every `every` ticks.
fn saves(seed: u64, people: u8, every: u32) -> Vec<Vec<u8>> {
    let mut g = Ntba::new(seed, people);
    let mut cpus: Vec<Cpu> = (0..people).map(|s| Cpu::new(u64::from(s) + 1)).collect();
    let mut out = Vec::new();
    while !g.is_over() {
        if g.tick() % every == 0 {
            out.extend(g.save());
        }
        let pads: Vec<Pad> = (0..people)
            .map(|s| cpus[usize::from(s)].pad_for_slot(&g, s))
            .collect();
        g.step(&pads);
    }
    out.extend(g.save());
    out
}

/// A loaded state saves back to `bytes` and plays on inside the lines.
fn stays_consistent(g: Ntba, bytes: &[u8], rng: &mut Rng) -> bool {
    assert_eq!(
        g.save().as_deref(),
        Some(bytes),
        "loads, but not as written"
    );
    let mut g = g;
    let people = usize::from(g.people());
    let mut reloads = true;
    for t in 0..300 {
        let pads: Vec<Pad> = (0..people).map(|_| Pad(rng.below(256) as u8)).collect();
        g.step(&pads);
        for p in g.players() {
            assert!((PLAYER_RADIUS..=COURT_LENGTH - PLAYER_RADIUS).contains(&p.x));
            assert!((PLAYER_RADIUS..=COURT_WIDTH - PLAYER_RADIUS).contains(&p.y));
        }
        let b = g.ball();
        assert!((0..=COURT_LENGTH).contains(&b.x) && (0..=COURT_WIDTH).contains(&b.y));
        assert!(b.z >= 0);
        if t % 30 == 29 {
            reloads &= Ntba::load(&g.save().unwrap_or_default()).is_some();
        }
    }
    reloads
}

#[test]
fn garbage_saved_state_never_panics() {
    let mut rng = Rng::new(0x6a5b);
    let mut loaded = 0;
    let mut refused = 0;
    let mut strays = 0;
    for (seed, people) in [(1, 2), (2, 3), (3, 4)] {
        for bytes in saves(seed, people, 4_000) {
            // Cut short anywhere: refused.
            for n in 0..bytes.len() {
                assert!(Ntba::load(&bytes[..n]).is_none(), "cut to {n} bytes");
            }
            // Anything after the state: refused.
            for extra in [&[0u8][..], &[1], &[0xff, 0xff]] {
                let mut longer = bytes.clone();
                longer.extend_from_slice(extra);
                assert!(Ntba::load(&longer).is_none());
            }
            // One byte changed, at every place, to a few values.
            for i in 0..bytes.len() {
                for v in [0u8, 1, 0x7f, 0x80, 0xff, bytes[i] ^ 1, bytes[i] ^ 0x40] {
                    if v == bytes[i] {
                        continue;
                    }
                    let mut bad = bytes.clone();
                    bad[i] = v;
                    match Ntba::load(&bad) {
                        Some(g) => {
                            loaded += 1;
                            if !stays_consistent(g, &bad, &mut rng) {
                                strays += 1;
                            }
                        }
                        None => refused += 1,
                    }
                }
            }
        }
    }
    // Most changed bytes put a value out of range or break the layout.
    eprintln!(
        "{loaded} changed states loaded ({strays} played into one load refuses), {refused} refused"
    );
    assert!(refused > loaded, "{loaded} loaded, {refused} refused");

    // Random bytes of every length up to past the bound.
    for _ in 0..20_000 {
        let n = rng.below(MAX_SAVED_BYTES as u32 + 40) as usize;
        let bytes: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
        if let Some(g) = Ntba::load(&bytes) {
            let _ = stays_consistent(g, &bytes, &mut rng);
        }
    }
    assert!(Ntba::load(&[]).is_none());
    assert!(Ntba::load(&vec![0; MAX_SAVED_BYTES + 1]).is_none());
}
