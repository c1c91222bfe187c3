//! Metrics as CloudWatch Embedded Metric Format (EMF) lines on stdout: only what AWS cannot see,
//! added up in the process and written at most once a minute.
//!
//! Why EMF: Lambda sends stdout to CloudWatch Logs, and CloudWatch Logs turns every line that
//! follows the EMF specification into metrics. No `PutMetricData` call (no API request, no
//! latency, no IAM permission): the only costs are the log bytes and the custom metrics
//! themselves.
//!
//! Why so few: a custom metric costs $0.30 a month for every hour it receives data, and every
//! log byte is billed; what AWS already measures is free (docs/operate.md, "What watching
//! costs"). So requests, errors, throttles and durations are AWS's own metrics (`AWS/Lambda`
//! `Invocations`, `Errors`, `Throttles`, `Duration`; the front door's `5xx` and request count;
//! `AWS/DynamoDB` consumed units, latency and throttles), and the functions write only what
//! happens inside them ([`WRITTEN`]): conflicts redone, `ROOM_BUSY` and `STORE_UNAVAILABLE`
//! answers, 429s, failed live posts, engine failures, failed Web Pushes, and a sweep more than a
//! sweep late. In a healthy hour none of them happens, so none receives data and none is billed.
//!
//! - **Aggregated in the process.** [`record`] adds to one process-wide batch; [`flush`] (at the
//!   end of every request, sweep and live event) writes the batch as **one line**, and only if
//!   this environment wrote no line in the last [`DEFAULT_EVERY`] (`MADANG_METRICS_EVERY_SECS`
//!   changes it). Otherwise the batch is held and goes out with the first flush after that: at
//!   most one line per execution environment per minute, however busy. The price: an
//!   environment that Lambda shuts down within a minute of its last line loses what it held.
//! - **Only what is not zero.** A metric appears in a line only if something was recorded, so a
//!   failure counter receives data only in the minutes it fails. [`Metric::SweeperLag`] is
//!   written only when a sweep found a room overdue by more than one sweep interval
//!   ([`SWEEP_LATE`]): a sweeper keeping up writes nothing; a sweeper not running at all is
//!   AWS's `Invocations` and `Errors` (its alarms).
//! - **One dimension**, `Stage` (the stack's name).
//! - **A `level` field**: Lambda's log-level filtering (`LoggingConfig.ApplicationLogLevel`)
//!   drops a JSON line below the chosen level and counts a line without `level` as `INFO`. A
//!   metric line carries the function's own level (`AWS_LAMBDA_LOG_LEVEL`,
//!   [`crate::telemetry::lambda_log_level`]), so it passes whatever level is chosen.
//!
//! A line (the specification:
//! <https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html>):
//!
//! ```json
//! {"level":"WARN","Stage":"prod","ConflictsRedone":2,"LivePostFailures":1,
//!  "_aws":{"Timestamp":1764620000000,"CloudWatchMetrics":[{"Namespace":"Madang",
//!   "Dimensions":[["Stage"]],"Metrics":[{"Name":"ConflictsRedone","Unit":"Count"},
//!   {"Name":"LivePostFailures","Unit":"Count"}]}]}}
//! ```
//!
//! Nothing is written unless [`init`] turned the writer on: the Lambda binaries do; the local
//! server only with `MADANG_METRICS=emf`, so its human-readable log stays readable.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::{Method, StatusCode};
use serde_json::{Map, Value, json};

/// The one CloudWatch namespace of every metric.
pub const NAMESPACE: &str = "Madang";

/// How long an environment waits after a line before it writes the next: one line a minute
/// (CloudWatch's standard resolution, so nothing is lost to the graphs or the alarms).
pub const DEFAULT_EVERY: Duration = Duration::from_secs(60);

/// The variable that changes [`DEFAULT_EVERY`] (whole seconds; `0`: a line after every
/// invocation that recorded something, for tests that count exactly).
pub const EVERY_VAR: &str = "MADANG_METRICS_EVERY_SECS";

/// A sweep that fired a room more than this late is written as [`Metric::SweeperLag`]: the
/// sweeper runs every minute, so a room that came due just after a sweep waits up to this long
/// by design; more means a sweep was missed or could not keep up.
pub const SWEEP_LATE: Duration = Duration::from_secs(60);

