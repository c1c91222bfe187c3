//! The findings of the outside security review (issue 18), each over real HTTP against the real
//! `madang` binary: the long-poll caps read the decoded query, ids are checked at the edge,
//! connections and bodies are bounded, every refusal is problem+json, the client address comes
//! from trusted proxies only, the dev clock cannot wrap, and every answer carries the hardening
//! headers. No test here waits on a timer of its own: where the server must hold something
//! open, the test checks which answer comes first, or sets the server's timeout low.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support;
use support::{Server, start_server};

/// The `madang` binary on a fresh data directory of this suite's.
fn start(name: &str, env: &[(&str, &str)]) -> Server {
    start_server("edge", name, env)
}

/// Checks a problem+json refusal: status, content type, code, a Korean detail.
fn check_problem(status: u16, content_type: &str, body: &Value, want: u16, code: &str) {
    assert_eq!(status, want, "{body}");
    assert_eq!(content_type, "application/problem+json", "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], want, "{body}");
    let detail = body["detail"].as_str().unwrap();
    assert!(
        detail.chars().any(|c| ('가'..='힣').contains(&c)),
        "{detail}"
    );
}

async fn problem(response: reqwest::Response, want: StatusCode, code: &str) -> Value {
    let status = response.status().as_u16();
    let ct = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    let body: Value = response.json().await.unwrap();
    check_problem(status, &ct, &body, want.as_u16(), code);
    body
}

/// Reads one HTTP/1.1 answer off a raw stream (until the connection closes or the declared
/// body is in): status, content type, body as JSON.
async fn raw_answer(stream: &mut TcpStream) -> (u16, String, Value) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await.unwrap_or(0);
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if body.len() >= length || n == 0 {
                let status = head.split(' ').nth(1).unwrap().parse().unwrap();
                let ct = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-type")
                            .then(|| v.trim().to_owned())
                    })
                    .unwrap_or_default();
                let body = serde_json::from_str(&body[..length]).unwrap_or(Value::Null);
                return (status, ct, body);
            }
        }
        assert!(
            n > 0,
            "closed before an answer: {:?}",
            String::from_utf8_lossy(&buf)
        );
    }
}

