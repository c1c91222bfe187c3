//! Serving the router over TCP with every connection bounded: the local server's loop, also used
//! by the end-to-end tests (on port 0), so they run exactly what `madang` runs.
//!
//! `axum::serve` has no header-read timeout, no idle timeout and no connection cap: a client that
//! opens sockets and never finishes its headers would hold them (and the process's file
//! descriptors) forever. Here:
//!
//! - **Connections** are capped at [`ServeConfig::max_connections`]: past it the loop stops
//!   accepting and new connections wait in the kernel's backlog, so the process never runs out
//!   of descriptors (keep the cap, plus [`ServeConfig::refusals_at_once`], below `ulimit -n`,
//!   less a few dozen for the database).
//! - **Connections per address** are capped at [`ServeConfig::per_client_cap`]:
//!   `max_connections_per_client`, but never more than a fair share of `max_connections` (a
//!   [`FAIR_SHARE`]th), whatever either is set to. One more from the same address (IPv6 per /64)
//!   is answered 429 problem+json and closed at once, so one client cannot take every connection
//!   and keep everyone else in the backlog. A refusal does not hold one of the
//!   `max_connections` places: refusals have a small budget of their own (an eighth of them, at
//!   least 16; past it a connection over its cap is closed without an answer), so a client
//!   that keeps reconnecting cannot fill the places with its own refusals either. A trusted
//!   proxy ([`ServeConfig::trusted_proxies`]) is many clients and is not capped.
//! - **Client address**: the peer, or behind `MADANG_TRUSTED_PROXIES` the right-most untrusted
//!   `X-Forwarded-For` hop ([`TrustedProxies::client`]), resolved once into a [`Client`].
//! - **Bodies** must arrive whole within [`ServeConfig::body_timeout`] (408 otherwise), and a
//!   body declared over [`MAX_BODY_BYTES`] is answered 413 before a byte of it is read.
//! - **Header read and idle**: a connection must deliver a whole header block within
//!   [`ServeConfig::header_timeout`] of opening or of its previous answer (hyper's header-read
//!   timer runs while a keep-alive connection waits for its next request, so it is the idle
//!   timeout too); otherwise it is closed.
//! - **Requests** that take longer than [`ServeConfig::request_timeout`] (a body trickled in
//!   byte by byte) are answered 408.
//! - **Header size and count**: hyper refuses a header block over [`ServeConfig::header_buffer`]
//!   bytes or [`HYPER_MAX_HEADERS`] lines with a bare 431 before the router sees it; below that
//!   the router's own limits ([`crate::app::Limits::max_header_bytes`],
//!   [`crate::limits::MAX_HEADERS`]) answer 431 as problem+json. hyper's bounds are set well
//!   above the router's so that the problem+json answer is the one clients see.
//! - **Shutdown**: when `shutdown` resolves the listener closes, idle connections close, and
//!   requests in flight get up to [`ServeConfig::drain_timeout`] to finish.
//! - **Upgrades** (`GET /live`'s WebSocket): a connection that upgrades leaves hyper once the
//!   upgrade is done, but keeps its places — under the connection cap and under its address's
//!   cap — for as long as the socket is open: each request carries a [`ConnectionHold`], which
//!   the live channel takes along into the socket ([`crate::live`]), and which also tells it
//!   when shutdown begins. (hyper-util's `GracefulShutdown` cannot watch an upgradeable
//!   connection, so the drain counts the permits instead.)

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::response::IntoResponse;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

use crate::api::extract::MAX_BODY_BYTES;
use crate::error::ApiError;
use crate::limits::client::key_of;
use crate::limits::{Client, TrustedProxies};

/// The header lines hyper parses before it refuses with its own bare 431: well above
/// [`crate::limits::MAX_HEADERS`], so the router's problem+json refusal is the one clients see.
/// (hyper allocates a parse buffer of this many slots per request beyond its default 100.)
pub const HYPER_MAX_HEADERS: usize = 256;

