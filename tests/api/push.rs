//! Web Push end to end (DESIGN "Slow 바둑 and 'your turn' notifications"): the real server on
//! the embedded store pushing to the loopback push service of `madang_tests::push_service`, which
//! checks the VAPID JWT (ES256, `aud`, `exp` ≤ 24 h, `k` = `GET /push`'s key) and decrypts every
//! payload with Python's `http_ece`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use madang_core::room::AnyRoom;
use madang_functions::push::{AllowList, Push};
use madang_infra::RoomStore;
use madang_tests::push_service::PushService;
use madang_tests::slow::DAY_MS;
use madang_tests::{Player, TestApp, embedded_store, spawn_app, spawn_app_from, test_limits};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A server whose pushes may go to 127.0.0.1 (named on its allow list, as only tests do).
async fn pushing_app() -> (TestApp, Arc<madang_infra::EmbeddedStore>) {
    let store = Arc::new(embedded_store());
    let push = Push::generate(
        AllowList::parse("127.0.0.1"),
        "mailto:test@example.com".into(),
    )
    .unwrap();
    let app = madang_tests::app_on(store.clone())
        .with_dev(true)
        .with_limits(test_limits())
        .with_push(Some(push));
    (spawn_app_from(app).await, store)
}

async fn subscribe(app: &TestApp, room: &str, who: &Player, sub: Value) -> StatusCode {
    app.send(
        Method::PUT,
        &format!("/rooms/{room}/push"),
        Some(&who.token),
        Some(sub),
    )
    .await
    .status
}

async fn endpoints_stored(store: &madang_infra::EmbeddedStore, room: &str) -> Vec<String> {
    let stored = store
        .load(&madang_core::room::RoomId::parse(room).unwrap(), 0)
        .await
        .unwrap();
    match AnyRoom::decode(&stored.body).unwrap() {
        AnyRoom::Baduk(r) => r.push.iter().map(|s| s.endpoint.clone()).collect(),
        AnyRoom::Yut(r) => r.push.iter().map(|s| s.endpoint.clone()).collect(),
    }
}

#[tokio::test]
async fn without_a_vapid_key_get_push_is_404_push_off() {
    let app = spawn_app().await;
    let r = app.get("/push", None).await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("PUSH_OFF"))
    );
}

