//! The functions' metrics, read from their stdout while whole games run on the Lambda path.
//!
//! Every line the `api` and `sweeper` processes write that carries `_aws` is an EMF line; each
//! is held against the EMF specification (`emf.schema.json`, plus what a schema cannot say:
//! every dimension and metric a directive names is a member of the line, at most 100 values a
//! metric) and against the metric table of `madang_functions::metrics` (names and units). Then
//! the counts are held against what really happened: requests against the front door's count,
//! versions applied against the rooms' versions in the table, conflicts redone against the
//! refused writes a proxy in front of dynalite saw, a `SweeperLag` value for every sweep, and
//! `BotMoves` against the computer players' actions in whole games against them.

use std::sync::Arc;

use madang_functions::metrics::{NAMES, NAMESPACE};
use madang_infra::emulator::{dynalite, dynalite_client, dynalite_store};
use madang_tests::games::{
    check_a_whole_four_player_team_yut_game, check_a_whole_nine_by_nine_baduk_game,
};
use madang_tests::lambda::{LambdaStack, StackConfig};
use madang_tests::race::check_racing_clients_never_double_apply;
use madang_tests::store_proxy;
use serde_json::{Value, json};

/// The EMF specification as a JSON schema.
const EMF_SCHEMA: &str = include_str!("emf.schema.json");

/// The EMF lines among `lines`, each checked; panics at the first line that is not valid EMF.
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
        let directives = value["_aws"]["CloudWatchMetrics"].as_array().unwrap();
        assert!(!directives.is_empty(), "{line}");
        for directive in directives {
            assert_eq!(directive["Namespace"], NAMESPACE, "{line}");
            for set in directive["Dimensions"].as_array().unwrap() {
                let set: Vec<&str> = set
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_str().unwrap())
                    .collect();
                assert!(
                    set == ["Stage"]
                        || set == ["Stage", "RouteClass"]
                        || set == ["Stage", "StatusClass"],
                    "few dimensions: {set:?}"
                );
                for key in set {
                    assert!(
                        value[key].is_string(),
                        "dimension {key} is a string member: {line}"
                    );
                }
            }
            for metric in directive["Metrics"].as_array().unwrap() {
                let name = metric["Name"].as_str().unwrap();
                let unit = NAMES
                    .iter()
                    .find(|(n, _)| *n == name)
                    .unwrap_or_else(|| panic!("unknown metric {name}: {line}"))
                    .1;
                assert_eq!(metric["Unit"], unit.as_str(), "{line}");
                let member = &value[name];
                let ok = match member {
                    Value::Number(n) => n.as_f64().unwrap() >= 0.0,
                    Value::Array(values) => {
                        !values.is_empty()
                            && values.len() <= 100
                            && values.iter().all(|v| v.as_f64().is_some_and(|v| v >= 0.0))
                    }
                    _ => false,
                };
                assert!(ok, "{name} must be a number or 1–100 numbers: {line}");
            }
        }
        emf.push(value);
    }
    emf
}

/// Every value of metric `name` in `lines` (an array member counts each of its values).
fn values(lines: &[Value], name: &str) -> Vec<f64> {
    let mut out = Vec::new();
    for line in lines {
        match &line[name] {
            Value::Number(n) => out.push(n.as_f64().unwrap()),
            Value::Array(values) => out.extend(values.iter().map(|v| v.as_f64().unwrap())),
            _ => {}
        }
    }
    out
}

fn total(lines: &[Value], name: &str) -> f64 {
    values(lines, name).iter().sum()
}

/// Every room of the stack's table (every item but the dev clock's), as its version.
async fn versions_in_the_table(stack: &LambdaStack) -> Vec<u64> {
    let client = dynalite_client().await;
    let mut versions = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .scan()
            .table_name(stack.store.table())
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        for item in page.items() {
            if let Some(aws_sdk_dynamodb::types::AttributeValue::N(v)) = item.get("v")
                && !item["id"].as_s().unwrap().starts_with('#')
            {
                versions.push(v.parse().unwrap());
            }
        }
        start = page.last_evaluated_key().cloned();
        if start.is_none() {
            return versions;
        }
    }
}

