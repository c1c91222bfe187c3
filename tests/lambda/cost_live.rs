//! The casual month with live clients, measured through whole games (issue 19): the figures of
//! `docs/cost.md`, "The casual month with live clients (measured)".
//!
//! The games and pace of `cost_modes` (a four-player 윷놀이 game, an action every 4 s ± 0.5 s; a
//! 250-move 19×19 바둑 game, a move every 8 s ± 0.5 s; the sweeper once a minute), played
//! through the real binaries: `api` environments behind a Function URL front door, the `live`
//! function behind the emulator's API Gateway WebSocket front, the `sweeper` on its schedule, on
//! dynalite through a metering proxy ([`super::meter_proxy`]), on the functions' dev clock.
//!
//! Every player's app does what `clients/js`'s `watchLive` does:
//!
//! - it opens the room: one read, then the socket (`$connect`), and `hello` with the version it
//!   holds;
//! - each `version` announced that is newer than what it holds: taken as it is when the frame
//!   carries the app's own `room` (no read), else one read (`GET /rooms/{id}?since=V` with
//!   `If-None-Match`). The actor's own connection is not posted its change (the answer has it);
//! - while the socket is up it reads on its own only 100 ms past the room's next deadline
//!   (`deadlineAt` of the newest room it holds, re-armed on every newer room, once per
//!   deadline), a player after 30 s without a request (to stay present), and it sends `ping`
//!   every 9 minutes (`heartbeatMs`);
//! - when the game is over it closes the socket (`$disconnect`).
//!
//! Counted per game, by bracketing each step (the sim runs one step at a time and waits for the
//! `live` function to have handled every event it caused): Lambda invocations and their
//! durations as the emulator measured them (event handed out → answer posted) of `api` and
//! `live`; read and write units (dynalite's consumed capacity, plus index writes), and of them
//! the live registry's; `PostToConnection` messages delivered and frames the apps sent;
//! connection-minutes on the sim's timeline. The dev clock's own requests are left out.
//!
//! Asserted (invariants, no timing): the registry costs at most 0.5 read units per change and no
//! write per change; no post met `410 Gone`; an app reads at most once per announced version,
//! and never when the frame carried its room. The default run plays short games (40 윷놀이
//! actions, 20 바둑 moves) and asserts those; the whole games and the month are a measurement,
//! `#[ignore]`d in the default run and run by `scripts/cost`.
//! Not asserted: that every post arrived — an announcement is cut at its bound
//! (`ANNOUNCE_BOUND`) on a loaded machine, by design; the count of versions an app never heard
//! is printed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use madang_core::Millis;
use madang_infra::DynamoStore;
use madang_infra::dynamo::capacity::CapacityReport;
use madang_tests::Player;
use madang_tests::games::{random_place, yut_action};
use madang_tests::lambda::{EnvTimings, FrontDoor, LambdaStack, StackConfig};
use madang_tests::live::{Heard, Live, live_url};
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::meter_proxy::{self, MeterProxy};
use madang_infra::emulator::{dynalite, dynalite_store};

const YUT_PACE_MS: Millis = 4_000;
const BADUK_PACE_MS: Millis = 8_000;
const SWEEP_EVERY_MS: Millis = 60_000;
const BADUK_MOVES: usize = 250;
/// `clients/js` `watchLive`: a `ping` this often, and a read this long past a deadline.
const HEARTBEAT_MS: Millis = 9 * 60 * 1000;
const DEADLINE_SLACK_MS: Millis = 100;
/// `clients/js` `watchLive`: a player reads after this long without a request, to stay present.
const KEEP_PRESENT_MS: Millis = 30_000;
/// Games of each kind in the casual month.
const GAMES_A_MONTH: f64 = 3_000.0;

