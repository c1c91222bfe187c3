//! Room-layer tests over a tiny counting game, so lobby, versioning, timeouts and presence are
//! tested apart from the rules of 윷놀이 and 바둑 (which have their own suites, and are played
//! through rooms end to end in the HTTP tests).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::*;
use crate::game::{Actor, Game, Lineup, Millis, OptionsError, PlayerId, RuleError};

/// "Race to ten": players take turns adding 1–3; whoever reaches `target` wins. A turn lasts
/// `turn_ms`; a timeout adds 1.
#[derive(Debug)]
struct Tally;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
struct TallyOptions {
    target: u32,
    max_players: usize,
}

impl Default for TallyOptions {
    fn default() -> Self {
        TallyOptions {
            target: 10,
            max_players: 3,
        }
    }
}

/// The winner, as a struct: a room view flattens the game's result into `result`.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
struct TallyOutcome {
    winner: PlayerId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
struct TallyState {
    players: Vec<PlayerId>,
    turn: usize,
    total: u32,
    target: u32,
    turn_started: Millis,
    winner: Option<PlayerId>,
    timeouts: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", deny_unknown_fields)]
enum TallyAction {
    #[serde(rename = "add")]
    Add { n: u32 },
    #[serde(rename = "resign")]
    Resign,
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum TallyError {
    #[error("지금은 다른 사람 차례예요.")]
    NotYourTurn,
    #[error("1~3만 더할 수 있어요.")]
    BadNumber,
    #[error("게임이 끝났어요.")]
    Over,
}

impl RuleError for TallyError {
    fn code(&self) -> &'static str {
        match self {
            TallyError::NotYourTurn => "NOT_YOUR_TURN",
            TallyError::BadNumber => "BAD_NUMBER",
            TallyError::Over => "GAME_OVER",
        }
    }
}

const TURN_MS: Millis = 10_000;

impl Game for Tally {
    const NAME: &'static str = "tally";
    type Options = TallyOptions;
    type State = TallyState;
    type Action = TallyAction;
    type Event = TallyAction;
    type View = TallyState;
    type Outcome = TallyOutcome;
    type Error = TallyError;

