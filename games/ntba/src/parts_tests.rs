//! NtBA's parts: a change to any one field names exactly the part it
//! belongs to; a desync injected into one field of one peer's game is
//! named by both sessions; and the words a page shows.

use crate::hash_tests::{base, changes, people_base, people_changes, Change};
use crate::math::{Len, V2};
use crate::parts::{BALL, CLOCKS, CONTROLS, EVENTS, PART_NAMES, PLAYERS, RANDOM, RESTART, SCORE};
use crate::script::script_pad;
use crate::sim::Ntba;
use crate::view::Phase;
use lockstep::parts::differing_parts;
use lockstep::PeerId;
use lockstep::{DeterministicGame, Millis, Outcome, Session, SessionConfig};

/// The part a field of `hash_tests`' change list belongs to, from the
/// change's name.
fn part_of(change: &str) -> &'static str {
    let field = change.split(['[', '.', ' ']).next().unwrap_or(change);
    match field {
        "seed" | "rng" => RANDOM,
        "tick" | "period" | "clock" | "shot_clock" | "phase" | "phase_t" => CLOCKS,
        "score" | "winner" | "stats" => SCORE,
        "ball" | "possession" => BALL,
        "players" => {
            let i = change
                .as_bytes()
                .get(8)
                .map_or(0, |b| usize::from(b - b'0'));
            PLAYERS[i]
        }
        "restart_side" | "restart_spot" | "first_side" => RESTART,
        "controlled" | "prev_pad" | "people" | "slot_of" => CONTROLS,
        "events" | "n_events" => EVENTS,
        other => panic!("no part for field {other} (add it to the parts and here)"),
    }
}

fn assert_each_change_names_its_part(b: &Ntba, all: &[Change]) {
    let before = b.parts();
    let names: Vec<&str> = before.iter().map(|p| p.name).collect();
    assert_eq!(names, PART_NAMES);
    let mut named = std::collections::BTreeSet::new();
    for (name, change) in all {
        let mut g = b.clone();
        change(&mut g);
        let after: Vec<u64> = g.parts().iter().map(|p| p.hash).collect();
        let differ = differing_parts(&before, &after);
        assert_eq!(differ, vec![part_of(name)], "changing {name}");
        named.insert(differ[0]);
    }
    assert_eq!(named.len(), PART_NAMES.len(), "every part is reached");
}

#[test]
fn a_change_to_any_field_names_its_part_only() {
    assert_each_change_names_its_part(&base(), &changes());
}

#[test]
fn with_four_people_too() {
    let b = people_base();
    assert_each_change_names_its_part(&b, &changes());
    let mut extra = people_changes();
    extra.retain(|(n, _)| n.starts_with("slot_of") || n.starts_with("prev_pad"));
    let before = b.parts();
    for (name, change) in &extra {
        let mut g = b.clone();
        change(&mut g);
        let after: Vec<u64> = g.parts().iter().map(|p| p.hash).collect();
        assert_eq!(differing_parts(&before, &after), vec![CONTROLS], "{name}");
    }
}

#[test]
fn every_part_prints_and_nothing_else_does() {
    let g = base();
    for name in PART_NAMES {
        let v = g.describe_part(name);
        assert!(v.as_deref().is_some_and(|v| !v.is_empty()), "{name}");
    }
    assert_eq!(g.describe_part("the referee"), None);
    assert!(g
        .describe_part(PLAYERS[3])
        .is_some_and(|v| v.contains("stamina")));
}

/// NtBA, except that after tick `AT` Away player 2 stands one step of
/// `Len` further right: a desync injected into one field of one peer.
#[derive(Clone)]
struct AwayTwoNudgedAt<const AT: u32>(Ntba);

impl<const AT: u32> DeterministicGame for AwayTwoNudgedAt<AT> {
    type Input = crate::Pad;
    const BUILD_ID: u64 = Ntba::BUILD_ID;
    fn new(seed: u64, players: u8) -> Self {
        AwayTwoNudgedAt(Ntba::new(seed, players))
    }
    fn step(&mut self, inputs: &[crate::Pad]) {
        self.0.step(inputs);
        if self.0.tick == AT {
            let p = &mut self.0.players[3];
            p.pos = V2::new(p.pos.x + Len::DELTA, p.pos.y);
        }
    }
    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
    fn state_parts(&self) -> Vec<lockstep::StatePart> {
        self.0.state_parts()
    }
}