// Prices (us-east-1, on demand), as in docs/cost.md.
const P_WRITE: f64 = 0.625e-6;
const P_READ: f64 = 0.125e-6;
const P_GBS: f64 = 0.000_013_333_4;
const P_LAMBDA_REQ: f64 = 0.20e-6;
/// API Gateway WebSocket API: per message (32 KB units; ours are under 100 bytes), and per
/// connection-minute.
const P_MESSAGE: f64 = 1.00e-6;
const P_CONNECTION_MINUTE: f64 = 0.25e-6;
/// The sweeper's month (43,200 runs), as in docs/cost.md.
const SWEEPER_MONTH: f64 = 0.03;
/// `cost_modes`' assumed billed durations (a request that works; a 304 or a frame that only
/// reads), for the comparison with the polling month.
const WORK_S: f64 = 0.025;
const LIGHT_S: f64 = 0.010;
const GB: f64 = 0.125;

/// The steps of a game, each counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// Create and joins.
    Setup,
    /// Game actions (with their announcements).
    Action,
    /// An app's read of an announced version (not its own).
    AnnouncedRead,
    /// A read at the room's deadline.
    DeadlineRead,
    /// A player's read after 30 s without a request, to stay present.
    PresenceRead,
    /// The read an app makes as it starts watching (before the socket is up).
    OpenRead,
    /// A scheduled sweep.
    Sweep,
    /// `$connect`, `hello`, `ping`, `$disconnect` (the `live` function).
    Connect,
    Hello,
    Ping,
    Disconnect,
}

/// What one kind of step cost in a game.
#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    steps: u64,
    /// Invocations of `api` and of `live`.
    api: u64,
    live: u64,
    /// Their measured durations (seconds).
    api_s: f64,
    live_s: f64,
    /// Billed seconds at `cost_modes`' assumptions.
    assumed_s: f64,
    units: CapacityReport,
    registry: CapacityReport,
    /// `PostToConnection` messages delivered.
    posts: u64,
    /// Frames the apps sent.
    frames: u64,
}

fn add(a: &mut CapacityReport, b: &CapacityReport) {
    a.reads += b.reads;
    a.writes += b.writes;
    a.conditional_failures += b.conditional_failures;
    a.read_units += b.read_units;
    a.write_units += b.write_units;
    a.index_write_units += b.index_write_units;
}

/// Every invocation duration so far, by environment.
fn durations(timings: &[EnvTimings]) -> Vec<usize> {
    timings.iter().map(|t| t.invocations.len()).collect()
}

/// The invocations after `before` (counts by environment): how many, and their seconds.
fn new_invocations(timings: &[EnvTimings], before: &[usize]) -> (u64, f64) {
    let mut n = 0;
    let mut s = 0.0;
    for (env, t) in timings.iter().enumerate() {
        let from = before.get(env).copied().unwrap_or(0);
        for d in &t.invocations[from..] {
            n += 1;
            s += d.as_secs_f64();
        }
    }
    (n, s)
}

/// Where a step started.
struct Mark {
    units: CapacityReport,
    registry: CapacityReport,
    api: Vec<usize>,
    live: Vec<usize>,
    posted: u64,
}

/// One player's app.
struct App {
    player: Player,
    version: u64,
    view: Value,
    socket: Option<Live>,
    connected_at: Millis,
    next_ping: Millis,
    /// When its watch loop wakes, and whether it reads then (a deadline was set).
    wake: Millis,
    wake_reads: bool,
    /// The deadline it last read at (once per deadline).
    deadline_read: Option<Millis>,
    /// When it last made a request to the room (its presence).
    last_seen: Millis,
}

struct Sim {
    stack: LambdaStack,
    proxy: MeterProxy,
    direct: Arc<DynamoStore>,
    room: String,
    url: String,
    apps: Vec<App>,
    pace: Millis,
    next_sweep: Millis,
    /// The server's clock: its value at `clock_at`.
    clock: Millis,
    clock_at: Instant,
    started_at: Millis,
    /// Events sent to `live` so far (each one invocation).
    live_events: u64,
    spent: BTreeMap<Step, Spent>,
    /// Changes of the room (versions saved) from the first to the last.
    first_version: u64,
    actions: u64,
    connection_minutes: u64,
    /// Versions an app should have heard and did not (a post cut at its bound).
    missed: u64,
    /// Announcements heard that carried the receiver's room (taken, no read), and that did not.
    rooms_taken: u64,
    version_only: u64,
    /// The newest version the sockets have been brought up to.
    heard: u64,
    /// When the last action was made (sim time).
    last_action_at: Millis,
}

