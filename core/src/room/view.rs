//! What a viewer sees of a room: the API's `room` object.

use serde::Serialize;

use super::{Presence, Room};
use crate::game::{Game, Millis, PlayerId};
use crate::rng::Reveal;

/// Where a room is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// Filling seats; options can change.
    Lobby,
    /// The game runs.
    Playing,
    /// The game is over; `result` is set.
    Finished,
}

/// One seated player as everyone sees them (no token hash, ever).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerView {
    /// Room-scoped id.
    pub id: PlayerId,
    /// Display name.
    pub name: String,
    /// Seat number.
    pub seat: usize,
    /// Team (seat parity in team games), or `null`.
    pub team: Option<u8>,
    /// Whether they were seen within the presence window.
    pub connected: bool,
    /// Whether they left a running game.
    pub left: bool,
    /// Whether a computer player plays the seat: one the host added (`addBot`), or one the
    /// game put there when the player left.
    pub bot: bool,
    /// The computer player's level (`GET /games/{kind}` `bots.levels`), or `null` for a person.
    pub bot_level: Option<u8>,
}

/// The `room` object of the API: the same shape for every game; `state` and `result` are the
/// game's own view and result.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", bound = "")]
pub struct RoomView<'a, G: Game> {
    /// Room id.
    pub room_id: &'a str,
    /// `"yut"` or `"baduk"`.
    pub game: &'static str,
    /// The room's version (also the `ETag`).
    pub version: u64,
    /// Lobby, playing or finished.
    pub status: Status,
    /// The host's id.
    pub host_id: &'a PlayerId,
    /// The options in force.
    pub options: &'a G::Options,
    /// The options in one Korean line.
    pub rule_summary: String,
    /// Seated players.
    pub players: Vec<PlayerView>,
    /// The viewer's player id, or `null` for a spectator.
    pub you: Option<&'a PlayerId>,
    /// When the awaited action times out (the turn timer, or a disconnected player's grace
    /// period), or `null`.
    pub deadline_at: Option<Millis>,
    /// SHA-256 of the room's generator seed and salt (hex), the same from creation to the end:
    /// the result of the finished game reveals both (`result.rngReveal`, `docs/audit.md`).
    pub rng_commitment: String,
    /// How many ms to wait before reading the room again (`Room::poll_after`): soon while a
    /// change may come any moment, rarely while none will, never past the next deadline.
    /// `Retry-After` says the same in whole seconds.
    #[schemars(range(min = 250))]
    pub poll_after_ms: Millis,
    /// The game's view for this viewer (`null` in the lobby).
    pub state: Option<G::View>,
    /// The game's result once finished.
    pub result: Option<ResultView<G>>,
    /// The rematch lobby (한 판 더) of this finished game once a player asked for it, for
    /// everyone — spectators too — to move over; else `null`.
    pub rematch_room_id: Option<&'a str>,
}

/// The `result` object: the game's own result, and beside its fields `rngReveal`, the seed
/// and salt behind `rngCommitment` (the game is over, nothing more is drawn).
#[derive(Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", bound = "")]
pub struct ResultView<G: Game> {
    /// The game's result (spec §8.6), its fields inline.
    #[serde(flatten)]
    pub outcome: G::Outcome,
    /// Seed and salt of the room's generator.
    pub rng_reveal: Reveal,
}

impl<G: Game> Room<G> {
    /// The room as `viewer` (`None`: a spectator) may see it at `now`.
    pub fn view<'a>(
        &'a self,
        viewer: Option<&'a PlayerId>,
        presence: &Presence,
        now: Millis,
    ) -> RoomView<'a, G> {
        RoomView {
            room_id: &self.id,
            game: G::NAME,
            version: self.version,
            status: self.status(),
            host_id: &self.host,
            options: &self.options,
            rule_summary: G::rule_summary(&self.options),
            players: self
                .seats
                .iter()
                .enumerate()
                .map(|(seat, m)| {
                    let bot_level = match &self.game {
                        Some(state) => self.bot_level(state, &m.id),
                        None => m.bot,
                    };
                    PlayerView {
                        id: m.id.clone(),
                        name: m.name.clone(),
                        seat,
                        team: G::team_of(&self.options, seat),
                        // A computer player is always there.
                        connected: m.bot.is_some() || self.is_connected(&m.id, presence, now),
                        left: m.left,
                        bot: bot_level.is_some(),
                        bot_level,
                    }
                })
                .collect(),
            you: viewer,
            deadline_at: self.deadline_at(presence, now),
            rng_commitment: self.rng.commitment(),
            rematch_room_id: self.rematch.as_deref(),
            poll_after_ms: self.poll_after(viewer, presence, now),
            state: self
                .game
                .as_ref()
                .map(|s| G::room_view(s, viewer, self.version)),
            result: self
                .game
                .as_ref()
                .and_then(G::result)
                .map(|outcome| ResultView {
                    outcome,
                    rng_reveal: self.rng.reveal(),
                }),
        }
    }
}
