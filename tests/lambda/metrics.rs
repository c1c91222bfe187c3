//! What the functions tell their operator, read from their output as Lambda would keep it: the
//! real `api`, `sweeper` and `live` binaries under the emulator, at the template's log levels
//! (`ApplicationLogLevel` `WARN`: the emulator passes it as `AWS_LAMBDA_LOG_LEVEL`, and
//! [`kept`] applies Lambda's filter to every line).
//!
//! - **No line per request.** Whole games at the default level leave no line Lambda keeps, and
//!   no metric (nothing failed).
//! - **At most one metric line per environment per minute**, however many failures a minute
//!   brings (the 64-client race at the default interval).
//! - **Each metric under its fault**, counted exactly (these stacks write a line after every
//!   invocation that recorded something: `MADANG_METRICS_EVERY_SECS=0`), valid EMF
//!   (`emf.schema.json`, one directive, dimension `Stage` only, names and units of
//!   `madang_functions::metrics::WRITTEN`, a `level` that passes the filter), and **the alarm of
//!   template.yaml that watches it fires** on the values written ([`Alarm`]): conflicts redone
//!   against the refused writes a proxy saw; `ROOM_BUSY` and `STORE_UNAVAILABLE` under a fault
//!   proxy in front of dynalite ([`Fault`]) — the latter from throttled reads of the rooms table
//!   (with the front door's 5xx-rate alarm evaluated on the answers) and from DynamoDB's own
//!   500s on the chat table, both firing StoreUnavailableAlarm; 429s; a sweep more than two sweeps late; a sweep whose due-room
//!   query fails, which fails the run (AWS's `Errors`: FunctionErrorsAlarm, on the account's
//!   sum over every function, evaluated on the failed runs); live posts to an `@connections`
//!   endpoint that answers 500; a computer player whose engine cannot play (a level no
//!   engine knows), which plays the fallback; and Web Pushes whose push service answers 500 or
//!   hangs past the bound (`PushFailures`, on the dashboard, watched by no alarm).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use madang_core::room::{AnyRoom, BOT_THINK_MAX_MS};
use madang_functions::metrics::{NAMESPACE, WRITTEN};
use madang_functions::thinker::lambda::BACKSTOP_AFTER_MS;
use madang_infra::RoomStore;
use madang_tests::dynamo_proxy::{Call, pass_on};
use madang_tests::games::{
    check_a_whole_four_player_team_yut_game, check_a_whole_nine_by_nine_baduk_game,
};
use madang_tests::lambda::{Answer, LambdaStack, StackConfig};
use madang_tests::race::{
    Waiting, check_racing_clients_never_double_apply, check_racing_clients_never_double_apply_for,
};
use madang_tests::store_proxy;
use serde_json::{Value, json};

use crate::{dynalite, dynalite_store};

/// The EMF specification as a JSON schema.
const EMF_SCHEMA: &str = include_str!("emf.schema.json");

/// The template's default `ApplicationLogLevel`.
const LEVEL: &str = "WARN";

/// The template.
const TEMPLATE: &str = include_str!("../../template.yaml");

/// A stack as the template deploys it (`LoggingConfig` at `WARN`), writing a metric line after
/// every invocation that recorded something (so a test counts exactly), with `api_environments`
/// and the live channel if asked.
fn config(api_environments: usize, live: bool) -> StackConfig {
    StackConfig {
        api_environments,
        live,
        log_level: Some(LEVEL.into()),
        env: vec![("MADANG_METRICS_EVERY_SECS".into(), "0".into())],
        ..StackConfig::default()
    }
}

/// Lambda's log-level filter: whether a line at the function's `level` is kept. A line that
/// is not a JSON object with a known `level` counts as `INFO`.
fn kept(line: &str, level: &str) -> bool {
    const ORDER: [&str; 6] = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"];
    let rank = |l: &str| ORDER.iter().position(|o| o.eq_ignore_ascii_case(l));
    let line_level = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|v| v["level"].as_str().and_then(rank))
        .unwrap_or(2);
    line_level >= rank(level).unwrap()
}

/// Every line of the functions' output that Lambda keeps at [`LEVEL`].
fn kept_lines(stack: &LambdaStack) -> Vec<String> {
    ["api", "sweeper", "live", "bot"]
        .iter()
        .flat_map(|b| stack.output_lines(b))
        .filter(|l| kept(l, LEVEL))
        .collect()
}

