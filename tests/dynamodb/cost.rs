//! What a game costs on DynamoDB, measured: item size and consumed units per action through a
//! whole four-player 윷놀이 game and a 400-move 19×19 바둑 game, next to the size of the naive
//! encoding of the same games; and the item size of 19×19 games by move count, up to the
//! 722 first moves of Little Go's longest record. The whole games are cost runs, outside the
//! default test command (`#[ignore]`: `scripts/cost` runs them, or `cargo test --test dynamodb
//! cost -- --ignored --nocapture`); the default run plays their first actions and holds the
//! invariant: units per action ([`units_per_action_of_the_first_actions_on_dynamodb`]). Printed,
//! copied into `docs/cost.md`, and asserted:
//!
//! - the room's item is at most 2 KB after every action of both games (by DynamoDB's size rules,
//!   and by dynalite, which bills no write of it more than two units), and through move 400 of
//!   the long record. It was 1 KB (one unit a write) until rooms kept their replay log (stored
//!   format 7): the log adds 2–3 bytes a step, so a room passes 1 KB mid-game (윷놀이 near
//!   action 114, 바둑 near move 190) and its later writes bill two units (docs/cost.md,
//!   "The replay log");
//! - the 19×19 game's item is at least 20 times smaller than its naive encoding;
//! - due-index write units stay at or below 0.2 per action, amortized over the whole game.
//!
//! The games run through the real router over HTTP on a metered [`DynamoStore`] on dynalite,
//! with the turn timers on (the defaults: 30 s a turn in 윷놀이, 30 s × 3 byo-yomi in 바둑), at
//! a realistic pace on the server's dev clock: **one 윷놀이 action every 4 s, one 바둑 move every
//! 8 s**, and the sweeper on its production schedule, **once a minute**. Between two actions every
//! player's app reads the room once (as a long-poll returns when the room changes); presence is
//! then written at most every 15 s per player, as in production. The units of each request are
//! bracketed by meter readings (nothing runs in the background), so they are split exactly into
//! what the actions, the players' reads and the sweeps consumed.
//!
//! The naive encoding is what the spec describes: the game's `State` as JSON (here the public view
//! of it, which leaves out the generator and, for 바둑, the superko history), and for 바둑 the
//! position history of spec §5.3 added, one `size*size` string of `.`, `b`, `w` per placed stone.
//! Our side of the ratio is the whole item (id, version, presence, expiry, index keys and the
//! encoded room with its seats and tokens); the naive side is the state alone, which favours it.

use std::fmt::Write as _;
use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use madang_core::Millis;
use madang_functions::{App, sweeper};
use madang_infra::DynamoStore;
use madang_infra::dynamo::capacity::{CapacityMeter, CapacityReport};
use madang_infra::dynamo::item::Item;
use madang_tests::games::{random_place, yut_action};
use madang_tests::{Player, TestApp, spawn_app_unswept};
use serde_json::{Value, json};

use crate::dynalite_store;

/// One 윷놀이 action every this many ms.
const YUT_PACE_MS: Millis = 4_000;
/// One 바둑 move every this many ms.
const BADUK_PACE_MS: Millis = 8_000;
/// The sweeper's schedule in production (`rate(1 minute)`).
const SWEEP_EVERY_MS: Millis = 60_000;
/// The 바둑 game: this many moves on a 19×19 board, then two passes and agreement (real games
/// run 250–350 moves, some past 400).
const BADUK_MOVES: usize = 400;
/// The move counts the item-size table shows.
const TABLE_MOVES: [usize; 4] = [250, 300, 400, 722];

/// Targets.
/// Two write units a save at most (one until the replay log; see the module's note).
const MAX_ITEM_BYTES: usize = 2048;
const MIN_NAIVE_RATIO_19: f64 = 20.0;
const MAX_INDEX_UNITS_PER_ACTION: f64 = 0.2;

