//! The 윷판 (§5.2): 29 spots, the one-step function [`Node::next`] and the remaining-distance
//! table of §6, computed from the graph rather than typed in.

use std::fmt;
use std::sync::LazyLock;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::options::FinishRule;

/// A spot on the board, numbered 0–28 as in the table of §5.2.
///
/// The outer ring runs 0 (참먹이, start and finish) → 1 … 19 → 0 counter-clockwise; the two
/// diagonals are 5 → 20 → 21 → 22 (방) → 23 → 24 → 15 and 10 → 25 → 26 → 22 → 27 → 28 → 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Node(u8);

impl Node {
    /// How many spots the board has.
    pub const COUNT: u8 = 29;
    /// 참먹이: where pieces start counting from and where a lap ends.
    pub const CHAMMEOGI: Node = Node(0);
    /// 도: the first spot a waiting piece enters on.
    pub const DO: Node = Node(1);
    /// 모: the corner whose shortcut leads to 방 along diagonal 1.
    pub const MO: Node = Node(5);
    /// 뒷모: the corner whose shortcut leads to 방 along diagonal 2.
    pub const DWITMO: Node = Node(10);
    /// 찌모: the corner without a shortcut.
    pub const JJIMO: Node = Node(15);
    /// 방: the centre, where the two diagonals cross.
    pub const BANG: Node = Node(22);

    /// The spot with this number, if there is one (`0..=28`).
    pub const fn new(n: u8) -> Option<Node> {
        if n < Self::COUNT { Some(Node(n)) } else { None }
    }

    /// The spot's number, 0–28.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// Every spot, in number order.
    pub fn all() -> impl Iterator<Item = Node> {
        (0..Self::COUNT).map(Node)
    }

    /// One step forward from this spot (§5.2 `next`).
    ///
    /// `departing` is true for the first step of a move that starts here: only then do the corners
    /// 모 and 뒷모 take their shortcut and 방 turn towards 참먹이. A piece passing through goes
    /// straight on; at 방 "straight" depends on `previous`, the spot the piece came from
    /// (21 → 23, 26 → 27). From 참먹이 the next step leaves the board ([`Step::Goal`]).
    pub const fn next(self, departing: bool, previous: Option<Node>) -> Step {
        let to = match self.0 {
            0 => return Step::Goal,
            19 => 0,
            5 if departing => 20,
            10 if departing => 25,
            22 => match previous {
                Some(Node(21)) if !departing => 23,
                _ => 27,
            },
            24 => 15,
            26 => 22,
            28 => 0,
            // The rest of the outer ring, and the straight runs 20 → 21 → 22, 23 → 24,
            // 25 → 26, 27 → 28 (5, 10 and 15 passing included).
            n => n + 1,
        };
        Step::To(Node(to))
    }

    /// The spot one step back along the outer ring (19 → 18, …, 1 → 0), or along its diagonal for a
    /// spot on a diagonal (방 counts as coming from 21, 찌모 from 14).
    ///
    /// Used only by 빽도 for a piece that has no recorded previous spot (ruling Y4); a piece with a
    /// trail always steps back along it.
    pub const fn predecessor(self) -> Node {
        Node(match self.0 {
            0 => 19,
            20 => 5,
            23 => 22,
            25 => 10,
            27 => 22,
            n => n - 1,
        })
    }

    /// Every step a piece standing here could ever take, whatever its history: departing, or
    /// passing through from any neighbour. The shortest-path table is built over these edges.
    fn exits(self) -> impl Iterator<Item = Step> {
        let passing = Node::all().map(move |previous| self.next(false, Some(previous)));
        std::iter::once(self.next(true, None)).chain(passing)
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl schemars::JsonSchema for Node {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Node".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A spot of the board, 0–28 (yut.md §5.2).",
            "type": "integer",
            "minimum": 0,
            "maximum": Node::COUNT - 1
        })
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = u8::deserialize(d)?;
        Node::new(n).ok_or_else(|| de::Error::custom(format_args!("no spot {n} on the board")))
    }
}

