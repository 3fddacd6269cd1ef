//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p ntba-web --test scenarios NAME`.

mod a_party_plays_ntba_to_the_end_in_sync;
mod an_online_desync_names_the_parts_that_differ;
mod drawing;
mod party;
mod result;
