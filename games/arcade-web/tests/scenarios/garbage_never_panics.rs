//! Bytes from the other page are untrusted: random and mutated datagrams
//! on both channels, fed to the hub and to each game's slot directly (as
//! host and as guest), and random messages fed to the arena's worker,
//! never make them panic; the pages keep framing, and the slots keep
//! answering the shell.
use std::cell::RefCell;
use std::rc::Rc;

use arcade_web::hub::{HubMsg, HubSlot};
use arena_web::host_worker::HostWorker;
use arena_web::slot::{ArenaSlot, HostRunner, InlineHost, Probe as ArenaProbe};
use battleship_web::slot::{BattleshipSlot, Probe as ShipsProbe};
use lockstep::{Channel, Millis, SessionConfig};
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    #[allow(clippy::cast_possible_truncation)]
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    #[allow(clippy::cast_possible_truncation)]
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn arena() -> ArenaSlot {
    let make: arena_web::slot::MakeRunner =
        Box::new(|| Some(Box::new(InlineHost::default()) as Box<dyn HostRunner>));
    ArenaSlot::new(make, Rc::new(RefCell::new(ArenaProbe::default())))
}

fn ships() -> BattleshipSlot {
    BattleshipSlot::new(
        Box::new(|| 42),
        Rc::new(RefCell::new(ShipsProbe::default())),
    )
}

fn hub() -> HubSlot {
    HubSlot::new(vec![Box::new(arena()), Box::new(ships())])
}

/// Valid-looking datagrams to mutate: hub messages and framed game bytes.
fn seeds() -> Vec<Vec<u8>> {
    vec![
        HubMsg::Play {
            game: 1,
            generation: 3,
        }
        .encode(),
        HubMsg::Propose { game: 0 }.encode(),
        HubMsg::Leave.encode(),
        vec![1, 0, 0, 1, 2],
        vec![1, 0, 1, 3, 4, 2, 2, 3, 4, 3, 4, 0],
        vec![0, 3, 4],
    ]
}

fn feed(slot: &mut dyn GameSlot, rng: &mut Rng, steps: usize) {
    let mut view = MatchView::default();
    let seeds = seeds();
    for i in 0..steps {
        let now = Millis(i as u64 * 7);
        let mut bytes = if rng.below(2) == 0 {
            rng.bytes(64)
        } else {
            seeds[rng.below(seeds.len())].clone()
        };
        if !bytes.is_empty() && rng.below(2) == 0 {
            let at = rng.below(bytes.len());
            #[allow(clippy::cast_possible_truncation)]
            {
                bytes[at] = rng.next() as u8;
            }
        }
        let channel = if rng.below(2) == 0 {
            Channel::Reliable
        } else {
            Channel::Unreliable
        };
        slot.match_datagram(now, channel, &bytes);
        let keys: &[&str] = match rng.below(4) {
            0 => &["Space"],
            1 => &["Digit2"],
            2 => &["ArrowRight", "Digit1"],
            _ => &[],
        };
        let report = slot.match_frame(now, keys, &mut view);
        while slot.poll_match_transmit().is_some() {}
        if report.ended.is_some() {
            slot.drop_match();
            let cfg = if rng.below(2) == 0 {
                SessionConfig::host(rng.next(), 6)
            } else {
                SessionConfig::guest()
            };
            assert!(slot.start_match(cfg, now, 1));
        }
    }
}

#[test]
fn garbage_never_panics_any_slot_or_the_worker() {
    let mut rng = Rng(2026);
    let makers: [fn() -> Box<dyn GameSlot>; 3] = [
        || Box::new(arena()),
        || Box::new(ships()),
        || Box::new(hub()),
    ];
    for make in makers {
        for host in [true, false] {
            let mut slot = make();
            let cfg = if host {
                SessionConfig::host(5, 6)
            } else {
                SessionConfig::guest()
            };
            assert!(slot.start_match(cfg, Millis(0), 1));
            feed(slot.as_mut(), &mut rng, 5_000);
        }
    }
    let mut worker = HostWorker::new();
    worker.handle_bytes(
        Millis(0),
        &arena_web::bridge::encode(&arena_web::bridge::ToWorker::Start {
            seed: 1,
            links: vec![1, 2, 3],
        }),
    );
    for i in 0..20_000u64 {
        let bytes = rng.bytes(40);
        worker.handle_bytes(Millis(i), &bytes);
        worker.tick(Millis(i));
        while worker.poll().is_some() {}
    }
    assert!(
        worker.dropped() > 0,
        "garbage was refused, not taken for messages"
    );
}
