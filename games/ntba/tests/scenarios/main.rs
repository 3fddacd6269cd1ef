//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p ntba --test scenarios NAME`.

mod common;

mod a_loaded_state_plays_on_exactly;
mod a_rejoiner_catches_up_from_a_saved_state;
mod a_spectator_joining_after_two_minutes_catches_up;
mod a_spectator_watches_a_whole_match;
mod cpu_matches;
mod four_people_play_a_whole_match_in_sync;
mod garbage_saved_state_never_panics;
mod golden;
mod predictor;
mod replay;
mod sync_test;
mod the_ai_plays_a_pad_slot_nobody_is_at;
mod the_ai_plays_the_court_player_nobody_drives;
mod the_ai_stands_in_for_a_guest_cut_off_for_fifteen_seconds;
mod three_people_play_a_whole_match_in_sync;
