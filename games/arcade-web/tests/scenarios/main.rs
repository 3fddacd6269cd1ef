//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p arcade-web --test scenarios NAME`.

mod common;

mod a_game_that_ends_while_the_guest_is_away_ends_the_match;
mod a_guest_whose_link_is_lost_comes_back_into_dots;
mod a_hub_match_leaves_a_log_the_title_replays;
mod a_lost_link_outside_a_lock_step_game_ends_the_match;
mod a_party_plays_the_game_its_invitation_named;
mod a_player_who_leaves_is_told_they_left;
mod a_reloaded_guest_comes_back_into_dots;
mod a_reloaded_host_comes_back_into_dots;
mod a_spectator_watches_a_match_of_two_on_the_hub;
mod dots_plays_to_its_end_over_the_hub;
mod each_game_gets_the_matchs_session_settings;
mod each_game_of_a_match_issues_its_own_token;
mod garbage_never_panics;
mod the_host_takes_nobody_back_when_no_lock_step_game_runs;
mod the_hub_runs_whole_in_the_match_worker;
mod the_match_opens_on_the_game_the_challenge_named;
mod the_players_switch_games_over_one_link;
mod the_title_tells_about_the_game_picked;