/// Every JSON log line written inside an invocation starts with that invocation's request id.
fn every_invocation_line_carries_its_request_id(lines: &[String]) -> usize {
    let mut checked = 0;
    for line in lines.iter().filter(|l| !l.contains("\"_aws\"")) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            panic!("a log line that is not JSON: {line}");
        };
        let Some(root) = value["spans"].as_array().and_then(|s| s.first()) else {
            continue;
        };
        if root["name"] == "Lambda runtime invoke" {
            assert!(line.starts_with("{\"requestId\":"), "{line}");
            assert_eq!(value["requestId"], root["requestId"], "{line}");
            checked += 1;
        }
    }
    checked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_of_whole_games_are_valid_emf_and_count_what_the_games_did() {
    let store = Arc::new(dynalite_store("l-metrics").await);
    let proxy = store_proxy::start(&dynalite()).await;
    let stack = LambdaStack::start(store, &proxy.url, StackConfig::default()).await;
    check_a_whole_four_player_team_yut_game(&stack.app).await;
    check_a_whole_nine_by_nine_baduk_game(&stack.app).await;
    // A turn that runs out with nobody polling: only the sweeper fires it, 45 s late.
    let (game, host) = stack.app.create("yut", json!({"turnSeconds": 15}), 5).await;
    stack.app.join(&game, "b").await;
    stack
        .app
        .act_ok(&game, &host, json!({"type": "start"}))
        .await;
    stack.app.advance_clock(60_000).await;
    let mut reports = Vec::new();
    for _ in 0..3 {
        reports.push(stack.sweep().await);
    }
    assert!(
        reports[0]["timeoutsFired"].as_u64().unwrap() >= 1,
        "{reports:?}"
    );

    let api_output = stack.output_lines("api");
    let sweeper_output = stack.output_lines("sweeper");
    let api = emf_lines(&api_output);
    let sweeper = emf_lines(&sweeper_output);
    let all: Vec<Value> = api.iter().chain(&sweeper).cloned().collect();

    // One EMF line per request (each answered request writes its own, with its request id).
    let requests = stack.front_requests();
    assert_eq!(total(&api, "Requests"), requests as f64);
    assert_eq!(api.len() as u64, requests, "one line per invocation");
    assert!(
        api.iter()
            .all(|l| l["requestId"].is_string() && l["Stage"].is_string())
    );
    let classes: Vec<&str> = api
        .iter()
        .filter_map(|l| l["RouteClass"].as_str())
        .collect();
    for class in ["create", "join", "act", "read"] {
        assert!(classes.contains(&class), "{class} requests counted");
    }

    // Every version a room has was added by exactly one counted save.
    let versions = versions_in_the_table(&stack).await;
    assert!(versions.len() >= 3, "{versions:?}");
    let applied = total(&all, "ActionsApplied");
    assert_eq!(applied, versions.iter().sum::<u64>() as f64);

    // The conflicts the functions redid are the writes the store refused (no sweeper raced a
    // save here; a lost reindex race would be a refused write the sweeper reports instead).
    let lost: u64 = reports
        .iter()
        .map(|r| r["lostRaces"].as_u64().unwrap())
        .sum();
    assert_eq!(
        total(&all, "ConflictsRedone") as u64 + lost,
        proxy.refused_version_writes()
    );

    // A SweeperLag value for every sweep; the first found the turn 45 s overdue.
    let lags = values(&sweeper, "SweeperLag");
    assert_eq!(lags.len(), reports.len(), "{lags:?}");
    assert!((45_000.0..105_000.0).contains(&lags[0]), "{lags:?}");
    assert!(lags[1..].iter().all(|l| *l < 45_000.0), "{lags:?}");
    assert!(sweeper.iter().all(|l| l["requestId"].is_string()));

    // Store timings: one load per save path run that loaded, one per save.
    let saves = values(&all, "StoreSaveTime");
    assert!(
        saves.len() as f64 >= versions.len() as f64,
        "{}",
        saves.len()
    );
    assert!(!values(&all, "StoreLoadTime").is_empty());

    // The log lines of every invocation carry its request id.
    let checked = every_invocation_line_carries_its_request_id(&api_output)
        + every_invocation_line_carries_its_request_id(&sweeper_output);
    assert!(
        checked as u64 >= requests,
        "{checked} lines with a request id"
    );
    println!(
        "EMF: {} api lines ({} bytes on average), {} sweeper lines; {} requests, {} versions applied, {} conflicts redone",
        api.len(),
        api.iter().map(|l| l.to_string().len()).sum::<usize>() / api.len().max(1),
        sweeper.len(),
        requests,
        applied,
        total(&all, "ConflictsRedone") as u64,
    );
}

