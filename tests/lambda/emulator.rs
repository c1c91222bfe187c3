//! A Lambda Runtime API emulator that runs the real `api`, `sweeper` and `bot` binaries the way
//! AWS Lambda does, for the `lambda` test suite and the `wake_latency` tool.
//!
//! - **Execution environments.** Each environment is a separate process of the real binary
//!   (`target/debug/api`, built by `cargo build` first), started with the environment Lambda
//!   gives a `provided.al2023` function (`AWS_LAMBDA_RUNTIME_API`, `AWS_LAMBDA_FUNCTION_NAME`,
//!   `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`, `AWS_LAMBDA_FUNCTION_VERSION`, log group and stream,
//!   region and credentials, `_HANDLER`, `LAMBDA_TASK_ROOT`, and nothing of the test's own
//!   environment), plus the template's variables (`MADANG_STORE`, `MADANG_TABLE`) and
//!   `AWS_ENDPOINT_URL_DYNAMODB` pointing at dynalite. Every environment has a Runtime API
//!   endpoint of its own on loopback, so the emulator knows which one asks, and when.
//! - **The Runtime API.** `GET /2018-06-01/runtime/invocation/next` hands out the next event of
//!   the function's queue, with the `Lambda-Runtime-*` headers; `POST …/{id}/response` and
//!   `…/{id}/error` answer it; `POST …/init/error` reports a failed init. An environment asks for
//!   the next event only once it answered the last, so one environment serves one request at a
//!   time, and an event waits in the queue until an environment is free — as on Lambda.
//! - **The front door.** An ordinary HTTP listener on loopback turns every request into an API
//!   Gateway HTTP API event, payload format 2.0 (`routeKey` `ANY /{proxy+}`,
//!   `pathParameters.proxy`, `rawPath`, `rawQueryString`, `queryStringParameters`, lower-case
//!   headers with repeated ones joined by commas, `cookies`, text or base64 bodies,
//!   `requestContext.http.sourceIp`, stage `$default`) — or, with [`FrontDoor::FunctionUrl`], the
//!   same format as a Lambda Function URL sends it (`routeKey` `$default`, no path parameters) —
//!   and the function's answer back into HTTP, so the game drivers of `madang_tests` run against
//!   it unchanged. `/` does not match `/{proxy+}`: as in template.yaml, `GET /` has a route of
//!   its own (`routeKey` `GET /`, no path parameters, the web client's lobby), and any other
//!   method there is answered `404 {"message":"Not Found"}` without invoking the function, as
//!   API Gateway does.
//! - **The live channel** ([`StackConfig::live`]): API Gateway's WebSocket API in front of the
//!   real `live` binary, with its `@connections` endpoint (`websocket.rs`); every function gets
//!   `MADANG_LIVE_ENDPOINT`, the stage URL, as `template.yaml` sets it.
//! - **The schedule.** [`LambdaStack::sweep`] sends the sweeper an EventBridge Scheduler event.
//! - **The bot function.** Lambda's `Invoke` API (`AWS_ENDPOINT_URL_LAMBDA` of every function):
//!   an asynchronous invocation of `madang-bot` (`MADANG_BOT_FUNCTION`) is queued for one of its
//!   two environments and answered `202`, as Lambda does; [`LambdaStack::bot_invocations`]
//!   counts them.
//!
//! Everything runs on loopback; the processes are killed when the stack is dropped.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use madang_infra::DynamoStore;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::TestApp;

#[path = "websocket.rs"]
mod websocket;

/// The Runtime API version prefix every path starts with.
const RUNTIME: &str = "/2018-06-01/runtime";
/// The account id the events name.
const ACCOUNT: &str = "123456789012";
/// The region the functions run in.
const REGION: &str = "us-east-1";
/// The API function's timeout in `template.yaml`.
const API_TIMEOUT: Duration = Duration::from_secs(28);
/// The sweeper's timeout in `template.yaml`.
const SWEEPER_TIMEOUT: Duration = Duration::from_secs(50);
/// The bot function's timeout in `template.yaml`.
const BOT_TIMEOUT: Duration = Duration::from_secs(60);
/// The bot function's name, as the other functions are told it (`MADANG_BOT_FUNCTION`).
pub const BOT_FUNCTION: &str = "madang-bot";
/// How long an environment may take from spawn to its first `next` before the stack gives up.
const INIT_WITHIN: Duration = Duration::from_secs(30);

/// Which front door the events come through (`template.yaml`'s `FrontDoor` parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontDoor {
    /// API Gateway HTTP API, route `ANY /{proxy+}`, payload format 2.0.
    HttpApi,
    /// A Lambda Function URL (payload format 2.0, route `$default`).
    FunctionUrl,
}

