//! The stored game state (§8.1) and its setup (§4).
//!
//! This is what the room layer encodes with postcard, so it keeps only what cannot be derived:
//! which side a seat plays for follows from the mode and the seat, `lapped` from the spot
//! (ruling Y2), and events go out with each action; only the last few public ones are kept, for `log`. Every type in here
//! serializes as a plain struct or externally tagged enum, which both postcard and JSON read back.

use serde::{Deserialize, Serialize};

use super::board::{Node, Position};
use super::options::{EndMode, Mode, YutOptions};
use super::throw::{Throw, Toss};
use crate::game::{Lineup, Millis, OptionsError, PlayerId};
use crate::rng::GameRng;

pub use super::SideId;

/// A seat's number: the player's index in seat order.
pub type Seat = u8;

/// One piece.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Piece {
    pub(crate) position: Position,
    /// The spots passed since entering, ending with the current one; 빽도 walks it back. Pieces
    /// stacked together carry the same trail (ruling Y5). Empty unless on the board.
    pub(crate) trail: Vec<Node>,
}

impl Piece {
    /// A piece waiting off the board, with no trail: how every piece starts, and where a captured
    /// or conceded piece goes back to.
    pub(crate) const WAITING: Piece = Piece {
        position: Position::Home,
        trail: Vec::new(),
    };

    /// Where the piece is.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The spots it passed since entering, ending with the one it stands on.
    pub fn trail(&self) -> &[Node] {
        &self.trail
    }

    /// Whether it has lapped: exactly when it stands on 참먹이 (ruling Y2).
    pub fn lapped(&self) -> bool {
        self.position == Position::Board(Node::CHAMMEOGI)
    }
}

/// One side: a player (individual) or a team, with its pieces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    pub(crate) pieces: Vec<Piece>,
    pub(crate) finished_rank: Option<u8>,
    /// The how-many-th concession this was (1 = first), if the side conceded.
    pub(crate) conceded: Option<u8>,
}

impl Side {
    /// The pieces, by id.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The rank the side finished with, once all its pieces are home.
    pub fn finished_rank(&self) -> Option<u8> {
        self.finished_rank
    }

    /// Whether the side conceded (a team: all its members did).
    pub fn conceded(&self) -> bool {
        self.conceded.is_some()
    }

    /// Whether the side still plays: neither finished nor conceded.
    pub fn in_play(&self) -> bool {
        self.finished_rank.is_none() && self.conceded.is_none()
    }

    /// How many of its pieces are finished.
    pub fn finished_pieces(&self) -> usize {
        self.pieces
            .iter()
            .filter(|p| p.position == Position::Goal)
            .count()
    }

    /// How many pieces stand on `node`.
    pub fn count_at(&self, node: Node) -> usize {
        let at = Position::Board(node);
        self.pieces.iter().filter(|p| p.position == at).count()
    }
}

/// Who plays a seat.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Control {
    /// The player themself.
    #[default]
    Player,
    /// The system, after `idleTurnsToAuto` idle turns, until the player sends `TAKE_CONTROL`.
    Auto,
    /// A bot, for good: the player left the game (`onLeave: bot`).
    Bot,
}

/// Per-player bookkeeping that is not about the board.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Member {
    /// Timeout actions in a row (ruling Y15).
    pub(crate) timeouts: u8,
    /// Whether this team member conceded (ruling Y10).
    pub(crate) conceded: bool,
    /// Own turns in a row that ended with no action of the player's own.
    pub(crate) idle_turns: u8,
    /// Who plays the seat.
    pub(crate) control: Control,
}

/// A move a team member suggests to the teammate on turn: shown to their team only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recommendation {
    /// The seat of the member who recommends it.
    pub by: Seat,
    /// The pending result it uses.
    pub throw_index: u8,
    /// Where the piece or stack stands.
    pub from: Position,
}

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "YutPhase")]
pub enum Phase {
    /// The player to move must `THROW`.
    Throw,
    /// The player to move must use a pending result with `MOVE`.
    Move,
    /// The game is over.
    Finished,
}

