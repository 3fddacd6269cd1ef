//! Quit, a lost transport and 5 s of silence give the right outcome on
//! each side.
mod common;

use common::Pair;
use lockstep::{Millis, Outcome, Transport};
use netsim::{Direction, LinkConfig};

fn link() -> LinkConfig {
    LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    }
}

fn running_pair(seed: u64) -> Pair<common::Tiny, common::Tiny> {
    let mut p = Pair::tiny(link(), seed, seed, 6);
    assert!(p.run_to_tick(300, 1000));
    p
}

#[test]
fn host_quits() {
    let mut p = running_pair(41);
    p.host.quit(p.now());
    assert_eq!(
        p.run_until_both_end(p.frame + 120),
        (Some(Outcome::LocalQuit), Some(Outcome::RemoteQuit))
    );
}

#[test]
fn guest_quits_and_closes_the_transport() {
    let mut p = running_pair(42);
    p.guest.quit(p.now());
    // The driver sends the Bye, then closes its end.
    let now = p.now();
    p.guest.pump(now, &mut p.guest_net);
    p.guest_net.close();
    assert_eq!(
        p.run_until_both_end(p.frame + 120),
        (Some(Outcome::RemoteQuit), Some(Outcome::LocalQuit))
    );
}

#[test]
fn a_failed_transport_is_transport_lost_on_both_sides() {
    let mut p = running_pair(43);
    p.host_net.fail_link();
    assert_eq!(
        p.run_until_both_end(p.frame + 5),
        (Some(Outcome::TransportLost), Some(Outcome::TransportLost))
    );
}

#[test]
fn a_closed_transport_without_bye_is_transport_lost() {
    let mut p = running_pair(44);
    p.host_net.close();
    let (_, guest) = p.run_until_both_end(p.frame + 60);
    assert_eq!(guest, Some(Outcome::TransportLost));
}

#[test]
fn five_seconds_of_silence_both_ways_is_timeout_on_both_sides() {
    let mut p = running_pair(45);
    p.host_net.sever_both();
    let cut = p.now();
    let outcomes = p.run_until_both_end(p.frame + 60 * 7);
    assert_eq!(outcomes, (Some(Outcome::Timeout), Some(Outcome::Timeout)));
    let waited = p.now().saturating_since(cut);
    // The last datagram may have been in flight for up to 60 ms.
    assert!(
        waited >= Millis(4900) && waited <= Millis(5200),
        "ended {waited:?} after the cut"
    );
}

#[test]
fn silence_one_way_is_timeout_on_both_sides() {
    let mut p = running_pair(46);
    // The host hears the guest, but the guest hears nothing: the guest
    // times out and its Bye(Timeout) reaches the host.
    p.host_net.sever(Direction::Outgoing);
    let outcomes = p.run_until_both_end(p.frame + 60 * 7);
    assert_eq!(outcomes, (Some(Outcome::Timeout), Some(Outcome::Timeout)));
}

#[test]
fn silence_shorter_than_the_timeout_is_survived() {
    let mut p = running_pair(47);
    p.host_net.sever_both();
    p.run_frames(60 * 4); // 4 s
    p.host_net.heal_both();
    let t = p.host.tick();
    p.run_frames(300);
    assert_eq!(p.host.outcome(), None);
    assert_eq!(p.guest.outcome(), None);
    assert!(p.host.tick() > t + 250);
}

#[test]
fn a_peer_that_never_says_hello_times_out() {
    let mut p = Pair::tiny(link(), 48, 1, 6);
    p.host_net.sever(Direction::Incoming);
    p.guest_runs = true;
    let (host, _) = p.run_until_both_end(60 * 7);
    assert_eq!(host, Some(Outcome::Timeout));
    assert_eq!(p.host.tick(), 0);
}
