//! The production path for real: the `api` and `sweeper` binaries as AWS Lambda runs them,
//! through the Runtime API emulator of `madang_tests::lambda`, on dynalite.
//!
//! Every test starts its own stack: several `api` execution environments (separate processes)
//! and one `sweeper`, on a table of its own, behind a front door that turns each HTTP request
//! into a payload 2.0 event. The game drivers of the other suites run against it unchanged.
//! Needs the binaries (`cargo build -p madang-functions --bins --features dev`) and dynalite
//! (`MADANG_DYNALITE_ENDPOINT`); `./scripts/test` provides both. A missing one fails the test.
//!
//! - this file: whole games of both kinds, the 64-client race, the long-poll wake, the shared
//!   dev clock, the events' shape (base64 bodies, query strings, unmatched routes), short polls;
//! - [`live`]: the live channel through the emulated API Gateway WebSocket API.
//! - [`sweeper_race`]: the `sweeper` binary racing a player's request through the front door;
//! - [`cost_modes`]: what a casual month costs in each polling mode, measured through whole games;
//! - [`cost_live`]: the casual month with live clients, through the real `api`, `live` and
//!   `sweeper` binaries, metered by [`meter_proxy`];
//! - [`faults`]: a DynamoDB fault matrix (throttling, 500s, stalls, lost answers × loads, saves,
//!   chat, the live registry): clean 503s only, nothing applied twice, nothing answered lost;
//! - [`metrics`]: the functions' EMF metric lines, validated and held against what the games did;
//! - [`restore`]: a table with live rooms to JSON and back into a fresh table, and play goes on;
//! - [`origin`]: behind CloudFront on the HTTP API, only requests with the secret origin header;
//! - [`bot_plan`]: the bot function keeps its move as a plan and returns before the move is due;
//!   readers after the deadline and the sweeper land it, once.

mod bot_plan;
mod cost_live;
mod cost_modes;
mod faults;
mod gzip;
mod live;
mod meter_proxy;
mod metrics;
mod origin;
mod push;
mod restore;
mod slow;
mod sweeper_race;

use std::sync::Arc;
use std::time::{Duration, Instant};

