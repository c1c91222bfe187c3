//! Metrics as CloudWatch Embedded Metric Format (EMF) lines on stdout.
//!
//! Why EMF: Lambda sends stdout to CloudWatch Logs, and CloudWatch Logs turns every line that
//! follows the EMF specification into metrics. No `PutMetricData` call (no API request, no
//! latency, no IAM permission): the only costs are the log bytes and the custom metrics
//! themselves (docs/operate.md has the month).
//!
//! Why a small writer and not a crate: the metric set is closed (the [`Metric`] enum), one
//! namespace ([`NAMESPACE`]) and two dimensions (`Stage`, and `RouteClass` or `StatusClass` for
//! [`Metric::Request`]); `metrics_cloudwatch_embedded` would bring the `metrics` facade with
//! string-named metrics, `futures` and a service wrapper of its own for a line we write here
//! with `serde_json`, which we have.
//!
//! One line looks like this (the specification:
//! <https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html>):
//!
//! ```json
//! {"_aws":{"Timestamp":1764620000000,"CloudWatchMetrics":[
//!   {"Namespace":"Madang","Dimensions":[["Stage","RouteClass"],["Stage","StatusClass"]],
//!    "Metrics":[{"Name":"Requests","Unit":"Count"}]},
//!   {"Namespace":"Madang","Dimensions":[["Stage"]],
//!    "Metrics":[{"Name":"ActionsApplied","Unit":"Count"},{"Name":"StoreLoadTime","Unit":"Milliseconds"}]}]},
//!  "Stage":"prod","RouteClass":"act","StatusClass":"2xx","Requests":1,"ActionsApplied":1,
//!  "StoreLoadTime":[3.2],"requestId":"…"}
//! ```
//!
//! Metrics are recorded anywhere with [`record`] into one process-wide batch and written by
//! [`flush`]: at the end of every request (the edge layer, [`request_done`]) and of every sweep.
//! A Lambda environment serves one invocation at a time, so a line holds exactly one
//! invocation's metrics, with its request id. Nothing is written unless [`init`] turned the
//! writer on: the Lambda binaries do; the local server only with `MADANG_METRICS=emf`, so its
//! human-readable log stays readable.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::{Method, StatusCode};
use serde_json::{Map, Value, json};

/// The one CloudWatch namespace of every metric.
pub const NAMESPACE: &str = "Madang";

/// EMF allows at most 100 values per metric in one line.
const MAX_VALUES: usize = 100;

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

/// What kind of route a request was for: the `RouteClass` dimension of [`Metric::Request`].
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
    /// The class of a request, from its method and path (the edge layer runs before routing,
    /// so from the path itself; the classes are few and the paths simple).
    pub fn of(method: &Method, path: &str) -> Self {
        let mut segments = path.trim_start_matches('/').split('/');
        match (
            segments.next(),
            segments.next(),
            segments.next(),
            segments.next(),
        ) {
            (Some("rooms"), None, _, _) if method == Method::POST => RouteClass::Create,
            (Some("rooms"), Some(_), Some("players"), None) if method == Method::POST => {
                RouteClass::Join
            }
            (Some("rooms"), Some(_), Some("actions"), None) if method == Method::POST => {
                RouteClass::Act
            }
            (Some("rooms"), Some(_), None | Some("sgf"), None) if method == Method::GET => {
                RouteClass::Read
            }
            _ => RouteClass::Other,
        }
    }

    /// The dimension value.
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

/// The `StatusClass` dimension of [`Metric::Request`]: `2xx`, `3xx`, `4xx` or `5xx`.
pub fn status_class(status: StatusCode) -> &'static str {
    match status.as_u16() {
        500.. => "5xx",
        400..=499 => "4xx",
        300..=399 => "3xx",
        _ => "2xx",
    }
}