#[tokio::test]
async fn a_slow_game_pushes_your_turn_to_the_away_seat_only_time_low_once_forgets_a_410_and_pushes_game_over()
 {
    let (app, store) = pushing_app().await;
    let key = app.get("/push", None).await.body["publicKey"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(key.len(), 87, "base64url of a 65-byte point");
    let service = PushService::start(&key);

    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack",
                   "timeControl": {"kind": "correspondence", "daysPerMove": 1}}),
            21,
        )
        .await;
    let white = app.join(&room, "손자").await;
    for (who, name) in [(&white, "white"), (&black, "black"), (&black, "gone-black")] {
        assert_eq!(
            subscribe(&app, &room, who, service.subscription(name)).await,
            StatusCode::NO_CONTENT
        );
    }
    app.act_ok(&room, &black, json!({"type": "start"})).await;

    // White puts the phone away; a minute later black moves: white is pushed, nobody else.
    app.advance_clock(60_000).await;
    let moved = app
        .act_ok(&room, &black, json!({"type": "place", "x": 2, "y": 2}))
        .await;
    let got = service.wait_for("white", 1).await;
    let push = &got[0];
    assert!(push["ok"] == true, "{push}");
    let payload = &push["payload"];
    assert_eq!(payload["type"], "yourTurn");
    assert_eq!(payload["roomId"], room.as_str());
    assert_eq!(payload["game"], "baduk");
    assert_eq!(payload["version"], moved["version"]);
    assert_eq!(payload["url"], format!("/r/{room}"));
    assert_eq!(payload["title"], "바둑 · 내 차례예요");
    assert_eq!(
        payload["body"], "상대가 기다려요. 남은 시간 1일",
        "{payload}"
    );
    assert_eq!(push["urgency"], "normal");
    let ttl: u64 = push["ttl"].as_str().unwrap().parse().unwrap();
    assert!(
        (DAY_MS / 1000 - 60..=DAY_MS / 1000).contains(&ttl),
        "TTL {ttl}"
    );
    assert!(service.received_at("black").await.is_empty());

    // White answers at once: black's connection is open (it just moved), so no push.
    app.act_ok(&room, &white, json!({"type": "place", "x": 6, "y": 6}))
        .await;
    assert!(
        service.received_at("black").await.is_empty(),
        "no push while the seat is connected"
    );

    // White moves again after black has been away a minute: black's phone gets it, and the
    // subscription whose push service answers 410 is forgotten.
    app.act_ok(&room, &black, json!({"type": "place", "x": 2, "y": 6}))
        .await;
    app.advance_clock(60_000).await;
    app.act_ok(&room, &white, json!({"type": "place", "x": 6, "y": 2}))
        .await;
    let got = service.wait_for("black", 1).await;
    assert_eq!(got[0]["payload"]["type"], "yourTurn");
    assert_eq!(service.wait_for("gone-black", 1).await.len(), 1);
    let start = std::time::Instant::now();
    while endpoints_stored(&store, &room)
        .await
        .contains(&service.endpoint("gone-black"))
    {
        assert!(
            start.elapsed().as_secs() < 10,
            "the 410 subscription is kept"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let kept = endpoints_stored(&store, &room).await;
    assert_eq!(kept, [service.endpoint("white"), service.endpoint("black")]);

    // Black does not move. With less than an hour left the sweeper pushes timeLow, once, with
    // Urgency: high, to black only (white is not awaited).
    app.advance_clock(DAY_MS - 3_600_000 + 60_000).await;
    let low = service.wait_for("black", 2).await;
    assert_eq!(low[1]["payload"]["type"], "timeLow", "{}", low[1]);
    assert_eq!(low[1]["urgency"], "high");
    assert_eq!(
        low[1]["payload"]["title"],
        "바둑 · 시간이 얼마 남지 않았어요"
    );
    assert!(
        low[1]["payload"]["body"]
            .as_str()
            .unwrap()
            .starts_with("남은 시간 59분"),
        "{}",
        low[1]["payload"]
    );
    app.advance_clock(60_000).await;
    app.room(&room, None).await;
    assert_eq!(
        service.received_at("black").await.len(),
        2,
        "timeLow goes once"
    );
    assert_eq!(service.received_at("white").await.len(), 1);

    // Past the deadline the sweeper fires the timeout, and both away seats hear the end.
    app.advance_clock(3_600_000).await;
    let over = service.wait_for("white", 2).await;
    assert_eq!(over[1]["payload"]["type"], "gameOver", "{}", over[1]);
    assert_eq!(over[1]["payload"]["title"], "바둑 · 대국이 끝났어요");
    assert_eq!(over[1]["payload"]["body"], "백 시간승");
    let over = service.wait_for("black", 3).await;
    assert_eq!(over[2]["payload"]["type"], "gameOver");
    assert_eq!(
        service.received_at("gone-black").await.len(),
        1,
        "forgotten"
    );
    for push in service.received().await {
        assert!(
            push["ok"] == true,
            "every push verified and decrypted: {push}"
        );
    }
}

#[tokio::test]
async fn a_subscription_to_a_private_address_or_an_unlisted_host_is_refused_and_never_called() {
    let (app, store) = pushing_app().await;
    let (room, host) = app.create("baduk", json!({}), 3).await;
    let keys = json!({"p256dh": "BLn9b-VR0ca83knDNZ32dCHGyjJp-1riX9ZTN40MqV8K_LpQmLqxC_DoHvqvFXO_nGdAB4W9dogZb_sM-uV4JbY", "auth": "_ordMnz7uTCmrpBTeUV4Bw"});
    for endpoint in [
        "http://10.0.0.1/push/x",
        "https://169.254.169.254/latest/meta-data",
        "http://localhost:9/push/x",
        "https://[::1]/push/x",
        "https://push.example.com/x",
        "http://127.0.0.2/push/x",
    ] {
        let r = app
            .send(
                Method::PUT,
                &format!("/rooms/{room}/push"),
                Some(&host.token),
                Some(json!({"endpoint": endpoint, "keys": keys})),
            )
            .await;
        assert_eq!(
            (r.status, r.body["code"].as_str()),
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                Some("INVALID_SUBSCRIPTION")
            ),
            "{endpoint}: {:?}",
            r.body
        );
    }
    assert!(endpoints_stored(&store, &room).await.is_empty());
    // Bad keys, no token, someone else's endpoint to delete.
    let r = app
        .send(
            Method::PUT,
            &format!("/rooms/{room}/push"),
            Some(&host.token),
            Some(json!({"endpoint": "http://127.0.0.1:9/push/a", "keys": {"p256dh": "AAAA", "auth": "AAAA"}})),
        )
        .await;
    assert_eq!(r.body["code"], "INVALID_SUBSCRIPTION");
    let r = app
        .send(
            Method::PUT,
            &format!("/rooms/{room}/push"),
            None,
            Some(json!({"endpoint": "http://127.0.0.1:9/push/a", "keys": keys})),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    // Three a seat, and one tap to drop one.
    for n in 0..4 {
        let r = app
            .send(
                Method::PUT,
                &format!("/rooms/{room}/push"),
                Some(&host.token),
                Some(json!({"endpoint": format!("http://127.0.0.1:9/push/{n}"), "keys": keys})),
            )
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
    }
    assert_eq!(endpoints_stored(&store, &room).await.len(), 3);
    let r = app
        .send(
            Method::DELETE,
            &format!("/rooms/{room}/push"),
            Some(&host.token),
            Some(json!({"endpoint": "http://127.0.0.1:9/push/3"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        endpoints_stored(&store, &room).await,
        ["http://127.0.0.1:9/push/1", "http://127.0.0.1:9/push/2"]
    );
    // The view shows none of it.
    let view = app.room(&room, Some(&host)).await.to_string();
    assert!(!view.contains("127.0.0.1:9"));
}

#[tokio::test]
async fn starting_a_slow_game_pushes_your_turn_to_the_first_mover_when_away() {
    let (app, _store) = pushing_app().await;
    let key = app.get("/push", None).await.body["publicKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let service = PushService::start(&key);
    // The host plays white: the guest, black, moves first.
    let (room, host) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostWhite",
                   "timeControl": {"kind": "correspondence", "daysPerMove": 2}}),
            8,
        )
        .await;
    let guest = app.join(&room, "손자").await;
    assert_eq!(
        subscribe(&app, &room, &guest, service.subscription("guest")).await,
        StatusCode::NO_CONTENT
    );
    app.advance_clock(60_000).await;
    app.act_ok(&room, &host, json!({"type": "start"})).await;
    let got = service.wait_for("guest", 1).await;
    assert_eq!(got[0]["payload"]["type"], "yourTurn", "{}", got[0]);
    assert_eq!(got[0]["payload"]["body"], "상대가 기다려요. 남은 시간 2일");
}

/// A slow game with `names` subscribed at white's seat (the host is black), started, white away
/// for a minute: black's next move owes white a push to each of them.
async fn slow_game_with_white_subscribed(
    app: &TestApp,
    service: &PushService,
    names: &[&str],
    seed: u64,
) -> (String, Player, Player) {
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack",
                   "timeControl": {"kind": "correspondence", "daysPerMove": 1}}),
            seed,
        )
        .await;
    let white = app.join(&room, "손자").await;
    for name in names {
        assert_eq!(
            subscribe(app, &room, &white, service.subscription(name)).await,
            StatusCode::NO_CONTENT
        );
    }
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    app.advance_clock(60_000).await;
    (room, black, white)
}

