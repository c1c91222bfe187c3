//! Table talk on DynamoDB (dynalite): the drivers of `madang_tests::chat`, shared with the
//! embedded suite, each on a table of its own.

use std::sync::Arc;

use madang_tests::chat::{
    check_chat_expires_with_its_room_plus_a_grace, check_chat_expires_with_the_room,
    check_chat_never_moves_the_version_under_pinned_actions, check_mutes_go_with_their_members,
    check_no_viewer_receives_a_message_outside_their_rights, check_team_chat_needs_a_team,
    check_the_poll, check_the_refusals, check_the_visibility_matrix,
};
use madang_tests::{TestApp, spawn_app_on};

use madang_infra::emulator::dynalite_store;

async fn app(tag: &str) -> TestApp {
    spawn_app_on(Arc::new(dynalite_store(tag).await)).await
}

#[tokio::test]
async fn each_viewer_sees_exactly_what_their_seat_allows_on_dynamodb() {
    check_the_visibility_matrix(&app("chat-matrix").await).await;
}

#[tokio::test]
async fn team_chat_outside_a_team_game_is_refused_on_dynamodb() {
    check_team_chat_needs_a_team(&app("chat-team").await).await;
}

#[tokio::test]
async fn no_viewer_of_a_random_room_receives_a_message_outside_their_rights_on_dynamodb() {
    check_no_viewer_receives_a_message_outside_their_rights(&app("chat-random").await, 8).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_during_pinned_actions_moves_no_version_on_dynamodb() {
    check_chat_never_moves_the_version_under_pinned_actions(&app("chat-race").await).await;
}

#[tokio::test]
async fn every_refusal_changes_nothing_on_dynamodb() {
    check_the_refusals(&app("chat-refusals").await).await;
}

#[tokio::test]
async fn the_poll_has_an_etag_and_304_on_dynamodb() {
    check_the_poll(&app("chat-poll").await).await;
}

#[tokio::test]
async fn chat_expires_with_its_room_on_dynamodb() {
    check_chat_expires_with_the_room(&app("chat-expiry").await).await;
}

#[tokio::test]
async fn mutes_go_with_their_members_on_dynamodb() {
    check_mutes_go_with_their_members(&app("chat-mutes").await).await;
}

#[tokio::test]
async fn chat_expires_with_its_room_plus_a_grace_on_dynamodb() {
    let store = dynalite_store("chat-grace").await;
    let app = spawn_app_on(Arc::new(store.clone())).await;
    check_chat_expires_with_its_room_plus_a_grace(&app, &store).await;
}

/// What chat costs on DynamoDB, measured on dynalite's meter through the real router: the units
/// of a post (the first 100 of a room, and past 100, when each post also deletes the oldest), of
/// a poll that finds nothing and of one that returns ten messages, and the item sizes. Printed
/// (`cargo test --test dynamodb chat_cost -- --nocapture`), copied into docs/cost.md ("Chat"),
/// and asserted: a post is 2 read units and 1 write unit (2 past the 100th), a record stays under
/// 1 KB, and chat writes nothing to the rooms table.
#[tokio::test]
async fn the_cost_of_a_chat_message_on_dynamodb() {
    use aws_sdk_dynamodb::types::AttributeValue;
    use madang_infra::dynamo::capacity::{CapacityMeter, CapacityReport};
    use madang_tests::chat::{read, say_ok};
    use madang_tests::spawn_app_unswept;
    use serde_json::json;

    let meter = Arc::new(CapacityMeter::new());
    let store = Arc::new(dynalite_store("chat-cost").await.with_meter(meter.clone()));
    let (http, _server) = spawn_app_unswept(store.clone()).await;
    let (room, host) = http
        .create("yut", json!({"mode": "team", "turnSeconds": null}), 41)
        .await;
    let mut players = vec![host.clone()];
    for i in 1..4 {
        players.push(http.join(&room, &format!("친구{i}")).await);
    }
    let rooms_item = |store: Arc<madang_infra::DynamoStore>, room: String| async move {
        store
            .client()
            .get_item()
            .table_name(store.table())
            .key("id", AttributeValue::S(room))
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .item
            .unwrap()
    };
    let room_before = rooms_item(store.clone(), room.clone()).await;
    // 20 Hangul syllables: a typical line of table talk.
    let line = "윷이 나와야 이기는데 어떻게 하지 진짜로요";
    let mut first = CapacityReport::default();
    let mut later = CapacityReport::default();
    let mut max_record = 0;
    for i in 0..120u64 {
        // Two seconds apart (dev clock): under the rate of 5 per 10 s per player.
        http.advance_clock(2_100).await;
        let who = &players[(i % 4) as usize];
        let body = if i % 3 == 0 {
            json!({"emote": "잘했다!"})
        } else if i % 3 == 1 {
            json!({"text": line, "to": "team"})
        } else {
            json!({"text": line})
        };
        let before = meter.report();
        let seq = say_ok(&http, &room, Some(who), body).await;
        let spent = meter.report().since(&before);
        let into = if seq <= 100 { &mut first } else { &mut later };
        super::cost::add_report(into, &spent);
        let item = store
            .client()
            .get_item()
            .table_name(store.chat_table())
            .key("r", AttributeValue::S(room.clone()))
            .key("q", AttributeValue::N(seq.to_string()))
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        max_record = max_record.max(super::cost::item_size(&item));
    }
    let before = meter.report();
    let path = format!("/rooms/{room}/chat?after=120");
    http.get(&path, Some(&players[1].token)).await;
    let empty_poll = meter.report().since(&before);
    let before = meter.report();
    http.get(
        &format!("/rooms/{room}/chat?after=110"),
        Some(&players[1].token),
    )
    .await;
    let ten_poll = meter.report().since(&before);
    let before = meter.report();
    let all = read(&http, &room, Some(&players[1])).await;
    let full_poll = meter.report().since(&before);
    let per = |r: &CapacityReport, n: f64| (r.read_units / n, r.write_units / n);
    let (r1, w1) = per(&first, 100.0);
    let (r2, w2) = per(&later, 20.0);
    let dollars = |r: f64, w: f64| (r * 0.125 + w * 0.625) / 1e6;
    println!("chat on DynamoDB (dynalite's meter), 4-player 윷놀이 team room");
    println!("| what | read units | write units | $ per million |");
    println!("|---|---|---|---|");
    println!(
        "| a post, messages 1–100 | {r1:.2} | {w1:.2} | {:.3} |",
        dollars(r1, w1) * 1e6
    );
    println!(
        "| a post, past the 100th (deletes the oldest) | {r2:.2} | {w2:.2} | {:.3} |",
        dollars(r2, w2) * 1e6
    );
    println!(
        "| a poll, nothing new | {:.2} | {:.2} | {:.3} |",
        empty_poll.read_units,
        empty_poll.write_units,
        dollars(empty_poll.read_units, empty_poll.write_units) * 1e6
    );
    println!(
        "| a poll, 10 new messages | {:.2} | {:.2} | {:.3} |",
        ten_poll.read_units,
        ten_poll.write_units,
        dollars(ten_poll.read_units, ten_poll.write_units) * 1e6
    );
    println!(
        "| a poll from 0, all {} kept messages visible to one player | {:.2} | {:.2} | {:.3} |",
        all.len(),
        full_poll.read_units,
        full_poll.write_units,
        dollars(full_poll.read_units, full_poll.write_units) * 1e6
    );
    println!("largest chat record: {max_record} bytes");
    // (dynalite bills nothing for the first post's query of an empty log: 1.99, not 2.)
    assert!(
        (1.99..=2.0).contains(&r1) && w1 == 1.0,
        "a post: the room and the newest record read, one record written: {r1} {w1}"
    );
    assert_eq!(
        (r2, w2),
        (2.0, 2.0),
        "past the 100th: one more write, the delete"
    );
    assert!(
        max_record < 1024,
        "a chat record stays under 1 KB: {max_record}"
    );
    assert_eq!(
        rooms_item(store.clone(), room.clone()).await,
        room_before,
        "chat wrote nothing to the rooms table"
    );
}