/// Every metric the code emits. Other modules call [`record`] with one of these; the names and
/// units on the wire are [`Metric::name`] and [`Metric::unit`] (docs/operate.md lists them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// A request answered (`Requests`), by route class and by status class.
    Request {
        /// The route class.
        route: RouteClass,
        /// The answer's status.
        status: StatusCode,
    },
    /// Versions a landed save added to a room (`ActionsApplied`): every change — an action, a
    /// join, a timeout fired; a create is version 1. Summed over a room's life it is the room's
    /// version.
    ActionsApplied(u64),
    /// A conditional save refused because another change landed first; the work was redone on
    /// the fresh room (`ConflictsRedone`).
    ConflictRedone,
    /// A 409 `VERSION_CONFLICT` answered (`VersionConflicts`).
    VersionConflict,
    /// A 503 `ROOM_BUSY` answered: the room kept changing under every attempt (`RoomBusy`).
    RoomBusy,
    /// An `Idempotency-Key` request answered from its stored result (`IdempotentReplays`).
    IdempotentReplay,
    /// A 429 answered by the per-client or long-poll limits (`RateLimited`).
    RateLimited,
    /// One strongly consistent load of a room by the save path (`StoreLoadTime`).
    StoreLoad(Duration),
    /// One conditional save (or create) of a room (`StoreSaveTime`).
    StoreSave(Duration),
    /// For one sweep: how late the oldest overdue room it found was, 0 when none was
    /// (`SweeperLag`). Written on every sweep, so a missing value means a missing sweep.
    SweeperLag(Duration),
    /// Hook for the live channel: a change posted to a connection (`LivePosts`).
    LivePost,
    /// Hook for the live channel: a post found its connection gone (`LiveGone`).
    LiveGone,
    /// Hook for the live channel: a post that failed otherwise (`LivePostFailures`; alarmed).
    LivePostFailed,
    /// Hook for chat: a chat message accepted (`ChatMessages`).
    ChatMessage,
    /// A computer player's move saved (`BotMoves`): summed, the bots' actions in the rooms' logs.
    BotMove,
    /// The time a computer player's move took to choose, check and apply (`BotMoveTime`), one
    /// value per saved move.
    BotMoveTime(Duration),
    /// A computer player whose engine failed (or chose a move the rules refused), so the game's
    /// fallback was played — 바둑 resigns (`EngineFailures`; per saved move).
    EngineFailure,
}

/// Every metric name with its unit (for documentation, the dashboard and the tests).
pub const NAMES: &[(&str, Unit)] = &[
    ("Requests", Unit::Count),
    ("ActionsApplied", Unit::Count),
    ("ConflictsRedone", Unit::Count),
    ("VersionConflicts", Unit::Count),
    ("RoomBusy", Unit::Count),
    ("IdempotentReplays", Unit::Count),
    ("RateLimited", Unit::Count),
    ("StoreLoadTime", Unit::Milliseconds),
    ("StoreSaveTime", Unit::Milliseconds),
    ("SweeperLag", Unit::Milliseconds),
    ("LivePosts", Unit::Count),
    ("LiveGone", Unit::Count),
    ("LivePostFailures", Unit::Count),
    ("ChatMessages", Unit::Count),
    ("BotMoves", Unit::Count),
    ("BotMoveTime", Unit::Milliseconds),
    ("EngineFailures", Unit::Count),
];

