//! The `log` crate's records as lines of text with their level: the page
//! writes them to the browser's console; the match worker hands them to
//! the page ([`FromWorker::Log`](super::worker::FromWorker::Log)), which
//! logs them as its own, so the page's console is one log.

/// A logger that hands each record at `max` or more severe to `write`,
/// as its level and its text.
pub struct LineLog {
    /// The least severe level written.
    pub max: log::Level,
    /// Where a line goes.
    pub write: fn(log::Level, String),
}

impl LineLog {
    /// Makes this the program's logger, at the shell's
    /// [`LOG_LEVEL`](super::LOG_LEVEL); does nothing if one is set.
    pub fn install(&'static self) {
        if log::set_logger(self).is_ok() {
            log::set_max_level(super::LOG_LEVEL);
        }
    }
}

impl log::Log for LineLog {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= self.max
    }
    fn log(&self, r: &log::Record<'_>) {
        if self.enabled(r.metadata()) {
            (self.write)(r.level(), r.args().to_string());
        }
    }
    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::LineLog;
    use log::{Level, Log, Record};
    use std::cell::RefCell;

    thread_local! {
        static LINES: RefCell<Vec<(Level, String)>> = const { RefCell::new(Vec::new()) };
    }

    fn keep(level: Level, line: String) {
        LINES.with(|l| l.borrow_mut().push((level, line)));
    }

    #[test]
    fn records_down_to_the_level_are_written_as_their_text() {
        let logger = LineLog {
            max: Level::Info,
            write: keep,
        };
        for (level, n) in [(Level::Error, 1), (Level::Info, 2), (Level::Debug, 3)] {
            logger.log(
                &Record::builder()
                    .level(level)
                    .args(format_args!("line {n}"))
                    .build(),
            );
        }
        let lines = LINES.with(|l| l.take());
        assert_eq!(
            lines,
            vec![
                (Level::Error, "line 1".to_owned()),
                (Level::Info, "line 2".to_owned())
            ]
        );
    }
}
