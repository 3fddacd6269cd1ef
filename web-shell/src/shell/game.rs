//! The plugged-in game with its type erased, so the rest of the shell is
//! not generic: local play, the online match, drawing, the last match's
//! input log.

use super::driver::{FrameReport, MatchDriver};
use super::view::{LocalView, LogOffer, MatchView};
use crate::front_end::{FrontEnd, LocalOption, Painter};
use lockstep::{Channel, DeterministicGame, InputLog, Millis, SessionConfig};

/// What the shell asks of the game, whatever its type.
pub(crate) trait GameSlot {
    fn name(&self) -> &'static str;
    fn build_id(&self) -> u64;
    fn local_options(&self) -> &'static [LocalOption];
    fn is_game_key(&self, code: &str) -> bool;
    /// Starts local play (unless it runs already).
    fn start_local(&mut self, seed: u64, choices: &[usize]);
    fn stop_local(&mut self);
    /// Runs `steps` ticks of local play (fewer once the game is over).
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView;
    /// Starts an online match; `false` if the session refused `cfg`.
    fn start_match(&mut self, cfg: SessionConfig, now: Millis) -> bool;
    fn in_match(&self) -> bool;
    fn match_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]);
    fn match_link_lost(&mut self, now: Millis);
    /// One match frame. When it reports the end, drain the last transmits
    /// (a Bye), then drop the match.
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport;
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)>;
    fn quit_match(&mut self, now: Millis);
    fn drop_match(&mut self);
    /// Draws the local game, or else the match's present game.
    fn paint(&mut self, painter: &mut dyn Painter);
    /// The state hash after `tick` ticks of the last finished match,
    /// replayed from its input log.
    fn log_hash_at(&self, log: &LogOffer, tick: u32) -> Option<u64>;
}

pub(crate) struct Slot<F: FrontEnd> {
    front: F,
    local: Option<F::Game>,
    online: Option<MatchDriver<F::Game>>,
}

impl<F: FrontEnd> Slot<F> {
    pub(crate) fn new(front: F) -> Self {
        Slot {
            front,
            local: None,
            online: None,
        }
    }
}

impl<F: FrontEnd> GameSlot for Slot<F> {
    fn name(&self) -> &'static str {
        self.front.name()
    }
    fn build_id(&self) -> u64 {
        self.front.build_id()
    }
    fn local_options(&self) -> &'static [LocalOption] {
        self.front.local_options()
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.front.is_game_key(code)
    }
    fn start_local(&mut self, seed: u64, choices: &[usize]) {
        if self.local.is_none() {
            self.front.start_local(choices);
            self.local = Some(F::Game::new(seed, self.front.local_players()));
        }
    }
    fn stop_local(&mut self) {
        self.local = None;
    }
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView {
        let Some(game) = self.local.as_mut() else {
            return LocalView::default();
        };
        let mut result = self.front.result(game);
        for _ in 0..steps {
            if result.is_some() {
                break;
            }
            let inputs = self.front.local_inputs(game, held);
            game.step(&inputs);
            result = self.front.result(game);
        }
        LocalView {
            summary: self.front.summary(game),
            result,
        }
    }
    fn start_match(&mut self, cfg: SessionConfig, now: Millis) -> bool {
        match MatchDriver::new(cfg, now) {
            Ok(m) => {
                self.online = Some(m);
                true
            }
            Err(e) => {
                log::error!("session config refused: {e:?}");
                false
            }
        }
    }
    fn in_match(&self) -> bool {
        self.online.is_some()
    }
    fn match_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        if let Some(m) = self.online.as_mut() {
            m.datagram(now, channel, bytes);
        }
    }
    fn match_link_lost(&mut self, now: Millis) {
        if let Some(m) = self.online.as_mut() {
            m.link_lost(now);
        }
    }
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        let Some(m) = self.online.as_mut() else {
            return FrameReport::default();
        };
        m.frame(now, &mut self.front, held, view)
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.online.as_mut()?.poll_transmit()
    }
    fn quit_match(&mut self, now: Millis) {
        if let Some(m) = self.online.as_mut() {
            m.quit(now);
        }
    }
    fn drop_match(&mut self) {
        self.online = None;
    }
    fn paint(&mut self, painter: &mut dyn Painter) {
        if let Some(g) = &self.local {
            self.front.draw(g, painter);
        } else if let Some(g) = self.online.as_ref().and_then(MatchDriver::game) {
            self.front.draw(g, painter);
        }
    }
    fn log_hash_at(&self, last: &LogOffer, tick: u32) -> Option<u64> {
        let log =
            InputLog::<<F::Game as DeterministicGame>::Input>::from_bytes(&last.bytes).ok()?;
        if tick > log.ticks() {
            return None;
        }
        let mut g = F::Game::new(log.seed, log.players);
        for t in 0..tick {
            g.step(log.tick_inputs(t)?);
        }
        Some(g.state_hash())
    }
}
