//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p arena-web --test scenarios NAME`.

mod common;

mod a_congested_guest_link_skips_snapshots;
mod a_party_of_four_plays_one_arena;
mod leaving_ends_the_match_on_both_pages;
mod the_guest_shows_the_host_arena;