/// What to start.
#[derive(Clone, Debug)]
pub struct StackConfig {
    /// How many execution environments of `api` run at once.
    pub api_environments: usize,
    /// The front door.
    pub front_door: FrontDoor,
    /// `MADANG_DEV=1` in the functions' environment (seeds, `POST /dev/clock`).
    pub dev: bool,
    /// `MADANG_MAX_WAIT_SECS`, if set.
    pub max_wait_secs: Option<u64>,
    /// The live channel: the WebSocket front and one `live` environment, and
    /// `MADANG_LIVE_ENDPOINT` in every function.
    pub live: bool,
    /// More variables of the `api` environments, as a deployment sets them (the origin secret
    /// behind a CDN); set after the others, so they may also replace one (`RUST_LOG`).
    pub api_env: Vec<(String, String)>,
    /// More variables of every function's environments (set before `api_env`).
    pub env: Vec<(String, String)>,
    /// `LoggingConfig.ApplicationLogLevel`, as Lambda passes it: `AWS_LAMBDA_LOG_LEVEL` and
    /// `AWS_LAMBDA_LOG_FORMAT=JSON` in every environment, and no `RUST_LOG`. `None`: no
    /// log-level filtering, `RUST_LOG=info` (the functions' own default).
    pub log_level: Option<String>,
    /// More variables of the `live` environment (the origins its pages may come from).
    pub live_env: Vec<(String, String)>,
}

impl Default for StackConfig {
    fn default() -> Self {
        StackConfig {
            api_environments: 4,
            front_door: FrontDoor::HttpApi,
            dev: true,
            max_wait_secs: None,
            live: false,
            api_env: Vec::new(),
            env: Vec::new(),
            log_level: None,
            live_env: Vec::new(),
        }
    }
}

/// One event waiting for an environment.
struct Invocation {
    id: String,
    event: String,
    deadline_ms: u64,
    arn: String,
    answer: oneshot::Sender<Answer>,
}

/// How an environment answered an invocation.
#[derive(Debug)]
pub enum Answer {
    /// `POST …/response`: the function's result.
    Response(Bytes),
    /// `POST …/error`: the function failed.
    Error(Bytes),
}

/// Timings of one execution environment.
#[derive(Clone, Debug, Default)]
pub struct EnvTimings {
    /// Spawn → first `invocation/next` (the init phase).
    pub init: Option<Duration>,
    /// Each invocation's duration (event handed out → answer posted), in order.
    pub invocations: Vec<Duration>,
}

/// An invocation handed out: where its answer goes, the environment serving it, since when.
type Pending = (oneshot::Sender<Answer>, usize, Instant);

/// One function: its queue of events and its environments.
struct Function {
    name: &'static str,
    queue: mpsc::UnboundedSender<Invocation>,
    next: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Invocation>>>,
    /// Invocations handed out and not yet answered, by request id: the answer channel, the
    /// environment and when it was handed out.
    pending: Mutex<HashMap<String, Pending>>,
    timings: Mutex<Vec<EnvTimings>>,
    spawned: Mutex<Vec<Instant>>,
    init_errors: Mutex<Vec<String>>,
    ids: AtomicU64,
    /// Bumped on every init finished or failed and every invocation answered: what a test
    /// waiting for one of them wakes on (never a timer).
    progress: tokio::sync::watch::Sender<u64>,
}

impl Function {
    fn new(name: &'static str) -> Arc<Function> {
        let (queue, next) = mpsc::unbounded_channel();
        Arc::new(Function {
            name,
            queue,
            next: Arc::new(tokio::sync::Mutex::new(next)),
            pending: Mutex::new(HashMap::new()),
            timings: Mutex::new(Vec::new()),
            spawned: Mutex::new(Vec::new()),
            init_errors: Mutex::new(Vec::new()),
            ids: AtomicU64::new(0),
            progress: tokio::sync::watch::Sender::new(0),
        })
    }

    /// Records progress ([`Function::progress`]).
    fn progressed(&self) {
        self.progress.send_modify(|n| *n += 1);
    }

    /// Waits until `done()` holds, checking it again on each of the function's progress, for at
    /// most `within` (a bound that turns a hang into a failure); whether it holds.
    async fn until(&self, mut done: impl FnMut() -> bool, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        // Subscribed before the first check: progress made after it is never missed.
        let mut progress = self.progress.subscribe();
        loop {
            if done() {
                return true;
            }
            if tokio::time::timeout_at(deadline, progress.changed())
                .await
                .is_err()
            {
                return done();
            }
        }
    }

    fn arn(&self) -> String {
        format!("arn:aws:lambda:{REGION}:{ACCOUNT}:function:{}", self.name)
    }

    /// Queues `event` and waits for an environment's answer (or `within`).
    async fn invoke(&self, event: &Value, within: Duration) -> Option<Answer> {
        let n = self.ids.fetch_add(1, Ordering::Relaxed);
        let id = format!("{:08x}-0000-4000-8000-{:012x}", std::process::id(), n);
        let (answer, answered) = oneshot::channel();
        let invocation = Invocation {
            id,
            event: event.to_string(),
            deadline_ms: epoch_ms() + within.as_millis() as u64,
            arn: self.arn(),
            answer,
        };
        self.queue.send(invocation).ok()?;
        tokio::time::timeout(within, answered).await.ok()?.ok()
    }
}

