//! The rules of play: [`Baduk`] implements [`Game`] over [`BadukState`].
//!
//! Every action handler checks everything it needs before its first write, so a refused action
//! leaves the state as it was (§ "a failed move mutates nothing"). Checks run in the order the
//! error codes list them: player, game over, phase, turn, time, then the board.

use super::action::BadukAction;
use super::bot;
use super::clock::Clock;
use super::color::{ByColor, Color};
use super::error::BadukError;
use super::event::BadukEvent;
use super::options::{BadukOptions, ColorAssignment, KoRule};
use super::point::Point;
use super::position::{MoveEffect, Played, Position};
use super::result::{BadukResult, EndReason};
use super::scoring;
use super::state::{BadukState, Phase, ScoringMarks, UndoRequest};
use super::view::{self, BadukView};
use crate::game::{Actor, BotError, BotLevel, Game, Lineup, Millis, OptionsError, PlayerId};
use crate::rng::GameRng;
use strum::VariantArray;

/// 바둑 (`spec/baduk.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, schemars::JsonSchema)]
pub struct Baduk;

/// The engine's levels as `GET /games/baduk` lists them.
static BOT_LEVELS: [BotLevel; bot::LEVELS.len()] = {
    let mut out = [BotLevel {
        level: 0,
        label: "",
    }; bot::LEVELS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = BotLevel {
            level: bot::LEVELS[i].level,
            label: bot::LEVELS[i].label,
        };
        i += 1;
    }
    out
};

/// Own moves a player must make after a declined draw offer before offering again.
const DRAW_SPACING: usize = 5;

impl Game for Baduk {
    const NAME: &'static str = "baduk";

    type Options = BadukOptions;
    type State = BadukState;
    type Action = BadukAction;
    type Event = BadukEvent;
    type View = BadukView;
    type Outcome = BadukResult;
    type Error = BadukError;

    fn validate_options(
        options: &BadukOptions,
        players: Option<usize>,
    ) -> Result<(), OptionsError> {
        options.validate()?;
        match players {
            Some(n) if n != 2 => Err(OptionsError::new("players", "바둑은 두 사람이 둬야 해요.")),
            _ => Ok(()),
        }
    }

    fn max_players(_: &BadukOptions) -> usize {
        2
    }

