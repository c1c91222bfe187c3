//! Computer players think once, off the request path — checked from outside, on the real
//! `madang` binary: a due 19줄 move is searched exactly once however many read the room at the
//! due moment, and every read, long-poll, `/sgf` and `/healthz` is answered from the stored room
//! meanwhile (the move arrives as a new version).
//!
//! The server logs one `searched a computer player's move` line per search (debug level of
//! `madang_functions::service::bots`), which is what the test counts.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

/// The real binary with its log in a file, killed (and its files removed) when dropped.
struct Server {
    child: Child,
    base: String,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Server {
    fn start(name: &str) -> Server {
        let dir = std::env::temp_dir().join(format!("madang-bots-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        let bin =
            std::env::var("MADANG_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_madang").into());
        let mut child = Command::new(bin)
            .env("MADANG_ADDR", "127.0.0.1:0")
            .env("MADANG_DATA", &dir)
            .env("MADANG_DEV", "1")
            .env("RUST_LOG", "warn,madang_functions::service::bots=debug")
            .env("NO_COLOR", "1")
            .env("MADANG_LIMIT_POLLS_PER_CLIENT", "0")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap();
        // The server logs to stdout after its first line: the rest is copied to the log file.
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        let mut copy = std::fs::File::create(dir.join("stdout.log")).unwrap();
        std::thread::spawn(move || std::io::copy(&mut out, &mut copy));
        let base = line
            .trim()
            .strip_prefix("madang listening on ")
            .unwrap()
            .to_owned();
        Server { child, base, dir }
    }

    /// The lines of its log that say a search was made.
    fn searches(&self) -> usize {
        ["server.log", "stdout.log"]
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(self.dir.join(f))
                    .unwrap_or_default()
                    .lines()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .filter(|l| l.contains("searched a computer player's move"))
            .count()
    }
}

async fn send(
    http: &reqwest::Client,
    base: &str,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = http.request(method, format!("{base}{path}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn a_due_19_line_move_is_searched_once_however_many_read_at_its_due_moment() {
    let server = Server::start("once");
    let base = server.base.clone();
    let http = reqwest::Client::new();
    let post = |path: String, token: Option<String>, body: Value| {
        let (http, base) = (http.clone(), base.clone());
        async move {
            send(
                &http,
                &base,
                reqwest::Method::POST,
                &path,
                token.as_deref(),
                Some(body),
            )
            .await
        }
    };
    let (status, created) = post(
        "/rooms".into(),
        None,
        json!({"game": "baduk", "name": "사람", "seed": 7,
               "options": {"boardSize": 19, "colorAssignment": "hostBlack"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let room = created["roomId"].as_str().unwrap().to_owned();
    let token = created["token"].as_str().unwrap().to_owned();
    let actions = format!("/rooms/{room}/actions");
    for action in [
        json!({"type": "addBot", "level": 2}),
        json!({"type": "start"}),
    ] {
        let (status, body) = post(
            actions.clone(),
            Some(token.clone()),
            json!({ "action": action }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (status, moved) = post(
        actions.clone(),
        Some(token.clone()),
        json!({"action": {"type": "place", "x": 15, "y": 3}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    let version = moved["version"].as_u64().unwrap();
    // The bot's move is due within its think time; ten spectators and the player long-poll for
    // it, while others read the room, its record and the server's health, all at once.
    let mut readers = tokio::task::JoinSet::new();
    for i in 0..24 {
        let (http, base, room, token) = (http.clone(), base.clone(), room.clone(), token.clone());
        readers.spawn(async move {
            let (path, token) = match i {
                0..10 => (format!("/rooms/{room}?since={version}&wait=25"), None),
                10 => (
                    format!("/rooms/{room}?since={version}&wait=25"),
                    Some(token),
                ),
                11..16 => (format!("/rooms/{room}"), None),
                16..20 => (format!("/rooms/{room}/sgf"), None),
                _ => ("/healthz".to_owned(), None),
            };
            let (status, body) = send(
                &http,
                &base,
                reqwest::Method::GET,
                &path,
                token.as_deref(),
                None,
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{path} → {body}");
            (i, body)
        });
    }
    for (i, body) in readers.join_all().await {
        if i <= 10 {
            // Every long-poll saw the move arrive as the next version.
            assert_eq!(body["version"], version + 1, "{body}");
        }
    }
    // Every reader is answered and the move is saved: one search was made for it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while server.searches() == 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(server.searches(), 1);
}

#[tokio::test]
async fn a_read_at_the_due_moment_answers_from_the_stored_room_without_the_move() {
    let server = Server::start("read");
    let base = server.base.clone();
    let http = reqwest::Client::new();
    let (_, created) = send(
        &http,
        &base,
        reqwest::Method::POST,
        "/rooms",
        None,
        Some(json!({"game": "baduk", "name": "사람", "seed": 8,
               "options": {"boardSize": 9, "colorAssignment": "hostBlack"}})),
    )
    .await;
    let room = created["roomId"].as_str().unwrap().to_owned();
    let token = created["token"].as_str().unwrap().to_owned();
    let actions = format!("/rooms/{room}/actions");
    for action in [
        json!({"type": "addBot", "level": 1}),
        json!({"type": "start"}),
        json!({"type": "place", "x": 4, "y": 4}),
    ] {
        let (status, body) = send(
            &http,
            &base,
            reqwest::Method::POST,
            &actions,
            Some(&token),
            Some(json!({ "action": action })),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // The action's answer never waits for the bot: it is the bot's turn, still to come.
    let (_, view) = send(
        &http,
        &base,
        reqwest::Method::GET,
        &format!("/rooms/{room}"),
        None,
        None,
    )
    .await;
    assert_eq!(view["state"]["turn"], "white", "{view}");
    assert!(view["deadlineAt"].is_u64(), "{view}");
}
