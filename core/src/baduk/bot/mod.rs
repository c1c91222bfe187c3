//! The computer player of 바둑: a Go engine in pure Rust (issue 22).
//!
//! Monte Carlo tree search (UCT with RAVE / all-moves-as-first and heuristic priors) over
//! playouts that answer the last move tactically (capture what it left in atari, save own
//! chains it put in atari) and otherwise play random legal moves that fill no own eye and make
//! no self-atari of a chain. Everything is pure: no clock, no I/O, no threads. The budget is a
//! number of playouts per level, so a move depends only on the state, the level and the seed.
//!
//! Why an engine in `core` rather than GNU Go over GTP: it runs on Lambda arm64 from what the
//! project already builds (no GPL binary to package, no process to spawn, no GTP failure modes),
//! and it is deterministic, so replays and tests can reproduce every bot move.
//!
//! The API, for the room's integration:
//! - [`LEVELS`]: the levels and their Korean labels (publish as `bots: {levels: [{level,
//!   label}]}`), [`DEFAULT_LEVEL`] for `addBot` without a level.
//! - [`choose_move`] in the playing phase: a [`BotMove`] (place, pass or resign) for the side to
//!   move; [`BotMove::action`] is the [`BadukAction`] to apply through the save path.
//! - [`scoring_move`] in the scoring phase: toggle a group the bot counts otherwise, agree, or
//!   dispute (resume play), as a [`ScoringMove`].
//!
//! Each call draws exactly one 64-bit word pair from the room's [`GameRng`] (the seed of its
//! own fast playout generator), so a replay of the room's actions reproduces the bot's moves.
//! Every stone it returns has passed [`Position::check`](super::Position::check), the rules
//! engine's own legality test (superko included); a pass is always legal. A [`BotError`]
//! means the call does not apply to the state (wrong phase, unknown level): the caller should
//! then resign the bot's seat rather than wait.
//!
//! ```
//! use madang_core::baduk::bot::{self, BotMove};
//! use madang_core::baduk::{Baduk, BadukOptions};
//! use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};
//!
//! let (a, b) = (PlayerId::new("a"), PlayerId::new("b"));
//! let lineup = Lineup { players: vec![a.clone(), b.clone()], host: a.clone() };
//! let options: BadukOptions = serde_json::from_str(r#"{"boardSize": 9, "colorAssignment": "hostBlack"}"#).unwrap();
//! let mut rng = GameRng::seed_from_u64(1);
//! let mut state = Baduk::setup(&lineup, &options, &mut rng, 0).unwrap();
//! let mv = bot::choose_move(&state, 1, &mut rng).unwrap();
//! assert!(matches!(mv, BotMove::Place(_)));
//! Baduk::apply(&mut state, Actor::Player(&a), &mv.action(), &mut rng, 1_000).unwrap();
//! ```

mod fast;
mod search;

use serde::Serialize;

use self::fast::{BLACK, FastBoard, PASS, WHITE};
use self::search::{Eval, Params, Search};
use super::action::BadukAction;
use super::color::Color;
use super::options::ScoringMethod;
use super::point::Point;
use super::scoring;
use super::state::{BadukState, Phase};
use crate::rng::GameRng;

/// One level of the computer player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LevelInfo {
    /// The level number (1 is the weakest).
    pub level: u8,
    /// Its Korean label, shown in the lobby.
    pub label: &'static str,
    /// Playouts per move on 9 lines.
    #[serde(skip)]
    pub playouts_9: u32,
    /// Playouts per move on 13 lines.
    #[serde(skip)]
    pub playouts_13: u32,
    /// Playouts per move on 19 lines.
    #[serde(skip)]
    pub playouts_19: u32,
}

/// The levels, weakest first. The labels are nominal ranks; BENCHMARKS.md has what each level
/// measured against GNU Go. The budgets keep the top level within 1 s a move on 9 lines and
/// 3 s on 19 lines at one vCPU (measured in `benches/baduk_bot.rs`).
pub const LEVELS: [LevelInfo; 6] = [
    LevelInfo {
        level: 1,
        label: "입문",
        playouts_9: 30,
        playouts_13: 30,
        playouts_19: 30,
    },
    LevelInfo {
        level: 2,
        label: "18급",
        playouts_9: 200,
        playouts_13: 150,
        playouts_19: 120,
    },
    LevelInfo {
        level: 3,
        label: "15급",
        playouts_9: 800,
        playouts_13: 600,
        playouts_19: 500,
    },
    LevelInfo {
        level: 4,
        label: "12급",
        playouts_9: 2_000,
        playouts_13: 1_500,
        playouts_19: 1_200,
    },
    LevelInfo {
        level: 5,
        label: "10급",
        playouts_9: 5_000,
        playouts_13: 3_000,
        playouts_19: 2_500,
    },
    LevelInfo {
        level: 6,
        label: "8급",
        playouts_9: 10_000,
        playouts_13: 6_000,
        playouts_19: 5_000,
    },
];