/// The Runtime API of one environment.
#[derive(Clone)]
struct EnvApi {
    function: Arc<Function>,
    env: usize,
}

async fn next(State(api): State<EnvApi>) -> Response {
    let f = &api.function;
    {
        let mut timings = f.timings.lock().unwrap();
        let spawned = f.spawned.lock().unwrap()[api.env];
        let t = &mut timings[api.env];
        if t.init.is_none() {
            t.init = Some(spawned.elapsed());
            f.progressed();
        }
    }
    let invocation = {
        let mut next = f.next.lock().await;
        match next.recv().await {
            Some(invocation) => invocation,
            None => return StatusCode::GONE.into_response(),
        }
    };
    f.pending.lock().unwrap().insert(
        invocation.id.clone(),
        (invocation.answer, api.env, Instant::now()),
    );
    let mut response = Response::new(Body::from(invocation.event));
    let headers = response.headers_mut();
    let mut set = |name: &'static str, value: String| {
        headers.insert(name, HeaderValue::from_str(&value).unwrap());
    };
    set("content-type", "application/json".into());
    set("lambda-runtime-aws-request-id", invocation.id.clone());
    set(
        "lambda-runtime-deadline-ms",
        invocation.deadline_ms.to_string(),
    );
    set("lambda-runtime-invoked-function-arn", invocation.arn);
    set(
        "lambda-runtime-trace-id",
        format!(
            "Root=1-{:08x}-{:024x};Parent={:016x};Sampled=0",
            epoch_ms() / 1000,
            0,
            0
        ),
    );
    response
}

fn answered(api: &EnvApi, id: &str, answer: Answer) -> StatusCode {
    let f = &api.function;
    let Some((to, env, started)) = f.pending.lock().unwrap().remove(id) else {
        return StatusCode::BAD_REQUEST;
    };
    assert_eq!(env, api.env, "an environment answered another's invocation");
    f.timings.lock().unwrap()[env]
        .invocations
        .push(started.elapsed());
    f.progressed();
    let _ = to.send(answer);
    StatusCode::ACCEPTED
}

async fn response(State(api): State<EnvApi>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    answered(&api, &id, Answer::Response(body))
}

async fn error(State(api): State<EnvApi>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    answered(&api, &id, Answer::Error(body))
}

async fn init_error(State(api): State<EnvApi>, body: Bytes) -> StatusCode {
    let message = String::from_utf8_lossy(&body).into_owned();
    api.function.init_errors.lock().unwrap().push(message);
    api.function.progressed();
    StatusCode::ACCEPTED
}

/// Serves one environment's Runtime API on a loopback port; returns the `host:port`.
async fn serve_runtime_api(function: Arc<Function>, env: usize) -> String {
    let routes = Router::new()
        .route(&format!("{RUNTIME}/invocation/next"), get(next))
        .route(
            &format!("{RUNTIME}/invocation/{{id}}/response"),
            post(response),
        )
        .route(&format!("{RUNTIME}/invocation/{{id}}/error"), post(error))
        .route(&format!("{RUNTIME}/init/error"), post(init_error))
        .with_state(EnvApi { function, env });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    addr.to_string()
}

/// Where the functions' binaries are: `MADANG_LAMBDA_BIN_DIR`, else the cargo target directory
/// this test binary was built in (`target/debug/deps/..`).
pub fn binary(name: &str) -> PathBuf {
    let dir = match std::env::var_os("MADANG_LAMBDA_BIN_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let exe = std::env::current_exe().unwrap();
            let dir = exe.parent().unwrap();
            if dir.ends_with("deps") {
                dir.parent().unwrap().to_path_buf()
            } else {
                dir.to_path_buf()
            }
        }
    };
    let path = dir.join(name);
    assert!(
        path.is_file(),
        "{} is missing: the Lambda suite runs the real binaries, so build them first \
         (`cargo build -p madang-functions --bins --features dev`, as ./scripts/test does)",
        path.display()
    );
    path
}

/// A running stack: the front door, the `api` environments, one `sweeper` environment, all on
/// one dynalite table.
pub struct LambdaStack {
    /// A client of the front door, as the game drivers use it.
    pub app: TestApp,
    /// The table, seen directly (to look without a request, or to store fixtures).
    pub store: Arc<DynamoStore>,
    api: Arc<Function>,
    sweeper: Arc<Function>,
    bot: Arc<Function>,
    /// The Lambda service's `Invoke` endpoint (`AWS_ENDPOINT_URL_LAMBDA` of every function).
    invoke_url: String,
    /// Asynchronous invocations of the bot function the `Invoke` endpoint accepted.
    bot_invocations: Arc<AtomicU64>,
    children: Vec<Child>,
    logs: PathBuf,
    live: Option<Arc<websocket::WsFront>>,
    /// Requests the front door handed to the `api` function.
    requests: Arc<AtomicU64>,
}

