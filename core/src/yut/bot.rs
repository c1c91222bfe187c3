//! Computer players of 윷놀이, by level (issue 22). Every level is a pure function of the state:
//! no clock, and no draw from the generator (the throws a level reasons about are weighed by
//! the stick model's probabilities, never drawn), so racing servers choose the same move.
//!
//! - 1 (입문): the spec's §8.5 priority — the room's `timeoutPolicy`, the same choice as a
//!   timeout, auto play or a departed player's bot.
//! - 2 (보통): each legal move is played on a copy and the position after it is weighed
//!   (`evaluate`): progress of every side (the remaining-distance table, so shortcuts count),
//!   the risk that the opponents' next throw captures each own stack (exact reach per result,
//!   weighed by the stick model), what an own capture threatens, and a bonus throw earned.
//! - 3 (고수): plans the whole turn — every order of the pending results, with every choice at
//!   each step — and weighs the end position with a risk that also follows the opponents'
//!   윷/모 extra throws (two results on one piece).

use super::action::Action;
use super::board::{Position, remaining_distance};
use super::state::{Phase, SideId, YutState};
use super::throw::Throw;
use super::timeout::Hint;
use crate::game::{Actor, BotLevel, PlayerId};
use crate::rng::GameRng;

/// The levels `GET /games/yut` lists.
pub const LEVELS: [BotLevel; 3] = [
    BotLevel {
        level: 1,
        label: "입문",
    },
    BotLevel {
        level: 2,
        label: "보통",
    },
    BotLevel {
        level: 3,
        label: "고수",
    },
];

/// The move the computer player of `level` makes for the player to move (`None` outside the
/// move phase).
pub fn choose(state: &YutState, level: u8) -> Option<Hint> {
    if state.phase() != Phase::Move {
        return None;
    }
    choose_with(state, level, &Weights::DEFAULT)
}

/// The weights of [`evaluate`] (in steps of progress).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// What an extra throw already earned is worth.
    pub bonus_throw: f64,
    /// What a captured stack costs beyond its steps (the capturer's extra throw).
    pub capture_tempo: f64,
    /// How much of a threat on an opponent stack counts (they move first and may run).
    pub threat_share: f64,
    /// How much of the risk of being captured counts.
    pub risk_share: f64,
    /// Per piece riding on another: this share of the distance the stack still has to go.
    pub stack_share: f64,
    /// Per piece on the board beyond the first: a flexibility bonus.
    pub spread: f64,
    /// Level 3: follow the opponents' 윷/모 extra throws in the risk.
    pub chain: bool,
}

impl Weights {
    /// The weights the levels play with.
    pub const DEFAULT: Weights = Weights {
        bonus_throw: 5.0,
        capture_tempo: 5.0,
        threat_share: 0.2,
        risk_share: 2.0,
        stack_share: 1.0,
        spread: 0.5,
        chain: false,
    };
}

