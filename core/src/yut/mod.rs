//! 윷놀이 (`spec/yut.md`): options, board graph, throws, turn flow, moves, ranking, timeouts.
//!
//! The vocabulary, one file each:
//! - [`options`]: [`YutOptions`] as clients send them, and their validation (§2), with the rules
//!   page's house rules and its preset (ruling Y16); [`YutOptions::schema`] describes them for
//!   the room-creation screen.
//! - [`board`]: the 29 spots ([`Node`]), one step forward ([`Node::next`], §5.2), where a piece
//!   is ([`Position`]) and the remaining-distance table (§6).
//! - [`throw`]: sticks and results ([`Throw`], [`Toss`]: 낙 or four sticks, §5.1).
//! - [`state`]: the stored [`YutState`] and its setup (§4, §8.1).
//! - [`action`], [`event`], [`error`]: what players send, what happened, why it was refused.
//! - `movement` and `turn`: moves (§5.4) and turn flow (§5.3).
//! - [`view`], [`result`], `timeout`: what everyone sees (§8.3), the outcome (§6, §8.6), and
//!   the automatic action on timeout (§8.5).
//!
//! [`Yut`] ties them to the [`Game`] contract:
//!
//! ```
//! use madang_core::yut::{Action, Yut, YutOptions};
//! use madang_core::{Actor, Game, GameRng, Lineup, PlayerId};
//!
//! let players = vec![PlayerId::new("a"), PlayerId::new("b")];
//! let lineup = Lineup { players: players.clone(), host: players[0].clone() };
//! let mut rng = GameRng::seed_from_u64(1);
//! let mut state = Yut::setup(&lineup, &YutOptions::default(), &mut rng, 0)?;
//!
//! let first = Yut::active_players(&state)[0].clone();
//! let events = Yut::apply(&mut state, Actor::Player(&first), &Action::Throw, &mut rng, 1_000);
//! assert!(events.is_ok());
//! # Ok::<(), madang_core::OptionsError>(())
//! ```

pub mod action;
pub mod board;
pub mod bot;
pub mod error;
pub mod event;
mod movement;
pub mod options;
pub mod result;
mod schema;
pub mod state;
pub mod summary;
pub mod throw;
mod timeout;
mod turn;
pub mod view;

pub use action::Action;
pub use board::{Node, Position, Step, remaining_distance};
pub use error::YutError;
pub use event::Event;
pub use movement::LegalMove;
pub use options::{
    BackdoFromDo, EndMode, FinishRule, Mode, OnLeave, PlayerLimits, Ranking, Ruleset, StickModel,
    TimeoutPolicy, YutOptions,
};
pub use result::{Standing, YutResult};
pub use state::{Control, Phase, Piece, Recommendation, Side, YutState};

/// A side's number: the seat in individual games, 0 = 청 and 1 = 홍 in team games. Here, not in
/// `state`, because the events name sides too and the state keeps the events.
pub type SideId = u8;
pub use throw::{Throw, Toss};
pub use timeout::Hint;
pub use view::View;

use crate::game::{Actor, BotError, BotLevel, Game, Lineup, Millis, OptionsError, PlayerId};
use crate::rng::GameRng;

/// Timeout actions in a row after which a player is shown as away (ruling Y15).
pub const AWAY_AFTER_TIMEOUTS: u8 = 3;

/// How long the player to move may be disconnected before their timeout fires early (§8.5).
pub const DISCONNECT_GRACE: Millis = 5_000;

/// The 윷놀이 engine: a marker implementing [`Game`]; all data lives in [`YutState`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, schemars::JsonSchema)]
pub struct Yut;

impl Game for Yut {
    const NAME: &'static str = "yut";

    type Options = YutOptions;
    type State = YutState;
    type Action = Action;
    type Event = Event;
    type View = View;
    type Outcome = YutResult;
    type Error = YutError;

    fn validate_options(options: &YutOptions, players: Option<usize>) -> Result<(), OptionsError> {
        options.validate(players)
    }