/// Counters for the result screen (§8.6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Counters {
    /// Results thrown, indexed like `Throw::VARIANTS`, then 낙.
    pub(crate) throws: [u32; 7],
    /// Capturing moves per side (ruling Y14).
    pub(crate) captures: Vec<u32>,
}

/// A 윷놀이 game in progress or over.
///
/// Obtained from [`YutState::new`] (which [`Yut::setup`](crate::game::Game::setup) calls) and
/// changed only by [`Yut::apply`](crate::game::Game::apply), so its invariants always hold: no spot holds pieces
/// of two sides, every side keeps its piece count, and in the move phase at least one pending
/// result can be used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct YutState {
    pub(crate) options: YutOptions,
    pub(crate) players: Vec<PlayerId>,
    pub(crate) sides: Vec<Side>,
    pub(crate) members: Vec<Member>,
    /// Seats in turn order (ruling Y1); sides out of play are removed.
    pub(crate) turn_order: Vec<Seat>,
    pub(crate) turn_index: u8,
    pub(crate) phase: Phase,
    pub(crate) throws_owed: u8,
    pub(crate) pending: Vec<Throw>,
    pub(crate) last_throw: Option<Toss>,
    pub(crate) deadline_at: Option<Millis>,
    /// Concessions so far, to order the sides that conceded (ruling Y10).
    pub(crate) concessions: u8,
    pub(crate) stats: Counters,
    /// When the current turn began (for `turnCapSeconds`).
    pub(crate) turn_started_at: Millis,
    /// Whether the player on turn has acted themself this turn (for `idleTurnsToAuto`).
    pub(crate) acted: bool,
    /// `endMode: timed`: from this moment the round in progress is the last.
    pub(crate) time_up_at: Option<Millis>,
    /// The game ended because its time was up.
    pub(crate) time_up: bool,
    /// Teammates' suggestions for the current move, one per member, newest last.
    pub(crate) recommendations: Vec<Recommendation>,
    /// The last [`LOG_LEN`](super::event::LOG_LEN) public events, oldest first (§8.1 `log`).
    #[serde(with = "super::event::stored")]
    pub(crate) log: Vec<super::event::Event>,
}

