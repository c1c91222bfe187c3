//! The local server: the whole API on one process and one SQLite file, no AWS account needed.
//!
//! `cargo run --release --bin madang`. Configuration (environment):
//! - `MADANG_ADDR`: where to listen (default `127.0.0.1:8080`).
//! - `MADANG_DATA`: directory for the database (default `./data`).
//! - `MADANG_DEV=1`: test support (`seed` on create, `POST /dev/clock`), in builds with the `dev`
//!   feature only (the test command's); ignored by every other build.
//! - `MADANG_SYNCHRONOUS`: `full` (default: nothing answered is lost, even to a power cut) or
//!   `normal` (a power cut can lose the last commits); docs/operate.md, "Durability".
//! - `MADANG_STORE=dynamodb`: keep rooms in DynamoDB instead (table `MADANG_TABLE`, default
//!   `madang-rooms`, created with its index when missing; `AWS_ENDPOINT_URL_DYNAMODB` points the
//!   SDK at an emulator such as dynalite or moto).
//! - `MADANG_BOT_THREADS`: how many computer players' searches run at once, each on a blocking
//!   thread of its own (default 1), so a search never stalls the server's I/O.
//! - `MADANG_ORIGIN_SECRET`: behind a CDN that adds it as `X-Madang-Origin`, every request
//!   without it is refused 403 (`EDGE_ONLY`).
//! - `MADANG_LIVE_URL`: the live channel's URL as clients reach it (`ws://` or `wss://`), when
//!   that is not this server's own address (a proxy that serves `/live` elsewhere). Every view's
//!   `liveUrl` names it, and the page's CSP allows its origin. Unset: `ws://{Host}/live`.
//! - Limits (`MADANG_LIMIT_*`, `MADANG_MAX_CONNECTIONS`, `MADANG_HEADER_TIMEOUT_MS`): see the
//!   README's configuration table; the defaults are safe for a public server.
//! - `MADANG_ALLOWED_ORIGINS`: pages of other origins (comma-separated) that may open the live
//!   channel `GET /live`; the server's own origin always may (`MADANG_LIVE_SEND_TIMEOUT_MS`:
//!   how long a socket waits for its client to take a frame, 10 s).
//!
//! SIGTERM and Ctrl-C shut down gracefully: the listener closes and requests in flight finish.

/// mimalloc instead of glibc's malloc: see BENCHMARKS.md ("The action path, profiled").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use madang_functions::announce::{LocalAnnouncer, NoAnnouncer};
use madang_functions::api::origin::OriginSecret;
use madang_functions::app::Limits;
use madang_functions::live::{Live, LiveUrl};
use madang_functions::push::Push;
use madang_functions::telemetry::{self, LogFormat};
use madang_functions::thinker::LocalThinker;
use madang_functions::{App, ChatStore, RoomStore, ServeConfig, router, shutdown_signal, sweeper};
use madang_infra::EmbeddedStore;
use madang_infra::dynamo::{self, DynamoStore};
use madang_infra::embedded::Durability;

/// How often the local sweeper looks for overdue timeouts: a timeout fires at most this late
/// even when nobody polls.
const SWEEP_EVERY: Duration = Duration::from_millis(250);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    telemetry::init(LogFormat::Pretty);
    // Metrics only when asked for (`MADANG_METRICS=emf`): EMF lines would drown the readable log.
    madang_functions::metrics::init_from_env(false);
    let addr: SocketAddr = std::env::var("MADANG_ADDR")
        .unwrap_or_else(|_| "127.0.0.1:8080".into())
        .parse()?;
    let data = PathBuf::from(std::env::var("MADANG_DATA").unwrap_or_else(|_| "./data".into()));
    let dev = madang_functions::app::dev_from_env();
    let limits = Limits::default().with_env()?;
    let config = ServeConfig::default().with_env()?;
    // Behind a CDN or proxy that adds the secret origin header: refuse whatever did not come
    // through it (README, "Configuration").
    let origin = OriginSecret::from_env()?;
    // Computer players search on this many blocking threads at once, never on the runtime.
    let bot_threads = LocalThinker::<EmbeddedStore>::threads_from_env()?;
    // Which pages may open `GET /live` (MADANG_ALLOWED_ORIGINS), its send timeout, and the
    // `liveUrl` views name (MADANG_LIVE_URL).
    let live = Live::from_env()?.with_url(LiveUrl::from_env()?);
    // Web Push: the VAPID key made once into the data directory (MADANG_VAPID_PRIVATE_KEY wins).
    std::fs::create_dir_all(&data)?;
    let push = Push::load_or_create(&data)?;
    match std::env::var("MADANG_STORE").as_deref() {
        Ok("dynamodb") => {
            let table = std::env::var("MADANG_TABLE").unwrap_or_else(|_| "madang-rooms".into());
            let client = dynamo::client_from_env().await;
            dynamo::ensure_table(&client, &table).await?;
            let store = Arc::new(DynamoStore::new(client, table));
            // A sweep queries every index shard: once a second is plenty against a real table.
            // No live channel: other processes may save to the same table, and their saves
            // would never wake this process's sockets.
            let app = App::new(store, Arc::new(NoAnnouncer))
                .with_dev(dev)
                .with_limits(limits)
                .with_origin(origin)
                .with_live(live)
                .with_push(Some(push))
                .with_bot_threads(bot_threads);
            serve(app, addr, config, Duration::from_secs(1)).await
        }
        Ok("embedded") | Err(_) => {
            let durability = match std::env::var("MADANG_SYNCHRONOUS") {
                Ok(value) => Durability::parse(&value)?,
                Err(_) => Durability::default(),
            };
            std::fs::create_dir_all(&data)?;
            let store = Arc::new(EmbeddedStore::open_with(
                &data.join("madang.sqlite3"),
                durability,
            )?);
            // Every save of the file is this process's: its sockets are woken in-process.
            let app = App::new(store, Arc::new(LocalAnnouncer::default()))
                .with_dev(dev)
                .with_limits(limits)
                .with_origin(origin)
                .with_live(live)
                .with_push(Some(push))
                .with_bot_threads(bot_threads);
            serve(app, addr, config, SWEEP_EVERY).await
        }
        Ok(other) => {
            Err(format!("MADANG_STORE must be `embedded` or `dynamodb`, not `{other}`").into())
        }
    }
}

async fn serve<S: RoomStore + ChatStore>(
    app: App<S>,
    addr: SocketAddr,
    config: ServeConfig,
    sweep_every: Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tracing::info!(addr = %bound, dev = app.dev, "madang listening");
    // One plain line on stdout, so scripts and tests that bind port 0 can find the server.
    println!("madang listening on http://{bound}");
    let sweeper = tokio::spawn(sweep_forever(app.clone(), sweep_every));
    madang_functions::serve(router(app), listener, config, shutdown_signal()).await?;
    sweeper.abort();
    tracing::info!("stopped");
    Ok(())
}

async fn sweep_forever<S: RoomStore>(app: App<S>, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        sweeper::sweep_pushing(
            &*app.store,
            &*app.announcer,
            &*app.thinker,
            app.push.get().as_deref(),
            app.clock.now(),
            100,
        )
        .await;
    }
}
