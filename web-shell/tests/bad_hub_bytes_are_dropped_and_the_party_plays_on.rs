//! Bad bytes in a party's hub namespace (the reliable channel's first
//! byte 0xF0, kept apart from the match's own messages): a hub message
//! that is cut short, of a kind no page sends, or longer than any (even
//! one that starts as "again" or "leave"), a known kind at the wrong
//! moment, "join this comeback room" with no room code in it or from a
//! guest, "this is who plays here" without a lobby id, "mend my link
//! to this place" naming no other guest's place, and "the host asks for a
//! way back" without a lobby id in it. Each is
//! dropped (a warning for a kind no page sends, or a message that does
//! not read), never reaches the match session and never ends or holds up
//! a match: the match plays on in sync on every page, and after it the
//! party still plays again when everyone presses Play again.

// This scenario installs a process-wide logger, so it is its own test
// binary rather than one of `scenarios`; it shares their helpers.
#[path = "scenarios/common/mod.rs"]
mod common;

use common::World;
use lockstep::Channel;
use std::sync::Mutex;
use web_shell::party::PartyRules;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

/// The first byte of a hub message on a party link's reliable channel
/// (docs/web-shell.md); "again" is 1 after it, "leave" 2.
const HUB: u8 = 0xF0;

/// Every log record's level and text, for the assertions on what was
/// logged.
static LOGGED: Mutex<Vec<(log::Level, String)>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, record: &log::Record) {
        if let Ok(mut l) = LOGGED.lock() {
            l.push((record.level(), record.args().to_string()));
        }
    }
    fn flush(&self) {}
}

/// How many warnings about a hub message of an unknown kind were logged.
fn unknown_kind_warnings() -> usize {
    LOGGED
        .lock()
        .unwrap()
        .iter()
        .filter(|(l, m)| *l == log::Level::Warn && m.contains("hub message of an unknown kind"))
        .count()
}

/// Hub messages no page sends: cut short, unknown kinds, one too long.
fn garbage() -> Vec<Vec<u8>> {
    vec![
        vec![HUB],
        vec![HUB, 0],
        vec![HUB, 7],
        vec![HUB, 0x7f],
        vec![HUB, 0xF0, 0xF0],
        vec![HUB, 0xff, 1, 2, 3, 4, 5, 6, 7, 8],
        // "again" and "leave" with a byte too many.
        vec![HUB, 1, 0],
        vec![HUB, 2, 0],
    ]
}

/// "Join this comeback room" (3 after [`HUB`]) that no page would take:
/// without a room code, with a code cut short or of letters no code
/// has, and a good code from a guest (only the host sends it).
fn comeback_garbage(from_host: bool) -> Vec<Vec<u8>> {
    let mut v = vec![
        vec![HUB, 3],
        vec![HUB, 3, b'K', b'7'],
        vec![HUB, 3, b'!', b'!', b'!', b'!', b'!', b'!'],
    ];
    if !from_host {
        v.push([&[HUB, 3][..], b"K7M2QX"].concat());
    }
    v
}

/// "This is who plays at my place" (4 after [`HUB`]) without a lobby id
/// in it, or with one cut short.
fn who_garbage() -> Vec<Vec<u8>> {
    vec![vec![HUB, 4], vec![HUB, 4, b'A', b'b'], vec![HUB, 4, 0xff]]
}

/// "Mend my link to this place" (5 after [`HUB`]) that no host takes:
/// without a place, naming the host, a place beyond the party or the
/// sender's own, or with a byte too many.
fn mend_garbage(from: u8) -> Vec<Vec<u8>> {
    vec![
        vec![HUB, 5],
        vec![HUB, 5, 0],
        vec![HUB, 5, 9],
        vec![HUB, 5, from],
        vec![HUB, 5, 1, 2],
    ]
}

/// How many warnings about a malformed mend message were logged.
fn mend_warnings() -> usize {
    LOGGED
        .lock()
        .unwrap()
        .iter()
        .filter(|(l, m)| *l == log::Level::Warn && m.contains("malformed mend message"))
        .count()
}

/// "The party's host asks for a way back" (6 after [`HUB`]) without a
/// lobby id in it, or with one that does not read.
fn host_ask_garbage() -> Vec<Vec<u8>> {
    vec![vec![HUB, 6], vec![HUB, 6, b'!', b'?']]
}

/// How many warnings about a malformed passed-on ask were logged.
fn host_ask_warnings() -> usize {
    LOGGED
        .lock()
        .unwrap()
        .iter()
        .filter(|(l, m)| *l == log::Level::Warn && m.contains("malformed passed-on ask"))
        .count()
}

