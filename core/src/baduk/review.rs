//! The review of a finished 바둑 game (DESIGN "Replay", `GET /rooms/{id}/review`): black's
//! expected final margin after every move, estimated by the computer player's engine, and the
//! three moves that moved it most.
//!
//! The engine is a playout-based one of roughly kyu strength (BENCHMARKS.md), so the curve is a
//! rough guide — [`LABEL`] says so — never a professional review. Every position gets a fixed
//! number of playouts ([`Budget`]), and the whole game a cap: a long game spreads the cap over
//! its moves, so a 722-move 19줄 game costs no more than the cap. Everything is pure and
//! deterministic: the same moves and seed give the same review.
//!
//! ```
//! use madang_core::baduk::review::{self, LABEL};
//! use madang_core::baduk::{BadukOptions, Color, Played, Point};
//!
//! let options: BadukOptions = serde_json::from_str(r#"{"boardSize": 9}"#).unwrap();
//! let moves = [
//!     Played { color: Color::Black, point: Some(Point { x: 4, y: 4 }) },
//!     Played { color: Color::White, point: None },
//! ];
//! let r = review::review(&options, &moves, 7).unwrap();
//! assert_eq!(r.label, LABEL);
//! assert_eq!(r.moves.len(), 2);
//! assert!(r.swings.len() <= 3);
//! ```

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::bot;
use super::error::BadukError;
use super::options::BadukOptions;
use super::position::{Played, Position};

/// The label every review carries: the figures are for reference only.
pub const LABEL: &str = "참고용";

/// How many swings a review lists.
pub const SWINGS: usize = 3;

/// Fewest playouts a position gets, however long the game.
pub const MIN_PLAYOUTS: u32 = 16;

/// What a review may spend, in playouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Playouts per position while the game's cap allows.
    pub per_position: u32,
    /// Playouts for the whole game; a longer game gets fewer per position.
    pub per_game: u32,
}

impl Budget {
    /// The budget for a board of `size` lines: 400/250/150 playouts a position on 9/13/19줄,
    /// at most 60k/60k/45k a game (about 1–8 s on one core, BENCHMARKS.md).
    pub fn for_size(size: u8) -> Self {
        match size {
            0..=9 => Budget {
                per_position: 400,
                per_game: 60_000,
            },
            10..=13 => Budget {
                per_position: 250,
                per_game: 60_000,
            },
            _ => Budget {
                per_position: 150,
                per_game: 45_000,
            },
        }
    }

    /// Playouts for each of `positions` positions: the per-position figure, spread thinner when
    /// the cap bites, never below [`MIN_PLAYOUTS`].
    pub fn playouts_each(&self, positions: usize) -> u32 {
        let spread = u32::try_from(self.per_game as usize / positions.max(1)).unwrap_or(u32::MAX);
        self.per_position.min(spread).max(MIN_PLAYOUTS)
    }
}

/// Black's lead after one move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MoveLead {
    /// The move's number, from 1 (passes count).
    pub n: u32,
    /// Black's expected final margin in points after it, komi included (negative: white
    /// leads), to one decimal.
    pub score_lead: f64,
}

/// A move that moved the lead.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Swing {
    /// The move's number.
    pub n: u32,
    /// The change in black's lead from the position before it, in points, to one decimal.
    pub delta: f64,
}

/// The review of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// Always [`LABEL`] (`"참고용"`): a rough guide by a kyu-level engine.
    pub label: String,
    /// Black's lead after each move, in order.
    pub moves: Vec<MoveLead>,
    /// The (at most) three largest changes between consecutive positions, largest |delta|
    /// first (ties: the earlier move).
    pub swings: Vec<Swing>,
}

/// One decimal.
fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The review of the game of `options` whose moves were `moves`, its playouts seeded from
/// `seed` (the room's: the same seed and moves give the same review). An illegal move is
/// reported with its index.
pub fn review(
    options: &BadukOptions,
    moves: &[Played],
    seed: u64,
) -> Result<Review, (usize, BadukError)> {
    review_with(options, moves, seed, Budget::for_size(options.size())).map(|(r, _)| r)
}

/// [`review`] with its budget given; also returns the playouts it ran.
pub fn review_with(
    options: &BadukOptions,
    moves: &[Played],
    seed: u64,
    budget: Budget,
) -> Result<(Review, u64), (usize, BadukError)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut position = Position::start(options);
    // The start is a position too: the first move's swing is measured from it.
    let playouts = budget.playouts_each(moves.len() + 1);
    let mut spent = 0u64;
    let mut to_move = options.first_to_move();
    let mut estimate = |position: &Position, to_move| {
        spent += u64::from(playouts);
        tenth(bot::black_lead(
            position,
            to_move,
            options,
            playouts,
            rng.next_u64(),
        ))
    };
    let mut leads = Vec::with_capacity(moves.len() + 1);
    leads.push(estimate(&position, to_move));
    for (i, m) in moves.iter().enumerate() {
        position.apply(*m).map_err(|e| (i, e))?;
        to_move = m.color.opponent();
        leads.push(estimate(&position, to_move));
    }
    let review = Review {
        label: LABEL.to_owned(),
        moves: leads[1..]
            .iter()
            .enumerate()
            .map(|(i, &score_lead)| MoveLead {
                n: i as u32 + 1,
                score_lead,
            })
            .collect(),
        swings: swings(&leads),
    };
    Ok((review, spent))
}

