//! Behind CloudFront on the HTTP API (`template.yaml` with `Cdn: CloudFront` and
//! `FrontDoor: HttpApi`): the `api` binary as Lambda runs it, with `MADANG_ORIGIN_SECRET` set as
//! the template sets it there, behind the emulated HTTP API. A request that walks around the
//! distribution (straight to the custom domain, without the `X-Madang-Origin` header CloudFront
//! adds) is refused 403 `EDGE_ONLY` and changes nothing; one that carries it is served, with the
//! token the viewer-request function moved; the secret never reaches the function's log, even at
//! `trace`.

use reqwest::StatusCode;
use serde_json::{Value, json};

use madang_tests::lambda::{FrontDoor, StackConfig};

use super::stack;

/// The secret, as the template's 48 generated letters and digits would be.
const SECRET: &str = "Zp4Lq8Wn2Xr6Tv0Ys3Ub7Ce1Df5Gh9Jk2Mn6Pq0Rs4Tu8Vw1";

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_the_cdn_the_lambda_api_serves_only_requests_that_came_through_it() {
    let config = StackConfig {
        api_environments: 1,
        front_door: FrontDoor::HttpApi,
        api_env: vec![
            ("MADANG_ORIGIN_SECRET".into(), SECRET.into()),
            ("RUST_LOG".into(), "trace".into()),
        ],
        ..StackConfig::default()
    };
    let stack = stack("l-origin", config).await;
    let b = stack.base();
    let http = reqwest::Client::new();

    // Around the edge: no header, a wrong one, the right one twice (API Gateway joins repeated
    // headers with commas). Refused, before the body is even read as JSON.
    for values in [vec![], vec!["wrong"], vec![SECRET, SECRET]] {
        let mut request = http
            .post(format!("{b}/rooms"))
            .header("content-type", "application/json")
            .body("{not json");
        for value in values {
            request = request.header("x-madang-origin", value);
        }
        let refused = request.send().await.unwrap();
        assert_eq!(
            refused.headers()["content-type"],
            "application/problem+json"
        );
        let problem = json_of(refused, StatusCode::FORBIDDEN).await;
        assert_eq!(problem["code"], "EDGE_ONLY", "{problem}");
    }

    // Through the edge: served, the moved token acting as the player.
    let through = |request: reqwest::RequestBuilder| request.header("x-madang-origin", SECRET);
    let created = sent(
        through(http.post(format!("{b}/rooms"))).json(&json!({"game": "yut", "name": "방장"})),
        StatusCode::CREATED,
    )
    .await;
    let room = created["roomId"].as_str().unwrap();
    let token = created["token"].as_str().unwrap();
    let view = sent(
        through(http.get(format!("{b}/rooms/{room}")))
            .header("x-madang-authorization", format!("Bearer {token}")),
        StatusCode::OK,
    )
    .await;
    assert_eq!(view["you"], created["room"]["you"], "{view}");
    // Walking around with a seat's token changes nothing.
    let problem = sent(
        http.post(format!("{b}/rooms/{room}/players"))
            .header("authorization", format!("Bearer {token}"))
            .json(&json!({"name": "손님"})),
        StatusCode::FORBIDDEN,
    )
    .await;
    assert_eq!(problem["code"], "EDGE_ONLY", "{problem}");
    let after = sent(
        through(http.get(format!("{b}/rooms/{room}"))),
        StatusCode::OK,
    )
    .await;
    assert_eq!(after["version"], view["version"], "{after}");

    let log = std::fs::read_to_string(stack.logs().join("api-0.log")).unwrap();
    assert!(log.contains("EDGE_ONLY"), "the refusals were logged");
    assert!(!log.contains(SECRET), "the origin secret was logged");
}
