//! Shared by the `ntba_loopback` and `ntba_simulated` examples: two peers,
//! each a `lockstep::Session<Ntba>` whose local team is played by the CPU,
//! joined by a link, in virtual time.

use lockstep::{DeterministicGame, Event, Millis, Outcome, Session, SessionConfig};

use lockstep_examples::{frame_time, Link};
use ntba::{Cpu, Ntba, Pad, Phase};

/// What one peer ended with.
pub struct PeerEnd {
    pub side: u8,
    /// Ticks the session simulated in all (a peer may run a tick or two
    /// past the final whistle before the other side's Leave arrives).
    pub session_ticks: u32,
    /// The tick on which the match ended, with the state hash and the
    /// score right then.
    pub final_tick: Option<(u32, u64, [u16; 2])>,
    pub outcome: Option<Outcome>,
    pub stalled_frames: u64,
    /// The session's recorded input log, replayed offline: `Ok(hash)` when
    /// it reproduces the session's final state hash.
    pub replay: Result<u64, lockstep::ReplayError>,
    /// Size of the exported input log.
    pub log_bytes: usize,
}

/// The result of one match.
pub struct Report {
    pub peers: [PeerEnd; 2],
    pub virtual_ms: u64,
}

impl Report {
    /// Both peers saw the match end on the same tick with the same hash.
    pub fn in_sync(&self) -> bool {
        let [h, g] = &self.peers;
        h.final_tick.is_some()
            && h.final_tick == g.final_tick
            && h.replay.is_ok()
            && g.replay.is_ok()
    }
}

struct Peer {
    session: Session<Ntba>,
    cpu: Cpu,
    side: u8,
    final_tick: Option<(u32, u64, [u16; 2])>,
}

impl Peer {
    fn frame(&mut self, now: Millis) {
        // The CPU reads the game as it is now (like a person looking at the
        // screen); the session asks for a pad only when it needs one, for a
        // tick `input_delay` ticks ahead. A copy of the state (320 bytes)
        // keeps the borrow checker happy.
        let view = self.session.game().cloned();
        let (cpu, side) = (&mut self.cpu, self.side);
        self.session.advance_frame(now, || {
            view.as_ref().map_or(Pad::NONE, |g| cpu.pad(g, side))
        });
    }
}

/// Plays one CPU-against-CPU match over `link`. `watch` renders the court
/// in the terminal every `watch` seconds of play (0 = never).
pub fn play<L: Link>(link: &mut L, seed: u64, delay: u8, watch: u32) -> Report {
    let host_cfg = SessionConfig::host(seed, delay);
    let mut peers = [
        Peer {
            // A valid delay is checked by the callers' argument parsing.
            session: Session::new(host_cfg).expect("valid host configuration"),
            cpu: Cpu::new(seed ^ 0x686f_6d65),
            side: 0,
            final_tick: None,
        },
        Peer {
            session: Session::new(SessionConfig::guest()).expect("valid guest configuration"),
            cpu: Cpu::new(seed ^ 0x6177_6179),
            side: 1,
            final_tick: None,
        },
    ];
    let mut frame = 0u64;
    let mut now = Millis(0);
    let mut quit = false;
    let cap = Millis(60 * 60 * 1000);
    loop {
        let next_frame = frame_time(frame);
        let mut t = next_frame;
        for d in [
            link.next_arrival(),
            peers[0].session.poll_timeout(),
            peers[1].session.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        {
            t = t.min(d);
        }
        now = now.max(t);
        link.advance_to(now);
        {
            let (a, b) = link.ends();
            peers[0].session.pump(now, a);
            peers[1].session.pump(now, b);
        }
        if now >= next_frame {
            peers[0].frame(now);
            peers[1].frame(now);
            frame += 1;
        }
        {
            let (a, b) = link.ends();
            peers[0].session.pump(now, a);
            peers[1].session.pump(now, b);
            peers[0].session.pump(now, a);
        }
        for (i, p) in peers.iter_mut().enumerate() {
            while let Some(e) = p.session.poll_event() {
                match e {
                    Event::Started {
                        side,
                        seed,
                        input_delay,
                    } => println!(
                        "{}: started as side {side}, seed {seed}, input delay {input_delay} ticks",
                        name(i)
                    ),
                    Event::Ticked(tick) => {
                        // At most one tick per frame, so the game is at `tick`.
                        if let Some(g) = p.session.game() {
                            if i == 0 {
                                report_tick(g, tick, watch);
                            }
                            if g.is_over() && p.final_tick.is_none() {
                                p.final_tick = Some((tick, g.state_hash(), g.score()));
                            }
                        }
                    }
                    Event::Ended(o) => println!("{}: ended: {o:?}", name(i)),
                    _ => {}
                }
            }
        }
        // Once both peers have simulated the end of the match, the host
        // leaves; the guest hears it and ends too.
        if !quit && peers[0].final_tick.is_some() && peers[1].final_tick.is_some() {
            quit = true;
            peers[0].session.quit(now);
            let (a, _) = link.ends();
            peers[0].session.pump(now, a);
        }
        let ended = peers.iter().all(|p| p.session.outcome().is_some());
        if ended || now >= cap {
            break;
        }
    }
    let end = |p: &Peer| PeerEnd {
        side: p.side,
        session_ticks: p.session.tick(),
        final_tick: p.final_tick,
        outcome: p.session.outcome().cloned(),
        stalled_frames: p.session.stats().stalled_frames,
        replay: p.session.input_log().replay::<Ntba>(),
        log_bytes: p.session.input_log().to_bytes().map_or(0, |b| b.len()),
    };
    Report {
        peers: [end(&peers[0]), end(&peers[1])],
        virtual_ms: now.0,
    }
}

fn name(i: usize) -> &'static str {
    if i == 0 {
        "host "
    } else {
        "guest"
    }
}

