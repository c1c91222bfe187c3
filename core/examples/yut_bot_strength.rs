//! How strong each 윷놀이 computer level is: seeded 2-player games with default options, each
//! level against the one below, seats alternating, win rates with Wilson 95 % intervals.
//!
//! `cargo run --release -p madang-core --example yut_bot_strength -- [games per pairing]`
//! (default 2000). The figures go into BENCHMARKS.md.

use madang_core::yut::{Action, Phase, Yut, YutOptions, bot};
use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};

/// Plays one game; returns whether seat 0 won.
fn game(seed: u64, levels: [u8; 2], weights: &bot::Weights) -> bool {
    let players = [PlayerId::new("a"), PlayerId::new("b")];
    let lineup = Lineup {
        players: players.to_vec(),
        host: players[0].clone(),
    };
    let mut rng = GameRng::seed_from_u64(seed);
    let options = YutOptions::default();
    let mut state = match Yut::setup(&lineup, &options, &mut rng, 0) {
        Ok(state) => state,
        Err(e) => panic!("setup: {e}"),
    };
    for step in 0..10_000u64 {
        let Some(player) = state.current_player().cloned() else {
            break;
        };
        let seat = usize::from(player != players[0]);
        let action = match state.phase() {
            Phase::Throw => Action::Throw,
            Phase::Move => match bot::choose_with(&state, levels[seat], weights) {
                Some(m) => Action::Move {
                    throw_index: m.throw_index,
                    from: m.from,
                },
                None => panic!("no move in the move phase"),
            },
            Phase::Finished => break,
        };
        if let Err(e) = Yut::apply(&mut state, Actor::Player(&player), &action, &mut rng, step) {
            panic!("refused: {e}");
        }
    }
    let outcome = Yut::result(&state).unwrap_or_else(|| panic!("game {seed} did not end"));
    let json = serde_json::to_value(&outcome).unwrap_or_default();
    json["winners"]
        .as_array()
        .is_some_and(|w| w.iter().any(|p| p == "a"))
}

/// Wilson score interval at 95 %.
fn wilson(wins: u64, n: u64) -> (f64, f64) {
    let z = 1.96f64;
    let (w, n) = (wins as f64, n as f64);
    let p = w / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    (centre - half, centre + half)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    // Pairings "3:2,2:1" and weights (tuning only) as further arguments.
    let pairings: Vec<(u8, u8)> = args
        .get(2)
        .map(|p| {
            p.split(',')
                .filter_map(|pair| {
                    let (a, b) = pair.split_once(':')?;
                    Some((a.parse().ok()?, b.parse().ok()?))
                })
                .collect()
        })
        .unwrap_or_else(|| vec![(2, 1), (3, 2), (3, 1)]);
    let mut weights = bot::Weights::DEFAULT;
    if let Some(list) = args.get(3) {
        let v: Vec<f64> = list.split(',').filter_map(|x| x.parse().ok()).collect();
        if let [a, b, c, d, e, f, g] = v[..] {
            weights = bot::Weights {
                bonus_throw: a,
                capture_tempo: b,
                threat_share: c,
                risk_share: d,
                stack_share: e,
                spread: f,
                chain: g != 0.0,
            };
        }
    }
    println!("weights: {weights:?}");
    println!("| pairing | games | wins of the stronger | win rate | 95 % interval | time |");
    println!("|---|---|---|---|---|---|");
    for (strong, weak) in pairings {
        let started = std::time::Instant::now();
        let mut wins = 0;
        for i in 0..games {
            // Seats alternate, so neither level always sits first; the first thrower is drawn.
            let seed = 1_000_000 + i;
            let won = if i % 2 == 0 {
                game(seed, [strong, weak], &weights)
            } else {
                !game(seed, [weak, strong], &weights)
            };
            wins += u64::from(won);
        }
        let (lo, hi) = wilson(wins, games);
        println!(
            "| {strong} vs {weak} | {games} | {wins} | {:.1} % | {:.1}–{:.1} % | {:.1} s |",
            100.0 * wins as f64 / games as f64,
            100.0 * lo,
            100.0 * hi,
            started.elapsed().as_secs_f64()
        );
    }
}