/// The EMF lines among `lines`, each checked; panics at the first line that is not valid EMF
/// of the metrics the code writes.
fn emf_lines(lines: &[String]) -> Vec<Value> {
    let schema: Value = serde_json::from_str(EMF_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the EMF schema compiles");
    let mut emf = Vec::new();
    for line in lines.iter().filter(|l| l.contains("\"_aws\"")) {
        let value: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("an EMF line is not one JSON object ({e}): {line}"));
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "not EMF: {errors:?}\n{line}");
        assert_eq!(
            value["level"], LEVEL,
            "a metric line passes the filter: {line}"
        );
        let directives = value["_aws"]["CloudWatchMetrics"].as_array().unwrap();
        assert_eq!(directives.len(), 1, "{line}");
        let directive = &directives[0];
        assert_eq!(directive["Namespace"], NAMESPACE, "{line}");
        assert_eq!(directive["Dimensions"], json!([["Stage"]]), "{line}");
        assert!(value["Stage"].is_string(), "{line}");
        for metric in directive["Metrics"].as_array().unwrap() {
            let name = metric["Name"].as_str().unwrap();
            let unit = WRITTEN
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("a metric the code does not write: {name}: {line}"))
                .1;
            assert_eq!(metric["Unit"], unit.as_str(), "{line}");
            assert!(
                value[name].as_f64().is_some_and(|v| v > 0.0),
                "{name} is written only when not zero: {line}"
            );
        }
        emf.push(value);
    }
    emf
}

/// Every value of metric `name` in `lines`.
fn values(lines: &[Value], name: &str) -> Vec<f64> {
    lines.iter().filter_map(|l| l[name].as_f64()).collect()
}

fn total(lines: &[Value], name: &str) -> f64 {
    values(lines, name).iter().sum()
}

/// The EMF lines every function of `stack` wrote (checked).
fn emf_of(stack: &LambdaStack) -> Vec<Value> {
    emf_lines(&kept_lines(stack))
}

/// One alarm of template.yaml on a single metric: its metric, statistic, threshold and
/// comparison, read from the template's text.
struct Alarm {
    name: &'static str,
    metric: String,
    statistic: String,
    threshold: f64,
    comparison: String,
}

/// The block of resource `name` in template.yaml (its lines up to the next resource).
fn resource_block(name: &str) -> Vec<&'static str> {
    let mut lines = TEMPLATE.lines().skip_while(|l| *l != format!("  {name}:"));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{name} is in template.yaml"));
    std::iter::once(first)
        .chain(lines.take_while(|l| !l.starts_with("  ") || l.starts_with("   ")))
        .collect()
}

/// The value of `key:` in a resource block.
fn field<'a>(block: &[&'a str], key: &str) -> Option<&'a str> {
    block
        .iter()
        .find_map(|l| l.trim().strip_prefix(&format!("{key}: ")))
}

impl Alarm {
    fn of(name: &'static str) -> Alarm {
        let block = resource_block(name);
        let get = |key| field(&block, key).unwrap_or_else(|| panic!("{name}: {key}"));
        Alarm {
            name,
            metric: get("MetricName").to_owned(),
            statistic: get("Statistic").to_owned(),
            threshold: get("Threshold").parse().unwrap(),
            comparison: get("ComparisonOperator").to_owned(),
        }
    }

    /// Whether the alarm goes to ALARM when one 5-minute period holds `datapoints` (its
    /// evaluation period is one; every test here runs within one).
    fn fires(&self, datapoints: &[f64]) -> bool {
        if datapoints.is_empty() {
            // Every alarm on a metric of ours treats missing data as not breaching.
            assert!(field(&resource_block(self.name), "TreatMissingData") == Some("notBreaching"));
            return false;
        }
        let value = match self.statistic.as_str() {
            "Sum" => datapoints.iter().sum(),
            "Maximum" => datapoints.iter().copied().fold(f64::MIN, f64::max),
            other => panic!("{}: statistic {other}", self.name),
        };
        match self.comparison.as_str() {
            "GreaterThanThreshold" => value > self.threshold,
            "GreaterThanOrEqualToThreshold" => value >= self.threshold,
            "LessThanThreshold" => value < self.threshold,
            other => panic!("{}: comparison {other}", self.name),
        }
    }

    /// The alarm fires on what the functions wrote of its metric in `lines`.
    fn fires_on(&self, lines: &[Value]) -> bool {
        self.fires(&values(lines, &self.metric))
    }
}

/// The front door's 5xx-rate alarms (the Function URL's and the HTTP API's: one is deployed),
/// evaluated on the answers one period saw: the template's expression,
/// `IF(requests >= 20, 100 * errors / requests, 0)`, against its threshold. Whether both fire.
fn five_xx_alarm_fires(answers: &[StatusCode]) -> bool {
    let fired: Vec<bool> = ["FunctionUrl5xxAlarm", "HttpApi5xxAlarm"]
        .iter()
        .map(|name| {
            let block = resource_block(name);
            assert_eq!(
                field(&block, "Expression"),
                Some("IF(requests >= 20, 100 * errors / requests, 0)"),
                "{name}: the expression evaluated here"
            );
            let threshold: f64 = field(&block, "Threshold").unwrap().parse().unwrap();
            let requests = answers.len() as f64;
            let errors = answers.iter().filter(|s| s.is_server_error()).count() as f64;
            let rate = if requests >= 20.0 {
                100.0 * errors / requests
            } else {
                0.0
            };
            rate > threshold
        })
        .collect();
    assert_eq!(fired[0], fired[1], "the two doors' alarms agree");
    fired[0]
}

