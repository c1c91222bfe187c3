//! The wire form of `POST /rooms/{id}/actions`, checked once at the edge into an
//! [`ActionRequest`].
//!
//! The body is read in one pass ([`super::strict`]): the envelope borrows the action's text
//! from the body (no copy, no tree). The room's game is known only once the room is loaded, so
//! the edge reads what reads alike for every game — the `type`, a lobby action's fields — and
//! refuses what is no action at all (a key twice anywhere, `options` not an object); a game
//! action, and `setOptions`'s options, stay text until the loaded room's game reads them, once
//! ([`crate::service::action`]).

use std::borrow::Cow;
use std::sync::LazyLock;

use madang_core::PlayerId;
use madang_core::room::{LobbyAction, RoomError, Version};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::strict;
use crate::error::ApiError;
use crate::service::action::bad;
use crate::service::{ActionRequest, LobbyRefusal, SentAction};

/// `POST /rooms/{id}/actions` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ActionBody<'a> {
    /// The version the client acted on; a stale one is refused with 409 and the current room.
    #[serde(default)]
    pub expected_version: Option<Version>,
    /// The action's text, tagged by `type`, as it stands in the body.
    #[serde(borrow)]
    pub action: &'a RawValue,
}

impl<'a> ActionBody<'a> {
    /// The checked request, borrowing the body. A key twice anywhere in the action, or a
    /// `options` that is not an object, is a malformed body (400 `MALFORMED`); an action the
    /// room's game does not accept is refused once that game is known (400 `BAD_ACTION`, in
    /// its words).
    pub fn parse(self) -> Result<ActionRequest<'a>, ApiError> {
        let (kind, action) = parse_action(self.action.get())?;
        Ok(ActionRequest {
            expected_version: self.expected_version,
            kind,
            action,
        })
    }
}

/// What is read of an action first: its `type` (which parser reads the rest) and its
/// `options`, which must be an object whatever the type.
#[derive(Deserialize)]
struct Tag<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    options: Option<&'a RawValue>,
}

/// A key twice anywhere in `text`: a malformed body. Asked of every action the typed reading
/// of the room's game might refuse: that reading comes later, once the room is loaded, and a
/// malformed body is refused before anything else. (A reading that succeeds has seen every key
/// — every action and options type refuses unknown fields — so an action with no key twice is
/// the only kind any game accepts.)
fn twice(text: &str) -> Result<(), ApiError> {
    match strict::from_str::<Walk>(text) {
        Err(e) if strict::is_twice(&e) => Err(malformed(&e)),
        _ => Ok(()),
    }
}

/// Every value of a JSON text, visited and dropped.
struct Walk;

impl<'de> Deserialize<'de> for Walk {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(WalkVisitor)
    }
}

struct WalkVisitor;

