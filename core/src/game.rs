//! The contract every game engine implements.
//!
//! An engine is a set of pure functions over its own `State`: time (`now`, epoch ms) and
//! randomness ([`GameRng`]) come in as parameters, nothing reads a clock or does I/O. The room
//! layer owns the generator and the version; the engine owns the rules.
//!
//! Guarantees every implementation gives (and its property tests check):
//! - [`Game::apply`] either returns `Ok(events)` having changed the state, or `Err` having changed
//!   nothing — neither the state nor the generator (a rejected action draws no random numbers).
//! - Same options, same seed and same actions ⇒ the same state, bit for bit.
//! - [`Game::view`] never contains the generator or any other hidden field.
//! - The serialized `State` is the *stored* form: compact, with nothing that can be rebuilt from
//!   what it keeps (the 바둑 board is replayed from the moves on decode).

use std::fmt::Debug;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::rng::GameRng;

/// Milliseconds since the Unix epoch. Every engine function that needs the time gets it as this.
pub type Millis = u64;

/// A player's id within a room: an opaque short string chosen by the room layer.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct PlayerId(pub String);

impl PlayerId {
    /// Wraps a string as a player id.
    pub fn new(id: impl Into<String>) -> Self {
        PlayerId(id.into())
    }

    /// The id as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The people a game starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lineup {
    /// Players in seat order: `players[i]` sits in seat `i` (team games use seat parity).
    pub players: Vec<PlayerId>,
    /// The room's host (some options, like 바둑 `colorAssignment: hostBlack`, refer to them).
    pub host: PlayerId,
}

/// Who is acting: the player themself, or the system acting for them because their deadline
/// passed (or they were disconnected past the grace period).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor<'a> {
    /// The player sent this action.
    Player(&'a PlayerId),
    /// The room layer fires the action [`Game::on_timeout`] chose for this player.
    Timeout(&'a PlayerId),
}

impl<'a> Actor<'a> {
    /// The player the action is for.
    pub fn id(&self) -> &'a PlayerId {
        match *self {
            Actor::Player(p) | Actor::Timeout(p) => p,
        }
    }

    /// Whether the system is acting on the player's behalf.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Actor::Timeout(_))
    }
}

/// One computer-player level a game offers, as `GET /games/{kind}` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BotLevel {
    /// The level the host sends in `addBot` (1 = weakest).
    pub level: u8,
    /// Its Korean label, e.g. "입문".
    pub label: &'static str,
}

/// A computer player could not choose an action (the engine failed): why, for the logs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BotError(pub String);

/// A rule violation: a stable machine code plus the Korean message of the spec (its `Display`).
pub trait RuleError: std::error::Error + Clone + PartialEq + Send + Sync + 'static {
    /// Stable machine code, e.g. `NOT_YOUR_TURN`, `SUPERKO`.
    fn code(&self) -> &'static str;
}

/// Options that cannot be played: names the field and says why, in Korean.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{field}: {message}")]
pub struct OptionsError {
    /// The offending option's key as clients send it, e.g. `mode` or `timeControl.mainSec`.
    pub field: String,
    /// Why, in Korean, e.g. "팀전은 4·6·8명만 할 수 있어요."
    pub message: String,
}

impl OptionsError {
    /// An error about `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        OptionsError {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The stable machine code of every options error.
    pub const CODE: &'static str = "INVALID_OPTIONS";
}

/// One game's rules. Implementations are zero-sized markers (`Yut`, `Baduk`); all functions are
/// associated, all data lives in `State`. The options, actions, views and outcomes the API
/// carries have a JSON Schema ([`JsonSchema`]), from which the OpenAPI document is generated;
/// events are written, and described, by the API layer.
pub trait Game {
    /// The game's name in the API (`"yut"`, `"baduk"`).
    const NAME: &'static str;

