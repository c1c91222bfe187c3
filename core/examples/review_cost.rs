//! What the review of a finished 바둑 game costs (`GET /rooms/{id}/review`), for
//! `BENCHMARKS.md`: `cargo run --release -p madang-core --example review_cost`.
//!
//! Wall time on one core of the whole review of a 19줄 game of 250 moves, of a 722-move 19줄
//! game (the move limit, where the per-game cap spreads the playouts thinner) and of a 9줄 game
//! of 80 moves. The games are random legal moves that fill no own eye (a pass when none is
//! left); the review's cost depends on the board and the number of moves, little on their
//! quality. Three runs each, with three seeds.

use std::time::Instant;

use madang_core::baduk::review::{self, Budget};
use madang_core::baduk::{BadukOptions, Played, Point, Position};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// A random game of `n` moves on `size` lines.
fn random_game(size: u8, n: usize, seed: u64) -> (BadukOptions, Vec<Played>) {
    let options: BadukOptions =
        serde_json::from_str(&format!(r#"{{"boardSize": {size}}}"#)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut position = Position::start(&options);
    let mut color = options.first_to_move();
    let mut moves = Vec::with_capacity(n);
    let points = usize::from(size) * usize::from(size);
    while moves.len() < n {
        let board = position.board();
        let start = (rng.next_u64() % points as u64) as usize;
        let own_eye = |i: usize| board.neighbors(i).all(|q| board.get(q) == Some(color));
        let point = (0..points)
            .map(|k| (start + k) % points)
            .filter(|&i| board.get(i).is_none() && !own_eye(i))
            .map(|i| Point::from_index(i, size))
            .find(|&p| position.check(color, p).is_ok());
        let played = Played { color, point };
        position.apply(played).unwrap();
        moves.push(played);
        color = color.opponent();
    }
    (options, moves)
}

fn main() {
    for (size, n) in [(19u8, 250usize), (19, 722), (9, 80)] {
        let budget = Budget::for_size(size);
        let each = budget.playouts_each(n + 1);
        let mut times = Vec::new();
        for seed in 1..=3 {
            let (options, moves) = random_game(size, n, seed);
            let passes = moves.iter().filter(|m| m.point.is_none()).count();
            let t = Instant::now();
            let (r, spent) = review::review_with(&options, &moves, seed, budget).unwrap();
            let secs = t.elapsed().as_secs_f64();
            times.push(secs);
            let swings: Vec<String> = r
                .swings
                .iter()
                .map(|s| format!("{}:{:+.1}", s.n, s.delta))
                .collect();
            println!(
                "{size}줄 {n} moves (seed {seed}, {passes} passes): {secs:.2} s, {spent} playouts \
                 ({each} a position), final lead {:+.1}, swings {}",
                r.moves.last().map_or(0.0, |m| m.score_lead),
                swings.join(" ")
            );
        }
        let min = times.iter().copied().fold(f64::INFINITY, f64::min);
        let max = times.iter().copied().fold(0.0, f64::max);
        println!("{size}줄 {n} moves: {min:.1}–{max:.1} s\n");
    }
}
