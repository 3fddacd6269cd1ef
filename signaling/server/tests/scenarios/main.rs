//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p signaling-server --test scenarios NAME`.

mod common;

mod connection_caps_and_header_timeout;
mod keep_alive_connection_idle_is_closed;
mod oversized_message_is_refused_unread;
mod rooms_per_address_are_capped;
mod static_files_and_http;
mod the_page_is_served_with_a_policy_it_runs_under;