use madang_infra::RoomStore;
use madang_infra::emulator::{dynalite, dynalite_store};
use madang_tests::games::{
    check_a_whole_four_player_team_yut_game, check_a_whole_nine_by_nine_baduk_game,
};
use madang_tests::lambda::{FrontDoor, LambdaStack, StackConfig};
use madang_tests::store_proxy::{self, StoreProxy};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A stack on a fresh table.
pub async fn stack(tag: &str, config: StackConfig) -> LambdaStack {
    let store = Arc::new(dynalite_store(tag).await);
    LambdaStack::start(store, &dynalite(), config).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_four_player_team_yut_game_is_played_through_lambda() {
    let stack = stack("l-yut", StackConfig::default()).await;
    check_a_whole_four_player_team_yut_game(&stack.app).await;
    let served: Vec<usize> = stack
        .api_timings()
        .iter()
        .map(|t| t.invocations.len())
        .collect();
    assert!(
        served.iter().all(|&n| n > 0) || served.iter().sum::<usize>() < served.len(),
        "requests spread over the environments: {served:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_nine_by_nine_baduk_game_is_played_through_a_function_url() {
    let config = StackConfig {
        front_door: FrontDoor::FunctionUrl,
        ..StackConfig::default()
    };
    let stack = stack("l-baduk", config).await;
    check_a_whole_nine_by_nine_baduk_game(&stack.app).await;
}

/// The bots' moves are the bot function's: the `api` function invokes it asynchronously from
/// the saves that made a move due, never more often than there are moves (one search per move at
/// most, however many read).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_seat_yut_game_with_three_bots_is_played_to_its_end_through_lambda() {
    let stack = stack("l-yut-bots", StackConfig::default()).await;
    let moves = madang_tests::bots::check_a_four_seat_yut_game_with_three_bots(&stack.app).await;
    stack.bots_done().await;
    let invocations = stack.bot_invocations();
    assert!(
        (1..=moves).contains(&invocations),
        "{invocations} invocations, {moves} moves"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nine_line_baduk_game_against_the_bot_ends_in_an_agreed_score_through_lambda() {
    let stack = stack("l-baduk-bot", StackConfig::default()).await;
    let moves = madang_tests::bots::check_a_nine_line_baduk_game_against_the_bot(&stack.app).await;
    stack.bots_done().await;
    let invocations = stack.bot_invocations();
    // One search per move, and one more for each change the person makes while the bot's move
    // is kept as a plan (in scoring both sides may act: the person's 동의 makes the kept plan
    // stale, and the move is searched again on the new position). This game has at most two.
    assert!(
        (1..=moves + 2).contains(&invocations),
        "{invocations} invocations, {moves} moves"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_baduk_game_is_reviewed_by_the_bot_function_through_lambda() {
    let stack = stack("l-review", StackConfig::default()).await;
    let before = stack.bot_invocations();
    madang_tests::review::check_a_finished_game_is_reviewed_once(&stack.app).await;
    assert_eq!(
        stack.bot_invocations() - before,
        1,
        "one claim, one invocation of the bot function with {{\"review\": true}}"
    );
}

// The 64-client race through the Lambda binaries is `metrics::sixty_four_racing_clients_through_lambda_...`:
// one race shows both that nothing is applied twice and the metric lines' bound under it.

/// One long-poll, woken by another client's action served by another environment. The action is
/// sent only once the poll is proven parked: `proxy` (in front of the stack's dynalite) has
/// answered two reads of the room since the poll went out — the poll's load and the first read
/// of its wait loop, both of the old version — so the answer it gives can only come from
/// waking on the change.
async fn wake_once(
    stack: &LambdaStack,
    proxy: &StoreProxy,
    room: &str,
    token: &str,
    version: u64,
) -> Duration {
    let reads_before = proxy.reads_of(room);
    let url = format!("{}/rooms/{room}?since={version}&wait=20", stack.base());
    let http = stack.app.http.clone();
    let poll = tokio::spawn(async move {
        let r = http.get(url).send().await.unwrap();
        let at = Instant::now();
        (at, r.status(), r.json::<Value>().await.unwrap())
    });
    proxy.wait_for_reads(room, reads_before + 2).await;
    let sent = Instant::now();
    let acted = stack
        .app
        .post(
            &format!("/rooms/{room}/actions"),
            Some(token),
            json!({"action": {"type": "setOptions", "options": {"pieces": 4}}}),
        )
        .await;
    assert_eq!(acted.status, StatusCode::OK, "{:?}", acted.body);
    let (woke, status, body) = poll.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body["version"], acted.body["version"],
        "the poll has the change"
    );
    woke.saturating_duration_since(sent)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_poll_wakes_when_another_environment_saves() {
    let store = Arc::new(dynalite_store("l-wake").await);
    let proxy = store_proxy::start(&dynalite()).await;
    let stack = LambdaStack::start(store, &proxy.url, StackConfig::default()).await;
    let created = stack
        .app
        .post("/rooms", None, json!({"game": "yut", "name": "wake"}))
        .await;
    let room = created.body["roomId"].as_str().unwrap().to_owned();
    let token = created.body["token"].as_str().unwrap().to_owned();
    let first = created.body["room"]["version"].as_u64().unwrap();
    let mut samples = Vec::new();
    for version in first..first + 20 {
        let took = wake_once(&stack, &proxy, &room, &token, version).await;
        // Woke on the change, not at the end of the 20 s wait (a poll that slept through it
        // would answer the change only then): 10 s is a margin, not a speed.
        assert!(took < Duration::from_secs(10), "{took:?}");
        samples.push(took);
    }
    samples.sort();
    println!(
        "long-poll wake through Lambda on dynalite, {} rounds: p50 {:?}, max {:?}",
        samples.len(),
        samples[samples.len() / 2],
        samples[samples.len() - 1]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_poll_is_a_short_poll_when_the_deployment_caps_the_wait_at_zero() {
    let config = StackConfig {
        max_wait_secs: Some(0),
        api_environments: 2,
        ..StackConfig::default()
    };
    let stack = stack("l-cap", config).await;
    let (room, _) = stack.app.create("yut", json!({}), 1).await;
    let started = Instant::now();
    let r = stack
        .app
        .get(&format!("/rooms/{room}?since=1&wait=20"), None)
        .await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "answered at once, not after 20 s"
    );
    assert_eq!(
        r.headers["retry-after"], "1",
        "a lobby is polled every second"
    );
}

/// Spectator reads until every `api` environment has served one; returns the answers.
async fn read_from_every_environment(stack: &LambdaStack, room: &str) -> Vec<Value> {
    let served = |stack: &LambdaStack| -> Vec<usize> {
        stack
            .api_timings()
            .iter()
            .map(|t| t.invocations.len())
            .collect()
    };
    let before = served(stack);
    let mut views = Vec::new();
    for _ in 0..50 {
        let reads: Vec<_> = (0..8)
            .map(|_| {
                let (http, url) = (
                    stack.app.http.clone(),
                    format!("{}/rooms/{room}", stack.base()),
                );
                tokio::spawn(async move { http.get(url).send().await.unwrap() })
            })
            .collect();
        for read in reads {
            let r = read.await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            views.push(r.json::<Value>().await.unwrap());
        }
        let now = served(stack);
        if now.iter().zip(&before).all(|(n, b)| n > b) {
            return views;
        }
    }
    panic!("some environment never served a read: {:?}", served(stack));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dev_clock_is_shared_by_every_environment_and_the_sweeper() {
    let stack = stack("l-clock", StackConfig::default()).await;
    // A lobby: its players' `connected` flags are computed from each environment's clock alone
    // (nothing fires, nothing is written by a spectator's read).
    let (lobby, _) = stack.app.create("yut", json!({}), 3).await;
    stack.app.join(&lobby, "손님").await;
    // A started game whose turn timer (15 s) only the sweeper will see run out.
    let (game, host) = stack.app.create("yut", json!({"turnSeconds": 15}), 5).await;
    stack.app.join(&game, "b").await;
    let started = stack
        .app
        .act_ok(&game, &host, json!({"type": "start"}))
        .await;
    let version = started["version"].as_u64().unwrap();

    // One environment advances the clock by a minute: past the 45 s presence window.
    stack.app.advance_clock(60_000).await;
    for view in read_from_every_environment(&stack, &lobby).await {
        assert!(
            view["players"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["connected"] == false),
            "every environment reads the advanced clock: {}",
            view["players"]
        );
    }
    // The sweeper reads it too: the overdue turn fires with nobody polling.
    let report = stack.sweep().await;
    assert!(
        report["timeoutsFired"].as_u64().unwrap() >= 1,
        "the sweeper fired the overdue turn: {report}"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let stored = stack
        .store
        .load(
            &madang_core::room::RoomId::parse(&game).unwrap(),
            now + 60_000,
        )
        .await
        .unwrap();
    assert!(stored.version > version);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_madang_dev_there_is_no_dev_clock_and_no_seed() {
    let config = StackConfig {
        dev: false,
        api_environments: 1,
        ..StackConfig::default()
    };
    let stack = stack("l-prod", config).await;
    let r = stack
        .app
        .post("/dev/clock", None, json!({"advanceMs": 1000}))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = stack
        .app
        .post(
            "/rooms",
            None,
            json!({"game": "yut", "name": "a", "seed": 1}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        stack.store.clock_offset().await.unwrap() == Some(0),
        "nothing wrote a clock item"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_carry_base64_bodies_query_strings_and_unmatched_routes_like_api_gateway() {
    let stack = stack(
        "l-events",
        StackConfig {
            api_environments: 2,
            ..StackConfig::default()
        },
    )
    .await;
    // A body of a non-text type arrives base64-encoded; the function takes the event apart and
    // refuses the body as not JSON (415 problem+json), creating nothing.
    let refused = stack
        .app
        .http
        .post(format!("{}/rooms", stack.base()))
        .header("content-type", "application/octet-stream")
        .header("cookie", "a=1; b=2")
        .body(r#"{"game":"yut","name":"철수"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        refused.headers()["content-type"],
        "application/problem+json"
    );
    let problem: Value = refused.json().await.unwrap();
    assert_eq!(problem["code"], "UNSUPPORTED_MEDIA_TYPE");
    // A JSON body arrives as text, cookies joined into their own field.
    let created = stack
        .app
        .http
        .post(format!("{}/rooms", stack.base()))
        .header("content-type", "application/json")
        .header("cookie", "a=1; b=2")
        .body(r#"{"game":"yut","name":"철수"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = created.json().await.unwrap();
    let room = created["roomId"].as_str().unwrap();
    // A query string reaches the router as `rawQueryString`.
    let r = stack
        .app
        .get(&format!("/rooms/{room}?since=0&wait=0"), None)
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["etag"], "\"1\"");
    let r = stack
        .app
        .get(&format!("/rooms/{room}?since=1&wait=0"), None)
        .await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
    let r = stack
        .app
        .get(&format!("/rooms/{room}?wait=banana"), None)
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.headers["content-type"], "application/problem+json");
    // Problem answers keep their Korean detail through the payload's JSON.
    let r = stack.app.get("/rooms/nope", None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(
        r.body["detail"]
            .as_str()
            .unwrap()
            .chars()
            .any(|c| ('가'..='힣').contains(&c))
    );
    // `/` does not match `ANY /{proxy+}`: `GET /` has a route of its own to the function (the
    // web client's lobby); any other method there API Gateway answers without the function
    // (raw: the answer is API Gateway's, not one the OpenAPI document describes).
    let r = stack
        .app
        .http
        .get(format!("{}/", stack.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "text/html; charset=utf-8");
    assert_eq!(
        r.text().await.unwrap(),
        include_str!("../../web/index.html")
    );
    let r = stack
        .app
        .http
        .post(format!("{}/", stack.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"message": "Not Found"})
    );
}

/// The web client's files are gzip-compressed when the browser accepts it. That body is binary:
/// `lambda_http` must send it base64-encoded (`isBase64Encoded`, its `Body::Binary` path, taken
/// whenever `Content-Encoding` is set), or API Gateway would mangle it as text. The bytes that
/// come out of the front door must inflate to the very file of the repository.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_files_come_back_gzipped_through_a_base64_body() {
    use std::io::Read as _;
    let stack = stack("l-web", StackConfig::default()).await;
    for (path, source) in [
        ("/app/yut.js", include_str!("../../web/yut.js")),
        ("/app/style.css", include_str!("../../web/style.css")),
        ("/", include_str!("../../web/index.html")),
    ] {
        let r = stack
            .app
            .http
            .get(format!("{}{path}", stack.base()))
            .header("accept-encoding", "gzip, deflate, br")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(r.headers()["content-encoding"], "gzip", "{path}");
        assert_eq!(r.headers()["vary"], "accept-encoding", "{path}");
        let body = r.bytes().await.unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(&body[..])
            .read_to_string(&mut text)
            .expect("the gzip bytes survived the trip");
        assert_eq!(text, source, "{path}");
    }
}

/// A room's link card through the function: the share page, gzipped, carries the tags, and the
/// card's PNG — binary without any `Content-Encoding` — leaves the front door byte for byte (a
/// PNG sent as text would not decode), with its validator and `304`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_card_and_its_png_come_through_lambda_intact() {
    use std::io::Read as _;
    let stack = stack("l-card", StackConfig::default()).await;
    let app = &stack.app;
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 19, "colorAssignment": "hostBlack"}),
            9,
        )
        .await;
    app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    app.act_ok(&room, &black, json!({"type": "place", "x": 3, "y": 3}))
        .await;

    let r = app
        .http
        .get(format!("{}/r/{room}", stack.base()))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    let body = r.bytes().await.unwrap();
    let mut html = String::new();
    flate2::read::GzDecoder::new(&body[..])
        .read_to_string(&mut html)
        .expect("the gzip bytes survived the trip");
    assert!(
        html.contains("<meta property=\"og:description\" content=\"바둑 19줄 · 흑 방장 vs 백 백 · 1수째 두는 중\">"),
        "{html}"
    );
    assert!(html.contains(&format!("/r/{room}/card.png?v=")), "{html}");

    let url = format!("{}/r/{room}/card.png", stack.base());
    let r = app.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "image/png");
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let png = r.bytes().await.unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(&png[..]))
        .read_info()
        .expect("the PNG survived the trip");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).expect("every byte of it");
    assert_eq!((info.width, info.height), (1200, 630));
    let r = app
        .http
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_say_when_to_poll_again_and_a_short_poll_304_needs_only_one_cheap_read() {
    let stack = stack(
        "l-poll",
        StackConfig {
            api_environments: 2,
            ..StackConfig::default()
        },
    )
    .await;
    let (room, host) = stack.app.create("yut", json!({"turnSeconds": 30}), 4).await;
    let guest = stack.app.join(&room, "손님").await;
    let started = stack
        .app
        .act_ok(&room, &host, json!({"type": "start"}))
        .await;
    let view = &started["room"];
    let mover = view["state"]["currentPlayer"].as_str().unwrap();
    let (on_turn, waiting) = if mover == host.id {
        (&host, &guest)
    } else {
        (&guest, &host)
    };
    let version = view["version"].as_u64().unwrap();
    let poll = |who: &madang_tests::Player| {
        stack
            .app
            .http
            .get(format!("{}/rooms/{room}", stack.base()))
            .bearer_auth(&who.token)
            .header("if-none-match", format!("\"{version}\""))
            .send()
    };
    // The player waiting for the other's move polls every second; the one on turn less often.
    let r = poll(waiting).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(r.headers()["retry-after"], "1");
    let r = poll(on_turn).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(r.headers()["retry-after"], "3");
    let full = stack.app.room(&room, Some(waiting)).await;
    assert_eq!(full["pollAfterMs"], 1000);
    // A finished room is polled every few seconds until someone asks for a rematch (the others
    // must follow it soon), then rarely.
    for who in [&host, &guest] {
        if stack.app.room(&room, None).await["status"] != "finished" {
            stack
                .app
                .act_ok(&room, who, json!({"type": "CONCEDE"}))
                .await;
        }
    }
    let end = stack.app.get(&format!("/rooms/{room}"), None).await;
    assert_eq!(end.body["status"], "finished", "{:?}", end.body);
    assert_eq!(end.headers["retry-after"], "3");
    stack
        .app
        .act_ok(&room, &host, json!({"type": "rematch"}))
        .await;
    let named = stack.app.get(&format!("/rooms/{room}"), None).await;
    assert!(named.body["rematchRoomId"].is_string(), "{:?}", named.body);
    assert_eq!(named.headers["retry-after"], "60");
}

/// The emulator's event times (the test-support library has no unit tests of its own).
#[test]
fn event_times_are_formatted_as_api_gateway_and_eventbridge_write_them() {
    use madang_tests::lambda::{clf_time, iso8601};
    assert_eq!(clf_time(1_795_994_524), "29/Nov/2026:23:22:04 +0000");
    assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
}

/// The emulator's `Invoke` endpoint refuses what Lambda would refuse: the bot function's
/// signature is checked, not assumed (the bot games above prove a real invocation passes).
mod invoke_signature {
    use std::time::{Duration, UNIX_EPOCH};

    use axum::http::{HeaderMap, HeaderValue};
    use madang_tests::lambda::{BOT_FUNCTION, amz_date_time, check_signature};

    #[test]
    fn amz_dates_are_read_as_utc() {
        assert_eq!(amz_date_time("19700101T000000Z"), Some(UNIX_EPOCH));
        assert_eq!(
            amz_date_time("20261206T013000Z"),
            Some(UNIX_EPOCH + Duration::from_secs(1_796_520_600))
        );
        assert_eq!(amz_date_time("2026-12-06"), None);
    }

    #[test]
    fn an_unsigned_or_tampered_invoke_is_refused() {
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("127.0.0.1:9"));
        headers.insert("x-amz-invocation-type", HeaderValue::from_static("Event"));
        assert!(check_signature(BOT_FUNCTION, &headers, b"{}").is_err());
        headers.insert("x-amz-date", HeaderValue::from_static("20261206T013000Z"));
        headers.insert(
            "authorization",
            HeaderValue::from_static(
                "AWS4-HMAC-SHA256 Credential=test/20261206/us-east-1/lambda/aws4_request, \
                 SignedHeaders=host;x-amz-date;x-amz-invocation-type, Signature=00",
            ),
        );
        let refused = check_signature(BOT_FUNCTION, &headers, b"{}").unwrap_err();
        assert!(refused.contains("does not match"), "{refused}");
    }
}
