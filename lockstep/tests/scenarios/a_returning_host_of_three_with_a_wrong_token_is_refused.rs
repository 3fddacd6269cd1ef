//! While the host of a match of three is away, a stranger shows one
//! guest a `Rejoin` for slot 0 with a wrong token: that guest refuses it
//! on that link alone with `RejoinRefused { WrongToken }`. Then a fresh
//! host session with a wrong token comes back on every link: each guest
//! refuses it on its own link, the session ends with that refusal, and
//! slot 0 stays held. The host's real fresh session, with the right
//! token within the window, is then taken back and the match goes on in
//! sync.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    until_host_live, Bench, Mode,
};
use lockstep::wire::{ByeReason, Message, Rejoin, RejoinRefusal, PROTOCOL_VERSION};
use lockstep::{Channel, DeterministicGame, Event, Outcome, PeerId};

/// A link guest 2 never opened.
const STRANGER: PeerId = PeerId(60);

#[test]
fn a_returning_host_of_three_with_a_wrong_token_is_refused() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (97, 0x2a3b_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 3, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        host_gone_for(&mut m, 60);

        let forged = Message::<u8>::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: Bench::BUILD_ID,
            slot: 0,
            token: token ^ 0x77,
        })
        .encode()
        .expect("a rejoin encodes");
        let now = m.net.now();
        m.players[2].handle_datagram(now, STRANGER, Channel::Reliable, &forged);
        let (_, answer) = m.players[2]
            .poll_transmit_to(STRANGER)
            .expect("the guest answers on that link");
        assert_eq!(
            Message::<u8>::decode(&answer),
            Ok(Message::Bye(ByeReason::RejoinRefused(
                RejoinRefusal::WrongToken
            )))
        );

        let wrong = host_back_cfg(mode, seed, entropy, delays, token ^ 0x5a5a).players(3);
        m.reload_as(0, wrong)
            .expect("the configuration is valid; only the guests can check the token");
        assert!(m.run_until_all_end_of(&[0], 600), "{}", m.progress());
        assert_eq!(
            m.players[0].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::WrongToken
            })
        );
        for i in [1, 2] {
            assert!(m.players[i].outcome().is_none());
            assert_eq!(count_events(&m, i, &Event::Resumed { slot: 0 }), 0);
        }

        let right = host_back_cfg(mode, seed, entropy, delays, token).players(3);
        m.reload_as(0, right)
            .expect("a host with entropy can come back");
        until_host_live(&mut m, 600).expect("the host is back");
        assert!(m.run_to_confirmed(1200, 9000), "{}", m.progress());
        for i in [1, 2] {
            assert_eq!(count_events(&m, i, &Event::Resumed { slot: 0 }), 1);
        }
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[0, 1, 2], want);
    });
}
