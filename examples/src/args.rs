//! A small command-line parser for the examples (`--name value` flags).
//!
//! Hand-written to keep the examples free of dependencies: each example
//! lists its flags in a table, and unknown flags, missing values and
//! out-of-range numbers are clear errors rather than panics.

use std::fmt;

/// Why the command line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// A flag no example knows.
    Unknown(String),
    /// A flag given without its value.
    MissingValue(&'static str),
    /// A value that does not parse or is out of range.
    BadValue {
        /// The flag.
        flag: &'static str,
        /// The refused value.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// `-h` or `--help`: print the help text and exit successfully.
    HelpRequested,
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Unknown(flag) => write!(f, "unknown option {flag:?} (try --help)"),
            ArgError::MissingValue(flag) => write!(f, "{flag} needs a value"),
            ArgError::BadValue {
                flag,
                value,
                expected,
            } => write!(f, "{flag} {value:?}: expected {expected}"),
            ArgError::HelpRequested => write!(f, "help requested"),
        }
    }
}

impl std::error::Error for ArgError {}

/// Walks `--flag value` pairs.
pub(crate) struct Args {
    items: std::iter::Peekable<std::vec::IntoIter<String>>,
}

impl Args {
    pub(crate) fn new(args: impl IntoIterator<Item = String>) -> Self {
        Args {
            items: args.into_iter().collect::<Vec<_>>().into_iter().peekable(),
        }
    }

    /// The value after `flag` if the next argument is a whole number (and
    /// then it must be in `min..=max`); `None`, consuming nothing, if the
    /// next argument is another flag or there is none.
    pub(crate) fn optional_number(
        &mut self,
        flag: &'static str,
        min: u64,
        max: u64,
    ) -> Result<Option<u64>, ArgError> {
        match self.items.peek() {
            Some(v) if v.parse::<u64>().is_ok() => self.number(flag, min, max).map(Some),
            _ => Ok(None),
        }
    }

    /// Reads one of the session flags every simulated example shares into
    /// `cfg`: `--rollback [WINDOW]`, `--delay-from-rtt`, `--send-interval N`, `--max-hold N`.
    /// `Ok(false)` if `flag` is none of them.
    pub(crate) fn session_flag(
        &mut self,
        flag: &str,
        cfg: &mut crate::MatchConfig,
    ) -> Result<bool, ArgError> {
        match flag {
            "--rollback" => {
                let max = u64::from(lockstep::wire::MAX_PREDICTION_WINDOW);
                cfg.window = self
                    .optional_number("--rollback", 1, max)?
                    .map_or(lockstep::session::DEFAULT_PREDICTION_WINDOW, |w| w as u8);
            }
            "--delay-from-rtt" => cfg.delay_from_rtt = true,
            "--send-interval" => cfg.send_interval = self.number("--send-interval", 1, 60)? as u8,
            "--max-hold" => {
                let max = u64::from(lockstep::session::MAX_HOLD_FRAMES);
                cfg.max_hold = self.number("--max-hold", 0, max)? as u8;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The next flag, or `None` at the end. `-h`/`--help` become
    /// [`ArgError::HelpRequested`].
    pub(crate) fn next_flag(&mut self) -> Result<Option<String>, ArgError> {
        match self.items.next() {
            None => Ok(None),
            Some(f) if f == "-h" || f == "--help" => Err(ArgError::HelpRequested),
            Some(f) => Ok(Some(f)),
        }
    }

    /// The value after `flag`, as a string.
    pub(crate) fn string(&mut self, flag: &'static str) -> Result<String, ArgError> {
        self.items.next().ok_or(ArgError::MissingValue(flag))
    }

    /// The value after `flag`, as an integer in `min..=max`.
    pub(crate) fn number(
        &mut self,
        flag: &'static str,
        min: u64,
        max: u64,
    ) -> Result<u64, ArgError> {
        let value = self.string(flag)?;
        match value.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(ArgError::BadValue {
                flag,
                value,
                expected: format!("a whole number from {min} to {max}"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Args {
        Args::new(s.split_whitespace().map(String::from))
    }

    #[test]
    fn numbers_are_range_checked() {
        let mut a = args("--loss 30 --loss 101 --loss -1 --loss x --loss");
        assert_eq!(a.next_flag(), Ok(Some("--loss".into())));
        assert_eq!(a.number("--loss", 0, 100), Ok(30));
        for _ in 0..3 {
            a.next_flag().unwrap();
            assert!(matches!(
                a.number("--loss", 0, 100),
                Err(ArgError::BadValue { .. })
            ));
        }
        a.next_flag().unwrap();
        assert_eq!(
            a.number("--loss", 0, 100),
            Err(ArgError::MissingValue("--loss"))
        );
        assert_eq!(a.next_flag(), Ok(None));
    }

    #[test]
    fn rollback_takes_an_optional_window() {
        let mut cfg = crate::MatchConfig::default();
        let mut a = args(
            "--rollback --delay-from-rtt --rollback 3 --send-interval 2 --max-hold 0 --rollback",
        );
        while let Some(f) = a.next_flag().unwrap() {
            let before = cfg;
            assert!(a.session_flag(&f, &mut cfg).unwrap());
            assert_ne!(before, cfg, "{f}");
            if f == "--delay-from-rtt" {
                assert_eq!(cfg.window, 8);
            }
        }
        assert_eq!((cfg.window, cfg.send_interval, cfg.max_hold), (8, 2, 0));
        assert!(cfg.delay_from_rtt);
        let mut cfg = crate::MatchConfig::default();
        let mut a = args("--rollback 3");
        a.next_flag().unwrap();
        a.session_flag("--rollback", &mut cfg).unwrap();
        assert_eq!(cfg.window, 3);
        for bad in [
            "--rollback 0",
            "--rollback 61",
            "--send-interval 0",
            "--send-interval",
        ] {
            let mut a = args(bad);
            let f = a.next_flag().unwrap().unwrap();
            assert!(a.session_flag(&f, &mut cfg).is_err(), "{bad}");
        }
        assert_eq!(args("--seed").session_flag("--seed", &mut cfg), Ok(false));
    }

    #[test]
    fn help_is_recognised() {
        assert_eq!(args("-h").next_flag(), Err(ArgError::HelpRequested));
        assert_eq!(args("--help").next_flag(), Err(ArgError::HelpRequested));
    }
}