impl Drop for LambdaStack {
    fn drop(&mut self) {
        // Only our own children, by their handles.
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The front door's state.
#[derive(Clone)]
struct Front {
    api: Arc<Function>,
    door: FrontDoor,
    requests: Arc<AtomicU64>,
}

impl LambdaStack {
    /// Starts a stack on `store`'s table (which must exist) with `dynalite` as the DynamoDB
    /// endpoint, and waits until every environment has finished its init.
    pub async fn start(store: Arc<DynamoStore>, dynalite: &str, config: StackConfig) -> Self {
        let api = Function::new("madang-api");
        let sweeper = Function::new("madang-sweeper");
        let bot = Function::new(BOT_FUNCTION);
        let bot_invocations = Arc::new(AtomicU64::new(0));
        let invoke_url = serve_invoke_api(bot.clone(), bot_invocations.clone()).await;
        let logs = std::env::temp_dir().join(format!(
            "madang-lambda-{}",
            madang_infra::contract::fresh_id("logs")
        ));
        std::fs::create_dir_all(&logs).unwrap();
        let mut stack = LambdaStack {
            app: TestApp {
                base: String::new(),
                http: reqwest::Client::new(),
                embedded: None,
            },
            store: store.clone(),
            api: api.clone(),
            sweeper: sweeper.clone(),
            bot: bot.clone(),
            invoke_url,
            bot_invocations,
            children: Vec::new(),
            logs,
            live: None,
            requests: Arc::new(AtomicU64::new(0)),
        };
        let live = Function::new("madang-live");
        let mut live_listener = None;
        if config.live {
            let (front, listener) = websocket::WsFront::bind(live.clone()).await;
            stack.live = Some(front);
            live_listener = Some(listener);
        }
        // The front door's address first: the live function is told the app's origin, as the
        // template tells it (`MADANG_APP_ORIGIN`, the pages that may open the channel).
        let front_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        stack.app.base = format!("http://{}", front_listener.local_addr().unwrap());
        for env in 0..config.api_environments {
            stack
                .spawn(&api, "api", env, store.table(), dynalite, &config)
                .await;
        }
        stack
            .spawn(&sweeper, "sweeper", 0, store.table(), dynalite, &config)
            .await;
        for env in 0..2 {
            stack
                .spawn(&bot, "bot", env, store.table(), dynalite, &config)
                .await;
        }
        if let Some(listener) = live_listener {
            stack
                .spawn(&live, "live", 0, store.table(), dynalite, &config)
                .await;
            stack.wait_for_init(&live, 1).await;
            if let Some(front) = &stack.live {
                front.serve(listener);
            }
        }
        stack.wait_for_init(&api, config.api_environments).await;
        stack.wait_for_init(&sweeper, 1).await;
        stack.wait_for_init(&bot, 2).await;

        let front = Front {
            api,
            door: config.front_door,
            requests: stack.requests.clone(),
        };
        let listener = front_listener;
        let addr = listener.local_addr().unwrap();
        let routes = Router::new().fallback(front_door).with_state(front);
        tokio::spawn(async move {
            axum::serve(
                listener,
                routes.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await
            .unwrap()
        });
        stack.app.base = format!("http://{addr}");
        stack
    }

    async fn spawn(
        &mut self,
        function: &Arc<Function>,
        binary_name: &str,
        env: usize,
        table: &str,
        dynalite: &str,
        config: &StackConfig,
    ) {
        let runtime_api = serve_runtime_api(function.clone(), env).await;
        let bin = binary(binary_name);
        let log =
            std::fs::File::create(self.logs.join(format!("{binary_name}-{env}.log"))).unwrap();
        let mut command = Command::new(&bin);
        command
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LANG", "en_US.UTF-8")
            .env("TZ", ":UTC")
            .env("AWS_LAMBDA_RUNTIME_API", &runtime_api)
            .env("AWS_LAMBDA_FUNCTION_NAME", function.name)
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env(
                "AWS_LAMBDA_LOG_GROUP_NAME",
                format!("/aws/lambda/{}", function.name),
            )
            .env(
                "AWS_LAMBDA_LOG_STREAM_NAME",
                format!("2026/12/01/[$LATEST]{:032x}", env + 1),
            )
            .env("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
            .env("_HANDLER", "bootstrap")
            .env("LAMBDA_TASK_ROOT", bin.parent().unwrap())
            .env("LAMBDA_RUNTIME_DIR", bin.parent().unwrap())
            .env("AWS_REGION", REGION)
            .env("AWS_DEFAULT_REGION", REGION)
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_SESSION_TOKEN", "test")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_ENDPOINT_URL_DYNAMODB", dynalite)
            .env("AWS_ENDPOINT_URL_LAMBDA", &self.invoke_url)
            .env("MADANG_BOT_FUNCTION", BOT_FUNCTION)
            .env("MADANG_STORE", "dynamodb")
            .env("MADANG_TABLE", table)
            .env("MADANG_STAGE", "emulated")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        match &config.log_level {
            Some(level) => {
                command
                    .env("AWS_LAMBDA_LOG_LEVEL", level)
                    .env("AWS_LAMBDA_LOG_FORMAT", "JSON");
            }
            None => {
                command.env("RUST_LOG", "info");
            }
        }
        if config.dev {
            command.env("MADANG_DEV", "1");
        }
        if let Some(front) = &self.live {
            command.env("MADANG_LIVE_ENDPOINT", front.endpoint());
        }
        if let Some(secs) = config.max_wait_secs {
            command.env("MADANG_MAX_WAIT_SECS", secs.to_string());
        }
        command.envs(config.env.iter().map(|(k, v)| (k, v)));
        if binary_name == "api" {
            command.envs(config.api_env.iter().map(|(k, v)| (k, v)));
        }
        if binary_name == "live" {
            command.env("MADANG_APP_ORIGIN", &self.app.base);
            command.envs(config.live_env.iter().map(|(k, v)| (k, v)));
        }
        function.timings.lock().unwrap().push(EnvTimings::default());
        function.spawned.lock().unwrap().push(Instant::now());
        self.children.push(command.spawn().unwrap());
    }

    async fn wait_for_init(&self, function: &Function, environments: usize) {
        let ready = || {
            function
                .timings
                .lock()
                .unwrap()
                .iter()
                .filter(|t| t.init.is_some())
                .count()
        };
        let failed = || !function.init_errors.lock().unwrap().is_empty();
        function
            .until(|| ready() == environments || failed(), INIT_WITHIN)
            .await;
        let errors = function.init_errors.lock().unwrap().clone();
        assert!(
            errors.is_empty() && ready() == environments,
            "{}: {} of {environments} environments finished init ({errors:?}); logs in {}",
            function.name,
            ready(),
            self.logs.display()
        );
    }

    /// The WebSocket front's URL (`ws://…/live`, the `liveUrl` the functions hand out), whatever
    /// `MADANG_LIVE_ENDPOINT` a test gave a function ([`StackConfig::live`]; `None` without it).
    pub fn live_url(&self) -> Option<String> {
        self.live
            .as_ref()
            .map(|f| f.endpoint().replacen("http://", "ws://", 1))
    }

    /// Live connections open at the WebSocket front now.
    pub fn live_connections(&self) -> usize {
        self.live.as_ref().map_or(0, |f| f.open_connections())
    }

    /// Waits until the `live` function has answered `at_least` invocations in all (woken by each
    /// answer; a minute without them is a failure, not a hang).
    pub async fn wait_for_live_answers(&self, at_least: usize) {
        let live = self.live.as_ref().expect("a stack with the live channel");
        let answered = || {
            live.timings()
                .iter()
                .map(|t| t.invocations.len())
                .sum::<usize>()
        };
        let done = live
            .live
            .until(|| answered() >= at_least, Duration::from_secs(60))
            .await;
        assert!(done, "live answered {} of {at_least} events", answered());
    }

    /// Waits until the live front has run `at_least` `$disconnect`s to the end (the `live`
    /// function answered them); a minute without them is a failure, not a hang.
    pub async fn wait_for_disconnects(&self, at_least: u64) {
        let front = self.live.as_ref().expect("a stack with the live channel");
        let mut runs = front.disconnects.subscribe();
        let done =
            tokio::time::timeout(Duration::from_secs(60), runs.wait_for(|n| *n >= at_least)).await;
        assert!(
            done.is_ok(),
            "{} of {at_least} $disconnects ran",
            *front.disconnects.borrow()
        );
    }

    /// Posts the functions made to live connections: delivered, and answered 410 Gone.
    pub fn live_posts(&self) -> (u64, u64) {
        self.live.as_ref().map_or((0, 0), |f| {
            (
                f.posted.load(Ordering::Relaxed),
                f.gone.load(Ordering::Relaxed),
            )
        })
    }

    /// Timings of the `live` environment ([`StackConfig::live`]; empty without it).
    pub fn live_timings(&self) -> Vec<EnvTimings> {
        self.live.as_ref().map_or_else(Vec::new, |f| f.timings())
    }

    /// Drops every live connection without its `$disconnect` ([`StackConfig::live`]).
    pub fn vanish_live_connections(&self) {
        if let Some(front) = &self.live {
            front.vanish();
        }
    }

    /// The front door's base URL.
    pub fn base(&self) -> &str {
        &self.app.base
    }

    /// Where the environments' logs are.
    pub fn logs(&self) -> &std::path::Path {
        &self.logs
    }

    /// Requests the front door handed to the `api` function so far.
    pub fn front_requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Every line the environments of `binary` (`api` or `sweeper`) wrote so far, stdout and
    /// stderr, environment by environment, in the order each wrote them.
    pub fn output_lines(&self, binary: &str) -> Vec<String> {
        let mut lines = Vec::new();
        for env in 0.. {
            let path = self.logs.join(format!("{binary}-{env}.log"));
            let Ok(text) = std::fs::read_to_string(&path) else {
                break;
            };
            lines.extend(text.lines().map(str::to_owned));
        }
        lines
    }

    /// Timings of the `api` environments.
    pub fn api_timings(&self) -> Vec<EnvTimings> {
        self.api.timings.lock().unwrap().clone()
    }

    /// Timings of the `sweeper` environment.
    pub fn sweeper_timings(&self) -> Vec<EnvTimings> {
        self.sweeper.timings.lock().unwrap().clone()
    }

    /// Asynchronous invocations of the bot function so far (each one a room's computer
    /// players' turn handed over; a move is searched once per invocation at most).
    pub fn bot_invocations(&self) -> u64 {
        self.bot_invocations.load(Ordering::Relaxed)
    }

    /// Waits until every invocation of the bot function has been answered (its moves saved and
    /// its metrics written), or 60 s.
    pub async fn bots_done(&self) {
        let answered = || {
            self.bot
                .timings
                .lock()
                .unwrap()
                .iter()
                .map(|t| t.invocations.len() as u64)
                .sum::<u64>()
        };
        let all = self
            .bot
            .until(|| answered() >= self.bot_invocations(), BOT_TIMEOUT)
            .await;
        assert!(
            all,
            "the bot function did not answer every invocation; logs in {}",
            self.logs.display()
        );
    }

    /// The bot function's environments' timings.
    pub fn bot_timings(&self) -> Vec<EnvTimings> {
        self.bot.timings.lock().unwrap().clone()
    }

    /// One scheduled run of the sweeper, as EventBridge Scheduler invokes it; returns its answer
    /// (the sweep report). Panics if the run failed ([`LambdaStack::sweep_answer`] does not).
    pub async fn sweep(&self) -> Value {
        match self.sweep_answer().await {
            Some(Answer::Response(body)) => serde_json::from_slice(&body).unwrap(),
            other => panic!(
                "the sweeper failed: {other:?}; logs in {}",
                self.logs.display()
            ),
        }
    }

    /// One scheduled run of the sweeper; its answer as the runtime posted it (`None`: none
    /// within the sweeper's timeout).
    pub async fn sweep_answer(&self) -> Option<Answer> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let event = json!({
            "version": "0",
            "id": format!("{:08x}-0000-4000-8000-000000000000", now.as_millis() as u32),
            "detail-type": "Scheduled Event",
            "source": "aws.scheduler",
            "account": ACCOUNT,
            "time": iso8601(now.as_secs()),
            "region": REGION,
            "resources": [format!("arn:aws:scheduler:{REGION}:{ACCOUNT}:schedule/default/madang-sweeper")],
            "detail": {},
        });
        self.sweeper.invoke(&event, SWEEPER_TIMEOUT).await
    }
}

/// The Lambda service's `Invoke` API for the bot function, as the SDK calls it:
/// `POST /2015-03-31/functions/{name}/invocations` with `X-Amz-Invocation-Type: Event` is queued
/// for the function and answered `202` at once, as Lambda answers an asynchronous invocation;
/// the function's own answer goes nowhere. Returns the endpoint's URL.
async fn serve_invoke_api(bot: Arc<Function>, accepted: Arc<AtomicU64>) -> String {
    async fn invoke(
        State((bot, accepted)): State<(Arc<Function>, Arc<AtomicU64>)>,
        Path(name): Path<String>,
        headers: HeaderMap,
        body: Bytes,
    ) -> Response {
        if let Err(why) = check_signature(&name, &headers, &body) {
            return (
                StatusCode::FORBIDDEN,
                [("x-amzn-errortype", "InvalidSignatureException")],
                json!({ "message": why }).to_string(),
            )
                .into_response();
        }
        let event_type = headers
            .get("x-amz-invocation-type")
            .and_then(|v| v.to_str().ok());
        if name != BOT_FUNCTION || event_type != Some("Event") {
            return (
                StatusCode::BAD_REQUEST,
                [("x-amzn-errortype", "InvalidParameterValueException")],
                r#"{"message":"only asynchronous invocations of the bot function"}"#,
            )
                .into_response();
        }
        let Ok(event) = serde_json::from_slice::<Value>(&body) else {
            return (
                StatusCode::BAD_REQUEST,
                [("x-amzn-errortype", "InvalidRequestContentException")],
                r#"{"message":"the payload is not JSON"}"#,
            )
                .into_response();
        };
        accepted.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let _ = bot.invoke(&event, BOT_TIMEOUT).await;
        });
        StatusCode::ACCEPTED.into_response()
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let routes = Router::new()
        .route("/2015-03-31/functions/{name}/invocations", post(invoke))
        .with_state((bot, accepted));
    tokio::spawn(async move { axum::serve(listener, routes).await.unwrap() });
    format!("http://{addr}")
}

/// Checks an `Invoke` request's SigV4 signature as Lambda does: signed for `lambda` in
/// `us-east-1` with the credentials every function is given, over the request as it arrived
/// (its host, path, the headers it names as signed, and its body), at the time it says.
pub fn check_signature(name: &str, headers: &HeaderMap, body: &[u8]) -> Result<(), String> {
    use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
    let header = |n: &str| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| format!("no {n} header"))
    };
    let authorization = header("authorization")?;
    let field = |key: &str| {
        authorization
            .split([' ', ','])
            .find_map(|part| part.strip_prefix(key))
            .ok_or_else(|| format!("no {key} in the authorization header"))
    };
    let credential = field("Credential=")?;
    let signed = field("SignedHeaders=")?;
    let signature = field("Signature=")?;
    let amz_date = header("x-amz-date")?;
    let scope_wanted = format!("test/{}/{REGION}/lambda/aws4_request", &amz_date[..8]);
    if credential != scope_wanted {
        return Err(format!("credential scope {credential}, not {scope_wanted}"));
    }
    let time = amz_date_time(amz_date).ok_or("x-amz-date is not a time")?;
    let names: Vec<&str> = signed.split(';').collect();
    for required in ["host", "x-amz-date", "x-amz-invocation-type"] {
        if !names.contains(&required) {
            return Err(format!("{required} is not signed"));
        }
    }
    let values = names
        .iter()
        .map(|n| header(n).map(|v| (*n, v)))
        .collect::<Result<Vec<_>, _>>()?;
    let identity = aws_credential_types::Credentials::new(
        "test",
        "test",
        Some("test".into()),
        None,
        "emulator",
    )
    .into();
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region(REGION)
        .name("lambda")
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| e.to_string())?
        .into();
    let url = format!(
        "http://{}/2015-03-31/functions/{name}/invocations",
        header("host")?
    );
    let request = SignableRequest::new("POST", &url, values.into_iter(), SignableBody::Bytes(body))
        .map_err(|e| e.to_string())?;
    let (_, expected) = sign(request, &params)
        .map_err(|e| e.to_string())?
        .into_parts();
    if expected != signature {
        return Err("the signature does not match the request".to_owned());
    }
    Ok(())
}