/// A CloudWatch unit, as EMF spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A count.
    Count,
    /// A duration in milliseconds.
    Milliseconds,
}

impl Unit {
    /// The name EMF and CloudWatch use.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Count => "Count",
            Unit::Milliseconds => "Milliseconds",
        }
    }
}

/// What kind of route a request was for. Not a dimension any more (AWS counts requests); kept
/// because the edge layer names the request's class when it is done ([`request_done`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, strum::VariantArray)]
pub enum RouteClass {
    /// `POST /rooms`.
    Create,
    /// `POST /rooms/{id}/players`.
    Join,
    /// `POST /rooms/{id}/actions`.
    Act,
    /// `GET /rooms/{id}` (polls and long-polls) and `GET /rooms/{id}/sgf`.
    Read,
    /// Everything else: the web client's files, `/healthz`, `/openapi.json`, `/games/*`,
    /// unknown paths.
    Other,
}

impl RouteClass {
    /// The class of a request, from its method and the route it matched, as the router names
    /// it (`/rooms/{id}/actions`; [`crate::api::ROUTES`]): never from the raw path.
    pub fn of(method: &Method, route: &str) -> Self {
        match (method, route) {
            (&Method::POST, "/rooms") => RouteClass::Create,
            (&Method::POST, "/rooms/{id}/players") => RouteClass::Join,
            (&Method::POST, "/rooms/{id}/actions") => RouteClass::Act,
            (&Method::GET, "/rooms/{id}" | "/rooms/{id}/sgf") => RouteClass::Read,
            _ => RouteClass::Other,
        }
    }

    /// The class's name.
    pub fn as_str(self) -> &'static str {
        match self {
            RouteClass::Create => "create",
            RouteClass::Join => "join",
            RouteClass::Act => "act",
            RouteClass::Read => "read",
            RouteClass::Other => "other",
        }
    }
}

/// Every event the code reports. Other modules call [`record`] with one of these; only the
/// ones [`Metric::written`] says are written become metrics (names and units: [`WRITTEN`]);
/// the others are counted by AWS already, or by nobody, and cost one atomic load to record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// A request answered. Not written: `AWS/Lambda` `Invocations`, the front door's count.
    Request {
        /// The route class.
        route: RouteClass,
        /// The answer's status.
        status: StatusCode,
    },
    /// Versions a landed save added to a room. Not written (activity: the DynamoDB write units
    /// and the invocations show it).
    ActionsApplied(u64),
    /// A conditional save refused because another change landed first; the work was redone on
    /// the fresh room (`ConflictsRedone`).
    ConflictRedone,
    /// A 409 `VERSION_CONFLICT` answered: a client acted on a stale room. Not written (the
    /// client's business; the front door's 4xx count).
    VersionConflict,
    /// A 503 `ROOM_BUSY` answered: the room kept changing under every attempt (`RoomBusy`).
    RoomBusy,
    /// A 503 `STORE_UNAVAILABLE` answered: DynamoDB failed, throttled or timed out past the
    /// SDK's retries (`StoreUnavailable`).
    StoreUnavailable,
    /// An `Idempotency-Key` request answered from its stored result. Not written.
    IdempotentReplay,
    /// A 429 answered by the per-client or long-poll limits (`RateLimited`): a flood, or limits
    /// too tight.
    RateLimited,
    /// One load of a room by the save path. Not written: `AWS/DynamoDB`
    /// `SuccessfulRequestLatency`.
    StoreLoad(Duration),
    /// One conditional save (or create) of a room. Not written (as [`Metric::StoreLoad`]).
    StoreSave(Duration),
    /// For one sweep: how late the oldest overdue room it fired was (`SweeperLag`), written
    /// only when more than [`SWEEP_LATE`].
    SweeperLag(Duration),
    /// A change posted to a live connection. Not written: the WebSocket API's `MessageCount`.
    LivePost,
    /// A post found its connection gone (ordinary: phones go away). Not written.
    LiveGone,
    /// A live post that failed otherwise (`LivePostFailures`; alarmed).
    LivePostFailed,
    /// A chat message accepted. Not written.
    ChatMessage,
    /// A computer player's move saved. Not written (the invocations that play them).
    BotMove,
    /// The time a computer player's move took. Not written (the functions' `Duration`).
    BotMoveTime(Duration),
    /// A computer player whose engine failed (or chose a move the rules refused), so the game's
    /// fallback was played — 바둑 resigns (`EngineFailures`; alarmed).
    EngineFailure,
    /// A Web Push that failed: the push service answered an error other than 404/410 (those
    /// only mean the subscription is gone), could not be reached, or had not answered within
    /// the bound of a save's pushes (`PushFailures`; not alarmed, on the dashboard).
    PushFailed,
}

