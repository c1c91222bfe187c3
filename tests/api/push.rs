//! Web Push end to end (DESIGN "Slow 바둑 and 'your turn' notifications"): the real server on
//! the embedded store pushing to the loopback push service of `madang_tests::push_service`, which
//! checks the VAPID JWT (ES256, `aud`, `exp` ≤ 24 h, `k` = `GET /push`'s key) and decrypts every
//! payload with Python's `http_ece`.

use std::sync::Arc;

use madang_core::room::AnyRoom;
use madang_functions::App;
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
    let app = App::new(store.clone())
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
    let stored = store.load(room, 0).await.unwrap();
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