/// The [`SWINGS`] largest changes between consecutive leads (`leads[0]`: the start), largest
/// |delta| first, ties to the earlier move.
pub fn swings(leads: &[f64]) -> Vec<Swing> {
    let mut all: Vec<Swing> = leads
        .windows(2)
        .enumerate()
        .map(|(i, w)| Swing {
            n: i as u32 + 1,
            delta: tenth(w[1] - w[0]),
        })
        .collect();
    all.sort_by(|a, b| b.delta.abs().total_cmp(&a.delta.abs()).then(a.n.cmp(&b.n)));
    all.truncate(SWINGS);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baduk::{Color, Point};

    fn options(size: u8) -> BadukOptions {
        serde_json::from_str(&format!(r#"{{"boardSize": {size}}}"#)).unwrap()
    }

    /// A game of `n` moves: black puts a stone on every other point from the top-left (a pass
    /// once that is done), white passes: the lead can only grow for black.
    fn one_sided(size: u8, n: usize) -> Vec<Played> {
        let mut moves = Vec::new();
        let mut next = 0usize;
        for i in 0..n {
            if i % 2 == 0 && next < usize::from(size) * usize::from(size) {
                let p = Point::from_index(next, size);
                next += 2;
                moves.push(Played {
                    color: Color::Black,
                    point: Some(p),
                });
            } else {
                moves.push(Played {
                    color: if i % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    },
                    point: None,
                });
            }
        }
        moves
    }

    #[test]
    fn the_same_moves_and_seed_give_the_same_review() {
        let moves = one_sided(9, 12);
        let a = review(&options(9), &moves, 42).unwrap();
        let b = review(&options(9), &moves, 42).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.label, LABEL);
        assert_eq!(a.moves.len(), 12);
        assert_eq!(
            a.moves.iter().map(|m| m.n).collect::<Vec<_>>(),
            (1..=12).collect::<Vec<_>>()
        );
        let c = review(&options(9), &moves, 43).unwrap();
        assert_ne!(a.moves, c.moves, "another seed draws other playouts");
    }

    #[test]
    fn passes_are_moves_and_a_side_that_only_passes_falls_behind() {
        let moves = one_sided(9, 30);
        let r = review(&options(9), &moves, 1).unwrap();
        assert_eq!(r.moves.len(), 30);
        // 15 black stones against none: black leads whatever komi says.
        let last = r.moves.last().unwrap().score_lead;
        assert!(last > 10.0, "black's lead after 15 free stones: {last}");
        // A game of passes only: komi decides, white leads.
        let passes: Vec<Played> = (0..4)
            .map(|i| Played {
                color: if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
                point: None,
            })
            .collect();
        let r = review(&options(9), &passes, 1).unwrap();
        assert_eq!(r.moves.len(), 4);
        assert!(r.moves.iter().all(|m| m.score_lead.is_finite()));
    }

    #[test]
    fn an_illegal_move_is_reported_with_its_index() {
        let mut moves = one_sided(9, 4);
        moves.push(moves[0]);
        let err = review(&options(9), &moves, 1).unwrap_err();
        assert_eq!(err.0, 4);
    }

    #[test]
    fn the_budget_is_per_position_until_the_game_cap_bites() {
        let b = Budget::for_size(19);
        assert_eq!(b.playouts_each(251), 150);
        assert_eq!(b.playouts_each(723), 62);
        assert_eq!(b.playouts_each(100_000), MIN_PLAYOUTS);
        assert_eq!(Budget::for_size(9).playouts_each(81), 400);
        assert_eq!(Budget::for_size(13).playouts_each(339), 176);
        // A long game spends no more than the cap.
        let size = 9;
        let moves = one_sided(size, 120);
        let budget = Budget {
            per_position: 400,
            per_game: 2_300,
        };
        let (r, spent) = review_with(&options(size), &moves, 3, budget).unwrap();
        assert_eq!(r.moves.len(), 120);
        assert!(spent <= 2_300, "spent {spent}");
        assert_eq!(spent, 121 * 19);
    }

    #[test]
    fn swings_are_the_three_largest_changes_largest_first() {
        let leads = [-6.5, -6.0, 3.0, 2.5, -10.0, -10.0, -1.0];
        let s = swings(&leads);
        assert_eq!(
            s,
            vec![
                Swing { n: 4, delta: -12.5 },
                Swing { n: 2, delta: 9.0 },
                Swing { n: 6, delta: 9.0 },
            ]
        );
        assert_eq!(swings(&[-6.5, -6.0]), vec![Swing { n: 1, delta: 0.5 }]);
        assert!(swings(&[-6.5]).is_empty());
    }

    #[test]
    fn a_game_without_moves_has_an_empty_review() {
        let r = review(&options(13), &[], 1).unwrap();
        assert!(r.moves.is_empty() && r.swings.is_empty());
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"label": "참고용", "moves": [], "swings": []})
        );
    }

    #[test]
    fn the_wire_form_is_camel_case() {
        let r = review(&options(9), &one_sided(9, 2), 1).unwrap();
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["moves"][0]["scoreLead"].is_number());
        assert_eq!(json["moves"][1]["n"], 2);
        assert!(json["swings"][0]["delta"].is_number());
    }
}