impl YutState {
    /// Sets up a game (§4): sides and pieces, the first side by `rng`, turn order by ruling Y1.
    ///
    /// # Errors
    ///
    /// The options are invalid for this many players.
    pub fn new(
        lineup: &Lineup,
        options: &YutOptions,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<YutState, OptionsError> {
        let n = lineup.players.len();
        options.validate(Some(n))?;
        // Validation caps the head count at 8, so every count below fits in a u8.
        let seats = n as u8;
        let side_count: u8 = match options.mode {
            Mode::Individual => seats,
            Mode::Team => 2,
        };
        let first = rng.below(u32::from(side_count)) as u8;
        let turn_order = match options.mode {
            // Seat order, starting at the chosen seat.
            Mode::Individual => (0..seats).map(|i| (first + i) % seats).collect(),
            // Teams alternate, each in seat order: the k-th member of the first team (seat
            // `first + 2k`), then the k-th member of the other (seat `(1 - first) + 2k`).
            Mode::Team => (0..seats / 2)
                .flat_map(|k| [first + 2 * k, (1 - first) + 2 * k])
                .collect(),
        };
        let side = Side {
            pieces: vec![Piece::WAITING; usize::from(options.pieces)],
            finished_rank: None,
            conceded: None,
        };
        let mut state = YutState {
            options: options.clone(),
            players: lineup.players.clone(),
            sides: vec![side; usize::from(side_count)],
            members: vec![Member::default(); n],
            turn_order,
            turn_index: 0,
            phase: Phase::Throw,
            throws_owed: 1,
            pending: Vec::new(),
            last_throw: None,
            deadline_at: None,
            concessions: 0,
            stats: Counters {
                throws: [0; 7],
                captures: vec![0; usize::from(side_count)],
            },
            turn_started_at: now,
            acted: false,
            time_up_at: (options.end_mode == EndMode::Timed)
                .then(|| now.saturating_add(YutOptions::TIMED_MINUTES * 60_000)),
            time_up: false,
            recommendations: Vec::new(),
            log: Vec::new(),
        };
        state.deadline_at = state.next_deadline(now);
        Ok(state)
    }

    /// The options the game was set up with.
    pub fn options(&self) -> &YutOptions {
        &self.options
    }

    /// The players in seat order.
    pub fn players(&self) -> &[PlayerId] {
        &self.players
    }

    /// The sides, by side id.
    pub fn sides(&self) -> &[Side] {
        &self.sides
    }

    /// The phase: what the game waits for.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Results thrown this turn and not used yet, in the order thrown.
    pub fn pending(&self) -> &[Throw] {
        &self.pending
    }

    /// Throws still owed this turn (윷, 모, a capture).
    pub fn throws_owed(&self) -> u8 {
        self.throws_owed
    }

    /// The latest throw of the game, if any.
    pub fn last_throw(&self) -> Option<Toss> {
        self.last_throw
    }

    /// When the awaited action times out, if there is a limit.
    pub fn deadline_at(&self) -> Option<Millis> {
        self.deadline_at
    }

    /// Players in turn order; sides out of play are no longer in it.
    pub fn turn_order(&self) -> impl Iterator<Item = &PlayerId> {
        self.turn_order
            .iter()
            .map(|&s| &self.players[usize::from(s)])
    }

    /// Index into [`YutState::turn_order`] of the player to move.
    pub fn turn_index(&self) -> usize {
        usize::from(self.turn_index)
    }

    /// The seat of a player of this game.
    pub fn seat_of(&self, player: &PlayerId) -> Option<Seat> {
        let i = self.players.iter().position(|p| p == player)?;
        u8::try_from(i).ok()
    }

    /// The side a seat plays for: its own in individual games, by parity in team games.
    pub fn side_of_seat(&self, seat: Seat) -> SideId {
        match self.options.mode {
            Mode::Individual => seat,
            Mode::Team => seat % 2,
        }
    }

    /// The side a player plays for.
    pub fn side_of(&self, player: &PlayerId) -> Option<SideId> {
        self.seat_of(player).map(|s| self.side_of_seat(s))
    }

    /// The players of a side, in seat order.
    pub fn members(&self, side: SideId) -> impl Iterator<Item = &PlayerId> {
        (0..self.players.len())
            .filter(move |&i| self.side_of_seat(i as Seat) == side)
            .map(|i| &self.players[i])
    }

    /// The seat whose turn it is (also after the game ended: whoever moved last).
    pub(crate) fn current_seat(&self) -> Seat {
        self.turn_order
            .get(usize::from(self.turn_index))
            .copied()
            .unwrap_or_default()
    }

    /// The player to move, or `None` once the game is over.
    pub fn current_player(&self) -> Option<&PlayerId> {
        if self.phase == Phase::Finished {
            return None;
        }
        self.players.get(usize::from(self.current_seat()))
    }

    /// The side to move.
    pub fn current_side(&self) -> SideId {
        self.side_of_seat(self.current_seat())
    }

    /// Whether a player has been marked away (three timeouts in a row, ruling Y15).
    pub fn is_away(&self, player: &PlayerId) -> bool {
        self.seat_of(player)
            .is_some_and(|s| self.members[usize::from(s)].timeouts >= super::AWAY_AFTER_TIMEOUTS)
    }

    /// Who plays a player's seat: themself, the system (auto play) or a bot.
    pub fn control(&self, player: &PlayerId) -> Control {
        self.seat_of(player)
            .map_or(Control::Player, |s| self.members[usize::from(s)].control)
    }

    /// When the current turn began.
    pub fn turn_started_at(&self) -> Millis {
        self.turn_started_at
    }

    /// `endMode: timed`: when the round in progress becomes the last.
    pub fn time_up_at(&self) -> Option<Millis> {
        self.time_up_at
    }

    /// The recommendations for the current move (shown only to the team on turn).
    pub fn recommendations(&self) -> &[Recommendation] {
        &self.recommendations
    }

    /// Whether a player conceded (in a team game the team may still be playing).
    pub fn has_conceded(&self, player: &PlayerId) -> bool {
        self.seat_of(player).is_some_and(|s| {
            self.members[usize::from(s)].conceded
                || self.sides[usize::from(self.side_of_seat(s))].conceded()
        })
    }

    /// The side whose pieces stand on `node`, if any (never more than one).
    pub fn occupant(&self, node: Node) -> Option<SideId> {
        let at = Position::Board(node);
        self.sides
            .iter()
            .position(|s| s.pieces.iter().any(|p| p.position == at))
            .map(|i| i as SideId)
    }
}

/// Test support: arranges positions that would take many random throws to reach. Not part of
/// the API; only tests and benchmarks call it, and the moves themselves still go through `apply`.
#[doc(hidden)]
impl YutState {
    /// Puts `side`'s piece `piece` at `position` with the given trail (the current spot last).
    pub fn debug_place(&mut self, side: SideId, piece: usize, position: Position, trail: &[u8]) {
        let trail = match position {
            Position::Board(_) => trail.iter().filter_map(|&n| Node::new(n)).collect(),
            Position::Home | Position::Goal => Vec::new(),
        };
        self.sides[usize::from(side)].pieces[piece] = Piece { position, trail };
    }