/// `20261206T013000Z` as a time.
pub fn amz_date_time(text: &str) -> Option<SystemTime> {
    let digits = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (digits(0..4)?, digits(4..6)?, digits(6..8)?);
    let (hh, mm, ss) = (digits(9..11)?, digits(11..13)?, digits(13..15)?);
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = u64::try_from(days * 86_400 + hh * 3_600 + mm * 60 + ss).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

/// The front door: one HTTP request → one payload 2.0 event → the function's answer as HTTP.
async fn front_door(
    State(front): State<Front>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 10 * 1024 * 1024)
        .await
        .unwrap_or_default();
    let path = parts.uri.path().to_owned();
    let route_key = match front.door {
        FrontDoor::HttpApi if path == "/" => "GET /",
        FrontDoor::HttpApi => "ANY /{proxy+}",
        FrontDoor::FunctionUrl => "$default",
    };
    // `/{proxy+}` needs at least one path segment: `/` has only the `GET /` route, and API
    // Gateway answers any other method there itself.
    if front.door == FrontDoor::HttpApi && path == "/" && parts.method != axum::http::Method::GET {
        return (
            StatusCode::NOT_FOUND,
            [("content-type", "application/json")],
            r#"{"message":"Not Found"}"#,
        )
            .into_response();
    }
    let n = front.requests.fetch_add(1, Ordering::Relaxed);
    let event = event_of(
        &front,
        route_key,
        &parts.method,
        &path,
        parts.uri.query(),
        &parts.headers,
        &body,
        peer,
        n,
    );
    match front.api.invoke(&event, API_TIMEOUT).await {
        Some(Answer::Response(answer)) => http_of(&answer),
        // What API Gateway answers when the integration fails or times out.
        Some(Answer::Error(_)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [("content-type", "application/json")],
            r#"{"message":"Internal Server Error"}"#,
        )
            .into_response(),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            [("content-type", "application/json")],
            r#"{"message":"Service Unavailable"}"#,
        )
            .into_response(),
    }
}