/// Every metric the functions write, with its unit (docs/operate.md, the alarms and the
/// dashboard of template.yaml, and the tests use these names).
pub const WRITTEN: &[(&str, Unit)] = &[
    ("ConflictsRedone", Unit::Count),
    ("RoomBusy", Unit::Count),
    ("StoreUnavailable", Unit::Count),
    ("RateLimited", Unit::Count),
    ("SweeperLag", Unit::Milliseconds),
    ("LivePostFailures", Unit::Count),
    ("EngineFailures", Unit::Count),
    ("PushFailures", Unit::Count),
];

/// The same as [`WRITTEN`] (its name before only the written metrics were listed).
pub const NAMES: &[(&str, Unit)] = WRITTEN;

impl Metric {
    /// The metric's name in CloudWatch (or, for one that is not written, in the code).
    pub fn name(&self) -> &'static str {
        match self {
            Metric::Request { .. } => "Requests",
            Metric::ActionsApplied(_) => "ActionsApplied",
            Metric::ConflictRedone => "ConflictsRedone",
            Metric::VersionConflict => "VersionConflicts",
            Metric::RoomBusy => "RoomBusy",
            Metric::StoreUnavailable => "StoreUnavailable",
            Metric::IdempotentReplay => "IdempotentReplays",
            Metric::RateLimited => "RateLimited",
            Metric::StoreLoad(_) => "StoreLoadTime",
            Metric::StoreSave(_) => "StoreSaveTime",
            Metric::SweeperLag(_) => "SweeperLag",
            Metric::LivePost => "LivePosts",
            Metric::LiveGone => "LiveGone",
            Metric::LivePostFailed => "LivePostFailures",
            Metric::ChatMessage => "ChatMessages",
            Metric::BotMove => "BotMoves",
            Metric::BotMoveTime(_) => "BotMoveTime",
            Metric::EngineFailure => "EngineFailures",
            Metric::PushFailed => "PushFailures",
        }
    }

    /// The metric's unit.
    pub fn unit(&self) -> Unit {
        match self {
            Metric::StoreLoad(_)
            | Metric::StoreSave(_)
            | Metric::SweeperLag(_)
            | Metric::BotMoveTime(_) => Unit::Milliseconds,
            _ => Unit::Count,
        }
    }

    /// Whether this event becomes a metric at all ([`WRITTEN`]); a [`Metric::SweeperLag`] only
    /// when more than [`SWEEP_LATE`].
    pub fn written(&self) -> bool {
        match self {
            Metric::SweeperLag(lag) => *lag > SWEEP_LATE,
            m => WRITTEN.iter().any(|(name, _)| *name == m.name()),
        }
    }
}

/// What was recorded since the last line.
#[derive(Debug, Default)]
struct Batch {
    /// Counts by metric name.
    counts: BTreeMap<&'static str, u64>,
    /// The largest [`Metric::SweeperLag`], in milliseconds.
    lag_ms: Option<u64>,
}

impl Batch {
    fn add(&mut self, metric: Metric) {
        match metric {
            Metric::SweeperLag(lag) => {
                let ms = u64::try_from(lag.as_millis()).unwrap_or(u64::MAX);
                self.lag_ms = Some(self.lag_ms.map_or(ms, |max| max.max(ms)));
            }
            m => *self.counts.entry(m.name()).or_default() += 1,
        }
    }

    fn is_empty(&self) -> bool {
        self.counts.is_empty() && self.lag_ms.is_none()
    }