/// The size DynamoDB bills for a value: strings and binaries by their bytes, numbers at one byte
/// per two significant digits plus one, maps and lists at three bytes plus, per element, its
/// name, its value and one byte (the rules of the DynamoDB developer guide, "Item sizes").
pub(crate) fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::N(n) => {
            let digits = n.chars().filter(char::is_ascii_digit).collect::<String>();
            let significant = digits.trim_start_matches('0').trim_end_matches('0').len();
            significant.div_ceil(2) + 1
        }
        AttributeValue::M(map) => {
            3 + map
                .iter()
                .map(|(name, value)| name.len() + value_size(value) + 1)
                .sum::<usize>()
        }
        AttributeValue::L(list) => 3 + list.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        other => panic!("no such attribute in a room: {other:?}"),
    }
}

/// The billed size of an item: every attribute's name plus its value.
pub(crate) fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + value_size(value))
        .sum()
}

/// Adds `b` to `a` (for other suites' cost reports).
pub(crate) fn add_report(a: &mut CapacityReport, b: &CapacityReport) {
    add(a, b);
}

/// Sums of capacity reports.
fn add(a: &mut CapacityReport, b: &CapacityReport) {
    a.reads += b.reads;
    a.writes += b.writes;
    a.conditional_failures += b.conditional_failures;
    a.read_units += b.read_units;
    a.write_units += b.write_units;
    a.reported_index_write_units += b.reported_index_write_units;
    a.index_write_units += b.index_write_units;
}

/// A game being played for the meter.
struct Sim {
    name: &'static str,
    http: TestApp,
    server: App<DynamoStore>,
    store: Arc<DynamoStore>,
    meter: Arc<CapacityMeter>,
    room: String,
    players: Vec<Player>,
    pace: Millis,
    next_sweep: Millis,
    /// Game actions (from `start` to the last one).
    actions: u64,
    /// What the actions' requests consumed.
    on_actions: CapacityReport,
    /// What the players' reads between actions consumed (loads, presence writes).
    on_polls: CapacityReport,
    polls: u64,
    /// What the once-a-minute sweeps consumed.
    on_sweeps: CapacityReport,
    sweeps: u64,
    /// The item's billed size after each action.
    item_sizes: Vec<usize>,
    /// The naive encoding's size after each action.
    naive_sizes: Vec<usize>,
    /// 바둑: the position after each placed stone (spec §5.3), for the naive encoding.
    positions: Vec<String>,
}

impl Sim {
    async fn new(name: &'static str, game: &str, options: Value, pace: Millis) -> Sim {
        let meter = Arc::new(CapacityMeter::new());
        let store = Arc::new(
            dynalite_store(&format!("cost-{game}"))
                .await
                .with_meter(meter.clone()),
        );
        let (http, server) = spawn_app_unswept(store.clone()).await;
        let (room, host) = http.create(game, options, 7).await;
        let next_sweep = server.clock.now() + SWEEP_EVERY_MS;
        Sim {
            name,
            http,
            server,
            store,
            meter,
            room,
            players: vec![host],
            pace,
            next_sweep,
            actions: 0,
            on_actions: CapacityReport::default(),
            on_polls: CapacityReport::default(),
            polls: 0,
            on_sweeps: CapacityReport::default(),
            sweeps: 0,
            item_sizes: Vec::new(),
            naive_sizes: Vec::new(),
            positions: Vec::new(),
        }
    }

    async fn join(&mut self, name: &str) {
        let player = self.http.join(&self.room, name).await;
        self.players.push(player);
    }

    /// The room's item as stored (read past the meter).
    async fn item(&self) -> Item {
        self.store
            .client()
            .get_item()
            .table_name(self.store.table())
            .key("id", AttributeValue::S(self.room.clone()))
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .item
            .unwrap()
    }

    /// The spec's naive encoding of the state in `view` (a room view), in bytes.
    fn naive_size(&self, view: &Value) -> usize {
        let mut state = view["state"].clone();
        let object = state.as_object_mut().unwrap();
        // Hints for the player to move, not state.
        for hint in ["legalMoves", "illegalPoints", "atariWarnings"] {
            object.remove(hint);
        }
        if object.contains_key("board") {
            object.insert("positionHistory".into(), json!(self.positions));
        }
        serde_json::to_string(&state).unwrap().len()
    }

