//! The emulator's API Gateway WebSocket API: the front of the `live` function
//! (`template.yaml`'s `LiveApi`, stage `live`).
//!
//! - **Connections.** `GET /live` upgrades to a WebSocket. Each connection gets an id (as API
//!   Gateway's, ending in `=`), and the real `live` binary gets the events API Gateway sends: a
//!   `$connect` event first, with the handshake's headers (a non-200 answer refuses the
//!   connection: the client's handshake gets 403), a `$default` event per text frame, in order,
//!   and a `$disconnect` event once the connection is gone — whoever closed it. Binary frames
//!   arrive base64 with `isBase64Encoded: true`. Every event names the client's address
//!   (`identity.sourceIp`), the TCP peer's as on API Gateway (tests bind clients to other
//!   loopback addresses, 127.0.0.2 and on, to be other clients).
//! - **`@connections`.** `POST /live/@connections/{id}` sends the body to that connection as a
//!   text frame; `DELETE` closes it. A connection that is not (or no longer) open is answered
//!   `410` with `x-amzn-errortype: GoneException`, which the SDK reads as `GoneException`.
//!
//! The stage URL `http://{addr}/live` is what the functions get as `MADANG_LIVE_ENDPOINT`, so
//! `liveUrl` is `ws://{addr}/live`, as on AWS it is `wss://…/live`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use base64::Engine as _;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{Answer, Function, epoch_ms};

/// The `live` function's timeout in `template.yaml`.
const LIVE_TIMEOUT: Duration = Duration::from_secs(10);

/// What the front sends down one connection.
enum Down {
    Text(String),
    Close,
}

/// The WebSocket front's state.
pub(super) struct WsFront {
    pub(super) live: Arc<Function>,
    addr: String,
    open: Mutex<HashMap<String, mpsc::UnboundedSender<Down>>>,
    ids: AtomicU64,
    /// Posts answered 410.
    pub(super) gone: AtomicU64,
    /// Posts delivered.
    pub(super) posted: AtomicU64,
    /// Connections dropped without a `$disconnect` (API Gateway runs it on a best-effort basis).
    silent: Mutex<std::collections::HashSet<String>>,
    /// `$disconnect`s run to the end (the function answered), for tests to wait on.
    pub(super) disconnects: tokio::sync::watch::Sender<u64>,
}

impl WsFront {
    /// Binds the front on loopback; returns it and its `host:port`. It serves once
    /// [`WsFront::serve`] is called (after the functions know its address).
    pub(super) async fn bind(live: Arc<Function>) -> (Arc<WsFront>, tokio::net::TcpListener) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let front = Arc::new(WsFront {
            live,
            addr,
            open: Mutex::new(HashMap::new()),
            ids: AtomicU64::new(0),
            gone: AtomicU64::new(0),
            posted: AtomicU64::new(0),
            silent: Mutex::new(std::collections::HashSet::new()),
            disconnects: tokio::sync::watch::Sender::new(0),
        });
        (front, listener)
    }

    /// The stage URL (`MADANG_LIVE_ENDPOINT`).
    pub(super) fn endpoint(&self) -> String {
        format!("http://{}/live", self.addr)
    }

    /// Serves the front on `listener`.
    pub(super) fn serve(self: &Arc<Self>, listener: tokio::net::TcpListener) {
        let routes = Router::new()
            .route("/live", get(upgrade))
            .route("/live/@connections/{id}", any(connections))
            .with_state(self.clone());
        let routes = routes.into_make_service_with_connect_info::<std::net::SocketAddr>();
        tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    }

    /// Timings of the `live` function's environments.
    pub(super) fn timings(&self) -> Vec<super::EnvTimings> {
        self.live.timings.lock().unwrap().clone()
    }

    /// Connections open now.
    pub(super) fn open_connections(&self) -> usize {
        self.open.lock().unwrap().len()
    }

    /// Drops every open connection without running `$disconnect`, as when API Gateway's
    /// best-effort `$disconnect` is lost: their registrations stay until a post meets 410.
    pub(super) fn vanish(&self) {
        let open: Vec<(String, mpsc::UnboundedSender<Down>)> =
            self.open.lock().unwrap().drain().collect();
        let mut silent = self.silent.lock().unwrap();
        for (id, down) in open {
            silent.insert(id);
            let _ = down.send(Down::Close);
        }
    }

    fn event(
        &self,
        route: &str,
        connection: &str,
        source_ip: &str,
        body: Option<(String, bool)>,
    ) -> Value {
        let now = epoch_ms();
        let event_type = match route {
            "$connect" => "CONNECT",
            "$disconnect" => "DISCONNECT",
            _ => "MESSAGE",
        };
        let mut event = json!({
            "requestContext": {
                "routeKey": route,
                "eventType": event_type,
                "messageDirection": "IN",
                "stage": "live",
                "connectedAt": now,
                "requestTimeEpoch": now,
                "identity": {"sourceIp": source_ip},
                "requestId": format!("req-{}", self.ids.fetch_add(1, Ordering::Relaxed)),
                "domainName": self.addr,
                "connectionId": connection,
                "apiId": "emulated",
            },
            "isBase64Encoded": false,
        });
        if let Some((body, base64)) = body {
            event["body"] = json!(body);
            event["isBase64Encoded"] = json!(base64);
        }
        event
    }

    /// Invokes the `live` function; whether it answered 200.
    async fn invoke(&self, event: Value) -> bool {
        match self.live.invoke(&event, LIVE_TIMEOUT).await {
            Some(Answer::Response(body)) => {
                serde_json::from_slice::<Value>(&body).is_ok_and(|v| v["statusCode"] == 200)
            }
            _ => false,
        }
    }
}

