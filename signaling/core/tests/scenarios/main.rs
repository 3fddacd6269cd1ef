//! Every scenario of this crate in one test binary: one file per scenario,
//! each a module here, so the shared helpers are compiled and linked once.
//! Run one with `cargo test -p signaling-core --test scenarios NAME`.

mod common;
mod relay_common;

mod admission_can_be_asked_before_it_is_taken;
mod garbage_survives;
mod hibernating_every_event_changes_nothing;
mod lobby_answers_are_paid_by_the_asker;
mod lobby_caps_switched_off;
mod lobby_hibernation;
mod lobby_presence;
mod lobby_refusals;
mod lobby_silent_players_are_dropped;
mod lobby_sockets_per_address;
mod lobby_status_changes_are_logged;
mod lobby_tags_are_issued_by_the_lobby;
mod lobby_timers;
mod logs_and_helpers;
mod member_relay_pairs_each_linked_pair;
mod member_room_leaving_and_refusals;
mod member_room_mesh;
mod relay_caps_close_the_sender_and_end_the_relay;
mod relay_ends_with_the_match_or_its_ttl;
mod relay_pairs_exactly_the_two_members_of_a_room;
mod relay_survives_garbage;
mod room_cap_survives_reconnect;
mod room_codes_are_logged_at_debug_only;
mod room_pairing;
mod room_rate_closes_a_flooding_member;
mod room_refusals;
mod room_ttl;