impl Sim {
    async fn new(tag: &str) -> Sim {
        let direct = Arc::new(dynalite_store(tag).await);
        let proxy = meter_proxy::start(&dynalite(), direct.clone()).await;
        let stack = LambdaStack::start(
            direct.clone(),
            &proxy.url,
            StackConfig {
                api_environments: 2,
                front_door: FrontDoor::FunctionUrl,
                live: true,
                ..StackConfig::default()
            },
        )
        .await;
        let now = dev_clock(&stack, 0).await;
        Sim {
            stack,
            proxy,
            direct,
            room: String::new(),
            url: String::new(),
            apps: Vec::new(),
            pace: 0,
            next_sweep: now + SWEEP_EVERY_MS,
            clock: now,
            clock_at: Instant::now(),
            started_at: now,
            live_events: 0,
            spent: BTreeMap::new(),
            first_version: 0,
            actions: 0,
            connection_minutes: 0,
            missed: 0,
            rooms_taken: 0,
            version_only: 0,
            heard: 0,
            last_action_at: now,
        }
    }

    fn now(&self) -> Millis {
        self.clock + self.clock_at.elapsed().as_millis() as Millis
    }

    /// Moves the functions' clock to `at` (not counted: test machinery).
    async fn advance_to(&mut self, at: Millis) {
        let now = self.now();
        if at > now {
            self.clock = dev_clock(&self.stack, at - now).await;
            self.clock_at = Instant::now();
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            units: self.proxy.report(),
            registry: self.proxy.registry(),
            api: durations(&self.stack.api_timings()),
            live: durations(&self.stack.live_timings()),
            posted: self.stack.live_posts().0,
        }
    }

    /// Waits until `live` has handled every event sent to it (woken by each answer; a minute
    /// without them is a hang).
    async fn live_settled(&self) {
        self.stack
            .wait_for_live_answers(self.live_events as usize)
            .await;
    }

    /// Books what happened since `mark` under `step`.
    async fn book(&mut self, step: Step, mark: Mark, frames: u64, assumed_s: f64) {
        self.live_settled().await;
        let (api, api_s) = new_invocations(&self.stack.api_timings(), &mark.api);
        let (live, live_s) = new_invocations(&self.stack.live_timings(), &mark.live);
        let units = self.proxy.report().since(&mark.units);
        let registry = self.proxy.registry().since(&mark.registry);
        let posted = self.stack.live_posts().0 - mark.posted;
        let spent = self.spent.entry(step).or_default();
        spent.steps += 1;
        spent.api += api;
        spent.live += live;
        spent.api_s += api_s;
        spent.live_s += live_s;
        spent.assumed_s += assumed_s;
        add(&mut spent.units, &units);
        add(&mut spent.registry, &registry);
        spent.posts += posted;
        spent.frames += frames;
    }

    /// The room's version, read past the proxy.
    async fn version(&self) -> u64 {
        let out = self
            .direct
            .client()
            .get_item()
            .table_name(self.direct.table())
            .key("id", AttributeValue::S(self.room.clone()))
            .projection_expression("v")
            .consistent_read(true)
            .send()
            .await
            .unwrap();
        out.item.unwrap()["v"].as_n().unwrap().parse().unwrap()
    }