    /// Hands the turn to `player` in the move phase with these results pending (throw phase
    /// with one throw owed when `pending` is empty).
    pub fn debug_set_turn(&mut self, player: &PlayerId, pending: &[Throw]) {
        if let Some(i) = self
            .seat_of(player)
            .and_then(|seat| self.turn_order.iter().position(|&s| s == seat))
        {
            self.turn_index = i as u8;
        }
        self.pending = pending.to_vec();
        if pending.is_empty() {
            self.phase = Phase::Throw;
            self.throws_owed = 1;
        } else {
            self.phase = Phase::Move;
            self.throws_owed = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lineup(n: usize) -> Lineup {
        let players: Vec<PlayerId> = (0..n).map(|i| PlayerId::new(format!("p{i}"))).collect();
        Lineup {
            host: players[0].clone(),
            players,
        }
    }

    #[test]
    fn setup_puts_every_piece_in_waiting_and_draws_only_the_first_side() {
        let options = YutOptions {
            pieces: 3,
            ..YutOptions::default()
        };
        let mut rng = GameRng::seed_from_u64(11);
        let mut expected = rng.clone();
        let state = YutState::new(&lineup(3), &options, &mut rng, 100).unwrap();
        let first = expected.below(3) as u8;
        assert_eq!(rng, expected, "setup draws one number");
        assert_eq!(state.current_seat(), first);
        assert_eq!(state.sides.len(), 3);
        for side in &state.sides {
            assert_eq!(side.pieces.len(), 3);
            assert!(side.pieces.iter().all(|p| p.position == Position::Home));
        }
        assert_eq!((state.phase, state.throws_owed), (Phase::Throw, 1));
        assert_eq!(state.deadline_at, Some(30_100));
    }

    #[test]
    fn team_sides_follow_seat_parity() {
        let options = YutOptions {
            mode: Mode::Team,
            ..YutOptions::default()
        };
        let mut rng = GameRng::seed_from_u64(1);
        let state = YutState::new(&lineup(6), &options, &mut rng, 0).unwrap();
        assert_eq!(state.sides.len(), 2);
        let blue: Vec<&str> = state.members(0).map(PlayerId::as_str).collect();
        let red: Vec<&str> = state.members(1).map(PlayerId::as_str).collect();
        assert_eq!(
            (blue, red),
            (vec!["p0", "p2", "p4"], vec!["p1", "p3", "p5"])
        );
        assert_eq!(state.side_of(&PlayerId::new("p5")), Some(1));
        assert_eq!(state.side_of(&PlayerId::new("p9")), None);
    }

    #[test]
    fn setup_refuses_options_that_do_not_fit_the_lineup() {
        let mut rng = GameRng::seed_from_u64(1);
        let before = rng.clone();
        let err = YutState::new(&lineup(5), &YutOptions::default(), &mut rng, 0).unwrap_err();
        assert_eq!(err.field, "mode");
        assert_eq!(rng, before);
    }
}