    /// The player `who` acts; the units of the request, the item and the naive sizes are noted.
    /// Every action carries an `Idempotency-Key`, as the client library sends it, so the item
    /// holds each player's last keyed answers as it would in production.
    async fn act(&mut self, who: usize, action: Value) -> Value {
        let before = self.meter.report();
        let key = format!("cost-{}", self.actions);
        let r = self
            .http
            .keyed(
                &self.room,
                &self.players[who],
                &key,
                json!({"action": action}),
            )
            .await;
        assert_eq!(r.status, reqwest::StatusCode::OK, "{action} → {:?}", r.body);
        let reply = r.body;
        add(&mut self.on_actions, &self.meter.report().since(&before));
        self.actions += 1;
        if action["type"] == "place" {
            let board = reply["room"]["state"]["board"].as_array().unwrap();
            let cells = board.iter().map(|c| match c.as_u64() {
                Some(0) => '.',
                Some(1) => 'b',
                Some(2) => 'w',
                other => panic!("no such cell {other:?}"),
            });
            self.positions.push(cells.collect());
        }
        let naive = self.naive_size(&reply["room"]);
        self.naive_sizes.push(naive);
        let size = item_size(&self.item().await);
        self.item_sizes.push(size);
        reply
    }

    /// Every player reads the room, as their app does when the room changes; returns their views.
    async fn poll_all(&mut self) -> Vec<Value> {
        let before = self.meter.report();
        let mut views = Vec::new();
        for player in &self.players {
            views.push(self.http.room(&self.room, Some(player)).await);
        }
        add(&mut self.on_polls, &self.meter.report().since(&before));
        self.polls += self.players.len() as u64;
        views
    }

    /// Time passes until the next action, with the sweeper running on its schedule.
    async fn think(&mut self) {
        let target = self.server.clock.now() + self.pace;
        while self.next_sweep <= target {
            let now = self.server.clock.now();
            self.server
                .clock
                .advance(self.next_sweep.saturating_sub(now));
            let before = self.meter.report();
            let swept = sweeper::sweep(
                &*self.store,
                &*self.server.announcer,
                &*self.server.thinker,
                self.server.clock.now(),
                100,
            )
            .await;
            assert_eq!(
                (swept.errors, swept.timeouts_fired),
                (0, 0),
                "players on time: nothing to fire"
            );
            add(&mut self.on_sweeps, &self.meter.report().since(&before));
            self.sweeps += 1;
            self.next_sweep += SWEEP_EVERY_MS;
        }
        let now = self.server.clock.now();
        self.server.clock.advance(target.saturating_sub(now));
    }

    /// Index write units per action, amortized over the game: the actions' own and the sweeps'.
    fn index_units_per_action(&self) -> f64 {
        let units = self.on_actions.index_write_units
            + self.on_polls.index_write_units
            + self.on_sweeps.index_write_units;
        units as f64 / self.actions as f64
    }

    fn naive_ratio(&self) -> f64 {
        *self.naive_sizes.last().unwrap() as f64 / *self.item_sizes.last().unwrap() as f64
    }

    /// The figures, as a Markdown section with a table (as `docs/cost.md` shows them).
    fn report(&self) -> String {
        let per = |x: f64| x / self.actions as f64;
        let minutes = (self.actions * self.pace) as f64 / 60_000.0;
        let mut out = String::new();
        let rows = [
            (
                "actions (from `start` to the end)",
                format!("{}", self.actions),
            ),
            ("game length at this pace", format!("{minutes:.0} min")),
            (
                "item size after the first / last action, max (bytes)",
                format!(
                    "{} / {} / {}",
                    self.item_sizes[0],
                    self.item_sizes.last().unwrap(),
                    self.item_sizes.iter().max().unwrap()
                ),
            ),
            (
                "naive encoding after the first / last action (bytes)",
                format!(
                    "{} / {}",
                    self.naive_sizes[0],
                    self.naive_sizes.last().unwrap()
                ),
            ),
            (
                "naive ÷ item at the end",
                format!("{:.1}×", self.naive_ratio()),
            ),
            (
                "action: read units / write units per action",
                format!(
                    "{:.2} / {:.2}",
                    per(self.on_actions.read_units),
                    per(self.on_actions.write_units)
                ),
            ),
            (
                "action: calls per action (reads, writes)",
                format!(
                    "{:.2}, {:.2}",
                    per(self.on_actions.reads as f64),
                    per(self.on_actions.writes as f64)
                ),
            ),
            (
                "players' reads between actions: reads, read units, presence write units per action",
                format!(
                    "{:.2}, {:.2}, {:.2}",
                    per(self.polls as f64),
                    per(self.on_polls.read_units),
                    per(self.on_polls.write_units)
                ),
            ),
            (
                "sweeps (once a minute): count, read units, write units",
                format!(
                    "{}, {:.1}, {:.1}",
                    self.sweeps, self.on_sweeps.read_units, self.on_sweeps.write_units
                ),
            ),
            (
                "index write units: actions + sweeps, per action",
                format!(
                    "{} + {} = {:.3}",
                    self.on_actions.index_write_units,
                    self.on_sweeps.index_write_units,
                    self.index_units_per_action()
                ),
            ),
            (
                "refused conditional writes",
                format!(
                    "{}",
                    self.on_actions.conditional_failures
                        + self.on_polls.conditional_failures
                        + self.on_sweeps.conditional_failures
                ),
            ),
        ];
        writeln!(out, "\n### {}\n", self.name).unwrap();
        writeln!(out, "| figure | measured |\n|---|---|").unwrap();
        for (figure, value) in rows {
            writeln!(out, "| {figure} | {value} |").unwrap();
        }
        out
    }

