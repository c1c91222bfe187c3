//! The lost answer, for real: a proxy between the AWS SDK and dynalite lets one `UpdateItem`
//! land, holds its answer while another player's change lands, then answers 500 — so the SDK
//! itself retries the write, and the retry meets a room that has moved on. The store sees a
//! conflict with somebody else's write stamp; only the request id recorded in the room tells
//! the server that its own write is in there. Two actions must make two changes.

use std::sync::Arc;

use aws_sdk_dynamodb::Client;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode as AxumStatus, Uri};
use axum::response::{IntoResponse, Response};
use madang_infra::DynamoStore;
use madang_infra::contract::fresh_id;
use madang_infra::dynamo::ensure_table;
use madang_infra::emulator::{self, dynalite, dynalite_client};
use madang_tests::spawn_app_unswept;
use reqwest::StatusCode;
use serde_json::json;
use tokio::sync::{Mutex, oneshot};

/// What the proxy does with the next `UpdateItem`.
#[derive(Default)]
struct Trap {
    armed: Option<(oneshot::Sender<()>, oneshot::Receiver<()>)>,
}

#[derive(Clone)]
struct Proxy {
    upstream: String,
    http: reqwest::Client,
    trap: Arc<Mutex<Trap>>,
}

async fn forward(
    State(proxy): State<Proxy>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let target = headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let mut request = proxy
        .http
        .request(method, format!("{}{}", proxy.upstream, uri.path()));
    for (name, value) in &headers {
        if name != "host" && name != "content-length" {
            request = request.header(name, value);
        }
    }
    let answer = request.body(body).send().await.unwrap();
    let status = answer.status().as_u16();
    let answer_headers = answer.headers().clone();
    let answer_body = answer.bytes().await.unwrap();
    if target.ends_with(".UpdateItem") {
        let armed = proxy.trap.lock().await.armed.take();
        if let Some((landed, resume)) = armed {
            // The write has landed in dynalite. Hold its answer, then lose it: a 500 is
            // retryable, so the SDK sends the very same request again.
            landed.send(()).unwrap();
            resume.await.unwrap();
            return (
                AxumStatus::INTERNAL_SERVER_ERROR,
                [("content-type", "application/x-amz-json-1.0")],
                r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"lost on the way back"}"#,
            )
                .into_response();
        }
    }
    let mut response =
        (AxumStatus::from_u16(status).unwrap(), answer_body.to_vec()).into_response();
    for (name, value) in &answer_headers {
        if name != "content-length" && name != "transfer-encoding" {
            response.headers_mut().insert(name, value.clone());
        }
    }
    response
}

async fn proxied_client(trap: Arc<Mutex<Trap>>) -> Client {
    let upstream = dynalite();
    let proxy = Proxy {
        upstream,
        http: reqwest::Client::new(),
        trap,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = axum::Router::new().fallback(forward).with_state(proxy);
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    emulator::client_at(&format!("http://{addr}")).await
}

#[tokio::test]
async fn an_sdk_retry_of_a_landed_save_after_another_change_is_answered_as_landed() {
    let table = format!("madang-{}", fresh_id("sdk-retry"));
    let direct = dynalite_client().await;
    ensure_table(&direct, &table).await.unwrap();
    let trap = Arc::new(Mutex::new(Trap::default()));
    // The host's server talks to the table through the proxy; the guest's, directly.
    let (through_proxy, _) = spawn_app_unswept(Arc::new(DynamoStore::new(
        proxied_client(trap.clone()).await,
        table.clone(),
    )))
    .await;
    let (direct_app, _) =
        spawn_app_unswept(Arc::new(DynamoStore::new(direct, table.clone()))).await;

    for pinned in [false, true] {
        let (room, host) = through_proxy
            .create("yut", json!({"turnSeconds": null}), 9)
            .await;
        let before = through_proxy.room(&room, None).await["version"]
            .as_u64()
            .unwrap();
        let (landed_tx, landed_rx) = oneshot::channel();
        let (resume_tx, resume_rx) = oneshot::channel();
        trap.lock().await.armed = Some((landed_tx, resume_rx));
        let mut body = json!({"action": {"type": "setOptions", "options": {"pieces": 3}}});
        if pinned {
            body["expectedVersion"] = json!(before);
        }
        let acting = through_proxy.spawn_send(
            reqwest::Method::POST,
            &format!("/rooms/{room}/actions"),
            &host,
            Some(body),
        );
        landed_rx.await.unwrap();
        direct_app.join(&room, "손님").await;
        resume_tx.send(()).unwrap();
        let answer = acting.await.unwrap();
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "pinned {pinned}: {:?}",
            answer.body
        );
        assert_eq!(answer.body["version"], before + 1, "pinned {pinned}");
        let end = direct_app.room(&room, None).await;
        assert_eq!(
            end["version"],
            before + 2,
            "pinned {pinned}: two actions, two changes"
        );
        assert_eq!(end["options"]["pieces"], 3);
    }
}
