//! The lobby's party controls, as a person uses them: the challenger
//! opens the party panel, picks three players (each shown with a team),
//! and presses Start; each invited page shows a prompt with the time left
//! and Accept and Decline; one declines, two accept, and the three play.

use crate::common;

use common::{party_shells, World};
use web_shell::party::PartyRules;
use web_shell::screens::Screen;
use web_shell::shell::page::Node;
use web_shell::shell::Action;

/// Every button under `nodes`: its `data-action`, `data-id`, text, and
/// whether it is enabled.
fn buttons(nodes: &[Node]) -> Vec<(String, Option<String>, String, bool)> {
    fn walk(n: &Node, out: &mut Vec<(String, Option<String>, String, bool)>) {
        if let Node::El {
            tag,
            attrs,
            children,
        } = n
        {
            let get = |k: &str| attrs.iter().find(|(a, _)| *a == k).map(|(_, v)| v.clone());
            if *tag == "button" {
                let text = children
                    .iter()
                    .filter_map(|c| match c {
                        Node::Text(t) => Some(t.clone()),
                        Node::El { .. } => None,
                    })
                    .collect();
                out.push((
                    get("data-action").unwrap_or_default(),
                    get("data-id"),
                    text,
                    get("disabled").is_none(),
                ));
            }
            for c in children {
                walk(c, out);
            }
        }
    }
    let mut out = Vec::new();
    for n in nodes {
        walk(n, &mut out);
    }
    out
}

fn panel(w: &World, p: usize) -> Vec<(String, Option<String>, String, bool)> {
    buttons(w.pages[p].party_page.get("party-panel").map_or(&[], |v| v))
}

fn control(w: &mut World, p: usize, action: &str, on: Option<usize>) {
    let id = on.map(|q| w.id(q).as_str().to_owned());
    w.action(
        p,
        Action::PartyControl {
            action: action.to_owned(),
            id,
        },
    );
}

#[test]
fn the_party_panel_picks_a_party_and_its_prompt_answers_it() {
    let mut w = World::of_shells(party_shells(
        4,
        PartyRules {
            max_people: 4,
            sides: 2,
            per_side: 2,
            lengths: &["Full", "Short"],
        },
        0x7ea5,
    ));
    for (p, name) in ["Ada", "Bo", "Cy", "Di"].iter().enumerate() {
        w.join(p, name);
    }
    w.until(5_000, "the mesh forms", World::mesh_formed);
    assert_eq!(w.pages[0].party_state.as_deref(), Some("closed"));
    assert_eq!(
        panel(&w, 0),
        [("party-open".into(), None, "Invite to a party…".into(), true)]
    );

    control(&mut w, 0, "party-open", None);
    assert_eq!(w.pages[0].party_state.as_deref(), Some("picking"));
    let start = |w: &World| {
        panel(w, 0)
            .into_iter()
            .find(|b| b.0 == "party-start")
            .map(|b| b.3)
    };
    assert_eq!(start(&w), Some(false), "nobody picked yet");
    for q in 1..4 {
        control(&mut w, 0, "party-pick", Some(q));
    }
    // Teams alternate from ours (Team 1): the first picked plays against us.
    let teams: Vec<(Option<String>, String)> = panel(&w, 0)
        .into_iter()
        .filter(|b| b.0 == "party-team")
        .map(|b| (b.1, b.2))
        .collect();
    let id = |q: usize| Some(w.id(q).as_str().to_owned());
    assert_eq!(
        teams,
        [
            (id(1), "Team 2".into()),
            (id(2), "Team 1".into()),
            (id(3), "Team 2".into())
        ]
    );
    assert_eq!(start(&w), Some(true));
    // The match length cycles through the game's lengths, the default first.
    let length = |w: &World| {
        panel(w, 0)
            .into_iter()
            .find(|b| b.0 == "party-length")
            .map(|b| b.2)
    };
    assert_eq!(length(&w).as_deref(), Some("Full"));
    control(&mut w, 0, "party-length", None);
    assert_eq!(length(&w).as_deref(), Some("Short"));
    control(&mut w, 0, "party-length", None);
    control(&mut w, 0, "party-length", None);
    assert_eq!(length(&w).as_deref(), Some("Short"));
    control(&mut w, 0, "party-start", None);
    assert_eq!(w.pages[0].party_state.as_deref(), Some("hosting"));

    let host = w.id(0).as_str().to_owned();
    w.until(2_000, "every prompt shows", |w| {
        (1..4).all(|p| {
            buttons(w.pages[p].party_page.get("party-prompt").map_or(&[], |v| v))
                .iter()
                .any(|b| b.0 == "party-accept" && b.1.as_deref() == Some(&host) && b.3)
        })
    });
    control(&mut w, 3, "party-decline", Some(0));
    control(&mut w, 1, "party-accept", Some(0));
    assert_eq!(w.pages[1].party_state.as_deref(), Some("member"));
    control(&mut w, 2, "party-accept", Some(0));

    w.until(10_000, "the three play", |w| {
        (0..3)
            .all(|p| w.screen(p) == Screen::Match && w.pages[p].shell.match_view().tick > Some(30))
    });
    assert_eq!(w.screen(3), Screen::Lobby);
    assert_eq!(
        buttons(w.pages[3].party_page.get("party-prompt").map_or(&[], |v| v)),
        [],
        "the declined prompt is gone"
    );
}