/// At least this many addresses can hold their whole cap at once: one address's connections are
/// at most `max_connections / FAIR_SHARE` (at least one), whatever
/// `MADANG_MAX_CONNECTIONS_PER_CLIENT` says ([`ServeConfig::per_client_cap`]).
pub const FAIR_SHARE: usize = 4;

/// Connection-level bounds of [`serve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServeConfig {
    /// Connections open at once; more wait in the listen backlog.
    pub max_connections: usize,
    /// Connections one address (IPv6 per /64) may hold open at once; one more is refused 429.
    /// Never more than a fair share of `max_connections` ([`ServeConfig::per_client_cap`]).
    pub max_connections_per_client: usize,
    /// Time for a request's whole body to arrive, from its head.
    pub body_timeout: Duration,
    /// Proxies whose `X-Forwarded-For` names the client (`MADANG_TRUSTED_PROXIES`).
    pub trusted_proxies: TrustedProxies,
    /// Time to deliver a whole header block, from connecting or from the previous answer.
    pub header_timeout: Duration,
    /// Longest a request may take, body and handling included (above the longest long-poll).
    pub request_timeout: Duration,
    /// hyper's read buffer: header blocks over this are refused with a bare 431.
    pub header_buffer: usize,
    /// How long requests in flight may finish after shutdown begins.
    pub drain_timeout: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            max_connections: 512,
            max_connections_per_client: 64,
            body_timeout: Duration::from_secs(10),
            trusted_proxies: TrustedProxies::default(),
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(40),
            header_buffer: 64 * 1024,
            drain_timeout: Duration::from_secs(5),
        }
    }
}

impl ServeConfig {
    /// The connections one address may hold open at once: `max_connections_per_client`, but at
    /// most a [`FAIR_SHARE`]th of `max_connections` (at least one), so a small
    /// `MADANG_MAX_CONNECTIONS` cannot be taken whole by one address under the default cap.
    pub fn per_client_cap(&self) -> usize {
        let share = (self.max_connections / FAIR_SHARE).max(1);
        self.max_connections_per_client.min(share)
    }

    /// Connections over their address's cap that may be answered 429 at once; past these a
    /// refused connection is closed without an answer. An eighth of `max_connections`, at least
    /// 16: the descriptors in use stay below `max_connections` and this many more.
    pub fn refusals_at_once(&self) -> usize {
        (self.max_connections / 8).max(16)
    }

    /// The defaults, with `MADANG_MAX_CONNECTIONS`, `MADANG_MAX_CONNECTIONS_PER_CLIENT`,
    /// `MADANG_HEADER_TIMEOUT_MS`, `MADANG_BODY_TIMEOUT_MS` and `MADANG_TRUSTED_PROXIES` taken
    /// when set. A value that does not parse is an error.
    pub fn with_env(self) -> Result<Self, String> {
        let mut config = self;
        config.trusted_proxies = TrustedProxies::from_env()?;
        if let Ok(v) = std::env::var("MADANG_MAX_CONNECTIONS_PER_CLIENT") {
            config.max_connections_per_client = v.trim().parse().ok().filter(|n| *n > 0).ok_or(
                format!("MADANG_MAX_CONNECTIONS_PER_CLIENT={v} is not a positive number"),
            )?;
        }
        if let Ok(v) = std::env::var("MADANG_BODY_TIMEOUT_MS") {
            let ms: u64 = v.trim().parse().ok().filter(|n| *n > 0).ok_or(format!(
                "MADANG_BODY_TIMEOUT_MS={v} is not a positive number"
            ))?;
            config.body_timeout = Duration::from_millis(ms);
        }
        if let Ok(v) = std::env::var("MADANG_MAX_CONNECTIONS") {
            config.max_connections = v.trim().parse().ok().filter(|n| *n > 0).ok_or(format!(
                "MADANG_MAX_CONNECTIONS={v} is not a positive number"
            ))?;
        }
        if let Ok(v) = std::env::var("MADANG_HEADER_TIMEOUT_MS") {
            let ms: u64 = v.trim().parse().ok().filter(|n| *n > 0).ok_or(format!(
                "MADANG_HEADER_TIMEOUT_MS={v} is not a positive number"
            ))?;
            config.header_timeout = Duration::from_millis(ms);
        }
        Ok(config)
    }
}

