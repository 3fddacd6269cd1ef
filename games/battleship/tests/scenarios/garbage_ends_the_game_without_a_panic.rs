//! Bytes that do not decode, and messages that break the rules (a shot out
//! of turn, a result for a cell not fired at, an impossible sunk ship), end
//! the game as a violation; nothing panics.

use battleship::{Board, Cell, End, Msg, Outcome, Peer};
use proptest::prelude::*;

fn peer(starts: bool) -> Peer {
    Peer::new(Board::random(5), starts)
}

#[test]
fn rule_breaking_messages_end_the_game() {
    let c = |x, y| Cell { x, y };
    // A shot while this side is to fire.
    let mut p = peer(true);
    p.handle_datagram(&Msg::Fire(c(1, 1)).encode());
    assert_eq!(p.ended(), Some(End::Violation));
    // A result for another cell.
    let mut p = peer(true);
    p.fire(c(2, 2)).unwrap();
    p.handle_datagram(
        &Msg::Result {
            cell: c(3, 3),
            outcome: Outcome::Miss,
        }
        .encode(),
    );
    assert_eq!(p.ended(), Some(End::Violation));
    // A "sunk" ship of cells never hit.
    let mut p = peer(true);
    p.fire(c(2, 2)).unwrap();
    let cells = vec![c(2, 2), c(3, 2)];
    p.handle_datagram(
        &Msg::Result {
            cell: c(2, 2),
            outcome: Outcome::Sunk { cells, last: false },
        }
        .encode(),
    );
    assert_eq!(p.ended(), Some(End::Violation));
    // A cell off the board does not decode.
    assert!(Msg::decode(&Msg::Fire(c(10, 0)).encode()).is_err());
}

proptest! {
    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40), starts in any::<bool>()) {
        let mut p = peer(starts);
        if starts {
            p.fire(Cell { x: 0, y: 0 }).unwrap();
        }
        p.handle_datagram(&bytes);
        if Msg::decode(&bytes).is_err() {
            prop_assert_eq!(p.ended(), Some(End::Violation));
        }
        while p.poll_transmit().is_some() {}
    }
}