/// Where one step forward leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// To this spot.
    To(Node),
    /// Off the board: the piece is 남 (finished).
    Goal,
}

/// Where a piece is: waiting off the board, on a spot, or finished.
///
/// JSON (the API form): `"home"`, a spot number 0–28, or `"goal"`. Compact binary forms (the stored
/// state) use one integer: the spot number, 29 for home and 30 for goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Position {
    /// 대기: not yet entered.
    Home,
    /// On the board.
    Board(Node),
    /// 남: finished.
    Goal,
}

impl Position {
    const HOME_CODE: u8 = Node::COUNT;
    const GOAL_CODE: u8 = Node::COUNT + 1;

    /// The spot, if the piece is on the board.
    pub const fn node(self) -> Option<Node> {
        match self {
            Position::Board(n) => Some(n),
            Position::Home | Position::Goal => None,
        }
    }

    pub(crate) fn code(self) -> u8 {
        match self {
            Position::Board(n) => n.index(),
            Position::Home => Self::HOME_CODE,
            Position::Goal => Self::GOAL_CODE,
        }
    }

    pub(crate) fn from_code(code: u8) -> Option<Position> {
        match code {
            Self::HOME_CODE => Some(Position::Home),
            Self::GOAL_CODE => Some(Position::Goal),
            n => Node::new(n).map(Position::Board),
        }
    }
}

impl From<Step> for Position {
    fn from(step: Step) -> Self {
        match step {
            Step::To(n) => Position::Board(n),
            Step::Goal => Position::Goal,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Home => f.write_str("home"),
            Position::Board(n) => n.fmt(f),
            Position::Goal => f.write_str("goal"),
        }
    }
}

impl schemars::JsonSchema for Position {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Position".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Where a piece is: a spot 0–28, `home` (waiting) or `goal` (finished).",
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": Node::COUNT - 1},
                {"enum": ["home", "goal"]}
            ]
        })
    }
}

impl Serialize for Position {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (s.is_human_readable(), self) {
            (true, Position::Home) => s.serialize_str("home"),
            (true, Position::Goal) => s.serialize_str("goal"),
            (true, Position::Board(n)) => s.serialize_u8(n.index()),
            (false, p) => s.serialize_u8(p.code()),
        }
    }
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct PositionVisitor;

        impl Visitor<'_> for PositionVisitor {
            type Value = Position;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"a spot number 0–28, "home" or "goal""#)
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Position, E> {
                u8::try_from(v)
                    .ok()
                    .and_then(Node::new)
                    .map(Position::Board)
                    .ok_or_else(|| E::custom(format_args!("no spot {v} on the board")))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Position, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format_args!("no spot {v} on the board")))
                    .and_then(|v| self.visit_u64(v))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Position, E> {
                match v {
                    "home" => Ok(Position::Home),
                    "goal" => Ok(Position::Goal),
                    _ => Err(E::unknown_variant(v, &["home", "goal"])),
                }
            }
        }

        if d.is_human_readable() {
            d.deserialize_any(PositionVisitor)
        } else {
            let code = u8::deserialize(d)?;
            Position::from_code(code)
                .ok_or_else(|| de::Error::custom(format_args!("bad position code {code}")))
        }
    }
}

/// Shortest number of steps from each spot to the goal under `pass` (index = spot number), over
/// every step a piece could take: a piece may stop on a corner or on 방 and turn there.
static PASS_DISTANCE: LazyLock<[u8; Node::COUNT as usize]> = LazyLock::new(|| {
    const UNKNOWN: u8 = u8::MAX;
    let mut dist = [UNKNOWN; Node::COUNT as usize];
    // Bellman–Ford style relaxation: the graph is tiny, and 29 rounds settle every path.
    for _ in 0..Node::COUNT {
        for node in Node::all() {
            let best = node
                .exits()
                .map(|step| match step {
                    Step::Goal => 0,
                    Step::To(n) => dist[usize::from(n.index())],
                })
                .min()
                .unwrap_or(UNKNOWN);
            if best != UNKNOWN {
                dist[usize::from(node.index())] = best + 1;
            }
        }
    }
    dist
});