/// The level `addBot` gets when it names none.
pub const DEFAULT_LEVEL: u8 = 2;

/// The level numbered `level`, if there is one.
pub fn level_info(level: u8) -> Option<&'static LevelInfo> {
    LEVELS.iter().find(|l| l.level == level)
}

impl LevelInfo {
    /// Playouts per move on a board of `size` lines.
    pub fn playouts(&self, size: u8) -> u32 {
        match size {
            0..=9 => self.playouts_9,
            10..=13 => self.playouts_13,
            _ => self.playouts_19,
        }
    }
}

/// What the bot does in the playing phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotMove {
    /// Put a stone here.
    Place(Point),
    /// Pass.
    Pass,
    /// Resign (only when the game is clearly lost).
    Resign,
}

impl BotMove {
    /// The action to apply for the bot.
    pub fn action(self) -> BadukAction {
        match self {
            BotMove::Place(p) => BadukAction::Place {
                x: i32::from(p.x),
                y: i32::from(p.y),
            },
            BotMove::Pass => BadukAction::Pass {},
            BotMove::Resign => BadukAction::Resign {},
        }
    }
}

/// What the bot does in the scoring phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoringMove {
    /// Toggle the group of the stone here (the bot counts it otherwise, and that changes
    /// the winner).
    ToggleDead(Point),
    /// Agree to the marks as they are.
    Agree,
    /// Dispute the marks: go back to play and settle it on the board.
    ResumePlay,
}

impl ScoringMove {
    /// The action to apply for the bot.
    pub fn action(self) -> BadukAction {
        match self {
            ScoringMove::ToggleDead(p) => BadukAction::ToggleDead {
                x: i32::from(p.x),
                y: i32::from(p.y),
            },
            ScoringMove::Agree => BadukAction::AgreeScore {},
            ScoringMove::ResumePlay => BadukAction::ResumePlay {},
        }
    }
}

/// Why the bot has nothing to do; the caller resigns its seat (it never waits on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    /// The game is not in the phase the call is for.
    #[error("the game is not in the phase this bot call is for")]
    WrongPhase,
    /// No such level.
    #[error("no bot level {0}")]
    UnknownLevel(u8),
}

/// Ownership at or beyond this (for one side) makes a point settled.
const SETTLED: f32 = 0.8;
/// A chain whose stones average this much ownership for the opponent is counted dead.
const DEAD: f32 = 0.3;
/// A chain's mean ownership this far from 0 makes the bot sure enough to toggle its marks.
const SURE: f32 = 0.3;
/// The bot resigns below this win rate (level 3 and up, late enough, enough playouts).
const RESIGN: f32 = 0.04;

/// The search's view of `state`: the playout board, its counting and the root filter.
fn prepare(state: &BadukState, to_move: Color) -> (FastBoard, Eval) {
    let position = state.position();
    let board = position.board();
    let captures = position.captures();
    let placed = [
        board.count(Color::Black) as u32 + captures.white,
        board.count(Color::White) as u32 + captures.black,
    ];
    let ko = position
        .history()
        .ko()
        .filter(|_| state.phase() == Phase::Playing)
        .map(|k| k.point);
    let fb = FastBoard::from_board(board, to_move, ko, placed);
    let options = state.options();
    let eval = Eval {
        territory: options.scoring == ScoringMethod::Territory,
        komi_halves: options.komi_halves(),
        comp: options.handicap_comp() as i32,
    };
    (fb, eval)
}

/// Black's expected final margin in points (komi and compensation included) from `position`
/// with `to_move` to play, estimated by a search of `playouts` playouts seeded with `seed`: what
/// the review ([`super::review`]) draws its curve from.
pub(crate) fn black_lead(
    position: &super::Position,
    to_move: Color,
    options: &super::BadukOptions,
    playouts: u32,
    seed: u64,
) -> f64 {
    let board = position.board();
    let captures = position.captures();
    let placed = [
        board.count(Color::Black) as u32 + captures.white,
        board.count(Color::White) as u32 + captures.black,
    ];
    let ko = position.history().ko().map(|k| k.point);
    let fb = FastBoard::from_board(board, to_move, ko, placed);
    let eval = Eval {
        territory: options.scoring == ScoringMethod::Territory,
        komi_halves: options.komi_halves(),
        comp: options.handicap_comp() as i32,
    };
    let mut search = Search::new(fb, eval, Params::default(), seed, None);
    search.run(playouts);
    search.mean_black_lead()
}