impl<'de> serde::de::Visitor<'de> for WalkVisitor {
    type Value = Walk;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Walk, E> {
        Ok(Walk)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Walk, E> {
        Ok(Walk)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Walk, E> {
        Ok(Walk)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Walk, E> {
        Ok(Walk)
    }
    fn visit_str<E>(self, _: &str) -> Result<Walk, E> {
        Ok(Walk)
    }
    fn visit_unit<E>(self) -> Result<Walk, E> {
        Ok(Walk)
    }
    fn visit_none<E>(self) -> Result<Walk, E> {
        Ok(Walk)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Walk, A::Error> {
        while seq.next_element::<Walk>()?.is_some() {}
        Ok(Walk)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Walk, A::Error> {
        while map.next_entry::<Walk, Walk>()?.is_some() {}
        Ok(Walk)
    }
}

/// A refusal of the body as a whole: a key twice is no action at all.
fn malformed(e: &serde_json::Error) -> ApiError {
    ApiError::Unreadable {
        detail: "JSON 본문을 읽을 수 없어요.",
        reason: strict::message(e),
    }
}

/// Checks an action's text: its `type` as sent (for logs, `""` when it has none) and the action
/// as far as it reads alike for every game.
pub fn parse_action(text: &str) -> Result<(Cow<'_, str>, SentAction<'_>), ApiError> {
    let tag: Tag = match strict::from_str(text) {
        Ok(tag) => tag,
        // Not an object, a `type` that is no text, or a key twice: no game's action (the room's
        // game says so in its words), or no action at all.
        Err(_) => {
            twice(text)?;
            return Ok((Cow::Borrowed(""), SentAction::Game(text)));
        }
    };
    if tag.options.is_some_and(|o| !o.get().starts_with('{')) {
        return Err(ApiError::Malformed("options는 객체({…})여야 해요.".into()));
    }
    let kind = tag.kind.unwrap_or_default();
    let action = if lobby_types().iter().any(|t| *t == kind) {
        SentAction::Lobby(lobby(text)?)
    } else {
        twice(text)?;
        SentAction::Game(text)
    };
    Ok((kind, action))
}

/// The `type`s of the lobby's actions (every game has them), in the order of
/// `LobbyActionSchema`: read from its schema once, so the lobby's actions are listed in one
/// place — that enum — for the parser's dispatch, the OpenAPI document and its descriptions.
pub fn lobby_types() -> &'static [String] {
    static TYPES: LazyLock<Vec<String>> =
        LazyLock::new(|| tags_of(schemars::schema_for!(LobbyActionSchema).as_value()));
    &TYPES
}

/// The `type` of each branch of a tagged enum's schema (`oneOf`, each branch's
/// `properties.type.const`), in order.
pub fn tags_of(schema: &serde_json::Value) -> Vec<String> {
    schema["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|branch| branch["properties"]["type"]["const"].as_str())
        .map(str::to_owned)
        .collect()
}

/// A lobby action as sent, read field by field: serde's internally tagged enums ignore unknown
/// fields of unit variants (`{"type":"start","now":true}` would pass), so the fields are
/// checked here, and `options` is kept as its text until each game reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireLobby<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(borrow)]
    options: Option<&'a RawValue>,
    player_id: Option<PlayerId>,
    seat: Option<usize>,
    level: Option<u8>,
}

/// The lobby action `w` describes, with its options (if any) as `options`.
fn shape<O>(w: &WireLobby, options: Option<O>) -> Result<LobbyAction<O>, String> {
    let level = w.level;
    let action = match (w.kind.as_str(), options, w.player_id.clone(), w.seat) {
        ("addBot", None, None, None) => return Ok(LobbyAction::AddBot { level }),
        _ if level.is_some() => return Err("`level`은 addBot에만 쓸 수 있어요.".into()),
        ("setOptions", Some(options), None, None) => LobbyAction::SetOptions { options },
        ("moveSeat", None, Some(player_id), Some(seat)) => {
            LobbyAction::MoveSeat { player_id, seat }
        }
        ("start", None, None, None) => LobbyAction::Start,
        ("leave", None, None, None) => LobbyAction::Leave,
        ("kick", None, Some(player_id), None) => LobbyAction::Kick { player_id },
        ("unkick", None, Some(player_id), None) => LobbyAction::Unkick { player_id },
        ("rematch", None, None, None) => LobbyAction::Rematch,
        (kind, ..) => return Err(format!("`{kind}`에 맞지 않는 필드예요.")),
    };
    Ok(action)
}

/// A lobby action: its fields checked, its options (if any) kept as text for the room's game.
fn lobby(text: &str) -> Result<Result<LobbyAction<&RawValue>, LobbyRefusal<'_>>, ApiError> {
    let wire: WireLobby = match strict::from_str(text) {
        Ok(wire) => wire,
        Err(e) => {
            twice(text)?;
            let why = bad(&e);
            return Ok(Err(LobbyRefusal { options: None, why }));
        }
    };
    // Read for a game only once the room is loaded, but a key twice in them is a malformed body
    // now (words placed within the options, as when each game read them here).
    if let Some(options) = wire.options {
        twice(options.get())?;
    }
    Ok(shape(&wire, wire.options).map_err(|why| LobbyRefusal {
        options: wire.options,
        why: RoomError::BadAction(why),
    }))
}

// The one list of lobby actions (`lobby_types`, the OpenAPI `LobbyAction` and `Action`'s
// description are read from it): a new one is a variant here, its fields in `shape`, and its
// typed form in core's `LobbyAction`. (The doc comment below is the schema's description.)
/// One schema per lobby `type`, exactly the fields [`WireLobby`] accepts for it (schema only).
#[derive(schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "LobbyAction")]
#[allow(dead_code)]
pub(super) enum LobbyActionSchema {
    /// Host: replace the options (the game's options; missing keys take their defaults).
    SetOptions {
        /// The new options.
        options: serde_json::Map<String, serde_json::Value>,
    },
    /// Host: move a player to another seat.
    #[serde(rename_all = "camelCase")]
    MoveSeat {
        /// Who moves.
        player_id: PlayerId,
        /// Target seat, `0..players`.
        seat: usize,
    },
    /// Host: start the game.
    Start {},
    /// Anyone seated: leave the room.
    Leave {},
    /// Host: remove a player from the lobby (their token is barred from joining again).
    #[serde(rename_all = "camelCase")]
    Kick {
        /// Who is removed.
        player_id: PlayerId,
    },
    /// Host: lift a kick's bar.
    #[serde(rename_all = "camelCase")]
    Unkick {
        /// Who was kicked.
        player_id: PlayerId,
    },
    /// Any player of a finished game: play again in a new lobby (한 판 더).
    Rematch {},
    /// Host: fill the next empty seat with a computer player; `kick` removes it again.
    AddBot {
        /// One of the game's `bots.levels` (`GET /games/{kind}`); missing: the game's default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        level: Option<u8>,
    },
}

#[cfg(test)]
mod tests {
    use madang_core::baduk::{Baduk, BadukAction};
    use madang_core::room::RoomAction;
    use madang_core::yut::{self, Phase, Yut, YutOptions};
    use madang_core::{Game, GameRng, Lineup};
    use proptest::prelude::*;

    use super::*;

    fn request(text: &str) -> Result<ActionRequest<'_>, ApiError> {
        let (kind, action) = parse_action(text)?;
        Ok(ActionRequest {
            expected_version: None,
            kind,
            action,
        })
    }

    fn code(e: &ApiError) -> &'static str {
        match e {
            ApiError::Malformed(_) | ApiError::Unreadable { .. } => "MALFORMED",
            _ => "OTHER",
        }
    }

    /// An action's JSON checked at the edge and read by game `G`: the action, or its refusal.
    fn read_by<G: Game>(text: &str) -> Result<RoomAction<G>, RoomError> {
        request(text).unwrap().for_game::<G>()
    }

    #[test]
    fn a_key_twice_or_options_not_an_object_is_malformed_wherever_it_stands() {
        for text in [
            r#"{"type":"THROW","type":"THROW"}"#,
            r#"{"type":"place","x":1,"y":2,"x":1}"#,
            r#"{"type":"setOptions","options":{"chat":"on","chat":"off"}}"#,
            r#"{"type":"setOptions","options":{"timeControl":{"mainSec":60,"mainSec":60}}}"#,
            r#"{"type":"FLY","wings":{"a":1,"a":1}}"#,
            r#"{"type":"kick","playerId":"p2","playerId":"p3"}"#,
            r#"{"type":"setOptions","options":[4]}"#,
            r#"{"type":"THROW","options":5}"#,
        ] {
            let e = request(text).unwrap_err();
            assert_eq!(code(&e), "MALFORMED", "{text}: {e:?}");
        }
    }

    #[test]
    fn an_action_no_game_accepts_is_refused_in_the_rooms_games_words() {
        let fly = r#"{"type":"FLY"}"#;
        // The parser's words are the problem's `reason`; `detail` stays Korean.
        let reason = |e: RoomError| match e {
            RoomError::BadAction(why) => why,
            other => panic!("not BAD_ACTION: {other:?}"),
        };
        let yut = reason(read_by::<Yut>(fly).unwrap_err());
        let baduk = reason(read_by::<Baduk>(fly).unwrap_err());
        assert!(yut.to_string().contains("expected one of `THROW`"), "{yut}");
        assert!(
            baduk.to_string().contains("expected one of `place`"),
            "{baduk}"
        );
        // Another game's action: the room's game refuses its type as it always did.
        let throw = reason(read_by::<Baduk>(r#"{"type":"THROW"}"#).unwrap_err());
        assert_eq!(throw, baduk.replace("`FLY`", "`THROW`"));
        let place = reason(read_by::<Yut>(r#"{"type":"place","x":1,"y":1}"#).unwrap_err());
        assert_eq!(place, yut.replace("`FLY`", "`place`"));
        for text in [
            r#"{"type":"THROW","power":9}"#,
            r#"{"type":"MOVE","throwIndex":"0","from":"home"}"#,
            r#"{"type":"start","now":true}"#,
            r#"{"type":"leave","x":1}"#,
            r#"{"type":"kick","playerId":"p2","why":"x"}"#,
            r#"{"type":"moveSeat","playerId":"p2"}"#,
            r#"{"type":"addBot","level":"x"}"#,
            r#"{"type":"setOptions","options":{"pieces":"x"}}"#,
            r#"{"throwIndex":0}"#,
            "5",
            "null",
            "[]",
        ] {
            for e in [
                read_by::<Yut>(text).map(|_| ()),
                read_by::<Baduk>(text).map(|_| ()),
            ] {
                let e = e.expect_err(text);
                assert!(matches!(e, RoomError::BadAction(_)), "{text}: {e:?}");
                let RoomError::BadAction(why) = &e else {
                    panic!("{text}: {e:?}")
                };
                assert!(!why.contains(" at line "), "{text}: {why}");
                assert!(!e.to_string().is_ascii(), "{text}: {e}");
            }
        }
    }

    #[test]
    fn options_are_read_for_the_rooms_game_and_whole_numbers_read_as_integers() {
        let text = r#"{"type":"setOptions","options":{"boardSize":9.0}}"#;
        let Ok(RoomAction::Lobby(LobbyAction::SetOptions { options })) = read_by::<Baduk>(text)
        else {
            panic!("a 바둑 setOptions")
        };
        assert_eq!(options.board_size, 9);
        assert!(read_by::<Yut>(text).is_err());
        let place = read_by::<Baduk>(r#"{"type":"place","x":4.0,"y":3}"#);
        assert!(matches!(
            place,
            Ok(RoomAction::Game(BadukAction::Place { x: 4, y: 3 }))
        ));
    }

    /// An action the engine made round-trips through the wire: written as the engine writes it,
    /// checked at the edge, read by its game, and refused by the other.
    fn round_trips<G: Game, H: Game>(action: &G::Action) {
        let text = serde_json::to_string(action).unwrap();
        match read_by::<G>(&text) {
            Ok(RoomAction::Game(back)) => assert_eq!(&back, action, "{text}"),
            Ok(RoomAction::Lobby(_)) => panic!("{text}: read as a lobby action"),
            Err(e) => panic!("{text}: {e}"),
        }
        assert!(
            matches!(read_by::<H>(&text), Err(RoomError::BadAction(_))),
            "{text}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn every_action_a_yut_game_makes_round_trips_through_the_wire(seed in any::<u64>()) {
            let lineup = Lineup {
                players: vec![PlayerId::new("p1"), PlayerId::new("p2")],
                host: PlayerId::new("p1"),
            };
            let mut rng = GameRng::seed_from_u64(seed);
            let mut state = Yut::setup(&lineup, &YutOptions::default(), &mut rng, 0).unwrap();
            for step in 0..400u64 {
                if state.phase() == Phase::Finished {
                    break;
                }
                let player = Yut::active_players(&state)[0].clone();
                for m in state.legal_moves() {
                    round_trips::<Yut, Baduk>(&yut::Action::Move { throw_index: m.throw_index, from: m.from });
                    round_trips::<Yut, Baduk>(&yut::Action::Recommend { throw_index: m.throw_index, from: m.from });
                }
                let Some(action) = Yut::on_timeout(&state, &player, step) else { break };
                round_trips::<Yut, Baduk>(&action);
                let bot = Yut::bot_action(&state, &player, 1, &mut rng.clone());
                if let Ok(bot) = bot {
                    round_trips::<Yut, Baduk>(&bot);
                }
                Yut::apply(&mut state, madang_core::Actor::Timeout(&player), &action, &mut rng, step).unwrap();
            }
            for action in [yut::Action::Throw, yut::Action::Concede, yut::Action::TakeControl] {
                round_trips::<Yut, Baduk>(&action);
            }
        }

        #[test]
        fn every_baduk_action_round_trips_through_the_wire(x in -2i32..21, y in -2i32..21, accept: bool) {
            for action in [
                BadukAction::Place { x, y },
                BadukAction::ToggleDead { x, y },
                BadukAction::ToggleSeki { x, y },
                BadukAction::RespondUndo { accept },
                BadukAction::RespondDraw { accept },
                BadukAction::Pass {},
                BadukAction::AgreeScore {},
                BadukAction::ResumePlay {},
                BadukAction::RequestUndo {},
                BadukAction::OfferDraw {},
                BadukAction::CancelOffer {},
                BadukAction::Resign {},
                BadukAction::Timeout {},
            ] {
                round_trips::<Baduk, Yut>(&action);
            }
        }
    }
}
