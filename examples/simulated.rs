//! Example 2: two peers play the `dots` game over a simulated network with
//! latency, jitter, loss, duplication and reordering taken from the command
//! line (`--help` lists them), in virtual time. Prints progress once per
//! second of play, then stalls, round-trip times, packets and bytes sent per
//! second, and the final tick and hash of both peers.
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example simulated -- --latency 100 --jitter 20 --loss 25
//! ```

use lockstep_examples::basketball::mode_suffix;
use lockstep_examples::simulated::{SimulatedOptions, HELP};
use lockstep_examples::{
    describe_outcome, play_simulated, ArgError, MatchConfig, MatchReport, PeerReport,
};

fn main() {
    let opts = match SimulatedOptions::parse(std::env::args().skip(1)) {
        Ok(opts) => opts,
        Err(ArgError::HelpRequested) => {
            print!("{HELP}");
            return;
        }
        Err(e) => {
            eprintln!("simulated: {e}");
            std::process::exit(2);
        }
    };
    let l = &opts.link;
    println!(
        "dots over a simulated link: {} ms one way, jitter ±{} ms, {}% loss, {}% duplicated, \
         {}% reordered (+{} ms), reliable retransmission after {} ms; network seed {}",
        l.latency.0,
        l.jitter.0,
        l.loss_percent,
        l.duplicate_percent,
        l.reorder_percent,
        l.reorder_delay.0,
        l.reliable_retransmit_delay.0,
        opts.net_seed
    );
    let delay = if opts.game.delay_from_rtt {
        "input delay from the measured round trip".to_string()
    } else {
        format!(
            "input delay {} ticks ({} ms)",
            opts.game.input_delay,
            u32::from(opts.game.input_delay) * 1000 / 60
        )
    };
    println!(
        "match: {} ticks ({} s of play), seed {}, {delay}{}\n",
        opts.game.ticks,
        opts.game.ticks / 60,
        opts.game.seed,
        mode_suffix(&MatchConfig {
            delay_from_rtt: false,
            ..opts.game
        })
    );

    let (quiet, watch, rollback) = (opts.quiet, opts.watch, opts.game.window > 0);
    let started = std::time::Instant::now();
    let mut progress = |p: &lockstep_examples::Progress| {
        if watch {
            // Real time: wait until the wall clock reaches this frame's
            // virtual time, and redraw ten times per second. (Only this
            // binary reads a clock; the sessions and the link never do.)
            let due = std::time::Duration::from_millis(p.now.0);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
            if p.frame.is_multiple_of(6) {
                if let Some(game) = p.game {
                    let ping = p.rtt.map_or("-".to_string(), |r| format!("{} ms", r.0));
                    // Home the cursor and clear below: redraw in place.
                    println!(
                        "\x1b[H\x1b[J{}tick {} / {}   ping {ping}   stalled frames {} / {}",
                        lockstep_examples::render_grid(game),
                        p.ticks[0],
                        p.ticks[1],
                        p.stalled[0],
                        p.stalled[1]
                    );
                }
            }
        } else if !quiet && p.frame.is_multiple_of(600) && p.frame > 0 {
            // One line per 10 seconds of play keeps a one-minute match short.
            let rtt = p.rtt.map_or("-".to_string(), |r| format!("{} ms", r.0));
            let rollbacks = if rollback {
                format!("  rollbacks {} / {}", p.rollbacks[0], p.rollbacks[1])
            } else {
                String::new()
            };
            println!(
                "  {:>5.1} s  ticks {:>5} / {:<5}  stalled frames {:>4} / {:<4}  ping {rtt}{rollbacks}",
                p.now.0 as f64 / 1000.0,
                p.ticks[0],
                p.ticks[1],
                p.stalled[0],
                p.stalled[1]
            );
        }
    };
    if watch {
        print!("\x1b[2J");
    }
    let report = play_simulated(&opts.game, opts.link, opts.net_seed, &mut progress);
    print_report(&report);

    if let Some(path) = &opts.save_log {
        let written = report
            .host
            .log
            .to_bytes()
            .map_err(|e| e.to_string())
            .and_then(|bytes| std::fs::write(path, bytes).map_err(|e| e.to_string()));
        match written {
            Ok(()) => println!(
                "\nsaved the host's input log ({} ticks) to {}",
                report.host.log.ticks(),
                path.display()
            ),
            Err(e) => {
                eprintln!("cannot write {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    }
    if !report.in_sync() {
        std::process::exit(1);
    }
}

fn print_report(r: &MatchReport) {
    let (h, g) = (&r.host, &r.guest);
    let row = |name: &str, f: &dyn Fn(&PeerReport) -> String| {
        println!("  {name:<22} {:<24} {:<24}", f(h), f(g));
    };
    println!(
        "\nafter {:.1} s of virtual time ({} frames):",
        r.played.0 as f64 / 1000.0,
        r.frames
    );
    row("", &|p| {
        if p.side == 0 {
            "host".into()
        } else {
            "guest".into()
        }
    });
    row("ticks simulated", &|p| p.ticks.to_string());
    row(&format!("hash at tick {}", r.config.ticks), &|p| {
        p.hash_at_target
            .map_or("(not reached)".into(), |x| format!("{x:#018x}"))
    });
    row("stalled frames", &|p| p.stats.stalled_frames.to_string());
    if r.config.delay_from_rtt {
        row("input delay (ticks)", &|p| {
            p.input_delay.map_or("-".into(), |d| d.to_string())
        });
    }
    if r.config.window > 0 {
        row("predicted ticks", &|p| p.stats.predicted_ticks.to_string());
        row("rollbacks", &|p| p.stats.rollbacks.to_string());
        row("re-simulated ticks", &|p| {
            p.stats.resimulated_ticks.to_string()
        });
        row("longest rollback", &|p| p.stats.max_rollback.to_string());
        row("skipped frames", &|p| p.stats.skipped_frames.to_string());
    }
    row(
        "ping min/avg/max (ms)",
        &|p| match (p.rtt.min, p.rtt.mean, p.rtt.max) {
            (Some(a), Some(b), Some(c)) => format!("{}/{}/{}", a.0, b.0, c.0),
            _ => "-".into(),
        },
    );
    row("packets sent per s", &|p| {
        format!("{:.1}", r.per_second(p.packets_sent()))
    });
    row("payload bytes per s", &|p| {
        format!("{:.0}", r.per_second(p.bytes_sent()))
    });
    row("outcome", &|p| describe_outcome(p.outcome.as_ref()));
    if let Some([hg, gh]) = &r.link {
        println!("\n  link                   host -> guest            guest -> host");
        let link_row = |name: &str, a: u64, b: u64| println!("  {name:<22} {a:<24} {b:<24}");
        link_row(
            "packets sent",
            hg.sent.total().packets,
            gh.sent.total().packets,
        );
        link_row("unreliable lost", hg.lost, gh.lost);
        link_row("duplicated", hg.duplicated, gh.duplicated);
        link_row("reordered", hg.reordered, gh.reordered);
        link_row(
            "reliable retransmits",
            hg.retransmissions,
            gh.retransmissions,
        );
    }
    if r.in_sync() {
        println!(
            "\nin sync: both peers reached tick {} with the same state hash",
            r.config.ticks
        );
    } else {
        println!("\nNOT in sync");
    }
}