    fn max_players(options: &YutOptions) -> usize {
        options.max_players()
    }

    fn setup(
        lineup: &Lineup,
        options: &YutOptions,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<YutState, OptionsError> {
        YutState::new(lineup, options, rng, now)
    }

    fn apply(
        state: &mut YutState,
        actor: Actor<'_>,
        action: &Action,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<Event>, YutError> {
        let events = state.act(actor, action, rng, now)?;
        state.remember(&events);
        Ok(events)
    }

    fn view(state: &YutState, viewer: Option<&PlayerId>) -> View {
        state.view(viewer)
    }

    /// Shows the room's version as `turnSeq` (§8.1).
    fn room_view(state: &YutState, viewer: Option<&PlayerId>, version: u64) -> View {
        let mut view = state.view(viewer);
        view.turn_seq = version;
        view
    }

    fn deadline(state: &YutState) -> Option<Millis> {
        state.deadline_at()
    }

    fn active_players(state: &YutState) -> Vec<PlayerId> {
        state.current_player().cloned().into_iter().collect()
    }

    fn disconnect_grace(state: &YutState) -> Option<Millis> {
        (state.phase() != Phase::Finished).then_some(DISCONNECT_GRACE)
    }

    fn log_action(_options: &YutOptions, action: &Action, out: &mut Vec<u8>) -> u8 {
        action::log(action, out)
    }

    fn read_action(_options: &YutOptions, op: u8, input: &mut &[u8]) -> Option<Action> {
        action::read(op, input)
    }

    fn on_timeout(state: &YutState, player: &PlayerId, _now: Millis) -> Option<Action> {
        state.timeout_action(player)
    }

    fn result(state: &YutState) -> Option<YutResult> {
        (state.phase() == Phase::Finished).then(|| state.outcome())
    }

    /// A player who leaves concedes (ruling Y10), or under `onLeave: bot` a bot takes their
    /// seat over.
    fn leave(
        state: &mut YutState,
        player: &PlayerId,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<Event>, YutError> {
        let events = state.leave(player, rng, now)?;
        state.remember(&events);
        Ok(events)
    }

    fn is_bot(state: &YutState, player: &PlayerId) -> bool {
        state.control(player) == Control::Bot
    }

    fn bot_levels() -> &'static [BotLevel] {
        &bot::LEVELS
    }

    fn seat_bot(state: &mut YutState, player: &PlayerId) {
        state.seat_bot(player);
    }

    /// Throws when a throw is owed; otherwise the level's move ([`bot::choose`]). No draw from
    /// `rng`: every level is a pure function of the state.
    fn bot_action(
        state: &YutState,
        player: &PlayerId,
        level: u8,
        _rng: &mut GameRng,
    ) -> Result<Action, BotError> {
        if state.current_player() != Some(player) {
            return Err(BotError("차례가 아니에요.".into()));
        }
        match state.phase() {
            Phase::Throw => Ok(Action::Throw),
            Phase::Move => bot::choose(state, level)
                .map(|m| Action::Move {
                    throw_index: m.throw_index,
                    from: m.from,
                })
                .ok_or_else(|| BotError("둘 수 있는 수가 없어요.".into())),
            Phase::Finished => Err(BotError("게임이 끝났어요.".into())),
        }
    }

    /// The spec's timeout action (§8.5).
    fn bot_fallback(state: &YutState, player: &PlayerId) -> Option<Action> {
        state.timeout_action(player)
    }

    /// Team games: seats 0, 2, 4, 6 are 청 (0), seats 1, 3, 5, 7 are 홍 (1) (§2).
    fn team_of(options: &YutOptions, seat: usize) -> Option<u8> {
        (options.mode == Mode::Team).then_some((seat % 2) as u8)
    }

    fn chat_setting(options: &YutOptions) -> crate::chat_setting::ChatSetting {
        options.chat
    }

    fn rule_summary(options: &YutOptions) -> String {
        summary::rule_summary(options)
    }
}