/// Serves `router` on `listener` until `shutdown` resolves, then drains (see the module docs).
/// Every request carries its peer address as [`ConnectInfo<SocketAddr>`], for the per-client
/// limits.
pub async fn serve(
    router: Router,
    listener: TcpListener,
    config: ServeConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(config.max_connections));
    let refusals = Arc::new(Semaphore::new(config.refusals_at_once()));
    let per_client_cap = config.per_client_cap();
    let per_client = Arc::new(PerClient::default());
    let trusted = Arc::new(config.trusted_proxies.clone());
    // Tells every open connection to finish its request in flight and close.
    let (stop, stopping) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .max_buf_size(config.header_buffer.max(8192))
        .max_headers(HYPER_MAX_HEADERS)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a connection reset before accept: wait a little
                    // instead of spinning, and keep serving the connections already open.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        // A trusted proxy carries many clients: it is not capped per address.
        let held = if trusted.trusts(peer.ip()) {
            None
        } else {
            match per_client.hold(key_of(peer.ip()), per_client_cap) {
                Some(held) => Some(held),
                None => {
                    // The place goes back at once: a refusal must not keep another address
                    // waiting. Past the refusals' own budget the connection just closes.
                    drop(permit);
                    if let Ok(refusal) = refusals.clone().try_acquire_owned() {
                        tokio::spawn(refuse(stream, refusal));
                    }
                    continue;
                }
            }
        };
        // The connection's places, shared with an upgraded socket that outlives the connection.
        let hold = ConnectionHold {
            _places: Arc::new(Places {
                _held: held,
                _permit: permit,
            }),
            stopping: stopping.clone(),
        };
        let router = router.clone();
        let trusted = trusted.clone();
        let request_timeout = config.request_timeout;
        let body_timeout = config.body_timeout;
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(hold.clone());
            if !trusted.is_empty() {
                let client = trusted.client(peer.ip(), request.headers());
                request.extensions_mut().insert(Client::at(client));
            }
            let router = router.clone();
            async move {
                let request = match whole_body(request.map(Body::new), body_timeout).await {
                    Ok(request) => request,
                    Err(refused) => return Ok(refused.into_response()),
                };
                match tokio::time::timeout(request_timeout, router.oneshot(request)).await {
                    Ok(answered) => answered,
                    Err(_) => Ok(ApiError::Timeout.into_response()),
                }
            }
        });
        let connection = http
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            tokio::pin!(connection);
            // A client that vanishes mid-request is routine, not worth a log line.
            tokio::select! {
                _ = connection.as_mut() => {}
                () = async { drop(stopping.wait_for(|stop| *stop).await) } => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    let open = config.max_connections - permits.available_permits();
    tracing::info!(open, "draining connections");
    let _ = stop.send(true);
    let all = u32::try_from(config.max_connections).unwrap_or(u32::MAX);
    if tokio::time::timeout(config.drain_timeout, permits.acquire_many(all))
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the drain timeout; closing them");
    }
    Ok(())
}

