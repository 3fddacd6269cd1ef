//! Panic policy for the core: whatever the browser, the service or a peer
//! reports, in whatever order, the shell neither panics nor breaks its own
//! rules (its match session and match link go together; it asserts that
//! after every input). Seeded inputs: valid and garbage socket frames,
//! fetch bodies, peer connection events with current and stale attempts,
//! buttons, keys and timers, a download the page could not offer, replay
//! files (valid, cut, changed, another build's, random) and replay
//! controls, 20,000 steps per seed.

use lockstep::{Channel, Millis};
use web_shell::shell::room::Candidate;
use web_shell::shell::{
    Action, FetchId, FileLink, Input, LinkId, Output, PlayerAction, RtcEvent, SocketId,
};

use crate::common;
use common::rng::Rng;

const IDS: [&str; 3] = ["AAAAAAAAAAAA", "zzzzzzzzzzzz", "bad id"];
const FRAMES: [&str; 14] = [
    r#"{"type":"welcome","you":"MMMMMMMMMMMM","roster":[{"id":"AAAAAAAAAAAA","nick":"a","tag":"AAA","status":"lobby"},{"id":"zzzzzzzzzzzz","nick":"z","tag":"ZZZ","status":"in-match"}]}"#,
    r#"{"type":"joined","player":{"id":"zzzzzzzzzzzz","nick":"z","tag":"ZZZ","status":"lobby"}}"#,
    r#"{"type":"left","id":"AAAAAAAAAAAA"}"#,
    r#"{"type":"signal","from":"AAAAAAAAAAAA","data":{"type":"offer","sdp":"v=0","attempt":1}}"#,
    r#"{"type":"signal","from":"zzzzzzzzzzzz","data":{"type":"answer","sdp":"v=0"}}"#,
    r#"{"type":"full"}"#,
    r#"{"type":"error","reason":"x"}"#,
    r#"{"type":"peer-joined"}"#,
    r#"{"type":"offer","sdp":"v=0"}"#,
    r#"{"type":"answer","sdp":"v=0"}"#,
    r#"{"type":"ice","candidate":"c","sdpMid":"0","sdpMLineIndex":0}"#,
    r#"{"type":"done"}"#,
    "{]",
    "",
];
const PEER: [&str; 6] = [
    r#"{"type":"chat","text":"hi"}"#,
    r#"{"type":"challenge","room":"K7M2QX"}"#,
    r#"{"type":"accept"}"#,
    r#"{"type":"decline","reason":"busy"}"#,
    r#"{"type":"cancel"}"#,
    "\u{0}\u{1}",
];
const BODIES: [&str; 5] = [
    r#"{"iceServers":[{"urls":"stun:x"}]}"#,
    r#"{"code":"K7M2QX"}"#,
    r#"{"code":"nope"}"#,
    "[1,2",
    r#"{"iceServers":"not a list"}"#,
];

/// What the shell asked for lately: inputs mostly name these, so the walk
/// gets past the first steps.
#[derive(Default)]
struct Seen {
    sockets: Vec<SocketId>,
    fetches: Vec<FetchId>,
    links: Vec<(LinkId, u32)>,
}

impl Seen {
    /// Keeps the last 8 of each.
    fn forget_old(&mut self) {
        fn trim<T>(v: &mut Vec<T>) {
            if v.len() > 8 {
                v.remove(0);
            }
        }
        trim(&mut self.sockets);
        trim(&mut self.fetches);
        trim(&mut self.links);
    }
}

fn socket(r: &mut Rng, seen: &Seen) -> SocketId {
    if !seen.sockets.is_empty() && r.below(4) != 0 {
        return *r.pick(&seen.sockets);
    }
    let n = r.below(4) as u32;
    if r.below(2) == 0 {
        SocketId::Presence(n)
    } else {
        SocketId::Room(n)
    }
}

fn link(r: &mut Rng) -> LinkId {
    if r.below(2) == 0 {
        LinkId::Match
    } else {
        LinkId::Mesh(web_shell::id::PeerId::parse(IDS[r.below(2) as usize]).unwrap())
    }
}

/// A replay file: a short valid recording of the test game, the same cut or
/// with a byte changed, another build's, or random bytes.
fn replay_file(r: &mut Rng) -> Result<Vec<u8>, web_shell::replay::Refusal> {
    use lockstep::{DeterministicGame, InputLog};
    use web_shell::testing::TestDots;
    let build = if r.below(4) == 0 {
        1
    } else {
        TestDots::BUILD_ID
    };
    let mut g = TestDots::new(3, 2);
    let inputs: Vec<u8> = (0..2 * r.below(400)).map(|_| r.below(16) as u8).collect();
    for pair in inputs.chunks(2) {
        g.step(pair);
    }
    let log = InputLog {
        build,
        seed: 3,
        players: 2,
        input_delay: 0,
        final_hash: g.state_hash(),
        start_tick: 0,
        start_state: Vec::new(),
        inputs,
    };
    let mut bytes = log.to_bytes().unwrap();
    match r.below(5) {
        0 => bytes.truncate(r.below(bytes.len() as u64) as usize),
        1 => {
            let i = r.below(bytes.len() as u64) as usize;
            bytes[i] ^= 1 << r.below(8);
        }
        2 => bytes = (0..r.below(200)).map(|_| r.next() as u8).collect(),
        3 if r.below(4) == 0 => return Err(web_shell::replay::Refusal::TooLarge),
        _ => {}
    }
    Ok(bytes)
}