    /// App `a` reads the room as `watchLive` does (`?since=` and `If-None-Match` with the
    /// version it holds); returns whether it got a newer room.
    async fn read(&mut self, a: usize, step: Step) -> bool {
        let mark = self.mark();
        self.apps[a].last_seen = self.now();
        let app = &self.apps[a];
        let reply = self
            .stack
            .app
            .http
            .get(format!(
                "{}/rooms/{}?since={}",
                self.stack.app.base, self.room, app.version
            ))
            .header("if-none-match", format!("\"{}\"", app.version))
            .bearer_auth(&app.player.token)
            .send()
            .await
            .unwrap();
        let status = reply.status();
        let fresh = match status {
            StatusCode::NOT_MODIFIED => false,
            StatusCode::OK => {
                let view: Value = reply.json().await.unwrap();
                let app = &mut self.apps[a];
                app.version = view["version"].as_u64().unwrap();
                app.view = view;
                self.arm(a);
                true
            }
            other => panic!("read: {other}"),
        };
        let assumed = if fresh { WORK_S } else { LIGHT_S };
        self.book(step, mark, 0, assumed).await;
        fresh
    }

    /// Every app with a socket hears the room's new versions up to the current one, each with
    /// its own view of the room when the frame carries it (taken: no read), else it reads.
    /// `actor`: the app whose action made the change — its connection is not posted to.
    async fn hear(&mut self, actor: Option<usize>) {
        let current = self.version().await;
        if current <= self.heard {
            // Nothing saved since the sockets last heard: nothing was announced.
            return;
        }
        self.heard = current;
        for a in 0..self.apps.len() {
            if actor == Some(a) {
                continue;
            }
            let held = self.apps[a].version;
            let Some(socket) = self.apps[a].socket.as_mut() else {
                continue;
            };
            let heard =
                tokio::time::timeout(Duration::from_secs(5), socket.versions_until(current)).await;
            match heard {
                Ok(versions) => {
                    if !versions.iter().any(|&v| v > held) {
                        continue;
                    }
                    let room = socket
                        .last_room
                        .take()
                        .filter(|r| r["version"].as_u64() == versions.last().copied());
                    match room {
                        Some(room) => {
                            self.rooms_taken += 1;
                            let app = &mut self.apps[a];
                            app.version = room["version"].as_u64().unwrap();
                            app.view = room;
                            self.arm(a);
                        }
                        None => {
                            self.version_only += 1;
                            self.read(a, Step::AnnouncedRead).await;
                        }
                    }
                }
                Err(_) => self.missed += 1,
            }
        }
    }

    /// App `a` opens the room: a read, the socket, `hello` with the version it holds.
    async fn open(&mut self, a: usize) {
        self.read(a, Step::OpenRead).await;
        let mark = self.mark();
        let socket = Live::connect(&self.url).await;
        self.live_events += 1;
        self.book(Step::Connect, mark, 0, LIGHT_S).await;
        let now = self.now();
        let mark = self.mark();
        let app = &mut self.apps[a];
        app.socket = Some(socket);
        app.connected_at = now;
        app.next_ping = now + HEARTBEAT_MS;
        let (room, token, since) = (self.room.clone(), app.player.token.clone(), app.version);
        app.socket
            .as_mut()
            .unwrap()
            .hello(&room, Some(&token), since)
            .await;
        self.live_events += 1;
        self.book(Step::Hello, mark, 1, WORK_S).await;
        self.arm(a);
    }

    /// App `a`'s watch loop goes to sleep until the deadline of the room it holds.
    fn arm(&mut self, a: usize) {
        let now = self.now();
        let app = &mut self.apps[a];
        match app.view["deadlineAt"]
            .as_u64()
            .filter(|d| Some(*d) != app.deadline_read)
        {
            Some(deadline) => {
                app.wake = (deadline + DEADLINE_SLACK_MS).max(now + DEADLINE_SLACK_MS);
                app.wake_reads = true;
            }
            None => {
                app.wake = now + 60 * 60 * 1000;
                app.wake_reads = false;
            }
        }
    }

    /// App `a` closes the socket.
    async fn close(&mut self, a: usize) {
        let mark = self.mark();
        let now = self.now();
        let app = &mut self.apps[a];
        drop(app.socket.take());
        self.connection_minutes += (now - app.connected_at).div_ceil(60_000);
        self.live_events += 1;
        self.book(Step::Disconnect, mark, 0, WORK_S).await;
    }