/// A request with its body read whole within `deadline` (a body trickled in byte by byte holds
/// a connection no longer than that), or the refusal: 413 at once for a body declared over
/// [`MAX_BODY_BYTES`] (nothing of it is read) or one that turns out over it, 408 for one that
/// did not arrive in time. A request without a body passes untouched.
async fn whole_body(
    request: axum::extract::Request,
    deadline: Duration,
) -> Result<axum::extract::Request, ApiError> {
    use axum::body::HttpBody;
    if request.body().is_end_stream() {
        return Ok(request);
    }
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return Err(ApiError::TooLarge);
    }
    let (parts, body) = request.into_parts();
    // One byte over the limit is enough to refuse: the body is never buffered beyond it.
    match tokio::time::timeout(deadline, axum::body::to_bytes(body, MAX_BODY_BYTES)).await {
        Err(_) => Err(ApiError::Timeout),
        Ok(Err(e)) => {
            let too_large = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            Err(if too_large {
                ApiError::TooLarge
            } else {
                ApiError::Malformed("요청 본문을 끝까지 읽을 수 없어요.".into())
            })
        }
        Ok(Ok(bytes)) => Ok(axum::extract::Request::from_parts(parts, Body::from(bytes))),
    }
}

/// What every request of a connection carries (an extension): the connection's places under
/// [`ServeConfig::max_connections`] and under its address's cap, freed when the last holder
/// goes — the connection, or the WebSocket it upgraded to (the live channel takes it along) —
/// and the server's shutdown signal.
#[derive(Clone, Debug)]
pub struct ConnectionHold {
    _places: Arc<Places>,
    stopping: watch::Receiver<bool>,
}

impl ConnectionHold {
    /// Resolves once the server begins to shut down (never, if it cannot tell).
    pub async fn shutdown(&mut self) {
        if self.stopping.wait_for(|stop| *stop).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A connection's places (see [`ConnectionHold`]).
struct Places {
    _held: Option<Held>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl std::fmt::Debug for Places {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Places")
    }
}

/// Open connections per client address.
#[derive(Debug, Default)]
struct PerClient(Mutex<HashMap<IpAddr, usize>>);

/// One open connection of an address; its count drops with it.
struct Held {
    table: Arc<PerClient>,
    key: IpAddr,
}

impl PerClient {
    /// One more connection for `key`, if it holds fewer than `cap`.
    fn hold(self: &Arc<Self>, key: IpAddr, cap: usize) -> Option<Held> {
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(key).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(Held {
            table: self.clone(),
            key,
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut open = self.table.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.key) {
            *n -= 1;
            // Only addresses with an open connection stay: the map is bounded by the cap.
            if *n == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// Answers a connection over its address's cap with 429 problem+json and closes it: the
/// request's head is read first (a second and 16 KB at most; a client that writes its request
/// and then reads must find an answer to it), its body never. `permit` is one of the refusals'
/// places ([`ServeConfig::refusals_at_once`]).
async fn refuse(mut stream: tokio::net::TcpStream, permit: tokio::sync::OwnedSemaphorePermit) {
    let p = crate::error::TOO_MANY_CONNECTIONS;
    let body = crate::error::problem_body(p.status, p.code, p.detail).to_string();
    let head = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/problem+json\r\n\
         content-length: {}\r\nretry-after: 1\r\nx-content-type-options: nosniff\r\n\
         connection: close\r\n\r\n",
        body.len()
    );
    // Then the request is read and dropped until the peer is done (a second at most): closing
    // with unread bytes would reset the connection, and the peer might never see the answer.
    let write = async {
        let mut seen = Vec::new();
        let mut chunk = [0u8; 4096];
        let read_head = async {
            while !seen.windows(4).any(|w| w == b"\r\n\r\n") && seen.len() < 16 * 1024 {
                let n = tokio::io::AsyncReadExt::read(&mut stream, &mut chunk).await?;
                if n == 0 {
                    break;
                }
                seen.extend_from_slice(&chunk[..n]);
            }
            Ok::<(), std::io::Error>(())
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), read_head).await;
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while tokio::io::AsyncReadExt::read(&mut stream, &mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
    drop(permit);
}

/// Resolves on Ctrl-C or, on Unix, SIGTERM (what `docker stop`, systemd and `kill` send).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
    tracing::info!("shutting down");
}
