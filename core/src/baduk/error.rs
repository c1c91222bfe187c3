//! Why an action was refused: a stable code and the spec's Korean message.

use crate::game::RuleError;

/// A refused 바둑 action. The state is unchanged whenever one is returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadukError {
    /// The actor is not one of the two players.
    #[error("이 대국의 대국자가 아니에요.")]
    NotAPlayer,
    /// The game has ended.
    #[error("이미 끝난 대국이에요.")]
    GameOver,
    /// The action does not belong to this phase (e.g. `place` while scoring).
    #[error("지금 단계에서는 할 수 없는 행동이에요.")]
    WrongPhase,
    /// It is the other player's move.
    #[error("지금은 상대 차례예요.")]
    NotYourTurn,
    /// The move arrived after the player's time ran out.
    #[error("시간이 다 되어 둘 수 없어요.")]
    TimeExpired,
    /// The point is outside the board.
    #[error("판 밖에는 둘 수 없어요.")]
    OffBoard,
    /// A stone is already there.
    #[error("이미 돌이 놓인 곳이에요.")]
    Occupied,
    /// The stone would have no liberty and captures nothing (B1).
    #[error("둘 곳의 활로가 없어 둘 수 없어요")]
    Suicide,
    /// An immediate recapture of a ko (B2).
    #[error("패는 바로 되따낼 수 없어요. 다른 곳에 한 수 두고 오세요")]
    Ko,
    /// The move repeats an earlier arrangement of the whole board (positional superko).
    #[error("같은 모양이 반복되어 둘 수 없어요")]
    Superko,
    /// `toggleDead` on an empty point.
    #[error("돌이 있는 곳을 골라 주세요.")]
    NoStone,
    /// `toggleSeki` on a stone.
    #[error("빅은 빈 곳에만 표시할 수 있어요.")]
    NotEmpty,
    /// Undo is off, used up, or there is no own move to take back.
    #[error("무르기를 할 수 없어요.")]
    UndoNotAllowed,
    /// A request of that kind is already waiting for an answer.
    #[error("이미 답을 기다리는 요청이 있어요.")]
    RequestPending,
    /// There is no request for this player to answer or cancel.
    #[error("답하거나 취소할 요청이 없어요.")]
    NoPendingRequest,
    /// Draw offers are off, or the player declined-offer spacing (5 own moves) is not over.
    #[error("지금은 무승부를 제안할 수 없어요.")]
    DrawNotAllowed,
    /// `resumePlay` by a player who has used up their resumes (B7).
    #[error("대국 재개는 한 사람이 한 판에 두 번까지예요. 사석을 정해 계가해 주세요.")]
    ResumeLimit,
    /// `resumePlay` after the move limit was reached: the count is final (B7).
    #[error("수 제한에 닿아 대국을 재개할 수 없어요. 사석을 정해 계가해 주세요.")]
    MoveLimit,
    /// `timeout` sent by a player instead of the system.
    #[error("시스템만 할 수 있는 행동이에요.")]
    TimeoutOnly,
}

impl BadukError {
    /// Every refusal (their codes are the OpenAPI document's 바둑 codes).
    pub const EVERY: [BadukError; 19] = [
        BadukError::NotAPlayer,
        BadukError::GameOver,
        BadukError::WrongPhase,
        BadukError::NotYourTurn,
        BadukError::TimeExpired,
        BadukError::OffBoard,
        BadukError::Occupied,
        BadukError::Suicide,
        BadukError::Ko,
        BadukError::Superko,
        BadukError::NoStone,
        BadukError::NotEmpty,
        BadukError::UndoNotAllowed,
        BadukError::RequestPending,
        BadukError::NoPendingRequest,
        BadukError::DrawNotAllowed,
        BadukError::ResumeLimit,
        BadukError::MoveLimit,
        BadukError::TimeoutOnly,
    ];
}

impl RuleError for BadukError {
    fn code(&self) -> &'static str {
        match self {
            BadukError::NotAPlayer => "NOT_A_PLAYER",
            BadukError::GameOver => "GAME_OVER",
            BadukError::WrongPhase => "WRONG_PHASE",
            BadukError::NotYourTurn => "NOT_YOUR_TURN",
            BadukError::TimeExpired => "TIME_EXPIRED",
            BadukError::OffBoard => "OFF_BOARD",
            BadukError::Occupied => "OCCUPIED",
            BadukError::Suicide => "SUICIDE",
            BadukError::Ko => "KO",
            BadukError::Superko => "SUPERKO",
            BadukError::NoStone => "NO_STONE",
            BadukError::NotEmpty => "NOT_EMPTY",
            BadukError::UndoNotAllowed => "UNDO_NOT_ALLOWED",
            BadukError::RequestPending => "REQUEST_PENDING",
            BadukError::NoPendingRequest => "NO_PENDING_REQUEST",
            BadukError::DrawNotAllowed => "DRAW_NOT_ALLOWED",
            BadukError::ResumeLimit => "RESUME_LIMIT",
            BadukError::MoveLimit => "MOVE_LIMIT",
            BadukError::TimeoutOnly => "TIMEOUT_ONLY",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_messages_follow_the_spec() {
        assert_eq!(BadukError::Suicide.code(), "SUICIDE");
        assert_eq!(
            BadukError::Suicide.to_string(),
            "둘 곳의 활로가 없어 둘 수 없어요"
        );
        assert_eq!(
            BadukError::Superko.to_string(),
            "같은 모양이 반복되어 둘 수 없어요"
        );
    }
}
