//! Tracing setup: structured fields (`room_id`, `action`, `version`, `latency_us`) on every
//! request span; JSON lines on Lambda (CloudWatch parses them), readable lines locally.

use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line (Lambda).
    Json,
    /// Human-readable (local server).
    Pretty,
}

/// Installs the global subscriber. `RUST_LOG` overrides the default level (`info`).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    // `try_init`: a second call (tests) keeps the first subscriber.
    let _ = match format {
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .without_time()
            .try_init(),
        LogFormat::Pretty => builder.compact().try_init(),
    };
}