    /// The targets every game must meet.
    fn assert_targets(&self) {
        let largest = *self.item_sizes.iter().max().unwrap();
        assert!(
            largest <= MAX_ITEM_BYTES,
            "{}: the item reached {largest} bytes",
            self.name
        );
        // dynalite bills writes by the item's size (the larger of before and after): at most two
        // units per write means every version of the item stayed within 2 KB by its count too.
        for (what, spent) in [
            ("actions", &self.on_actions),
            ("polls", &self.on_polls),
            ("sweeps", &self.on_sweeps),
        ] {
            assert!(
                spent.write_units <= 2.0 * spent.writes as f64,
                "{}: {what}: a write of more than two units: {spent:?}",
                self.name
            );
        }
        let index = self.index_units_per_action();
        assert!(
            index <= MAX_INDEX_UNITS_PER_ACTION,
            "{}: {index:.3} index write units per action",
            self.name
        );
        assert!(self.sweeps > 0 && self.on_actions.index_write_units > 0);
    }
}

/// A four-player 윷놀이 game (individual, default 30 s turn timer) played to the end.
async fn yut_game() -> Sim {
    yut_game_until(u64::MAX).await
}

/// The same, stopped after `max_actions` actions if it has not ended.
async fn yut_game_until(max_actions: u64) -> Sim {
    let mut sim = Sim::new(
        "윷놀이, 4 players, 30 s turns, an action every 4 s",
        "yut",
        json!({}),
        YUT_PACE_MS,
    )
    .await;
    for name in ["둘", "셋", "넷"] {
        sim.join(name).await;
    }
    sim.act(0, json!({"type": "start"})).await;
    for _ in 0..5_000 {
        let views = sim.poll_all().await;
        if views[0]["status"] == "finished" || sim.actions >= max_actions {
            return sim;
        }
        let current = views[0]["state"]["currentPlayer"].as_str().unwrap();
        let who = sim.players.iter().position(|p| p.id == current).unwrap();
        let action = yut_action(&views[who]["state"]);
        sim.think().await;
        sim.act(who, action).await;
    }
    panic!("the game did not end in 5,000 actions");
}

/// A 19×19 바둑 game: [`BADUK_MOVES`] stones on points drawn from a fixed sequence among the
/// legal ones, then two passes and both players agreeing to the count.
async fn baduk_game() -> Sim {
    baduk_game_of(BADUK_MOVES).await
}

