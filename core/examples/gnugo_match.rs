//! Strength of the 바둑 bot against GNU Go over GTP on 9 lines (issue 22), not part of any test
//! run: `N` games per level, colours alternating, the outcome by GNU Go's `final_score` (both
//! sides count under the same rules: territory, komi 6.5), the win rate with its 95 % Wilson
//! interval printed as a Markdown row.
//!
//! ```text
//! cargo run -p madang-core --release --example gnugo_match -- LEVEL GAMES [FIRST_GAME] [GNUGO_LEVEL]
//! ```
//!
//! Game `i` uses `GameRng::seed_from_u64(i)` for the bot, so a run is reproducible and runs of
//! disjoint game ranges can be added up. GNU Go is `/usr/games/gnugo` (Debian `gnugo`), or
//! `$GNUGO`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use madang_core::baduk::bot::{self, BotMove};
use madang_core::baduk::{Baduk, BadukAction, BadukOptions, Color, Phase, Point};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};

struct Gtp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Gtp {
    fn start(level: u32) -> Gtp {
        let bin = std::env::var("GNUGO").unwrap_or_else(|_| "/usr/games/gnugo".to_owned());
        let mut child = Command::new(bin)
            .args([
                "--mode",
                "gtp",
                "--boardsize",
                "9",
                "--komi",
                "6.5",
                "--level",
            ])
            .arg(level.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start gnugo");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Gtp {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).unwrap() == 0 {
                panic!("gnugo closed its output after {command}");
            }
            if line.trim().is_empty() && !answer.is_empty() {
                break;
            }
            answer.push_str(line.trim());
        }
        assert!(answer.starts_with('='), "gnugo refused {command}: {answer}");
        answer.trim_start_matches('=').trim().to_owned()
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

fn gtp_color(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// Plays one game; returns whether the bot won and its longest move time in ms.
fn game(level: u8, index: u64, gnugo_level: u32) -> (bool, f64, usize) {
    let bot_color = if index.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    let (a, b) = (PlayerId::new("p_botbot1"), PlayerId::new("p_gnugo01"));
    let (black, white) = match bot_color {
        Color::Black => (a, b),
        Color::White => (b, a),
    };
    let lineup = Lineup {
        players: vec![black.clone(), white],
        host: black,
    };
    let options: BadukOptions =
        serde_json::from_str(r#"{"boardSize": 9, "komi": 6.5, "colorAssignment": "hostBlack"}"#)
            .unwrap();
    let mut rng = GameRng::seed_from_u64(index);
    let mut state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
    let mut gtp = Gtp::start(gnugo_level);
    gtp.send("clear_board");
    let mut slowest = 0.0f64;
    let mut now = 0;
    while state.phase() == Phase::Playing && state.moves().len() < 250 {
        now += 1000;
        let color = state.turn();
        let id = state.players().get(color).clone();
        let action = if color == bot_color {
            let t = Instant::now();
            let mv = bot::choose_move(&state, level, &mut rng).expect("bot move");
            slowest = slowest.max(t.elapsed().as_secs_f64() * 1000.0);
            match mv {
                BotMove::Resign => return (false, slowest, state.moves().len()),
                BotMove::Pass => {
                    gtp.send(&format!("play {} pass", gtp_color(color)));
                }
                BotMove::Place(p) => {
                    gtp.send(&format!("play {} {}", gtp_color(color), p.label(9)));
                }
            }
            mv.action()
        } else {
            let answer = gtp.send(&format!("genmove {}", gtp_color(color)));
            match answer.to_ascii_lowercase().as_str() {
                "resign" => return (true, slowest, state.moves().len()),
                "pass" => BadukAction::Pass {},
                label => {
                    let p = Point::from_label(label, 9).expect("gnugo move");
                    BadukAction::Place {
                        x: i32::from(p.x),
                        y: i32::from(p.y),
                    }
                }
            }
        };
        if let Err(e) = Baduk::apply(&mut state, Actor::Player(&id), &action, &mut rng, now) {
            // GNU Go knows simple ko only; a superko repetition ends the game for it as a pass.
            eprintln!("game {index}: {action:?} refused ({e}); counted as a pass");
            Baduk::apply(
                &mut state,
                Actor::Player(&id),
                &BadukAction::Pass {},
                &mut rng,
                now,
            )
            .unwrap();
            gtp.send("undo");
            gtp.send(&format!("play {} pass", gtp_color(color)));
        }
    }
    let score = gtp.send("final_score");
    let winner = match score.chars().next() {
        Some('B') => Some(Color::Black),
        Some('W') => Some(Color::White),
        _ => None,
    };
    (winner == Some(bot_color), slowest, state.moves().len())
}

/// The 95 % Wilson score interval of `wins` out of `n`.
fn wilson(wins: usize, n: usize) -> (f64, f64) {
    let z = 1.959_964f64;
    let (n, p) = (n as f64, wins as f64 / n as f64);
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let level: u8 = args.first().and_then(|a| a.parse().ok()).expect("LEVEL");
    let games: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let first: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(0);
    let gnugo_level: u32 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let label = bot::level_info(level).expect("level").label;
    let mut wins = 0;
    let mut slowest = 0.0f64;
    let started = Instant::now();
    for i in first..first + games {
        let (won, slow, moves) = game(level, i, gnugo_level);
        wins += usize::from(won);
        slowest = slowest.max(slow);
        eprintln!(
            "game {i}: bot {} {} after {moves} moves (slowest bot move {slow:.0} ms)",
            if i.is_multiple_of(2) {
                "black"
            } else {
                "white"
            },
            if won { "won" } else { "lost" }
        );
    }
    let (lo, hi) = wilson(wins, games as usize);
    println!(
        "| {level} {label} | GNU Go {gnugo_level} | games {first}..{} | {wins}/{games} | {:.0} % | {:.0}–{:.0} % | {:.0} s |",
        first + games,
        100.0 * wins as f64 / games as f64,
        100.0 * lo,
        100.0 * hi,
        started.elapsed().as_secs_f64()
    );
}
