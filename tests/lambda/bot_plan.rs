//! `BotFunction` keeps its move as the room's plan and returns before the move's due time; the
//! plan lands like a timeout fires, in the catch-up of whatever loads the room after
//! `deadlineAt` (a reader, or the sweeper), exactly once however many race for it.
//!
//! The dev clock stands still while the bot function searches (the test waits for its answer
//! first), so each move's plan is kept well ahead of its due time, as on AWS; then the clock is
//! moved to the deadline and the room is read. One test plays in real time instead and prints
//! the bot function's billed duration per move (the emulator times each invocation).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use madang_core::room::BOT_THINK_MIN_MS;
use madang_infra::RoomStore;
use madang_tests::bots::{player, server_now, yut_room_with_bots};
use madang_tests::lambda::{LambdaStack, StackConfig};
use madang_tests::{Player, TestApp};
use serde_json::{Value, json};

use super::stack;

/// What the store holds for `room` now, read directly (no request: nothing is caught up).
async fn stored(stack: &LambdaStack, room: &str) -> madang_infra::StoredRoom {
    let now = server_now(&stack.app).await;
    stack
        .store
        .load(&madang_core::room::RoomId::parse(room).unwrap(), now)
        .await
        .unwrap()
}

/// Waits for the bot function's answer, then checks it returned before the move it searched
/// was due, leaving the move kept with the room as the plan for `version` and unplayed.
async fn a_plan_is_kept(stack: &LambdaStack, room: &str, version: u64, deadline: u64) {
    stack.bots_done().await;
    let now = server_now(&stack.app).await;
    assert!(
        now < deadline,
        "the bot function answered at {now}, not before the move's due time {deadline}"
    );
    let kept = stored(stack, room).await;
    assert_eq!(kept.version, version, "nothing landed before the deadline");
    assert!(
        kept.plan.is_some(),
        "the move is kept as the plan of version {version}"
    );
}

/// A 윷놀이 game of one person against a computer player, played to its end: every bot move is
/// searched by the bot function, which returns before its due time with the move kept as a plan
/// (nothing lands while no one reads, even past the deadline), and lands with the first read
/// after its `deadlineAt`. One invocation per move at most; none waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_game_is_played_to_its_end_by_plans_landed_by_reads_after_their_deadlines() {
    let stack = stack("l-bot-plans", StackConfig::default()).await;
    let app = &stack.app;
    let (room, human) = yut_room_with_bots(app, json!({}), &[3]).await;
    let mut planned = 0_u64;
    let mut human_actions = 0;
    let first = app.room(&room, Some(&human)).await["version"]
        .as_u64()
        .unwrap();
    let end = loop {
        let view = app.room(&room, Some(&human)).await;
        if view["status"] == "finished" {
            break view;
        }
        if view["state"]["currentPlayer"] == human.id.as_str() {
            app.act_ok(&room, &human, yut_move(&view)).await;
            human_actions += 1;
            continue;
        }
        let current = player(&view, view["state"]["currentPlayer"].as_str().unwrap());
        assert_eq!(current["bot"], true, "{current}");
        let version = view["version"].as_u64().unwrap();
        let deadline = view["deadlineAt"].as_u64().expect("the bot's move is due");
        a_plan_is_kept(&stack, &room, version, deadline).await;
        // A read before the deadline answers the room as it is. The dev clock is the system's
        // plus an offset: on a loaded machine the deadline may pass in real time before this
        // read, which then lands the plan, as a read after the deadline must.
        let early = app.room(&room, Some(&human)).await;
        if early["version"] != version {
            assert!(
                server_now(app).await >= deadline,
                "a read landed the plan before its deadline {deadline}"
            );
            assert_eq!(early["version"], version + 1, "the read landed the plan");
            assert_eq!(stored(&stack, &room).await.version, version + 1);
            planned += 1;
            continue;
        }
        // The deadline passes with nobody looking: still nothing lands by itself.
        let now = server_now(app).await;
        app.advance_clock(deadline.saturating_sub(now) + 1).await;
        assert_eq!(stored(&stack, &room).await.version, version);
        // The first read after it plays the plan, through the one save path.
        let after = app.room(&room, Some(&human)).await;
        assert_eq!(after["version"], version + 1, "the read landed the plan");
        // Once: the store is one version on (a plan kept since is the next move's).
        assert_eq!(stored(&stack, &room).await.version, version + 1);
        planned += 1;
    };
    let bot_actions = end["version"].as_u64().unwrap() - first - human_actions;
    assert_eq!(
        bot_actions, planned,
        "every bot move was a plan a read landed"
    );
    assert!(planned > 10, "{planned}");
    stack.bots_done().await;
    let invocations = stack.bot_invocations();
    assert!(
        (planned..=planned + 1).contains(&invocations),
        "one search per move: {invocations} invocations, {planned} moves"
    );
}

/// The first legal move (or the throw) of the person whose turn it is.
fn yut_move(view: &Value) -> Value {
    match view["state"]["phase"].as_str().unwrap() {
        "throw" => json!({"type": "THROW"}),
        _ => {
            let m = &view["state"]["legalMoves"][0];
            json!({"type": "MOVE", "throwIndex": m["throwIndex"], "from": m["from"]})
        }
    }
}