/// Whether API Gateway passes a body of this type as text (else base64).
fn is_text(headers: &HeaderMap) -> bool {
    let Some(kind) = headers.get("content-type").and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let kind = kind.to_ascii_lowercase();
    kind.starts_with("text/")
        || kind.contains("json")
        || kind.contains("xml")
        || kind.contains("javascript")
        || kind.starts_with("application/x-www-form-urlencoded")
}

/// The payload format 2.0 event of one request.
#[allow(clippy::too_many_arguments)]
fn event_of(
    front: &Front,
    route_key: &str,
    method: &axum::http::Method,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    body: &Bytes,
    peer: SocketAddr,
    n: u64,
) -> Value {
    let api_id = match front.door {
        FrontDoor::HttpApi => "m4d4ng0api",
        FrontDoor::FunctionUrl => "m4d4ng0functionurl0000000000000",
    };
    let domain = match front.door {
        FrontDoor::HttpApi => format!("{api_id}.execute-api.{REGION}.amazonaws.com"),
        FrontDoor::FunctionUrl => format!("{api_id}.lambda-url.{REGION}.on.aws"),
    };
    // Lower-case names, repeated headers joined by commas; cookies go to `cookies`.
    let mut joined: serde_json::Map<String, Value> = serde_json::Map::new();
    let mut cookies = Vec::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        if name == "cookie" {
            cookies.extend(value.split(';').map(|c| json!(c.trim())));
            continue;
        }
        let key = name.as_str().to_ascii_lowercase();
        let merged = match joined.get(&key).and_then(Value::as_str) {
            Some(before) => format!("{before},{value}"),
            None => value,
        };
        joined.insert(key, json!(merged));
    }
    joined.insert("host".into(), json!(domain));
    joined.insert("x-forwarded-for".into(), json!(peer.ip().to_string()));
    joined.insert("x-forwarded-proto".into(), json!("https"));
    joined.insert("x-forwarded-port".into(), json!("443"));
    let raw_query = query.unwrap_or("");
    let mut parameters: serde_json::Map<String, Value> = serde_json::Map::new();
    for (key, value) in form_urlencoded::parse(raw_query.as_bytes()) {
        let merged = match parameters.get(key.as_ref()).and_then(Value::as_str) {
            Some(before) => format!("{before},{value}"),
            None => value.into_owned(),
        };
        parameters.insert(key.into_owned(), json!(merged));
    }
    let now = epoch_ms();
    let user_agent = joined
        .get("user-agent")
        .cloned()
        .unwrap_or_else(|| json!(""));
    let mut event = json!({
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": raw_query,
        "headers": joined,
        "requestContext": {
            "accountId": match front.door { FrontDoor::HttpApi => ACCOUNT, FrontDoor::FunctionUrl => "anonymous" },
            "apiId": api_id,
            "domainName": domain,
            "domainPrefix": api_id,
            "http": {
                "method": method.as_str(),
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": peer.ip().to_string(),
                "userAgent": user_agent,
            },
            "requestId": format!("{:x}{n:08x}=", now),
            "routeKey": route_key,
            "stage": "$default",
            "time": clf_time(now / 1000),
            "timeEpoch": now,
        },
        "isBase64Encoded": false,
    });
    let fields = event.as_object_mut().unwrap();
    if !cookies.is_empty() {
        fields.insert("cookies".into(), Value::Array(cookies));
    }
    if !parameters.is_empty() {
        fields.insert("queryStringParameters".into(), Value::Object(parameters));
    }
    if front.door == FrontDoor::HttpApi && route_key == "ANY /{proxy+}" {
        fields.insert(
            "pathParameters".into(),
            json!({"proxy": path.trim_start_matches('/')}),
        );
    }
    if !body.is_empty() {
        if is_text(headers) {
            fields.insert("body".into(), json!(String::from_utf8_lossy(body)));
        } else {
            fields.insert("body".into(), json!(BASE64.encode(body)));
            fields.insert("isBase64Encoded".into(), json!(true));
        }
    }
    event
}

