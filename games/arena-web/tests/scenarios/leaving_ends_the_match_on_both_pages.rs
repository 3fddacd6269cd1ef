//! Leaving: whichever page leaves, it reads "You left", the other reads
//! that the other player left; the host's goodbye goes out before its page
//! lets the link go.
use crate::common;

use lockstep::{Millis, Outcome};
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

fn link() -> LinkConfig {
    LinkConfig {
        latency: Millis(30),
        ..LinkConfig::default()
    }
}

#[test]
fn the_guest_leaves() {
    let mut p = common::Pair::new(link(), 5);
    p.run(2_000, |_| {});
    assert_eq!(p.guest.view.state, Some("running"));
    assert_eq!(p.host.view.headline, "You play Amber (host)");
    assert_eq!(p.guest.view.headline, "You play Teal (guest)");
    let now = p.now;
    p.guest.slot.quit_match(now);
    p.run(1_000, |_| {});
    let g = p.guest.ended.as_ref().expect("the guest's match ended");
    assert_eq!(g.outcome, Outcome::LocalQuit);
    let h = p.host.ended.as_ref().expect("the host's match ended");
    assert_eq!(h.outcome, Outcome::RemoteQuit);
    assert_eq!(h.message, "The other player left the match.");
}

#[test]
fn the_host_leaves() {
    let mut p = common::Pair::new(link(), 6);
    p.run(2_000, |_| {});
    let now = p.now;
    p.host.slot.quit_match(now);
    p.run(1_000, |_| {});
    let h = p.host.ended.as_ref().expect("the host's match ended");
    assert_eq!(h.outcome, Outcome::LocalQuit);
    let g = p.guest.ended.as_ref().expect("the guest heard the goodbye");
    assert_eq!(g.outcome, Outcome::RemoteQuit);
}

#[test]
fn a_host_whose_guest_never_comes_gives_up() {
    let mut p = common::Pair::new(link(), 7);
    p.guest.link.sever_both();
    p.run(16_000, |_| {});
    let h = p.host.ended.as_ref().expect("the host gave up");
    assert_eq!(h.outcome, Outcome::HandshakeTimeout);
}
