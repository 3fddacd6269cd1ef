//! What NtBA tells the shell about parties: two to four people on two
//! teams of at most two, and the seed that carries the teams the party
//! arranged, so that every page's game puts each slot on its team.

use lockstep::DeterministicGame;
use ntba::Ntba;
use ntba_web::NtbaFrontEnd;
use web_shell::front_end::FrontEnd;
use web_shell::party::PartyRules;

#[test]
fn ntba_takes_parties_of_up_to_four_on_two_teams() {
    let front = NtbaFrontEnd::new();
    assert_eq!(
        front.party(),
        PartyRules {
            max_people: 4,
            sides: 2,
            per_side: 2,
            lengths: &["Full (2 × 2 min)", "Short (2 × 30 s)"],
        }
    );
    assert!(front.party().allows_parties());
    assert!(front.party().takes(&[0, 1, 1, 0]));
    assert!(!front.party().takes(&[0, 0, 0, 1]));
}

#[test]
fn the_party_seed_puts_every_slot_on_its_team() {
    let front = NtbaFrontEnd::new();
    // Four people: slots 0 and 3 Home, 1 and 2 Away.
    let seed = front.party_seed(12_345, &[0, 1, 1, 0], 0).unwrap();
    let game = Ntba::new(seed, 4);
    assert_eq!(game.people(), 4);
    // Home's court players are 0 and 1, Away's 2 and 3, in slot order.
    let players: Vec<Option<u8>> = (0..4).map(|s| game.player_of_slot(s)).collect();
    assert_eq!(players, [Some(0), Some(2), Some(3), Some(1)]);
    // Three people: two Away, one Home, the CPU Home's second player.
    let seed = front.party_seed(7, &[1, 0, 1], 0).unwrap();
    let game = Ntba::new(seed, 3);
    let players: Vec<Option<u8>> = (0..3).map(|s| game.player_of_slot(s)).collect();
    assert_eq!(players, [Some(2), Some(0), Some(3)]);
    // Two people: one team each, the seed as it was.
    assert_eq!(front.party_seed(99, &[0, 1], 0), Some(99));
    assert_eq!(front.party_seed(99, &[1, 0], 0), Some(99));
}

#[test]
fn an_arrangement_ntba_cannot_play_is_refused() {
    let front = NtbaFrontEnd::new();
    for sides in [
        &[0, 0][..],
        &[1, 1],
        &[0, 0, 0],
        &[0, 2, 1],
        &[0, 1, 0, 1, 0],
        &[0],
    ] {
        assert_eq!(front.party_seed(5, sides, 0), None, "{sides:?}");
    }
}

#[test]
fn the_status_line_names_the_team_of_each_slot() {
    let front = NtbaFrontEnd::new();
    // [Home, Away, Away, Home]: slot 3 plays for Home, slot 2 for Away.
    let seed = front.party_seed(3, &[0, 1, 1, 0], 0).unwrap();
    let game = Ntba::new(seed, 4);
    let names: Vec<String> = (0..4).map(|s| front.slot_name(&game, s)).collect();
    assert_eq!(names, ["Home", "Away", "Away", "Home"]);
    // Two people: the slot is the side.
    let game = Ntba::new(3, 2);
    assert_eq!(front.slot_name(&game, 0), "Home");
    assert_eq!(front.slot_name(&game, 1), "Away");
}

#[test]
fn online_you_goes_on_the_team_of_this_pages_slot() {
    // Slot 2 of [Home, Away, Away, Home] plays for Away.
    let mut front = NtbaFrontEnd::new();
    front.start_online(2);
    let seed = front.party_seed(3, &[0, 1, 1, 0], 0).unwrap();
    let labels = front.labels_for(&Ntba::new(seed, 4));
    assert_eq!(labels.who, ["", "YOU"]);
    // Slot 3 plays for Home.
    front.start_online(3);
    assert_eq!(front.labels_for(&Ntba::new(seed, 4)).who, ["YOU", ""]);
    // Two people: the slot is the side, as before.
    front.start_online(1);
    assert_eq!(front.labels_for(&Ntba::new(3, 2)).who, ["", "YOU"]);
    assert_eq!(front.labels().who, ["", "YOU"]);
}

#[test]
fn the_party_seed_carries_the_length_the_challenger_picked() {
    let front = NtbaFrontEnd::new();
    let lengths = front.party().lengths;
    assert_eq!(lengths.len(), ntba::MatchLength::ALL.len());
    // Bits of the session's random seed where the length rides are
    // overwritten, so a random seed never picks the length by chance.
    let random = 0x00f0_1234_5678_9abc;
    for (i, length) in ntba::MatchLength::ALL.into_iter().enumerate() {
        for sides in [&[0, 1, 1, 0][..], &[1, 0, 1]] {
            let seed = front.party_seed(random, sides, i).unwrap();
            let people = sides.len() as u8;
            let game = Ntba::new(seed, people);
            assert_eq!(game.length(), length, "{sides:?} length {i}");
            assert_eq!(game.clocks().game_clock, length.half_ticks());
        }
    }
    // An index past the game's lengths plays the full length.
    let seed = front.party_seed(random, &[0, 1, 1, 0], 9).unwrap();
    assert_eq!(Ntba::new(seed, 4).length(), ntba::MatchLength::Full);
    // Two people: the seed as it was, and always the full length.
    assert_eq!(front.party_seed(random, &[0, 1], 1), Some(random));
    assert_eq!(Ntba::new(random, 2).length(), ntba::MatchLength::Full);
}