#[test]
fn a_desync_in_one_field_is_named_by_both_sessions() {
    let mut host = Session::<Ntba>::new(SessionConfig::host(5, 2)).expect("valid config");
    let mut guest =
        Session::<AwayTwoNudgedAt<700>>::new(SessionConfig::guest()).expect("valid config");
    // Each names its link by the other's slot.
    host.handle_link_state(Millis(0), PeerId(1), lockstep::LinkState::Open);
    guest.handle_link_state(Millis(0), PeerId(0), lockstep::LinkState::Open);
    let mut frame = 0u64;
    while (host.outcome().is_none() || guest.outcome().is_none()) && frame < 2000 {
        // Datagrams cross within the frame (a perfect link).
        let now = Millis(frame * 1000 / 60);
        let t = host.tick();
        host.advance_frame(now, || script_pad(t, 0));
        let t = guest.tick();
        guest.advance_frame(now, || script_pad(t, 1));
        for _ in 0..4 {
            while let Some((_, ch, b)) = host.poll_transmit() {
                guest.handle_datagram(now, PeerId(0), ch, &b);
            }
            while let Some((_, ch, b)) = guest.poll_transmit() {
                host.handle_datagram(now, PeerId(1), ch, &b);
            }
        }
        while host.poll_event().is_some() {}
        while guest.poll_event().is_some() {}
        frame += 1;
    }
    for outcome in [host.outcome(), guest.outcome()] {
        let Some(Outcome::Desync { tick, parts, .. }) = outcome else {
            panic!("not a desync: {outcome:?}");
        };
        assert_eq!(*tick, 720);
        assert_eq!(parts.differing, vec![PLAYERS[3]]);
    }
    // What the page says, from the host's game replayed to the tick.
    let mut log = host.input_log();
    log.inputs.truncate(720 * 2);
    let at = log.replay_game::<Ntba>().expect("same build");
    let msg = crate::desync_message(&at, &[PLAYERS[3]]);
    assert!(
        msg.starts_with("The two games went out of sync at 1:")
            && msg.ends_with(" in the first half: Away player 2 differs."),
        "{msg}"
    );
}

#[test]
fn game_time_reads_like_the_scoreboard() {
    let mut g = Ntba::new(1, 2);
    assert_eq!(g.game_time_in_words(), "at 2:00 in the first half");
    g.clock = 83 * 60;
    assert_eq!(g.game_time_in_words(), "at 1:23 in the first half");
    g.period = 1;
    g.clock = 61;
    assert_eq!(g.game_time_in_words(), "at 0:02 in the second half");
    g.period = 3;
    assert_eq!(g.game_time_in_words(), "at 0:02 in the second overtime");
    g.period = 4;
    assert_eq!(g.game_time_in_words(), "at 0:02 in sudden death");
    g.phase = Phase::Over;
    assert_eq!(g.game_time_in_words(), "after the final buzzer");
    assert_eq!(
        crate::desync_message(&g, &[BALL, SCORE, PLAYERS[0]]),
        "The two games went out of sync after the final buzzer: \
         the ball, the score and Home player 1 differ."
    );
    assert_eq!(
        crate::desync_message::<&str>(&g, &[]),
        "The two games went out of sync after the final buzzer, so the match was stopped."
    );
}

#[test]
fn the_message_agrees_in_number_with_one_part() {
    let g = Ntba::new(1, 2);
    let one = |name: &str| crate::desync_message(&g, &[name]);
    assert!(one(crate::parts::BALL).ends_with(": the ball differs."));
    assert!(one(crate::parts::CLOCKS).ends_with(": the clocks differ."));
    assert!(one(crate::parts::EVENTS).ends_with(": the events differ."));
    assert!(
        crate::desync_message(&g, &[crate::parts::BALL, crate::parts::SCORE])
            .ends_with(": the ball and the score differ.")
    );
}