fn input(r: &mut Rng, seen: &Seen) -> Input {
    match r.below(14) {
        12 if r.below(8) == 0 => Input::OfferFailed(*r.pick(&[FileLink::Log, FileLink::Report])),
        12 => Input::ReplayFile(replay_file(r)),
        13 => Input::Action(match r.below(3) {
            0 => Action::WatchReplay,
            _ => Action::Replay {
                control: r
                    .pick(&[
                        "replay-play",
                        "replay-speed",
                        "replay-seek",
                        "replay-mark",
                        "x",
                    ])
                    .to_string(),
                value: r
                    .pick(&["", "0", "5", "9", "150", "-1", "99999999999", "1e3"])
                    .to_string(),
            },
        }),
        0 => Input::Action(match r.below(10) {
            0 => Action::ChooseOnline,
            1 => Action::Join(r.pick(&["Ada", "", "\u{202e}x"]).to_string()),
            2 => Action::ChooseLocal(vec![r.below(3) as usize]),
            3 => Action::Back,
            4 => Action::Leave,
            5 => Action::Continue,
            6 => Action::Retry,
            7 => Action::SendChat(r.pick(&["hi", "", "שלום"]).to_string()),
            8 => Action::Netcode(r.pick(&["lockstep", "rollback", "?"]).to_string()),
            _ => Action::Player(
                *r.pick(&[
                    PlayerAction::Mute,
                    PlayerAction::Challenge,
                    PlayerAction::Accept,
                    PlayerAction::Decline,
                    PlayerAction::Cancel,
                ]),
                r.pick(&IDS).to_string(),
            ),
        }),
        1 => Input::Key {
            code: r.pick(&["ArrowUp", "KeyW", "Space"]).to_string(),
            down: r.below(2) == 0,
            typing: r.below(4) == 0,
        },
        2 => Input::Tick,
        3 => Input::Frame {
            clock: r.below(1_000_000) as f64,
        },
        4 => Input::FrameSpent(r.below(100) as f64 / 7.0),
        5 => Input::SocketOpened(socket(r, seen)),
        6 => {
            let s = socket(r, seen);
            Input::SocketText(s, r.pick(&FRAMES).to_string())
        }
        7 => Input::SocketClosed(socket(r, seen)),
        8 => {
            let id = if !seen.fetches.is_empty() && r.below(4) != 0 {
                *r.pick(&seen.fetches)
            } else if r.below(2) == 0 {
                FetchId::Ice
            } else {
                FetchId::Room(r.below(4) as u32)
            };
            let body = (r.below(4) != 0).then(|| r.pick(&BODIES).to_string());
            Input::Fetched(id, body)
        }
        _ => {
            let event = match r.below(9) {
                0 => RtcEvent::Offer((r.below(2) == 0).then(|| "v=0".to_owned())),
                1 => RtcEvent::Answer((r.below(2) == 0).then(|| "v=0".to_owned())),
                2 => RtcEvent::Candidate(Candidate {
                    candidate: "c".into(),
                    sdp_mid: None,
                    sdp_m_line_index: Some(0),
                }),
                3 => RtcEvent::Open,
                4 => RtcEvent::Closed,
                5 => RtcEvent::Data(Channel::Reliable, r.pick(&PEER).as_bytes().to_vec()),
                6 => RtcEvent::Backlog(r.next() as usize),
                7 => RtcEvent::Applied(r.below(2) == 0),
                _ => RtcEvent::Data(
                    Channel::Unreliable,
                    (0..r.below(40)).map(|_| r.next() as u8).collect(),
                ),
            };
            let (link, tag) = if !seen.links.is_empty() && r.below(4) != 0 {
                r.pick(&seen.links).clone()
            } else {
                (link(r), r.below(4) as u32)
            };
            Input::Rtc { link, tag, event }
        }
    }
}

#[test]
fn the_shell_survives_any_sequence_of_inputs() {
    for seed in 1..=5u64 {
        let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut shell = common::shell("", seed);
        let mut now = Millis(0);
        let mut sent = 0usize;
        let mut seen = Seen::default();
        let mut replays = 0usize;
        for _ in 0..20_000 {
            now = now + Millis(r.below(300));
            shell.handle(now, input(&mut r, &seen));
            while let Some(out) = shell.poll_output() {
                match out {
                    Output::OpenSocket { id, .. } => seen.sockets.push(id),
                    Output::Fetch { id, .. } => seen.fetches.push(id),
                    Output::CreatePeer { link, tag, .. } => seen.links.push((link, tag)),
                    Output::SendSocket { text, .. } => {
                        // Everything sent to the service is JSON.
                        serde_json::from_str::<serde_json::Value>(&text)
                            .unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
                        sent += 1;
                    }
                    Output::Chat { text, .. } => {
                        assert!(text.chars().count() <= 500);
                        assert!(!text.contains('\u{202e}'));
                    }
                    _ => {}
                }
            }
            seen.forget_old();
            // The views can always be built.
            let _ = (shell.screen_view(), shell.lobby_view(), shell.match_view());
            // A replay shows only while its screen does, within its log.
            let replay = shell.replay_view();
            let on_replay = matches!(
                shell.screen_view().screen,
                web_shell::screens::Screen::Replay { .. }
            );
            assert_eq!(replay.is_some(), on_replay);
            if let Some(v) = replay {
                assert!(v.tick <= v.ticks);
                assert!(v.marks.iter().all(|(t, _)| *t <= v.ticks));
                replays += 1;
            }
        }
        assert!(sent > 0, "seed {seed}: the walk reached the service");
        assert!(replays > 0, "seed {seed}: the walk watched a replay");
    }
}
