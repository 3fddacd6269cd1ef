//! A player who leaves mid-game says goodbye: the other side's game ends
//! as "the other left", not as a rule violation, and the goodbye carries
//! nothing of the leaver's board. Once a game is over, leaving sends
//! nothing.

use battleship::{Board, Cell, End, Event, Msg, Peer};

/// Moves every queued datagram between the two peers until both are
/// quiet; returns what `a` sent, decoded.
fn exchange(a: &mut Peer, b: &mut Peer) -> Vec<Msg> {
    let mut sent_by_a = Vec::new();
    loop {
        let mut moved = false;
        while let Some(bytes) = a.poll_transmit() {
            sent_by_a.push(Msg::decode(&bytes).expect("a peer sends valid messages"));
            b.handle_datagram(&bytes);
            moved = true;
        }
        while let Some(bytes) = b.poll_transmit() {
            a.handle_datagram(&bytes);
            moved = true;
        }
        if !moved {
            return sent_by_a;
        }
    }
}

#[test]
fn leaving_mid_game_ends_the_other_side_as_left() {
    let mut a = Peer::new(Board::random(11), true);
    let mut b = Peer::new(Board::random(12), false);
    // A few shots each way, then `a` leaves while `b` is to fire.
    for x in 0..3 {
        a.fire(Cell { x, y: 0 }).unwrap();
        exchange(&mut a, &mut b);
        b.fire(Cell { x, y: 9 }).unwrap();
        exchange(&mut a, &mut b);
    }
    a.fire(Cell { x: 5, y: 5 }).unwrap();
    exchange(&mut a, &mut b);
    assert!(b.my_turn());
    while b.poll_event().is_some() {}
    a.leave();
    assert_eq!(a.ended(), Some(End::Left));
    let sent = exchange(&mut a, &mut b);
    assert_eq!(sent, vec![Msg::Leave], "one goodbye, naming no cell");
    assert_eq!(Msg::Leave.encode().len(), 1);
    assert_eq!(b.ended(), Some(End::OtherLeft));
    assert_eq!(b.poll_event(), Some(Event::Ended(End::OtherLeft)));
    // Nothing more: `b` cannot fire, and leaving now sends nothing.
    assert!(b.fire(Cell { x: 9, y: 9 }).is_err());
    b.leave();
    assert_eq!(b.poll_transmit(), None);
    assert_eq!(b.ended(), Some(End::OtherLeft));
}

#[test]
fn a_goodbye_is_legal_while_waiting_for_a_result() {
    let mut a = Peer::new(Board::random(21), true);
    let mut b = Peer::new(Board::random(22), false);
    a.fire(Cell { x: 4, y: 4 }).unwrap();
    // `b` leaves before answering the shot it has not read yet.
    b.leave();
    while let Some(bytes) = b.poll_transmit() {
        a.handle_datagram(&bytes);
    }
    assert_eq!(a.ended(), Some(End::OtherLeft));
    // The shot reaches a peer that has left: it is ignored, not answered.
    while let Some(bytes) = a.poll_transmit() {
        b.handle_datagram(&bytes);
    }
    assert_eq!(b.ended(), Some(End::Left));
    assert_eq!(b.poll_transmit(), None);
}
