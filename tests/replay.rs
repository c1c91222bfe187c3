//! Replay equals history (DESIGN "Replay", issue 33), shared by the suites of every store: games
//! played over HTTP while a spectator keeps every view it receives, then every
//! `GET /rooms/{id}/at/{n}` held against the view of that version — equal, field for field
//! (`pollAfterMs` aside: when to read again is the read's, not the room's), so nothing hidden
//! at a step shows in its replay.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::games::{random_place, seated_yut, yut_action};
use crate::{Player, TestApp};

/// The spectator's views by version, as they arrived.
#[derive(Default)]
pub struct Seen(BTreeMap<u64, Value>);

impl Seen {
    /// Reads the room as a spectator and keeps the view (a version seen twice must read the
    /// same).
    pub async fn look(&mut self, app: &TestApp, room: &str) -> Value {
        let view = app.room(room, None).await;
        let version = view["version"].as_u64().unwrap();
        let kept = without_timing(&view);
        if let Some(before) = self.0.get(&version) {
            assert_eq!(before, &kept, "version {version} read twice differently");
        }
        self.0.insert(version, kept);
        view
    }
}

fn without_timing(view: &Value) -> Value {
    let mut v = view.clone();
    v.as_object_mut().unwrap().remove("pollAfterMs");
    v
}

/// `GET /rooms/{id}/at/{n}`.
pub async fn at(app: &TestApp, room: &str, n: &str) -> crate::Reply {
    app.get(&format!("/rooms/{room}/at/{n}"), None).await
}

/// Holds every replayed step against the views seen: the versions line up with the steps (the
/// game's start is step 0), every seen version equals its step, and no step before the end
/// shows the generator's seed, a player's legal moves or a hint.
pub async fn check_replay_equals_history(app: &TestApp, room: &str, seen: &Seen) {
    let first = at(app, room, "0").await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
    let of = first.body["replay"]["of"].as_u64().unwrap();
    let start = first.body["version"].as_u64().unwrap();
    let mut compared = 0;
    for n in 0..=of {
        let step = at(app, room, &n.to_string()).await;
        assert_eq!(step.status, StatusCode::OK, "step {n}: {:?}", step.body);
        let mut body = step.body.clone();
        assert_eq!(body["replay"], json!({"at": n, "of": of}));
        assert_eq!(
            body["version"],
            start + n,
            "step {n} is version start + {n}"
        );
        assert_eq!(body["you"], Value::Null, "a replay is a spectator's view");
        let text = body.to_string();
        if n < of || body["status"] != "finished" {
            for hidden in [
                "\"seed\"",
                "\"legalMoves\"",
                "\"hint\"",
                "\"token\"",
                "\"salt\"",
            ] {
                assert!(!text.contains(hidden), "step {n} shows {hidden}: {text}");
            }
        }
        body.as_object_mut().unwrap().remove("replay");
        if let Some(live) = seen.0.get(&(start + n)) {
            assert_eq!(
                &without_timing(&body),
                live,
                "step {n} (version {})",
                start + n
            );
            compared += 1;
        }
    }
    assert!(
        compared as u64 > of / 2,
        "most steps were seen live: {compared} of {of}"
    );
    let past = at(app, room, &(of + 1).to_string()).await;
    assert_eq!(past.status, StatusCode::NOT_FOUND);
    assert_eq!(past.body["code"], "STEP_NOT_FOUND");
    assert!(
        past.body["detail"].as_str().unwrap().contains("수"),
        "{}",
        past.body
    );
    for odd in ["abc", "-1", "+1", "18446744073709551616"] {
        let r = at(app, room, odd).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{odd}");
        assert_eq!(r.body["code"], "STEP_NOT_FOUND", "{odd}");
    }
}

/// A three-player 윷놀이 game with a turn timer: a spectator watches every action; once a
/// timeout fires (the clock moved past the deadline); the game is replayed while in progress,
/// then to its end.
pub async fn check_a_yut_game_replays_as_it_was_seen(app: &TestApp) {
    let (room, players) = seated_yut(app, json!({"turnSeconds": 15}), 33, 3).await;
    let mut seen = Seen::default();
    seen.look(app, &room).await;
    let lobby = app.create("yut", json!({}), 1).await.0;
    let r = at(app, &lobby, "0").await;
    assert_eq!(r.body["code"], "STEP_NOT_FOUND", "a lobby has no steps");
    for i in 0..5_000 {
        let view = seen.look(app, &room).await;
        if view["status"] == "finished" {
            break;
        }
        if i == 30 {
            // Half-way through a game in progress: its replay holds up to now.
            check_replay_equals_history(app, &room, &seen).await;
        }
        if i % 25 == 7 {
            // Nobody acts: the turn times out (the next read fires it at the deadline).
            app.advance_clock(16_000).await;
            continue;
        }
        let current = view["state"]["currentPlayer"].as_str().unwrap();
        let player: &Player = players.iter().find(|p| p.id == current).unwrap();
        let mine = app.room(&room, Some(player)).await;
        app.act_ok(&room, player, yut_action(&mine["state"])).await;
    }
    check_replay_equals_history(app, &room, &seen).await;
    let of = at(app, &room, "0").await.body["replay"]["of"].clone();
    let last = at(app, &room, &of.to_string()).await;
    assert_eq!(last.body["status"], "finished");
    assert!(
        last.body["result"]["rngReveal"]["seed"].is_string(),
        "the seed once it is over"
    );
}

/// A 9줄 바둑 game: stones, an undo asked and granted, passes, scoring and a resignation after
/// play resumed, all replayed as the spectator saw them.
pub async fn check_a_baduk_game_replays_as_it_was_seen(app: &TestApp) {
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            5,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    let mut seen = Seen::default();
    let mut draw = 7;
    for i in 0..40 {
        let view = seen.look(app, &room).await;
        let (me, other) = if view["state"]["turn"] == "black" {
            (&black, &white)
        } else {
            (&white, &black)
        };
        if i == 21 {
            app.act_ok(&room, other, json!({"type": "requestUndo"}))
                .await;
            seen.look(app, &room).await;
            app.act_ok(&room, me, json!({"type": "respondUndo", "accept": true}))
                .await;
            continue;
        }
        let mine = app.room(&room, Some(me)).await;
        app.act_ok(&room, me, random_place(&mine["state"], &mut draw))
            .await;
    }
    let view = seen.look(app, &room).await;
    let first = if view["state"]["turn"] == "black" {
        (&black, &white)
    } else {
        (&white, &black)
    };
    app.act_ok(&room, first.0, json!({"type": "pass"})).await;
    seen.look(app, &room).await;
    app.act_ok(&room, first.1, json!({"type": "pass"})).await;
    let scoring = seen.look(app, &room).await;
    assert_eq!(scoring["state"]["phase"], "scoring");
    app.act_ok(&room, &black, json!({"type": "resumePlay"}))
        .await;
    seen.look(app, &room).await;
    app.act_ok(&room, &white, json!({"type": "resign"})).await;
    assert_eq!(seen.look(app, &room).await["status"], "finished");
    check_replay_equals_history(app, &room, &seen).await;
}
