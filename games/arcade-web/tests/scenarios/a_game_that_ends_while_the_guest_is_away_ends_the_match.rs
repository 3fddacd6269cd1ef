//! A game that ends while the guest is away (its link lost, the game
//! holding its place: NtBA plays on with the AI in the guest's slot) ends
//! the host's match with the game's result, instead of leaving the host on
//! the hub to choose a next game with nobody. Once the guest is back on a
//! new link, a game that ends leaves both on the hub as usual.
//!
//! The game here is a stand-in that holds the match as a lock-step host
//! does and ends when told, so the hub's part is seen alone.
use std::cell::Cell;
use std::rc::Rc;

use crate::common;

use arcade_web::hub::HubSlot;
use common::rejoining_host;
use lockstep::{Channel, Millis, Outcome, SessionConfig};
use web_shell::front_end::{LocalOption, Painter};
use web_shell::shell::driver::{FrameReport, MatchEnd};
use web_shell::shell::game::MatchIdentity;
use web_shell::shell::view::{LocalView, MatchView};
use web_shell::shell::GameSlot;

/// A game whose host holds the match for a comeback, and that ends by
/// itself once `over` is set.
struct Standing {
    tag: Option<u32>,
    over: Rc<Cell<bool>>,
}

impl GameSlot for Standing {
    fn name(&self) -> &'static str {
        "Standing"
    }
    fn build_id(&self) -> u64 {
        1
    }
    fn local_options(&self) -> &'static [LocalOption] {
        &[]
    }
    fn is_game_key(&self, _: &str) -> bool {
        false
    }
    fn start_local(&mut self, _: u64, _: &[usize]) {}
    fn stop_local(&mut self) {}
    fn local_frame(&mut self, _: &[&str], _: u32) -> LocalView {
        LocalView::default()
    }
    fn start_match(&mut self, _: SessionConfig, _: Millis, tag: u32) -> bool {
        self.tag = Some(tag);
        true
    }
    fn match_tag(&self) -> Option<u32> {
        self.tag
    }
    fn rejoins(&self) -> bool {
        true
    }
    fn match_identity(&self) -> Option<MatchIdentity> {
        self.tag.map(|_| MatchIdentity {
            side: 0,
            match_id: 5,
            token: None,
        })
    }
    fn match_relink(&mut self, _: Millis, tag: u32) -> bool {
        self.tag.replace(tag).is_some()
    }
    fn match_datagram(&mut self, _: Millis, _: Channel, _: &[u8]) {}
    fn match_link_lost(&mut self, _: Millis) {}
    fn match_frame(&mut self, _: Millis, _: &[&str], _: &mut MatchView) -> FrameReport {
        if self.tag.is_none() || !self.over.get() {
            return FrameReport::default();
        }
        FrameReport {
            ticked: true,
            ended: Some(MatchEnd {
                outcome: Outcome::LocalQuit,
                message: "Amber wins".to_owned(),
                log: None,
                report: None,
            }),
        }
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        None
    }
    fn quit_match(&mut self, _: Millis) {}
    fn drop_match(&mut self) {
        self.tag = None;
    }
    fn paint(&mut self, _: &mut dyn Painter) {}
}

/// A host's hub playing the stand-in, and the switch that ends it.
fn hosting() -> (HubSlot, Rc<Cell<bool>>) {
    let over = Rc::new(Cell::new(false));
    let game = Standing {
        tag: None,
        over: Rc::clone(&over),
    };
    let mut hub = HubSlot::new(vec![Box::new(game)]);
    assert!(hub.start_match(rejoining_host(3), Millis(0), 4));
    // Its first game starts at its first frame.
    hub.match_frame(Millis(0), &[], &mut MatchView::default());
    assert_eq!(hub.playing(), Some((0, 0)));
    (hub, over)
}

fn frame(hub: &mut HubSlot, ms: u64) -> FrameReport {
    let mut view = MatchView::default();
    hub.match_frame(Millis(ms), &[], &mut view)
}

#[test]
fn the_game_ends_the_match_while_the_guest_is_away() {
    let (mut hub, over) = hosting();
    assert!(frame(&mut hub, 16).ended.is_none());
    hub.match_link_lost(Millis(20));
    assert!(frame(&mut hub, 32).ended.is_none(), "held for a comeback");
    assert!(hub.match_identity().is_some(), "the guest may ask");

    over.set(true);
    let end = frame(&mut hub, 48).ended.expect("the match ends");
    assert_eq!(end.message, "Amber wins", "with the game's result");
}

#[test]
fn with_the_guest_there_the_players_stay_on_the_hub() {
    let (mut hub, over) = hosting();
    over.set(true);
    assert!(frame(&mut hub, 16).ended.is_none(), "on the hub");
    assert_eq!(hub.playing(), None);
}

#[test]
fn with_the_guest_back_the_players_stay_on_the_hub() {
    let (mut hub, over) = hosting();
    hub.match_link_lost(Millis(20));
    assert!(hub.match_relink(Millis(30), 5), "the guest comes back");
    assert_eq!(hub.match_tag(), Some(5));
    over.set(true);
    assert!(frame(&mut hub, 48).ended.is_none(), "on the hub");
    assert_eq!(hub.playing(), None);
}