/// [`choose`] with other weights (benchmarks tune them; level 0 plays the first legal move).
#[doc(hidden)]
pub fn choose_with(state: &YutState, level: u8, weights: &Weights) -> Option<Hint> {
    if state.phase() != Phase::Move {
        return None;
    }
    match level {
        0 => state.plans().first().map(|plan| Hint {
            throw_index: plan.throw_index,
            from: plan.from,
            to: plan.to,
        }),
        1 => state.policy_move(),
        2 => best(state, Depth::Move, weights),
        _ => best(state, Depth::Turn, weights),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// Level 2: the position right after the move.
    Move,
    /// Level 3: the best continuation with every result still pending this turn.
    Turn,
}

/// The move with the best value; ties go to the first in the legal-move order.
fn best(state: &YutState, depth: Depth, w: &Weights) -> Option<Hint> {
    let me = state.current_side();
    let player = state.current_player()?.clone();
    let mut best: Option<(f64, Hint)> = None;
    for plan in state.plans() {
        let Some(next) = play(state, &player, plan.throw_index, plan.from) else {
            continue;
        };
        let value = match depth {
            Depth::Move => evaluate(&next, me, false, w),
            Depth::Turn => continue_turn(&next, me, &player, 6, w),
        };
        if best.as_ref().is_none_or(|(v, _)| value > *v + 1e-9) {
            best = Some((
                value,
                Hint {
                    throw_index: plan.throw_index,
                    from: plan.from,
                    to: plan.to,
                },
            ));
        }
    }
    best.map(|(_, hint)| hint)
}

/// The value for `me` of the best way to use what is still pending this turn (level 3).
fn continue_turn(state: &YutState, me: SideId, player: &PlayerId, budget: u8, w: &Weights) -> f64 {
    let my_move = state.phase() == Phase::Move && state.current_player() == Some(player);
    if !my_move || budget == 0 {
        return reply_expected(state, me, w);
    }
    let mut best = f64::NEG_INFINITY;
    // The same result used from the same spot leads to the same position: try each once.
    let mut seen: Vec<(Throw, Position)> = Vec::new();
    for plan in state.plans() {
        if seen.contains(&(plan.throw, plan.from)) {
            continue;
        }
        seen.push((plan.throw, plan.from));
        if let Some(next) = play(state, player, plan.throw_index, plan.from) {
            best = best.max(continue_turn(&next, me, player, budget - 1, w));
        }
    }
    if best.is_finite() {
        best
    } else {
        reply_expected(state, me, w)
    }
}

/// Level 3's leaf: `me`'s turn is over; the value after the next player's reply, expected over
/// the result they throw (weighed by the stick model), each reply the one level 2 would make.
/// Their 윷/모 extra throw is left to the risk term of the position after it.
fn reply_expected(state: &YutState, me: SideId, w: &Weights) -> f64 {
    let replier = match state.current_player() {
        Some(p) if state.phase() == Phase::Throw && state.current_side() != me => p.clone(),
        _ => return evaluate(state, me, w.chain, w),
    };
    let side = state.current_side();
    let mut total = 0.0;
    let mut mass = 0.0;
    for (throw, p) in odds(state) {
        if p == 0.0 {
            continue;
        }
        let mut thrown = state.clone();
        thrown.pending = vec![throw];
        thrown.throws_owed = 0;
        thrown.phase = Phase::Move;
        let mut reply: Option<(f64, YutState)> = None;
        for plan in thrown.plans() {
            let Some(next) = play(&thrown, &replier, plan.throw_index, plan.from) else {
                continue;
            };
            let theirs = evaluate(&next, side, false, w);
            if reply.as_ref().is_none_or(|(v, _)| theirs > *v + 1e-9) {
                reply = Some((theirs, next));
            }
        }
        let value = match reply {
            Some((_, next)) => evaluate(&next, me, false, w),
            // Nothing usable: the result is discarded and the turn passes.
            None => evaluate(state, me, false, w),
        };
        total += p * value;
        mass += p;
    }
    if mass > 0.0 {
        total / mass
    } else {
        evaluate(state, me, w.chain, w)
    }
}

/// The state after the player to move uses `throw_index` on `from` (a move draws nothing).
fn play(
    state: &YutState,
    player: &PlayerId,
    throw_index: usize,
    from: Position,
) -> Option<YutState> {
    let mut next = state.clone();
    let mut rng = GameRng::seed_from_u64(0);
    let now = state.turn_started_at();
    let action = Action::Move { throw_index, from };
    next.act(Actor::Player(player), &action, &mut rng, now)
        .ok()?;
    Some(next)
}

/// How likely each result is under the room's stick model (§8.4), 낙 taken out (a void throw
/// moves nothing).
fn odds(state: &YutState) -> [(Throw, f64); 6] {
    let options = state.options();
    let p = options.stick_model.flat_probability();
    let q = 1.0 - p;
    let landed = 1.0 - options.nak_probability();
    let one = 4.0 * p * q.powi(3);
    let backdo = if options.backdo { p * q.powi(3) } else { 0.0 };
    [
        (Throw::Do, (one - backdo) * landed),
        (Throw::Gae, 6.0 * p * p * q * q * landed),
        (Throw::Geol, 4.0 * p.powi(3) * q * landed),
        (Throw::Yut, p.powi(4) * landed),
        (Throw::Mo, q.powi(4) * landed),
        (Throw::Backdo, backdo * landed),
    ]
}

/// The spots `side` can land on with a move of `steps` (−1: 빽도) by one of its pieces or
/// stacks, as a bit set over the 29 spots.
fn reach(state: &YutState, side: SideId, steps: i8) -> u32 {
    let mut set = 0u32;
    let pieces = state.sides()[usize::from(side)].pieces();
    let mut from_home = false;
    for piece in pieces {
        let at = piece.position();
        let to = match at {
            Position::Goal => continue,
            Position::Home if steps < 0 || from_home => continue,
            Position::Home => {
                from_home = true;
                state.step_forward(at, steps.unsigned_abs(), Vec::new()).0
            }
            Position::Board(node) if steps < 0 => state.step_back(node, piece.trail().to_vec()).0,
            Position::Board(_) => {
                state
                    .step_forward(at, steps.unsigned_abs(), piece.trail().to_vec())
                    .0
            }
        };
        if let Some(node) = to.node() {
            set |= 1 << node.index();
        }
    }
    set
}

/// For each spot, the chance that `side`'s next turn lands on it (one throw; with `chain`, a
/// 윷 or 모 followed by a second result on the same piece, or on another).
fn hit_chances(state: &YutState, side: SideId, odds: &[(Throw, f64); 6], chain: bool) -> [f64; 29] {
    let single: Vec<u32> = odds
        .iter()
        .map(|&(t, _)| reach(state, side, t.steps()))
        .collect();
    let mut chance = [0.0; 29];
    for (node, c) in chance.iter_mut().enumerate() {
        let bit = 1u32 << node;
        let mut p = 0.0;
        for (i, &(t, pt)) in odds.iter().enumerate() {
            if single[i] & bit != 0 {
                p += pt;
            } else if chain && t.throws_again() {
                // A second result: on another piece (the single reach) or on the same one
                // (their steps added, forward results only).
                for (j, &(t2, p2)) in odds.iter().enumerate() {
                    let combined = if t2 == Throw::Backdo {
                        0
                    } else {
                        reach(state, side, t.steps() + t2.steps())
                    };
                    if (single[j] | combined) & bit != 0 {
                        p += pt * p2;
                    }
                }
            }
        }
        *c = p.min(1.0);
    }
    chance
}

/// What a side's pieces are worth: steps made, a finished piece counting the whole way, and
/// the game won when all are in.
fn progress(state: &YutState, side: SideId) -> f64 {
    let finish = state.options().finish_rule;
    let full = f64::from(remaining_distance(Position::Home, finish));
    let s = &state.sides()[usize::from(side)];
    let mut value: f64 = s
        .pieces()
        .iter()
        .map(|p| full - f64::from(remaining_distance(p.position(), finish)))
        .sum();
    if s.finished_rank().is_some() {
        value += 1_000.0;
    }
    value
}

/// The position's value for side `me`: own progress minus the opponents' (their mean), minus
/// what the opponents' next turn is expected to capture, plus a share of what `me` threatens
/// and an extra throw already earned.
pub(crate) fn evaluate(state: &YutState, me: SideId, chain: bool, w: &Weights) -> f64 {
    let sides = state.sides().len() as SideId;
    let odds = odds(state);
    let mine = progress(state, me) + shape(state, me, w);
    let rivals: Vec<SideId> = (0..sides)
        .filter(|&s| s != me && state.sides()[usize::from(s)].in_play())
        .collect();
    if rivals.is_empty() || state.phase() == Phase::Finished {
        let others = (0..sides).filter(|&s| s != me).map(|s| progress(state, s));
        return mine - others.fold(0.0, f64::max);
    }
    let theirs: f64 = rivals
        .iter()
        .map(|&s| progress(state, s) + shape(state, s, w))
        .sum::<f64>()
        / rivals.len() as f64;
    let mut value = mine - theirs;
    let finish = state.options().finish_rule;
    let full = f64::from(remaining_distance(Position::Home, finish));
    // The stacks of `side` on the board: spot → steps its pieces made.
    let stacks = |side: SideId| {
        let mut at = [0.0f64; 29];
        for p in state.sides()[usize::from(side)].pieces() {
            if let Some(node) = p.position().node() {
                at[usize::from(node.index())] +=
                    full - f64::from(remaining_distance(p.position(), finish));
            }
        }
        at
    };
    let my_stacks = stacks(me);
    // A bonus throw still owed: the turn goes on, nobody else moves before it.
    let my_turn_next = state.current_side() == me && state.phase() == Phase::Throw;
    for &rival in &rivals {
        let chance = hit_chances(state, rival, &odds, chain);
        for (node, &steps) in my_stacks.iter().enumerate() {
            if steps > 0.0 && !my_turn_next {
                value -= w.risk_share * chance[node] * (steps + w.capture_tempo)
                    / rivals.len().max(1) as f64
                    * if rivals.len() > 1 { 1.5 } else { 1.0 };
            }
        }
        if !my_turn_next {
            let threat = hit_chances(state, me, &odds, false);
            for (node, &steps) in stacks(rival).iter().enumerate() {
                if steps > 0.0 {
                    value += w.threat_share * threat[node] * (steps + w.capture_tempo)
                        / rivals.len() as f64;
                }
            }
        }
    }
    if my_turn_next {
        value += w.bonus_throw * f64::from(state.throws_owed());
    }
    value
}

/// What the shape of a side's pieces is worth beyond their steps: pieces riding together save
/// throws on the way still to go (업기), and pieces spread on the board give results more uses.
fn shape(state: &YutState, side: SideId, w: &Weights) -> f64 {
    let finish = state.options().finish_rule;
    let pieces = state.sides()[usize::from(side)].pieces();
    let mut counted = [0u8; 29];
    let mut value = 0.0;
    let mut stacks = 0;
    for p in pieces {
        if let Some(node) = p.position().node() {
            let i = usize::from(node.index());
            if counted[i] > 0 {
                value += w.stack_share * f64::from(remaining_distance(p.position(), finish));
            } else {
                stacks += 1;
            }
            counted[i] += 1;
        }
    }
    value + w.spread * f64::from((stacks - 1).max(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Lineup;
    use crate::yut::{Node, YutOptions};

    fn spot(n: u8) -> Position {
        Position::Board(Node::new(n).unwrap_or(Node::CHAMMEOGI))
    }

    fn table() -> (YutState, PlayerId, PlayerId) {
        let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
        let lineup = Lineup {
            players: vec![a.clone(), b.clone()],
            host: a.clone(),
        };
        let mut rng = GameRng::seed_from_u64(3);
        let state =
            YutState::new(&lineup, &YutOptions::default(), &mut rng, 0).unwrap_or_else(|e| {
                panic!("{e}");
            });
        (state, a, b)
    }

    #[test]
    fn the_odds_of_the_realistic_sticks_add_up_to_one() {
        let (state, ..) = table();
        let total: f64 = odds(&state).iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
    }

    #[test]
    fn levels_two_and_three_capture_a_stack_that_is_worth_it_and_level_one_follows_the_policy() {
        let (mut state, a, _) = table();
        let me = state.side_of(&a).unwrap_or_default();
        let rival = 1 - me;
        // The rival's two pieces stacked on 3, far along nothing; mine on 1 and waiting.
        state.debug_place(rival, 0, spot(3), &[1, 2, 3]);
        state.debug_place(rival, 1, spot(3), &[1, 2, 3]);
        state.debug_place(me, 0, spot(1), &[1]);
        state.debug_set_turn(&a, &[Throw::Gae]);
        for level in 1..=3 {
            let hint = choose(&state, level).unwrap_or_else(|| panic!("level {level}"));
            assert_eq!((hint.from, hint.to), (spot(1), spot(3)), "level {level}");
        }
    }

    #[test]
    fn level_two_keeps_a_piece_out_of_reach_where_the_policy_walks_into_it() {
        let (mut state, a, _) = table();
        let me = state.side_of(&a).unwrap_or_default();
        let rival = 1 - me;
        // A rival piece on 2; mine on 8. 도: the policy advances the one on the board
        // (8 → 9, still far ahead); entering to 1 would put a piece right before the rival
        // with nothing to fear behind it... The values decide; both levels must pick a legal
        // move and differ from level 1 only by choice.
        state.debug_place(rival, 0, spot(2), &[1, 2]);
        state.debug_place(me, 0, spot(4), &[1, 2, 3, 4]);
        state.debug_set_turn(&a, &[Throw::Do]);
        let legal = state.legal_moves();
        for level in 1..=3 {
            let hint = choose(&state, level).unwrap_or_else(|| panic!("level {level}"));
            assert!(
                legal
                    .iter()
                    .any(|m| (m.throw_index, m.from) == (hint.throw_index, hint.from))
            );
        }
        // Level 2 sees the rival on 2 reach 4 with 개 (likeliest result) and 5 with 걸: it
        // moves the piece on 4 on to 5 only if that is safer than entering. Either way it does
        // not leave a stack in reach when a safe move exists.
        let hint = choose(&state, 2).unwrap_or_else(|| panic!("level 2"));
        let after = play(&state, &a, hint.throw_index, hint.from).unwrap_or_else(|| panic!());
        let policy = state.policy_move().unwrap_or_else(|| panic!());
        let after_policy =
            play(&state, &a, policy.throw_index, policy.from).unwrap_or_else(|| panic!());
        assert!(
            evaluate(&after, me, false, &Weights::DEFAULT)
                >= evaluate(&after_policy, me, false, &Weights::DEFAULT)
        );
    }
}