    /// Room options as clients send them (camelCase, unknown fields rejected, missing ones default).
    type Options: Serialize + DeserializeOwned + JsonSchema + Clone + Default + PartialEq + Debug;
    /// The whole game state; its serialized form is the stored form.
    type State: Serialize + DeserializeOwned + Clone + PartialEq + Debug;
    /// A player's action, tagged by `type` with the spec's names.
    type Action: Serialize + DeserializeOwned + JsonSchema + Clone + PartialEq + Debug;
    /// What happened, for clients to animate. Typed only: the API layer writes it on the wire
    /// (tagged by `type` with the spec's names) and gives its schema.
    type Event: Clone + PartialEq + Debug;
    /// What one viewer may see (spec §8.3).
    type View: Serialize + JsonSchema;
    /// The final result (spec §8.6).
    type Outcome: Serialize + JsonSchema + Clone + PartialEq + Debug;
    /// Why an action was refused.
    type Error: RuleError;

    /// Checks the option values and their combinations. With `players = Some(n)` it also checks
    /// that `n` people can play with these options; with `None` only what does not depend on the
    /// head count (a lobby that is still filling up).
    fn validate_options(
        options: &Self::Options,
        players: Option<usize>,
    ) -> Result<(), OptionsError>;

    /// The largest number of players these options allow (a lobby is full at this count).
    fn max_players(options: &Self::Options) -> usize;

