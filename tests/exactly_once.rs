//! An action lands exactly once, whatever the network does. Shared by the embedded-store suite
//! (`api`) and the DynamoDB suite: each check drives the real router over real HTTP, on a store
//! wrapped in [`FaultyStore`] so that answers are lost and calls fail exactly where a real
//! network would make them fail, and then counts versions and compares answers.

use madang_infra::RoomStore;
use madang_infra::faults::{Fault, FaultyStore, hold};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::games::yut_action;
use crate::{Player, Reply, TestApp};

async fn version(app: &TestApp, room: &str) -> u64 {
    app.room(room, None).await["version"].as_u64().unwrap()
}

/// A lobby action of the host whose save lands while its answer is held; meanwhile another
/// player joins (a second change); then the answer is lost the way an SDK retry loses it (a
/// conflict with the moved-on room) or as a plain failure. The host's action must be answered
/// as landed, with its own version, and must be in the room once: two actions, two changes.
pub async fn check_a_landed_save_whose_answer_was_lost_is_answered_once<S: RoomStore>(
    app: &TestApp,
    store: &FaultyStore<S>,
) {
    for (case, pinned, conflict) in [
        ("conflict after an SDK retry", false, true),
        ("conflict after an SDK retry, pinned", true, true),
        ("lost answer", false, false),
        ("lost answer, pinned", true, false),
    ] {
        let (room, host) = app.create("yut", json!({"turnSeconds": null}), 1).await;
        let before = version(app, &room).await;
        let (held, handle) = hold();
        store.inject(if conflict {
            Fault::LandThenConflict(Some(held))
        } else {
            Fault::LoseAnswer(Some(held))
        });
        let mut body = json!({"action": {"type": "setOptions", "options": {"pieces": 3}}});
        if pinned {
            body["expectedVersion"] = json!(before);
        }
        let acting = app.spawn_send(
            reqwest::Method::POST,
            &format!("/rooms/{room}/actions"),
            &host,
            Some(body),
        );
        handle.landed.await.unwrap();
        // Another change lands while the first answer is still on its way.
        app.join(&room, "늦은 손님").await;
        handle.resume.send(()).unwrap();
        let answer: Reply = acting.await.unwrap();
        assert_eq!(answer.status, StatusCode::OK, "{case}: {:?}", answer.body);
        assert_eq!(
            answer.body["version"],
            before + 1,
            "{case}: its own version"
        );
        assert_eq!(
            version(app, &room).await,
            before + 2,
            "{case}: two actions, two changes"
        );
        let view = app.room(&room, Some(&host)).await;
        assert_eq!(view["options"]["pieces"], 3, "{case}");
    }
}

/// A failed load, a save that fails before it lands, and a save that lands with its answer
/// lost: nothing is applied twice or half, and a client's retry with the same key converges.
pub async fn check_failed_loads_and_saves_change_nothing_and_retries_converge<S: RoomStore>(
    app: &TestApp,
    store: &FaultyStore<S>,
) {
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 2).await;
    let v0 = version(app, &room).await;
    let set =
        |pieces: u32| json!({"action": {"type": "setOptions", "options": {"pieces": pieces}}});

    // The load fails: 503, nothing changed; the retry with the same key acts once.
    store.inject(Fault::FailLoad);
    let failed = app.keyed(&room, &host, "k-load", set(2)).await;
    assert_eq!(
        failed.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{:?}",
        failed.body
    );
    assert_eq!(failed.body["code"], "STORE_UNAVAILABLE");
    assert!(failed.headers.contains_key("retry-after"));
    assert_eq!(
        version(app, &room).await,
        v0,
        "a failed load changes nothing"
    );
    let retried = app.keyed(&room, &host, "k-load", set(2)).await;
    assert_eq!(retried.status, StatusCode::OK);
    assert_eq!(retried.body["version"], v0 + 1);

    // The save fails before landing: the server finds it did not land and saves it again.
    let landed = store.landed_saves();
    store.inject(Fault::FailSave);
    let saved = app.keyed(&room, &host, "k-save", set(3)).await;
    assert_eq!(saved.status, StatusCode::OK, "{:?}", saved.body);
    assert_eq!(saved.body["version"], v0 + 2);
    assert_eq!(store.landed_saves(), landed + 1, "one save landed");

    // The save lands and its answer is lost: recognised as landed, not saved again.
    store.inject(Fault::LoseAnswer(None));
    let lost = app.keyed(&room, &host, "k-lost", set(4)).await;
    assert_eq!(lost.status, StatusCode::OK, "{:?}", lost.body);
    assert_eq!(lost.body["version"], v0 + 3);
    assert_eq!(store.landed_saves(), landed + 2, "one save landed");
    // The client never saw it, retries anyway: the first answer again.
    let again = app.keyed(&room, &host, "k-lost", set(4)).await;
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(again.body["version"], v0 + 3);
    assert_eq!(version(app, &room).await, v0 + 3);
    assert_eq!(
        app.room(&room, None).await["options"]["pieces"],
        4,
        "nothing half-applied"
    );
}