/// The bot's move for the side to move (`state.turn()`) at `level`, drawing one seed from `rng`.
///
/// It passes when the opponent has just passed, a fifth of the board's points have been
/// played, and the count with the stones it believes dead already wins; or when every move it
/// would consider is in settled territory (nothing left to gain); it resigns (level 3 and up) when its best win rate is below 4 % late in the game.
pub fn choose_move(state: &BadukState, level: u8, rng: &mut GameRng) -> Result<BotMove, BotError> {
    if state.phase() != Phase::Playing {
        return Err(BotError::WrongPhase);
    }
    let info = level_info(level).ok_or(BotError::UnknownLevel(level))?;
    let seed = rng.next_u64();
    let color = state.turn();
    let position = state.position();
    let size = position.board().size();
    let (fb, eval) = prepare(state, color);
    // The rules engine's own test (ko and superko included) decides what the root may play.
    let mut allowed = vec![false; fb.cells.len()];
    for i in 0..position.board().len() {
        let p = Point::from_index(i, size);
        if position.board().get(i).is_none() && position.check(color, p).is_ok() {
            allowed[fb.rules_to_pad(i)] = true;
        }
    }
    let playouts = info.playouts(size);
    let mut search = Search::new(fb.clone(), eval, Params::default(), seed, Some(allowed));
    search.run(playouts);
    let own = search.ownership();
    let mine = if color == Color::Black { 1.0 } else { -1.0 };

    // Answering a pass with a pass ends play, so only once the game is well under way: a
    // learner's pass at move 3 is not met with a count that komi wins.
    let late = state.moves().len() >= usize::from(size) * usize::from(size) / 5;
    if late && state.consecutive_passes() >= 1 && passing_wins(state, color, &fb, &own) {
        return Ok(BotMove::Pass);
    }
    let children = search.root_children();
    if let Some(best) = children.first()
        && info.level >= 3
        && best.value < RESIGN
        && playouts >= 500
        && state.moves().len() >= usize::from(size) * usize::from(size) / 3
    {
        return Ok(BotMove::Resign);
    }
    for child in children {
        if child.mv == PASS {
            continue;
        }
        if settled(&fb, &own, child.mv, mine) {
            continue;
        }
        let point = Point::from_index(fb.to_rules(child.mv), size);
        if position.check(color, point).is_ok() {
            return Ok(BotMove::Place(point));
        }
    }
    Ok(BotMove::Pass)
}

/// Whether a move at `p` can no longer change anything: the point and every stone next to it
/// belong (by the playouts) to the side that already holds them, and no chain next to it is
/// short of liberties.
fn settled(fb: &FastBoard, own: &[f32], p: usize, _mine: f32) -> bool {
    if own[p].abs() < SETTLED {
        return false;
    }
    for q in fb.nbrs(p) {
        let v = fb.cells[q];
        if v == BLACK || v == WHITE {
            let sign = if v == BLACK { 1.0 } else { -1.0 };
            if own[q] * sign < SETTLED {
                return false;
            }
            let mut libs = [0usize; 3];
            if fb.liberties(fb.head(q), &mut libs) <= 2 {
                return false;
            }
        }
    }
    true
}

/// For each stone (rules index), how surely the playouts leave it to its own colour: the mean
/// ownership of its chain, from −1 (always the opponent's) to 1 (always its own).
fn chain_life(fb: &FastBoard, own: &[f32]) -> Vec<Option<f32>> {
    let mut life = vec![None; fb.size * fb.size];
    for y in 0..fb.size {
        for x in 0..fb.size {
            let p = fb.pad(x, y);
            let v = fb.cells[p];
            if (v != BLACK && v != WHITE) || life[fb.to_rules(p)].is_some() {
                continue;
            }
            let stones = fb.chain_stones(fb.head(p));
            let sign = if v == BLACK { 1.0 } else { -1.0 };
            let mean: f32 =
                stones.iter().map(|&s| own[s] * sign).sum::<f32>() / stones.len() as f32;
            for &s in &stones {
                life[fb.to_rules(s)] = Some(mean);
            }
        }
    }
    life
}

