//! The casual month, priced through whole games (issue 30): `scripts/cost` runs
//! [`the_casual_month_priced_through_whole_games`] and prints docs/cost.md's first table.
//!
//! The games: 3,000 of each kind a month, one in ten against computer players —
//!
//! - a four-player 윷놀이 game, an action every 4 s ± 0.5 s (2,700 a month);
//! - a 250-move 19×19 바둑 game between two people, a move every 8 s ± 0.5 s (2,700);
//! - 윷놀이, one person and three computer players of levels 1–3 (300);
//! - 9줄 바둑 against the level-3 computer player, the person playing 30 moves and passing (300);
//!
//! played through **the real binaries**: `api` environments behind a Function URL front door,
//! the `live` function behind the emulator's API Gateway WebSocket front, the `sweeper` once a
//! minute, on dynalite through a metering proxy ([`super::meter_proxy`]), on the functions' dev
//! clock, with the template's logging (`ApplicationLogLevel` `WARN`).
//!
//! Every person's app does what the web app does (`web/app.js` over `clients/js`'s
//! `watchLive`):
//!
//! - it opens the room: one read, the socket (`$connect`), `hello` with the version it holds
//!   and a `ping` (whose `pong` says the hello was taken);
//! - a `version` frame newer than what it holds is taken as it is when it carries the app's own
//!   room (no read), else read once; the actor's own connection is not posted its change;
//! - while the socket is up it reads only 100 ms past the room's next deadline (once per
//!   deadline: this is what fires a computer player's move, or the sweeper does), a player after
//!   30 s without a request (to stay present), and it sends `ping` every 9 minutes;
//! - **a phone nobody is looking at** ([`Hiding`]): in games between people, each page is
//!   hidden a third of the time, in stretches of two minutes every six (staggered from phone to
//!   phone; a person playing computer players keeps looking). After 30 s hidden the
//!   app closes its socket and stops (no reads, no pings); shown again it opens the room as
//!   above (read, socket, `hello` with `since`) and is current at once. Its player's own turn
//!   brings the page up (the turn alert; the player acts, and the page is hidden again: a new
//!   30 s before the socket closes);
//! - when the game is over it closes the socket.
//!
//! Counted per game, by bracketing each step (the sim runs one step at a time and waits for the
//! `live` function to have handled every event it caused): Lambda invocations, their wall time
//! on the emulator and **the CPU time the environments' processes spent** (every thread's
//! `schedstat`), of `api` and `live`; read and write units (dynalite's consumed capacity, plus
//! index writes), and of them the live registry's; `PostToConnection` messages delivered and
//! frames the apps sent; connection-minutes on the sim's timeline; units per minute of the game;
//! the log lines Lambda would keep at `WARN` and the metric lines (written after every
//! invocation that counted something here: `MADANG_METRICS_EVERY_SECS=0`, so the month's lines
//! are the distinct environment-minutes that had one).
//!
//! **Lambda time** ([`billed_ms`]): the emulator cannot give a process Lambda's CPU share, so
//! an invocation's billed time at `M` MB is derived from what was measured: its I/O wait (wall
//! time − CPU time) plus its CPU time × 1,769 ÷ `M` (Lambda gives one vCPU at 1,769 MB, in
//! proportion below), rounded up to the millisecond. An upper bound: a short burst under the
//! cgroup's quota runs at full speed, and dynalite on a loaded host answers slower than DynamoDB
//! in region. The binaries are whatever `MADANG_LAMBDA_BIN_DIR` holds (`scripts/cost` builds
//! them `--release`, as a deployment does).
//!
//! The default run ([`the_live_channel_holds_its_invariants_over_short_games`]) plays short
//! games with hidden phones and asserts invariants only: the registry costs at most 0.5 read
//! units and no write per change; no post met `410 Gone`; an app reads at most once per
//! announced version and never when the frame carried its room; a phone shown again is current
//! at once. Not asserted: that every post arrived — an announcement is cut at its bound on a
//! loaded machine, by design; the count of versions an app never heard is printed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
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
use super::{dynalite, dynalite_store};

const YUT_PACE_MS: Millis = 4_000;
const BADUK_PACE_MS: Millis = 8_000;
const SWEEP_EVERY_MS: Millis = 60_000;
const BADUK_MOVES: usize = 250;
/// The 9줄 game against the computer: the person's stones before passing.
const BOT_BADUK_MOVES: usize = 30;
/// `clients/js` `watchLive`: a `ping` this often, and a read this long past a deadline.
const HEARTBEAT_MS: Millis = 9 * 60 * 1000;
const DEADLINE_SLACK_MS: Millis = 100;
/// `clients/js` `watchLive`: a player reads after this long without a request, to stay present.
const KEEP_PRESENT_MS: Millis = 30_000;
/// `web/app.js`: a page hidden this long closes its socket.
const HIDDEN_CLOSE_MS: Millis = 30_000;
/// Games of each kind in the casual month, and of them against computer players.
const GAMES_A_MONTH: f64 = 3_000.0;
const BOT_SHARE: f64 = 0.1;

// Prices (us-east-1, list), as in docs/cost.md.
const P_WRITE: f64 = 0.625e-6;
const P_READ: f64 = 0.125e-6;
const P_GBS: f64 = 0.000_013_333_4;
const P_LAMBDA_REQ: f64 = 0.20e-6;
/// API Gateway WebSocket API: per message (32 KB units; ours are under 32 KB), and per
/// connection-minute.
const P_MESSAGE: f64 = 1.00e-6;
const P_CONNECTION_MINUTE: f64 = 0.25e-6;
/// CloudWatch: a custom metric-month (prorated by the hour with data), an alarm metric-month,
/// a GB of logs ingested (and stored a month, at the template's 14 days: half a month).
const P_METRIC_MONTH: f64 = 0.30;
const P_ALARM_METRIC: f64 = 0.10;
/// A CloudWatch dashboard a month, beyond an account's three free ones.
const P_DASHBOARD: f64 = 3.00;
const P_LOG_GB: f64 = 0.50 + 0.03 / 2.0;
/// DynamoDB provisioned capacity (`TableBilling: FreeTier`): a read or write unit-hour.
const P_RCU_HOUR: f64 = 0.000_13;
const P_WCU_HOUR: f64 = 0.000_65;
const HOURS_A_MONTH: f64 = 730.0;
/// Lambda's CPU share: one vCPU at this many MB, in proportion below.
const FULL_VCPU_MB: f64 = 1_769.0;
/// The memory of the functions as template.yaml gives it: `api` (chosen from the figures
/// measured here: docs/cost.md, "api's memory"), `live` and the sweeper (the Globals' 128 MB),
/// and `BotFunction` (`BotMemorySize`'s default).
const API_MB: f64 = 128.0;
const LIVE_MB: f64 = 128.0;
const SWEEPER_MB: f64 = 128.0;
const BOT_MB: f64 = 512.0;
/// What one computer player's move bills `BotFunction`, besides its search: it loads the room,
/// searches, keeps the move with the room as a plan (one conditional write) and returns; the
/// deadline read (or a sweep) that lands the plan is the `api`'s (or the sweeper's), measured
/// with it. Two DynamoDB calls, as in the region. (Until 2026-12-06 it waited through the think
/// time, 1.4 s on average, and then loaded, saved and announced the move: 1.425 s a move.) The
/// emulator's wall time cannot stand in for the search: debug binaries, and a shared machine.
const BOT_MOVE_IO_S: f64 = 2.0 * DYNAMODB_CALL_MS / 1000.0;
/// A 윷놀이 computer player's search at [`BOT_MB`]: about a millisecond of one vCPU at level 3
/// (DESIGN, "Computer players, as built"), 1,769 / 512 times that.
const YUT_BOT_SEARCH_S: f64 = 0.0035;
/// The level-3 9줄 바둑 search at [`BOT_MB`]: BENCHMARKS.md's thread CPU p99, 36 ms of one vCPU,
/// times 1,769 / 512.
const BADUK_BOT_SEARCH_S: f64 = 0.124;
/// The memory sizes `api` is measured at.
const MEMORIES_MB: [f64; 3] = [128.0, 256.0, 512.0];
/// The template's alarms (deployed with the recommended Function URL front door) and their
/// alarm metrics: the front door's 5xx rate 2, seven others 1 each (the functions' errors and
/// throttles on the account's metrics, one alarm each for every function; DynamoDB's failures
/// that reached a player on the functions' `StoreUnavailable`, every table in one).
const ALARMS: usize = 8;
const ALARM_METRICS: usize = 9;
/// Sweeps a month, and what an empty one costs DynamoDB: 8 shard queries of the due index, at
/// DynamoDB's minimum of half a unit (dynalite bills an empty query nothing).
const SWEEPS_A_MONTH: f64 = 43_200.0;
const EMPTY_SWEEP_RU: f64 = 4.0;
/// The AWS free tier, always free (not the first year's): Lambda's requests and GB-s,
/// CloudWatch's custom and alarm metrics, dashboards and log GB; DynamoDB's 25 provisioned read
/// and write units (provisioned only: an on-demand table's requests are not covered).
const FREE_LAMBDA_REQUESTS: f64 = 1_000_000.0;
const FREE_LAMBDA_GBS: f64 = 400_000.0;
const FREE_METRICS: f64 = 10.0;
const FREE_ALARM_METRICS: f64 = 10.0;
const FREE_LOG_GB: f64 = 5.0;
/// The casual month's busiest hours ([`busiest_minute`]): every day's games are played in an
/// evening window this long.
const PEAK_WINDOW_MIN: f64 = 240.0;

