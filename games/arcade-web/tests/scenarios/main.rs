//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p arcade-web --test scenarios NAME`.

mod common;

mod a_hub_match_leaves_a_log_the_title_replays;
mod a_party_plays_the_game_its_invitation_named;
mod a_player_who_leaves_is_told_they_left;
mod a_spectator_watches_a_match_of_two_on_the_hub;
mod dots_plays_to_its_end_over_the_hub;
mod each_game_gets_the_matchs_session_settings;
mod garbage_never_panics;
mod the_hub_runs_whole_in_the_match_worker;
mod the_match_opens_on_the_game_the_challenge_named;
mod the_players_switch_games_over_one_link;
mod the_title_tells_about_the_game_picked;
