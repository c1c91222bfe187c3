//! Moving pieces (§5.4): where a result takes a piece or stack, what it captures or stacks onto,
//! and the list of legal moves.
//!
//! Planning is pure: [`YutState::plan`] looks at the state and describes the move without touching
//! anything, so a refused `MOVE` is refused before any change (and the view's `legalMoves` are
//! exactly the plans that exist).

use serde::Serialize;

use super::board::{Node, Position, Step};
use super::options::{BackdoFromDo, FinishRule};
use super::state::{SideId, YutState};
use super::throw::Throw;

/// A move the player to move may make (the view's `legalMoves`, ruling Y13):
/// `{throwIndex, from, to, captures, finishes}`, and the addition `path`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LegalMove {
    /// Which pending result it uses.
    pub throw_index: usize,
    /// Where the piece or stack stands (`"home"` to enter).
    pub from: Position,
    /// Where it would stop (`"goal"` when it finishes).
    pub to: Position,
    /// How many opponent pieces it would capture.
    pub captures: u8,
    /// Whether it finishes the pieces.
    pub finishes: bool,
    /// Addition: every spot it steps on after `from`, in order, ending with `to` (빽도: `to`
    /// alone), so a client draws the move's way without the board's rules (§5.2).
    pub path: Vec<Position>,
}

/// A fully worked-out move: everything `apply` needs, computed before anything changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MovePlan {
    pub(crate) throw_index: usize,
    pub(crate) throw: Throw,
    pub(crate) side: SideId,
    pub(crate) from: Position,
    pub(crate) to: Position,
    /// Every spot stepped on, ending with `to`.
    pub(crate) path: Vec<Position>,
    /// The movers' trail afterwards (empty once finished).
    pub(crate) trail: Vec<Node>,
    /// Ids of the pieces that move.
    pub(crate) movers: Vec<usize>,
    /// The opponent side and how many of its pieces stand on `to`.
    pub(crate) victim: Option<(SideId, u8)>,
    /// How many own pieces already stand on `to`.
    pub(crate) joins: u8,
}

impl MovePlan {
    /// The move as the view lists it.
    pub(crate) fn legal_move(&self) -> LegalMove {
        LegalMove {
            throw_index: self.throw_index,
            from: self.from,
            to: self.to,
            captures: self.victim.map_or(0, |(_, n)| n),
            finishes: self.to == Position::Goal,
            path: self.path.clone(),
        }
    }
}

impl YutState {
    /// Works out the move of `side` using pending result `throw_index` on the pieces at `from`,
    /// or `None` if that move is not possible.
    pub(crate) fn plan(
        &self,
        side: SideId,
        throw_index: usize,
        from: Position,
    ) -> Option<MovePlan> {
        let throw = *self.pending.get(throw_index)?;
        let pieces = &self.sides.get(usize::from(side))?.pieces;
        let (movers, trail) = match from {
            // A waiting piece only enters forwards, and only the lowest-numbered one (Y6).
            Position::Home if throw == Throw::Backdo => return None,
            Position::Home => {
                let id = pieces.iter().position(|p| p.position == Position::Home)?;
                (vec![id], Vec::new())
            }
            Position::Board(_) => {
                let movers: Vec<usize> = (0..pieces.len())
                    .filter(|&i| pieces[i].position == from)
                    .collect();
                let trail = pieces.get(*movers.first()?)?.trail.clone();
                (movers, trail)
            }
            Position::Goal => return None,
        };
        let (to, path, trail) = match (throw, from) {
            (Throw::Backdo, Position::Board(node)) => {
                let (to, trail) = self.step_back(node, trail);
                (to, vec![to], trail)
            }
            _ => self.step_forward(from, throw.steps().unsigned_abs(), trail),
        };
        let (mut victim, mut joins) = (None, 0);
        if let Some(node) = to.node() {
            match self.occupant(node) {
                Some(s) if s == side => joins = self.sides[usize::from(s)].count_at(node) as u8,
                Some(s) => victim = Some((s, self.sides[usize::from(s)].count_at(node) as u8)),
                None => {}
            }
        }
        Some(MovePlan {
            throw_index,
            throw,
            side,
            from,
            to,
            path,
            trail,
            movers,
            victim,
            joins,
        })
    }

    /// `steps` steps forward from `from` (home or a spot), applying `next` of §5.2. Reaching the
    /// goal ends the move and the remaining steps are dropped.
    pub(crate) fn step_forward(
        &self,
        from: Position,
        steps: u8,
        mut trail: Vec<Node>,
    ) -> (Position, Vec<Position>, Vec<Node>) {
        let mut at = from;
        let mut previous = None;
        let mut path = Vec::with_capacity(usize::from(steps));
        for i in 0..steps {
            let step = match at {
                // Entering counts from 도: the first step lands on 1, not on 참먹이.
                Position::Home => Step::To(Node::DO),
                Position::Board(node) => node.next(i == 0, previous),
                Position::Goal => break,
            };
            // Under `reach`, arriving on 참먹이 (only ever as a lapped piece) finishes.
            let step = match step {
                Step::To(Node::CHAMMEOGI) if self.options.finish_rule == FinishRule::Reach => {
                    Step::Goal
                }
                step => step,
            };
            path.push(Position::from(step));
            match step {
                Step::To(node) => {
                    previous = at.node();
                    at = Position::Board(node);
                    trail.push(node);
                }
                Step::Goal => {
                    at = Position::Goal;
                    trail.clear();
                }
            }
        }
        (at, path, trail)
    }