    fn validate_options(o: &TallyOptions, players: Option<usize>) -> Result<(), OptionsError> {
        if o.target == 0 {
            return Err(OptionsError::new("target", "목표는 1 이상이어야 해요."));
        }
        match players {
            Some(n) if !(2..=o.max_players).contains(&n) => {
                Err(OptionsError::new("players", "2명 이상이어야 해요."))
            }
            _ => Ok(()),
        }
    }
    fn max_players(o: &TallyOptions) -> usize {
        o.max_players
    }
    fn log_action(_: &TallyOptions, a: &TallyAction, out: &mut Vec<u8>) -> u8 {
        match a {
            TallyAction::Add { n } => {
                crate::room::put_varint(out, u64::from(*n));
                0
            }
            TallyAction::Resign => 1,
        }
    }
    fn read_action(_: &TallyOptions, op: u8, input: &mut &[u8]) -> Option<TallyAction> {
        match op {
            0 => Some(TallyAction::Add {
                n: u32::try_from(crate::room::take_varint(input)?).ok()?,
            }),
            1 => Some(TallyAction::Resign),
            _ => None,
        }
    }
    fn setup(
        l: &Lineup,
        o: &TallyOptions,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<TallyState, OptionsError> {
        Self::validate_options(o, Some(l.players.len()))?;
        let turn = rng.below(l.players.len() as u32) as usize;
        Ok(TallyState {
            players: l.players.clone(),
            turn,
            total: 0,
            target: o.target,
            turn_started: now,
            winner: None,
            timeouts: 0,
        })
    }
    fn apply(
        s: &mut TallyState,
        actor: Actor<'_>,
        a: &TallyAction,
        _rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<TallyAction>, TallyError> {
        if s.winner.is_some() {
            return Err(TallyError::Over);
        }
        match a {
            TallyAction::Resign => {
                let i = s
                    .players
                    .iter()
                    .position(|p| p == actor.id())
                    .ok_or(TallyError::NotYourTurn)?;
                s.winner = Some(s.players[(i + 1) % s.players.len()].clone());
            }
            TallyAction::Add { n } => {
                if s.players[s.turn] != *actor.id() {
                    return Err(TallyError::NotYourTurn);
                }
                if !(1..=3).contains(n) {
                    return Err(TallyError::BadNumber);
                }
                s.total += n;
                s.timeouts += u32::from(actor.is_timeout());
                if s.total >= s.target {
                    s.winner = Some(actor.id().clone());
                }
                s.turn = (s.turn + 1) % s.players.len();
                s.turn_started = now;
            }
        }
        Ok(vec![a.clone()])
    }
    fn view(s: &TallyState, _viewer: Option<&PlayerId>) -> TallyState {
        s.clone()
    }
    fn deadline(s: &TallyState) -> Option<Millis> {
        s.winner.is_none().then_some(s.turn_started + TURN_MS)
    }
    fn active_players(s: &TallyState) -> Vec<PlayerId> {
        if s.winner.is_some() {
            vec![]
        } else {
            vec![s.players[s.turn].clone()]
        }
    }
    fn disconnect_grace(_s: &TallyState) -> Option<Millis> {
        Some(2_000)
    }
    fn on_timeout(_s: &TallyState, _p: &PlayerId, _now: Millis) -> Option<TallyAction> {
        Some(TallyAction::Add { n: 1 })
    }
    fn result(s: &TallyState) -> Option<TallyOutcome> {
        s.winner.clone().map(|winner| TallyOutcome { winner })
    }
    fn leave(
        s: &mut TallyState,
        p: &PlayerId,
        rng: &mut GameRng,
        now: Millis,
    ) -> Result<Vec<TallyAction>, TallyError> {
        Self::apply(s, Actor::Player(p), &TallyAction::Resign, rng, now)
    }
    fn team_of(_o: &TallyOptions, _seat: usize) -> Option<u8> {
        None
    }
    fn rule_summary(o: &TallyOptions) -> String {
        format!("{}까지 세기", o.target)
    }
    fn bot_levels() -> &'static [crate::game::BotLevel] {
        &TALLY_BOTS
    }
    /// Level 1 adds 3; level 2 is an engine that always fails.
    fn bot_action(
        _s: &TallyState,
        _p: &PlayerId,
        level: u8,
        _rng: &mut GameRng,
    ) -> Result<TallyAction, crate::game::BotError> {
        match level {
            1 => Ok(TallyAction::Add { n: 3 }),
            _ => Err(crate::game::BotError("고장".into())),
        }
    }
    fn bot_fallback(_s: &TallyState, _p: &PlayerId) -> Option<TallyAction> {
        Some(TallyAction::Resign)
    }
}

static TALLY_BOTS: [crate::game::BotLevel; 2] = [
    crate::game::BotLevel {
        level: 1,
        label: "보통",
    },
    crate::game::BotLevel {
        level: 2,
        label: "고장 난 엔진",
    },
];

const T0: Millis = 1_000_000;

fn lobby() -> (Room<Tally>, PlayerId) {
    Room::create(
        "r1".into(),
        "방장".into(),
        TokenHash::of("host-token"),
        TallyOptions::default(),
        GameRng::seed_from_u64(1),
        T0,
    )
    .unwrap()
}

fn act(
    room: &mut Room<Tally>,
    p: &PlayerId,
    action: serde_json::Value,
    now: Millis,
) -> Result<(), RoomError> {
    room.act(p, typed(action)?, now).map(|_| ())
}

/// The typed action a JSON action names (the HTTP edge's work; the room sees typed actions).
fn typed(action: serde_json::Value) -> Result<RoomAction<Tally>, RoomError> {
    let bad = |e: serde_json::Error| RoomError::BadAction(e.to_string());
    let field = |key: &str| action.get(key).cloned().unwrap_or_default();
    let lobby = match action["type"].as_str().unwrap_or_default() {
        "start" => LobbyAction::Start,
        "leave" => LobbyAction::Leave,
        "addBot" => LobbyAction::AddBot {
            level: serde_json::from_value(field("level")).map_err(bad)?,
        },
        "kick" => LobbyAction::Kick {
            player_id: serde_json::from_value(field("playerId")).map_err(bad)?,
        },
        "moveSeat" => LobbyAction::MoveSeat {
            player_id: serde_json::from_value(field("playerId")).map_err(bad)?,
            seat: serde_json::from_value(field("seat")).map_err(bad)?,
        },
        "setOptions" => LobbyAction::SetOptions {
            options: serde_json::from_value(field("options")).map_err(bad)?,
        },
        _ => {
            return serde_json::from_value(action)
                .map(RoomAction::Game)
                .map_err(bad);
        }
    };
    Ok(RoomAction::Lobby(lobby))
}

fn started() -> (Room<Tally>, PlayerId, PlayerId) {
    let (mut room, host) = lobby();
    let guest = room
        .join("손님".into(), TokenHash::of("guest-token"), T0)
        .unwrap();
    act(&mut room, &host, json!({"type": "start"}), T0).unwrap();
    (room, host, guest)
}

fn to_move(room: &Room<Tally>) -> PlayerId {
    let s = room.game.as_ref().unwrap();
    s.players[s.turn].clone()
}

#[test]
fn the_creator_is_host_in_seat_zero_and_authenticates_by_token() {
    let (room, host) = lobby();
    assert_eq!(room.host, host);
    assert_eq!(room.seats[0].id, host);
    assert_eq!(room.version, 1);
    assert_eq!(room.authenticate(&TokenHash::of("host-token")), Some(&host));
    assert_eq!(room.authenticate(&TokenHash::of("other")), None);
}

#[test]
fn every_accepted_change_bumps_the_version_by_exactly_one() {
    let (mut room, host) = lobby();
    let guest = room.join("손님".into(), TokenHash::of("g"), T0).unwrap();
    assert_eq!(room.version, 2);
    act(
        &mut room,
        &host,
        json!({"type": "moveSeat", "playerId": guest, "seat": 0}),
        T0,
    )
    .unwrap();
    assert_eq!(room.version, 3);
    act(&mut room, &host, json!({"type": "start"}), T0).unwrap();
    assert_eq!(room.version, 4);
    let p = to_move(&room);
    act(&mut room, &p, json!({"type": "add", "n": 2}), T0 + 1).unwrap();
    assert_eq!(room.version, 5);
}

#[test]
fn a_refused_action_leaves_the_room_unchanged() {
    let (mut room, host, guest) = started();
    let waiting = if to_move(&room) == host { guest } else { host };
    let before = room.clone();
    let err = act(&mut room, &waiting, json!({"type": "add", "n": 1}), T0 + 5).unwrap_err();
    assert_eq!(err.code(), "NOT_YOUR_TURN");
    assert_eq!(err.kind(), ErrorKind::Illegal);
    assert_eq!(room, before);
    let err = act(
        &mut room,
        &waiting,
        json!({"type": "add", "n": 1, "extra": true}),
        T0 + 5,
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(room, before);
}

#[test]
fn only_the_host_runs_the_lobby() {
    let (mut room, _host) = lobby();
    let guest = room.join("손님".into(), TokenHash::of("g"), T0).unwrap();
    let before = room.clone();
    assert_eq!(
        act(&mut room, &guest, json!({"type": "start"}), T0),
        Err(RoomError::NotHost)
    );
    assert_eq!(room, before);
}

#[test]
fn joining_a_full_or_started_room_is_refused() {
    let (mut room, host) = lobby();
    room.join("b".into(), TokenHash::of("b"), T0).unwrap();
    room.join("c".into(), TokenHash::of("c"), T0).unwrap();
    assert_eq!(
        room.join("d".into(), TokenHash::of("d"), T0),
        Err(RoomError::RoomFull)
    );
    act(
        &mut room,
        &host,
        json!({"type": "kick", "playerId": "p3"}),
        T0,
    )
    .unwrap();
    act(&mut room, &host, json!({"type": "start"}), T0).unwrap();
    assert_eq!(
        room.join("e".into(), TokenHash::of("e"), T0),
        Err(RoomError::AlreadyStarted)
    );
}

#[test]
fn options_are_validated_by_the_game_and_name_the_field() {
    let (mut room, host) = lobby();
    let err = act(
        &mut room,
        &host,
        json!({"type": "setOptions", "options": {"target": 0}}),
        T0,
    )
    .unwrap_err();
    assert_eq!(err.code(), "INVALID_OPTIONS");
    let RoomError::InvalidOptions(e) = err else {
        panic!()
    };
    assert_eq!(e.field, "target");
    act(
        &mut room,
        &host,
        json!({"type": "setOptions", "options": {"target": 20}}),
        T0,
    )
    .unwrap();
    assert_eq!(room.options.target, 20);
}

#[test]
fn starting_alone_is_refused_and_draws_nothing() {
    let (mut room, host) = lobby();
    let before = room.clone();
    let err = act(&mut room, &host, json!({"type": "start"}), T0).unwrap_err();
    assert_eq!(err.code(), "INVALID_OPTIONS");
    assert_eq!(room, before);
}

#[test]
fn the_host_leaving_the_lobby_hands_the_role_to_the_next_seat() {
    let (mut room, host) = lobby();
    let b = room.join("b".into(), TokenHash::of("b"), T0).unwrap();
    room.join("c".into(), TokenHash::of("c"), T0).unwrap();
    act(&mut room, &host, json!({"type": "leave"}), T0).unwrap();
    assert_eq!(room.host, b);
    assert_eq!(room.seats.len(), 2);
    assert_eq!(room.authenticate(&TokenHash::of("host-token")), None);
}

#[test]
fn leaving_a_running_game_forfeits_it_and_keeps_the_seat() {
    let (mut room, host, guest) = started();
    act(&mut room, &host, json!({"type": "leave"}), T0 + 1).unwrap();
    assert_eq!(room.status(), Status::Finished);
    assert_eq!(room.game.as_ref().unwrap().winner, Some(guest.clone()));
    assert_eq!(room.host, guest);
    assert!(room.seats[0].left);
    assert_eq!(
        act(&mut room, &host, json!({"type": "leave"}), T0 + 2),
        Err(RoomError::NotAPlayer)
    );
}

#[test]
fn catch_up_fires_each_overdue_timeout_at_its_own_deadline() {
    let (mut room, host, guest) = started();
    let presence: Presence = [(host.clone(), T0 + 35_000), (guest.clone(), T0 + 35_000)].into();
    let v = room.version;
    // Three turns of 10 s each have lapsed by T0 + 35 s.
    let events = room.catch_up(T0 + 35_000, &presence);
    assert_eq!(events.len(), 3);
    assert_eq!(room.version, v + 3);
    let s = room.game.as_ref().unwrap();
    assert_eq!((s.total, s.timeouts), (3, 3));
    assert_eq!(
        s.turn_started,
        T0 + 30_000,
        "the third timeout fired at its own deadline"
    );
    assert_eq!(room.due_at(&presence), Some(T0 + 40_000));
    // Nothing more is due: catching up again changes nothing.
    let before = room.clone();
    assert!(room.catch_up(T0 + 35_000, &presence).is_empty());
    assert_eq!(room, before);
}

#[test]
fn a_disconnected_player_gets_a_grace_period_instead_of_the_whole_turn() {
    let (mut room, _, _) = started();
    let mover = to_move(&room);
    let connected: Presence = [(mover.clone(), T0)].into();
    assert_eq!(room.due_at(&connected), Some(T0 + TURN_MS));

    // Joined and last seen a whole presence window before the turn began: gone since T0.
    for m in &mut room.seats {
        m.joined_at = T0 - PRESENCE_WINDOW_MS;
    }
    let gone: Presence = [(mover.clone(), T0 - PRESENCE_WINDOW_MS)].into();
    assert!(!room.is_connected(&mover, &gone, T0 + 1));
    assert_eq!(room.due_at(&gone), Some(T0 + 2_000));
    let events = room.catch_up(T0 + 2_000, &gone);
    assert_eq!(events.len(), 1);
    assert_eq!(room.game.as_ref().unwrap().turn_started, T0 + 2_000);

    // Seen again: the grace is lifted and the normal deadline applies.
    let back: Presence = [(mover, T0 + 2_500)].into();
    let mut fresh = started().0;
    assert_eq!(fresh.due_at(&back), Some(T0 + TURN_MS));
    assert!(fresh.catch_up(T0 + 5_000, &back).is_empty());
}

#[test]
fn a_keyed_answer_is_recalled_per_player_and_forgotten_when_the_player_leaves_the_lobby() {
    let (mut room, host) = lobby();
    let guest = room.join("영희".into(), TokenHash::of("g"), T0).unwrap();
    let answer = |player: &PlayerId, key| Answer {
        player: player.clone(),
        key,
        body: 1,
        version: 2,
    };
    room.remember(answer(&guest, 7));
    assert_eq!(
        room.recall(&guest, 7, 1).unwrap().map(|a| a.version),
        Some(2)
    );
    assert_eq!(
        room.recall(&guest, 7, 2),
        Err(RoomError::IdempotencyKeyReused)
    );
    assert_eq!(room.recall(&host, 7, 1), Ok(None), "keys are per player");
    room.act(&guest, RoomAction::Lobby(LobbyAction::Leave), T0)
        .unwrap();
    room.remember(answer(&host, 8));
    assert_eq!(room.recall(&guest, 7, 1), Ok(None), "a leaver's answers go");
    assert_eq!(room.ledger.answer_count(), 1);
}

#[test]
fn the_next_joiner_of_a_lobby_everyone_left_becomes_its_host() {
    let (mut room, host) = lobby();
    room.act(&host, RoomAction::Lobby(LobbyAction::Leave), T0)
        .unwrap();
    assert!(room.seats.is_empty());
    let joiner = room
        .join("새 방장".into(), TokenHash::of("n"), T0 + 1)
        .unwrap();
    assert_eq!(room.host, joiner);
    room.act(&joiner, RoomAction::Lobby(LobbyAction::Start), T0 + 2)
        .map(|_| ())
        .or_else(|e| match e {
            // Tally needs two players: the point is that the refusal is not NOT_HOST.
            RoomError::InvalidOptions(_) => Ok(()),
            other => Err(other),
        })
        .unwrap();
}

#[test]
fn the_view_shows_players_without_secrets_and_the_rule_summary() {
    let (room, host, _) = started();
    let presence: Presence = [(host.clone(), T0)].into();
    let json = serde_json::to_value(room.view(Some(&host), &presence, T0)).unwrap();
    assert_eq!(json["status"], "playing");
    assert_eq!(json["you"], host.as_str());
    assert_eq!(json["ruleSummary"], "10까지 세기");
    assert_eq!(json["players"][0]["connected"], true);
    // The commitment is the one thing about the generator a running game shows.
    assert_eq!(json["rngCommitment"], room.rng.commitment());
    let reveal = room.rng.reveal();
    let text = json.to_string();
    assert!(!text.contains(&reveal.seed) && !text.contains(&reveal.salt));
    let mut rest = json.clone();
    rest.as_object_mut().unwrap().remove("rngCommitment");
    let text = rest.to_string();
    assert!(!text.contains("token") && !text.contains("rng") && !text.contains("seed"));
}

#[test]
fn a_room_round_trips_through_its_stored_form() {
    let (room, _, _) = started();
    let bytes = postcard::to_allocvec(&room).unwrap();
    let back: Room<Tally> = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(back, room);
}

/// Everyone seen at `now`.
fn all_seen(room: &Room<Tally>, now: Millis) -> Presence {
    room.seats.iter().map(|m| (m.id.clone(), now)).collect()
}

#[test]
fn poll_after_is_soon_in_the_lobby_and_for_a_player_waiting_for_another() {
    let (room, host) = lobby();
    assert_eq!(
        room.poll_after(Some(&host), &all_seen(&room, T0), T0),
        POLL_SOON_MS
    );
    let (room, host, guest) = started();
    let presence = all_seen(&room, T0);
    let mover = to_move(&room);
    let waiting = if mover == host { &guest } else { &host };
    assert_eq!(room.poll_after(Some(waiting), &presence, T0), POLL_SOON_MS);
    assert_eq!(
        room.poll_after(Some(&mover), &presence, T0),
        POLL_AWAITED_MS
    );
    assert_eq!(room.poll_after(None, &presence, T0), POLL_SPECTATOR_MS);
}

#[test]
fn poll_after_never_sleeps_through_a_deadline_and_never_drops_below_the_floor() {
    let (room, host, guest) = started();
    let presence = all_seen(&room, T0);
    let mover = to_move(&room);
    // The turn ends at T0 + TURN_MS: 1.5 s before it, the mover polls just after it.
    let now = T0 + TURN_MS - 1_500;
    assert_eq!(
        room.poll_after(Some(&mover), &presence, now),
        1_500 + AFTER_DEADLINE_MS
    );
    // A moment before it, the floor holds.
    let now = T0 + TURN_MS - 10;
    for who in [&host, &guest] {
        assert_eq!(room.poll_after(Some(who), &presence, now), POLL_MIN_MS);
    }
}

#[test]
fn poll_after_is_rare_once_the_game_is_over() {
    let (mut room, host, guest) = started();
    let mut now = T0;
    while room.status() != Status::Finished {
        now += 1;
        let mover = to_move(&room);
        act(&mut room, &mover, json!({"type": "add", "n": 3}), now).unwrap();
    }
    let presence = all_seen(&room, now);
    for who in [Some(&host), Some(&guest), None] {
        assert_eq!(room.poll_after(who, &presence, now), POLL_FINISHED_MS);
    }
    let view = serde_json::to_value(room.view(Some(&host), &presence, now)).unwrap();
    assert_eq!(view["pollAfterMs"], POLL_FINISHED_MS);
}

#[test]
fn each_catch_up_step_says_whether_a_bot_moved_and_whether_its_engine_failed() {
    for (level, fallback) in [(1, false), (2, true)] {
        let (mut room, host) = lobby();
        act(
            &mut room,
            &host,
            json!({"type": "addBot", "level": level}),
            T0,
        )
        .unwrap();
        act(&mut room, &host, json!({"type": "start"}), T0).unwrap();
        let presence: Presence = [(host.clone(), T0)].into();
        // The host moves first if it is their turn; then the bot's move is due within a think
        // time, and not before.
        if to_move(&room) == host {
            act(&mut room, &host, json!({"type": "add", "n": 1}), T0).unwrap();
        }
        let due = room.due_at(&presence).unwrap();
        assert!((T0 + BOT_THINK_MIN_MS..=T0 + BOT_THINK_MAX_MS).contains(&due));
        assert!(room.play_one(due - 1, &presence).is_none());
        let v = room.version;
        let step = room.play_one(due, &presence).unwrap();
        assert_eq!(step.fired, Fired::Bot { level, fallback });
        assert_eq!(room.version, v + 1);
        let expected = if fallback {
            TallyAction::Resign
        } else {
            TallyAction::Add { n: 3 }
        };
        assert_eq!(step.events, vec![expected]);
        // A person's lapsed turn is a plain timeout.
        if !fallback {
            let due = room.due_at(&presence).unwrap();
            let step = room.play_one(due, &presence).unwrap();
            assert_eq!(step.fired, Fired::Timeout);
        }
    }
}

#[test]
fn a_requests_catch_up_stops_before_a_computer_players_move() {
    let (mut room, host) = lobby();
    act(&mut room, &host, json!({"type": "addBot", "level": 1}), T0).unwrap();
    act(&mut room, &host, json!({"type": "start"}), T0).unwrap();
    let presence: Presence = [(host.clone(), T0)].into();
    if to_move(&room) == host {
        act(&mut room, &host, json!({"type": "add", "n": 1}), T0).unwrap();
    }
    let turn = room.bot_turn(&presence).expect("the bot moves next");
    assert_eq!(turn.version, room.version);
    let long_after = turn.at + 3_600_000;
    // However late the request comes, the search is not its to run: nothing fires, not even the
    // person's timeouts queued behind the bot's move.
    let before = room.clone();
    assert!(room.catch_up(long_after, &presence).is_empty());
    assert!(room == before);
    assert_eq!(room.bot_turn(&presence), Some(turn.clone()));
    // The thinker plays it, and then the timeouts behind it.
    assert!(!room.play_out(long_after, &presence).is_empty());
    assert!(room.version > turn.version + 1);
}
