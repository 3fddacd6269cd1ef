//! Command-line options of the `simulated` example.

use std::path::PathBuf;

use lockstep::Millis;
use netsim::LinkConfig;

use crate::args::{ArgError, Args};
use crate::MatchConfig;

/// The `--help` text of the `simulated` example.
pub const HELP: &str = "\
Two peers play the `dots` example game over a simulated network, in virtual
time (a minute of play takes well under a second), then print what happened.

USAGE:
    cargo run --release -p lockstep-examples --example simulated -- [OPTIONS]

NETWORK (the same both ways; a seed picks which packets suffer):
    --latency MS        one-way latency                            [default: 50]
    --jitter MS         each packet's delay varies by +-MS         [default: 10]
                        (at most the latency)
    --loss PCT          packets lost, 0-100                        [default: 5]
    --duplicate PCT     unreliable packets delivered twice, 0-100  [default: 1]
    --reorder PCT       unreliable packets held back so later ones
                        overtake them, 0-100                       [default: 1]
    --reorder-delay MS  how long a reordered packet is held back   [default: 20]
    --retransmit MS     extra delay of a reliable packet per loss  [default: 200]
    --net-seed N        seed of the network's random decisions     [default: 1]

MATCH:
    --ticks N           ticks both peers play, 60 per second       [default: 3600]
    --seed N            the match seed (the host's choice)         [default: 1]
    --delay N           input delay in ticks, 0-60                 [default: 6]
    --rollback [W]      rollback mode: predict the peer's late inputs up to
                        W ticks ahead (1-60) instead of stalling  [default W: 8]
    --delay-from-rtt    the host picks the input delay from 5 round trips
                        measured before the first tick (--delay is then unused)
    --send-interval N   one Inputs packet every N frames, 1-60     [default: 1]
    --max-hold N        rollback: hold an unneeded Inputs packet back at
                        most N frames, 0-15 (0: every frame)       [default: 2]
    --save-log FILE     write the host's input log to FILE (replay it with
                        the `replay` example)
    --quiet             print only the summary, not the progress lines
    --watch             play in real time (60 ticks per second) and draw the
                        host's view of the grid in the terminal: dots 0 and 1
                        chase the coin $ (Ctrl-C to stop)

    -h, --help          print this help

The summary gives, for each peer: ticks simulated, the state hash at the last
tick of the match (both must agree), stalled frames, round-trip times, and
packets and payload bytes sent per second (in rollback mode also predicted
ticks, rollbacks and re-simulated ticks); and for the link: packets lost,
duplicated, reordered and retransmitted.
";

/// Everything the `simulated` example can be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulatedOptions {
    /// Network conditions.
    pub link: LinkConfig,
    /// Seed of the network's random decisions.
    pub net_seed: u64,
    /// The match.
    pub game: MatchConfig,
    /// Where to write the host's input log.
    pub save_log: Option<PathBuf>,
    /// No progress lines.
    pub quiet: bool,
    /// Real time, drawing the grid.
    pub watch: bool,
}

impl Default for SimulatedOptions {
    /// The default conditions: 50 ms one way, ±10 ms
    /// jitter, 5% loss, 1% duplication, 1% reordering; one minute of play.
    fn default() -> Self {
        SimulatedOptions {
            link: LinkConfig {
                latency: Millis(50),
                jitter: Millis(10),
                loss_percent: 5,
                duplicate_percent: 1,
                reorder_percent: 1,
                reorder_delay: Millis(20),
                reliable_retransmit_delay: Millis(200),
            },
            net_seed: 1,
            game: MatchConfig::default(),
            save_log: None,
            quiet: false,
            watch: false,
        }
    }
}