    /// The batch as one EMF line (without the trailing newline).
    fn render(self, stage: &str, level: &str, timestamp_ms: u64) -> String {
        let mut line = Map::new();
        line.insert("level".into(), json!(level));
        line.insert("Stage".into(), json!(stage));
        let mut names = Vec::new();
        for (name, total) in self.counts {
            names.push(json!({"Name": name, "Unit": Unit::Count.as_str()}));
            line.insert(name.into(), json!(total));
        }
        if let Some(ms) = self.lag_ms {
            names.push(json!({"Name": "SweeperLag", "Unit": Unit::Milliseconds.as_str()}));
            line.insert("SweeperLag".into(), json!(ms));
        }
        line.insert(
            "_aws".into(),
            json!({
                "Timestamp": timestamp_ms,
                "CloudWatchMetrics": [{
                    "Namespace": NAMESPACE,
                    "Dimensions": [["Stage"]],
                    "Metrics": names,
                }],
            }),
        );
        Value::Object(line).to_string()
    }
}

/// The batch and when this environment last wrote a line.
#[derive(Debug, Default)]
struct Held {
    batch: Batch,
    /// Wall-clock milliseconds of the last line (wall clock, not monotonic: a frozen Lambda
    /// environment's monotonic clock may not count the time it was frozen).
    last_line_ms: Option<u64>,
}

/// The writer, once [`init`] turned it on.
struct Writer {
    stage: String,
    level: &'static str,
    every_ms: u64,
    held: Mutex<Held>,
}

static WRITER: OnceLock<Writer> = OnceLock::new();

/// Turns the writer on for this process: metrics are written to stdout with `Stage` = `stage`,
/// at most one line every `every`. A second call changes nothing.
pub fn init(stage: &str, every: Duration) {
    let _ = WRITER.set(Writer {
        stage: stage.to_owned(),
        level: crate::telemetry::lambda_log_level().unwrap_or("INFO"),
        every_ms: u64::try_from(every.as_millis()).unwrap_or(u64::MAX),
        held: Mutex::new(Held::default()),
    });
}

/// Turns the writer on as the environment says: `MADANG_METRICS` = `emf` (on) or `off`, else
/// `default_on`; the stage is `MADANG_STAGE` (the template sets the stack's name), else `local`;
/// the interval [`EVERY_VAR`], else [`DEFAULT_EVERY`]. Returns whether metrics are on.
pub fn init_from_env(default_on: bool) -> bool {
    let on = match std::env::var("MADANG_METRICS").as_deref() {
        Ok("emf") => true,
        Ok("off") => false,
        _ => default_on,
    };
    if on {
        let stage = std::env::var("MADANG_STAGE").unwrap_or_else(|_| "local".into());
        let every = std::env::var(EVERY_VAR)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .map_or(DEFAULT_EVERY, Duration::from_secs);
        init(&stage, every);
    }
    on
}

/// Records one event (nothing when the writer is off or the event is not written: one atomic
/// load and a match).
pub fn record(metric: Metric) {
    if !metric.written() {
        return;
    }
    if let Some(writer) = WRITER.get()
        && let Ok(mut held) = writer.held.lock()
    {
        held.batch.add(metric);
    }
}

/// A request was answered: the edge layer calls this once per request; it writes what is held
/// if a line is due ([`flush`]).
pub fn request_done(_route: RouteClass, _status: StatusCode) {
    flush();
}

/// Counts the refusals operators watch, as they are answered: 503 `ROOM_BUSY` and
/// `STORE_UNAVAILABLE`, 429 from the limits.
pub fn refused(error: &crate::ApiError) {
    use crate::ApiError;
    match error {
        ApiError::Busy => record(Metric::RoomBusy),
        ApiError::Unavailable(_) => record(Metric::StoreUnavailable),
        ApiError::RateLimited { .. } | ApiError::TooManyPolls => record(Metric::RateLimited),
        _ => {}
    }
}