    async fn create(&mut self, game: &str, options: Value, players: usize, pace: Millis) {
        self.pace = pace;
        let mark = self.mark();
        let (room, host) = self.stack.app.create(game, options, 7).await;
        self.book(Step::Setup, mark, 0, WORK_S).await;
        self.room = room;
        self.apps.push(App {
            player: host,
            version: 0,
            view: Value::Null,
            socket: None,
            connected_at: 0,
            next_ping: 0,
            wake: 0,
            wake_reads: false,
            deadline_read: None,
            last_seen: 0,
        });
        let view = self.stack.app.room(&self.room, None).await;
        self.url = live_url(&view);
        self.first_version = view["version"].as_u64().unwrap();
        self.heard = self.first_version;
        self.open(0).await;
        for i in 1..players {
            let mark = self.mark();
            let player = self.stack.app.join(&self.room, &format!("친구{i}")).await;
            self.book(Step::Setup, mark, 0, WORK_S).await;
            self.hear(None).await;
            self.apps.push(App {
                player,
                version: 0,
                view: Value::Null,
                socket: None,
                connected_at: 0,
                next_ping: 0,
                wake: 0,
                wake_reads: false,
                deadline_read: None,
                last_seen: 0,
            });
            let a = self.apps.len() - 1;
            self.open(a).await;
        }
    }

    async fn act(&mut self, a: usize, action: Value) {
        let mark = self.mark();
        self.apps[a].last_seen = self.now();
        let reply = self
            .stack
            .app
            .act_ok(&self.room, &self.apps[a].player, action)
            .await;
        self.book(Step::Action, mark, 0, WORK_S).await;
        self.actions += 1;
        self.last_action_at = self.now();
        let app = &mut self.apps[a];
        app.version = reply["version"].as_u64().unwrap();
        app.view = reply["room"].clone();
        self.arm(a);
        self.hear(Some(a)).await;
    }