/// The fewest steps one piece at `position` still needs to finish (§6), used only for ranking and
/// for choosing a timeout move, never for moving.
///
/// Under [`FinishRule::Pass`] a waiting piece needs 12 and a piece on 참먹이 1; under
/// [`FinishRule::Reach`] every figure is one less, since arriving at 참먹이 already finishes.
/// A finished piece needs 0.
pub fn remaining_distance(position: Position, finish: FinishRule) -> u32 {
    let pass = match position {
        Position::Goal => return 0,
        // Entering puts a piece on 도, one step.
        Position::Home => 1 + u32::from(PASS_DISTANCE[1]),
        Position::Board(n) => u32::from(PASS_DISTANCE[usize::from(n.index())]),
    };
    match finish {
        FinishRule::Pass => pass,
        FinishRule::Reach => pass.saturating_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(from: u8, steps: usize) -> Vec<Step> {
        let mut at = Node(from);
        let mut previous = None;
        let mut out = Vec::new();
        for i in 0..steps {
            let step = at.next(i == 0, previous);
            out.push(step);
            match step {
                Step::To(n) => {
                    previous = Some(at);
                    at = n;
                }
                Step::Goal => break,
            }
        }
        out
    }

    fn to(nodes: &[u8]) -> Vec<Step> {
        nodes.iter().map(|&n| Step::To(Node(n))).collect()
    }

    #[test]
    fn corners_turn_only_when_departing() {
        assert_eq!(walk(4, 3), to(&[5, 6, 7]));
        assert_eq!(walk(5, 2), to(&[20, 21]));
        assert_eq!(walk(9, 3), to(&[10, 11, 12]));
        assert_eq!(walk(10, 2), to(&[25, 26]));
        assert_eq!(walk(15, 1), to(&[16]));
        assert_eq!(walk(14, 2), to(&[15, 16]));
    }

    #[test]
    fn bang_goes_straight_when_passing_and_home_when_departing() {
        assert_eq!(walk(21, 2), to(&[22, 23]));
        assert_eq!(walk(26, 2), to(&[22, 27]));
        assert_eq!(walk(22, 1), to(&[27]));
        assert_eq!(walk(24, 1), to(&[15]));
    }

    #[test]
    fn chammeogi_leads_off_the_board() {
        assert_eq!(walk(19, 2), vec![Step::To(Node(0)), Step::Goal]);
        assert_eq!(walk(28, 3), vec![Step::To(Node(0)), Step::Goal]);
        assert_eq!(walk(0, 1), vec![Step::Goal]);
    }

    #[test]
    fn predecessors_follow_the_ring_and_the_diagonals() {
        assert_eq!(Node(19).predecessor(), Node(18));
        assert_eq!(Node(1).predecessor(), Node(0));
        assert_eq!(Node(0).predecessor(), Node(19));
        assert_eq!(Node(20).predecessor(), Node(5));
        assert_eq!(Node(22).predecessor(), Node(21));
        assert_eq!(Node(27).predecessor(), Node(22));
        assert_eq!(Node(15).predecessor(), Node(14));
    }

    #[test]
    fn positions_are_numbers_or_words_in_json_and_one_byte_in_postcard() {
        for (p, json) in [
            (Position::Home, r#""home""#),
            (Position::Goal, r#""goal""#),
            (Position::Board(Node(22)), "22"),
        ] {
            assert_eq!(serde_json::to_string(&p).unwrap(), json);
            assert_eq!(serde_json::from_str::<Position>(json).unwrap(), p);
            let bytes = postcard::to_allocvec(&p).unwrap();
            assert_eq!(bytes.len(), 1);
            assert_eq!(postcard::from_bytes::<Position>(&bytes).unwrap(), p);
        }
        assert!(serde_json::from_str::<Position>("29").is_err());
        assert!(serde_json::from_str::<Position>("-1").is_err());
        assert!(serde_json::from_str::<Position>(r#""moon""#).is_err());
    }
}
