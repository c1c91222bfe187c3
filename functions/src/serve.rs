//! Serving the router over TCP with every connection bounded: the local server's loop, also used
//! by the end-to-end tests (on port 0), so they run exactly what `madang` runs.
//!
//! `axum::serve` has no header-read timeout, no idle timeout and no connection cap: a client that
//! opens sockets and never finishes its headers would hold them (and the process's file
//! descriptors) forever. Here:
//!
//! - **Connections** are capped at [`ServeConfig::max_connections`]: past it the loop stops
//!   accepting and new connections wait in the kernel's backlog, so the process never runs out
//!   of descriptors (keep the cap below `ulimit -n`, less a few dozen for the database).
//! - **Header read and idle**: a connection must deliver a whole header block within
//!   [`ServeConfig::header_timeout`] of opening or of its previous answer (hyper's header-read
//!   timer runs while a keep-alive connection waits for its next request, so it is the idle
//!   timeout too); otherwise it is closed.
//! - **Requests** that take longer than [`ServeConfig::request_timeout`] (a body trickled in
//!   byte by byte) are answered 408.
//! - **Header size**: hyper refuses a header block over [`ServeConfig::header_buffer`] bytes
//!   with a bare 431 before the router sees it; below that the router's own limit
//!   ([`crate::app::Limits::max_header_bytes`]) answers 431 as problem+json. The buffer is set
//!   well above the limit so that the problem+json answer is the one clients see.
//! - **Shutdown**: when `shutdown` resolves the listener closes, idle connections close, and
//!   requests in flight get up to [`ServeConfig::drain_timeout`] to finish.
//! - **Upgrades** (`GET /live`'s WebSocket): a connection that upgrades leaves hyper, and its
//!   permit, once the upgrade is done; the live channel bounds its sockets itself
//!   ([`crate::live`]). (hyper-util's `GracefulShutdown` cannot watch an upgradeable
//!   connection, so the drain counts the permits instead.)

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::response::IntoResponse;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

use crate::error::ApiError;

/// Connection-level bounds of [`serve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServeConfig {
    /// Connections open at once; more wait in the listen backlog.
    pub max_connections: usize,
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
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(40),
            header_buffer: 64 * 1024,
            drain_timeout: Duration::from_secs(5),
        }
    }
}

impl ServeConfig {
    /// The defaults, with `MADANG_MAX_CONNECTIONS` and `MADANG_HEADER_TIMEOUT_MS` taken when
    /// set. A value that does not parse is an error.
    pub fn with_env(self) -> Result<Self, String> {
        let mut config = self;
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
    // Tells every open connection to finish its request in flight and close.
    let (stop, stopping) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_timeout)
        .max_buf_size(config.header_buffer.max(8192))
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
        let router = router.clone();
        let request_timeout = config.request_timeout;
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let answer = router.clone().oneshot(request.map(Body::new));
            async move {
                match tokio::time::timeout(request_timeout, answer).await {
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
            drop(permit);
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
