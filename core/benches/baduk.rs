//! 바둑 engine benchmarks: decoding stored 300- and 400-move 19×19 games (unpacking the 9-bit
//! move codes and a full replay), one move with the superko check at move 300, and counting a
//! full 19×19 board.
//!
//! `cargo bench -p madang-core --bench baduk -j2`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use madang_core::baduk::history::PackedMoves;
use madang_core::baduk::{
    Baduk, BadukAction, BadukOptions, BadukState, Color, Phase, Position, scoring,
};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};

/// A 19×19 game of `moves` legal moves chosen by a fixed pseudo-random walk; when 300 tries find
/// no legal point (a nearly full board), a pass (and play resumes should it end play).
fn game(moves: usize) -> (BadukState, GameRng) {
    let (a, b) = (PlayerId::new("p_7Hk2xQ"), PlayerId::new("p_Zr81mW"));
    let lineup = Lineup {
        players: vec![a.clone(), b],
        host: a,
    };
    let mut rng = GameRng::seed_from_u64(300);
    let mut now = 1_700_000_000_000;
    let mut state = Baduk::setup(&lineup, &BadukOptions::default(), &mut rng, now).unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    while state.moves().len() < moves {
        now += 3_000;
        let mover = state.players().get(state.turn()).clone();
        let placed = (0..300).any(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let index = (seed % 361) as i32;
            let place = BadukAction::Place {
                x: index % 19,
                y: index / 19,
            };
            Baduk::apply(&mut state, Actor::Player(&mover), &place, &mut rng, now).is_ok()
        });
        if !placed {
            let pass = BadukAction::Pass {};
            Baduk::apply(&mut state, Actor::Player(&mover), &pass, &mut rng, now).unwrap();
            if state.phase() == Phase::Scoring {
                let other = state.players().get(state.turn()).clone();
                let resume = BadukAction::ResumePlay {};
                Baduk::apply(&mut state, Actor::Player(&other), &resume, &mut rng, now).unwrap();
            }
        }
    }
    (state, rng)
}

fn benches(c: &mut Criterion) {
    let (long, _) = game(400);
    let long_bytes = postcard::to_allocvec(&long).unwrap();
    c.bench_function(
        "decode stored 400-move 19x19 game (postcard + unpack + replay)",
        |b| b.iter(|| postcard::from_bytes::<BadukState>(black_box(&long_bytes)).unwrap()),
    );
    c.bench_function("replay 400 moves 19x19 (Position::replay)", |b| {
        b.iter(|| Position::replay(long.options(), black_box(long.moves())).unwrap())
    });
    let packed = PackedMoves::pack(long.moves(), 19, Color::Black);
    c.bench_function("unpack 400 moves 19x19 (9-bit codes)", |b| {
        b.iter(|| black_box(&packed).unpack(19, Color::Black).unwrap())
    });

    let (state, rng) = game(300);
    let bytes = postcard::to_allocvec(&state).unwrap();

    c.bench_function(
        "decode stored 300-move 19x19 game (postcard + replay)",
        |b| b.iter(|| postcard::from_bytes::<BadukState>(black_box(&bytes)).unwrap()),
    );
    c.bench_function("replay 300 moves 19x19 (Position::replay)", |b| {
        b.iter(|| Position::replay(state.options(), black_box(state.moves())).unwrap())
    });

    // The first legal point for the side to move, found once outside the measurement.
    let mover = state.players().get(state.turn()).clone();
    let now = state.clock().turn_started_at + 2_000;
    let point = (0..361)
        .map(|i| BadukAction::Place {
            x: i % 19,
            y: i / 19,
        })
        .find(|a| {
            let mut s = state.clone();
            let mut r = rng.clone();
            Baduk::apply(&mut s, Actor::Player(&mover), a, &mut r, now).is_ok()
        })
        .unwrap();
    c.bench_function("one move with superko check at move 300", |b| {
        b.iter_batched(
            || (state.clone(), rng.clone()),
            |(mut s, mut r)| {
                Baduk::apply(
                    &mut s,
                    Actor::Player(&mover),
                    black_box(&point),
                    &mut r,
                    now,
                )
                .unwrap();
                s
            },
            BatchSize::SmallInput,
        )
    });

    let board = state.position().board().clone();
    let dead = scoring::suggest_dead(&board);
    let captures = state.position().captures();
    let options = state.options().clone();
    c.bench_function("score a full 19x19 board", |b| {
        b.iter(|| scoring::score(black_box(&board), &dead, &[], captures, &options))
    });
    c.bench_function("suggest dead stones and seki on a full 19x19 board", |b| {
        b.iter(|| {
            let dead = scoring::suggest_dead(black_box(&board));
            scoring::suggest_seki(&board, &dead)
        })
    });
}

criterion_group!(baduk, benches);
criterion_main!(baduk);
