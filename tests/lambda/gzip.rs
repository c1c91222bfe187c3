//! JSON answers gzipped through the function (issue 18): `lambda_http` sends a body with
//! `Content-Encoding` as base64 binary in the payload, and the front door (as API Gateway's
//! HTTP API does) hands the client the bytes, still gzipped, with the function's headers.

use std::io::Read;

use madang_tests::lambda::StackConfig;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::stack;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_view_comes_gzipped_through_lambda_when_the_client_accepts_it() {
    let stack = stack("l-gzip", StackConfig::default()).await;
    let app = &stack.app;
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 19, "colorAssignment": "hostBlack"}),
            3,
        )
        .await;
    let white = app.join(&room, "백").await;
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    for (i, who) in [&black, &white].into_iter().cycle().take(20).enumerate() {
        app.act_ok(
            &room,
            who,
            json!({"type": "place", "x": i % 19, "y": i / 19 * 2}),
        )
        .await;
    }
    let url = format!("{}/rooms/{room}", stack.base());
    let plain = app.http.get(&url).send().await.unwrap();
    assert_eq!(plain.status(), StatusCode::OK);
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.headers()["vary"], "accept-encoding");
    let strong = plain.headers()["etag"].to_str().unwrap().to_owned();
    assert!(strong.starts_with('"'), "{strong}");
    let plain: Value = plain.json().await.unwrap();

    let gzipped = app
        .http
        .get(&url)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gzipped.status(), StatusCode::OK);
    assert_eq!(gzipped.headers()["content-encoding"], "gzip");
    assert_eq!(gzipped.headers()["vary"], "accept-encoding");
    let etag = gzipped.headers()["etag"].clone();
    assert_eq!(
        etag.to_str().unwrap(),
        format!("W/{strong}"),
        "the gzipped bytes carry a weak tag"
    );
    let bytes = gzipped.bytes().await.unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes.as_ref())
        .read_to_string(&mut text)
        .unwrap();
    let unpacked: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(unpacked, plain, "the same view, compressed");

    // The weak tag revalidates: 304, no body, nothing compressed.
    let again = app
        .http
        .get(&url)
        .header("accept-encoding", "gzip")
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.headers().get("content-encoding").is_none());
    assert!(again.bytes().await.unwrap().is_empty());
}
