//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p authority --test scenarios NAME`.

mod common;

mod congestion_stalled_link;
mod congestion_throttled_guest;
mod converges_100ms_25_percent_loss;
mod converges_50ms_jitter;
mod converges_5_percent_loss;
mod converges_no_latency;
mod converges_random_links;
mod garbage_never_panics;
mod host_close_ends_every_visit;
mod interpolation_delay_adapts;
mod late_join_gets_a_whole_snapshot_then_deltas;
mod leave_frees_the_seat;
mod prediction_against_the_host;
mod rejoin_replaces_a_live_link;
mod rejoin_with_a_token;
mod strangers_are_refused;
mod view_follows_the_host;
