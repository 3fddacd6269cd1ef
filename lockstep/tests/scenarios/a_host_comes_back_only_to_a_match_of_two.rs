//! With three players or more a returning host would need every guest to
//! agree on when slot 0 came back and which of the old host's inputs
//! exist (one guest may hold more of them than another): not built. A
//! host of three is refused its comeback configuration
//! (`ConfigError::HostBack`), and a guest refuses a `Rejoin` for slot 0
//! with `RejoinRefused { HostUnable }` even with the right token; the
//! guests hold slot 0 and end with `PlayerLeft { slot: 0 }` as before.
use crate::common;

use common::{in_both_modes, rejoin_mesh, Bench, Mode};
use lockstep::wire::{ByeReason, Message, Rejoin, RejoinRefusal, PROTOCOL_VERSION};
use lockstep::{Channel, ConfigError, DeterministicGame, Outcome, PeerId, Session, SessionConfig};

/// A link guest 1 never opened.
const STRANGER: PeerId = PeerId(60);

#[test]
fn a_host_comes_back_only_to_a_match_of_two() {
    in_both_modes(|mode| {
        let (seed, entropy) = (73, 0x7_0b0c_2026);
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let mut m = rejoin_mesh(mode, 3, seed, entropy, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        let cfg = mode.cfg(
            SessionConfig::host(seed, delay)
                .rejoin_entropy(entropy)
                .players(3),
        );
        assert_eq!(
            Session::<Bench>::new(cfg.back_as_host(token)).err(),
            Some(ConfigError::HostBack)
        );

        m.players[0].runs = false;
        m.sever_player(0);
        let rejoin = Message::<u8>::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: Bench::BUILD_ID,
            slot: 0,
            token,
        })
        .encode()
        .expect("a rejoin encodes");
        let now = m.net.now();
        m.players[1].handle_datagram(now, STRANGER, Channel::Reliable, &rejoin);
        let (_, answer) = m.players[1]
            .poll_transmit_to(STRANGER)
            .expect("the guest answers on that link");
        assert_eq!(
            Message::<u8>::decode(&answer),
            Ok(Message::Bye(ByeReason::RejoinRefused(
                RejoinRefusal::HostUnable
            )))
        );
        assert!(m.run_until_all_end_of(&[1, 2], 60 * 40), "{}", m.progress());
        for i in [1, 2] {
            assert_eq!(
                m.players[i].outcome(),
                Some(&Outcome::PlayerLeft { slot: 0 })
            );
        }
    });
}
