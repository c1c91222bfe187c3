//! Behind CloudFront (issue 18, `Cdn: CloudFront` in template.yaml): origin access control signs
//! every request to the Function URL with SigV4, and the signature takes the `Authorization`
//! header, so the distribution's viewer-request function moves the player's bearer token to
//! `X-Madang-Authorization`. These tests send what the function then receives — a SigV4
//! `Authorization` and the moved token — over real HTTP to the real `madang` binary: the moved
//! token acts as the player, the signature alone grants nothing and refuses nothing, and two
//! moved tokens are refused as two `Authorization` headers are. Behind CloudFront on the HTTP API
//! (`FrontDoor: HttpApi`), nothing signs: the secret origin header is required instead (below).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support;
use support::{Server, start_server};

/// What Lambda hands the function after checking CloudFront's signature (shape only: the
/// function never checks it, Lambda did).
const SIGV4: &str = "AWS4-HMAC-SHA256 Credential=ASIAEXAMPLE/20261201/us-east-1/lambda/aws4_request, \
                     SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=0123abcd";

fn start(name: &str) -> Server {
    start_server("cdn_edge", name, &[])
}

async fn json_of(response: reqwest::Response, want: StatusCode) -> Value {
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, want, "{body}");
    body
}

/// Sends `request` and reads its JSON answer, which must come with `want`.
async fn sent(request: reqwest::RequestBuilder, want: StatusCode) -> Value {
    json_of(request.send().await.unwrap(), want).await
}

#[tokio::test]
async fn behind_the_edge_the_moved_token_acts_and_the_signature_alone_grants_nothing() {
    let server = start("moved_token");
    let b = &server.base;
    let http = reqwest::Client::new();
    let created = sent(
        http.post(format!("{b}/rooms"))
            .json(&json!({"game": "yut", "name": "방장"})),
        StatusCode::CREATED,
    )
    .await;
    let room = created["roomId"].as_str().unwrap();
    let host = created["token"].as_str().unwrap();
    let host_id = created["room"]["you"].clone();
    sent(
        http.post(format!("{b}/rooms/{room}/players"))
            .json(&json!({"name": "손님"})),
        StatusCode::CREATED,
    )
    .await;

    // A read through the edge: the moved token is the host's seat.
    let view = sent(
        http.get(format!("{b}/rooms/{room}"))
            .header("authorization", SIGV4)
            .header("x-madang-authorization", format!("Bearer {host}")),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], host_id, "{view}");

    // A spectator through the edge (the signature, no token) reads as a spectator: not refused.
    let view = sent(
        http.get(format!("{b}/rooms/{room}"))
            .header("authorization", SIGV4),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], Value::Null, "{view}");

    // The signature alone cannot act.
    let refused = sent(
        http.post(format!("{b}/rooms/{room}/actions"))
            .header("authorization", SIGV4)
            .json(&json!({"action": {"type": "start"}})),
        StatusCode::UNAUTHORIZED,
    )
    .await;
    assert_eq!(refused["code"], "UNAUTHORIZED", "{refused}");

    // Two moved tokens are two Authorization headers: refused, nothing applied.
    let refused = sent(
        http.post(format!("{b}/rooms/{room}/actions"))
            .header("authorization", SIGV4)
            .header("x-madang-authorization", format!("Bearer {host}"))
            .header("x-madang-authorization", "Bearer someone-else")
            .json(&json!({"action": {"type": "start"}})),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(refused["code"], "DUPLICATE_HEADER", "{refused}");

    // The host starts the game with the moved token.
    let started = sent(
        http.post(format!("{b}/rooms/{room}/actions"))
            .header("authorization", SIGV4)
            .header("x-madang-authorization", format!("Bearer {host}"))
            .header("x-amz-content-sha256", "ignored-by-the-function")
            .json(&json!({"action": {"type": "start"}})),
        StatusCode::OK,
    )
    .await;
    assert_eq!(started["room"]["status"], "playing", "{started}");
    assert_eq!(started["version"], view["version"].as_u64().unwrap() + 1);
}

#[tokio::test]
async fn without_a_signature_the_moved_header_is_not_read() {
    let server = start("no_signature");
    let b = &server.base;
    let http = reqwest::Client::new();
    let created = sent(
        http.post(format!("{b}/rooms"))
            .json(&json!({"game": "yut", "name": "방장"})),
        StatusCode::CREATED,
    )
    .await;
    let room = created["roomId"].as_str().unwrap();
    let host = created["token"].as_str().unwrap();
    // Off the edge the token travels in Authorization as always; the other header is ignored.
    let view = sent(
        http.get(format!("{b}/rooms/{room}"))
            .header("x-madang-authorization", format!("Bearer {host}")),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], Value::Null, "{view}");
}

// ---- The HTTP API behind CloudFront (`Cdn: CloudFront`, `FrontDoor: HttpApi`) ----
//
// Nothing signs there: the HTTP API's execute-api endpoint is off, CloudFront reaches it through a
// custom domain that is as public as the endpoint was, and adds the secret `X-Madang-Origin`
// header to every origin request. The function, given the same secret as `MADANG_ORIGIN_SECRET`,
// refuses whatever does not carry it. These tests send what the function receives from the
// edge (the header, and the token the viewer-request function moved) and what a caller who walks
// around the edge sends, to the real `madang` binary over real HTTP.