async fn public_key(app: &TestApp) -> String {
    app.get("/push", None).await.body["publicKey"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_push_service_that_hangs_on_one_subscription_holds_neither_the_others_nor_the_answer() {
    let (app, store) = pushing_app().await;
    let service = PushService::start(&public_key(&app).await);
    // The hanging one first: sent one after another, the others would wait behind it.
    let (room, black, _white) =
        slow_game_with_white_subscribed(&app, &service, &["stall-white", "white", "white-2"], 31)
            .await;
    // The push service never answers the first (it hangs for a minute): the move's answer
    // still comes, the pushes' bound (5 s, all of them together) being far below this test's
    // patience, which only tells a hang from an answer.
    let moved = tokio::time::timeout(
        Duration::from_secs(40),
        app.act(&room, &black, json!({"type": "place", "x": 2, "y": 2})),
    )
    .await
    .expect("the answer came although a push service hangs");
    assert_eq!(moved.status, StatusCode::OK, "{:?}", moved.body);
    // Both other phones had theirs when the answer came, and the hanging one was asked.
    for name in ["white", "white-2"] {
        let got = service.received_at(name).await;
        assert_eq!(got.len(), 1, "{name}: {got:?}");
        assert_eq!(got[0]["payload"]["type"], "yourTurn");
        assert!(got[0]["ok"] == true, "{}", got[0]);
    }
    let stalled = service.received_at("stall-white").await;
    assert_eq!(stalled.len(), 1, "{stalled:?}");
    assert_eq!(stalled[0]["stalled"], true);
    // A push service that did not answer may answer next time: the subscription is kept.
    assert!(
        endpoints_stored(&store, &room)
            .await
            .contains(&service.endpoint("stall-white"))
    );
}

#[tokio::test]
async fn a_computer_players_move_pushes_your_turn_to_the_away_person() {
    let (app, _store) = pushing_app().await;
    let service = PushService::start(&public_key(&app).await);
    // The person plays black against a computer player; black's phone subscribed.
    let (room, human) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack",
                   "timeControl": {"kind": "correspondence", "daysPerMove": 1}}),
            41,
        )
        .await;
    app.act_ok(&room, &human, json!({"type": "addBot", "level": 1}))
        .await;
    assert_eq!(
        subscribe(&app, &room, &human, service.subscription("human")).await,
        StatusCode::NO_CONTENT
    );
    app.act_ok(&room, &human, json!({"type": "start"})).await;
    let moved = app
        .act_ok(&room, &human, json!({"type": "place", "x": 2, "y": 2}))
        .await;
    // The person closes the page at once: by the time the computer player's move lands (its
    // think time is at least 0.8 s), a minute has passed on the dev clock, so nobody is
    // connected for black when white's move makes it black's turn.
    app.advance_clock(60_000).await;
    let got = service.wait_for("human", 1).await;
    let push = &got[0];
    assert!(push["ok"] == true, "{push}");
    assert_eq!(push["payload"]["type"], "yourTurn", "{push}");
    assert_eq!(push["payload"]["roomId"], room.as_str());
    assert_eq!(push["payload"]["url"], format!("/r/{room}"));
    // The push is about the computer player's move: the version after it, black to move.
    let view = app.room(&room, None).await;
    assert_eq!(view["state"]["turn"], "black", "{}", view["state"]);
    assert_eq!(
        push["payload"]["version"].as_u64().unwrap(),
        moved["version"].as_u64().unwrap() + 1,
        "{push}"
    );
    assert_eq!(view["version"], push["payload"]["version"]);
}