/// A player's keyed answers survive however many keyed answers other players get in between:
/// black's first key is replayed after four of black's own and four of white's.
pub async fn check_keyed_answers_are_kept_per_player(app: &TestApp) {
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack"}),
            3,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    let place = |x: u32, y: u32| json!({"action": {"type": "place", "x": x, "y": y}});
    let first = app.keyed(&room, &black, "b0", place(0, 0)).await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
    let replay = app.keyed(&room, &black, "b0", place(0, 0)).await;
    assert_eq!(replay.headers["idempotent-replayed"], "true");
    assert_eq!(replay.body["version"], first.body["version"]);
    assert_eq!(
        replay.body["events"],
        json!([]),
        "the room shows what happened"
    );
    for i in 1..=4 {
        let w = app
            .keyed(&room, &white, &format!("w{i}"), place(i, 8))
            .await;
        assert_eq!(w.status, StatusCode::OK, "{:?}", w.body);
        if i < 4 {
            let b = app
                .keyed(&room, &black, &format!("b{i}"), place(i, 0))
                .await;
            assert_eq!(b.status, StatusCode::OK, "{:?}", b.body);
        }
    }
    let end = version(app, &room).await;
    // Black's first key, after three more of black's keys and four of white's.
    let late = app.keyed(&room, &black, "b0", place(0, 0)).await;
    assert_eq!(late.status, StatusCode::OK, "{:?}", late.body);
    assert_eq!(late.headers["idempotent-replayed"], "true");
    assert_eq!(late.body["version"], first.body["version"]);
    assert_eq!(version(app, &room).await, end, "nothing acted again");
    // The same key with another body is still refused.
    let reused = app.keyed(&room, &black, "b0", place(5, 5)).await;
    assert_eq!(reused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(reused.body["code"], "IDEMPOTENCY_KEY_REUSED");
}

/// Two identical keyed requests pinned to the same version, sent at once (a double tap, or a
/// retry that overtook its original): one is applied, the other replays it — never a 409.
pub async fn check_keyed_twins_pinned_to_one_version_get_one_answer(app: &TestApp, trials: u32) {
    let (room, host) = app.create("yut", json!({"turnSeconds": null}), 4).await;
    let guest = app.join(&room, "손님").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    for trial in 0..trials {
        let view = app.room(&room, None).await;
        if view["status"] == "finished" {
            break;
        }
        let v = view["version"].as_u64().unwrap();
        let who = if view["state"]["currentPlayer"] == host.id.as_str() {
            &host
        } else {
            &guest
        };
        let mine = app.room(&room, Some(who)).await;
        let body = json!({"expectedVersion": v, "action": yut_action(&mine["state"])});
        let key = format!("twin-{trial}");
        let (a, b) = tokio::join!(
            app.keyed(&room, who, &key, body.clone()),
            app.keyed(&room, who, &key, body.clone())
        );
        assert_eq!(a.status, StatusCode::OK, "trial {trial}: {:?}", a.body);
        assert_eq!(b.status, StatusCode::OK, "trial {trial}: {:?}", b.body);
        assert_eq!(a.body["version"], v + 1);
        assert_eq!(b.body["version"], v + 1);
        let replayed = [&a, &b]
            .iter()
            .filter(|r| r.headers.get("idempotent-replayed").is_some())
            .count();
        assert_eq!(replayed, 1, "trial {trial}: one applied, one replayed");
        assert_eq!(
            version(app, &room).await,
            v + 1,
            "trial {trial}: acted once"
        );
    }
}

/// The only player leaves a lobby; the next joiner becomes its host and can run it.
pub async fn check_a_lobby_everyone_left_gets_the_next_joiner_as_host(app: &TestApp) {
    let (room, first) = app.create("yut", json!({}), 5).await;
    app.act_ok(&room, &first, json!({"type": "leave"})).await;
    let next = app.join(&room, "새 방장").await;
    let view = app.room(&room, Some(&next)).await;
    assert_eq!(view["hostId"], next.id.as_str());
    let other = app.join(&room, "손님").await;
    app.act_ok(
        &room,
        &next,
        json!({"type": "setOptions", "options": {"turnSeconds": null}}),
    )
    .await;
    let started = app.act(&room, &next, json!({"type": "start"})).await;
    assert_eq!(started.status, StatusCode::OK, "{:?}", started.body);
    assert_eq!(app.room(&room, Some(&other)).await["status"], "playing");
}

/// Keys `K1, K1, K2, K3, K4, K1` of one player: versions `v+1, v+1 (replayed), v+2, v+3, v+4,
/// v+1 (replayed)`.
pub async fn check_a_players_fourth_key_back_is_still_replayed(app: &TestApp) {
    let (room, host) = app.create("yut", json!({}), 6).await;
    let v = version(app, &room).await;
    let set =
        |pieces: u32| json!({"action": {"type": "setOptions", "options": {"pieces": pieces}}});
    let mut got = Vec::new();
    for (key, pieces) in [
        ("K1", 2),
        ("K1", 2),
        ("K2", 3),
        ("K3", 4),
        ("K4", 5),
        ("K1", 2),
    ] {
        let r = app.keyed(&room, &host, key, set(pieces)).await;
        assert_eq!(r.status, StatusCode::OK, "{key}: {:?}", r.body);
        got.push((
            r.body["version"].as_u64().unwrap() - v,
            r.headers.contains_key("idempotent-replayed"),
        ));
    }
    assert_eq!(
        got,
        [
            (1, false),
            (1, true),
            (2, false),
            (3, false),
            (4, false),
            (1, true)
        ]
    );
}

/// A read whose catch-up save loses to another player's read sees that player as they are now:
/// the redo works on the fresh room and its presence, never on the stale copy it loaded first.
pub async fn check_presence_after_a_conflict_keeps_the_later_time<S: RoomStore>(
    app: &TestApp,
    store: &FaultyStore<S>,
) {
    let (room, host) = app.create("yut", json!({"turnSeconds": 30}), 7).await;
    let guest = app.join(&room, "손님").await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    // Nobody polls for 50 s: the turn timer is overdue and both look disconnected.
    app.advance_clock(50_000).await;
    let (held, handle) = hold();
    store.inject(Fault::HoldBeforeSave(held));
    let reading = app.spawn_send(reqwest::Method::GET, &format!("/rooms/{room}"), &host, None);
    // The host's read loaded the room (the guest long gone) and is about to save its catch-up.
    handle.landed.await.unwrap();
    // The guest polls meanwhile: seen now, and their read saves the same catch-up first.
    let guest_view = app.room(&room, Some(&guest)).await;
    let v = guest_view["version"].as_u64().unwrap();
    handle.resume.send(()).unwrap();
    let host_view: Reply = reading.await.unwrap();
    assert_eq!(host_view.status, StatusCode::OK, "{:?}", host_view.body);
    assert_eq!(
        host_view.body["version"], v,
        "the catch-up was redone on the fresh room, not applied twice"
    );
    let players = host_view.body["players"].as_array().unwrap();
    let seen = players
        .iter()
        .find(|p| p["id"] == guest.id.as_str())
        .unwrap();
    assert_eq!(
        seen["connected"], true,
        "the guest polled a moment ago: {players:?}"
    );
}

/// Shorthand for the checks that need nothing but an app.
pub async fn check_every_idempotency_case(app: &TestApp) {
    check_keyed_answers_are_kept_per_player(app).await;
    check_a_players_fourth_key_back_is_still_replayed(app).await;
    check_keyed_twins_pinned_to_one_version_get_one_answer(app, 30).await;
    check_a_lobby_everyone_left_gets_the_next_joiner_as_host(app).await;
}

impl TestApp {
    /// Sends a request in a task of its own, so the test can act while it is under way.
    pub fn spawn_send(
        &self,
        method: reqwest::Method,
        path: &str,
        who: &Player,
        body: Option<Value>,
    ) -> tokio::task::JoinHandle<Reply> {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&who.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        tokio::spawn(async move { TestApp::reply(request.send().await.unwrap()).await })
    }

    /// Sends an action body with an `Idempotency-Key`.
    pub async fn keyed(&self, room: &str, who: &Player, key: &str, body: Value) -> Reply {
        let request = self
            .http
            .post(format!("{}/rooms/{room}/actions", self.base))
            .bearer_auth(&who.token)
            .header("idempotency-key", key)
            .json(&body);
        Self::reply(request.send().await.unwrap()).await
    }
}