impl SimulatedOptions {
    /// Parses the command line (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, ArgError> {
        let mut o = SimulatedOptions::default();
        let mut a = Args::new(args);
        const MS: u64 = 60_000;
        while let Some(flag) = a.next_flag()? {
            match flag.as_str() {
                "--latency" => o.link.latency = Millis(a.number("--latency", 0, MS)?),
                "--jitter" => o.link.jitter = Millis(a.number("--jitter", 0, MS)?),
                "--loss" => o.link.loss_percent = percent(&mut a, "--loss")?,
                "--duplicate" => o.link.duplicate_percent = percent(&mut a, "--duplicate")?,
                "--reorder" => o.link.reorder_percent = percent(&mut a, "--reorder")?,
                "--reorder-delay" => {
                    o.link.reorder_delay = Millis(a.number("--reorder-delay", 0, MS)?);
                }
                "--retransmit" => {
                    o.link.reliable_retransmit_delay = Millis(a.number("--retransmit", 1, MS)?);
                }
                "--net-seed" => o.net_seed = a.number("--net-seed", 0, u64::MAX)?,
                "--ticks" => o.game.ticks = a.number("--ticks", 1, 3_600_000)? as u32,
                "--seed" => o.game.seed = a.number("--seed", 0, u64::MAX)?,
                "--delay" => {
                    let max = u64::from(lockstep::wire::MAX_INPUT_DELAY);
                    o.game.input_delay = a.number("--delay", 0, max)? as u8;
                }
                "--save-log" => o.save_log = Some(PathBuf::from(a.string("--save-log")?)),
                "--quiet" => o.quiet = true,
                _ if a.session_flag(&flag, &mut o.game)? => {}
                "--watch" => o.watch = true,
                _ => return Err(ArgError::Unknown(flag)),
            }
        }
        if o.link.jitter > o.link.latency {
            return Err(ArgError::BadValue {
                flag: "--jitter",
                value: o.link.jitter.0.to_string(),
                expected: format!("at most the latency ({} ms)", o.link.latency.0),
            });
        }
        Ok(o)
    }
}

fn percent(a: &mut Args, flag: &'static str) -> Result<u8, ArgError> {
    Ok(a.number(flag, 0, 100)? as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<SimulatedOptions, ArgError> {
        SimulatedOptions::parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn defaults_are_valid() {
        let o = parse("").unwrap();
        assert_eq!(o, SimulatedOptions::default());
        assert_eq!(o.link.validate(), Ok(()));
    }

    #[test]
    fn every_flag_is_read() {
        let o = parse(
            "--latency 100 --jitter 20 --loss 25 --duplicate 3 --reorder 4 --reorder-delay 30 \
             --retransmit 150 --net-seed 9 --ticks 600 --seed 77 --delay 8 --save-log x.log --quiet --watch",
        )
        .unwrap();
        assert_eq!(
            o.link,
            LinkConfig {
                latency: Millis(100),
                jitter: Millis(20),
                loss_percent: 25,
                duplicate_percent: 3,
                reorder_percent: 4,
                reorder_delay: Millis(30),
                reliable_retransmit_delay: Millis(150),
            }
        );
        assert_eq!((o.net_seed, o.game.ticks, o.game.seed), (9, 600, 77));
        assert_eq!(o.game.input_delay, 8);
        assert_eq!(o.save_log, Some(PathBuf::from("x.log")));
        assert!(o.quiet && o.watch);
        assert_eq!((o.game.window, o.game.send_interval), (0, 1));
        assert!(!o.game.delay_from_rtt);
        let o = parse("--rollback --delay-from-rtt --send-interval 2").unwrap();
        assert_eq!((o.game.window, o.game.send_interval), (8, 2));
        assert!(o.game.delay_from_rtt);
        assert_eq!(parse("--rollback 4 --quiet").unwrap().game.window, 4);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert_eq!(parse("--bogus"), Err(ArgError::Unknown("--bogus".into())));
        assert!(matches!(
            parse("--loss 101"),
            Err(ArgError::BadValue { .. })
        ));
        assert!(matches!(
            parse("--delay 61"),
            Err(ArgError::BadValue { .. })
        ));
        assert!(matches!(parse("--ticks 0"), Err(ArgError::BadValue { .. })));
        assert!(matches!(
            parse("--latency 5 --jitter 6"),
            Err(ArgError::BadValue {
                flag: "--jitter",
                ..
            })
        ));
        assert_eq!(parse("--seed"), Err(ArgError::MissingValue("--seed")));
        assert_eq!(parse("--help"), Err(ArgError::HelpRequested));
    }
}