/// The secret, as the template's 48 generated letters and digits would be.
const ORIGIN_SECRET: &str = "k3Q9vXb7TzR2mW8pL5nY4cH6dJ1fG0sAeU2iO9rV7tB3xN5q";

/// `madang` with `env`, everything it writes (its log at `trace`, the most it ever writes, on
/// stdout and stderr) kept to read back; killed, and its data removed, when dropped.
struct LoggedServer {
    child: std::process::Child,
    base: String,
    data: std::path::PathBuf,
    output: std::sync::Arc<std::sync::Mutex<String>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl Drop for LoggedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

impl LoggedServer {
    fn start(name: &str, env: &[(&str, &str)]) -> Self {
        use std::io::{BufRead, BufReader, Read};
        let data =
            std::env::temp_dir().join(format!("madang-cdn_edge-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        let bin =
            std::env::var("MADANG_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_madang").into());
        let mut child = std::process::Command::new(bin)
            .env("MADANG_ADDR", "127.0.0.1:0")
            .env("MADANG_DATA", &data)
            .env("RUST_LOG", "trace")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let output = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (found, base) = std::sync::mpsc::channel();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let kept = output.clone();
        let out_reader = std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if let Some(base) = line.strip_prefix("madang listening on ") {
                    let _ = found.send(base.trim().to_owned());
                }
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let kept = output.clone();
        let err_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            kept.lock().unwrap().push_str(&text);
        });
        // The line comes once the server listens; if it exits first the channel closes.
        let base = base.recv().expect("madang did not start");
        LoggedServer {
            child,
            base,
            data,
            output,
            readers: vec![out_reader, err_reader],
        }
    }

    /// Everything the server wrote, once it has stopped.
    fn stop_and_read_log(&mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for reader in self.readers.drain(..) {
            reader.join().unwrap();
        }
        self.output.lock().unwrap().clone()
    }
}

/// A 403 `EDGE_ONLY` problem, with a Korean detail and the headers every answer carries.
async fn refused_as_not_through_the_edge(response: reqwest::Response) {
    assert_eq!(
        response.headers()["content-type"],
        "application/problem+json"
    );
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    let problem = json_of(response, StatusCode::FORBIDDEN).await;
    assert_eq!(problem["code"], "EDGE_ONLY", "{problem}");
    assert_eq!(problem["status"], 403, "{problem}");
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.chars().any(|c| ('가'..='힣').contains(&c)),
        "{problem}"
    );
}