/// The same game with `moves` stones.
async fn baduk_game_of(moves: usize) -> Sim {
    let mut sim = Sim::new(
        "바둑 19×19, 400 moves, byo-yomi 30 s × 3, a move every 8 s",
        "baduk",
        json!({"boardSize": 19, "colorAssignment": "hostBlack"}),
        BADUK_PACE_MS,
    )
    .await;
    sim.join("백").await;
    sim.act(0, json!({"type": "start"})).await;
    let mut draw: u64 = 0x2545_f491_4f6c_dd1d;
    for turn in 0..moves + 2 {
        let views = sim.poll_all().await;
        let who = turn % 2;
        let mine = &views[who]["state"];
        assert_eq!(
            mine["players"][mine["turn"].as_str().unwrap()],
            sim.players[who].id.as_str()
        );
        let action = if turn < moves {
            random_place(mine, &mut draw)
        } else {
            json!({"type": "pass"})
        };
        sim.think().await;
        sim.act(who, action).await;
    }
    for who in [0, 1] {
        sim.poll_all().await;
        sim.think().await;
        sim.act(who, json!({"type": "agreeScore"})).await;
    }
    let end = sim.http.room(&sim.room, None).await;
    assert_eq!(end["status"], "finished", "{}", end["state"]["phase"]);
    sim
}

/// The item after move `n` of a 바둑 sim (action 0 is `start`).
fn item_after_move(sim: &Sim, n: usize) -> usize {
    sim.item_sizes[n]
}

/// Little Go's longest record (Black fills the board row by row, White passes): its first 722
/// moves played over HTTP on dynalite, the item measured after each.
async fn long_record() -> Sim {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/fixtures/sgf/littlego/19x19/maximum-number-of-moves.sgf"
    );
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let record = madang_core::baduk::sgf::parse(&text).unwrap();
    let mut sim = Sim::new(
        "바둑 19×19, Little Go's longest record, first 722 moves",
        "baduk",
        json!({"boardSize": 19, "colorAssignment": "hostBlack"}),
        BADUK_PACE_MS,
    )
    .await;
    sim.join("백").await;
    sim.act(0, json!({"type": "start"})).await;
    for m in &record.moves[..722] {
        let who = usize::from(m.color == madang_core::baduk::Color::White);
        let action = match m.point {
            Some(p) => json!({"type": "place", "x": p.x, "y": p.y}),
            None => json!({"type": "pass"}),
        };
        sim.act(who, action).await;
    }
    sim
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a whole-game cost run: scripts/cost runs it"]
async fn the_item_of_a_19x19_game_stays_within_1_kb_through_move_400() {
    let sim = long_record().await;
    let mut table =
        String::from("\n| moves | item (bytes) | write units of that move |\n|---|---|---|\n");
    let per_write = sim.on_actions.write_units / sim.on_actions.writes as f64;
    for n in TABLE_MOVES {
        let size = item_after_move(&sim, n);
        writeln!(table, "| {n} | {size} | {} |", size.div_ceil(1024)).unwrap();
    }
    println!(
        "\nItem size of a 19×19 room by move count (Little Go's longest record on dynalite; \
         mean write units per action over all 722 moves {per_write:.2}):{table}"
    );
    for n in TABLE_MOVES.into_iter().filter(|&n| n <= 400) {
        let size = item_after_move(&sim, n);
        assert!(size <= MAX_ITEM_BYTES, "move {n}: {size} bytes");
    }
    let largest = sim.item_sizes[..=400].iter().max().unwrap();
    assert!(
        *largest <= MAX_ITEM_BYTES,
        "{largest} bytes before move 400"
    );
}

