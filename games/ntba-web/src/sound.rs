//! Sound: which cue each effect plays, and the cues as plain tone lists
//! (tested natively); in wasm32 the shell's synthesiser
//! (`web_shell::sound::Synth`) plays them.

use crate::effects::EffectKind;
use web_shell::sound::{tone, Tone, Wave};

/// A short sound for something that happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    /// Two points: a two-note chime.
    Basket,
    /// Three points: three rising notes.
    Three,
    /// A dunk: a low thump and a chime.
    Dunk,
    /// A blocked shot: a falling buzz.
    Block,
    /// A steal: a rising blip.
    Steal,
    /// A release at the top of the jump: a high ping.
    Perfect,
    /// The referee: out of bounds, the start of a period.
    Whistle,
    /// The end of a period, of the match, or of the shot clock.
    Buzzer,
}

impl Cue {
    /// The notes of the cue.
    #[must_use]
    pub fn tones(self) -> &'static [Tone] {
        match self {
            Cue::Basket => BASKET,
            Cue::Three => THREE,
            Cue::Dunk => DUNK,
            Cue::Block => BLOCK,
            Cue::Steal => STEAL,
            Cue::Perfect => PERFECT,
            Cue::Whistle => WHISTLE,
            Cue::Buzzer => BUZZER,
        }
    }
}

const BASKET: &[Tone] = &[
    tone(0.0, 0.14, 880.0, 880.0, Wave::Sine, 0.16),
    tone(0.09, 0.22, 1320.0, 1320.0, Wave::Sine, 0.14),
];
const THREE: &[Tone] = &[
    tone(0.0, 0.12, 660.0, 660.0, Wave::Sine, 0.15),
    tone(0.08, 0.12, 880.0, 880.0, Wave::Sine, 0.15),
    tone(0.16, 0.26, 1320.0, 1320.0, Wave::Sine, 0.15),
];
const DUNK: &[Tone] = &[
    tone(0.0, 0.32, 130.0, 55.0, Wave::Triangle, 0.35),
    tone(0.06, 0.2, 990.0, 990.0, Wave::Sine, 0.12),
];
const BLOCK: &[Tone] = &[tone(0.0, 0.14, 220.0, 90.0, Wave::Square, 0.1)];
const STEAL: &[Tone] = &[tone(0.0, 0.1, 500.0, 1100.0, Wave::Triangle, 0.14)];
const PERFECT: &[Tone] = &[tone(0.0, 0.09, 1760.0, 1760.0, Wave::Sine, 0.07)];
const WHISTLE: &[Tone] = &[
    tone(0.0, 0.11, 2300.0, 2250.0, Wave::Sine, 0.07),
    tone(0.14, 0.2, 2300.0, 2200.0, Wave::Sine, 0.07),
];
const BUZZER: &[Tone] = &[
    tone(0.0, 0.7, 140.0, 140.0, Wave::Square, 0.08),
    tone(0.0, 0.7, 147.0, 147.0, Wave::Square, 0.08),
];

/// The cue an effect plays when it starts.
#[must_use]
pub fn cue_for(kind: &EffectKind) -> Option<Cue> {
    Some(match kind {
        EffectKind::Score { dunk: true, .. } => Cue::Dunk,
        EffectKind::Score { points: 3, .. } => Cue::Three,
        EffectKind::Score { .. } => Cue::Basket,
        EffectKind::Block { .. } => Cue::Block,
        EffectKind::Steal { .. } => Cue::Steal,
        EffectKind::Perfect { .. } => Cue::Perfect,
        EffectKind::Banner("SHOT CLOCK VIOLATION") => Cue::Buzzer,
        EffectKind::Banner(_) => Cue::Whistle,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_effect_has_a_cue_and_cues_are_short_and_quiet() {
        let kinds = [
            EffectKind::Score {
                side: 0,
                points: 2,
                dunk: false,
            },
            EffectKind::Score {
                side: 1,
                points: 3,
                dunk: false,
            },
            EffectKind::Score {
                side: 0,
                points: 2,
                dunk: true,
            },
            EffectKind::Block { side: 0 },
            EffectKind::Steal { side: 1 },
            EffectKind::Perfect { side: 0 },
            EffectKind::Banner("OUT OF BOUNDS"),
            EffectKind::Banner("SHOT CLOCK VIOLATION"),
        ];
        let cues: Vec<Cue> = kinds.iter().filter_map(cue_for).collect();
        assert_eq!(
            cues,
            [
                Cue::Basket,
                Cue::Three,
                Cue::Dunk,
                Cue::Block,
                Cue::Steal,
                Cue::Perfect,
                Cue::Whistle,
                Cue::Buzzer
            ]
        );
        for c in cues {
            for t in c.tones() {
                assert!(t.at + t.dur <= 1.0, "{c:?} is short");
                assert!(t.gain > 0.0 && t.gain <= 0.35, "{c:?} is quiet");
                assert!(t.freq >= 40.0 && t.to >= 40.0 && t.freq <= 4000.0);
            }
        }
    }
}
