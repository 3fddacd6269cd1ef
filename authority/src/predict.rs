//! Prediction of the player's own entity, with reconciliation.
//!
//! Each snapshot made for the player carries its entity's exact movement
//! state ([`Predict::own_motion`]) as of the snapshot's tick, and the number
//! of the newest command the host had applied. From there the predictor
//! re-runs the host's movement code ([`Predict::step_motion`]) tick by tick
//! up to the tick at which a command sent now would take effect on the host,
//! applying each command the host has not applied yet at the tick it is
//! expected to arrive. The player thus sees its own entity respond at once,
//! where the host will have it.
//!
//! When a new snapshot moves the prediction (something the guest could not
//! foresee: a collision, a hit, a timing estimate one tick off), the jump
//! is not shown at once: the difference becomes an offset that decays
//! exponentially ([`BLEND_PER_SECOND`]), unless it is longer than the
//! game's [`Predict::snap_distance`], in which case the entity snaps.

use std::collections::VecDeque;

use lockstep::Millis;

use crate::game::Predict;
use crate::guest::Guest;

/// Most host ticks predicted ahead of the newest snapshot.
pub const MAX_STEPS: u64 = 24;
/// Rate at which a blended correction fades (per second).
pub const BLEND_PER_SECOND: f32 = 12.0;

/// A change of the prediction caused by a new snapshot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correction {
    /// How far the shown position would have jumped.
    pub distance: f32,
    /// Whether it was snapped (over the snap distance) rather than blended.
    pub snapped: bool,
}

struct Base<M> {
    motion: M,
    tick: u64,
    arrived: Millis,
}

/// Predicts the player's own entity from a [`Guest`]'s snapshots.
///
/// Call [`command`](Self::command) with every command sent (and its number
/// from [`Guest::command`]), [`rebase`](Self::rebase) after every
/// [`GuestEvent::Snapshot`](crate::GuestEvent::Snapshot), and draw the
/// entity at [`position`](Self::position).
pub struct Predictor<G: Predict> {
    pending: VecDeque<(u32, Millis, G::Command)>,
    base: Option<Base<G::Motion>>,
    tick_ms: u64,
    rtt: Millis,
    offset: [f32; 2],
    offset_at: Millis,
}

impl<G: Predict> Default for Predictor<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: Predict> Predictor<G> {
    /// A predictor with nothing to predict from yet.
    #[must_use]
    pub fn new() -> Self {
        Predictor {
            pending: VecDeque::new(),
            base: None,
            tick_ms: 33,
            rtt: Millis::ZERO,
            offset: [0.0; 2],
            offset_at: Millis::ZERO,
        }
    }

    /// A command numbered `seq` was sent at `now`.
    pub fn command(&mut self, now: Millis, seq: u32, command: G::Command) {
        self.pending.push_back((seq, now, command));
    }

    /// Commands sent that the host had not applied by the newest snapshot.
    #[must_use]
    pub fn unapplied(&self) -> usize {
        self.pending.len()
    }

    /// Takes the guest's newest snapshot as the new starting point. Returns
    /// the correction it caused, if there was a prediction before.
    pub fn rebase(&mut self, now: Millis, guest: &Guest<G>) -> Option<Correction> {
        let (tick, arrived, snapshot) = guest.latest()?;
        if self.base.as_ref().is_some_and(|b| b.tick >= tick) {
            return None;
        }
        let shown = self.position(now);
        let applied = guest.commands_applied();
        // Numbers wrap after four billion commands; compare by distance.
        while self
            .pending
            .front()
            .is_some_and(|(seq, _, _)| applied.wrapping_sub(*seq) < u32::MAX / 2)
        {
            self.pending.pop_front();
        }
        self.tick_ms = u64::from(guest.tick_ms().unwrap_or(33).max(1));
        self.rtt = guest.rtt().unwrap_or(Millis::ZERO);
        let Some(motion) = G::own_motion(snapshot) else {
            self.base = None;
            self.offset = [0.0; 2];
            return None;
        };
        self.base = Some(Base {
            motion,
            tick,
            arrived,
        });
        let shown = shown?;
        let fresh = self.predict(now)?.1;
        let jump = [shown[0] - fresh[0], shown[1] - fresh[1]];
        let distance = jump[0].hypot(jump[1]);
        let snapped = distance > G::snap_distance();
        self.offset = if snapped { [0.0; 2] } else { jump };
        self.offset_at = now;
        Some(Correction { distance, snapped })
    }

    /// The host tick a command sent at `at` is expected to take effect in.
    fn apply_tick(&self, base: &Base<G::Motion>, at: Millis) -> u64 {
        let ahead = (at.0 + self.rtt.0).saturating_sub(base.arrived.0);
        base.tick + ahead.div_ceil(self.tick_ms).max(1)
    }

    /// The predicted motion at `now` and the tick it stands for: the tick
    /// at which a command sent now would take effect.
    #[must_use]
    pub fn motion(&self, now: Millis) -> Option<(u64, G::Motion)> {
        let base = self.base.as_ref()?;
        let target = self.apply_tick(base, now).min(base.tick + MAX_STEPS);
        let mut m = base.motion.clone();
        let mut queue = self.pending.iter().peekable();
        for tick in base.tick + 1..=target {
            while let Some((_, at, cmd)) = queue.peek() {
                if self.apply_tick(base, *at).min(target) > tick {
                    break;
                }
                G::apply_command(&mut m, cmd);
                queue.next();
            }
            #[allow(clippy::cast_possible_truncation)]
            G::step_motion(&mut m, self.tick_ms as u32);
        }
        Some((target, m))
    }

    fn predict(&self, now: Millis) -> Option<(u64, [f32; 2])> {
        self.motion(now).map(|(t, m)| (t, G::position(&m)))
    }

    /// Where to draw the player's own entity at `now`: the prediction plus
    /// what is left of the last blended correction.
    #[must_use]
    pub fn position(&self, now: Millis) -> Option<[f32; 2]> {
        let (_, p) = self.predict(now)?;
        #[allow(clippy::cast_precision_loss)]
        let secs = (now - self.offset_at).0 as f32 / 1000.0;
        let k = (-BLEND_PER_SECOND * secs).exp();
        Some([p[0] + self.offset[0] * k, p[1] + self.offset[1] * k])
    }
}