/// How many warnings about a malformed name message were logged.
fn who_warnings() -> usize {
    LOGGED
        .lock()
        .unwrap()
        .iter()
        .filter(|(l, m)| *l == log::Level::Warn && m.contains("malformed name message"))
        .count()
}

/// How many warnings about a malformed comeback room message were logged.
fn comeback_warnings() -> usize {
    LOGGED
        .lock()
        .unwrap()
        .iter()
        .filter(|(l, m)| *l == log::Level::Warn && m.contains("malformed comeback room message"))
        .count()
}

fn all_results(w: &World) -> bool {
    (0..3).all(|p| matches!(w.screen(p), Screen::Result { .. }))
}

#[test]
fn bad_hub_bytes_are_dropped_and_the_party_plays_on() {
    log::set_logger(&Capture).unwrap();
    log::set_max_level(log::LevelFilter::Debug);
    let mut w = World::party_lobby(
        &["Ada", "Bo", "Cy"],
        PartyRules {
            max_people: 3,
            sides: 0,
            per_side: 3,
            lengths: &[],
        },
        0xba_d0b,
    );
    w.party_invited(&[1, 2]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    w.until(10_000, "the three play", |w| w.all_play(&[0, 1, 2], 60));

    // Mid-match: every page gets the garbage, and a "leave" and an
    // "again" it cannot act on yet, from each of the others.
    let sent = garbage();
    let before = unknown_kind_warnings();
    let comeback_before = comeback_warnings();
    let who_before = who_warnings();
    let mend_before = mend_warnings();
    let host_ask_before = host_ask_warnings();
    let rooms_before = w.rooms_made();
    let mut comeback_sent = 0;
    for p in 0..3 {
        for from in (0..3).filter(|&q| q != p) {
            let comeback = comeback_garbage(from == 0);
            comeback_sent += comeback.len();
            for bytes in sent
                .iter()
                .cloned()
                .chain([vec![HUB, 2], vec![HUB, 1]])
                .chain(comeback)
                .chain(who_garbage())
                .chain(mend_garbage(from as u8))
                .chain(host_ask_garbage())
            {
                w.party_datagram_from(p, from, Channel::Reliable, bytes);
            }
        }
    }
    let tick = w.pages[0].shell.match_view().tick.unwrap();
    w.until(5_000, "the match plays on", |w| {
        w.all_play(&[0, 1, 2], tick + 120)
    });
    assert_eq!(
        unknown_kind_warnings() - before,
        3 * 2 * sent.len(),
        "a warning for each message of an unknown kind"
    );
    assert_eq!(
        comeback_warnings() - comeback_before,
        comeback_sent,
        "a warning for each comeback room message no page takes"
    );
    assert_eq!(
        who_warnings() - who_before,
        3 * 2 * who_garbage().len(),
        "a warning for each name message without a lobby id"
    );
    assert_eq!(
        mend_warnings() - mend_before,
        3 * 2 * mend_garbage(0).len(),
        "a warning for each mend message no host takes"
    );
    assert_eq!(
        host_ask_warnings() - host_ask_before,
        3 * 2 * host_ask_garbage().len(),
        "a warning for each passed-on ask without a lobby id"
    );
    assert_eq!(w.rooms_made(), rooms_before, "no comeback room");
    assert!(
        LOGGED
            .lock()
            .unwrap()
            .iter()
            .any(|(l, m)| *l == log::Level::Debug
                && m.contains("outside the time between two matches")),
        "the known kinds mid-match are dropped at debug"
    );

    // The match ends when Bo leaves; the pages agree on what was played.
    w.action(1, Action::Leave);
    w.until(3_000, "every page shows a result", all_results);
    let hashes: Vec<_> = (0..3)
        .map(|p| w.pages[p].shell.log_hash_at(tick + 60))
        .collect();
    assert!(hashes[0].is_some());
    assert!(hashes.iter().all(|h| *h == hashes[0]), "{hashes:?}");

    // Between matches: the garbage again changes nothing (no page leaves
    // its result screen), and the rematch still starts when all press.
    for p in 0..3 {
        for from in (0..3).filter(|&q| q != p) {
            for bytes in garbage() {
                w.party_datagram_from(p, from, Channel::Reliable, bytes);
            }
        }
    }
    w.run(500);
    assert!(all_results(&w), "the garbage sent nobody back to the lobby");
    let (rooms, peers) = (w.rooms, w.peers_created);
    for p in 0..3 {
        w.action(p, Action::PlayAgain);
    }
    w.until(10_000, "the rematch runs on every page", |w| {
        w.all_play(&[0, 1, 2], 60)
    });
    assert_eq!(
        (w.rooms, w.peers_created),
        (rooms, peers),
        "over the same links"
    );
}
