//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p ggrs-compare --test scenarios NAME`.

mod common;

mod ggrs_full_mesh_stays_in_sync;
mod ggrs_host_serves_spectators_in_sync;
mod our_host_serves_spectators_in_sync;
mod smoke;