    fn setup(
        lineup: &Lineup,
        options: &BadukOptions,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<BadukState, OptionsError> {
        Self::validate_options(options, Some(lineup.players.len()))?;
        let [first, second] = lineup.players.as_slice() else {
            return Err(OptionsError::new("players", "바둑은 두 사람이 둬야 해요."));
        };
        let host_is_first = if lineup.host == *first {
            true
        } else if lineup.host == *second {
            false
        } else if options.color_assignment == ColorAssignment::Nigiri {
            true
        } else {
            return Err(OptionsError::new(
                "colorAssignment",
                "방장이 대국자가 아니어서 흑백을 정할 수 없어요.",
            ));
        };
        // The only random draw of the game (§8.4).
        let first_is_black = match options.color_assignment {
            ColorAssignment::Nigiri => rng.below(2) == 0,
            ColorAssignment::HostBlack => host_is_first,
            ColorAssignment::HostWhite => !host_is_first,
        };
        let players = if first_is_black {
            ByColor::new(first.clone(), second.clone())
        } else {
            ByColor::new(second.clone(), first.clone())
        };
        Ok(BadukState::new(options.clone(), players, now))
    }

    fn apply(
        state: &mut BadukState,
        actor: Actor<'_>,
        action: &BadukAction,
        _rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<BadukEvent>, BadukError> {
        let color = state.color_of(actor.id()).ok_or(BadukError::NotAPlayer)?;
        if state.phase == Phase::Finished {
            return Err(BadukError::GameOver);
        }
        match *action {
            BadukAction::Place { x, y } => place(state, color, x, y, now),
            BadukAction::Pass {} => pass(state, color, now),
            BadukAction::ToggleDead { x, y } => toggle_dead(state, color, x, y),
            BadukAction::ToggleSeki { x, y } => toggle_seki(state, color, x, y),
            BadukAction::AgreeScore {} => agree(state, color),
            BadukAction::ResumePlay {} => resume(state, color, now),
            BadukAction::RequestUndo {} => request_undo(state, color),
            BadukAction::RespondUndo { accept } => respond_undo(state, color, accept, now),
            BadukAction::OfferDraw {} => offer_draw(state, color),
            BadukAction::RespondDraw { accept } => respond_draw(state, color, accept),
            BadukAction::CancelOffer {} => cancel_offer(state, color),
            BadukAction::Resign {} => Ok(finish(state, Some(color.opponent()), EndReason::Resign)),
            BadukAction::Timeout {} if !actor.is_timeout() => Err(BadukError::TimeoutOnly),
            BadukAction::Timeout {} => timeout(state, color),
        }
    }

    fn view(state: &BadukState, viewer: Option<&PlayerId>) -> BadukView {
        view::view(state, viewer)
    }

    fn deadline(state: &BadukState) -> Option<Millis> {
        match state.phase {
            Phase::Playing => Some(state.clock.deadline(state.turn, &state.options)),
            Phase::Scoring => state
                .marks
                .as_ref()
                .map(|m| m.started_at + state.options.scoring_deadline_ms()),
            Phase::Finished => None,
        }
    }

    fn active_players(state: &BadukState) -> Vec<PlayerId> {
        match (state.phase, &state.marks) {
            (Phase::Playing, _) => vec![state.players.get(state.turn).clone()],
            (Phase::Scoring, Some(marks)) => Color::VARIANTS
                .iter()
                .copied()
                .filter(|&c| !marks.agreed.get(c))
                .map(|c| state.players.get(c).clone())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// None under a correspondence clock: a player of a game played over days is away most of
    /// the time, and only the clock decides.
    fn disconnect_grace(state: &BadukState) -> Option<Millis> {
        match state.phase {
            Phase::Finished => None,
            _ if state.options.is_correspondence() => None,
            _ => Some(u64::from(state.options.disconnect_grace_sec) * 1000),
        }
    }

    fn log_action(options: &BadukOptions, action: &BadukAction, out: &mut Vec<u8>) -> u8 {
        super::action::log(action, options.size(), out)
    }

    fn read_action(options: &BadukOptions, op: u8, input: &mut &[u8]) -> Option<BadukAction> {
        super::action::read(op, options.size(), input)
    }

    fn recorded_op(op: u8) -> bool {
        super::action::recorded(op)
    }

    fn resolve_logged(
        record: &BadukState,
        now: &BadukState,
        action: BadukAction,
    ) -> Option<BadukAction> {
        if action != super::action::FROM_THE_RECORD {
            return Some(action);
        }
        // A move the list still keeps was played when the list was as long as it is now.
        let played = record.moves.get(now.moves.len())?;
        Some(match played.point {
            Some(p) => BadukAction::Place {
                x: i32::from(p.x),
                y: i32::from(p.y),
            },
            None => BadukAction::Pass {},
        })
    }

    fn taken_back(
        options: &BadukOptions,
        before: &BadukState,
        action: &BadukAction,
    ) -> Vec<(PlayerId, u8, Vec<u8>)> {
        match (action, before.undo.pending) {
            (BadukAction::RespondUndo { accept: true }, Some(request)) => {
                let keep = before
                    .moves
                    .len()
                    .saturating_sub(usize::from(request.plies));
                before.moves[keep..]
                    .iter()
                    .map(|m| {
                        let (op, payload) = super::action::spell_out(m.point, options.size());
                        (before.players.get(m.color).clone(), op, payload)
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn on_timeout(state: &BadukState, player: &PlayerId, _now: Millis) -> Option<BadukAction> {
        Self::active_players(state)
            .contains(player)
            .then_some(BadukAction::Timeout {})
    }

    fn result(state: &BadukState) -> Option<BadukResult> {
        state.result.clone()
    }

    /// A player who leaves resigns (nothing changes once the game is over).
    fn leave(
        state: &mut BadukState,
        player: &PlayerId,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<BadukEvent>, BadukError> {
        if state.result.is_some() || state.color_of(player).is_none() {
            return Ok(Vec::new());
        }
        Self::apply(
            state,
            Actor::Player(player),
            &BadukAction::Resign {},
            rng,
            now,
        )
    }

    fn bot_levels() -> &'static [BotLevel] {
        &BOT_LEVELS
    }

    fn default_bot_level() -> u8 {
        bot::DEFAULT_LEVEL
    }

    /// On its turn, while it has not agreed to the marks, and to answer the opponent's undo
    /// request or draw offer.
    fn bot_awaited(state: &BadukState, player: &PlayerId) -> bool {
        let Some(color) = state.color_of(player) else {
            return false;
        };
        let asked = state.undo.pending.is_some_and(|r| r.by != color)
            || state.draw.pending_by.is_some_and(|by| by != color);
        state.phase != Phase::Finished && (asked || Self::active_players(state).contains(player))
    }

    /// The engine ([`bot`]) in play and scoring; an undo request is granted (people learning
    /// against it take a move back) and a draw offer declined.
    fn bot_action(
        state: &BadukState,
        player: &PlayerId,
        level: u8,
        rng: &mut GameRng,
    ) -> Result<BadukAction, BotError> {
        let color = state
            .color_of(player)
            .ok_or_else(|| BotError("대국자가 아니에요.".into()))?;
        if state.undo.pending.is_some_and(|r| r.by != color) {
            return Ok(BadukAction::RespondUndo { accept: true });
        }
        if state.draw.pending_by.is_some_and(|by| by != color) {
            return Ok(BadukAction::RespondDraw { accept: false });
        }
        let engine = |e: bot::BotError| BotError(e.to_string());
        match state.phase {
            Phase::Playing => Ok(bot::choose_move(state, level, rng)
                .map_err(engine)?
                .action()),
            Phase::Scoring => bot::scoring_move(state, color, level, rng)
                .map_err(engine)?
                .map(bot::ScoringMove::action)
                .ok_or_else(|| BotError("이미 동의했어요.".into())),
            Phase::Finished => Err(BotError("대국이 끝났어요.".into())),
        }
    }

    /// Resigns in play (an engine error never stalls the room); agrees while scoring.
    fn bot_fallback(state: &BadukState, _player: &PlayerId) -> Option<BadukAction> {
        match state.phase {
            Phase::Playing => Some(BadukAction::Resign {}),
            Phase::Scoring => Some(BadukAction::AgreeScore {}),
            Phase::Finished => None,
        }
    }

    fn team_of(_: &BadukOptions, _: usize) -> Option<u8> {
        None
    }

    fn chat_setting(options: &BadukOptions) -> crate::chat_setting::ChatSetting {
        options.chat
    }

    fn rule_summary(options: &BadukOptions) -> String {
        super::summary::rule_summary(options)
    }

    /// A rematch swaps colours when they were fixed (the host played black, now white, and the
    /// other way round); `nigiri` draws them again with the new room's generator.
    fn rematch_options(options: &BadukOptions) -> BadukOptions {
        use super::options::ColorAssignment;
        let color_assignment = match options.color_assignment {
            ColorAssignment::HostBlack => ColorAssignment::HostWhite,
            ColorAssignment::HostWhite => ColorAssignment::HostBlack,
            ColorAssignment::Nigiri => ColorAssignment::Nigiri,
        };
        BadukOptions {
            color_assignment,
            ..options.clone()
        }
    }
}

fn on_board(state: &BadukState, x: i32, y: i32) -> Result<Point, BadukError> {
    let size = i32::from(state.options.size());
    if (0..size).contains(&x) && (0..size).contains(&y) {
        Ok(Point::new(x as u8, y as u8))
    } else {
        Err(BadukError::OffBoard)
    }
}

fn require_phase(state: &BadukState, phase: Phase) -> Result<(), BadukError> {
    if state.phase == phase {
        Ok(())
    } else {
        Err(BadukError::WrongPhase)
    }
}

fn points(state: &BadukState, indices: &[usize]) -> Vec<Point> {
    let size = state.options.size();
    indices
        .iter()
        .map(|&i| Point::from_index(i, size))
        .collect()
}

/// The checks `place` and `pass` share: phase, turn and time. Returns the clock as it will be
/// after the move, for the caller to store once the move is sure to stand.
fn begin_move(state: &BadukState, color: Color, now: Millis) -> Result<Clock, BadukError> {
    require_phase(state, Phase::Playing)?;
    if state.turn != color {
        return Err(BadukError::NotYourTurn);
    }
    let mut clock = state.clock.clone();
    clock
        .charge(color, &state.options, now)
        .map_err(|_| BadukError::TimeExpired)?;
    Ok(clock)
}

fn place(
    state: &mut BadukState,
    color: Color,
    x: i32,
    y: i32,
    now: Millis,
) -> Result<Vec<BadukEvent>, BadukError> {
    let clock = begin_move(state, color, now)?;
    let point = on_board(state, x, y)?;
    // `Position::place` either plays or changes nothing: the first write of this action.
    let outcome = state.position.place(color, point)?;
    state.clock = clock;
    state.moves.push(Played {
        color,
        point: Some(point),
    });
    state.consecutive_passes = 0;
    state.turn = color.opponent();
    let captured = points(state, &outcome.captured);
    let mut events = vec![BadukEvent::StonePlaced {
        color,
        point,
        captured: captured.clone(),
    }];
    if !captured.is_empty() {
        events.push(BadukEvent::Captured {
            by: color,
            points: captured,
        });
    }
    if state.options.atari_warning {
        let stones = atari_stones(state, color.opponent(), point);
        if !stones.is_empty() {
            events.push(BadukEvent::Atari {
                color: color.opponent(),
                stones,
            });
        }
    }
    after_move(state, &outcome, &mut events);
    end_at_move_limit(state, now, &mut events);
    Ok(events)
}

fn pass(state: &mut BadukState, color: Color, now: Millis) -> Result<Vec<BadukEvent>, BadukError> {
    let clock = begin_move(state, color, now)?;
    let outcome = state.position.pass(color);
    state.clock = clock;
    state.moves.push(Played { color, point: None });
    state.consecutive_passes += 1;
    state.turn = color.opponent();
    let mut events = vec![BadukEvent::Pass { color }];
    if state.consecutive_passes >= 2 {
        // Ruling: two passes in a row start counting even if they also repeat a situation.
        cancel_requests(state, &mut events);
        start_scoring(state, now, &mut events);
    } else {
        after_move(state, &outcome, &mut events);
        end_at_move_limit(state, now, &mut events);
    }
    Ok(events)
}

/// B7: the move that reaches the move limit starts the scoring phase as two passes would (a
/// game already ended by that move, by repetition, stays ended). The phase it starts cannot be
/// resumed, so the game is counted as it stands.
fn end_at_move_limit(state: &mut BadukState, now: Millis, events: &mut Vec<BadukEvent>) {
    if state.phase != Phase::Playing || !state.at_move_limit() {
        return;
    }
    events.push(BadukEvent::MoveLimitReached {
        moves: move_count(state),
    });
    start_scoring(state, now, events);
}

/// After any move: pending requests are declined by it, and `korean` ends on a third repetition.
fn after_move(state: &mut BadukState, outcome: &MoveEffect, events: &mut Vec<BadukEvent>) {
    cancel_requests(state, events);
    if state.options.ko_rule == KoRule::Korean && outcome.situation_count >= 3 {
        events.extend(finish(state, None, EndReason::Repetition));
    }
}

/// A move declines whatever request is waiting (§8.2: the requested side moved instead).
fn cancel_requests(state: &mut BadukState, events: &mut Vec<BadukEvent>) {
    if let Some(request) = state.undo.pending.take() {
        events.push(BadukEvent::UndoDeclined {
            by: request.by,
            auto: true,
        });
    }
    if let Some(by) = state.draw.pending_by.take() {
        *state.draw.declined_at.get_mut(by) = Some(move_count(state));
        events.push(BadukEvent::DrawDeclined { by, auto: true });
    }
}

fn move_count(state: &BadukState) -> u16 {
    u16::try_from(state.moves.len()).unwrap_or(u16::MAX)
}

/// The stones of `color` that the stone just played at `point` put in atari: only chains next
/// to it lost a liberty, so only those are looked at.
fn atari_stones(state: &BadukState, color: Color, point: Point) -> Vec<Point> {
    let board = state.position().board();
    let mut stones: Vec<usize> = Vec::new();
    for n in board.neighbors(point.index(board.size())) {
        if board.get(n) != Some(color) || stones.contains(&n) {
            continue;
        }
        if let Some(chain) = board.chain(n)
            && chain.liberties.len() == 1
        {
            stones.extend(chain.stones);
        }
    }
    stones.sort_unstable();
    points(state, &stones)
}

fn start_scoring(state: &mut BadukState, now: Millis, events: &mut Vec<BadukEvent>) {
    let board = state.position.board();
    let dead = scoring::suggest_dead(board);
    let seki = scoring::suggest_seki(board, &dead);
    events.push(BadukEvent::ScoringStarted {
        dead: points(state, &dead),
        seki: points(state, &seki),
    });
    state.marks = Some(ScoringMarks {
        dead: dead.iter().map(|&i| i as u16).collect(),
        seki: seki.iter().map(|&i| i as u16).collect(),
        agreed: ByColor::both(false),
        started_at: now,
    });
    state.phase = Phase::Scoring;
}

fn marks_changed(state: &mut BadukState, by: Color) -> Vec<BadukEvent> {
    let Some(marks) = state.marks.as_mut() else {
        return Vec::new();
    };
    marks.agreed = ByColor::both(false);
    let dead = marks.dead_indices();
    let seki = marks.seki_indices();
    vec![BadukEvent::MarksChanged {
        by,
        dead: points(state, &dead),
        seki: points(state, &seki),
    }]
}

fn toggle_dead(
    state: &mut BadukState,
    color: Color,
    x: i32,
    y: i32,
) -> Result<Vec<BadukEvent>, BadukError> {
    require_phase(state, Phase::Scoring)?;
    let point = on_board(state, x, y)?;
    let board = state.position.board();
    let index = point.index(board.size());
    if board.get(index).is_none() {
        return Err(BadukError::NoStone);
    }
    let Some(marks) = state.marks.as_mut() else {
        return Err(BadukError::WrongPhase);
    };
    let dead = marks.dead_indices();
    let group = scoring::group(board, index, &dead);
    if dead.contains(&index) {
        marks.dead.retain(|d| !group.contains(&usize::from(*d)));
    } else {
        marks.dead.extend(group.iter().map(|&i| i as u16));
        marks.dead.sort_unstable();
        marks.dead.dedup();
    }
    // Seki regions are read with the dead stones lifted, so changing those can merge, split or
    // rename a marked region: keep each mark on its region under the new name.
    let seki = scoring::reanchor_seki(board, &dead, &marks.dead_indices(), &marks.seki_indices());
    marks.seki = seki.into_iter().map(|i| i as u16).collect();
    Ok(marks_changed(state, color))
}

/// Toggles the seki mark of the empty region at `{x, y}`, read as the suggestion reads it: with
/// the stones marked dead lifted, so a dead stone's point belongs to the region around it.
fn toggle_seki(
    state: &mut BadukState,
    color: Color,
    x: i32,
    y: i32,
) -> Result<Vec<BadukEvent>, BadukError> {
    require_phase(state, Phase::Scoring)?;
    let point = on_board(state, x, y)?;
    let board = state.position.board();
    let index = point.index(board.size());
    let Some(marks) = state.marks.as_mut() else {
        return Err(BadukError::WrongPhase);
    };
    let representative = scoring::seki_representative(board, &marks.dead_indices(), index)
        .ok_or(BadukError::NotEmpty)? as u16;
    if let Some(at) = marks.seki.iter().position(|&s| s == representative) {
        marks.seki.remove(at);
    } else {
        marks.seki.push(representative);
        marks.seki.sort_unstable();
    }
    Ok(marks_changed(state, color))
}

fn agree(state: &mut BadukState, color: Color) -> Result<Vec<BadukEvent>, BadukError> {
    require_phase(state, Phase::Scoring)?;
    let Some(marks) = state.marks.as_mut() else {
        return Err(BadukError::WrongPhase);
    };
    *marks.agreed.get_mut(color) = true;
    let both = marks.agreed.black && marks.agreed.white;
    let mut events = vec![BadukEvent::ScoreAgreed { color }];
    if both {
        events.extend(finish_counted(state));
    }
    Ok(events)
}

fn resume(
    state: &mut BadukState,
    color: Color,
    now: Millis,
) -> Result<Vec<BadukEvent>, BadukError> {
    require_phase(state, Phase::Scoring)?;
    // B7: a scoring phase started by the move limit is final, and each player may dispute the
    // count only so many times.
    if state.at_move_limit() {
        return Err(BadukError::MoveLimit);
    }
    if !state.can_resume(color) {
        return Err(BadukError::ResumeLimit);
    }
    *state.resumes.get_mut(color) += 1;
    state.marks = None;
    state.phase = Phase::Playing;
    state.turn = color.opponent();
    state.consecutive_passes = 0;
    // The clock stood still while scoring; the resumed turn starts now.
    state.clock.turn_started_at = now;
    Ok(vec![BadukEvent::PlayResumed {
        by: color,
        turn: state.turn,
    }])
}

fn request_undo(state: &mut BadukState, color: Color) -> Result<Vec<BadukEvent>, BadukError> {
    require_phase(state, Phase::Playing)?;
    if !state.options.undo.allows(*state.undo.used.get(color)) {
        return Err(BadukError::UndoNotAllowed);
    }
    if state.undo.pending.is_some() {
        return Err(BadukError::RequestPending);
    }
    // B4: the requester's last move, and whatever the opponent played after it.
    let last_own = state
        .moves
        .iter()
        .rposition(|m| m.color == color)
        .ok_or(BadukError::UndoNotAllowed)?;
    let plies =
        u8::try_from(state.moves.len() - last_own).map_err(|_| BadukError::UndoNotAllowed)?;
    state.undo.pending = Some(UndoRequest { by: color, plies });
    Ok(vec![BadukEvent::UndoRequested { by: color, plies }])
}

fn respond_undo(
    state: &mut BadukState,
    color: Color,
    accept: bool,
    now: Millis,
) -> Result<Vec<BadukEvent>, BadukError> {
    let request = match state.undo.pending {
        Some(r) if r.by == color.opponent() => r,
        _ => return Err(BadukError::NoPendingRequest),
    };
    if !accept {
        state.undo.pending = None;
        return Ok(vec![BadukEvent::UndoDeclined {
            by: request.by,
            auto: false,
        }]);
    }
    let keep = state.moves.len().saturating_sub(usize::from(request.plies));
    // Rebuild by replaying what remains (safer than reversing captures).
    let position = Position::replay(&state.options, &state.moves[..keep])
        .map_err(|_| BadukError::UndoNotAllowed)?;
    state.position = position;
    state.moves.truncate(keep);
    state.turn = request.by;
    state.consecutive_passes = u8::from(state.moves.last().is_some_and(|m| m.point.is_none()));
    state.undo.pending = None;
    *state.undo.used.get_mut(request.by) += 1;
    // Clocks are not rewound; the requester's turn starts now.
    state.clock.turn_started_at = now;
    Ok(vec![BadukEvent::UndoAccepted {
        by: request.by,
        plies: request.plies,
    }])
}

fn offer_draw(state: &mut BadukState, color: Color) -> Result<Vec<BadukEvent>, BadukError> {
    require_phase(state, Phase::Playing)?;
    if !state.options.draw_offer {
        return Err(BadukError::DrawNotAllowed);
    }
    if state.draw.pending_by.is_some() {
        return Err(BadukError::RequestPending);
    }
    if let Some(at) = *state.draw.declined_at.get(color) {
        let since = state.moves.get(usize::from(at)..).unwrap_or(&[]);
        if since.iter().filter(|m| m.color == color).count() < DRAW_SPACING {
            return Err(BadukError::DrawNotAllowed);
        }
    }
    state.draw.pending_by = Some(color);
    Ok(vec![BadukEvent::DrawOffered { by: color }])
}

fn respond_draw(
    state: &mut BadukState,
    color: Color,
    accept: bool,
) -> Result<Vec<BadukEvent>, BadukError> {
    let by = match state.draw.pending_by {
        Some(by) if by == color.opponent() => by,
        _ => return Err(BadukError::NoPendingRequest),
    };
    state.draw.pending_by = None;
    if accept {
        return Ok(finish(state, None, EndReason::DrawAgreed));
    }
    *state.draw.declined_at.get_mut(by) = Some(move_count(state));
    Ok(vec![BadukEvent::DrawDeclined { by, auto: false }])
}

fn cancel_offer(state: &mut BadukState, color: Color) -> Result<Vec<BadukEvent>, BadukError> {
    if state.undo.pending.is_some_and(|r| r.by == color) {
        state.undo.pending = None;
    } else if state.draw.pending_by == Some(color) {
        state.draw.pending_by = None;
    } else {
        return Err(BadukError::NoPendingRequest);
    }
    Ok(vec![BadukEvent::OfferCancelled { by: color }])
}

fn timeout(state: &mut BadukState, color: Color) -> Result<Vec<BadukEvent>, BadukError> {
    match state.phase {
        Phase::Playing if state.turn != color => Err(BadukError::NotYourTurn),
        // No automatic move in 바둑 (§8.5): running out of time loses.
        Phase::Playing => Ok(finish(state, Some(color.opponent()), EndReason::TimeLoss)),
        // An unanswered scoring phase counts as agreement to the marks as they stand.
        _ => agree(state, color),
    }
}

fn finish_counted(state: &mut BadukState) -> Vec<BadukEvent> {
    let result = state.counted_result();
    end(state, result)
}

fn finish(state: &mut BadukState, winner: Option<Color>, reason: EndReason) -> Vec<BadukEvent> {
    let result = BadukResult::new(&state.players, winner, reason, None);
    end(state, result)
}

fn end(state: &mut BadukState, result: BadukResult) -> Vec<BadukEvent> {
    state.phase = Phase::Finished;
    state.undo.pending = None;
    state.draw.pending_by = None;
    state.result = Some(result.clone());
    vec![BadukEvent::GameEnded { result }]
}