/// A fault the proxy in front of dynalite injects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// Forwards every call.
    None,
    /// Refuses every version-conditioned write of a room (a save or reindex) with
    /// `ConditionalCheckFailedException`, as if another change had always just landed.
    RefuseSaves,
    /// Throttles every read of a room (`ProvisionedThroughputExceededException`): DynamoDB over
    /// its capacity. The dev clock's reads pass.
    ThrottleReads,
    /// Fails the sweeper's query of the due index (`InternalServerError`).
    FailDueQuery,
    /// Fails every write to the chat table (`InternalServerError`): DynamoDB's own 5xx, on a
    /// table other than the rooms table.
    FailChatWrites,
}

/// A proxy in front of dynalite that injects [`Fault`]s.
struct FaultProxy {
    url: String,
    fault: Arc<Mutex<Fault>>,
    /// Calls it answered with a fault.
    injected: Arc<AtomicU64>,
}

impl FaultProxy {
    fn set(&self, fault: Fault) {
        *self.fault.lock().unwrap() = fault;
    }
}

#[derive(Clone)]
struct Upstream {
    base: String,
    http: reqwest::Client,
    fault: Arc<Mutex<Fault>>,
    injected: Arc<AtomicU64>,
}

async fn start_fault_proxy(upstream: &str) -> FaultProxy {
    let fault = Arc::new(Mutex::new(Fault::None));
    let injected = Arc::new(AtomicU64::new(0));
    let state = Upstream {
        base: upstream.trim_end_matches('/').to_owned(),
        http: reqwest::Client::new(),
        fault: fault.clone(),
        injected: injected.clone(),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let routes = Router::new().fallback(forward).with_state(state);
    tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    FaultProxy {
        url: format!("http://{addr}"),
        fault,
        injected,
    }
}

/// A DynamoDB error answer (JSON 1.0 protocol).
pub(super) fn dynamo_error(status: StatusCode, kind: &str, message: &str) -> Response {
    let body =
        json!({"__type": format!("com.amazonaws.dynamodb.v20120810#{kind}"), "message": message});
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        "content-type",
        "application/x-amz-json-1.0".parse().unwrap(),
    );
    response
        .headers_mut()
        .insert("x-amzn-errortype", kind.parse().unwrap());
    response
}

async fn forward(State(up): State<Upstream>, request: Request) -> Response {
    let call = Call::read(request).await;
    let target = call.target();
    let sent: Value = serde_json::from_slice(&call.body).unwrap_or(Value::Null);
    let fault = *up.fault.lock().unwrap();
    let injected = match fault {
        Fault::RefuseSaves
            if target.ends_with(".UpdateItem")
                && sent["ConditionExpression"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("v = :expected")) =>
        {
            Some(dynamo_error(
                StatusCode::BAD_REQUEST,
                "ConditionalCheckFailedException",
                "The conditional request failed",
            ))
        }
        Fault::ThrottleReads
            if target.ends_with(".GetItem")
                && !sent["Key"]["id"]["S"]
                    .as_str()
                    .is_some_and(|id| id.starts_with('#')) =>
        {
            Some(dynamo_error(
                StatusCode::BAD_REQUEST,
                "ProvisionedThroughputExceededException",
                "The level of configured provisioned throughput for the table was exceeded.",
            ))
        }
        Fault::FailDueQuery if target.ends_with(".Query") && sent["IndexName"] == "due" => {
            Some(dynamo_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalServerError",
                "Internal server error",
            ))
        }
        Fault::FailChatWrites
            if target.ends_with(".PutItem")
                && sent["TableName"]
                    .as_str()
                    .is_some_and(|t| t.ends_with("-chat")) =>
        {
            Some(dynamo_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalServerError",
                "Internal server error",
            ))
        }
        _ => None,
    };
    if let Some(answer) = injected {
        up.injected.fetch_add(1, Ordering::SeqCst);
        return answer;
    }
    match pass_on(&up.http, &up.base, &call, call.body.clone()).await {
        Some(answer) => answer.into_response(),
        None => StatusCode::BAD_GATEWAY.into_response(),
    }
}