async fn create(http: &reqwest::Client, base: &str, game: &str) -> Value {
    let r = http
        .post(format!("{base}/rooms"))
        .json(&json!({"game": game, "name": "방장"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    r.json().await.unwrap()
}

/// The review sent ten `?%73ince=V&wait=3`: the guard read the raw key `%73ince`, the handler
/// the decoded `since`, and all ten were held. Now the cap reads what the handler reads: with
/// two slots per client, the first of three held polls to be answered is the refusal (were the
/// cap walked around, all three would wait out their 25 s and answer 304 first).
#[tokio::test]
async fn long_poll_caps_hold_for_percent_encoded_query_keys() {
    let server = start("polls", &[("MADANG_LIMIT_POLLS_PER_CLIENT", "2")]);
    let http = reqwest::Client::new();
    let created = create(&http, &server.base, "yut").await;
    let room = created["roomId"].as_str().unwrap();
    let version = created["room"]["version"].as_u64().unwrap();
    let url = format!("{}/rooms/{room}?%73ince={version}&%77ait=25", server.base);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..3 {
        let (http, url, tx) = (http.clone(), url.clone(), tx.clone());
        tokio::spawn(async move {
            let _ = tx.send(http.get(&url).send().await.unwrap());
        });
    }
    let first = rx.recv().await.unwrap();
    problem(first, StatusCode::TOO_MANY_REQUESTS, "TOO_MANY_POLLS").await;
}

/// A room id that cannot be one is a 404 before anything else is done (on DynamoDB a 3 KB key
/// used to reach the store and come back 503 with `Retry-After`).
#[tokio::test]
async fn a_malformed_room_id_is_404_on_every_route() {
    let server = start("ids", &[]);
    let http = reqwest::Client::new();
    let long = "A".repeat(3000);
    for id in [long.as_str(), "short", "%FF%FE", "AAAAAAAAAAAAAAAAAAAA%2F"] {
        let base = &server.base;
        for request in [
            http.get(format!("{base}/rooms/{id}")),
            http.get(format!("{base}/rooms/{id}/sgf")),
            http.post(format!("{base}/rooms/{id}/players"))
                .json(&json!({"name": "손님"})),
            http.post(format!("{base}/rooms/{id}/actions"))
                .bearer_auth("x")
                .json(&json!({"action": {"type": "start"}})),
        ] {
            let r = request.send().await.unwrap();
            problem(r, StatusCode::NOT_FOUND, "ROOM_NOT_FOUND").await;
        }
    }
}

/// `Content-Length: 1000000000` used to be read until the 40 s request timeout answered 408.
/// It is refused 413 from the head alone.
#[tokio::test]
async fn a_declared_oversize_body_is_refused_413_before_it_is_read() {
    let server = start("declared", &[]);
    let mut stream = TcpStream::connect(&server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 1000000000\r\n\r\n{",
        )
        .await
        .unwrap();
    let (status, ct, body) = raw_answer(&mut stream).await;
    check_problem(status, &ct, &body, 413, "PAYLOAD_TOO_LARGE");
}

/// A body trickled in (here: never finished) holds its connection no longer than the body
/// deadline, and is answered 408 problem+json. It used to be held for the whole 40 s request
/// timeout: the held long-poll (25 s) beside it would have been answered first.
#[tokio::test]
async fn a_body_that_never_finishes_is_answered_408_at_the_body_deadline() {
    let server = start("trickle", &[("MADANG_BODY_TIMEOUT_MS", "300")]);
    let http = reqwest::Client::new();
    let created = create(&http, &server.base, "yut").await;
    let room = created["roomId"].as_str().unwrap();
    let version = created["room"]["version"].as_u64().unwrap();
    let poll = http
        .get(format!(
            "{}/rooms/{room}?since={version}&wait=25",
            server.base
        ))
        .send();
    let mut stream = TcpStream::connect(&server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"game\"",
        )
        .await
        .unwrap();
    tokio::select! {
        (status, ct, body) = raw_answer(&mut stream) => {
            check_problem(status, &ct, &body, 408, "REQUEST_TIMEOUT");
        }
        answered = poll => panic!("the long-poll was answered first: {answered:?}"),
    }
}

/// hyper's own answer to more than 100 headers was a bare 431 with no body.
#[tokio::test]
async fn more_than_a_hundred_headers_get_a_problem_json_431() {
    let server = start("headers", &[]);
    let mut request = reqwest::Client::new().get(format!("{}/healthz", server.base));
    for i in 0..120 {
        request = request.header(format!("x-h{i}"), "1");
    }
    let r = request.send().await.unwrap();
    problem(
        r,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "HEADERS_TOO_LARGE",
    )
    .await;
}

/// The review held all eight connections of `MADANG_MAX_CONNECTIONS=8` with slow bodies from
/// one address, and `/healthz` waited 39.5 s. Now one address holds at most its cap
/// (`MADANG_MAX_CONNECTIONS_PER_CLIENT`; never over a fair share, `abuse.rs`): its next
/// connection is refused at once, and another address is served.
#[tokio::test]
async fn one_address_cannot_take_every_connection() {
    let server = start(
        "per-client",
        &[
            // Four is within the fair share of 16 (a quarter), so the cap set is the one applied.
            ("MADANG_MAX_CONNECTIONS", "16"),
            ("MADANG_MAX_CONNECTIONS_PER_CLIENT", "4"),
        ],
    );
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(&server.addr).await.unwrap();
        s.write_all(
            b"POST /rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
        slow.push(s);
    }
    // Accepted in the order they connected: the fifth from the same address is over its cap.
    let mut fifth = TcpStream::connect(&server.addr).await.unwrap();
    fifth
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let (status, ct, body) = raw_answer(&mut fifth).await;
    check_problem(status, &ct, &body, 429, "TOO_MANY_CONNECTIONS");
    // Another address (127.0.0.2 is loopback too) is served while the four still hang.
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
    let mut other = socket.connect(server.addr.parse().unwrap()).await.unwrap();
    other
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (status, _, body) = raw_answer(&mut other).await;
    assert_eq!(status, 200, "{body}");
    drop(slow);
}

/// Behind a proxy every client shared the proxy's address, and one budget. With
/// `MADANG_TRUSTED_PROXIES` the client is the right-most `X-Forwarded-For` hop the proxy did not
/// write itself; hops further left are whatever the client claimed, and count for nothing.
#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget() {
    let server = start(
        "proxies",
        &[
            ("MADANG_TRUSTED_PROXIES", "127.0.0.0/8, 10.0.0.0/8"),
            ("MADANG_LIMIT_CREATES_PER_MIN", "2"),
        ],
    );
    let http = reqwest::Client::new();
    let create_as = |xff: &'static str| {
        http.post(format!("{}/rooms", server.base))
            .header("x-forwarded-for", xff)
            .json(&json!({"game": "yut", "name": "방장"}))
            .send()
    };
    assert_eq!(create_as("1.1.1.1").await.unwrap().status(), 201);
    assert_eq!(create_as("1.1.1.1, 10.0.0.7").await.unwrap().status(), 201);
    // A forged hop on the left changes nothing: the client is still 1.1.1.1.
    let third = create_as("6.6.6.6, 1.1.1.1").await.unwrap();
    problem(third, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    // Another client behind the same proxy has its own budget.
    assert_eq!(create_as("2.2.2.2").await.unwrap().status(), 201);
}

/// Without the setting, `X-Forwarded-For` is the client's own claim and is ignored.
#[tokio::test]
async fn without_trusted_proxies_forwarded_for_is_ignored() {
    let server = start("no-proxies", &[("MADANG_LIMIT_CREATES_PER_MIN", "1")]);
    let http = reqwest::Client::new();
    let create_as = |xff: &'static str| {
        http.post(format!("{}/rooms", server.base))
            .header("x-forwarded-for", xff)
            .json(&json!({"game": "yut", "name": "방장"}))
            .send()
    };
    assert_eq!(create_as("1.1.1.1").await.unwrap().status(), 201);
    let second = create_as("2.2.2.2").await.unwrap();
    problem(second, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
}

/// A large `advanceMs` wrapped the clock around to 1970.
#[tokio::test]
async fn the_dev_clock_refuses_a_move_that_would_wrap() {
    let server = start("clock", &[("MADANG_DEV", "1")]);
    let http = reqwest::Client::new();
    let before: Value = http
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let r = http
        .post(format!("{}/dev/clock", server.base))
        .json(&json!({"advanceMs": u64::MAX}))
        .send()
        .await
        .unwrap();
    problem(r, StatusCode::UNPROCESSABLE_ENTITY, "CLOCK_OUT_OF_RANGE").await;
    let after: Value = http
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(after["now"].as_u64().unwrap() >= before["now"].as_u64().unwrap());
}

/// JSON and SGF answers used to carry no `nosniff`, SGF no `Content-Disposition`, and no answer
/// a `Referrer-Policy`. No answer carries CORS headers (the app is same-origin).
#[tokio::test]
async fn every_answer_is_nosniff_no_referrer_and_sgf_is_an_attachment() {
    let server = start("headers-out", &[]);
    let http = reqwest::Client::new();
    let created = create(&http, &server.base, "baduk").await;
    let room = created["roomId"].as_str().unwrap();
    let base = &server.base;
    for (url, status) in [
        (format!("{base}/healthz"), 200),
        (format!("{base}/rooms/{room}"), 200),
        (format!("{base}/rooms/{room}/sgf"), 200),
        (format!("{base}/rooms/nope"), 404),
        (format!("{base}/nowhere"), 404),
        (format!("{base}/openapi.json"), 200),
        (format!("{base}/"), 200),
    ] {
        let r = http
            .get(&url)
            .header("origin", "https://evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "{url}");
        let h = r.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{url}");
        assert_eq!(h["referrer-policy"], "no-referrer", "{url}");
        assert!(!h.contains_key("access-control-allow-origin"), "{url}");
        if url.ends_with("/sgf") {
            assert_eq!(
                h["content-disposition"],
                format!("attachment; filename=\"madang-{room}.sgf\"").as_str()
            );
        }
    }
}

/// A test's room and its players, over HTTP.
struct Play<'a> {
    http: reqwest::Client,
    base: &'a str,
}

impl Play<'_> {
    async fn post(&self, path: &str, token: Option<&str>, body: Value) -> reqwest::Response {
        let mut r = self.http.post(format!("{}{path}", self.base)).json(&body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send().await.unwrap()
    }

    async fn join(&self, room: &str, name: &str, token: Option<&str>) -> reqwest::Response {
        self.post(
            &format!("/rooms/{room}/players"),
            token,
            json!({"name": name}),
        )
        .await
    }

    async fn act(&self, room: &str, token: &str, action: Value) -> reqwest::Response {
        self.post(
            &format!("/rooms/{room}/actions"),
            Some(token),
            json!({"action": action}),
        )
        .await
    }
}

/// `호스트` twice in one room, a joiner between letters, a tag character, a Hangul filler
/// suffix and 30 stacked marks were all accepted.
#[tokio::test]
async fn look_alike_and_taken_names_are_refused() {
    let server = start("names", &[]);
    let play = Play {
        http: reqwest::Client::new(),
        base: &server.base,
    };
    let r = play
        .post("/rooms", None, json!({"game": "yut", "name": "호스트"}))
        .await;
    let created: Value = r.json().await.unwrap();
    let room = created["roomId"].as_str().unwrap();
    let r = play.join(room, "호스트", None).await;
    problem(r, StatusCode::UNPROCESSABLE_ENTITY, "NAME_TAKEN").await;
    let r = play.join(room, "호 스트", None).await;
    problem(r, StatusCode::UNPROCESSABLE_ENTITY, "NAME_TAKEN").await;
    let stacked = format!("a{}", "\u{0301}".repeat(30));
    for name in [
        "호\u{200D}스트",
        "호스트\u{E0041}",
        "호스트\u{3164}",
        stacked.as_str(),
    ] {
        let r = play.join(room, name, None).await;
        problem(r, StatusCode::UNPROCESSABLE_ENTITY, "INVALID_NAME").await;
    }
    let r = play.join(room, "👨\u{200D}👩\u{200D}👧", None).await;
    assert_eq!(r.status(), StatusCode::CREATED);
}

/// A kick barred the kicked player's address: everyone behind the same NAT was refused, the
/// kicked player got back in from another network, and in a rematch lobby (salted anew) the bar
/// was gone. Now it bars the seat's token: another person on the same address joins, the
/// kicked client (still holding its token) is refused here and in the rematch lobby, and the
/// host can lift the bar.
#[tokio::test]
async fn a_kick_bars_the_seat_not_the_address_and_the_host_can_lift_it() {
    let server = start("kicks", &[]);
    let play = Play {
        http: reqwest::Client::new(),
        base: &server.base,
    };
    let created: Value = play
        .post("/rooms", None, json!({"game": "baduk", "name": "방장"}))
        .await
        .json()
        .await
        .unwrap();
    let room = created["roomId"].as_str().unwrap();
    let host = created["token"].as_str().unwrap();
    let pest: Value = play.join(room, "훼방꾼", None).await.json().await.unwrap();
    let pest_token = pest["token"].as_str().unwrap();
    let r = play
        .act(
            room,
            host,
            json!({"type": "kick", "playerId": pest["playerId"]}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    // The kicked seat's token is refused, for acting and for taking another seat.
    let r = play.act(room, pest_token, json!({"type": "leave"})).await;
    problem(r, StatusCode::UNAUTHORIZED, "UNAUTHORIZED").await;
    let r = play.join(room, "새 이름", Some(pest_token)).await;
    problem(r, StatusCode::FORBIDDEN, "KICKED").await;
    // Someone else on the same address (every test client is 127.0.0.1) is welcome.
    let friend: Value = play.join(room, "친구", None).await.json().await.unwrap();
    let friend_token = friend["token"].as_str().unwrap();
    // The game is played out; its rematch lobby keeps the bar.
    assert_eq!(
        play.act(room, host, json!({"type": "start"}))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        play.act(room, host, json!({"type": "resign"}))
            .await
            .status(),
        StatusCode::OK
    );
    let asked: Value = play
        .act(room, friend_token, json!({"type": "rematch"}))
        .await
        .json()
        .await
        .unwrap();
    let lobby = asked["room"]["rematchRoomId"].as_str().unwrap().to_owned();
    let r = play.join(&lobby, "훼방꾼", Some(pest_token)).await;
    problem(r, StatusCode::FORBIDDEN, "KICKED").await;
    // The host lifts it (their token carries over to the rematch lobby): the same client is
    // then refused only because the two seats of 바둑 are taken.
    let r = play
        .act(
            &lobby,
            host,
            json!({"type": "unkick", "playerId": pest["playerId"]}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK, "{:?}", r.text().await);
    let r = play.join(&lobby, "훼방꾼", Some(pest_token)).await;
    problem(r, StatusCode::UNPROCESSABLE_ENTITY, "ROOM_FULL").await;
}

/// `options` was accepted as a positional array, and a key given twice silently kept the last.
#[tokio::test]
async fn options_must_be_an_object_and_keys_are_unique() {
    let server = start("json", &[]);
    let http = reqwest::Client::new();
    let post = |body: &'static str| {
        http.post(format!("{}/rooms", server.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let r = post(r#"{"game":"baduk","name":"방장","options":[9]}"#)
        .await
        .unwrap();
    problem(r, StatusCode::BAD_REQUEST, "MALFORMED").await;
    let r = post(r#"{"game":"baduk","name":"방장","name":"다른 이름"}"#)
        .await
        .unwrap();
    problem(r, StatusCode::BAD_REQUEST, "MALFORMED").await;
    let r = post(r#"{"game":"baduk","name":"방장","options":{"boardSize":9,"boardSize":19}}"#)
        .await
        .unwrap();
    problem(r, StatusCode::BAD_REQUEST, "MALFORMED").await;
    let created: Value = post(r#"{"game":"yut","name":"방장"}"#)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let r = http
        .post(format!(
            "{}/rooms/{}/actions",
            server.base,
            created["roomId"].as_str().unwrap()
        ))
        .bearer_auth(created["token"].as_str().unwrap())
        .json(&json!({"action": {"type": "setOptions", "options": [4]}}))
        .send()
        .await
        .unwrap();
    problem(r, StatusCode::BAD_REQUEST, "MALFORMED").await;
}

/// A join retried after its answer was lost (the JS client retried on 503) took a second,
/// ghost seat. With an `Idempotency-Key` the retry gets the first seat and token.
#[tokio::test]
async fn a_keyed_join_retried_takes_one_seat() {
    let server = start("join-key", &[]);
    let http = reqwest::Client::new();
    let created = create(&http, &server.base, "yut").await;
    let room = created["roomId"].as_str().unwrap();
    let join = || {
        http.post(format!("{}/rooms/{room}/players", server.base))
            .header("idempotency-key", "0123456789abcdef0123456789abcdef")
            .json(&json!({"name": "손님"}))
            .send()
    };
    let first = join().await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    let again = join().await.unwrap();
    assert_eq!(again.status(), StatusCode::CREATED);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["playerId"], first["playerId"]);
    assert_eq!(again["token"], first["token"]);
    assert_eq!(again["room"]["players"].as_array().unwrap().len(), 2);
    // A key too short to stand in for a token's randomness is refused.
    let r = http
        .post(format!("{}/rooms/{room}/players", server.base))
        .header("idempotency-key", "1")
        .json(&json!({"name": "셋째"}))
        .send()
        .await
        .unwrap();
    problem(r, StatusCode::BAD_REQUEST, "MALFORMED").await;
}

/// Logs at `RUST_LOG=trace` carry neither a token nor a room id (only its digest).
#[tokio::test]
async fn trace_logs_carry_no_token_and_no_room_id() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let data = std::env::temp_dir().join(format!("madang-edge-trace-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let log = data.with_extension("log");
    let bin = std::env::var("MADANG_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_madang").into());
    let mut child = Command::new(bin)
        .env("MADANG_ADDR", "127.0.0.1:0")
        .env("MADANG_DATA", &data)
        .env("RUST_LOG", "trace")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // The log lines share stdout with the line that names the address.
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut logged = String::new();
    let base = loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "{logged}");
        if let Some(base) = line.trim().strip_prefix("madang listening on ") {
            break base.to_owned();
        }
        logged.push_str(&line);
    };
    let rest = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut text);
        text
    });
    let http = reqwest::Client::new();
    let created = create(&http, &base, "yut").await;
    let room = created["roomId"].as_str().unwrap();
    let token = created["token"].as_str().unwrap();
    let r = http
        .get(format!("{base}/rooms/{room}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = http
        .post(format!("{base}/rooms/{room}/actions"))
        .bearer_auth(token)
        .json(&json!({"action": {"type": "leave"}}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success() || r.status().is_client_error());
    let _ = child.kill();
    let _ = child.wait();
    let text = logged + &rest.join().unwrap() + &std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_dir_all(&data);
    let _ = std::fs::remove_file(&log);
    assert!(text.contains("done"), "no request lines at all: {text}");
    assert!(!text.contains(token), "a token in the log");
    assert!(!text.contains(room), "a room id in the log");
}

/// JSON answers are gzipped when the client accepts it, against the real binary: a room view
/// comes gzipped with `Vary` and a weak tag that revalidates to a 304 without a body; without
/// gzip in `Accept-Encoding` (or with `q=0`) the same bytes come plain with the strong tag; a
/// small problem stays plain.
#[tokio::test]
async fn json_answers_are_gzipped_when_the_client_accepts_it() {
    use std::io::Read;
    let server = start("gzip", &[]);
    let http = reqwest::Client::new();
    let created = create(&http, &server.base, "yut").await;
    let room = created["roomId"].as_str().unwrap();
    let url = format!("{}/rooms/{room}", server.base);
    let plain = http.get(&url).send().await.unwrap();
    assert_eq!(plain.status(), StatusCode::OK);
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.headers()["vary"], "accept-encoding");
    let strong = plain.headers()["etag"].to_str().unwrap().to_owned();
    let plain = plain.bytes().await.unwrap();
    assert!(
        plain.len() >= 1024,
        "a view worth compressing: {} B",
        plain.len()
    );

    let gzipped = http
        .get(&url)
        .header("accept-encoding", "gzip, deflate, br, zstd")
        .send()
        .await
        .unwrap();
    assert_eq!(gzipped.headers()["content-encoding"], "gzip");
    assert_eq!(gzipped.headers()["vary"], "accept-encoding");
    assert_eq!(gzipped.headers()["content-type"], "application/json");
    let weak = gzipped.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(weak, format!("W/{strong}"));
    let packed = gzipped.bytes().await.unwrap();
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(packed.as_ref())
        .read_to_end(&mut unpacked)
        .unwrap();
    assert_eq!(unpacked, plain, "the same bytes, compressed");
    assert!(
        packed.len() < plain.len(),
        "{} of {} B",
        packed.len(),
        plain.len()
    );

    // The weak tag a browser echoes revalidates; a 304 is never compressed.
    let again = http
        .get(&url)
        .header("accept-encoding", "gzip")
        .header("if-none-match", &weak)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.headers().get("content-encoding").is_none());
    assert_eq!(again.headers()["etag"], weak.as_str());
    assert!(again.bytes().await.unwrap().is_empty());
    // So does the strong one the JS client builds from the version.
    let strong_again = http
        .get(&url)
        .header("if-none-match", &strong)
        .send()
        .await
        .unwrap();
    assert_eq!(strong_again.status(), StatusCode::NOT_MODIFIED);

    let refused = http
        .get(&url)
        .header("accept-encoding", "gzip;q=0, identity")
        .send()
        .await
        .unwrap();
    assert!(refused.headers().get("content-encoding").is_none());
    assert_eq!(refused.bytes().await.unwrap(), plain);

    let missing = http
        .get(format!("{}/rooms/AAAAAAAAAAAAAAAAAAAAAA", server.base))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert!(
        missing.headers().get("content-encoding").is_none(),
        "a small problem stays plain"
    );
    assert_eq!(missing.headers()["vary"], "accept-encoding");
    problem(missing, StatusCode::NOT_FOUND, "ROOM_NOT_FOUND").await;
}

/// The connect-src directive of a page's CSP.
fn connect_src(response: &reqwest::Response) -> String {
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    policy
        .split(';')
        .map(str::trim)
        .find_map(|d| d.strip_prefix("connect-src "))
        .unwrap_or_else(|| panic!("no connect-src in {policy}"))
        .to_owned()
}

/// On AWS the live channel is another origin than the pages (the WebSocket API), and the page's
/// CSP said `connect-src 'self'`: the browser refused the socket and the app only polled. The
/// page now allows the live channel's origin — exactly it, nothing wider — wherever `liveUrl`
/// puts it (here the local server's `MADANG_LIVE_URL`), and a view's `liveUrl` names the same
/// URL. Where the channel is the page's own origin, `'self'` stays all there is.
#[tokio::test]
async fn the_pages_csp_allows_exactly_the_live_channels_origin() {
    let live = "wss://live.example.com:8443/live";
    let server = start("csp-live", &[("MADANG_LIVE_URL", live)]);
    let http = reqwest::Client::new();
    for path in ["/", "/r/AAAAAAAAAAAAAAAAAAAAAA", "/rules/yut"] {
        let page = http
            .get(format!("{}{path}", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(
            connect_src(&page),
            "'self' wss://live.example.com:8443",
            "{path}"
        );
    }
    let created: Value = http
        .post(format!("{}/rooms", server.base))
        .json(&json!({"game": "yut", "name": "방장"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["room"]["liveUrl"], live);

    let same_origin = start("csp-self", &[]);
    let page = http.get(&same_origin.base).send().await.unwrap();
    assert_eq!(connect_src(&page), "'self'");
}

/// A `MADANG_LIVE_URL` that is not a plain ws:// or wss:// URL stops the server at start, with a
/// message naming the variable, rather than serving a CSP or a `liveUrl` built from it.
#[test]
fn a_malformed_live_url_stops_the_server_at_start() {
    let bin = std::env::var("MADANG_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_madang").into());
    let data = std::env::temp_dir().join(format!("madang-edge-bad-live-{}", std::process::id()));
    for bad in [
        "https://x.example/live",
        "ws://x.example; script-src *",
        "ws://*.example/",
    ] {
        let mut child = std::process::Command::new(&bin)
            .env("MADANG_ADDR", "127.0.0.1:0")
            .env("MADANG_DATA", &data)
            .env("MADANG_LIVE_URL", bad)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The line a listening server prints, or nothing once it has exited.
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        if line.contains("listening") {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{bad}: the server started");
        }
        let out = child.wait_with_output().unwrap();
        assert!(!out.status.success(), "{bad}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("MADANG_LIVE_URL"), "{bad}: {said}");
    }
    let _ = std::fs::remove_dir_all(&data);
}

/// A spectator chatted as `호스트` in a room whose host is `호스트`, or as `컴퓨터 1`, and joins
/// compared names only ignoring case and spaces, so `Ｋim` (full width) or `Kіm` (a Cyrillic `і`)
/// joined beside `Kim`. Names are now compared folded (NFKC, then the confusable skeleton), and
/// a spectator may take neither a seated name nor a computer player's: 422 `NAME_TAKEN` with a
/// Korean message, and nothing is posted.
#[tokio::test]
async fn spectators_may_not_take_a_seated_or_bot_name_and_look_alikes_are_one_name() {
    let server = start("folded-names", &[]);
    let play = Play {
        http: reqwest::Client::new(),
        base: &server.base,
    };
    let created: Value = play
        .post("/rooms", None, json!({"game": "yut", "name": "Kim"}))
        .await
        .json()
        .await
        .unwrap();
    let room = created["roomId"].as_str().unwrap();
    let host = created["token"].as_str().unwrap();
    for look_alike in ["Ｋim", "Kіm", "K i m", "KIM"] {
        let r = play.join(room, look_alike, None).await;
        problem(r, StatusCode::UNPROCESSABLE_ENTITY, "NAME_TAKEN").await;
    }
    let r = play.join(room, "철수", None).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = play
        .act(room, host, json!({"type": "addBot", "level": 1}))
        .await;
    assert!(r.status().is_success(), "{:?}", r.text().await);

    let chat = format!("/rooms/{room}/chat");
    let say = |name: &'static str| play.post(&chat, None, json!({"name": name, "text": "안녕"}));
    for taken in [
        "Kim",
        "ｋｉｍ",
        "철 수",
        "컴퓨터 1",
        "컴퓨터 2",
        "컴퓨터 ９",
    ] {
        let body = problem(
            say(taken).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "NAME_TAKEN",
        )
        .await;
        if taken.starts_with("컴퓨터") {
            assert!(
                body["detail"].as_str().unwrap().contains("컴퓨터"),
                "{body}"
            );
        }
    }
    let r = play
        .http
        .get(format!("{}{chat}?after=0", server.base))
        .send()
        .await
        .unwrap();
    let read: Value = r.json().await.unwrap();
    assert_eq!(read["messages"], json!([]), "nothing was posted: {read}");
    assert_eq!(say("구경꾼").await.status(), StatusCode::CREATED);
}