    /// Time passes until the next action: sweeps, deadline reads and heartbeats at their times.
    /// Returns the app that acts next, holding the current room.
    async fn think(&mut self, mover: &str) -> usize {
        // Each think time is the pace ± half a second, in a fixed spread (as `cost_modes`),
        // from the last action: the real time the steps take does not stretch the game.
        let jitter = (self.actions * 389) % 1_000;
        let target = (self.last_action_at + self.pace + jitter - 500).max(self.now());
        loop {
            let wake = self
                .apps
                .iter()
                .enumerate()
                .map(|(a, app)| (app.wake, a))
                .min()
                .unwrap();
            let ping = self
                .apps
                .iter()
                .enumerate()
                .filter(|(_, app)| app.socket.is_some())
                .map(|(a, app)| (app.next_ping, a))
                .min()
                .unwrap();
            let presence = self
                .apps
                .iter()
                .enumerate()
                .filter(|(_, app)| app.socket.is_some())
                .map(|(a, app)| (app.last_seen + KEEP_PRESENT_MS, a))
                .min()
                .unwrap();
            let at = self.next_sweep.min(wake.0).min(ping.0).min(presence.0);
            if at >= target {
                break;
            }
            self.advance_to(at).await;
            if at == self.next_sweep {
                let mark = self.mark();
                let swept = self.stack.sweep().await;
                assert_eq!(swept["errors"], 0, "{swept}");
                self.book(Step::Sweep, mark, 0, 0.0).await;
                self.next_sweep += SWEEP_EVERY_MS;
                self.hear(None).await;
            } else if at == wake.0 {
                let a = wake.1;
                if self.apps[a].wake_reads {
                    self.apps[a].deadline_read = self.apps[a].view["deadlineAt"].as_u64();
                    self.read(a, Step::DeadlineRead).await;
                    self.hear(None).await;
                }
                self.arm(a);
            } else if at == presence.0 {
                let a = presence.1;
                self.read(a, Step::PresenceRead).await;
                self.hear(None).await;
            } else {
                let a = ping.1;
                let mark = self.mark();
                let socket = self.apps[a].socket.as_mut().unwrap();
                socket.send(r#"{"type":"ping"}"#).await;
                loop {
                    match socket.next().await {
                        Heard::Pong => break,
                        Heard::Version(_) => continue,
                        other => panic!("ping: {other:?}"),
                    }
                }
                self.live_events += 1;
                self.book(Step::Ping, mark, 1, LIGHT_S).await;
                self.apps[a].next_ping += HEARTBEAT_MS;
            }
        }
        self.advance_to(target).await;
        let mover = self
            .apps
            .iter()
            .position(|app| app.player.id == mover)
            .unwrap();
        if self.apps[mover].version < self.version().await {
            self.read(mover, Step::AnnouncedRead).await;
        }
        mover
    }

    /// The game is over: every app closes its socket.
    async fn finish(&mut self) -> Figures {
        for a in 0..self.apps.len() {
            self.close(a).await;
        }
        let last = self.version().await;
        let total = self.spent.values().fold(Spent::default(), |mut t, s| {
            t.steps += s.steps;
            t.api += s.api;
            t.live += s.live;
            t.api_s += s.api_s;
            t.live_s += s.live_s;
            t.assumed_s += s.assumed_s;
            add(&mut t.units, &s.units);
            add(&mut t.registry, &s.registry);
            t.posts += s.posts;
            t.frames += s.frames;
            t
        });
        let (_, gone) = self.stack.live_posts();
        Figures {
            minutes: (self.now() - self.started_at) as f64 / 60_000.0,
            changes: last - self.first_version,
            actions: self.actions,
            apps: self.apps.len() as u64,
            by_step: self.spent.clone(),
            total,
            connection_minutes: self.connection_minutes,
            missed: self.missed,
            rooms_taken: self.rooms_taken,
            version_only: self.version_only,
            gone,
        }
    }
}

/// `POST /dev/clock` through the front door; the new server time.
async fn dev_clock(stack: &LambdaStack, ms: Millis) -> Millis {
    let r = stack
        .app
        .post("/dev/clock", None, json!({"advanceMs": ms}))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    r.body["now"].as_u64().unwrap()
}

/// One game's counts.
struct Figures {
    minutes: f64,
    changes: u64,
    actions: u64,
    apps: u64,
    by_step: BTreeMap<Step, Spent>,
    total: Spent,
    connection_minutes: u64,
    missed: u64,
    rooms_taken: u64,
    version_only: u64,
    gone: u64,
}

impl Figures {
    fn read_units(&self) -> f64 {
        self.total.units.read_units
    }
    fn write_units(&self) -> f64 {
        self.total.units.write_units + self.total.units.index_write_units as f64
    }
    fn messages(&self) -> u64 {
        self.total.posts + self.total.frames
    }
    fn dynamodb(&self) -> f64 {
        self.read_units() * P_READ + self.write_units() * P_WRITE
    }
    fn lambda_requests(&self) -> f64 {
        (self.total.api + self.total.live) as f64 * P_LAMBDA_REQ
    }
    /// Lambda duration at the emulator's measured durations, or at the assumed ones.
    fn lambda_time(&self, measured: bool) -> f64 {
        let s = if measured {
            self.total.api_s + self.total.live_s
        } else {
            self.total.assumed_s
        };
        GB * s * P_GBS
    }
    fn websocket(&self) -> f64 {
        self.messages() as f64 * P_MESSAGE + self.connection_minutes as f64 * P_CONNECTION_MINUTE
    }
    fn game(&self, measured: bool) -> f64 {
        self.dynamodb() + self.lambda_requests() + self.lambda_time(measured) + self.websocket()
    }

