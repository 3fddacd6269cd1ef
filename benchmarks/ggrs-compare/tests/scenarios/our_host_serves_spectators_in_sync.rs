//! Our side of the spectator benchmark: a two-player match of our
//! sessions whose host serves one spectator, and another whose host
//! serves three, over scenario (a), until every spectator has shown a
//! second of ticks: each spectator shows the host's game tick for tick,
//! and the host uploads to its spectators (about three times one
//! spectator's traffic when it serves three).

use crate::common;

use ggrs_compare::mesh::Side;

#[test]
fn our_host_serves_spectators_in_sync() {
    common::host_serves_spectators_in_sync(Side::Ours);
}