/// Prints the score at the end of each period (and the court now and then).
fn report_tick(g: &Ntba, tick: u32, watch: u32) {
    for e in g.events() {
        match e {
            ntba::Event::PeriodEnd { period } => {
                let s = g.score();
                let what = match period {
                    0 => "half time".to_string(),
                    1 => "end of the second half".to_string(),
                    n => format!("end of overtime {}", n - 1),
                };
                println!("  tick {tick:>5}: {what}: Home {} - {} Away", s[0], s[1]);
            }
            ntba::Event::GameOver { winner } => {
                let s = g.score();
                let w = if *winner == 0 { "Home" } else { "Away" };
                println!(
                    "  tick {tick:>5}: final: Home {} - {} Away, {w} wins",
                    s[0], s[1]
                );
            }
            _ => {}
        }
    }
    if watch > 0 && tick % (watch * 60) == 0 && g.clocks().phase != Phase::Over {
        println!("{}", render(g));
    }
}

/// The court as text: 48 columns (half a metre each) by 14 rows (a metre
/// each). H/h are Home (capital: controlled), A/a Away, o the ball on or
/// near the floor, O the ball in the air, | the hoops.
pub fn render(g: &Ntba) -> String {
    const W: usize = 48;
    const H: usize = 14;
    let mut grid = vec![[' '; W]; H];
    let cell = |x: i32, y: i32| {
        let cx = (i64::from(x) * W as i64 / i64::from(ntba::COURT_LENGTH)).clamp(0, W as i64 - 1);
        let cy = (i64::from(y) * H as i64 / i64::from(ntba::COURT_WIDTH)).clamp(0, H as i64 - 1);
        (cx as usize, cy as usize)
    };
    for side in 0..2 {
        let (hx, hy) = Ntba::attacked_hoop(side);
        let (cx, cy) = cell(hx, hy);
        grid[cy][cx] = '|';
    }
    let b = g.ball();
    let (bx, by) = cell(b.x, b.y);
    grid[by][bx] = if b.z > 2 * ntba::UNITS_PER_METER {
        'O'
    } else {
        'o'
    };
    for p in g.players() {
        let (cx, cy) = cell(p.x, p.y);
        grid[cy][cx] = match (p.side, p.controlled) {
            (0, true) => 'H',
            (0, false) => 'h',
            (_, true) => 'A',
            (_, false) => 'a',
        };
    }
    let c = g.clocks();
    let (m, s) = c.game_clock_min_sec();
    let score = g.score();
    let shot = c
        .shot_clock_seconds()
        .map_or("--".to_string(), |s| format!("{s:>2}"));
    let mut out = format!(
        "  Home {:>3} - {:<3} Away   period {}  {m}:{s:02}  shot {shot}\n",
        score[0],
        score[1],
        c.period + 1
    );
    out.push_str(&format!("  +{}+\n", "-".repeat(W)));
    for row in &grid {
        out.push_str("  |");
        out.extend(row.iter());
        out.push_str("|\n");
    }
    out.push_str(&format!("  +{}+", "-".repeat(W)));
    out
}

/// Prints both peers' final tick, hash and score.
pub fn print_report(r: &Report) {
    println!(
        "\nafter {:.1} s of virtual time:",
        r.virtual_ms as f64 / 1000.0
    );
    for p in &r.peers {
        let (tick, hash, score) = match p.final_tick {
            Some((t, h, s)) => (
                t.to_string(),
                format!("{h:#018x}"),
                format!("{}-{}", s[0], s[1]),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "  {} (side {}): final tick {tick}, hash {hash}, score {score} \
             ({} ticks simulated, {} stalled frames, outcome {:?})",
            if p.side == 0 { "host " } else { "guest" },
            p.side,
            p.session_ticks,
            p.stalled_frames,
            p.outcome
        );
        match &p.replay {
            Ok(h) => println!(
                "         its input log ({} bytes, {} ticks) replays offline to its last state, hash {h:#018x}",
                p.log_bytes, p.session_ticks
            ),
            Err(e) => println!("         its input log does NOT replay: {e}"),
        }
    }
    if r.in_sync() {
        println!("in sync: both peers saw the match end on the same tick with the same hash");
    } else {
        println!("NOT in sync");
    }
}

/// Parses `--flag value` pairs into numbers; unknown flags are errors.
pub fn parse_flags(names: &[&str]) -> Result<Vec<Option<u64>>, String> {
    let mut out = vec![None; names.len()];
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let Some(i) = names.iter().position(|n| *n == flag) else {
            return Err(format!(
                "unknown option {flag:?}; options: {}",
                names.join(" ")
            ));
        };
        let v = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        out[i] = Some(
            v.parse()
                .map_err(|_| format!("{flag} {v:?}: expected a number"))?,
        );
    }
    Ok(out)
}