/// The invariant of the default run: an action is one strongly consistent read (1 unit) and its
/// saves one unit each (the item stays within 1 KB); the players' reads and the sweeps write
/// one unit per write too; no write is refused. The first 40 윷놀이 actions and a 30-move 19×19
/// game, at the pace of the whole games.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn units_per_action_of_the_first_actions_on_dynamodb() {
    let (yut, baduk) = tokio::join!(yut_game_until(40), baduk_game_of(30));
    for sim in [&yut, &baduk] {
        let actions = &sim.on_actions;
        assert_eq!(
            actions.read_units, sim.actions as f64,
            "{}: one read unit per action: {actions:?}",
            sim.name
        );
        assert_eq!(actions.reads, sim.actions, "{}: {actions:?}", sim.name);
        for (what, spent) in [
            ("actions", &sim.on_actions),
            ("polls", &sim.on_polls),
            ("sweeps", &sim.on_sweeps),
        ] {
            assert_eq!(
                spent.write_units, spent.writes as f64,
                "{}: {what}: a write of more than one unit: {spent:?}",
                sim.name
            );
            assert_eq!(spent.conditional_failures, 0, "{}: {what}", sim.name);
        }
        let per_action = actions.write_units / sim.actions as f64;
        assert!(
            (1.0..=1.5).contains(&per_action),
            "{}: {per_action} write units per action (the save, and presence at most every 15 s)",
            sim.name
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a whole-game cost run: scripts/cost runs it"]
async fn the_cost_of_whole_games_on_dynamodb_is_within_its_targets() {
    let (yut, baduk) = tokio::join!(yut_game(), baduk_game());
    println!(
        "\nCost of whole games on DynamoDB (dynalite's consumed capacity, the store's own \
         index-write count):\n{}{}",
        yut.report(),
        baduk.report()
    );
    println!(
        "바둑 item after move 250 / 300 / 400: {} / {} / {} bytes",
        item_after_move(&baduk, 250),
        item_after_move(&baduk, 300),
        item_after_move(&baduk, 400)
    );
    yut.assert_targets();
    baduk.assert_targets();
    let ratio = baduk.naive_ratio();
    assert!(
        ratio >= MIN_NAIVE_RATIO_19,
        "the 19×19 item is only {ratio:.1}× smaller than the naive encoding"
    );
}

// A game against the computer (issue 22): store units per game, and the bot's Lambda time.

/// The bot's engine CPU per 9줄 move, by level (`BENCHMARKS.md`, "바둑 computer player", CPU
/// p50 on x86_64): level, label, ms.
const BADUK_BOT_CPU_MS: [(u8, &str, f64); 3] =
    [(1, "입문", 0.5), (3, "15급", 28.0), (6, "8급", 369.0)];
/// The level the measured game is played at (its moves are what the units count; the engine's
/// CPU is priced per level from the table above).
const BADUK_BOT_LEVEL: u8 = 3;
/// Lambda gives one full vCPU at 1,769 MB, and CPU in proportion to memory below it.
const ONE_VCPU_MB: f64 = 1_769.0;
/// The memories the bot's cost is stated at, and the one `template.yaml` gives the function
/// that makes bot moves (the `api` function, `Globals.Function.MemorySize`, at this commit).
const BOT_MEMORIES_MB: [f64; 3] = [128.0, 512.0, 1_769.0];
const TEMPLATE_MEMORY_MB: f64 = 128.0;
/// Billed time of a request's non-engine work (a load and a save), as `cost_modes` assumes.
const REQUEST_WORK_S: f64 = 0.025;
/// Prices, as docs/cost.md.
const PRICE_READ: f64 = 0.125e-6;
const PRICE_WRITE: f64 = 0.625e-6;
const PRICE_GBS: f64 = 0.000_013_333_4;
const PRICE_LAMBDA_REQ: f64 = 0.20e-6;

/// A game between one human's app and bots, metered: the human reads the room, acts on their
/// turn after `pace`, and otherwise moves the dev clock to the bot's announced move
/// (`deadlineAt`), which the next read fires (as an app watching the room does); the sweeper
/// runs once a minute.
struct BotGame {
    http: TestApp,
    server: App<DynamoStore>,
    store: Arc<DynamoStore>,
    meter: Arc<CapacityMeter>,
    room: String,
    human: Player,
    pace: Millis,
    next_sweep: Millis,
    /// Requests (create, addBot, start, actions, reads).
    requests: u64,
    human_actions: u64,
    reads: u64,
    /// The room's version at `start`, and at the end.
    started: u64,
    ended: u64,
    minutes: f64,
    units: CapacityReport,
    max_item: usize,
}

impl BotGame {
    async fn new(game: &str, options: Value, pace: Millis) -> BotGame {
        let meter = Arc::new(CapacityMeter::new());
        let store = Arc::new(
            dynalite_store(&format!("cost-bot-{game}"))
                .await
                .with_meter(meter.clone()),
        );
        let (http, server) = spawn_app_unswept(store.clone()).await;
        let (room, human) = http.create(game, options, 22).await;
        let next_sweep = server.clock.now() + SWEEP_EVERY_MS;
        BotGame {
            http,
            server,
            store,
            meter,
            room,
            human,
            pace,
            next_sweep,
            requests: 1,
            human_actions: 0,
            reads: 0,
            started: 0,
            ended: 0,
            minutes: 0.0,
            units: CapacityReport::default(),
            max_item: 0,
        }
    }

    async fn act(&mut self, action: Value) -> Value {
        let reply = self.http.act_ok(&self.room, &self.human, action).await;
        self.requests += 1;
        reply
    }

    async fn read(&mut self) -> Value {
        self.reads += 1;
        self.requests += 1;
        self.http.room(&self.room, Some(&self.human)).await
    }

    /// The clock moves to `at`, with the sweeper on its schedule.
    async fn wait_until(&mut self, at: Millis) {
        while self.next_sweep <= at {
            let now = self.server.clock.now();
            self.server
                .clock
                .advance(self.next_sweep.saturating_sub(now));
            let swept = sweeper::sweep(
                &*self.store,
                &*self.server.announcer,
                &*self.server.thinker,
                self.server.clock.now(),
                100,
            )
            .await;
            assert_eq!(swept.errors, 0);
            self.next_sweep += SWEEP_EVERY_MS;
        }
        let now = self.server.clock.now();
        self.server.clock.advance(at.saturating_sub(now));
    }

    /// Plays from `start` to the end; `mine` picks the human's action in a view where it is
    /// their turn (or `None`: a bot's move is awaited).
    async fn play(&mut self, mut mine: impl FnMut(&Value) -> Option<Value>) -> Value {
        let before = self.meter.report();
        let began = self.server.clock.now();
        let started = self.act(json!({"type": "start"})).await;
        self.started = started["version"].as_u64().unwrap();
        for _ in 0..5_000 {
            let view = self.read().await;
            let size = item_size(&self.item().await);
            self.max_item = self.max_item.max(size);
            if view["status"] == "finished" {
                self.ended = view["version"].as_u64().unwrap();
                self.minutes = (self.server.clock.now() - began) as f64 / 60_000.0;
                self.units = self.meter.report().since(&before);
                return view;
            }
            match mine(&view) {
                Some(action) => {
                    let at = self.server.clock.now() + self.pace;
                    self.wait_until(at).await;
                    self.act(action).await;
                    self.human_actions += 1;
                }
                None => {
                    let deadline = view["deadlineAt"].as_u64().expect("a bot's move is due");
                    self.wait_until(deadline + 1).await;
                }
            }
        }
        panic!("the game did not end");
    }

    async fn item(&self) -> Item {
        self.store
            .client()
            .get_item()
            .table_name(self.store.table())
            .key("id", AttributeValue::S(self.room.clone()))
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .item
            .unwrap()
    }

    /// Changes made by bots (every accepted change bumps the version by one).
    fn bot_moves(&self) -> u64 {
        self.ended - self.started - self.human_actions
    }

    fn dynamodb(&self) -> f64 {
        self.units.read_units * PRICE_READ
            + (self.units.write_units + self.units.index_write_units as f64) * PRICE_WRITE
    }

    /// Lambda requests and the billed time of the non-engine work, at `mb`.
    fn requests_cost(&self, mb: f64) -> f64 {
        self.requests as f64 * (PRICE_LAMBDA_REQ + REQUEST_WORK_S * mb / 1024.0 * PRICE_GBS)
    }
}

/// GB-s the engine's `cpu_ms` of one move bills at `mb` of memory: it gets `mb / 1,769` of a
/// vCPU, so it runs `cpu_ms × 1,769 / mb` of wall time, billed at `mb`: the same GB-s at every
/// memory (only the wait changes).
fn engine_gbs(cpu_ms: f64, mb: f64) -> f64 {
    let share = (mb / ONE_VCPU_MB).min(1.0);
    cpu_ms / 1000.0 / share * mb / 1024.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a whole-game cost run: scripts/cost runs it"]
async fn the_cost_of_games_against_bots_on_dynamodb() {
    // 9줄 바둑: the human (white) plays 8 s a move on points drawn from a fixed sequence for 30
    // moves, then passes; agrees to the bot's marks.
    let mut baduk = BotGame::new(
        "baduk",
        json!({"boardSize": 9, "colorAssignment": "hostWhite"}),
        BADUK_PACE_MS,
    )
    .await;
    baduk
        .act(json!({"type": "addBot", "level": BADUK_BOT_LEVEL}))
        .await;
    let me = baduk.human.id.clone();
    let mut draw: u64 = 0x2545_f491_4f6c_dd1d;
    let mut placed = 0;
    let end = baduk
        .play(|view| {
            let state = &view["state"];
            let color = if state["players"]["black"] == me.as_str() {
                "black"
            } else {
                "white"
            };
            match state["phase"].as_str().unwrap() {
                "playing" if state["turn"] == color => {
                    placed += 1;
                    Some(if placed <= 30 {
                        random_place(state, &mut draw)
                    } else {
                        json!({"type": "pass"})
                    })
                }
                "scoring" if state["scoringMarks"]["agreed"][color] != true => {
                    Some(json!({"type": "agreeScore"}))
                }
                _ => None,
            }
        })
        .await;
    assert_eq!(end["status"], "finished");

    // 윷놀이: the human and three bots (levels 1–3), an action every 4 s for the human.
    let mut yut = BotGame::new("yut", json!({}), YUT_PACE_MS).await;
    for level in [1, 2, 3] {
        yut.act(json!({"type": "addBot", "level": level})).await;
    }
    let me = yut.human.id.clone();
    let end = yut
        .play(|view| {
            (view["state"]["currentPlayer"] == me.as_str()).then(|| yut_action(&view["state"]))
        })
        .await;
    assert_eq!(end["status"], "finished");

    let mut out = String::new();
    writeln!(
        out,
        "\n| per game (measured) | minutes | human actions | bot moves | requests | read units | write units (+ index) | max item (B) | DynamoDB $ |\n|---|---|---|---|---|---|---|---|---|"
    )
    .unwrap();
    for (name, g) in [
        (
            format!("바둑 9줄 vs the level-{BADUK_BOT_LEVEL} bot"),
            &baduk,
        ),
        ("윷놀이, 1 human + bots 1, 2, 3".to_owned(), &yut),
    ] {
        writeln!(
            out,
            "| {name} | {:.1} | {} | {} | {} | {:.1} | {:.0} (+{}) | {} | {:.6} |",
            g.minutes,
            g.human_actions,
            g.bot_moves(),
            g.requests,
            g.units.read_units,
            g.units.write_units,
            g.units.index_write_units,
            g.max_item,
            g.dynamodb()
        )
        .unwrap();
    }
    writeln!(
        out,
        "\n| 바둑 9줄, {} bot moves: level (CPU/move) | memory | wall per move | engine GB-s per game | Lambda (requests + engine + other work) per game | a game all-in |\n|---|---|---|---|---|---|",
        baduk.bot_moves()
    )
    .unwrap();
    for (level, label, cpu) in BADUK_BOT_CPU_MS {
        for mb in BOT_MEMORIES_MB {
            let gbs = engine_gbs(cpu, mb) * baduk.bot_moves() as f64;
            let lambda = gbs * PRICE_GBS + baduk.requests_cost(mb);
            let template = if mb == TEMPLATE_MEMORY_MB {
                " (template)"
            } else {
                ""
            };
            writeln!(
                out,
                "| {level} {label} ({cpu} ms) | {mb:.0} MB{template} | {:.0} ms | {gbs:.2} | ${lambda:.6} | ${:.6} |",
                cpu / (mb / ONE_VCPU_MB).min(1.0),
                lambda + baduk.dynamodb()
            )
            .unwrap();
        }
    }
    writeln!(
        out,
        "\n윷놀이 with bots at {TEMPLATE_MEMORY_MB:.0} MB (the engine's CPU, about 1 ms a decision, is within the {:.0} ms a request is billed): Lambda ${:.6}, a game all-in ${:.6}",
        REQUEST_WORK_S * 1000.0,
        yut.requests_cost(TEMPLATE_MEMORY_MB),
        yut.requests_cost(TEMPLATE_MEMORY_MB) + yut.dynamodb()
    )
    .unwrap();
    println!(
        "\nGames against bots on DynamoDB (dynalite's meter; engine CPU from BENCHMARKS.md):\n{out}"
    );
    for g in [&baduk, &yut] {
        assert!(g.bot_moves() > 0);
        assert!(g.max_item <= MAX_ITEM_BYTES, "{} bytes", g.max_item);
        assert_eq!(g.units.conditional_failures, 0, "one reader, no race");
    }
}
