//! Behind CloudFront (issue 18, `Cdn: CloudFront` in template.yaml): origin access control signs
//! every request to the Function URL with SigV4, and the signature takes the `Authorization`
//! header, so the distribution's viewer-request function moves the player's bearer token to
//! `X-Madang-Authorization`. These tests send what the function then receives — a SigV4
//! `Authorization` and the moved token — over real HTTP to the real `madang` binary: the moved
//! token acts as the player, the signature alone grants nothing and refuses nothing, and two
//! moved tokens are refused as two `Authorization` headers are.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reqwest::StatusCode;
use serde_json::{Value, json};

mod support;
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

#[tokio::test]
async fn behind_the_edge_the_moved_token_acts_and_the_signature_alone_grants_nothing() {
    let server = start("moved_token");
    let b = &server.base;
    let http = reqwest::Client::new();
    let created = json_of(
        http.post(format!("{b}/rooms"))
            .json(&json!({"game": "yut", "name": "방장"}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    let room = created["roomId"].as_str().unwrap();
    let host = created["token"].as_str().unwrap();
    let host_id = created["room"]["you"].clone();
    json_of(
        http.post(format!("{b}/rooms/{room}/players"))
            .json(&json!({"name": "손님"}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;

    // A read through the edge: the moved token is the host's seat.
    let view = json_of(
        http.get(format!("{b}/rooms/{room}"))
            .header("authorization", SIGV4)
            .header("x-madang-authorization", format!("Bearer {host}"))
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], host_id, "{view}");

    // A spectator through the edge (the signature, no token) reads as a spectator: not refused.
    let view = json_of(
        http.get(format!("{b}/rooms/{room}"))
            .header("authorization", SIGV4)
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], Value::Null, "{view}");

    // The signature alone cannot act.
    let refused = json_of(
        http.post(format!("{b}/rooms/{room}/actions"))
            .header("authorization", SIGV4)
            .json(&json!({"action": {"type": "start"}}))
            .send()
            .await
            .unwrap(),
        StatusCode::UNAUTHORIZED,
    )
    .await;
    assert_eq!(refused["code"], "UNAUTHORIZED", "{refused}");

    // Two moved tokens are two Authorization headers: refused, nothing applied.
    let refused = json_of(
        http.post(format!("{b}/rooms/{room}/actions"))
            .header("authorization", SIGV4)
            .header("x-madang-authorization", format!("Bearer {host}"))
            .header("x-madang-authorization", "Bearer someone-else")
            .json(&json!({"action": {"type": "start"}}))
            .send()
            .await
            .unwrap(),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(refused["code"], "DUPLICATE_HEADER", "{refused}");

    // The host starts the game with the moved token.
    let started = json_of(
        http.post(format!("{b}/rooms/{room}/actions"))
            .header("authorization", SIGV4)
            .header("x-madang-authorization", format!("Bearer {host}"))
            .header("x-amz-content-sha256", "ignored-by-the-function")
            .json(&json!({"action": {"type": "start"}}))
            .send()
            .await
            .unwrap(),
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
    let created = json_of(
        http.post(format!("{b}/rooms"))
            .json(&json!({"game": "yut", "name": "방장"}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    let room = created["roomId"].as_str().unwrap();
    let host = created["token"].as_str().unwrap();
    // Off the edge the token travels in Authorization as always; the other header is ignored.
    let view = json_of(
        http.get(format!("{b}/rooms/{room}"))
            .header("x-madang-authorization", format!("Bearer {host}"))
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], Value::Null, "{view}");
}
