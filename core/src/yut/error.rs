//! Why an action was refused (ruling Y11): a stable code and a friendly Korean message.

use crate::game::RuleError;

/// A refused action. Checks run in the order of the variants below, and the first that fails is
/// the error (ruling Y11, with `GAME_OVER` checked right after `NOT_A_PLAYER`: once the game is
/// over every other answer would be misleading).
///
/// A refused action changed nothing: neither the state nor the generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum YutError {
    /// The actor is not a player of this game (a spectator, or someone from another room).
    #[error("이 판의 참가자만 할 수 있어요.")]
    NotAPlayer,
    /// The game is over.
    #[error("이미 끝난 판이에요.")]
    GameOver,
    /// The actor's side no longer plays (finished or conceded) and so cannot concede.
    #[error("이미 이 판에서 빠졌어요.")]
    AlreadyOut,
    /// Someone else is to move (in team games: another member of the same team, too).
    #[error("지금은 다른 사람 차례예요.")]
    NotYourTurn,
    /// `RECOMMEND` from someone who is not a teammate of the player to move (or is that
    /// player), or outside a team game.
    #[error("같은 팀 사람 차례일 때만 추천할 수 있어요.")]
    CannotRecommend,
    /// `TAKE_CONTROL` while the seat is not in auto play.
    #[error("지금은 자동 진행 중이 아니에요.")]
    NotAutoPlaying,
    /// `THROW` while results wait to be used.
    #[error("지금은 윷을 던질 차례가 아니에요.")]
    NotThrowPhase,
    /// `MOVE` while a throw is owed.
    #[error("지금은 말을 움직일 차례가 아니에요. 먼저 윷을 던져 주세요.")]
    NotMovePhase,
    /// `throwIndex` names no pending result.
    #[error("그런 윷 결과는 없어요.")]
    BadThrowIndex,
    /// That result cannot move that piece: no own piece there, 빽도 for a waiting piece, ….
    #[error("그 말은 움직일 수 없어요.")]
    IllegalMove,
}

impl YutError {
    /// Every refusal, in check order (their codes are the OpenAPI document's 윷놀이 codes).
    pub const EVERY: [YutError; 10] = [
        YutError::NotAPlayer,
        YutError::GameOver,
        YutError::AlreadyOut,
        YutError::NotYourTurn,
        YutError::CannotRecommend,
        YutError::NotAutoPlaying,
        YutError::NotThrowPhase,
        YutError::NotMovePhase,
        YutError::BadThrowIndex,
        YutError::IllegalMove,
    ];
}

impl RuleError for YutError {
    fn code(&self) -> &'static str {
        match self {
            YutError::NotAPlayer => "NOT_A_PLAYER",
            YutError::GameOver => "GAME_OVER",
            YutError::AlreadyOut => "ALREADY_OUT",
            YutError::NotYourTurn => "NOT_YOUR_TURN",
            YutError::CannotRecommend => "CANNOT_RECOMMEND",
            YutError::NotAutoPlaying => "NOT_AUTO_PLAYING",
            YutError::NotThrowPhase => "NOT_THROW_PHASE",
            YutError::NotMovePhase => "NOT_MOVE_PHASE",
            YutError::BadThrowIndex => "BAD_THROW_INDEX",
            YutError::IllegalMove => "ILLEGAL_MOVE",
        }
    }
}
