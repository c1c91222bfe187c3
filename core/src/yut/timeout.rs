//! What the system does for a player whose time ran out, whose seat plays itself (auto play) or
//! who was replaced by a bot (§8.5, ruling Y9; the rules page's policy, ruling Y16).

use serde::Serialize;

use super::action::Action;
use super::board::{Position, remaining_distance};
use super::movement::MovePlan;
use super::options::TimeoutPolicy;
use super::state::{Phase, YutState};
use crate::game::PlayerId;

/// The move `timeoutPolicy` picks for the player to move: what a timeout, auto play or a bot
/// would play, and what `hints: true` shows that player as `state.hint` (yut.md §9).
/// JSON `{throwIndex, from, to}`, like a legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hint {
    /// The pending result it uses.
    pub throw_index: usize,
    /// Where the piece or stack stands (`"home"` to enter).
    pub from: Position,
    /// Where it would stop (`"goal"` when it finishes).
    pub to: Position,
}

impl YutState {
    /// The action taken for `player` when the system acts for them: `THROW` in the throw phase;
    /// in the move phase the first move by `timeoutPolicy` ([`YutState::policy_move`]), or `None`
    /// if nothing is awaited from them.
    pub fn timeout_action(&self, player: &PlayerId) -> Option<Action> {
        if self.current_player() != Some(player) {
            return None;
        }
        match self.phase {
            Phase::Throw => Some(Action::Throw),
            Phase::Move => self.policy_move().map(|hint| Action::Move {
                throw_index: hint.throw_index,
                from: hint.from,
            }),
            Phase::Finished => None,
        }
    }

    /// The move `timeoutPolicy` picks for the player to move, in the move phase (`None` in the
    /// other phases). The one choice behind timeouts, auto play, bots and `state.hint`.
    pub fn policy_move(&self) -> Option<Hint> {
        if self.phase != Phase::Move {
            return None;
        }
        self.plans()
            .iter()
            .min_by_key(|plan| match self.options.timeout_policy {
                TimeoutPolicy::YutMd => self.yut_md_priority(plan),
                TimeoutPolicy::RulesPage => self.rules_page_priority(plan),
            })
            .map(|plan| Hint {
                throw_index: plan.throw_index,
                from: plan.from,
                to: plan.to,
            })
    }

    /// Smaller is preferred: (category, two keys within it, throw index, origin); the fourth
    /// slot is unused (0) so both policies share one key type.
    ///
    /// Categories: 0 captures (most pieces first), 1 finishes, 2 ends on an own piece (entering
    /// included), 3 advances a board stack (the farthest behind first, by its node's per-piece
    /// distance, then the biggest result, 빽도 counting −1), 4 enters. Ties go to the smaller
    /// `throwIndex`, then the smaller origin spot, home last.
    fn yut_md_priority(&self, plan: &MovePlan) -> (u8, i64, i64, u32, usize, u8) {
        let (category, first, second) = match (plan.victim, plan.to, plan.from) {
            (Some((_, captured)), _, _) => (0, -i64::from(captured), 0),
            (None, Position::Goal, _) => (1, 0, 0),
            _ if plan.joins > 0 => (2, 0, 0),
            (None, _, Position::Board(_)) => {
                let behind = remaining_distance(plan.from, self.options.finish_rule);
                (3, -i64::from(behind), -i64::from(plan.throw.steps()))
            }
            _ => (4, 0, 0),
        };
        (category, first, second, 0, plan.throw_index, origin(plan))
    }

    /// The rules page's order: 0 finishes (most pieces first), 1 captures (most pieces first),
    /// 2 anything else; within each, the farthest move — most steps (빽도 −1), then the
    /// destination nearest the goal. A move onto an own piece stacks like a manual one. Ties go
    /// to the smaller `throwIndex`, then the smaller origin spot, home last.
    fn rules_page_priority(&self, plan: &MovePlan) -> (u8, i64, i64, u32, usize, u8) {
        let (category, pieces) = match (plan.to, plan.victim) {
            (Position::Goal, _) => (0, plan.movers.len() as i64),
            (_, Some((_, captured))) => (1, i64::from(captured)),
            _ => (2, 0),
        };
        (
            category,
            -pieces,
            -i64::from(plan.throw.steps()),
            remaining_distance(plan.to, self.options.finish_rule),
            plan.throw_index,
            origin(plan),
        )
    }
}

/// The origin's spot number for tie-breaks, home last.
fn origin(plan: &MovePlan) -> u8 {
    plan.from.node().map_or(u8::MAX, |n| n.index())
}