/// How the phones' pages are hidden ([`Hiding::HIDE`]; `None`: always shown).
#[derive(Clone, Copy, Debug)]
struct Hiding {
    shown_ms: Millis,
    hidden_ms: Millis,
}

impl Hiding {
    /// A third of the time, in stretches of two minutes.
    const HIDE: Hiding = Hiding {
        shown_ms: 240_000,
        hidden_ms: 120_000,
    };

    /// Short stretches for the short games of the default run, so pages do close and reopen.
    const SHORT: Hiding = Hiding {
        shown_ms: 45_000,
        hidden_ms: 75_000,
    };

    fn cycle(&self) -> Millis {
        self.shown_ms + self.hidden_ms
    }

    /// Whether app `a` of `n` is hidden at `t` (ms since the game began), and when that changes.
    fn at(&self, a: usize, n: usize, t: Millis) -> (bool, Millis) {
        let offset = self.cycle() * a as Millis / n.max(1) as Millis;
        let phase = (t + offset) % self.cycle();
        if phase < self.shown_ms {
            (false, t + self.shown_ms - phase)
        } else {
            (true, t + self.cycle() - phase)
        }
    }
}

/// The steps of a game, each counted apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// Create, joins, computer players added.
    Setup,
    /// Game actions (with their announcements).
    Action,
    /// An app's read of an announced version (not its own).
    AnnouncedRead,
    /// A read at the room's deadline (it fires a computer player's move when one is due).
    DeadlineRead,
    /// A player's read after 30 s without a request, to stay present.
    PresenceRead,
    /// The read an app makes as it starts watching (before the socket is up).
    OpenRead,
    /// A scheduled sweep.
    Sweep,
    /// The chat drawer's catch-up once a hello is taken (`GET /rooms/{id}/chat?after=N`).
    ChatCatchUp,
    /// `$connect`, `hello` (with the `ping` after it), `ping`, `$disconnect` (the `live`
    /// function).
    Connect,
    Hello,
    Ping,
    Disconnect,
}

/// What one kind of step cost in a game.
#[derive(Clone, Debug, Default)]
struct Spent {
    steps: u64,
    /// Invocations of `api` and of `live`.
    api: u64,
    live: u64,
    /// Their wall time on the emulator, and their processes' CPU time (seconds).
    api_s: f64,
    live_s: f64,
    api_cpu_s: f64,
    live_cpu_s: f64,
    /// `api`'s and `live`'s invocations of each step, for the billed time at a memory.
    api_calls: Vec<Calls>,
    live_calls: Vec<Calls>,
    sweeper_calls: Vec<Calls>,
    /// The sweeper's runs, their wall and CPU time.
    sweeper: u64,
    sweeper_s: f64,
    sweeper_cpu_s: f64,
    units: CapacityReport,
    registry: CapacityReport,
    /// `PostToConnection` messages delivered.
    posts: u64,
    /// Frames the apps sent.
    frames: u64,
}

impl Spent {
    fn add(&mut self, s: &Spent) {
        self.steps += s.steps;
        self.api += s.api;
        self.live += s.live;
        self.api_s += s.api_s;
        self.live_s += s.live_s;
        self.api_cpu_s += s.api_cpu_s;
        self.live_cpu_s += s.live_cpu_s;
        self.api_calls.extend_from_slice(&s.api_calls);
        self.live_calls.extend_from_slice(&s.live_calls);
        self.sweeper_calls.extend_from_slice(&s.sweeper_calls);
        self.sweeper += s.sweeper;
        self.sweeper_s += s.sweeper_s;
        self.sweeper_cpu_s += s.sweeper_cpu_s;
        add(&mut self.units, &s.units);
        add(&mut self.registry, &s.registry);
        self.posts += s.posts;
        self.frames += s.frames;
    }

    /// `api`'s billed seconds at `mb` ([`billed_ms`]).
    fn api_billed_s(&self, mb: f64, io: Io) -> f64 {
        self.api_calls.iter().map(|c| c.billed_s(mb, io)).sum()
    }

    /// `live`'s billed seconds at its memory.
    fn live_billed_s(&self, io: Io) -> f64 {
        self.live_calls
            .iter()
            .map(|c| c.billed_s(LIVE_MB, io))
            .sum()
    }
}

/// The invocations of one function in one step: how many, their wall and CPU time, and what
/// they waited on (DynamoDB calls; whether they posted to connections).
#[derive(Clone, Copy, Debug, Default)]
struct Calls {
    n: u64,
    wall_s: f64,
    cpu_s: f64,
    dynamodb_calls: u64,
    posted: bool,
}

/// What an invocation waits on, besides its CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Io {
    /// In the region: [`DYNAMODB_CALL_MS`] per DynamoDB call (one after another) and
    /// [`POSTS_MS`] for its posts to connections (sent at once).
    Region,
    /// As it waited on the emulator: its wall time less its CPU time (dynalite and the
    /// emulated front on a loaded host, and the dev clock's read: an upper bound).
    Emulator,
}

/// Assumed in-region latency of one DynamoDB call of ours (small items, single-digit ms), and of
/// an invocation's posts to its room's connections, sent concurrently.
const DYNAMODB_CALL_MS: f64 = 5.0;
const POSTS_MS: f64 = 10.0;

impl Calls {
    /// Billed seconds of these invocations at `mb` ([`billed_ms`], each taken as their mean).
    fn billed_s(&self, mb: f64, io: Io) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let n = self.n as f64;
        let io_s = match io {
            Io::Emulator => (self.wall_s - self.cpu_s).max(0.0) / n,
            Io::Region => {
                (self.dynamodb_calls as f64 / n * DYNAMODB_CALL_MS
                    + if self.posted { POSTS_MS } else { 0.0 })
                    / 1000.0
            }
        };
        n * billed_ms(io_s, self.cpu_s / n, mb) / 1000.0
    }
}

/// The billed milliseconds of an invocation that waits `io_s` and runs `cpu_s` on a CPU (as
/// measured at full speed), at `mb` MB: the wait, plus the CPU time at Lambda's share of a vCPU,
/// rounded up to the millisecond (Lambda bills by the ms).
fn billed_ms(io_s: f64, cpu_s: f64, mb: f64) -> f64 {
    let cpu = cpu_s * (FULL_VCPU_MB / mb).max(1.0);
    ((io_s + cpu) * 1000.0).ceil()
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

/// The processes of `binary`'s environments in the stack whose logs are in `logs`: those whose
/// stdout is one of its log files (`{binary}-{env}.log`).
fn env_pids(logs: &Path, binary: &str) -> Vec<u32> {
    let prefix = logs.join(format!("{binary}-"));
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(out) = std::fs::read_link(format!("/proc/{pid}/fd/1")) else {
            continue;
        };
        if out
            .to_string_lossy()
            .starts_with(&*prefix.to_string_lossy())
        {
            pids.push(pid);
        }
    }
    pids
}

