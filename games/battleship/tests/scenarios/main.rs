//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p battleship --test scenarios NAME`.

mod a_player_who_leaves_says_goodbye;
mod garbage_ends_the_game_without_a_panic;
mod no_message_reveals_an_unhit_ship;
