//! What everyone sees (§8.3): the whole board, identical for every viewer, plus `legalMoves` for
//! the player to move and, in a team game, for the teammates who may recommend one of them.
//! Never the generator: the room layer keeps it outside the state altogether.

use std::collections::BTreeMap;

use serde::Serialize;

use super::board::{Node, Position};
use super::event::{Event, LOG_LEN, is_public};
use super::movement::LegalMove;
use super::options::{Mode, YutOptions};
use super::state::{Control, Phase, SideId, YutState};
use super::throw::{Throw, Toss};
use super::timeout::Hint;
use crate::game::{Millis, PlayerId};

/// The game as a viewer sees it (JSON, camelCase, field names of the spec's State).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "YutView")]
pub struct View {
    /// The options in force.
    pub options: YutOptions,
    /// Players in seat order.
    pub players: Vec<PlayerId>,
    /// Each player's side.
    pub side_of: BTreeMap<PlayerId, SideId>,
    /// The sides, ordered by side id.
    pub sides: Vec<SideView>,
    /// Players in turn order; `turnOrder[turnIndex]` is to move.
    pub turn_order: Vec<PlayerId>,
    /// Index of the player to move in `turnOrder`.
    pub turn_index: usize,
    /// The player to move, `null` once the game is over.
    pub current_player: Option<PlayerId>,
    /// `throw`, `move` or `finished`.
    pub phase: Phase,
    /// Throws still owed this turn.
    pub throws_owed: u8,
    /// Results waiting to be used, in the order thrown.
    pub pending: Vec<Throw>,
    /// The latest throw, for the stick animation.
    pub last_throw: Option<LastThrow>,
    /// The room's version: every accepted change bumps it by one (§8.1 `turnSeq`; 0 outside a
    /// room, where nothing counts the changes).
    pub turn_seq: u64,
    /// When the awaited action times out (epoch ms), `null` without a limit.
    pub deadline_at: Option<Millis>,
    /// The last public events, oldest first, at most [`LOG_LEN`] (§8.1 `log`; a teammate's
    /// `recommended` is never in it).
    pub log: Vec<Event>,
    /// Whether each player is marked away (ruling Y15).
    pub away: BTreeMap<PlayerId, bool>,
    /// Whether each player conceded.
    pub conceded: BTreeMap<PlayerId, bool>,
    /// Who plays each seat: `player`, `auto` (auto play until `TAKE_CONTROL`) or `bot` (the
    /// player left).
    pub control: BTreeMap<PlayerId, Control>,
    /// When the current turn began (epoch ms).
    pub turn_started_at: Millis,
    /// `endMode: timed`: when the round in progress becomes the last (epoch ms), else `null`.
    pub time_up_at: Option<Millis>,
    /// Teammates' recommended moves for the player to move. Only members of the team on turn
    /// see them; for everyone else (the other team, spectators) the list is always empty.
    pub recommendations: Vec<RecommendationView>,
    /// The moves open to the player to move, present only for the player to move (empty while
    /// they must throw) and, in a team game's move phase, for their teammates, who recommend one
    /// of them (§8.3 allows `legalMoves` for others; the rules page's 팀전 taps a destination).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal_moves: Option<Vec<LegalMove>>,
    /// `hints: true` only, and only for the player to move (absent for everyone else): the move
    /// `timeoutPolicy` would play for them (`{throwIndex, from, to}`), `null` while they must
    /// throw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<Option<Hint>>,
}

/// A teammate's recommended move, as the team on turn sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecommendationView {
    /// Who recommends it.
    pub by: PlayerId,
    /// The pending result it uses.
    pub throw_index: u8,
    /// Where the piece or stack stands.
    pub from: Position,
    /// Where it would stop.
    pub to: Position,
}

/// Each side's color and shape, by side id in individual games (six, all distinct, so the
/// rules page's six players tell their pieces apart by either).
pub const SIDE_LOOKS: [(&str, &str); 6] = [
    ("red", "circle"),
    ("blue", "triangle"),
    ("green", "square"),
    ("yellow", "star"),
    ("purple", "diamond"),
    ("orange", "heart"),
];

/// The looks of the two teams: 청 blue circles, 홍 red triangles.
pub const TEAM_LOOKS: [(&str, &str); 2] = [("blue", "circle"), ("red", "triangle")];

/// One side as seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SideView {
    /// The side id.
    pub id: SideId,
    /// 청팀 / 홍팀, or the player's id.
    pub name: String,
    /// Its players, in seat order.
    pub members: Vec<PlayerId>,
    /// Its pieces' color (`red`, `blue`, `green`, `yellow`, `purple`, `orange`).
    pub color: &'static str,
    /// Its pieces' shape (`circle`, `triangle`, `square`, `star`, `diamond`, `heart`).
    pub shape: &'static str,
    /// Its pieces, by id.
    pub pieces: Vec<PieceView>,
    /// Its rank once finished.
    pub finished_rank: Option<u8>,
    /// Whether it conceded.
    pub conceded: bool,
    /// The sum of its pieces' remaining distances (§6).
    pub remaining_distance: u32,
}

/// Whether a piece waits, stands on the board or has finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PieceStatus {
    /// 대기.
    Home,
    /// On the board.
    Board,
    /// 남.
    Done,
}

