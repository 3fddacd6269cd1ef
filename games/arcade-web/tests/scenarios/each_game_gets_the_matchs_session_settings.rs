//! The hub passes the shell's session settings for the match (rollback or
//! lock-step, the input delay picked from the round trip) to each game it
//! starts, with the seed moved on by the game's generation.

use arcade_web::hub::game_config;
use lockstep::SessionConfig;

#[test]
fn rollback_and_the_measured_delay_reach_every_game() {
    let shell = SessionConfig::host(40, 6).input_delay_from_rtt().rollback();
    assert_eq!(
        game_config(shell, 0),
        SessionConfig::host(40, 6).input_delay_from_rtt().rollback()
    );
    assert_eq!(
        game_config(shell, 3),
        SessionConfig::host(43, 6).input_delay_from_rtt().rollback()
    );
}

#[test]
fn lock_step_stays_lock_step() {
    let shell = SessionConfig::host(7, 4).input_delay_from_rtt();
    let cfg = game_config(shell, 1);
    assert_eq!(cfg.window(), 0);
    assert_eq!(cfg, SessionConfig::host(8, 4).input_delay_from_rtt());
}

#[test]
fn the_guest_takes_the_hosts_settings() {
    assert_eq!(
        game_config(SessionConfig::guest(), 5),
        SessionConfig::guest()
    );
}
