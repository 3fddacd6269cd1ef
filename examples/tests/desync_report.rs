//! The desync report tool, on a real NtBA desync: one peer's game reads a
//! different pad at one tick (as a bug in input handling would). The
//! host's report replayed with this build agrees with the writer and names
//! the parts the peers disagreed on, with values; the guest's report shows
//! this build parting ways with the writer at exactly that tick.

use lockstep::{DesyncReport, DeterministicGame, Outcome, Session, SessionConfig};
use lockstep_examples::desync_report::explain;
use ntba::{Ntba, Pad};

/// Ticks before the wrong pad is read.
const AT: u32 = 400;

/// NtBA, except that for half a second from tick `AT` (counting from 0)
/// Away's pad is read as "left and turbo".
#[derive(Clone)]
struct MisreadPad(Ntba);

impl DeterministicGame for MisreadPad {
    type Input = Pad;
    const BUILD_ID: u64 = Ntba::BUILD_ID;
    fn new(seed: u64, players: u8) -> Self {
        MisreadPad(Ntba::new(seed, players))
    }
    fn step(&mut self, inputs: &[Pad]) {
        if (AT..AT + 30).contains(&self.0.tick()) {
            self.0.step(&[inputs[0], Pad(Pad::LEFT | Pad::TURBO)]);
        } else {
            self.0.step(inputs);
        }
    }
    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
    fn state_parts(&self) -> Vec<lockstep::StatePart> {
        self.0.state_parts()
    }
}

/// The input script's pad for `side`, at the tick the game has reached.
struct Script(u8);

impl lockstep_testing::PadSource<Ntba> for Script {
    const LOOKS: bool = true;
    fn next_pad(&mut self, game: Option<&Ntba>) -> Pad {
        ntba::script_pad(game.map_or(0, Ntba::tick), self.0)
    }
}

impl lockstep_testing::PadSource<MisreadPad> for Script {
    const LOOKS: bool = true;
    fn next_pad(&mut self, game: Option<&MisreadPad>) -> Pad {
        ntba::script_pad(game.map_or(0, |g| g.0.tick()), self.0)
    }
}

/// Plays until both sides end, on the engine's test driver over the
/// loopback: the datagrams cross within each frame.
fn desync() -> (Session<Ntba>, Session<MisreadPad>) {
    use lockstep_testing::{LoopbackLink, Net, Player, Schedule};
    let host = Session::<Ntba>::new(SessionConfig::host(3, 2)).expect("valid config");
    let guest = Session::<MisreadPad>::new(SessionConfig::guest()).expect("valid config");
    let (mut host, mut guest) = (Player::new(host, Script(0)), Player::new(guest, Script(1)));
    let mut net = Net::with_schedule(Schedule::Deadlines);
    net.join(0, 1, LoopbackLink::new());
    while net.frame < 3000 && !(host.outcome().is_some() && guest.outcome().is_some()) {
        net.step_frame(&mut [&mut host, &mut guest]);
    }
    (host.session, guest.session)
}

#[test]
fn the_tool_says_what_diverged_and_where() {
    let (host, guest) = desync();
    let Some(outcome @ Outcome::Desync { tick, parts, .. }) = host.outcome() else {
        panic!("not a desync: {:?}", host.outcome());
    };
    assert!(!parts.differing.is_empty());

    let report = DesyncReport::write::<Ntba>(&host.input_log(), 0, outcome, |g, name| {
        g.describe_part(name)
    })
    .expect("a report");
    // Cannot fail: pads always encode.
    let bytes = report.to_bytes().expect("encodes");
    let report = DesyncReport::<Pad>::from_bytes(&bytes).expect("reads back");
    let text = explain::<Ntba>(&report);
    assert!(
        text.starts_with("NtBA desync report written by the host"),
        "{text}"
    );
    assert!(
        text.contains(&format!("the hashes differed at tick {tick} (at 1:")),
        "{text}"
    );
    let differing = lockstep::parts::in_words(&parts.differing);
    assert!(
        text.contains(&format!("the peers' parts that differ: {differing}\n")),
        "{text}"
    );
    assert!(
        text.contains("this build's state equals the writer's after every tick"),
        "{text}"
    );
    assert!(
        text.contains("parts that differ from the writer's: nothing"),
        "{text}"
    );
    assert!(
        text.contains(&format!("parts that differ from the peer's: {differing}\n")),
        "{text}"
    );
    // Both values of each differing part: this build's and the writer's,
    // equal here (same build).
    let first = parts.differing[0];
    let block = text
        .split(&format!("{first} at tick {tick}:\n"))
        .nth(1)
        .expect("a value block");
    let mut lines = block.lines();
    let ours = lines.next().and_then(|l| l.strip_prefix("  this build: "));
    let theirs = lines.next().and_then(|l| l.strip_prefix("  the writer: "));
    assert!(ours.is_some() && ours == theirs, "{block}");

    // The guest's report: this build (the host's) parts ways with the
    // writer right after the first tick whose real pad differs from the
    // misread one.
    let log = guest.input_log();
    let misread = (AT..AT + 30)
        .find(|&t| {
            log.tick_inputs(t)
                .is_some_and(|i| i[1] != Pad(Pad::LEFT | Pad::TURBO))
        })
        .expect("a pad that differs");
    let outcome = guest.outcome().expect("ended");
    let report = DesyncReport::write::<MisreadPad>(&guest.input_log(), 1, outcome, |g, name| {
        g.0.describe_part(name)
    })
    .expect("a report");
    let text = explain::<Ntba>(&report);
    assert!(
        text.contains(&format!(
            "this build first differs from the writer after tick {} (at ",
            misread + 1
        )),
        "{text}"
    );
    assert!(
        text.contains("parts that differ from the peer's: nothing"),
        "{text}"
    );
    // The writer's values and this build's differ for some part.
    assert!(
        text.lines()
            .zip(text.lines().skip(1))
            .any(|(a, b)| a.starts_with("  this build: ")
                && b.starts_with("  the writer: ")
                && a[14..] != b[14..]),
        "{text}"
    );
}
