//! The hidden-state property: over random fleets and random games played to
//! the end through a simulated link, no message a peer sends ever contains
//! a cell of one of its ships that had not been hit when it sent it. The
//! only messages about a peer's own board are its results: the cell just
//! fired at, and for a sunk ship that ship's cells, all hit by then.
//! Every game ends with one winner and one loser, and both sides agree on
//! every outcome.

use battleship::{Board, Cell, End, Event, Msg, Outcome, Peer, SIZE};
use lockstep::{Channel, Millis, Transport};
use netsim::LinkConfig;
use proptest::prelude::*;

/// Cells of `board`'s ships not yet fired at.
fn unhit(board: &Board) -> Vec<Cell> {
    board
        .ships()
        .iter()
        .flat_map(|s| s.cells().iter().copied())
        .filter(|&c| !board.is_shot(c))
        .collect()
}

/// Every cell a message names.
fn cells_of(msg: &Msg) -> Vec<Cell> {
    match msg {
        Msg::Fire(c) => vec![*c],
        Msg::Result { cell, outcome } => {
            let mut v = vec![*cell];
            if let Outcome::Sunk { cells, .. } = outcome {
                v.extend(cells);
            }
            v
        }
        Msg::Leave => Vec::new(),
    }
}

/// Checks what `peer` is about to send against its own board, then sends
/// it on the link.
fn send_checked(peer: &mut Peer, link: &mut netsim::SimEndpoint) {
    let secret = unhit(peer.board());
    while let Some(bytes) = peer.poll_transmit() {
        let msg = Msg::decode(&bytes).expect("peers send valid messages");
        if let Msg::Result { .. } = msg {
            // A result is about the sender's own board: none of its cells
            // may be an unhit ship cell (the board has taken the shot).
            for c in cells_of(&msg) {
                assert!(!secret.contains(&c), "{msg:?} reveals unhit {c:?}");
            }
        }
        // No message carries more than a ship's worth of cells.
        assert!(cells_of(&msg).len() <= 6);
        link.send(Channel::Reliable, &bytes).expect("open");
    }
}

fn play(seed: u64, link_seed: u64, shots_seed: u64) {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(10),
        loss_percent: 10,
        ..LinkConfig::default()
    };
    let (mut a_net, mut b_net) = netsim::pair(link, link_seed);
    let mut a = Peer::new(Board::random(seed), true);
    let mut b = Peer::new(Board::random(seed.rotate_left(13) ^ 1), false);
    let mut order: Vec<Cell> = (0..SIZE)
        .flat_map(|y| (0..SIZE).map(move |x| Cell { x, y }))
        .collect();
    // Each side fires in its own shuffled order.
    let shuffle = |order: &mut Vec<Cell>, mut s: u64| {
        for i in (1..order.len()).rev() {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            order.swap(i, (s >> 33) as usize % (i + 1));
        }
    };
    let mut a_order = order.clone();
    shuffle(&mut a_order, shots_seed);
    shuffle(&mut order, shots_seed ^ 0xFF);
    let mut b_order = order;
    let (mut a_seen, mut b_seen) = (Vec::new(), Vec::new());
    let mut now = 0u64;
    while a.ended().is_none() || b.ended().is_none() {
        now += 5;
        assert!(now < 600_000, "the game ends");
        a_net.advance_to(Millis(now));
        for (peer, net, order, seen) in [
            (&mut a, &mut a_net, &mut a_order, &mut a_seen),
            (&mut b, &mut b_net, &mut b_order, &mut b_seen),
        ] {
            while let Some((_, bytes)) = net.recv() {
                peer.handle_datagram(&bytes);
            }
            if peer.my_turn() {
                while let Some(c) = order.pop() {
                    if peer.fire(c).is_ok() {
                        break;
                    }
                }
            }
            send_checked(peer, net);
            while let Some(e) = peer.poll_event() {
                seen.push(e);
            }
        }
    }
    let ends = (a.ended().expect("over"), b.ended().expect("over"));
    assert!(
        ends == (End::Won, End::Lost) || ends == (End::Lost, End::Won),
        "{ends:?}"
    );
    // What one side learned of a shot is what the other side told.
    let landed = |seen: &[Event]| -> Vec<(Cell, Outcome)> {
        seen.iter()
            .filter_map(|e| match e {
                Event::Landed { cell, outcome } => Some((*cell, outcome.clone())),
                _ => None,
            })
            .collect()
    };
    let incoming = |seen: &[Event]| -> Vec<(Cell, Outcome)> {
        seen.iter()
            .filter_map(|e| match e {
                Event::Incoming { cell, outcome } => Some((*cell, outcome.clone())),
                _ => None,
            })
            .collect()
    };
    assert_eq!(landed(&a_seen), incoming(&b_seen));
    assert_eq!(landed(&b_seen), incoming(&a_seen));
    // The loser's whole fleet was hit; the winner's unhit cells never
    // crossed the wire (checked message by message above).
    let loser = if ends.0 == End::Lost { &a } else { &b };
    assert!(unhit(loser.board()).is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_message_reveals_an_unhit_ship(seed in any::<u64>(), link_seed in any::<u64>(), shots in any::<u64>()) {
        play(seed, link_seed, shots);
    }
}
