//! A two-player GGRS match whose host serves one spectator, and another
//! whose host serves three, over scenario (a), until every spectator has
//! shown a second of ticks: each spectator shows the host's game tick for
//! tick, and the host uploads to its spectators (three times one
//! spectator's traffic, give or take a packet, when it serves three).

use crate::common;

use ggrs_compare::mesh::Side;

#[test]
fn ggrs_host_serves_spectators_in_sync() {
    common::host_serves_spectators_in_sync(Side::Ggrs);
}