/// Writes what was recorded since the last line, as one EMF line, if there is anything and
/// this environment wrote no line in the last interval; otherwise keeps it for a later flush.
pub fn flush() {
    let Some(writer) = WRITER.get() else {
        return;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let batch = match writer.held.lock() {
        Ok(mut held) => {
            let due = held
                .last_line_ms
                .is_none_or(|last| now >= last.saturating_add(writer.every_ms));
            if held.batch.is_empty() || !due {
                return;
            }
            held.last_line_ms = Some(now);
            std::mem::take(&mut held.batch)
        }
        Err(_) => return,
    };
    let line = batch.render(&writer.stage, writer.level, now);
    // One write under stdout's lock: a log line cannot land inside it. A failed write (stdout
    // closed) loses metrics, never a request.
    let _ = std::io::stdout()
        .lock()
        .write_all(format!("{line}\n").as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_classed_by_method_and_matched_route() {
        // Requests by their raw paths, through the router: `api`'s
        // `requests_are_classed_by_the_route_they_matched`.
        let c = RouteClass::of;
        assert_eq!(c(&Method::POST, "/rooms/{id}/actions"), RouteClass::Act);
        assert_eq!(c(&Method::GET, "/rooms/{id}/at/{n}"), RouteClass::Other);
        // A raw path is not a route.
        assert_eq!(c(&Method::POST, "/rooms/abc/actions"), RouteClass::Other);
    }

    #[test]
    fn only_what_aws_cannot_see_is_written() {
        let written: Vec<&str> = [
            Metric::Request {
                route: RouteClass::Act,
                status: StatusCode::OK,
            },
            Metric::ActionsApplied(1),
            Metric::ConflictRedone,
            Metric::VersionConflict,
            Metric::RoomBusy,
            Metric::StoreUnavailable,
            Metric::IdempotentReplay,
            Metric::RateLimited,
            Metric::StoreLoad(Duration::ZERO),
            Metric::StoreSave(Duration::ZERO),
            Metric::SweeperLag(Duration::from_secs(61)),
            Metric::LivePost,
            Metric::LiveGone,
            Metric::LivePostFailed,
            Metric::ChatMessage,
            Metric::BotMove,
            Metric::BotMoveTime(Duration::ZERO),
            Metric::EngineFailure,
            Metric::PushFailed,
        ]
        .iter()
        .filter(|m| m.written())
        .map(|m| m.name())
        .collect();
        assert_eq!(
            written,
            [
                "ConflictsRedone",
                "RoomBusy",
                "StoreUnavailable",
                "RateLimited",
                "SweeperLag",
                "LivePostFailures",
                "EngineFailures",
                "PushFailures"
            ]
        );
        for (name, _) in WRITTEN {
            assert!(written.contains(name), "{name}");
        }
        // A sweep within one interval of the due time is on time.
        assert!(!Metric::SweeperLag(SWEEP_LATE).written());
        assert!(!Metric::SweeperLag(Duration::ZERO).written());
    }

    #[test]
    fn a_batch_is_one_emf_line_with_every_value_named_and_only_stage() {
        let mut batch = Batch::default();
        batch.add(Metric::ConflictRedone);
        batch.add(Metric::ConflictRedone);
        batch.add(Metric::LivePostFailed);
        batch.add(Metric::SweeperLag(Duration::from_millis(90_500)));
        batch.add(Metric::SweeperLag(Duration::from_millis(130_000)));
        let line: Value =
            serde_json::from_str(&batch.render("test", "WARN", 1_764_620_000_000)).unwrap();
        assert_eq!(line["level"], "WARN");
        assert_eq!(line["Stage"], "test");
        assert_eq!(line["ConflictsRedone"], 2);
        assert_eq!(line["LivePostFailures"], 1);
        assert_eq!(line["SweeperLag"], 130_000, "the largest lag");
        assert_eq!(line["_aws"]["Timestamp"], 1_764_620_000_000u64);
        let directives = line["_aws"]["CloudWatchMetrics"].as_array().unwrap();
        assert_eq!(directives.len(), 1);
        assert_eq!(directives[0]["Namespace"], NAMESPACE);
        assert_eq!(directives[0]["Dimensions"], json!([["Stage"]]));
        let names: Vec<&str> = directives[0]["Metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["Name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["ConflictsRedone", "LivePostFailures", "SweeperLag"]);
        for name in names {
            let unit = WRITTEN.iter().find(|(n, _)| *n == name).unwrap().1;
            let directive = directives[0]["Metrics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["Name"] == name)
                .unwrap();
            assert_eq!(directive["Unit"], unit.as_str());
            assert!(line[name].is_number(), "{name}");
        }
    }
}
