//! Table talk over HTTP, shared by every suite (the embedded store in `api`, DynamoDB in
//! `dynamodb`): who sees what, random rooms checked against the rights worked out here from the
//! room view alone, chat racing pinned actions, the refusals, and expiry with the room.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::games::{play_out, yut_action};
use crate::{Player, Reply, TestApp};

/// A spectator's name (spectators post without a token, naming themselves).
pub const SPECTATOR: &str = "구경꾼";

/// Posts a chat body as `who` (`None`: a spectator).
pub async fn say(app: &TestApp, room: &str, who: Option<&Player>, body: Value) -> Reply {
    app.post(
        &format!("/rooms/{room}/chat"),
        who.map(|p| p.token.as_str()),
        body,
    )
    .await
}

/// Posts and insists it was accepted; returns the message's `seq`.
pub async fn say_ok(app: &TestApp, room: &str, who: Option<&Player>, body: Value) -> u64 {
    let r = say(app, room, who, body.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{body} → {:?}", r.body);
    r.body["seq"].as_u64().unwrap()
}

/// The messages `who` (`None`: a spectator) reads, from the start.
pub async fn read(app: &TestApp, room: &str, who: Option<&Player>) -> Vec<Value> {
    let r = app
        .get(
            &format!("/rooms/{room}/chat?after=0"),
            who.map(|p| p.token.as_str()),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body["messages"].as_array().unwrap().clone()
}

/// The texts (or emotes) of `messages`, in order.
fn texts(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .map(|m| {
            m["text"]
                .as_str()
                .or(m["emote"].as_str())
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Asserts a refusal: status, code, a Korean detail.
pub fn refused(r: &Reply, status: StatusCode, code: &str) {
    assert_eq!(r.status, status, "{:?}", r.body);
    assert_eq!(r.body["code"], code, "{:?}", r.body);
    let detail = r.body["detail"].as_str().unwrap();
    assert!(
        detail.chars().any(|c| ('가'..='힣').contains(&c)),
        "a Korean detail: {detail}"
    );
}

/// The visibility matrix in a four-player 윷놀이 team game: A and C are 청 (team 0), B and D 홍.
/// Messages from before a viewer joined are theirs to read; another team's never are, not even
/// after the game.
pub async fn check_the_visibility_matrix(app: &TestApp) {
    let (room, a) = app
        .create("yut", json!({"mode": "team", "turnSeconds": null}), 31)
        .await;
    let b = app.join(&room, "홍1").await;
    let c = app.join(&room, "청2").await;
    // In the lobby, before D joins.
    say_ok(app, &room, Some(&a), json!({"text": "다들 안녕"})).await;
    say_ok(
        app,
        &room,
        Some(&a),
        json!({"text": "청 작전", "to": "team"}),
    )
    .await;
    say_ok(
        app,
        &room,
        Some(&b),
        json!({"text": "홍 작전", "to": "team"}),
    )
    .await;
    say_ok(
        app,
        &room,
        None,
        json!({"text": "관전석 훈수", "name": SPECTATOR}),
    )
    .await;
    let d = app.join(&room, "홍2").await;
    app.act_ok(&room, &a, json!({"type": "start"})).await;
    say_ok(
        app,
        &room,
        Some(&d),
        json!({"emote": "윷이야!", "to": "team"}),
    )
    .await;
    say_ok(app, &room, Some(&c), json!({"emote": "ㅋㅋ"})).await;

    let expect = |who: &str| -> Vec<&str> {
        match who {
            "청" => vec!["다들 안녕", "청 작전", "ㅋㅋ"],
            "홍" => vec!["다들 안녕", "홍 작전", "윷이야!", "ㅋㅋ"],
            _ => vec!["다들 안녕", "관전석 훈수", "ㅋㅋ"],
        }
    };
    let check = |phase: &'static str| {
        let (room, a, b, c, d) = (&room, &a, &b, &c, &d);
        async move {
            for (who, team) in [(a, "청"), (c, "청"), (b, "홍"), (d, "홍")] {
                let seen = read(app, room, Some(who)).await;
                assert_eq!(texts(&seen), expect(team), "{phase}: {} ({team})", who.id);
                assert!(seen.iter().all(|m| m["to"] != "spectators"));
            }
            let gallery = read(app, room, None).await;
            assert_eq!(texts(&gallery), expect("관전"), "{phase}: spectator");
            let from_gallery = gallery.iter().find(|m| m["to"] == "spectators").unwrap();
            assert_eq!(from_gallery["from"], Value::Null);
            assert_eq!(from_gallery["name"], SPECTATOR);
        }
    };
    check("during the game").await;
    // Each message says who sent it, to whom, and when.
    let mine = read(app, &room, Some(&a)).await;
    assert_eq!(mine[0]["from"], a.id.as_str());
    assert_eq!(mine[0]["name"], "방장");
    assert_eq!(mine[1]["to"], "team");
    assert!(mine[0]["at"].as_u64().unwrap() > 0);
    play_out(app, &room, &[a.clone(), b.clone(), c.clone(), d.clone()]).await;
    check("after the game").await;
}

/// `to: team` outside a team game, or from a spectator, is 422 `NO_TEAM` and changes nothing.
pub async fn check_team_chat_needs_a_team(app: &TestApp) {
    let (yut, host) = app.create("yut", json!({}), 32).await;
    let (baduk, black) = app.create("baduk", json!({"boardSize": 9}), 33).await;
    for (room, who) in [(&yut, &host), (&baduk, &black)] {
        let r = say(app, room, Some(who), json!({"text": "팀?", "to": "team"})).await;
        refused(&r, StatusCode::UNPROCESSABLE_ENTITY, "NO_TEAM");
        assert!(read(app, room, Some(who)).await.is_empty());
    }
    let (team, _) = app.create("yut", json!({"mode": "team"}), 34).await;
    let r = say(
        app,
        &team,
        None,
        json!({"text": "나도 팀", "to": "team", "name": SPECTATOR}),
    )
    .await;
    refused(&r, StatusCode::UNPROCESSABLE_ENTITY, "NO_TEAM");
}

/// A small deterministic generator for the random rooms (SplitMix64).
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Random rooms (윷놀이 individual and team, 바둑; lobby or playing), random senders (players
/// and the gallery) and audiences: every viewer receives exactly the messages their rights allow,
/// as worked out here from the room view's `players[].team` alone.
pub async fn check_no_viewer_receives_a_message_outside_their_rights(app: &TestApp, rooms: u64) {
    for seed in 0..rooms {
        let mut dice = Dice(seed * 7919 + 1);
        let (game, options, sizes): (&str, Value, &[usize]) = match dice.pick(3) {
            0 => ("yut", json!({"turnSeconds": null}), &[2, 3, 4]),
            1 => ("yut", json!({"mode": "team", "turnSeconds": null}), &[4, 6]),
            _ => ("baduk", json!({"boardSize": 9}), &[2]),
        };
        let n = sizes[dice.pick(sizes.len())];
        let (room, host) = app.create(game, options, 100 + seed).await;
        let mut players = vec![host.clone()];
        for i in 1..n {
            players.push(app.join(&room, &format!("p{i}")).await);
        }
        if dice.pick(2) == 0 {
            app.act_ok(&room, &host, json!({"type": "start"})).await;
        }
        let view = app.room(&room, None).await;
        let team_of: BTreeMap<String, Value> = view["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["id"].as_str().unwrap().to_owned(), p["team"].clone()))
            .collect();
        let team_game = team_of.values().any(|t| !t.is_null());
        // (seq, sender id or None, audience)
        let mut sent: Vec<(u64, Option<String>, &str)> = Vec::new();
        for i in 0..12 {
            // Two seconds apart: nobody runs into the rate (5 per 10 s) by chance.
            app.advance_clock(2_100).await;
            let sender = dice.pick(n + 1);
            let who = players.get(sender);
            let to_team = team_game && who.is_some() && dice.pick(2) == 0;
            let mut body = json!({"text": format!("메시지 {i}")});
            if to_team {
                body["to"] = json!("team");
            }
            if who.is_none() {
                body["name"] = json!(SPECTATOR);
            }
            let seq = say_ok(app, &room, who, body).await;
            let audience = match (who, to_team) {
                (None, _) => "spectators",
                (Some(_), true) => "team",
                (Some(_), false) => "room",
            };
            sent.push((seq, who.map(|p| p.id.clone()), audience));
        }
        let mut viewers: Vec<Option<&Player>> = players.iter().map(Some).collect();
        viewers.push(None);
        for viewer in viewers {
            let rights: Vec<u64> = sent
                .iter()
                .filter(|(_, from, to)| match (*to, viewer) {
                    ("room", _) => true,
                    ("spectators", v) => v.is_none(),
                    (_, None) => false,
                    (_, Some(v)) => {
                        let sender = from.as_ref().unwrap();
                        let mine = &team_of[&v.id];
                        !mine.is_null() && *mine == team_of[sender]
                    }
                })
                .map(|(seq, ..)| *seq)
                .collect();
            let got: Vec<u64> = read(app, &room, viewer)
                .await
                .iter()
                .map(|m| m["seq"].as_u64().unwrap())
                .collect();
            assert_eq!(
                got,
                rights,
                "room {seed} ({game}, {n} players): viewer {:?}",
                viewer.map(|p| &p.id)
            );
        }
    }
}

/// Chat while the player to move acts with pinned versions, as fast as they can: every action
/// lands on the version it pinned (no 409), each bumps the version by exactly one, and the
/// messages all land too (or meet the rate, never a conflict).
pub async fn check_chat_never_moves_the_version_under_pinned_actions(app: &TestApp) {
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 35).await;
    let guest = app.join(&room, "손님").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let players = [host.clone(), guest.clone()];
    let actions = async {
        let mut version = app.room(&room, None).await["version"].as_u64().unwrap();
        for _ in 0..40 {
            let view = app.room(&room, None).await;
            if view["status"] == "finished" {
                break;
            }
            let current = view["state"]["currentPlayer"].as_str().unwrap();
            let player = players.iter().find(|p| p.id == current).unwrap();
            let mine = app.room(&room, Some(player)).await;
            let r = app
                .post(
                    &format!("/rooms/{room}/actions"),
                    Some(&player.token),
                    json!({"expectedVersion": version, "action": yut_action(&mine["state"])}),
                )
                .await;
            assert_eq!(r.status, StatusCode::OK, "pinned action: {:?}", r.body);
            let now = r.body["version"].as_u64().unwrap();
            assert_eq!(now, version + 1, "one action, one version: chat adds none");
            version = now;
        }
        version
    };
    let chatter = async {
        let mut accepted = 0;
        for i in 0..30 {
            let who = &players[i % 2];
            let r = say(app, &room, Some(who), json!({"text": format!("빨리 {i}")})).await;
            match r.status {
                StatusCode::CREATED => accepted += 1,
                StatusCode::TOO_MANY_REQUESTS => {
                    assert_eq!(r.body["code"], "CHAT_RATE_LIMITED")
                }
                other => panic!("chat during the race: {other} {:?}", r.body),
            }
        }
        accepted
    };
    let (version, accepted) = tokio::join!(actions, chatter);
    assert!(accepted >= 10, "both players' first five messages land");
    assert_eq!(
        app.room(&room, None).await["version"].as_u64().unwrap(),
        version,
        "chat changed the version"
    );
    assert_eq!(read(app, &room, Some(&host)).await.len(), accepted);
}

/// Every refusal is problem+json with a stable code and a Korean detail, and changes nothing:
/// the rate, the length, the characters, the emote list, the room option, the mute, a departed
/// or kicked member.
pub async fn check_the_refusals(app: &TestApp) {
    let (room, host) = app.create("yut", json!({}), 36).await;
    let guest = app.join(&room, "손님").await;
    // The rate: five per ten seconds, then 429 with Retry-After.
    for i in 0..5 {
        say_ok(app, &room, Some(&guest), json!({"text": format!("{i}")})).await;
    }
    let r = say(app, &room, Some(&guest), json!({"text": "여섯"})).await;
    refused(&r, StatusCode::TOO_MANY_REQUESTS, "CHAT_RATE_LIMITED");
    let wait: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=10).contains(&wait), "Retry-After {wait}");
    // Another player has their own budget.
    say_ok(app, &room, Some(&host), json!({"emote": "👍"})).await;
    app.advance_clock(10_001).await;
    say_ok(app, &room, Some(&guest), json!({"text": "다시"})).await;
    let before = read(app, &room, Some(&host)).await;
    // Length, characters, emotes, shape.
    let bad: [(Value, StatusCode, &str); 8] = [
        (
            json!({"text": "가".repeat(201)}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_CHAT_TEXT",
        ),
        (
            json!({"text": "   "}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_CHAT_TEXT",
        ),
        (
            json!({"text": "a\u{202E}b"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_CHAT_TEXT",
        ),
        (
            json!({"text": "줄\n바꿈"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_CHAT_TEXT",
        ),
        (
            json!({"text": "a\u{200B}"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "INVALID_CHAT_TEXT",
        ),
        (
            json!({"emote": "잘 두셨습니다"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "UNKNOWN_EMOTE",
        ),
        (
            json!({"text": "둘", "emote": "ㅋㅋ"}),
            StatusCode::BAD_REQUEST,
            "MALFORMED",
        ),
        (
            json!({"text": "이름", "name": "가짜"}),
            StatusCode::BAD_REQUEST,
            "MALFORMED",
        ),
    ];
    for (body, status, code) in bad {
        let r = say(app, &room, Some(&host), body).await;
        refused(&r, status, code);
    }
    say_ok(app, &room, Some(&host), json!({"text": "가".repeat(200)})).await;
    // A spectator needs a name under the name rules; no token and no name is 401.
    refused(
        &say(app, &room, None, json!({"text": "누구?"})).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    );
    refused(
        &say(app, &room, None, json!({"text": "x", "name": "a\u{202E}"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "INVALID_NAME",
    );
    // The mute: the host's alone, of a member, not of themself.
    refused(
        &mute(app, &room, &guest, &host.id, true).await,
        StatusCode::FORBIDDEN,
        "NOT_HOST",
    );
    refused(
        &mute(app, &room, &host, &host.id, true).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "CANNOT_MUTE_SELF",
    );
    refused(
        &mute(app, &room, &host, "p99", true).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "UNKNOWN_PLAYER",
    );
    let r = mute(app, &room, &host, &guest.id, true).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["muted"], json!([guest.id]));
    app.advance_clock(10_001).await;
    refused(
        &say(app, &room, Some(&guest), json!({"emote": "ㅋㅋ"})).await,
        StatusCode::FORBIDDEN,
        "CHAT_MUTED",
    );
    let r = mute(app, &room, &host, &guest.id, false).await;
    assert_eq!(r.body["muted"], json!([]));
    say_ok(app, &room, Some(&guest), json!({"emote": "ㅋㅋ"})).await;
    // The room option: emotes only, then off.
    app.act_ok(
        &room,
        &host,
        json!({"type": "setOptions", "options": {"chat": "emotes"}}),
    )
    .await;
    refused(
        &say(app, &room, Some(&host), json!({"text": "글"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "CHAT_EMOTES_ONLY",
    );
    say_ok(app, &room, Some(&host), json!({"emote": "잘했다!"})).await;
    app.act_ok(
        &room,
        &host,
        json!({"type": "setOptions", "options": {"chat": "off"}}),
    )
    .await;
    refused(
        &say(app, &room, Some(&host), json!({"emote": "ㅋㅋ"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "CHAT_OFF",
    );
    app.act_ok(
        &room,
        &host,
        json!({"type": "setOptions", "options": {"chat": "on"}}),
    )
    .await;
    // Departed and kicked members cannot post: their tokens no longer count.
    let leaver = app.join(&room, "나갈래").await;
    app.act_ok(&room, &leaver, json!({"type": "leave"})).await;
    refused(
        &say(app, &room, Some(&leaver), json!({"text": "아직 있어"})).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    );
    let kicked = app.join(&room, "쫓겨날래").await;
    app.act_ok(&room, &host, json!({"type": "kick", "playerId": kicked.id}))
        .await;
    refused(
        &say(app, &room, Some(&kicked), json!({"text": "왜요"})).await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    );
    // None of the refusals left a message; chat moved no version (options, joins and leaves
    // did, by their own actions).
    let after = read(app, &room, Some(&host)).await;
    let new: Vec<String> = texts(&after[before.len()..]);
    assert_eq!(new, ["가".repeat(200), "ㅋㅋ".into(), "잘했다!".into()]);
}

/// The host's mute of `target` (or unmute).
async fn mute(app: &TestApp, room: &str, who: &Player, target: &str, muted: bool) -> Reply {
    app.post(
        &format!("/rooms/{room}/chat/mute"),
        Some(who.token.as_str()),
        json!({"playerId": target, "muted": muted}),
    )
    .await
}

/// The poll: `after` returns only what is newer, the ETag names the newest, and 304 answers an
/// `If-None-Match` that names it.
pub async fn check_the_poll(app: &TestApp) {
    let (room, host) = app.create("baduk", json!({"boardSize": 9}), 37).await;
    let first = say_ok(app, &room, Some(&host), json!({"text": "하나"})).await;
    let second = say_ok(app, &room, Some(&host), json!({"emote": "잘 부탁드립니다"})).await;
    assert_eq!(second, first + 1);
    let path = format!("/rooms/{room}/chat?after={first}");
    let r = app.get(&path, Some(&host.token)).await;
    assert_eq!(
        texts(r.body["messages"].as_array().unwrap()),
        ["잘 부탁드립니다"]
    );
    let tag = r.headers["etag"].to_str().unwrap().to_owned();
    assert_eq!(tag, format!("\"{second}\""));
    let response = app
        .http
        .get(format!("{}{path}", app.base))
        .bearer_auth(&host.token)
        .header("If-None-Match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
    // Nothing newer: an empty list tagged with `after`.
    let r = app
        .get(&format!("/rooms/{room}/chat?after={second}"), None)
        .await;
    assert_eq!(r.body["messages"], json!([]));
    assert_eq!(r.headers["etag"].to_str().unwrap(), format!("\"{second}\""));
    // The game's schema publishes the emotes.
    let schema = app.get("/games/baduk", None).await;
    let emotes = schema.body["chat"]["emotes"].as_array().unwrap();
    assert!(emotes.contains(&json!("잘 부탁드립니다")));
    assert!(!emotes.contains(&json!("윷이야!")));
}

/// Chat expires with its room: once the room is gone, so is its chat, for reads and posts.
pub async fn check_chat_expires_with_the_room(app: &TestApp) -> String {
    let (room, host) = app.create("yut", json!({}), 38).await;
    say_ok(app, &room, Some(&host), json!({"text": "곧 사라질 말"})).await;
    assert_eq!(read(app, &room, None).await.len(), 1);
    // A lobby nobody starts is kept a day. DynamoDB keeps the expiry in whole seconds, rounded
    // up, so step past the day by more than that grain.
    app.advance_clock(24 * 3_600 * 1_000 + 2_000).await;
    for r in [
        app.get(&format!("/rooms/{room}/chat"), None).await,
        say(app, &room, Some(&host), json!({"text": "아직?"})).await,
    ] {
        refused(&r, StatusCode::NOT_FOUND, "ROOM_NOT_FOUND");
    }
    room
}

/// Mutes go with their members: a host looping join, mute, kick (or add-bot, kick) leaves one
/// mute at most — of a member still present — however long the loop runs; a member who left a
/// running game, or a bot, cannot be muted (`UNKNOWN_PLAYER`); and a mute of a member who
/// leaves is forgotten.
pub async fn check_mutes_go_with_their_members(app: &TestApp) {
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 46).await;
    for i in 0..30 {
        let guest = app.join(&room, &format!("손님{i}")).await;
        // The host's mutes count against their own chat rate (five per ten seconds).
        app.advance_clock(2_100).await;
        let r = mute(app, &room, &host, &guest.id, true).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        assert_eq!(
            r.body["muted"],
            json!([guest.id]),
            "loop {i}: only the present member is muted"
        );
        app.act_ok(&room, &host, json!({"type": "kick", "playerId": guest.id}))
            .await;
    }
    let bot = app.act_ok(&room, &host, json!({"type": "addBot"})).await;
    let bot_id = bot["room"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["bot"] == true)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.advance_clock(2_100).await;
    refused(
        &mute(app, &room, &host, &bot_id, true).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "UNKNOWN_PLAYER",
    );
    app.act_ok(&room, &host, json!({"type": "kick", "playerId": bot_id}))
        .await;
    // A member who leaves a running game: muted while there, forgotten once gone, and then
    // unmutable.
    let guest = app.join(&room, "끝까지").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    app.advance_clock(2_100).await;
    let r = mute(app, &room, &host, &guest.id, true).await;
    assert_eq!(r.body["muted"], json!([guest.id]));
    app.act_ok(&room, &guest, json!({"type": "leave"})).await;
    app.advance_clock(2_100).await;
    refused(
        &mute(app, &room, &host, &guest.id, false).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "UNKNOWN_PLAYER",
    );
    say_ok(app, &room, Some(&host), json!({"text": "다 갔네"})).await;
}

/// What a check of chat's expiry reads beside HTTP: the record's expiry, the room's.
pub trait ChatExpiries {
    /// The expiry of the newest chat record of `room` and the room's own (epoch ms).
    fn expiries(&self, room: &str) -> impl std::future::Future<Output = (u64, u64)> + Send;
}

impl<S: madang_infra::RoomStore + madang_infra::ChatStore> ChatExpiries for S {
    async fn expiries(&self, room: &str) -> (u64, u64) {
        let room = &madang_core::room::RoomId::parse(room).expect("a room id");
        let chat = self.chat_latest(room).await.unwrap().unwrap().expires_at;
        let stored = self.peek(room, 0).await.unwrap();
        (chat, stored.expires_at)
    }
}

/// Chat expires with its room plus a short grace — not a month after a day's lobby — and a log
/// that expired while its room lived on (a game started, then went on without chat) goes on
/// with numbers above every one it had: a client's `after` never skips a new message, and the
/// expired messages are not served.
pub async fn check_chat_expires_with_its_room_plus_a_grace(
    app: &TestApp,
    store: &impl ChatExpiries,
) {
    use madang_functions::service::chat::CHAT_GRACE_MS;
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 47).await;
    let guest = app.join(&room, "손님").await;
    let first = say_ok(app, &room, Some(&host), json!({"text": "로비에서"})).await;
    assert_eq!(first, 1);
    let (chat, room_expires) = store.expiries(&room).await;
    // DynamoDB keeps whole seconds, rounded up.
    assert!(
        chat <= (room_expires + CHAT_GRACE_MS).next_multiple_of(1000),
        "the lobby's chat expires at {chat}, its room at {room_expires}"
    );
    // The game starts (the room now lives a month past its last change, or a week once the
    // game is over — here it ends as nobody plays); a day and the grace later the lobby's chat
    // has expired, the room has not.
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    app.advance_clock(24 * 3_600 * 1_000 + CHAT_GRACE_MS + 2_000)
        .await;
    assert_ne!(app.room(&room, None).await["status"], "lobby");
    assert!(
        read(app, &room, Some(&guest)).await.is_empty(),
        "expired chat is not served"
    );
    let next = say_ok(app, &room, Some(&guest), json!({"text": "게임 중에"})).await;
    assert!(next > first, "numbers only grow: {next} after {first}");
    let r = app
        .get(
            &format!("/rooms/{room}/chat?after={first}"),
            Some(&host.token),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["messages"][0]["seq"], next);
    let (chat, room_expires) = store.expiries(&room).await;
    assert!(chat <= (room_expires + CHAT_GRACE_MS).next_multiple_of(1000));
}