#[tokio::test]
async fn behind_the_cdn_on_the_http_api_only_requests_with_the_origin_header_are_served() {
    let mut server = LoggedServer::start("origin", &[("MADANG_ORIGIN_SECRET", ORIGIN_SECRET)]);
    let b = server.base.clone();
    let http = reqwest::Client::new();

    // Walking around the edge: no header, a wrong one, the right one with a byte more, the right
    // one twice, the right one under another name. Each is refused before any work: a body that
    // is not even JSON is refused 403, not 400, and no room is made.
    refused_as_not_through_the_edge(http.get(format!("{b}/healthz")).send().await.unwrap()).await;
    refused_as_not_through_the_edge(
        http.post(format!("{b}/rooms"))
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    for (name, values) in [
        ("x-madang-origin", vec!["wrong".to_owned()]),
        ("x-madang-origin", vec![format!("{ORIGIN_SECRET}x")]),
        ("x-madang-origin", vec![ORIGIN_SECRET[1..].to_owned()]),
        (
            "x-madang-origin",
            vec![ORIGIN_SECRET.to_owned(), ORIGIN_SECRET.to_owned()],
        ),
        ("x-origin-verify", vec![ORIGIN_SECRET.to_owned()]),
    ] {
        let mut request = http
            .post(format!("{b}/rooms"))
            .json(&json!({"game": "yut", "name": "방장"}));
        for value in values {
            request = request.header(name, value);
        }
        refused_as_not_through_the_edge(request.send().await.unwrap()).await;
    }

    // Through the edge: the header is there, and the viewer-request function has moved the
    // player's token to X-Madang-Authorization (nothing signs on this path).
    let through =
        |request: reqwest::RequestBuilder| request.header("x-madang-origin", ORIGIN_SECRET);
    let health = through(http.get(format!("{b}/healthz")))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let created = sent(
        through(http.post(format!("{b}/rooms"))).json(&json!({"game": "yut", "name": "방장"})),
        StatusCode::CREATED,
    )
    .await;
    let room = created["roomId"].as_str().unwrap();
    let host = created["token"].as_str().unwrap();
    let host_id = created["room"]["you"].clone();
    sent(
        through(http.post(format!("{b}/rooms/{room}/players"))).json(&json!({"name": "손님"})),
        StatusCode::CREATED,
    )
    .await;
    let view = sent(
        through(http.get(format!("{b}/rooms/{room}")))
            .header("x-madang-authorization", format!("Bearer {host}")),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], host_id, "{view}");

    // The moved token without the header is still walking around: refused, nothing applied.
    refused_as_not_through_the_edge(
        http.post(format!("{b}/rooms/{room}/actions"))
            .header("x-madang-authorization", format!("Bearer {host}"))
            .json(&json!({"action": {"type": "start"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    // Two moved tokens are two Authorization headers: refused, nothing applied.
    let refused = sent(
        through(http.post(format!("{b}/rooms/{room}/actions")))
            .header("x-madang-authorization", format!("Bearer {host}"))
            .header("x-madang-authorization", "Bearer someone-else")
            .json(&json!({"action": {"type": "start"}})),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(refused["code"], "DUPLICATE_HEADER", "{refused}");
    let started = sent(
        through(http.post(format!("{b}/rooms/{room}/actions")))
            .header("x-madang-authorization", format!("Bearer {host}"))
            .json(&json!({"action": {"type": "start"}})),
        StatusCode::OK,
    )
    .await;
    assert_eq!(started["room"]["status"], "playing", "{started}");
    assert_eq!(started["version"], view["version"].as_u64().unwrap() + 1);

    // At the most verbose level the server writes, the secret appears nowhere in its log.
    let log = server.stop_and_read_log();
    assert!(log.contains("EDGE_ONLY"), "the refusals were logged");
    assert!(!log.contains(ORIGIN_SECRET), "the origin secret was logged");
}

#[tokio::test]
async fn without_the_origin_secret_the_origin_header_changes_nothing() {
    let server = start("origin_unset");
    let b = &server.base;
    let http = reqwest::Client::new();
    for header in [None, Some("anything"), Some(ORIGIN_SECRET)] {
        let mut request = http
            .post(format!("{b}/rooms"))
            .json(&json!({"game": "baduk", "name": "흑"}));
        if let Some(value) = header {
            request = request.header("x-madang-origin", value);
        }
        let created = json_of(request.send().await.unwrap(), StatusCode::CREATED).await;
        assert!(created["roomId"].is_string(), "{created}");
        assert!(created["room"]["version"].is_u64(), "{created}");
    }
}

#[tokio::test]
async fn an_origin_secret_too_short_to_guard_anything_stops_the_server_and_is_not_shown() {
    let data = std::env::temp_dir().join(format!("madang-cdn_edge-short-{}", std::process::id()));
    let short = "tooShortToGuardXyz";
    let bin = std::env::var("MADANG_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_madang").into());
    let out = std::process::Command::new(bin)
        .env("MADANG_ADDR", "127.0.0.1:0")
        .env("MADANG_DATA", &data)
        .env("MADANG_ORIGIN_SECRET", short)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&data);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("MADANG_ORIGIN_SECRET"), "{said}");
    assert!(!said.contains("madang listening"), "{said}");
    assert!(!said.contains(short), "{said}");
}

/// The origin secret accepted one value, so rotating it meant 403s while CloudFront's edges
/// took up the new one. During a rotation (`MADANG_ORIGIN_SECRET_PREVIOUS`) the function accepts
/// the new and the old secret, and nothing else; a previous secret without a current one is a
/// deployment error that stops the function rather than opening it.
#[tokio::test]
async fn during_a_rotation_both_the_new_and_the_previous_origin_secret_are_served() {
    const NEW: &str = "Pq7Rs2Tu9Vw4Xy1Za6Bc3De8Fg5Hi0Jk2Lm7No4Pq9Rs1Tu6";
    let server = LoggedServer::start(
        "origin-rotation",
        &[
            ("MADANG_ORIGIN_SECRET", NEW),
            ("MADANG_ORIGIN_SECRET_PREVIOUS", ORIGIN_SECRET),
        ],
    );
    let http = reqwest::Client::new();
    let health = |value: &'static str| {
        http.get(format!("{}/healthz", server.base))
            .header("x-madang-origin", value)
            .send()
    };
    for secret in [NEW, ORIGIN_SECRET] {
        assert_eq!(health(secret).await.unwrap().status(), StatusCode::OK);
    }
    refused_as_not_through_the_edge(health("wrong").await.unwrap()).await;
    refused_as_not_through_the_edge(
        http.get(format!("{}/healthz", server.base))
            .send()
            .await
            .unwrap(),
    )
    .await;

    let bin = std::env::var("MADANG_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_madang").into());
    let data = std::env::temp_dir().join(format!("madang-cdn-prev-{}", std::process::id()));
    let mut child = std::process::Command::new(bin)
        .env("MADANG_ADDR", "127.0.0.1:0")
        .env("MADANG_DATA", &data)
        .env("MADANG_ORIGIN_SECRET_PREVIOUS", ORIGIN_SECRET)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    if line.contains("listening") {
        let _ = child.kill();
        let _ = child.wait();
        panic!("a previous origin secret without a current one started the server");
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("MADANG_ORIGIN_SECRET_PREVIOUS"), "{said}");
    assert!(
        !said.contains(ORIGIN_SECRET),
        "the secret was shown: {said}"
    );
    let _ = std::fs::remove_dir_all(&data);
}