/// CPU time the processes `pids` have spent so far, every thread's (`/proc/{pid}/task/*/
/// schedstat`: nanoseconds on a CPU).
fn cpu_s(pids: &[u32]) -> f64 {
    let mut ns: u64 = 0;
    for pid in pids {
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
            ns += stat
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    ns as f64 / 1e9
}

/// Where a step started.
struct Mark {
    units: CapacityReport,
    registry: CapacityReport,
    api: Vec<usize>,
    live: Vec<usize>,
    sweeper: Vec<usize>,
    api_cpu: f64,
    live_cpu: f64,
    sweeper_cpu: f64,
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
    /// Its page is hidden, since when; and whether it closed its socket for that.
    hidden_since: Option<Millis>,
    /// Whether the stretch schedule has it hidden (as last applied).
    scheduled_hidden: bool,
    closed_hidden: bool,
    /// Hidden time in all (sim ms), for the share actually hidden.
    hidden_ms: Millis,
    /// Times its page was shown again with the socket closed, and after them how far behind the
    /// room it was once open (always 0: it converges at once).
    reopened: u64,
    behind_after_reopen: u64,
}

impl App {
    fn new(player: Player) -> App {
        App {
            player,
            version: 0,
            view: Value::Null,
            socket: None,
            connected_at: 0,
            next_ping: 0,
            wake: Millis::MAX,
            wake_reads: false,
            deadline_read: None,
            last_seen: 0,
            hidden_since: None,
            scheduled_hidden: false,
            closed_hidden: false,
            hidden_ms: 0,
            reopened: 0,
            behind_after_reopen: 0,
        }
    }

    /// The app is watching: its socket is open and it keeps its schedule.
    fn watching(&self) -> bool {
        self.socket.is_some()
    }
}

/// What comes next in the sim's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Sweep,
    Wake(usize),
    Presence(usize),
    Ping(usize),
    /// A page is hidden or shown (by the stretch schedule).
    Visibility(usize),
    /// A page hidden for 30 s closes its socket.
    CloseHidden(usize),
}

struct Sim {
    stack: LambdaStack,
    proxy: MeterProxy,
    direct: Arc<DynamoStore>,
    logs: PathBuf,
    api_pids: Vec<u32>,
    live_pids: Vec<u32>,
    sweeper_pids: Vec<u32>,
    room: String,
    url: String,
    apps: Vec<App>,
    /// How many people the room seats (the hiding schedule staggers over them).
    people: usize,
    hiding: Option<Hiding>,
    pace: Millis,
    /// A computer player's search at [`BOT_MB`] in this game (s).
    bot_search_s: f64,
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
    /// Read and write units (write units with index writes) by minute of the game.
    minutes: BTreeMap<u64, (f64, f64)>,
}

impl Sim {
    async fn new(tag: &str, hiding: Option<Hiding>) -> Sim {
        let direct = Arc::new(dynalite_store(tag).await);
        let proxy = meter_proxy::start(&dynalite(), direct.clone()).await;
        let stack = LambdaStack::start(
            direct.clone(),
            &proxy.url,
            StackConfig {
                api_environments: 2,
                front_door: FrontDoor::FunctionUrl,
                live: true,
                log_level: Some("WARN".into()),
                env: vec![("MADANG_METRICS_EVERY_SECS".into(), "0".into())],
                ..StackConfig::default()
            },
        )
        .await;
        let logs = stack.logs().to_path_buf();
        let now = dev_clock(&stack, 0).await;
        Sim {
            api_pids: env_pids(&logs, "api"),
            live_pids: env_pids(&logs, "live"),
            sweeper_pids: env_pids(&logs, "sweeper"),
            logs,
            stack,
            proxy,
            direct,
            room: String::new(),
            url: String::new(),
            apps: Vec::new(),
            people: 1,
            hiding,
            pace: 0,
            bot_search_s: 0.0,
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
            minutes: BTreeMap::new(),
        }
    }

    fn now(&self) -> Millis {
        self.clock + self.clock_at.elapsed().as_millis() as Millis
    }