impl Metric {
    /// The metric's name in CloudWatch.
    pub fn name(&self) -> &'static str {
        match self {
            Metric::Request { .. } => "Requests",
            Metric::ActionsApplied(_) => "ActionsApplied",
            Metric::ConflictRedone => "ConflictsRedone",
            Metric::VersionConflict => "VersionConflicts",
            Metric::RoomBusy => "RoomBusy",
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

    /// The value: a count, or a duration in (fractional) milliseconds.
    fn value(&self) -> f64 {
        match self {
            Metric::ActionsApplied(n) => *n as f64,
            Metric::StoreLoad(d)
            | Metric::StoreSave(d)
            | Metric::SweeperLag(d)
            | Metric::BotMoveTime(d) => (d.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
            _ => 1.0,
        }
    }
}

/// Metrics recorded since the last flush.
#[derive(Debug, Default)]
struct Batch {
    /// Requests by (route class, status class).
    requests: BTreeMap<(RouteClass, &'static str), u64>,
    /// Counts by metric name (dimension `Stage` only).
    counts: BTreeMap<&'static str, f64>,
    /// Timings by metric name (dimension `Stage` only), each value kept (CloudWatch builds the
    /// percentiles from them).
    timings: BTreeMap<&'static str, Vec<f64>>,
}

impl Batch {
    fn add(&mut self, metric: Metric) {
        match metric {
            Metric::Request { route, status } => {
                *self
                    .requests
                    .entry((route, status_class(status)))
                    .or_default() += 1;
            }
            m if m.unit() == Unit::Milliseconds => {
                self.timings.entry(m.name()).or_default().push(m.value())
            }
            m => *self.counts.entry(m.name()).or_default() += m.value(),
        }
    }

    fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.counts.is_empty() && self.timings.is_empty()
    }

    /// The batch as EMF lines (without the trailing newline). One line per (route class, status
    /// class) pair of requests; the first line also carries the `Stage`-only metrics, and more
    /// lines follow when a timing has more than [`MAX_VALUES`] values.
    fn render(mut self, stage: &str, timestamp_ms: u64, request_id: Option<&str>) -> Vec<String> {
        let mut lines = Vec::new();
        let mut requests = std::mem::take(&mut self.requests).into_iter();
        loop {
            let pair = requests.next();
            let counts = std::mem::take(&mut self.counts);
            let mut timings = BTreeMap::new();
            for (name, values) in &mut self.timings {
                if !values.is_empty() {
                    let rest = values.split_off(values.len().min(MAX_VALUES));
                    timings.insert(*name, std::mem::replace(values, rest));
                }
            }
            if pair.is_none() && counts.is_empty() && timings.is_empty() {
                break;
            }
            let mut directives = Vec::new();
            let mut line = Map::new();
            line.insert("Stage".into(), json!(stage));
            if let Some(((route, class), n)) = pair {
                directives.push(json!({
                    "Namespace": NAMESPACE,
                    "Dimensions": [["Stage", "RouteClass"], ["Stage", "StatusClass"]],
                    "Metrics": [{"Name": "Requests", "Unit": Unit::Count.as_str()}],
                }));
                line.insert("RouteClass".into(), json!(route.as_str()));
                line.insert("StatusClass".into(), json!(class));
                line.insert("Requests".into(), json!(n));
            }
            let mut staged = Vec::new();
            for (name, total) in counts {
                staged.push(json!({"Name": name, "Unit": Unit::Count.as_str()}));
                line.insert(name.into(), json!(total));
            }
            for (name, values) in timings {
                staged.push(json!({"Name": name, "Unit": Unit::Milliseconds.as_str()}));
                line.insert(name.into(), json!(values));
            }
            if !staged.is_empty() {
                directives.push(json!({
                    "Namespace": NAMESPACE,
                    "Dimensions": [["Stage"]],
                    "Metrics": staged,
                }));
            }
            if let Some(id) = request_id {
                // Not a dimension: a log property, to find the invocation's other lines.
                line.insert("requestId".into(), json!(id));
            }
            line.insert(
                "_aws".into(),
                json!({"Timestamp": timestamp_ms, "CloudWatchMetrics": directives}),
            );
            lines.push(Value::Object(line).to_string());
        }
        lines
    }
}

/// The writer, once [`init`] turned it on.
struct Writer {
    stage: String,
    batch: Mutex<Batch>,
}

static WRITER: OnceLock<Writer> = OnceLock::new();

/// Turns the writer on for this process: metrics are written to stdout with `Stage` = `stage`.
/// A second call changes nothing.
pub fn init(stage: &str) {
    let _ = WRITER.set(Writer {
        stage: stage.to_owned(),
        batch: Mutex::new(Batch::default()),
    });
}

/// Turns the writer on as the environment says: `MADANG_METRICS` = `emf` (on) or `off`, else
/// `default_on`; the stage is `MADANG_STAGE` (the template sets the stack's name), else `local`.
/// Returns whether metrics are on.
pub fn init_from_env(default_on: bool) -> bool {
    let on = match std::env::var("MADANG_METRICS").as_deref() {
        Ok("emf") => true,
        Ok("off") => false,
        _ => default_on,
    };
    if on {
        let stage = std::env::var("MADANG_STAGE").unwrap_or_else(|_| "local".into());
        init(&stage);
    }
    on
}

/// Records one metric (nothing when the writer is off: one atomic load).
pub fn record(metric: Metric) {
    if let Some(writer) = WRITER.get()
        && let Ok(mut batch) = writer.batch.lock()
    {
        batch.add(metric);
    }
}

/// Records the request and writes everything recorded since the last flush: the edge layer
/// calls this once a request is answered.
pub fn request_done(route: RouteClass, status: StatusCode) {
    record(Metric::Request { route, status });
    flush();
}

/// Counts the refusals operators watch, as they are answered: 409 `VERSION_CONFLICT`, 503
/// `ROOM_BUSY`, 429 from the limits.
pub fn refused(error: &crate::ApiError) {
    use crate::ApiError;
    match error {
        ApiError::VersionConflict { .. } => record(Metric::VersionConflict),
        ApiError::Busy => record(Metric::RoomBusy),
        ApiError::RateLimited { .. } | ApiError::TooManyPolls => record(Metric::RateLimited),
        _ => {}
    }
}

/// Writes everything recorded since the last flush to stdout, as EMF lines.
pub fn flush() {
    let Some(writer) = WRITER.get() else {
        return;
    };
    let batch = match writer.batch.lock() {
        Ok(mut batch) => std::mem::take(&mut *batch),
        Err(_) => return,
    };
    if batch.is_empty() {
        return;
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let request_id = crate::telemetry::request_id();
    let mut out = std::io::stdout().lock();
    for line in batch.render(&writer.stage, now, request_id.as_deref()) {
        // One write per line under stdout's lock: a log line cannot land inside it. A failed
        // write (stdout closed) loses metrics, never a request.
        let _ = out.write_all(format!("{line}\n").as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_classed_by_method_and_path() {
        let c = RouteClass::of;
        assert_eq!(c(&Method::POST, "/rooms"), RouteClass::Create);
        assert_eq!(c(&Method::POST, "/rooms/abc/players"), RouteClass::Join);
        assert_eq!(c(&Method::POST, "/rooms/abc/actions"), RouteClass::Act);
        assert_eq!(c(&Method::GET, "/rooms/abc"), RouteClass::Read);
        assert_eq!(c(&Method::GET, "/rooms/abc/sgf"), RouteClass::Read);
        assert_eq!(c(&Method::GET, "/rooms"), RouteClass::Other);
        assert_eq!(c(&Method::GET, "/healthz"), RouteClass::Other);
        assert_eq!(c(&Method::POST, "/rooms/abc/actions/x"), RouteClass::Other);
        assert_eq!(status_class(StatusCode::NOT_MODIFIED), "3xx");
        assert_eq!(status_class(StatusCode::CONFLICT), "4xx");
    }

    #[test]
    fn every_metric_has_the_name_and_unit_of_the_table() {
        let all = [
            Metric::Request {
                route: RouteClass::Act,
                status: StatusCode::OK,
            },
            Metric::ActionsApplied(1),
            Metric::ConflictRedone,
            Metric::VersionConflict,
            Metric::RoomBusy,
            Metric::IdempotentReplay,
            Metric::RateLimited,
            Metric::StoreLoad(Duration::ZERO),
            Metric::StoreSave(Duration::ZERO),
            Metric::SweeperLag(Duration::ZERO),
            Metric::LivePost,
            Metric::LiveGone,
            Metric::LivePostFailed,
            Metric::ChatMessage,
            Metric::BotMove,
            Metric::BotMoveTime(Duration::ZERO),
            Metric::EngineFailure,
        ];
        let named: Vec<(&str, Unit)> = all.iter().map(|m| (m.name(), m.unit())).collect();
        assert_eq!(named, NAMES);
    }

    #[test]
    fn a_batch_renders_as_emf_lines_with_every_value_named_by_a_directive() {
        let mut batch = Batch::default();
        batch.add(Metric::Request {
            route: RouteClass::Act,
            status: StatusCode::OK,
        });
        batch.add(Metric::Request {
            route: RouteClass::Read,
            status: StatusCode::NOT_MODIFIED,
        });
        batch.add(Metric::ActionsApplied(2));
        batch.add(Metric::ActionsApplied(1));
        for ms in 0..150 {
            batch.add(Metric::StoreLoad(Duration::from_millis(ms)));
        }
        let lines = batch.render("test", 1_764_620_000_000, Some("req-1"));
        assert_eq!(lines.len(), 2, "{lines:?}");
        let lines: Vec<Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["RouteClass"], "act");
        assert_eq!(lines[0]["ActionsApplied"], 3.0);
        assert_eq!(lines[0]["StoreLoadTime"].as_array().unwrap().len(), 100);
        assert_eq!(lines[1]["RouteClass"], "read");
        assert_eq!(lines[1]["StatusClass"], "3xx");
        assert_eq!(lines[1]["StoreLoadTime"].as_array().unwrap().len(), 50);
        for line in &lines {
            assert_eq!(line["_aws"]["Timestamp"], 1_764_620_000_000u64);
            assert_eq!(line["requestId"], "req-1");
            for directive in line["_aws"]["CloudWatchMetrics"].as_array().unwrap() {
                assert_eq!(directive["Namespace"], NAMESPACE);
                for set in directive["Dimensions"].as_array().unwrap() {
                    for key in set.as_array().unwrap() {
                        assert!(line[key.as_str().unwrap()].is_string(), "{key}");
                    }
                }
                for metric in directive["Metrics"].as_array().unwrap() {
                    let name = metric["Name"].as_str().unwrap();
                    assert!(line[name].is_number() || line[name].is_array(), "{name}");
                }
            }
        }
    }
}
