//! Tracing setup: structured fields (`room`, a digest of the room id; `action`, `version`,
//! `latency_us`) on every request span; JSON lines on Lambda (CloudWatch parses them), readable
//! lines locally.
//!
//! No token reaches a log at any level: our own lines never carry one (the span names the route
//! and a room digest, never a header), and the libraries that would print whole requests or
//! events at `debug`/`trace` — the Lambda runtime (the raw event, `Authorization` included),
//! hyper, the AWS SDK's HTTP and signing layers — are held at `info` whatever `RUST_LOG` says
//! ([`QUIET`]).

use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line (Lambda).
    Json,
    /// Human-readable (local server).
    Pretty,
}

/// Targets held at `info` at most, whatever `RUST_LOG` asks: below it they print raw events,
/// request headers or signing material.
pub const QUIET: &[&str] = &[
    "lambda_runtime",
    "lambda_runtime_api_client",
    "lambda_http",
    "aws_lambda_events",
    "hyper",
    "hyper_util",
    "h2",
    "reqwest",
    "aws_smithy_runtime",
    "aws_smithy_runtime_api",
    "aws_smithy_http_client",
    "aws_smithy_http",
    "aws_sigv4",
    "aws_config",
    "aws_sdk_dynamodb",
    "rustls",
    "tower",
    "axum",
];

/// The filter: `RUST_LOG` (default `info`), with every [`QUIET`] target capped at `info`.
pub fn filter() -> EnvFilter {
    let mut filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    for target in QUIET {
        if let Ok(directive) = format!("{target}=info").parse() {
            filter = filter.add_directive(directive);
        }
    }
    filter
}

/// Installs the global subscriber. `RUST_LOG` overrides the default level (`info`), except for
/// the [`QUIET`] targets.
pub fn init(format: LogFormat) {
    let filter = filter();
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