/// A stack on a fresh table whose functions reach dynalite through a [`FaultProxy`].
async fn faulty_stack(tag: &str, config: StackConfig) -> (LambdaStack, FaultProxy) {
    let store = Arc::new(dynalite_store(tag).await);
    let proxy = start_fault_proxy(&dynalite()).await;
    let stack = LambdaStack::start(store, &proxy.url, config).await;
    (stack, proxy)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_games_at_the_default_level_leave_no_line_per_request_and_no_metric() {
    let (stack, _proxy) = faulty_stack("l-quiet", config(2, false)).await;
    check_a_whole_four_player_team_yut_game(&stack.app).await;
    check_a_whole_nine_by_nine_baduk_game(&stack.app).await;
    for _ in 0..3 {
        stack.sweep().await;
    }
    let written: usize = ["api", "sweeper", "live"]
        .iter()
        .map(|b| stack.output_lines(b).len())
        .sum();
    let kept = kept_lines(&stack);
    let requests = stack.front_requests();
    println!(
        "{requests} requests, 3 sweeps: {written} lines written, {} kept by Lambda at {LEVEL}",
        kept.len()
    );
    assert!(requests > 200, "{requests}");
    // The functions do not even write what Lambda would drop: their filter starts at its level.
    assert_eq!(written, kept.len(), "lines written below {LEVEL}");
    assert!(
        kept.is_empty(),
        "no line at {LEVEL} in healthy games (no metric either: nothing failed): {kept:#?}"
    );
}

/// How the racing devices of the player not on turn wait through the emulator: a read every
/// 200 ms (a long-poll would hold one of the four `api` environments for its whole wait).
const RACE_WAITING: Waiting = Waiting::Poll(Duration::from_millis(200));

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_racing_clients_through_lambda_never_double_apply_and_write_a_metric_line_a_minute()
 {
    // The whole race (120 actions) through the four `api` environments, at the template's
    // metric interval (no MADANG_METRICS_EVERY_SECS): nothing is applied twice, and the race,
    // which makes every environment redo conflicts in most of its invocations, still leaves at
    // most one metric line per environment per minute. One race for both: each costs the suite
    // over a minute.
    let store = Arc::new(dynalite_store("l-metrics-minute").await);
    let proxy = store_proxy::start(&dynalite()).await;
    let config = StackConfig {
        log_level: Some(LEVEL.into()),
        ..StackConfig::default()
    };
    let stack = LambdaStack::start(store, &proxy.url, config).await;
    let started = std::time::Instant::now();
    let app = Arc::new(madang_tests::TestApp {
        base: stack.app.base.clone(),
        http: stack.app.http.clone(),
        embedded: None,
    });
    check_racing_clients_never_double_apply(app, RACE_WAITING).await;
    let minutes = started.elapsed().as_secs_f64() / 60.0;
    let served: Vec<usize> = stack
        .api_timings()
        .iter()
        .map(|t| t.invocations.len())
        .collect();
    assert!(
        served.iter().all(|&n| n > 0),
        "every environment served some of the race: {served:?}"
    );
    let refused = proxy.refused_version_writes();
    assert!(refused > 0, "the race made the store refuse writes");
    let mut lines = 0;
    let mut counted = 0.0;
    for env in 0.. {
        let path = stack.logs().join(format!("api-{env}.log"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            break;
        };
        let out: Vec<String> = text.lines().map(str::to_owned).collect();
        let emf = emf_lines(&out);
        let stamps: Vec<u64> = emf
            .iter()
            .map(|l| l["_aws"]["Timestamp"].as_u64().unwrap())
            .collect();
        for pair in stamps.windows(2) {
            assert!(
                pair[1] >= pair[0] + 60_000,
                "environment {env}: lines {} ms apart",
                pair[1] - pair[0]
            );
        }
        assert!(
            emf.len() as f64 <= 1.0 + minutes.floor(),
            "environment {env}: {} lines in {minutes:.2} min",
            emf.len()
        );
        lines += emf.len();
        counted += total(&emf, "ConflictsRedone");
    }
    // What an environment still holds goes out with its first invocation a minute on.
    assert!(counted <= refused as f64, "{counted} > {refused}");
    println!(
        "race: {refused} refused writes in {minutes:.2} min; {lines} EMF lines from 4 environments, carrying {counted} conflicts (the rest held for the next minute)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflicts_redone_are_the_writes_the_store_refused_in_a_64_client_race() {
    let store = Arc::new(dynalite_store("l-metrics-race").await);
    let proxy = store_proxy::start(&dynalite()).await;
    let stack = LambdaStack::start(store, &proxy.url, config(4, false)).await;
    let app = Arc::new(madang_tests::TestApp {
        base: stack.app.base.clone(),
        http: stack.app.http.clone(),
        embedded: None,
    });
    // 40 actions are enough to make the store refuse writes; the whole race is run above.
    check_racing_clients_never_double_apply_for(app, 40, RACE_WAITING).await;
    let emf = emf_of(&stack);
    let conflicts = total(&emf, "ConflictsRedone") as u64;
    assert!(
        conflicts > 0,
        "64 clients on one room make the store refuse some writes"
    );
    assert_eq!(conflicts, proxy.refused_version_writes());
    println!(
        "race: {conflicts} conflicts redone = refused writes, in {} lines",
        emf.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_that_changes_under_every_save_is_counted_room_busy() {
    let (stack, proxy) = faulty_stack("l-busy", config(1, false)).await;
    let (room, host) = stack.app.create("yut", json!({}), 3).await;
    stack.app.join(&room, "b").await;
    proxy.set(Fault::RefuseSaves);
    let r = stack.app.act(&room, &host, json!({"type": "start"})).await;
    proxy.set(Fault::None);
    assert_eq!(r.status, reqwest::StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.body["code"], "ROOM_BUSY");
    let emf = emf_of(&stack);
    assert_eq!(total(&emf, "RoomBusy"), 1.0);
    let refused = proxy.injected.load(Ordering::SeqCst);
    assert_eq!(total(&emf, "ConflictsRedone"), refused as f64, "{emf:?}");
    println!("ROOM_BUSY after {refused} refused saves: {emf:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throttled_table_is_counted_store_unavailable_and_trips_both_alarms() {
    let (stack, proxy) = faulty_stack("l-throttled", config(2, false)).await;
    let (room, host) = stack.app.create("yut", json!({}), 4).await;
    let healthy: Vec<StatusCode> = read_n(&stack, &room, &host.token, 20).await;
    assert!(!five_xx_alarm_fires(&healthy), "{healthy:?}");
    let alarm = Alarm::of("StoreUnavailableAlarm");
    assert!(
        !alarm.fires_on(&emf_of(&stack)),
        "nothing written while healthy"
    );
    proxy.set(Fault::ThrottleReads);
    let throttled = read_n(&stack, &room, &host.token, 20).await;
    proxy.set(Fault::None);
    assert!(
        throttled
            .iter()
            .all(|s| *s == StatusCode::SERVICE_UNAVAILABLE),
        "{throttled:?}"
    );
    assert!(five_xx_alarm_fires(&throttled));
    let emf = emf_of(&stack);
    assert_eq!(total(&emf, "StoreUnavailable"), 20.0, "{emf:?}");
    // The table's throttles that reached a player page: StoreUnavailableAlarm, on the line the
    // functions wrote.
    assert!(alarm.fires_on(&emf), "{emf:?}");
    // The STORE_UNAVAILABLE answers' ERROR lines are kept too (with their cause).
    let errors = kept_lines(&stack)
        .iter()
        .filter(|l| l.contains("\"level\":\"ERROR\"") && l.contains("STORE_UNAVAILABLE"))
        .count();
    assert_eq!(errors, 20);
    println!(
        "throttled reads: {} throttles answered by the proxy, 20 × 503, {} metric lines",
        proxy.injected.load(Ordering::SeqCst),
        emf.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_errors_of_the_chat_table_are_counted_and_trip_the_store_alarm() {
    let (stack, proxy) = faulty_stack("l-chat-500", config(2, false)).await;
    let (room, host) = stack.app.create("yut", json!({}), 4).await;
    madang_tests::chat::say_ok(&stack.app, &room, Some(&host), json!({ "text": "안녕" })).await;
    let alarm = Alarm::of("StoreUnavailableAlarm");
    assert!(
        !alarm.fires_on(&emf_of(&stack)),
        "nothing written while healthy"
    );
    proxy.set(Fault::FailChatWrites);
    let r = madang_tests::chat::say(&stack.app, &room, Some(&host), json!({ "text": "또" })).await;
    proxy.set(Fault::None);
    assert_eq!(
        r.status,
        reqwest::StatusCode::SERVICE_UNAVAILABLE,
        "{:?}",
        r.body
    );
    assert_eq!(r.body["code"], "STORE_UNAVAILABLE");
    let emf = emf_of(&stack);
    assert_eq!(total(&emf, "StoreUnavailable"), 1.0, "{emf:?}");
    assert!(alarm.fires_on(&emf), "{emf:?}");
    println!(
        "chat writes failed: {} answered 500 by the proxy (the SDK's retries included), 1 × 503",
        proxy.injected.load(Ordering::SeqCst)
    );
}

/// `n` reads of `room` through the front door; their statuses.
async fn read_n(stack: &LambdaStack, room: &str, token: &str, n: usize) -> Vec<StatusCode> {
    let mut out = Vec::new();
    for _ in 0..n {
        let r = stack
            .app
            .http
            .get(format!("{}/rooms/{room}", stack.app.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        let status = StatusCode::from_u16(r.status().as_u16()).unwrap();
        if status.is_server_error() {
            assert_eq!(
                r.headers()["content-type"],
                "application/problem+json",
                "a clean 503"
            );
        }
        out.push(status);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_of_the_per_client_limits_are_counted_rate_limited() {
    let mut config = config(1, false);
    config
        .api_env
        .push(("MADANG_LIMIT_CREATES_PER_MIN".into(), "2".into()));
    let (stack, _proxy) = faulty_stack("l-limited", config).await;
    let mut refused = 0;
    for i in 0..5 {
        let r = stack
            .app
            .post(
                "/rooms",
                None,
                json!({"game": "yut", "name": "방장", "options": {}, "seed": i}),
            )
            .await;
        if r.status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            refused += 1;
        }
    }
    assert_eq!(refused, 3);
    let emf = emf_of(&stack);
    assert_eq!(total(&emf, "RateLimited"), 3.0, "{emf:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_two_sweeps_late_is_written_and_trips_the_lag_alarm() {
    let (stack, _proxy) = faulty_stack("l-lag", config(1, false)).await;
    // On time: a turn that ran out 30 s ago with nobody polling is fired within a sweep.
    let (late, host) = stack.app.create("yut", json!({"turnSeconds": 15}), 5).await;
    stack.app.join(&late, "b").await;
    stack
        .app
        .act_ok(&late, &host, json!({"type": "start"}))
        .await;
    stack.app.advance_clock(45_000).await;
    let on_time = stack.sweep().await;
    assert!(on_time["timeoutsFired"].as_u64().unwrap() >= 1, "{on_time}");
    let alarm = Alarm::of("SweeperLagAlarm");
    assert!(!alarm.fires_on(&emf_of(&stack)), "no lag written on time");
    assert_eq!(total(&emf_of(&stack), "SweeperLag"), 0.0);
    // Late: the next turn ran out 3 minutes before a sweep came (sweeps were missed).
    stack.app.advance_clock(195_000).await;
    let report = stack.sweep().await;
    assert!(report["timeoutsFired"].as_u64().unwrap() >= 1, "{report}");
    let emf = emf_of(&stack);
    let lags = values(&emf, "SweeperLag");
    assert_eq!(lags.len(), 1, "{emf:?}");
    assert!((120_000.0..240_000.0).contains(&lags[0]), "{lags:?}");
    assert!(alarm.fires_on(&emf));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_whose_due_query_fails_fails_its_run_and_trips_the_function_errors_alarm() {
    let (stack, proxy) = faulty_stack("l-missed", config(1, false)).await;
    let (room, host) = stack.app.create("yut", json!({"turnSeconds": 15}), 6).await;
    stack.app.join(&room, "b").await;
    stack
        .app
        .act_ok(&room, &host, json!({"type": "start"}))
        .await;
    stack.app.advance_clock(30_000).await;
    assert!(matches!(
        stack.sweep_answer().await,
        Some(Answer::Response(_))
    ));
    // AWS/Lambda Errors counts failed runs; the alarm sums them over every function of the
    // account (no dimension: the sweeper's runs are in it, nothing else failed here): Sum over
    // 5 minutes ≥ its threshold.
    let block = resource_block("FunctionErrorsAlarm");
    assert_eq!(field(&block, "Namespace"), Some("AWS/Lambda"));
    assert_eq!(field(&block, "MetricName"), Some("Errors"));
    assert_eq!(field(&block, "Statistic"), Some("Sum"));
    assert_eq!(
        field(&block, "ComparisonOperator"),
        Some("GreaterThanOrEqualToThreshold")
    );
    assert!(
        !block.iter().any(|l| l.trim().starts_with("Dimensions:")),
        "the account's metric, every function's failures: {block:?}"
    );
    let threshold: usize = field(&block, "Threshold").unwrap().parse().unwrap();
    proxy.set(Fault::FailDueQuery);
    let mut failed = 0;
    for _ in 0..threshold {
        if let Some(Answer::Error(body)) = stack.sweep_answer().await {
            assert!(String::from_utf8_lossy(&body).contains("due-room query failed"));
            failed += 1;
        }
    }
    proxy.set(Fault::None);
    assert_eq!(failed, threshold, "every missed run failed");
    // The failed query's ERROR line is kept at the default level.
    assert!(
        kept_lines(&stack)
            .iter()
            .any(|l| l.contains("due-room query failed"))
    );
    // And the next run sweeps again.
    let report = stack.sweep().await;
    assert_eq!(report["errors"], 0, "{report}");
}

/// A server answering every `@connections` post with 500, as a failing management API would.
async fn failing_connections_endpoint() -> (String, Arc<AtomicU64>) {
    let posts = Arc::new(AtomicU64::new(0));
    let counted = posts.clone();
    let routes = Router::new().fallback(move || {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                [("x-amzn-errortype", "InternalServerErrorException")],
                r#"{"message":"Internal server error"}"#,
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    (format!("http://{addr}/live"), posts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_posts_that_fail_are_counted_and_trip_their_alarm() {
    let (endpoint, attempts) = failing_connections_endpoint().await;
    let mut config = config(1, true);
    // The api posts to a management API that fails; the live function registers connections
    // through the real front.
    config
        .api_env
        .push(("MADANG_LIVE_ENDPOINT".into(), endpoint));
    let (stack, _proxy) = faulty_stack("l-live-fail", config).await;
    let (room, host) = stack.app.create("yut", json!({}), 7).await;
    let url = stack.live_url().unwrap();
    let mut listener = madang_tests::live::Live::watch(&url, &room, Some(&host.token), 1).await;
    listener.ready().await;
    let alarm = Alarm::of("LivePostFailuresAlarm");
    // Chat messages, each posted to the one connection (the sender's own sees it too), five
    // per ten seconds (the chat's rate).
    let messages = alarm.threshold as usize;
    for i in 0..messages {
        if i > 0 && i % 5 == 0 {
            stack.app.advance_clock(10_000).await;
        }
        madang_tests::chat::say_ok(&stack.app, &room, Some(&host), json!({ "text": "안녕" })).await;
    }
    let emf = emf_of(&stack);
    assert_eq!(
        total(&emf, "LivePostFailures"),
        messages as f64,
        "one failed post per message to the one connection: {emf:?}"
    );
    assert!(alarm.fires_on(&emf));
    assert!(attempts.load(Ordering::SeqCst) >= messages as u64);
}

/// A 9줄 바둑 room against a computer player (black, to move) whose level no engine knows: as
/// a room stored by a build with more levels would be. Returns the room and the human.
async fn room_with_an_unknown_bot_level(
    stack: &LambdaStack,
    seed: u64,
) -> (String, madang_tests::Player) {
    let (room, host) = stack
        .app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostWhite"}),
            seed,
        )
        .await;
    stack
        .app
        .act_ok(&room, &host, json!({"type": "addBot", "level": 1}))
        .await;
    stack
        .app
        .act_ok(&room, &host, json!({"type": "start"}))
        .await;
    let now = madang_tests::bots::server_now(&stack.app).await;
    let mut stored = stack
        .store
        .load(&madang_core::room::RoomId::parse(&room).unwrap(), now)
        .await
        .unwrap();
    let AnyRoom::Baduk(mut baduk) = AnyRoom::decode(&stored.body).unwrap() else {
        panic!("a 바둑 room");
    };
    for seat in &mut baduk.seats {
        if seat.bot.is_some() {
            seat.bot = Some(200);
        }
    }
    let expected = stored.version;
    baduk.version += 1;
    stored.version = baduk.version;
    stored.body = AnyRoom::from(baduk).encode();
    stack
        .store
        .save_if_version(&stored, expected)
        .await
        .unwrap();
    (room, host)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computer_player_whose_engine_fails_is_counted_and_trips_its_alarm() {
    let (stack, _proxy) = faulty_stack("l-engine", config(1, false)).await;
    let alarm = Alarm::of("EngineFailuresAlarm");
    let mut rooms = Vec::new();
    for seed in 0..alarm.threshold as u64 {
        rooms.push(room_with_an_unknown_bot_level(&stack, 3300 + seed).await);
    }
    // The rooms were rewritten behind the save path, which cues no search: a plan the bot
    // function kept for the version before is gone with that write. So the move is long
    // overdue when the human reads, and the read hands it to the bot function (the backstop
    // for a lost invocation; the read answers without it), which plays it at once.
    stack
        .app
        .advance_clock(BACKSTOP_AFTER_MS + BOT_THINK_MAX_MS + 100)
        .await;
    for (room, host) in &rooms {
        stack.app.room(room, Some(host)).await;
    }
    stack.bots_done().await;
    for (room, host) in &rooms {
        // The bot function's engine cannot play: the fallback resigned.
        let view = stack.app.room(room, Some(host)).await;
        assert_eq!(view["status"], "finished", "{}", view["result"]);
        assert_eq!(view["result"]["reason"], "resign", "{}", view["result"]);
    }
    let emf = emf_of(&stack);
    assert_eq!(total(&emf, "EngineFailures"), rooms.len() as f64, "{emf:?}");
    assert!(alarm.fires_on(&emf));
    let warned = kept_lines(&stack)
        .iter()
        .filter(|l| l.contains("engine failed"))
        .count();
    assert_eq!(warned, rooms.len(), "each with its WARN line");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_reports_the_build_and_the_store_without_a_write() {
    let store = Arc::new(dynalite_store("l-health").await);
    let proxy = store_proxy::start(&dynalite()).await;
    let config = StackConfig {
        api_environments: 1,
        ..StackConfig::default()
    };
    let stack = LambdaStack::start(store.clone(), &proxy.url, config.clone()).await;
    let writes = proxy.writes();
    for _ in 0..5 {
        let r = stack.app.get("/healthz", None).await;
        assert_eq!(r.status, reqwest::StatusCode::OK, "{:?}", r.body);
        assert_eq!(r.body["status"], "ok");
        assert_eq!(r.body["store"], "ok");
        assert_eq!(r.body["version"], env!("CARGO_PKG_VERSION"));
        assert!(r.body["gitSha"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(r.body["now"].is_u64());
    }
    assert_eq!(proxy.writes(), writes, "a health check never writes");

    // A store that does not answer: 503 problem+json (the document holds its shape).
    let down = LambdaStack::start(store, "http://127.0.0.1:9", config).await;
    let r = down.app.get("/healthz", None).await;
    assert_eq!(
        r.status,
        reqwest::StatusCode::SERVICE_UNAVAILABLE,
        "{:?}",
        r.body
    );
    assert_eq!(r.headers["content-type"], "application/problem+json");
}

/// Every JSON log line written inside an invocation starts with that invocation's request id
/// (at `INFO`, the emulator's default without a log level, where there are such lines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_log_line_of_an_invocation_carries_its_request_id() {
    let stack = crate::stack("l-request-ids", StackConfig::default()).await;
    check_a_whole_nine_by_nine_baduk_game(&stack.app).await;
    stack.sweep().await;
    let mut checked = 0;
    for line in ["api", "sweeper"]
        .iter()
        .flat_map(|b| stack.output_lines(b))
        .filter(|l| !l.contains("\"_aws\""))
    {
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            panic!("a log line that is not JSON: {line}");
        };
        assert!(value["level"].is_string(), "{line}");
        let Some(root) = value["spans"].as_array().and_then(|s| s.first()) else {
            continue;
        };
        if root["name"] == "Lambda runtime invoke" {
            assert!(line.starts_with("{\"requestId\":"), "{line}");
            assert_eq!(value["requestId"], root["requestId"], "{line}");
            checked += 1;
        }
    }
    assert!(
        checked as u64 >= stack.front_requests(),
        "{checked} lines with a request id"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushes_that_fail_or_hang_are_counted_push_failures_and_watched_by_no_alarm() {
    let mut config = config(1, false);
    // The template's MADANG_PUSH=on with an operator's own key: the key wins, the table is not
    // read for one.
    config.env.extend([
        ("MADANG_PUSH".to_owned(), "on".to_owned()),
        (
            "MADANG_VAPID_PRIVATE_KEY".to_owned(),
            "Vq3kTz8yPw2LmN4bX7cR1sD9fG5hJ6aE0uI2oY8tK3nB7vC4xZ1qW9eR5tY2uI6o".to_owned(),
        ),
        ("MADANG_PUSH_HOSTS".to_owned(), "127.0.0.1".to_owned()),
    ]);
    let (stack, _proxy) = faulty_stack("l-push-fail", config).await;
    let app = &stack.app;
    let key = app.get("/push", None).await.body["publicKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let service = madang_tests::push_service::PushService::start(&key);
    let (room, black) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostBlack",
                   "timeControl": {"kind": "correspondence", "daysPerMove": 1}}),
            13,
        )
        .await;
    let white = app.join(&room, "손자").await;
    // White's phones: one whose push service answers 500, one whose push service hangs.
    for name in ["fail-white", "stall-white"] {
        let r = app
            .send(
                reqwest::Method::PUT,
                &format!("/rooms/{room}/push"),
                Some(&white.token),
                Some(service.subscription(name)),
            )
            .await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{:?}", r.body);
    }
    app.act_ok(&room, &black, json!({"type": "start"})).await;
    app.advance_clock(60_000).await;
    app.act_ok(&room, &black, json!({"type": "place", "x": 2, "y": 2}))
        .await;
    assert_eq!(service.received_at("fail-white").await.len(), 1);
    assert_eq!(service.received_at("stall-white").await.len(), 1);
    let emf = emf_of(&stack);
    assert_eq!(
        total(&emf, "PushFailures"),
        2.0,
        "the 500 and the push still unanswered at the bound: {emf:?}"
    );
    // Counted for the dashboard, and no alarm watches it (each alarm costs money).
    assert!(!TEMPLATE.contains("MetricName: PushFailures"));
    let warned = kept_lines(&stack);
    assert!(
        warned.iter().any(|l| l.contains("push failed")),
        "{warned:?}"
    );
    assert!(
        warned.iter().any(|l| l.contains("push timed out")),
        "{warned:?}"
    );
}