/// Pushes and answer times of one slow 9줄 game, as `docs/cost.md` prices them: 40 moves, each
/// made a minute after the opponent's (so the opponent is away every time), then black resigns.
/// The rules imply one `yourTurn` a move (its opponent became awaited, away) and one `gameOver`
/// (to white, away; black just acted): 41 pushes. Run with `--nocapture` for the figures: the
/// counts, and the move answers' times against the same game with nobody subscribed.
#[tokio::test]
async fn pushes_per_slow_game() {
    const MOVES: usize = 40;
    let (app, _store) = pushing_app().await;
    let service = PushService::start(&public_key(&app).await);
    let mut times = Vec::new();
    for subscribed in [false, true] {
        let (room, black) = app
            .create(
                "baduk",
                json!({"boardSize": 9, "colorAssignment": "hostBlack",
                       "timeControl": {"kind": "correspondence", "daysPerMove": 1}}),
                51,
            )
            .await;
        let white = app.join(&room, "손자").await;
        if subscribed {
            for (who, name) in [(&black, "black"), (&white, "white")] {
                assert_eq!(
                    subscribe(&app, &room, who, service.subscription(name)).await,
                    StatusCode::NO_CONTENT
                );
            }
        }
        app.act_ok(&room, &black, json!({"type": "start"})).await;
        let mut draw = 51;
        let mut took = Vec::new();
        for n in 0..MOVES {
            let who = if n % 2 == 0 { &black } else { &white };
            app.advance_clock(60_000).await;
            // The mover opens the game (as they would to move): its view lists the illegal points.
            let state = app.room(&room, Some(who)).await["state"].clone();
            let action = madang_tests::games::random_place(&state, &mut draw);
            let start = Instant::now();
            app.act_ok(&room, who, action).await;
            took.push(start.elapsed());
        }
        app.advance_clock(60_000).await;
        let end = app.act_ok(&room, &black, json!({"type": "resign"})).await;
        assert_eq!(end["room"]["status"], "finished");
        times.push(took);
    }
    let ms = |d: &[Duration]| {
        let mut v: Vec<f64> = d.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
        v.sort_by(f64::total_cmp);
        (v.iter().sum::<f64>() / v.len() as f64, v[v.len() / 2])
    };
    let pushes = service.received().await;
    let count = |name: &str, kind: &str| {
        pushes
            .iter()
            .filter(|p| p["path"] == format!("/push/{name}") && p["payload"]["type"] == kind)
            .count()
    };
    let (your_turn, game_over) = (
        count("black", "yourTurn") + count("white", "yourTurn"),
        count("black", "gameOver") + count("white", "gameOver"),
    );
    let (bare, pushing) = (ms(&times[0]), ms(&times[1]));
    println!(
        "a slow 9줄 game of {MOVES} moves and a resignation: {} pushes ({your_turn} yourTurn, \
         {game_over} gameOver); a move's answer {:.1} ms mean, {:.1} ms median with its push, \
         {:.1} ms mean, {:.1} ms median without (+{:.1} ms mean, +{:.1} ms median)",
        pushes.len(),
        pushing.0,
        pushing.1,
        bare.0,
        bare.1,
        pushing.0 - bare.0,
        pushing.1 - bare.1,
    );
    assert!(pushes.iter().all(|p| p["ok"] == true), "{pushes:?}");
    assert_eq!(
        (
            count("black", "yourTurn"),
            count("white", "yourTurn"),
            count("black", "gameOver"),
            count("white", "gameOver")
        ),
        (MOVES / 2, MOVES / 2, 0, 1),
        "one yourTurn a move (to the opponent, away), gameOver to white only (black resigned)"
    );
    assert_eq!(pushes.len(), MOVES + 1);
}