async fn upgrade(
    State(front): State<Arc<WsFront>>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let n = front.ids.fetch_add(1, Ordering::Relaxed);
    let id = format!("C{n:010}x=");
    let ip = peer.ip().to_string();
    // API Gateway runs $connect, with the handshake's headers, before it completes the
    // handshake.
    let mut connect = front.event("$connect", &id, &ip, None);
    connect["headers"] = headers
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), json!(v.to_str().ok()?))))
        .collect::<serde_json::Map<_, _>>()
        .into();
    if !front.invoke(connect).await {
        return StatusCode::FORBIDDEN.into_response();
    }
    let (down, mut queued) = mpsc::unbounded_channel();
    front.open.lock().unwrap().insert(id.clone(), down);
    upgrade.on_upgrade(move |mut socket: WebSocket| async move {
        loop {
            tokio::select! {
                frame = socket.recv() => {
                    let body = match frame {
                        Some(Ok(Message::Text(text))) => (text.to_string(), false),
                        Some(Ok(Message::Binary(bytes))) => {
                            (base64::engine::general_purpose::STANDARD.encode(&bytes), true)
                        }
                        Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                        Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                    };
                    // Frames of one connection reach the function in order.
                    front.invoke(front.event("$default", &id, &ip, Some(body))).await;
                }
                down = queued.recv() => match down {
                    Some(Down::Text(text)) => {
                        if socket.send(Message::Text(text.into())).await.is_err() {
                            break;
                        }
                    }
                    Some(Down::Close) | None => {
                        let _ = socket.send(Message::Close(None)).await;
                        break;
                    }
                },
            }
        }
        front.open.lock().unwrap().remove(&id);
        if !front.silent.lock().unwrap().contains(&id) {
            front
                .invoke(front.event("$disconnect", &id, &ip, None))
                .await;
            front.disconnects.send_modify(|n| *n += 1);
        }
    })
}

fn gone(front: &WsFront) -> Response {
    front.gone.fetch_add(1, Ordering::Relaxed);
    let mut response = (StatusCode::GONE, axum::Json(json!({"message": null}))).into_response();
    response.headers_mut().insert(
        "x-amzn-errortype",
        HeaderValue::from_static("GoneException"),
    );
    response
}

async fn connections(
    State(front): State<Arc<WsFront>>,
    Path(id): Path<String>,
    method: axum::http::Method,
    body: Bytes,
) -> Response {
    let down = front.open.lock().unwrap().get(&id).cloned();
    let Some(down) = down else {
        return gone(&front);
    };
    let sent = match method {
        axum::http::Method::POST => down.send(Down::Text(String::from_utf8_lossy(&body).into())),
        axum::http::Method::DELETE => down.send(Down::Close),
        _ => return StatusCode::METHOD_NOT_ALLOWED.into_response(),
    };
    if sent.is_err() {
        return gone(&front);
    }
    if method == axum::http::Method::POST {
        front.posted.fetch_add(1, Ordering::Relaxed);
    }
    StatusCode::OK.into_response()
}
