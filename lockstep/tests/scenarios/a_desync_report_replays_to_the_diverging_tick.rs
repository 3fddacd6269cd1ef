//! After a desync over the simulated link, each side writes a desync
//! report; the report survives its byte format, and replaying it with
//! either build finds the tick where that build parts ways with the
//! writer's (the tick the desync was injected at) and the part that
//! differs.
use crate::common;

use common::{Pair, Trio, TRIO_PARTS};
use lockstep::parts::report::ReportDecodeError;
use lockstep::{DesyncReport, DeterministicGame, Millis, SessionConfig};
use netsim::LinkConfig;

type Host = Trio<0, 0>;
type Guest = Trio<777, 1>;

/// Prints a part as the game would: the tick count for the turn only.
fn describe<const AT: u32, const PART: u8>(g: &Trio<AT, PART>, name: &str) -> Option<String> {
    (name == TRIO_PARTS[2]).then(|| format!("{:?}", g))
}

#[test]
fn each_sides_report_finds_the_injected_tick_and_part() {
    common::in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(30),
            loss_percent: 5,
            ..LinkConfig::default()
        };
        let mut p: Pair<Host, Guest> = Pair::new(
            mode.cfg(SessionConfig::host(11, 3)),
            SessionConfig::guest(),
            link,
            41,
        );
        let (host, guest) = p.run_until_both_end(3000);
        let (Some(host), Some(guest)) = (host, guest) else {
            panic!("both sides must end: {}", p.progress());
        };
        let name = TRIO_PARTS[1];

        // The host's report: its build agrees with it at every tick.
        let (report, at_desync) =
            DesyncReport::write_replayed::<Host>(&p.host.input_log(), 0, &host, describe)
                .expect("a desync writes a report");
        let tick = report.tick();
        assert!(tick > 777 && tick <= 777 + 60, "tick {tick}");
        assert_eq!(report.trace.len(), tick as usize);
        // The game handed back is the one the report was written from.
        assert_eq!(at_desync.state_hash(), report.local_hash());
        assert_eq!(report.trace.last(), Some(&report.local_hash()));
        assert_eq!(report.differing(), vec![name]);
        // Only the turn prints.
        assert!(report.parts[2].value.is_some() && report.parts[0].value.is_none());
        // Cannot fail: u8 inputs always encode.
        let bytes = report.to_bytes().expect("encodes");
        let report = DesyncReport::<u8>::from_bytes(&bytes).expect("reads back");
        let same = report.replay::<Host>();
        assert!(same.same_build);
        assert_eq!(same.first_diverging_tick, None);
        assert_eq!(same.hash, report.local_hash());
        assert!(same.differ_from_writer.is_empty());
        assert_eq!(same.differ_from_peer, vec![name]);
        // The guest's build parts ways with the host's exactly at the tick
        // the desync was injected, in the injected part.
        let other = report.replay::<Guest>();
        assert_eq!(other.first_diverging_tick, Some(777), "{mode:?}");
        assert_eq!(other.differ_from_writer, vec![name]);
        assert!(other.differ_from_peer.is_empty());
        assert_eq!(other.hash, report.remote_hash);

        // The guest's report, replayed with the host's build: the same
        // tick, seen from the other side.
        let report = DesyncReport::write::<Guest>(&p.guest.input_log(), 1, &guest, |_, _| None)
            .expect("a desync writes a report");
        let host_build = report.replay::<Host>();
        assert_eq!(host_build.first_diverging_tick, Some(777));
        assert_eq!(host_build.differ_from_writer, vec![name]);
        assert!(host_build.differ_from_peer.is_empty());
    });
}

#[test]
fn a_report_that_is_cut_or_padded_is_refused() {
    let mut p: Pair<Host, Guest> = Pair::new(
        SessionConfig::host(12, 2),
        SessionConfig::guest(),
        LinkConfig::default(),
        42,
    );
    let (Some(host), _) = p.run_until_both_end(3000) else {
        panic!("the host must end: {}", p.progress());
    };
    let report = DesyncReport::write::<Host>(&p.host.input_log(), 0, &host, describe)
        .expect("a desync writes a report");
    // Cannot fail: u8 inputs always encode.
    let bytes = report.to_bytes().expect("encodes");
    for n in [0, 3, 4, 5, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            DesyncReport::<u8>::from_bytes(&bytes[..n]).is_err(),
            "cut at {n}"
        );
    }
    let mut padded = bytes.clone();
    padded.push(0);
    assert_eq!(
        DesyncReport::<u8>::from_bytes(&padded),
        Err(ReportDecodeError::TrailingBytes(1))
    );
    // Not a desync: no report.
    assert!(DesyncReport::write::<Host>(
        &p.host.input_log(),
        0,
        &lockstep::Outcome::RemoteQuit,
        describe
    )
    .is_err());
}