    /// Starts a game: validates the options for the lineup, then draws whatever setup draws.
    fn setup(
        lineup: &Lineup,
        options: &Self::Options,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Self::State, OptionsError>;

    /// Applies one action. On `Err` nothing changed, neither `state` nor `rng`.
    fn apply(
        state: &mut Self::State,
        actor: Actor<'_>,
        action: &Self::Action,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<Self::Event>, Self::Error>;

    /// The replay log's form of an accepted `action` (DESIGN "Replay", [`GameLog`]): the
    /// action's op, `0..8` (three bits of the step's header), with whatever else it needs
    /// appended to `out` — as few bytes as it can, since every save writes the whole log.
    ///
    /// [`GameLog`]: crate::room::GameLog
    fn log_action(options: &Self::Options, action: &Self::Action, out: &mut Vec<u8>) -> u8;

    /// Reads back, from the front of `input`, the action [`Game::log_action`] wrote with `op`
    /// under these options. Strict: `None` for an op or a payload it never writes.
    fn read_action(options: &Self::Options, op: u8, input: &mut &[u8]) -> Option<Self::Action>;

    /// Whether steps logged with `op` leave their action to the state's own record (바둑: a
    /// stone or a pass is in the stored move list, so the log need not repeat it): such a step
    /// is read back as a placeholder that [`Game::resolve_logged`] fills in. Default: none.
    fn recorded_op(op: u8) -> bool {
        let _ = op;
        false
    }

    /// The action a step read back from the log stands for: `action` itself, or — for a
    /// placeholder of a [`Game::recorded_op`] — the one `record` (the latest state, whose record
    /// holds it) kept, seen from `now`, the state the step is replayed on. `None`: not there.
    fn resolve_logged(
        record: &Self::State,
        now: &Self::State,
        action: Self::Action,
    ) -> Option<Self::Action> {
        let _ = (record, now);
        Some(action)
    }

    /// What an accepted `action` on `before` takes off the state's own record (바둑: an undo
    /// granted): each such earlier step spelled out in full, as its player, an op and its
    /// payload, oldest first, so the log keeps them once the record no longer does. Default:
    /// nothing.
    fn taken_back(
        options: &Self::Options,
        before: &Self::State,
        action: &Self::Action,
    ) -> Vec<(PlayerId, u8, Vec<u8>)> {
        let _ = (options, before, action);
        Vec::new()
    }

    /// The state as `viewer` may see it (`None`: a spectator).
    fn view(state: &Self::State, viewer: Option<&PlayerId>) -> Self::View;

    /// The view inside a room at `version` (the room's version, which every accepted change
    /// bumps by one): games whose spec State shows it (윷놀이 `turnSeq`) override this; the
    /// default is [`Game::view`].
    fn room_view(state: &Self::State, viewer: Option<&PlayerId>, version: u64) -> Self::View {
        let _ = version;
        Self::view(state, viewer)
    }

    /// When the next timeout fires, if any action is awaited under a time limit.
    fn deadline(state: &Self::State) -> Option<Millis>;

    /// The players whose action is awaited now (the one to move; both unagreed players while
    /// 바둑 is scoring). Empty when the game is over.
    fn active_players(state: &Self::State) -> Vec<PlayerId>;

    /// How long an active player may stay disconnected before the room fires their timeout early
    /// (`None`: disconnection changes nothing).
    fn disconnect_grace(state: &Self::State) -> Option<Millis>;

    /// The action the system takes for `player` when their deadline passes at `now`, to be applied
    /// with [`Actor::Timeout`]. `None` if nothing is awaited from them.
    fn on_timeout(state: &Self::State, player: &PlayerId, now: Millis) -> Option<Self::Action>;

    /// The result once the game is over.
    fn result(state: &Self::State) -> Option<Self::Outcome>;

    /// `player` leaves the room while the game runs: the engine decides what that does to the
    /// game (바둑 resigns; 윷놀이 concedes, or hands the seat to a bot) and returns what
    /// happened — nothing, when the player no longer plays. On `Err` nothing changed, neither
    /// `state` nor `rng`.
    fn leave(
        state: &mut Self::State,
        player: &PlayerId,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<Self::Event>, Self::Error>;

    /// Whether a bot plays `player`'s seat now (shown as `players[].bot` in the room view):
    /// the game handed it over (윷놀이 `onLeave: bot`), or [`Game::seat_bot`] put one there.
    fn is_bot(state: &Self::State, player: &PlayerId) -> bool {
        let _ = (state, player);
        false
    }

    /// The computer players this game offers, weakest first (`GET /games/{kind}`
    /// `bots.levels`); empty: the host cannot add any.
    fn bot_levels() -> &'static [BotLevel] {
        &[]
    }

    /// The level `addBot` seats when it names none (the weakest, unless the game says).
    fn default_bot_level() -> u8 {
        Self::bot_levels().first().map_or(1, |l| l.level)
    }

    /// The game starts with a computer player (`addBot`) in `player`'s seat: a game that keeps
    /// track of who plays a seat notes it here (윷놀이 shows it as `control: bot`).
    fn seat_bot(state: &mut Self::State, player: &PlayerId) {
        let _ = (state, player);
    }

    /// Whether a computer player in `player`'s seat has something to do now: by default when
    /// the game awaits its action; a game may add more (바둑: answer an undo request).
    fn bot_awaited(state: &Self::State, player: &PlayerId) -> bool {
        Self::active_players(state).contains(player)
    }

    /// What the computer player of level `level` in `player`'s seat does now (see
    /// [`Game::bot_awaited`]). Pure: whatever it draws comes from `rng`, the room's generator.
    /// The room applies it like the player's own action; `Err` or a refused action makes the
    /// room fall back to [`Game::bot_fallback`].
    fn bot_action(
        state: &Self::State,
        player: &PlayerId,
        level: u8,
        rng: &mut GameRng,
    ) -> Result<Self::Action, BotError> {
        let _ = (state, player, level, rng);
        Err(BotError("이 게임에는 컴퓨터 참가자가 없어요.".into()))
    }

    /// What a computer player does when its choice failed (an engine error, or a move the rules
    /// refused): something that never stalls the room (바둑 resigns). `None`: nothing.
    fn bot_fallback(state: &Self::State, player: &PlayerId) -> Option<Self::Action> {
        let _ = (state, player);
        None
    }

    /// The team of the player in `seat` under these options (`None`: every player is their own
    /// side).
    fn team_of(options: &Self::Options, seat: usize) -> Option<u8>;

    /// The room option `chat` under these options (games without it: chat on).
    fn chat_setting(options: &Self::Options) -> crate::chat_setting::ChatSetting {
        let _ = options;
        crate::chat_setting::ChatSetting::On
    }

    /// The chosen rules in one Korean line, shown in every room view (spec yut §12), e.g.
    /// "개인전 · 말 4개 · 빽도 사용 · 참먹이를 지나야 남".
    fn rule_summary(options: &Self::Options) -> String;

    /// The options of a rematch (한 판 더) of a game played under `options`: the same, unless the
    /// game says otherwise (바둑 swaps a fixed colour assignment).
    fn rematch_options(options: &Self::Options) -> Self::Options {
        options.clone()
    }
}