/// One piece as seen (the spec's `Piece`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PieceView {
    /// Its id within the side.
    pub id: u8,
    /// Where it is, broadly.
    pub status: PieceStatus,
    /// Its spot when on the board.
    pub node: Option<Node>,
    /// Whether it stands on 참먹이 having lapped (ruling Y2).
    pub lapped: bool,
    /// The spots passed since entering, for 빽도.
    pub trail: Vec<Node>,
}

/// The latest throw: four sticks and their result, or 낙 with no sticks (ruling Y7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LastThrow {
    /// Each stick, `true` = flat side up (index 0 marked); `null` for 낙.
    pub sticks: Option<[bool; 4]>,
    /// `do` … `backdo`, or `nak`.
    pub result: &'static str,
}

impl From<Toss> for LastThrow {
    fn from(toss: Toss) -> Self {
        match toss {
            Toss::Nak => LastThrow {
                sticks: None,
                result: "nak",
            },
            Toss::Landed { sticks, result } => LastThrow {
                sticks: Some(sticks),
                result: result.as_str(),
            },
        }
    }
}

impl YutState {
    /// Keeps `events` (the public ones) in the log, dropping the oldest beyond [`LOG_LEN`].
    pub(crate) fn remember(&mut self, events: &[Event]) {
        self.log
            .extend(events.iter().filter(|e| is_public(e)).cloned());
        let excess = self.log.len().saturating_sub(LOG_LEN);
        self.log.drain(..excess);
    }

    /// The view for `viewer` (`None`: a spectator).
    pub fn view(&self, viewer: Option<&PlayerId>) -> View {
        let per_player = |f: &dyn Fn(&PlayerId) -> bool| {
            self.players.iter().map(|p| (p.clone(), f(p))).collect()
        };
        let to_move = self.current_player();
        View {
            options: self.options.clone(),
            players: self.players.clone(),
            side_of: self
                .players
                .iter()
                .enumerate()
                .map(|(seat, p)| (p.clone(), self.side_of_seat(seat as u8)))
                .collect(),
            sides: (0..self.sides.len())
                .map(|i| self.side_view(i as SideId))
                .collect(),
            turn_order: self.turn_order().cloned().collect(),
            turn_index: self.turn_index(),
            current_player: to_move.cloned(),
            phase: self.phase,
            throws_owed: self.throws_owed,
            pending: self.pending.clone(),
            last_throw: self.last_throw.map(LastThrow::from),
            turn_seq: 0,
            deadline_at: self.deadline_at,
            log: self.log.clone(),
            away: per_player(&|p| self.is_away(p)),
            conceded: per_player(&|p| self.has_conceded(p)),
            control: self
                .players
                .iter()
                .map(|p| (p.clone(), self.control(p)))
                .collect(),
            turn_started_at: self.turn_started_at,
            time_up_at: self.time_up_at,
            recommendations: self.recommendations_for(viewer),
            legal_moves: ((viewer.is_some() && viewer == to_move) || self.advises(viewer, to_move))
                .then(|| self.legal_moves()),
            hint: (self.options.hints && viewer.is_some() && viewer == to_move)
                .then(|| self.policy_move()),
        }
    }

    /// Whether `viewer` may recommend a move now: a member of the team on turn other than the
    /// player to move, in a team game's move phase (what `RECOMMEND` accepts).
    fn advises(&self, viewer: Option<&PlayerId>, to_move: Option<&PlayerId>) -> bool {
        self.options.mode == Mode::Team
            && self.phase == Phase::Move
            && viewer.is_some()
            && viewer != to_move
            && viewer.and_then(|v| self.side_of(v)) == Some(self.current_side())
    }

    /// The recommendations `viewer` may see: all of them for a member of the team on turn,
    /// none for anyone else.
    fn recommendations_for(&self, viewer: Option<&PlayerId>) -> Vec<RecommendationView> {
        let on_team = viewer.and_then(|v| self.side_of(v)) == Some(self.current_side());
        if !on_team || self.options.mode != Mode::Team || self.phase != Phase::Move {
            return Vec::new();
        }
        self.recommendations
            .iter()
            .filter_map(|r| {
                let plan = self.plan(self.current_side(), usize::from(r.throw_index), r.from)?;
                Some(RecommendationView {
                    by: self.players.get(usize::from(r.by))?.clone(),
                    throw_index: r.throw_index,
                    from: r.from,
                    to: plan.to,
                })
            })
            .collect()
    }

    fn side_view(&self, id: SideId) -> SideView {
        let side = &self.sides[usize::from(id)];
        let looks = match self.options.mode {
            Mode::Individual => &SIDE_LOOKS[..],
            Mode::Team => &TEAM_LOOKS[..],
        };
        let (color, shape) = looks[usize::from(id) % looks.len()];
        SideView {
            id,
            name: self.side_name(id),
            members: self.members(id).cloned().collect(),
            color,
            shape,
            pieces: side
                .pieces
                .iter()
                .enumerate()
                .map(|(i, p)| PieceView {
                    id: i as u8,
                    status: match p.position {
                        Position::Home => PieceStatus::Home,
                        Position::Board(_) => PieceStatus::Board,
                        Position::Goal => PieceStatus::Done,
                    },
                    node: p.position.node(),
                    lapped: p.lapped(),
                    trail: p.trail.clone(),
                })
                .collect(),
            finished_rank: side.finished_rank,
            conceded: side.conceded(),
            remaining_distance: self.remaining_distance(id),
        }
    }
}