    /// Moves the functions' clock to `at` (not counted: test machinery).
    async fn advance_to(&mut self, at: Millis) {
        // As in the region, where a search ends long before the think time does: the bot
        // function has kept its move as a plan (or found none to make) before the clock moves.
        self.stack.bots_done().await;
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
            sweeper: durations(&self.stack.sweeper_timings()),
            api_cpu: cpu_s(&self.api_pids),
            live_cpu: cpu_s(&self.live_pids),
            sweeper_cpu: cpu_s(&self.sweeper_pids),
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
    async fn book(&mut self, step: Step, mark: Mark, frames: u64) {
        self.live_settled().await;
        let (api, api_s) = new_invocations(&self.stack.api_timings(), &mark.api);
        let (live, live_s) = new_invocations(&self.stack.live_timings(), &mark.live);
        let api_cpu_s = cpu_s(&self.api_pids) - mark.api_cpu;
        let live_cpu_s = cpu_s(&self.live_pids) - mark.live_cpu;
        let (sweeper, sweeper_s) = new_invocations(&self.stack.sweeper_timings(), &mark.sweeper);
        let sweeper_cpu_s = cpu_s(&self.sweeper_pids) - mark.sweeper_cpu;
        let units = self.proxy.report().since(&mark.units);
        let registry = self.proxy.registry().since(&mark.registry);
        let posted = self.stack.live_posts().0 - mark.posted;
        let minute = (self.now() - self.started_at) / 60_000;
        let bucket = self.minutes.entry(minute).or_default();
        bucket.0 += units.read_units;
        bucket.1 += units.write_units + units.index_write_units as f64;
        let spent = self.spent.entry(step).or_default();
        spent.steps += 1;
        spent.api += api;
        spent.live += live;
        spent.api_s += api_s;
        spent.live_s += live_s;
        spent.api_cpu_s += api_cpu_s;
        spent.live_cpu_s += live_cpu_s;
        let dynamodb_calls = units.reads + units.writes + units.conditional_failures;
        let calls = |n: u64, wall_s: f64, cpu_s: f64| Calls {
            n,
            wall_s,
            cpu_s,
            dynamodb_calls: if n > 0 { dynamodb_calls } else { 0 },
            posted: posted > 0,
        };
        // A step is one function's work (an action, a read: `api`; a frame: `live`; a sweep).
        if api > 0 {
            spent.api_calls.push(calls(api, api_s, api_cpu_s));
        }
        if live > 0 {
            spent.live_calls.push(calls(live, live_s, live_cpu_s));
        }
        if sweeper > 0 {
            spent
                .sweeper_calls
                .push(calls(sweeper, sweeper_s, sweeper_cpu_s));
        }
        spent.sweeper += sweeper;
        spent.sweeper_s += sweeper_s;
        spent.sweeper_cpu_s += sweeper_cpu_s;
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

    /// The newest room any app holds.
    fn newest(&self) -> &Value {
        &self.apps.iter().max_by_key(|a| a.version).unwrap().view
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
        self.book(step, mark, 0).await;
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

    /// App `a` opens the room: a read, the socket, `hello` with the version it holds and a
    /// `ping` (the client library's, whose `pong` says the hello was taken).
    async fn open(&mut self, a: usize) {
        self.read(a, Step::OpenRead).await;
        let mark = self.mark();
        let socket = Live::connect(&self.url).await;
        self.live_events += 1;
        self.book(Step::Connect, mark, 0).await;
        let now = self.now();
        let mark = self.mark();
        let app = &mut self.apps[a];
        app.socket = Some(socket);
        app.connected_at = now;
        app.next_ping = now + HEARTBEAT_MS;
        let (room, token, since) = (self.room.clone(), app.player.token.clone(), app.version);
        let socket = app.socket.as_mut().unwrap();
        socket.hello(&room, Some(&token), since).await;
        socket.send(r#"{"type":"ping"}"#).await;
        // Anything newer than `since` comes before the pong: taken as it comes.
        loop {
            match socket.next().await {
                Heard::Pong => break,
                Heard::Version(v) if v > app.version => {
                    if let Some(room) = socket.last_room.take() {
                        app.version = v;
                        app.view = room;
                    }
                }
                Heard::Version(_) | Heard::Chat(_) => continue,
                other => panic!("hello: {other:?}"),
            }
        }
        self.live_events += 2;
        self.book(Step::Hello, mark, 2).await;
        self.arm(a);
        // The web app's chat drawer catches up once the hello is taken (its pong).
        let mark = self.mark();
        let r = self
            .stack
            .app
            .get(&format!("/rooms/{}/chat?after=0", self.room), Some(&token))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        self.book(Step::ChatCatchUp, mark, 0).await;
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
        if app.socket.take().is_none() {
            return;
        }
        self.connection_minutes += (now - app.connected_at).div_ceil(60_000);
        self.live_events += 1;
        self.book(Step::Disconnect, mark, 0).await;
    }

    /// A person's app joins the sim (after its join request, or the host's create).
    async fn add_app(&mut self, player: Player) {
        self.apps.push(App::new(player));
        let a = self.apps.len() - 1;
        self.open(a).await;
    }

    /// The room is created by its host, `bots` computer players are added, and `people - 1`
    /// more people join; every person's app opens it.
    async fn create(&mut self, game: &str, options: Value, people: usize, bots: &[u8]) {
        self.people = people;
        let mark = self.mark();
        let (room, host) = self.stack.app.create(game, options, 7).await;
        for &level in bots {
            self.stack
                .app
                .act_ok(&room, &host, json!({"type": "addBot", "level": level}))
                .await;
        }
        self.book(Step::Setup, mark, 0).await;
        self.room = room;
        let view = self.stack.app.room(&self.room, None).await;
        self.url = live_url(&view);
        self.first_version = view["version"].as_u64().unwrap();
        self.heard = self.version().await;
        self.add_app(host).await;
        for i in 1..people {
            let mark = self.mark();
            let player = self.stack.app.join(&self.room, &format!("친구{i}")).await;
            self.book(Step::Setup, mark, 0).await;
            self.hear(None).await;
            self.add_app(player).await;
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
        self.book(Step::Action, mark, 0).await;
        self.actions += 1;
        self.last_action_at = self.now();
        let app = &mut self.apps[a];
        app.version = reply["version"].as_u64().unwrap();
        app.view = reply["room"].clone();
        self.arm(a);
        self.hear(Some(a)).await;
    }

    /// The next thing due in the sim, and when.
    fn next_event(&self) -> (Millis, Event) {
        let mut next = (self.next_sweep, Event::Sweep);
        let since = self.now().saturating_sub(self.started_at);
        for (a, app) in self.apps.iter().enumerate() {
            let mut candidates = Vec::new();
            if app.watching() {
                candidates.push((app.wake, Event::Wake(a)));
                candidates.push((app.next_ping, Event::Ping(a)));
                candidates.push((app.last_seen + KEEP_PRESENT_MS, Event::Presence(a)));
            }
            if let Some(hiding) = self.hiding {
                // A change of the schedule another event came before (a sweep on the same
                // minute) is due at once.
                let (hidden, change) = hiding.at(a, self.people, since);
                let at = if hidden == app.scheduled_hidden {
                    self.started_at + change
                } else {
                    self.now()
                };
                candidates.push((at, Event::Visibility(a)));
            }
            if let Some(hidden) = app.hidden_since
                && app.watching()
            {
                candidates.push((hidden + HIDDEN_CLOSE_MS, Event::CloseHidden(a)));
            }
            for c in candidates {
                if c < next {
                    next = c;
                }
            }
        }
        next
    }

    /// Runs the next event if it comes before `until`; whether one ran.
    async fn step(&mut self, until: Millis) -> bool {
        let (at, event) = self.next_event();
        if at >= until {
            return false;
        }
        self.advance_to(at).await;
        match event {
            Event::Sweep => {
                let mark = self.mark();
                let swept = self.stack.sweep().await;
                assert_eq!(swept["errors"], 0, "{swept}");
                self.book(Step::Sweep, mark, 0).await;
                self.next_sweep += SWEEP_EVERY_MS;
                self.hear(None).await;
            }
            Event::Wake(a) => {
                if self.apps[a].wake_reads {
                    self.apps[a].deadline_read = self.apps[a].view["deadlineAt"].as_u64();
                    self.read(a, Step::DeadlineRead).await;
                    self.hear(None).await;
                }
                self.arm(a);
            }
            Event::Presence(a) => {
                self.read(a, Step::PresenceRead).await;
                self.hear(None).await;
            }
            Event::Ping(a) => {
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
                self.book(Step::Ping, mark, 1).await;
                self.apps[a].next_ping += HEARTBEAT_MS;
            }
            Event::Visibility(a) => {
                let since = at - self.started_at;
                let hidden = self.hiding.unwrap().at(a, self.people, since).0;
                self.apps[a].scheduled_hidden = hidden;
                if hidden {
                    self.hide(a, at);
                } else {
                    self.show(a).await;
                }
            }
            Event::CloseHidden(a) => {
                self.close(a).await;
                self.apps[a].closed_hidden = true;
            }
        }
        true
    }

    /// App `a`'s page is hidden at `at`.
    fn hide(&mut self, a: usize, at: Millis) {
        let app = &mut self.apps[a];
        if app.hidden_since.is_none() {
            app.hidden_since = Some(at);
        }
    }

    /// App `a`'s page is shown: if it closed its socket, it opens the room again (a read,
    /// the socket, `hello` with `since`) and must be current at once.
    async fn show(&mut self, a: usize) {
        let now = self.now();
        let app = &mut self.apps[a];
        let Some(since) = app.hidden_since.take() else {
            return;
        };
        app.hidden_ms += now - since;
        if app.closed_hidden {
            app.closed_hidden = false;
            app.reopened += 1;
            self.open(a).await;
            let current = self.version().await;
            let app = &mut self.apps[a];
            app.behind_after_reopen += current - app.version.min(current);
        }
    }

    /// Time passes until `target` (sweeps, deadline reads, heartbeats, pages hidden and shown).
    async fn pass_until(&mut self, target: Millis) {
        while self.step(target).await {}
        self.advance_to(target).await;
    }

    /// Time passes until the next action, at the pace from the last one; the person `mover`
    /// looks at their page (a hidden one is brought up by the turn alert). Returns their app,
    /// holding the current room.
    async fn think(&mut self, mover: &str) -> usize {
        // Each think time is the pace ± half a second, in a fixed spread, from the last action:
        // the real time the steps take does not stretch the game.
        let jitter = (self.actions * 389) % 1_000;
        let target = (self.last_action_at + self.pace + jitter - 500).max(self.now());
        let a = self
            .apps
            .iter()
            .position(|app| app.player.id == mover)
            .unwrap();
        // The turn alert brings a hidden page up as the turn begins; the player thinks, acts.
        self.bring_up(a).await;
        self.pass_until(target).await;
        self.bring_up(a).await;
        a
    }

    /// The person of app `a` is about to act: a hidden page is shown for it (reopening the
    /// room if its socket closed) and hidden again right after, with a new 30 s before its
    /// socket closes. The app then holds the current room.
    async fn bring_up(&mut self, a: usize) {
        let hidden = self.apps[a].hidden_since.is_some();
        if hidden {
            self.show(a).await;
        }
        if self.apps[a].version < self.version().await {
            self.read(a, Step::AnnouncedRead).await;
        }
        if hidden {
            let now = self.now();
            self.hide(a, now);
        }
    }

    /// The game is over: every app closes its socket.
    async fn finish(&mut self) -> Figures {
        let now = self.now();
        for a in 0..self.apps.len() {
            if let Some(since) = self.apps[a].hidden_since.take() {
                self.apps[a].hidden_ms += now - since;
            }
            self.close(a).await;
        }
        let last = self.version().await;
        let total = self.spent.values().fold(Spent::default(), |mut t, s| {
            t.add(s);
            t
        });
        let (_, gone) = self.stack.live_posts();
        let minutes = (self.now() - self.started_at) as f64 / 60_000.0;
        let hidden_share = self
            .apps
            .iter()
            .map(|a| a.hidden_ms as f64 / (minutes * 60_000.0))
            .sum::<f64>()
            / self.apps.len() as f64;
        let changes = last - self.first_version;
        let bot_invocations = self.stack.bot_invocations();
        let bot_moves = if bot_invocations > 0 {
            changes.saturating_sub(self.actions + self.people as u64 - 1)
        } else {
            0
        };
        Figures {
            minutes,
            changes,
            actions: self.actions,
            bot_invocations,
            bot_moves,
            bot_move_s: self.bot_search_s + BOT_MOVE_IO_S,
            apps: self.apps.len() as u64,
            by_step: self.spent.clone(),
            total,
            connection_minutes: self.connection_minutes,
            missed: self.missed,
            rooms_taken: self.rooms_taken,
            version_only: self.version_only,
            gone,
            hidden_share,
            reopened: self.apps.iter().map(|a| a.reopened).sum(),
            behind_after_reopen: self.apps.iter().map(|a| a.behind_after_reopen).sum(),
            by_minute: self.minutes.clone(),
            logs: Logs::of(&self.logs),
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

/// What the functions wrote that Lambda keeps at `WARN`.
#[derive(Clone, Debug, Default)]
struct Logs {
    /// Log lines and their bytes (metric lines apart).
    lines: u64,
    bytes: u64,
    /// Metric lines and their bytes, and the distinct (environment, minute) pairs and
    /// (metric, hour) pairs they fall in: what one line a minute per environment writes, and the
    /// metric-hours CloudWatch bills. Minutes and hours of the real clock here (the dev clock
    /// runs ahead of it, so this overstates them).
    emf_lines: u64,
    emf_bytes: u64,
    env_minutes: u64,
    metric_hours: u64,
}

impl Logs {
    fn of(dir: &Path) -> Logs {
        let mut logs = Logs::default();
        let mut minutes = BTreeSet::new();
        let mut hours = BTreeSet::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            for line in text.lines() {
                let value: Value = serde_json::from_str(line).unwrap_or(Value::Null);
                let level = value["level"].as_str().unwrap_or("INFO");
                if !matches!(level, "WARN" | "ERROR" | "FATAL") {
                    continue;
                }
                let bytes = line.len() as u64 + 1;
                if let Some(ts) = value["_aws"]["Timestamp"].as_u64() {
                    logs.emf_lines += 1;
                    logs.emf_bytes += bytes;
                    minutes.insert((name.clone(), ts / 60_000));
                    for metric in value["_aws"]["CloudWatchMetrics"][0]["Metrics"]
                        .as_array()
                        .into_iter()
                        .flatten()
                    {
                        hours.insert((metric["Name"].to_string(), ts / 3_600_000));
                    }
                } else {
                    logs.lines += 1;
                    logs.bytes += bytes;
                }
            }
        }
        logs.env_minutes = minutes.len() as u64;
        logs.metric_hours = hours.len() as u64;
        logs
    }
}

/// One game's counts.
#[derive(Clone, Debug)]
struct Figures {
    minutes: f64,
    changes: u64,
    actions: u64,
    /// `BotFunction`'s invocations, and the computer players' moves it made (the changes that
    /// were neither a person's action nor a join; at most one over: the game's end).
    bot_invocations: u64,
    bot_moves: u64,
    /// What one of those moves bills `BotFunction` (s): its search and [`BOT_MOVE_IO_S`].
    bot_move_s: f64,
    apps: u64,
    by_step: BTreeMap<Step, Spent>,
    total: Spent,
    connection_minutes: u64,
    missed: u64,
    rooms_taken: u64,
    version_only: u64,
    gone: u64,
    /// The share of the game's time the pages were hidden (mean over the apps).
    hidden_share: f64,
    /// Pages shown again after their socket closed, and how far behind they were once open.
    reopened: u64,
    behind_after_reopen: u64,
    by_minute: BTreeMap<u64, (f64, f64)>,
    logs: Logs,
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
    fn requests(&self) -> u64 {
        self.total.api + self.total.live + self.bot_invocations
    }
    fn lambda_requests(&self) -> f64 {
        self.requests() as f64 * P_LAMBDA_REQ
    }
    /// `BotFunction`'s GB-s ([`Figures::bot_move_s`] a move at [`BOT_MB`]).
    fn bot_gbs(&self) -> f64 {
        self.bot_moves as f64 * self.bot_move_s * BOT_MB / 1024.0
    }
    /// Lambda GB-s with `api` at `api_mb`, I/O in the region (sweeps apart: [`sweeper_month`]).
    fn gbs(&self, api_mb: f64) -> f64 {
        self.total.api_billed_s(api_mb, Io::Region) * api_mb / 1024.0
            + self.total.live_billed_s(Io::Region) * LIVE_MB / 1024.0
            + self.bot_gbs()
    }
    fn lambda_time(&self, api_mb: f64) -> f64 {
        self.gbs(api_mb) * P_GBS
    }
    fn websocket(&self) -> f64 {
        self.messages() as f64 * P_MESSAGE + self.connection_minutes as f64 * P_CONNECTION_MINUTE
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
        // No read when the frame carried the room: only version-only frames, versions a
        // mover had not heard (a post cut at its bound), and a page brought up to act while
        // its socket was closed are read.
        assert!(
            reads <= self.version_only + self.missed + self.reopened,
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
        assert_eq!(
            self.behind_after_reopen, 0,
            "{name}: a page shown again is current at once"
        );
    }
}

/// A 윷놀이 game of `people` people and computer players of `bots` levels, stopped after
/// `max_actions` of the people's actions if it has not ended.
async fn yut_game(people: usize, bots: &[u8], max_actions: u64, hiding: Option<Hiding>) -> Figures {
    let mut sim = Sim::new("cost-yut", hiding).await;
    sim.pace = YUT_PACE_MS;
    sim.bot_search_s = YUT_BOT_SEARCH_S;
    sim.create("yut", json!({}), people, bots).await;
    sim.act(0, json!({"type": "start"})).await;
    for _ in 0..20_000 {
        let last = sim.newest().clone();
        if last["status"] == "finished" || sim.actions >= max_actions {
            return sim.finish().await;
        }
        let mover = last["state"]["currentPlayer"].as_str().unwrap().to_owned();
        if sim.apps.iter().any(|a| a.player.id == mover) {
            let a = sim.think(&mover).await;
            let action = yut_action(&sim.apps[a].view["state"]);
            sim.act(a, action).await;
        } else {
            // A computer player's turn: the apps' deadline reads (or a sweep) fire its move.
            assert!(sim.step(Millis::MAX).await);
        }
    }
    panic!("the game did not end");
}

/// A 19×19 바둑 game between two people: `moves` moves, two passes and the score agreed.
async fn baduk_game(moves: usize, hiding: Option<Hiding>) -> Figures {
    let mut sim = Sim::new("cost-baduk", hiding).await;
    sim.pace = BADUK_PACE_MS;
    let options = json!({"boardSize": 19, "colorAssignment": "hostBlack"});
    sim.create("baduk", options, 2, &[]).await;
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

/// 9줄 바둑 against the level-3 computer player (black): the person (white) plays
/// [`BOT_BADUK_MOVES`] stones, then passes, and agrees to the score.
async fn baduk_bot_game(hiding: Option<Hiding>) -> Figures {
    let mut sim = Sim::new("cost-baduk-bot", hiding).await;
    sim.pace = BADUK_PACE_MS;
    sim.bot_search_s = BADUK_BOT_SEARCH_S;
    let options = json!({"boardSize": 9, "colorAssignment": "hostWhite"});
    sim.create("baduk", options, 1, &[3]).await;
    sim.act(0, json!({"type": "start"})).await;
    let mut draw: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut placed = 0;
    for _ in 0..2_000 {
        let view = sim.newest().clone();
        if view["status"] == "finished" {
            return sim.finish().await;
        }
        let state = &view["state"];
        let me = sim.apps[0].player.id.clone();
        let mine = match state["phase"].as_str().unwrap() {
            "playing" if state["turn"] == "white" => Some(if placed < BOT_BADUK_MOVES {
                json!({"type": "place"})
            } else {
                json!({"type": "pass"})
            }),
            "scoring" if state["scoringMarks"]["agreed"]["white"] != true => {
                Some(json!({"type": "agreeScore"}))
            }
            _ => None,
        };
        match mine {
            Some(kind) => {
                let a = sim.think(&me).await;
                let state = sim.apps[a].view["state"].clone();
                let still_mine = state["phase"] == view["state"]["phase"]
                    && (state["phase"] != "playing" || state["turn"] == "white");
                if !still_mine {
                    continue;
                }
                let action = if kind["type"] == "place" {
                    placed += 1;
                    random_place(&state, &mut draw)
                } else {
                    kind
                };
                sim.act(a, action).await;
            }
            None => assert!(sim.step(Millis::MAX).await),
        }
    }
    panic!("the game did not end");
}

const STEPS: [(Step, &str); 12] = [
    (Step::Setup, "create, joins, computer players added"),
    (Step::Action, "actions (each announced)"),
    (Step::AnnouncedRead, "reads of an announced version"),
    (
        Step::PresenceRead,
        "reads to stay present (30 s without a request)",
    ),
    (
        Step::DeadlineRead,
        "reads at a deadline (fire computer players' moves)",
    ),
    (
        Step::OpenRead,
        "the read that opens a watch (or reopens it)",
    ),
    (Step::Sweep, "sweeps (once a minute)"),
    (
        Step::ChatCatchUp,
        "the chat drawer's catch-up after each hello",
    ),
    (Step::Connect, "`$connect`"),
    (Step::Hello, "`hello` + `ping` (`$default`)"),
    (Step::Ping, "`ping` every 9 min (`$default`)"),
    (Step::Disconnect, "`$disconnect`"),
];

fn game_table(name: &str, f: &Figures) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "\n#### {name}: {:.0} min, {} changes, {} actions by people, {} apps; pages hidden {:.0} % of the time, {} reopened\n",
        f.minutes,
        f.changes,
        f.actions,
        f.apps,
        f.hidden_share * 100.0,
        f.reopened
    )
    .unwrap();
    writeln!(
        out,
        "| step | count | `api` invocations (ms each: emulator wall / CPU / billed at {API_MB:.0} MB) | `live` invocations (ms each: wall / CPU) | read units | write units (+ index) | registry RU / WU | posts | frames sent |\n|---|---|---|---|---|---|---|---|---|"
    )
    .unwrap();
    let ms = |s: f64, n: u64| {
        if n == 0 {
            "—".to_owned()
        } else {
            format!("{:.1}", s * 1000.0 / n as f64)
        }
    };
    let row = |label: &str, s: &Spent| {
        format!(
            "| {label} | {} | {} ({} / {} / {}) | {} ({} / {}) | {:.1} | {:.0} (+{}) | {:.1} / {:.0} | {} | {} |",
            s.steps,
            s.api,
            ms(s.api_s, s.api),
            ms(s.api_cpu_s, s.api),
            ms(s.api_billed_s(API_MB, Io::Region), s.api),
            s.live,
            ms(s.live_s, s.live),
            ms(s.live_cpu_s, s.live),
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
        "\nconnection-minutes {}, messages {} ({} posts + {} frames sent), announcements taken with the room {} / version only (read) {}, versions an app never heard (posts cut at the bound) {}; Lambda GB-s at {API_MB:.0} MB {:.3}; kept at WARN: {} log lines ({} B), {} metric lines",
        f.connection_minutes,
        f.messages(),
        f.total.posts,
        f.total.frames,
        f.rooms_taken,
        f.version_only,
        f.missed,
        f.gbs(API_MB),
        f.logs.lines,
        f.logs.bytes,
        f.logs.emf_lines,
    )
    .unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_channel_holds_its_invariants_over_short_games() {
    let (yut, baduk) = tokio::join!(
        yut_game(4, &[], 40, Some(Hiding::SHORT)),
        baduk_game(20, Some(Hiding::SHORT))
    );
    let mut out = String::new();
    out.push_str(&game_table(
        "윷놀이, 4 players, live, first 40 actions",
        &yut,
    ));
    out.push_str(&game_table("바둑 19×19, 20 moves, live", &baduk));
    println!("\nLive clients, short games (scripts/cost prices the month):\n{out}");
    yut.check("윷놀이");
    baduk.check("바둑");
    assert!(
        yut.reopened + baduk.reopened > 0,
        "pages hidden past 30 s closed and were shown again"
    );
}

/// The month's games, as [`the_casual_month_priced_through_whole_games`] played them.
struct Month {
    yut: Figures,
    baduk: Figures,
    yut_bots: Figures,
    baduk_bot: Figures,
    /// The same games between people with every page always shown.
    yut_shown: Figures,
    baduk_shown: Figures,
}

impl Month {
    /// The games of the month with their number.
    fn games(&self) -> [(f64, &Figures); 4] {
        let people = GAMES_A_MONTH * (1.0 - BOT_SHARE);
        let bots = GAMES_A_MONTH * BOT_SHARE;
        [
            (people, &self.yut),
            (people, &self.baduk),
            (bots, &self.yut_bots),
            (bots, &self.baduk_bot),
        ]
    }

    fn sum(&self, part: impl Fn(&Figures) -> f64) -> f64 {
        self.games().iter().map(|(n, f)| n * part(f)).sum()
    }
}

/// The sweeper's month at `SWEEPER_MB`: a run a minute (its request, an empty run's query
/// units), each billed as the games' mean run measured ([`billed_ms`]; a run that fires a game's
/// rooms, so more than an empty one). Returns (requests, DynamoDB, time, GB-s).
fn sweeper_month(month: &Month) -> (f64, f64, f64, f64) {
    let mut sweeps = Spent::default();
    for (_, f) in month.games() {
        if let Some(s) = f.by_step.get(&Step::Sweep) {
            sweeps.add(s);
        }
    }
    let runs = sweeps.sweeper.max(1) as f64;
    let each_s = sweeps
        .sweeper_calls
        .iter()
        .map(|c| c.billed_s(SWEEPER_MB, Io::Region))
        .sum::<f64>()
        / runs;
    let gbs = SWEEPS_A_MONTH * each_s * SWEEPER_MB / 1024.0;
    (
        SWEEPS_A_MONTH * P_LAMBDA_REQ,
        SWEEPS_A_MONTH * EMPTY_SWEEP_RU * P_READ,
        gbs * P_GBS,
        gbs,
    )
}

/// The casual month's busiest minute in read and write units a second: every day's games
/// (100 of each kind) start at random in a [`PEAK_WINDOW_MIN`] evening window, so the games of
/// a kind under way in one minute are Poisson with mean `100 × length ÷ window`; over the
/// month's 30 × 240 peak minutes, the busiest has about the 1-in-7,200 quantile of them, each
/// at its own busiest minute. Returns (RU/s, WU/s, concurrent games of each kind).
fn busiest_minute(month: &Month) -> (f64, f64, u64, u64) {
    let quantile = |mean: f64| {
        // The smallest k with P(N > k) < 1/7,200.
        let mut p = (-mean).exp();
        let mut cdf = p;
        let mut k = 0u64;
        while 1.0 - cdf >= 1.0 / (30.0 * PEAK_WINDOW_MIN) {
            k += 1;
            p *= mean / k as f64;
            cdf += p;
        }
        k
    };
    let peak = |f: &Figures| {
        f.by_minute
            .values()
            .fold((0.0f64, 0.0f64), |(r, w), &(mr, mw)| (r.max(mr), w.max(mw)))
    };
    let yut_n = quantile(100.0 * month.yut.minutes / PEAK_WINDOW_MIN);
    let baduk_n = quantile(100.0 * month.baduk.minutes / PEAK_WINDOW_MIN);
    let (yr, yw) = peak(&month.yut);
    let (br, bw) = peak(&month.baduk);
    let ru = (yut_n as f64 * yr + baduk_n as f64 * br + EMPTY_SWEEP_RU) / 60.0;
    let wu = (yut_n as f64 * yw + baduk_n as f64 * bw) / 60.0;
    (ru, wu, yut_n, baduk_n)
}

/// What watching costs a month, from the games' measured lines: (custom metrics, logs,
/// alarms, dashboard).
fn watching_month(month: &Month, free: bool) -> (f64, f64, f64, f64) {
    // Metric-hours: each game's (metric, hour) pairs, spread over the month's 730 hours at
    // most once each.
    let metric_hours = month
        .sum(|f| f.logs.metric_hours as f64)
        .min(7.0 * HOURS_A_MONTH);
    let metric_months = metric_hours / HOURS_A_MONTH;
    let metrics = if free {
        (metric_months - FREE_METRICS).max(0.0) * P_METRIC_MONTH
    } else {
        metric_months * P_METRIC_MONTH
    };
    let gb = month.sum(|f| (f.logs.bytes + f.logs.emf_bytes) as f64) / 1e9;
    let logs = if free {
        (gb - FREE_LOG_GB).max(0.0) * P_LOG_GB
    } else {
        gb * P_LOG_GB
    };
    let alarm_metrics = ALARM_METRICS as f64 - if free { FREE_ALARM_METRICS } else { 0.0 };
    let alarms = alarm_metrics.max(0.0) * P_ALARM_METRIC;
    // The dashboard is off by default (template.yaml, CloudWatchDashboard): $3.00 at list
    // price when on, free as one of an account's first three.
    (metrics, logs, alarms, 0.0)
}

/// The month's table, in `mode` (`PayPerRequest` or `FreeTier`), at list price and with the
/// free tier.
fn month_rows(month: &Month) -> String {
    let mut out = String::new();
    let dynamodb = month.sum(Figures::dynamodb);
    let requests = month.sum(|f| f.requests() as f64);
    let gbs = month.sum(|f| f.gbs(API_MB));
    let (sweep_req, sweep_db, sweep_time, sweep_gbs) = sweeper_month(month);
    let messages = month.sum(|f| f.messages() as f64);
    let conn_minutes = month.sum(|f| f.connection_minutes as f64);
    let ws = messages * P_MESSAGE + conn_minutes * P_CONNECTION_MINUTE;
    let storage = 0.01;
    let provisioned = 25.0 * HOURS_A_MONTH * (P_RCU_HOUR + P_WCU_HOUR);
    writeln!(
        out,
        "| the casual month (3,000 games of each kind, one in ten against computer players; live clients, phones hidden a third of the time; watched) | PayPerRequest, list price | PayPerRequest, free tier | FreeTier, list price | FreeTier, free tier |\n|---|---|---|---|---|"
    )
    .unwrap();
    let lambda_req_list = requests * P_LAMBDA_REQ + sweep_req;
    let lambda_req_free =
        ((requests + SWEEPS_A_MONTH - FREE_LAMBDA_REQUESTS).max(0.0)) * P_LAMBDA_REQ;
    let lambda_time_list = gbs * P_GBS + sweep_time;
    let lambda_time_free = ((gbs + sweep_gbs - FREE_LAMBDA_GBS).max(0.0)) * P_GBS;
    let (metrics_l, logs_l, alarms_l, dash_l) = watching_month(month, false);
    let (metrics_f, logs_f, alarms_f, dash_f) = watching_month(month, true);
    let watch_l = metrics_l + logs_l + alarms_l + dash_l;
    let watch_f = metrics_f + logs_f + alarms_f + dash_f;
    let rows: [(&str, [f64; 4]); 7] = [
        (
            "DynamoDB (requests; FreeTier: 25 read + 25 write units provisioned; storage)",
            [
                dynamodb + sweep_db + storage,
                dynamodb + sweep_db,
                provisioned + storage,
                0.0,
            ],
        ),
        (
            "Lambda requests",
            [
                lambda_req_list,
                lambda_req_free,
                lambda_req_list,
                lambda_req_free,
            ],
        ),
        (
            "Lambda time",
            [
                lambda_time_list,
                lambda_time_free,
                lambda_time_list,
                lambda_time_free,
            ],
        ),
        (
            "WebSocket messages and connection-minutes",
            [ws, ws, ws, ws],
        ),
        (
            "watching: custom metrics",
            [metrics_l, metrics_f, metrics_l, metrics_f],
        ),
        ("watching: logs", [logs_l, logs_f, logs_l, logs_f]),
        (
            "watching: alarms and dashboard",
            [
                alarms_l + dash_l,
                alarms_f + dash_f,
                alarms_l + dash_l,
                alarms_f + dash_f,
            ],
        ),
    ];
    let mut totals = [0.0; 4];
    for (label, values) in rows {
        for (t, v) in totals.iter_mut().zip(values) {
            *t += v;
        }
        writeln!(
            out,
            "| {label} | ${:.2} | ${:.2} | ${:.2} | ${:.2} |",
            values[0], values[1], values[2], values[3]
        )
        .unwrap();
    }
    writeln!(
        out,
        "| **the month, all-in** | **${:.2}** | **${:.2}** | **${:.2}** | **${:.2}** |",
        totals[0], totals[1], totals[2], totals[3]
    )
    .unwrap();
    writeln!(
        out,
        "| of it watching (metrics, logs, {ALARMS} alarms of {ALARM_METRICS} alarm metrics; the dashboard is off by default, ${P_DASHBOARD:.2} at list price when on) | ${watch_l:.2} | ${watch_f:.2} | ${watch_l:.2} | ${watch_f:.2} |"
    )
    .unwrap();
    writeln!(
        out,
        "\n(Requests: {:.2} M Lambda invocations, {:.2} M messages, {:.2} M connection-minutes, {:.0} GB-s at `api` {API_MB:.0} MB, of them {:.0} GB-s of `BotFunction` at {BOT_MB:.0} MB ({:.0} computer players' moves, {:.3} s each: a load, the search, the plan kept); the sweeper {:.0} runs at {SWEEPER_MB:.0} MB. Free tier: AWS's always-free allowances — Lambda's 1 M requests and 400,000 GB-s, DynamoDB's 25 provisioned read and write units (not an on-demand table's requests), CloudWatch's 10 metrics, 10 alarm metrics, 3 dashboards and 5 GB of logs; not the first year's WebSocket allowance.)",
        (requests + SWEEPS_A_MONTH) / 1e6,
        messages / 1e6,
        conn_minutes / 1e6,
        gbs + sweep_gbs,
        month.sum(Figures::bot_gbs),
        month.sum(|f| f.bot_moves as f64),
        month.sum(Figures::bot_gbs) / month.sum(|f| f.bot_moves as f64).max(1.0) * 1024.0 / BOT_MB,
        SWEEPS_A_MONTH
    )
    .unwrap();
    out
}

/// One game kind's row of the per-game table.
fn per_game_row(label: &str, n: f64, f: &Figures) -> String {
    format!(
        "| {label} | {n:.0} | {:.0} | {} | {:.1} | {:.0} | {} | {} | {:.3} | ${:.5} | ${:.5} | ${:.5} | ${:.5} | **${:.5}** |",
        f.minutes,
        f.requests(),
        f.read_units(),
        f.write_units(),
        f.messages(),
        f.connection_minutes,
        f.gbs(API_MB),
        f.dynamodb(),
        f.lambda_requests(),
        f.lambda_time(API_MB),
        f.websocket(),
        f.dynamodb() + f.lambda_requests() + f.lambda_time(API_MB) + f.websocket()
    )
}

/// The api's billed time per action and per read at each memory ([`MEMORIES_MB`]).
fn memory_table(month: &Month) -> String {
    let mut out = String::from(
        "| `api` invocation | count | CPU ms each (measured) | emulator wall ms each | billed ms at 128 MB: I/O in region (I/O as on the emulator) | at 256 MB | at 512 MB | a month's GB-s at 128 / 256 / 512 MB (I/O in region) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (label, steps) in [
        ("an action", &[Step::Action][..]),
        (
            "a read (of a version, at a deadline, to stay present, opening)",
            &[
                Step::AnnouncedRead,
                Step::DeadlineRead,
                Step::PresenceRead,
                Step::OpenRead,
            ][..],
        ),
    ] {
        let mut spent = Spent::default();
        for (_, f) in month.games() {
            for step in steps {
                if let Some(s) = f.by_step.get(step) {
                    spent.add(s);
                }
            }
        }
        let calls = spent.api.max(1) as f64;
        let gbs_month = |mb: f64| {
            month
                .games()
                .iter()
                .map(|(n, f)| {
                    steps
                        .iter()
                        .filter_map(|s| f.by_step.get(s))
                        .map(|s| s.api_billed_s(mb, Io::Region) * mb / 1024.0)
                        .sum::<f64>()
                        * n
                })
                .sum::<f64>()
        };
        let billed: Vec<String> = MEMORIES_MB
            .iter()
            .map(|&mb| {
                format!(
                    "{:.1} ({:.1})",
                    spent.api_billed_s(mb, Io::Region) * 1000.0 / calls,
                    spent.api_billed_s(mb, Io::Emulator) * 1000.0 / calls
                )
            })
            .collect();
        let gbs: Vec<String> = MEMORIES_MB
            .iter()
            .map(|&mb| format!("{:.0}", gbs_month(mb)))
            .collect();
        writeln!(
            out,
            "| {label} | {} | {:.2} | {:.1} | {} | {} |",
            spent.api,
            spent.api_cpu_s * 1000.0 / calls,
            spent.api_s * 1000.0 / calls,
            billed.join(" | "),
            gbs.join(" / "),
        )
        .unwrap();
    }
    out
}

/// What a page that closes its socket saves and pays, from one game between people: posts to
/// one app a minute (always shown), and the cost of one watch opened (read, `$connect`, `hello`
/// and `ping`, the chat's catch-up, `$disconnect`, as measured, per opening). Returns a
/// sentence: the break-even time closed, and a two-minute absence.
fn reopen_economics(label: &str, shown: &Figures, hidden: &Figures) -> String {
    let per_app_minute = shown.total.posts as f64 / (shown.apps as f64 * shown.minutes);
    let mut open = Spent::default();
    for step in [
        Step::OpenRead,
        Step::ChatCatchUp,
        Step::Connect,
        Step::Hello,
        Step::Disconnect,
    ] {
        if let Some(s) = hidden.by_step.get(&step) {
            open.add(s);
        }
    }
    let opens = (hidden.apps + hidden.reopened) as f64;
    let cost = (open.units.read_units * P_READ
        + (open.units.write_units + open.units.index_write_units as f64) * P_WRITE
        + (open.api + open.live) as f64 * P_LAMBDA_REQ
        + (open.posts + open.frames) as f64 * P_MESSAGE)
        / opens;
    let closed_minute = per_app_minute * P_MESSAGE + P_CONNECTION_MINUTE;
    let away = 2.0 - HIDDEN_CLOSE_MS as f64 / 60_000.0;
    format!(
        "{label}: {per_app_minute:.1} posts a minute to each app; opening a watch costs ${:.2} per million ({:.1} read and {:.1} write units, {:.1} invocations, {:.1} messages): closing pays after {:.1} min closed; a two-minute absence (1.5 min closed) saves {:.0} posts and 1.5 connection-minutes, ${:.2} per million net.",
        cost * 1e6,
        open.units.read_units / opens,
        (open.units.write_units + open.units.index_write_units as f64) / opens,
        (open.api + open.live) as f64 / opens,
        (open.posts + open.frames) as f64 / opens,
        cost / closed_minute,
        per_app_minute * away,
        (away * closed_minute - cost) * 1e6,
    )
}

/// The casual month through whole games (`scripts/cost`; minutes of real time): docs/cost.md's
/// first table, the per-game table, api's memory, the phones hidden a third of the time against
/// always shown, the busiest minute.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the whole month's games: scripts/cost runs it"]
async fn the_casual_month_priced_through_whole_games() {
    let (yut, baduk) = tokio::join!(
        yut_game(4, &[], u64::MAX, Some(Hiding::HIDE)),
        baduk_game(BADUK_MOVES, Some(Hiding::HIDE))
    );
    // A person playing computer players looks at the page: nobody else's move to wait for.
    let (yut_bots, baduk_bot) = tokio::join!(
        yut_game(1, &[1, 2, 3], u64::MAX, None),
        baduk_bot_game(None)
    );
    let (yut_shown, baduk_shown) = tokio::join!(
        yut_game(4, &[], u64::MAX, None),
        baduk_game(BADUK_MOVES, None)
    );
    for (name, f) in [
        ("윷놀이", &yut),
        ("바둑", &baduk),
        ("윷놀이 (always shown)", &yut_shown),
        ("바둑 (always shown)", &baduk_shown),
    ] {
        f.check(name);
    }
    let month = Month {
        yut,
        baduk,
        yut_bots,
        baduk_bot,
        yut_shown,
        baduk_shown,
    };
    let mut out = String::new();
    writeln!(out, "\n## The month\n").unwrap();
    out.push_str(&month_rows(&month));
    writeln!(out, "\n## A game of each kind\n").unwrap();
    writeln!(
        out,
        "| game | a month | minutes | requests | read units | write units | messages | connection-minutes | GB-s | DynamoDB | Lambda requests | Lambda time | WebSocket | **a game** |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    .unwrap();
    for (label, (n, f)) in [
        "윷놀이, 4 people",
        "바둑 19×19, 2 people, 250 moves",
        "윷놀이, 1 person + 3 computer players (levels 1–3)",
        "바둑 9줄 against the level-3 computer player",
    ]
    .iter()
    .zip(month.games())
    {
        writeln!(out, "{}", per_game_row(label, n, f)).unwrap();
    }
    writeln!(out, "\n## api's memory\n").unwrap();
    out.push_str(&memory_table(&month));
    writeln!(
        out,
        "\n## Phones hidden a third of the time, against always shown\n"
    )
    .unwrap();
    writeln!(
        out,
        "| game | hidden (measured) | reopened | posts | connection-minutes | `live` invocations | `api` invocations | read units | write units | a game | a month (2,700 games) |\n|---|---|---|---|---|---|---|---|---|---|---|"
    )
    .unwrap();
    for (label, hidden, shown) in [
        ("윷놀이, 4 people", &month.yut, &month.yut_shown),
        ("바둑 19×19, 2 people", &month.baduk, &month.baduk_shown),
    ] {
        for (which, f) in [("hidden a third", hidden), ("always shown", shown)] {
            let game = f.dynamodb() + f.lambda_requests() + f.lambda_time(API_MB) + f.websocket();
            writeln!(
                out,
                "| {label}, {which} | {:.0} % | {} | {} | {} | {} | {} | {:.1} | {:.0} | ${game:.5} | ${:.2} |",
                f.hidden_share * 100.0,
                f.reopened,
                f.total.posts,
                f.connection_minutes,
                f.total.live,
                f.total.api,
                f.read_units(),
                f.write_units(),
                game * GAMES_A_MONTH * (1.0 - BOT_SHARE),
            )
            .unwrap();
        }
    }
    writeln!(out).unwrap();
    for (label, shown, hidden) in [
        ("윷놀이", &month.yut_shown, &month.yut),
        ("바둑", &month.baduk_shown, &month.baduk),
    ] {
        writeln!(out, "- {}", reopen_economics(label, shown, hidden)).unwrap();
    }
    let (ru, wu, yut_n, baduk_n) = busiest_minute(&month);
    writeln!(
        out,
        "\n## The busiest minute\n\n{yut_n} 윷놀이 and {baduk_n} 바둑 games at once, each at its busiest minute: {ru:.2} read units and {wu:.2} write units a second (the games' own busiest minutes: 윷놀이 {:?}, 바둑 {:?} RU/WU a minute)",
        month
            .yut
            .by_minute
            .values()
            .fold((0.0f64, 0.0f64), |(r, w), &(a, b)| (r.max(a), w.max(b))),
        month
            .baduk
            .by_minute
            .values()
            .fold((0.0f64, 0.0f64), |(r, w), &(a, b)| (r.max(a), w.max(b))),
    )
    .unwrap();
    writeln!(out, "\n## Every step of every game\n").unwrap();
    for (label, f) in [
        ("윷놀이, 4 people, phones hidden a third", &month.yut),
        ("바둑 19×19, 2 people, phones hidden a third", &month.baduk),
        ("윷놀이, 1 person + 3 computer players", &month.yut_bots),
        (
            "바둑 9줄 against the level-3 computer player",
            &month.baduk_bot,
        ),
        ("윷놀이, 4 people, always shown", &month.yut_shown),
        ("바둑 19×19, 2 people, always shown", &month.baduk_shown),
    ] {
        out.push_str(&game_table(label, f));
    }
    println!("{out}");
}

/// [`ALARMS`] and [`ALARM_METRICS`] are template.yaml's, deployed with the Function URL front door
/// (the HTTP API's 5xx alarm, condition `UseHttpApi`, left out): an alarm of metric math counts
/// each `MetricStat`, one of a single metric counts 1.
#[test]
fn the_priced_alarms_are_the_templates() {
    let template = include_str!("../../template.yaml");
    let lines: Vec<&str> = template.lines().collect();
    let (mut alarms, mut metrics) = (0, 0);
    for (i, line) in lines.iter().enumerate() {
        if line.trim() != "Type: AWS::CloudWatch::Alarm" {
            continue;
        }
        // The resource's block: up to the next line at the resources' indentation.
        let block: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.is_empty() || l.starts_with("   "))
            .copied()
            .collect();
        if block.iter().any(|l| l.trim() == "Condition: UseHttpApi") {
            continue;
        }
        alarms += 1;
        let stats = block.iter().filter(|l| l.trim() == "MetricStat:").count();
        metrics += if stats > 0 { stats } else { 1 };
    }
    assert_eq!((alarms, metrics), (ALARMS, ALARM_METRICS));
}
