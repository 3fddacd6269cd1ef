//! Helpers of the scenarios where the host never comes back and its
//! place moves to the guest acting for it.

use lockstep::{DeterministicGame, Event};
use lockstep_testing::Mesh;

/// The host's page (member 0 of `m`) is gone for good: its session gets
/// no more frames and its links carry nothing more.
pub fn host_never_back<G: DeterministicGame<Input = u8>>(m: &mut Mesh<G>) {
    m.players[0].runs = false;
    m.sever_player(0);
}

/// The tick of every `Event::HostMoved` member `i` of `m` raised, with
/// the slot it names.
pub fn moves_seen<G: DeterministicGame>(m: &Mesh<G>, i: usize) -> Vec<(u8, u32)> {
    m.players[i]
        .seen
        .events
        .iter()
        .filter_map(|e| match e {
            Event::HostMoved { slot, tick } => Some((*slot, *tick)),
            _ => None,
        })
        .collect()
}

/// Checks that every member in `who` saw the host's place move once, to
/// `host`, at the same tick, with slot 0 leaving at that tick, and that
/// only `host`'s session says it is the host. Returns the tick.
pub fn assert_host_moved<G: DeterministicGame<Input = u8>>(
    m: &Mesh<G>,
    who: &[usize],
    host: u8,
) -> u32 {
    let tick = moves_seen(m, who[0]).first().map(|&(_, t)| t);
    let Some(tick) = tick else {
        panic!("member {} saw no move: {}", who[0], m.progress());
    };
    for &i in who {
        assert_eq!(moves_seen(m, i), [(host, tick)], "member {i}");
        let left = m.players[i]
            .seen
            .events
            .iter()
            .filter(|e| **e == Event::Left { slot: 0, tick })
            .count();
        assert_eq!(left, 1, "member {i}: slot 0 left at the move's tick");
        assert_eq!(m.players[i].is_host(), i == usize::from(host), "member {i}");
        assert_eq!(m.players[i].host_slot(), host, "member {i}");
    }
    tick
}
