//! Per-move time of the 바둑 bot (issue 22) at every level on 9, 13 and 19 lines.
//!
//! First a table: for each size, 16 positions spread over a game (random legal walks of 0 to
//! about two thirds of the board's points), one move each at each level, with p50 and p99 (of
//! 16 samples: the slowest) of the wall time and of the thread's CPU time
//! (`/proc/thread-self/schedstat`, so a machine shared with other work still shows what one
//! vCPU costs). Then criterion's own measurement of the top level on the empty board.
//!
//! `cargo bench -p madang-core --bench baduk_bot -j2`

use std::hint::black_box;
use std::time::Instant;

use criterion::Criterion;
use madang_core::baduk::bot::{self, LEVELS};
use madang_core::baduk::{Baduk, BadukAction, BadukOptions, BadukState, Phase};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};

fn start(size: u8) -> (BadukState, GameRng) {
    let (a, b) = (PlayerId::new("p_7Hk2xQ"), PlayerId::new("p_Zr81mW"));
    let lineup = Lineup {
        players: vec![a.clone(), b],
        host: a,
    };
    let options: BadukOptions =
        serde_json::from_str(&format!(r#"{{"boardSize": {size}}}"#)).unwrap();
    let mut rng = GameRng::seed_from_u64(300);
    let state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
    (state, rng)
}

/// A position after `moves` legal moves of a fixed pseudo-random walk.
fn position(size: u8, moves: usize, mut seed: u64) -> BadukState {
    let (mut state, mut rng) = start(size);
    let n = u64::from(size) * u64::from(size);
    while state.moves().len() < moves && state.phase() == Phase::Playing {
        let mover = state.players().get(state.turn()).clone();
        let placed = (0..300).any(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed % n) as i32;
            let s = i32::from(size);
            let place = BadukAction::Place { x: i % s, y: i / s };
            Baduk::apply(&mut state, Actor::Player(&mover), &place, &mut rng, 0).is_ok()
        });
        if !placed {
            break;
        }
    }
    state
}

/// CPU time of this thread so far, in nanoseconds (Linux).
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn table() {
    println!("| size | level | playouts | wall p50 | wall p99 | CPU p50 | CPU p99 |");
    println!("|---|---|---|---|---|---|---|");
    for size in [9u8, 13, 19] {
        let points = usize::from(size) * usize::from(size);
        let positions: Vec<BadukState> = (0..16)
            .map(|k| {
                position(
                    size,
                    k * points * 2 / 3 / 15,
                    0x9e37_79b9_7f4a_7c15 + k as u64,
                )
            })
            .collect();
        for level in LEVELS {
            let mut wall = Vec::new();
            let mut cpu = Vec::new();
            for (k, state) in positions.iter().enumerate() {
                let mut rng = GameRng::seed_from_u64(k as u64);
                let (t, c) = (Instant::now(), thread_cpu_ns());
                black_box(bot::choose_move(state, level.level, &mut rng).unwrap());
                wall.push(t.elapsed().as_secs_f64() * 1000.0);
                if let (Some(c0), Some(c1)) = (c, thread_cpu_ns()) {
                    cpu.push((c1 - c0) as f64 / 1e6);
                }
            }
            wall.sort_by(f64::total_cmp);
            cpu.sort_by(f64::total_cmp);
            let cpu_cols = if cpu.is_empty() {
                "– | –".to_owned()
            } else {
                format!(
                    "{:.0} ms | {:.0} ms",
                    percentile(&cpu, 50.0),
                    percentile(&cpu, 99.0)
                )
            };
            println!(
                "| {size}×{size} | {} {} | {} | {:.0} ms | {:.0} ms | {cpu_cols} |",
                level.level,
                level.label,
                level.playouts(size),
                percentile(&wall, 50.0),
                percentile(&wall, 99.0),
            );
        }
    }
}

fn benches(c: &mut Criterion) {
    let top = LEVELS[LEVELS.len() - 1];
    for size in [9u8, 13, 19] {
        let (state, _) = start(size);
        c.bench_function(
            &format!(
                "bot move, level {} on the empty {size}x{size} board",
                top.level
            ),
            |b| {
                let mut rng = GameRng::seed_from_u64(1);
                b.iter(|| bot::choose_move(black_box(&state), top.level, &mut rng).unwrap())
            },
        );
    }
}

fn main() {
    let mut c = Criterion::default().sample_size(10).configure_from_args();
    // `cargo test --benches` runs benches once in test mode: skip the long table then.
    if !std::env::args().any(|a| a == "--test") {
        table();
    }
    benches(&mut c);
    c.final_summary();
}
