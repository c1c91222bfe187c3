//! Tracing setup: structured fields (`room`, a digest of the room id; `action`, `version`,
//! `latency_us`) on every request span; JSON lines on Lambda (CloudWatch parses them), readable
//! lines locally.
//!
//! No token reaches a log at any level: our own lines never carry one (the span names the route
//! and a room digest, never a header), and the libraries that would print whole requests or
//! events at `debug`/`trace` — the Lambda runtime (the raw event, `Authorization` included),
//! hyper, the AWS SDK's HTTP and signing layers — are held at `info` whatever `RUST_LOG` says
//! ([`QUIET`]).
//!
//! On Lambda every JSON line of an invocation starts with its `requestId` (as Lambda's own
//! JSON log format writes it): Lambda leaves a custom runtime's lines as they are, so the
//! function writes it itself. The binaries set it with [`set_request_id`] when an invocation
//! starts; one environment serves one invocation at a time, so a process-wide value is right.

use std::fmt;
use std::sync::Mutex;

use tracing::{Event, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::{JsonFields, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

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
    "aws_sdk_apigatewaymanagement",
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

/// The Lambda request id of the invocation being served, if any.
static REQUEST_ID: Mutex<Option<String>> = Mutex::new(None);

/// Sets (or clears) the request id every log line and metric line carries from now on.
pub fn set_request_id(id: Option<&str>) {
    if let Ok(mut current) = REQUEST_ID.lock() {
        *current = id.map(str::to_owned);
    }
}

/// The request id set by [`set_request_id`].
pub fn request_id() -> Option<String> {
    REQUEST_ID.lock().ok().and_then(|id| id.clone())
}

/// The JSON format with `"requestId"` as the first member while an invocation is served.
struct WithRequestId<F>(F);

impl<S, N, F> FormatEvent<S, N> for WithRequestId<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let Some(id) = request_id() else {
            return self.0.format_event(ctx, writer, event);
        };
        let mut line = String::new();
        self.0.format_event(ctx, Writer::new(&mut line), event)?;
        match line.strip_prefix('{') {
            Some(rest) => {
                let id = serde_json::Value::String(id);
                write!(writer, "{{\"requestId\":{id},{rest}")
            }
            None => writer.write_str(&line),
        }
    }
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
            .fmt_fields(JsonFields::new())
            .event_format(WithRequestId(
                tracing_subscriber::fmt::format()
                    .json()
                    .with_current_span(true)
                    .with_target(false)
                    .without_time(),
            ))
            .try_init(),
        LogFormat::Pretty => builder.compact().try_init(),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every AWS SDK client this crate depends on logs requests below `info`: each must be
    /// quiet, and one added to `Cargo.toml` later is caught here.
    #[test]
    fn every_aws_and_http_dependency_is_quiet() {
        let manifest = include_str!("../Cargo.toml");
        let noisy = ["aws-", "lambda_", "hyper", "reqwest", "axum", "tower"];
        for line in manifest.lines() {
            let Some((name, _)) = line.split_once(['.', ' ', '=']) else {
                continue;
            };
            if noisy.iter().any(|p| name.starts_with(p)) {
                let target = name.replace('-', "_");
                assert!(QUIET.contains(&target.as_str()), "{target} is not in QUIET");
            }
        }
    }
}
