//! 윷놀이 engine benchmarks: one request's worth of work (decode the stored state, apply one
//! action, encode it again) and whole 4-player games.
//!
//! Run with `cargo bench -p madang-core --bench yut -j2`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use madang_core::yut::{Yut, YutOptions, YutState};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};

fn lineup(n: usize) -> Lineup {
    let players: Vec<PlayerId> = (0..n).map(|i| PlayerId::new(format!("p{i}"))).collect();
    Lineup {
        host: players[0].clone(),
        players,
    }
}

/// Plays a whole game with the timeout policy choosing every action; returns the actions taken.
fn whole_game(seed: u64, players: usize, options: &YutOptions) -> (YutState, usize) {
    let mut rng = GameRng::seed_from_u64(seed);
    let Ok(mut state) = Yut::setup(&lineup(players), options, &mut rng, 0) else {
        unreachable!("valid options")
    };
    let mut actions = 0;
    while let Some(player) = state.current_player().cloned() {
        let Some(action) = Yut::on_timeout(&state, &player, 0) else {
            break;
        };
        if Yut::apply(&mut state, Actor::Player(&player), &action, &mut rng, 0).is_err() {
            break;
        }
        actions += 1;
    }
    (state, actions)
}

/// Stored states (postcard) from the middle of a 4-player game, with their generators.
fn mid_game_snapshots() -> Vec<(Vec<u8>, GameRng)> {
    let options = YutOptions::default();
    let mut rng = GameRng::seed_from_u64(42);
    let Ok(mut state) = Yut::setup(&lineup(4), &options, &mut rng, 0) else {
        unreachable!("valid options")
    };
    let mut snapshots = Vec::new();
    for step in 0..120 {
        let Some(player) = state.current_player().cloned() else {
            break;
        };
        if step % 10 == 0
            && let Ok(bytes) = postcard::to_allocvec(&state)
        {
            snapshots.push((bytes, rng.clone()));
        }
        let Some(action) = Yut::on_timeout(&state, &player, 0) else {
            break;
        };
        let _ = Yut::apply(&mut state, Actor::Player(&player), &action, &mut rng, 0);
    }
    snapshots
}

fn bench_apply(c: &mut Criterion) {
    let snapshots = mid_game_snapshots();
    let mut i = 0;
    c.bench_function("yut/apply with postcard decode+encode (4 players)", |b| {
        b.iter(|| {
            let (bytes, rng) = &snapshots[i % snapshots.len()];
            i += 1;
            let mut rng = rng.clone();
            let Ok(mut state) = postcard::from_bytes::<YutState>(black_box(bytes)) else {
                return Vec::new();
            };
            if let Some(player) = state.current_player().cloned()
                && let Some(action) = Yut::on_timeout(&state, &player, 0)
            {
                let _ = Yut::apply(&mut state, Actor::Player(&player), &action, &mut rng, 1);
            }
            postcard::to_allocvec(&state).unwrap_or_default()
        })
    });
}

fn bench_games(c: &mut Criterion) {
    let options = YutOptions::default();
    let mut seed = 0;
    c.bench_function("yut/whole game (4 players, individual, defaults)", |b| {
        b.iter(|| {
            seed += 1;
            black_box(whole_game(seed, 4, &options))
        })
    });
    let all = YutOptions {
        ranking: madang_core::yut::Ranking::All,
        ..YutOptions::default()
    };
    c.bench_function("yut/whole game (4 players, ranking all)", |b| {
        b.iter(|| {
            seed += 1;
            black_box(whole_game(seed, 4, &all))
        })
    });
}

criterion_group!(benches, bench_apply, bench_games);
criterion_main!(benches);