/// Issue 22: the computer players' metrics. Two whole games against bots (a 4-seat 윷놀이 with
/// three of them, a 9줄 바둑 against the engine) run through the emulator; their moves are fired
/// by the human's reads. `BotMoves` is the bots' actions in the rooms' logs (the versions the
/// human did not add), one `BotMoveTime` per move, and no engine failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_moves_are_the_bots_actions_in_the_logs_each_timed_and_no_engine_failed() {
    let store = Arc::new(dynalite_store("l-metrics-bots").await);
    let stack = LambdaStack::start(store, &dynalite(), StackConfig::default()).await;
    let yut = madang_tests::bots::check_a_four_seat_yut_game_with_three_bots(&stack.app).await;
    let baduk = madang_tests::bots::check_a_nine_line_baduk_game_against_the_bot(&stack.app).await;
    let mut lines = stack.output_lines("api");
    lines.extend(stack.output_lines("sweeper"));
    let emf = emf_lines(&lines);
    assert_eq!(
        total(&emf, "BotMoves"),
        (yut + baduk) as f64,
        "{yut} + {baduk}"
    );
    let mut times = values(&emf, "BotMoveTime");
    assert_eq!(times.len() as u64, yut + baduk);
    assert_eq!(total(&emf, "EngineFailures"), 0.0);
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "bots: {yut} 윷놀이 and {baduk} 바둑 bot actions; BotMoveTime p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (debug build, emulator)",
        at(0.5),
        at(0.99),
        at(1.0),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflicts_redone_are_the_writes_the_store_refused_in_a_64_client_race() {
    let store = Arc::new(dynalite_store("l-metrics-race").await);
    let proxy = store_proxy::start(&dynalite()).await;
    let stack = LambdaStack::start(store, &proxy.url, StackConfig::default()).await;
    let app = Arc::new(madang_tests::TestApp {
        base: stack.app.base.clone(),
        http: stack.app.http.clone(),
        embedded: None,
    });
    check_racing_clients_never_double_apply(app).await;
    let api = emf_lines(&stack.output_lines("api"));
    let conflicts = total(&api, "ConflictsRedone") as u64;
    assert!(
        conflicts > 0,
        "64 clients on one room make the store refuse some writes"
    );
    assert_eq!(conflicts, proxy.refused_version_writes());
    // Stale `expectedVersion`s were answered 409, and every third accepted action was sent
    // again and replayed.
    assert!(total(&api, "VersionConflicts") > 0.0);
    assert!(total(&api, "IdempotentReplays") > 0.0);
    let versions = versions_in_the_table(&stack).await;
    assert_eq!(
        total(&api, "ActionsApplied"),
        versions.iter().sum::<u64>() as f64
    );
    println!(
        "race: {conflicts} conflicts redone = refused writes; {} 409s, {} replays",
        total(&api, "VersionConflicts"),
        total(&api, "IdempotentReplays")
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_posts_and_gone_connections_are_counted_as_the_websocket_front_saw_them() {
    let store = Arc::new(dynalite_store("l-metrics-live").await);
    let config = StackConfig {
        api_environments: 2,
        live: true,
        ..StackConfig::default()
    };
    let stack = LambdaStack::start(store, &dynalite(), config).await;
    let sweep = || async {
        stack.sweep().await;
    };
    madang_tests::live::listen_to_a_whole_yut_game(&stack.app, sweep).await;
    // A connection that vanished without its $disconnect: the next change's post meets 410.
    let (room, host) = stack.app.create("yut", json!({}), 8).await;
    let url = madang_tests::live::live_url(&stack.app.room(&room, None).await);
    let mut listener = madang_tests::live::Live::watch(&url, &room, Some(&host.token), 1).await;
    stack.app.join(&room, "친구").await;
    assert_eq!(listener.version().await, 2);
    // Chat goes the same way: each message counted once, each frame posted a LivePost.
    for text in ["안녕", "반가워", "한 판 해요"] {
        madang_tests::chat::say_ok(&stack.app, &room, Some(&host), json!({ "text": text })).await;
    }
    assert_eq!(listener.chats_until_pong().await.len(), 3);
    stack.vanish_live_connections();
    stack.app.join(&room, "또 친구").await;

    let (posted, gone) = stack.live_posts();
    assert!(posted > 0 && gone == 1, "{posted} posted, {gone} gone");
    let mut lines = stack.output_lines("api");
    lines.extend(stack.output_lines("sweeper"));
    lines.extend(stack.output_lines("live"));
    let emf = emf_lines(&lines);
    assert_eq!(total(&emf, "LivePosts") as u64, posted);
    assert_eq!(total(&emf, "LiveGone") as u64, gone);
    assert_eq!(total(&emf, "LivePostFailures"), 0.0);
    assert_eq!(
        total(&emf, "ChatMessages"),
        3.0,
        "one count per message stored"
    );
}
