//! Why the room layer refuses a request.

use crate::game::OptionsError;

/// How a [`RoomError`] should be reported: the HTTP layer maps each kind to one status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed (unknown action type, bad payload): 400.
    Malformed,
    /// The caller may not do this (not the host, a spectator, a removed player): 403.
    Forbidden,
    /// Legal JSON, but the rules of the lobby or the game refuse it: 422.
    Illegal,
}

/// A refused lobby or game action. `Display` is the Korean message shown to players.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RoomError {
    /// The action JSON does not describe an action of this game. The text is the parser's own
    /// account of why (English where it is serde's); it goes out as the problem's `reason`,
    /// never into the Korean `detail` players see.
    #[error("이 게임에 없는 행동이거나, 행동의 필드가 맞지 않아요.")]
    BadAction(String),
    /// Only the host may do this.
    #[error("방장만 할 수 있어요.")]
    NotHost,
    /// The caller has no seat in this room (a spectator, or kicked).
    #[error("이 방의 참가자가 아니에요.")]
    NotAPlayer,
    /// The named player is not in the room.
    #[error("그런 참가자가 없어요.")]
    UnknownPlayer,
    /// The lobby is full for these options.
    #[error("방이 가득 찼어요.")]
    RoomFull,
    /// The game has started; the lobby can no longer change.
    #[error("이미 게임이 시작됐어요.")]
    AlreadyStarted,
    /// The game has not started yet.
    #[error("아직 게임이 시작되지 않았어요.")]
    NotStarted,
    /// The game is over.
    #[error("게임이 끝났어요.")]
    GameOver,
    /// Only a finished game can be played again.
    #[error("게임이 끝난 뒤에 한 판 더 할 수 있어요.")]
    NotFinished,
    /// A seat number outside the lobby.
    #[error("그 자리는 없어요.")]
    BadSeat,
    /// The host tried to kick themself.
    #[error("자기 자신은 내보낼 수 없어요.")]
    CannotKickSelf,
    /// The options are not playable (names the field).
    #[error("{0}")]
    InvalidOptions(OptionsError),
    /// The game's rules refuse the action: the engine's code and Korean message.
    #[error("{message}")]
    Rule {
        /// The engine's stable code, e.g. `NOT_YOUR_TURN`.
        code: &'static str,
        /// The engine's Korean message.
        message: String,
    },
    /// A join from a player kicked from this room (who still holds their token).
    #[error("이 방에서 내보내진 사람은 다시 들어올 수 없어요.")]
    Kicked,
    /// A display name that is empty, invisible, too long, or holds control, format or bidi
    /// characters (see [`super::player_name`]).
    #[error("이름은 보이는 글자로 1~20자까지 쓸 수 있어요. 제어·서식 문자는 쓸 수 없어요.")]
    InvalidName,
    /// Someone in the room already goes by this name (or one that reads the same).
    #[error("이 방에 같은 이름이 이미 있어요. 다른 이름을 써 주세요.")]
    NameTaken,
    /// A spectator's name that reads as a computer player's (`컴퓨터 N`): the same stable code
    /// as [`RoomError::NameTaken`] (the bots' names are taken by them), its own message.
    #[error("'컴퓨터 숫자' 이름은 컴퓨터 참가자의 것이에요. 다른 이름을 써 주세요.")]
    BotName,
    /// `addBot` in a game that has no computer players.
    #[error("이 게임에는 컴퓨터 참가자가 없어요.")]
    NoBots,
    /// `addBot` with a level the game does not offer (`GET /games/{kind}` lists them).
    #[error("그런 컴퓨터 수준은 없어요.")]
    BadBotLevel,
    /// `start` with no person among the players: computer players alone do not play.
    #[error("사람이 한 명은 있어야 시작할 수 있어요.")]
    OnlyBots,
    /// An `Idempotency-Key` was reused with a different request body.
    #[error("같은 Idempotency-Key로 다른 요청을 보낼 수 없어요.")]
    IdempotencyKeyReused,
}

impl RoomError {
    /// The stable machine code clients switch on.
    pub fn code(&self) -> &'static str {
        match self {
            RoomError::BadAction(_) => "BAD_ACTION",
            RoomError::NotHost => "NOT_HOST",
            RoomError::NotAPlayer => "NOT_A_PLAYER",
            RoomError::UnknownPlayer => "UNKNOWN_PLAYER",
            RoomError::RoomFull => "ROOM_FULL",
            RoomError::AlreadyStarted => "ALREADY_STARTED",
            RoomError::NotStarted => "NOT_STARTED",
            RoomError::GameOver => "GAME_OVER",
            RoomError::NotFinished => "NOT_FINISHED",
            RoomError::BadSeat => "BAD_SEAT",
            RoomError::CannotKickSelf => "CANNOT_KICK_SELF",
            RoomError::InvalidOptions(_) => OptionsError::CODE,
            RoomError::Rule { code, .. } => code,
            RoomError::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            RoomError::InvalidName => "INVALID_NAME",
            RoomError::NameTaken | RoomError::BotName => "NAME_TAKEN",
            RoomError::Kicked => "KICKED",
            RoomError::NoBots => "NO_BOTS",
            RoomError::BadBotLevel => "BAD_BOT_LEVEL",
            RoomError::OnlyBots => "ONLY_BOTS",
        }
    }

    /// How the HTTP layer reports it: the kind [`RoomError::CODES`] gives its code (a game's
    /// rule codes are all [`ErrorKind::Illegal`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            RoomError::Rule { .. } => ErrorKind::Illegal,
            e => Self::kind_of(e.code()),
        }
    }

    /// The kind of a room code, by [`RoomError::CODES`].
    fn kind_of(code: &str) -> ErrorKind {
        Self::CODES
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(ErrorKind::Illegal, |(_, kind)| *kind)
    }

    /// Every code of the room layer (a game's rule codes aside) and its kind: the one list the
    /// HTTP layer's statuses and the OpenAPI document's code lists are taken from.
    pub const CODES: &'static [(&'static str, ErrorKind)] = &[
        ("BAD_ACTION", ErrorKind::Malformed),
        ("NOT_HOST", ErrorKind::Forbidden),
        ("NOT_A_PLAYER", ErrorKind::Forbidden),
        ("KICKED", ErrorKind::Forbidden),
        ("UNKNOWN_PLAYER", ErrorKind::Illegal),
        ("ROOM_FULL", ErrorKind::Illegal),
        ("ALREADY_STARTED", ErrorKind::Illegal),
        ("NOT_STARTED", ErrorKind::Illegal),
        ("GAME_OVER", ErrorKind::Illegal),
        ("NOT_FINISHED", ErrorKind::Illegal),
        ("BAD_SEAT", ErrorKind::Illegal),
        ("CANNOT_KICK_SELF", ErrorKind::Illegal),
        (OptionsError::CODE, ErrorKind::Illegal),
        ("IDEMPOTENCY_KEY_REUSED", ErrorKind::Illegal),
        ("INVALID_NAME", ErrorKind::Illegal),
        ("NAME_TAKEN", ErrorKind::Illegal),
        ("NO_BOTS", ErrorKind::Illegal),
        ("BAD_BOT_LEVEL", ErrorKind::Illegal),
        ("ONLY_BOTS", ErrorKind::Illegal),
    ];
}
