//! What the system does for a player whose time ran out (§8.5, ruling Y9).

use super::action::Action;
use super::board::{Position, remaining_distance};
use super::movement::Plan;
use super::state::{Phase, State};
use crate::game::PlayerId;

impl State {
    /// The action taken for `player` when their deadline passes: `THROW` in the throw phase; in
    /// the move phase the first move by the priority of §8.5 with ruling Y9, or `None` if
    /// nothing is awaited from them.
    pub fn timeout_action(&self, player: &PlayerId) -> Option<Action> {
        if self.current_player() != Some(player) {
            return None;
        }
        match self.phase {
            Phase::Throw => Some(Action::Throw),
            Phase::Move => self
                .plans()
                .iter()
                .min_by_key(|plan| self.timeout_priority(plan))
                .map(|plan| Action::Move {
                    throw_index: plan.throw_index,
                    from: plan.from,
                }),
            Phase::Finished => None,
        }
    }

    /// Smaller is preferred: (category, two keys within it, throw index, origin).
    ///
    /// Categories: 0 captures (most pieces first), 1 finishes, 2 ends on an own piece (entering
    /// included), 3 advances a board stack (the farthest behind first, by its node's per-piece
    /// distance, then the biggest result, 빽도 counting −1), 4 enters. Ties go to the smaller
    /// `throwIndex`, then the smaller origin spot, home last.
    fn timeout_priority(&self, plan: &Plan) -> (u8, i64, i64, usize, u8) {
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
        let origin = plan.from.node().map_or(u8::MAX, |n| n.index());
        (category, first, second, plan.throw_index, origin)
    }
}
