//! The local server: the whole API on one process and one SQLite file, no AWS account needed.
//!
//! `cargo run --release --bin madang`. Configuration (environment):
//! - `MADANG_ADDR`: where to listen (default `127.0.0.1:8080`).
//! - `MADANG_DATA`: directory for the database (default `./data`).
//! - `MADANG_DEV=1`: test support (`seed` on create, `POST /dev/clock`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use madang_functions::telemetry::{self, LogFormat};
use madang_functions::{App, RoomStore, router, sweeper};
use madang_infra::EmbeddedStore;

/// How often the local sweeper looks for overdue timeouts: a timeout fires at most this late
/// even when nobody polls.
const SWEEP_EVERY: Duration = Duration::from_millis(250);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    telemetry::init(LogFormat::Pretty);
    let addr: SocketAddr = std::env::var("MADANG_ADDR")
        .unwrap_or_else(|_| "127.0.0.1:8080".into())
        .parse()?;
    let data = PathBuf::from(std::env::var("MADANG_DATA").unwrap_or_else(|_| "./data".into()));
    let dev = std::env::var("MADANG_DEV").is_ok_and(|v| v == "1");
    std::fs::create_dir_all(&data)?;
    let store = Arc::new(EmbeddedStore::open(&data.join("madang.sqlite3"))?);
    let app = App::new(store).with_dev(dev);
    serve(app, addr).await
}

async fn serve<S: RoomStore>(
    app: App<S>,
    addr: SocketAddr,
) -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tracing::info!(addr = %bound, dev = app.dev, "madang listening");
    // One plain line on stdout, so scripts and tests that bind port 0 can find the server.
    println!("madang listening on http://{bound}");
    let sweeper = tokio::spawn(sweep_forever(app.clone()));
    axum::serve(listener, router(app))
        .with_graceful_shutdown(shutdown())
        .await?;
    sweeper.abort();
    Ok(())
}

async fn sweep_forever<S: RoomStore>(app: App<S>) {
    let mut tick = tokio::time::interval(SWEEP_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        sweeper::sweep(&*app.store, app.clock.now(), 100).await;
    }
}

async fn shutdown() {
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("shutting down");
}