    /// 빽도 for a piece on `node` with this trail: back to where it came from (§5.4), with the
    /// special cases of 도 (`backdoFromDo`, ruling Y3; `home` sends it back to wait) and of a piece with no recorded previous
    /// spot (참먹이 → 19, elsewhere the ring predecessor: ruling Y4).
    pub(crate) fn step_back(&self, node: Node, mut trail: Vec<Node>) -> (Position, Vec<Node>) {
        if trail.len() >= 2 {
            trail.pop();
            if let Some(&back) = trail.last() {
                return (Position::Board(back), trail);
            }
        }
        if node == Node::DO {
            return match (self.options.backdo_from_do, self.options.finish_rule) {
                (BackdoFromDo::Chammeogi, FinishRule::Pass) => {
                    (Position::Board(Node::CHAMMEOGI), vec![Node::CHAMMEOGI])
                }
                // A lapped piece arriving on 참먹이 under `reach` finishes at once (Y3).
                (BackdoFromDo::Chammeogi, FinishRule::Reach) | (BackdoFromDo::Finish, _) => {
                    (Position::Goal, Vec::new())
                }
                // The rules page: back to wait off the board (the whole stack, which breaks up).
                (BackdoFromDo::Home, _) => (Position::Home, Vec::new()),
            };
        }
        let back = node.predecessor();
        (Position::Board(back), vec![back])
    }

    /// Every move open to the side to move, in a fixed order: by `throwIndex`, then by spot,
    /// entering last. Empty outside the move phase.
    pub(crate) fn plans(&self) -> Vec<MovePlan> {
        if self.phase != super::state::Phase::Move {
            return Vec::new();
        }
        let side = self.current_side();
        let origins = self.origins(side);
        (0..self.pending.len())
            .flat_map(|i| {
                origins
                    .iter()
                    .filter_map(move |&from| self.plan(side, i, from))
            })
            .collect()
    }

    /// The legal moves of the player to move (the view's `legalMoves`).
    pub fn legal_moves(&self) -> Vec<LegalMove> {
        self.plans().iter().map(MovePlan::legal_move).collect()
    }

    /// Whether any pending result can be used by `side`.
    pub(crate) fn can_use_any(&self, side: SideId) -> bool {
        let origins = self.origins(side);
        (0..self.pending.len()).any(|i| {
            origins
                .iter()
                .any(|&from| self.plan(side, i, from).is_some())
        })
    }

    /// The distinct places `side` could move from: occupied spots in number order, then home.
    fn origins(&self, side: SideId) -> Vec<Position> {
        let pieces = &self.sides[usize::from(side)].pieces;
        let mut origins: Vec<Position> = pieces
            .iter()
            .filter(|p| matches!(p.position, Position::Board(_)))
            .map(|p| p.position)
            .collect();
        origins.sort_unstable();
        origins.dedup();
        if pieces.iter().any(|p| p.position == Position::Home) {
            origins.push(Position::Home);
        }
        origins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Lineup, PlayerId};
    use crate::rng::GameRng;
    use crate::yut::options::YutOptions;

    fn state() -> YutState {
        let players = vec![PlayerId::new("a"), PlayerId::new("b")];
        let lineup = Lineup {
            host: players[0].clone(),
            players,
        };
        let mut rng = GameRng::seed_from_u64(0);
        YutState::new(&lineup, &YutOptions::default(), &mut rng, 0).unwrap()
    }

    fn at(n: u8) -> Position {
        Node::new(n).map_or(Position::Goal, Position::Board)
    }

    #[test]
    fn planning_changes_nothing_and_describes_the_whole_move() {
        let mut s = state();
        let side = s.current_side();
        s.debug_place(side, 0, at(3), &[1, 2, 3]);
        s.debug_place(1 - side, 0, at(5), &[1, 2, 3, 4, 5]);
        s.pending = vec![Throw::Gae];
        let before = s.clone();
        let plan = s.plan(side, 0, at(3)).unwrap();
        assert_eq!(s, before);
        assert_eq!((plan.to, plan.path.clone()), (at(5), vec![at(4), at(5)]));
        assert_eq!(plan.victim, Some((1 - side, 1)));
        assert_eq!(plan.trail.len(), 5);
        assert_eq!(plan.movers, [0]);
    }

    #[test]
    fn nothing_moves_from_an_empty_spot_the_goal_or_with_backdo_from_home() {
        let mut s = state();
        let side = s.current_side();
        s.pending = vec![Throw::Backdo, Throw::Do];
        assert!(s.plan(side, 0, Position::Home).is_none());
        assert!(s.plan(side, 1, at(7)).is_none());
        assert!(s.plan(side, 1, Position::Goal).is_none());
        assert!(s.plan(side, 2, Position::Home).is_none());
        assert!(s.plan(side, 1, Position::Home).is_some());
        assert!(s.can_use_any(side), "도 can enter a piece");
    }

    #[test]
    fn moves_are_listed_by_throw_then_spot_with_entering_last() {
        let mut s = state();
        let side = s.current_side();
        s.debug_place(side, 0, at(9), &[9]);
        s.debug_place(side, 1, at(2), &[1, 2]);
        s.pending = vec![Throw::Do, Throw::Gae];
        s.phase = crate::yut::state::Phase::Move;
        let order: Vec<(usize, Position)> = s
            .legal_moves()
            .iter()
            .map(|m| (m.throw_index, m.from))
            .collect();
        assert_eq!(
            order,
            [
                (0, at(2)),
                (0, at(9)),
                (0, Position::Home),
                (1, at(2)),
                (1, at(9)),
                (1, Position::Home)
            ]
        );
    }
}