/// The stones (rules indices, ascending) the playouts give to the opponent of their colour.
fn dead_stones(fb: &FastBoard, own: &[f32]) -> Vec<usize> {
    chain_life(fb, own)
        .iter()
        .enumerate()
        .filter(|(_, l)| l.is_some_and(|l| l < -DEAD))
        .map(|(i, _)| i)
        .collect()
}

/// Whether the count, with the stones the playouts call dead removed, is a win for `color`.
fn passing_wins(state: &BadukState, color: Color, fb: &FastBoard, own: &[f32]) -> bool {
    let dead = dead_stones(fb, own);
    let position = state.position();
    let board = position.board();
    let seki = scoring::suggest_seki(board, &dead);
    let score = scoring::score(board, &dead, &seki, position.captures(), state.options());
    score.winner() == Some(color)
}

/// The bot's scoring-phase action for `color` at `level`, drawing one seed from `rng`;
/// `Ok(None)` when it has already agreed.
///
/// It runs playouts from the final position to judge which stones are dead. It first toggles
/// the groups it is sure the marks get wrong (a chain's mean playout ownership beyond ±0.3), one a
/// call, each bringing the marks closer to its judgement. Then, if the marks give the same
/// winner as its judgement, it agrees (a doubtful margin is not worth a dispute); otherwise it
/// toggles whatever still brings them closer, and when nothing does, it disputes by resuming
/// play.
pub fn scoring_move(
    state: &BadukState,
    color: Color,
    level: u8,
    rng: &mut GameRng,
) -> Result<Option<ScoringMove>, BotError> {
    if state.phase() != Phase::Scoring {
        return Err(BotError::WrongPhase);
    }
    let info = level_info(level).ok_or(BotError::UnknownLevel(level))?;
    let Some(marks) = state.marks() else {
        return Err(BotError::WrongPhase);
    };
    if *marks.agreed.get(color) {
        return Ok(None);
    }
    let seed = rng.next_u64();
    let position = state.position();
    let board = position.board();
    let size = board.size();
    let (fb, eval) = prepare(state, state.turn());
    let mut search = Search::new(fb.clone(), eval, Params::default(), seed, None);
    // Ownership only needs playouts, at least a few hundred to be stable.
    search.run(info.playouts(size).clamp(400, 2_000));
    let own = search.ownership();
    let life = chain_life(&fb, &own);
    let ours = dead_stones(&fb, &own);
    let current = marks.dead_indices();
    let seki = marks.seki_indices();
    let count = |dead: &[usize]| {
        let seki = scoring::reanchor_seki(board, &current, dead, &seki);
        scoring::score(board, dead, &seki, position.captures(), state.options()).winner()
    };
    let diff = |dead: &[usize]| {
        (0..board.len())
            .filter(|i| dead.contains(i) != ours.contains(i))
            .count()
    };
    let sure = |i: usize| life[i].is_some_and(|l| l.abs() >= SURE);
    if let Some(p) = closer_toggle(board, &current, &ours, diff, sure) {
        return Ok(Some(ScoringMove::ToggleDead(p)));
    }
    if count(&current) == count(&ours) {
        return Ok(Some(ScoringMove::Agree));
    }
    // B7: when it may no longer resume, the bot takes the count as it stands.
    let dispute = if state.can_resume(color) {
        ScoringMove::ResumePlay
    } else {
        ScoringMove::Agree
    };
    Ok(Some(
        closer_toggle(board, &current, &ours, diff, |_| true)
            .map_or(dispute, ScoringMove::ToggleDead),
    ))
}

/// A stone whose group toggle (as the server does it) brings the marks `current` closer to
/// `ours` by `diff`, among the stones `eligible` accepts.
fn closer_toggle(
    board: &super::Board,
    current: &[usize],
    ours: &[usize],
    diff: impl Fn(&[usize]) -> usize,
    eligible: impl Fn(usize) -> bool,
) -> Option<Point> {
    let before = diff(current);
    for i in 0..board.len() {
        if current.contains(&i) == ours.contains(&i) || !eligible(i) {
            continue;
        }
        // What the server's toggle would do: the whole group, on or off.
        let group = scoring::group(board, i, current);
        let toggled: Vec<usize> = if current.contains(&i) {
            current
                .iter()
                .copied()
                .filter(|d| !group.contains(d))
                .collect()
        } else {
            let mut t = current.to_vec();
            t.extend(&group);
            t.sort_unstable();
            t.dedup();
            t
        };
        if diff(&toggled) < before {
            return Some(Point::from_index(i, board.size()));
        }
    }
    None
}

#[cfg(test)]
mod tests;