/// A 9줄 바둑 room whose bot (black, level 1) moves first; the host plays white. Returns the
/// room, the host, the version and the bot move's due time, once the bot function has kept it.
async fn baduk_bot_to_move(stack: &LambdaStack) -> (String, Player, u64, u64) {
    let app = &stack.app;
    let (room, host) = app
        .create(
            "baduk",
            json!({"boardSize": 9, "colorAssignment": "hostWhite"}),
            2203,
        )
        .await;
    app.act_ok(&room, &host, json!({"type": "addBot", "level": 1}))
        .await;
    let started = app.act_ok(&room, &host, json!({"type": "start"})).await;
    let version = started["room"]["version"].as_u64().unwrap();
    let deadline = started["room"]["deadlineAt"].as_u64().unwrap();
    a_plan_is_kept(stack, &room, version, deadline).await;
    (room, host, version, deadline)
}

/// Eight readers (the player and spectators, over several `api` environments) arrive together
/// once the kept move is due: each catch-up plays the plan, one conditional save lands, the
/// others find the room moved on. The move is on the board once; everyone reads the same room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_readers_at_the_deadline_land_a_kept_plan_once() {
    let stack = stack("l-bot-plan-race", StackConfig::default()).await;
    let (room, host, version, deadline) = baduk_bot_to_move(&stack).await;
    let app = &stack.app;
    let now = server_now(app).await;
    app.advance_clock(deadline.saturating_sub(now) + 1).await;
    let reads: Vec<_> = (0..8)
        .map(|i| {
            let app = TestApp {
                base: app.base.clone(),
                http: app.http.clone(),
                embedded: None,
            };
            let (room, host) = (room.clone(), host.clone());
            tokio::spawn(async move {
                let who = (i % 2 == 0).then_some(&host);
                app.room(&room, who).await
            })
        })
        .collect();
    let mut views: Vec<Value> = Vec::new();
    for read in reads {
        views.push(read.await.unwrap());
    }
    for view in &views {
        assert_eq!(view["version"], version + 1, "{view}");
        assert_eq!(view["state"]["moves"], views[0]["state"]["moves"]);
    }
    let moves = views[0]["state"]["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1, "one move, played once: {moves:?}");
    assert_eq!(moves[0]["color"], "black");
    let after = stored(&stack, &room).await;
    assert_eq!((after.version, after.plan), (version + 1, None));
    // The human's turn now: nothing more for the bot function to do.
    assert_eq!(views[0]["state"]["turn"], "white");
}

/// With nobody reading, the sweeper's run after the deadline lands the kept move (the backstop,
/// as for a person's timeout), and searches nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweeper_lands_a_kept_plan_nobody_reads() {
    let stack = stack("l-bot-plan-sweep", StackConfig::default()).await;
    let (room, host, version, deadline) = baduk_bot_to_move(&stack).await;
    let invocations = stack.bot_invocations();
    let app = &stack.app;
    let now = server_now(app).await;
    app.advance_clock(deadline.saturating_sub(now) + 1).await;
    let report = stack.sweep().await;
    assert_eq!(report["timeoutsFired"], 1, "{report}");
    let after = stored(&stack, &room).await;
    assert_eq!((after.version, after.plan), (version + 1, None));
    let view = app.room(&room, Some(&host)).await;
    assert_eq!(view["state"]["moves"].as_array().unwrap().len(), 1);
    assert_eq!(
        stack.bot_invocations(),
        invocations,
        "the sweeper played the plan; it invoked no search"
    );
}

/// In real time, as a client would: the reader comes back at each bot move's `deadlineAt` (plus
/// 100 ms), and meanwhile the bot function has returned. Prints the bot function's billed
/// duration per invocation (the emulator times each from the event handed out to the answer),
/// the figure of docs/cost.md, "BotFunction's memory"; each must end before the shortest think
/// time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_function_is_billed_for_its_search_not_the_think_time() {
    let stack = stack("l-bot-plan-time", StackConfig::default()).await;
    let app = &stack.app;
    let (room, human) = yut_room_with_bots(app, json!({}), &[3]).await;
    let mut moves = 0;
    while moves < 8 {
        let view = app.room(&room, Some(&human)).await;
        if view["status"] == "finished" {
            break;
        }
        if view["state"]["currentPlayer"] == human.id.as_str() {
            app.act_ok(&room, &human, yut_move(&view)).await;
            continue;
        }
        let deadline = view["deadlineAt"].as_u64().unwrap();
        let version = view["version"].as_u64().unwrap();
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let offset = server_now(app).await.saturating_sub(wall);
        tokio::time::sleep(Duration::from_millis(
            (deadline - offset).saturating_sub(wall) + 100,
        ))
        .await;
        wait_for_version(app, &room, &human, version).await;
        moves += 1;
    }
    stack.bots_done().await;
    let billed: Vec<Duration> = stack
        .bot_timings()
        .iter()
        .flat_map(|env| env.invocations.clone())
        .collect();
    let total: Duration = billed.iter().sum();
    let mean = total / u32::try_from(billed.len().max(1)).unwrap();
    println!(
        "bot function: {} invocations for {moves} moves; billed {:?} in all, {mean:?} each \
         (max {:?}); per move {:?}",
        billed.len(),
        total,
        billed.iter().max().copied().unwrap_or_default(),
        total / moves.max(1)
    );
    assert!(moves >= 8, "{moves}");
    for took in &billed {
        assert!(
            *took < Duration::from_millis(BOT_THINK_MIN_MS),
            "an invocation took {took:?}: it waited for the think time"
        );
    }
}

/// Reads until the room is past `version` (a read lands the kept move; the first one after the
/// deadline should). At most 5 s.
async fn wait_for_version(app: &TestApp, room: &str, who: &Player, version: u64) {
    for _ in 0..100 {
        if app.room(room, Some(who)).await["version"].as_u64().unwrap() > version {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no move after version {version}");
}