    /// The invariants.
    fn check(&self, name: &str) {
        let actions = &self.by_step[&Step::Action];
        let registry_per_change = actions.registry.read_units / actions.steps as f64;
        assert!(
            registry_per_change <= 0.5,
            "{name}: {registry_per_change} registry read units per change"
        );
        assert_eq!(
            actions.registry.writes, 0,
            "{name}: a change writes no registry"
        );
        assert_eq!(self.gone, 0, "{name}: no post met 410 Gone");
        let reads = self
            .by_step
            .get(&Step::AnnouncedRead)
            .map_or(0, |s| s.steps);
        // No read when the frame carried the room: only version-only frames (and versions a
        // mover had not heard, a post cut at its bound) are read.
        assert!(
            reads <= self.version_only + self.missed,
            "{name}: {reads} reads of announced versions, {} version-only frames, {} missed",
            self.version_only,
            self.missed
        );
        assert!(self.rooms_taken > 0, "{name}: frames carried the room");
        assert!(
            reads <= self.changes * self.apps,
            "{name}: {reads} reads of {} versions by {} apps",
            self.changes,
            self.apps
        );
    }
}

/// A 윷놀이 game, stopped after `max_actions` actions if it has not ended.
async fn yut_game(max_actions: u64) -> Figures {
    let mut sim = Sim::new("live-cost-yut").await;
    sim.create("yut", json!({}), 4, YUT_PACE_MS).await;
    sim.act(0, json!({"type": "start"})).await;
    for _ in 0..5_000 {
        let last = sim
            .apps
            .iter()
            .max_by_key(|a| a.version)
            .unwrap()
            .view
            .clone();
        if last["status"] == "finished" || sim.actions >= max_actions {
            return sim.finish().await;
        }
        let mover = last["state"]["currentPlayer"].as_str().unwrap().to_owned();
        let a = sim.think(&mover).await;
        let action = yut_action(&sim.apps[a].view["state"]);
        sim.act(a, action).await;
    }
    panic!("the game did not end in 5,000 actions");
}

/// A 19×19 바둑 game of `moves` moves, two passes and the score agreed.
async fn baduk_game(moves: usize) -> Figures {
    let mut sim = Sim::new("live-cost-baduk").await;
    let options = json!({"boardSize": 19, "colorAssignment": "hostBlack"});
    sim.create("baduk", options, 2, BADUK_PACE_MS).await;
    sim.act(0, json!({"type": "start"})).await;
    let mut draw: u64 = 0x2545_f491_4f6c_dd1d;
    for turn in 0..moves + 4 {
        let id = sim.apps[turn % 2].player.id.clone();
        let a = sim.think(&id).await;
        let mine = sim.apps[a].view["state"].clone();
        let action = if turn < moves {
            random_place(&mine, &mut draw)
        } else if turn < moves + 2 {
            json!({"type": "pass"})
        } else {
            json!({"type": "agreeScore"})
        };
        sim.act(a, action).await;
    }
    let end = sim.stack.app.room(&sim.room, None).await;
    assert_eq!(end["status"], "finished", "{}", end["state"]["phase"]);
    sim.finish().await
}

const STEPS: [(Step, &str); 11] = [
    (Step::Setup, "create, joins"),
    (Step::Action, "actions (each announced)"),
    (Step::AnnouncedRead, "reads of an announced version"),
    (
        Step::PresenceRead,
        "reads to stay present (30 s without a request)",
    ),
    (Step::DeadlineRead, "reads at a deadline"),
    (Step::OpenRead, "the read that opens a watch"),
    (Step::Sweep, "sweeps (once a minute)"),
    (Step::Connect, "`$connect`"),
    (Step::Hello, "`hello` (`$default`)"),
    (Step::Ping, "`ping` every 9 min (`$default`)"),
    (Step::Disconnect, "`$disconnect`"),
];

fn game_table(name: &str, f: &Figures) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "\n#### {name}: {:.0} min, {} changes, {} actions, {} apps\n",
        f.minutes, f.changes, f.actions, f.apps
    )
    .unwrap();
    writeln!(
        out,
        "| step | count | `api` invocations (measured ms each) | `live` invocations (measured ms each) | read units | write units (+ index) | registry RU / WU | posts | frames sent |\n|---|---|---|---|---|---|---|---|---|"
    )
    .unwrap();
    let ms = |s: f64, n: u64| {
        if n == 0 {
            "—".to_owned()
        } else {
            format!("{:.0}", s * 1000.0 / n as f64)
        }
    };
    let row = |label: &str, s: &Spent| {
        format!(
            "| {label} | {} | {} ({}) | {} ({}) | {:.1} | {:.0} (+{}) | {:.1} / {:.0} | {} | {} |",
            s.steps,
            s.api,
            ms(s.api_s, s.api),
            s.live,
            ms(s.live_s, s.live),
            s.units.read_units,
            s.units.write_units,
            s.units.index_write_units,
            s.registry.read_units,
            s.registry.write_units,
            s.posts,
            s.frames
        )
    };
    for (step, label) in STEPS {
        if let Some(s) = f.by_step.get(&step) {
            writeln!(out, "{}", row(label, s)).unwrap();
        }
    }
    writeln!(out, "{}", row("**a game**", &f.total)).unwrap();
    writeln!(
        out,
        "\nconnection-minutes {}, messages {} ({} posts + {} frames sent), announcements taken with the room {} / version only (read) {}, versions an app never heard (posts cut at the bound) {}, Lambda GB-s measured {:.2} (`api` {:.2}, `live` {:.2}), at `cost_modes`' assumed durations {:.2}",
        f.connection_minutes,
        f.messages(),
        f.total.posts,
        f.total.frames,
        f.rooms_taken,
        f.version_only,
        f.missed,
        GB * (f.total.api_s + f.total.live_s),
        GB * f.total.api_s,
        GB * f.total.live_s,
        GB * f.total.assumed_s
    )
    .unwrap();
    out
}

