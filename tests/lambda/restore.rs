//! The restore procedure, as far as an emulator allows (docs/operate.md, "Restore"): a table
//! with live rooms is exported to DynamoDB JSON (`madang_tests::table_json`, the `table_json`
//! tool), restored into a fresh table, and a new stack on that table serves the same rooms:
//! the same versions and views, the players' tokens still valid, and the games play on to the
//! end.

use std::sync::Arc;

use madang_infra::DynamoStore;
use madang_infra::dynamo::ensure_table;
use madang_infra::emulator::{dynalite, dynalite_client, dynalite_store};
use madang_tests::games::{play_out, seated_yut};
use madang_tests::lambda::{LambdaStack, StackConfig};
use madang_tests::table_json;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_exported_to_json_and_restored_into_a_fresh_table_plays_on() {
    let config = StackConfig {
        api_environments: 2,
        ..StackConfig::default()
    };
    let store = Arc::new(dynalite_store("l-backup").await);
    let before = LambdaStack::start(store.clone(), &dynalite(), config.clone()).await;
    // Two live games a few actions in, and a lobby.
    let mut games = Vec::new();
    for seed in [11, 12] {
        let (room, players) = seated_yut(&before.app, json!({"turnSeconds": null}), seed, 2).await;
        for _ in 0..3 {
            let view = before.app.room(&room, None).await;
            let current = view["state"]["currentPlayer"].as_str().unwrap();
            let player = players.iter().find(|p| p.id == current).unwrap();
            let mine = before.app.room(&room, Some(player)).await;
            before
                .app
                .act_ok(
                    &room,
                    player,
                    madang_tests::games::yut_action(&mine["state"]),
                )
                .await;
        }
        games.push((room, players));
    }
    let (lobby, _) = before.app.create("baduk", json!({}), 3).await;
    let views: Vec<Value> = {
        let mut views = Vec::new();
        for (room, players) in &games {
            views.push(before.app.room(room, Some(&players[0])).await);
        }
        views
    };

    // Export to JSON text, as the tool writes it, and import into a fresh table.
    let client = dynalite_client().await;
    let exported = table_json::export(&client, store.table()).await.unwrap();
    let text = serde_json::to_string_pretty(&exported).unwrap();
    let items: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(items.len() >= 3, "{} items", items.len());
    let fresh = format!("{}-restored", store.table());
    ensure_table(&client, &fresh).await.unwrap();
    assert_eq!(
        table_json::import(&client, &fresh, &items).await.unwrap(),
        items.len()
    );
    // Importing again refuses to overwrite.
    assert!(
        table_json::import(&client, &fresh, &items[..1])
            .await
            .is_err()
    );
    drop(before);

    let restored = Arc::new(DynamoStore::new(client.clone(), fresh));
    let after = LambdaStack::start(restored.clone(), &dynalite(), config).await;
    assert_eq!(
        table_json::export(&client, restored.table()).await.unwrap(),
        exported,
        "the restored table holds the very items"
    );
    for ((room, players), view) in games.iter().zip(&views) {
        let now = after.app.room(room, Some(&players[0])).await;
        assert_eq!(now["version"], view["version"]);
        assert_eq!(now["state"], view["state"]);
        let end = play_out(&after.app, room, players).await;
        assert_eq!(end["status"], "finished");
    }
    let lobby_view = after.app.room(&lobby, None).await;
    assert_eq!(lobby_view["status"], "lobby");
}
