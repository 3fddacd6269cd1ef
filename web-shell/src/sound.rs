//! Short sounds made on the spot: a sound is a list of tones (plain data,
//! tested natively), and in wasm32 a tiny synthesiser over the Web Audio API
//! plays them (oscillators with short envelopes, no sound files). The shell
//! plays its own cues with it, and a game's front end may play its own.

/// An oscillator's wave shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wave {
    /// Soft.
    Sine,
    /// Buzzy.
    Square,
    /// In between.
    Triangle,
}

/// One note of a cue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tone {
    /// Start, in seconds after the cue starts.
    pub at: f64,
    /// Length in seconds.
    pub dur: f64,
    /// Pitch in Hz at the start.
    pub freq: f32,
    /// Pitch in Hz at the end (a slide), or the same.
    pub to: f32,
    /// Shape.
    pub wave: Wave,
    /// Peak loudness, 0..1 (kept low: several cues may overlap).
    pub gain: f32,
}

/// A tone, for `const` tables of them.
#[must_use]
pub const fn tone(at: f64, dur: f64, freq: f32, to: f32, wave: Wave, gain: f32) -> Tone {
    Tone {
        at,
        dur,
        freq,
        to,
        wave,
        gain,
    }
}

/// Plays tones through the Web Audio API (wasm32 only). The audio context
/// is made on the first cue; browsers let it run once the person has
/// interacted with the page (clicking Local play or Accept counts). If the
/// browser has no audio, cues are silently skipped.
#[cfg(target_arch = "wasm32")]
#[derive(Debug, Default)]
pub struct Synth {
    ctx: Option<web_sys::AudioContext>,
    unavailable: bool,
}

#[cfg(target_arch = "wasm32")]
impl Synth {
    /// Starts the tones of one sound now.
    pub fn play(&mut self, tones: &[Tone]) {
        use web_sys::{AudioContext, AudioContextState};
        if self.unavailable {
            return;
        }
        if self.ctx.is_none() {
            match AudioContext::new() {
                Ok(c) => self.ctx = Some(c),
                Err(_) => {
                    self.unavailable = true;
                    return;
                }
            }
        }
        let Some(ctx) = self.ctx.as_ref() else {
            return;
        };
        if ctx.state() == AudioContextState::Suspended {
            let _ = ctx.resume();
        }
        let now = ctx.current_time();
        for t in tones {
            // A failed note only loses that note.
            let _ = play_tone(ctx, now, t);
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn play_tone(ctx: &web_sys::AudioContext, now: f64, t: &Tone) -> Result<(), wasm_bindgen::JsValue> {
    use web_sys::OscillatorType;
    let start = now + t.at;
    let end = start + t.dur;
    let osc = ctx.create_oscillator()?;
    osc.set_type(match t.wave {
        Wave::Sine => OscillatorType::Sine,
        Wave::Square => OscillatorType::Square,
        Wave::Triangle => OscillatorType::Triangle,
    });
    let f = osc.frequency();
    f.set_value_at_time(t.freq, start)?;
    if (t.to - t.freq).abs() > f32::EPSILON {
        f.exponential_ramp_to_value_at_time(t.to, end)?;
    }
    let g = ctx.create_gain()?;
    let gain = g.gain();
    gain.set_value_at_time(0.0, start)?;
    gain.linear_ramp_to_value_at_time(t.gain, start + 0.01)?;
    gain.exponential_ramp_to_value_at_time(0.0001, end)?;
    osc.connect_with_audio_node(&g)?;
    g.connect_with_audio_node(&ctx.destination())?;
    osc.start_with_when(start)?;
    osc.stop_with_when(end + 0.02)?;
    Ok(())
}

/// The shell's own sounds, by cue.
#[must_use]
pub fn shell_cue(cue: crate::shell::Cue) -> &'static [Tone] {
    match cue {
        crate::shell::Cue::Challenge => CHALLENGE,
    }
}

/// Two rising notes, a little louder than a game's cues: a challenge must
/// be heard from another window.
const CHALLENGE: &[Tone] = &[
    tone(0.0, 0.16, 660.0, 660.0, Wave::Sine, 0.2),
    tone(0.14, 0.3, 990.0, 990.0, Wave::Sine, 0.2),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Cue;

    #[test]
    fn the_challenge_cue_rises_and_is_short() {
        let t = shell_cue(Cue::Challenge);
        assert!(t.len() >= 2);
        assert!(t
            .windows(2)
            .all(|w| w[1].freq > w[0].freq && w[1].at > w[0].at));
        let end = t.iter().map(|n| n.at + n.dur).fold(0.0, f64::max);
        assert!(end <= 0.6, "{end} s");
        assert!(t.iter().all(|n| n.gain > 0.0 && n.gain <= 0.3));
    }
}