/// The default run's share: short games, the invariants of every announcement asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_clients_read_only_what_an_announcement_did_not_carry_in_short_games() {
    let (yut, baduk) = tokio::join!(yut_game(40), baduk_game(20));
    let mut out = String::new();
    out.push_str(&game_table(
        "윷놀이, 4 players, live, first 40 actions",
        &yut,
    ));
    out.push_str(&game_table("바둑 19×19, 20 moves, live", &baduk));
    println!("\nLive clients, short games (scripts/cost for the month):\n{out}");
    yut.check("윷놀이");
    baduk.check("바둑");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a whole-game measurement: scripts/cost"]
async fn the_casual_month_with_live_clients_measured_through_whole_games() {
    let (yut, baduk) = tokio::join!(yut_game(u64::MAX), baduk_game(BADUK_MOVES));
    let mut out = String::new();
    out.push_str(&game_table("윷놀이, 4 players, live", &yut));
    out.push_str(&game_table("바둑 19×19, 250 moves, live", &baduk));
    writeln!(
        out,
        "\n| a month: 3,000 games of each kind | DynamoDB | Lambda requests | Lambda time | WebSocket messages | connection-minutes | **total** |\n|---|---|---|---|---|---|---|"
    )
    .unwrap();
    let month = |part: &dyn Fn(&Figures) -> f64| GAMES_A_MONTH * (part(&yut) + part(&baduk));
    for (label, measured) in [
        ("Lambda time at `cost_modes`' assumed durations", false),
        ("Lambda time as measured on the emulator", true),
    ] {
        let total = month(&|f| f.game(measured)) + SWEEPER_MONTH;
        writeln!(
            out,
            "| live clients, Function URL ({label}) | ${:.2} | ${:.2} | ${:.2} | ${:.2} | ${:.2} | **${total:.2}** |",
            month(&|f| f.dynamodb()),
            month(&|f| f.lambda_requests()),
            month(&|f| f.lambda_time(measured)),
            month(&|f| f.messages() as f64 * P_MESSAGE),
            month(&|f| f.connection_minutes as f64 * P_CONNECTION_MINUTE),
        )
        .unwrap();
    }
    println!("\nThe casual month with live clients (measured through whole games):\n{out}");
    yut.check("윷놀이");
    baduk.check("바둑");
}
