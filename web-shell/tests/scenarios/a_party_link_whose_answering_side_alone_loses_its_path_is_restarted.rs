//! A party of three plays when the network of one guest changes and only
//! that guest's browser notices the lost path under its link to the other
//! guest, the side that answered in that link's handshake: it asks the
//! other guest (the side that offered) for an ICE restart, naming the
//! link by its room, and the link comes back on the same connection with
//! no comeback room. Asks from a player not in the party, for a link the
//! asked page answered on, or for a link of another room begin nothing.

use crate::common;

use common::World;
use web_shell::id::RoomCode;
use web_shell::protocol::PeerMsg;

#[test]
fn a_party_guest_that_alone_loses_its_path_asks_and_the_link_is_restarted() {
    let mut w = World::party_playing(3, 0x1ce_2030);
    let all = [0, 1, 2];
    let (peers, rooms) = (w.peers_created, w.rooms_made());
    // The guest that answered on the guests' link.
    let (link, offered) = w.party_link_between(1, 2);
    let (answerer, offerer, link) = if offered {
        let (l, _) = w.party_link_between(2, 1);
        (2, 1, l)
    } else {
        (1, 2, link)
    };
    assert!(w.party_link_between(offerer, answerer).1);

    // Asks that begin nothing: from a lobby player not in the party; from
    // the host, for its own link to that guest (made in the same room),
    // on which the guest answered and so makes no offer; from the guest
    // at the link's other end, for a link of a room that made none.
    let party_room = w
        .member_rooms
        .keys()
        .next()
        .and_then(|c| RoomCode::parse(c))
        .expect("the party's room");
    let ask = |link| {
        PeerMsg::IceRestartAsk {
            after: 0,
            link,
            vouch: None,
        }
        .encode()
    };
    w.lobby_text_from(3, offerer, &ask(Some(party_room.clone())));
    w.lobby_text_from(0, offerer, &ask(Some(party_room.clone())));
    w.lobby_text_from(answerer, offerer, &ask(RoomCode::parse("ZZZZZZ")));
    w.lobby_text_from(answerer, offerer, &ask(None));
    w.run(50);
    assert_eq!(w.restart_offers, 0, "no restart from those asks");

    let lost_at = w
        .pages
        .iter()
        .take(3)
        .filter_map(|p| p.shell.match_view().tick)
        .max()
        .unwrap();
    w.lose_path_seen_only_by(answerer, &link);
    w.run(20);
    assert_eq!(w.restart_offers, 1, "the offering guest restarts, asked");
    w.until(2_000, "both guests count a restart that worked", |w| {
        [offerer, answerer]
            .iter()
            .all(|&p| w.pages[p].shell.match_view().ice_restarts == Some(1))
    });
    w.until(3_000, "all three play on", |w| {
        w.all_play(&all, lost_at + 120)
    });
    assert_eq!(w.restart_offers, 1, "no restart more");
    assert_eq!(w.peers_created, peers, "no new peer connection");
    assert_eq!(w.rooms_made(), rooms, "no comeback room");
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.rejoined, None, "page {p}: no fresh session");
        assert_eq!(v.held, None, "page {p}: no place held");
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
    }
    assert_eq!(w.pages[0].shell.match_view().ice_restarts, None);
    w.leave_and_logs_agree(0, &all, &[1, lost_at, lost_at + 120]);
}