/// The function's payload 2.0 answer as an HTTP response.
fn http_of(answer: &[u8]) -> Response {
    let answer: Value = match serde_json::from_slice(answer) {
        Ok(answer) => answer,
        Err(_) => return StatusCode::BAD_GATEWAY.into_response(),
    };
    let status = answer["statusCode"]
        .as_u64()
        .and_then(|s| StatusCode::from_u16(s as u16).ok())
        .unwrap_or(StatusCode::BAD_GATEWAY);
    let body = match answer["body"].as_str() {
        Some(text) if answer["isBase64Encoded"] == true => BASE64.decode(text).unwrap(),
        Some(text) => text.as_bytes().to_vec(),
        None => Vec::new(),
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Some(fields) = answer["headers"].as_object() {
        for (name, value) in fields {
            if let (Ok(name), Some(Ok(value))) = (
                HeaderName::from_bytes(name.as_bytes()),
                value.as_str().map(HeaderValue::from_str),
            ) {
                headers.insert(name, value);
            }
        }
    }
    for cookie in answer["cookies"].as_array().into_iter().flatten() {
        if let Some(Ok(value)) = cookie.as_str().map(HeaderValue::from_str) {
            headers.append("set-cookie", value);
        }
    }
    response
}

fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Civil date of epoch seconds (UTC): (year, month, day, hour, minute, second).
fn civil(secs: u64) -> (i64, u64, u64, u64, u64, u64) {
    let days = (secs / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u64;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u64;
    let y = yoe + era * 400 + i64::from(m <= 2);
    let rem = secs % 86_400;
    (y, m, d, rem / 3600, rem / 60 % 60, rem % 60)
}

/// `01/Dec/2026:07:22:04 +0000`, the `requestContext.time` format.
pub fn clf_time(secs: u64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, m, d, hh, mm, ss) = civil(secs);
    format!(
        "{d:02}/{}/{y}:{hh:02}:{mm:02}:{ss:02} +0000",
        MONTHS[(m - 1) as usize]
    )
}

/// `2026-12-01T07:22:04Z`, the time format of EventBridge's scheduled events.
pub fn iso8601(secs: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(secs);
    format!("{y}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}
